"""The lexical index: Whoosh (the maintained ``whoosh-reloaded`` fork), BM25 over spans.

One analysed field, ``text``: the document title, the span's heading path (headings that
repeat the title are left out), the span body, the tags and the words of the path, run
through a stemming analyser. Plus the stored/exact fields row, span_id, path, stage,
workstream, source_type. A new generation links the previous generation's files and
applies deletions/additions, so unchanged documents are not re-analysed.

Why one field (docs/BENCHMARKS.md, "Lexical channel"): the former five-field BM25F
(title ×2, headings ×1.5, body, tags ×1.5, path ×0.5) let a title match outweigh the
text — every span of a document carries its title, and on SciFact the heading *is* the
title, so a title word counted 4.5 times — and Whoosh pays for every field of every term:
on SciFact train BM25 alone went from nDCG@10 0.47 (five fields) to 0.68 (one field) and
the query from ~400 ms to ~100 ms.

The change bumped the index schema version, so an older five-field index is rebuilt (its
vectors are reused) by the next ``orion index``.

Search runs on numpy arrays of the same postings (``store/postings.py``, written beside
this index in every generation): the same terms and the same BM25F scores, ~10-40x
faster than Whoosh's pure-Python scoring. Whoosh answers what they cannot: phrase
queries (a quoted phrase in the intent), operator words, and generations built before
the arrays existed (the next ``orion index`` adds them, without re-parsing or embedding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from oriongraph_cli.blocks import without_unseen
from oriongraph_cli.store.clone import link_or_clone

# Whoosh is imported where it is used: a compile answered by the numpy postings never
# loads whoosh.index / whoosh.qparser (~120 ms in a fresh process)
INDEX_NAME = "spans"
TEXT_FIELD = "text"
# BM25 parameters: Whoosh's defaults; K1/B grids on SciFact train moved nDCG@10 by < 0.004.
BM25_K1 = 1.2
BM25_B = 0.75
# Whoosh's estimate of the postings its writer holds before it spills a sorted run (its
# own estimate: the Python objects take ~3x more); the runs are merged at commit, the same
# index. Measured (docs/BENCHMARKS.md): on a 300k-span build 256 with compound segment
# files peaked 879 MiB above the start, 64 with plain files 114 MiB, the same CPU; from
# 50k spans every limit spills and costs the same, but a build that fits unspilled in 256
# (10k spans) takes 40 % more CPU when 64 makes it spill — so small builds keep 256.
WRITER_LIMIT_MB = 64
WRITER_LIMIT_SMALL_MB = 256
SMALL_BUILD_SPANS = 20_000  # a build adding at most this many spans uses the small-build limit
# A compound segment is assembled at commit by copying every segment file into one; plain
# files skip that copy (and the memory it maps). Readers take either.
COMPOUND_SEGMENTS = False
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*")


def schema():
    from whoosh.analysis import StemmingAnalyzer
    from whoosh.fields import ID, STORED, TEXT, Schema

    return Schema(
        row=STORED(),
        span_id=ID(stored=True, unique=True),
        path=ID(stored=True),
        text=TEXT(analyzer=StemmingAnalyzer()),
        stage=ID(),
        workstream=ID(),
        source_type=ID(),
    )


@dataclass(frozen=True)
class LexicalDoc:
    row: int
    span_id: str
    path: str
    title: str
    headings: str
    body: str
    tags: tuple[str, ...]
    stage: str | None
    workstream: str | None
    source_type: str
    summary: str = ""  # the page's own summary, for its first span (``models.page_summary``)


def path_words(path: str) -> str:
    return " ".join(_WORD_RE.findall(path.replace("_", " ").replace("-", " ")))


# a letter or two marked inside a word of prose, as command cheat sheets mark the option it
# stands for ("[c]reate", "e[x]tract", "g[z]ipped"): not followed by a letter ("arr[i]"),
# standing alone ("- [x] done", "[a](url)") or in code (Go's `map[int]bool`), it is no mark
_MARKED_LETTERS = re.compile(r"(?<![\w\[\]])(\w*)\[([A-Za-z]{1,3})\](?=[A-Za-z])")
_CODE = re.compile(r"(?P<fence>`{3,}|~{3,})[\s\S]*?(?P=fence)|(?P<tick>`+)[^\n]*?(?P=tick)")


def _marked_letters_joined(text: str) -> str:
    out, pos = [], 0
    for m in _CODE.finditer(text):
        out.append(_MARKED_LETTERS.sub(r"\1\2", text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_MARKED_LETTERS.sub(r"\1\2", text[pos:]))
    return "".join(out)


def lexical_text(d: LexicalDoc) -> str:
    """What BM25 reads for one span: title, the page's summary (first span only), heading
    path (minus the title), body without its HTML comments and module statements (the page
    does not show them: ``blocks.without_unseen``), tags, path words; a word with letters
    marked in brackets read as the word ("[c]reate" is "create": the tokenizer split it into
    "c" and "reate")."""
    heads = [h.strip() for h in d.headings.split(" / ") if h.strip() and h.strip() != d.title.strip()]
    parts = [d.title, d.summary, " / ".join(heads), without_unseen(d.body), " ".join(d.tags), path_words(d.path)]
    text = "\n".join(p for p in parts if p)
    return _marked_letters_joined(text) if "]" in text and _MARKED_LETTERS.search(text) else text


def _fields(d: LexicalDoc) -> dict:
    return dict(
        row=d.row, span_id=d.span_id, path=d.path, stage=d.stage or "", workstream=d.workstream or "",
        source_type=d.source_type, **{TEXT_FIELD: lexical_text(d)},
    )


def _link_files(previous: Path, directory: Path) -> None:
    """``directory`` holding ``previous``'s files as hard links (clones or copies where the
    file system cannot link: ``store.clone``). Whoosh never writes into a file it has written: a commit adds new
    segment files and a new TOC (deletions live in the TOC), and a merge writes a new
    segment and unlinks the old ones, so a linked file stays what the previous generation
    recorded and the generation's checksums of it carry over (``layout.file_checksums``).
    The lock file is left for Whoosh to create."""
    directory.mkdir(parents=True, exist_ok=True)
    for src in sorted(previous.iterdir()):
        if src.is_symlink() or not src.is_file() or src.name.endswith("_WRITELOCK"):
            continue
        link_or_clone(src, directory / src.name)


def build(directory: Path, previous: Path | None, remove_paths: list[str], add: Iterable[LexicalDoc],
          adding: int | None = None) -> int:
    """Create the index in ``directory`` from ``previous`` (its files linked) minus ``remove_paths`` plus ``add``
    (read once; ``adding``: how many it yields, when known). Whoosh's writer buffers at most
    ``WRITER_LIMIT_MB`` of postings (``WRITER_LIMIT_SMALL_MB`` when adding at most
    ``SMALL_BUILD_SPANS``) and spills sorted runs to disk past that, so its memory does not
    grow with the corpus."""
    from whoosh import index as windex

    if previous is not None and windex.exists_in(str(previous), indexname=INDEX_NAME):
        _link_files(previous, directory)
        ix = windex.open_dir(str(directory), indexname=INDEX_NAME)
    else:
        directory.mkdir(parents=True, exist_ok=True)
        ix = windex.create_in(str(directory), schema(), indexname=INDEX_NAME)
    small = adding is not None and adding <= SMALL_BUILD_SPANS
    writer = ix.writer(limitmb=WRITER_LIMIT_SMALL_MB if small else WRITER_LIMIT_MB, compound=COMPOUND_SEGMENTS)
    try:
        for p in remove_paths:
            writer.delete_by_term("path", p)
        added = 0
        for d in add:
            writer.add_document(**_fields(d))
            added += 1
        writer.commit(optimize=added > 2000)
    except BaseException:
        writer.cancel()
        raise
    with ix.searcher() as s:
        return s.doc_count()


def contents_digest(directory: Path) -> str:
    """sha256 (hex) of what the Whoosh index in ``directory`` holds — every document's
    stored fields, every term's postings (document number, weight), every field length —
    equal for equal contents whatever the segment files (compound or plain, spilled or not)."""
    import hashlib

    from whoosh import index as windex

    ix = windex.open_dir(str(directory), indexname=INDEX_NAME, readonly=True)
    h = hashlib.sha256()
    with ix.reader() as r:
        for n, f in r.iter_docs():
            h.update(repr((n, sorted(f.items()))).encode())
        for fieldname, text in r.all_terms():
            h.update(repr((fieldname, text, list(r.postings(fieldname, text).items_as("weight")))).encode())
        for n in range(r.doc_count_all()):
            h.update(repr(r.doc_field_length(n, TEXT_FIELD)).encode())
    return h.hexdigest()


class LexicalIndex:
    """Search over one generation's lexical index.

    BM25 runs on the numpy postings beside the Whoosh index (``store/postings.py``) when
    they are there and the query is an OR of terms; Whoosh answers phrase queries,
    operator words and generations without the arrays (same scores, ~10-50x slower).
    Whoosh itself is opened only when it is needed."""

    def __init__(self, directory: Path, postings_dir: Path | None = None):
        from oriongraph_cli.store import postings

        self._dir = directory
        self._ix = None
        self._searcher = None
        self._parser = None
        self.postings = None
        pdir = postings_dir if postings_dir is not None else directory.parent / postings.DIR
        try:
            self.postings = postings.Postings(pdir, k1=BM25_K1, b=BM25_B)
        except (OSError, ValueError, KeyError, IndexError):
            self.postings = None  # an older generation (or damaged arrays): Whoosh scores
        if self.postings is None:
            self._open_whoosh()

    @property
    def backend(self) -> str:
        return "numpy" if self.postings is not None else "whoosh"

    def _open_whoosh(self) -> None:
        if self._searcher is None:
            from whoosh import index as windex
            from whoosh import scoring
            from whoosh.qparser import OrGroup, QueryParser

            self._ix = windex.open_dir(str(self._dir), indexname=INDEX_NAME, readonly=True)
            self._searcher = self._ix.searcher(weighting=scoring.BM25F(B=BM25_B, K1=BM25_K1))
            self._parser = QueryParser(TEXT_FIELD, self._ix.schema, group=OrGroup)

    def doc_count(self) -> int:
        if self.postings is not None:
            return self.postings.n_docs
        self._open_whoosh()
        return self._searcher.doc_count()

    def idf(self, terms: list[str]) -> dict[str, float]:
        """Each analysed term's BM25 inverse document frequency, from the postings (Whoosh's
        own figure for a generation without them)."""
        if self.postings is not None:
            return {t: self.postings.idf(t) for t in terms}
        self._open_whoosh()
        return {t: self._searcher.idf(TEXT_FIELD, t) for t in terms}

    def search(self, keywords: list[str], limit: int) -> list[tuple[int, float, tuple[str, ...]]]:
        """BM25 over the span text for ``keywords``; returns (row, score, matched terms),
        best first (ties by row)."""
        terms = [k for k in keywords if k]
        if not terms:
            return []
        qtext = " ".join(_quote(t) for t in terms)
        if self.postings is not None:
            from oriongraph_cli.store.postings import query_terms

            qterms = query_terms(qtext)
            if qterms is not None:
                return self.postings.search_terms(qterms, limit)
        return self.search_whoosh(qtext, limit)

    def search_whoosh(self, qtext: str, limit: int) -> list[tuple[int, float, tuple[str, ...]]]:
        """Whoosh BM25F for a query string (``_quote``d keywords joined by spaces)."""
        self._open_whoosh()
        query = self._parser.parse(qtext)
        results = self._searcher.search(query, limit=limit, terms=True)
        out = []
        for hit in results:
            matched = tuple(sorted({t.decode() if isinstance(t, bytes) else str(t) for _f, t in hit.matched_terms()}))
            out.append((int(hit["row"]), float(hit.score), matched))
        return out

    def close(self) -> None:
        if self._searcher is not None:
            self._searcher.close()


def _quote(term: str) -> str:
    term = term.replace('"', " ").strip()
    if " " in term:
        return f'"{term}"'
    return re.sub(r"[^\w\-]", " ", term)
