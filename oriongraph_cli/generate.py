"""Candidate generators (spec section 4): one protocol, a name -> class registry.

Each generator returns ``GenHit``s — a registry row, a raw score in its own channel and
the reasons it matched. ``run_generators`` runs them concurrently; a failing generator
is recorded and skipped unless every generator fails.
"""

from __future__ import annotations

import fnmatch
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Protocol

from oriongraph_cli.models import DerivedSignals, HardFilters
from oriongraph_cli.store.reader import IndexReader, SpanRow


@dataclass(frozen=True)
class GenHit:
    row: int
    score: float
    reasons: tuple[str, ...] = ()


class CandidateGenerator(Protocol):
    name: str
    channel: str  # the ScoreChannels field it fills
    needs_embedding: bool  # run only once the intent embedding is ready

    def generate(self, reader: IndexReader, signals: DerivedSignals, filters: HardFilters, top_k: int) -> list[GenHit]: ...


# ---------------------------------------------------------------- filters


def allowed(row: SpanRow, f: HardFilters) -> bool:
    m = row.meta
    if f.paths and not any(fnmatch.fnmatch(m.filepath, p) or m.filepath.startswith(p.rstrip("/") + "/") for p in f.paths):
        return False
    if f.stages and (m.stage or "") not in f.stages and not ("final" in f.stages and _accepted_decision(row)):
        return False
    if f.workstreams and (m.workstream or "") not in f.workstreams:
        return False
    if f.source_types and m.source_type.value.lower() not in {s.lower() for s in f.source_types}:
        return False
    if f.tags and not set(t.lower() for t in f.tags) <= set(m.tags):
        return False
    if f.since is not None and m.created_at < f.since:
        return False
    for key, value in f.where:
        have = row.front_matter.get(key)
        values = [str(v).lower() for v in have] if isinstance(have, list) else [str(have).lower()] if have is not None else []
        if value.lower() not in values:
            return False
    return True


def _accepted_decision(row: SpanRow) -> bool:
    """An accepted ADR is a final decision whatever its `stage` says (`--stage final`)."""
    from oriongraph_cli.lifecycle import is_decision

    m = row.meta
    return (m.status or "").lower() == "accepted" and is_decision(m.filepath, m.doc_id, m.tags)


def filter_hits(reader: IndexReader, hits: list[GenHit], f: HardFilters) -> list[GenHit]:
    if f.is_empty():
        return hits
    rows = reader.rows([h.row for h in hits])
    return [h for h in hits if h.row in rows and allowed(rows[h.row], f)]


# ---------------------------------------------------------------- generators


class SemanticGen:
    """FAISS inner product between the intent embedding and span embeddings (cosine)."""

    name = "semantic"
    channel = "semantic"
    needs_embedding = True

    def generate(self, reader, signals, filters, top_k):
        q = signals.intent_embedding
        if q is None:
            raise RuntimeError("no intent embedding")
        k = top_k if filters.is_empty() else top_k * 8
        hits = [GenHit(row, score) for row, score in reader.vectors.search(q, k)]
        return filter_hits(reader, hits, filters)[:top_k]


class LexicalGen:
    """Whoosh BM25F over title, headings, body, tags and path words."""

    name = "lexical"
    channel = "lexical"
    needs_embedding = False

    def generate(self, reader, signals, filters, top_k):
        k = top_k if filters.is_empty() else top_k * 8
        found = reader.lexical.search(list(signals.keywords), k)
        hits = []
        for row, score, matched in found:
            words = ", ".join(f"'{t}'" for t in matched[:4])
            hits.append(GenHit(row, score, (f"lexical match on {words}",) if words else ()))
        return filter_hits(reader, hits, filters)[:top_k]


_STEM_RE = re.compile(r"[a-z0-9]+")


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in _STEM_RE.findall(text.lower()) if len(w) > 1}


class StructuralGen:
    """Structure of the project matched against the signals: document ids named in the intent
    (ADR-0007), titles and section headings sharing the intent's keywords, tags, and the
    stage / workstream / source-type hints the intent carries."""

    name = "structural"
    channel = "structural"
    needs_embedding = False

    def generate(self, reader, signals, filters, top_k):
        kw = {_stem(k) for k in signals.keywords if " " not in k and not k[:1].isupper()}
        if not kw and signals.struct_hints == type(signals.struct_hints)():
            return []
        hints = signals.struct_hints
        doc_ids = {d.lower() for d in hints.doc_ids}
        doc_score: dict[int, tuple[float, list[str]]] = {}
        for d in reader.documents:
            score, why = 0.0, []
            key = (d["doc_key"] or "").lower()
            if key and (key in doc_ids or any(key == i.split("-", 2)[0] + "-" + i.split("-", 2)[1] for i in doc_ids if i.count("-") >= 1)):
                score += 3.0
                why.append(f"document id {d['doc_key']} named in the intent")
            title_overlap = _words(d["title"]) & kw
            if title_overlap and kw:
                score += 2.0 * len(title_overlap) / len(kw)
                why.append("title matches " + ", ".join(f"'{w}'" for w in sorted(title_overlap)[:3]))
            tag_hits = (set(d["tags"]) & set(hints.tags)) | {t for t in d["tags"] if _stem(t) in kw}
            if tag_hits:
                score += 0.5 * min(2, len(tag_hits))
                why.append("tag " + ", ".join(sorted(tag_hits)[:3]))
            if hints.stages and d["stage"] in hints.stages:
                score += 0.5
                why.append(f"stage {d['stage']} named in the intent")
            if hints.workstreams and d["workstream"] in hints.workstreams:
                score += 0.5
                why.append(f"workstream {d['workstream']} named in the intent")
            if hints.source_types and d["source_type"] in hints.source_types:
                score += 0.25
            if score > 0:
                doc_score[d["id"]] = (score, why)
        hits: list[GenHit] = []
        for row, doc, ordinal, heading_path in reader.span_outline:
            base, why = doc_score.get(doc, (0.0, []))
            head = _words(" ".join(heading_path[1:])) & kw if len(heading_path) > 1 else set()
            s = base * (1.0 if ordinal == 0 else 0.6)
            reasons = list(why)
            if head and kw:
                s += 1.5 * len(head) / len(kw)
                reasons.append("section heading matches " + ", ".join(f"'{w}'" for w in sorted(head)[:3]))
            if s > 0:
                hits.append(GenHit(row, s, tuple(reasons)))
        hits.sort(key=lambda h: (-h.score, h.row))
        k = top_k if filters.is_empty() else top_k * 8
        return filter_hits(reader, hits[:k], filters)[:top_k]


GENERATORS: dict[str, Callable[[], CandidateGenerator]] = {
    "structural": StructuralGen,
    "lexical": LexicalGen,
    "semantic": SemanticGen,
}


def register(name: str, factory: Callable[[], CandidateGenerator]) -> None:
    GENERATORS[name] = factory


def run_generators(
    reader: IndexReader,
    signals: DerivedSignals,
    filters: HardFilters,
    top_k: int,
    names: list[str] | None = None,
    embed: Callable[[], object] | None = None,
) -> tuple[dict[str, list[GenHit]], dict[str, str], dict[str, float]]:
    """Run generators concurrently. Returns (hits per generator, errors, ms per generator).

    Generators that need the intent embedding wait for ``embed()`` (the model may still be
    loading); the others start at once, so lexical and structural search overlap the
    model load of a fresh process."""
    import time
    from dataclasses import replace

    names = names or [n for n in GENERATORS if n != "graph"]
    gens = {n: GENERATORS[n]() for n in names}
    results: dict[str, list[GenHit]] = {}
    errors: dict[str, str] = {}
    timings: dict[str, float] = {}

    def run(name: str):
        t = time.perf_counter()
        try:
            sig = signals
            if getattr(gens[name], "needs_embedding", False) and sig.intent_embedding is None and embed is not None:
                sig = replace(signals, intent_embedding=embed())
            return name, gens[name].generate(reader, sig, filters, top_k), None, time.perf_counter() - t
        except Exception as exc:  # one failing generator must not abort the compile
            return name, [], f"{type(exc).__name__}: {exc}", time.perf_counter() - t

    with ThreadPoolExecutor(max_workers=len(gens)) as pool:
        for name, hits, err, dt in pool.map(run, sorted(gens)):
            results[name] = hits
            timings[name] = dt * 1000
            if err:
                errors[name] = err
    return results, errors, timings
