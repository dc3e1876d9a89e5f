"""Fusion: how the channels' evidence becomes one relevance number, name -> method.

``FUSIONS`` is the one list of fusion methods: configuration checks ``fusion`` against it,
the ``--fusion`` help and completion are made from it (each method's ``summary``), and
scoring looks the method up there. A new method is one class here and one entry in
``FUSIONS``: three methods over numpy columns (``channel_columns``, ``rank_columns``,
``relevance``), which a subclass of ``WeightedSum`` or ``ReciprocalRank`` inherits.

The module sits with the shared ones, below ``config``, because configuration validates
against the registry; it depends on the models and ``normalise`` only.
"""

from __future__ import annotations

import math
from typing import Protocol

from oriongraph_cli.models import CHANNELS, CandidateSpan, ScoreChannels, ScoreWeights
from oriongraph_cli.normalise import EPS, FLAT


def rrf_score(ranks: dict[str, int], weights: ScoreWeights, k: int = 60) -> float:
    """Rescaled reciprocal rank fusion of one candidate: ``sum_c w_c/(k+r_c)  /  sum_c w_c/(k+1)``
    in [0, 1] (:func:`_rrf_sum` over a column of one).

    ``ranks`` maps channel -> 1-based rank; channels without a rank contribute nothing.
    The denominator is the score of a candidate ranked first in every channel.
    """
    import numpy as np

    cols = {ch: np.array([int(ranks.get(ch, 0))], dtype=np.int64) for ch in CHANNELS}
    return float(_rrf_sum(cols, weights, k, 1)[0])


class Fusion(Protocol):
    """How the channels' evidence becomes one relevance number (before the recency, stage
    and usage terms are added), over numpy columns: one per channel, one row per candidate.
    Register an implementation in ``FUSIONS``."""

    name: str
    summary: str  # a few words for ``--fusion``'s help

    def channel_columns(self, cands: list[CandidateSpan], raw) -> dict:
        """Each channel's score on the fusion's own scale (shown by --explain), one float64
        column per channel (``raw``: the raw columns, :func:`_raw_columns`)."""
        ...

    def rank_columns(self, cands: list[CandidateSpan], given: dict[str, dict[int, int]] | None, raw) -> dict | None:
        """Each candidate's 1-based rank in each channel, one int column per channel, 0 where
        the channel has no rank (None: not rank-based). ``given``: each generator's own
        order (channel -> registry row -> rank); without it, ranks follow the raw scores."""
        ...

    def relevance(self, cols: dict, rank_cols: dict | None, weights: ScoreWeights, rrf_k: int):
        """Every candidate's relevance from its columns: a float64 column."""
        ...


def _raw_columns(cands: list[CandidateSpan]):
    """Each channel's raw scores over ``cands``, one float64 column per channel."""
    import numpy as np  # here: configuration imports this module, and must stay light

    raws = [c.raw_scores.__dict__ for c in cands]
    return {ch: np.fromiter((r[ch] for r in raws), dtype=np.float64, count=len(raws)) for ch in CHANNELS}


def _min_max_columns(raw) -> dict:
    """``normalise._normalised`` of every candidate, a channel at a time over its numpy column
    ``raw[ch]`` (the same float64 arithmetic, element by element, as the formula in
    ``rank/score.py``)."""
    import numpy as np

    cols = {}
    for ch in CHANNELS:
        x = raw[ch]
        lo, hi = x.min(), x.max()
        cols[ch] = (x > 0).astype(np.float64) if hi - lo < FLAT else (x - lo) / (hi - lo + EPS)
    return cols


def channel_objects(cols, n: int) -> list[ScoreChannels]:
    """One ``ScoreChannels`` per candidate from per-channel columns (``n`` candidates)."""
    if not n:
        return []
    new = object.__new__
    out = []
    for values in zip(*(cols[ch].tolist() for ch in CHANNELS)):
        normed = new(ScoreChannels)
        normed.__dict__.update(zip(CHANNELS, values))
        out.append(normed)
    return out


def _weighted_sum(cols, weights: ScoreWeights):
    """``sum_c w_c · cols[c]`` per candidate, the channels added in ``CHANNELS`` order from 0."""
    total = 0
    for ch in CHANNELS:
        total = total + float(getattr(weights, ch)) * cols[ch]
    return total


def _rrf_sum(rank_cols, weights: ScoreWeights, k: int, n: int):
    """:func:`rrf_score` per candidate over 1-based rank columns (0: no rank in that
    channel), the channels added in ``CHANNELS`` order."""
    import numpy as np

    best = sum(getattr(weights, ch) / (k + 1) for ch in CHANNELS)
    if best <= 0:
        return np.zeros(n)
    total = np.zeros(n)
    for ch in CHANNELS:
        r = rank_cols.get(ch)
        if r is None:
            continue
        ranked = r >= 1
        # x + 0.0 is x: a channel without a rank adds nothing
        total = total + np.where(ranked, getattr(weights, ch) / (k + np.where(ranked, r, 1)).astype(np.float64), 0.0)
    return total / best


class WeightedSum:
    """``sum_c w_c · normalised_c`` over the channels, min-max normalised per channel."""

    name = "weighted"
    summary = "min-max normalised weighted sum"

    def channel_columns(self, cands, raw):
        return _min_max_columns(raw)

    def rank_columns(self, cands, given, raw):
        return None

    def relevance(self, cols, rank_cols, weights, rrf_k):
        return _weighted_sum(cols, weights)


class _PerChannel(WeightedSum):
    """A weighted sum whose channel scores come from :meth:`scale` (values, found) -> [0, 1].
    A channel found a candidate when it scored it above 0; every candidate has a cosine."""

    def channel_columns(self, cands, raw):
        import numpy as np

        cols = {}
        for ch in CHANNELS:
            values = raw[ch].tolist()
            found = [True] * len(values) if ch == "semantic" else [v > 0 for v in values]
            cols[ch] = np.array(self.scale(values, found) if any(found) else [0.0] * len(values), dtype=np.float64)
        return cols

    def scale(self, values: list[float], found: list[bool]) -> list[float]:
        raise NotImplementedError


class ZScore(_PerChannel):
    """Each channel standardised over the candidates it found, ``z = (x - mean) / std``,
    then mapped into [0, 1] by the normal CDF: one long-tailed score no longer squeezes
    the others into a corner, as min-max does. A flat channel scores 0.5 where it found
    something."""

    name = "zscore"
    summary = "each channel standardised, through the normal CDF"

    def scale(self, values, found):
        xs = [v for v, f in zip(values, found) if f]
        mean = sum(xs) / len(xs)
        var = sum((v - mean) ** 2 for v in xs) / len(xs)
        sd = math.sqrt(var)
        if sd < FLAT:
            return [0.5 if f else 0.0 for f in found]
        return [0.5 * (1.0 + math.erf((v - mean) / (sd * math.sqrt(2.0)))) if f else 0.0 for v, f in zip(values, found)]


class RankPercentile(_PerChannel):
    """Each channel's rank among the candidates it found as a percentile,
    ``1 - (rank - 1) / n``: only the order inside a channel counts, not its scale."""

    name = "percentile"
    summary = "rank percentile per channel"

    def scale(self, values, found):
        idx = sorted((i for i, f in enumerate(found) if f), key=lambda i: -values[i])
        n = len(idx)
        out = [0.0] * len(values)
        for r, i in enumerate(idx):
            out[i] = 1.0 - r / n
        return out


class Calibrated(WeightedSum):
    """Scores on scales that mean the same in every compile: the cosine as it is (an
    absolute similarity, clipped to [0, 1]), BM25 divided by this intent's best BM25 (no
    subtraction of the minimum, so a weak best match stays weak relative to the cosine),
    and min-max for the structural and graph channels."""

    name = "calibrated"
    summary = "cosine as is, BM25 over its best"

    def channel_columns(self, cands, raw):
        import numpy as np

        cols = _min_max_columns(raw)
        lex = raw["lexical"]
        top_lex = float(lex.max()) if len(lex) else 0.0
        cols["semantic"] = np.clip(raw["semantic"], 0.0, 1.0)
        cols["lexical"] = lex / top_lex if top_lex > 0 else np.zeros(len(lex))
        return cols


class ReciprocalRank:
    """Rescaled reciprocal rank fusion over each channel's own ranking (:func:`rrf_score`),
    weighted by the channel weights; without generator ranks, ranks are derived from the
    raw channel scores (descending, ties by span id; a raw score <= 0 is no rank)."""

    name = "rrf"
    summary = "weighted reciprocal rank fusion, k=60"

    def channel_columns(self, cands, raw):
        return _min_max_columns(raw)

    def rank_columns(self, cands, given, raw):
        import numpy as np

        n = len(cands)
        if given is None:
            sid = [c.span_ref.span_id for c in cands]
            out = {}
            for ch in CHANNELS:
                x = raw[ch].tolist()
                hits = sorted((i for i in range(n) if x[i] > 0), key=lambda i: (-x[i], sid[i]))
                col = np.zeros(n, dtype=np.int64)
                col[hits] = np.arange(1, len(hits) + 1)
                out[ch] = col
            return out
        rows = [c.row for c in cands]
        return {ch: np.fromiter((ranked.get(r, 0) for r in rows), dtype=np.int64, count=n)
                for ch, ranked in ((ch, given.get(ch, {})) for ch in CHANNELS)}

    def relevance(self, cols, rank_cols, weights, rrf_k):
        return _rrf_sum(rank_cols, weights, rrf_k, len(next(iter(cols.values()))))


class Hybrid(ReciprocalRank):
    """Half the min-max weighted sum (divided by the channel weights' total, so in [0, 1]),
    half the rescaled reciprocal rank fusion: scores where one channel's margin is real,
    ranks where a channel's scale misleads."""

    name = "hybrid"
    summary = "half the weighted sum, half rrf"

    def relevance(self, cols, rank_cols, weights, rrf_k):
        total = sum(float(getattr(weights, ch)) for ch in CHANNELS) or 1.0
        return 0.5 * _weighted_sum(cols, weights) / total + 0.5 * _rrf_sum(rank_cols, weights, rrf_k, len(cols[CHANNELS[0]]))


FUSIONS: dict[str, Fusion] = {f.name: f for f in (WeightedSum(), ReciprocalRank(), ZScore(), RankPercentile(), Calibrated(), Hybrid())}


def names() -> tuple[str, ...]:
    """The fusion methods, in registry order."""
    return tuple(FUSIONS)


def describe() -> str:
    """``weighted (…), rrf (…) … or hybrid (…)``: every method with its summary."""
    parts = [f"{name} ({f.summary})" for name, f in FUSIONS.items()]
    return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else "".join(parts)
