"""The structural channel: the project's outline (document ids, titles, section headings,
tags, stages, workstreams, source types) matched against the intent's signals."""

from __future__ import annotations

from dataclasses import dataclass

from oriongraph_cli.models import GenHit
from oriongraph_cli.rank.generators.base import FromIntent, GenContext, filter_hits, ranked_rows
from oriongraph_cli.rank.signals import id_forms
from oriongraph_cli.store.lookups import Lookups, build as build_lookups, stem as _stem, words as _words  # noqa: F401


MAX_KEPT_DOCUMENTS = 100_000  # documents whose spans the structural channel keeps per open index


@dataclass
class _Outline:
    """The inverted indexes over titles, tags, front matter ids, stages, workstreams,
    source types and section headings (``store/lookups.py``: written with the generation,
    loaded once per reader), with each document's front matter id.

    Which spans a matched document has is asked per query (:meth:`spans_of`); reading
    every span's outline at open cost ~80 ms of a fresh compile at 13k spans and ~0.5 s at
    100k."""

    tables: Lookups
    doc_key: dict[int, str | None]  # document id -> front matter id

    def __getattr__(self, name):  # by_key, title_words, tag_docs, tag_stems, heading_words, ...
        if name == "tables":
            raise AttributeError(name)
        return getattr(self.tables, name)

    @classmethod
    def of(cls, tables: Lookups) -> "_Outline":
        return cls(tables, tables.doc_key_of())

    @classmethod
    def build(cls, reader) -> "_Outline":
        """Built from the registry (what the written tables hold)."""
        return cls.of(build_lookups(reader.registry))

    @staticmethod
    def locate(reader, rows: list[int]) -> list[tuple[int, int, int]]:
        """(row, document, ordinal) of ``rows``."""
        return reader.registry.locate(rows)

    @staticmethod
    def spans_of(reader, docs: list[int]) -> dict[int, list[tuple[int, int]]]:
        """document -> [(row, ordinal)] for ``docs`` (index ``spans_doc``), those of a
        document kept once read while the reader is open: the documents a title word
        matches come back query after query (some 8,000 spans a query at 100k)."""
        known = reader.memo("structural-document-spans", dict)
        got: dict[int, list[tuple[int, int]]] = {}
        missing = []
        for d in docs:
            spans = known.get(d)
            if spans is None:
                missing.append(d)
            else:
                got[d] = spans
        if missing:
            found: dict[int, list[tuple[int, int]]] = {d: [] for d in missing}
            for row, doc, ordinal in reader.registry.spans_of_documents(missing):
                found[doc].append((row, ordinal))
            if len(known) + len(found) > MAX_KEPT_DOCUMENTS:  # bounded: a very large index starts again
                known.clear()
            known.update(found)
            got.update(found)
        return {d: got[d] for d in docs if got[d]}


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
        o: _Outline = reader.memo("structural-outline", lambda: _Outline.of(reader.lookups))
        doc_score: dict[int, list] = {}

        def add(doc: int, score: float, why: str) -> None:
            entry = doc_score.setdefault(doc, [0.0, []])
            entry[0] += score
            entry[1].append(why)

        for ident in hints.doc_ids:
            for key in id_forms(ident):
                for doc in o.by_key.get(key, ()):
                    if doc not in doc_score or not any("named in the intent" in w for w in doc_score[doc][1]):
                        add(doc, 3.0, f"document id {o.doc_key[doc] or ident} named in the intent")
        overlap: dict[int, set[str]] = {}
        for w in kw:
            for doc in o.title_words.get(w, ()):
                overlap.setdefault(doc, set()).add(w)
        for doc, words in overlap.items():
            add(doc, 2.0 * len(words) / len(kw), "title matches " + ", ".join(f"'{w}'" for w in sorted(words)[:3]))
        tags: dict[int, set[str]] = {}
        for t in set(hints.tags) | {t for w in kw for t in o.tag_stems.get(w, ())}:
            for doc in o.tag_docs.get(t, ()):
                tags.setdefault(doc, set()).add(t)
        for doc, ts in tags.items():
            add(doc, 0.5 * min(2, len(ts)), "tag " + ", ".join(sorted(ts)[:3]))
        # per document: stage, then workstream, then source type (each document has one of each)
        for table, wanted, weight, why in ((o.stage_docs, hints.stages, 0.5, "stage {} matches the intent"),
                                           (o.workstream_docs, hints.workstreams, 0.5, "workstream {} matches the intent"),
                                           (o.source_type_docs, hints.source_types, 0.25, "{} matches the intent")):
            for value in dict.fromkeys(wanted):
                for doc in table.get(value, ()):
                    add(doc, weight, why.format(value))
        heads: dict[int, set[str]] = {}
        for w in kw:
            for row in o.heading_words.get(w, ()):
                heads.setdefault(row, set()).add(w)
        k = top_k if filters.is_empty() else top_k * 8
        span_score = self._document_spans(reader, o, doc_score, heads, k)
        for row, words in heads.items():
            entry = span_score.setdefault(row, [0.0, []])
            entry[0] += 1.5 * len(words) / len(kw)
            entry[1] = entry[1] + ["section heading matches " + ", ".join(f"'{w}'" for w in sorted(words)[:3])]
        # hits made for the rows that make the top k only (thousands of spans can score)
        top = ranked_rows(reader, {row: e[0] for row, e in span_score.items() if e[0] > 0}, k)
        hits = [GenHit(row, span_score[row][0], tuple(span_score[row][1])) for row in top]
        return filter_hits(reader, hits, filters)[:top_k]

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
            score, why = doc_score[doc]  # ``why`` shared by the document's spans: never changed in place
            for row, ordinal in spans.get(doc, ()):
                out[row] = [score * (1.0 if ordinal == 0 else 0.6), why]
        if len(keep) < len(ranked):
            kept = set(keep)
            for row, doc, ordinal in o.locate(reader, [r for r in heads if r not in out]):
                if doc in doc_score and doc not in kept:
                    score, why = doc_score[doc]
                    out[row] = [score * factor(ordinal), why]
        return out


