"""Per-channel min-max normalisation, shared by scoring and the fusion methods (formula in
``rank/score.py``)."""

from __future__ import annotations

from oriongraph_cli.models import CHANNELS, CandidateSpan, ScoreChannels

EPS = 1e-9  # denominator guard in min-max
FLAT = 1e-6  # a channel whose range is below this is "inactive"


def _evolve(obj, **changes):
    """``dataclasses.replace`` for our frozen, slot-less dataclasses without re-running
    ``__init__`` (no model defines ``__post_init__``): scoring copies every candidate, and
    ``replace`` cost ~40 ms per compile on 500 candidates (docs/BENCHMARKS.md)."""
    new = object.__new__(type(obj))
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new


def _bounds(cands: list[CandidateSpan]) -> dict[str, tuple[float, float]]:
    bounds: dict[str, tuple[float, float]] = {}
    for ch in CHANNELS:
        values = [getattr(c.raw_scores, ch) for c in cands]
        bounds[ch] = (min(values), max(values))
    return bounds


def _normalised(c: CandidateSpan, bounds: dict[str, tuple[float, float]]) -> ScoreChannels:
    out = {}
    for ch in CHANNELS:
        x = float(getattr(c.raw_scores, ch))
        lo, hi = bounds[ch]
        out[ch] = (1.0 if x > 0 else 0.0) if hi - lo < FLAT else (x - lo) / (hi - lo + EPS)
    return _evolve(_EMPTY_CHANNELS, **out)


_EMPTY_CHANNELS = ScoreChannels()


def normalise(cands: list[CandidateSpan]) -> list[CandidateSpan]:
    """Min-max normalise each channel of ``raw_scores`` into ``scores`` (see module doc).

    A flat channel (max - min < 1e-6) is inactive: 1.0 for candidates with a positive raw
    score, 0.0 otherwise. Returns new objects in the input order.
    """
    if not cands:
        return []
    bounds = _bounds(cands)
    return [_evolve(c, scores=_normalised(c, bounds)) for c in cands]
