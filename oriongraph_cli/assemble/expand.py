"""``--expand``: each selected span, in rank order, may bring its section head or previous
span (placed before it) and its next span (after it) while they fit the budget; each is
charged to the budget and explained as an expansion."""

from __future__ import annotations

from oriongraph_cli.assemble.select import Picked
from oriongraph_cli.config import Config
from oriongraph_cli.graph.expand import expand
from oriongraph_cli.models import CandidateSpan, CompileRequest
from oriongraph_cli.store.reader import IndexReader

EXPAND_RESERVE = 0.25  # share of the budget --expand keeps for neighbours


def selection_budget(request: CompileRequest, budget: int) -> int:
    """What selection may spend of ``budget``: all of it, or three quarters with --expand."""
    return int(budget * (1 - EXPAND_RESERVE)) if request.expand else budget


def with_expansions(cfg: Config, reader: IndexReader, picked, request: CompileRequest, budget: int, span_overhead: int = 0):
    """(Picked, expansion_of span id or None) in working-set order; expansions spend what
    selection left of ``budget`` (they merge with the span they extend, so they cost no
    framing of their own)."""
    if not request.expand:
        return [(p, None) for p in picked]
    left = budget - sum(p.candidate.span_ref.token_cost + span_overhead for p in picked)
    taken = {p.candidate.row for p in picked}
    out = []
    for p in picked:
        found = expand(reader, p.candidate.row, left, exclude=taken, max_spans=cfg.expand_max_spans)
        rows = reader.rows([e.row for e in found])
        before, after = [], []
        for e in found:
            r = rows[e.row]
            left -= e.token_cost
            taken.add(e.row)
            cand = CandidateSpan(
                span_ref=r.ref, metadata=r.meta, row=e.row,
                reasons=(f"expansion of span {e.of_span_id} (#{p.rank}): {e.relation} context",),
            )
            entry = (Picked(cand, 0.0, 0.0, 0.0, e.of_span_id, p.rank), e.of_span_id)
            (after if e.relation == "next" else before).append(entry)
        out.extend(before + [(p, None)] + after)
    return out
