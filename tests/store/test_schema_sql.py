"""The store's SQLite plumbing: one schema module, and the chunking helper for IN (…) queries."""

from __future__ import annotations

import sqlite3

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
