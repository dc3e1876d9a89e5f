"""SQLite plumbing the store's modules share: opening a database, running DDL inside the
caller's transaction, and the one helper for ``IN (…)`` queries over long lists."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable, Iterator

# SQLite builds before 3.32 allow at most 999 host parameters per statement
MAX_VARIABLES = 900


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


def run_ddl(conn: sqlite3.Connection, script: str) -> None:
    """DDL statement by statement (``executescript`` would COMMIT the caller's transaction)."""
    for stmt in script.split(";"):
        if stmt.strip():
            conn.execute(stmt)


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None


def in_chunks(conn: sqlite3.Connection, sql: str, values: Iterable[Any], *, repeat: int = 1) -> Iterator[sqlite3.Row]:
    """Rows of ``sql`` over every value of ``values``, one statement per chunk small enough
    for SQLite's parameter limit. Each ``{marks}`` in ``sql`` becomes the chunk's
    placeholder list; ``repeat`` says how many ``{marks}`` there are (each is bound to the
    same chunk). Rows come chunk by chunk, in the order the statement gives them."""
    values = list(values)
    size = max(1, MAX_VARIABLES // max(repeat, 1))
    for i in range(0, len(values), size):
        chunk = values[i : i + size]
        yield from conn.execute(sql.format(marks=",".join("?" * len(chunk))), chunk * repeat)
