"""The languages of an open index's documents, kept once per open index: what the
language adjustment (``rank/generators/language.py``) and ``--where lang=…`` (the hard
filters, ``rank/generators/base.py``) read."""

from __future__ import annotations

from collections import Counter
from typing import Mapping, NamedTuple

# the --where keys that name a document's language
LANGUAGE_KEYS = ("lang", "language")


class Languages(NamedTuple):
    of: dict[str, str]  # path -> language, of the documents whose language the index knows
    count: Counter  # language -> documents

    @classmethod
    def of_paths(cls, of: Mapping[str, str | None]) -> "Languages":
        known = {p: lang for p, lang in of.items() if lang}
        return cls(known, Counter(known.values()))


def languages_of(reader) -> Languages:
    """The index's document languages (read once per open index)."""
    docs = reader.lookups.documents
    return reader.memo("document-languages", lambda: Languages.of_paths(dict(zip(docs["path"], docs["lang"]))))
