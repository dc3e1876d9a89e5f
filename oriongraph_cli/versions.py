"""The release a document's folders name, on sites that keep a copy of each page per
version (``versioned_docs/version-30.4/``, ``v2/``, ``5x/``, ``4.x/``): which of several
copies of the same text to quote. A path naming no version is the site's own folder, the
line its newest text is written on (Docusaurus's ``docs/`` beside ``versioned_docs/``)."""

from __future__ import annotations

import re

# a folder naming a release: a "v"/"version" prefix, or a dotted or "x" form (a bare number
# such as a year's folder is not one)
_VERSION = re.compile(r"^(?:v|version[-_]?)(\d+(?:\.(?:\d+|x))*)$|^(\d+(?:\.(?:\d+|x))+|\d+x)$", re.IGNORECASE)


def version_of(path: str) -> tuple[int, ...] | None:
    """The release the last versioned folder of ``path`` names, as numbers (``x`` parts
    dropped): ``versioned_docs/version-30.4/a.md`` -> (30, 4), ``en/5x/a.md`` -> (5,);
    None when no folder names one."""
    found = None
    for part in path.split("/")[:-1]:
        m = _VERSION.match(part)
        if m:
            text = (m.group(1) or m.group(2)).lower().rstrip("x")
            found = tuple(int(p) for p in text.split(".") if p.isdigit())
    return found


def page_of(path: str) -> tuple[str, str] | None:
    """Where a versioned copy of a page sits: the folders before its last version folder and
    the path after it (``docs/en/5x/guide/routing.md`` -> ``("docs/en", "guide/routing.md")``);
    None when no folder names a version. Two copies with the same pair are one page in two
    releases; ``rank/copies.py`` says when a path naming no version that ends in the same path
    (``mikroorm-docs/embeddables.md`` beside ``mikroorm-versioned-docs/version-6.6/embeddables.md``)
    is the page's newest line."""
    parts = path.split("/")
    for i in range(len(parts) - 2, -1, -1):
        if _VERSION.match(parts[i]):
            return "/".join(parts[:i]), "/".join(parts[i + 1:])
    return None


# a release an intent names: "v6", "6.x", "5x", "29.7", "version 30" (a bare number is not one;
# nor a run of more than nine digits, which no release has and int() of thousands refuses)
_NAMED = re.compile(r"\b(?:v|version[\s_-]?)(\d{1,9})(?:\.(?:\d+|x))*\b|\b(\d{1,9})(?:\.(?:\d+|x))+\b|\b(\d{1,9})x\b",
                    re.IGNORECASE)


def named_releases(text: str) -> frozenset[int]:
    """The major numbers of the releases ``text`` names (``"in Express 4.x"`` -> {4})."""
    return frozenset(int(next(g for g in m.groups() if g)) for m in _NAMED.finditer(text))


def newest_first(path: str) -> tuple[int, tuple[int, ...]]:
    """A sort key putting the copy on the newest line first: a path naming no version, then
    higher releases before lower."""
    v = version_of(path)
    return (0, ()) if v is None else (1, tuple(-p for p in v))
