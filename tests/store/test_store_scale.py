"""Store behaviour that keeps indexing and opening cheap as a project grows (docs/BENCHMARKS.md,
"Scale"). No timings: the tests check the query plans and that the fast paths give the same
answers as the slow ones."""

from __future__ import annotations

import json
import shutil
import sqlite3

import numpy as np
import pytest
from conftest import REPO

from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store import vectors
from oriongraph_cli.store.reader import IndexReader
from oriongraph_cli.store.registry import Registry

WORKER = "03_workstreams/ws-ingestion/design/worker.md"


def _registry_path(root):
    reader = IndexReader(load_config(root), load_embedder=False)
    try:
        return reader.path / "registry.sqlite", reader.path
    finally:
        reader.close()


def _plan(conn: sqlite3.Connection, sql: str, *args) -> str:
    return " | ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, args))


def test_deleting_a_span_finds_its_headings_through_an_index(project, fake_embedder):
    """The headings -> spans cascade uses headings_span (it used to scan every heading per
    deleted span: O(changed documents x corpus))."""
    index_project(load_config(project))
    reg, _vec = _registry_path(project)
    conn = sqlite3.connect(reg)
    try:
        assert "headings_span" in _plan(conn, "DELETE FROM headings WHERE span = ?", 1)
        assert "spans_outline" in _plan(conn, "SELECT id, doc, ordinal, heading_path FROM spans ORDER BY id")
    finally:
        conn.close()


def test_edit_and_delete_still_cascade_headings(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    (project / WORKER).write_text((project / WORKER).read_text() + "\n## Appendix\n\nQuota notes.\n")
    index_project(cfg)
    (project / WORKER).unlink()
    index_project(cfg)
    reg, _vec = _registry_path(project)
    conn = sqlite3.connect(reg)
    try:
        orphans = conn.execute(
            "SELECT count(*) FROM headings h LEFT JOIN spans s ON s.id = h.span WHERE h.span IS NOT NULL AND s.id IS NULL"
        ).fetchone()[0]
        assert orphans == 0
        assert conn.execute("SELECT count(*) FROM spans WHERE path = ?", (WORKER,)).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM headings h JOIN documents d ON d.id = h.doc WHERE d.path = ?", (WORKER,)).fetchone()[0] == 0
    finally:
        conn.close()


def test_a_registry_from_before_the_indexes_gains_them_on_the_next_generation(project, fake_embedder, tmp_path):
    cfg = load_config(project)
    index_project(cfg)
    reg, _vec = _registry_path(project)
    old = tmp_path / "old.sqlite"
    shutil.copyfile(reg, old)
    conn = sqlite3.connect(old)
    conn.execute("DROP INDEX headings_span")
    conn.execute("DROP INDEX spans_outline")
    conn.commit()
    conn.close()
    manifest_path = reg.parent / "manifest.json"  # ... and before manifests carried checksums
    manifest = json.loads(manifest_path.read_text())
    manifest.pop("checksums")
    manifest_path.write_text(json.dumps(manifest))
    new = Registry.create(tmp_path / "new.sqlite", copy_from=old)
    try:
        names = {r[0] for r in new.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"headings_span", "spans_outline"} <= names
    finally:
        new.close()


def test_span_outline_same_with_and_without_the_covering_index(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    reader = IndexReader(cfg, load_embedder=False)
    try:
        fast = reader.span_outline
        expected = [
            (r[0], r[1], r[2], tuple(json.loads(r[3])))
            for r in reader.registry.conn.execute("SELECT id, doc, ordinal, heading_path FROM spans NOT INDEXED ORDER BY id")
        ]
        assert fast == expected and len(fast) == reader.registry.counts()["spans"]
    finally:
        reader.close()
    # a generation written before the covering index existed still opens (plain scan)
    reg, _vec = _registry_path(project)
    conn = sqlite3.connect(reg)
    conn.execute("DROP INDEX spans_outline")
    conn.commit()
    conn.close()
    manifest_path = reg.parent / "manifest.json"  # ... and before manifests carried checksums
    manifest = json.loads(manifest_path.read_text())
    manifest.pop("checksums")
    manifest_path.write_text(json.dumps(manifest))
    reader = IndexReader(cfg, load_embedder=False)
    try:
        assert reader.span_outline == expected
    finally:
        reader.close()


def test_vectors_memory_mapped_answer_like_one_flat_faiss_index(project, fake_embedder):
    """The segments are searched with FAISS's flat kernel over the mapped rows: the same
    hits, scores and order as the one ``IndexIDMap2(IndexFlatIP)`` file they replaced."""
    import faiss

    index_project(load_config(project))
    _reg, path = _registry_path(project)
    mapped = vectors.VectorIndex(path)
    ids = np.fromfile(path / "vectors" / "000001.ids", dtype="int64")
    whole = faiss.IndexIDMap2(faiss.IndexFlatIP(mapped.dim))
    whole.add_with_ids(vectors.read_all(path), ids)
    assert mapped.ntotal == whole.ntotal > 0 and mapped.kinds == ["flat"]
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.standard_normal(whole.d).astype("float32")
        q /= np.linalg.norm(q)
        d, i = whole.search(q.reshape(1, -1), 10)
        assert mapped.search(q, 10) == [(int(a), float(b)) for a, b in zip(i[0], d[0]) if a >= 0]
    rows = [int(r) for r in i[0][:3]]
    assert np.array_equal(mapped.vectors(rows), np.vstack([whole.reconstruct(r) for r in rows]))


def test_an_open_reader_keeps_its_generation_across_reindexes(project, fake_embedder):
    """A reader holds its generation (a shared lock): re-indexing, even with
    keep_generations = 1, leaves it in place until the reader closes, so a long-lived
    reader (a server, a benchmark) keeps answering; the next run prunes it."""
    from dataclasses import replace

    cfg = replace(load_config(project), keep_generations=1)
    index_project(cfg)
    reader = IndexReader(cfg, load_embedder=False)
    try:
        q = np.ones(reader.vectors.dim, dtype="float32")
        before = reader.vectors.search(q, 5)
        for i in range(4):  # more than keep_generations new generations
            (project / WORKER).write_text((project / WORKER).read_text() + f"\n## Extra {i}\n\nMore text {i}.\n")
            index_project(cfg)
        assert reader.path.exists()  # held by the open reader: cleanup leaves it
        assert reader.vectors.search(q, 5) == before
        assert reader.lexical.search(("retry",), 5)  # opened only now, after four re-indexes
    finally:
        reader.close()
    (project / WORKER).write_text((project / WORKER).read_text() + "\n## Last\n\nLast text.\n")
    index_project(cfg)
    assert not reader.path.exists()  # released: pruned by the next run


@pytest.mark.parametrize("share", [None, 0.1])
def test_synth_edit_helper_changes_the_requested_share(tmp_path, share):
    """bench/synth.py's re-index modes edit one file or a share of them (bench helper)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("synth", REPO / "bench" / "synth.py")
    synth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(synth)
    synth.generate(tmp_path / "p", 300, seed=1)
    files = sorted(p for p in (tmp_path / "p").rglob("*.md"))
    edited = synth.edit_files(tmp_path / "p", share)
    assert len(edited) == (1 if share is None else len(files[:: round(1 / share)]))
    assert all("Edited at" in (tmp_path / "p" / e).read_text() for e in edited)


def test_atomic_write_with_replaces_whole_or_not_at_all(tmp_path):
    from oriongraph_cli.store.layout import atomic_write_with

    target = tmp_path / "v.bin"
    atomic_write_with(target, lambda tmp: tmp.write_bytes(b"first"))
    assert target.read_bytes() == b"first"

    def broken(tmp):
        tmp.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        atomic_write_with(target, broken)
    assert target.read_bytes() == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.bin"]  # no temp file left behind


def test_every_span_has_its_vector_in_the_store_and_none_in_the_registry(project, fake_embedder):
    index_project(load_config(project))
    reg, gen = _registry_path(project)
    r = Registry.open(reg)
    try:
        rows = [row[0] for row in r.conn.execute("SELECT id FROM spans ORDER BY id")]
        assert r.conn.execute("SELECT count(*) FROM spans WHERE vector IS NOT NULL").fetchone()[0] == 0
    finally:
        r.close()
    assert np.fromfile(gen / "vectors" / "000001.ids", dtype="int64").tolist() == rows
    mat = vectors.VectorIndex(gen).vectors(rows)
    assert mat.dtype == np.float32 and mat.shape == (len(rows), 384)
    assert np.allclose(np.linalg.norm(mat, axis=1), 1, atol=1e-4)
