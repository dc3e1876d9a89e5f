"""The channel weights a compile ranks with."""

from __future__ import annotations

from dataclasses import replace

from oriongraph_cli.config import Config
from oriongraph_cli.models import CompileRequest, DerivedSignals


def effective_weights(request: CompileRequest, cfg: Config, signals: DerivedSignals | None = None):
    """The request's weights, or the configured ones — where the structural channel counts
    fully only when the intent names something structural (a document id, stage, workstream,
    tag or source type); otherwise its title-word overlap mostly repeats the lexical channel
    and costs ranking quality (docs/BENCHMARKS.md, "Tuning") — and where a weak lexical match
    (:func:`weak_lexical`) gives part of the lexical weight to the semantic channel."""
    if request.weights is not None:
        return request.weights
    w = cfg.weights()
    hints = signals.struct_hints if signals is not None else None
    if hints is not None and not any((hints.doc_ids, hints.stages, hints.workstreams, hints.tags, hints.source_types)):
        w = replace(w, structural=cfg.w_structural_no_hint)
    if weak_lexical(cfg, signals):
        shift = min(cfg.weak_lexical_shift, w.lexical)
        w = replace(w, semantic=w.semantic + shift, lexical=w.lexical - shift)
    return w


def weak_lexical(cfg: Config, signals: DerivedSignals | None) -> bool:
    """Whether the lexical channel's best match for this intent is weak: its BM25 score at most
    ``weak_lexical_score`` (0: never). Then the intent's words are common, or few of them occur
    in any note, and the semantic channel is the better judge: ``effective_weights`` moves
    ``weak_lexical_shift`` of the lexical weight to it. Chosen leave-one-project-out over 66
    projects (docs/BENCHMARKS.md, "A weak lexical match leans on meaning")."""
    best = signals.lexical_best if signals is not None else None
    return best is not None and cfg.weak_lexical_score > 0 and cfg.weak_lexical_shift > 0 and best <= cfg.weak_lexical_score
