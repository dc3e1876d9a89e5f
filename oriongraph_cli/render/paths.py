"""Where line output and tables show a document: relative to the current directory when it
is inside the project or above it (as ripgrep and fd print paths), so ``orion search X -l |
xargs cat`` works from any subfolder; relative to the project root otherwise. JSON,
Markdown, XML, briefs and the MCP server keep root-relative paths."""

from __future__ import annotations

import os
from pathlib import Path

_state: dict[str, Path | None] = {"root": None, "cwd": None}


def follow_cwd(root: Path | str, cwd: Path | str | None = None) -> None:
    """Show paths relative to ``cwd`` (the current directory) from now on, when it is inside
    ``root`` or above it."""
    r = Path(os.path.realpath(root))
    try:
        c = Path(os.path.realpath(cwd if cwd is not None else os.getcwd()))
    except OSError:  # the current directory was removed: paths from the root, as elsewhere
        _state["root"] = _state["cwd"] = None
        return
    related = c != r and (c.is_relative_to(r) or r.is_relative_to(c))
    _state["root"], _state["cwd"] = (r, c) if related else (None, None)


def reset() -> None:
    _state["root"] = _state["cwd"] = None


def shown(path: str) -> str:
    """``path`` (root-relative, POSIX) as the reader should type it from where they stand."""
    root, cwd = _state["root"], _state["cwd"]
    if root is None or cwd is None or not path:
        return path
    return Path(os.path.relpath(root / path, cwd)).as_posix()


def from_shown(ref: str) -> str:
    """The root-relative path of ``ref`` (``PATH`` or ``PATH:L12-L40``) as line output showed
    it from where the reader stands (:func:`shown`), when it names a file there and not from
    the root; else ``ref`` as given. So ``orion show`` takes what ``orion search | cut -f1``
    printed, in any subfolder."""
    root, cwd = _state["root"], _state["cwd"]
    if root is None or cwd is None:
        return ref
    path, sep, lines = ref.rpartition(":L") if ":L" in ref else (ref, "", "")
    try:
        if (root / path).is_file() or not (cwd / path).is_file():
            return ref
        rel = Path(os.path.relpath(os.path.realpath(cwd / path), root))
    except (OSError, ValueError):
        return ref
    if rel.parts[:1] == ("..",):
        return ref
    return rel.as_posix() + (sep + lines if sep else "")


def braced(paths: list[str]) -> str:
    """Root-relative paths as one short phrase: those differing in one folder name only
    written once with that folder's names in braces, as a shell writes them
    (``docs/{v2,v3}/setup.md``), the others as they are, comma-separated, in the order given.
    A path with a brace or a comma of its own is never braced."""
    left = list(dict.fromkeys(paths))
    out: list[str] = []
    while left:
        first = left[0].split("/")
        best_k, best = -1, [left[0]]
        if not any(ch in left[0] for ch in "{},"):
            for k in range(len(first)):
                group = [p for p in left if not any(ch in p for ch in "{},") and _differs_at(first, p.split("/"), k)]
                if len(group) > len(best):
                    best_k, best = k, group
        if best_k < 0:
            out.append(left.pop(0))
            continue
        names = ",".join(p.split("/")[best_k] for p in best)
        out.append("/".join(first[:best_k] + ["{" + names + "}"] + first[best_k + 1:]))
        left = [p for p in left if p not in best]
    return ", ".join(out)


def _differs_at(a: list[str], b: list[str], k: int) -> bool:
    return len(a) == len(b) and a[:k] == b[:k] and a[k + 1:] == b[k + 1:]
