"""Line-oriented plain text for pipes: one span, hit, link or document a line, fields
separated by tabs, full paths with ``path:L12-L40`` provenance, no colour, no tables.
Made for ``grep``, ``cut -f``, ``sort`` and ``while read``."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from oriongraph_cli.render.paths import shown
from oriongraph_cli.textsafe import clean_line

# The columns of each command's lines, in order: the README table, the man pages and the
# tests are read from here. ``score`` is a span's base score (relevance before selection),
# the number the table's score column and the JSON's ``score`` show.
COLUMNS: dict[str, tuple[str, ...]] = {
    "compile": ("path:lines", "span_id", "score", "tokens", "section"),  # + reasons with --explain
    "search": ("path:lines", "span_id", "score", "tokens", "section"),
    "links": ("direction", "type", "path[#span]", "detail"),  # direction: out, in or dangling
    "links --dangling": ("path:line", "target", "kind"),
    "usage": ("path", "uses", "usage_score"),
    "config": ("setting", "value", "origin"),
    "eval": ("system", "ndcg@10", "recall@100", "ws_recall", "relevant_share", "utilisation", "p50_ms", "p95_ms"),
    "-l": ("path",),
}


def _row(*fields: Any) -> str:
    return "\t".join(clean_line("" if f is None else str(f)) for f in fields) + "\n"


def _where(path: str, ref: Any) -> str:
    lines = getattr(ref, "lines", "")
    return f"{shown(path)}:{lines}" if lines else shown(path)


def compile_lines(resp: Any, *, explain: bool = False) -> str:
    """``COLUMNS["compile"]`` per working-set span, in selection order; with ``explain`` also
    all its reasons."""
    why = {e.span_ref.span_id: e for e in (resp.rationale or ())} if explain else {}
    out = []
    for item in resp.workingset.spans:
        fields = [_where(item.path, item.span_ref), item.span_ref.span_id, f"{item.score:.4f}", item.span_ref.token_cost,
                  item.section_title or ""]
        if explain:
            e = why.get(item.span_ref.span_id)
            fields.append("; ".join(e.reasons if e else item.reasons))
        out.append(_row(*fields))
    return "".join(out)


def search_lines(hits: Iterable[Any]) -> str:
    """``COLUMNS["search"]`` per ranked candidate."""
    return "".join(
        _row(_where(h.metadata.filepath, h.span_ref), h.span_ref.span_id, f"{h.base_score:.4f}", h.span_ref.token_cost,
             h.metadata.section_title or "")
        for h in hits
    )


def files_only(paths: Iterable[str], null: bool = False) -> str:
    """Each path once, in first-seen order (``-l/--files-only``); ``null`` (``-0``): each
    followed by a NUL instead of a newline, for ``xargs -0`` (index paths never hold a NUL
    or a control character: the walk skips such names)."""
    unique = dict.fromkeys(paths)
    if null:
        return "".join(shown(p) + "\0" for p in unique)
    return "".join(_row(shown(p)) for p in unique)


def links_lines(report: Mapping[str, Any]) -> str:
    """Dangling links: ``path:line  target  kind``; edges: ``direction  type  path[#span]  detail``."""
    out = []
    if report.get("kind") == "dangling-links":
        for d in report.get("dangling", []):
            out.append(_row(f"{shown(d['path'])}:{d.get('line') or ''}".rstrip(":"), d["target"], d["kind"]))
        return "".join(out)
    for direction, other in (("out", "dst"), ("in", "src")):
        for typ, edges in report.get(direction, {}).items():
            for e in edges:
                span = e.get(f"{other}_span")
                out.append(_row(direction, typ, shown(e[f"{other}_path"]) + (f"#{span}" if span else ""), e.get("detail") or ""))
    for d in report.get("dangling", []):
        out.append(_row("dangling", d["kind"], f"{shown(d['path'])}:{d.get('line') or ''}".rstrip(":"), d["target"]))
    return "".join(out)


def usage_lines(report: Mapping[str, Any]) -> str:
    """``path  uses  usage score`` per document: most used, least used, then never used (0)."""
    out, seen = [], set()
    for key in ("most_used", "least_used"):
        for r in report.get(key, []):
            if r["path"] not in seen:
                seen.add(r["path"])
                out.append(_row(shown(r["path"]), r.get("usage_count", 0), f"{r.get('dynamic_score', 0.0):.3f}"))
    for p in report.get("never_used", []):
        if p not in seen:
            out.append(_row(shown(p), 0, ""))
    return "".join(out)
