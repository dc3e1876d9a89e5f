"""``--format xml``: the working set as XML tags, the way prompts for Claude-style models
quote documents — one element per document holding its quoted text::

    <working_set>
    <document source="path/to/doc.md:L12-L40,L61-L64" status="accepted">
    …exact text…

    [… skipped Consequences …]

    …exact text, shortened: […] where text was left out…
    </document>
    </working_set>

``source`` is the document's path (from the project root) and the lines of its quotes in
the order they follow, as Markdown's header and ``orion show path:L12-L40`` write them (the
path alone under 1,000 tokens, as in Markdown: ``header_lines_pay``); where text
lies between two quotes, Markdown's mark stands there as text, naming the headings skipped
(``[…]`` where it holds none): the same mark a shortened quote carries inside its text, and
2–4 tokens fewer than an element (``<skipped>Consequences</skipped>`` 9, the mark 5). A
quote that is the indexed version of a file changed since is listed in ``stale`` by its
lines; ``copies`` says where else the quoted text stands word for word, as Markdown's
header does (``same text in docs/{v2,v3}/setup.md``). The spans' ids are not repeated
here: ``source`` names the same text (``orion show`` and the MCP ``get_span`` take ``path:L12-L40``), and ids cost 7–8 % of the output at 1,000
tokens (hex digits tokenise badly); they are in JSON and in ``--explain`` (``<pick span=…>``).
From 3,000 tokens the root also carries the intent, the budget, the delivered and quoted counts,
``<about>``, ``<summary>`` and ``<left_out>``; scores and titles are in ``--explain``
(``<pick span="…">``), not counted. Text is escaped as XML requires and no more (``&``,
``<``, and the ``>`` of ``]]>``: a ``->`` or a Markdown quote's ``>`` stays one character,
not the 2–3 tokens of ``&gt;``), attributes fully (``quoteattr``), so quoted text can
never close a tag; the output parses with any XML parser. A quote with four or more ``<``
and ``&`` (HTML in Markdown, a component's template, shell ``&&``) is a CDATA section
instead, its text as written: fewer tokens than its escapes, and code an agent reads as
code. Same content and order as Markdown.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import quoteattr

from oriongraph_cli.render.markdown import (
    copies_note, document_source, fmt, gap_mark, header_lines_pay, intent_echo, one_line, preamble, stale_lines, summary_line,
    summary_pays, title_echoes,
)


def escape(text: str) -> str:
    """Character data as XML requires it: ``&`` and ``<`` always, ``>`` only where it
    ends ``]]>`` (the one place the specification forbids it). Escaping every ``>`` as
    ``xml.sax.saxutils.escape`` does cost up to 2.6 % more tokens of quoted text on the real
    projects (Django, the RFCs: arrows, Markdown quotes, shell prompts)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("]]>", "]]&gt;")


# escapes in a quote from which a CDATA section is the cheaper form: each ``&lt;`` or ``&amp;``
# costs one or two cl100k tokens more than its character, the section's ``<![CDATA[`` and
# ``]]>`` five in all
CDATA_FROM = 4


def quote_text(text: str) -> str:
    """A quote's text as character data: escaped (:func:`escape`) where it has few ``<`` and
    ``&``, else as it is in a CDATA section (HTML in Markdown, a component's template: exact,
    and fewer tokens), a ``]]>`` in it split across two sections. Either parses to the text."""
    if text.count("<") + text.count("&") < CDATA_FROM:
        return escape(text)
    return "<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _attrs(**kw: Any) -> str:
    return "".join(f" {k}={quoteattr(one_line(str(v)))}" for k, v in kw.items() if v not in (None, ""))


def workingset_xml(resp: Any, explain: bool = False) -> str:
    st = resp.stats
    delivered = st.delivered.get("xml", st.delivered_tokens)
    summary = summary_line(resp, "xml")
    full = summary_pays(resp)
    out = [
        f"<working_set{_attrs(intent=intent_echo(resp) if title_echoes(resp) else None, task=resp.request.task_id, budget=st.budget if full else None, delivered=delivered if full else None, quoted=st.tokens_used if full else None)}>\n",
    ]
    if not resp.compact:
        out.append(f"<about>{escape(preamble(resp))}</about>\n")
    if full:
        out.append(f"<summary>{escape(summary)}</summary>\n")
    ranges = header_lines_pay(resp)
    for doc in resp.workingset.documents:
        attrs = _attrs(source=document_source(doc, ranges), status=doc.status, copies=copies_note(doc, ranges), stale=stale_lines(doc))
        out.append(f"<document{attrs}>\n")
        for n, q in enumerate(doc.quotes):
            if n:  # a blank line between two quotes, as between their blocks in the note: a
                out.append("\n")  # paragraph after a list item is not read as part of the item
            mark = gap_mark(q)
            if mark:  # the skipped lines are between the quotes' own: Markdown's mark, as text
                out.append(escape(mark) + "\n\n")
            out.append(quote_text(q.text.strip(chr(10))) + "\n")
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
