"""Selection: greedy MMR under a token budget and a per-source cap.

Rules, in the order they apply:

1. **Order and prune.** Candidates are sorted by ``(-base_score, span_id)``. We keep them in
   that order until their cumulative ``token_cost`` reaches ``prune_factor * budget``
   (at least 50 are kept when available; spans larger than the whole budget do not count
   towards the sum); the rest are *pruned* and never considered.
2. **MMR.** At each step ``mmr = λ·base − (1−λ)·max_sim(c, selected)`` where ``max_sim`` is
   the cosine similarity of the (re-normalised) embeddings; a missing embedding has
   similarity 0. ``max_sim`` is floored at 0, so the diversity penalty is never a bonus.
   It is kept as a vector and updated with one ``E @ e_new`` per pick.
3. **Feasibility.** ``token_cost + span_overhead <= remaining budget`` (``span_overhead`` is
   the framing each delivered span costs in the chosen output format, measured by the
   caller). A candidate scoring below ``floor × best base score`` is never feasible (the
   relevance floor: selection stops short of the budget rather than fill it with weak
   spans). When the candidates in play come
   from two or more distinct ``metadata.filepath`` values, one source may hold at most
   ``floor(max_source_ratio * budget)`` tokens. *The ratio is taken against the budget,
   not the running total*: against the running total the very first pick would hold 100%
   and always violate it. With one source in play the cap is off. A source's *first* span
   is never held back by the cap: the cap limits what a document adds beyond one span, so
   at a small budget the best span is not passed over for a weaker one that happens to be
   under the cap (at 300 tokens a 185-token span is over a 150-token cap). A document the
   ranking reads whole (``uncapped``: the leading document when all of it fits the
   budget, and the strong documents after it within ``strong_whole_ratio`` of it) is not
   capped at all: the cap would cut it back to the one passage reading it
   whole is meant to go beyond. The cap
   *yields* to relevance: a capped source's candidate stays feasible when every candidate
   of the other sources scores below ``cap_yield ×`` its base score (no comparable
   alternative exists, so the cap would only trade relevant text for weaker text).
   **Depth before breadth** (``doc_floor`` > 0): while any candidate of a strong document
   fits — one whose span scores at least ``doc_floor ×`` the best base score, or one
   already picked — a document not yet picked whose spans all score under that enters
   only once nothing else is feasible; so the budget goes on deeper passages of the
   documents most likely to answer before weak documents take it, and is still spent.
   With ``shortened`` (the packer's shortened form of a span, ``assemble/pack.py``), a
   strong document's span that no longer fits whole but whose shortened form does still
   holds the gate: selection stops there and the packer delivers that passage shortened
   before a weak document enters (in any form the room left allows).
4. **Pick** the feasible candidate with the highest MMR; candidates within 0.01 of the best
   are tie-broken by lowest ``token_cost``, then highest ``base_score``, then ``span_id``.
   A candidate with the same text as the pick (word for word, whitespace aside: a shared
   include, a module README's boilerplate, a versioned site's copy of a page) is out from
   then on — it says nothing new; ``Selection.copy_groups`` keeps the pool's groups of the
   same words, and the working set names the others beside the text it quotes. Of several copies in play, the one
   on the newest version is the one picked (``versions.newest_first``: a path naming no
   version folder, then the highest release), the pick otherwise.
5. **Stop** when no candidate is feasible (``floor`` when the rest are below the floor), when ≥ 99.5% of the budget is used, or when the
   best feasible MMR is below ``mmr_threshold`` *and* ≥ 90% of the budget is used (slack
   is filled with the next best fitting span rather than left empty).
6. **Rejections** for the top 20 unselected candidates (base-score order), first match wins,
   each saying what would let it in: ``duplicate`` ("the same text as PATH:L3-L9 (#2),
   already selected"), ``floor`` (below the relevance floor: "would enter
   with --floor ≤ x"), ``source_cap`` ("would enter with --max-source-ratio ≥ r"),
   ``budget`` ("needs --budget ≥ N"), ``redundancy`` (max_sim ≥ 0.85: "lost to span X (cos
   0.93)"), ``threshold`` (stopped on ``mmr_threshold``), ``document_floor`` (a new document under the document
   floor while the stronger ones took the budget), else ``outranked`` ("would enter
   at --lambda ≥ x" when a higher λ would rank it above the last pick). The top 5 pruned
   candidates are listed with reason ``pruned``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from oriongraph_cli.normalise import _evolve
from oriongraph_cli.rank.copies import words
from oriongraph_cli.rank.score import sort_key
from oriongraph_cli.models import CandidateSpan, Rejection
from oriongraph_cli.versions import newest_first

MIN_KEEP = 50  # pruning always keeps at least this many candidates
TIE_EPS = 0.01  # MMR scores this close count as a tie (prefer the cheaper span)
SATURATED = 0.995  # stop once this share of the budget is used
THRESHOLD_UTIL = 0.90  # mmr_threshold only stops selection above this utilisation
REDUNDANT_SIM = 0.85  # rejection reason "redundancy" at or above this similarity
SAME_SECTION_PENALTY = 0.05  # "same section as #k — penalised" above this penalty
UNCAPPED_SPANS = 2  # a document's first spans, never held back by the source cap (rule 3)
MAX_REJECTIONS = 20
MAX_PRUNED_LISTED = 5


@dataclass(frozen=True)
class Picked:
    candidate: CandidateSpan  # with mmr_score and selection reasons set
    mmr_score: float
    diversity_penalty: float  # (1-λ)·max_sim at the moment of the pick
    max_sim: float
    most_similar_span_id: str | None  # the selected span it was most similar to (None for the first)
    rank: int  # 1-based pick order


@dataclass(frozen=True)
class Selection:
    picked: tuple[Picked, ...]
    rejected: tuple[Rejection, ...]
    pruned: int
    sources_in_play: int
    source_cap_tokens: int | None  # None: cap off (a single source in play)
    budget: int = 0
    stop_reason: str = ""  # "no_feasible" | "floor" | "saturated" | "threshold" | "exhausted"
    span_overhead: int = 0
    floor_score: float = 0.0  # absolute base score under which candidates were not taken
    # the candidates of the pool with the same words (rule 4), each group best first: the
    # packer enters one of a group, the working set names the others beside its text
    copy_groups: tuple[tuple[CandidateSpan, ...], ...] = ()

    @property
    def used(self) -> int:
        """Budget consumed, framing included."""
        return sum(p.candidate.span_ref.token_cost + self.span_overhead for p in self.picked)

    @property
    def tokens_used(self) -> int:
        return sum(p.candidate.span_ref.token_cost for p in self.picked)

    @property
    def utilisation(self) -> float:
        return self.tokens_used / self.budget if self.budget > 0 else 0.0


def _unit_row(c: CandidateSpan) -> tuple[int, np.ndarray | None]:
    """(dimension or 0 when missing, the embedding divided by its norm or None when zero)."""
    if c.embedding is None:
        return 0, None
    v = np.asarray(c.embedding, dtype=np.float32).ravel()
    if not v.size:
        return 0, None
    n = float(np.linalg.norm(v))
    return v.shape[0], (v / n if n > 0 else None)


def _embedding_matrix(cands: list[CandidateSpan], rows: list[tuple[int, np.ndarray | None]] | None = None) -> np.ndarray | None:
    """Row-normalised float32 matrix of embeddings; missing/zero embeddings are zero rows.
    ``rows``: :func:`_unit_row` of each candidate, when already worked out."""
    rows = rows if rows is not None else [_unit_row(c) for c in cands]
    dims = {d for d, _v in rows if d}
    if not dims:
        return None
    if len(dims) > 1:
        raise ValueError(f"candidate embeddings have different dimensions: {sorted(dims)}")
    dim = dims.pop()
    E = np.zeros((len(cands), dim), dtype=np.float32)
    for i, (_d, v) in enumerate(rows):
        if v is not None:
            E[i] = v
    return E


class Ranking:
    """Candidates in selection order (``sort_key``) with their unit embeddings, worked out
    once for every selection a compile makes over the same candidates (``deliver.fit``
    selects at several budgets)."""

    def __init__(self, cands: list[CandidateSpan]):
        self.ordered = sorted(cands, key=sort_key)
        self._rows: list[tuple[int, np.ndarray | None]] = []
        self.text_keys: dict[str, str] = {}  # span id -> its text's words (rule 4), read once a compile

    def embeddings(self, n: int) -> np.ndarray | None:
        """:func:`_embedding_matrix` of the first ``n`` candidates."""
        for c in self.ordered[len(self._rows):n]:
            self._rows.append(_unit_row(c))
        return _embedding_matrix(self.ordered[:n], self._rows[:n])


def _prune(ordered: list[CandidateSpan], budget: int, prune_factor: float) -> int:
    """Number of leading candidates to keep (see rule 1).

    Only spans that fit the budget on their own count towards the cumulative cost: a span
    that can never be picked must not push a pickable one out (otherwise 50 oversized top
    candidates could prune the one small span a tiny budget needs).
    """
    limit = prune_factor * budget
    total, keep = 0, 0
    for c in ordered:
        if total >= limit:
            break
        if c.span_ref.token_cost <= budget:
            total += c.span_ref.token_cost
        keep += 1
    return max(keep, min(MIN_KEEP, len(ordered)))


def depth_floor(ordered: list[CandidateSpan], depth_tokens: float) -> float:
    """The base score of the candidate at which the ranking, read in order, holds
    ``depth_tokens`` tokens: what a naive "top-k + pack" working set of that size would
    still take. The relevance floor never rises above it, so selection does not stop while
    candidates the baselines would deliver remain (spans larger than the depth do not count)."""
    total = 0
    for c in ordered:
        if c.span_ref.token_cost <= depth_tokens:
            total += c.span_ref.token_cost
        if total >= depth_tokens:
            return float(c.base_score)
    return float("-inf")  # the whole ranking is shallower than the depth: no floor


def _strong_fits_shortened(pool, alive: np.ndarray, waiting: np.ndarray, in_ws: np.ndarray, remaining: int, overhead: int,
                           shortened) -> bool:
    """Whether one of the ``waiting`` candidates the packer will be offered (the first
    ``MAX_REJECTIONS`` left ``alive``, in base-score order, as the rejections list them) fits
    ``remaining`` in its shortened form, framing included: a document the working set does
    not hold yet brings its header too."""
    offered = np.flatnonzero(alive)[:MAX_REJECTIONS]
    for j in offered[waiting[offered]]:
        tokens = shortened(pool[j])
        if tokens is not None and tokens + overhead * (1 if in_ws[j] else 2) <= remaining:
            return True
    return False


def _reject(c: CandidateSpan, reason: str, detail: str, related: str | None = None) -> Rejection:
    return Rejection(
        span_id=c.span_ref.span_id,
        path=c.metadata.filepath,
        section_title=c.metadata.section_title,
        base_score=c.base_score,
        token_cost=c.span_ref.token_cost,
        reason=reason,
        detail=detail,
        related_span_id=related,
    )


def select(
    cands: list[CandidateSpan],
    budget: int,
    lam: float,
    max_source_ratio: float,
    mmr_threshold: float = 0.0,
    prune_factor: float = 5.0,
    *,
    span_overhead: int = 0,
    floor: float = 0.0,
    cap_yield: float = 0.0,
    budget_offset: int = 0,
    floor_depth: float = 0.0,
    ranking: Ranking | None = None,
    uncapped: frozenset[str] = frozenset(),
    doc_floor: float = 0.0,
    shortened: Callable[[CandidateSpan], int | None] | None = None,
    texts: Callable[[list[CandidateSpan]], list[str]] | None = None,
) -> Selection:
    """Greedy MMR selection under a hard token budget and a per-source cap (module doc).
    ``budget_offset`` is what the caller reserved outside ``budget`` (fixed framing), so
    counterfactuals can name the ``--budget`` a rejected span would need. ``ranking``:
    ``Ranking(cands)``, kept by a caller that selects from the same candidates again.
    ``shortened(c)``: the tokens of the form the packer would deliver ``c`` in when it does
    not fit whole (None: no such form); only the document floor asks it (rule 3).
    ``texts(pool)``: the spans' texts, read once for the candidates in play, so a span
    whose text repeats one already picked is left out (rule 4)."""
    budget = max(int(budget), 0)
    ranking = ranking if ranking is not None else Ranking(cands)
    ordered = ranking.ordered
    n_keep = _prune(ordered, budget, prune_factor)
    pool, pruned = ordered[:n_keep], ordered[n_keep:]
    n = len(pool)

    sources = sorted({c.metadata.filepath for c in pool})
    cap = math.floor(max_source_ratio * budget) if len(sources) >= 2 else None
    src_of = {s: i for i, s in enumerate(sources)}
    src_idx = np.array([src_of[c.metadata.filepath] for c in pool], dtype=np.int64)
    src_used = np.zeros(len(sources), dtype=np.int64)
    src_free = np.array([s in uncapped for s in sources], dtype=bool)  # sources the cap leaves alone
    src_n = np.zeros(len(sources), dtype=np.int64)  # spans picked from each source

    cost = np.array([c.span_ref.token_cost + span_overhead for c in pool], dtype=np.int64)
    base = np.array([c.base_score for c in pool], dtype=np.float64)
    floor_score = float(floor * base.max()) if n and floor > 0 and base.max() > 0 else float("-inf")
    if floor_depth > 0 and n:
        floor_score = min(floor_score, depth_floor(ordered, floor_depth * budget))
    above = base >= floor_score - 1e-12
    # depth before breadth (rule 3): a document not yet picked enters only while its span
    # scores at least doc_floor × the best; once nothing else fits, every document may
    strong = base >= (doc_floor * float(base.max()) if n and doc_floor > 0 else float("-inf")) - 1e-12
    gated = bool(doc_floor > 0 and n and not strong.all())
    E = ranking.embeddings(n)
    max_sim = np.zeros(n, dtype=np.float64)
    nearest = np.full(n, -1, dtype=np.int64)  # pool index of the most similar selected span
    alive = np.ones(n, dtype=bool)
    cap_blocked = np.zeros(n, dtype=bool)
    # the tie-break key (cost asc, base desc, span_id asc) does not change between steps
    tie_order = sorted(range(n), key=lambda j: (int(cost[j]), -float(base[j]), pool[j].span_ref.span_id))
    tie_rank = np.empty(n, dtype=np.int64)
    tie_rank[tie_order] = np.arange(n)

    # the same text, word for word, in several spans (a shared include, a module README's
    # boilerplate): once one is picked the others say nothing new (rule 4)
    same = _repeats(pool, texts, ranking.text_keys) if texts is not None and n else None
    repeat_of = np.full(n, -1, dtype=np.int64)  # pool index of the picked span a candidate repeats
    picks: list[Picked] = []
    rank_of: dict[int, int] = {}
    used = 0
    stop_reason = "exhausted"

    while alive.any():
        remaining = budget - used
        open_ = alive & (cost <= remaining) & above
        while True:
            # while gated, only the strong documents and those already picked are in play
            fits = open_ & (strong | (src_n[src_idx] > 0)) if gated else open_
            feasible = fits
            yielded = False
            if cap is not None:
                # a document's first spans are never capped, nor a document read whole
                cap_ok = (src_n[src_idx] < UNCAPPED_SPANS) | (src_used[src_idx] + cost <= cap) | src_free[src_idx]
                blocked = fits & ~cap_ok
                feasible = fits & cap_ok
                if cap_yield > 0 and blocked.any():
                    best_other = float(base[feasible].max()) if feasible.any() else float("-inf")
                    yields = blocked & (cap_yield * base > best_other)
                    if yields.any():
                        feasible, yielded = feasible | yields, True
            if gated and not feasible.any():
                if shortened is not None and _strong_fits_shortened(
                        pool, alive, above & (cost > remaining) & (strong | (src_n[src_idx] > 0)),
                        src_n[src_idx] > 0, remaining, span_overhead, shortened):
                    break  # the packer delivers that passage shortened before a weak document enters
                gated = False  # the strong documents are spent: every document may enter again
                continue
            break
        if cap is not None:
            cap_blocked |= fits & ~feasible
        if not feasible.any():
            stop_reason = "floor" if (alive & ~above & (cost <= remaining)).any() else "no_feasible"
            break
        mmr = lam * base - (1.0 - lam) * max_sim
        best = float(mmr[feasible].max())
        if best < mmr_threshold and used >= THRESHOLD_UTIL * budget:
            stop_reason = "threshold"
            break
        ties = np.flatnonzero(feasible & (mmr >= best - TIE_EPS - 1e-12))
        i = int(ties[np.argmin(tie_rank[ties])])
        copies_in_play = 0
        if same is not None and same[i] >= 0:
            # copies of the same text: the one on the newest version is quoted (rule 4)
            group = np.flatnonzero(feasible & (same == same[i])).tolist()
            copies_in_play = len(group) - 1
            i = min(group, key=lambda j: (newest_first(pool[j].metadata.filepath), j != i, int(tie_rank[j])))

        c = pool[i]
        sim = float(max_sim[i])
        near = int(nearest[i]) if nearest[i] >= 0 else None
        penalty = (1.0 - lam) * sim
        rank = len(picks) + 1
        reasons: list[str] = []
        if near is None:
            reasons.append("first pick: highest MMR" if rank == 1 else "diverse: no similarity to selected spans")
        else:
            other = pool[near]
            same_section = (
                other.metadata.filepath == c.metadata.filepath
                and other.metadata.section_title == c.metadata.section_title
            )
            if same_section and penalty > SAME_SECTION_PENALTY:
                reasons.append(f"same section as #{rank_of[near]} — penalised (sim {sim:.2f})")
            else:
                reasons.append(f"diverse: max sim {sim:.2f} to #{rank_of[near]}")
        if mmr[i] < best - 1e-12:
            reasons.append(f"tie-break: cheaper within {TIE_EPS} of the best MMR")
        if copies_in_play:
            reasons.append(f"the same text as {copies_in_play} other span{'s' if copies_in_play > 1 else ''}: "
                           "quoted from the newest version's folder (or none), the others named beside it")
        if cap is not None and src_n[src_idx[i]] < UNCAPPED_SPANS and src_used[src_idx[i]] + cost[i] > cap:
            reasons.append(f"over the source cap of {cap} tokens: a document's first {UNCAPPED_SPANS} spans are never capped")
        elif cap is not None and src_free[src_idx[i]] and src_used[src_idx[i]] + cost[i] > cap:
            reasons.append(f"over the source cap of {cap} tokens: the document is read whole")
        elif yielded and cap is not None and src_used[src_idx[i]] + cost[i] > cap:
            reasons.append(f"over the source cap of {cap} tokens: other documents score below {cap_yield:g}× it")
        cand = _evolve(c, mmr_score=float(mmr[i]), reasons=tuple(dict.fromkeys(c.reasons + tuple(reasons))))
        near_id = pool[near].span_ref.span_id if near is not None else None
        picks.append(Picked(cand, float(mmr[i]), penalty, sim, near_id, rank))
        rank_of[i] = rank

        alive[i] = False
        if same is not None and same[i] >= 0:
            repeats = alive & (same == same[i])
            repeat_of[repeats] = i
            alive &= ~repeats
        used += int(cost[i])
        src_used[src_idx[i]] += int(cost[i])
        src_n[src_idx[i]] += 1
        if E is not None:
            s = (E @ E[i]).astype(np.float64)
            closer = s > max_sim
            max_sim[closer] = s[closer]
            nearest[closer] = i
        if budget > 0 and used >= SATURATED * budget:
            stop_reason = "saturated"
            break

    mmr = lam * base - (1.0 - lam) * max_sim
    rejected = _rejections(
        pool, pruned, picks, alive=alive, cap_blocked=cap_blocked, max_sim=max_sim, nearest=nearest, mmr=mmr,
        cap=cap, remaining=budget - used, threshold=mmr_threshold if stop_reason == "threshold" else None,
        pruned_detail=f"outside the top candidates covering {prune_factor:g}x the budget ({budget} tokens)",
        above=above, floor_score=floor_score, best_base=float(base.max()) if n else 0.0, cost=cost,
        src_used=src_used, src_idx=src_idx, budget=budget, budget_offset=budget_offset, lam=lam,
        below_doc_floor=(~strong & (src_n[src_idx] == 0)) if gated else None, doc_floor=doc_floor,
        repeat_of=repeat_of, rank_of=rank_of,
    )
    return Selection(
        picked=tuple(picks),
        rejected=rejected,
        pruned=len(pruned),
        sources_in_play=len(sources),
        source_cap_tokens=cap,
        budget=budget,
        stop_reason=stop_reason,
        span_overhead=span_overhead,
        floor_score=max(floor_score, 0.0),
        copy_groups=_groups(pool, same) if same is not None else (),
    )


def copy_group_of(groups: tuple[tuple[CandidateSpan, ...], ...]) -> dict[str, int]:
    """Span id -> the index of its group in ``Selection.copy_groups`` (``groups``)."""
    return {c.span_ref.span_id: g for g, members in enumerate(groups) for c in members}


def _groups(pool: list[CandidateSpan], same: np.ndarray) -> tuple[tuple[CandidateSpan, ...], ...]:
    """The pool's candidates with the same words (``same``: a group id per candidate, -1
    for none), each group in pool order (best first)."""
    out: dict[int, list[CandidateSpan]] = {}
    for i in np.flatnonzero(same >= 0).tolist():
        out.setdefault(int(same[i]), []).append(pool[i])
    return tuple(tuple(g) for g in out.values())


def _rejections(
    pool: list[CandidateSpan],
    pruned: list[CandidateSpan],
    picks: list[Picked],
    *,
    alive: np.ndarray,
    cap_blocked: np.ndarray,
    max_sim: np.ndarray,
    nearest: np.ndarray,
    mmr: np.ndarray,
    cap: int | None,
    remaining: int,
    threshold: float | None,
    pruned_detail: str,
    above: np.ndarray,
    floor_score: float,
    best_base: float,
    cost: np.ndarray,
    src_used: np.ndarray,
    src_idx: np.ndarray,
    budget: int,
    budget_offset: int,
    lam: float,
    below_doc_floor: np.ndarray | None = None,
    doc_floor: float = 0.0,
    repeat_of: np.ndarray | None = None,
    rank_of: dict[int, int] | None = None,
) -> tuple[Rejection, ...]:
    """Why the best unselected candidates were left out and what would let them in (rule 6);
    ``threshold`` is set only when selection stopped on ``mmr_threshold``."""
    out: list[Rejection] = []
    last = picks[-1] if picks else None
    repeats = repeat_of >= 0 if repeat_of is not None else np.zeros(len(pool), dtype=bool)
    for i in np.flatnonzero(alive | repeats)[:MAX_REJECTIONS].tolist():  # pool is already in base order
        c = pool[i]
        c_cost = int(cost[i])
        if repeats[i]:
            j = int(repeat_of[i])  # type: ignore[index]
            other = pool[j]
            where = f"{other.metadata.filepath}:{other.span_ref.lines}" if other.span_ref.line_start else other.metadata.filepath
            out.append(_reject(c, "duplicate", f"the same text as {where} (#{(rank_of or {}).get(j, '?')}), already selected",
                               other.span_ref.span_id))
        elif not above[i]:
            rel = c.base_score / best_base if best_base > 0 else 0.0
            out.append(_reject(c, "floor", f"scores {c.base_score:.3f}, under the relevance floor {floor_score:.3f}; "
                                           f"would enter with --floor <= {math.floor(rel * 100) / 100:.2f}"))
        elif cap_blocked[i]:
            need = (int(src_used[src_idx[i]]) + c_cost) / budget if budget else 1.0
            out.append(_reject(c, "source_cap", f"source {c.metadata.filepath} reached its cap of {cap} tokens; "
                                                f"would enter with --max-source-ratio >= {min(1.0, math.ceil(need * 100) / 100):.2f}"))
        elif below_doc_floor is not None and below_doc_floor[i]:
            rel = c.base_score / best_base if best_base > 0 else 0.0
            out.append(_reject(c, "document_floor", f"a new document scoring {rel:.2f} × the best, under the document floor "
                                                    f"{doc_floor:g}: the stronger documents took the budget; would enter "
                                                    f"with document_floor <= {math.floor(rel * 100) / 100:.2f}"))
        elif c_cost > remaining:
            out.append(_reject(c, "budget", f"needs --budget >= {budget + budget_offset + c_cost - remaining:,} ({c_cost} tokens, {remaining} left)"))
        elif nearest[i] >= 0 and max_sim[i] >= REDUNDANT_SIM:
            other = pool[int(nearest[i])].span_ref.span_id
            out.append(_reject(c, "redundancy", f"lost to span {other} (cos {max_sim[i]:.2f})", other))
        elif threshold is not None and mmr[i] < threshold:
            out.append(_reject(c, "threshold", f"MMR {mmr[i]:.3f} below the threshold {threshold:.3f}"))
        else:
            out.append(_reject(c, "outranked", _outranked(c, float(mmr[i]), float(max_sim[i]), last, lam)))
    for c in pruned[:MAX_PRUNED_LISTED]:
        out.append(_reject(c, "pruned", pruned_detail))
    return tuple(out)


def _repeats(pool: list[CandidateSpan], texts: Callable[[list[CandidateSpan]], list[str]],
             keys: dict[str, str]) -> np.ndarray | None:
    """Which candidates of the pool say the same words (``_same_key``), reading only the
    texts of candidates that share their token cost with another (the same text costs the
    same). ``keys``: each span's words as read before (``Ranking.text_keys``), filled here
    for the spans read now."""
    by_cost: dict[int, list[int]] = {}
    for j, c in enumerate(pool):
        by_cost.setdefault(c.span_ref.token_cost, []).append(j)
    maybe = [j for group in by_cost.values() if len(group) > 1 for j in group]
    if not maybe:
        return None
    unread = [pool[j] for j in maybe if pool[j].span_ref.span_id not in keys]
    for c, text in zip(unread, texts(unread) if unread else ()):
        keys[c.span_ref.span_id] = words(text)
    found = _same_key([keys[pool[j].span_ref.span_id] for j in maybe])
    if found is None:
        return None
    same = np.full(len(pool), -1, dtype=np.int64)
    same[maybe] = found
    return same


def _same_key(keys: list[str]) -> np.ndarray | None:
    """For each text, given by its words, the id of the group of candidates with the same
    words, or -1 when no other candidate has them; None when none repeats."""
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    same = np.full(len(keys), -1, dtype=np.int64)
    for g, members in enumerate(m for key, m in groups.items() if key and len(m) > 1):
        same[members] = g
    return same if (same >= 0).any() else None


def _outranked(c: CandidateSpan, mmr_c: float, sim_c: float, last: Picked | None, lam: float) -> str:
    """"would enter at --lambda >= x" when a higher λ ranks it above the last pick (both
    similarities held at their final values), else the two MMR scores."""
    if last is None:
        return f"MMR {mmr_c:.3f}"
    base_l, sim_l = last.candidate.base_score, last.max_sim
    den = (c.base_score - base_l) + (sim_c - sim_l)
    if den > 0:
        star = (sim_c - sim_l) / den
        if lam < star <= 1.0:
            return f"would enter at --lambda >= {math.ceil(star * 100) / 100:.2f} (MMR {mmr_c:.3f} vs {last.mmr_score:.3f} for #{last.rank})"
    return f"MMR {mmr_c:.3f} vs {last.mmr_score:.3f} for the last pick (#{last.rank})"
