"""Markdown renderers: the Working Set (``orion compile --format md``) and ``TASK_BRIEF.md``.

Plain Python only (no rich): output is byte-deterministic for the same ``CompileResponse``
(no wall-clock time, dict entries sorted, floats formatted with fixed precision) and
contains no ANSI codes. Span text is quoted verbatim, exactly as indexed.

The small formatting helpers here (``fmt``, ``location``, ``summary_line``,
``provenance_line`` ...) are shared with ``render.table``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

__all__ = [
    "workingset_markdown",
    "task_brief",
    "summary_line",
    "provenance_line",
    "location",
    "fmt",
    "fmt_value",
    "format_mapping",
    "STALE_WARNING",
]

STALE_WARNING = "⚠ file changed since indexing — quoting the indexed version; run `orion index`"
SEP = " › "  # between path and section title
DOT = " · "
CHANNEL_LABELS = (("semantic", "semantic"), ("lexical", "lexical"), ("structural", "structural"), ("graph", "graph"))


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


def summary_line(resp: Any) -> str:
    """``3 spans · 412/4000 tokens (10.3%) · 2 sources``."""
    st = resp.stats
    n = len(resp.workingset.spans)
    parts = [
        _plural(n, "span"),
        f"{st.tokens_used}/{st.budget} tokens ({pct(st.utilization)})",
        _plural(st.sources, "source"),
    ]
    if st.relaxed_filters:  # stated with the result, not only on stderr
        parts.append(f"filters relaxed (nothing matched them together): {', '.join(st.relaxed_filters)}")
    return DOT.join(parts)


def explanations(resp: Any) -> dict[str, Any]:
    """span_id -> SpanExplanation (empty when the response carries no rationale)."""
    return {e.span_ref.span_id: e for e in (resp.rationale or ())}


def provenance_line(item: Any, expl: Any | None = None) -> str:
    """`` `span <id> · chars 120–840 · 180 tokens · score 0.734` `` for one WSItem.

    The score is the explanation's final (MMR) score; without a rationale the item's
    ``source_weight`` is shown as ``weight``.
    """
    ref = item.span_ref
    parts = [f"span {ref.span_id}", f"chars {ref.char_start}–{ref.char_end}", _plural(ref.token_cost, "token")]
    if expl is not None:
        parts.append(f"score {fmt(expl.final_score)}")
    else:
        parts.append(f"weight {fmt(item.source_weight)}")
    return "`" + DOT.join(parts) + "`"


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


def _expansion_note(item: Any, rank_of: Mapping[str, int]) -> str:
    target = item.expansion_of
    rank = rank_of.get(target)
    return f"> expansion of span {target}" + (f" (#{rank})" if rank is not None else "")


def _append_text(out: list[str], text: str) -> None:
    """The span text verbatim, then one blank line."""
    out.append(text if text.endswith("\n") else text + "\n")
    out.append("\n")


def _stats_lines(resp: Any, with_timings: bool) -> list[str]:
    st = resp.stats
    seen = format_mapping(st.candidates_seen, sort=True)
    lines = [
        f"- tokens used: {st.tokens_used} / {st.budget} ({pct(st.utilization)})",
        f"- candidates seen: {seen} (total {st.candidates_total})",
        f"- selected {st.selected} · dropped {st.dropped} · sources {st.sources}",
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


def workingset_markdown(resp: Any, explain: bool = False) -> str:
    """The Working Set as Markdown: title, summary, then each span with its provenance.

    With ``explain`` and a rationale, appends ``## Rationale``; with ``explain`` also
    ``## Rejected`` (when any), ``## Defaults`` (when any) and ``## Stats``.
    """
    items = list(resp.workingset.spans)
    expl = explanations(resp)
    rank_of = {it.span_ref.span_id: it.selection_rank for it in items}
    out: list[str] = [f"# Working set: {one_line(resp.request.intent)}\n", "\n", summary_line(resp) + "\n", "\n"]
    if not items:
        out += ["_No spans selected._\n", "\n"]
    for it in items:
        out.append(f"### {it.selection_rank}. {location(it.path, it.section_title)}\n")
        out.append(provenance_line(it, expl.get(it.span_ref.span_id)) + "\n")
        out.append("\n")
        if it.stale:
            out += [f"> {STALE_WARNING}\n", "\n"]
        if it.expansion_of:
            out += [_expansion_note(it, rank_of) + "\n", "\n"]
        _append_text(out, it.text)

    if explain and resp.rationale:
        out += ["## Rationale\n", "\n"]
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

    if explain:
        if resp.rejected:
            out += ["## Rejected\n", "\n"]
            for r in resp.rejected:
                out.append(
                    f"- `{r.span_id}` {location(r.path, r.section_title)} — **{r.reason}**: {one_line(r.detail)}"
                    f" (base {fmt(r.base_score)} · {_plural(r.token_cost, 'token')})\n"
                )
            out.append("\n")
        if resp.defaults:
            out += ["## Defaults\n", "\n"]
            out += [f"- {k}: {fmt_value(resp.defaults[k])}\n" for k in resp.defaults]
            out.append("\n")
        out += ["## Stats\n", "\n"]
        out += [line + "\n" for line in _stats_lines(resp, with_timings=True)]
        out.append("\n")

    return _finish(out)


def _finish(out: Iterable[str]) -> str:
    """Join and end with exactly one newline."""
    return "".join(out).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- TASK_BRIEF.md


def _cell(text: Any) -> str:
    return one_line(str(text)).replace("|", "\\|") if text not in (None, "") else "–"


def task_brief(resp: Any) -> str:
    """``TASK_BRIEF.md`` for CI jobs: the working set grouped by source document.

    Documents appear in the order of their best-ranked span; spans beneath in rank order.
    Ends with a provenance table and stats. Deterministic: no wall-clock time, no timings.
    """
    req, st = resp.request, resp.stats
    items = sorted(resp.workingset.spans, key=lambda it: (it.selection_rank, it.span_ref.span_id))
    expl = explanations(resp)
    rank_of = {it.span_ref.span_id: it.selection_rank for it in items}

    out: list[str] = ["# TASK BRIEF\n", "\n", f"- **Intent:** {one_line(req.intent)}\n"]
    if req.task_id:
        out.append(f"- **Task:** {one_line(req.task_id)}\n")
    out.append(f"- **Budget:** {st.tokens_used} / {st.budget} tokens ({pct(st.utilization)})\n")
    out.append(f"- **Working set:** {_plural(len(items), 'span')} from {_plural(st.sources, 'source')}\n")
    if st.relaxed_filters:
        out.append(f"- **Filters relaxed:** {', '.join(st.relaxed_filters)} (nothing matched them together)\n")
    if st.stale_spans:
        out.append(f"- **Stale:** {st.stale_spans} span(s) quote an older indexed version; run `orion index`\n")
    out += ["\n", "## Working set\n", "\n"]

    groups: dict[str, list[Any]] = {}
    for it in items:
        groups.setdefault(it.path, []).append(it)
    if not groups:
        out += ["_No spans selected._\n", "\n"]
    for path, members in groups.items():
        out += [f"### {path}\n", "\n"]
        meta = []
        title = next((getattr(m, "title", None) for m in members if getattr(m, "title", None)), None)
        stage = next((getattr(m, "stage", None) for m in members if getattr(m, "stage", None)), None)
        ws = next((getattr(m, "workstream", None) for m in members if getattr(m, "workstream", None)), None)
        if title:
            meta.append(f"**{one_line(title)}**")
        if stage:
            meta.append(f"stage: {stage}")
        if ws:
            meta.append(f"workstream: {ws}")
        if meta:
            out += [DOT.join(meta) + "\n", "\n"]
        for it in members:
            out.append(f"#### {it.selection_rank}. {it.section_title or '(before the first heading)'}\n")
            e = expl.get(it.span_ref.span_id)
            out.append(provenance_line(it, e) + "\n")
            out.append("\n")
            if it.stale:
                out += [f"> {STALE_WARNING}\n", "\n"]
            if it.expansion_of:
                out += [_expansion_note(it, rank_of) + "\n", "\n"]
            if e is not None and e.reasons:
                out += ["_Why:_ " + "; ".join(one_line(r) for r in e.reasons) + "\n", "\n"]
            _append_text(out, it.text)

    out += ["## Provenance\n", "\n"]
    out.append("| # | span_id | path | section | chars | tokens |\n")
    out.append("|---:|---|---|---|---|---:|\n")
    for it in items:
        ref = it.span_ref
        out.append(
            f"| {it.selection_rank} | `{ref.span_id}` | {_cell(it.path)} | {_cell(it.section_title)} "
            f"| {ref.char_start}–{ref.char_end} | {ref.token_cost} |\n"
        )
    out.append("\n")
    out += ["## Stats\n", "\n"]
    out += [line + "\n" for line in _stats_lines(resp, with_timings=False)]
    return _finish(out)
