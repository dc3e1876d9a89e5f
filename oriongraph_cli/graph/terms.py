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


_PRIORITY = {"glossary": 0, "id": 1, "title": 2}

# path -> (the document's link info, its first span id, whether it is a glossary and the
# terms its id and title define): the last two a pure function of the first two, kept between
# the runs of a process that indexes many times (``collect_terms(keep=True)``), where a
# one-file change leaves every other document's key as it was — the very same objects when
# the link resolver kept them too, told apart by identity before equality (hashing five
# thousand keys took most of a one-file run's term list). Replaced whole by each such call.
_OWN_TERMS: dict[str, tuple[DocInfo, str | None, tuple[bool, tuple[Term, ...]]]] = {}
# what the last such call returned, and each glossary's terms then: when no document's terms
# differ from the last call's, nor the set of documents, the list is the same
_LAST_TERMS: tuple[Term, ...] | None = None
_LAST_GLOSSARY: dict[str, tuple[Term, ...]] = {}
# the kept read (``LinkResolver.read_token``) whose documents ``_OWN_TERMS`` holds
_TERMS_OF: object | None = None


def _term(text: str, path: str, span_id: str | None, source: str) -> Term | None:
    """The term ``text`` defines, or None: no span, no words, too long, or (but for an id)
    too short or only stop words."""
    if span_id is None:
        return None
    words = tuple(words_of(text))
    if not words or len(words) > TERM_MAX_WORDS:
        return None
    if source != "id" and (len(" ".join(words)) < TERM_MIN_CHARS or all(w in _TERM_STOP for w in words)):
        return None
    return Term(text.strip(), words, path, span_id, source)


def _own_terms(doc: DocInfo, first: str | None) -> tuple[bool, tuple[Term, ...]]:
    """Whether the document is a glossary, and the terms its front matter id and short title
    define, in that order."""
    made = (_term(str(doc.doc_id), doc.path, first, "id") if doc.doc_id else None,
            _term(re.sub(r"^\s*ADR-[\w-]+\s*:\s*", "", doc.title), doc.path, first, "title"))
    return _is_glossary(doc), tuple(t for t in made if t is not None)


def _glossary_terms(resolver: LinkResolver, path: str) -> list[Term]:
    """The terms a glossary document's headings define: its ``###`` headings (the deepest
    level if there is no ``###``), with an acronym in parentheses as an alias."""
    spans = resolver.spans_of(path)
    levels = {len(s.heading_path) for s in spans}
    level = 3 if 3 in levels else max(levels, default=0)
    out: list[Term | None] = []
    for s in spans:
        if level >= 2 and len(s.heading_path) == level:
            head = s.heading_path[-1]
            out.append(_term(re.sub(r"\s*\([^)]*\)\s*", " ", head).strip(), path, s.span_id, "glossary"))
            out.extend(_term(alias, path, s.span_id, "glossary") for alias in re.findall(r"\(([^)]+)\)", head))
    return [t for t in out if t is not None]


def collect_terms(resolver: LinkResolver, *, keep: bool = False) -> list[Term]:
    """The entities the project defines: ``###`` headings of glossary documents (path, title
    or tag says glossary; the deepest heading level if there is no ``###``), with an acronym
    in parentheses as an alias ("Dead Letter Queue (DLQ)"); front matter ids; titles of at
    most 6 words (an "ADR-0007:" prefix stripped). One definer per term: glossary > id >
    title, then path order. ``keep``: the process collects again (``orion serve``, ``orion
    watch``): each document's own terms are kept for the next call, and taken from the last
    one where it kept them; when every document defines what it defined then, the list is
    the last call's (a one-file edit of a note's body changes no term). A resolver built on
    the read the last such call was given (``LinkResolver.kept_base``) has only the
    documents it read again checked (:func:`_kept_list`)."""
    global _OWN_TERMS, _LAST_TERMS, _TERMS_OF
    if keep and _LAST_TERMS is not None and resolver.kept_base is not None and resolver.kept_base is _TERMS_OF \
            and len(_OWN_TERMS) == len(resolver.docs) and (listed := _kept_list(resolver)) is not None:
        _LAST_TERMS, _TERMS_OF = tuple(listed), resolver.read_token
        return listed
    kept = _OWN_TERMS if keep else {}
    own: dict[str, tuple[DocInfo, str | None, tuple[bool, tuple[Term, ...]]]] = {}
    defined: list[tuple[str, tuple[Term, ...]]] = []  # (path, its terms), in path order
    # every term as the last call's: the same documents, each defining the same terms
    same = keep and _LAST_TERMS is not None and bool(kept) and len(kept) == len(resolver.docs)
    first_span = resolver.first_span
    for path in sorted(resolver.docs):
        doc, first = resolver.docs[path], first_span.get(path)
        old = kept.get(path)
        if old is not None and (old[0] is doc or old[0] == doc) and old[1] == first:
            made = old[2]
        else:
            made = _own_terms(doc, first)
            same = same and old is not None and made == old[2]
        own[path] = (doc, first, made)
        glossary, terms = made
        if glossary:
            terms = (*_glossary_terms(resolver, path), *terms)
            if keep:
                same = same and terms == _LAST_GLOSSARY.get(path)
                _LAST_GLOSSARY[path] = terms
        defined.append((path, terms))
    if same:
        _OWN_TERMS, _TERMS_OF = own, resolver.read_token
        return list(_LAST_TERMS)
    found: dict[tuple[str, ...], Term] = {}
    for _path, terms in defined:
        for t in terms:
            old_t = found.get(t.words)
            if old_t is None or _PRIORITY[t.source] < _PRIORITY[old_t.source]:
                found[t.words] = t
    result = sorted(found.values(), key=lambda t: (t.path, t.words))
    if keep:
        _OWN_TERMS, _LAST_TERMS, _TERMS_OF = own, tuple(result), resolver.read_token
    return result


def _kept_list(resolver: LinkResolver) -> list[Term] | None:
    """The term list, from the last kept call's, checking only the documents ``resolver``
    read again: it was built on the read that call was given (``kept_base``), so every other
    document is the very row that call kept, with the same first span. A document read again
    that defines the same terms, their spans aside (an edit gives every span of a document a
    new id), has its terms in the list replaced by its new ones (which win where the old ones
    won: the same words, source and path); its kept entries are updated. None (a document
    added or removed, or defining other terms) leaves the whole list to :func:`collect_terms`."""
    updates: dict[str, tuple[DocInfo, str | None, tuple[bool, tuple[Term, ...]]]] = {}
    glossaries: dict[str, tuple[Term, ...]] = {}
    respanned: dict[tuple[str, tuple[str, ...], str], Term] = {}
    for path in resolver.reread:
        doc, old = resolver.docs.get(path), _OWN_TERMS.get(path)
        if doc is None or old is None:
            return None
        first = resolver.first_span.get(path)
        made = old[2] if old[0] == doc and old[1] == first else _own_terms(doc, first)
        if made[0] != old[2][0]:  # became or stopped being a glossary
            return None
        before, now = old[2][1], made[1]
        if made[0]:
            before, now = _LAST_GLOSSARY.get(path, ()), (*_glossary_terms(resolver, path), *made[1])
            glossaries[path] = now
        if now != before:
            if len(now) != len(before) or any(n._replace(span_id="") != b._replace(span_id="") for n, b in zip(now, before)):
                return None
            for t in now:  # the first of a document's same words, as collect_terms keeps it
                respanned.setdefault((t.path, t.words, t.source), t)
        updates[path] = (doc, first, made)
    _OWN_TERMS.update(updates)
    _LAST_GLOSSARY.update(glossaries)
    return [respanned.get((t.path, t.words, t.source), t) for t in _LAST_TERMS or ()]


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
