"""Heading-aware splitting of a Document into Spans.

Rules (see docs/BENCHMARKS.md for how the sizes were chosen):

- A span never straddles two sections: every heading of the outline (``#`` … ``######``
  or a setext underline; not one in code, a list item or a quote) starts a new section, and
  every span knows its heading path.
- A section whose own content is tiny (< ``min_tokens``) is merged into the section that
  follows it only when that section is its subsection (e.g. ``## Design`` followed by
  ``### Storage``): the span then still lies inside one section of the outline.
- A section longer than ``max_tokens`` is split on paragraph boundaries (blank lines
  outside code blocks) close to ``target_tokens``; a paragraph that alone exceeds the
  maximum is split, outside code, after the lines that end a sentence and before those
  that start a list item, then on line, then sentence, then character boundaries.
- Offsets index ``Document.text``; surrounding whitespace is trimmed so that
  ``doc.text[span.char_start:span.char_end] == span.text`` exactly.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from dataclasses import dataclass

from oriongraph_cli.blocks import LINK_DEFINITION, UNSEEN_LINE, Blocks, admonition_line, opening_tag, read_blocks, syntax_of, unseen_ranges, without_unseen
from oriongraph_cli.models import Document, Span, SpanRef
from oriongraph_cli.tokens import TokenCounter

SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
# where a long block of text is best cut, before any other line: after a line that ends a
# sentence, or before a line that starts a list item — so a hard-wrapped paragraph or list
# is not cut mid-sentence or mid-item when a line that ends one is near
LINE_END_CUT_RE = re.compile(r"(?:(?<=[.!?:])[\"')\]*_`]*[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]))")
# where a long block holding an HTML table is cut, before anything else: before a row, and
# after the table — never inside a row, whose cells a quote would then show without their row
ROW_CUT_RE = re.compile(r"\n(?=[ \t]*<tr[\s>])|(?<=</table>)[ \t]*\n", re.IGNORECASE)


@dataclass(frozen=True)
class Section:
    start: int
    end: int
    level: int
    path: tuple[str, ...]
    content_start: int  # after the heading line


def make_span_id(path: str, doc_version_id: str, start: int, end: int) -> str:
    """Stable within a document version *at a path*: two byte-identical files (a copy, two
    identical stubs) have the same version id, so the path is part of the identity."""
    return hashlib.sha256(f"{path}\x00{doc_version_id}:{start}:{end}".encode()).hexdigest()[:16]


def _heading_start(text: str, start: int, floor: int) -> int:
    """Where a heading's section starts: at the heading, or above it at the lines right above
    it that render as nothing but an anchor or a comment (``UNSEEN_LINE``) or that open what
    follows (``blocks.opening_tag``) — the anchor names this section, not the text before it (``<a
    id="using-rct"></a>`` above ``### Sharing Data``), and ``<div class="style-guide">``
    wraps it. Never above ``floor``."""
    pos = moved = start
    while pos > floor:
        line_start = max(text.rfind("\n", 0, pos - 1) + 1, floor)
        line = text[line_start : pos - 1]
        if line.strip() and not UNSEEN_LINE.match(line) and not opening_tag(line.strip()):
            break
        if line.strip():
            moved = line_start
        pos = line_start
    return moved


def sections(text: str, body_start: int, syntax: str = "markdown") -> list[Section]:
    """The outline of the body: one Section per heading of the outline (plus a preamble if
    non-empty), as CommonMark reads it (``blocks.read_blocks``; ``syntax``: ``"rst"``, the
    section titles of a reStructuredText note; ``"mdx"``, an MDX page's headings, indented
    ones too). A section begins with the anchors and comments right above its heading
    (``_heading_start``)."""
    heads = []
    floor = body_start
    rst = syntax == "rst"
    for h in read_blocks(text, body_start, syntax).headings:
        heads.append((h.start if rst else _heading_start(text, h.start, floor), h.content_start, h.level, h.title))
        floor = h.content_start
    out: list[Section] = []
    if not heads or text[body_start : heads[0][0]].strip():
        end = heads[0][0] if heads else len(text)
        out.append(Section(body_start, end, 0, (), body_start))
    stack: list[tuple[int, str]] = []
    for i, (start, cstart, level, title) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        out.append(Section(start, end, level, tuple(t for _, t in stack), cstart))
    return out


def _trim(text: str, start: int, end: int, unseen: list[tuple[int, int]] | None = None) -> tuple[int, int]:
    """[start,end) without the blank space, and what the page does not show (``unseen``: the
    note's ``blocks.unseen_ranges``: HTML comments, module statements, script elements), at
    either end."""
    while True:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if not unseen or start >= end:
            return start, end
        i = bisect.bisect_right(unseen, (start, math.inf)) - 1
        j = bisect.bisect_left(unseen, (end, -1)) - 1
        if i >= 0 and unseen[i][0] <= start < unseen[i][1]:
            start = unseen[i][1]
        elif j >= 0 and unseen[j][0] < end <= unseen[j][1]:
            end = unseen[j][0]
        else:
            return start, end


def _paragraphs(text: str, start: int, end: int, blocks: Blocks) -> list[tuple[int, int]]:
    """Split [start,end) at blank lines outside code blocks."""
    out: list[tuple[int, int]] = []
    para_start = start
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        if not line.strip() and pos > para_start and not blocks.in_code(pos):
            out.append((para_start, pos + len(line)))
            para_start = pos + len(line)
        pos += len(line)
    if para_start < end:
        out.append((para_start, end))
    return [p for p in out if text[p[0] : p[1]].strip()]


_NEWLINE_RE = re.compile(r"\n")


def _split_oversized(text: str, start: int, end: int, counter: TokenCounter, target: int, max_tokens: int,
                     blocks: Blocks | None = None) -> list[tuple[int, int]]:
    """Split one paragraph that exceeds max_tokens: outside code between the rows of an HTML
    table it holds, else at the lines that end a sentence or start a list item, then lines,
    then sentences, then characters."""
    prose = blocks is None or not blocks.in_code(start)
    rows = (ROW_CUT_RE,) if prose and "<tr" in text[start:end].lower() else ()
    for pattern in rows + ((LINE_END_CUT_RE,) if prose else ()) + (_NEWLINE_RE, SENTENCE_RE):
        cuts = [start] + [start + m.end() for m in pattern.finditer(text[start:end])] + [end]
        pieces = [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
        if len(pieces) > 1:
            return _pack(text, pieces, counter, target, max_tokens, blocks)
    # no boundary at all: cut by characters, about 4 chars a token
    step = max(1, max_tokens * 4)
    return [(a, min(a + step, end)) for a in range(start, end, step)]


def _pack(text: str, pieces: list[tuple[int, int]], counter: TokenCounter, target: int, max_tokens: int,
          blocks: Blocks | None = None, unseen: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Greedily join consecutive pieces up to ``target`` tokens (never over max_tokens). A
    heading belongs with what follows it: a part of headings alone (a section's heading and
    the small parents merged into it) takes the next piece in — or the first part of a piece
    too long for one span — while the part fits under ``max_tokens``: a span of headings alone
    says nothing, and its section's first paragraph would lose its heading. So do the pieces
    that only open what follows at the end of a part (a heading, an opening tag such as
    ``<Listing caption="…">`` or ``<details>``: ``_opens_only``): they begin the next part
    instead, while it fits. A piece of HTML comments alone (``unseen``: the note's; what
    ``_trim`` leaves nothing of) is a part of its own, whatever its size, so that no span
    holds a part of a comment (which the search could not tell from text)."""
    heads = [(h.start, h.content_start) for h in blocks.headings] if blocks is not None else []
    out: list[tuple[int, int]] = []
    cur: list[tuple[int, int, int, bool]] = []  # (start, end, tokens, it only opens what follows)

    def close() -> None:
        if cur:
            out.append((cur[0][0], cur[-1][1]))
            cur.clear()

    def openers() -> int:
        """Where the pieces at the end of ``cur`` that only open what follows begin."""
        k = len(cur)
        while k > 0 and cur[k - 1][3]:
            k -= 1
        return k

    for a, b in pieces:
        if unseen and (bounds := _trim(text, a, b, unseen))[0] >= bounds[1]:  # comments alone
            if not (cur and cur[-1][3]):  # (a comment after a heading or tag: what they open follows it)
                close()
            out.append((a, b))
            continue
        n = counter.count(text[a:b])
        if n > max_tokens:
            parts = _split_oversized(text, a, b, counter, target, max_tokens, blocks)
            k = openers()
            if k < len(cur) and parts and counter.count(text[cur[k][0] : parts[0][1]]) <= max_tokens:
                parts[0] = (cur[k][0], parts[0][1])  # the headings or tags open the first part of what follows
                del cur[k:]
            close()
            out.extend(parts)
            continue
        size = sum(x[2] for x in cur) + n
        if cur and size > target and not (all(x[3] for x in cur) and size <= max_tokens):
            # a part of headings alone takes the next piece in while it fits; headings or tags
            # that end a part begin the next one instead
            k = openers()
            carried = cur[k:] if 0 < k < len(cur) and sum(x[2] for x in cur[k:]) + n <= max_tokens else []
            del cur[len(cur) - len(carried):]
            close()
            cur.extend(carried)
        cur.append((a, b, n, _opens_only(text, a, b, heads)))
    close()
    # avoid a tiny tail: merge it back when the result still fits
    if len(out) >= 2:
        tail = counter.count(text[out[-1][0] : out[-1][1]])
        prev = counter.count(text[out[-2][0] : out[-2][1]])
        if tail < target // 4 and prev + tail <= max_tokens:
            out[-2:] = [(out[-2][0], out[-1][1])]
    return out


def _opens_only(text: str, start: int, end: int, headings: list[tuple[int, int]]) -> bool:
    """[start,end) of ``text`` holds nothing but what opens the text after it: headings' own
    lines, the anchors and comments above them (``UNSEEN_LINE``), opening tags
    (``blocks.opening_tag``), MkDocs admonitions' and tabs' first lines (``!!! note``, ``===
    "Elvish"``: ``blocks.admonition_line``), and blank space."""
    pos = start
    while pos < end:
        if text[pos].isspace():
            pos += 1
            continue
        i = bisect.bisect_right(headings, (pos, math.inf)) - 1
        if i >= 0 and headings[i][0] <= pos < headings[i][1]:
            pos = headings[i][1]
            continue
        line_end = text.find("\n", pos)
        line_end = len(text) if line_end < 0 else line_end
        line = text[pos:line_end]
        if not UNSEEN_LINE.match(line) and not opening_tag(line) and not admonition_line(line):
            return False
        pos = line_end
    return True


def _heading_only(start: int, end: int, headings: list[tuple[int, int]]) -> bool:
    """[start,end) lies within a heading's own lines."""
    i = bisect.bisect_right(headings, (start, math.inf)) - 1
    return i >= 0 and headings[i][0] <= start and end <= headings[i][1]


def _definition_runs(text: str, ranges: list[tuple[int, int, Section]], blocks: Blocks, body_start: int) -> list[bool]:
    """For each range (in order): it is a run of link reference definitions, one per line,
    outside code, in a block of them that begins at the body's start or after a blank line
    (a definition cannot continue a paragraph) — what a reader of the rendered note never
    sees (its links are read from the note, not its spans). One pass: a range that follows
    the previous one without a blank line continues its block."""
    out: list[bool] = []
    prev_end = body_start
    for a, b, _sec in ranges:
        lines = [ln for ln in text[a:b].splitlines() if ln.strip()]
        own = bool(lines) and not blocks.in_code(a) and all(LINK_DEFINITION.match(ln) for ln in lines)
        gap = text[prev_end:a]
        after_blank = prev_end == body_start or gap.count("\n") >= 2
        out.append(own and (after_blank or (bool(out) and out[-1])))
        prev_end = b
    return out


# a reStructuredText hyperlink target at the margin, ``.. _label:`` or ``.. _name: https://…``:
# renders as nothing (an indented one may be an example in a literal block)
RST_TARGET = re.compile(r"^\.\.[ \t]+_[^\n:]+:(?:[ \t].*)?$")


def _targets_tail(text: str, a: int, b: int) -> int:
    """Where the run of reStructuredText hyperlink targets that ends ``text[a:b]`` begins
    (blank lines between them included); ``b`` when it does not end with one."""
    tail = pos = b
    for line in reversed(text[a:b].splitlines(keepends=True)):
        pos -= len(line)
        if line.strip():
            if not RST_TARGET.match(line):
                break
            tail = pos
    return tail


def _rst_targets_joined(text: str, ranges: list[tuple[int, int, Section]]) -> list[tuple[int, int, Section]]:
    """reStructuredText hyperlink targets (``.. _label:`` lines, which render as nothing)
    moved to the range after them, whose section they name: Sphinx pages open with their
    labels, and a span of labels alone was each page's first span — delivered as a quote of
    nothing —, while a label above a later section ended the span before it. At a page's
    end, with no section after them (its external targets, ``.. _docutils: https://…``),
    they are in no span, as a Markdown note's run of link reference definitions is in none;
    a page of targets alone keeps them. A cross-reference to a label still finds it in a
    span: the one of the section it names."""
    out: list[tuple[int, int, Section]] = []
    pending: int | None = None
    for a, b, sec in ranges:
        start = a if pending is None else pending
        tail = _targets_tail(text, a, b)
        if tail == a:  # targets alone
            pending = start
            continue
        out.append((start, _trim(text, start, tail)[1], sec))
        pending = tail if tail < b else None
    if pending is not None and not out:  # a page of targets alone
        out.append((pending, ranges[-1][1], ranges[-1][2]))
    return out


def split_document(doc: Document, counter: TokenCounter, *, target_tokens: int = 160, max_tokens: int = 200, min_tokens: int = 24) -> list[Span]:
    text = doc.text
    syntax = syntax_of(doc.path)
    rst = syntax == "rst"
    blocks = read_blocks(text, doc.body_start, syntax)
    secs = sections(text, doc.body_start, syntax)
    # merge tiny parents into their first subsection
    groups: list[tuple[int, Section]] = []  # (group start, innermost section)
    pending_start: int | None = None
    for i, sec in enumerate(secs):
        start = pending_start if pending_start is not None else sec.start
        nxt = secs[i + 1] if i + 1 < len(secs) else None
        own = text[sec.content_start : sec.end]
        if nxt is not None and nxt.level > sec.level and sec.level > 0 and counter.count(own) < min_tokens:
            pending_start = start
            continue
        pending_start = None
        groups.append((start, sec))
    unseen = unseen_ranges(text)
    ranges: list[tuple[int, int, Section]] = []
    for start, sec in groups:
        a, b = _trim(text, start, sec.end, unseen)
        if a >= b:
            continue
        total = counter.count(text[a:b])
        if total <= max_tokens:
            ranges.append((a, b, sec))
            continue
        # balanced parts: 300 tokens become 2 x 150, not 240 + 60
        parts = math.ceil(total / target_tokens)
        goal = min(max_tokens, math.ceil(total / parts * 1.1))
        paras = [_trim(text, p, q) for p, q in _paragraphs(text, a, b, blocks)]  # comments alone: parts of their own
        for p, q in _pack(text, [x for x in paras if x[0] < x[1]], counter, goal, max_tokens, blocks, unseen):
            p, q = _trim(text, p, q, unseen)
            if p < q:
                ranges.append((p, q, sec))
    # a heading with nothing under it carries no information of its own, nor does a run of
    # link reference definitions, which renders as nothing (nor HTML comments: trimmed away)
    own_lines = [(h.start, h.content_start) for h in blocks.headings]
    unseen = _definition_runs(text, ranges, blocks, doc.body_start)
    kept: list[tuple[int, int, Section]] = []
    carried: int | None = None  # where the headings with nothing under them, to be carried on, begin
    for r, defs in zip(ranges, unseen):
        if defs:
            continue
        if _heading_only(r[0], r[1], own_lines):
            # a heading whose section holds nothing before the next heading at its level
            # ("### Last check" over "### Review") begins the span that follows it, as it
            # opens what follows where the page renders it: a link to it lands there (one
            # left alone by a long section's first part is named by that section's spans)
            if not text[r[2].content_start : r[2].end].strip():
                carried = r[0] if carried is None else carried
            continue
        kept.append((carried, r[1], r[2]) if carried is not None else r)
        carried = None
    ranges = kept or ranges
    if rst:
        ranges = _rst_targets_joined(text, ranges)
    costs = counter.count_many([text[a:b] for a, b, _ in ranges])
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    spans = []
    for ordinal, ((a, b, sec), cost) in enumerate(zip(ranges, costs)):
        first, last = bisect.bisect_left(newlines, a) + 1, bisect.bisect_left(newlines, max(a, b - 1)) + 1
        ref = SpanRef(doc.doc_version_id, make_span_id(doc.path, doc.doc_version_id, a, b), a, b, cost, first, last)
        spans.append(Span(ref, doc.path, ordinal, sec.path, sec.level, text[a:b]))
    return spans


def embed_text(span: Span, doc_title: str, summary: str = "") -> str:
    """What the embedding model reads: the document title and heading path give the span
    its context (short spans like "## Retention\\n30 days" are meaningless alone); the
    page's own summary (``Document.summary``) follows the title in its first span. Its HTML
    comments and the code the page runs (an MDX ``import``, a ``<script>``) are not read
    (``blocks.without_unseen``): the page does not show them."""
    heading = " > ".join(h for h in span.heading_path if h != doc_title)
    prefix = doc_title if not heading else f"{doc_title} — {heading}"
    body = without_unseen(span.text)
    text = body if body.lstrip("# ").startswith(doc_title) else f"{prefix}\n{body}"
    if summary and span.ordinal == 0:
        first, _, rest = text.partition("\n")
        return f"{first}\n{summary}\n{rest}" if rest else f"{first}\n{summary}"
    return text
