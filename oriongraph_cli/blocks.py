"""The block structure of Markdown as CommonMark reads it: the outline's headings and the
code blocks, wherever they sit.

One reading for the span splitter (sections, paragraph cuts that never fall inside code)
and the link extractor (no links read out of code). It is markdown-it-py's block parser
(the CommonMark reference algorithm, already installed with rich), not line regexes, so
that a fence opened inside a list item closes where the list item says (a closing fence
indented less than its opener, a fence indented four spaces under ``*``), setext headings
(``Title`` underlined with ``===`` or ``---``) start sections, and indented code is code.

Only block rules run: inline parsing (emphasis, links, entities) is switched off, which
halves the time and leaves no inline construct to be slow on; nesting deeper than the
parser's limit (20 containers) is read as text, so no input recurses without bound.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# markdown-it reads "\r\n", "\r" and "\n" as line ends (and nothing else): offsets are
# computed from the same line ends
_LINE_END = re.compile(r"\r\n|\r|\n")
_RULE_LINE = re.compile(r"^\s*(=+|-+)\s*$")
# a setext heading's underline, for code that reads a quote line by line (a quote may begin
# inside a block, so it cannot be parsed as a document): "=" is level 1, "-" level 2
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=|-)\1*[ \t\r]*$")


@dataclass(frozen=True)
class Heading:
    """A heading of the document's outline (not one inside a list item or a quote)."""

    start: int  # offset of its first line
    content_start: int  # offset after its last line (a setext heading's underline)
    level: int
    title: str


@dataclass(frozen=True)
class Blocks:
    headings: tuple[Heading, ...]
    code: tuple[tuple[int, int], ...]  # [start, end) of each code block, fenced or indented, at any depth; in order

    def in_code(self, offset: int) -> bool:
        i = bisect.bisect_right(self.code, (offset, math.inf)) - 1
        return i >= 0 and offset < self.code[i][1]


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    md.core.ruler.disable(["inline"])
    return md


def _line_starts(text: str, start: int) -> list[int]:
    out = [start]
    out.extend(m.end() for m in _LINE_END.finditer(text, start))
    return out


@lru_cache(maxsize=4)
def read_blocks(text: str, start: int = 0) -> Blocks:
    """The headings and code blocks of ``text[start:]``, as offsets into ``text``. Cached for
    the last few texts: the splitter and the link extractor read the same document."""
    if start >= len(text):
        return Blocks((), ())
    tokens = _parser().parse(text[start:])
    lines = _line_starts(text, start)

    def offset(line: int) -> int:
        return lines[line] if line < len(lines) else len(text)

    headings: list[Heading] = []
    code: list[tuple[int, int]] = []
    for i, tok in enumerate(tokens):
        if tok.map is None:
            continue
        if tok.type == "heading_open" and tok.level == 0:
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            # a setext heading's title may run over several lines: one line, as it renders,
            # without a line of ``===`` above it (a reStructuredText overline)
            parts = (inline.content if inline is not None else "").split("\n")
            title = " ".join(p.strip() for p in parts if len(parts) == 1 or not _RULE_LINE.match(p)).strip()
            headings.append(Heading(offset(tok.map[0]), offset(tok.map[1]), int(tok.tag[1:]), title or "(untitled)"))
        elif tok.type in ("fence", "code_block"):
            code.append((offset(tok.map[0]), offset(tok.map[1])))
    return Blocks(tuple(headings), tuple(code))
