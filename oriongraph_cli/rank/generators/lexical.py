"""The lexical channel: BM25F over title, headings, body, tags and path words."""

from __future__ import annotations

import re

from oriongraph_cli.models import GenHit
from oriongraph_cli.rank.generators.base import FromIntent, GenContext, filter_hits, ranked, search_ranked


class LexicalGen(FromIntent):
    """Whoosh BM25F over title, headings, body, tags and path words."""

    name = "lexical"
    channel = "lexical"

    def generate(self, ctx: GenContext) -> list[GenHit]:
        reader, signals, filters, top_k = ctx.reader, ctx.signals, ctx.filters, ctx.top_k
        k = top_k if filters.is_empty() else top_k * 8
        keywords = list(signals.keywords)
        found = search_ranked(lambda n: reader.lexical.search(keywords, n), k)
        said = _said_as(signals.keywords)
        hits = []
        why_of: dict[tuple[str, ...], tuple[str, ...]] = {}  # most hits match one of a few sets of terms
        for row, score, matched in found:
            why = why_of.get(matched)
            if why is None:
                # the index matches stems ('retri'); the reason uses the user's own words ('retry')
                shown = list(dict.fromkeys(said.get(t, t) for t in matched))
                words = ", ".join(f"'{t}'" for t in shown[:4])
                why = why_of[matched] = (f"lexical match on {words}",) if words else ()
            hits.append(GenHit(row, score, why))
        return filter_hits(reader, ranked(reader, hits, k), filters)[:top_k]


def _said_as(keywords) -> dict[str, str]:
    """stem -> the word of the intent it came from (the first one, in intent order)."""
    from oriongraph_cli.store.postings import analyzer

    out: dict[str, str] = {}
    analyse = analyzer().terms
    for kw in keywords:
        for word in _STEM_RE.findall(str(kw).lower()):
            for term in analyse(word):
                out.setdefault(term, word)
    return out


_STEM_RE = re.compile(r"[a-z0-9]+")
