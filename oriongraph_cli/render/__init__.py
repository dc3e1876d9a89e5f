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
    from oriongraph_cli.render.json import compile_payload, dumps_compact

    out.write(dumps_compact(compile_payload(resp, explain=explain)))


def _markdown(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.markdown import workingset_markdown
    from oriongraph_cli.textsafe import clean_tree

    out.write(workingset_markdown(clean_tree(resp), explain=explain))


def _brief(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.markdown import task_brief
    from oriongraph_cli.textsafe import clean_tree

    out.write(task_brief(clean_tree(resp), explain=explain))


def _xml(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.xml import workingset_xml
    from oriongraph_cli.textsafe import clean_tree

    out.write(workingset_xml(clean_tree(resp), explain=explain))


def _table(resp: Any, *, explain: bool, out: IO[str], color: str = "auto") -> None:
    from oriongraph_cli.render.table import make_console, print_compile
    from oriongraph_cli.textsafe import clean_tree

    print_compile(make_console(out, color=color), clean_tree(resp), explain=explain)


def _plain(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.plain import compile_lines

    out.write(compile_lines(resp, explain=explain))


COMPILE_FORMATS: dict[str, CompileRenderer] = {
    "table": _table, "plain": _plain, "markdown": _markdown, "xml": _xml, "json": _json,
}
# what the budget counts: the whole output of these, as delivered (``brief``: TASK_BRIEF.md)
DELIVERED_FORMATS: dict[str, CompileRenderer] = {"markdown": _markdown, "brief": _brief, "xml": _xml, "json": _json}


def render_text(resp: Any, fmt: str, explain: bool = False) -> str:
    """The output of a delivered format as a string (what the budget counts without ``explain``)."""
    import io

    buf = io.StringIO()
    DELIVERED_FORMATS[fmt](resp, explain=explain, out=buf)
    return buf.getvalue()


__all__ = ["COMPILE_FORMATS", "DELIVERED_FORMATS", "render_text", "json", "markdown", "table", "xml"]
