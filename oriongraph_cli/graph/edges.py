"""The graph index: typed edges between documents and spans, and their SQLite tables.

Two phases keep ``orion index`` incremental:

1. **Per document** (:func:`store_document`, for each *changed* document; needs its text):
   front matter link lists, Markdown / wiki links and id-shaped tokens are stored
   unresolved, with their line numbers, in ``link_refs``; the document's *local* edges
   (NEXT/PREV, PARENT_SECTION/CHILD_SECTION, IN_WORKSTREAM — they depend on nothing else)
   are written to ``edges``. Rows of unchanged documents are carried over with the registry
   copy, exactly like their spans.
2. **Global** (:func:`rebuild_edges`, once per index run that changed anything): a
   :class:`LinkResolver` is built from the registry (paths, ids, file stems, titles,
   heading slugs), every stored reference is resolved, DEFINES edges are recomputed from
   the span texts, and the *global* edges and ``dangling_links`` are rewritten. No document
   text is needed, so a link from an unchanged document to a new or changed one, a mention
   of a new id, or a newly dangling link are all picked up without re-reading files.

Nodes are ``(path, span_id)``; ``span_id`` is ``None`` for a whole document (front matter
edges, links without an anchor). Workstreams are the nodes ``("ws:<name>", None)``.

Edge types (``Edge.type``)::

    LINKS RELATED DEPENDS_ON SUPERSEDES SUPERSEDED_BY PARENT   front matter (doc -> doc[#anchor])
    REF        body Markdown/wiki link (span -> doc, or span -> span for an #anchor)
    CITES      a body link whose target lives in 04_artifacts/ (instead of REF)
    MENTIONS   ADR-0007 / ADR-20251113-foo / a document `id` named in the text (span -> doc)
    NEXT PREV  consecutive spans of one document                      (local)
    PARENT_SECTION CHILD_SECTION  span <-> head span of its section    (local)
    IN_WORKSTREAM  doc -> ws:<name>                                    (local)
    DEFINES    defining span of a term (glossary ### heading, front matter id, short title)
               -> spans of other documents using it (bounded, see defines_edges)
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from oriongraph_cli.graph.extract import (
    DEFINES_MAX_DF,
    DEFINES_MAX_PER_TERM,
    LOCAL_TYPES,
    MD_SUFFIXES,
    STRUCTURAL_TYPES,
    WS_PREFIX,
    DanglingLink,
    DocInfo,
    Edge,
    RawRef,
    SpanInfo,
    extract_refs,
    local_edges,
)
from oriongraph_cli.graph.resolve import LinkResolver, resolve_refs
from oriongraph_cli.graph.terms import Term, collect_terms, defines_edges
from oriongraph_cli.models import Document, Span


def _cached_defines(conn: sqlite3.Connection, terms: Sequence[Term], *, max_per_term: int, max_df: float) -> list[Edge]:
    """DEFINES with a per-span cache (table ``defines_cache``) keyed by a signature of the
    term list: when the terms did not change, only spans not seen before are read and
    matched (an edited document costs its own spans, not the whole corpus)."""
    import hashlib

    sig = hashlib.sha256(json.dumps([t.words for t in terms]).encode()).hexdigest()[:16]
    conn.execute("DELETE FROM defines_cache WHERE sig != ? OR span_id NOT IN (SELECT span_id FROM spans)", (sig,))
    known = {r[0]: [tuple(x) for x in json.loads(r[1])] for r in conn.execute("SELECT span_id, found FROM defines_cache")}
    outline = conn.execute("SELECT path, span_id, ordinal FROM spans ORDER BY id").fetchall()
    missing = [r[1] for r in outline if r[1] not in known]
    texts: dict[str, str] = {}
    for i in range(0, len(missing), 500):
        chunk = missing[i : i + 500]
        texts.update(conn.execute(f"SELECT span_id, text FROM spans WHERE span_id IN ({','.join('?' * len(chunk))})", chunk).fetchall())
    learned: dict[str, list[tuple[int, int]]] = {}
    spans = (SpanInfo(p, sid, o, (), 0, texts.get(sid, "")) for p, sid, o in outline)
    edges = defines_edges(terms, spans, n_spans=len(outline), max_per_term=max_per_term, max_df=max_df, known=known, learned=learned)
    conn.executemany(
        "INSERT OR REPLACE INTO defines_cache(span_id, sig, found) VALUES(?,?,?)",
        [(sid, sig, json.dumps(found)) for sid, found in learned.items()],
    )
    return edges



def extract_edges(doc: Document, spans: list[Span], resolver: LinkResolver) -> tuple[list[Edge], list[DanglingLink]]:
    """All edges of one document, pure (the resolver knows the other documents): its
    references resolved, its local edges, and the DEFINES edges from the resolver's terms
    into its spans (not capped per term — :func:`rebuild_edges` caps globally)."""
    edges, dangling_out = resolve_refs(extract_refs(doc, spans), resolver)
    infos = [SpanInfo.from_span(s) for s in spans]
    edges += local_edges(infos, DocInfo.from_document(doc))
    edges += defines_edges(collect_terms(resolver), infos, max_per_term=max(len(infos), 1), max_df=float("inf"))
    return edges, dangling_out


# --------------------------------------------------------------------------- SQLite

DDL = """
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
"""
# lookups from edges back to registry rows (the registry schema indexes neither column)
SPAN_INDEXES = """
CREATE INDEX IF NOT EXISTS spans_span_id ON spans(span_id);
CREATE INDEX IF NOT EXISTS spans_path ON spans(path, ordinal);
"""
_EDGE_COLS = "src_path, src_span, dst_path, dst_span, type, detail, line"
_INSERT_EDGE = f"INSERT INTO edges({_EDGE_COLS}) VALUES(?,?,?,?,?,?,?)"
_LOCAL_SQL = "(" + ",".join(f"'{t}'" for t in sorted(LOCAL_TYPES)) + ")"


def _run(conn: sqlite3.Connection, script: str) -> None:
    """DDL statement by statement (``executescript`` would COMMIT the caller's transaction)."""
    for stmt in script.split(";"):
        if stmt.strip():
            conn.execute(stmt)


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the graph tables and indexes (idempotent, no commit). Also indexes
    ``spans(span_id)`` and ``spans(path, ordinal)`` when the registry's ``spans`` exists."""
    _run(conn, DDL)
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='spans'").fetchone():
        _run(conn, SPAN_INDEXES)


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='edges'").fetchone() is not None


def forget_document(conn: sqlite3.Connection, path: str) -> None:
    """Drop everything phase 1 stored for ``path`` (a removed or changed document)."""
    conn.execute("DELETE FROM link_refs WHERE path = ?", (path,))
    conn.execute("DELETE FROM link_docs WHERE path = ?", (path,))
    conn.execute(f"DELETE FROM edges WHERE src_path = ? AND type IN {_LOCAL_SQL}", (path,))


def write_refs(conn: sqlite3.Connection, doc: Document, refs: Iterable[RawRef]) -> None:
    """Replace the stored references of ``doc.path`` (and mark its version as extracted)."""
    conn.execute("DELETE FROM link_refs WHERE path = ?", (doc.path,))
    conn.executemany("INSERT INTO link_refs(path, span_id, line, kind, target, anchor) VALUES(?,?,?,?,?,?)", list(refs))
    conn.execute("INSERT OR REPLACE INTO link_docs(path, doc_version_id) VALUES(?,?)", (doc.path, doc.doc_version_id))


def store_document(conn: sqlite3.Connection, doc: Document, spans: Sequence[Span]) -> int:
    """Phase 1 for one changed or added document: replace its stored references and local
    edges. Returns the number of references stored. Does not commit."""
    forget_document(conn, doc.path)
    refs = extract_refs(doc, spans)
    write_refs(conn, doc, refs)
    conn.executemany(_INSERT_EDGE, local_edges([SpanInfo.from_span(s) for s in spans], DocInfo.from_document(doc)))
    return len(refs)


def read_refs(conn: sqlite3.Connection) -> Iterator[RawRef]:
    make = RawRef._make
    for r in conn.execute("SELECT path, span_id, line, kind, target, anchor FROM link_refs ORDER BY path, rowid"):
        yield make(r)


def write_edges(conn: sqlite3.Connection, edges: Iterable[Edge], *, replace: bool = False) -> int:
    """Insert edges (``replace``: delete every edge first). Returns the number written."""
    if replace:
        conn.execute("DELETE FROM edges")
    rows = list(edges)
    conn.executemany(_INSERT_EDGE, rows)
    return len(rows)


def write_dangling(conn: sqlite3.Connection, items: Iterable[DanglingLink], *, replace: bool = True) -> None:
    if replace:
        conn.execute("DELETE FROM dangling_links")
    conn.executemany("INSERT INTO dangling_links(path, line, target, kind) VALUES(?,?,?,?)", [(d.path, d.line, d.target, d.kind) for d in items])


def edges_for(
    conn: sqlite3.Connection, path_or_span_id: str, direction: str = "both", types: Iterable[str] | None = None
) -> dict[str, list[Edge]]:
    """Edges of a document (a path — its own edges and those of all its spans — or a
    ``ws:<name>`` node) or of one span (a span id). ``direction``: "out" | "in" | "both".
    Returns ``{"out": [...], "in": [...]}`` (the requested keys), sorted by type, then the
    other end, then line."""
    if direction not in ("out", "in", "both"):
        raise ValueError(f"direction must be 'out', 'in' or 'both', got {direction!r}")
    key = path_or_span_id
    is_path = "/" in key or key.lower().endswith(MD_SUFFIXES) or key.startswith(WS_PREFIX)
    if not is_path:
        is_path = conn.execute("SELECT 1 FROM edges WHERE src_path = ? OR dst_path = ? LIMIT 1", (key, key)).fetchone() is not None
    type_list = sorted(set(types)) if types else []
    tfilter = f" AND type IN ({','.join('?' * len(type_list))})" if type_list else ""
    col = "path" if is_path else "span"
    out: dict[str, list[Edge]] = {}
    if direction in ("out", "both"):
        rows = conn.execute(f"SELECT {_EDGE_COLS} FROM edges WHERE src_{col} = ?{tfilter}", (key, *type_list))
        out["out"] = sorted((Edge._make(r) for r in rows), key=lambda e: (e.type, e.dst_path, e.dst_span or "", e.line or 0, e.src_span or ""))
    if direction in ("in", "both"):
        rows = conn.execute(f"SELECT {_EDGE_COLS} FROM edges WHERE dst_{col} = ?{tfilter}", (key, *type_list))
        out["in"] = sorted((Edge._make(r) for r in rows), key=lambda e: (e.type, e.src_path, e.src_span or "", e.line or 0, e.dst_span or ""))
    return out


def links_report(conn: sqlite3.Connection, path_or_span_id: str, *, include_structural: bool = False) -> dict[str, Any]:
    """JSON-ready answer for ``orion links PATH|SPAN_ID``: edges out and in, grouped by
    type (NEXT/PREV/PARENT_SECTION/CHILD_SECTION left out unless ``include_structural``),
    and the dangling links written in that document."""
    found = edges_for(conn, path_or_span_id)
    report: dict[str, Any] = {"schema_version": 1, "kind": "links", "target": path_or_span_id}
    for direction in ("out", "in"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for e in found[direction]:
            if include_structural or e.type not in STRUCTURAL_TYPES:
                groups.setdefault(e.type, []).append(e.to_dict())
        report[direction] = dict(sorted(groups.items()))
    report["dangling"] = [d.to_dict() for d in dangling(conn, path_or_span_id)]
    return report


def dangling(conn: sqlite3.Connection, path: str | None = None) -> list[DanglingLink]:
    """Dangling links (of one document, or all), by path then line."""
    where, args = ("WHERE path = ?", (path,)) if path else ("", ())
    return [
        DanglingLink(*r)
        for r in conn.execute(f"SELECT path, line, target, kind FROM dangling_links {where} ORDER BY path, coalesce(line, 0), target", args)
    ]


def edge_counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {r[0]: r[1] for r in conn.execute("SELECT type, count(*) FROM edges GROUP BY type ORDER BY type")}


@dataclass
class GraphBuildResult:
    edges: int  # all edges in the table after the rebuild
    by_type: dict[str, int]
    dangling: list[DanglingLink]
    stale_documents: list[str]  # documents whose references were never extracted for this version
    elapsed_ms: float
    timings_ms: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": self.edges, "by_type": self.by_type, "dangling": [d.to_dict() for d in self.dangling],
            "stale_documents": self.stale_documents, "elapsed_ms": round(self.elapsed_ms, 1),
        }


def _sync_global_edges(conn: sqlite3.Connection, edges: list[Edge]) -> tuple[int, int]:
    """Make the global edges in the table equal ``edges``, touching only the difference
    (an incremental run changes few of them). Returns (inserted, deleted)."""
    wanted = Counter(edges)
    stale: list[tuple[int]] = []
    for row in conn.execute(f"SELECT rowid, {_EDGE_COLS} FROM edges WHERE type NOT IN {_LOCAL_SQL}"):
        e = Edge._make(row[1:])
        if wanted[e] > 0:
            wanted[e] -= 1
        else:
            stale.append((row[0],))
    conn.executemany("DELETE FROM edges WHERE rowid = ?", stale)
    new = [e for e, n in wanted.items() for _ in range(n)]
    conn.executemany(_INSERT_EDGE, new)
    return len(new), len(stale)


def rebuild_edges(
    conn: sqlite3.Connection,
    root: Path | None = None,
    *,
    defines: bool = True,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
) -> GraphBuildResult:
    """Phase 2: resolve every stored reference against the current documents, recompute the
    DEFINES edges, rewrite the global edges and ``dangling_links``.

    Call once per index run, after the registry holds every current document and span and
    :func:`store_document` ran for each changed one. Rows of documents no longer in the
    registry are dropped. Does not commit.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    create_tables(conn)
    for table, col in (("link_refs", "path"), ("link_docs", "path"), ("edges", "src_path")):
        conn.execute(f"DELETE FROM {table} WHERE {col} NOT IN (SELECT path FROM documents)")
    stale = [
        r[0]
        for r in conn.execute(
            "SELECT d.path FROM documents d LEFT JOIN link_docs l ON l.path = d.path "
            "WHERE l.doc_version_id IS NULL OR l.doc_version_id != d.doc_version_id ORDER BY d.path"
        )
    ]
    t = time.perf_counter()
    resolver = LinkResolver.from_registry(conn, root)
    edges, dangling_list = resolve_refs(read_refs(conn), resolver)
    timings["resolve"] = (time.perf_counter() - t) * 1000
    if defines:
        t = time.perf_counter()
        edges.extend(_cached_defines(conn, collect_terms(resolver), max_per_term=max_per_term, max_df=max_df))
        timings["defines"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    added, removed = _sync_global_edges(conn, edges)
    write_dangling(conn, dangling_list)
    timings["write"] = (time.perf_counter() - t) * 1000
    timings["edges_added"], timings["edges_removed"] = added, removed
    counts = edge_counts(conn)
    return GraphBuildResult(
        edges=sum(counts.values()),
        by_type=counts,
        dangling=sorted(dangling_list, key=lambda d: (d.path, d.line or 0, d.target)),
        stale_documents=stale,
        elapsed_ms=(time.perf_counter() - t0) * 1000,
        timings_ms={k: round(v, 1) for k, v in timings.items()},
    )


__all__ = [ "LOCAL_TYPES", "STRUCTURAL_TYPES", "Edge", "DanglingLink", "RawRef", "SpanInfo",
    "DocInfo", "LinkResolver", "Term", "extract_refs", "resolve_refs",
    "local_edges", "collect_terms", "defines_edges", "extract_edges", "create_tables", "has_tables",
    "forget_document", "write_refs", "store_document", "read_refs", "write_edges", "write_dangling", "edges_for",
    "links_report", "dangling", "edge_counts", "GraphBuildResult", "rebuild_edges",
]
