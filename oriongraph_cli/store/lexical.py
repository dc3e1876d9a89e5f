"""The lexical index: Whoosh (the maintained ``whoosh-reloaded`` fork), BM25F over spans.

Fields: title, headings, body, path, tags (stemming analyser on the text fields), and the
exact-match fields stage, workstream, source_type. A new generation copies the previous
generation's directory and applies deletions/additions, so unchanged documents are not
re-analysed.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from whoosh import index as windex
from whoosh import scoring
from whoosh.analysis import StemmingAnalyzer
from whoosh.fields import ID, KEYWORD, STORED, TEXT, Schema
from whoosh.qparser import MultifieldParser, OrGroup
from whoosh.query import Or, Term

INDEX_NAME = "spans"
# Field boosts; measured on SciFact train (docs/BENCHMARKS.md, "lexical field boosts").
FIELD_BOOSTS = {"title": 2.0, "headings": 1.5, "body": 1.0, "tags": 1.5, "path_text": 0.5}
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-]*")


def schema() -> Schema:
    ana = StemmingAnalyzer()
    return Schema(
        row=STORED(),
        span_id=ID(stored=True, unique=True),
        path=ID(stored=True),
        title=TEXT(analyzer=ana),
        headings=TEXT(analyzer=ana),
        body=TEXT(analyzer=ana),
        path_text=TEXT(analyzer=ana),
        tags=KEYWORD(lowercase=True, commas=True, scorable=True),
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


def path_words(path: str) -> str:
    return " ".join(_WORD_RE.findall(path.replace("_", " ").replace("-", " ")))


def build(directory: Path, previous: Path | None, remove_paths: list[str], add: list[LexicalDoc]) -> int:
    """Create the index in ``directory`` from ``previous`` (copied) minus ``remove_paths`` plus ``add``."""
    if previous is not None and windex.exists_in(str(previous), indexname=INDEX_NAME):
        shutil.copytree(previous, directory)
        ix = windex.open_dir(str(directory), indexname=INDEX_NAME)
    else:
        directory.mkdir(parents=True, exist_ok=True)
        ix = windex.create_in(str(directory), schema(), indexname=INDEX_NAME)
    writer = ix.writer(limitmb=256)
    try:
        for p in remove_paths:
            writer.delete_by_term("path", p)
        for d in add:
            writer.add_document(
                row=d.row,
                span_id=d.span_id,
                path=d.path,
                title=d.title,
                headings=d.headings,
                body=d.body,
                path_text=path_words(d.path),
                tags=",".join(d.tags),
                stage=d.stage or "",
                workstream=d.workstream or "",
                source_type=d.source_type,
            )
        writer.commit(optimize=len(add) > 2000)
    except BaseException:
        writer.cancel()
        raise
    with ix.searcher() as s:
        return s.doc_count()


class LexicalIndex:
    def __init__(self, directory: Path):
        self._ix = windex.open_dir(str(directory), indexname=INDEX_NAME, readonly=True)
        self._searcher = self._ix.searcher(weighting=scoring.BM25F(B=0.75, K1=1.2))
        self._parser = MultifieldParser(list(FIELD_BOOSTS), self._ix.schema, fieldboosts=FIELD_BOOSTS, group=OrGroup)

    def doc_count(self) -> int:
        return self._searcher.doc_count()

    def search(self, keywords: list[str], limit: int) -> list[tuple[int, float, tuple[str, ...]]]:
        """BM25F over the text fields for ``keywords``; returns (row, score, matched terms)."""
        terms = [k for k in keywords if k]
        if not terms:
            return []
        qtext = " ".join(_quote(t) for t in terms)
        query = self._parser.parse(qtext)
        results = self._searcher.search(query, limit=limit, terms=True)
        out = []
        for hit in results:
            matched = tuple(sorted({t.decode() if isinstance(t, bytes) else str(t) for _f, t in hit.matched_terms()}))
            out.append((int(hit["row"]), float(hit.score), matched))
        return out

    def close(self) -> None:
        self._searcher.close()


def _quote(term: str) -> str:
    term = term.replace('"', " ").strip()
    if " " in term:
        return f'"{term}"'
    return re.sub(r"[^\w\-]", " ", term)
