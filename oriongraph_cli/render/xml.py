"""``--format xml``: the working set as XML tags, the way prompts for Claude-style models
quote documents::

    <working_set intent="…" budget="4000" delivered="3987" quoted="3512">
    <about>…</about>
    <summary>…</summary>
    <document path="…" status="accepted">
    <span id="3f2a…" lines="L12-L40">…exact text…</span>
    <skipped>Consequences</skipped>
    <span id="…" lines="L61-L64" shortened="sentences">…</span>
    </document>
    <left_out><document path="…" score="0.412">needs --budget &gt;= 4,180</document></left_out>
    </working_set>

Text and attributes are escaped (``&``, ``<``, ``>``, quotes), so quoted text can never
close a tag; the output parses with any XML parser. Same content and order as Markdown,
and as lean: a document carries its path and its status where it has one (titles, stages
and workstreams are in ``--explain`` and ``--json --explain``), a shortened span its level
(``orion show PATH:LINES`` prints its lines whole).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from oriongraph_cli.render.markdown import (
    fmt, intent_echo, one_line, preamble, skipped_headings, summary_line, summary_pays, title_echoes,
)


def _attrs(**kw: Any) -> str:
    return "".join(f" {k}={quoteattr(one_line(str(v)))}" for k, v in kw.items() if v not in (None, ""))


def workingset_xml(resp: Any, explain: bool = False) -> str:
    st = resp.stats
    delivered = st.delivered.get("xml", st.delivered_tokens)
    summary = summary_line(resp, "xml")
    out = [
        f"<working_set{_attrs(intent=intent_echo(resp) if title_echoes(resp) else None, task=resp.request.task_id, budget=st.budget, delivered=delivered, quoted=st.tokens_used)}>\n",
    ]
    if not resp.compact:
        out.append(f"<about>{escape(preamble(resp))}</about>\n")
    if summary_pays(resp):
        out.append(f"<summary>{escape(summary)}</summary>\n")
    for doc in resp.workingset.documents:
        out.append(f"<document{_attrs(path=doc.path, status=doc.status)}>\n")
        for q in doc.quotes:
            heads = skipped_headings(q)
            if heads:  # the skipped lines are between the spans' own
                out.append(f"<skipped>{escape(heads)}</skipped>\n")
            ids = " ".join(i.span_ref.span_id for i in q.items)
            c = q.compression
            extra = {"shortened": c.level} if c is not None else {}
            if any(i.stale for i in q.items):
                extra["stale"] = "true"  # the file changed since indexing: this is the indexed text
            out.append(f"<span{_attrs(id=ids, lines=q.lines, **extra)}>{escape(q.text.strip(chr(10)))}</span>\n")
        out.append("</document>\n")
    if resp.left_out:
        out.append("<left_out>\n")
        for lo in resp.left_out:
            out.append(f"<document{_attrs(path=lo.path, score=fmt(lo.score))}>{escape(one_line(lo.detail))}</document>\n")
        out.append("</left_out>\n")
    if explain:
        out.append(_explanation(resp))
    out.append("</working_set>\n")
    return "".join(out)


def _explanation(resp: Any) -> str:
    """Rationale and rejections, marked as not counted in the budget."""
    out = ["<explanation counted=\"false\">\n"]
    for e in sorted(resp.rationale or (), key=lambda e: e.final_rank):
        out.append(f"<pick{_attrs(rank=e.final_rank, span=e.span_ref.span_id, path=e.path, base=fmt(e.base_score), final=fmt(e.final_score))}>"
                   f"{escape('; '.join(one_line(r) for r in e.reasons))}</pick>\n")
    for r in resp.rejected:
        out.append(f"<rejected{_attrs(span=r.span_id, path=r.path, reason=r.reason, base=fmt(r.base_score))}>{escape(one_line(r.detail))}</rejected>\n")
    out.append("</explanation>\n")
    return "".join(out)
