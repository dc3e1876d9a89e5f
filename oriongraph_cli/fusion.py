"""Fusion: how the channels' evidence becomes one relevance number, name -> method.

``FUSIONS`` is the one list of fusion methods: configuration checks ``fusion`` against it,
the ``--fusion`` help and completion are made from it (each method's ``summary``), and
scoring looks the method up there. A new method is one class here and one entry in
``FUSIONS``; scoring runs its column methods (``channel_columns``, ``rank_columns``,
``relevance``), which a subclass of ``WeightedSum`` or ``ReciprocalRank`` inherits. The formulas of ``weighted`` and ``rrf`` are in ``rank/score.py``.

The module sits with the shared ones, below ``config``, because configuration validates
against the registry; it depends on the models and ``normalise`` only.
"""

from __future__ import annotations

import math
from typing import Callable, Protocol

from oriongraph_cli.models import CHANNELS, CandidateSpan, ScoreChannels, ScoreWeights
from oriongraph_cli.normalise import EPS, FLAT, _EMPTY_CHANNELS, _bounds, _evolve, _normalised  # noqa: F401


def _derived_ranks(cands: list[CandidateSpan]) -> list[dict[str, int]]:
    """Per-candidate 1-based rank in each channel by raw score (desc, span_id asc).

    Candidates with a raw score <= 0 in a channel have no rank there (the generator did not
    find them). Used for RRF when the caller passes no explicit ranks.
    """
    out: list[dict[str, int]] = [{} for _ in cands]
    for ch in CHANNELS:
        hits = [i for i, c in enumerate(cands) if c.raw_scores.get(ch) > 0]
        hits.sort(key=lambda i: (-cands[i].raw_scores.get(ch), cands[i].span_ref.span_id))
        for rank, i in enumerate(hits, start=1):
            out[i][ch] = rank
    return out


def rrf_score(ranks: dict[str, int], weights: ScoreWeights, k: int = 60) -> float:
    """Rescaled reciprocal rank fusion: ``sum_c w_c/(k+r_c)  /  sum_c w_c/(k+1)`` in [0, 1].

    ``ranks`` maps channel -> 1-based rank; channels without a rank contribute nothing.
    The denominator is the score of a candidate ranked first in every channel.
    """
    best = sum(getattr(weights, ch) / (k + 1) for ch in CHANNELS)
    if best <= 0:
        return 0.0
    total = sum(getattr(weights, ch) / (k + r) for ch, r in ranks.items() if ch in CHANNELS and r >= 1)
    return total / best


def rrf_scorer(weights: ScoreWeights, k: int = 60) -> Callable[[dict[str, int]], float]:
    """:func:`rrf_score` with ``weights`` and ``k`` fixed: the denominator computed once,
    every candidate's sum taken in the same order (the same floats)."""
    best = sum(getattr(weights, ch) / (k + 1) for ch in CHANNELS)
    w = {ch: getattr(weights, ch) for ch in CHANNELS}

    def score(ranks: dict[str, int]) -> float:
        if best <= 0:
            return 0.0
        total = 0
        for ch, r in ranks.items():
            if ch in w and r >= 1:
                total += w[ch] / (k + r)
        return total / best

    return score


class Fusion(Protocol):
    """How the channels' evidence becomes one relevance number (before the recency, stage
    and usage terms are added). Register an implementation in ``FUSIONS``."""

    name: str
    summary: str  # a few words for ``--fusion``'s help

    def ranks(self, cands: list[CandidateSpan], given: dict[str, dict[int, int]] | None) -> list[dict[str, int]] | None:
        """Per candidate, the 1-based rank in each channel (None: not rank-based)."""
        ...

    def channels(self, cands: list[CandidateSpan]) -> list[ScoreChannels]:
        """Per candidate, each channel's score on the fusion's own scale (shown by --explain)."""
        ...

    def scorer(self, weights: ScoreWeights, rrf_k: int) -> Callable[[ScoreChannels, dict[str, int] | None], float]: ...

    def channel_columns(self, cands: list[CandidateSpan], raw) -> dict:
        """:meth:`channels` as one float64 column per channel (``raw``: the raw columns)."""
        ...

    def rank_columns(self, cands: list[CandidateSpan], given: dict[str, dict[int, int]] | None, raw) -> dict | None:
        """:meth:`ranks` as one int column per channel, 0 where the channel has no rank (None: not rank-based)."""
        ...

    def relevance(self, cols: dict, rank_cols: dict | None, weights: ScoreWeights, rrf_k: int):
        """:meth:`scorer` over every candidate at once: a float64 column, the same floats."""
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


def _min_max_channels(cands: list[CandidateSpan]) -> list[ScoreChannels]:
    """``normalise._normalised`` of every candidate (:func:`_min_max_columns`)."""
    if not cands:
        return []
    return channel_objects(_min_max_columns(_raw_columns(cands)), len(cands))


def _weighted_sum(cols, weights: ScoreWeights):
    """``sum_c w_c · cols[c]`` per candidate, the channels added in ``CHANNELS`` order from 0
    (the floats of :meth:`WeightedSum.scorer`'s loop, element by element)."""
    total = 0
    for ch in CHANNELS:
        total = total + float(getattr(weights, ch)) * cols[ch]
    return total


def _rrf_sum(rank_cols, weights: ScoreWeights, k: int, n: int):
    """:func:`rrf_score` per candidate over 1-based rank columns (0: no rank in that
    channel), the channels added in ``CHANNELS`` order (the floats of :func:`rrf_scorer`)."""
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
        # x + 0.0 is x: a channel without a rank adds nothing, as the loop skips it
        total = total + np.where(ranked, getattr(weights, ch) / (k + np.where(ranked, r, 1)).astype(np.float64), 0.0)
    return total / best


class WeightedSum:
    """``sum_c w_c · normalised_c`` over the channels, min-max normalised per channel."""

    name = "weighted"
    summary = "min-max normalised weighted sum"

    def ranks(self, cands, given):
        return None

    def channels(self, cands):
        return _min_max_channels(cands)

    def channel_columns(self, cands, raw):
        import numpy as np

        if type(self).channels is WeightedSum.channels:
            return _min_max_columns(raw)
        objs = self.channels(cands)  # a subclass's own scale
        return {ch: np.fromiter((o.__dict__[ch] for o in objs), dtype=np.float64, count=len(objs)) for ch in CHANNELS}

    def rank_columns(self, cands, given, raw):
        return None

    def relevance(self, cols, rank_cols, weights, rrf_k):
        return _weighted_sum(cols, weights)

    def scorer(self, weights, rrf_k):
        w = [(ch, float(getattr(weights, ch))) for ch in CHANNELS]

        def weighted(normed, _ranks):
            d = normed.__dict__
            total = 0
            for ch, wc in w:  # the order and start of sum() over the channels
                total += wc * d[ch]
            return total

        return weighted


def _found(c: CandidateSpan, ch: str) -> bool:
    """Whether channel ``ch`` found the candidate: every candidate has a cosine, the other
    channels only score what their generator returned (raw > 0)."""
    return ch == "semantic" or c.raw_scores.get(ch) > 0


class _PerChannel(WeightedSum):
    """A weighted sum whose channel scores come from :meth:`scale` (values, found) -> [0, 1]."""

    def channels(self, cands):
        cols: dict[str, list[float]] = {}
        for ch in CHANNELS:
            values = [float(c.raw_scores.get(ch)) for c in cands]
            found = [_found(c, ch) for c in cands]
            cols[ch] = self.scale(values, found) if any(found) else [0.0] * len(cands)
        return [_evolve(_EMPTY_CHANNELS, **{ch: cols[ch][i] for ch in CHANNELS}) for i in range(len(cands))]

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

    def channels(self, cands):
        minmax = _min_max_channels(cands)
        top_lex = max((c.raw_scores.lexical for c in cands), default=0.0)
        out = []
        for c, mm in zip(cands, minmax):
            out.append(_evolve(
                mm,
                semantic=min(1.0, max(0.0, float(c.raw_scores.semantic))),
                lexical=float(c.raw_scores.lexical) / top_lex if top_lex > 0 else 0.0,
            ))
        return out


class ReciprocalRank:
    """Rescaled reciprocal rank fusion over each channel's own ranking (:func:`rrf_score`),
    weighted by the channel weights; without generator ranks, ranks are derived from the
    raw channel scores."""

    name = "rrf"
    summary = "weighted reciprocal rank fusion, k=60"

    def ranks(self, cands, given):
        if given is None:
            return _derived_ranks(cands)
        chans = [(ch, given.get(ch, {})) for ch in CHANNELS]
        return [{ch: ranked[c.row] for ch, ranked in chans if c.row in ranked} for c in cands]

    def channels(self, cands):
        return _min_max_channels(cands)

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

    def scorer(self, weights, rrf_k):
        rrf = rrf_scorer(weights, rrf_k)
        return lambda _normed, ranks: rrf(ranks)


class Hybrid(ReciprocalRank):
    """Half the min-max weighted sum (divided by the channel weights' total, so in [0, 1]),
    half the rescaled reciprocal rank fusion: scores where one channel's margin is real,
    ranks where a channel's scale misleads."""

    name = "hybrid"
    summary = "half the weighted sum, half rrf"

    def scorer(self, weights, rrf_k):
        weighted = WeightedSum().scorer(weights, rrf_k)
        rrf = rrf_scorer(weights, rrf_k)
        total = sum(float(getattr(weights, ch)) for ch in CHANNELS) or 1.0
        return lambda normed, ranks: 0.5 * weighted(normed, ranks) / total + 0.5 * rrf(ranks)

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
