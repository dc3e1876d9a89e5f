"""Candidates: every generator run over the index (filters checked, relaxed only when valid
filters together match nothing), and their hits gathered into one ``CandidateSpan`` per
span with every channel's raw score."""

from __future__ import annotations

import threading
import time
from dataclasses import MISSING
from operator import attrgetter

import numpy as np

from oriongraph_cli.rank.filters import check_filters, filters_text, relax_steps
from oriongraph_cli.errors import NoCandidatesError, OrionError
from oriongraph_cli.models import (
    CHANNELS,
    CandidateSpan,
    CompileRequest,
    DerivedSignals,
    HardFilters,
    ScoreChannels,
)
from oriongraph_cli.store.reader import IndexReader

FOUND_CHANNELS = tuple(ch for ch in CHANNELS if ch != "semantic")  # scored by the generator of the same name


class IntentEmbedding:
    """The intent embedding, computed once on first request from any thread."""

    def __init__(self, reader: IndexReader, text: str):
        self._reader, self._text, self._lock, self._value = reader, text, threading.Lock(), None

    def __call__(self):
        with self._lock:
            if self._value is None:
                self._value = self._reader.embed_query(self._text)
            return self._value


def run_generators(reader: IndexReader, signals: DerivedSignals, filters: HardFilters, top_k: int, timings: dict[str, float], embed=None):
    """(hits per generator, errors per generator); raises when every generator failed."""
    from oriongraph_cli.rank.generators import run_generators as run

    cache = reader.repeat_cache
    key = ("hits", signals.intent, signals.keywords, repr(filters), top_k)
    if cache is not None and key in cache:
        hits, errors, gen_ms = cache[key]
    else:
        hits, errors, gen_ms = run(reader, signals, filters, top_k, embed=embed)
        if cache is not None and not errors:
            cache[key] = (hits, errors, gen_ms)
    for name, ms in gen_ms.items():
        timings[f"generate.{name}"] = ms
    if errors and len(errors) == len(hits):
        raise OrionError(
            "every candidate generator failed: " + "; ".join(f"{k}: {v}" for k, v in sorted(errors.items())),
            hint="run `orion index --full` to rebuild the index",
        )
    return hits, errors


def generate(request: CompileRequest, reader: IndexReader, signals: DerivedSignals, embed, timings: dict[str, float]):
    """(hits, errors, relaxed filter kinds, the filters that produced the hits)."""
    t = time.perf_counter()
    filters = check_filters(request.hard_filters, reader.lookups.document_dicts() if not request.hard_filters.is_empty() else [])
    hits, errors = run_generators(reader, signals, filters, request.top_k, timings, embed)
    relaxed: tuple[str, ...] = ()
    if not any(hits.values()) and not filters.is_empty():
        if not request.relax:
            raise NoCandidatesError(
                f"no candidates for {request.intent!r} match the filters ({filters_text(filters)})",
                hint="widen or drop a filter, or run without --no-relax to relax them one kind at a time",
            )
        for names, weaker in relax_steps(filters):
            hits, errors = run_generators(reader, signals, weaker, request.top_k, timings, embed)
            if any(hits.values()):
                relaxed, filters = tuple(names.split(", ")), weaker
                break
    timings["generate"] = (time.perf_counter() - t) * 1000
    return hits, errors, relaxed, filters


def build(reader: IndexReader, signals: DerivedSignals, hits: dict, cache: dict | None = None) -> list[CandidateSpan]:
    """One CandidateSpan per row any generator found, with every channel's raw score, in
    span id order.

    ``cache`` (row -> registry row, vector, cosine, preview) is filled as rows are fetched;
    passing the same dict again (after the graph channel adds hits) fetches only new rows."""
    raw: dict[int, dict[str, float]] = {}
    reasons: dict[int, list[str]] = {}
    for name, gen_hits in hits.items():
        for h in gen_hits:
            raw.setdefault(h.row, {})[name] = h.score
            reasons.setdefault(h.row, []).extend(h.reasons)
    rows = sorted(raw)
    if not rows:
        return []
    cache = {} if cache is None else cache
    missing = [row for row in rows if row not in cache]
    if missing:
        meta = reader.rows(missing)
        vecs = reader.vectors.vectors(missing)
        q = signals.intent_embedding
        # row by row (a matrix-vector product rounds a row by where it falls in the batch,
        # and the batch follows registry rows, which differ between an updated and a rebuilt index)
        cos = ((vecs * q).sum(axis=1) if q is not None else np.zeros(len(missing))).tolist()
        previews = reader.memo("candidate-previews", dict)  # row -> preview, for as long as the reader is open
        for i, row in enumerate(missing):
            r = meta.get(row)
            if r is not None:
                preview = previews.get(row)
                if preview is None:
                    preview = previews[row] = " ".join(r.text[:400].split())[:160]
                # every candidate gets its true cosine, not only FAISS hits
                cache[row] = (r, vecs[i], max(0.0, cos[i]), preview)
    out = []
    new, empty, fields, get = object.__new__, _EMPTY, _CANDIDATE_DEFAULTS, cache.get
    for row in rows:
        entry = get(row)
        if entry is None:
            continue
        r, vec, cosine, preview = entry
        ch = raw[row]
        # every candidate has its cosine; the other channels score what their generator found
        scores = new(ScoreChannels)
        scores.__dict__.update(empty, semantic=cosine)
        if len(ch) > 1 or "semantic" not in ch:
            for name in FOUND_CHANNELS:
                if name in ch:
                    scores.__dict__[name] = ch[name]
        # CandidateSpan(...) without re-running the frozen dataclass's __init__ (no __post_init__)
        cand = new(CandidateSpan)
        cand.__dict__.update(fields, span_ref=r.ref, metadata=r.meta, raw_scores=scores, scores=_NO_SCORES,
                             text_preview=preview, reasons=_unique(reasons[row]), components={}, row=row,
                             embedding=vec)
        out.append(cand)
    out.sort(key=_BY_SPAN_ID)  # in span id order, not registry order (rows differ between an updated and a rebuilt index)
    return out


_BY_SPAN_ID = attrgetter("span_ref.span_id")


def _unique(reasons: list[str]) -> tuple[str, ...]:
    return tuple(reasons) if len(reasons) < 2 else tuple(dict.fromkeys(reasons))


_EMPTY = {name: 0.0 for name in ScoreChannels.__dataclass_fields__}
_NO_SCORES = ScoreChannels()
_CANDIDATE_DEFAULTS = {name: f.default for name, f in CandidateSpan.__dataclass_fields__.items() if f.default is not MISSING}


def no_candidates(request: CompileRequest, reader: IndexReader) -> NoCandidatesError:
    hints = []
    if not request.hard_filters.is_empty():
        hints.append("loosen the filters (--path/--stage/--workstream/--tag/--since/--where)")
    hints.append("rephrase the intent with words your documents use, or add --keyword")
    if reader.manifest.counts.spans == 0:
        hints.insert(0, "the index is empty: add Markdown notes to 01_context/, 02_knowledge/, 03_workstreams/ or 04_artifacts/ and run `orion index`")
    return NoCandidatesError(f"no candidates for {request.intent!r}", hint="; ".join(hints))
