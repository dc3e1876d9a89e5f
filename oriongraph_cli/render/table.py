"""Terminal rendering with rich: ``orion compile`` tables, ``orion search`` hits, ``orion show``.

All user text (paths, section titles, document text, reasons) goes into ``rich.text.Text``
objects or through ``rich.markup.escape``, so ``[bold]`` or ``:smile:`` in a document is
printed literally. Colour and terminal features only on a TTY without ``NO_COLOR``
(see ``make_console``); otherwise the output is plain text with no control characters.
Tables fold or ellipsise long cells to stay readable at 80 columns: below ``MEDIUM``
columns the Working set drops its reasons column (they are in the Rationale) and ids fold;
below ``WIDE`` columns the Rationale stacks its scores into two cells.
"""

from __future__ import annotations

import os
import re
from typing import IO, Any, Iterable, Mapping

from rich import box
from rich.console import Console, Group
from rich.cells import cell_len
from rich.markup import escape
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from oriongraph_cli.render.markdown import (
    SEP,
    STALE_WARNING,
    explanations,
    fmt,
    fmt_value,
    format_mapping,
    one_line,
    pct,
    summary_line,
)
from oriongraph_cli.models import CHANNELS
from oriongraph_cli.render.paths import braced, shown

__all__ = ["make_console", "print_compile", "print_links", "print_search", "print_span", "print_usage"]

NON_TTY_WIDTH = 120
WIDE = 150  # Rationale: one column per score at or above this console width
MEDIUM = 100  # Working set: a reasons column, full span ids at or above this width
PREVIEW_CHARS = 160
REASONS_SHORT = 2  # reasons shown in the Working set table
CHANNEL_SHORT = tuple((ch, {"semantic": "sem", "lexical": "lex", "structural": "struct"}.get(ch, ch)) for ch in CHANNELS)


# --------------------------------------------------------------------------- console


def _isatty(file: Any) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def make_console(file: IO[str] | None = None, no_color: bool | None = None, color: str = "auto") -> Console:
    """A Console for ``file`` (default stdout).

    ``color``: ``always`` forces colour and terminal features even on a pipe; ``never``
    keeps them off; ``auto`` gives them only to a TTY when colour is allowed (``no_color``
    None: allowed unless ``NO_COLOR`` is set and non-empty). Without a terminal:
    ``force_terminal=False``, ``color_system=None``, ``width=120`` — plain text, no
    control characters, independent of ``COLUMNS``/``FORCE_COLOR``.
    """
    import sys

    file = file if file is not None else sys.stdout
    if no_color is None:
        no_color = os.environ.get("NO_COLOR", "") != ""
    common: dict[str, Any] = dict(
        file=file, emoji=False, highlight=False, markup=True, force_jupyter=False, legacy_windows=False
    )
    if color == "always":
        return Console(force_terminal=True, color_system="standard", width=None if _isatty(file) else NON_TTY_WIDTH, **common)
    if color == "never":
        no_color = True
    if not _isatty(file):
        return Console(
            force_terminal=False, force_interactive=False, color_system=None, no_color=True, width=NON_TTY_WIDTH,
            **common,
        )
    if no_color:
        return Console(force_terminal=True, color_system=None, no_color=True, **common)
    return Console(force_terminal=True, color_system="auto", **common)


# --------------------------------------------------------------------------- cells

_BREAKS = re.compile(r"(?<=/)(?!/)|(?<=\s)(?=\S)")  # after a path separator, or between words


class PathText:
    """A cell holding paths that breaks lines only after a ``/`` or between words, so a file
    or folder name is never split across lines (and stays whole to copy); only a name wider
    than the whole column is folded. It asks for room for its first line (the path and its
    section) on one line, less
    ``ROOM_BESIDE_PATHS`` for the other columns (never less than its longest name), so at
    150 columns a path stays on one line and at 90 it breaks at separators; its column is
    ``no_wrap`` so rich narrows the other columns first."""

    def __init__(self, text: Text):
        self.text = text

    @staticmethod
    def _pieces(line: str) -> list[str]:
        return [p for p in _BREAKS.split(line) if p]

    def __rich_measure__(self, console: Console, options: Any) -> Measurement:
        lines = self.text.plain.split("\n")
        longest = max((cell_len(p.rstrip()) for line in lines for p in self._pieces(line)), default=1)
        widest = cell_len(lines[0])  # the path (and its section) on one line
        wanted = max(longest, min(widest, console.width - ROOM_BESIDE_PATHS))
        return Measurement(min(longest, options.max_width), min(wanted, options.max_width))

    def __rich_console__(self, console: Console, options: Any):
        width = max(1, options.max_width)
        out = []
        for line in self.text.split("\n", allow_blank=True):
            offsets, used, at = [], 0, 0
            for piece in self._pieces(line.plain):
                size = cell_len(piece.rstrip())
                if used and used + size > width:
                    offsets.append(at)
                    used = 0
                used += cell_len(piece)
                at += len(piece)
            for part in line.divide(offsets) if offsets else [line]:
                part = part.rstrip() or part
                # a single name wider than the column is folded, never cropped
                out += part.wrap(console, width, overflow="fold") if cell_len(part.plain) > width else [part]
        yield Text("\n").join(out)


ROOM_BESIDE_PATHS = 60  # a path cell asks for the whole path on one line, up to the width less this
PATHS_WHOLE = 80  # from this console width, path columns are kept from narrowing below their longest name


def _paths_whole(console: Console) -> bool:
    """Whether path columns are ``no_wrap`` (rich narrows the other columns first): at 80
    columns and more; narrower, every column gives way and a long name may fold."""
    return console.width >= PATHS_WHOLE


def _where(path: str, section: str | None, *, stale: bool = False, note: str | None = None) -> PathText:
    t = Text(shown(path), style="bold")
    if section:
        t.append(SEP, style="dim")
        t.append(section)
    if stale:
        t.append("\n⚠ stale: changed since indexing", style="yellow")
    if note:
        t.append("\n" + note, style="dim")
    return PathText(t)


def _short(text: str, limit: int) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def _raw_norm(raw: float, norm: float, stacked: bool) -> str:
    return f"{fmt(raw, 2)}\n→{fmt(norm, 2)}" if stacked else f"{fmt(raw, 2)}→{fmt(norm, 2)}"


def _num_col(table: Table, header: str) -> None:
    table.add_column(header, justify="right", no_wrap=True)


# --------------------------------------------------------------------------- compile


def print_compile(console: Console, resp: Any, explain: bool = False) -> None:
    """Working set table; with ``explain`` also Rationale, Rejected, Defaults and a Stats panel."""
    items = list(resp.workingset.spans)
    expl = explanations(resp)
    rank_of = {it.span_ref.span_id: it.selection_rank for it in items}

    ws = Table(
        title=Text("Working set: " + one_line(resp.request.intent), style="bold"),
        caption=summary_line(resp),
        box=box.SIMPLE_HEAD,
        expand=False,
    )
    _num_col(ws, "#")
    with_reasons = console.width >= MEDIUM
    ws.add_column("path › section", no_wrap=_paths_whole(console), min_width=20)
    _num_col(ws, "tokens")
    _num_col(ws, "score")
    if with_reasons:
        ws.add_column("reasons", overflow="fold", min_width=12, max_width=36)
    for it in items:
        e = expl.get(it.span_ref.span_id)
        note = None
        if it.expansion_of:
            r = rank_of.get(it.expansion_of)
            note = f"↳ expands #{r}" if r is not None else f"↳ expands {it.expansion_of}"
        elif it.compression is not None:
            note = f"↳ shortened ({it.compression.level}, {it.compression.tokens} of {it.compression.tokens_full} tokens)"
        if it.copies:  # left out for this span: the same words
            same = "= same text in " + braced([shown(c.path) for c in it.copies])
            note = f"{note}\n{same}" if note else same
        reasons = list(e.reasons[:REASONS_SHORT]) if e is not None else []
        if e is not None and len(e.reasons) > REASONS_SHORT:
            reasons.append(f"+{len(e.reasons) - REASONS_SHORT} more")
        cells: list[Any] = [
            str(it.selection_rank),
            _where(it.path, it.section_title, stale=it.stale, note=note),
            str(it.span_ref.token_cost),
            fmt(it.score, 4),  # the base score, as --json and the plain lines give it
        ]
        if with_reasons:
            cells.append(Text("\n".join(_short(r, 60) for r in reasons)))
        ws.add_row(*cells)
    if not items:
        console.print(Text("No spans selected.", style="yellow"))
    else:
        console.print(ws)
    if any(it.stale for it in items):
        console.print(Text(STALE_WARNING, style="yellow"))

    if not explain:
        return
    if resp.rationale:
        console.print(_rationale_table(resp, console.width >= WIDE))
    if resp.rejected:
        console.print(_rejected_table(resp.rejected, console.width >= MEDIUM, _paths_whole(console)))
    if resp.defaults:
        console.print(_defaults_table(resp.defaults))
    console.print(_stats_panel(resp))


def _rationale_table(resp: Any, wide: bool) -> Table:
    t = Table(title=Text("Rationale", style="bold"), box=box.SIMPLE_HEAD, padding=(0, 1), expand=False)
    rows = sorted(resp.rationale, key=lambda e: (e.final_rank, e.span_ref.span_id))
    _num_col(t, "#")
    t.add_column("span", overflow="fold", width=8 if not wide else 16)
    if wide:
        _num_col(t, "base")
        for _, short in CHANNEL_SHORT:
            _num_col(t, short)
        _num_col(t, "recency")
        _num_col(t, "stage")
        _num_col(t, "usage")
        _num_col(t, "penalty")
        _num_col(t, "final")
        t.add_column("reasons", overflow="fold", min_width=16)
        for e in rows:
            t.add_row(
                str(e.final_rank),
                Text(e.span_ref.span_id),
                fmt(e.base_score, 3),
                *[_raw_norm(e.raw_scores.get(ch), e.scores.get(ch), False) for ch, _ in CHANNEL_SHORT],
                fmt(e.recency_score, 2),
                fmt(e.stage_boost, 2),
                fmt(e.usage_score, 2),
                fmt(e.diversity_penalty, 3),
                fmt(e.final_score, 3),
                Text("\n".join("• " + one_line(r) for r in e.reasons)),
            )
        return t
    # narrow: scores and channels stacked in two cells, reasons get the rest
    t.add_column("score", no_wrap=True)
    t.add_column("raw→norm", no_wrap=True)
    t.add_column("reasons", overflow="fold", min_width=16)
    for e in rows:
        scores = "\n".join(
            (
                f"base  {fmt(e.base_score, 3)}",
                f"pen   {fmt(e.diversity_penalty, 3)}",
                f"final {fmt(e.final_score, 3)}",
            )
        )
        chans = [f"{short:<6} {_raw_norm(e.raw_scores.get(ch), e.scores.get(ch), False)}" for ch, short in CHANNEL_SHORT]
        chans += [
            f"{'rec':<6} {fmt(e.recency_score, 2)}",
            f"{'stage':<6} {fmt(e.stage_boost, 2)}",
            f"{'usage':<6} {fmt(e.usage_score, 2)}",
        ]
        t.add_row(
            str(e.final_rank),
            Text(e.span_ref.span_id),
            scores,
            "\n".join(chans),
            Text("\n".join("• " + one_line(r) for r in e.reasons)),
        )
    return t


def _rejected_table(rejected: Iterable[Any], full_ids: bool = True, paths_whole: bool = True) -> Table:
    t = Table(title=Text("Rejected", style="bold"), box=box.SIMPLE_HEAD, expand=False)
    t.add_column("span", overflow="fold", width=16 if full_ids else 8)
    t.add_column("reason", no_wrap=True)
    _num_col(t, "tokens")
    _num_col(t, "base")
    t.add_column("path › section / detail", no_wrap=paths_whole, min_width=20)
    for r in rejected:
        where = _where(r.path, r.section_title)
        where.text.append("\n" + one_line(r.detail), style="dim")
        t.add_row(Text(r.span_id), Text(r.reason, style="yellow"), str(r.token_cost), fmt(r.base_score, 3), where)
    return t


def _defaults_table(defaults: Mapping[str, Any]) -> Table:
    t = Table(title=Text("Effective defaults", style="bold"), box=box.SIMPLE_HEAD, show_header=False, expand=False)
    t.add_column("setting", style="bold", no_wrap=True)
    t.add_column("value", overflow="fold")
    for k in defaults:
        t.add_row(Text(str(k)), Text(fmt_value(defaults[k])))
    return t


def _stats_panel(resp: Any) -> Panel:
    st = resp.stats
    g = Table.grid(padding=(0, 2))
    g.add_column(style="bold", no_wrap=True)
    g.add_column(overflow="fold")
    g.add_row("tokens", f"{st.delivered_tokens} / {st.budget} delivered ({pct(st.utilization)}); {st.tokens_used} quoted")
    g.add_row("candidates", Text(f"{format_mapping(st.candidates_seen, sort=True)} (total {st.candidates_total})"))
    g.add_row("selected", f"{st.selected} · shortened {st.compressed} · dropped {st.dropped} · sources {st.sources}")
    g.add_row("fusion", Text(str(st.fusion)))
    if st.relaxed_filters:
        g.add_row("relaxed filters", Text(", ".join(st.relaxed_filters), style="yellow"))
    for name in sorted(st.generator_errors):
        g.add_row(f"error ({escape(name)})", Text(one_line(st.generator_errors[name]), style="red"))
    if st.stale_spans:
        g.add_row("stale spans", Text(f"{st.stale_spans} — run `orion index`", style="yellow"))
    if getattr(resp, "index", None):
        g.add_row("index", Text(format_mapping(resp.index, sort=True)))
    if st.timings_ms is not None:
        g.add_row("timings (ms)", " · ".join(f"{escape(str(k))} {fmt(v, 1)}" for k, v in st.timings_ms.items()))
    return Panel(g, title="Stats", title_align="left", box=box.ROUNDED, expand=False)


# --------------------------------------------------------------------------- search


def _channels_short(scores: Any) -> str:
    parts = [f"{short} {fmt(scores.get(ch), 2)}" for ch, short in CHANNEL_SHORT if scores.get(ch)]
    return "\n".join(parts) if parts else "–"


def print_search(console: Console, hits: Iterable[Any]) -> None:
    """``orion search``: one row per ``CandidateSpan`` (rank order as given)."""
    hits = list(hits)
    if not hits:
        console.print(Text("No matches.", style="yellow"))
        return
    limit = PREVIEW_CHARS if console.width >= MEDIUM else PREVIEW_CHARS // 2
    t = Table(box=box.SIMPLE_HEAD, expand=False)
    _num_col(t, "#")
    t.add_column("score", no_wrap=True)
    t.add_column("path › section", no_wrap=_paths_whole(console), min_width=16)
    _num_col(t, "tokens")
    with_preview = console.width >= MEDIUM  # narrower, the room goes to whole path names
    if with_preview:
        t.add_column("preview", overflow="fold", min_width=12, max_width=60)
    for rank, h in enumerate(hits, 1):
        cells: list[Any] = [
            str(rank),
            fmt(h.base_score, 4) + "\n" + _channels_short(h.scores),
            _where(h.metadata.filepath, h.metadata.section_title),
            str(h.span_ref.token_cost),
        ]
        t.add_row(*cells, *([Text(_short(h.text_preview, limit), style="dim")] if with_preview else []))
    console.print(t)


# --------------------------------------------------------------------------- show


def print_span(console: Console, span: Mapping[str, Any]) -> None:
    """``orion show``: provenance header, then the span text exactly as indexed (no re-wrapping)."""
    header = _where(span.get("path", ""), span.get("section_title"))
    if span.get("span_id") is None:  # a document's lines (`orion show path:L12-L40`)
        meta = [span.get("lines") or f"L{span.get('line_start')}-L{span.get('line_end')}", "as the file is now"]
    else:
        meta = [
            f"span {span.get('span_id', '')}",
            f"chars {span.get('char_start', '')}–{span.get('char_end', '')}",
            f"{span.get('token_cost', '')} tokens",
        ]
    if span.get("doc_version_id"):
        meta.append(f"version {str(span['doc_version_id'])[:12]}")
    doc = [str(span[k]) if k == "title" else f"{k}: {span[k]}" for k in ("title", "stage", "workstream") if span.get(k)]
    lines: list[Any] = [header, Text(" · ".join(meta), style="dim")]
    if doc:
        lines.append(Text(" · ".join(doc), style="dim"))
    if span.get("stale"):
        lines.append(Text(STALE_WARNING, style="yellow"))
    console.print(Group(*lines))
    console.print()
    text = str(span.get("text", ""))
    console.print(Text(text.rstrip("\n")), soft_wrap=True)


# --------------------------------------------------------------------------- links / usage


def _endpoint(path: str, span: str | None) -> PathText:
    out = Text(shown(path))
    if span:
        out.append(f" #{span[:10]}", style="dim")
    return PathText(out)


def print_links(console: Console, report: Mapping[str, Any]) -> None:
    """``orion links``: edges out and in grouped by type, then dangling links."""
    if report.get("kind") == "dangling-links":
        items = report.get("dangling", [])
        if not items:
            console.print(Text("No dangling links."))
            return
        t = Table(box=box.SIMPLE_HEAD, title=f"Dangling links ({len(items)})")
        t.add_column("where", no_wrap=_paths_whole(console))
        t.add_column("target", no_wrap=_paths_whole(console))
        t.add_column("kind", no_wrap=True)
        for d in items:
            t.add_row(PathText(Text(f"{shown(d['path'])}:{d.get('line') or '?'}")), PathText(Text(str(d["target"]))), Text(str(d["kind"])))
        console.print(t)
        return
    console.print(Text(f"Links of {report.get('target')}", style="bold"))
    for direction, arrow, other in (("out", "→", "dst"), ("in", "←", "src")):
        groups = report.get(direction, {})
        count = sum(len(v) for v in groups.values())
        t = Table(box=box.SIMPLE_HEAD, title=f"{'Outgoing' if direction == 'out' else 'Incoming'} ({count})", title_justify="left")
        t.add_column("type", no_wrap=True)
        t.add_column(arrow, no_wrap=_paths_whole(console))
        t.add_column("detail", overflow="fold", max_width=50)
        for typ, edges in groups.items():
            for e in edges:
                t.add_row(Text(typ), _endpoint(e[f"{other}_path"], e.get(f"{other}_span")), Text(str(e.get("detail") or "")))
        if count:
            console.print(t)
        else:
            console.print(Text(f"{'Outgoing' if direction == 'out' else 'Incoming'}: none", style="dim"))
    for d in report.get("dangling", []):
        console.print(Text(f"dangling: {shown(d['path'])}:{d.get('line') or '?'} → {d['target']}", style="yellow"), soft_wrap=True)


def print_usage(console: Console, report: Mapping[str, Any]) -> None:
    """``orion usage``: most/least used documents with their dynamic score, never-used ones."""
    console.print(Text(
        f"{report.get('records', 0)} compile records, {report.get('episodes', 0)} episodes; "
        f"{report.get('used_documents', 0)}/{report.get('documents', 0)} documents used", style="bold"))
    for key, title in (("most_used", "Most used"), ("least_used", "Least used")):
        rows = report.get(key, [])
        if not rows:
            continue
        t = Table(box=box.SIMPLE_HEAD, title=title, title_justify="left")
        # a path breaks only after a `/`: its column is never narrower than its longest name,
        # and the score parts give way first (their header alone is 34 columns)
        longest = max(len(name) for r in rows for name in shown(r["path"]).split("/"))
        t.add_column("path", no_wrap=_paths_whole(console), min_width=longest)
        _num_col(t, "uses")
        t.add_column("dynamic", no_wrap=True)
        t.add_column("usage/recency/priority/age/novelty", overflow="fold")
        for r in rows:
            c = r.get("components", {})
            parts = "/".join(fmt(c.get(k, 0.0), 2) for k in ("usage", "recency", "priority", "age_penalty", "novelty_boost"))
            t.add_row(PathText(Text(shown(r["path"]))), str(r.get("usage_count", 0)), fmt(r.get("dynamic_score", 0.0), 3), parts)
        console.print(t)
    never = report.get("never_used", [])
    if never:
        console.print(Text(f"Never used ({len(never)}):", style="bold"))
        for p in never:
            console.print(Text(f"  {shown(p)}"), soft_wrap=True)  # one line, however long: the terminal wraps it
