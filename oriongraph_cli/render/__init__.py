"""Renderers of compile/search results: given a compiled working set, they only format.

``json`` and ``markdown`` are plain-Python (no rich) so that scripts and ``--json`` stay
light; ``table`` imports rich and is only loaded when a terminal table is wanted. Text
renderers receive the response with control characters made visible (``textsafe``);
JSON escapes them itself. Add an output format by adding a function to ``COMPILE_FORMATS``.
"""

from __future__ import annotations

from typing import IO, Any, Callable

CompileRenderer = Callable[..., None]  # (response, *, explain: bool, out: IO[str]) -> None


_CLEANED: list[tuple[Any, Any]] = []  # (working set, its cleaned copy): the last few


def _cleaned_workingset(ws: Any) -> Any:
    """``clean_tree(ws)``, remembered for the last few working sets: fitting the output to
    the budget renders one working set several times (formats, settling the count)."""
    from oriongraph_cli.textsafe import clean_tree

    for src, done in _CLEANED:
        if src is ws:
            return done
    done = clean_tree(ws)
    _CLEANED.append((ws, done))
    del _CLEANED[:-4]
    return done


def _shown(resp: Any, explain: bool) -> Any:
    """What a text renderer shows, with control characters made visible: without
    ``explain`` the rationale, rejections, defaults and index are not rendered, so they are
    not cleaned."""
    from dataclasses import replace

    from oriongraph_cli.textsafe import clean_tree

    if not explain and hasattr(resp, "defaults"):
        resp = replace(resp, rationale=None, rejected=(), defaults={}, index={})  # shown only with explain
    ws = getattr(resp, "workingset", None)
    if ws is None or not hasattr(ws, "documents"):
        return clean_tree(resp)
    rest = clean_tree(replace(resp, workingset=type(ws)((), 0)))
    return replace(rest, workingset=_cleaned_workingset(ws))


def _json(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.json import compile_payload, dumps_compact

    out.write(dumps_compact(compile_payload(resp, explain=explain)))


def _json_lean(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.json import dumps_compact, lean_payload

    out.write(dumps_compact(lean_payload(resp, explain=explain)))


def _markdown(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.markdown import workingset_markdown

    out.write(workingset_markdown(_shown(resp, explain), explain=explain))


def _brief(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.markdown import task_brief

    out.write(task_brief(_shown(resp, explain), explain=explain))


def _xml(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.xml import workingset_xml

    out.write(workingset_xml(_shown(resp, explain), explain=explain))


def _table(resp: Any, *, explain: bool, out: IO[str], color: str = "auto") -> None:
    from oriongraph_cli.render.table import make_console, print_compile
    from oriongraph_cli.textsafe import clean_tree

    print_compile(make_console(out, color=color), clean_tree(resp), explain=explain)


def _plain(resp: Any, *, explain: bool, out: IO[str]) -> None:
    from oriongraph_cli.render.plain import compile_lines

    out.write(compile_lines(resp, explain=explain))


COMPILE_FORMATS: dict[str, CompileRenderer] = {
    "table": _table, "plain": _plain, "markdown": _markdown, "xml": _xml, "json": _json, "json-lean": _json_lean,
}
# what the budget counts: the whole output of these, as delivered (``brief``: TASK_BRIEF.md)
DELIVERED_FORMATS: dict[str, CompileRenderer] = {
    "markdown": _markdown, "brief": _brief, "xml": _xml, "json": _json, "json-lean": _json_lean,
}


def render_text(resp: Any, fmt: str, explain: bool = False) -> str:
    """The output of a delivered format as a string (what the budget counts without ``explain``)."""
    import io

    buf = io.StringIO()
    DELIVERED_FORMATS[fmt](resp, explain=explain, out=buf)
    return buf.getvalue()


__all__ = ["COMPILE_FORMATS", "DELIVERED_FORMATS", "render_text", "json", "markdown", "table", "xml"]
