"""An incrementally updated index compiles the same working sets as a full rebuild of the
same files, with the real model: after edits of several kinds (a body edit, a new
document, a removal, a rename) and after an edit that is then undone, `orion compile
--json` for a set of intents and budgets is byte for byte the same on both indexes.

The two registries number spans differently (an update gives a changed document's spans
new rows after the others), so this holds only because ranking never orders by row: equal
scores everywhere — each generator's cut, the fusion ranks, the candidate list — are
ordered by span id, and a candidate's cosine does not depend on which rows share its batch.

Both indexes are given the same build time: recency is measured against the build time the
index records (docs/DESIGN_NOTES.md, "recency now") and the usage score against the cutoff
of the usage snapshot each `orion index` freezes, so two indexes built seconds apart differ
in those by the seconds — on purpose, the same index gives the same scores tomorrow. The
only other line that differs is the generation's name."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import PINNED_MTIME, run_orion

from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.index import indexer
from oriongraph_cli.models import CompileRequest
from oriongraph_cli.render import render_text
from oriongraph_cli.store import usage_log
from oriongraph_cli.store.layout import Layout

pytestmark = pytest.mark.slow

INTENTS = [
    "add retry logic to the ingestion worker",
    "how does ranking fuse lexical and semantic scores",
    "what did the retry storm postmortem conclude",
    "queue depth and backpressure",
    "ADR-0007",
    "glossary",
]
BUDGETS = (300, 1200, 4000)
WORKER = "03_workstreams/ws-ingestion/design/worker.md"
RANKING = "03_workstreams/ws-search/design/ranking.md"
ADR3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
BM25 = "02_knowledge/research/bm25.md"
BUILD_TIME = 1_800_000_000.0


class _FixedTime:
    """``time`` for the indexer with one build time, so both indexes share their "now"."""

    import time as _t

    perf_counter = staticmethod(_t.perf_counter)

    @staticmethod
    def time() -> float:
        return BUILD_TIME


def _pin(root: Path) -> None:
    for p in root.rglob("*"):
        if p.is_file() and ".oriongraph" not in p.parts:
            os.utime(p, (PINNED_MTIME, PINNED_MTIME))


def _working_sets(root: Path) -> dict[str, str]:
    """(intent, budget) -> the JSON `orion compile --json` prints, the generation masked."""
    cfg = load_config(root)
    reader = api.open_index(cfg)
    try:
        out = {}
        for intent in INTENTS:
            for budget in BUDGETS:
                req = CompileRequest(intent, budget_tokens=budget, deliver=("json",), record_usage=False)
                text = render_text(api.compile_workingset(req, cfg, reader), "json")
                out[f"{intent} @ {budget}"] = _mask(text)
        return out
    finally:
        reader.close()


def _mask(text: str) -> str:
    doc = json.loads(text)
    doc["generation"] = "-"
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _rebuilt(project: Path, name: str) -> Path:
    full = project.parent / name
    shutil.copytree(project, full, symlinks=True)
    got = indexer.index_project(load_config(full), full=True)
    assert got.rebuild_reason == "--full"
    return full


def _rows_moved(a: Path, b: Path) -> int:
    """How many spans have another registry row in ``b`` than in ``a`` (the test means
    something only when rows differ)."""
    from oriongraph_cli.store.registry import Registry

    def rows(root: Path) -> dict[str, int]:
        reg = Registry.open(Layout(root / ".oriongraph").current_path() / "registry.sqlite")
        try:
            return {sid: row for row, sid in reg.conn.execute("SELECT id, span_id FROM spans")}
        finally:
            reg.close()

    ra, rb = rows(a), rows(b)
    assert set(ra) == set(rb)
    return sum(1 for sid in ra if ra[sid] != rb[sid])


def _assert_same(project: Path, full: Path, when: str) -> None:
    assert _rows_moved(project, full) > 0, f"{when}: the two registries number spans alike; nothing is tested"
    a, b = _working_sets(project), _working_sets(full)
    for key in a:
        assert a[key] == b[key], f"{when}: {key}: the updated index compiles another working set than a rebuild"


def _edit_body(root: Path) -> None:
    p = root / WORKER
    p.write_text(p.read_text() + "\n\nThe worker also logs every retry storm it detects, with the tenant and queue depth.\n")


def _add_document(root: Path) -> None:
    (root / "02_knowledge/howto").mkdir(parents=True, exist_ok=True)
    (root / "02_knowledge/howto/backpressure.md").write_text(
        "---\ntitle: Backpressure in the ingestion queue\ntags: [queue]\n---\n\n# Backpressure\n\n"
        "When queue depth grows, the worker slows its polling and retries back off (see ADR-0007).\n\n"
        "## Fusion of signals\n\nQueue depth and error rate are fused into one pressure score.\n")


def _remove(root: Path) -> None:
    (root / ADR3).unlink()


def _rename(root: Path) -> None:
    (root / BM25).rename(root / "02_knowledge/research/bm25-tuning.md")


def test_updated_index_compiles_what_a_rebuild_does(sample_index, tmp_path, monkeypatch):
    project = tmp_path / "proj"
    shutil.copytree(sample_index, project, symlinks=True)  # indexed once per session with the real model
    monkeypatch.setattr(indexer, "time", _FixedTime)
    monkeypatch.setattr(usage_log, "time", _FixedTime)  # the usage snapshot's cutoff: the usage score's "now"
    # edits of several kinds, an index run after each
    for edit in (_edit_body, _add_document, _remove, _rename):
        edit(project)
        _pin(project)
        got = indexer.index_project(load_config(project))
        assert not got.nothing_changed, edit.__name__
    _assert_same(project, _rebuilt(project, "full-1"), "after edits")

    # an edit, indexed, then undone and indexed again: the document is back as it was
    ranking = project / RANKING
    before = ranking.read_text()
    ranking.write_text(before.replace("\n### 4. Fusion", "\n### 4. Rank fusion\n\nA paragraph added for a while.\n", 1))
    _pin(project)
    indexer.index_project(load_config(project))
    ranking.write_text(before)
    _pin(project)
    got = indexer.index_project(load_config(project))
    assert got.updated_documents == 1
    full = _rebuilt(project, "full-2")
    _assert_same(project, full, "after an edit and its undoing")

    # and through the command itself, in a fresh process
    args = ["compile", INTENTS[0], "--json", "--no-usage-log", "--budget", "1500"]
    a, b = run_orion(*args, "--root", str(project)), run_orion(*args, "--root", str(full))
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    assert _mask(a.stdout) == _mask(b.stdout)
