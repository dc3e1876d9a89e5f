"""The segmented vector store (store/vectors.py): appended segments and deletion lists answer
as a rebuild does, merges keep the answers, HNSW above the size ``auto`` switches at and
flat below, damage is a one-line error, an index of the one-file layout is read and rebuilt."""

from __future__ import annotations

import json
import os
import sqlite3

import numpy as np
import pytest

from oriongraph_cli.config import load_config
from oriongraph_cli.errors import OrionError
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store import vectors
from oriongraph_cli.store.layout import Layout, file_checksums
from oriongraph_cli.store.manifest import Manifest
from oriongraph_cli.store.reader import IndexReader

DIM = 16


def _unit(rng, n, dim=DIM):
    v = rng.standard_normal((n, dim)).astype("float32")
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _generation(tmp_path, name, base, *, delete=(), add=None, mode="auto"):
    """Build generation ``name`` on ``base`` (a directory or None) with the SegmentWriter."""
    gen = tmp_path / name
    gen.mkdir()
    w = vectors.SegmentWriter(gen, base, name, mode)
    w.delete(list(delete))
    if add is not None:
        ids, mat = add
        w.add(ids, mat)
    w.finish(DIM)
    # what GenerationWriter does last: the manifest with checksums (linked segments reuse them)
    (gen / "manifest.json").write_bytes(Manifest(generation=name, complete=True, checksums=file_checksums(gen)).to_bytes())
    return gen


def _rebuilt(tmp_path, live: dict[int, np.ndarray], mode="flat"):
    gen = tmp_path / f"rebuilt-{len(list(tmp_path.glob('rebuilt-*')))}"
    gen.mkdir()
    ids = sorted(live)
    vectors.build(gen, ids, np.vstack([live[i] for i in ids]), DIM, mode=mode)
    return vectors.VectorIndex(gen)


def test_appended_segments_and_deletions_answer_as_a_rebuild(tmp_path):
    rng = np.random.default_rng(1)
    base = _unit(rng, 300)
    base[250] = base[40]  # equal vectors: equal scores, and the tie order must match too
    base[120] = base[40]
    live = {i + 1: base[i] for i in range(300)}
    g1 = _generation(tmp_path, "000001", None, add=(np.arange(1, 301), base))
    # a changed file: its rows deleted, new rows appended (300, the highest row, reused)
    gone = [5, 6, 7, 120, 300]
    new_ids = np.array([300, 301, 302, 303])
    new = _unit(rng, 4)
    new[1] = base[40]
    g2 = _generation(tmp_path, "000002", g1, delete=gone, add=(new_ids, new))
    for r in gone:
        del live[r]
    live.update({int(i): v for i, v in zip(new_ids, new)})
    seg = vectors.VectorIndex(g2)
    rebuilt = _rebuilt(tmp_path, live)
    assert seg.ntotal == rebuilt.ntotal == len(live)
    for q in list(_unit(rng, 20)) + [base[40], base[7]]:
        for k in (1, 10, 100, 400):
            assert seg.search(q, k) == rebuilt.search(q, k)
    rows = [1, 300, 303, 250, 41]
    assert np.array_equal(seg.vectors(rows), rebuilt.vectors(rows))
    with pytest.raises(KeyError):
        seg.vectors([5])  # deleted
    # the first generation is untouched and its segment is shared, not copied
    assert vectors.VectorIndex(g1).ntotal == 300
    assert os.stat(g1 / "vectors" / "000001.f32").st_ino == os.stat(g2 / "vectors" / "000001.f32").st_ino


def test_merges_keep_the_answers(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "MAX_SMALL_SEGMENTS", 3)
    rng = np.random.default_rng(2)
    live: dict[int, np.ndarray] = {}
    gen, nxt = None, 1
    for g in range(1, 9):  # small appends with deletions: the small segments get merged
        mat = _unit(rng, 30)
        ids = np.arange(nxt, nxt + 30)
        nxt += 30
        gone = [r for r in sorted(live)[:: 7]][:4]
        gen = _generation(tmp_path, f"{g:06d}", gen, delete=gone, add=(ids, mat))
        for r in gone:
            del live[r]
        live.update({int(i): v for i, v in zip(ids, mat)})
        table = json.loads((gen / "vectors" / "segments.json").read_text())
        assert len(table["segments"]) <= 3 + 1
    index = vectors.VectorIndex(gen)
    rebuilt = _rebuilt(tmp_path, live)
    for q in _unit(rng, 10):
        assert index.search(q, 50) == rebuilt.search(q, 50)
    # deleting most rows merges everything into one segment without them
    gone = sorted(live)[: len(live) // 2]
    gen = _generation(tmp_path, "000009", gen, delete=gone)
    for r in gone:
        del live[r]
    table = json.loads((gen / "vectors" / "segments.json").read_text())
    assert len(table["segments"]) == 1 and not (gen / "vectors" / "deleted.i64").exists()
    index = vectors.VectorIndex(gen)
    rebuilt = _rebuilt(tmp_path, live)
    for q in _unit(rng, 10):
        assert index.search(q, 50) == rebuilt.search(q, 50)


def _clustered(rng, n, dim=64, centers=40):
    """Vectors with structure like text embeddings': clusters of varied spread."""
    c = _unit(rng, centers, dim)
    which = rng.integers(0, centers, size=n)
    v = c[which] + rng.standard_normal((n, dim)).astype("float32") * rng.uniform(0.05, 0.3, size=(n, 1)).astype("float32")
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype("float32")


@pytest.mark.parametrize("mode,size,expect", [
    ("auto", 400, "hnsw"), ("auto", 399, "flat"), ("flat", 400, "flat"), ("hnsw", 50, "hnsw"),
])
def test_hnsw_above_the_auto_threshold_and_flat_below(tmp_path, monkeypatch, mode, size, expect):
    monkeypatch.setattr(vectors, "ANN_MIN_SPANS", 400)
    rng = np.random.default_rng(3)
    vectors.build(tmp_path, np.arange(size), _clustered(rng, size, DIM), DIM, mode=mode)
    index = vectors.VectorIndex(tmp_path)
    assert index.kinds == [expect]
    assert (tmp_path / "vectors" / "000001.hnsw").exists() == (expect == "hnsw")
    q = _clustered(rng, 1, DIM)[0]
    assert index.search(q, 10) == index.search(q, 10)  # one index, one answer


def test_hnsw_recall_against_flat(tmp_path):
    """recall@100 of the HNSW against exact search on clustered vectors, queries held out."""
    rng = np.random.default_rng(4)
    data = _clustered(rng, 4000, 64)
    queries, base = data[:60], data[60:]
    flat_dir, ann_dir = tmp_path / "flat", tmp_path / "ann"
    for d, mode in ((flat_dir, "flat"), (ann_dir, "hnsw")):
        d.mkdir()
        vectors.build(d, np.arange(len(base)), base, 64, mode=mode)
    flat, ann = vectors.VectorIndex(flat_dir), vectors.VectorIndex(ann_dir)
    assert ann.kinds == ["hnsw"]
    got = []
    for q in queries:
        truth = {i for i, _s in flat.search(q, 100)}
        hits = ann.search(q, 100)
        assert [s for _i, s in hits] == sorted((s for _i, s in hits), reverse=True)
        exact = dict(flat.search(q, len(base)))
        assert all(s == exact[i] for i, s in hits)  # scored exactly: the flat search's own scores
        got.append(len(truth & {i for i, _s in hits}) / 100)
    assert np.mean(got) >= 0.98


def test_deleted_rows_never_come_back_from_the_hnsw(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "ANN_MIN_SPANS", 100)
    rng = np.random.default_rng(5)
    base = _clustered(rng, 500, DIM)
    g1 = _generation(tmp_path, "000001", None, add=(np.arange(1, 501), base))
    assert vectors.VectorIndex(g1).kinds == ["hnsw"]
    gone = list(range(1, 60))
    g2 = _generation(tmp_path, "000002", g1, delete=gone)
    index = vectors.VectorIndex(g2)
    assert index.kinds == ["hnsw"] and index.ntotal == 500 - len(gone)
    for q in base[:20]:
        hits = index.search(q, 30)
        assert len(hits) == 30 and not {i for i, _s in hits} & set(gone)


@pytest.mark.parametrize("damage", ["truncate", "missing", "table"])
def test_a_damaged_segment_is_an_orion_error_naming_the_fix(tmp_path, damage):
    rng = np.random.default_rng(6)
    vectors.build(tmp_path, np.arange(100), _unit(rng, 100), DIM)
    seg = tmp_path / "vectors" / "000001.f32"
    if damage == "truncate":
        seg.write_bytes(seg.read_bytes()[:1000])
    elif damage == "missing":
        seg.unlink()
    else:
        (tmp_path / "vectors" / "segments.json").write_text("{not json")
    with pytest.raises(OrionError) as err:
        vectors.VectorIndex(tmp_path)
    assert "orion index --full" in err.value.hint and "\n" not in str(err.value)


def test_a_one_file_change_links_the_big_segment_and_embeds_only_that_file(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    first = Layout(cfg.index_dir).current_path()
    worker = project / "03_workstreams/ws-ingestion/design/worker.md"
    worker.write_text(worker.read_text() + "\n## Appendix\n\nQuota notes for the worker.\n")
    fake_embedder.texts.clear()
    res = index_project(cfg)
    second = Layout(cfg.index_dir).current_path()
    assert 0 < res.embedded_spans < res.spans and res.reused_vectors > 0
    v1, v2 = first / "vectors", second / "vectors"
    assert os.stat(v1 / "000001.f32").st_ino == os.stat(v2 / "000001.f32").st_ino  # linked, not rewritten
    assert (v2 / "000002.f32").stat().st_size < (v1 / "000001.f32").stat().st_size
    m1, m2 = Manifest.load(first), Manifest.load(second)
    assert m2.checksums["vectors/000001.f32"] == m1.checksums["vectors/000001.f32"]
    assert Layout(cfg.index_dir).problem(second.name, full=True) is None
    # the same answers as an index rebuilt from the files
    reader = IndexReader(cfg, load_embedder=False)
    try:
        q = reader.vectors.vectors([1])[0]
        got = [(reader.registry.span_place(r)[2], s) for r, s in reader.vectors.search(q, 40)]
    finally:
        reader.close()
    index_project(cfg, full=True)
    reader = IndexReader(cfg, load_embedder=False)
    try:
        assert json.loads((reader.path / "vectors" / "segments.json").read_text())["segments"][0]["name"] == reader.generation
        want = [(reader.registry.span_place(r)[2], s) for r, s in reader.vectors.search(q, 40)]
    finally:
        reader.close()
    assert got == want


def _to_one_file_layout(gen):
    """Turn a generation into what index schema 5 wrote: vectors in the registry and one
    vectors.faiss, no vectors/."""
    import faiss

    index = vectors.VectorIndex(gen)
    conn = sqlite3.connect(gen / "registry.sqlite")
    rows = [r[0] for r in conn.execute("SELECT id FROM spans ORDER BY id")]
    mat = index.vectors(rows)
    for r, v in zip(rows, mat):
        conn.execute("UPDATE spans SET vector = ? WHERE id = ?", (v.tobytes(), r))
    conn.commit()
    conn.close()
    flat = faiss.IndexIDMap2(faiss.IndexFlatIP(mat.shape[1]))
    flat.add_with_ids(mat, np.asarray(rows, dtype="int64"))
    faiss.write_index(flat, str(gen / vectors.LEGACY_FILE))
    for f in (gen / "vectors").iterdir():
        f.unlink()
    (gen / "vectors").rmdir()
    raw = json.loads((gen / "manifest.json").read_text())
    raw["index_schema_version"] = 5
    raw["checksums"] = file_checksums(gen)
    (gen / "manifest.json").write_text(json.dumps(raw))
    return rows, mat


def test_an_index_of_the_one_file_layout_is_read_then_rebuilt_without_re_embedding(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    gen = Layout(cfg.index_dir).current_path()
    before = vectors.VectorIndex(gen)
    q = before.vectors([3])[0]
    want = before.search(q, 25)
    del before
    rows, mat = _to_one_file_layout(gen)
    old = IndexReader(cfg, load_embedder=False)
    try:
        assert old.vectors.search(q, 25) == want
        assert np.array_equal(old.vectors.vectors(rows[:5]), mat[:5])
    finally:
        old.close()
    fake_embedder.texts.clear()
    res = index_project(cfg)
    assert res.rebuild_reason and "schema" in res.rebuild_reason
    assert res.embedded_spans == 0 and res.reused_vectors == res.spans  # the registry's vectors reused
    new = Layout(cfg.index_dir).current_path()
    assert vectors.has_segments(new) and not (new / vectors.LEGACY_FILE).exists()


def test_vector_index_setting_is_validated_and_reaches_the_indexer(project, fake_embedder, monkeypatch):
    from oriongraph_cli.errors import ConfigError

    monkeypatch.setenv("ORION_VECTOR_INDEX", "ivf")
    with pytest.raises(ConfigError) as err:
        load_config(project)
    assert "ORION_VECTOR_INDEX=ivf" in str(err.value) and "auto, flat or hnsw" in str(err.value)
    monkeypatch.setenv("ORION_VECTOR_INDEX", "hnsw")
    cfg = load_config(project)
    index_project(cfg)
    reader = IndexReader(cfg, load_embedder=False)
    try:
        assert reader.vectors.kinds == ["hnsw"]
        q = reader.vectors.vectors([1])[0]
        assert reader.vectors.search(q, 5)[0][0] == 1
    finally:
        reader.close()
