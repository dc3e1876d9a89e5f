"""Per-generation lookup tables: what every compile reads about the documents, and the
structural channel's inverted indexes, computed once when the generation is written.

``lookups.json`` sits in the generation directory beside the registry; like every file
there it is covered by the manifest's checksums. It holds

- ``documents``: one column per field the compile path reads (id, path, title, stage,
  workstream, source type, front matter id, status, creation time and its source, tags),
  in path order, and each document's number of spans;
- ``structural``: word and value -> documents (title words, tags, front matter ids and
  the ids a file name or title gives — ``ADR-0007``, ``MSC2290``: ``docids.named_ids`` —,
  stages, workstreams, source types), a tag's stem -> tags, and a section heading's
  words (below the title) -> spans.

A process opening the index reads this one file instead of every document row and every
subsection heading of the registry (and stemming them). A generation written before the
file existed, or by a version whose tables differ (``VERSION``), has the same tables
built in memory from the registry by :func:`build` — the function the writer uses for a
build from empty, so both give the same values. A generation built on another is written
by :func:`update` (the base's tables and the changed documents' rows), which gives what
:func:`build` would (tests/store/test_lookups.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from oriongraph_cli.docids import named_ids

FILE = "lookups.json"
VERSION = 2  # bump when a table's content or the stemming changes: older files are then ignored
# 2: ``by_key`` also holds the ids a document's file name or title gives (ADR-0007, MSC2290)

_STEM_RE = re.compile(r"[a-z0-9]+")
DOC_FIELDS = ("id", "path", "title", "stage", "workstream", "source_type", "doc_key", "status", "created_at",
              "created_source", "tags", "lang")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The structural channel's crude stem: a common English suffix dropped."""
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    """Stemmed lower-case words of ``text`` (two characters or more)."""
    return {stem(w) for w in _STEM_RE.findall(text.lower()) if len(w) > 1}


@dataclass
class Lookups:
    documents: dict[str, list]  # field -> one value per document (path order)
    span_counts: dict[str, int]  # path -> spans of the document
    by_key: dict[str, list[int]]  # lower-case front matter id -> documents
    title_words: dict[str, list[int]]  # stemmed title word -> documents
    tag_docs: dict[str, list[int]]  # tag -> documents
    tag_stems: dict[str, list[str]]  # stem of a tag -> tags
    stage_docs: dict[str, list[int]]  # stage -> documents
    workstream_docs: dict[str, list[int]]  # workstream -> documents
    source_type_docs: dict[str, list[int]]  # source type -> documents
    heading_words: dict[str, list[int]]  # stemmed word of a section heading (below the title) -> rows

    # ------------------------------------------------------------ derived views
    @property
    def doc_ids(self) -> list[int]:
        return self.documents["id"]

    def doc_key_of(self) -> dict[int, str | None]:
        return dict(zip(self.documents["id"], self.documents["doc_key"]))

    @property
    def workstreams(self) -> set[str]:
        return set(self.workstream_docs)

    @property
    def stages(self) -> set[str]:
        return set(self.stage_docs)

    @property
    def tags(self) -> set[str]:
        return set(self.tag_docs)

    @property
    def doc_keys(self) -> set[str]:
        return set(self.by_key)

    def document_dicts(self) -> list[dict[str, Any]]:
        """One dict per document with the fields of ``DOC_FIELDS`` (path order)."""
        cols = [self.documents[f] for f in DOC_FIELDS]
        return [dict(zip(DOC_FIELDS, vals)) for vals in zip(*cols)]

    # ------------------------------------------------------------ file
    def to_bytes(self) -> bytes:
        from oriongraph_cli.store.compact_json import dumps

        return dumps({
            "version": VERSION,
            "documents": self.documents,
            "span_counts": self.span_counts,
            "structural": {
                "by_key": self.by_key, "title_words": self.title_words, "tag_docs": self.tag_docs,
                "tag_stems": self.tag_stems, "stage_docs": self.stage_docs, "workstream_docs": self.workstream_docs,
                "source_type_docs": self.source_type_docs, "heading_words": self.heading_words,
            },
        })

    @classmethod
    def from_bytes(cls, data: bytes) -> "Lookups | None":
        """The tables in ``data``, or None when they are not this version's (or not tables)."""
        from oriongraph_cli.store.compact_json import loads

        try:
            raw = loads(data)
            if not isinstance(raw, dict) or raw.get("version") != VERSION:
                return None
            docs, s = raw["documents"], raw["structural"]
            if not (isinstance(docs, dict) and all(isinstance(docs.get(f), list) for f in DOC_FIELDS)):
                return None
            if len({len(docs[f]) for f in DOC_FIELDS}) != 1:
                return None
            tables = {k: s[k] for k in ("by_key", "title_words", "tag_docs", "tag_stems", "stage_docs", "workstream_docs",
                                        "source_type_docs", "heading_words")}
            if not all(isinstance(v, dict) for v in tables.values()) or not isinstance(raw["span_counts"], dict):
                return None
            return cls(documents=docs, span_counts=raw["span_counts"], **tables)
        except (ValueError, KeyError, TypeError):
            return None


def build(registry) -> Lookups:
    """The tables of the generation whose registry is ``registry`` (read-only use)."""
    loads = json.loads
    cols: dict[str, list] = {f: [] for f in DOC_FIELDS}
    for r in registry.documents():
        for f in DOC_FIELDS:
            cols[f].append(loads(r[f]) if f == "tags" else r[f])
    by_key: dict[str, list[int]] = {}
    title_words: dict[str, list[int]] = {}
    tag_docs: dict[str, list[int]] = {}
    stage_docs: dict[str, list[int]] = {}
    workstream_docs: dict[str, list[int]] = {}
    source_type_docs: dict[str, list[int]] = {}
    for i in range(len(cols["id"])):  # path order, as the registry lists documents
        doc = cols["id"][i]
        for key in _ids(cols, i):
            by_key.setdefault(key, []).append(doc)
        for w in words(cols["title"][i] or ""):
            title_words.setdefault(w, []).append(doc)
        for t in cols["tags"][i]:
            tag_docs.setdefault(t, []).append(doc)
        for value, table in ((cols["stage"][i], stage_docs), (cols["workstream"][i], workstream_docs),
                             (cols["source_type"][i], source_type_docs)):
            if value:
                table.setdefault(value, []).append(doc)
    tag_stems: dict[str, list[str]] = {}
    for t in sorted(tag_docs):
        tag_stems.setdefault(stem(t), []).append(t)
    heading_words: dict[str, list[int]] = {}
    for row, raw in registry.subsection_spans():
        for w in words(" ".join(loads(raw)[1:])):
            heading_words.setdefault(w, []).append(row)
    return Lookups(cols, registry.span_counts(), by_key, title_words, tag_docs, tag_stems, stage_docs, workstream_docs,
                   source_type_docs, heading_words)


def _ids(cols: dict[str, list], i: int) -> list[str]:
    """The lower-case ids document ``i`` of ``cols`` is known by: its front matter ``id``, and
    those its file name or title give as the link graph reads them (``ADR-0007``, ``MSC2290``)."""
    key = cols["doc_key"][i]
    out = [key.lower()] if key else []
    return out + [n for n in dict.fromkeys(x.lower() for x in named_ids(cols["path"][i], cols["title"][i] or "")) if n not in out]


_DOC_TABLES = ("by_key", "title_words", "tag_docs", "stage_docs", "workstream_docs", "source_type_docs")


def _doc_keys(cols: dict[str, list], i: int) -> dict[str, list[str]]:
    """table -> the keys under which :func:`build` lists document ``i`` of ``cols``."""
    return {
        "by_key": _ids(cols, i),
        "title_words": list(words(cols["title"][i] or "")),
        "tag_docs": list(cols["tags"][i]),
        "stage_docs": [cols["stage"][i]] if cols["stage"][i] else [],
        "workstream_docs": [cols["workstream"][i]] if cols["workstream"][i] else [],
        "source_type_docs": [cols["source_type"][i]] if cols["source_type"][i] else [],
    }


def _heading_words(heading_path_json: str) -> set[str]:
    return words(" ".join(json.loads(heading_path_json)[1:]))


def update(old: Lookups, registry, paths: list[str], old_headings: list[tuple[int, str]]) -> Lookups:
    """The tables :func:`build` gives for ``registry``, from ``old`` — the tables of the
    generation it was copied from — and what changed: the documents at ``paths`` (changed
    or removed) leave, whatever the registry holds at those paths now comes in.
    ``old_headings``: (row, heading path JSON) of the subsection spans the documents at
    ``paths`` had in the old generation. Only the lists a changed document is in are
    touched; the cost follows the change, not the index (``old`` is updated in place)."""
    gone = set(paths)
    cols = old.documents
    old_at = [i for i, p in enumerate(cols["path"]) if p in gone]
    removed_keys = [_doc_keys(cols, i) for i in old_at]
    removed_ids = {cols["id"][i] for i in old_at}
    loads = json.loads
    fresh = registry.documents_at(sorted(gone))  # path order
    new_cols: dict[str, list] = {f: [] for f in DOC_FIELDS}
    for r in fresh:
        for f in DOC_FIELDS:
            new_cols[f].append(loads(r[f]) if f == "tags" else r[f])
    if new_cols["path"] == [cols["path"][i] for i in old_at]:
        # the same paths back (notes edited, none added or removed): each row in its place
        documents = cols
        for f in DOC_FIELDS:
            column, values = documents[f], new_cols[f]
            for j, i in enumerate(old_at):
                column[i] = values[j]
    else:  # the old ones without the gone, the new ones merged in, in path order
        keep = [i for i in range(len(cols["id"])) if cols["path"][i] not in gone]
        merged = sorted([(cols["path"][i], 0, i) for i in keep] + [(p, 1, j) for j, p in enumerate(new_cols["path"])])
        documents = {f: [(cols if src == 0 else new_cols)[f][i] for _p, src, i in merged] for f in DOC_FIELDS}
    position = {doc: n for n, doc in enumerate(documents["id"])}
    tables = {name: getattr(old, name) for name in _DOC_TABLES}
    touched: dict[str, set[str]] = {name: set() for name in _DOC_TABLES}
    for keys in removed_keys:
        for name, ks in keys.items():
            touched[name].update(ks)
    for name in _DOC_TABLES:  # the gone documents leave every list they were in
        table = tables[name]
        for k in touched[name]:
            if k in table:
                table[k] = [d for d in table[k] if d not in removed_ids]
    for j in range(len(new_cols["id"])):
        doc = new_cols["id"][j]
        for name, ks in _doc_keys(new_cols, j).items():
            for k in dict.fromkeys(ks):
                tables[name].setdefault(k, []).append(doc)
                touched[name].add(k)
    for name in _DOC_TABLES:  # each touched list in path order, as build lists documents
        table = tables[name]
        for k in touched[name]:
            if k in table:
                if table[k]:
                    table[k].sort(key=position.__getitem__)
                else:
                    del table[k]
    tag_stems: dict[str, list[str]] = {}
    for t in sorted(tables["tag_docs"]):
        tag_stems.setdefault(stem(t), []).append(t)
    span_counts = {p: n for p, n in old.span_counts.items() if p not in gone}
    span_counts.update(registry.span_counts_of(new_cols["path"]))
    heading_words = old.heading_words
    hw_touched: set[str] = set()
    old_rows = {row for row, _hp in old_headings}
    for _row, hp in old_headings:
        hw_touched.update(_heading_words(hp))
    for w in hw_touched:
        if w in heading_words:
            heading_words[w] = [r for r in heading_words[w] if r not in old_rows]
    for row, hp in registry.subsection_spans_of(new_cols["id"]):
        for w in _heading_words(hp):
            heading_words.setdefault(w, []).append(row)
            hw_touched.add(w)
    for w in hw_touched:  # row order, as build lists them
        if w in heading_words:
            if heading_words[w]:
                heading_words[w].sort()
            else:
                del heading_words[w]
    return Lookups(documents, span_counts, tables["by_key"], tables["title_words"], tables["tag_docs"], tag_stems,
                   tables["stage_docs"], tables["workstream_docs"], tables["source_type_docs"], heading_words)


# a process that indexes many times (``orion serve``, ``orion watch``) keeps the tables it
# wrote last with their bytes (:func:`keep_written`): its next run, built on that generation,
# updates them instead of parsing the file again (1.7 MB of JSON on SciFact, ~14 ms). The
# file is still read and compared byte for byte, so tables some other writer wrote are
# parsed as before.
_WRITTEN: tuple[bytes, Lookups] | None = None


def load(gen_path: Path, *, take_kept: bool = False) -> Lookups | None:
    """The tables written with the generation at ``gen_path``; None when it has none (built
    before they were written) or they are another version's. ``take_kept``: the tables this
    process kept (:func:`keep_written`) when the file holds their very bytes — taken, not
    shared: :func:`update` changes them in place."""
    global _WRITTEN
    try:
        data = (gen_path / FILE).read_bytes()
    except OSError:
        return None
    if take_kept:
        kept, _WRITTEN = _WRITTEN, None
        if kept is not None and kept[0] == data:
            return kept[1]
    return Lookups.from_bytes(data)


def keep_written(data: bytes, tables: Lookups) -> None:
    """Keep ``tables``, just written as ``data``, for this process's next :func:`load` with
    ``take_kept``."""
    global _WRITTEN
    _WRITTEN = (data, tables)
