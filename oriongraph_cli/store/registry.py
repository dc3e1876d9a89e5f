"""The span registry: SQLite tables for documents, spans (with their vectors), headings.

``spans.id`` is the FAISS id of the span's vector. A new generation starts as a copy of
the current registry (SQLite backup API) and is updated document by document, so the ids
and vectors of unchanged spans carry over untouched.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np

from oriongraph_cli.models import Document, Span

SCHEMA = """
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
    n_spans INTEGER NOT NULL
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
"""
# headings_span: ``headings.span`` cascades from ``spans``; without an index every deleted
# span scanned the whole headings table, so re-indexing k changed documents cost
# O(k x corpus) (153 ms per changed document at 100k spans; docs/BENCHMARKS.md, "Scale").
# spans_outline: covers the structural generator's scan for spans with subsection headings
# (and IndexReader.span_outline), which otherwise read every row of ``spans`` with its text
# and vector (~2 KB each) to get a few small columns.

DOC_COLUMNS = (
    "id, path, doc_version_id, size_bytes, title, source_type, workstream, stage, status, priority, "
    "doc_key, created_at, created_source, tags, meta, body_start, n_spans"
)
SPAN_COLUMNS = "s.id, s.span_id, s.doc_version_id, s.path, s.ordinal, s.char_start, s.char_end, s.line_start, s.line_end, s.token_cost, s.heading_path, s.heading_level, s.text"


def connect(path: Path, readonly: bool = False) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    else:
        conn = sqlite3.connect(path, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=FULL")
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


class Registry:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    # ------------------------------------------------------------ creation
    @classmethod
    def create(cls, path: Path, copy_from: Path | None = None) -> "Registry":
        """A new registry at ``path``, starting as a byte copy of ``copy_from``. A finished
        generation is never written again (journal_mode=DELETE leaves no -wal beside it),
        so a file copy is a consistent snapshot — and ~10x faster than the backup API."""
        if copy_from is not None and copy_from.exists():
            shutil.copyfile(copy_from, path)
        conn = connect(path)
        conn.executescript(SCHEMA)
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
        self.conn.execute("DELETE FROM documents WHERE path = ?", (path,))

    def vectors_by_hash(self, hashes: Iterable[str]) -> dict[str, bytes]:
        """Cached vectors for embed-text hashes (unchanged text is never re-embedded)."""
        out: dict[str, bytes] = {}
        hashes = list(set(hashes))
        for i in range(0, len(hashes), 500):
            chunk = hashes[i : i + 500]
            q = f"SELECT embed_hash, vector FROM spans WHERE vector IS NOT NULL AND embed_hash IN ({','.join('?' * len(chunk))})"
            for h, v in self.conn.execute(q, chunk):
                out[h] = v
        return out

    def add_document(self, doc: Document, spans: list[Span], embed_hashes: list[str], vectors: list[bytes | None]) -> None:
        meta = doc.meta
        priority = meta.get("priority")
        try:
            priority = int(priority) if priority is not None else None
        except (TypeError, ValueError):
            priority = None
        cur = self.conn.execute(
            f"INSERT INTO documents({DOC_COLUMNS}) VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                doc.path,
                doc.doc_version_id,
                doc.size_bytes,
                doc.title,
                doc.source_type.value,
                doc.workstream,
                doc.stage,
                str(meta["status"]).lower() if meta.get("status") is not None else None,
                priority,
                str(meta["id"]) if meta.get("id") is not None else None,
                doc.created_at,
                doc.created_source,
                json.dumps(list(doc.tags)),
                json.dumps(meta, sort_keys=True),
                doc.body_start,
                len(spans),
            ),
        )
        doc_row = cur.lastrowid
        seen_heads: set[tuple[str, ...]] = set()
        for span, h, vec in zip(spans, embed_hashes, vectors):
            r = span.ref
            cur = self.conn.execute(
                "INSERT INTO spans(span_id, doc, doc_version_id, path, ordinal, char_start, char_end, line_start, line_end, token_cost, heading_path, heading_level, text, embed_hash, vector)"
                " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (r.span_id, doc_row, r.doc_version_id, span.path, span.ordinal, r.char_start, r.char_end, r.line_start, r.line_end, r.token_cost,
                 json.dumps(list(span.heading_path)), span.heading_level, span.text, h, vec),
            )
            for depth in range(1, len(span.heading_path) + 1):
                prefix = span.heading_path[:depth]
                if prefix not in seen_heads:
                    seen_heads.add(prefix)
                    self.conn.execute(
                        "INSERT INTO headings(doc, level, title, heading_path, span) VALUES(?,?,?,?,?)",
                        (doc_row, depth, prefix[-1], " > ".join(prefix), cur.lastrowid),
                    )

    def commit(self) -> None:
        self.conn.commit()

    # ------------------------------------------------------------ reads
    def counts(self) -> dict[str, int]:
        docs = self.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        spans = self.conn.execute("SELECT count(*) FROM spans").fetchone()[0]
        tokens = self.conn.execute("SELECT coalesce(sum(token_cost), 0) FROM spans").fetchone()[0]
        return {"documents": docs, "spans": spans, "tokens": tokens}

    def all_vectors(self, dim: int) -> tuple[np.ndarray, np.ndarray]:
        # filled row by row into one preallocated matrix: a list of blobs joined at the end
        # held every vector three times at once (~450 MB at 100k spans)
        n = self.conn.execute("SELECT count(*) FROM spans WHERE vector IS NOT NULL").fetchone()[0]
        ids = np.empty((n,), dtype="int64")
        mat = np.empty((n, dim), dtype="float32")
        i = 0
        for row_id, blob in self.conn.execute("SELECT id, vector FROM spans WHERE vector IS NOT NULL ORDER BY id"):
            ids[i] = row_id
            mat[i] = np.frombuffer(blob, dtype="float32")
            i += 1
        return ids[:i], mat[:i]

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
        rows = list(rows)
        for i in range(0, len(rows), 900):
            chunk = rows[i : i + 900]
            yield from self.conn.execute(base + f" WHERE s.id IN ({','.join('?' * len(chunk))})", chunk)

    def span_by_id(self, span_id: str) -> sqlite3.Row | None:
        rows = self.conn.execute(
            f"SELECT {SPAN_COLUMNS}, d.title, d.source_type, d.workstream, d.stage, d.status, d.priority, d.doc_key, "
            "d.created_at, d.tags, d.meta, d.body_start FROM spans s JOIN documents d ON d.id = s.doc WHERE s.span_id LIKE ? ORDER BY s.span_id LIMIT 2",
            (span_id + "%",),
        ).fetchall()
        return rows[0] if len(rows) == 1 else (None if not rows else rows)  # type: ignore[return-value]

    def documents(self) -> list[sqlite3.Row]:
        return self.conn.execute(f"SELECT {DOC_COLUMNS} FROM documents ORDER BY path").fetchall()

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
