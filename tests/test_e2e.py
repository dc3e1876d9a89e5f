"""End to end with the real offline model: index the sample, compile, search, show;
determinism across processes; golden files; filters; edge cases (spec section 10)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, run_orion, ws_spans

from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.errors import NoCandidatesError
from oriongraph_cli.models import CompileRequest, HardFilters

pytestmark = pytest.mark.slow
GOLDEN = REPO / "tests" / "golden"
INTENT = "add retry logic to the ingestion worker"


@pytest.fixture(scope="module")
def reader(sample_index):
    r = api.open_index(load_config(sample_index))
    yield r
    r.close()


def compile_(reader, intent=INTENT, **kw):
    return api.compile_workingset(CompileRequest(intent, **kw), reader.cfg, reader)


def test_real_model_vectors_match_fastembed(tmp_path, monkeypatch):
    """The lean onnxruntime embedder and fastembed agree on the packaged model file (the
    int8 file orion runs is built from it: tests/store/test_quantize.py)."""
    from oriongraph_cli.config import DEFAULT_MODEL
    from oriongraph_cli.store.embed import ASSETS, TOKENIZER_FILES, FastEmbedEmbedder, ModelSpec, OnnxEmbedder, _default_onnx

    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(tmp_path / "fastembed"))  # nothing in the system's temporary directory
    directory = tmp_path / "model"  # the packaged file and tokenizer, as a directory fastembed loads
    directory.mkdir()
    (directory / "model.onnx").symlink_to(_default_onnx())
    for name in TOKENIZER_FILES:
        (directory / name).symlink_to(ASSETS / name)
    texts = ["retry logic for the ingestion worker", "short", "long text " * 300]
    a = FastEmbedEmbedder(ModelSpec("packaged", DEFAULT_MODEL, directory)).embed(texts)
    b = OnnxEmbedder(ModelSpec("packaged", DEFAULT_MODEL, None)).embed(texts)  # no int8 key: the packaged file as it is
    assert a.shape == (3, 384) and np.allclose(a, b, atol=1e-5)
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)


def test_compile_end_to_end_budget_and_explanations(reader):
    from oriongraph_cli.assemble.layout import rewrite_links
    from oriongraph_cli.render import render_text
    from oriongraph_cli.tokens import get_counter

    resp = compile_(reader, budget_tokens=4000)
    ws = resp.workingset
    count = get_counter("tiktoken").count
    # the budget is the size of the whole delivered Markdown, and the summary says so
    delivered = count(render_text(resp, "markdown"))
    assert delivered == resp.stats.delivered_tokens <= 4000
    assert f"{delivered:,} / 4,000 tokens delivered" in render_text(resp, "markdown")
    assert ws.total_tokens == sum(count(q.text) for d in ws.documents for q in d.quotes)
    assert sorted(i.selection_rank for i in ws.spans) == list(range(1, len(ws.spans) + 1))
    assert len(resp.rationale) == len(ws.spans)
    for e in resp.rationale:
        assert e.reasons and 0 <= e.diversity_penalty <= 1
    assert resp.stats.candidates_seen.keys() >= {"lexical", "semantic", "structural"}
    assert "03_workstreams/ws-ingestion/design/worker.md" in [d.path for d in ws.documents][:3]
    # reading order: documents by their best span, quotes in document order, exact text
    assert [d.best_rank for d in ws.documents] == sorted(d.best_rank for d in ws.documents)
    for d in ws.documents:
        text = (reader.cfg.root / d.path).read_text()
        starts = [q.char_start for q in d.quotes]
        assert starts == sorted(starts)
        for q in d.quotes:
            if q.compression is None:
                assert q.text == rewrite_links(text[q.char_start : q.char_end], d.path, reader.link_targets([d.path]).get(d.path))
            for i in q.items:
                assert not i.stale and q.char_start <= i.span_ref.char_start < i.span_ref.char_end <= q.char_end
    # source cap: none holds more than half the budget unless the cap yielded, and said so
    per_source: dict = {}
    for i in ws.spans:
        per_source[i.path] = per_source.get(i.path, 0) + i.span_ref.token_cost
    over = [p for p, n in per_source.items() if n > 0.5 * 4000]
    assert len(per_source) > 1
    for p in over:
        assert any("over the source cap" in r for i in ws.spans if i.path == p for r in i.reasons)


def test_the_summary_says_why_selection_stopped_short_of_the_budget_and_only_then(reader):
    from oriongraph_cli.render import render_text

    # a narrow filter and a budget far above it: the summary names the quoted tokens and why
    narrow = compile_(reader, budget_tokens=20000, hard_filters=HardFilters(paths=("03_workstreams/ws-ingestion/*",)))
    assert narrow.stats.stop.startswith(f"selection stopped at {narrow.workingset.total_tokens:,} quoted tokens: ")
    assert narrow.stats.stop in render_text(narrow, "markdown") and json.loads(render_text(narrow, "json"))["stats"]["stop"] == narrow.stats.stop
    # a budget the working set spends (whole spans and shortened ones together) has no such line
    spent = compile_(reader, budget_tokens=1000)
    assert spent.stats.delivered_tokens >= 0.85 * 1000 and not spent.stats.stop


def test_tiny_budget_returns_one_span_when_one_fits(reader):
    from oriongraph_cli.errors import ExitStatus, OrionError
    from oriongraph_cli.render import render_text
    from oriongraph_cli.tokens import get_counter

    resp = compile_(reader, budget_tokens=150)
    assert resp.compact and 1 <= len(resp.workingset.spans)
    assert get_counter("tiktoken").count(render_text(resp, "markdown")) <= 150
    with pytest.raises(OrionError) as err:
        compile_(reader, budget_tokens=20)
    assert err.value.exit_code == ExitStatus.USAGE and "--budget" in err.value.hint


def test_misspelt_filter_is_a_usage_error_with_a_suggestion(reader):
    from oriongraph_cli.errors import ExitStatus, OrionError

    for filters, suggestion in (
        (HardFilters(workstreams=("ws-ingestoin",)), "ws-ingestion"),
        (HardFilters(stages=("designn",)), "design"),
        (HardFilters(tags=("no-such-tag",)), "the index holds tag"),
        (HardFilters(source_types=("Knowlege",)), "Knowledge"),
    ):
        with pytest.raises(OrionError) as err:
            compile_(reader, budget_tokens=800, hard_filters=filters)
        assert err.value.exit_code == ExitStatus.USAGE and suggestion in err.value.hint


# the golden files' reference time (2026-11-25 UTC): recency and age are measured from it,
# not from the day the session's index was built
PINNED = {"SOURCE_DATE_EPOCH": "1795564800"}


def test_cli_compile_json_markdown_brief_and_determinism(sample_index, tmp_path):
    # recency is measured from a pinned time, so the golden files hold on any day
    args = ["compile", INTENT, "--root", str(sample_index), "--budget", "2000"]
    a = run_orion(*args, "--json", "--no-usage-log", env=PINNED)
    b = run_orion(*args, "--json", "--no-usage-log", env=PINNED)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout, "same index + intent must give byte-identical JSON across processes"
    data = json.loads(a.stdout)
    assert data["schema_version"] == 5 and "episode_id" not in data and "explanation" not in data
    # every quote is found by its path and lines, the way `orion show path:L12-L40` reads them
    cfg = load_config(sample_index)
    for doc in data["documents"]:
        for q in doc["quotes"]:
            shown = api.show(cfg, f"{doc['path']}:L{q['lines'][0]}-L{q['lines'][1]}")
            if "shortened" not in q and "](" not in q["text"]:  # links are rewritten from the project root
                assert shown["text"].strip() == q["text"].strip(), (doc["path"], q["lines"])
    recorded = json.loads(run_orion(*args, "--json", env=PINNED).stdout)
    assert re.fullmatch(r"[0-9a-f]{32}", recorded["episode_id"])
    m1 = run_orion(*args, "--format", "markdown", "--explain", env=PINNED)
    m2 = run_orion(*args, "--format", "markdown", "--explain", env=PINNED)
    assert m1.stdout == m2.stdout and "\x1b" not in m1.stdout
    brief = tmp_path / "TASK_BRIEF.md"
    r = run_orion(*args, "--brief", str(brief), env=PINNED)
    assert r.returncode == 0 and brief.read_text().startswith("# TASK BRIEF")
    assert "\x1b" not in r.stdout  # a pipe gets no control characters
    fingerprint = vectors_fingerprint(sample_index)
    _golden("compile_retry.json", _mask_json(a.stdout), fingerprint)
    _golden("compile_retry.md", _mask_md(m1.stdout), fingerprint)


def test_source_date_epoch_sets_the_time_recency_is_measured_from(sample_index):
    """SOURCE_DATE_EPOCH replaces the index build time as the reference of recency: the same
    value gives the same scores on any day, a later one older documents; a value that is not
    whole seconds is a usage error naming it, with no traceback."""
    args = ["search", "retry logic", "--root", str(sample_index), "--top-k", "3", "--json"]

    def recencies(epoch):
        r = run_orion(*args, env={"SOURCE_DATE_EPOCH": epoch})
        assert r.returncode == 0, r.stderr
        return [h["metadata"]["recency_score"] for h in json.loads(r.stdout)["hits"]]

    pinned = recencies("1795564800")
    assert pinned == recencies("1795564800")
    later = recencies(str(1795564800 + 3 * 365 * 86400))
    assert all(b < a for a, b in zip(pinned, later))
    for bad in ("abc", "-5", "1.5e9", "²", "١٢٣"):
        r = run_orion(*args, env={"SOURCE_DATE_EPOCH": bad})
        assert r.returncode == 2 and "SOURCE_DATE_EPOCH" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_explain_names_a_document_left_out_by_the_document_floor(sample_index):
    """--explain lists a span of a weaker new document left out while stronger documents
    took the budget as ``document_floor``, with the value that would let it in; with the
    floor off no span is left out for that reason. (Whether a compile meets the rule
    depends on what fits: the first of a few requests that does is read.)"""

    def rejected(intent, budget, floor):
        r = run_orion("compile", intent, "--root", str(sample_index), "--budget", str(budget), "--json", "--explain", "--no-usage-log",
                      env={**PINNED, "ORION_DOCUMENT_FLOOR": floor})
        assert r.returncode == 0, r.stderr
        data = json.loads(r.stdout)
        assert data["explanation"]["defaults"]["document_floor"] == float(floor)
        return [x for x in data["explanation"]["rejected"] if x["reason"] == "document_floor"]

    requests = [(INTENT, 1000), (INTENT, 800), (INTENT, 1200), ("dead letter queue handling", 1000), ("dead letter queue handling", 1200),
                ("retry storm postmortem", 1000), ("rate limits per tenant", 800)]
    met = next(((i, b, left) for i, b in requests if (left := rejected(i, b, "0.8"))), None)
    assert met, "no request met the document floor"
    intent, budget, left = met
    assert all(re.search(r"would enter with document_floor <= 0\.[0-7]\d", x["detail"]) for x in left), left
    assert rejected(intent, budget, "0") == []


def test_cli_search_and_show(sample_index):
    r = run_orion("search", "exponential backoff with jitter", "--root", str(sample_index), "--top-k", "5", "--json")
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert len(hits) == 5 and hits[0]["rank"] == 1
    assert hits[0]["base_score"] >= hits[-1]["base_score"]
    sid = hits[0]["span_ref"]["span_id"]
    s = run_orion("show", sid[:10], "--root", str(sample_index), "--json")
    shown = json.loads(s.stdout)
    text = (sample_index / shown["path"]).read_text()
    assert shown["text"] == text[shown["char_start"] : shown["char_end"]] and not shown["stale"]
    s = run_orion("show", "ffffffffffff", "--root", str(sample_index))
    assert s.returncode == 7 and "no span" in s.stderr


def test_stale_file_is_reported_not_misquoted(project, fake_embedder):
    cfg = load_config(project)
    api.index_project(cfg)
    resp = api.compile_workingset(CompileRequest(INTENT, budget_tokens=600), cfg)
    target = resp.workingset.spans[0]
    original = target.text
    f = project / target.path
    f.write_text("# Rewritten\n\nEverything changed here.\n" + f.read_text())
    resp2 = api.compile_workingset(CompileRequest(INTENT, budget_tokens=600), cfg)
    item = next(i for i in resp2.workingset.spans if i.span_ref.span_id == target.span_ref.span_id)
    assert item.stale and item.text == original and resp2.stats.stale_spans >= 1
    shown = api.show_span(cfg, target.span_ref.span_id)
    assert shown["stale"] and shown["text"] == original


def test_empty_index_no_candidates(tmp_path, fake_embedder):
    root = tmp_path / "p"
    (root / "01_context").mkdir(parents=True)
    cfg = load_config(root)
    api.index_project(cfg)
    with pytest.raises(NoCandidatesError) as err:
        api.compile_workingset(CompileRequest("anything at all", budget_tokens=500), cfg)
    assert "01_context" in err.value.hint


# ------------------------------------------------------------------ golden files

_FLOAT = re.compile(r"(\d+\.\d{2})\d+")


def _mask_json(text: str) -> str:
    """Round floats to 2 decimals so a last-digit difference between CPUs is not a failure;
    order, ids, offsets, token costs and text must match exactly."""
    data = json.loads(text)
    data.pop("request", None)
    return _FLOAT.sub(r"\1", json.dumps(data, indent=1, sort_keys=True))


def _mask_md(text: str) -> str:
    return _FLOAT.sub(r"\1", text)


def vectors_fingerprint(root: Path) -> str:
    """What the model's arithmetic gives on this machine, in 8 hex digits: the int8 model's
    vectors of two texts, rounded to 3 decimals. onnxruntime's int8 products differ between
    CPUs (with AVX512-VNNI and with AVX2 alone, where an 8-bit product pair may saturate),
    by enough to reorder near-ties in a working set — so a golden output is recorded per
    machine class (``compile_retry.<fingerprint>.json``) beside the first one's."""
    reader = api.open_index(load_config(root))
    try:
        vecs = [reader.embed_query(t) for t in ("add retry logic to the ingestion worker", "exponential backoff with jitter")]
    finally:
        reader.close()
    return hashlib.sha256(np.round(np.stack(vecs), 3).astype("float32").tobytes()).hexdigest()[:8]


def _golden(name: str, actual: str, fingerprint: str | None = None) -> None:
    """``actual`` must equal ``name`` as recorded, or its variant for this machine's
    fingerprint (``vectors_fingerprint``). ``ORION_UPDATE_GOLDEN=1`` rewrites ``name`` (and
    removes every variant: they recorded the previous output); ``ORION_UPDATE_GOLDEN=machine``
    records this machine's variant beside it."""
    path = GOLDEN / name
    variant = path.with_name(f"{path.stem}.{fingerprint}{path.suffix}") if fingerprint else None
    mode = os.environ.get("ORION_UPDATE_GOLDEN")
    if mode == "machine" and variant is not None:
        variant.write_text(actual)
    elif mode or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        for stale in path.parent.glob(f"{path.stem}.*{path.suffix}"):
            stale.unlink()
        if not mode:
            pytest.fail(f"golden file {name} was missing and has been written; re-run")
    recorded = [path] + ([variant] if variant is not None and variant.exists() else [])
    assert any(actual == r.read_text() for r in recorded), (
        f"{name} differs (vectors fingerprint {fingerprint}); set ORION_UPDATE_GOLDEN=1 to accept the new output, "
        f"or ORION_UPDATE_GOLDEN=machine when only this machine's arithmetic differs")


def test_reasons_speak_the_users_words(reader):
    resp = compile_(reader, budget_tokens=1500)
    reasons = [r for e in resp.rationale for r in e.reasons]
    lexical = [r for r in reasons if r.startswith("lexical match on")]
    assert lexical and not any("'retri'" in r or "'ingest'" in r for r in lexical), lexical
    assert any("'retry'" in r for r in lexical)
    assert not any(r.startswith("used before") for r in reasons)  # nothing in this index was used yet
    assert not any("named in the intent" in r and "workstream" in r for r in reasons)


def test_compile_search_and_show_name_span_fields_alike(sample_index):
    common = ("span_id", "path", "line_start", "line_end", "token_cost", "title", "section_title", "stage", "workstream")
    root = ["--root", str(sample_index)]
    data = json.loads(run_orion("compile", INTENT, *root, "--json", "--explain", "--no-usage-log").stdout)
    assert ws_spans(data)[0]["span_id"] == data["explanation"]["documents"][0]["quotes"][0]["spans"][0]["span_id"]
    d0 = data["explanation"]["documents"][0]  # the compact JSON names quotes by lines; --explain has each span's fields
    q0 = d0["quotes"][0]
    c = {**q0["spans"][0], "path": d0["path"], "title": d0["title"], "stage": d0["stage"], "workstream": d0["workstream"],
         "section_title": q0["section_title"], "quote_text": q0["text"]}
    hits = json.loads(run_orion("search", INTENT, *root, "--json", "-n", "50").stdout)["hits"]
    h = next(x for x in hits if x["span_id"] == c["span_id"])
    s = json.loads(run_orion("show", c["span_id"], *root, "--json").stdout)
    for key in common:
        assert c[key] == h[key] == s[key], key
    assert h["source_type"] == s["source_type"] and s["text"].strip() in c["quote_text"]
    assert c["line_start"] >= 1 and c["line_end"] >= c["line_start"]


def test_left_out_names_what_would_let_each_document_in(reader):
    resp = compile_(reader, "retry storms", budget_tokens=3000, hard_filters=HardFilters(stages=("research",)), record_usage=False)
    assert resp.left_out and all(lo.path not in {d.path for d in resp.workingset.documents} for lo in resp.left_out)
    assert len(resp.left_out) <= 3  # one line per 1,000 tokens of budget
    small = compile_(reader, "retry storms", budget_tokens=2000, hard_filters=HardFilters(stages=("research",)), record_usage=False)
    assert not small.left_out  # under 3,000 tokens the room goes to text
    filtered = [lo for lo in resp.left_out if lo.reason == "filtered"]
    assert filtered and filtered[0].detail.startswith("filtered by --stage research (cos ")
    md = render_text_of(resp)
    assert "## Left out\n" in md and filtered[0].path in md
    for lo in resp.left_out:
        if lo.reason == "floor":
            assert "would enter with --floor <=" in lo.detail
        elif lo.reason == "budget":
            assert lo.detail.startswith("needs --budget >= ")


def render_text_of(resp):
    from oriongraph_cli.render import render_text

    return render_text(resp, "markdown")


def test_superseded_document_header_names_its_successor(reader):
    from oriongraph_cli.rank.lifecycle import status_notes

    adr3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
    adr7 = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"
    notes = status_notes(reader.registry, {adr3: "superseded", adr7: "accepted"})
    assert notes == {adr3: "superseded by ADR-0007", adr7: "accepted"}
    resp = compile_(reader, "why did we replace ADR-0003", budget_tokens=2500, record_usage=False)
    docs = {d.path: d for d in resp.workingset.documents}
    assert adr3 in docs and docs[adr3].status == "superseded by ADR-0007"


def test_a_compile_looks_up_each_document_s_links_once(reader, monkeypatch):
    """deliver.fit builds the working set several times; the links of a delivered document
    are read from the index once per compile, and every delivered document's are read."""
    asked: list[str] = []
    real = reader.link_targets

    def counting(paths):
        asked.extend(paths)
        return real(paths)

    monkeypatch.setattr(reader, "link_targets", counting)
    resp = compile_(reader, budget_tokens=1500)
    assert len(asked) == len(set(asked))
    assert {d.path for d in resp.workingset.documents} <= set(asked)
