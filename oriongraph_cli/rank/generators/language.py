"""The intent's language as an adjustment that follows the other generators: where the
index holds documents in two languages or more (a docs folder keeping its pages'
translations beside them), a candidate from a document written in another language than
the intent's — one no more common in the project than the intent's — is demoted, with its
reason ("in French, the intent in English"). The
intent's language is read from its words (``oriongraph_cli.language``) — when some
documents are written in it — else it is the language most of the project's documents are in. A document whose language is not clear
(code, tables, front matter alone) is left as it is, and so is every document of a project
in one language: there the adjustment never runs.
"""

from __future__ import annotations

from collections import Counter

from oriongraph_cli import language
from oriongraph_cli.models import CandidateSpan, GenHit, with_reasons
from oriongraph_cli.rank.generators.base import GenContext


def languages_of(reader) -> dict[str, str]:
    """path -> language of every document whose language the index knows (read once per
    open index)."""
    def build() -> dict[str, str]:
        docs = reader.lookups.documents
        return {p: lang for p, lang in zip(docs["path"], docs["lang"]) if lang}

    return reader.memo("document-languages", build)


def intent_language(intent: str, langs: dict[str, str]) -> str | None:
    """The intent's language when documents are written in it (read from its words), else
    the one most documents are in (ties: none): a German intent over English and French
    pages prefers neither to the pages whose language is not clear."""
    found = language.detect(intent, intent=True)
    if found is not None and found in set(langs.values()):
        return found
    top = Counter(langs.values()).most_common(2)
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
        return len(set(languages_of(ctx.reader).values())) > 1

    def generate(self, ctx: GenContext) -> list[GenHit]:
        langs = languages_of(ctx.reader)
        want = intent_language(ctx.request.intent, langs)
        self.factor = ctx.cfg.language_demote
        if want is None:
            return []
        count = Counter(langs.values())
        for c in ctx.found:
            have = langs.get(c.metadata.filepath)
            # a copy in another language is the rarer one: a project written mostly in
            # another language than the intent's is read as it is (a team asking in English
            # of its German pages keeps them above its few English ones)
            if have is not None and have != want and count[want] >= count[have] and c.metadata.filepath not in self.demote:
                self.demote[c.metadata.filepath] = (f"in {language.name(have)}, the intent in {language.name(want)} "
                                                    f"(demoted ×{self.factor:.2f})")
        return []

    def adjust(self, scored: list[CandidateSpan]) -> list[CandidateSpan]:
        if not self.demote:
            return scored
        from oriongraph_cli.rank.score import sort_key

        out = [with_reasons(c, (self.demote[c.metadata.filepath],), base_score=c.base_score * self.factor)
               if c.metadata.filepath in self.demote else c for c in scored]
        out.sort(key=sort_key)
        return out
