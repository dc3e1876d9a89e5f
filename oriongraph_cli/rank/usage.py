"""Usage memory: an episodic log of compiles and the ``dynamic_score``.

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
:func:`dynamic_score` follows the usage-memory design (usage, recency, priority, decay, novelty).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from oriongraph_cli.rank.score import sort_key
from oriongraph_cli.models import CandidateSpan
from oriongraph_cli.store.usage_log import (
    UsageStats,
    episode_paths,
    episode_rows,
    load_usage,
    read_log,
    read_snapshot,
    record_compile,
    usage_path,
)

SECONDS_PER_DAY = 86_400


DEFAULT_DYNAMIC_WEIGHTS: dict[str, float] = {"usage": 0.30, "recency": 0.30, "priority": 0.25, "decay": 0.15}


NOVELTY_THRESHOLD = 5


NOVELTY_MAX = 0.5


DYNAMIC_MAX = 1.5  # dynamic_score is clamped to [0, 1.5]


DEFAULT_PRIORITY = 5


EPISODE_BOOST = 0.1


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
    """The usage score::

        usage_score   = min(1, log(1+U) / log(6))
        recency_score = exp(-ln2 · max(0, days(now - T_access)) / 7)   T_access = last access, else created
        priority      = clamp(P, 1, 10) / 10                          P = front matter priority, default 5
        age_penalty   = 1 - exp(-ln2 · max(0, days(now - T_create)) / 30)
        novelty       = 1 + novelty_max · (1 - U/threshold) if U < threshold else 1
        base          = w_usage·usage + w_recency·recency + w_priority·priority - w_decay·age_penalty
        dynamic_score = clamp(base · novelty, 0, 1.5)

    An unknown creation time (None or <= 0) gives no age penalty; with no access time either,
    recency is 0. Returns (score, components) with the components shown by ``--explain``
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
    from oriongraph_cli.normalise import _evolve

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
    """``--episode ID``: spans used in that episode get
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


__all__ = [ "DEFAULT_DYNAMIC_WEIGHTS", "UsageStats", "usage_path", "record_compile",
    "read_log", "load_usage", "dynamic_scores", "episode_rows", "episode_paths", "dynamic_score", "parse_dynamic_weights",
    "with_usage", "episode_boost", "usage_report",
]


def apply_dynamic_scores(cands: list[CandidateSpan], index_dir: Path | str, now: int, weights_spec: str) -> list[CandidateSpan]:
    """Each candidate's usage score (from the snapshot taken by the last ``orion index``),
    with its components kept for ``--explain``: copies of ``cands``."""
    from oriongraph_cli.normalise import _evolve

    scores, parts = dynamic_scores(cands, index_dir, now, weights_spec)
    return [_evolve(c, usage_score=s, components=p) for c, s, p in zip(cands, scores, parts)]


def dynamic_scores(cands: list[CandidateSpan], index_dir: Path | str, now: int,
                   weights_spec: str) -> tuple[list[float], list[dict[str, float]]]:
    """(usage scores, their components) of ``cands``, in their order: what
    :func:`apply_dynamic_scores` sets, as columns for scoring to set in its one copy. The
    components are read-only: shared by a document's spans."""
    cutoff, stats = read_snapshot(index_dir)
    now = cutoff or now
    weights = tuple(parse_dynamic_weights(weights_spec).items())
    metas = [c.metadata for c in cands]
    by_path: dict[str, tuple[float, dict[str, float]]] = {}  # what with_usage computes, once per document
    for m in metas:
        if m.filepath not in by_path:
            st = stats.get(m.filepath, _NEVER_USED)
            by_path[m.filepath] = _usage_score(st.usage_count, st.last_accessed_at, m.created_at, m.priority, now, weights)
    done = [by_path[m.filepath] for m in metas]
    return [d[0] for d in done], [d[1] for d in done]


_NEVER_USED = UsageStats()


@functools.lru_cache(maxsize=4096)
def _usage_score(usage_count, last_accessed_at, created_at, priority, now, weights) -> tuple[float, dict[str, float]]:
    """(usage score, its components rounded for ``--explain``) of a document: the same
    for every document with the same inputs (most share their creation time and have no
    usage yet), so worked out once per process. The components are read-only."""
    score, parts = dynamic_score(usage_count, last_accessed_at, created_at, priority, now, dict(weights))
    return score / DYNAMIC_MAX, {k: round(v, 6) for k, v in {**parts, "dynamic_score": score}.items()}


def apply_episode(scored: list[CandidateSpan], index_dir: Path | str, episode_id: str, boost: float) -> list[CandidateSpan]:
    """``--episode ID``: what that earlier compile used is boosted."""
    return episode_boost(
        scored, episode_rows(index_dir, episode_id), episode_id, paths=episode_paths(index_dir, episode_id), boost=boost,
    )


def planned_episode(cfg, request) -> str | None:
    """The id the usage log will give this compile (the task id, else a random one), or
    None when the compile will not be logged."""
    if not (cfg.usage_log and request.record_usage):
        return None
    import uuid

    return str(request.task_id) if request.task_id else uuid.uuid4().hex


def record(cfg, request, items, episode: str | None = None) -> str | None:
    """Append the compile to the episodic log (ids and paths only, never text) under
    ``episode`` (:func:`planned_episode`); the episode id, or None when logging is off or
    the log cannot be written."""
    if not (cfg.usage_log and request.record_usage) or not items:
        return None
    try:
        return record_compile(
            cfg.index_dir, intent=request.intent, task_id=request.task_id, episode_id=episode,
            span_ids=[i.span_ref.span_id for i in items], paths=[i.path for i in items],
        )
    except OSError:
        return None  # a read-only checkout still compiles


def usage_of(cfg, top: int) -> dict[str, Any]:
    """`orion usage`: most, least and never used documents with their usage scores."""
    from oriongraph_cli.store.reader import IndexReader

    reader = IndexReader(cfg, load_embedder=False)
    try:
        return usage_report(cfg.index_dir, reader.documents, top=top)
    finally:
        reader.close()
