"""Packing (before hydration): the form each span enters in.

Selection picked whole spans; spans that did not fit whole may still enter shortened
(``assemble/compress.py``) when their priority allows, and a picked low-priority span may
be shortened to make room for a better-valued one — the choice is made by value per token
(base score × the share of value a level keeps, over the tokens it costs, framing
included). ``shorten_item`` applies the chosen form after hydration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

from oriongraph_cli.assemble import compress
from oriongraph_cli.assemble.select import Picked, Selection, copy_group_of
from oriongraph_cli.models import CandidateSpan, Compression, WSItem

SHORTEN_FROM = ("budget", "outranked", "threshold", "floor", "document_floor")  # rejections a shortened form may still answer
MENTION_FLOOR = 0.5  # under this share of the best score a candidate enters in no form
MAX_SWAPS = 8
SWAP_PRIORITIES = ("medium", "low")  # whole spans that may be shortened to let another document in
MAX_SHORT_SHARE = 0.6  # a shortened form must save at least 40 % of the span to be worth its framing


@dataclass(frozen=True)
class Placed:
    """A span chosen for the working set, and the form it enters in (``level`` None: whole)."""

    picked: Picked
    expansion_of: str | None
    priority: str
    level: str | None = None
    cost: int = 0  # tokens of the text it delivers (framing not included)
    keep: float = 1.0  # share of the span's value the form keeps (compress.keep)

    @property
    def candidate(self) -> CandidateSpan:
        return self.picked.candidate


def _value(p: Placed) -> float:
    return max(p.candidate.base_score, 0.0) * p.keep


def _default_keep(c: CandidateSpan, level: str) -> float:
    return compress.KEEP[level]


def pack(
    sel: Selection,
    entries: list[tuple[Picked, str | None]],
    by_id: dict[str, CandidateSpan],
    budget: int,
    span_overhead: int,
    shortened_cost: Callable[[CandidateSpan, str], int],
    *,
    enabled: bool = True,
    named_docs: frozenset[str] = frozenset(),
    keep_of: Callable[[CandidateSpan, str], float] = _default_keep,
    top: float | None = None,
    read_whole: frozenset[str] = frozenset(),
) -> list[Placed]:
    """The forms the working set's spans enter in (module doc). ``entries`` are selection's
    picks with their expansions; ``shortened_cost(candidate, level)`` is the token count of
    a shortened form and ``keep_of(candidate, level)`` the share of its value it keeps
    (measured on the match it holds; used when the best candidate displaces whole picks —
    the other trades use the level's fixed share, ``compress.KEEP``, which measured better
    for them); ``budget`` is what the spans may spend, framing included. The spans of a
    document in ``read_whole`` (the documents ranking reads whole: the leader and the strong
    documents after it, when they fit) are not shortened to let another document in:
    reading it whole is the point."""
    best = max((p.candidate.base_score for p, _e in entries), default=0.0)
    first = entries[0][0].candidate.span_ref.span_id if entries else None
    placed = [
        Placed(p, exp, compress.priority(p.candidate.base_score, best, first=p.candidate.span_ref.span_id == first,
                                         named=p.candidate.metadata.doc_id in named_docs),
               None, p.candidate.span_ref.token_cost)
        for p, exp in entries
    ]
    if not enabled:
        return placed
    remaining = budget - sum(p.cost + span_overhead for p in placed)
    if top is None:  # the best base score of all candidates (a caller packing them again passes it)
        top = max((c.base_score for c in by_id.values()), default=0.0)
    # a floor lowered by the ranking's depth (select.depth_floor) lowers this one with it
    mention = min(MENTION_FLOOR * top, sel.floor_score) if sel.floor_score > 0 else MENTION_FLOOR * top
    # a candidate with the same words as a span entered says nothing new (select, rule 4):
    # it never enters shortened either, and the working set names it beside that span
    group_of = copy_group_of(sel.copy_groups)
    taken = {group_of.get(p.candidate.span_ref.span_id, -1) for p in placed}  # -1: in no group

    def repeats(c: CandidateSpan) -> bool:
        return group_of.get(c.span_ref.span_id, -1) in taken - {-1}

    waiting = [by_id[r.span_id] for r in sel.rejected if r.reason in SHORTEN_FROM and r.span_id in by_id
               and by_id[r.span_id].base_score >= mention and not repeats(by_id[r.span_id])]
    if not entries and waiting:
        best = waiting[0].base_score  # nothing fits whole: the best candidate may enter shortened
    # 0. the best candidate enters first: when it did not fit whole, its shortened form takes
    #    the place of the weakest whole picks if it is worth more than they are together
    lead = max(waiting, key=lambda c: c.base_score, default=None)
    if lead is not None and placed and lead.base_score > max(p.candidate.base_score for p in placed):
        swap = _lead_swap(lead, placed, remaining, span_overhead, shortened_cost, keep_of)
        if swap is not None:
            level, cost, keep = swap
            remaining += sum(p.cost + span_overhead for p in placed[keep:]) - cost - span_overhead
            placed = [_shortened(lead, "critical", level, cost, 1, keep_of(lead, level))] + [replace(p, priority="high" if p.priority == "critical" else p.priority) for p in placed[:keep]]
            waiting = [c for c in waiting if c is not lead]
            taken.add(group_of.get(lead.span_ref.span_id, -1))
            best = lead.base_score
    # 1. what did not fit whole enters shortened, best first, at the richest level that fits
    #    (a span that brings a document the working set does not hold yet is charged a
    #    header on top of its framing: ``span_overhead`` is an average over a document's
    #    spans, and a shortened newcomer is mostly header)
    left: list[CandidateSpan] = []
    for c in waiting:
        if repeats(c):
            continue  # the same words as a span entered just now
        # when nothing fits whole, the best candidate may be shortened whatever its priority
        prio = "low" if not placed else compress.priority(c.base_score, best, named=c.metadata.doc_id in named_docs)
        charge = span_overhead + (span_overhead if placed and c.metadata.filepath not in {p.candidate.metadata.filepath for p in placed} else 0)
        form = _richest(c, prio, remaining - charge, shortened_cost)
        if form is None:
            left.append(c)
            continue
        level, cost = form
        placed.append(_shortened(c, prio, level, cost, len(placed) + 1, compress.KEEP[level]))
        taken.add(group_of.get(c.span_ref.span_id, -1))
        remaining -= cost + charge
    # 2. value per token: shorten a weak whole span when that lets a document in that the
    #    working set does not cover yet, and the value gained exceeds the value lost
    for _ in range(MAX_SWAPS):
        covered = {p.candidate.metadata.filepath for p in placed}
        swap = _best_swap(placed, [c for c in left if c.metadata.filepath not in covered and not repeats(c)], best, remaining,
                          2 * span_overhead, shortened_cost, named_docs, read_whole)  # a newcomer: its header too
        if swap is None:
            break
        i, new_level, new_cost, c, c_level, c_cost = swap
        old = placed[i]
        placed[i] = replace(old, level=new_level, cost=new_cost, keep=compress.KEEP[new_level],
                            picked=replace(old.picked, candidate=_with_reason(old.candidate, f"shortened ({new_level}) to make room for a better-valued span")))
        remaining += old.cost - new_cost
        prio = compress.priority(c.base_score, best, named=c.metadata.doc_id in named_docs)
        placed.append(_shortened(c, prio, c_level, c_cost, len(placed) + 1, compress.KEEP[c_level]))
        taken.add(group_of.get(c.span_ref.span_id, -1))
        remaining -= c_cost + 2 * span_overhead
        left.remove(c)
    return placed


def shortened_tokens(cost_of: Callable[[CandidateSpan, str], int], named_docs: frozenset[str] = frozenset()) -> Callable[[CandidateSpan], int | None]:
    """What selection's document floor asks of a strong span that did not fit whole
    (``select.select(shortened=…)``): the tokens of its mildest shortened form, as step 1
    finds it for a span of high or medium priority (:func:`_richest`), or None when it enters in no shortened form (a
    document the intent names is never shortened) or that form does not save enough of the
    span to be worth its framing (``MAX_SHORT_SHARE``)."""

    def tokens(c: CandidateSpan) -> int | None:
        form = None if c.metadata.doc_id in named_docs else _richest(c, "high", math.inf, cost_of)
        return form[1] if form else None

    return tokens


def _lead_swap(lead: CandidateSpan, placed: list[Placed], remaining: int, overhead: int, cost_of, keep_of) -> tuple[str, int, int] | None:
    """(level, cost, how many whole picks stay) for the best candidate entering shortened in
    place of the weakest whole picks (expansions are not dropped), or None when no level
    fits or what it keeps is worth less than what it drops."""
    for level in compress.ALLOWED["low"][:-1]:  # a pointer is never worth a whole quote
        cost = cost_of(lead, level)
        if cost > MAX_SHORT_SHARE * lead.span_ref.token_cost:
            continue
        keep, room = len(placed), remaining
        while keep and room < cost + overhead and placed[keep - 1].expansion_of is None:
            keep -= 1
            room += placed[keep].cost + overhead
        if room < cost + overhead:
            continue
        lost = sum(_value(p) for p in placed[keep:])
        if max(lead.base_score, 0.0) * keep_of(lead, level) > lost:
            return level, cost, keep
    return None


def _richest(c: CandidateSpan, prio: str, room: int, cost_of) -> tuple[str, int] | None:
    for level in compress.ALLOWED[prio]:
        cost = cost_of(c, level)
        if cost <= room and cost <= MAX_SHORT_SHARE * c.span_ref.token_cost:
            return level, cost
    return None


def _with_reason(c: CandidateSpan, reason: str) -> CandidateSpan:
    return replace(c, reasons=tuple(dict.fromkeys(c.reasons + (reason,))))


def _shortened(c: CandidateSpan, prio: str, level: str, cost: int, rank: int, keep: float) -> Placed:
    why = f"did not fit whole: enters shortened ({level}, {cost} of {c.span_ref.token_cost} tokens)"
    return Placed(Picked(_with_reason(c, why), 0.0, 0.0, 0.0, None, rank), None, prio, level, cost, keep)


def _best_swap(placed, left, best, remaining, overhead, cost_of, named_docs, read_whole=frozenset()):
    """(index of a placed whole span, its shortened level and cost, the waiting candidate,
    its level and cost) with the largest value gain, or None."""
    found, gain_best = None, 1e-9
    # per waiting candidate, what _richest reads, the same for every placed span tried
    # against it: its value, its levels and their costs (asked in order, when first needed)
    forms = []
    for c in left:
        prio = compress.priority(c.base_score, best, named=c.metadata.doc_id in named_docs)
        value, levels = max(c.base_score, 0.0), compress.ALLOWED[prio]
        # the most any of its forms can bring: its mildest level keeps the most (KEEP falls
        # along each ALLOWED tuple), so a candidate under the best gain so far is passed over
        top = value * compress.KEEP[levels[0]] if levels else float("-inf")
        forms.append((c, value, levels, MAX_SHORT_SHARE * c.span_ref.token_cost, [], top))

    def richest(c, levels, share, costs, room):  # _richest(c, prio, room, cost_of)
        for j, level in enumerate(levels):
            if j == len(costs):
                costs.append(cost_of(c, level))
            if costs[j] <= room and costs[j] <= share:
                return level, costs[j]
        return None

    for i, p in enumerate(placed):
        if p.level is not None or p.expansion_of is not None or p.priority not in SWAP_PRIORITIES:
            continue
        if p.candidate.metadata.filepath in read_whole:
            continue
        for level in compress.ALLOWED[p.priority]:
            new_cost = cost_of(p.candidate, level)
            if new_cost > MAX_SHORT_SHARE * p.cost:
                break
            room = remaining + p.cost - new_cost - overhead
            loss = _value(p) - max(p.candidate.base_score, 0.0) * compress.KEEP[level]
            for c, value, levels, share, costs, top in forms:
                if top - loss <= gain_best:
                    continue
                form = richest(c, levels, share, costs, room)
                if form is None:
                    continue
                gain = value * compress.KEEP[form[0]] - loss
                if gain > gain_best:
                    found, gain_best = (i, level, new_cost, c, form[0], form[1]), gain
            break  # only the first (mildest) level of each placed span is considered
    return found


def shorten_item(item: WSItem, level: str, count: Callable[[str], int], focus: compress.Focus = compress.NO_FOCUS) -> WSItem:
    """The item with its text shortened to ``level`` around ``focus`` and its
    ``compression`` recorded (``count``: the compile's token counter, remembered across its builds)."""
    text, comp = shortened_form(item, level, count, focus)
    return replace(item, text=text, compression=comp)


def shortened_form(item: WSItem, level: str, count: Callable[[str], int], focus: compress.Focus = compress.NO_FOCUS) -> tuple[str, Compression]:
    """The text and ``compression`` :func:`shorten_item` gives ``item``."""
    ref = item.span_ref
    text = compress.shortened(level, item.text, item.section_title, item.path, ref, focus)
    return text, Compression(level=level, tokens_full=ref.token_cost, tokens=count(text), backref=f"orion show {ref.span_id}")
