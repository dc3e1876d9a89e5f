"""The span registry: SQLite tables for documents, spans (with their embed-text hashes), headings
(defined in ``store/schema.py``), and every query of them. The link graph's tables, in the
same database, are reached through ``Registry.graph`` (``store/graph_store.py``).

``spans.id`` is the row the span's vector has in the vector store (``store/vectors.py``;
the vectors themselves are not in the registry since index schema 6 — the ``vector``
column is NULL — so the per-generation copy does not carry them). A new generation starts
as a copy of the current registry and is updated document by document, so the ids of
unchanged spans carry over untouched.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Iterator

from oriongraph_cli.models import Document, Span
from oriongraph_cli.store import schema
from oriongraph_cli.store.clone import clone_file
from oriongraph_cli.store.graph_store import GraphStore
from oriongraph_cli.store.sql import connect, has_table, in_chunks

# a span id is quoted in an output by its first ID_LENGTH_MIN characters, or more where the
# index holds two ids that share them (`orion show` takes any unique prefix)
ID_LENGTH_MIN = 8


def unique_prefix_length(sorted_ids: Iterable[str], least: int = ID_LENGTH_MIN) -> int:
    """The shortest prefix length, at least ``least`` and at most an id's length, at which
    no two of ``sorted_ids`` (ascending, distinct) are the same: one pass, each id compared
    with the one before it (in sorted order the longest shared prefix is between neighbours)."""
    need, prev, longest = least, "", 0
    for sid in sorted_ids:
        need = max(need, len(os.path.commonprefix((prev, sid))) + 1)
        prev, longest = sid, max(longest, len(sid))
    return min(need, longest) if longest else least

__all__ = ["Registry", "connect", "DOC_COLUMNS", "SPAN_COLUMNS"]

_TOTALS = "totals"  # info key: Registry.totals
_TOTAL_KEYS = ("tokens", "sections", "span_documents")

DOC_COLUMNS = (
    "id, path, doc_version_id, size_bytes, title, source_type, workstream, stage, status, priority, "
    "doc_key, created_at, created_source, tags, meta, body_start, n_spans, lang"
)
# what link resolution reads of a document: front matter aliases (or alias), redirect_from and permalink
# as SQLite's json_extract gives them (extract.DocInfo.from_row reads the row)
_LINKS_INFO = ("path, title, doc_key, workstream, tags, coalesce(json_extract(meta, '$.aliases'), json_extract(meta, '$.alias')), "
               "json_extract(meta, '$.redirect_from'), "
               # the front matter's web addresses with their keys' paths (extract.own_urls_of), read
               # only where the text has one
               "CASE WHEN instr(meta, 'http') THEN (SELECT json_group_array(json_array(fullkey, value)) FROM json_tree(documents.meta) "
               "WHERE type = 'text' AND (value LIKE 'http://%' OR value LIKE 'https://%')) END, "
               "json_extract(meta, '$.permalink')")
SPAN_COLUMNS = "s.id, s.span_id, s.doc_version_id, s.path, s.ordinal, s.char_start, s.char_end, s.line_start, s.line_end, s.token_cost, s.heading_path, s.heading_level, s.text"


class Registry:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.graph = GraphStore(conn)
        self._totals: dict[str, int] | None = None  # Registry.totals, kept as documents come and go

    def totals(self) -> dict[str, int]:
        """What every span adds up to: ``tokens`` (their token costs), ``sections`` (spans
        after a document's first that sit under a heading: a PARENT_SECTION edge each) and
        ``span_documents`` (documents with a span). As the registry recorded them (info
        ``totals``, kept up to date by :meth:`add_document`, :meth:`remove_document` and
        :meth:`commit`), else counted once: counting reads every span row (~8 ms at 13k
        spans, which a one-file re-index paid for every generation)."""
        if self._totals is None:
            recorded = self.get_info(_TOTALS)
            if isinstance(recorded, dict) and set(recorded) == set(_TOTAL_KEYS):
                self._totals = recorded
            else:
                row = self.conn.execute(
                    f"SELECT coalesce(sum(token_cost), 0), coalesce(sum({schema.UNDER_SECTION}), 0),"
                    " count(DISTINCT doc) FROM spans").fetchone()
                self._totals = dict(zip(_TOTAL_KEYS, row))
        return self._totals

    def _add_totals(self, tokens: int, sections: int, spans: int, sign: int) -> None:
        t = self.totals()
        self._totals = {"tokens": t["tokens"] + sign * tokens, "sections": t["sections"] + sign * sections,
                        "span_documents": t["span_documents"] + sign * (spans > 0)}

    # ------------------------------------------------------------ creation
    @classmethod
    def create(cls, path: Path, copy_from: Path | None = None) -> "Registry":
        """A new registry at ``path``, starting as a copy of ``copy_from`` (a copy-on-write
        clone where the file system makes one: ``store.clone``). A finished generation is
        never written again (journal_mode=DELETE leaves no -wal beside it), so a file copy
        is a consistent snapshot — and ~10x faster than the backup API."""
        if copy_from is not None and copy_from.exists():
            clone_file(copy_from, path)
        conn = connect(path)
        schema.create_registry_tables(conn)
        return cls(conn)

    @classmethod
    def open(cls, path: Path) -> "Registry":
        return cls(connect(path, readonly=True))

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------ info
    def set_info(self, key: str, value: Any) -> None:
        self.conn.execute("INSERT OR REPLACE INTO info(key, value) VALUES(?, ?)", (key, json.dumps(value)))

    def get_info(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    # ------------------------------------------------------------ documents
    def doc_versions(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self.conn.execute("SELECT path, doc_version_id FROM documents")}

    def remove_document(self, path: str) -> None:
        gone = self.conn.execute(
            f"SELECT coalesce(sum(token_cost), 0), coalesce(sum({schema.UNDER_SECTION}), 0), count(*)"
            " FROM spans WHERE doc = (SELECT id FROM documents WHERE path = ?)", (path,)).fetchone()
        self.totals()  # loaded (or counted) before the rows go
        self.conn.execute("DELETE FROM documents WHERE path = ?", (path,))
        self._add_totals(*gone, sign=-1)

    def vectors_by_hash(self, hashes: Iterable[str]) -> dict[str, bytes]:
        """Vectors a registry of index schema 5 or earlier holds in its ``vector`` column,
        by embed-text hash (what a rebuild of such an index reuses)."""
        out: dict[str, bytes] = {}
        q = "SELECT embed_hash, vector FROM spans WHERE vector IS NOT NULL AND embed_hash IN ({marks})"
        for h, v in in_chunks(self.conn, q, set(hashes)):
            out[h] = v
        return out

    def rows_by_hash(self, hashes: Iterable[str]) -> dict[str, int]:
        """embed-text hash -> a row whose span has that embedding text (index ``spans_embed``)."""
        out: dict[str, int] = {}
        for h, row in in_chunks(self.conn, "SELECT embed_hash, id FROM spans WHERE embed_hash IN ({marks})", set(hashes)):
            out.setdefault(h, row)
        return out

    def add_document(self, doc: Document, spans: list[Span], embed_hashes: list[str], vectors: list[bytes | None] | None = None,
                     blocks: str | None = None) -> list[int]:
        """Insert one document and its spans; returns the spans' rows (their vectors go to
        the vector store under these rows). ``vectors`` fills the legacy ``vector`` column
        (NULL when not given, as the indexer leaves it); ``blocks``: the note's headings,
        code blocks and tables (``Blocks.to_json``), kept beside it."""
        meta = doc.meta
        priority = meta.get("priority")
        try:
            priority = int(priority) if priority is not None else None
        except (TypeError, ValueError):
            priority = None
        cur = self.conn.execute(
            f"INSERT INTO documents({DOC_COLUMNS}) VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                doc.path,
                doc.doc_version_id,
                doc.size_bytes,
                doc.title,
                doc.source_type.value,
                doc.workstream,
                doc.stage,
                doc.status,
                priority,
                str(meta["id"]) if meta.get("id") is not None else None,
                doc.created_at,
                doc.created_source,
                json.dumps(list(doc.tags)),
                json.dumps(meta, sort_keys=True),
                doc.body_start,
                len(spans),
                doc.language,
            ),
        )
        doc_row = cur.lastrowid
        if blocks is not None:
            self.conn.execute("INSERT INTO blocks(doc, data) VALUES(?, ?)", (doc_row, blocks))
        self._add_totals(sum(span.ref.token_cost for span in spans), sum(1 for span in spans if span.ordinal > 0 and span.heading_path),
                         len(spans), sign=1)
        seen_heads: set[tuple[str, ...]] = set()
        rows: list[int] = []
        for span, h, vec in zip(spans, embed_hashes, vectors or [None] * len(spans)):
            r = span.ref
            cur = self.conn.execute(
                "INSERT INTO spans(span_id, doc, doc_version_id, path, ordinal, char_start, char_end, line_start, line_end, token_cost, heading_path, heading_level, text, embed_hash, vector)"
                " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (r.span_id, doc_row, r.doc_version_id, span.path, span.ordinal, r.char_start, r.char_end, r.line_start, r.line_end, r.token_cost,
                 json.dumps(list(span.heading_path)), span.heading_level, span.text, h, vec),
            )
            rows.append(cur.lastrowid)
            for depth in range(1, len(span.heading_path) + 1):
                prefix = span.heading_path[:depth]
                if prefix not in seen_heads:
                    seen_heads.add(prefix)
                    self.conn.execute(
                        "INSERT INTO headings(doc, level, title, heading_path, span) VALUES(?,?,?,?,?)",
                        (doc_row, depth, prefix[-1], " > ".join(prefix), cur.lastrowid),
                    )
        return rows

    def commit(self) -> None:
        if self._totals is not None:
            self.set_info(_TOTALS, self._totals)
        self.conn.commit()

    # ------------------------------------------------------------ reads
    def counts(self) -> dict[str, int]:
        docs = self.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        spans = self.conn.execute("SELECT count(*) FROM spans").fetchone()[0]
        return {"documents": docs, "spans": spans, "tokens": self.totals()["tokens"]}

    def outline(self) -> sqlite3.Cursor:
        """(row, document id, ordinal, heading path JSON) of every span, in row order,
        read from the covering index ``spans_outline`` (not the wide ``spans`` rows).
        Raises sqlite3.OperationalError on a registry built before that index existed."""
        return self.conn.execute("SELECT id, doc, ordinal, heading_path FROM spans INDEXED BY spans_outline ORDER BY id")

    def iter_span_rows(self, rows: Iterable[int] | None = None) -> Iterator[sqlite3.Row]:
        base = (
            f"SELECT {SPAN_COLUMNS}, d.title, d.source_type, d.workstream, d.stage, d.status, d.priority, d.doc_key, "
            "d.created_at, d.tags, d.meta FROM spans s JOIN documents d ON d.id = s.doc"
        )
        if rows is None:
            yield from self.conn.execute(base + " ORDER BY s.id")
            return
        yield from in_chunks(self.conn, base + " WHERE s.id IN ({marks})", rows)

    def span_by_id(self, span_id: str) -> sqlite3.Row | None:
        rows = self.conn.execute(
            f"SELECT {SPAN_COLUMNS}, d.title, d.source_type, d.workstream, d.stage, d.status, d.priority, d.doc_key, "
            "d.created_at, d.tags, d.meta, d.body_start FROM spans s JOIN documents d ON d.id = s.doc WHERE s.span_id LIKE ? ORDER BY s.span_id LIMIT 2",
            (span_id + "%",),
        ).fetchall()
        return rows[0] if len(rows) == 1 else (None if not rows else rows)  # type: ignore[return-value]

    @functools.cached_property
    def _doc_columns(self) -> str:
        """``DOC_COLUMNS`` as this registry can select them: a generation written before
        documents had a language (index schema 9, read by a compile until the next
        ``orion index`` rebuilds it) gives none."""
        names = {r[1] for r in self.conn.execute("PRAGMA table_info(documents)")}
        return DOC_COLUMNS if "lang" in names or not names else DOC_COLUMNS.replace(", lang", ", NULL AS lang")

    def documents(self) -> list[sqlite3.Row]:
        return self.conn.execute(f"SELECT {self._doc_columns} FROM documents ORDER BY path").fetchall()

    def documents_at(self, paths: Iterable[str]) -> list[sqlite3.Row]:
        """The document rows at ``paths`` (those that exist), in path order."""
        return sorted(in_chunks(self.conn, f"SELECT {self._doc_columns} FROM documents WHERE path IN ({{marks}})", paths), key=lambda r: r["path"])

    def span_counts_of(self, paths: Iterable[str]) -> dict[str, int]:
        """path -> spans, of the documents at ``paths`` that have spans."""
        return {r[0]: r[1] for r in in_chunks(
            self.conn, "SELECT d.path, count(*) FROM documents d JOIN spans s ON s.doc = d.id WHERE d.path IN ({marks}) GROUP BY d.path", paths)}

    def subsection_spans_of(self, docs: Iterable[int]) -> list[tuple[int, str]]:
        """(row, heading path JSON) of the spans of documents ``docs`` under a subsection."""
        return [tuple(r) for r in in_chunks(
            self.conn, "SELECT id, heading_path FROM spans WHERE doc IN ({marks}) AND json_array_length(heading_path) > 1", docs)]

    def subsection_spans_at(self, paths: Iterable[str]) -> list[tuple[int, str]]:
        """(row, heading path JSON) of the spans of the documents at ``paths`` under a subsection."""
        return [tuple(r) for r in in_chunks(
            self.conn, "SELECT id, heading_path FROM spans WHERE path IN ({marks}) AND json_array_length(heading_path) > 1", paths)]

    def document_values(self, column: str) -> list[str]:
        """The distinct values of a document column (``stage``, ``workstream``; ``tags`` are
        JSON lists, flattened), for completing option values."""
        if column not in ("stage", "workstream", "tags"):
            raise ValueError(f"not a completable document column: {column}")
        rows = [r[0] for r in self.conn.execute(f"SELECT DISTINCT {column} FROM documents WHERE {column} IS NOT NULL")]
        return [t for r in rows for t in json.loads(r)] if column == "tags" else [str(r) for r in rows]

    def span_counts(self) -> dict[str, int]:
        """path -> how many spans the document has (counted on index ``spans_doc``)."""
        return dict(self.conn.execute("SELECT d.path, c.n FROM (SELECT doc, count(*) AS n FROM spans GROUP BY doc) c JOIN documents d ON d.id = c.doc"))

    def subsection_spans(self) -> list[tuple[int, str]]:
        """(row, heading path JSON) of every span under a subsection (more than one heading), in row order."""
        return [tuple(r) for r in self.conn.execute("SELECT id, heading_path FROM spans WHERE json_array_length(heading_path) > 1 ORDER BY id")]

    def locate(self, rows: Iterable[int]) -> list[tuple[int, int, int]]:
        """(row, document id, ordinal) of ``rows``."""
        return [tuple(r) for r in in_chunks(self.conn, "SELECT id, doc, ordinal FROM spans WHERE id IN ({marks}) ORDER BY id", rows)]

    def spans_of_documents(self, docs: Iterable[int]) -> list[tuple[int, int, int]]:
        """(row, document id, ordinal) of every span of the documents ``docs`` (index ``spans_doc``)."""
        return [tuple(r) for r in in_chunks(self.conn, "SELECT id, doc, ordinal FROM spans WHERE doc IN ({marks}) ORDER BY id", docs)]

    def spans_of_paths(self, paths: Iterable[str]) -> list[tuple[int, str, int]]:
        """(row, path, ordinal) of every span of the documents at ``paths``."""
        return [tuple(r) for r in in_chunks(self.conn, "SELECT id, path, ordinal FROM spans WHERE path IN ({marks})", paths)]

    def spans_by_span_id(self, span_ids: Iterable[str]) -> list[tuple[int, str, str, str]]:
        """(row, path, span_id, heading path JSON) of the spans with these ids."""
        return [tuple(r) for r in in_chunks(self.conn, "SELECT id, path, span_id, heading_path FROM spans WHERE span_id IN ({marks})", span_ids)]

    def span_texts(self, span_ids: Iterable[str]) -> dict[str, str]:
        """span_id -> text."""
        return {r[0]: r[1] for r in in_chunks(self.conn, "SELECT span_id, text FROM spans WHERE span_id IN ({marks})", span_ids)}

    def span_ids_of_rows(self, rows: Iterable[int]) -> dict[int, str]:
        """row -> span_id."""
        return {r[0]: r[1] for r in in_chunks(self.conn, "SELECT id, span_id FROM spans WHERE id IN ({marks})", rows)}

    def paths_of_rows(self, rows: Iterable[int]) -> dict[int, str]:
        """row -> path of the document the span belongs to."""
        return {r[0]: r[1] for r in in_chunks(self.conn, "SELECT id, path FROM spans WHERE id IN ({marks})", rows)}

    def span_place(self, row: int) -> tuple[str, int, str] | None:
        """(path, ordinal, span_id) of one span, or None."""
        r = self.conn.execute("SELECT path, ordinal, span_id FROM spans WHERE id = ?", (row,)).fetchone()
        return tuple(r) if r is not None else None

    def document_outline(self, path: str) -> list[tuple[int, str, int, str, int, int]]:
        """(row, span_id, ordinal, heading path JSON, heading level, token cost) of every span
        of one document, in reading order."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT id, span_id, ordinal, heading_path, heading_level, token_cost FROM spans WHERE path = ? ORDER BY ordinal", (path,)
        )]

    def spans_holding(self, *needles: str) -> list[tuple[str, str, int, str, str, str | None]]:
        """(path, span_id, ordinal, heading path JSON, text, the next span's id) of the spans
        whose text or heading path holds one of ``needles`` (a label's ``.. _``, a heading id's
        ``{#``), in path and reading order: what a cross-reference's lookup tables read, in one
        pass instead of one query per document."""
        where = " OR ".join("instr(s.text, ?) > 0 OR instr(s.heading_path, ?) > 0" for _ in needles)
        args = [n for n in needles for _ in (0, 1)]
        return [tuple(r) for r in self.conn.execute(
            "SELECT s.path, s.span_id, s.ordinal, s.heading_path, s.text, "
            "(SELECT n.span_id FROM spans n WHERE n.path = s.path AND n.ordinal = s.ordinal + 1) "
            f"FROM spans s WHERE {where} ORDER BY s.path, s.ordinal", args)]

    def blocks_of(self, paths: Iterable[str]) -> dict[str, str]:
        """Path -> the blocks kept for it (``add_document``), for those of ``paths`` that have
        them; none from a registry written before they were kept."""
        if not has_table(self.conn, "blocks"):
            return {}
        return {r[0]: r[1] for r in self.conn.execute(
            "SELECT d.path, b.data FROM documents d JOIN blocks b ON b.doc = d.id WHERE d.path IN (SELECT value FROM json_each(?))",
            (json.dumps(list(paths)),))}

    def document_texts(self, path: str) -> list[tuple[str, str]]:
        """(span_id, text) of every span of one document, in reading order."""
        return [tuple(r) for r in self.conn.execute("SELECT span_id, text FROM spans WHERE path = ? ORDER BY ordinal", (path,))]

    def heading_paths(self, path: str) -> list[tuple[int, str]]:
        """(row, heading path JSON) of every span of one document, in reading order."""
        return [tuple(r) for r in self.conn.execute("SELECT id, heading_path FROM spans WHERE path = ? ORDER BY ordinal", (path,))]

    def first_span_ids(self, paths: Iterable[str] | None = None) -> dict[str, str]:
        """path -> span_id of the document's first span (one lookup per document in the
        index ``spans_doc``, not a pass over every span), of every document or of those at
        ``paths``."""
        first = "SELECT d.path, (SELECT span_id FROM spans WHERE doc = d.id ORDER BY ordinal LIMIT 1) FROM documents d"
        if paths is None:
            rows = self.conn.execute(first)
        else:
            rows = self.conn.execute(f"{first} WHERE d.path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(set(paths))),))
        return {r[0]: r[1] for r in rows if r[1] is not None}

    def first_span_row(self, path: str) -> int | None:
        r = self.conn.execute("SELECT id FROM spans WHERE path = ? ORDER BY ordinal LIMIT 1", (path,)).fetchone()
        return r[0] if r else None

    def span_outline(self) -> list[tuple[str, str, int]]:
        """(path, span_id, ordinal) of every span, in row order."""
        return [tuple(r) for r in self.conn.execute("SELECT path, span_id, ordinal FROM spans ORDER BY id")]

    def document_links_info(self, paths: Iterable[str] | None = None) -> list[tuple[str, str, str | None, str | None, str, str | None, str | None, str | None, str | None]]:
        """(path, title, doc_key, workstream, tags JSON, front matter aliases JSON, redirect_from JSON, web addresses
        JSON, permalink) of every document (of those at ``paths``, when given): what link resolution needs."""
        if paths is None:
            return [tuple(r) for r in self.conn.execute(f"SELECT {_LINKS_INFO} FROM documents")]
        return [tuple(r) for r in self.conn.execute(
            f"SELECT {_LINKS_INFO} FROM documents WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(set(paths))),)
        )]

    def document_labels(self, paths: Iterable[str]) -> list[tuple[str, str | None, str, str | None]]:
        """(path, doc_key, title, status) of the documents at ``paths``."""
        return [tuple(r) for r in in_chunks(self.conn, "SELECT path, doc_key, title, status FROM documents WHERE path IN ({marks})", paths)]

    def document_keys(self) -> list[tuple[str, str]]:
        """(path, doc_key) of every document that has an id."""
        return [tuple(r) for r in self.conn.execute("SELECT path, doc_key FROM documents WHERE doc_key IS NOT NULL")]

    def rows_of_paths(self, paths: Iterable[str]) -> list[int]:
        """Rows of every span of the documents at ``paths``."""
        return [r[0] for r in self.conn.execute("SELECT id FROM spans WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(list(paths)),))]

    def id_length(self, least: int = ID_LENGTH_MIN, added: Iterable[str] | None = None) -> int:
        """The length at which every span id is told apart by its prefix
        (:func:`unique_prefix_length`, over every id). With ``added`` — the ids new since a
        generation whose length was ``least`` — only they are compared with their neighbours
        in id order (two lookups each on the id index, not a pass over a million ids): the
        others were told apart at ``least`` already, and the length never shrinks."""
        if added is None:
            return unique_prefix_length((sid for (sid,) in self.conn.execute("SELECT span_id FROM spans ORDER BY span_id")), least)
        need = least
        for sid in added:
            for query in ("SELECT max(span_id) FROM spans WHERE span_id < ?", "SELECT min(span_id) FROM spans WHERE span_id > ?"):
                (other,) = self.conn.execute(query, (sid,)).fetchone()
                if other:
                    need = max(need, min(len(os.path.commonprefix((sid, other))) + 1, len(sid)))
        return need

    def span_rows_of(self, paths: Iterable[str]) -> dict[str, int]:
        """span_id -> row of every span of the documents at ``paths``."""
        return {r[0]: r[1] for r in self.conn.execute(
            "SELECT span_id, id FROM spans WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(list(paths)),)
        )}

    def lexical_rows(self) -> Iterator[tuple]:
        """(row, heading path JSON, text, path, title, tags JSON, stage, workstream,
        source_type, span_id, ordinal, front matter JSON of a document's first span, else
        None) of every span, in row order: what the lexical indices index."""
        q = (
            "SELECT s.id, s.heading_path, s.text, d.path, d.title, d.tags, d.stage, d.workstream, d.source_type, s.span_id,"
            " s.ordinal, CASE WHEN s.ordinal = 0 THEN d.meta END"
            " FROM spans s JOIN documents d ON d.id = s.doc ORDER BY s.id"
        )
        for r in self.conn.execute(q):
            yield tuple(r)
