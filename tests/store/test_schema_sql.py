"""The store's SQLite plumbing: one schema module, and the chunking helper for IN (…) queries."""

from __future__ import annotations

import sqlite3

import pytest

from oriongraph_cli.store import schema
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.store.sql import MAX_VARIABLES, has_table, in_chunks


def _numbers(n: int) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
    conn.executemany("INSERT INTO t(id, v) VALUES(?, ?)", [(i, f"v{i}") for i in range(n)])
    return conn


def test_in_chunks_covers_more_ids_than_sqlite_allows_in_one_statement():
    conn = _numbers(5000)
    wanted = list(range(0, 5000, 2))  # 2,500 ids: three statements
    assert len(wanted) > 999
    got = [tuple(r) for r in in_chunks(conn, "SELECT id, v FROM t WHERE id IN ({marks}) ORDER BY id", wanted)]
    assert got == [(i, f"v{i}") for i in wanted]


def test_in_chunks_binds_a_repeated_list_within_the_limit():
    conn = _numbers(3000)
    ids = list(range(2500))
    sql = "SELECT id FROM t WHERE id IN ({marks}) UNION SELECT id FROM t WHERE id IN ({marks})"
    assert sorted(r[0] for r in in_chunks(conn, sql, ids, repeat=2)) == ids
    assert MAX_VARIABLES < 999


def test_in_chunks_of_nothing_runs_nothing():
    conn = sqlite3.connect(":memory:")  # no table: a statement would fail
    assert list(in_chunks(conn, "SELECT * FROM missing WHERE id IN ({marks})", [])) == []


def test_registry_and_graph_tables_come_from_the_schema_module(tmp_path):
    reg = Registry.create(tmp_path / "r.sqlite")
    try:
        assert has_table(reg.conn, "spans") and not schema.has_graph_tables(reg.conn)
        reg.graph.create_tables()
        assert reg.graph.has_tables()
        names = {r[0] for r in reg.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"spans_span_id", "spans_path", "edges_src_span", "headings_span", "spans_outline"} <= names
    finally:
        reg.close()


def test_registry_lookups_over_many_ids(tmp_path):
    from oriongraph_cli.index.parse import parse_document
    from oriongraph_cli.index.span import split_document
    from oriongraph_cli.tokens import get_counter

    reg = Registry.create(tmp_path / "r.sqlite")
    counter = get_counter("tiktoken:cl100k_base")
    try:
        for i in range(1100):
            text = f"# Note {i}\n\nBody of note {i}.\n"
            doc, _w = parse_document(f"02_knowledge/n{i}.md", text.encode(), text, mtime=0)
            spans = split_document(doc, counter, target_tokens=200, max_tokens=400, min_tokens=10)
            reg.add_document(doc, spans, [f"h{i}"] * len(spans), [None] * len(spans))
        reg.commit()
        rows = [r for r, *_ in reg.spans_of_paths(f"02_knowledge/n{i}.md" for i in range(1100))]
        assert len(rows) == 1100
        assert set(reg.paths_of_rows(rows).values()) == {f"02_knowledge/n{i}.md" for i in range(1100)}
        assert len(reg.locate(rows)) == 1100
        assert len(list(reg.iter_span_rows(rows))) == 1100
    finally:
        reg.close()


def test_id_length_is_the_prefix_that_tells_every_span_apart(sample_index):
    from oriongraph_cli.store.registry import unique_prefix_length

    assert unique_prefix_length([]) == 8  # no spans: the least
    ids = sorted(["0f3a9c1e2b4d6a80", "7c21aa0000000000", "0f3a9c1e00000000"])
    assert unique_prefix_length(ids) == 9  # two ids share eight characters: the ninth tells them apart
    assert unique_prefix_length(ids, least=4) == 9 and unique_prefix_length(ids, least=12) == 12
    assert unique_prefix_length(sorted(ids + ["0f3a9c1e2b4d6a81"])) == 16  # differs only in its last character: the whole id
    assert unique_prefix_length(["ab", "ac"], least=8) == 2  # never longer than the ids
    # the index records it, and every span id of the index is unique at that length
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.manifest import Manifest

    gen = Layout(sample_index / ".oriongraph").current_path()
    n = Manifest.load(gen).id_length
    reg = Registry.open(gen / "registry.sqlite")
    try:
        ids = [r[0] for r in reg.conn.execute("SELECT span_id FROM spans")]
    finally:
        reg.close()
    assert n == 8 and len({i[:n] for i in ids}) == len(ids) > 100


def test_id_length_after_a_change_looks_only_at_the_new_ids_neighbours(sample_index, tmp_path):
    """An index run that adds spans compares only them with their neighbours in id order:
    the same length as a whole pass, longer when a new id shares more with an old one, never
    shorter than the base generation's."""
    import shutil

    from oriongraph_cli.store.layout import Layout

    gen = Layout(sample_index / ".oriongraph").current_path()
    shutil.copy(gen / "registry.sqlite", tmp_path / "registry.sqlite")
    reg = Registry.open(tmp_path / "registry.sqlite")
    try:
        ids = sorted(r[0] for r in reg.conn.execute("SELECT span_id FROM spans"))
        assert reg.id_length(8, added=ids[:5]) == reg.id_length() == 8
        assert reg.id_length(11, added=ids[:5]) == 11  # never shorter than the base's
    finally:
        reg.close()
    import sqlite3

    conn = sqlite3.connect(tmp_path / "registry.sqlite")
    cols = [r[1] for r in conn.execute("PRAGMA table_info(spans)") if r[1] != "id"]
    twin = ids[3][:12] + ("0000" if ids[3][12:] != "0000" else "1111")  # shares 12 characters with an old id
    picked = ", ".join("?" if c == "span_id" else c for c in cols)
    conn.execute(f"INSERT INTO spans ({', '.join(cols)}) SELECT {picked} FROM spans WHERE span_id = ?", (twin, ids[3]))
    conn.commit()
    conn.close()
    reg = Registry.open(tmp_path / "registry.sqlite")
    try:
        assert reg.id_length(8, added=[twin]) == reg.id_length() == 13
    finally:
        reg.close()
# --------------------------------------------------------------------------- the manifest


def test_manifest_round_trips_byte_for_byte(sample_index):
    """What a real index run wrote reads into the type and writes back as the same bytes."""
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.manifest import MANIFEST, Manifest

    gen = Layout(sample_index / ".oriongraph").current_path()
    raw = (gen / MANIFEST).read_bytes()
    manifest = Manifest.load(gen)
    assert manifest.complete and manifest.generation == gen.name
    assert manifest.counts.spans > 0 and manifest.files and manifest.checksums
    assert manifest.to_bytes() == raw


def test_a_manifest_just_written_is_read_without_parsing_and_equals_its_parse(project, fake_embedder, monkeypatch):
    """The run after one that wrote a generation (orion serve, orion watch) reads its
    manifest as the Manifest the writer kept, which is what parsing the file gives; other
    bytes are parsed."""
    from oriongraph_cli.config import load_config
    from oriongraph_cli.index.indexer import index_project
    from oriongraph_cli.store import manifest as manifest_mod
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.manifest import MANIFEST, Manifest

    cfg = load_config(project)
    index_project(cfg)
    gen = Layout(cfg.index_dir).current_path()
    parsed = []
    real = Manifest.parse.__func__
    monkeypatch.setattr(Manifest, "parse", classmethod(lambda cls, text: parsed.append(1) or real(cls, text)))
    kept = Manifest.load(gen)
    assert parsed == [] and kept is manifest_mod._LAST[1]
    assert kept == real(Manifest, (gen / MANIFEST).read_text()) and kept.to_bytes() == (gen / MANIFEST).read_bytes()
    (gen / MANIFEST).write_bytes((gen / MANIFEST).read_bytes() + b" ")
    parsed.clear()
    assert Manifest.load(gen) == kept and parsed == [1]


def test_manifest_keeps_keys_it_does_not_know_and_reads_older_ones():
    import json

    from oriongraph_cli.store.manifest import Manifest

    old = {"generation": "000003", "complete": True, "counts": {"documents": 2, "spans": 5, "tokens": 40}, "files": {}, "later": [1]}
    m = Manifest.from_dict(old)
    assert m.counts.edges == 0 and m.checksums is None and m.stats == {} and m.other_files is None
    assert json.loads(m.to_bytes())["later"] == [1] and "other_files" not in json.loads(m.to_bytes())
    newer = Manifest.from_dict({**old, "other_files": "9f" * 16})
    assert Manifest.parse(newer.to_bytes().decode()).other_files == "9f" * 16


@pytest.mark.parametrize(
    "text",
    ['[1, 2]', '{"complete": true}', '{"generation": "000001", "complete": "yes"}',
     '{"generation": "000001", "complete": true, "files": []}', '{"generation": "000001", "complete": true, "counts": {"spans": "9"}}',
     '{"generation": "000001", "complete": true, "other_files": 7}'],
)
def test_a_malformed_manifest_is_an_unreadable_index(text):
    from oriongraph_cli.errors import ExitStatus, NoIndexError
    from oriongraph_cli.store.manifest import Manifest, ManifestError

    with pytest.raises(ManifestError) as info:
        Manifest.parse(text)
    assert isinstance(info.value, NoIndexError) and isinstance(info.value, ValueError)
    assert info.value.exit_code == ExitStatus.NO_INDEX and "\n" not in info.value.message


def test_a_generation_with_a_malformed_manifest_is_not_used(tmp_path):
    from oriongraph_cli.store.layout import Layout

    layout = Layout(tmp_path / ".oriongraph")
    gen = layout.gen_dir / "000001"
    gen.mkdir(parents=True)
    (gen / "manifest.json").write_text('{"generation": "000001", "complete": true, "files": "x"}')
    assert layout.problem("000001") == "incomplete manifest"
    (gen / "manifest.json").write_text('{"generation": "000001", "complete": tr')
    assert layout.problem("000001") == "unreadable manifest (JSONDecodeError)"

def test_a_manifest_read_again_is_parsed_again_only_when_its_bytes_changed(tmp_path, monkeypatch):
    """The same manifest bytes read again are the same Manifest without a second parse; a
    rewrite in place that keeps its size and modification time is parsed again."""
    import os

    from oriongraph_cli.store import manifest as manifest_mod
    from oriongraph_cli.store.manifest import MANIFEST, Manifest

    gen = tmp_path / "000001"
    gen.mkdir()
    path = gen / MANIFEST
    path.write_text('{"generation": "000001", "complete": true}')
    parses = []
    real = Manifest.parse.__func__
    monkeypatch.setattr(Manifest, "parse", classmethod(lambda cls, text: parses.append(text) or real(cls, text)))
    first = Manifest.load(gen)
    assert Manifest.load(gen) is first and len(parses) == 1
    st = os.stat(path)
    with open(path, "r+") as fh:  # the same inode and size, its time put back as `touch -r` would
        fh.write('{"generation": "000002", "complete": true}')
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert Manifest.load(gen).generation == "000002" and len(parses) == 2
    (gen / "copy").mkdir()
    (gen / "copy" / MANIFEST).write_bytes(path.read_bytes())  # another file, the same bytes: the same manifest
    assert Manifest.load(gen / "copy") is Manifest.load(gen) and len(parses) == 2
    path.write_text('{"generation": "000001", "complete": tr')
    with pytest.raises(ValueError):
        Manifest.load(gen)
    assert manifest_mod._LAST is not None and manifest_mod._LAST[1].generation == "000002"  # the last one parsed


def test_a_registry_written_before_documents_had_a_language_is_read_without_one(tmp_path):
    """A compile reads the current generation until the next ``orion index`` rebuilds it
    (index schema 9 → 10): its documents have no language column, and read as in none."""
    from oriongraph_cli.store.sql import connect

    path = tmp_path / "registry.sqlite"
    conn = connect(path)
    schema.create_registry_tables(conn)
    conn.execute("ALTER TABLE documents DROP COLUMN lang")
    conn.execute("INSERT INTO documents(path, doc_version_id, size_bytes, title, source_type, created_at, created_source, "
                 "tags, meta, body_start, n_spans) VALUES('02_knowledge/a.md', 'v', 1, 'A', 'Knowledge', 0, 'mtime', '[]', '{}', 0, 0)")
    conn.commit()
    reg = Registry(conn)
    rows = reg.documents()
    assert [(r["path"], r["lang"]) for r in rows] == [("02_knowledge/a.md", None)]
    assert [r["lang"] for r in reg.documents_at(["02_knowledge/a.md"])] == [None]


def test_a_manifest_naming_a_file_outside_its_generation_is_damage_not_a_read(tmp_path):
    """A manifest edited to name ``../../../etc/passwd`` (or an absolute path) is a damaged
    generation: the check reads nothing outside the generation's folder."""
    from oriongraph_cli.store.layout import check_files

    gen = tmp_path / "gen" / "000001"
    gen.mkdir(parents=True)
    (gen / "ok.bin").write_bytes(b"x")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret\n")
    for rel in ("../../secret.txt", str(outside), "a/../../../secret.txt", "x\x00y"):
        why = check_files(gen, {rel: [7, "0" * 64, "0" * 64]}, full=True)
        assert why is not None and "no file of the generation" in why, (rel, why)
