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
