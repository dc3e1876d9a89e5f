"""Adjustments around fusion: what changes the candidates' scores besides the channels.

Before fusion, the usage memory gives each candidate its usage score (from the snapshot
``orion index`` takes of the usage log; scoring sets it in the copy it makes); after it, the generators that ran may adjust the
fused scores (lifecycle: replaced decisions demoted, their successors floored above them),
then spans used in the named earlier episode are boosted.
"""

from __future__ import annotations

from typing import Sequence

from oriongraph_cli.config import Config
from oriongraph_cli.models import CandidateSpan, CompileRequest, ScoreWeights
from oriongraph_cli.rank import usage


def before_fusion(cands: list[CandidateSpan], cfg: Config, weights: ScoreWeights,
                  now: int) -> tuple[list[float], list[dict[str, float]]] | None:
    """The candidates' usage scores and components (``score.fuse``'s ``usage``), or None
    when usage does not count (each candidate keeps its own)."""
    if weights.usage > 0 and cands:
        return usage.dynamic_scores(cands, cfg.index_dir, now, cfg.usage_weights)
    return None


def after_fusion(scored: list[CandidateSpan], generators: Sequence, request: CompileRequest, cfg: Config) -> list[CandidateSpan]:
    for gen in generators:
        if hasattr(gen, "adjust"):
            scored = gen.adjust(scored)
    if request.episode_id:
        scored = usage.apply_episode(scored, cfg.index_dir, request.episode_id, cfg.episode_boost)
    return scored
