"""The budget is the size of what is delivered: for random budgets and intents, the whole
rendered output of every format, counted with the index's tokenizer, never exceeds it.
Runs the real pipeline on the sample project indexed with the real model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.errors import ExitStatus, OrionError
from oriongraph_cli.models import CompileRequest
from oriongraph_cli.render import render_text
from oriongraph_cli.tokens import get_counter

QUERIES = Path(__file__).resolve().parents[2] / "bench" / "fixture_queries.jsonl"
INTENTS = [json.loads(line)["text"] for line in QUERIES.read_text().splitlines() if line.strip()]
FORMATS = ("markdown", "brief", "xml", "json", "json-lean")


@dataclass(frozen=True)
class Stats:
    """The parts of a compile's stats that delivery reads (for a fake builder)."""

    tokens_used: int = 0
    delivered: dict = field(default_factory=dict)


@dataclass(frozen=True)
class WS:
    spans: tuple = ()


@dataclass(frozen=True)
class Resp:
    """A fake response whose rendered size is ``size`` tokens."""

    workingset: WS
    stats: Stats
    size: int


@pytest.fixture(scope="module")
def reader(sample_index):
    r = api.open_index(load_config(sample_index))
    yield r
    r.close()


@pytest.mark.parametrize("fmt, budget", [("markdown", 1), ("markdown", 30), ("json", 40), ("xml", 20)])
def test_a_budget_that_delivers_nothing_names_the_least_that_delivers_a_quote(reader, fmt, budget):
    """Under the framing (a usage error) or with room for framing but no span (no
    candidates), the hint names a budget: that budget delivers a quote and one token less
    does not — not a guess of framing plus a hundred."""
    import re

    def attempt(b):
        return api.compile_workingset(CompileRequest("how do we rotate credentials", budget_tokens=b, deliver=(fmt,),
                                                     record_usage=False), reader.cfg, reader)

    with pytest.raises(OrionError) as info:
        attempt(budget)
    m = re.search(r"--budget (\d+)\), the least that delivers any quote", info.value.hint or "")
    assert m, info.value.hint
    least = int(m.group(1))
    assert attempt(least).workingset.spans
    with pytest.raises(OrionError):
        attempt(least - 1)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    budget=st.integers(min_value=150, max_value=9000),
    intent=st.sampled_from(INTENTS),
    fmt=st.sampled_from(FORMATS),
    compress=st.booleans(),
    expand=st.booleans(),
)
def test_rendered_output_never_exceeds_the_budget(reader, budget, intent, fmt, compress, expand):
    request = CompileRequest(intent, budget_tokens=budget, deliver=(fmt,), compress=compress, expand=expand, record_usage=False)
    try:
        resp = api.compile_workingset(request, reader.cfg, reader)
    except OrionError as err:  # a budget below the format's own framing is refused, never overrun
        if err.exit_code == ExitStatus.NO_CANDIDATES:  # room for framing, none for a span: said, not empty
            assert err.message.startswith("nothing fits in a budget of") and budget < 600
            return
        assert err.exit_code == ExitStatus.USAGE and "framing" in err.message
        return
    n = get_counter("tiktoken").count(render_text(resp, fmt))
    assert n <= budget
    assert abs(resp.stats.delivered[fmt] - n) <= 1  # the printed count is the output's own
    if not compress:
        assert all(i.compression is None for i in resp.workingset.spans)


def test_every_requested_format_fits_at_once(reader):
    request = CompileRequest(INTENTS[0], budget_tokens=1500, deliver=("json", "brief"), record_usage=False)
    resp = api.compile_workingset(request, reader.cfg, reader)
    count = get_counter("tiktoken").count
    assert count(render_text(resp, "json")) <= 1500 and count(render_text(resp, "brief")) <= 1500
    assert json.loads(render_text(resp, "json"))["delivered_tokens"] == resp.stats.delivered["json"]


def test_explanation_is_extra_and_says_so(reader):
    request = CompileRequest(INTENTS[0], budget_tokens=1000, record_usage=False)
    resp = api.compile_workingset(request, reader.cfg, reader)
    plain, explained = render_text(resp, "markdown"), render_text(resp, "markdown", explain=True)
    assert explained.startswith(plain.rstrip("\n")) and "not counted in the budget" in explained
    assert get_counter("tiktoken").count(plain) <= 1000 < get_counter("tiktoken").count(explained)


def test_compression_covers_more_documents_at_a_small_budget(reader):
    """What compression buys on the sample: at 600 tokens, shortened spans bring documents
    in that whole spans leave out (measured figures: docs/BENCHMARKS.md)."""
    covered = {True: 0, False: 0}
    for intent in INTENTS:  # all 36: on the first 12 alone the two tie (46 documents each)
        for on in (True, False):
            resp = api.compile_workingset(CompileRequest(intent, budget_tokens=600, compress=on, record_usage=False), reader.cfg, reader)
            covered[on] += len({i.path for i in resp.workingset.spans})
    assert covered[True] > covered[False]


# ------------------------------------------------------------ the fitting loop's fallback


def test_when_shrinking_does_not_settle_the_largest_fitting_selection_is_kept(monkeypatch):
    """Framing that jumps (a large header enters with any selection over 150 tokens) made
    eight shrink rounds end over the budget, and the loop fell back to nothing."""
    from oriongraph_cli.assemble import deliver

    def build(q, overhead=0, compact=False):
        spans = q // 100 if q >= 100 else 0
        size = 1101 if q > 150 else 100 + q
        return Resp(WS(tuple(range(spans))), Stats(tokens_used=spans * 100), size)

    monkeypatch.setattr(deliver, "_render", lambda resp, fmt: "x " * resp.size)
    out = deliver.fit(build, 1000, ("markdown",), lambda text: len(text.split()))
    assert out.size <= 1000
    assert len(out.workingset.spans) == 1  # q = 150 fits; the old loop delivered 0 spans


def test_room_the_estimates_left_is_offered_back(monkeypatch):
    """The fixed cost is measured on the empty output, which carries a summary line and a
    "no spans" note that a small working set does not: the selection budget came out 40
    tokens short and the output 100 tokens under the budget with a span still waiting."""
    from oriongraph_cli.assemble import deliver

    def build(q, overhead=0, compact=False):
        spans = max(q, 0) // 100
        size = 140 if spans == 0 else 100 + spans * 100  # the empty output is dearer
        return Resp(WS(tuple(range(spans))), Stats(tokens_used=spans * 100), size)

    monkeypatch.setattr(deliver, "_render", lambda resp, fmt: "x " * resp.size)
    out = deliver.fit(build, 1000, ("markdown",), lambda text: len(text.split()))
    assert out.size == 1000 and len(out.workingset.spans) == 9  # was 8 spans, 900 tokens


def test_a_per_span_cost_that_prices_every_span_out_is_not_an_empty_working_set(monkeypatch):
    """The trial at the full room brought neighbours (expansion) whose framing, spread over
    its spans, made each span look dearer than the room: the shrink loop accepted the empty
    selection as fitting ("nothing fits in a budget of 746: the best span needs 736"),
    although one span with its own framing fits."""
    from oriongraph_cli.assemble import deliver

    def build(q, overhead=0, compact=False):
        if q >= 600 and overhead == 0:  # the trial: two spans and their neighbours' framing
            return Resp(WS((1, 2)), Stats(tokens_used=400), 100 + 400 + 1000)
        n = 1 if q >= 200 + overhead else 0  # one span of 200 tokens, charged its overhead
        return Resp(WS(tuple(range(n))), Stats(tokens_used=200 * n), 100 + n * (200 + 150))

    monkeypatch.setattr(deliver, "_render", lambda resp, fmt: "x " * resp.size)
    out = deliver.fit(build, 750, ("json",), lambda text: len(text.split()))
    assert out.size <= 750
    assert len(out.workingset.spans) == 1  # before: 0 spans, and compile raised "nothing fits"


def test_the_printed_count_starts_from_a_neighbouring_outputs_and_agrees_sooner(monkeypatch):
    """The printed number is part of what is counted: from 0 (one word) to 3,989 (two) the
    count moves once more before it agrees. Settling from a neighbouring output's count,
    whose number has as many digits, agrees at the second rendering — and prints the same
    number as settling from 0."""
    from oriongraph_cli.assemble import deliver

    renders = []

    def render(resp, fmt):
        renders.append(resp.stats.delivered[fmt])
        number = f"{resp.stats.delivered[fmt]:,}".replace(",", " ")  # 3,989 is two words, 0 one
        return "x " * resp.size + number

    monkeypatch.setattr(deliver, "_render", render)
    count = lambda text: len(text.split())  # noqa: E731
    resp = Resp(WS((1,)), Stats(tokens_used=3000), 3987)
    cold, n_cold = deliver.settle(resp, ("markdown",), count)
    assert renders == [0, 3988, 3989] and n_cold == {"markdown": 3989}
    renders.clear()
    warm, n_warm = deliver.settle(resp, ("markdown",), count, guess={"markdown": 3950})
    assert renders == [3950, 3989] and n_warm == n_cold
    assert warm.stats.delivered == cold.stats.delivered == {"markdown": 3989}


def test_delivered_text_never_shrinks_to_nothing_as_the_budget_grows(reader):
    """Across budgets on the real sample index: a budget that delivered spans is never
    followed by a larger one that delivers none, and quoted tokens do not fall by more
    than one span's worth."""
    cfg = load_config(reader.cfg.root)
    counter = get_counter(str(reader.manifest.tokenizer))
    for intent in INTENTS[:2]:
        prev_spans, prev_quoted = 0, 0
        for budget in range(300, 4200, 190):
            req = api.build_request(cfg, intent, budget=budget, record_usage=False, deliver=("markdown",))
            resp = api.compile_workingset(req, cfg, reader)
            assert counter.count(render_text(resp, "markdown")) <= budget
            spans = resp.workingset.spans
            biggest = max((s.span_ref.token_cost for s in spans), default=0)
            if prev_spans:
                assert spans, (intent, budget)
                assert resp.workingset.total_tokens >= prev_quoted - max(biggest, 250), (intent, budget)
            prev_spans, prev_quoted = len(spans), resp.workingset.total_tokens
