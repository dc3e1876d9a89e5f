"""``--json`` output: the dataclasses' ``to_dict()``, serialised deterministically.

The contract is versioned by ``schema_version`` (``models.SCHEMA_VERSION``). Key order is
the dataclass field order (``sort_keys=False``) so the output reads top-down the same way
every time; floats are already rounded by ``to_dict()``. Non-finite floats (NaN, ±inf),
which ``json`` would emit as invalid JSON, become ``null``. Nothing time-dependent is
added here: ``stats.timings_ms`` is ``null`` unless the request asked for timings.
"""

from __future__ import annotations

import json as _json
import math
from typing import Any, Iterable

__all__ = ["dumps", "dumps_compact", "dumps_dict", "search_payload", "compile_payload", "lean_payload"]


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def dumps_dict(d: Any) -> str:
    """Serialise a plain dict (or list) as indented JSON with a trailing newline."""
    return _json.dumps(_finite(d), indent=2, sort_keys=False, ensure_ascii=False, default=str) + "\n"


def dumps_compact(d: Any) -> str:
    """One line, no spaces after separators: the compile payload counts against the budget,
    and indentation was a fifth of it (pipe to ``jq .`` to read it)."""
    return _json.dumps(_finite(d), separators=(",", ":"), sort_keys=False, ensure_ascii=False, default=str) + "\n"


def dumps(obj: Any) -> str:
    """Serialise an object with ``to_dict()`` (e.g. ``CompileResponse``); plain dicts pass through."""
    if hasattr(obj, "to_dict"):
        return dumps_dict(obj.to_dict())
    return dumps_dict(obj)


def search_payload(query: str, hits: Iterable[Any], **extra: Any) -> dict[str, Any]:
    """The ``orion search --json`` document: ``{"schema_version", "kind": "search", "query", "hits", ...}``."""
    from oriongraph_cli.models import SCHEMA_VERSION

    payload: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "kind": "search", "query": query}
    payload.update(extra)
    payload["hits"] = [h.to_dict() if hasattr(h, "to_dict") else h for h in hits]
    return payload


def compile_payload(resp: Any, explain: bool = False) -> dict[str, Any]:
    """The ``orion compile --json`` document, compact (its size counts against the budget):
    the working set grouped by document, each quote with its lines, its spans' ids and its
    text once. Keys that would hold nothing (no status, a whole quote, no
    left-out list) are left out, and the summary line is not repeated (``stats`` and the
    token counts say it); scores, document titles, stages,
    per-span ranks, costs, priorities and reasons, the request and the rationale come only
    with ``explain``, in ``explanation`` (not counted in the budget)."""
    from oriongraph_cli.models import COMPILE_SCHEMA_VERSION
    from oriongraph_cli.render.markdown import preamble

    st = resp.stats
    out: dict[str, Any] = {
        "schema_version": COMPILE_SCHEMA_VERSION,
        "kind": "compile",
        "intent": resp.request.intent,
        "budget": st.budget,
        "delivered_tokens": st.delivered.get("json", st.delivered_tokens),
        "quoted_tokens": st.tokens_used,
    }
    _put(out, task_id=resp.request.task_id, episode_id=resp.episode_id, about=None if resp.compact else preamble(resp))
    out["documents"] = [_document(d, resp.short_id) for d in resp.workingset.documents]
    _put(out, left_out=[{"path": lo.path, "score": round(lo.score, 4), "reason": lo.reason, "detail": lo.detail}
                        for lo in resp.left_out])
    stats: dict[str, Any] = {"spans": len(resp.workingset.spans), "documents": st.sources}
    _put(stats, shortened=st.compressed, stop=st.stop, relaxed_filters=list(st.relaxed_filters), stale_spans=st.stale_spans,
         generator_errors=dict(st.generator_errors))
    out["stats"] = stats
    _put(out, generation=resp.index.get("generation"))
    if explain:
        out["explanation"] = _explanation(resp)
    return out


def _explanation(resp: Any) -> dict[str, Any]:
    """What ``--explain`` adds to either JSON (not counted in the budget)."""
    full = resp.to_dict()
    return {"counted": False, "index": dict(resp.index), "documents": [d.to_dict() for d in resp.workingset.documents],
            **{k: full[k] for k in ("request", "signals", "stats", "rationale", "rejected", "defaults")}}


def lean_payload(resp: Any, explain: bool = False) -> dict[str, Any]:
    """The ``orion compile --format json-lean`` document: what the XML says, as JSON — for a
    reader (an agent's tool result, a prompt) more than for a script. Each document is
    ``{"source", "text"}``: ``source`` as the XML's (the path, and from 1,000 tokens the
    lines of its quotes in order: ``orion show`` and the MCP ``get_span`` take it), ``text``
    its quotes in order with Markdown's mark between two (``[… skipped Consequences …]``),
    ``status``, ``copies`` (Markdown's ``same text in …``) and ``stale`` only where they hold
    something. No span ids, per-quote keys or counts: in ``--json`` they were over a fifth of a 1,000-token output. From 3,000 tokens
    it carries the intent, the counts, ``about``, ``summary`` and ``left_out``, as the XML
    does; ``--explain`` adds ``explanation`` (not counted)."""
    from oriongraph_cli.models import LEAN_SCHEMA_VERSION
    from oriongraph_cli.render.markdown import (
        copies_note, document_source, gap_mark, header_lines_pay, intent_echo, one_line, preamble, stale_lines, summary_line, summary_pays,
        title_echoes,
    )

    st = resp.stats
    full = summary_pays(resp)
    out: dict[str, Any] = {"schema_version": LEAN_SCHEMA_VERSION, "kind": "compile-lean"}
    _put(out, intent=intent_echo(resp) if title_echoes(resp) else None, task_id=resp.request.task_id)
    if full:
        out.update(budget=st.budget, delivered_tokens=st.delivered.get("json-lean", st.delivered_tokens), quoted_tokens=st.tokens_used)
    _put(out, about=None if resp.compact else preamble(resp), summary=summary_line(resp, "json-lean") if full else None)
    ranges = header_lines_pay(resp)
    documents = []
    for doc in resp.workingset.documents:
        entry: dict[str, Any] = {"source": document_source(doc, ranges)}
        _put(entry, status=one_line(doc.status) if doc.status else None, copies=copies_note(doc, ranges), stale=stale_lines(doc))
        parts = []
        for q in doc.quotes:
            mark = gap_mark(q)
            if mark:
                parts.append(mark)
            parts.append(q.text.strip("\n"))
        entry["text"] = "\n\n".join(parts)
        documents.append(entry)
    out["documents"] = documents
    _put(out, left_out=[{"path": lo.path, "score": round(lo.score, 4), "detail": one_line(lo.detail)} for lo in resp.left_out])
    if explain:
        out["explanation"] = _explanation(resp)
    return out


def _put(d: dict[str, Any], **values: Any) -> None:
    """Set the values that hold something (not ``None``, ``0``, ``""`` or empty)."""
    d.update({k: v for k, v in values.items() if v not in (None, 0, "", [], {})})


def _document(doc: Any, short_id: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"path": doc.path}
    _put(out, status=doc.status)
    out["quotes"] = [_quote(q, short_id) for q in doc.quotes]
    return out


def _copies(q: Any) -> list[dict[str, Any]]:
    """Where else a quote's text stands word for word: ``{"path", "lines"}`` per document,
    the lines of its spans that repeat the quote's."""
    found: dict[str, list[int]] = {}
    for i in q.items:
        for c in i.copies:
            a, b = found.setdefault(c.path, [c.line_start, c.line_end])
            found[c.path] = [min(a, c.line_start), max(b, c.line_end)]
    return [{"path": p, "lines": lines} for p, lines in found.items()]


def _quote(q: Any, short_id: Any) -> dict[str, Any]:
    """``{"lines": [start, end], "spans": [ids], "text"}`` (each id by its unique prefix:
    ``short_id``) and, when they apply,
    ``shortened`` (its level: ``orion show PATH:Lstart-Lend`` prints the lines whole),
    ``stale``, ``expansion_of`` and ``copies`` (other documents holding its text word for
    word, each ``{"path", "lines"}``: left out rather than quoted twice). The spans' scores
    are in ``explanation`` with ``--explain``."""
    out: dict[str, Any] = {"lines": [q.line_start, q.line_end], "spans": [short_id(i.span_ref.span_id) for i in q.items]}
    c = q.compression
    if c is not None:
        out["shortened"] = c.level
    _put(out, stale=any(i.stale for i in q.items),
         expansion_of=next((i.expansion_of for i in q.items if i.expansion_of), None),
         copies=_copies(q))
    out["text"] = q.text
    return out
