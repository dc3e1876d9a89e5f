"""Layout (after hydration): the reading order. Documents ordered by their best span, spans
in document order within each, adjacent or overlapping whole spans merged into one quote,
a quote that begins or ends inside fenced code given its fence (and one that would leave a
fence open closed, so nothing after it reads as its code), a quote ending on a line that
introduces a short block given the block and one beginning with a block given its short
introduction (``introductions``), the gap between two quotes named (lines and the headings
skipped), relative links rewritten relative to the project root."""

from __future__ import annotations

import posixpath
import re
from typing import Mapping

from oriongraph_cli.assemble import introductions
from oriongraph_cli.blocks import Blocks, front_matter_end, has_fence_before, is_rst, open_fence_closer, quote_fences, quote_table_head, read_blocks, syntax_of
from oriongraph_cli.graph.extract import DOXYGEN_LINK_RE, SPHINX_ROLE_RE, heading_text, looks_like_path, role_target, role_title
from oriongraph_cli.graph.site_links import TEMPLATE_LINKS, written
from oriongraph_cli.models import Quote, WSDocument, WSItem

_LINK = re.compile(r"(\]\()(<?)([^)\s>]+)(>?)((?:\s+\"[^\"]*\")?\))")
_REFDEF = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s*)(\S+)", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_HEADING_LINE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
GAP_HEADINGS = 3  # headings a gap between two quotes names in full


def rewrite_links(text: str, doc_path: str, resolved: Mapping[str, str] | None = None) -> str:
    """Link targets made to name files from the project root, so a quote read outside its
    folder keeps working links: a link the index resolved (``resolved``: the target as
    written -> the indexed document) names that document, its anchor kept — a site URL
    such as ``/manual/dns.html`` becomes the page's path, and so does a site template's
    link the index resolved (``{% page "/docs/setup/" %}``, ``{{< ref "setup.md" >}}``) and
    a Doxygen reference as a link's destination (``[ADR 25](@ref adr_0025)``), and a Sphinx
    ``:doc:`` (MyST's ``{doc}``: :func:`_role_path`);
    another relative target that could name a file is joined to the document's folder;
    absolute URLs, anchors, targets leaving the root, targets no file could have (``(g)``,
    ``(+)``: no link to the index either) and templates the index did not resolve stay."""
    folder = posixpath.dirname(doc_path)

    def fix(target: str) -> str:
        if not target or target.startswith(("#", "{")) or _SCHEME.match(target):
            return target  # (a template's target: below)
        dst = resolved.get(target) if resolved else None
        if dst is not None:
            _path, hash_, frag = target.partition("#")
            return dst + hash_ + frag
        if target.startswith("/") or not looks_like_path(target):
            return target  # "[page bundle](g)": no file, so no link the index reads, kept as written
        path, hash_, frag = target.partition("#")
        joined = posixpath.normpath(posixpath.join(folder, path)) if path else ""
        if not path or joined.startswith("..") or joined == ".":
            return target
        return joined + hash_ + frag

    text = _LINK.sub(lambda m: m.group(1) + m.group(2) + fix(m.group(3)) + m.group(4) + m.group(5), text)
    if resolved and "{" in text:
        for pattern in TEMPLATE_LINKS:
            text = pattern.sub(lambda m: _template_target(m, resolved), text)
    if resolved and "ref" in text:
        text = DOXYGEN_LINK_RE.sub(lambda m: "](" + resolved[f"@ref {m.group(1)}"] + ")" if f"@ref {m.group(1)}" in resolved else m.group(0), text)
    if resolved and "doc" in text:
        text = SPHINX_ROLE_RE.sub(lambda m: _role_path(m, resolved), text)
    return _REFDEF.sub(lambda m: m.group(1) + fix(m.group(2)), text)


def _role_path(m: re.Match, resolved: Mapping[str, str]) -> str:
    """A Sphinx ``:doc:`` (MyST's ``{doc}``) the index resolved, naming the document's path
    from the project root: ``:doc:`../guides/installing``` ->
    ``:doc:`02_knowledge/guides/installing.rst```, ``:doc:`Title <../x>``` -> ``:doc:`Title
    <PATH>```. A path, as a Markdown link's is; a ``:ref:`` label or a ``:pep:`` number is a
    name, kept as written (naming its file too cost the packaging guide's working sets
    tokens: docs/BENCHMARKS.md), and so is a role the index did not resolve."""
    role, target = role_target(m)
    dst = resolved.get(f":{role}:`{target}`") if role == "doc" else None
    if dst is None:
        return m.group(0)
    title = role_title(m)
    return m.group(0)[: m.start(3) - m.start(0)] + (f"{title} <{dst}>" if title else dst) + "`"


def _template_target(m: re.Match, resolved: Mapping[str, str]) -> str:
    """A site template's link as the path of the page the index resolved it to, its anchor
    kept; as written when the index did not resolve it."""
    target = written(m)
    dst = resolved.get(target)
    if dst is None:
        return m.group(0)
    _path, hash_, frag = target.partition("#")
    return "](" + dst + hash_ + frag + ")"


def _gap(doc_text: str | None, a_end: int, b_start: int, lines: tuple[int, int], blocks: Blocks | None = None) -> str | None:
    """``L41-L60: Consequences, Risks`` for what lies between two quotes (None when nothing)."""
    lo, hi = lines
    if hi < lo:
        return None
    if doc_text is not None and 0 <= a_end <= b_start <= len(doc_text) and not doc_text[a_end:b_start].strip():
        return None  # only blank lines between: nothing was skipped
    where = f"L{lo}" if lo == hi else f"L{lo}-L{hi}"
    heads = []
    if doc_text is not None and 0 <= a_end <= b_start <= len(doc_text):
        heads = _headings_between(doc_text, a_end, b_start, blocks)
    if heads:  # up to GAP_HEADINGS named; past that, those the next quote lies under
        own = _level_at(doc_text, b_start, blocks)
        shown = _named(heads, own) if len(heads) <= GAP_HEADINGS else _framing(heads, own)
        return f"{where}: {shown}"
    return where


def _framing_chain(heads: list[tuple[int, str]], own: int | None) -> list[int]:
    """Of the headings skipped (in order), the indexes of those the next quote lies under:
    each above the next in the outline, the nearest last. ``own``: the level of the heading
    the quote begins with (its siblings skipped do not frame it; None when it begins
    mid-section)."""
    chain: list[int] = []
    limit = own or 7
    for i in range(len(heads) - 1, -1, -1):
        if heads[i][0] < limit:
            chain.append(i)
            limit = heads[i][0]
    return chain[::-1]


def _named(heads: list[tuple[int, str]], own: int | None) -> str:
    """``Massachusetts, New Jersey, then Oregon``: a few headings skipped, each named, and —
    where the next quote begins inside the last of them, not with a heading of its own — the
    ones it lies under said after "then", so its text is not read as the section before
    (``Commits, then Version 1.1 › Notable changes``)."""
    chain = _framing_chain(heads, own) if own is None else []
    if not chain or chain[-1] != len(heads) - 1 or len(chain) == len(heads):
        return ", ".join(t for _, t in heads)
    framing = set(chain)
    return (", ".join(t for i, (_, t) in enumerate(heads) if i not in framing)
            + ", then " + " › ".join(heads[i][1] for i in chain))


def _framing(heads: list[tuple[int, str]], own: int | None) -> str:
    """``36 sections, then Version 20.12.0 › Notable Changes``: of many headings skipped, the
    ones the next quote lies under (each above the next in the outline, nearest last, at
    most ``GAP_HEADINGS``), the others counted: what the quote is about the reader can then
    tell, which the first two headings of a long skip never said. ``own``: the level of the
    heading the quote begins with (its siblings skipped do not frame it)."""
    chain = [heads[i][1] for i in _framing_chain(heads, own)][-GAP_HEADINGS:]
    rest = len(heads) - len(chain)
    counted = f"{rest} section" if rest == 1 else f"{rest} sections"
    return f"{counted}, then " + " › ".join(chain) if chain else counted


def _level_at(text: str, offset: int, blocks: Blocks | None) -> int | None:
    """The level of the heading that begins at ``offset``, if one does."""
    if blocks is not None or has_fence_before(text, offset + 1):
        blocks = blocks or read_blocks(text, front_matter_end(text))
        return next((h.level for h in blocks.headings if h.start == offset), None)
    m = _HEADING_LINE.match(text, offset)
    return len(m.group(1)) if m else None


def _headings_between(text: str, start: int, end: int, blocks: Blocks | None = None) -> list[tuple[int, str]]:
    """The levels and titles of the headings in ``text[start:end]``, each as it reads rendered
    (``heading_text``: a link by its text, HTML tags, emphasis marks and a written id
    dropped): a text with fenced code by its outline (a ``# comment`` in a fence is code;
    ``blocks`` as the index read them, else parsed), another by its ``#`` lines."""
    if blocks is not None or has_fence_before(text, end):
        blocks = blocks or read_blocks(text, front_matter_end(text))
        found = [(h.level, h.title) for h in blocks.headings if start <= h.start < end]
    else:
        found = [(len(hashes), title) for hashes, title in _HEADING_LINE.findall(text[start:end])]
    return [(level, shown) for level, title in found if (shown := " ".join(heading_text(title).split()))]


def layout(
    items: list[WSItem],
    doc_texts: dict[str, str | None],
    statuses: dict[str, str | None],
    links: Mapping[str, Mapping[str, str]] | None = None,
    kept: Mapping[str, Blocks] | None = None,
) -> tuple[WSDocument, ...]:
    """Documents in the order of their best span; within each, quotes in document order
    (adjacent or overlapping whole spans merged; shortened spans alone). ``links``: per
    document, where its resolved links point (``rewrite_links``); ``kept``: per document,
    its headings and code blocks as the index read them (else a note with fenced code is
    parsed)."""
    by_doc: dict[str, list[WSItem]] = {}
    for it in sorted(items, key=lambda i: i.selection_rank):
        by_doc.setdefault(it.path, []).append(it)
    docs = []
    for path, members in by_doc.items():
        members.sort(key=lambda i: (i.span_ref.char_start, i.span_ref.char_end))
        text = doc_texts.get(path)
        resolved = links.get(path) if links else None
        blocks = kept.get(path) if kept else None
        if blocks is None and text is not None and syntax_of(path) != "markdown":  # its outline, for the gaps' names
            blocks = read_blocks(text, front_matter_end(text), syntax_of(path))
        groups: list[list[WSItem]] = []
        for it in members:
            prev = groups[-1][-1] if groups else None
            mergeable = (
                prev is not None and prev.compression is None and it.compression is None
                and not prev.stale and not it.stale and text is not None
                and it.span_ref.char_start <= introductions.next_content(text, prev.span_ref.char_end)  # touching across blank lines
            )
            if mergeable:
                groups[-1].append(it)
            else:
                groups.append([it])
        quotes: list[Quote] = []
        outline = _Outline(path, text, blocks)
        body_start = front_matter_end(text) if text is not None else 0
        ranges = [(g[0].span_ref.char_start, max(i.span_ref.char_end for i in g)) for g in groups]
        for k, g in enumerate(groups):
            first = g[0]
            start, end = ranges[k]
            line_start, line_end = first.span_ref.line_start, max(i.span_ref.line_end for i in g)
            if len(g) > 1:
                body = text[start:end]  # type: ignore[index]
            else:
                body = first.text
            whole = text is not None and first.compression is None and not any(i.stale for i in g)
            if whole:
                # a quote ending on an introduction is given the short block it introduces,
                # one beginning with a block its short introduction (``introductions``)
                floor = quotes[-1].char_end if quotes else body_start
                stop = ranges[k + 1][0] if k + 1 < len(groups) else len(text)
                new_start, new_end = introductions.mend(text, start, end, floor, stop, outline)
                if new_end != end:
                    last = text.count("\n", start, max(new_end - 1, start))
                    body, line_end = (body + text[end:new_end] if new_end > end else text[start:new_end]), line_start + last
                    end = new_end
                if new_start != start:
                    body, line_start = text[new_start:start] + body, line_start - text.count("\n", new_start, start)
                    start = new_start
                blocks = outline.blocks  # the note's outline if the mend read it: not parsed again below
                # a quote that begins or ends inside fenced code is fenced as the code it is;
                # one that begins among a table's rows gets the table's header and delimiter rows
                opener, closer = quote_fences(text, start, end, body_start, blocks)
                body = quote_table_head(text, start, body_start, blocks) + opener + body + closer
            if not is_rst(path):  # nothing after a quote reads as its code, whatever its fences
                body += open_fence_closer(body)
            gap = None
            if quotes:
                p = quotes[-1]
                gap = _gap(text, p.char_end, start, (p.line_end + 1, line_start - 1), blocks)
            quotes.append(Quote(
                items=tuple(g), text=rewrite_links(body, path, resolved),
                line_start=line_start, line_end=line_end,
                char_start=start, char_end=end, section_title=first.section_title, elided_before=gap,
            ))
        lead = members[0]
        docs.append(WSDocument(
            path=path, title=lead.title, stage=lead.stage, workstream=lead.workstream,
            status=statuses.get(path) or lead.status, best_rank=min(i.selection_rank for i in members), quotes=tuple(quotes),
        ))
    return tuple(sorted(docs, key=lambda d: d.best_rank))


class _Outline:
    """A note's blocks as the index read them, else parsed when first asked for."""

    def __init__(self, path: str, text: str | None, kept: Blocks | None):
        self.path, self.text, self.blocks = path, text, kept

    def __call__(self) -> Blocks:
        if self.blocks is None:
            self.blocks = read_blocks(self.text or "", front_matter_end(self.text or ""), syntax_of(self.path))
        return self.blocks
