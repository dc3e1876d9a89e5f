"""The entities a project defines (glossary headings, document ids, short titles) and the
DEFINES edges from each defining span to the spans of other documents that use the term.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import Counter
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

from oriongraph_cli.graph.extract import (
    _TERM_STOP,
    DEFINES_MAX_DF,
    DEFINES_MAX_PER_TERM,
    TERM_MAX_WORDS,
    TERM_MIN_CHARS,
    DocInfo,
    Edge,
    SpanInfo,
    words_of,
)

# --------------------------------------------------------------------------- DEFINES (entities)


if TYPE_CHECKING:
    from oriongraph_cli.graph.resolve import LinkResolver


def users_limit(n_spans: int, max_per_term: int, max_df: float) -> float:
    """How many spans may use a term before it is too generic for DEFINES edges."""
    return max(max_df * n_spans, 2 * max_per_term)


class Term(NamedTuple):
    text: str  # as defined (display)
    words: tuple[str, ...]  # lower-case words that must occur contiguously
    path: str  # defining document
    span_id: str  # defining span
    source: str  # "glossary" | "id" | "title"


def term_key(words: Sequence[str]) -> int:
    """A term's key in the registry's match tables: a 62-bit hash of its words, the same
    whichever document defines it and wherever it sorts in the term list."""
    return int.from_bytes(hashlib.sha256(" ".join(words).encode()).digest()[:8], "big") >> 2


def _is_glossary(doc: DocInfo) -> bool:
    stem = posixpath.basename(doc.path).lower()
    return "glossary" in stem or "glossary" in doc.title.lower() or "glossary" in doc.tags or "terminology" in doc.tags


def collect_terms(resolver: LinkResolver) -> list[Term]:
    """The entities the project defines: ``###`` headings of glossary documents (path, title
    or tag says glossary; the deepest heading level if there is no ``###``), with an acronym
    in parentheses as an alias ("Dead Letter Queue (DLQ)"); front matter ids; titles of at
    most 6 words (an "ADR-0007:" prefix stripped). One definer per term: glossary > id >
    title, then path order."""
    found: dict[tuple[str, ...], Term] = {}
    priority = {"glossary": 0, "id": 1, "title": 2}

    def add(text: str, path: str, span_id: str | None, source: str) -> None:
        if span_id is None:
            return
        words = tuple(words_of(text))
        if not words or len(words) > TERM_MAX_WORDS:
            return
        if source != "id" and (len(" ".join(words)) < TERM_MIN_CHARS or all(w in _TERM_STOP for w in words)):
            return
        old = found.get(words)
        if old is None or priority[source] < priority[old.source]:
            found[words] = Term(text.strip(), words, path, span_id, source)

    for path in sorted(resolver.docs):
        doc = resolver.docs[path]
        first = resolver.first_span.get(path)
        if _is_glossary(doc):
            spans = resolver.spans_of(path)
            levels = {len(s.heading_path) for s in spans}
            level = 3 if 3 in levels else max(levels, default=0)
            for s in spans:
                if level >= 2 and len(s.heading_path) == level:
                    head = s.heading_path[-1]
                    add(re.sub(r"\s*\([^)]*\)\s*", " ", head).strip(), path, s.span_id, "glossary")
                    for alias in re.findall(r"\(([^)]+)\)", head):
                        add(alias, path, s.span_id, "glossary")
        if doc.doc_id:
            add(str(doc.doc_id), path, first, "id")
        add(re.sub(r"^\s*ADR-[\w-]+\s*:\s*", "", doc.title), path, first, "title")
    return sorted(found.values(), key=lambda t: (t.path, t.words))


class _TermIndex:
    """Single-word terms by word, multi-word terms by their first bigram."""

    def __init__(self, terms: Sequence[Term]):
        self.singles: dict[str, list[int]] = {}
        self.multis: dict[tuple[str, str], list[int]] = {}
        for t_i, t in enumerate(terms):
            if len(t.words) == 1:
                self.singles.setdefault(t.words[0], []).append(t_i)
            else:
                self.multis.setdefault((t.words[0], t.words[1]), []).append(t_i)
        self.single_set = set(self.singles)
        self.bigram_set = set(self.multis)
        self.multi_first = {k[0] for k in self.multis}
        self.phrase = {t_i: " " + " ".join(terms[t_i].words) + " " for ts in self.multis.values() for t_i in ts}

    def match(self, text: str) -> list[tuple[int, int]]:
        """(term index, occurrences) of every term in ``text``."""
        words = words_of(text)
        if not words:
            return []
        vocab = set(words)
        found: list[tuple[int, int]] = []
        present = vocab & self.single_set
        if present:
            counts = Counter(words)
            found.extend((t_i, counts[w]) for w in sorted(present) for t_i in self.singles[w])
        if not self.multi_first.isdisjoint(vocab):
            bigrams = set(zip(words, words[1:])) & self.bigram_set
            if bigrams:
                joined = " " + " ".join(words) + " "
                for bg in sorted(bigrams):
                    for t_i in self.multis[bg]:
                        n = joined.count(self.phrase[t_i])
                        if n:
                            found.append((t_i, n))
        return found


TermIndex = _TermIndex  # matching many texts against one term list (graph/edges.py keeps the matches)


def defines_edges(
    terms: Sequence[Term],
    spans: Iterable[SpanInfo],
    *,
    n_spans: int | None = None,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
    known: Mapping[str, list[tuple[int, int]]] | None = None,
    learned: dict[str, list[tuple[int, int]]] | None = None,
) -> list[Edge]:
    """DEFINES edges: defining span -> spans of *other* documents using the term, matched
    case-insensitively on word boundaries. Per term at most ``max_per_term`` edges (most
    occurrences first, then path, ordinal); a term used by more than
    :func:`users_limit` spans is too generic and gets none.

    ``known`` maps span ids to their matches against this same term list (a cache: such
    spans need no text); matches computed here are added to ``learned``."""
    index = _TermIndex(terms)
    hits: dict[int, list[tuple[int, str, int, str]]] = {}
    count = 0
    for s in spans:
        count += 1
        if known is not None and s.span_id in known:
            found = known[s.span_id]
        else:
            found = index.match(s.text)
            if learned is not None:
                learned[s.span_id] = found
        for t_i, n in found:
            if terms[t_i].path != s.path:
                hits.setdefault(t_i, []).append((n, s.path, s.ordinal, s.span_id))
    limit = users_limit(n_spans if n_spans is not None else count, max_per_term, max_df)
    out: list[Edge] = []
    for t_i in sorted(hits):
        users = hits[t_i]
        if len(users) > limit:
            continue
        t = terms[t_i]
        users.sort(key=lambda u: (-u[0], u[1], u[2]))
        out.extend(Edge(t.path, t.span_id, path, span_id, "DEFINES", t.text) for _n, path, _o, span_id in users[:max_per_term])
    return out
