"""The intent's language as an adjustment that follows the other generators: where the
index holds documents in two languages or more (a docs folder keeping its pages'
translations beside them), a candidate from a document written in another language than
the intent's — one no more common in the project than the intent's — is demoted, with its
reason ("in French, the intent in English"). The intent's language is read from its words
(``oriongraph_cli.language``) — when some documents are written in it — else it is the
language most of the project's documents are in. A document whose language is not clear
(code, tables, front matter alone) is left as it is, and so is every document of a project
in one language: there the adjustment never runs (and ``oriongraph_cli.language``, whose
patterns take ~5 ms to compile, is not imported).
"""

from __future__ import annotations

from typing import Mapping

from oriongraph_cli.models import CandidateSpan, GenHit, with_reasons
from oriongraph_cli.rank.generators.base import GenContext
from oriongraph_cli.rank.languages import LANGUAGE_KEYS, Languages, languages_of


def intent_language(intent: str, langs: Languages | Mapping[str, str]) -> str | None:
    """The intent's language when documents are written in it (read from its words), else
    the one most documents are in (ties: none): a German intent over English and French
    pages prefers neither to the pages whose language is not clear. ``langs``: the index's
    (``languages_of``), or path -> language."""
    from oriongraph_cli.language import detect

    if not isinstance(langs, Languages):
        langs = Languages.of_paths(langs)

    found = detect(intent, intent=True)
    if found is not None and found in langs.count:
        return found
    top = langs.count.most_common(2)
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


class LanguageGen:
    """Brings no candidates; ``adjust`` demotes the ones in another language."""

    name = "language"
    channel = None
    follows = True
    needs_embedding = False

    def __init__(self) -> None:
        self.demote: dict[str, str] = {}  # path -> reason
        self.factor = 1.0

    def wanted(self, ctx: GenContext) -> bool:
        if ctx.cfg is None or ctx.cfg.language_demote >= 1.0 or not ctx.found or ctx.request is None:
            return False
        if any(key.lower() in LANGUAGE_KEYS for key, _value in ctx.filters.where):
            return False  # the language asked for with --where lang=…: nothing to prefer
        return len(languages_of(ctx.reader).count) > 1

    def generate(self, ctx: GenContext) -> list[GenHit]:
        from oriongraph_cli.language import name

        langs = languages_of(ctx.reader)
        want = intent_language(ctx.request.intent, langs)
        self.factor = ctx.cfg.language_demote
        if want is None:
            return []
        for c in ctx.found:
            path = c.metadata.filepath
            have = langs.of.get(path)
            # a copy in another language is the rarer one: a project written mostly in
            # another language than the intent's is read as it is (a team asking in English
            # of its German pages keeps them above its few English ones)
            if have is not None and have != want and langs.count[want] >= langs.count[have] and path not in self.demote:
                self.demote[path] = f"in {name(have)}, the intent in {name(want)} (demoted ×{self.factor:.2f})"
        return []

    def adjust(self, scored: list[CandidateSpan]) -> list[CandidateSpan]:
        if not self.demote:
            return scored
        from oriongraph_cli.rank.score import sort_key

        out = [with_reasons(c, (self.demote[c.metadata.filepath],), base_score=c.base_score * self.factor)
               if c.metadata.filepath in self.demote else c for c in scored]
        out.sort(key=sort_key)
        return out
