"""A quote that ends on what introduces a short block is given the block, and one that
begins with a block is given its short introduction.

An *introduction* is a line of prose that ends with a colon, outside code and headings
("- Print the last column of each line:", "let's look at this example:", ``.. warning::``):
what it says is in the block after it (a command, an example, a directive's body). A span
boundary can fall between the two — a cheat sheet's description and its command, a
manual's "for example::" and its code — and then a quote delivers one without the other.
At delivery (the ranking and the spans are untouched):

- a quote ending on an introduction is extended through the block it introduces when that
  block is short (``INTRODUCED_MAX`` characters) and no other quote holds it; before a
  longer block it stays as it is: an introduction often names what answers ("you can use
  `getColumns()` like this:"), and ending the quote before it was measured to drop such
  lines and leave their room unspent;
- a quote beginning with what a short introduction just above it introduces
  (``INTRODUCTION_MAX`` characters, the paragraph or list item it ends) begins with that
  introduction;
- a quote ending on anchor lines of the section after it (reStructuredText's ``.. _name:``,
  MyST's ``(name)=``, an HTML ``<a id="…"></a>``) ends before them.

The quote's line and character range cover what it then shows; the budget is kept by
delivery, which counts the rendered output.
"""

from __future__ import annotations

import re
from typing import Callable

from oriongraph_cli.blocks import Blocks

INTRODUCED_MAX = 320  # characters of an introduced block a quote is extended through (~80 tokens)
INTRODUCTION_MAX = 320  # characters of an introduction a quote is given before its first block

_ANCHOR_LINE = re.compile(r"^[ \t]*(?:\.\. _[^:\n]+:|\([\w.:-]+\)=|<a\s+(?:id|name)=[\"'][^\"']*[\"']\s*>\s*</a>)[ \t]*$")
_INTRODUCTION = re.compile(r"\w[^\n]*:[ \t]*$")
_NOT_PROSE = re.compile(r"^[ \t]*(?:#|\||```|~~~|:::)")
_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")
_CONTENT = re.compile(r"[^ \t\r\n]")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d+[.)])[ \t]")


def _content_end(text: str, end: int) -> int:
    """``len(text[:end].rstrip())``, without copying the text."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end


def _line_at(text: str, end: int) -> tuple[int, str]:
    """The start and text of the last line of ``text[:end]`` with content."""
    end = _content_end(text, end)
    start = text.rfind("\n", 0, end) + 1
    return start, text[start:end]


def _is_introduction(text: str, line_start: int, line: str, blocks: Blocks) -> bool:
    return (
        bool(_INTRODUCTION.search(line)) and not _ANCHOR_LINE.match(line) and not _NOT_PROSE.match(line)
        and not blocks.in_code(line_start + len(line) - 1)
        and blocks.heading_at(line_start) is None
    )


def _paragraph_start(text: str, line_start: int, floor: int, longest: int) -> int | None:
    """Where the paragraph or list item holding the line at ``line_start`` begins (not
    before ``floor``), read back line by line; None when it begins more than ``longest``
    characters back, or runs on before ``floor``."""
    pos = line_start
    while pos > floor and not _LIST_ITEM.match(text, pos):
        if line_start - pos > longest:
            return None
        above = text.rfind("\n", 0, pos - 1) + 1
        if not text[above:pos].strip():
            break  # a blank line above
        if above < floor:
            return None  # it runs on into what the quote before holds
        pos = above
    return pos


def _block_end(text: str, pos: int, blocks: Blocks) -> int | None:
    """The end of the block that begins at ``pos`` (its code block's, else its paragraph's),
    trailing whitespace left out; None when a heading begins there."""
    if blocks.heading_at(pos) is not None:
        return None
    fence = blocks.fence_opening_at(pos)
    if fence is not None:
        end = fence.end
    else:
        code = blocks.code_at(pos)
        if code is not None:
            end = code[1]
        else:
            m = _BLANK_LINE.search(text, pos)
            end = m.start() if m else len(text)
    return _content_end(text, end)


def next_content(text: str, pos: int) -> int:
    """The first non-whitespace offset at or after ``pos`` (``len(text)`` when none)."""
    m = _CONTENT.search(text, pos)
    return m.start() if m else len(text)


def mend(text: str, start: int, end: int, floor: int, stop: int, blocks: Callable[[], Blocks]) -> tuple[int, int]:
    """The range a whole quote of ``text[start:end]`` shows (module doc): ``floor`` is where
    the quote before it ends (or the note's body begins), ``stop`` where the quote after it
    begins (or the note ends); ``blocks`` gives the note's blocks (called only when a line
    ends with a colon)."""
    # anchors of the next section, trailing
    while True:
        line_start, line = _line_at(text, end)
        if line_start <= start or not _ANCHOR_LINE.match(line):
            break
        end = _content_end(text, line_start)
    line_start, line = _line_at(text, end)
    if line.rstrip().endswith(":") and _is_introduction(text, line_start, line, b := blocks()):
        pos = next_content(text, end)
        block_end = _block_end(text, pos, b) if pos < stop else None
        if block_end is not None and block_end <= stop and block_end - pos <= INTRODUCED_MAX:
            end = block_end
    # an introduction just above the quote's first block
    above = _content_end(text, start)
    if above > floor:
        line_start, line = _line_at(text, above)
        if (line.rstrip().endswith(":") and line_start >= floor and _is_introduction(text, line_start, line, b := blocks())
                and ((h := b.heading_at(start)) is None or h.start != start)):  # not a section's own start
            para = _paragraph_start(text, line_start, floor, INTRODUCTION_MAX)
            if para is not None and above - para <= INTRODUCTION_MAX:
                start = para
    return start, end
