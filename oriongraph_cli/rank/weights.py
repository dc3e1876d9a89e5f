"""The channel weights a compile ranks with."""

from __future__ import annotations

from dataclasses import replace

from oriongraph_cli.config import Config
from oriongraph_cli.models import CompileRequest, DerivedSignals


def effective_weights(request: CompileRequest, cfg: Config, signals: DerivedSignals | None = None):
    """The request's weights, or the configured ones — where the structural channel counts
    fully only when the intent names something structural (a document id, stage, workstream,
    tag or source type); otherwise its title-word overlap mostly repeats the lexical channel
    and costs ranking quality (docs/BENCHMARKS.md, "Tuning")."""
    if request.weights is not None:
        return request.weights
    w = cfg.weights()
    hints = signals.struct_hints if signals is not None else None
    if hints is not None and not any((hints.doc_ids, hints.stages, hints.workstreams, hints.tags, hints.source_types)):
        w = replace(w, structural=cfg.w_structural_no_hint)
    return w
