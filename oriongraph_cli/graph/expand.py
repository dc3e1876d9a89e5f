"""Neighbourhood expansion (``--expand``): the previous/next span and the section head of a
selected span, each with its token cost, while they fit what is left of the budget."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from oriongraph_cli.graph import extract


@dataclass(frozen=True)
class Expansion:
    row: int  # registry row of the neighbour span
    span_id: str
    relation: str  # "parent section" | "section head" | "previous" | "next"
    token_cost: int
    of_row: int  # the selected span it expands
    of_span_id: str

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row, "span_id": self.span_id, "relation": self.relation, "token_cost": self.token_cost, "of_span_id": self.of_span_id}


def expand(
    reader,
    span_row: int,
    budget_left: int,
    *,
    exclude: Iterable[int] = (),
    max_spans: int = 2,
    order: Sequence[str] = ("parent", "previous", "next"),
) -> list[Expansion]:
    """Context for one selected span : the head span of its
    section or of its enclosing section ("parent"), then the spans just before and after
    it, in ``order`` — each only if it is not in ``exclude`` (already selected) and its
    ``token_cost`` fits what is left of ``budget_left``; at most ``max_spans``. The caller
    charges the returned costs to the budget."""
    me = reader.registry.span_place(span_row)
    if me is None or budget_left <= 0 or max_spans <= 0:
        return []
    path, span_id = me[0], me[2]
    recs = reader.registry.document_outline(path)
    infos = [extract.SpanInfo(path, r[1], r[2], tuple(json.loads(r[3])), r[4], "", r[0]) for r in recs]
    pos = next(i for i, s in enumerate(infos) if s.row == span_row)
    candidates: dict[str, tuple[int, str]] = {}
    parent = extract.section_parents(infos).get(pos)
    if parent is not None:
        candidates["parent"] = (parent[0], parent[1])
    if pos > 0:
        candidates["previous"] = (pos - 1, "previous")
    if pos + 1 < len(infos):
        candidates["next"] = (pos + 1, "next")
    skip = set(exclude) | {span_row}
    left = budget_left
    out: list[Expansion] = []
    for name in order:
        if name not in candidates or len(out) >= max_spans:
            continue
        i, relation = candidates[name]
        row, cost = recs[i][0], recs[i][5]
        if row in skip or cost > left:
            continue
        skip.add(row)
        left -= cost
        out.append(Expansion(row, recs[i][1], relation, cost, span_row, span_id))
    return out


__all__ = [ "Expansion", "expand",
]
