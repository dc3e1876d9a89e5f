"""The usage log (`.oriongraph/usage.jsonl`) and its snapshot: which spans and documents
every compile used (ids and paths, never text), appended under a lock, read tolerantly,
and frozen by each `orion index` so compiles stay deterministic between index runs."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: O_APPEND alone
    fcntl = None  # type: ignore[assignment]


USAGE_FILE = "usage.jsonl"


LOG_VERSION = 1


MAX_INTENT_CHARS = 2000


_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")


@dataclass(frozen=True)
class UsageStats:
    usage_count: int = 0
    last_accessed_at: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"usage_count": self.usage_count, "last_accessed_at": self.last_accessed_at}


MAX_LOG_BYTES = 512 * 1024 * 1024  # a log this large is not read (orion writes ~200 bytes a compile)


def usage_path(index_dir: Path | str) -> Path:
    return Path(index_dir) / USAGE_FILE


def _append(path: Path, record: Mapping[str, Any]) -> None:
    data = (json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    # never through a link, never into a FIFO or device: the log is ours, a regular file
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0), 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data  # a torn last line stays a line of its own
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    finally:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
        os.close(fd)


def _check_ids(span_ids: Iterable[str], paths: Iterable[str]) -> tuple[list[str], list[str]]:
    ids = list(dict.fromkeys(str(s) for s in span_ids))
    bad = [s for s in ids if not _ID_RE.match(s)]
    if bad:
        raise ValueError(f"not a span id (the usage log never stores text): {bad[0][:40]!r}")
    plist = list(dict.fromkeys(str(p) for p in paths))
    for p in plist:
        if "\n" in p or "\r" in p or len(p) > 4096:
            raise ValueError(f"not a document path: {p[:40]!r}")
    return ids, plist


def record_compile(
    index_dir: Path | str,
    *,
    intent: str,
    span_ids: Iterable[str],
    paths: Iterable[str],
    task_id: str | None = None,
    episode_id: str | None = None,
    now: int | None = None,
    kind: str = "compile",
) -> str:
    """Append one episode record; returns its episode id (``episode_id``, else ``task_id``,
    else a new uuid4 hex). ``span_ids`` are the selected spans, ``paths`` their documents."""
    if kind not in ("compile", "brief"):
        raise ValueError(f"kind must be 'compile' or 'brief', got {kind!r}")
    ids, plist = _check_ids(span_ids, paths)
    episode = episode_id or task_id or uuid.uuid4().hex
    record = {
        "v": LOG_VERSION,
        "kind": kind,
        "episode_id": str(episode),
        "task_id": task_id,
        "intent": (intent or "")[:MAX_INTENT_CHARS],
        "time": int(time.time() if now is None else now),
        "span_ids": ids,
        "paths": plist,
    }
    _append(usage_path(index_dir), record)
    return str(episode)


def mark_brief_used(
    index_dir: Path | str,
    span_ids: Iterable[str],
    paths: Iterable[str],
    *,
    episode_id: str | None = None,
    task_id: str | None = None,
    intent: str = "",
    now: int | None = None,
) -> str:
    """Record that the spans of a TASK_BRIEF.md were used. Give the compile's
    ``episode_id`` so the same episode is not counted twice."""
    return record_compile(index_dir, intent=intent, span_ids=span_ids, paths=paths, task_id=task_id, episode_id=episode_id, now=now, kind="brief")


def read_log(index_dir: Path | str) -> tuple[list[dict[str, Any]], int]:
    """(valid records in file order, number of lines skipped as unreadable)."""
    from oriongraph_cli.safeio import UnsafeFile, read_regular

    path = usage_path(index_dir)
    try:
        data = read_regular(path, MAX_LOG_BYTES)
    except FileNotFoundError:
        return [], 0
    except UnsafeFile:
        return [], 1
    records: list[dict[str, Any]] = []
    bad = 0
    for line in data.split(b"\n"):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            bad += 1
            continue
        if (
            not isinstance(rec, dict)
            or not isinstance(rec.get("episode_id"), str)
            or not isinstance(rec.get("time"), int)
            or not isinstance(rec.get("span_ids"), list)
            or not isinstance(rec.get("paths"), list)
        ):
            bad += 1
            continue
        records.append(rec)
    return records, bad


def load_usage(index_dir: Path | str, *, records: Sequence[dict[str, Any]] | None = None) -> dict[str, UsageStats]:
    """Per document path: distinct episodes that used it and the latest time."""
    if records is None:
        records, _bad = read_log(index_dir)
    episodes: dict[str, set[str]] = {}
    last: dict[str, int] = {}
    for rec in records:
        for p in set(rec["paths"]):
            if not isinstance(p, str):
                continue
            episodes.setdefault(p, set()).add(rec["episode_id"])
            last[p] = max(last.get(p, rec["time"]), rec["time"])
    return {p: UsageStats(len(eps), last.get(p)) for p, eps in sorted(episodes.items())}


def episode_rows(index_dir: Path | str, episode_id: str) -> set[str]:
    """Span ids used in an episode (``--episode ID``; empty if unknown)."""
    records, _bad = read_log(index_dir)
    return {s for rec in records if rec["episode_id"] == episode_id for s in rec["span_ids"] if isinstance(s, str)}


def episode_paths(index_dir: Path | str, episode_id: str) -> set[str]:
    records, _bad = read_log(index_dir)
    return {p for rec in records if rec["episode_id"] == episode_id for p in rec["paths"] if isinstance(p, str)}


SNAPSHOT_FILE = "usage.snapshot.json"


def write_snapshot(index_dir: Path | str, now: int | None = None) -> dict[str, Any]:
    """Freeze the usage log into ``usage.snapshot.json`` (called by every ``orion index``).

    Compiles read the snapshot, not the live log, and measure recency against its cutoff:
    the same index and snapshot give the same ranking however many compiles ran since, so
    ``--json`` stays byte-identical; usage learned since then counts after the next index
    (the pre-commit hook runs one on every commit)."""
    from oriongraph_cli.store.layout import atomic_write

    records, _bad = read_log(index_dir)
    cutoff = int(time.time() if now is None else now)
    stats = load_usage(index_dir, records=[r for r in records if r["time"] <= cutoff])
    snap = {"cutoff": cutoff, "documents": {p: s.to_dict() for p, s in stats.items()}}
    atomic_write(Path(index_dir) / SNAPSHOT_FILE, json.dumps(snap, sort_keys=True).encode())
    return snap


def read_snapshot(index_dir: Path | str) -> tuple[int | None, dict[str, UsageStats]]:
    """(cutoff, stats per path) of the last snapshot; (None, {}) when there is none."""
    from oriongraph_cli.safeio import UnsafeFile, read_regular

    try:
        snap = json.loads(read_regular(Path(index_dir) / SNAPSHOT_FILE, MAX_LOG_BYTES))
        docs = {p: UsageStats(int(d["usage_count"]), d.get("last_accessed_at")) for p, d in snap["documents"].items()}
        return int(snap["cutoff"]), docs
    except (OSError, UnsafeFile, ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError):
        return None, {}
