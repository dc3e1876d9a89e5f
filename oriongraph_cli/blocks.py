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
from functools import cached_property, lru_cache
from typing import Any, Iterator

# an id written on a heading, as kramdown, Pandoc, Goldmark (Hugo), Python-Markdown's attr_list,
# markdown-it-attrs (Eleventy), VitePress and Docusaurus read it: "## Review hours
# {#supervisor-review}", "{: #id .class}", "# Request Body { #request-body }", and as
# markdown-it-attrs takes any characters but spaces, braces and quotes: "{#delivery-(tlc)}",
# "{##help-wanted}" (the id "#help-wanted"); and as an MDX comment, which MDX pages must use
# since a brace opens an expression there: react.dev's "## Adding event handlers
# {/*adding-event-handlers*/}", Docusaurus's "{/* #heading-ids */}" (group 2); a list of
# classes alone names no anchor but is no more the heading's words: Laravel's 617
# "#### `Str::plural()` {.collection-method}"; attr_list's key form sets the id too, as
# Material for MkDocs' pages write it: "## Navigation path { id=navigation-path }",
# '### 9.7.0 { id="9.7.0" }' (group 3)
HEADING_ATTRS = re.compile(
    r"[ \t]*(?:\{:?[ \t]*#([^\s{}\"']+)(?:[ \t]+[^{}\n]*)?\}|\{/\*[ \t]*#?([^\s{}\"'*]+)[ \t]*\*/\}"
    r"|\{:?[ \t]*\.[A-Za-z][\w-]*(?:[ \t]+[^{}\n]*)?\}"
    r"|\{:?[ \t]*(?:[.#][^\s{}]+[ \t]+)*id=(?:\"([^\s{}\"']+)\"|'([^\s{}\"']+)'|([^\s{}\"']+))(?:[ \t]+[^{}\n]*)?[ \t]*\})[ \t]*$")
HEADING_LABEL_MAX = 500  # a longer heading is taken as written (no site gives it an id)
# front matter: YAML between --- lines, or TOML between +++ lines as Hugo writes it
FM_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)
TOML_FM_RE = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)


def front_matter_block(text: str) -> tuple[str, re.Match[str]] | None:
    """The front matter block at the start of ``text`` and its kind (``yaml``, ``toml``)."""
    m = FM_RE.match(text)
    if m:
        return "yaml", m
    t = TOML_FM_RE.match(text) if text.startswith("+++") else None
    return ("toml", t) if t else None


def front_matter_end(text: str) -> int:
    """Where the body begins: after the front matter block (0 without one); the
    ``body_start`` parsing gives, without reading the block."""
    found = front_matter_block(text)
    return found[1].end() if found else 0


def heading_label(heading: str) -> str:
    """A heading as its reader sees it: without the id written on it in braces at its end
    (``Request Body { #request-body }`` reads "Request Body"), which names its anchor, not its
    subject. What orion shows — titles and section paths — uses it; the index keeps the
    heading as written, so an anchor still finds its id, and ranking reads it as written (the
    id repeats the heading's words: without it the Vue and FastAPI docs ranked a little worse,
    docs/BENCHMARKS.md)."""
    if "{" not in heading or len(heading) > HEADING_LABEL_MAX:
        return heading
    return HEADING_ATTRS.sub("", heading) or heading


def heading_labels(heading_path) -> tuple[str, ...]:
    return tuple(heading_label(h) for h in heading_path)


# markdown-it reads "\r\n", "\r" and "\n" as line ends (and nothing else): offsets are
# computed from the same line ends
_LINE_END = re.compile(r"\r\n|\r|\n")
_RULE_LINE = re.compile(r"^\s*(=+|-+)\s*$")
_CONTAINER_PREFIX = re.compile(r"^[ \t>]*")
# an MkDocs admonition or content tab opening its indented body: !!! note "Title", ??? tip,
# ???+ warning, === "Tab" (never a setext underline: something follows the marker)
_ADMONITION = re.compile(r"^( {0,3})(?:!!!|\?\?\?\+?|===)[ \t]+\S")
# a setext heading's underline, for code that reads a quote line by line (a quote may begin
# inside a block, so it cannot be parsed as a document): "=" is level 1, "-" level 2
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=|-)\1*[ \t\r]*$")
# a link reference definition's line, ``[label]: destination``, as CommonMark reads one (at
# most three spaces in; a footnote, ``[^1]: text``, is text a reader sees): a block of them
# renders as nothing
LINK_DEFINITION = re.compile(r"[ ]{0,3}\[(?!\^)(?:[^\]\\\n]|\\.)+\]:[ \t]*\S")

# a line that is one site template tag: Hugo's shortcodes, ``{{< name args >}}`` and
# ``{{% name %}}`` (closed by ``{{< /name >}}``, or self-closing ``{{< name />}}``), and
# Liquid, Jekyll, Nunjucks or Jinja tags, ``{% name args %}`` (closed by ``{% endname %}``)
_HUGO_TAG = re.compile(r"^[ \t]*\{\{([<%])\s*(/?)\s*([\w.-]+)[^\n]*?(/?)\s*[>%]\}\}[ \t]*$")
_LIQUID_TAG = re.compile(r"^[ \t]*\{%-?\s*(end)?([\w-]+)[^\n]*?-?%\}[ \t]*$")
_TAG_OPENING = re.compile(r"\{\{[<%]|\{%")  # "{{%" is one opening, not two
# ... or one template expression alone on its line, which the site replaces with what it
# renders — mkdocs-macros' ``{{since('20210203-095643-70a364eb')}}`` (a version badge on each of
# WezTerm's reference pages), ``{{ organisations }}``: no sentence of the page's own
_EXPRESSION_LINE = re.compile(r"^[ \t]*\{\{[^{}<%][^{}]*\}\}[ \t]*$")


@dataclass(frozen=True)
class Heading:
    """A heading of the document's outline (not one inside a list item or a quote)."""

    start: int  # offset of its first line
    content_start: int  # offset after its last line (a setext heading's underline)
    level: int
    title: str


@dataclass(frozen=True)
class Fence:
    """A fenced code block: its lines [start, end), where its code begins (the line after the
    opening one), its opening fence with its info string (such as ``bash``), the fence alone,
    and the start of its closing line (None when it runs to the end of its container
    unclosed)."""

    start: int
    code_start: int
    end: int
    opener: str
    marker: str  # the fence characters (three or more backticks or tildes)
    close_start: int | None


@dataclass(frozen=True)
class Table:
    """A table (GitHub's pipe tables): its header and delimiter rows [start, body_start),
    its rows [body_start, end)."""

    start: int
    body_start: int
    end: int


@dataclass(frozen=True)
class Blocks:
    headings: tuple[Heading, ...]
    code: tuple[tuple[int, int], ...]  # [start, end) of each code block, fenced or indented, at any depth; in order
    fences: tuple[Fence, ...] = ()  # the fenced ones, in order
    tables: tuple[Table, ...] = ()  # the tables with rows under their header, in order

    def in_code(self, offset: int) -> bool:
        return self.code_at(offset) is not None

    def code_at(self, offset: int) -> tuple[int, int] | None:
        """The ``[start, end)`` of the code block holding ``offset``."""
        i = bisect.bisect_right(self.code, (offset, math.inf)) - 1
        return self.code[i] if i >= 0 and offset < self.code[i][1] else None

    @cached_property
    def _heading_starts(self) -> list[int]:
        return [h.start for h in self.headings]

    def heading_at(self, offset: int) -> Heading | None:
        """The heading whose line (or lines: a setext or reStructuredText title) holds ``offset``."""
        i = bisect.bisect_right(self._heading_starts, offset) - 1
        return self.headings[i] if i >= 0 and offset < self.headings[i].content_start else None

    @cached_property
    def _fence_starts(self) -> list[int]:
        return [f.start for f in self.fences]

    def to_json(self) -> str:
        """The blocks as compact JSON (``from_json`` reads them back): the index keeps a
        note's with it, so a compile quoting the note need not parse it again."""
        import json

        return json.dumps({
            "h": [[h.start, h.content_start, h.level, h.title] for h in self.headings],
            "c": [list(c) for c in self.code],
            "f": [[f.start, f.code_start, f.end, f.opener, f.marker, f.close_start] for f in self.fences],
            "t": [[t.start, t.body_start, t.end] for t in self.tables],
        }, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, data: str) -> "Blocks":
        import json

        doc = json.loads(data)
        return cls(tuple(Heading(*h) for h in doc["h"]), tuple((a, b) for a, b in doc["c"]), tuple(Fence(*f) for f in doc["f"]),
                   tuple(Table(*t) for t in doc.get("t", ())))

    def fence_opening_at(self, offset: int) -> Fence | None:
        """The fence whose opening line holds ``offset``."""
        i = bisect.bisect_right(self._fence_starts, offset) - 1
        return self.fences[i] if i >= 0 and self.fences[i].start <= offset < self.fences[i].code_start else None

    def fence_at(self, offset: int) -> Fence | None:
        """The fence whose code holds ``offset`` (after its opening line, before its closing one)."""
        i = bisect.bisect_right(self._fence_starts, offset) - 1
        if i < 0:
            return None
        f = self.fences[i]
        return f if f.code_start <= offset < (f.close_start if f.close_start is not None else f.end) else None


    @cached_property
    def _table_starts(self) -> list[int]:
        return [t.start for t in self.tables]

    def table_at(self, offset: int) -> Table | None:
        """The table whose rows hold ``offset`` (after its header and delimiter rows)."""
        i = bisect.bisect_right(self._table_starts, offset) - 1
        if i < 0:
            return None
        t = self.tables[i]
        return t if t.body_start <= offset < t.end else None


# a table's delimiter row, behind any container indentation or quote marks: only pipes,
# colons, dashes and blanks, with at least one pipe and one dash (``|---|:-:|``, ``--- | ---``)
_DELIMITER_ROW = re.compile(r"^[ \t>]*(?=[^\n]*\|)(?=[^\n]*-)[|:\- \t]+$", re.MULTILINE)


def has_table_before(text: str, end: int) -> bool:
    """Whether a table's delimiter row may occur in ``text[:end]`` (else no table does)."""
    first = _first_delimiter_row(text)
    return 0 <= first < end


@lru_cache(maxsize=64)
def _first_delimiter_row(text: str) -> int:
    """Where the first line that may be a table's delimiter row begins (-1: none), found once
    per text: a compile asks for every quote of a note, and again for each build."""
    if "|" not in text:
        return -1
    m = _DELIMITER_ROW.search(text)
    return m.start() if m is not None else -1


def quote_table_head(text: str, start: int, body_start: int = 0, blocks: Blocks | None = None) -> str:
    """The header and delimiter rows of the table a quote of ``text[start:…]`` begins inside,
    as written (``""`` when it begins outside a table's rows): quoted with them, its rows
    read as a table, their columns named. ``blocks`` as for :func:`quote_fences`."""
    if blocks is None:
        if not has_table_before(text, start):
            return ""
        blocks = read_blocks(text, body_start)
    table = blocks.table_at(start)
    return text[table.start:table.body_start] if table is not None else ""


def has_fence_before(text: str, end: int) -> bool:
    """Whether a fence marker occurs in ``text[:end]`` (else nothing before ``end`` is fenced code)."""
    return text.find("```", 0, end) >= 0 or text.find("~~~", 0, end) >= 0


def quote_fences(text: str, start: int, end: int, body_start: int = 0, blocks: Blocks | None = None) -> tuple[str, str]:
    """What a quote of ``text[start:end]`` needs to read as the code it is: the opening
    fence line when it starts inside a fenced block, the closing fence when it ends inside
    one (``("", "")`` when neither; a text without a fence marker before ``end`` is not
    parsed). ``body_start``: where the note's body begins, after its front matter;
    ``blocks``: the note's blocks as the index read them, else it is parsed. A fence
    indented four columns or more (an MkDocs tab's or admonition's body) keeps its
    indentation in both, and a quote that begins on such a fence's opening line, after its
    indentation, is given the indentation back: its closing line is as deep, and a fence
    opened at the margin would not be closed by it. So is one that begins inside code after
    its line's indentation (a function's body): the code is shown as deep as it is."""
    if not has_fence_before(text, end):
        return "", ""
    if blocks is None:
        blocks = read_blocks(text, body_start)
    head = blocks.fence_at(start)
    tail = blocks.fence_at(max(start, end - 1))
    cut = text[text.rfind("\n", 0, start) + 1 : start]  # the indentation a span's text leaves out
    cut = cut if not cut.strip(" \t") else ""
    if head is not None:
        deep = _fence_indent(text, head)
        # a deep fence is shown as deep as it is, its code too; else the code keeps only its
        # own indentation, not the list item's it sits in
        code_indent = cut if deep else cut.expandtabs(4)[_marker_column(text, head):]
        opener = deep + head.opener + "\n" + code_indent
    elif blocks.in_code(start):  # an indented code block's line, or a fence's opening line
        opener = cut if blocks.fence_opening_at(start) is None or len(cut.expandtabs(4)) >= 4 else ""
    else:
        opener = ""
    closer = "\n" + _fence_indent(text, tail) + tail.marker if tail is not None else ""
    return opener, closer


def _fence_indent(text: str, fence: Fence) -> str:
    """The spaces and tabs before ``fence``'s marker on its opening line when they are four
    columns or more (a closing line so deep closes no fence opened at the margin); ``""``
    when fewer, or when a container's marker stands there (a list item's or a quote's: the
    quote's own lines show theirs)."""
    line = text[fence.start:fence.code_start]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return indent if len(indent.expandtabs(4)) >= 4 and line[len(indent):].startswith(fence.marker[0]) else ""


def _marker_column(text: str, fence: Fence) -> int:
    """The column of ``fence``'s marker on its opening line (behind a list item's marker or
    indentation: the container's, which its code lines repeat)."""
    line = text[fence.start:fence.code_start].expandtabs(4)
    return line.find(fence.marker[0])


def open_fence_closer(shown: str) -> str:
    """The closing fence ``shown`` (a quote as it is delivered) needs so that nothing after
    it reads as its code — ``"\\n"`` and the marker of a fenced block it leaves open at its
    end (one the note never closes, or one whose closing line a quote shows deeper than a
    fence can be closed from) —, else ``""``. Read as CommonMark alone reads it."""
    if not has_fence_before(shown, len(shown)):
        return ""
    probe = shown + "\n\nx"
    fence = read_blocks(probe, 0, plain=True).fence_at(len(probe) - 1)
    return "\n" + fence.marker if fence is not None else ""


MAX_NESTING = 20  # containers the parser nests (its CommonMark preset's limit), and admonitions too


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")  # GitHub's pipe tables
    md.core.ruler.disable(["inline"])
    return md


@lru_cache(maxsize=1)
def _plain_parser() -> Any:
    """The parser for what a compile delivers (``read_blocks(plain=True)``): a quote, not a
    note — a note's blocks are read once, when it is indexed."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    md.core.ruler.disable(["inline"])
    return md


@lru_cache(maxsize=1)
def _mdx_parser() -> Any:
    """CommonMark without indented code, as MDX reads a page: indentation is a component's
    layout there, so a fence, a heading or a list indented four spaces or more inside
    ``<Steps>`` or ``<TabItem>`` is one, and prose indented so is prose."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table").disable("code")
    md.core.ruler.disable(["inline"])
    return md


@lru_cache(maxsize=1)
def _rst_parser() -> Any:
    """CommonMark without fences or pipe tables, for reStructuredText: a line of backticks or
    tildes there is a section title's adornment, a ``|`` line a line block; literal blocks
    are indented, which CommonMark reads as indented code."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).disable("fence")
    md.core.ruler.disable(["inline"])
    return md


def quotes_in_lists(text: str) -> set[int]:
    """The lines (0-based) of ``text`` inside a block quote that a list item holds, as
    CommonMark reads it: ``16. > quoted`` and the item's ``    > quoted`` continuation, whose
    ``>`` comes after the item's marker or indentation, where a line pattern cannot tell it
    from an indented code block's ``>>>``."""
    out: set[int] = set()
    items = 0
    for tok in _parser().parse(text):
        if tok.type == "list_item_open":
            items += 1
        elif tok.type == "list_item_close":
            items -= 1
        elif tok.type == "blockquote_open" and items and tok.map:
            out.update(range(*tok.map))
    return out


def _template_tag(line: str) -> tuple[str, str] | None:
    """For a line that is one template tag: its kind and name and its role — "open" (it
    may open a block), "close" (``{{< /name >}}``, ``{% endname %}``) or "alone" (a
    self-closing shortcode, an expression ``{{ x }}``); None for any other line."""
    if "{" not in line:
        return None
    if _EXPRESSION_LINE.match(line) is not None:
        return "{{", "alone"
    if len(_TAG_OPENING.findall(line)) != 1:
        return None
    if (m := _HUGO_TAG.match(line)) is not None:
        return m.group(1) + m.group(3), "close" if m.group(2) else "alone" if m.group(4) else "open"
    if (m := _LIQUID_TAG.match(line)) is not None:
        return "%" + m.group(2), "close" if m.group(1) else "open"
    return None


def is_template_tag(line: str) -> bool:
    """Whether ``line`` is one site template tag and nothing else."""
    return _template_tag(line) is not None


def template_ranges(lines: list[str]) -> dict[int, int]:
    """The template blocks of ``lines``: the index of each block's opening tag line -> that
    of the first closing tag of its name after it (blocks do not nest; an opening tag no
    closing tag follows opens nothing). One pass and a search per opening tag, so a page of
    ten thousand tags that close nothing costs no more than one that closes them."""
    tags = [(j, t) for j, ln in enumerate(lines) if (t := _template_tag(ln)) is not None]
    closings: dict[str, list[int]] = {}
    for j, (name, role) in tags:
        if role == "close":
            closings.setdefault(name, []).append(j)
    out: dict[int, int] = {}
    after = -1
    for j, (name, role) in tags:
        if j <= after or role != "open" or name not in closings:
            continue
        ends = closings[name]
        k = bisect.bisect_right(ends, j)
        if k < len(ends):
            out[j] = after = ends[k]
    return out


def template_blocks(text: str, start: int = 0) -> list[tuple[int, int]]:
    """The character ranges of ``text[start:]`` that site template blocks hold, each from
    its opening tag's line to the end of its closing tag's line (``template_ranges``); []
    at once for a text without a tag."""
    if "{{" not in text and "{%" not in text:
        return []
    lines = text[start:].split("\n")
    offsets, pos = [], start
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    return [(offsets[i], offsets[j] + len(lines[j])) for i, j in template_ranges(lines).items()]


# a line that renders as nothing but an anchor or a comment: ``<a id="old-name"></a>``,
# ``<a name="x"></a>``, an element that only sets an id, ``<ManualAnchor id="x" />`` (an MDX
# site's anchor component), ``<!-- Old headings. Do not remove or links may break. -->``
UNSEEN_LINE = re.compile(
    r"""^[ \t]*(?:<a\s+(?:id|name)\s*=\s*(?:"[^"\n]*"|'[^'\n]*')\s*>\s*</a>"""
    r"""|<[A-Za-z][\w.:-]*\s+(?:id|name)\s*=\s*(?:"[^"\n]*"|'[^'\n]*')\s*/>|<!--.*?-->)[ \t]*$"""
)
# a line that is one JSX component's tag and nothing else — self-closing (``<ManualAnchor id="x"
# />``), opening (``<PackageManagerTabs>``, ``<Box icon="check-list">``) or closing (``</Tabs>``):
# MDX reads it as a block of its own, so a heading on the next line is a heading and a fence a
# fence — where CommonMark's HTML block would run on to the next blank line and take them
_JSX_CUE = re.compile(r"^[ \t]{0,3}</?[A-Z]", re.MULTILINE)
JSX_LINE = re.compile(r"^[ \t]{0,3}(?:<[A-Z][\w.]*(?:\s[^<>]*)?/?>|</[A-Z][\w.]*\s*>)[ \t]*$")
# on an MDX page, where nothing is indented code, at any indentation (``    <Fragment slot="npm">``
# inside ``<PackageManagerTabs>``)
_MDX_JSX_CUE = re.compile(r"^[ \t]*</?[A-Z]", re.MULTILINE)
_MDX_JSX_LINE = re.compile(r"^[ \t]*(?:<[A-Z][\w.]*(?:\s[^<>]*)?/?>|</[A-Z][\w.]*\s*>)[ \t]*$")
# a line that is one HTML element's opening tag and nothing else (``<Listing number="4-1"
# caption="…">``, ``<details>``, ``<div class="rules">``), which opens what follows — not a
# void element's (``<img …>``, ``<br>``) nor a self-closing one's (``<Badge />``) — or its
# closing tag alone (``</Listing>``)
_OPENING_TAG = re.compile(r"^[ \t]*<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?(?<!/)>[ \t]*$")
_CLOSING_TAG = re.compile(r"^[ \t]*</[A-Za-z][\w.:-]*\s*>[ \t]*$")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def opening_tag(line: str) -> bool:
    """``line`` is one element's opening tag alone, which opens what follows (not a void or
    self-closing element's)."""
    tag = _OPENING_TAG.match(line) if "<" in line else None
    return tag is not None and tag.group(1).lower() not in _VOID


def admonition_line(line: str) -> bool:
    """``line`` opens an MkDocs admonition or content tab (``!!! note``, ``??? tip "T"``,
    ``=== "macOS"``, nested ones indented), whose body follows it: it opens what follows."""
    return _ADMONITION.match(line.lstrip(" \t")) is not None


def is_tag_line(line: str) -> bool:
    """``line`` is one element's opening tag (``opening_tag``) or closing tag, alone: markup a
    reader of the rendered page does not read."""
    return "<" in line and (opening_tag(line) or _CLOSING_TAG.match(line) is not None)


_FENCE_LINE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")


def _comments(text: str) -> Iterator[tuple[int, int]]:
    """The HTML comments of ``text``, ``<!-- … -->`` over any number of lines (CommonMark's
    forms: ``<!-->`` and ``<!--->`` are empty comments too), in order; ``<!--`` that nothing
    closes comments nothing out, and none after it can close either. One pass: a page of
    ``<!--`` that never close costs no more than one that closes them."""
    pos = 0
    while (a := text.find("<!--", pos)) >= 0:
        if text.startswith(">", a + 4):
            b = a + 5
        elif text.startswith("->", a + 4):
            b = a + 6
        else:
            end = text.find("-->", a + 4)
            if end < 0:
                return
            b = end + 3
        yield a, b
        pos = b


def _code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The code spans of ``text[start:end]``: a run of backticks to the next run of the same
    length (CommonMark's rule, across lines); a run no such run follows is literal. Each
    run's closer is looked up among the runs of its length once, so the cost is linear in
    the runs whatever their lengths."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text, start, end)]
    by_length: dict[int, list[int]] = {}
    for i, (a, b) in enumerate(runs):
        by_length.setdefault(b - a, []).append(i)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        a, b = runs[i]
        same = by_length[b - a]
        k = bisect.bisect_right(same, i)
        if k < len(same):
            j = same[k]
            out.append((a, runs[j][1]))
            i = j + 1
        else:
            i += 1
    return out


def _code_in(text: str) -> list[tuple[int, int]]:
    """The ranges of ``text`` in fenced code (a line of three or more backticks or tildes
    at any indentation, behind quote markers, to the next such line of the same character
    at least as long) or in a code span. A line scan, not a parse: ``text`` may be a span cut
    from a page, not a whole one."""
    out: list[tuple[int, int]] = []
    pos, fence, fence_start = 0, "", 0
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if m is not None:
            marker = m.group(1)
            if not fence:
                fence, fence_start = marker, pos
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line[m.end():].strip():
                out.append((fence_start, pos + len(line)))
                fence = ""
        pos += len(line) + 1
    if fence:
        out.append((fence_start, len(text)))
    if "`" in text:
        prose, prev = [], 0
        for a, b in out:
            prose.append((prev, a))
            prev = b
        prose.append((prev, len(text)))
        for a, b in prose:
            out.extend(_code_spans(text, a, b))
        out.sort()
    return out


def comment_ranges(text: str) -> list[tuple[int, int]]:
    """The ranges of ``text`` its HTML comments take, in order — ``<!-- ignore -->`` after a
    link, a maintainer's note, a generator's markers: what the page does not show. A comment
    in code (a fence, a code span) is code and is none; a comment that is all its lines hold
    takes the lines."""
    if "<!--" not in text:
        return []
    comments = list(_comments(text))
    if not comments:
        return []
    code = _code_in(text) if "`" in text or "~~~" in text else []
    starts = [a for a, _ in code]
    out: list[tuple[int, int]] = []
    for a, b in comments:
        i = bisect.bisect_right(starts, a) - 1
        if (out and a < out[-1][1]) or (i >= 0 and a < code[i][1]):
            continue
        # alone on its lines: only blanks between it and the line ends (read outward from
        # the comment, never the whole line: many comments on one long line stay linear)
        line_start, line_end = a, b
        while line_start > 0 and text[line_start - 1] in " \t":
            line_start -= 1
        while line_end < len(text) and text[line_end] in " \t\r":
            line_end += 1
        if (line_start == 0 or text[line_start - 1] == "\n") and (line_end == len(text) or text[line_end] == "\n"):
            a, b = max(line_start, out[-1][1] if out else 0), min(line_end + 1, len(text))
        out.append((a, b))
    return out


# a line that may begin an MDX module statement (``import Tabs from '@theme/Tabs';``, ``export
# const meta = {``) or a script or style element, which the page runs or applies but does not show
_STATEMENT_CUE = re.compile(r"^(?:import|export)[ \t]|^ {0,3}<(?:script|style)(?=[\s>]|$)", re.MULTILINE | re.IGNORECASE)
_IMPORT_START = re.compile(r"^import[ \t]+[\w${*]")
_IMPORT_FROM = re.compile(r"""\bfrom[ \t]*['"][^'"\n]+['"]""")
_EXPORT_START = re.compile(r"^export[ \t]+(?:const|let|var|function|class|default|async|type|interface)\b|^export[ \t]*[{*]")
_ELEMENT_START = re.compile(r"^ {0,3}<(script|style)(?=[\s>]|$)", re.IGNORECASE)


def _statement_end(lines: list[str], i: int) -> int:
    """The last line of the module statement that begins at line ``i``: the line before the
    next blank one — or, while its brackets are open, the blank lines are the statement's
    when the line after them goes on with it (indented, or closing a bracket)."""
    j, depth = i, 0
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            k = j
            while k < len(lines) and not lines[k].strip():
                k += 1
            if depth <= 0 or k == len(lines) or not (lines[k][:1] in " \t" or lines[k].lstrip()[:1] in "})]"):
                return j - 1
            j = k
            continue
        depth += line.count("{") + line.count("(") + line.count("[") - line.count("}") - line.count(")") - line.count("]")
        j += 1
    return j - 1


def statement_ranges(text: str) -> list[tuple[int, int]]:
    """The lines of ``text`` that hold code the page runs or applies but does not show, in
    order, each to the end of its last line (its newline too):

    - an MDX module statement — ``import Tabs from '@theme/Tabs';``, ``export const meta =
      {…}`` — at the margin, where a block begins (the text's start, or after a blank line, a
      heading or a front matter's ``---``), to the next blank line, or on past blank lines
      while its brackets are open and the code goes on after them (``_statement_end``). A
      line a paragraph runs on to is text, as is an import without ``from '…'`` (Python's
      ``import os``, Go's ``import "fmt"``);
    - a ``<script>`` or ``<style>`` element beginning a line (CommonMark's raw HTML block):
      to the line holding its closing tag, or the text's end (a VitePress page's ``<script
      setup>`` that imports its components).

    None in fenced code. A line scan, not a parse: ``text`` may be a span cut from a page."""
    if not ("mport" in text or "xport" in text or "<" in text) or not _STATEMENT_CUE.search(text):
        return []
    lines = text.split("\n")
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln) + 1)
    code: list[tuple[int, int]] | None = None

    def in_code(pos: int) -> bool:
        nonlocal code
        if code is None:
            code = _code_in(text) if ("`" in text or "~~~" in text) else []
        k = bisect.bisect_right(code, (pos, math.inf)) - 1
        return k >= 0 and code[k][0] <= pos < code[k][1]

    out: list[tuple[int, int]] = []
    i, prev_open = 0, True  # prev_open: the line before lets a block begin here
    while i < len(lines):
        line = lines[i]
        end = None
        if line[:1] in ("i", "e") and prev_open and (_IMPORT_START.match(line) or _EXPORT_START.match(line)) and not in_code(starts[i]):
            last = _statement_end(lines, i)
            if line[0] != "e" and not _IMPORT_FROM.search("\n".join(lines[i : last + 1])):
                prev_open, i = False, last + 1  # a paragraph of text: no line of it begins a block
                continue
            end = last
        elif "<" in line[:4] and (m := _ELEMENT_START.match(line)) is not None and not in_code(starts[i]):
            close, end = "</" + m.group(1).lower(), i
            while end < len(lines) - 1 and close not in lines[end].lower():
                end += 1
        if end is not None:
            out.append((starts[i], min(starts[end + 1], len(text))))
            prev_open, i = True, end + 1
            continue
        stripped = line.strip()
        prev_open = not stripped or stripped.startswith("#") or stripped == "---"
        i += 1
    return out


def unseen_ranges(text: str) -> list[tuple[int, int]]:
    """What a reader of the page does not see, in order and apart: its HTML comments
    (:func:`comment_ranges`) and the code it runs or applies (:func:`statement_ranges`). A
    comment inside a statement is the statement's."""
    comments, statements = comment_ranges(text), statement_ranges(text)
    if not statements:
        return comments
    out: list[tuple[int, int]] = []
    for a, b in sorted(comments + statements):
        if out and a < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def without_unseen(text: str) -> str:
    """``text`` without what the page does not show (:func:`unseen_ranges`)."""
    ranges = unseen_ranges(text)
    if not ranges:
        return text
    parts, prev = [], 0
    for a, b in ranges:
        parts.append(text[prev:a])
        prev = b
    parts.append(text[prev:])
    return "".join(parts)


def is_rst(path: str) -> bool:
    """Whether a note is reStructuredText (read by :func:`read_blocks` as ``"rst"``)."""
    return path.lower().endswith(".rst")


def syntax_of(path: str) -> str:
    """How :func:`read_blocks` reads the note at ``path``: ``"rst"`` (reStructuredText),
    ``"mdx"`` (MDX: Markdown without indented code) or ``"markdown"`` (CommonMark)."""
    return "rst" if is_rst(path) else "mdx" if path.lower().endswith(".mdx") else "markdown"


# a reStructuredText adornment: one punctuation character repeated, three times or more
RST_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}[ \t]*$")


def rst_underlines(title: str, adornment: str) -> bool:
    """Whether ``adornment`` (a line :data:`RST_ADORNMENT` matches) under the line ``title``
    makes it a section title: ``title`` is text at the margin, and the adornment is as long,
    or at least four characters (docutils takes a shorter one, with a warning)."""
    t = title.rstrip()
    return bool(t.strip()) and t[:1] not in (" ", "\t") and not RST_ADORNMENT.match(t) \
        and len(adornment.rstrip()) >= min(len(t), 4)


def _rst_titles_as_atx(lines: list[str]) -> tuple[list[str], set[int]]:
    """reStructuredText section titles — a line of text under (and maybe over) an adornment
    at least as long — as ATX headings, their adornment lines blank, each adornment style
    (character, overlined or not) a level in the order styles first appear, as docutils
    reads them; with the lines of the titles that have an overline. Line for line, so
    offsets are unchanged."""
    out = list(lines)
    overlined: set[int] = set()
    styles: list[tuple[str, bool]] = []
    i = 1 if lines else 0
    while i < len(lines):
        m = RST_ADORNMENT.match(lines[i])
        title = lines[i - 1]
        if m and rst_underlines(title, lines[i]):
            over = i >= 2 and lines[i - 2].rstrip() == lines[i].rstrip()
            style = (m.group(1), over)
            if style not in styles:
                styles.append(style)
            out[i - 1] = "#" * min(styles.index(style) + 1, 6) + " " + title.strip()
            out[i] = ""
            if over:
                out[i - 2] = ""
                overlined.add(i - 1)
            i += 2
            continue
        i += 1
    return out, overlined


# directives whose body is literal text (code, a doctest, a grammar, raw markup), not rst
# (the splitter's outline here and shortening's units, ``compress._blocks``: :func:`is_rst_literal_directive`)
RST_LITERAL_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "literalinclude", "highlight", "doctest", "testcode",
                                    "testoutput", "testsetup", "testcleanup", "parsed-literal", "productionlist", "raw",
                                    "ipython", "jupyter-execute"})
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+([\w:.-]+)::(?:\s|$)")


def is_rst_literal_directive(line: str) -> bool:
    """Whether ``line`` (at any indentation) opens a directive whose body is literal
    (``RST_LITERAL_DIRECTIVES``): ``.. code-block:: c``, ``  .. doctest::``."""
    m = _RST_DIRECTIVE.match(line)
    return m is not None and m.group(1).lower() in RST_LITERAL_DIRECTIVES


def _rst_literals_indented(lines: list[str]) -> list[str]:
    """reStructuredText's literal blocks — after a paragraph ending ``::`` and in a code
    directive's body (``.. code-block:: c``, its options included) — indented four spaces
    more, so CommonMark reads them as indented code wherever docutils does: their lines are
    indented by any amount (three spaces under ``.. code-block::`` is the common way), and a
    ``#  define X 1`` indented less than four is an ATX heading to CommonMark. Another
    directive's body (``.. note::``, ``.. versionadded::``) is text: its lines are taken out
    of their indentation, which CommonMark would read as indented code from four spaces on
    (NumPy's NEPs indent a note's body four spaces; its links and words were code), the
    blocks nested in it keeping theirs. Line for line, so offsets are unchanged."""
    out = list(lines)
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.rstrip()
        directive = _RST_DIRECTIVE.match(line) is not None
        literal = is_rst_literal_directive(line) if directive else (stripped.endswith("::") and bool(stripped.strip()))
        if not literal:
            if directive:
                _rst_body_dedented(lines, out, i)
            i += 1  # a body's own literal blocks and directives are read in turn
            continue
        margin = len(line) - len(line.lstrip())
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > margin):
            if lines[j].strip():
                out[j] = "    " + lines[j]
            j += 1
        i = j
    return out


def _rst_body_dedented(lines: list[str], out: list[str], i: int) -> None:
    """The body of the text directive at ``lines[i]`` (its lines indented past the
    directive's) written into ``out`` less the body's indentation, nested lines keeping what
    they have beyond it."""
    margin = len(lines[i]) - len(lines[i].lstrip())
    body: list[int] = []
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > margin):
        if lines[j].strip():
            body.append(j)
        j += 1
    if not body:
        return
    indent = min(len(lines[k]) - len(lines[k].lstrip()) for k in body)
    for k in body:
        out[k] = lines[k][indent:]


def _line_starts(text: str, start: int) -> list[int]:
    out = [start]
    out.extend(m.end() for m in _LINE_END.finditer(text, start))
    return out


@lru_cache(maxsize=64)
def read_blocks(text: str, start: int = 0, syntax: str = "markdown", plain: bool = False) -> Blocks:
    """The headings and code blocks of ``text[start:]``, as offsets into ``text``. Cached for
    the last texts read: the splitter and the link extractor read the same document, and a
    compile lays its working set out again each time it fits it to the budget. ``syntax``
    (``syntax_of`` the note's path): ``"rst"``, reStructuredText, whose section titles are
    the outline and where nothing is a fence or a pipe table; ``"mdx"``, where nothing is
    indented code. ``plain``: as CommonMark alone reads it, MkDocs's admonitions and tabs not
    known (as the reader of delivered Markdown renders it)."""
    if start >= len(text):
        return Blocks((), ())
    rst = syntax == "rst"
    src = text[start:]
    overlined: set[int] = set()  # reStructuredText: lines of titles with an adornment above them
    if rst:
        atx, overlined = _rst_titles_as_atx(_LINE_END.split(src))
        src = "\n".join(_rst_literals_indented(atx))
    elif not plain:
        if "!!!" in src or "???" in src or "===" in src:
            src = "\n".join(_admonitions_as_quotes(_LINE_END.split(src)))
        cue, jsx = (_MDX_JSX_CUE, _MDX_JSX_LINE) if syntax == "mdx" else (_JSX_CUE, JSX_LINE)
        if "<" in src and cue.search(src):  # line for line: the offsets stay
            src = "\n".join("" if "<" in ln and jsx.match(ln) else ln for ln in _LINE_END.split(src))
    parser = _rst_parser() if rst else _plain_parser() if plain else _mdx_parser() if syntax == "mdx" else _parser()
    tokens = parser.parse(src)
    lines = _line_starts(text, start)

    def offset(line: int) -> int:
        return lines[line] if line < len(lines) else len(text)

    headings: list[Heading] = []
    code: list[tuple[int, int]] = []
    fences: list[Fence] = []
    tables: list[Table] = []
    for i, tok in enumerate(tokens):
        if tok.map is None:
            continue
        if tok.type == "heading_open" and tok.level == 0:
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            # a setext heading's title may run over several lines: one line, as it renders,
            # without a line of ``===`` above it (a reStructuredText overline)
            parts = (inline.content if inline is not None else "").split("\n")
            title = " ".join(p.strip() for p in parts if len(parts) == 1 or not _RULE_LINE.match(p)).strip()
            first = tok.map[0] - 1 if tok.map[0] in overlined else tok.map[0]  # an overline belongs to its title
            headings.append(Heading(offset(first), offset(tok.map[1]), int(tok.tag[1:]), title or "(untitled)"))
        elif tok.type in ("fence", "code_block"):
            a, b = offset(tok.map[0]), offset(tok.map[1])
            code.append((a, b))
            if tok.type == "fence":
                first_end = lines[tok.map[0] + 1] if tok.map[0] + 1 < len(lines) else len(text)
                last = tok.map[1] - 1
                closed = last > tok.map[0] and _is_closer(text[offset(last):b], tok.markup)
                # the fence and its info string, without the line's indentation or the list
                # item or quote marker it may sit behind
                opener = tok.markup + (tok.info.split("\n")[0].strip() if tok.info else "")
                fences.append(Fence(a, first_end, b, opener, tok.markup, offset(last) if closed else None))
        elif tok.type == "table_open" and tok.map[1] > tok.map[0] + 2:  # a header row, a delimiter row, rows
            tables.append(Table(offset(tok.map[0]), offset(tok.map[0] + 2), offset(tok.map[1])))
    return Blocks(tuple(headings), tuple(code), tuple(fences), tuple(tables))


def _admonitions_as_quotes(lines: list[str], depth: int = 0) -> list[str]:
    """MkDocs's admonitions and content tabs (``!!! note``, ``??? tip``, ``???+ warning``,
    ``=== "Tab"``), whose body is indented four spaces, read as quotes instead of indented
    code: their text is text, their fences code, their headings outside the outline. Line
    for line, so offsets are unchanged; nested ones are read the same way, as deep as the
    parser nests (``MAX_NESTING``), deeper ones as they are."""
    if depth >= MAX_NESTING:
        return lines
    out: list[str] = []
    k = 0
    while k < len(lines):
        m = _ADMONITION.match(lines[k])
        if m is None:
            out.append(lines[k])
            k += 1
            continue
        indent = len(m.group(1))
        j = k + 1
        while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) >= indent + 4):
            j += 1
        end = j
        while end > k + 1 and not lines[end - 1].strip():
            end -= 1  # blank lines after the body are not part of it
        body = _admonitions_as_quotes([ln.expandtabs(4)[indent + 4:] if ln.strip() else "" for ln in lines[k + 1 : end]], depth + 1)
        prefix = " " * indent + ">"
        out.append(prefix + " " + lines[k].strip())
        out.extend(prefix + (" " + b if b else "") for b in body)
        out.extend(lines[end:j])
        k = j
    return out


def _indent(line: str) -> int:
    line = line.expandtabs(4)
    return len(line) - len(line.lstrip(" "))


def _is_closer(line: str, marker: str) -> bool:
    line = _CONTAINER_PREFIX.sub("", line).strip()  # "> ```" closes a fence inside a quote
    return len(line) >= len(marker) and set(line) == {marker[0]}
