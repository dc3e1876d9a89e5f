"""Delivery: the budget is the size of what is delivered.

The whole rendered output of each requested format (quoted text, headers, provenance
lines, separators, preamble, the left-out list) is counted with the index's tokenizer and
must be at most the budget. The framing is measured, not guessed:

1. the *fixed* cost — the output with no spans (title, preamble, summary, left-out list);
   when it would take more than ``COMPACT_SHARE`` of the budget, or the budget is under
   ``FULL_FRAMING_MIN``, the output goes compact (no preamble, no left-out list) so that a
   small budget is spent on text;
2. the *per-span* cost — one full build at ``budget - fixed``, rendered: what is neither
   fixed nor quoted text, divided by the spans (document headers amortised over them);
3. selection then charges each span its text plus the per-span cost, and the output is
   rendered and counted again; while it is over, the selection budget shrinks by the
   overflow (a handful of rounds at most);
4. when those rounds do not settle (framing that jumps as documents enter or leave), the
   selection budget is bisected between the largest that fitted (0 at first: the fixed
   cost fits because it was checked first) and the smallest that did not, keeping the
   largest that fits — never falling back to an empty working set while a smaller
   selection fits;
5. when the per-span cost measured on the trial prices every span out (the trial's
   framing came with neighbours or headers a one-span selection does not bring), the
   selection budget is bisected again charging nothing per span, the rendered output
   being counted as always;
6. what the estimates left unspent is offered back: while the output is ``GROW_MIN`` or
   more tokens under the budget, the selection budget grows by the difference (halved
   when that overshoots), and the larger working set is kept when it fits and quotes more.
   The fixed cost is measured on an empty output, whose summary line and "no spans" note a
   small working set does not carry, and the per-span cost is an average that overprices a
   document's second span (it brings no header): both leave room that this step spends.

The printed "N / budget tokens delivered" is the count of the output that prints it
(settled by re-rendering until the number and the count agree).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

from oriongraph_cli.errors import ExitStatus, OrionError
from oriongraph_cli.models import CompileResponse

MAX_ROUNDS = 8
BISECT_ROUNDS = 16  # enough to halve a 10^5-token room down to one token
COMPACT_SHARE = 0.2
FULL_FRAMING_MIN = 3000  # below this budget the preamble and the left-out list do not pay for themselves
SETTLE_ROUNDS = 4
SETTLE_SLACK = 4  # the printed count's own digits, unknown when the framing is measured
GROW_MIN = 8  # unspent tokens worth another build (step 6)
GROW_ROUNDS = 4
LEAST_BUDGET_LIMIT = 1_000_000  # the largest budget a hint's search tries


def _render(resp: CompileResponse, fmt: str) -> str:
    from oriongraph_cli.render import render_text

    return render_text(resp, fmt)


def check_formats(formats: tuple[str, ...]) -> None:
    """A usage error naming the formats that are not delivered ones (a library caller's
    ``deliver=("yaml",)``), before anything is ranked."""
    from oriongraph_cli.render import DELIVERED_FORMATS

    unknown = [f for f in formats if f not in DELIVERED_FORMATS]
    if unknown:
        raise OrionError(f"deliver: {', '.join(map(repr, unknown))} is not a delivered format",
                         hint=f"deliver one or more of {', '.join(DELIVERED_FORMATS)}", exit_code=ExitStatus.USAGE)


def measure(resp: CompileResponse, formats: tuple[str, ...], count: Callable[[str], int]) -> dict[str, int]:
    """Each format's size rendered once (the printed count may be off by a digit or two:
    good enough to measure framing, not to deliver)."""
    return {f: count(_render(resp, f)) for f in formats}


def settle(resp: CompileResponse, formats: tuple[str, ...], count: Callable[[str], int],
           guess: dict[str, int] | None = None) -> tuple[CompileResponse, dict[str, int]]:
    """The response with ``stats.delivered`` equal to each format's own count (when two
    counts alternate, the larger is printed, so the printed number is never below the truth).
    ``guess``: the counts to print first — a neighbouring output's, whose numbers have as
    many digits as this one's will, so that the second rendering usually agrees (from 0,
    the printed number's own tokens change the count once more)."""
    delivered = {f: (guess or {}).get(f, 0) for f in formats}
    counts: dict[str, int] = {}
    for i in range(SETTLE_ROUNDS):
        resp = replace(resp, stats=replace(resp.stats, delivered=dict(delivered)))
        counts = {f: count(_render(resp, f)) for f in formats}
        if counts == delivered:
            break
        delivered = counts if i < 2 else {f: max(counts[f], delivered[f]) for f in formats}
    return resp, counts


def fit(build: Callable[..., CompileResponse], budget: int, formats: tuple[str, ...], count: Callable[[str], int]) -> CompileResponse:
    """The richest response whose every format fits ``budget`` (module doc). ``build(q,
    overhead, compact)`` assembles a working set whose spans spend at most ``q`` tokens,
    each span charged ``overhead`` on top of its text."""
    n_empty = measure(build(0, 0, False), formats, count)
    fixed = max(n_empty.values())
    compact = fixed > COMPACT_SHARE * budget or budget < FULL_FRAMING_MIN
    if compact:
        n_empty = measure(build(0, 0, True), formats, count)
        fixed = max(n_empty.values())
    if fixed + SETTLE_SLACK > budget:
        worst = max(n_empty, key=lambda f: n_empty[f])
        least = least_budget(build, formats, count, fixed + SETTLE_SLACK - 1)
        raise OrionError(
            f"a budget of {budget} token{'' if budget == 1 else 's'} is smaller than the {worst} output's own framing ({fixed} tokens: title and summary)",
            hint=least_hint(least) if least is not None else f"raise --budget above {fixed + SETTLE_SLACK}",
            exit_code=ExitStatus.USAGE,
        )
    room = budget - fixed
    trial = build(room, 0, compact)
    n = measure(trial, formats, count)
    spans = len(trial.workingset.spans)
    if max(n.values()) < budget or not spans:
        settled, n = settle(trial, formats, count, guess=n)
        if max(n.values()) <= budget:
            return _grow(build, settled, n, room, 0, budget, formats, count, compact) if spans else settled
    framing = max(n.values()) - fixed - trial.stats.tokens_used
    overhead = max(0, math.ceil(framing / max(spans, 1)))
    best = None
    q = room
    too_big = room + 1  # the smallest selection budget seen over the budget
    for _ in range(MAX_ROUNDS):
        resp, n = settle(build(q, overhead, compact), formats, count, guess=n)
        over = max(n.values()) - budget
        if over <= 0:
            best = resp
            break
        too_big = min(too_big, q)
        q -= over
        if q <= 0:
            break
    if best is None:
        best, q, n = _bisect(build, budget, formats, count, overhead, compact, too_big)
    if spans and not best.workingset.spans and overhead > 0:
        # the measured per-span framing priced every span out (it came from a trial whose
        # framing — neighbours, headers — the smallest selection does not bring): the largest
        # selection that fits, charging nothing and counting the rendered output
        overhead = 0
        best, q, n = _bisect(build, budget, formats, count, overhead, compact, room + 1)
    return _grow(build, best, n, q, overhead, budget, formats, count, compact)


def least_budget(build, formats: tuple[str, ...], count: Callable[[str], int], above: int,
                 limit: int = LEAST_BUDGET_LIMIT) -> int | None:
    """The least budget over ``above`` at which :func:`fit` delivers at least one span (budgets
    doubled until one does, then bisected), or None when none up to ``limit`` does. Asked only
    when a budget delivered nothing, for a hint that names the budget that works."""
    def delivers(budget: int) -> bool:
        try:
            return bool(fit(build, budget, formats, count).workingset.spans)
        except OrionError:  # still under the framing
            return False

    lo, hi = max(above, 0), max(2 * above, 64)
    while not delivers(hi):
        lo, hi = hi, 2 * hi
        if hi > limit:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if delivers(mid) else (mid, hi)
    return hi


def least_hint(least: int) -> str:
    """The hint naming the least budget that delivers a quote (:func:`least_budget`)."""
    return f"ask for at least {least:,} tokens (--budget {least}), the least that delivers any quote for this intent"


def _grow(build, best: CompileResponse, n: dict[str, int], q: int, overhead: int, budget: int, formats, count,
          compact: bool) -> CompileResponse:
    """Step 6 (module doc): offer the unspent tokens back to selection while the output
    stays within the budget and quotes more."""
    spare = budget - max(n.values())
    m = n
    for _ in range(GROW_ROUNDS):
        if spare < GROW_MIN:
            break
        resp, m = settle(build(q + spare, overhead, compact), formats, count, guess=m)
        if max(m.values()) > budget:
            spare //= 2
            continue
        if resp.stats.tokens_used <= best.stats.tokens_used:
            break  # the room was there and nothing more entered
        best, q = resp, q + spare
        spare = budget - max(m.values())
    return best


def _bisect(build, budget: int, formats, count, overhead: int, compact: bool, too_big: int) -> tuple[CompileResponse, int, dict[str, int]]:
    """The response at the largest selection budget below ``too_big`` found to fit, by
    bisection (the empty selection fits: the fixed cost was checked), with that selection
    budget and the output's counts."""
    lo, hi = 0, too_big
    best, counts = None, {}
    for _ in range(BISECT_ROUNDS):
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        resp, n = settle(build(mid, overhead, compact), formats, count)
        if max(n.values()) <= budget:
            lo, best, counts = mid, resp, n
        else:
            hi = mid
    if best is None:
        best, counts = settle(build(0, 0, compact), formats, count)
    return best, lo, counts
