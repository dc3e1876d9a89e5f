"""Graph channel, ADR lifecycle, --expand, usage memory and --episode end to end on the
sample project with the real model."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import run_orion, ws_spans

from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.models import CompileRequest, HardFilters, SoftPreferences

pytestmark = pytest.mark.slow
ADR3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
ADR7 = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"


@pytest.fixture(scope="module")
def reader(sample_index):
    r = api.open_index(load_config(sample_index, usage_log=False))
    yield r
    r.close()


def _compile(reader, intent, **kw):
    return api.compile_workingset(CompileRequest(intent, record_usage=False, **kw), reader.cfg, reader)


def test_superseded_decision_demoted_and_successor_pulled_in(reader):
    signals, ranked, info = api.search(CompileRequest("fixed interval retries in the ingestion worker", top_k=200), reader.cfg, reader)
    first = {}
    for i, c in enumerate(ranked):
        first.setdefault(c.metadata.filepath, i)
    assert first[ADR7] < first[ADR3], "the successor outranks the decision it superseded"
    adr3 = next(c for c in ranked if c.metadata.filepath == ADR3)
    adr7 = next(c for c in ranked if c.metadata.filepath == ADR7)
    assert any("ADR-0003 superseded by ADR-0007" in r for r in adr3.reasons)
    assert any("ADR-0003 superseded by ADR-0007" in r for r in adr7.reasons)


def test_graph_channel_contributes_and_explains(reader):
    from dataclasses import replace

    weights = replace(reader.cfg.weights(), graph=0.1)  # off by default (docs/BENCHMARKS.md, "Generalisation")
    resp = _compile(reader, "why did we replace ADR-0003", budget_tokens=1500, weights=weights)
    assert resp.stats.candidates_seen.get("graph", 0) > 0
    assert resp.workingset.spans[0].path == ADR7
    reasons = [r for e in resp.rationale for r in e.reasons]
    assert any(" via " in r for r in reasons), reasons


def test_graph_off_by_config(sample_index):
    cfg = load_config(sample_index, graph=False, usage_log=False)
    resp = api.compile_workingset(CompileRequest("why did we replace ADR-0003", budget_tokens=800, record_usage=False), cfg)
    assert "graph" not in resp.stats.candidates_seen


def test_stage_final_prefers_and_admits_accepted_decisions(reader):
    resp = _compile(reader, "search ranking", budget_tokens=800, hard_filters=HardFilters(stages=("final",)),
                    soft_prefs=SoftPreferences(prefer_stages=("final",)))
    paths = [i.path for i in resp.workingset.spans]
    assert any("ADR-0009" in p for p in paths)
    assert not any("ADR-0004" in p for p in paths), "the superseded BM25-only ADR is not a final decision"


def test_expand_is_charged_to_the_budget_and_explained(reader):
    resp = _compile(reader, "circuit breaker in the worker", budget_tokens=1200, expand=True)
    items = resp.workingset.spans
    assert resp.workingset.total_tokens <= resp.stats.delivered_tokens <= 1200
    expansions = [i for i in items if i.expansion_of]
    assert expansions, "some selected span brings neighbouring context"
    ids = {i.span_ref.span_id for i in items}
    for e in expansions:
        assert e.expansion_of in ids
    expl = {e.span_ref.span_id: e for e in resp.rationale}
    assert all(any(r.startswith("expansion of span") for r in expl[e.span_ref.span_id].reasons) for e in expansions)
    assert sorted(i.selection_rank for i in items) == list(range(1, len(items) + 1))


def test_usage_log_snapshot_episode_and_report(sample_index, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(sample_index, root)
    for leftover in ("usage.jsonl", "usage.snapshot.json"):  # other tests compiled on the shared index
        (root / ".oriongraph" / leftover).unlink(missing_ok=True)
    r = run_orion("compile", "retry budget for the ingestion worker", "--root", str(root), "--budget", "600", "--explain", "--json")
    assert r.returncode == 0, r.stderr
    episode = re.search(r"recorded episode (\w+)", r.stderr).group(1)
    data = json.loads(r.stdout)
    assert data["episode_id"] == episode  # the JSON names the episode (null with --no-usage-log)
    log = (root / ".oriongraph" / "usage.jsonl").read_text()
    rec = json.loads(log.splitlines()[-1])
    assert rec["episode_id"] == episode and sorted(rec["span_ids"]) == sorted(s["span_id"] for s in ws_spans(data))
    for item in ws_spans(data):  # never any document text
        assert item["quote_text"][:60] not in log
    # usage counts only after the next `orion index` (snapshot), so compiles stay deterministic
    run_orion("index", "--root", str(root), "--quiet")
    r2 = run_orion("compile", "retry budget for the ingestion worker", "--root", str(root), "--budget", "600", "--json", "--explain", "--no-usage-log")
    used = {s["path"] for s in ws_spans(data)}
    rationale = json.loads(r2.stdout)["explanation"]["rationale"]
    for e in rationale:
        assert "novelty_boost" in e["components"]
        assert (e["components"]["usage"] > 0) == (e["path"] in used), e["path"]
    # --episode boosts what that episode used
    r3 = run_orion("search", "retry budget and the dead letter queue", "--root", str(root), "--episode", episode, "--json")
    hits = json.loads(r3.stdout)["hits"]
    assert any(any(f"episode {episode}" in x for x in h["reasons"]) for h in hits)
    rep = json.loads(run_orion("usage", "--root", str(root), "--json").stdout)
    assert rep["episodes"] == 1 and rep["used_documents"] >= 1 and rep["never_used"]
    assert rep["most_used"][0]["usage_count"] == 1


def test_links_cli(sample_index):
    r = run_orion("links", "ADR-0003", "--root", str(sample_index), "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert any(e["dst_path"] == ADR7 for e in rep["out"]["SUPERSEDED_BY"])
    assert any(e["src_path"] == ADR7 for e in rep["in"]["SUPERSEDES"])
    d = json.loads(run_orion("links", "--dangling", "--root", str(sample_index), "--json").stdout)
    assert sorted(x["path"] for x in d["dangling"]) == [
        "03_workstreams/ws-ingestion/design/queue.md",
        "04_artifacts/postmortem-2025-10-retry-storm.md",
    ]
    missing = run_orion("links", "no/such.md", "--root", str(sample_index))
    assert missing.returncode == 7 and "neither" in missing.stderr
