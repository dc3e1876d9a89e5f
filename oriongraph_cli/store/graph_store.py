"""The link graph's tables in a generation's registry: stored references (``link_refs``,
``link_docs``), typed ``edges``, ``dangling_links`` and the DEFINES cache.

Every query of those tables is a method here; rows go in and come out as plain tuples
(``graph/`` turns them into its ``Edge``/``RawRef``/``DanglingLink`` types). Edge type
names are data to this module: which types are local to one document is passed in by
the caller.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from typing import Any, Iterable, Iterator, Mapping, Sequence

from oriongraph_cli.store import schema
from oriongraph_cli.store.sql import in_chunks

EDGE_COLUMNS = "src_path, src_span, dst_path, dst_span, type, detail, line"
_INSERT_EDGE = f"INSERT INTO edges({EDGE_COLUMNS}) VALUES(?,?,?,?,?,?,?)"


def _quoted(types: Iterable[str]) -> str:
    return "(" + ",".join(f"'{t}'" for t in sorted(types)) + ")"


class GraphStore:
    """The graph tables of one registry connection. ``local_types`` (where asked): the edge
    types that depend on one document only (dropped with it, kept by a global rebuild)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    # ------------------------------------------------------------ tables
    def create_tables(self) -> None:
        schema.create_graph_tables(self.conn)

    def has_tables(self) -> bool:
        return schema.has_graph_tables(self.conn)

    # ------------------------------------------------------------ per document (phase 1)
    def forget_document(self, path: str, local_types: Iterable[str]) -> None:
        """Drop the stored references, extraction mark and local edges of ``path``."""
        self.conn.execute("DELETE FROM link_refs WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM link_docs WHERE path = ?", (path,))
        self.conn.execute(f"DELETE FROM edges WHERE src_path = ? AND type IN {_quoted(local_types)}", (path,))

    def write_refs(self, path: str, doc_version_id: str, refs: Iterable[Sequence[Any]]) -> None:
        """Replace the stored references of ``path`` and mark that version as extracted."""
        self.conn.execute("DELETE FROM link_refs WHERE path = ?", (path,))
        self.conn.executemany("INSERT INTO link_refs(path, span_id, line, kind, target, anchor) VALUES(?,?,?,?,?,?)", list(refs))
        self.conn.execute("INSERT OR REPLACE INTO link_docs(path, doc_version_id) VALUES(?,?)", (path, doc_version_id))

    def read_refs(self, paths: Iterable[str] | None = None) -> Iterator[tuple]:
        """(path, span_id, line, kind, target, anchor) of every stored reference (of the
        documents at ``paths`` only, when given), by path then as stored."""
        if paths is None:
            rows = self.conn.execute("SELECT path, span_id, line, kind, target, anchor FROM link_refs ORDER BY path, rowid")
        else:
            rows = self.conn.execute(
                "SELECT path, span_id, line, kind, target, anchor FROM link_refs "
                "WHERE path IN (SELECT value FROM json_each(?)) ORDER BY path, rowid", (json.dumps(sorted(set(paths))),)
            )
        for r in rows:
            yield tuple(r)

    # ------------------------------------------------------------ resolution dependencies
    def write_deps(self, deps: dict[str, Iterable[str]], *, replace: bool = False, append: bool = False) -> None:
        """Replace the lookup keys of the documents in ``deps`` (``replace``: of every
        document; ``append``: add them, the caller knows they hold none)."""
        if replace:
            self.conn.execute("DELETE FROM link_deps")
        elif not append:
            self.conn.execute("DELETE FROM link_deps WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(deps)),))
        # rows made as they are inserted: a build from the files writes millions of them
        self.conn.executemany("INSERT INTO link_deps(key, path) VALUES(?,?)", ((k, p) for p, keys in sorted(deps.items()) for k in sorted(keys)))

    def paths_depending_on(self, keys: Iterable[str]) -> set[str]:
        """Documents some of whose references were resolved by looking up one of ``keys``."""
        return {r[0] for r in self.conn.execute(
            "SELECT DISTINCT path FROM link_deps WHERE key IN (SELECT value FROM json_each(?))", (json.dumps(sorted(set(keys))),)
        )}

    def forget_resolved(self, paths: Iterable[str], keep_types: Iterable[str]) -> None:
        """Drop the edges resolved from the references of ``paths`` (every type but
        ``keep_types``) and their dangling links."""
        arg = (json.dumps(sorted(set(paths))),)
        self.conn.execute(f"DELETE FROM edges WHERE src_path IN (SELECT value FROM json_each(?)) AND type NOT IN {_quoted(keep_types)}", arg)
        self.conn.execute("DELETE FROM dangling_links WHERE path IN (SELECT value FROM json_each(?))", arg)

    # ------------------------------------------------------------ edges
    def add_edges(self, rows: Iterable[Sequence[Any]]) -> None:
        self.conn.executemany(_INSERT_EDGE, rows)

    def write_edges(self, rows: Sequence[Sequence[Any]], *, replace: bool = False) -> None:
        if replace:
            self.conn.execute("DELETE FROM edges")
        self.conn.executemany(_INSERT_EDGE, rows)

    def global_edges(self, local_types: Iterable[str], only: str | None = None) -> Iterator[tuple]:
        """(rowid, src_path, src_span, dst_path, dst_span, type, detail, line) of every edge
        that is not local to one document (of type ``only``, when given)."""
        if only is not None:
            rows = self.conn.execute(f"SELECT rowid, {EDGE_COLUMNS} FROM edges WHERE type = ?", (only,))
        else:
            rows = self.conn.execute(f"SELECT rowid, {EDGE_COLUMNS} FROM edges WHERE type NOT IN {_quoted(local_types)}")
        for row in rows:
            yield tuple(row)

    def has_global_edges(self, local_types: Iterable[str]) -> bool:
        """Whether any edge that is not local to one document is stored."""
        return self.conn.execute(f"SELECT 1 FROM edges WHERE type NOT IN {_quoted(local_types)} LIMIT 1").fetchone() is not None

    def delete_edges(self, rowids: Iterable[int]) -> None:
        self.conn.executemany("DELETE FROM edges WHERE rowid = ?", [(r,) for r in rowids])

    def is_edge_path(self, key: str) -> bool:
        """Whether ``key`` is the path of a node some edge starts or ends at."""
        return self.conn.execute("SELECT 1 FROM edges WHERE src_path = ? OR dst_path = ? LIMIT 1", (key, key)).fetchone() is not None

    def edges_at(self, end: str, column: str, key: str, types: Sequence[str] = ()) -> list[tuple]:
        """Edges whose ``end`` ("src" | "dst") ``column`` ("path" | "span") is ``key``,
        of ``types`` (all when empty), as (src_path, src_span, dst_path, dst_span, type, detail, line)."""
        if end not in ("src", "dst") or column not in ("path", "span"):
            raise ValueError(f"not an edge end: {end}_{column}")
        tfilter = f" AND type IN ({','.join('?' * len(types))})" if types else ""
        return [tuple(r) for r in self.conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges WHERE {end}_{column} = ?{tfilter}", (key, *types))]

    def link_targets(self, paths: Iterable[str]) -> dict[str, dict[str, str]]:
        """Per document of ``paths``, the path each of its resolved links names: the target
        as written (``purge-cache.html#assets``) -> the indexed document. Empty for an index
        without the link graph's tables."""
        out: dict[str, dict[str, str]] = {}
        try:
            rows = list(in_chunks(self.conn, "SELECT src_path, detail, dst_path FROM edges WHERE src_path IN ({marks}) AND type IN ('REF', 'CITES')", sorted(set(paths))))
        except sqlite3.OperationalError:
            return out
        for src, written, dst in rows:
            if written and not written.startswith("[["):
                out.setdefault(src, {})[written] = dst
        return out

    def edge_counts(self) -> dict[str, int]:
        """The stored edges by type."""
        return {r[0]: r[1] for r in self.conn.execute("SELECT type, count(*) FROM edges GROUP BY type ORDER BY type")}

    def structural_counts(self, totals: Mapping[str, int] | None = None) -> dict[str, int]:
        """How many structural edges the spans imply, by type (``graph.extract.structural_edges``):
        a NEXT and a PREV per span after a document's first, a PARENT_SECTION and a
        CHILD_SECTION per such span under a heading. ``totals``: the registry's ``spans``,
        ``span_documents`` and ``sections`` where it keeps them (``Registry.totals``),
        instead of counting every span."""
        q = self.conn.execute
        if totals is not None:
            follows, sections = totals["spans"] - totals["span_documents"], totals["sections"]
        else:
            follows = q("SELECT count(*) - count(DISTINCT doc) FROM spans").fetchone()[0]
            sections = q(f"SELECT count(*) FROM spans WHERE {schema.UNDER_SECTION}").fetchone()[0]
        return {"NEXT": follows, "PREV": follows, "PARENT_SECTION": sections, "CHILD_SECTION": sections}

    def neighbour_edges(self, path: str, span: str | None, *, doc_edges: bool = True) -> list[tuple[tuple[str, str | None], str, bool, str]]:
        """``((path, span), type, forward, detail)`` of the edges at a node: a span's own
        edges (out and in), and — for a document node, or a span when ``doc_edges`` — the
        edges of its document as a whole. Unsorted."""
        q = self.conn.execute
        out: list[tuple[tuple[str, str | None], str, bool, str]] = []
        if span is not None:
            for r in q("SELECT dst_path, dst_span, type, detail FROM edges WHERE src_span = ? AND src_path = ?", (span, path)):
                out.append(((r[0], r[1]), r[2], True, r[3]))
            for r in q("SELECT src_path, src_span, type, detail FROM edges WHERE dst_span = ? AND dst_path = ?", (span, path)):
                out.append(((r[0], r[1]), r[2], False, r[3]))
        if span is None or doc_edges:
            for r in q("SELECT dst_path, dst_span, type, detail FROM edges WHERE src_path = ? AND src_span IS NULL", (path,)):
                out.append(((r[0], r[1]), r[2], True, r[3]))
            for r in q("SELECT src_path, src_span, type, detail FROM edges WHERE dst_path = ? AND dst_span IS NULL", (path,)):
                out.append(((r[0], r[1]), r[2], False, r[3]))
        return out

    def links_between(self, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """The (src, dst) document pairs joined by at least one edge src -> dst."""
        out: set[tuple[str, str]] = set()
        for src, dst in pairs:
            if self.conn.execute("SELECT 1 FROM edges WHERE src_path = ? AND dst_path = ? LIMIT 1", (src, dst)).fetchone():
                out.add((src, dst))
        return out

    # ------------------------------------------------------------ supersession
    def successors(self, path: str) -> set[str]:
        """``superseded_by`` targets of ``path`` and the documents whose ``supersedes`` names it."""
        rows = self.conn.execute(
            "SELECT dst_path FROM edges WHERE src_path = ? AND type = 'SUPERSEDED_BY' "
            "UNION SELECT src_path FROM edges WHERE dst_path = ? AND type = 'SUPERSEDES'",
            (path, path),
        ).fetchall()
        return {r[0] for r in rows}

    def successor_pairs(self, paths: Iterable[str]) -> Iterator[tuple[str, str]]:
        """(document, successor) for :meth:`successors` of many documents at once."""
        for src, dst in in_chunks(
            self.conn,
            "SELECT src_path, dst_path FROM edges WHERE src_path IN ({marks}) AND type = 'SUPERSEDED_BY' "
            "UNION SELECT dst_path, src_path FROM edges WHERE dst_path IN ({marks}) AND type = 'SUPERSEDES'",
            paths,
            repeat=2,
        ):
            yield src, dst

    def all_successor_pairs(self) -> Iterator[tuple[str, str]]:
        """(document, successor) of every document with a successor, in one query."""
        yield from self.conn.execute(
            "SELECT src_path, dst_path FROM edges WHERE type = 'SUPERSEDED_BY' "
            "UNION SELECT dst_path, src_path FROM edges WHERE type = 'SUPERSEDES'"
        )

    # ------------------------------------------------------------ global rebuild (phase 2)
    def drop_removed_documents(self, paths: Iterable[str] | None = None) -> None:
        """Rows of documents no longer in the registry: of those at ``paths`` (the documents
        an incremental run changed or removed: each table has an index on the column), or of
        any (a scan of every table)."""
        tables = (("link_refs", "path"), ("link_docs", "path"), ("edges", "src_path"), ("link_deps", "path"))
        if paths is None:
            for table, col in tables:
                self.conn.execute(f"DELETE FROM {table} WHERE {col} NOT IN (SELECT path FROM documents)")
            return
        gone = [(p,) for p in paths if self.conn.execute("SELECT 1 FROM documents WHERE path = ?", (p,)).fetchone() is None]
        for table, col in tables:
            self.conn.executemany(f"DELETE FROM {table} WHERE {col} = ?", gone)

    def unextracted_documents(self) -> list[str]:
        """Documents whose references were never extracted for their current version."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT d.path FROM documents d LEFT JOIN link_docs l ON l.path = d.path "
                "WHERE l.doc_version_id IS NULL OR l.doc_version_id != d.doc_version_id ORDER BY d.path"
            )
        ]

    def write_dangling(self, rows: Iterable[Sequence[Any]], *, replace: bool = True) -> None:
        """(path, line, target, kind) rows."""
        if replace:
            self.conn.execute("DELETE FROM dangling_links")
        self.conn.executemany("INSERT INTO dangling_links(path, line, target, kind) VALUES(?,?,?,?)", list(rows))

    def dangling(self, path: str | None = None) -> list[tuple]:
        """(path, line, target, kind) of the dangling links (of one document, or all), by path then line."""
        where, args = ("WHERE path = ?", (path,)) if path else ("", ())
        return [tuple(r) for r in self.conn.execute(f"SELECT path, line, target, kind FROM dangling_links {where} ORDER BY path, coalesce(line, 0), target", args)]

    # ------------------------------------------------------------ DEFINES cache
    def defines_hits_prune(self, sig: str) -> None:
        """Drop matches of spans gone or matched under another term list, and their hits."""
        self.conn.execute("DELETE FROM defines_cache WHERE sig != ? OR span_id NOT IN (SELECT span_id FROM spans)", (sig,))
        self.conn.execute("DELETE FROM defines_hits WHERE span_id NOT IN (SELECT span_id FROM defines_cache)")

    def span_count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM spans").fetchone()[0]

    def defines_term_keys(self) -> set[int]:
        """The keys of the terms every matched span was matched against."""
        return {r[0] for r in self.conn.execute("SELECT term FROM defines_terms")}

    def forget_defines_terms(self, keys: Iterable[int]) -> None:
        """Drop terms the project no longer defines, with their matches."""
        keys = list(keys)
        self.conn.executemany("DELETE FROM defines_hits WHERE term = ?", [(k,) for k in keys])
        self.conn.executemany("DELETE FROM defines_terms WHERE term = ?", [(k,) for k in keys])

    def add_defines_terms(self, rows: Iterable[tuple[int, str]]) -> None:
        """(key, words) of terms every matched span has now been matched against."""
        self.conn.executemany("INSERT OR REPLACE INTO defines_terms(term, words) VALUES(?,?)", list(rows))

    def defines_definers(self) -> dict[int, tuple[str | None, str | None, str | None]]:
        """key -> (path, span_id, text) of the definer each term's stored DEFINES edges start from."""
        return {r[0]: (r[1], r[2], r[3]) for r in self.conn.execute("SELECT term, path, span_id, text FROM defines_terms")}

    def set_defines_definers(self, rows: Iterable[tuple[str, str, str, int]]) -> None:
        """(path, span_id, text, key) of terms whose DEFINES edges were chosen."""
        self.conn.executemany("UPDATE defines_terms SET path = ?, span_id = ?, text = ? WHERE term = ?", list(rows))

    def defines_terms_of_spans(self, span_ids: Iterable[str]) -> set[int]:
        """The terms matched in these spans."""
        return {r[0] for r in in_chunks(self.conn, "SELECT DISTINCT term FROM defines_hits WHERE span_id IN ({marks})", span_ids)}

    def forget_defines_spans(self, span_ids: Iterable[str]) -> None:
        """Drop the match marks and matches of these spans."""
        ids = [(sid,) for sid in span_ids]
        self.conn.executemany("DELETE FROM defines_cache WHERE span_id = ?", ids)
        self.conn.executemany("DELETE FROM defines_hits WHERE span_id = ?", ids)

    def defines_unmatched_rows_of(self, paths: Iterable[str]) -> array:
        """The rows of the spans of the documents at ``paths`` not matched yet, ascending."""
        return array("q", sorted(r[0] for r in self.conn.execute(
            "SELECT id FROM spans WHERE path IN (SELECT value FROM json_each(?)) AND span_id NOT IN (SELECT span_id FROM defines_cache)",
            (json.dumps(list(paths)),),
        )))

    def defines_users_between(self, definers: Sequence[tuple[int, str]], low: int, high: int) -> set[int]:
        """The terms used by more than ``low`` and at most ``high`` spans of other documents
        than their definer's."""
        return {r[0] for r in self.conn.execute(
            "WITH d(term, path) AS (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)) "
            "SELECT h.term FROM defines_hits h JOIN d ON d.term = h.term WHERE h.path != d.path "
            "GROUP BY h.term HAVING count(*) > ? AND count(*) <= ?",
            (json.dumps([list(d) for d in definers]), low, high),
        )}

    def defines_edges_from(self, definers: Iterable[tuple[str, str, str]]) -> list[tuple]:
        """(rowid, src_path, src_span, dst_path, dst_span, type, detail, line) of the DEFINES
        edges stored from each (path, span_id, term text)."""
        out: list[tuple] = []
        for path, span_id, text in definers:
            out += [tuple(r) for r in self.conn.execute(
                f"SELECT rowid, {EDGE_COLUMNS} FROM edges WHERE src_span = ? AND type = 'DEFINES' AND src_path = ? AND detail = ?",
                (span_id, path, text))]
        return out

    def defines_matched_rows(self) -> array:
        """The rows of the spans matched already, ascending."""
        return array("q", (r[0] for r in self.conn.execute(
            "SELECT id FROM spans WHERE span_id IN (SELECT span_id FROM defines_cache) ORDER BY id"
        )))

    def defines_unmatched_rows(self) -> array:
        """The rows of the spans not matched yet, ascending (8 bytes a span: a build from the
        files has every span to match)."""
        return array("q", (r[0] for r in self.conn.execute(
            "SELECT id FROM spans WHERE span_id NOT IN (SELECT span_id FROM defines_cache) ORDER BY id"
        )))

    def spans_at_rows(self, rows: Sequence[int]) -> list[tuple[str, str, int]]:
        """(path, span_id, ordinal) of the spans at ``rows``, in row order."""
        found = sorted((r[0], r[1], r[2], r[3]) for r in in_chunks(
            self.conn, "SELECT id, path, span_id, ordinal FROM spans WHERE id IN ({marks})", rows))
        return [(path, sid, ordinal) for _row, path, sid, ordinal in found]

    def save_defines_hits(self, sig: str, matched: Iterable[str], hits: Iterable[Sequence[Any]]) -> None:
        """Mark ``matched`` span ids as matched under ``sig`` and store their (term, span_id,
        path, ordinal, occurrences) hits."""
        self.conn.executemany("INSERT OR REPLACE INTO defines_cache(span_id, sig, found) VALUES(?,?,'')", [(sid, sig) for sid in matched])
        self.conn.executemany("INSERT INTO defines_hits(term, span_id, path, ordinal, n) VALUES(?,?,?,?,?)", list(hits))

    def defines_top(self, definers: Sequence[tuple[int, str]], limit: float, per_term: int) -> list[tuple[int, str, str]]:
        """(term, path, span_id) of the DEFINES users to keep: for each term (its key, and the
        path of the document defining it) the spans of other documents matching it, at most
        ``per_term`` (most occurrences first, then path, ordinal), none for a term used by
        more than ``limit`` spans. Ordered by term, then that order."""
        return [tuple(r) for r in self.conn.execute(
            "WITH d(term, path) AS (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)) "
            "SELECT term, path, span_id FROM ("
            " SELECT h.term, h.path, h.span_id, h.n, h.ordinal,"
            "  row_number() OVER (PARTITION BY h.term ORDER BY h.n DESC, h.path, h.ordinal) AS rk,"
            "  count(*) OVER (PARTITION BY h.term) AS users"
            " FROM defines_hits h JOIN d ON d.term = h.term WHERE h.path != d.path"
            ") WHERE users <= ? AND rk <= ? ORDER BY term, rk",
            (json.dumps([list(d) for d in definers]), limit, per_term),
        )]
