"""Usage memory (seed 002): an episodic log of compiles and the ``dynamic_score``.

The log is ``.oriongraph/usage.jsonl``, outside the index generations (re-indexing never
loses it), one JSON object per line::

    {"v": 1, "kind": "compile" | "brief", "episode_id": "…", "task_id": "…" | null,
     "intent": "…", "time": 1762000000, "span_ids": ["3f2a…", …], "paths": ["02_knowledge/…", …]}

It never holds document text: only span ids (validated to look like ids) and paths, plus
the user's own intent. Writers append with ``O_APPEND``, one ``write`` per record under an
exclusive ``flock``, then ``fsync``; a writer that finds the file not ending in a newline
(an earlier writer was killed mid-line) starts its record on a new line, and readers skip
lines that do not parse, so a torn last line costs that one record only.

Per document, ``usage_count`` is the number of distinct episodes whose compile selected, or
whose TASK_BRIEF.md used, one of its spans; ``last_accessed_at`` is the latest such time.
:func:`dynamic_score` is seed 002 section 1.2, verbatim.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from oriongraph_cli.compile.score import sort_key
from oriongraph_cli.models import CandidateSpan

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: O_APPEND alone
    fcntl = None  # type: ignore[assignment]

USAGE_FILE = "usage.jsonl"
LOG_VERSION = 1
SECONDS_PER_DAY = 86_400
DEFAULT_DYNAMIC_WEIGHTS: dict[str, float] = {"usage": 0.30, "recency": 0.30, "priority": 0.25, "decay": 0.15}
NOVELTY_THRESHOLD = 5
NOVELTY_MAX = 0.5
DYNAMIC_MAX = 1.5  # dynamic_score is clamped to [0, 1.5]
DEFAULT_PRIORITY = 5
EPISODE_BOOST = 0.1
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


# --------------------------------------------------------------------------- writing


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
    """Record that the spans of a TASK_BRIEF.md were used (seed 002 1.3). Give the compile's
    ``episode_id`` so the same episode is not counted twice."""
    return record_compile(index_dir, intent=intent, span_ids=span_ids, paths=paths, task_id=task_id, episode_id=episode_id, now=now, kind="brief")


# --------------------------------------------------------------------------- reading


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
        except (ValueError, UnicodeDecodeError):
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


# --------------------------------------------------------------------------- dynamic score (seed 002 §1.2)


def dynamic_score(
    usage_count: int,
    last_accessed_at: int | None,
    created_at: int | None,
    priority: int | float | None,
    now: int,
    weights: Mapping[str, float] = DEFAULT_DYNAMIC_WEIGHTS,
    novelty_threshold: int = NOVELTY_THRESHOLD,
    novelty_max: float = NOVELTY_MAX,
) -> tuple[float, dict[str, float]]:
    """Seed 002 section 1.2::

        usage_score   = min(1, log(1+U) / log(6))
        recency_score = exp(-ln2 · max(0, days(now - T_access)) / 7)   T_access = last access, else created
        priority      = clamp(P, 1, 10) / 10                          P = front matter priority, default 5
        age_penalty   = 1 - exp(-ln2 · max(0, days(now - T_create)) / 30)
        novelty       = 1 + novelty_max · (1 - U/threshold) if U < threshold else 1
        base          = w_usage·usage + w_recency·recency + w_priority·priority - w_decay·age_penalty
        dynamic_score = clamp(base · novelty, 0, 1.5)

    An unknown creation time (None or <= 0) gives no age penalty; with no access time either,
    recency is 0. Returns (score, components) with the components of seed 002's explain
    example: usage, recency, priority, age_penalty, novelty_boost (= novelty - 1).
    """
    u = max(0, int(usage_count))
    created = created_at if created_at is not None and created_at > 0 else None
    t_access = last_accessed_at if last_accessed_at is not None else created
    usage_score = min(1.0, math.log(1 + u) / math.log(6))
    if t_access is None:
        recency_score = 0.0
    else:
        recency_days = max(0.0, (now - t_access) / SECONDS_PER_DAY)
        recency_score = math.exp(-math.log(2) * recency_days / 7)
    p = DEFAULT_PRIORITY if priority is None else priority
    priority_score = min(10.0, max(1.0, float(p))) / 10.0
    if created is None:
        age_penalty = 0.0
    else:
        age_days = max(0.0, (now - created) / SECONDS_PER_DAY)
        age_penalty = 1.0 - math.exp(-math.log(2) * age_days / 30)
    if novelty_threshold > 0 and u < novelty_threshold:
        novelty = 1.0 + novelty_max * (1.0 - u / novelty_threshold)
    else:
        novelty = 1.0
    base = (
        weights.get("usage", 0.0) * usage_score
        + weights.get("recency", 0.0) * recency_score
        + weights.get("priority", 0.0) * priority_score
        - weights.get("decay", 0.0) * age_penalty
    )
    score = min(DYNAMIC_MAX, max(0.0, base * novelty))
    return score, {
        "usage": usage_score,
        "recency": recency_score,
        "priority": priority_score,
        "age_penalty": age_penalty,
        "novelty_boost": novelty - 1.0,
    }


def parse_dynamic_weights(spec: str | Mapping[str, float] | None) -> dict[str, float]:
    """``"usage=0.3,recency=0.3,priority=0.25,decay=0.15"`` (or a mapping) over the defaults."""
    out = dict(DEFAULT_DYNAMIC_WEIGHTS)
    if not spec:
        return out
    items = spec.items() if isinstance(spec, Mapping) else (p.split("=", 1) for p in str(spec).split(",") if p.strip())
    for key, value in items:
        k = str(key).strip().lower()
        if k not in out:
            raise ValueError(f"unknown dynamic-score weight {key!r} (known: {', '.join(out)})")
        out[k] = float(value)
    return out


def with_usage(
    cands: Sequence[CandidateSpan],
    stats: Mapping[str, UsageStats],
    now: int,
    *,
    weights: Mapping[str, float] = DEFAULT_DYNAMIC_WEIGHTS,
    novelty_threshold: int = NOVELTY_THRESHOLD,
    novelty_max: float = NOVELTY_MAX,
) -> tuple[list[CandidateSpan], dict[int, dict[str, float]]]:
    """Set ``usage_score = dynamic_score / 1.5`` (in [0, 1]) on each candidate from its
    document's stats, metadata ``priority`` and ``created_at``. Returns the candidates (same
    order) and, per row, the components plus ``dynamic_score`` for ``--explain``."""
    from oriongraph_cli.compile.score import _evolve

    out: list[CandidateSpan] = []
    comps: dict[int, dict[str, float]] = {}
    cache: dict[str, tuple[float, dict[str, float]]] = {}
    for c in cands:
        m = c.metadata
        if m.filepath not in cache:
            st = stats.get(m.filepath, UsageStats())
            cache[m.filepath] = dynamic_score(st.usage_count, st.last_accessed_at, m.created_at, m.priority, now, weights, novelty_threshold, novelty_max)
        score, parts = cache[m.filepath]
        comps[c.row] = {**parts, "dynamic_score": score}
        out.append(_evolve(c, usage_score=score / DYNAMIC_MAX))  # replace() re-runs __init__: ~10 ms per compile
    return out, comps


def episode_boost(
    cands: Sequence[CandidateSpan],
    span_ids: Iterable[str],
    episode_id: str,
    *,
    paths: Iterable[str] = (),
    boost: float = EPISODE_BOOST,
) -> list[CandidateSpan]:
    """``--episode ID`` (spec QuerySignal EpisodeContext): spans used in that episode get
    ``base + boost``; other spans of the documents it used get ``base + boost/2`` (span ids
    change when a document changes). Returns candidates sorted by (base desc, span_id)."""
    ids = set(span_ids)
    docs = set(paths)
    out: list[CandidateSpan] = []
    for c in cands:
        if c.span_ref.span_id in ids:
            out.append(replace(c, base_score=c.base_score + boost, reasons=c.reasons + (f"used in episode {episode_id} (+{boost:.2f})",)))
        elif c.metadata.filepath in docs:
            out.append(replace(c, base_score=c.base_score + boost / 2, reasons=c.reasons + (f"document used in episode {episode_id} (+{boost / 2:.2f})",)))
        else:
            out.append(c)
    out.sort(key=sort_key)
    return out


# --------------------------------------------------------------------------- report


def usage_report(
    index_dir: Path | str,
    documents: Iterable[str | Mapping[str, Any]],
    *,
    top: int = 10,
    now: int | None = None,
    weights: Mapping[str, float] = DEFAULT_DYNAMIC_WEIGHTS,
) -> dict[str, Any]:
    """``orion usage``: most and least used indexed documents (with their dynamic score and
    its components) and the never-used ones. ``documents`` are paths or dicts with
    ``path`` and optionally ``created_at`` and ``priority`` (``IndexReader.documents``)."""
    records, bad = read_log(index_dir)
    stats = load_usage(index_dir, records=records)
    now = int(time.time()) if now is None else int(now)
    docs: dict[str, Mapping[str, Any]] = {}
    for d in documents:
        info = {"path": d} if isinstance(d, str) else d
        docs[str(info["path"])] = info

    def entry(path: str) -> dict[str, Any]:
        st = stats.get(path, UsageStats())
        info = docs[path]
        score, parts = dynamic_score(st.usage_count, st.last_accessed_at, info.get("created_at"), info.get("priority"), now, weights)
        return {"path": path, **st.to_dict(), "dynamic_score": round(score, 6), "components": {k: round(v, 6) for k, v in parts.items()}}

    used = sorted((p for p in docs if p in stats), key=lambda p: (-stats[p].usage_count, -(stats[p].last_accessed_at or 0), p))
    least = sorted(used, key=lambda p: (stats[p].usage_count, stats[p].last_accessed_at or 0, p))
    never = sorted(p for p in docs if p not in stats)
    return {
        "schema_version": 1,
        "kind": "usage",
        "log": str(usage_path(index_dir)),
        "episodes": len({r["episode_id"] for r in records}),
        "records": len(records),
        "unreadable_lines": bad,
        "documents": len(docs),
        "used_documents": len(used),
        "not_indexed_paths": sorted(p for p in stats if p not in docs),
        "most_used": [entry(p) for p in used[:top]],
        "least_used": [entry(p) for p in least[:top]],
        "never_used": never,
    }


__all__ = [
    "USAGE_FILE", "DEFAULT_DYNAMIC_WEIGHTS", "UsageStats", "usage_path", "record_compile", "mark_brief_used",
    "read_log", "load_usage", "episode_rows", "episode_paths", "dynamic_score", "parse_dynamic_weights",
    "with_usage", "episode_boost", "usage_report",
]


# --------------------------------------------------------------------------- snapshot (determinism)

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
    except (OSError, UnsafeFile, ValueError, KeyError, TypeError, AttributeError, OverflowError):
        return None, {}


# --------------------------------------------------------------------------- compile stages


def apply_dynamic_scores(cands: list[CandidateSpan], index_dir: Path | str, now: int, weights_spec: str) -> list[CandidateSpan]:
    """Each candidate's usage score (from the snapshot taken by the last ``orion index``),
    with its components kept for ``--explain``."""
    from oriongraph_cli.compile.score import _evolve

    cutoff, stats = read_snapshot(index_dir)
    cands, comps = with_usage(cands, stats, now=cutoff or now, weights=parse_dynamic_weights(weights_spec))
    return [_evolve(c, components={k: round(v, 6) for k, v in comps.get(c.row, {}).items()}) for c in cands]


def apply_episode(scored: list[CandidateSpan], index_dir: Path | str, episode_id: str, boost: float) -> list[CandidateSpan]:
    """``--episode ID``: what that earlier compile used is boosted."""
    return episode_boost(
        scored, episode_rows(index_dir, episode_id), episode_id, paths=episode_paths(index_dir, episode_id), boost=boost,
    )


def record(cfg, request, items) -> str | None:
    """Append the compile to the episodic log (ids and paths only, never text); the
    episode id, or None when logging is off or the log cannot be written."""
    if not (cfg.usage_log and request.record_usage) or not items:
        return None
    try:
        return record_compile(
            cfg.index_dir, intent=request.intent, task_id=request.task_id,
            span_ids=[i.span_ref.span_id for i in items], paths=[i.path for i in items],
        )
    except OSError:
        return None  # a read-only checkout still compiles
