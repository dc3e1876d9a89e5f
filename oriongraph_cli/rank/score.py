"""Scoring: per-channel normalisation, base score, recency, stage boost.

Pipeline position: ``generate -> fuse -> score -> select``. Every function returns new
``CandidateSpan`` objects (copies, never mutation) and appends human-readable reasons,
so the explanation travels with the data.

Normalisation::

    norm(x) = (x - min) / (max - min + 1e-9)       per channel, over all candidates
    if max - min < 1e-6 the channel is flat ("inactive"): norm(x) = 1.0 if x > 0 else 0.0

Base score, ``fusion="weighted"``::

    base = w_sem*semantic + w_lex*lexical + w_struct*structural + w_graph*graph   (normalised)
         + w_recency*recency + w_stage*stage_boost + w_usage*usage_score

Base score, ``fusion="rrf"`` (reciprocal rank fusion)::

    rrf  = sum over channels c where the candidate has a rank r_c:  w_c / (k + r_c)
    base = rrf / (sum_c w_c / (k + 1))                 # rescaled so rank 1 everywhere = 1.0
         + w_recency*recency + w_stage*stage_boost + w_usage*usage_score

The rescaling keeps the relevance part in [0, 1] in both modes, so the MMR λ means the
same thing whichever fusion is used. The other methods in ``FUSIONS`` (``zscore``,
``percentile``, ``calibrated``: per-channel scales fed to the weighted sum; ``hybrid``:
half the weighted sum over the weights' total, half RRF) are documented on their classes in ``fusion.py``.
Document evidence (:class:`DocumentEvidence`) adds a share of a document's next-best spans
(:func:`document_evidence`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Mapping

from oriongraph_cli.models import CHANNELS, CandidateSpan, ScoreChannels, ScoreWeights, SoftPreferences
from oriongraph_cli.fusion import FUSIONS, ReciprocalRank, channel_objects, rrf_score  # noqa: F401  (rrf_score: part of scoring's API)
from oriongraph_cli.normalise import EPS, FLAT, _bounds, _evolve, _normalised, normalise  # noqa: F401

SECONDS_PER_DAY = 86_400
RECENT_REASON_MIN = 0.5  # recency >= 0.5 (younger than one half-life) earns a "recent: <date>" reason
DOC_EVIDENCE_REASON = 0.01  # document evidence below this is not worth a reason

_RAW_LABEL = {"semantic": "raw cos", "lexical": "raw bm25"}  # any other channel: "raw"


def sort_key(c: CandidateSpan) -> tuple[float, str]:
    """Deterministic order: base score descending, then span_id ascending."""
    return (-c.base_score, c.span_ref.span_id)


_SPAN_ID = attrgetter("span_ref.span_id")
_BASE = attrgetter("base_score")
_COSINE = attrgetter("raw_scores.semantic")


def _add_reasons(existing: tuple[str, ...], new: list[str]) -> tuple[str, ...]:
    """Keep existing reasons, append new ones, never duplicate."""
    out = list(existing)
    for r in new:
        if r not in out:
            out.append(r)
    return tuple(out)


def recency(created_at: int, now: int, half_life_days: float) -> float:
    """Exponential decay in [0, 1]: ``exp(-ln2 * age_days / half_life_days)``.

    An age of one half-life gives 0.5. Unknown dates (``created_at <= 0``) and a
    non-positive half-life give 0.0; dates in the future count as age 0 (score 1.0).
    """
    if created_at <= 0 or half_life_days <= 0:
        return 0.0
    age_days = max(0.0, (now - created_at) / SECONDS_PER_DAY)
    return min(1.0, max(0.0, math.exp(-math.log(2) * age_days / half_life_days)))


def stage_boost(stage: str | None, prefer_stages: tuple[str, ...] | list[str]) -> float:
    """1.0 when the span's stage is one of the preferred stages, else 0.0 (0 without preferences)."""
    if not stage or not prefer_stages:
        return 0.0
    return 1.0 if stage.lower() in {s.lower() for s in prefer_stages} else 0.0


def _date(ts: int) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def _reasons(existing: tuple[str, ...], cand_ranks: tuple[int, ...] | None, normed: ScoreChannels, raw: ScoreChannels,
             evid: float, short: bool | None, stage: str | None, recent: int | None,
             usage: tuple[float, bool] | None) -> tuple[str, ...]:
    """A scored candidate's reasons: ``existing`` (its generators') and what scoring saw —
    each channel's rank (``cand_ranks``, in ``CHANNELS`` order) or normalised score with its raw score, document evidence (when
    ``short`` is not None), the preferred ``stage``, the ``recent`` creation time, the
    usage score and whether the document was used before."""
    reasons: list[str] = []
    if cand_ranks is not None:  # a rank per channel, in CHANNELS order (0: none there)
        raw_d = raw.__dict__
        for ch, r in zip(CHANNELS, cand_ranks):
            if r:
                reasons.append(f"{ch} rank {r} ({_RAW_LABEL.get(ch, 'raw')} {raw_d[ch]:.2f})")
    else:
        for ch in CHANNELS:
            v = getattr(normed, ch)
            if v > 0:
                reasons.append(f"{ch} {v:.2f} ({_RAW_LABEL.get(ch, 'raw')} {getattr(raw, ch):.2f})")
    if short is not None:
        reasons.append(f"short document, matches as a whole (+{evid:.2f})" if short else f"document matches in several places (+{evid:.2f})")
    if stage is not None:
        reasons.append(f"preferred stage: {stage}")
    if recent is not None:
        reasons.append(f"recent: {_date(recent)}")
    if usage is not None:
        reasons.append(f"usage score {usage[0]:.2f}" + (" (used before)" if usage[1] else " (priority and novelty; not used yet)"))
    return _add_reasons(existing, reasons)


class _Base:
    """The numbers of :func:`score` for every candidate, without its reasons and copies,
    worked out a column at a time (numpy, float64: element by element the same arithmetic
    as one candidate at a time): ``base`` (the base scores), ``channels`` (each channel's
    score on the fusion's scale, per channel), ``ranks`` (per channel, 1-based, 0 for none;
    None when the fusion is not rank-based), ``recency``, ``boost`` (stage boost) and
    ``evidence`` (document evidence), each a list in ``cands`` order; ``read_whole``: the
    paths of the documents document evidence reads whole (empty: none)."""

    def __init__(self, cands: list[CandidateSpan], weights: ScoreWeights, prefs: SoftPreferences, now: int,
                 half_life_days: float, fusion: str, rrf_k: int, ranks: dict[str, dict[int, int]] | None,
                 evidence: DocumentEvidence | None = None, usage: list[float] | None = None):
        import numpy as np

        from oriongraph_cli.fusion import _raw_columns

        impl = FUSIONS.get(fusion)
        if impl is None:
            raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, got {fusion!r}")
        n = len(cands)
        raw = _raw_columns(cands)
        self.channels = impl.channel_columns(cands, raw)
        self.ranks = impl.rank_columns(cands, ranks, raw)
        relevance = impl.relevance(self.channels, self.ranks, weights, rrf_k)
        metas = [c.metadata for c in cands]
        paths = [m.filepath for m in metas]
        rel = relevance.tolist()
        self.evidence, self.read_whole = _evidence(paths, [c.span_ref for c in cands], rel, evidence or NO_EVIDENCE)
        rec_of: dict[int, float] = {}
        self.recency = rec = []
        for m in metas:
            created = m.created_at
            r = rec_of.get(created)
            if r is None:
                r = rec_of[created] = recency(created, now, half_life_days)
            rec.append(r)
        prefer = {s.lower() for s in prefs.prefer_stages}
        self.boost = [1.0 if m.stage and prefer and m.stage.lower() in prefer else 0.0 for m in metas] if prefer else [0.0] * n
        if usage is None:
            usage = [c.usage_score for c in cands]
        f64 = np.float64
        base = (relevance + np.asarray(self.evidence, dtype=f64) + weights.recency * np.asarray(rec, dtype=f64)
                + weights.stage_boost * np.asarray(self.boost, dtype=f64) + weights.usage * np.asarray(usage, dtype=f64))
        self.base = base.tolist()


DOC_EVIDENCE_SPANS = 3  # a document's best spans that count as its evidence


@dataclass(frozen=True)
class DocumentEvidence:
    """How much a document's evidence lifts its spans (:func:`document_evidence`):
    ``weight`` (0: off), ``spread`` (the share its other spans take), ``peer`` (a span
    scoring at least ``peer ×`` the best takes the whole lift; 0: off), ``lead_budget``
    (the leading document is read whole when it fits in this many tokens; None: never),
    ``strong_budget`` and ``strong_floor`` (the strong documents after it, scoring at least
    ``strong_floor ×`` the leader, are read whole too while every document read whole fits
    in ``strong_budget`` tokens; None: only the leader) and ``span_counts`` (path -> the
    spans it has in the index)."""

    weight: float = 0.0
    spread: float = 0.0
    peer: float = 0.0
    lead_budget: int | None = None
    span_counts: Mapping[str, int] | None = None
    strong_budget: int | None = None
    strong_floor: float = 0.0

    @classmethod
    def of(cls, cfg, budget_tokens: int, span_counts: Mapping[str, int] | None) -> "DocumentEvidence":
        """The configured document evidence for a compile of ``budget_tokens``."""
        strong = cfg.strong_whole_ratio > 0 and cfg.document_floor > 0
        return cls(weight=cfg.doc_evidence, spread=cfg.doc_evidence_spread, peer=cfg.doc_evidence_peer,
                   lead_budget=lead_whole_budget(cfg, budget_tokens),
                   span_counts=span_counts,
                   strong_budget=int(cfg.strong_whole_ratio * budget_tokens) if strong else None,
                   strong_floor=cfg.document_floor)


NO_EVIDENCE = DocumentEvidence()


def lead_whole_budget(cfg, budget_tokens: int) -> int | None:
    """The tokens within which the leading document is read whole at ``budget_tokens``:
    ``lead_whole_ratio`` of the budget, or ``lead_whole_tokens`` where the budget holds them
    (the larger; None when ``lead_whole_ratio`` is 0). A short leader is read whole at a small
    budget, where it is most of the answer; at a large one a long leader takes no more than
    its share, and the rest of the budget reaches the other documents."""
    if cfg.lead_whole_ratio <= 0:
        return None
    return max(int(cfg.lead_whole_ratio * budget_tokens), min(budget_tokens, cfg.lead_whole_tokens))


def document_evidence(cands: list[CandidateSpan], relevance: list[float], evidence: DocumentEvidence) -> list[float]:
    """Per candidate, the lift of its document's evidence (``evidence``: its settings):
    ``weight ×`` the mean relevance of
    the document's next-best candidate spans (up to ``DOC_EVIDENCE_SPANS - 1`` after the
    best), given to the document's best span, and ``spread ×`` that to its other spans. A
    document that answers the intent in several places ranks above one that matches in a
    single passage; ``spread`` decides how much more of the budget that buys it (0: none,
    the document only moves up; 1: every span of it rises alike, which concentrates the
    working set on fewer documents). The order inside a document never changes.

    The *leading* document — the one whose best span, lifted, scores highest — is read
    whole when all of it (every span it has in the index is a candidate) fits in
    ``lead_budget`` tokens: each of its spans takes the whole lift, so a short document
    that most likely answers the intent is not cut to one passage. A long one keeps
    ``spread``, and so do the rest. After a leader read whole, the next documents in the
    same order are read whole too while each is *strong* (its best span, lifted, scores at
    least ``strong_floor ×`` the leader's) and every document read whole fits in
    ``strong_budget`` tokens together: a second abstract that answers as well is not cut to
    one passage to make room for weak documents, and the budget's other half stays for
    breadth.

    A document with fewer spans than that (``span_counts``: path -> its spans in the index)
    has no next-best span to offer: the places it cannot have count as its best span, so a
    short document that matches as a whole is not ranked below a long one for its length
    (on one-paragraph abstracts, evidence without this cost 0.03 nDCG@10)."""
    if evidence.weight <= 0 or not cands:
        return [0.0] * len(cands)
    return _evidence([c.metadata.filepath for c in cands], [c.span_ref for c in cands], relevance, evidence)[0]


def _evidence(paths: list[str], refs: list, relevance: list[float], ev: DocumentEvidence) -> tuple[list[float], frozenset[str]]:
    """:func:`document_evidence` over columns (each candidate's document path, span
    reference and relevance), and the paths of the documents it reads whole."""
    weight, spread, peer, lead_budget = ev.weight, ev.spread, ev.peer, ev.lead_budget
    out = [0.0] * len(paths)
    if weight <= 0 or not paths:
        return out, frozenset()
    by_doc: dict[str, list[int]] = {}
    for i, path in enumerate(paths):
        by_doc.setdefault(path, []).append(i)
    slots = DOC_EVIDENCE_SPANS - 1
    counts = ev.span_counts or {}
    lifts: dict[str, float] = {}
    get_count = counts.get
    for path, idx in by_doc.items():
        if len(idx) > 1:
            idx.sort(key=lambda i: (-relevance[i], refs[i].span_id))
            rest = sum([relevance[i] for i in idx[1:DOC_EVIDENCE_SPANS]])
        else:
            rest = 0  # sum([])
        cannot = slots - (get_count(path, DOC_EVIDENCE_SPANS) - 1)
        lifts[path] = weight * (rest + (cannot if cannot > 0 else 0) * relevance[idx[0]]) / slots
    whole = _read_whole(by_doc, refs, relevance, lifts, counts, ev) if lead_budget and spread < 1 else frozenset()
    for path, idx in by_doc.items():
        lift = lifts[path]
        out[idx[0]] = lift
        if len(idx) > 1:
            share = 1.0 if path in whole else spread
            # a peer of the best span (its own relevance at least peer × the best's) is as
            # much the document's answer: it takes the whole lift too
            at = peer * relevance[idx[0]] if peer > 0 else float("inf")
            for i in idx[1:]:
                out[i] = lift if relevance[i] >= at else share * lift
    return out, whole


def _read_whole(by_doc: dict[str, list[int]], refs: list, relevance: list[float], lifts: dict[str, float],
                counts: Mapping[str, int], ev: DocumentEvidence) -> frozenset[str]:
    """The documents :func:`document_evidence` reads whole: the leader when it fits
    ``ev.lead_budget``, then the strong documents after it while all of them fit
    ``ev.strong_budget`` (``by_doc``: each document's candidates, best first)."""
    order = sorted([(-(relevance[idx[0]] + lifts[p]), p) for p, idx in by_doc.items()])
    lead = order[0][1]
    if not _fits_whole([refs[i] for i in by_doc[lead]], counts.get(lead), ev.lead_budget):
        return frozenset()
    whole = [lead]
    if ev.strong_budget:
        room = ev.strong_budget - sum(refs[i].token_cost for i in by_doc[lead])
        at = ev.strong_floor * -order[0][0]
        for neg, path in order[1:]:
            doc = [refs[i] for i in by_doc[path]]
            cost = sum(r.token_cost for r in doc)
            if -neg < at or cost > room or len(doc) < counts.get(path, len(doc) + 1):
                break  # weak, too long for what is left, or not every span a candidate
            room -= cost
            whole.append(path)
    return frozenset(whole)


def _fits_whole(refs: list, count: int | None, lead_budget: int) -> bool:
    """A document is read whole when it has more than one span, every span it has in the
    index is a candidate (``refs``: their references), and all of them fit in
    ``lead_budget`` tokens."""
    return (len(refs) > 1 and count is not None and len(refs) >= count
            and sum(r.token_cost for r in refs) <= lead_budget)


def base_scores(
    cands: list[CandidateSpan],
    weights: ScoreWeights,
    prefs: SoftPreferences,
    now: int,
    half_life_days: float,
    fusion: str = "weighted",
    rrf_k: int = 60,
    ranks: dict[str, dict[int, int]] | None = None,
    evidence: DocumentEvidence | None = None,
) -> list[float]:
    """The ``base_score`` :func:`score` would give each candidate (input order), without
    building scored copies — for callers that only rank, such as the graph channel's seeds."""
    if not cands:
        return []
    return _Base(cands, weights, prefs, now, half_life_days, fusion, rrf_k, ranks, evidence).base


def score(
    cands: list[CandidateSpan],
    weights: ScoreWeights,
    prefs: SoftPreferences,
    now: int,
    half_life_days: float,
    fusion: str = "weighted",
    rrf_k: int = 60,
    ranks: dict[str, dict[int, int]] | None = None,
    evidence: DocumentEvidence | None = None,
    usage: tuple[list[float], list[dict[str, float]]] | None = None,
    owned: bool = False,
    metas: dict | None = None,
) -> list[CandidateSpan]:
    """Normalise, compute ``base_score`` and reasons (their text made when first read:
    :func:`_reasons`); return candidates sorted by ``sort_key``.

    ``scores`` is always recomputed from ``raw_scores`` with :func:`normalise`, so callers
    need not normalise first. Sets ``metadata.recency_score``, ``stage_boost`` and
    ``base_score`` (formulas in the module docstring). With ``fusion="rrf"`` the ranks come
    from ``ranks[channel][cand.row]`` (1-based, per channel); when ``ranks`` is None they
    are derived from ``raw_scores`` (descending, span_id ascending; raw <= 0 means unranked).
    ``usage`` (each candidate's usage score and its components, :func:`usage.dynamic_scores`)
    sets ``usage_score`` and ``components``; without it they are taken as already set on
    the candidate.

    ``owned``: the candidates were built for this call and nothing else holds them, so they
    are scored in place instead of copied (a resident compile made ~2,000 copies). ``metas``
    (row -> (metadata, recency, the metadata with that recency), kept by the caller while
    the index is open): each span's scored metadata made once, not once per compile.
    """
    if fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, got {fusion!r}")
    if not cands:
        return []
    evidence = evidence or NO_EVIDENCE
    b = _Base(cands, weights, prefs, now, half_life_days, fusion, rrf_k, ranks, evidence, usage=usage[0] if usage is not None else None)
    channels = channel_objects(b.channels, len(cands))
    cand_ranks = zip(*(b.ranks[ch].tolist() for ch in CHANNELS)) if b.ranks is not None else repeat(None)
    usages = zip(*usage) if usage is not None else ((c.usage_score, c.components) for c in cands)
    recency_on, usage_on = weights.recency > 0, weights.usage > 0
    counts = evidence.span_counts
    new = object.__new__
    whole = b.read_whole
    out: list[CandidateSpan] = []
    for c, base, normed, rec, boost, ranked, evid, (used, parts) in zip(cands, b.base, channels, b.recency, b.boost, cand_ranks, b.evidence, usages):
        m = c.metadata
        short = None
        if evid >= DOC_EVIDENCE_REASON:
            short = counts is not None and counts.get(m.filepath, DOC_EVIDENCE_SPANS) < DOC_EVIDENCE_SPANS
        why_usage = None
        if usage_on and used > 0:
            why_usage = (used, (parts or {}).get("usage", 0) > 0)
        # the reasons' text is made when an output reads them (models._DeferredReasons): the
        # numbers it is made from are fixed here
        why = (c.reasons, ranked, normed, c.raw_scores, evid, short, m.stage if boost > 0 else None,
               m.created_at if recency_on and rec >= RECENT_REASON_MIN else None, why_usage)
        # _evolve(c, ...) and _evolve(c.metadata, ...), inline: this runs for every candidate
        known = metas.get(c.row) if metas is not None else None
        if known is not None and known[0] is m and known[1] == rec:
            meta = known[2]
        else:
            meta = new(type(m))
            meta.__dict__.update(m.__dict__, recency_score=rec)
            if metas is not None:
                metas[c.row] = (m, rec, meta)
        if owned:
            scored = c
            d = c.__dict__
        else:
            scored = new(type(c))
            d = scored.__dict__
            d.update(c.__dict__)
        d.update(scores=normed, metadata=meta, stage_boost=boost, base_score=base, usage_score=used,
                 components=parts, _reasons_of=(_reasons, why), read_whole=m.filepath in whole)
        d.pop("reasons", None)
        out.append(scored)
    # sort_key's order — base score descending, then span id — as a stable sort of the span id order
    out.sort(key=_SPAN_ID)
    out.sort(key=_BASE, reverse=True)
    return out


def fuse(cands: list[CandidateSpan], hits: dict, weights: ScoreWeights, request, cfg, now: int, how=None,
         span_counts: Mapping[str, int] | None = None, usage: tuple[list[float], list[dict[str, float]]] | None = None,
         owned: bool = False, metas: dict | None = None) -> list[CandidateSpan]:
    """Normalise every channel and fuse them — the weighted sum, or reciprocal-rank fusion
    over each generator's own ranking (``request.fusion`` or the configured one) — with
    ``how``: :func:`score` (the default) or :func:`base_scores`. ``span_counts`` (path ->
    spans) lets document evidence treat short documents fairly; ``usage`` (the candidates'
    usage scores and components), ``owned`` and ``metas`` are given to :func:`score`."""
    how = how or score
    fusion = request.fusion or cfg.fusion
    ranks = None
    if isinstance(FUSIONS.get(fusion), ReciprocalRank):  # rank-based: each generator's own order
        # equal scores rank by span id: registry rows differ between an updated and a rebuilt index
        sid = {c.row: c.span_ref.span_id for c in cands}
        ranks = {}
        for name, hs in hits.items():
            keys = [(-h.score, sid.get(h.row, "")) for h in hs]
            ranks[name] = {hs[i].row: r for r, i in enumerate(sorted(range(len(hs)), key=keys.__getitem__), 1)}
        # by cosine descending, then span id: a stable sort of the span id order
        by_cosine = sorted(cands, key=_SPAN_ID)
        by_cosine.sort(key=_COSINE, reverse=True)
        ranks["semantic"] = {c.row: r for r, c in enumerate(by_cosine, 1)}
    return how(
        cands, weights, request.soft_prefs, now, cfg.recency_half_life_days,
        fusion=fusion, rrf_k=cfg.rrf_k, ranks=ranks, evidence=DocumentEvidence.of(cfg, request.budget_tokens, span_counts),
        **({"usage": usage} if usage is not None else {}), **({"owned": owned, "metas": metas} if how is score else {}),
    )
