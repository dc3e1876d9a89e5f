"""Settings fitted to judged intents without overfitting them (``orion eval --tune``; the
multi-project benchmark uses the same functions with projects in place of folds).

Two stages, each a small named search space:

1. **Ranking** (fusion method and channel weights), judged by nDCG@10 of the document
   ranking compile scores.
2. **Selection** (relevance floor, the ranking-depth floor, MMR λ, source cap, how much
   of the budget document evidence buys), on top of the chosen ranking, judged first by
   the targets a compile must meet against naive "top-k + pack" (working-set recall at
   every budget at least the best naive pack's, the relevant share at the largest budget
   at least RRF's: met on the most groups wins), then by working-set recall at each
   budget plus half the relevant share of the delivered tokens.

Cross-validation: the intents are split into folds (or the benchmark's projects are the
groups); for each held-out group both stages are chosen on the other groups only and the
choice is measured on the held-out one. The settings reported for use are chosen on all
groups; the held-out figures say what that choice is worth on intents it never saw.
Groups count equally (a macro average), so one large group cannot choose for the rest.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from oriongraph_cli.config import Config

BUDGETS = (1000, 4000)
DEFAULT_FOLDS = 5
MIN_QUERIES = 10  # fewer judged intents cannot be split into folds that say anything
BOOTSTRAP = 2000


@dataclass(frozen=True)
class Variant:
    name: str
    settings: tuple[tuple[str, Any], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return dict(self.settings)


def _v(name: str, **settings: Any) -> Variant:
    return Variant(name, tuple(sorted(settings.items())))


# settings whose defaults moved after these spaces were measured: a variant that does not
# name them means the value it was measured with, so a fresh run measures the same thing
_RANKING_BASE = {"w_structural": 0.2, "doc_evidence": 0.0, "weak_lexical_score": 0.0}
_SELECTION_BASE = {"doc_evidence_spread": 0.0, "lead_whole_ratio": 0.0, "lead_whole_tokens": 0, "document_floor": 0.0,
                   "strong_whole_ratio": 0.0, "cap_yield": 0.9}


def _based(space: tuple[Variant, ...], base: Mapping[str, Any]) -> tuple[Variant, ...]:
    return tuple(_v(v.name, **{**base, **v.as_dict()}) for v in space)


# the ranking every fold of the generalisation suite chose: the variants built on it name only
# what they change (_FUSED: before a weak lexical match leaned on meaning, as they were measured)
_FUSED = dict(fusion="hybrid", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85,
              lifecycle_inactive_demote=0.85, doc_evidence=0.3, w_structural=0.1)
# ... and with it, chosen leave-one-project-out over 66 projects (config.weak_lexical_score)
_CHOSEN = {**_FUSED, "weak_lexical_score": 22.8, "weak_lexical_shift": 0.2}

# Stage 1: how channels are fused. Weights: semantic/lexical share of the relevance.
RANKING_SPACE: tuple[Variant, ...] = (
    _v("weighted 0.6/0.3", fusion="weighted", w_semantic=0.6, w_lexical=0.3, doc_evidence=0.0),
    _v("weighted 0.5/0.5", fusion="weighted", w_semantic=0.5, w_lexical=0.5),
    _v("rrf 0.6/0.3", fusion="rrf", w_semantic=0.6, w_lexical=0.3),
    _v("rrf 0.5/0.5", fusion="rrf", w_semantic=0.5, w_lexical=0.5),
    _v("zscore 0.6/0.3", fusion="zscore", w_semantic=0.6, w_lexical=0.3),
    _v("zscore 0.5/0.5", fusion="zscore", w_semantic=0.5, w_lexical=0.5),
    _v("percentile 0.6/0.3", fusion="percentile", w_semantic=0.6, w_lexical=0.3),
    _v("percentile 0.5/0.5", fusion="percentile", w_semantic=0.5, w_lexical=0.5),
    _v("calibrated 0.6/0.3", fusion="calibrated", w_semantic=0.6, w_lexical=0.3),
    _v("calibrated 0.5/0.5", fusion="calibrated", w_semantic=0.5, w_lexical=0.5),
    _v("weighted 0.5/0.5, no graph", fusion="weighted", w_semantic=0.5, w_lexical=0.5, w_graph=0.0),
    _v("weighted 0.6/0.3, no graph", fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.0),
    _v("weighted 0.6/0.3, graph 0.05", fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.05),
    _v("rrf 0.5/0.5, no graph", fusion="rrf", w_semantic=0.5, w_lexical=0.5, w_graph=0.0),
    _v("zscore 0.5/0.5, no graph", fusion="zscore", w_semantic=0.5, w_lexical=0.5, w_graph=0.0),
    _v("percentile 0.5/0.5, no graph", fusion="percentile", w_semantic=0.5, w_lexical=0.5, w_graph=0.0),
    _v("calibrated 0.6/0.3, no graph", fusion="calibrated", w_semantic=0.6, w_lexical=0.3, w_graph=0.0),
    _v("hybrid 0.6/0.3", fusion="hybrid", w_semantic=0.6, w_lexical=0.3),
    _v("hybrid 0.5/0.5", fusion="hybrid", w_semantic=0.5, w_lexical=0.5),
    _v("hybrid 0.5/0.5, no graph", fusion="hybrid", w_semantic=0.5, w_lexical=0.5, w_graph=0.0),
    # a deeper candidate pool (each generator's top-k): long documents spread their evidence
    _v("hybrid 0.5/0.5, no graph, top-k 500", fusion="hybrid", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=500),
    _v("hybrid 0.5/0.5, no graph, top-k 1000", fusion="hybrid", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000),
    _v("rrf 0.5/0.5, no graph, top-k 1000", fusion="rrf", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000),
    _v("weighted 0.6/0.3, no graph, top-k 500", fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.0, top_k=500),
    _v("weighted 0.6/0.3, no graph, top-k 1000", fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.0, top_k=1000),
    # a replaced decision demoted less (its successor is still raised above it)
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85", fusion="hybrid", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000,
       lifecycle_demote=0.85),
    _v("rrf 0.5/0.5, no graph, top-k 1000, demote 0.85", fusion="rrf", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000,
       lifecycle_demote=0.85),
    _v("weighted 0.6/0.3, no graph, top-k 1000, demote 0.85", fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.0,
       top_k=1000, lifecycle_demote=0.85),
    # rejected and withdrawn decisions demoted too
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85", fusion="hybrid", w_semantic=0.5, w_lexical=0.5,
       w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85),
    _v("rrf 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85", fusion="rrf", w_semantic=0.5, w_lexical=0.5,
       w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85),
    # the structural channel (title, heading, id and tag matches) counts less or not at all when
    # the intent names structure; a document's next-best spans lift it
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, structural 0.1", fusion="hybrid", w_semantic=0.5,
       w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85, w_structural=0.1),
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, no structural", fusion="hybrid", w_semantic=0.5,
       w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85, w_structural=0.0),
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.15", fusion="hybrid", w_semantic=0.5,
       w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85, doc_evidence=0.15),
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.3, structural 0.1", fusion="hybrid",
       w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85,
       doc_evidence=0.3, w_structural=0.1),
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.15, structural 0.1", fusion="hybrid",
       w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85,
       doc_evidence=0.15, w_structural=0.1),
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.5, structural 0.1", fusion="hybrid",
       w_semantic=0.5, w_lexical=0.5, w_graph=0.0, top_k=1000, lifecycle_demote=0.85, lifecycle_inactive_demote=0.85,
       doc_evidence=0.5, w_structural=0.1),
    # rank fusion that trusts the top of each channel more (k 20), and the meaning channel more
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.3, structural 0.1, rrf k 20", **_FUSED, rrf_k=20),
    _v("hybrid 0.6/0.4, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.3, structural 0.1",
       **{**_FUSED, "w_semantic": 0.6, "w_lexical": 0.4}),
    _v("hybrid 0.6/0.4, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.3, structural 0.1, rrf k 20",
       **{**_FUSED, "w_semantic": 0.6, "w_lexical": 0.4}, rrf_k=20),
    # the meaning channel's share from 0.3 to 0.9 on the shipped ranking: a project whose words
    # are far from its users' (cheat sheets that never name the task) wants more of it, one whose
    # intents name identifiers less; no share but 0.5 wins across projects, so only a project's
    # own intents choose another
    *(_v(f"hybrid {s:g}/{round(1 - s, 1):g}, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.3, structural 0.1",
         **{**_FUSED, "w_semantic": s, "w_lexical": round(1 - s, 1)}) for s in (0.3, 0.4, 0.7, 0.8, 0.9)),
    # a weak lexical match (the best BM25 score at most 22.8) moves 0.2 of the lexical weight to
    # the semantic channel: the one per-intent rule every fold chose over 66 projects
    _v("hybrid 0.5/0.5, no graph, top-k 1000, demote 0.85, inactive 0.85, doc 0.3, structural 0.1, weak lexical 22.8",
       **_CHOSEN),
    # decisions likely replaced by a later one (rank/implicit.py)
    _v("weighted 0.6/0.3, likely replaced", fusion="weighted", w_semantic=0.6, w_lexical=0.3, likely_replaced=True),
    # document evidence: a document's next-best spans lift it (score.document_evidence)
    _v("weighted 0.6/0.3, doc 0.15", fusion="weighted", w_semantic=0.6, w_lexical=0.3, doc_evidence=0.15),
    _v("weighted 0.6/0.3, doc 0.3", fusion="weighted", w_semantic=0.6, w_lexical=0.3, doc_evidence=0.3),
    _v("weighted 0.6/0.3, doc 0.5", fusion="weighted", w_semantic=0.6, w_lexical=0.3, doc_evidence=0.5),
    _v("weighted 0.6/0.3, no graph, doc 0.15", fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.0, doc_evidence=0.15),
    _v("weighted 0.5/0.5, no graph, doc 0.15", fusion="weighted", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, doc_evidence=0.15),
    _v("weighted 0.5/0.5, no graph, doc 0.3", fusion="weighted", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, doc_evidence=0.3),
    _v("rrf 0.5/0.5, doc 0.3", fusion="rrf", w_semantic=0.5, w_lexical=0.5, doc_evidence=0.3),
    _v("zscore 0.5/0.5, no graph, doc 0.3", fusion="zscore", w_semantic=0.5, w_lexical=0.5, w_graph=0.0, doc_evidence=0.3),
    _v("calibrated 0.6/0.3, doc 0.3", fusion="calibrated", w_semantic=0.6, w_lexical=0.3, doc_evidence=0.3),
)
RANKING_SPACE = _based(RANKING_SPACE, _RANKING_BASE)
# Stage 2: when selection stops, and how it spreads the budget.
# floor 0.5 × depth 1.5, λ 1, the leading document read whole: what the document floor is tried on
_LEAD_WHOLE = dict(relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, lead_whole_ratio=1.0)
SELECTION_SPACE: tuple[Variant, ...] = (
    _v("floor 0.5", relevance_floor=0.5, floor_depth=0.0),
    _v("floor 0.5, depth 1", relevance_floor=0.5, floor_depth=1.0),
    _v("floor 0.5, depth 1.5", relevance_floor=0.5, floor_depth=1.5),
    _v("no floor", relevance_floor=0.0, floor_depth=0.0),
    _v("floor 0.5, depth 1.5, λ 0.7", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=0.7),
    _v("floor 0.5, depth 1.5, λ 1", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0),
    _v("floor 0.5, depth 1, cap 0.25", relevance_floor=0.5, floor_depth=1.0, max_source_ratio=0.25),
    _v("floor 0.5, depth 1, λ 0.7, cap 0.25", relevance_floor=0.5, floor_depth=1.0, diversity_lambda=0.7, max_source_ratio=0.25),
    # how much of the budget a document's evidence buys it (score.document_evidence)
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=0.5),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.75", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=0.75),
    _v("floor 0.5, depth 1.5, λ 1, spread 1", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=1.0),
    # the leading document read whole when all of it fits in this share of the budget
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5, lead whole 0.5", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=0.5, lead_whole_ratio=0.5),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5, lead whole 1", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=0.5, lead_whole_ratio=1.0),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.6, lead whole 1", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=0.6, lead_whole_ratio=1.0),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.75, lead whole 1", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=0.75, lead_whole_ratio=1.0),
    _v("floor 0.5, depth 1.5, λ 1, spread 1, lead whole 1", relevance_floor=0.5, floor_depth=1.5, diversity_lambda=1.0, doc_evidence_spread=1.0, lead_whole_ratio=1.0),
    # depth before breadth: new documents only above document_floor × the best while others remain
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5, lead whole 1, doc floor 0.6", **_LEAD_WHOLE, doc_evidence_spread=0.5, document_floor=0.6),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5, lead whole 1, doc floor 0.7", **_LEAD_WHOLE, doc_evidence_spread=0.5, document_floor=0.7),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5, lead whole 1, doc floor 0.8", **_LEAD_WHOLE, doc_evidence_spread=0.5, document_floor=0.8),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.5, lead whole 1, doc floor 0.9", **_LEAD_WHOLE, doc_evidence_spread=0.5, document_floor=0.9),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.25, lead whole 1, doc floor 0.7", **_LEAD_WHOLE, doc_evidence_spread=0.25, document_floor=0.7),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.25, lead whole 1, doc floor 0.8", **_LEAD_WHOLE, doc_evidence_spread=0.25, document_floor=0.8),
    _v("floor 0.5, depth 1.5, λ 1, spread 0.25, lead whole 1, doc floor 0.9", **_LEAD_WHOLE, doc_evidence_spread=0.25, document_floor=0.9),
    _v("floor 0.5, depth 1.5, λ 1, lead whole 1, doc floor 0.8", **_LEAD_WHOLE, document_floor=0.8),
    # the strong documents after a leader read whole are read whole too, within this share
    _v("floor 0.5, depth 1.5, λ 1, lead whole 1, doc floor 0.8, strong whole 0.5", **_LEAD_WHOLE, document_floor=0.8,
       strong_whole_ratio=0.5),
    _v("floor 0.5, depth 1.5, λ 1, lead whole 1, doc floor 0.8, strong whole 1", **_LEAD_WHOLE, document_floor=0.8,
       strong_whole_ratio=1.0),
    _v("floor 0.5, depth 1.5, λ 1, lead whole 1, doc floor 0.8, strong whole 0.5, cap yield 0.95", **_LEAD_WHOLE,
       document_floor=0.8, strong_whole_ratio=0.5, cap_yield=0.95),
    # ... with the leader read whole within half the budget, or within 1,000 tokens where the budget holds them
    _v("floor 0.5, depth 1.5, λ 1, lead whole 0.5 or 1000 tokens, doc floor 0.8, strong whole 0.5, cap yield 0.95",
       **{**_LEAD_WHOLE, "lead_whole_ratio": 0.5}, lead_whole_tokens=1000, document_floor=0.8, strong_whole_ratio=0.5,
       cap_yield=0.95),
    # ... and a document's evidence spread to its other spans (SciFact's evidence sentences ask it)
    _v("floor 0.5, depth 1.5, λ 1, lead whole 1, doc floor 0.8, strong whole 0.5, cap yield 0.95, spread 0.5", **_LEAD_WHOLE,
       document_floor=0.8, strong_whole_ratio=0.5, cap_yield=0.95, doc_evidence_spread=0.5),
    _v("floor 0.5, depth 1.5, λ 1, lead whole 1, doc floor 0.8, strong whole 0.5, cap yield 0.95, spread 0.75", **_LEAD_WHOLE,
       document_floor=0.8, strong_whole_ratio=0.5, cap_yield=0.95, doc_evidence_spread=0.75),
)
SELECTION_SPACE = _based(SELECTION_SPACE, _SELECTION_BASE)

Row = dict[str, float]  # one intent's figures: "ndcg", "ws@1000", "share@1000", "util@1000", ...
ProgressFn = Callable[[str, int, int], None]


def ranking_objective(row: Row) -> float:
    return row["ndcg"]


SHARE_WEIGHT = 0.5  # relevant share against working-set recall (fixed before the multi-project benchmark ran)


def selection_objective(row: Row, budgets: Sequence[int] = BUDGETS) -> float:
    return sum(row[f"ws@{b}"] + SHARE_WEIGHT * row[f"share@{b}"] for b in budgets) / len(budgets)


def with_settings(cfg: Config, settings: Mapping[str, Any], source: str = "tuning") -> Config:
    """``cfg`` with ``settings`` applied, each checked as if it came from ``source``."""
    from oriongraph_cli.config import _coerce, _validate

    values = {k: _coerce(k, v, f"{source}: {k}") for k, v in settings.items()}
    out = replace(cfg, **values)
    _validate(out)
    return out


# ---------------------------------------------------------------- measuring


def measure(cfg: Config, reader, queries, variant: Variant, budgets: Sequence[int] = BUDGETS,
            ranking_only: bool = False, *, progress: ProgressFn | None = None) -> list[Row]:
    """One row per query: nDCG@10 of compile's ranking and, unless ``ranking_only``, the
    working set compiled at each budget (recall, relevant share, utilisation). The reader's
    repeat cache keeps each intent's embedding and generator hits across variants."""
    from oriongraph_cli import pipeline
    from oriongraph_cli.errors import NoCandidatesError
    from oriongraph_cli.evaluate import (
        default_request,
        delivered_docs,
        doc_ranking,
        quoted_docs,
        ndcg_at_k,
        relevant_share,
        set_recall,
        working_set_tokens,
    )

    if reader.repeat_cache is None:
        reader.repeat_cache = {}
    vcfg = with_settings(cfg, variant.as_dict())
    rows: list[Row] = []
    for i, q in enumerate(queries):
        rel = q.positives
        req = default_request(vcfg, q.text, max(budgets))
        ranked = pipeline.rank_candidates(req, vcfg, reader)
        row: Row = {"ndcg": ndcg_at_k(doc_ranking(c.metadata.filepath for c in ranked[1]), rel)}
        if not ranking_only:
            for b in budgets:
                try:  # the largest budget compiles on the ranking just read (the budget is part of it)
                    resp = pipeline.compile_workingset(replace(req, budget_tokens=b), vcfg, reader,
                                                       ranked=ranked if b == req.budget_tokens else None)
                except NoCandidatesError:
                    row.update({f"ws@{b}": 0.0, f"wsq@{b}": 0.0, f"share@{b}": 0.0, f"util@{b}": 0.0, f"quoted@{b}": 0.0})
                    continue
                by_doc = working_set_tokens(resp)
                row[f"ws@{b}"] = set_recall(delivered_docs(resp), rel)
                row[f"wsq@{b}"] = set_recall(quoted_docs(resp), rel)  # without the copies named beside a quote
                row[f"share@{b}"] = relevant_share(by_doc, rel)
                row[f"util@{b}"] = resp.stats.delivered_tokens / b
                row[f"quoted@{b}"] = resp.workingset.total_tokens / b
        rows.append(row)
        if progress is not None:
            progress(variant.name, i + 1, len(queries))
    return rows


def measure_baselines(cfg: Config, reader, queries, budgets: Sequence[int] = BUDGETS, names=("bm25", "dense", "rrf"), *,
                      progress: ProgressFn | None = None) -> dict[str, list[Row]]:
    """The same rows for the single-channel baselines and RRF, each ranking spans and packing
    them naively in rank order (``orion eval --compare``)."""
    from oriongraph_cli import pipeline
    from oriongraph_cli.evaluate import baseline_result, baseline_span_lists, default_request

    if reader.repeat_cache is None:
        reader.repeat_cache = {}
    out: dict[str, list[Row]] = {n: [] for n in names}
    for i, q in enumerate(queries):
        req = default_request(cfg, q.text, max(budgets))
        sig, *_ = pipeline.rank_candidates(req, cfg, reader)
        lists = baseline_span_lists(reader, sig, names)
        for n in names:
            row: Row = {}
            for b in budgets:
                r = baseline_result(reader, lists[n], b, q.positives)
                row["ndcg"] = r.ndcg_at_10
                row[f"ws@{b}"], row[f"share@{b}"], row[f"util@{b}"] = r.ws_recall, r.relevant_share, r.utilisation
                row[f"quoted@{b}"] = r.utilisation  # the naive pack delivers its chunks and nothing else
            out[n].append(row)
        if progress is not None:
            progress("baselines", i + 1, len(queries))
    return out


# ---------------------------------------------------------------- choosing


def mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def macro(table: Mapping[str, Mapping[str, list[Row]]], groups: Sequence[str], variant: str, objective: Callable[[Row], float]) -> float:
    """The objective averaged within each group, then over groups (each group counts once)."""
    return mean([mean([objective(r) for r in table[g][variant]]) for g in groups])


def choose(table: Mapping[str, Mapping[str, list[Row]]], groups: Sequence[str], variants: Sequence[str],
           objective: Callable[[Row], float], targets: Callable[[str, str], bool] | None = None) -> str:
    """The variant with the best macro objective over ``groups``; ties go to the earlier one.
    With ``targets`` (``targets(group, variant)``: does the variant meet the targets on that
    group), the variant meeting them on the most groups wins first and the objective decides
    between variants meeting them on as many."""
    best, best_key = None, (float("-inf"), float("-inf"))
    for v in variants:
        met = sum(1 for g in groups if targets(g, v)) if targets is not None else 0
        key = (met, macro(table, groups, v, objective))
        if key[0] > best_key[0] or (key[0] == best_key[0] and key[1] > best_key[1] + 1e-12):
            best, best_key = v, key
    assert best is not None
    return best


def selection_targets(table: Mapping[str, Mapping[str, list[Row]]], baselines: Mapping[str, Mapping[str, list[Row]]],
                      budgets: Sequence[int] = BUDGETS) -> Callable[[str, str], bool]:
    """``targets(group, variant)`` for :func:`choose`: on that group the variant's working-set
    recall is at least the best naive pack's at every budget, and its relevant share at the
    largest budget at least RRF's — what a compile must do better than "top-k + pack".
    ``baselines[group][name]``: the rows of the naive packs (``measure_baselines``)."""

    def avg(rows: list[Row], m: str) -> float:
        return mean([r[m] for r in rows])

    def met(g: str, v: str) -> bool:
        rows, base = table[g][v], baselines[g]
        for b in budgets:
            if avg(rows, f"ws@{b}") < max(avg(base[n], f"ws@{b}") for n in base) - 1e-9:
                return False
        top = max(budgets)
        return "rrf" not in base or avg(rows, f"share@{top}") >= avg(base["rrf"], f"share@{top}") - 1e-9

    return met


def bootstrap_interval(deltas: Sequence[float], n: int = BOOTSTRAP, seed: int = 1) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean of paired differences."""
    if not deltas:
        return (0.0, 0.0)
    rnd = random.Random(seed)
    k = len(deltas)
    means = sorted(sum(deltas[rnd.randrange(k)] for _ in range(k)) / k for _ in range(n))
    return means[int(0.025 * n)], means[min(n - 1, int(0.975 * n))]


def folds_of(n: int, k: int, seed: int = 7) -> list[int]:
    """Fold number of each of ``n`` queries: a seeded shuffle dealt round-robin into ``k``."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    out = [0] * n
    for pos, i in enumerate(order):
        out[i] = pos % k
    return out


@dataclass
class TuneReport:
    """What ``orion eval --tune`` prints (and ``--json`` writes)."""

    queries: int
    folds: int
    budgets: tuple[int, ...]
    current: dict[str, Any]  # the settings in force before tuning
    chosen: dict[str, Any]  # chosen on all queries (what --write writes)
    chosen_names: tuple[str, str]
    variants: list[dict[str, Any]] = field(default_factory=list)  # one row per variant, all queries
    held_out: dict[str, Any] = field(default_factory=dict)  # per metric: current, tuned, gain, interval
    fold_choices: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1, "kind": "tune", "queries": self.queries, "folds": self.folds,
            "budgets": list(self.budgets), "current": self.current, "chosen": self.chosen,
            "chosen_variants": {"ranking": self.chosen_names[0], "selection": self.chosen_names[1]},
            "variants": self.variants, "held_out": self.held_out,
            "fold_choices": [{"ranking": r, "selection": s} for r, s in self.fold_choices],
        }


def current_settings(cfg: Config) -> dict[str, Any]:
    keys = {k for v in (*RANKING_SPACE, *SELECTION_SPACE) for k, _ in v.settings}
    return {k: getattr(cfg, k) for k in sorted(keys)}


def choose_selection(sel_table, groups: Sequence[str], budgets: Sequence[int] = BUDGETS, baselines=None) -> str:
    """The selection variant chosen on ``groups``: meeting :func:`selection_targets` on the
    most groups (when the naive packs' ``baselines`` are given), then the objective."""
    targets = selection_targets(sel_table, baselines, budgets) if baselines is not None else None
    return choose(sel_table, groups, [v.name for v in SELECTION_SPACE], lambda row: selection_objective(row, budgets), targets)


def cross_validate(rank_table, sel_table_for, groups: Sequence[str], budgets: Sequence[int] = BUDGETS, baselines=None):
    """For each held-out group: (ranking chosen on the others, selection chosen on the others
    given that ranking). ``sel_table_for(ranking name)`` measures the selection space on top
    of a ranking (memoised by the caller); ``baselines[group][name]``: the naive packs' rows."""
    out = []
    for g in groups:
        train = [h for h in groups if h != g]
        r = choose(rank_table, train, [v.name for v in RANKING_SPACE], ranking_objective)
        out.append((g, r, choose_selection(sel_table_for(r), train, budgets, baselines)))
    return out


def tune(cfg: Config, queries, *, folds: int = DEFAULT_FOLDS, budgets: Sequence[int] = BUDGETS, reader=None,
         progress: ProgressFn | None = None, jobs: int = 1) -> TuneReport:
    """Cross-validated tuning on one project's judged intents (module doc). ``jobs``
    processes measure the settings (0: one per core; 1: this process, on ``reader``);
    ``progress(stage, intents measured, of)`` for each of the two stages."""
    from oriongraph_cli.errors import ExitStatus, OrionError
    from oriongraph_cli.parallel import Job, run_jobs, workers_for
    from oriongraph_cli.store.reader import IndexReader

    queries = list(queries)
    if len(queries) < MIN_QUERIES:
        raise OrionError(f"--tune needs at least {MIN_QUERIES} judged intents, got {len(queries)}",
                         hint="judge more intents (30 or more give settings worth keeping)", exit_code=ExitStatus.USAGE)
    folds = max(2, min(int(folds), len(queries)))
    workers = workers_for(jobs)
    own = reader is None
    # with workers, this process only holds the generation they read: no model to load
    reader = reader or IndexReader(cfg, load_embedder=workers <= 1)
    try:
        fold = folds_of(len(queries), folds)
        groups = [str(f) for f in range(folds)]

        def split(rows: list[Row]) -> dict[str, list[Row]]:
            return {g: [r for r, f in zip(rows, fold) if str(f) == g] for g in groups}

        def run(stage: str, stage_jobs: list[Job]) -> list:
            total, done = len(stage_jobs) * len(queries), 0

            def tick(n: int) -> None:
                nonlocal done
                done += n
                progress(stage, done, total)

            return run_jobs(stage_jobs, reader, queries, workers=workers, tick=tick if progress is not None else None)

        base_cfg = cfg
        # stage 1: every ranking, the naive packs and the current settings, all independent;
        # the two that compile first, so no process is left with a long job at the end
        current, base_rows, *first = run(f"measuring {len(RANKING_SPACE)} rankings", [
            Job(measure, base_cfg, (Variant("current"), budgets)),
            Job(measure_baselines, base_cfg, (budgets,)),
            *(Job(measure, base_cfg, (v, budgets, True)) for v in RANKING_SPACE),
        ])
        rank_rows = {v.name: rows for v, rows in zip(RANKING_SPACE, first)}
        rank_table = {g: {n: split(rows)[g] for n, rows in rank_rows.items()} for g in groups}
        baselines = {g: {n: split(rows)[g] for n, rows in base_rows.items()} for g in groups}
        # stage 2: the selection space on each ranking some fold chooses, or all the intents do
        names = [v.name for v in RANKING_SPACE]
        r_all = choose(rank_table, groups, names, ranking_objective)
        wanted = list(dict.fromkeys([*(choose(rank_table, [h for h in groups if h != g], names, ranking_objective) for g in groups), r_all]))
        by_name = {v.name: v for v in RANKING_SPACE}
        second = run(f"measuring {len(SELECTION_SPACE)} selections on {len(wanted)} ranking{'s' if len(wanted) > 1 else ''}", [
            Job(measure, with_settings(base_cfg, by_name[r].as_dict()), (v, budgets)) for r in wanted for v in SELECTION_SPACE])
        sel_cache = {r: {v.name: second[i * len(SELECTION_SPACE) + j] for j, v in enumerate(SELECTION_SPACE)} for i, r in enumerate(wanted)}

        def sel_table(r: str):
            rows = sel_cache[r]
            return {g: {n: split(rs)[g] for n, rs in rows.items()} for g in groups}

        per_fold = cross_validate(rank_table, sel_table, groups, budgets, baselines)
        tuned_held: list[Row] = [dict() for _ in queries]
        for g, r, s in per_fold:
            rows = sel_cache[r][s]
            for i, f in enumerate(fold):
                if str(f) == g:
                    tuned_held[i] = rows[i]
        # the settings to use: chosen on every query
        s_all = choose_selection(sel_table(r_all), groups, budgets, baselines)
        chosen = {**by_name[r_all].as_dict(), **next(v for v in SELECTION_SPACE if v.name == s_all).as_dict()}
        metrics = ["ndcg"] + [f"{m}@{b}" for b in budgets for m in ("ws", "share", "util")]
        held = {}
        for m in metrics:
            d = [t[m] - c[m] for t, c in zip(tuned_held, current)]
            lo, hi = bootstrap_interval(d)
            held[m] = {"current": round(mean([c[m] for c in current]), 4), "tuned": round(mean([t[m] for t in tuned_held]), 4),
                       "gain": round(mean(d), 4), "interval": [round(lo, 4), round(hi, 4)]}
        variants = []
        for v in RANKING_SPACE:
            variants.append({"stage": "ranking", "name": v.name, "settings": v.as_dict(),
                             "ndcg": round(mean([r["ndcg"] for r in rank_rows[v.name]]), 4)})
        for v in SELECTION_SPACE:
            rows = sel_cache[r_all][v.name]
            entry = {"stage": "selection", "name": v.name, "settings": v.as_dict(), "on": r_all}
            for b in budgets:
                entry[f"ws@{b}"] = round(mean([r[f"ws@{b}"] for r in rows]), 4)
                entry[f"share@{b}"] = round(mean([r[f"share@{b}"] for r in rows]), 4)
            variants.append(entry)
        return TuneReport(
            queries=len(queries), folds=folds, budgets=tuple(budgets), current=current_settings(cfg), chosen=chosen,
            chosen_names=(r_all, s_all), variants=variants, held_out=held,
            fold_choices=[(r, s) for _g, r, s in per_fold],
        )
    finally:
        if own:
            reader.close()


# ---------------------------------------------------------------- writing


def write_settings(root: Path, settings: Mapping[str, Any]) -> Path:
    """Write ``settings`` into the project's settings file, keeping everything else in it
    (comments and layout included): ``.orion.toml``, or ``pyproject.toml``'s
    ``[tool.oriongraph]`` when that is where the project keeps its settings. A setting
    already written inside a ``[weights]``/``[compile]``/``[index]`` table is updated there."""
    import tomlkit

    from oriongraph_cli.errors import ConfigError
    from oriongraph_cli.safeio import UnsafeFile, read_regular

    orion, pyproject = root / ".orion.toml", root / "pyproject.toml"
    target, table_path = orion, ()
    if not orion.exists() and pyproject.is_file():
        try:
            doc = tomlkit.parse(read_regular(pyproject, 1 << 20).decode("utf-8"))
            if "oriongraph" in doc.get("tool", {}):
                target, table_path = pyproject, ("tool", "oriongraph")
        except Exception:
            pass
    try:
        text = read_regular(target, 1 << 20).decode("utf-8") if target.exists() else ""
        doc = tomlkit.parse(text)
    except (UnsafeFile, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError) as exc:
        raise ConfigError(f"{target}: cannot update it ({exc})", hint=f"fix {target.name} or remove it, then run --tune --write again") from None
    table = doc
    for key in table_path:
        table = table[key]
    if not text:
        doc.add(tomlkit.comment("written by `orion eval --tune --write`: settings chosen by cross-validation on judged intents"))
    for key, value in settings.items():
        sub = key[2:] if key.startswith("w_") else None
        if sub and isinstance(table.get("weights"), dict) and sub in table["weights"]:
            table["weights"][sub] = value
            continue
        placed = False
        for name in ("compile", "index"):
            if isinstance(table.get(name), dict) and key in table[name]:
                table[name][key] = value
                placed = True
        if not placed:
            table[key] = value
    from oriongraph_cli.store.layout import atomic_write

    atomic_write(target, tomlkit.dumps(doc).encode("utf-8"))  # a temp file of its own (never a fixed name a link may hold)
    return target


__all__ = ["RANKING_SPACE", "SELECTION_SPACE", "TuneReport", "Variant", "bootstrap_interval", "choose", "cross_validate",
           "folds_of", "macro", "measure", "measure_baselines", "selection_objective", "tune", "with_settings", "write_settings"]
