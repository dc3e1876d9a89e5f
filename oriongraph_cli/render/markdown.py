"""Markdown renderers: the Working Set (``orion compile --format md``) and ``TASK_BRIEF.md``.

Plain Python only (no rich): output is byte-deterministic for the same ``CompileResponse``
(no wall-clock time, dict entries sorted, floats formatted with fixed precision) and
contains no ANSI codes. Span text is quoted verbatim, exactly as indexed.

The small formatting helpers here (``fmt``, ``location``, ``summary_line`` ...) are
shared with ``render.table``.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from oriongraph_cli.blocks import RST_ADORNMENT, SETEXT_UNDERLINE, is_rst, rst_underlines
from oriongraph_cli.models import CHANNELS, is_pointer, lines_label
from oriongraph_cli.render.paths import braced

__all__ = [
    "workingset_markdown",
    "task_brief",
    "summary_line",
    "intent_echo",
    "preamble",
    "demote_headings",
    "location",
    "fmt",
    "fmt_value",
    "format_mapping",
    "STALE_WARNING",
]

STALE_WARNING = "⚠ file changed since indexing — quoting the indexed version; run `orion index`"
SEP = " › "  # between path and section title
DOT = " · "
CHANNEL_LABELS = tuple((ch, ch) for ch in CHANNELS)


# --------------------------------------------------------------------------- helpers


def fmt(x: float | int | None, nd: int = 3) -> str:
    """Fixed-precision number; never prints ``-0.000``; ``None`` prints as ``–``."""
    if x is None:
        return "–"
    s = f"{float(x):.{nd}f}"
    if s.startswith("-") and float(s) == 0.0:
        s = s[1:]
    return s


def pct(fraction: float) -> str:
    """``0.1234`` -> ``12.3%`` (``stats.utilization`` is a fraction of the budget)."""
    return f"{fmt(float(fraction) * 100, 1)}%"


def one_line(text: str | None) -> str:
    """Collapse all whitespace (newlines included) to single spaces."""
    return " ".join((text or "").split())


def location(path: str, section: str | None) -> str:
    """``path › Section > Sub`` (or just the path when the span precedes any heading)."""
    return f"{path}{SEP}{section}" if section else path


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(resp: Any, fmt: str | None = None) -> str:
    """``3,987 / 4,000 tokens delivered; 3,512 of quoted text · 9 spans from 4 documents``
    (the delivered count of ``fmt``'s output, else of the format asked for)."""
    st = resp.stats
    n = len(resp.workingset.spans)
    delivered = st.delivered.get(fmt, st.delivered_tokens) if fmt else st.delivered_tokens
    parts = [
        f"{delivered:,} / {st.budget:,} tokens delivered; {st.tokens_used:,} of quoted text",
        f"{_plural(n, 'span')} from {_plural(st.sources, 'document')}",
    ]
    if st.compressed:
        parts.append(f"{st.compressed} shortened")
    if st.stop:
        parts.append(st.stop)
    if st.relaxed_filters:  # stated with the result, not only on stderr
        parts.append(f"filters relaxed (nothing matched them together): {', '.join(st.relaxed_filters)}")
    return DOT.join(parts)


SUMMARY_MIN = 1000  # below this budget a brief names only the intent's first words
TITLE_WORDS = 8  # ... (those words)
ECHO_MAX_WORDS = 200  # an intent repeated whole stops here (a pasted page is no title): what it costs stays bounded
SUMMARY_LINE_MIN = 3000  # below this budget the summary line and the intent in the title cost more than they tell
HEADER_LINES_MIN = 1000  # below this budget a document header names no line ranges
GAP_MARK = "[…]"  # between two quotes of a document when the text skipped holds no heading


def intent_echo(resp: Any) -> str:
    """The intent as a title or brief repeats it: whole from ``SUMMARY_MIN`` tokens (up to
    ``ECHO_MAX_WORDS`` words), else its first ``TITLE_WORDS`` words and ``…``."""
    words = one_line(resp.request.intent).split(" ")
    keep = ECHO_MAX_WORDS if resp.stats.budget >= SUMMARY_MIN else TITLE_WORDS
    text = " ".join(words[:keep])
    if len(text) > keep * 10:  # words of no spaces: as many characters as those words would hold
        text = text[: keep * 10]
    return text if text == " ".join(words) else text + " …"


def title_echoes(resp: Any) -> bool:
    """Whether the working set has a title repeating the intent: from ``SUMMARY_LINE_MIN``
    tokens, with the summary line and the preamble. Under that it starts with its first
    document — its reader asked the question, and the budget is for the quotes (the task
    brief, a file read later, always names its intent; ``--json`` carries it)."""
    return resp.stats.budget >= SUMMARY_LINE_MIN


def summary_pays(resp: Any) -> bool:
    """Whether the Markdown and XML outputs carry the summary line: from ``SUMMARY_LINE_MIN``
    tokens (where the preamble starts too), or whenever it says something the quotes cannot
    (filters were relaxed, stale spans, nothing was selected). Its counts are in ``--json``
    and ``--explain`` at any budget; in a 1,000-token working set they were 3 % of it."""
    st = resp.stats
    return st.budget >= SUMMARY_LINE_MIN or bool(st.relaxed_filters) or bool(st.stale_spans) or not resp.workingset.documents


def header_lines_pay(resp: Any) -> bool:
    """Whether a document's header (Markdown ``##``, the XML ``source``) carries the line
    ranges of its quotes: from ``HEADER_LINES_MIN`` tokens. Under that a working set holds
    two to five passages and the ranges were about a sixth of its framing, room an answering
    sentence needs more (evidence recall on held-out SciFact claims at 300 tokens 64.8 →
    66.0 %, docs/BENCHMARKS.md, "After: document headers without line ranges under 1,000
    tokens");
    ``orion show PATH`` prints the file, and ``--json`` and ``--explain`` keep the lines."""
    return resp.stats.budget >= HEADER_LINES_MIN


def preamble(resp: Any) -> str:
    """One paragraph saying what the output is and how to get more."""
    return (
        "Project documents quoted by orion for this intent, in reading order; quotes are exact, […] marks "
        "a shortened one (`orion show PATH:LINES` prints it whole); paths are from the project root, lines are the file's."
    )


def explanations(resp: Any) -> dict[str, Any]:
    """span_id -> SpanExplanation (empty when the response carries no rationale)."""
    return {e.span_ref.span_id: e for e in (resp.rationale or ())}


def fmt_value(v: Any) -> str:
    """Compact, deterministic text for a settings value (numbers with ``:g``, lists joined)."""
    if isinstance(v, bool) or v is None:
        return str(v).lower() if v is not None else "none"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, Mapping):
        return format_mapping(v)
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=str) if isinstance(v, (set, frozenset)) else list(v)
        return ", ".join(fmt_value(i) for i in items) if items else "none"
    return str(v)


def format_mapping(d: Mapping[str, Any], sort: bool = False) -> str:
    """``{"a": 1, "b": 0.5}`` -> ``a 1 · b 0.5`` (insertion order unless ``sort``)."""
    keys = sorted(d, key=str) if sort else list(d)
    return DOT.join(f"{k} {fmt_value(d[k])}" for k in keys) if keys else "none"


def _append_text(out: list[str], text: str) -> None:
    """The span text verbatim, then one blank line."""
    out.append(text if text.endswith("\n") else text + "\n")
    out.append("\n")


def _stats_lines(resp: Any, with_timings: bool) -> list[str]:
    st = resp.stats
    seen = format_mapping(st.candidates_seen, sort=True)
    lines = [
        f"- tokens delivered: {st.delivered_tokens} / {st.budget} ({pct(st.utilization)}); quoted text {st.tokens_used}",
        f"- candidates seen: {seen} (total {st.candidates_total})",
        f"- selected {st.selected} · shortened {st.compressed} · dropped {st.dropped} · sources {st.sources}",
        f"- fusion: {st.fusion}",
    ]
    if st.relaxed_filters:
        lines.append(f"- relaxed filters: {', '.join(st.relaxed_filters)}")
    if st.generator_errors:
        errs = "; ".join(f"{k}: {one_line(st.generator_errors[k])}" for k in sorted(st.generator_errors))
        lines.append(f"- generator errors: {errs}")
    if st.stale_spans:
        lines.append(f"- stale spans: {st.stale_spans} (run `orion index`)")
    if getattr(resp, "index", None):
        lines.append(f"- index: {format_mapping(resp.index, sort=True)}")
    if with_timings and st.timings_ms is not None:
        t = DOT.join(f"{k} {fmt(st.timings_ms[k], 1)}" for k in st.timings_ms)
        lines.append(f"- timings (ms): {t}")
    return lines


# --------------------------------------------------------------------------- working set

_QUOTED_HEADING = re.compile(r"^(#{1,6})(?=\s)")
_FENCE = re.compile(r"^\s*(```|~~~)")
# a line that can be part of a setext heading's title: a paragraph's line, not a list item,
# quote, heading, table row, code or a line of HTML
_SETEXT_TITLE = re.compile(r"^ {0,3}(?![-*+>#|<]|\d+[.)](?:\s|$))\S")
QUOTE_HEADING_MIN = 4  # quoted headings start at ####: only ## marks a document


def demote_headings(text: str, rst: bool = False) -> str:
    """Headings inside a quote pushed below the document level (``#`` -> ``####``, capped
    at ``######``; a setext heading, ``x`` over ``===`` or ``---``, written as
    ``#### x`` or ``##### x``), fenced code left alone, so no quoted heading reads as a
    document. ``rst``: a reStructuredText quote, whose section titles (under, and maybe
    over, any adornment) are written ``##### x`` — a line of backticks under a title would
    otherwise open a fence in the Markdown delivered —, and so are the ``# x`` and ``## x``
    a shortened quote wrote for them (a column-0 ``#`` is no other reStructuredText: its
    code is indented)."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if rst and RST_ADORNMENT.match(line) and out and rst_underlines(out[-1], line):
            title = out.pop().strip()
            if out and out[-1].rstrip() == line.rstrip():
                out.pop()  # its overline
            out.append("#" * (1 + QUOTE_HEADING_MIN) + " " + title)
            continue
        if rst:
            m = _QUOTED_HEADING.match(line)
            out.append("#" * (1 + QUOTE_HEADING_MIN) + line[m.end():] if m else line)
            continue
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            m = _QUOTED_HEADING.match(line)
            u = SETEXT_UNDERLINE.match(line)
            if m:
                level = min(6, len(m.group(1)) + QUOTE_HEADING_MIN - 1)
                line = "#" * level + line[m.end():]
            elif u and out and _SETEXT_TITLE.match(out[-1]):
                k = len(out) - 1  # the paragraph the underline closes: its title
                while k > 0 and _SETEXT_TITLE.match(out[k - 1]):
                    k -= 1
                if k == 0 or not out[k - 1].strip() or _QUOTED_HEADING.match(out[k - 1]):
                    level = (1 if u.group(1) == "=" else 2) + QUOTE_HEADING_MIN - 1
                    out[k:] = ["#" * level + " " + " ".join(x.strip() for x in out[k:])]
                    continue
        out.append(line)
    return "\n".join(out)


def document_meta(doc: Any) -> str:
    """``**ADR-0007: …** · stage design · workstream ws-ingestion · status accepted · L12-L80``
    (the terminal table's line; the Markdown header is :func:`document_header`)."""
    parts = []
    if doc.title:
        parts.append(f"**{one_line(doc.title)}**")
    if doc.stage:
        parts.append(f"stage {doc.stage}")
    if doc.workstream:
        parts.append(f"workstream {doc.workstream}")
    if doc.status:
        parts.append(f"status {one_line(doc.status)}")
    if doc.lines:
        parts.append(doc.lines)
    return DOT.join(parts)


def _stale(q: Any) -> bool:
    return any(i.stale for i in q.items)


def quote_lines(doc: Any) -> str:
    """``L12-L40,L61-L64``: the lines of a document's quotes, in the order they follow; quotes
    with nothing skipped between them (a whole span, then a shortened one) read as one
    passage and are given as one range (a pointer, which quotes nothing, has its lines in
    its own text)."""
    ranges: list[list[int]] = []
    for q in doc.quotes:
        if not q.line_start or is_pointer(q):
            continue
        if ranges and not q.elided_before:
            ranges[-1][1] = max(ranges[-1][1], q.line_end)
        else:
            ranges.append([q.line_start, q.line_end])
    return ",".join(lines_label(a, b) for a, b in ranges)


def document_source(doc: Any, lines: bool = True) -> str:
    """``path:L12-L40,L61-L64`` (the path alone without ``lines``): how the XML's ``source``
    and the lean JSON's name a document's text — what Markdown's header says before its
    status, and what ``orion show`` and ``get_span`` read back."""
    ranges = quote_lines(doc) if lines else ""
    return f"{doc.path}:{ranges}" if ranges else doc.path


def stale_lines(doc: Any) -> str:
    """``L12-L40,L61-L64``: the lines of a document's quotes that are the indexed version of
    a file changed since (``""`` when none)."""
    return ",".join(q.lines for q in doc.quotes if _stale(q))


def copies_note(doc: Any, lines: bool = True) -> str:
    """Where else a document's quoted text stands word for word (``WSItem.copies``: a
    versioned site's copy of the page, a shared include), ``""`` when nowhere:
    ``same text in docs/{v2,v3}/setup.md``, or, for copies of only some of its quotes,
    ``L12-L40 also in …`` or ``same text but L61-L64 in …``, whichever names fewer quotes
    (``part also in …`` where the header gives no lines). Paths that
    differ in one folder are written once, braced (``paths.braced``)."""
    quotes = [q for q in doc.quotes if not is_pointer(q)]
    where: dict[str, list[int]] = {}  # copy path -> the quotes it repeats
    for n, q in enumerate(quotes):
        for i in q.items:
            for c in getattr(i, "copies", ()):
                if n not in where.setdefault(c.path, []):
                    where[c.path].append(n)
    if not where:
        return ""
    groups: dict[tuple[int, ...], list[str]] = {}
    for path, ns in where.items():
        groups.setdefault(tuple(ns), []).append(path)
    parts = []
    for ns, paths in groups.items():
        if len(ns) == len(quotes):
            parts.append(f"same text in {braced(paths)}")
        elif lines and all(q.line_start for q in quotes):
            rest = [quotes[n].lines for n in range(len(quotes)) if n not in ns]
            if len(rest) < len(ns):  # the shorter list: the quotes it does not repeat
                parts.append(f"same text but {','.join(rest)} in {braced(paths)}")
            else:
                parts.append(f"{','.join(quotes[n].lines for n in ns)} also in {braced(paths)}")
        else:
            parts.append(f"part also in {braced(paths)}")
    return DOT.join(parts)


def document_header(doc: Any, lines: bool = True) -> str:
    """``## path:L12-L40,L61-L64 · superseded by ADR-0007``: the path with the lines of each
    quote in the order they follow (``orion show path:L12-L40`` brings one whole; a shortened
    quote shows ``[…]`` where text was left out; not with ``lines`` false, :func:`header_lines_pay`),
    and the status only where the document has one, then where else its text stands word
    for word (:func:`copies_note`); titles, span ids and scores are in
    ``--json`` and ``--explain``."""
    parts = ["## " + document_source(doc, lines)]
    if doc.status:
        parts.append(one_line(doc.status))
    copies = copies_note(doc, lines)
    if copies:
        parts.append(copies)
    return DOT.join(parts)


def quote_line(q: Any) -> str | None:
    """A line before a quote only when it is not the file's text now: `` `L12-L40 · indexed
    version (file changed)` ``; ``None`` otherwise (its lines are in the document header)."""
    if not _stale(q):
        return None
    return "`" + DOT.join(([q.lines] if q.lines else []) + ["indexed version (file changed)"]) + "`"


def skipped_headings(q: Any) -> str:
    """The headings of the text skipped before a quote (``""`` when none): the skipped lines
    themselves are not repeated, the header's line ranges say them (from 1,000 tokens)."""
    _where, _, heads = (q.elided_before or "").partition(": ")
    return one_line(heads)


def gap_mark(q: Any) -> str | None:
    """What stands between a quote and the one before it in the same document:
    ``[… skipped Consequences …]`` naming the headings skipped, ``[…]`` when the text skipped
    holds none, ``None`` when nothing was skipped (a whole span, then a shortened one)."""
    if not q.elided_before:
        return None
    heads = skipped_headings(q)
    return f"[… skipped {heads} …]" if heads else GAP_MARK


def left_out_lines(resp: Any) -> list[str]:
    return [f"- {lo.path} — score {fmt(lo.score)}: {one_line(lo.detail)}\n" for lo in getattr(resp, "left_out", ())]


def workingset_markdown(resp: Any, explain: bool = False, brief: bool = False) -> str:
    """The Working Set as one Markdown document, in reading order: title, preamble, summary,
    then each document (``##`` header with the lines of its quotes) with its quotes, a mark
    between two of them (the headings skipped, or ``[…]``), and
    the documents of note left out. This part is what the budget counts. With ``explain``,
    an ``## Explanation`` section (not counted) follows: rationale in pick order, rejected
    candidates with what would let them in, defaults, stats."""
    req = resp.request
    docs = list(resp.workingset.documents)
    if brief:
        out: list[str] = ["# TASK BRIEF\n", "\n", f"**Intent:** {intent_echo(resp)}\n", "\n"]
        if req.task_id:
            out += [f"**Task:** {one_line(req.task_id)}\n", "\n"]
    else:
        out = [f"# Working set: {intent_echo(resp)}\n", "\n"] if title_echoes(resp) else []
    if not resp.compact:
        out += [preamble(resp) + "\n", "\n"]
    if summary_pays(resp):
        out += [summary_line(resp, "brief" if brief else "markdown") + "\n", "\n"]
    if resp.stats.stale_spans:
        out += [f"> {STALE_WARNING}\n", "\n"]
    if not docs:
        out += ["_No spans selected._\n", "\n"]
    ranges = header_lines_pay(resp)
    for doc in docs:
        out += [document_header(doc, ranges) + "\n", "\n"]
        for q in doc.quotes:
            mark = gap_mark(q)
            if mark:
                out += [mark + "\n", "\n"]
            if is_pointer(q):
                out += [q.text + "\n", "\n"]
                continue
            line = quote_line(q)
            if line:
                out += [line + "\n", "\n"]
            _append_text(out, demote_headings(q.text, is_rst(doc.path)))
    lo = left_out_lines(resp)
    if lo:
        out += ["## Left out\n", "\n"] + lo + ["\n"]
    if explain:
        out += _explanation(resp)
    return _finish(out)


def _explanation(resp: Any) -> list[str]:
    out = ["## Explanation (not counted in the budget)\n", "\n"]
    if resp.rationale:
        out += ["### Rationale (pick order)\n", "\n"]
        for e in sorted(resp.rationale, key=lambda e: (e.final_rank, e.span_ref.span_id)):
            out.append(f"**#{e.final_rank}** {location(e.path, e.section_title)} (`{e.span_ref.span_id}`)\n")
            out.append("\n")
            chans = DOT.join(f"{label} {fmt(e.raw_scores.get(ch))}→{fmt(e.scores.get(ch))}" for ch, label in CHANNEL_LABELS)
            out.append(f"- base score: {fmt(e.base_score)}\n")
            out.append(f"- channels (raw→normalised): {chans}\n")
            out.append(
                f"- recency {fmt(e.recency_score)} · stage boost {fmt(e.stage_boost)} · usage {fmt(e.usage_score)}\n"
            )
            if e.components:
                comps = DOT.join(f"{k} {fmt(e.components[k])}" for k in sorted(e.components))
                out.append(f"- components: {comps}\n")
            out.append(f"- diversity penalty: {fmt(e.diversity_penalty)}\n")
            out.append(f"- final score: {fmt(e.final_score)}\n")
            if e.reasons:
                out.append("- reasons:\n")
                out += [f"  - {one_line(r)}\n" for r in e.reasons]
            out.append("\n")
    if resp.rejected:
        out += ["### Rejected\n", "\n"]
        for r in resp.rejected:
            out.append(
                f"- `{r.span_id}` {location(r.path, r.section_title)} — **{r.reason}**: {one_line(r.detail)}"
                f" (base {fmt(r.base_score)} · {_plural(r.token_cost, 'token')})\n"
            )
        out.append("\n")
    if resp.defaults:
        out += ["### Defaults\n", "\n"]
        out += [f"- {k}: {fmt_value(resp.defaults[k])}\n" for k in resp.defaults]
        out.append("\n")
    out += ["### Stats\n", "\n"]
    out += [line + "\n" for line in _stats_lines(resp, with_timings=True)]
    out.append("\n")
    return out


def _finish(out: Iterable[str]) -> str:
    """Join and end with exactly one newline."""
    return "".join(out).rstrip("\n") + "\n"


def task_brief(resp: Any, explain: bool = False) -> str:
    """``TASK_BRIEF.md`` for CI jobs and agents: the working set as Markdown under a task
    header, the whole file within the budget (``--explain`` appends what is not counted).
    Deterministic: no wall-clock time, no timings."""
    return workingset_markdown(resp, explain=explain, brief=True)
