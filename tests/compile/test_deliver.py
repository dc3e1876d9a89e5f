"""The budget is the size of what is delivered: for random budgets and intents, the whole
rendered output of every format, counted with the index's tokenizer, never exceeds it.
Runs the real pipeline on the sample project indexed with the real model."""

from __future__ import annotations

import json
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
FORMATS = ("markdown", "brief", "xml", "json")


@pytest.fixture(scope="module")
def reader(sample_index):
    r = api.open_index(load_config(sample_index))
    yield r
    r.close()


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
    for intent in INTENTS[:12]:
        for on in (True, False):
            resp = api.compile_workingset(CompileRequest(intent, budget_tokens=600, compress=on, record_usage=False), reader.cfg, reader)
            covered[on] += len({i.path for i in resp.workingset.spans})
    assert covered[True] > covered[False]
