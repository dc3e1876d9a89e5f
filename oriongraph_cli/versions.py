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


def newest_first(path: str) -> tuple[int, tuple[int, ...]]:
    """A sort key putting the copy on the newest line first: a path naming no version, then
    higher releases before lower."""
    v = version_of(path)
    return (0, ()) if v is None else (1, tuple(-p for p in v))
