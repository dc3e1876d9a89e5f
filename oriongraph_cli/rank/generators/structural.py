"""The structural channel: the project's outline (document ids, titles, section headings,
tags, stages, workstreams, source types) matched against the intent's signals."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from oriongraph_cli.models import GenHit
from oriongraph_cli.rank.generators.base import FromIntent, GenContext, filter_hits
from oriongraph_cli.rank.signals import id_forms


_STEM_RE = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in _STEM_RE.findall(text.lower()) if len(w) > 1}


@dataclass
class _Outline:
    """Inverted indexes over titles, tags and section headings, built once per reader.

    Built from the documents table and only the spans whose heading path goes below the
    title (``json_array_length > 1``, filtered inside SQLite); which spans a matched
    document has is asked per query (:meth:`spans_of`). Reading every span's outline here
    cost ~80 ms of a fresh compile at 13k spans and ~0.5 s at 100k."""

    docs: dict[int, dict]  # document id -> registry row
    by_key: dict[str, list[int]]  # lower-case front matter id -> documents
    title_words: dict[str, list[int]]  # stemmed title word -> documents
    tag_docs: dict[str, list[int]]  # tag -> documents
    heading_words: dict[str, list[int]]  # stemmed word of a section heading (below the title) -> rows

    @classmethod
    def build(cls, reader) -> "_Outline":
        docs = {d["id"]: d for d in reader.documents}
        by_key: dict[str, list[int]] = {}
        title_words: dict[str, list[int]] = {}
        tag_docs: dict[str, list[int]] = {}
        for i, d in docs.items():
            if d["doc_key"]:
                by_key.setdefault(d["doc_key"].lower(), []).append(i)
            for w in _words(d["title"]):
                title_words.setdefault(w, []).append(i)
            for t in d["tags"]:
                tag_docs.setdefault(t, []).append(i)
        heading_words: dict[str, list[int]] = {}
        for row, raw in reader.registry.subsection_spans():
            for w in _words(" ".join(json.loads(raw)[1:])):
                heading_words.setdefault(w, []).append(row)
        return cls(docs, by_key, title_words, tag_docs, heading_words)

    @staticmethod
    def locate(reader, rows: list[int]) -> list[tuple[int, int, int]]:
        """(row, document, ordinal) of ``rows``."""
        return reader.registry.locate(rows)

    @staticmethod
    def spans_of(reader, docs: list[int]) -> dict[int, list[tuple[int, int]]]:
        """document -> [(row, ordinal)] for ``docs`` (index ``spans_doc``)."""
        out: dict[int, list[tuple[int, int]]] = {}
        for row, doc, ordinal in reader.registry.spans_of_documents(docs):
            out.setdefault(doc, []).append((row, ordinal))
        return out


class StructuralGen(FromIntent):
    """Structure of the project matched against the signals: document ids named in the intent
    (ADR-0007), titles and section headings sharing the intent's keywords, tags, and the
    stage / workstream / source-type hints the intent carries. Lookups go through inverted
    indexes built once per open index, so a query costs what it matches, not the corpus."""

    name = "structural"
    channel = "structural"

    def generate(self, ctx: GenContext) -> list[GenHit]:
        reader, signals, filters, top_k = ctx.reader, ctx.signals, ctx.filters, ctx.top_k
        kw = {_stem(k) for k in signals.keywords if " " not in k and not k[:1].isupper()}
        hints = signals.struct_hints
        if not kw and hints == type(hints)():
            return []
        o: _Outline = reader.memo("structural-outline", lambda: _Outline.build(reader))
        doc_score: dict[int, list] = {}

        def add(doc: int, score: float, why: str) -> None:
            entry = doc_score.setdefault(doc, [0.0, []])
            entry[0] += score
            entry[1].append(why)

        for ident in hints.doc_ids:
            for key in id_forms(ident):
                for doc in o.by_key.get(key, ()):
                    if doc not in doc_score or not any("named in the intent" in w for w in doc_score[doc][1]):
                        add(doc, 3.0, f"document id {o.docs[doc]['doc_key']} named in the intent")
        overlap: dict[int, set[str]] = {}
        for w in kw:
            for doc in o.title_words.get(w, ()):
                overlap.setdefault(doc, set()).add(w)
        for doc, words in overlap.items():
            add(doc, 2.0 * len(words) / len(kw), "title matches " + ", ".join(f"'{w}'" for w in sorted(words)[:3]))
        tags: dict[int, set[str]] = {}
        for t in set(hints.tags) | {t for t in o.tag_docs if _stem(t) in kw}:
            for doc in o.tag_docs.get(t, ()):
                tags.setdefault(doc, set()).add(t)
        for doc, ts in tags.items():
            add(doc, 0.5 * min(2, len(ts)), "tag " + ", ".join(sorted(ts)[:3]))
        if hints.stages or hints.workstreams or hints.source_types:
            for doc, d in o.docs.items():
                if hints.stages and d["stage"] in hints.stages:
                    add(doc, 0.5, f"stage {d['stage']} matches the intent")
                if hints.workstreams and d["workstream"] in hints.workstreams:
                    add(doc, 0.5, f"workstream {d['workstream']} matches the intent")
                if hints.source_types and d["source_type"] in hints.source_types:
                    add(doc, 0.25, f"{d['source_type']} matches the intent")
        heads: dict[int, set[str]] = {}
        for w in kw:
            for row in o.heading_words.get(w, ()):
                heads.setdefault(row, set()).add(w)
        k = top_k if filters.is_empty() else top_k * 8
        span_score = self._document_spans(reader, o, doc_score, heads, k)
        for row, words in heads.items():
            entry = span_score.setdefault(row, [0.0, []])
            entry[0] += 1.5 * len(words) / len(kw)
            entry[1].append("section heading matches " + ", ".join(f"'{w}'" for w in sorted(words)[:3]))
        hits = [GenHit(row, sc, tuple(why)) for row, (sc, why) in span_score.items() if sc > 0]
        hits.sort(key=lambda h: (-h.score, h.row))
        return filter_hits(reader, hits[:k], filters)[:top_k]

    @staticmethod
    def _document_spans(reader, o: "_Outline", doc_score: dict[int, list], heads: dict[int, set[str]], k: int) -> dict[int, list]:
        """row -> [document score × (1.0 first span, 0.6 others), reasons] for the spans the
        top ``k`` can contain. A common title word can match thousands of documents (113 ms
        at 100k spans when all their spans were fetched); only the documents scoring at least
        the ``k``-th best are read — their first spans already outscore every span of the
        rest — plus the documents of heading-matched spans, whose totals must be exact. If
        those documents hold fewer than ``k`` such spans, every document is read. Either way
        the top ``k`` equals scoring every document's spans (tests/rank/test_generate.py)."""

        def factor(ordinal: int) -> float:
            return 1.0 if ordinal == 0 else 0.6

        ranked = sorted(doc_score, key=lambda d: (-doc_score[d][0], d))
        keep = ranked
        if len(ranked) > k:
            cut = doc_score[ranked[k - 1]][0]
            keep = [d for d in ranked if doc_score[d][0] >= cut]
        spans = o.spans_of(reader, sorted(keep))
        if len(keep) < len(ranked):
            strong = sum(1 for d in keep for _row, ordinal in spans.get(d, ()) if doc_score[d][0] * factor(ordinal) >= cut)
            if strong < k:
                keep, spans = ranked, o.spans_of(reader, sorted(ranked))
        out: dict[int, list] = {}
        for doc in keep:
            score, why = doc_score[doc]
            for row, ordinal in spans.get(doc, ()):
                out[row] = [score * factor(ordinal), list(why)]
        if len(keep) < len(ranked):
            kept = set(keep)
            for row, doc, ordinal in o.locate(reader, [r for r in heads if r not in out]):
                if doc in doc_score and doc not in kept:
                    score, why = doc_score[doc]
                    out[row] = [score * factor(ordinal), list(why)]
        return out


