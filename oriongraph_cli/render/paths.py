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
