"""The compile pipeline with mock generators plugged into the registry (spec section 10,
"End-to-End: with mock generators, candidates -> fused -> selected -> Working Set")."""

from __future__ import annotations

import pytest

from oriongraph_cli import api
from oriongraph_cli.rank import generators as generate
from oriongraph_cli.models import GenHit
from oriongraph_cli.config import load_config
from oriongraph_cli.errors import OrionError
from oriongraph_cli.models import CompileRequest, ScoreWeights


@pytest.fixture
def indexed(project, fake_embedder):
    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    yield cfg, reader
    reader.close()


class MockGen:
    needs_embedding = False
    follows = False

    def __init__(self, name, channel, rows_scores, fail=False):
        self.name, self.channel, self.rows_scores, self.fail = name, channel, rows_scores, fail

    def wanted(self, ctx):
        return True

    def generate(self, ctx):
        if self.fail:
            raise RuntimeError(f"{self.name} exploded")
        return [GenHit(r, s, (f"mock {self.name} hit",)) for r, s in self.rows_scores][:ctx.top_k]


def _install(monkeypatch, gens):
    monkeypatch.setattr(generate, "GENERATORS", {g.name: (lambda g=g: g) for g in gens})


def test_mock_generators_flow_through_fusion_selection_and_explanations(indexed, monkeypatch):
    cfg, reader = indexed
    rows = [r[0] for r in reader.span_outline][:40]
    _install(monkeypatch, [
        MockGen("lexical", "lexical", [(r, 10.0 - i * 0.2) for i, r in enumerate(rows[:20])]),
        MockGen("structural", "structural", [(r, 1.0) for r in rows[10:30]]),
    ])
    weights = ScoreWeights(semantic=0.0, lexical=0.5, structural=0.5, graph=0.0, recency=0.0, stage_boost=0.0)
    resp = api.compile_workingset(CompileRequest("anything", budget_tokens=1200, weights=weights, fusion="weighted"), cfg, reader)
    assert resp.stats.candidates_seen == {"lexical": 20, "structural": 20}
    assert resp.stats.candidates_total == 30
    assert 0 < resp.workingset.total_tokens <= 1200
    chosen = {i.span_ref.span_id for i in resp.workingset.spans}
    by_row = reader.rows(rows[:30])
    assert chosen <= {by_row[r].ref.span_id for r in rows[:30]}
    for e in resp.rationale:
        assert any(r.startswith("mock ") for r in e.reasons)
        assert e.weights == weights
    # the spans both generators found score higher than the ones only one found
    both = {by_row[r].ref.span_id for r in rows[10:20]}
    first_pick = min(resp.workingset.spans, key=lambda s: s.selection_rank)
    assert first_pick.span_ref.span_id in both


def test_one_failing_generator_is_reported_not_fatal(indexed, monkeypatch):
    cfg, reader = indexed
    rows = [r[0] for r in reader.span_outline][:10]
    _install(monkeypatch, [
        MockGen("lexical", "lexical", [(r, 1.0 + i) for i, r in enumerate(rows)]),
        MockGen("structural", "structural", [], fail=True),
    ])
    resp = api.compile_workingset(CompileRequest("x", budget_tokens=500), cfg, reader)
    assert resp.stats.generator_errors == {"structural": "RuntimeError: structural exploded"}
    assert resp.workingset.spans


def test_all_generators_failing_is_an_error(indexed, monkeypatch):
    cfg, reader = indexed
    _install(monkeypatch, [MockGen("lexical", "lexical", [], fail=True), MockGen("structural", "structural", [], fail=True)])
    with pytest.raises(OrionError) as err:
        api.compile_workingset(CompileRequest("x", budget_tokens=500), cfg, reader)
    assert "every candidate generator failed" in err.value.message


def test_identical_scores_are_resolved_deterministically(indexed, monkeypatch):
    cfg, reader = indexed
    rows = [r[0] for r in reader.span_outline][:30]
    _install(monkeypatch, [MockGen("lexical", "lexical", [(r, 5.0) for r in rows])])
    first = api.compile_workingset(CompileRequest("flat", budget_tokens=700), cfg, reader)
    second = api.compile_workingset(CompileRequest("flat", budget_tokens=700), cfg, reader)
    assert first.to_dict() == second.to_dict()
    assert first.workingset.spans


def test_rrf_fusion_selectable(indexed, monkeypatch):
    cfg, reader = indexed
    rows = [r[0] for r in reader.span_outline][:20]
    _install(monkeypatch, [MockGen("lexical", "lexical", [(r, 20.0 - i) for i, r in enumerate(rows)])])
    resp = api.compile_workingset(CompileRequest("x", budget_tokens=600, fusion="rrf"), cfg, reader)
    assert resp.stats.fusion == "rrf" and resp.defaults["fusion"] == "rrf"
    assert all(0 <= e.base_score <= 1.2 + cfg.doc_evidence for e in resp.rationale)  # relevance ≤ 1, small terms, evidence


def test_document_evidence_counts_each_documents_spans_from_the_index(project, fake_embedder, monkeypatch):
    """With document evidence on, the pipeline reads each document's span count from the
    index: a document of one or two spans is credited for the places it cannot have."""
    from dataclasses import replace

    (project / "02_knowledge" / "one-paragraph.md").write_text("---\ntitle: One paragraph\n---\n\nRetry budgets cap how often a client retries a failed call.\n")
    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    request = CompileRequest("anything", budget_tokens=4000)
    outline = reader.span_outline
    counts = reader.span_counts
    per_doc: dict[int, int] = {}
    for _row, doc, _ordinal, _hp in outline:
        per_doc[doc] = per_doc.get(doc, 0) + 1
    assert sorted(counts.values()) == sorted(per_doc.values())
    assert sum(counts.values()) == reader.manifest.counts.spans
    short = {p for p, n in counts.items() if n < 3}
    assert short, "the fixture has short documents"
    rows = [r for r, *_ in outline]
    _install(monkeypatch, [MockGen("lexical", "lexical", [(r, 5.0 + (r % 7)) for r in rows])])
    try:
        # the mocked lexical channel ranks (its scores, 5–11, would count as a weak match and
        # hand part of its weight to the fake embedder's)
        resp = api.compile_workingset(request, replace(cfg, doc_evidence=0.3, weak_lexical_score=0.0), reader)
    finally:
        reader.close()
    reasons = {e.path: e.reasons for e in resp.rationale}
    assert "02_knowledge/one-paragraph.md" in short
    assert any(any(r.startswith("short document, matches as a whole") for r in rs) for p, rs in reasons.items() if p in short)
    assert not any(any(r.startswith("short document") for r in rs) for p, rs in reasons.items() if p not in short)


def test_a_compile_pauses_the_cyclic_collector_and_resumes_it(indexed, monkeypatch):
    """The collector is off while a compile runs and back on after it, also when the compile
    fails; a caller that had turned it off finds it off."""
    import gc

    from oriongraph_cli import pipeline

    cfg, reader = indexed
    seen = []
    real = pipeline.rank_candidates

    def spy(*a, **k):
        seen.append(gc.isenabled())
        return real(*a, **k)

    monkeypatch.setattr(pipeline, "rank_candidates", spy)
    assert gc.isenabled()
    api.compile_workingset(CompileRequest("retry logic", budget_tokens=800), cfg, reader)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        api.search(CompileRequest("retry logic", budget_tokens=800), cfg, reader)
        assert not gc.isenabled()
    finally:
        gc.enable()
    _install(monkeypatch, [MockGen("lexical", "lexical", [], fail=True)])
    with pytest.raises(OrionError):
        api.compile_workingset(CompileRequest("retry logic", budget_tokens=800), cfg, reader)
    assert gc.isenabled()


def test_a_compile_on_a_ranking_the_caller_read_is_the_compile(indexed, monkeypatch):
    """``orion eval`` and tuning read the ranking's nDCG, then compile on that ranking instead
    of ranking again: the working set, its rationale and its rendering are the same, and the
    ranking is worked out once."""
    from dataclasses import replace

    from oriongraph_cli import pipeline
    from oriongraph_cli.evaluate import default_request
    from oriongraph_cli.render import render_text

    cfg, reader = indexed
    for intent, budget in (("retry backoff for the ingestion worker", 4000), ("dead letter queue replay", 600)):
        req = replace(default_request(cfg, intent, budget), explain=True)
        plain = pipeline.compile_workingset(req, cfg, reader)
        ranked = pipeline.rank_candidates(req, cfg, reader)
        calls = []
        monkeypatch.setattr(pipeline, "rank_candidates", lambda *a, **k: calls.append(a) or ranked)
        on_ranked = pipeline.compile_workingset(req, cfg, reader, ranked=ranked)
        monkeypatch.undo()
        assert calls == []
        assert render_text(on_ranked, "markdown", explain=True) == render_text(plain, "markdown", explain=True)
        assert [(i.span_ref.span_id, i.selection_rank) for i in on_ranked.workingset.spans] == \
            [(i.span_ref.span_id, i.selection_rank) for i in plain.workingset.spans]
        assert [(e.span_ref.span_id, e.reasons) for e in on_ranked.rationale] == [(e.span_ref.span_id, e.reasons) for e in plain.rationale]


def test_a_format_no_renderer_delivers_is_a_usage_error_before_anything_is_ranked(tmp_path):
    """A library caller's ``deliver=("yaml",)`` is named as the setting at fault, with the
    formats that work — before the index is even opened (there is none here)."""
    cfg = load_config(tmp_path)
    request = CompileRequest("retry", budget_tokens=1000, deliver=("markdown", "yaml"), record_usage=False)
    with pytest.raises(OrionError) as err:
        api.compile_workingset(request, cfg)
    assert err.value.exit_code == 2 and "'yaml' is not a delivered format" in err.value.message
    assert "json-lean" in err.value.hint and "markdown" in err.value.hint


def test_a_library_script_ending_while_the_model_loads_exits_normally(sample_index):
    """The query model loads in a background thread from the moment the index opens; a
    script that fails early and ends then used to abort in onnxruntime's shutdown
    ("terminate called without an active exception", exit 134). Real model, real index."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from oriongraph_cli import api\n"
        "from oriongraph_cli.config import load_config\n"
        "from oriongraph_cli.errors import OrionError\n"
        "cfg = load_config(sys.argv[1]); reader = api.open_index(cfg)\n"
        "request = api.build_request(cfg, 'retry', budget=1000, deliver=('yaml',), record_usage=False)\n"
        "try:\n    api.compile_workingset(request, cfg, reader)\n"
        "except OrionError as err:\n    print(err.message)\n"
        "reader.close()\n"
    )
    for _ in range(3):  # the load is in flight at a different point each time
        r = subprocess.run([sys.executable, "-c", script, str(sample_index)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and "terminate called" not in r.stderr, r.stderr
        assert "is not a delivered format" in r.stdout
