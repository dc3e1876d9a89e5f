"""Every table and index the store writes into a generation's ``registry.sqlite``.

Two groups: the registry (documents, spans with their vectors, headings; created when a
generation's registry is created) and the link graph (stored references, edges, dangling
links, the DEFINES cache; created before the indexer writes edges). Changing either is a
change of the on-disk layout: bump ``store.manifest.INDEX_SCHEMA_VERSION`` so existing
indexes are rebuilt.
"""

from __future__ import annotations

import sqlite3

from oriongraph_cli.store.sql import has_table, run_ddl

# a span after its document's first that sits under a heading: it has a PARENT_SECTION edge
# (``graph.extract.structural_edges``), counted by ``Registry.totals`` and ``GraphStore.structural_counts``
UNDER_SECTION = "ordinal > 0 AND json_array_length(heading_path) > 0"

REGISTRY = """
CREATE TABLE IF NOT EXISTS info(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    doc_version_id TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    title TEXT NOT NULL,
    source_type TEXT NOT NULL,
    workstream TEXT,
    stage TEXT,
    status TEXT,
    priority INTEGER,
    doc_key TEXT,
    created_at INTEGER NOT NULL,
    created_source TEXT NOT NULL,
    tags TEXT NOT NULL,
    meta TEXT NOT NULL,
    body_start INTEGER NOT NULL,
    n_spans INTEGER NOT NULL,
    lang TEXT
);
CREATE TABLE IF NOT EXISTS spans(
    id INTEGER PRIMARY KEY,
    span_id TEXT NOT NULL UNIQUE,
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    doc_version_id TEXT NOT NULL,
    path TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER NOT NULL DEFAULT 0,
    line_end INTEGER NOT NULL DEFAULT 0,
    token_cost INTEGER NOT NULL,
    heading_path TEXT NOT NULL,
    heading_level INTEGER NOT NULL,
    text TEXT NOT NULL,
    embed_hash TEXT NOT NULL,
    vector BLOB
);
CREATE INDEX IF NOT EXISTS spans_doc ON spans(doc, ordinal);
CREATE INDEX IF NOT EXISTS spans_embed ON spans(embed_hash);
CREATE TABLE IF NOT EXISTS headings(
    doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    level INTEGER NOT NULL,
    title TEXT NOT NULL,
    heading_path TEXT NOT NULL,
    span INTEGER REFERENCES spans(id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS headings_doc ON headings(doc);
CREATE INDEX IF NOT EXISTS headings_span ON headings(span);
CREATE INDEX IF NOT EXISTS spans_outline ON spans(id, doc, ordinal, heading_path);
CREATE TABLE IF NOT EXISTS blocks(
    doc INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    data TEXT NOT NULL
);
"""
# blocks: a note's headings, code blocks and tables as its spans were cut from them
# (``blocks.Blocks.to_json``), kept for the notes with fenced code or a table, the only ones
# a compile would parse again (to fence a quote that begins inside a code block, to head one
# that begins among a table's rows). A registry written before the table has none: a
# compile then parses the note, as it did.
# headings_span: ``headings.span`` cascades from ``spans``; without an index every deleted
# span scanned the whole headings table, so re-indexing k changed documents cost
# O(k x corpus) (153 ms per changed document at 100k spans; docs/BENCHMARKS.md, "Scale").
# spans_outline: covers the structural generator's scan for spans with subsection headings
# (and IndexReader.span_outline), which otherwise read every row of ``spans`` with its text
# and vector (~2 KB each) to get a few small columns.

GRAPH = """
CREATE TABLE IF NOT EXISTS link_refs(
    path TEXT NOT NULL,
    span_id TEXT,
    line INTEGER,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    anchor TEXT
);
CREATE INDEX IF NOT EXISTS link_refs_path ON link_refs(path);
CREATE TABLE IF NOT EXISTS link_docs(path TEXT PRIMARY KEY, doc_version_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS defines_cache(span_id TEXT PRIMARY KEY, sig TEXT NOT NULL, found TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS edges(
    src_path TEXT NOT NULL,
    src_span TEXT,
    dst_path TEXT NOT NULL,
    dst_span TEXT,
    type TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    line INTEGER
);
CREATE INDEX IF NOT EXISTS edges_src_span ON edges(src_span);
CREATE INDEX IF NOT EXISTS edges_dst_span ON edges(dst_span);
CREATE INDEX IF NOT EXISTS edges_src_path ON edges(src_path, type);
CREATE INDEX IF NOT EXISTS edges_dst_path ON edges(dst_path, type);
CREATE TABLE IF NOT EXISTS dangling_links(
    path TEXT NOT NULL,
    line INTEGER,
    target TEXT NOT NULL,
    kind TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS dangling_path ON dangling_links(path, line);
CREATE TABLE IF NOT EXISTS link_deps(key TEXT NOT NULL, path TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS link_deps_key ON link_deps(key);
CREATE INDEX IF NOT EXISTS link_deps_path ON link_deps(path);
CREATE TABLE IF NOT EXISTS defines_hits(term INTEGER NOT NULL, span_id TEXT NOT NULL, path TEXT NOT NULL, ordinal INTEGER NOT NULL, n INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS defines_hits_term ON defines_hits(term);
CREATE INDEX IF NOT EXISTS defines_hits_span ON defines_hits(span_id);
CREATE TABLE IF NOT EXISTS defines_terms(term INTEGER PRIMARY KEY, words TEXT NOT NULL, path TEXT, span_id TEXT, text TEXT);
"""
# link_deps: the lookup keys each document's references were resolved with
# (graph/resolve.py); an index run resolves again only the documents whose keys it
# changed. A table that is new or not marked current is simply rebuilt by a full resolve.
# defines_hits: every (term, span) match of the spans defines_cache marks matched against
# the terms defines_terms lists (a term by a key of its words, graph/edges.py term_key), so
# DEFINES is chosen per term in SQL without reading every span's cached matches, and a term
# the project gains is matched alone instead of every span against every term again; with
# each term, the definer its stored DEFINES edges start from (an incremental run chooses
# again only the terms a change touched).
# lookups from edges back to registry rows (the registry's own indexes cover neither column)
SPAN_LOOKUPS = """
CREATE INDEX IF NOT EXISTS spans_span_id ON spans(span_id);
CREATE INDEX IF NOT EXISTS spans_path ON spans(path, ordinal);
"""


def create_registry_tables(conn: sqlite3.Connection) -> None:
    """The registry's tables and indexes (idempotent; commits, like ``executescript``)."""
    conn.executescript(REGISTRY)


def create_graph_tables(conn: sqlite3.Connection) -> None:
    """The graph tables and indexes (idempotent, no commit). Also indexes
    ``spans(span_id)`` and ``spans(path, ordinal)`` when the registry's ``spans`` exists."""
    run_ddl(conn, GRAPH)
    # a defines_terms written before it recorded each term's definer gains the columns
    # (its rows then have none: the next run chooses DEFINES from every term)
    have = {r[1] for r in conn.execute("PRAGMA table_info(defines_terms)")}
    for column in ("path", "span_id", "text"):
        if column not in have:
            conn.execute(f"ALTER TABLE defines_terms ADD COLUMN {column} TEXT")
    if has_table(conn, "spans"):
        run_ddl(conn, SPAN_LOOKUPS)


def has_graph_tables(conn: sqlite3.Connection) -> bool:
    """False for a generation built before the link graph existed."""
    return has_table(conn, "edges")
