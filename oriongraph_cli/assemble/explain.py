"""What travels with the working set to explain it: the settings in effect, and one
explanation per selected span (every channel's raw and normalised score, the
diversity penalty, the reasons)."""

from __future__ import annotations

from typing import Any

from oriongraph_cli.config import Config
from oriongraph_cli.models import CompileRequest, DerivedSignals, SpanExplanation
from oriongraph_cli.rank.weights import effective_weights, weak_lexical


def effective_defaults(cfg: Config, request: CompileRequest, signals: DerivedSignals | None = None) -> dict[str, Any]:
    w = effective_weights(request, cfg, signals)
    return {
        "weights": w.to_dict(),
        # the lexical channel's best match at most ``score``: ``shift`` of its weight went to the
        # semantic channel (``applied``: for this intent; absent before ranking)
        "weak_lexical": {"score": cfg.weak_lexical_score, "shift": cfg.weak_lexical_shift,
                         **({"applied": weak_lexical(cfg, signals)} if signals is not None and signals.lexical_best is not None else {})},
        "fusion": request.fusion or cfg.fusion,
        "rrf_k": cfg.rrf_k,
        "doc_evidence": cfg.doc_evidence,
        "doc_evidence_spread": cfg.doc_evidence_spread,
        "doc_evidence_peer": cfg.doc_evidence_peer,
        "lead_whole_ratio": cfg.lead_whole_ratio,
        "lead_whole_tokens": cfg.lead_whole_tokens,
        "strong_whole_ratio": cfg.strong_whole_ratio,
        "diversity_lambda": request.soft_prefs.diversity_lambda,
        "max_source_ratio": request.soft_prefs.max_single_source_ratio,
        "mmr_threshold": cfg.mmr_threshold,
        "relevance_floor": cfg.relevance_floor,
        "floor_depth": cfg.floor_depth,
        "document_floor": cfg.document_floor,
        "top_k": request.top_k,
        "recency_half_life_days": cfg.recency_half_life_days,
        "graph": {"enabled": cfg.graph, "depth": cfg.graph_depth, "method": cfg.graph_method, "seeds": cfg.graph_seeds},
        "lifecycle": {"enabled": cfg.lifecycle, "demote": cfg.lifecycle_demote, "final_boost": cfg.lifecycle_final_boost,
                      "inactive_demote": cfg.lifecycle_inactive_demote, "likely_replaced": cfg.likely_replaced,
                      "likely_replaced_demote": cfg.likely_replaced_demote},
        "usage": {"weight": w.usage, "dynamic_weights": cfg.usage_weights or "defaults"},
        "expand": request.expand,
    }


def rationale(entries, items, weights) -> tuple[SpanExplanation, ...]:
    """One explanation per working-set item (``entries``: (Picked, expansion_of) in order)."""
    return tuple(
        SpanExplanation(
            span_ref=p.candidate.span_ref,
            path=p.candidate.metadata.filepath,
            section_title=p.candidate.metadata.section_title,
            final_score=p.mmr_score,
            base_score=p.candidate.base_score,
            diversity_penalty=p.diversity_penalty,
            raw_scores=p.candidate.raw_scores,
            scores=p.candidate.scores,
            weights=weights,
            recency_score=p.candidate.metadata.recency_score,
            stage_boost=p.candidate.stage_boost,
            usage_score=p.candidate.usage_score,
            final_rank=item.selection_rank,
            reasons=p.candidate.reasons,
            components=p.candidate.components,
        )
        for (p, _exp), item in zip(entries, items)
    )
