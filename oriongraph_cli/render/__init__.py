"""Renderers of compile/search results: given a compiled working set, they only format.

``json`` and ``markdown`` are plain-Python (no rich) so that scripts and ``--json`` stay
light; ``table`` imports rich and is only loaded when a terminal table is wanted. Text
renderers receive the response with control characters made visible (``textsafe``);
JSON escapes them itself. Add an output format by adding a function to ``COMPILE_FORMATS``.
"""

from __future__ import annotations

from typing import IO, Any, Callable

CompileRenderer = Callable[..., None]  # (response, *, explain: bool, out: IO[str]) -> None


def _json(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.json import dumps

    out.write(dumps(resp))


def _markdown(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.markdown import workingset_markdown
    from oriongraph_cli.textsafe import clean_tree

    out.write(workingset_markdown(clean_tree(resp), explain=explain))


def _table(resp: Any, *, explain: bool, out: IO[str], color: str = "auto") -> None:
    from oriongraph_cli.render.table import make_console, print_compile
    from oriongraph_cli.textsafe import clean_tree

    print_compile(make_console(out, color=color), clean_tree(resp), explain=explain)


def _plain(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.plain import compile_lines

    out.write(compile_lines(resp, explain=explain))


COMPILE_FORMATS: dict[str, CompileRenderer] = {"table": _table, "plain": _plain, "markdown": _markdown, "json": _json}

__all__ = ["COMPILE_FORMATS", "json", "markdown", "table"]
