"""Priority compression: a span that does not fit whole may enter shortened instead of
being dropped. Extractive and deterministic (no model): the words delivered are the
document's own, and every shortened span carries its backref (``orion show SPAN_ID``).

Priority comes from the span's base score relative to the best candidate's (and from the
intent naming its document):

- ``critical`` — the first pick, or a document the intent names: never shortened;
- ``high``     — ≥ 0.85 × the best: may be trimmed to its first sentences;
- ``medium``   — ≥ 0.60 × the best: first sentences, or heading + first sentence;
- ``low``      — the rest: any level down to a one-line pointer.

Levels (``COMPRESSORS``, from least to most shortened): ``sentences`` keeps the sentences
(list items count as one, and so does a short code block) that match the intent best, up to
about 40 % of the span, in document order under their heading, with ``[…]`` where text was
skipped; ``heading`` keeps the innermost heading and the one sentence that matches best;
``pointer`` keeps no text, only where the span is and how to fetch it. A
sentence matches by the intent's terms it holds, each weighted by its inverse document
frequency in the index (``Focus``); where no sentence holds one, or there is no intent to
match, the first sentences are kept (headings and the first sentence of each paragraph;
code and tables are left out).
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from typing import Mapping, Protocol

from oriongraph_cli.blocks import (LINK_DEFINITION, RST_ADORNMENT, SETEXT_UNDERLINE, UNSEEN_LINE, is_rst, is_rst_literal_directive, is_tag_line,
                                   is_template_tag,
                                   quotes_in_lists, rst_underlines, template_ranges, without_unseen)
from oriongraph_cli.store.postings import analyzer

PRIORITY_HIGH = 0.85
PRIORITY_MEDIUM = 0.60
ALLOWED: dict[str, tuple[str, ...]] = {
    "critical": (),
    "high": ("sentences",),
    "medium": ("sentences", "heading"),
    "low": ("sentences", "heading", "pointer"),
}
# share of a whole span's value each level keeps: the packer trades value per token with it
KEEP = {"full": 1.0, "sentences": 0.6, "heading": 0.35, "pointer": 0.12}
FOCUS_KEEP = 0.9  # share of a span's value its shortened form keeps when it keeps all the sentences that match
SENTENCES_SHARE = 0.4  # `sentences` keeps about this share of the span's characters
TRIM_MARK = " […]"
# a code block up to this many characters (a command, a short snippet) is a unit a shortened
# span may keep whole, as a sentence; a longer one is skipped text, as a table is
CODE_UNIT_CHARS = 300

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[`*_]*[A-Z0-9])")
_HEADING = re.compile(r"^#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINE_BLOCK = re.compile(r"^\s*([-*+]\s|\d+[.)]\s|\|)")
# a container's fence line, ``:::tip Summary`` … ``:::`` (Docusaurus, VitePress, markdown-it's
# containers): it frames Markdown, so what it holds is read as usual and the line itself is
# not text
_CONTAINER_FENCE = re.compile(r"^ {0,3}:{3,}[ \t]*(?:[\w-][^\n]*)?$")
# a block quote's markers, nested ones too (``> > text``): a shortened quote reads what the
# quote holds, as a container's; a line of it joined to the next would keep ``>`` mid-line
_QUOTE_MARK = re.compile(r" {0,3}>(?: ?>)* ?")
_ONE_MARK = re.compile(r" {0,3}> ?")
# a block quote a list item holds: ``16. > text`` or the item's ``    > text`` (blocks.quotes_in_lists
# tells it from indented code); the marker and indentation before it stay
_LIST_QUOTE = re.compile(r"^(?: {4,}|\s*(?:[-*+]|\d+[.)])\s+)>")
_LIST_QUOTE_MARK = re.compile(r"^(\s*(?:(?:[-*+]|\d+[.)])\s+)?)>(?: ?>)* ?")
# a callout's or an alert's first line inside a block quote, ``> [!tip] Best practices``,
# ``> [!NOTE]`` (Obsidian, GitHub): it frames the quote, as a container's fence line does
_CALLOUT = re.compile(r"\s*\[![\w-]+\][+-]?(?:\s|$)")


def priority(base: float, best: float, *, first: bool = False, named: bool = False) -> str:
    """critical / high / medium / low (module doc)."""
    if first or named:
        return "critical"
    rel = base / best if best > 0 else 0.0
    if rel >= PRIORITY_HIGH:
        return "high"
    if rel >= PRIORITY_MEDIUM:
        return "medium"
    return "low"


def _sentences(text: str) -> list[str]:
    """``text``'s sentences (:data:`_SENTENCE_END`), never cut inside an inline code span: a
    full stop in `` `Error: Not enough RAM. Puppet Server requires…` `` ends no sentence, so a
    shortened quote keeps the span whole or leaves it out, never a half with an unmatched
    backtick (which a renderer reads as code to the next backtick)."""
    parts = _SENTENCE_END.split(text)
    if len(parts) == 1 or "`" not in text:
        return parts
    out: list[str] = []
    for part in parts:
        if out and out[-1].count("`") % 2:  # the last one ended inside a code span: it goes on
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def first_sentence(paragraph: str) -> str:
    text = " ".join(paragraph.split())
    if "`" in text:
        return _sentences(text)[0]
    return _SENTENCE_END.split(text, maxsplit=1)[0]


def _blocks(text: str, rst: bool = False) -> list[tuple[str, str]]:
    """(kind, text) blocks: heading (an underlined one written with ``#``), code (whole
    fence), lines (a list item with the lines that continue it, or a table row), para,
    definitions (a paragraph of link reference definitions alone, which renders as nothing:
    neither a sentence to keep nor text a mark says was skipped), template (a block a site
    template's tag opens and its closing tag ends, ``{{< code-toggle >}}`` … ``{{<
    /code-toggle >}}``, ``{% alert %}`` … ``{% endalert %}``: what it holds is the template's
    to render, kept as written or not at all, never read as sentences; a tag alone on its
    line — a badge, an include, a self-closing shortcode — is not text, as a
    reStructuredText directive's line is not, and nor is a container's fence line,
    ``:::tip Summary`` or ``:::``, whose Markdown is read as usual, nor a line that only
    sets an anchor, ``<a id="old-name"></a>``, or is one element's tag, ``<Listing
    caption="…">`` or ``</Listing>``: ``blocks.is_tag_line``). An HTML comment is not there at all,
    nor an MDX module statement or a script element (``blocks.without_unseen``): a reader of
    the page never sees them.
    ``rst``: reStructuredText, where a line of backticks or tildes is no fence, a title under
    any adornment is a heading (``blocks.read_blocks`` reads it so), a directive's line is not
    text, and the indented block after ``::`` or a code directive is literal (code, not
    sentences)."""
    out: list[tuple[str, str]] = []
    para: list[str] = []
    lines = (text if rst else without_unseen(text)).split("\n")
    quoted = set() if rst or ">" not in text else _unquote(lines)
    i = 0
    literal_next = False  # reStructuredText: the next indented block is literal
    templates: dict[int, int] | None = None  # a template block's opening line -> its closing line

    def flush() -> None:
        nonlocal literal_next
        if para:
            literal_next = para[-1].rstrip().endswith("::")
            unseen = not rst and all(LINK_DEFINITION.match(ln) for ln in para)
            out.append(("definitions" if unseen else "para", "\n".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if rst and not para and line.strip() and line[:1] in (" ", "\t") and literal_next:
            j = i
            while j < len(lines) and (not lines[j].strip() or lines[j][:1] in (" ", "\t")):
                j += 1
            out.append(("literal", "\n".join(lines[i:j]).rstrip()))
            literal_next = False
            i = j
            continue
        if rst and line.lstrip().startswith(".. "):  # a directive or a comment, in a list item too: not text to read
            flush()
            literal_next = is_rst_literal_directive(line)
            i += 1
            continue
        if rst and line.strip() and line[:1] not in (" ", "\t"):
            literal_next = False
        if quoted and ((i in quoted) != (i - 1 in quoted)):
            flush()  # a block quote begins or ends a paragraph
        if not rst and ((":::" in line and _CONTAINER_FENCE.match(line)) or ("<" in line and (UNSEEN_LINE.match(line) or is_tag_line(line)))
                        or (i in quoted and _CALLOUT.match(line))):
            flush()  # a line that frames or marks up what follows is not text
            lines[i] = ""  # what follows begins a block of its own, not a list item's next line
            i += 1
            continue
        if not rst and "{" in line and is_template_tag(line):
            flush()
            if templates is None:
                templates = template_ranges(lines)
            end = templates.get(i)
            if end is not None:
                out.append(("template", "\n".join(lines[i : end + 1])))
                i = end + 1
            else:
                i += 1
            continue
        if not rst and _FENCE.match(line):
            flush()
            j = i + 1
            while j < len(lines) and not _FENCE.match(lines[j]):
                j += 1
            out.append(("code", "\n".join(lines[i : j + 1])))
            i = j + 1
            continue
        if _HEADING.match(line):
            flush()
            out.append(("heading", line.strip()))
        elif para and (u := SETEXT_UNDERLINE.match(line)):  # the paragraph was a heading's title
            out.append(("heading", ("#" if u.group(1) == "=" else "##") + " " + " ".join(x.strip() for x in para)))
            para.clear()
        elif rst and len(para) == 1 and RST_ADORNMENT.match(line) and rst_underlines(para[0], line):
            out.append(("heading", "## " + para[0].strip()))  # a section title under its adornment
            para.clear()
        elif rst and not para and RST_ADORNMENT.match(line):
            pass  # an overline, or a transition: nothing to read
        elif not line.strip():
            flush()
        elif _LINE_BLOCK.match(line):
            flush()
            out.append(("lines", line.rstrip()))
        elif not para and out and out[-1][0] == "lines" and lines[i - 1].strip() and not out[-1][1].lstrip().startswith("|"):
            out[-1] = ("lines", out[-1][1] + "\n" + line.rstrip())  # a list item wrapped onto this line
        else:
            para.append(line)
        i += 1
    flush()
    return out


# a line that begins a block of its own, so it cannot continue a quote's paragraph lazily:
# a heading, a list item, a fence, a table row, an HTML line or a thematic break
_BLOCK_START = re.compile(r"^[ \t]{0,3}(?:#{1,6}(?:[ \t]|$)|[-*+][ \t]|\d{1,9}[.)][ \t]|```|~~~|\||<|(?:[-*_][ \t]*){3,}$)")


def _unquote(lines: list[str]) -> set[int]:
    """Strips the block quote markers of ``lines`` in place, outside fences that open
    outside the quote (a shell prompt's ``> `` in code stays), and those of a quote a list
    item holds (``16. > text``, ``    > text`` under it; CommonMark's reading, so an indented
    code block's ``>>>`` stays), and returns the indices of the lines that were quoted — a
    line without a marker that continues a quote's paragraph lazily too, as CommonMark reads it."""
    quoted: set[int] = set()
    in_lists = quotes_in_lists("\n".join(lines)) if any(_LIST_QUOTE.match(line) for line in lines) else set()
    fence = ""  # "": none open; "raw": opened outside a quote; "quoted": inside one
    lazy = False  # the last line was a quote's paragraph text, which a line without ">" may continue
    for n, line in enumerate(lines):
        if n in in_lists:  # a list item's quote: its markers go, the item's marker and indentation stay
            lines[n] = _LIST_QUOTE_MARK.sub(r"\1", line, count=1)
            quoted.add(n)
            lazy = False
            continue
        m = (_ONE_MARK if fence == "quoted" else _QUOTE_MARK).match(line)  # in a quote's code, one level
        if fence == "raw":
            if _FENCE.match(line):
                fence = ""
            continue
        if m is None:
            if lazy and line.strip() and not _BLOCK_START.match(line):
                quoted.add(n)  # a lazy continuation line: the quote's paragraph goes on
                continue
            lazy = False
            fence = "raw" if _FENCE.match(line) else ""  # a quote's open fence ends with the quote
            continue
        lines[n] = body = line[m.end():]
        quoted.add(n)
        if _FENCE.match(body):
            fence = "" if fence == "quoted" else "quoted"
        lazy = fence == "" and bool(body.strip()) and not _BLOCK_START.match(body)
    return quoted


@dataclass(frozen=True)
class Focus:
    """What the intent asks for, to choose which sentences a shortened span keeps: each of
    the intent's analysed terms with its weight (inverse document frequency)."""

    weights: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of(cls, intent: str, idf=None) -> "Focus":
        """``idf(terms) -> {term: weight}`` (the lexical index's); every term alike without it."""
        terms = list(dict.fromkeys(analyzer().terms(intent)))
        if not terms:
            return cls({})
        return cls(dict(idf(terms)) if idf is not None else dict.fromkeys(terms, 1.0))

    def score(self, text: str) -> float:
        """Share of the intent's term weight that ``text`` holds (0..1)."""
        total = sum(self.weights.values())
        if total <= 0:
            return 0.0
        present = _terms_of(text)
        return sum(w for t, w in self.weights.items() if t in present) / total


@functools.lru_cache(maxsize=65536)
def _terms_of(text: str) -> frozenset[str]:
    """The analysed terms of a sentence, kept across compiles (the same sentences are
    weighed for every intent that reaches their span)."""
    return frozenset(analyzer().terms(text))


NO_FOCUS = Focus()


@dataclass(frozen=True)
class _Unit:
    block: int  # index of the paragraph or list item it belongs to
    heading: str  # the innermost heading above it ("" when none)
    text: str
    item: bool = False  # a list item (Markdown needs it to start its line: no mark before it)
    code: bool = False  # a whole short code block, fence included (a mark goes on the line before it)


@functools.lru_cache(maxsize=4096)
def _units(text: str, rst: bool = False) -> tuple[_Unit, ...]:
    """The sentences of a span's paragraphs, its list items and its short code and template
    blocks, with the heading each sits under (tables and longer blocks are not units); kept for the last few
    thousand span texts (a compile splits a span for each level it tries and again to value
    the form it keeps)."""
    out: list[_Unit] = []
    heading = ""
    for i, (kind, block) in enumerate(_blocks(text, rst)):
        if kind == "heading":
            heading = block
        elif kind == "code":
            if _short_code(block):
                out.append(_Unit(i, heading, block, code=True))
        elif kind == "template":
            if len(block) <= CODE_UNIT_CHARS:  # kept whole, as written, as a short code block
                out.append(_Unit(i, heading, block, code=True))
        elif kind == "lines" and not block.lstrip().startswith("|"):
            out.append(_Unit(i, heading, block, item=True))
        elif kind == "para":
            out.extend(_Unit(i, heading, sent) for sent in _sentences(" ".join(block.split())) if sent)
    return tuple(out)


def _short_code(block: str) -> bool:
    """A whole code block short enough to keep as a unit (its fence closed in the span)."""
    lines = block.split("\n")
    return len(block) <= CODE_UNIT_CHARS and len(lines) > 2 and bool(_FENCE.match(lines[-1]))


def _mark(piece: str, unit: _Unit, skipped: bool) -> str:
    """A unit as delivered after skipped text: ``[…]`` before a sentence, on its own line
    before a code block (a fence must open its line); none before a list item."""
    if not skipped or unit.item:
        return piece
    return "[…]\n" + piece if unit.code else "[…] " + piece


def _best_units(text: str, focus: Focus, target: int, rst: bool = False) -> str | None:
    """The units that match ``focus`` best within ``target`` characters, in document order
    under their headings, ``[…]`` before a unit that follows skipped text and after the
    last when text follows it; None when no unit matches at all."""
    units = _units(text, rst)
    scores = [focus.score(u.text) for u in units]
    if not any(sc > 0 for sc in scores):
        return None
    chosen: list[int] = []
    size = 0
    for i in sorted(range(len(units)), key=lambda i: (-scores[i], i)):
        if scores[i] <= 0:
            break
        if (chosen or units[i].code) and size + len(units[i].text) > target:
            continue  # a shorter unit further down may still fit (code never passes the target)
        chosen.append(i)
        size += len(units[i].text)
    if not chosen:
        return None  # every unit that matches is too long for the form: no match to keep
    chosen.sort()
    # tables and longer code are not units: what they hold is skipped text too
    skipped_blocks = _unit_less_blocks(text, rst)
    parts: list[str] = []
    shown_heading, prev = "", -1
    for i in chosen:
        u = units[i]
        after = units[prev].block if prev >= 0 else -1
        skipped = i > prev + 1 or any(after < b < u.block for b in skipped_blocks)
        piece = _mark(u.text, u, skipped)
        if u.heading and u.heading != shown_heading:
            parts += [u.heading, piece]
            shown_heading = u.heading
        elif prev >= 0 and units[prev].block == u.block and not u.code:
            parts[-1] += " " + piece
        else:
            parts.append(piece)
        prev = i
    more = prev < len(units) - 1 or any(b > units[prev].block for b in skipped_blocks)
    body = "\n\n".join(parts)
    return _trimmed(body) if more else body


def _trimmed(body: str) -> str:
    """``body`` marked as followed by text left out: `` […]`` after its last sentence, or on a
    line of its own after a closing fence (text after a fence would keep it open) or a
    template's closing tag."""
    last = body.rsplit("\n", 1)[-1]
    return body + ("\n\n[…]" if _FENCE.match(last) or is_template_tag(last) else TRIM_MARK)


@functools.lru_cache(maxsize=4096)
def _unit_less_blocks(text: str, rst: bool = False) -> tuple[int, ...]:
    """The indices of the blocks no unit is taken from: tables, and code or a template block
    too long to be one."""
    return tuple(i for i, (kind, block) in enumerate(_blocks(text, rst))
                 if (kind == "code" and not _short_code(block)) or kind == "literal"
                 or (kind == "template" and len(block) > CODE_UNIT_CHARS)
                 or (kind == "lines" and block.lstrip().startswith("|")))


class Compressor(Protocol):
    name: str

    def shorten(self, text: str, section_title: str | None, focus: Focus = NO_FOCUS, rst: bool = False) -> str: ...


class BestSentences:
    """The sentences that match the intent best, up to about ``SENTENCES_SHARE`` of the
    span, in document order under their headings; the first sentences when none match."""

    name = "sentences"

    def shorten(self, text: str, section_title: str | None, focus: Focus = NO_FOCUS, rst: bool = False) -> str:
        target = max(80, int(len(text) * SENTENCES_SHARE))
        if _code_only(text, rst):
            return _code_lines(text, focus, target)
        best = _best_units(text, focus, target, rst) if focus.weights else None
        return best if best is not None else _first_sentences(text, target, rst)


def _code_only(text: str, rst: bool = False) -> bool:
    """A text that holds code and nothing to read as sentences (a part of a long code block)."""
    kinds = {kind for kind, _ in _blocks(text, rst)}
    return "code" in kinds and kinds <= {"code", "heading", "definitions"}


def _code_lines(text: str, focus: Focus, target: int) -> str:
    """The lines of a text of code that match ``focus`` best (the first ones when none
    match) within ``target`` characters, in order, inside their fence, ``[…]`` for the lines
    left out."""
    blocks = [block for kind, block in _blocks(text) if kind == "code"]
    block = max(blocks, key=len)
    lines = block.split("\n")
    opener, body = lines[0], lines[1:]
    closer = body.pop() if body and _FENCE.match(body[-1]) else _FENCE.match(opener).group(1)  # type: ignore[union-attr]
    scores = [focus.score(line) if focus.weights and line.strip() else 0.0 for line in body]
    first, last = _code_window(body, scores, target)
    out = [opener]
    if any(line.strip() for line in body[:first]):
        out.append("[…]")
    out += body[first : last + 1]
    if any(line.strip() for line in body[last + 1 :]):
        out.append("[…]")
    return "\n".join(out + [closer])


def _code_window(body: list[str], scores: list[float], target: int) -> tuple[int, int]:
    """(first, last) line of the run of consecutive lines within ``target`` characters (at
    least one line) that holds the most of the match: from up to two lines before its first
    matching line, as far as ``target`` allows; the first lines when nothing matches. Code is
    read in context: lines picked here and there lose the nesting and arguments around what
    matched."""
    filled = [i for i, line in enumerate(body) if line.strip()]
    if not filled:
        return 0, -1
    upto = list(itertools.accumulate((len(line) + 1 for line in body), initial=0))  # characters before each line
    best: tuple[tuple[float, int, int, int], int, int] | None = None
    for pos, a in enumerate(filled if any(scores) else filled[:1]):
        held, lead = 0.0, None
        for n, b in enumerate(filled[pos:]):
            if b > a and upto[b + 1] - upto[a] > target:
                break
            held += scores[b]
            if lead is None and scores[b] > 0:
                lead = n
            key = (held, -max((lead or 0) - 2, 0), lead or 0, b - a)
            if best is None or key > best[0]:
                best = (key, a, b)
    assert best is not None
    return best[1], best[2]


def _first_sentences(text: str, target: int, rst: bool = False) -> str:
    """Headings kept; the first sentence of each paragraph (first line of a list item)
    until ``target`` characters."""
    kept: list[str] = []
    size = 0
    last_kind = ""
    for kind, block in _blocks(text, rst):
        if kind == "heading":
            piece = block
        elif kind in ("code", "literal", "definitions", "template") or block.lstrip().startswith("|"):
            continue  # code and tables do not shorten into sentences; definitions are not seen
        elif kind == "lines":
            if last_kind == "lines":
                continue  # one item of a list says what it is about
            piece = block
        else:
            piece = first_sentence(block)
        last_kind = kind
        if kind != "heading" and size and size + len(piece) > target:
            break
        kept.append(piece)
        size += len(piece)
    while kept and _HEADING.match(kept[-1]):
        kept.pop()  # a trailing heading without its text says nothing
    body = "\n\n".join(kept).strip()
    return (body + TRIM_MARK) if body else ""


class HeadingSentence:
    """The innermost heading (or the section title) and the sentence that matches the
    intent best (the first one when none matches)."""

    name = "heading"

    def shorten(self, text: str, section_title: str | None, focus: Focus = NO_FOCUS, rst: bool = False) -> str:
        heading, sentence = "", ""
        if _code_only(text, rst):  # the section's title and the line of code that matches best
            title = f"**{section_title.split(' > ')[-1]}**\n\n" if section_title else ""
            return title + _code_lines(text, focus, 0)
        if focus.weights:
            units = _units(text, rst)
            scores = [0.0 if u.code else focus.score(u.text) for u in units]  # one sentence: never code
            if any(sc > 0 for sc in scores):
                best = max(range(len(units)), key=lambda i: (scores[i], -i))
                heading, sentence = units[best].heading, units[best].text
                if best > 0 and not units[best].item:
                    sentence = "[…] " + sentence
                return self._join(heading, sentence, section_title)
        for kind, block in _blocks(text, rst):
            if kind == "heading" and not heading and not sentence:
                heading = block
            elif kind in ("para", "lines") and not sentence and not block.lstrip().startswith("|"):
                sentence = first_sentence(block) if kind == "para" else block
                break
        return self._join(heading, sentence, section_title)

    @staticmethod
    def _join(heading: str, sentence: str, section_title: str | None) -> str:
        if not heading and section_title:
            heading = section_title.split(" > ")[-1]
            heading = f"**{heading}**"
        body = "\n\n".join(p for p in (heading, sentence) if p)
        return (body + TRIM_MARK) if body else ""


class Pointer:
    """No text: where the span is and how to fetch it (the renderer writes the line)."""

    name = "pointer"

    def shorten(self, text: str, section_title: str | None, focus: Focus = NO_FOCUS, rst: bool = False) -> str:
        return ""


COMPRESSORS: dict[str, Compressor] = {c.name: c for c in (BestSentences(), HeadingSentence(), Pointer())}


def keep(level: str, text: str, short: str, focus: Focus = NO_FOCUS, rst: bool = False) -> float:
    """Share of a span's value its shortened form ``short`` keeps: ``KEEP[level]``, or more
    when the form keeps the sentences that match the intent (``FOCUS_KEEP`` × the share of
    the span's match it holds)."""
    base = KEEP[level]
    if level == "pointer" or not focus.weights:
        return base
    scores = [(u.text, focus.score(u.text)) for u in _units(text, rst)]
    total = sum(sc for _t, sc in scores)
    if total <= 0:
        return base
    held = sum(sc for t, sc in scores if sc > 0 and t in short)
    return max(base, FOCUS_KEEP * held / total)


def pointer_text(section_title: str | None, path: str, lines: str, tokens_full: int, span_id: str) -> str:
    """The one line a pointer delivers."""
    where = f"{path}:{lines}" if lines else path
    what = f"{section_title} — " if section_title else ""
    return f"→ {what}{where}, {tokens_full} tokens not quoted: orion show {span_id}"


def shortened(level: str, text: str, section_title: str | None, path: str, ref, focus: Focus = NO_FOCUS) -> str:
    """What a span delivers at ``level``: its shortened text, or the pointer line; "" when
    the form would hold none of the span's text (headings, a bold label and marks alone:
    ``**Scrum Rhythm** […]``), which is no form of that level (the packer never places it)."""
    if level == "pointer":
        return pointer_text(section_title, path, ref.lines, ref.token_cost, ref.span_id)
    short = COMPRESSORS[level].shorten(text, section_title, focus, is_rst(path))
    return short if says_something(short) else ""


# what a shortened form holds besides the span's text: headings, a line that is one bold
# label (a section title made bold, "**Decision:**"), elision marks
_NOT_TEXT = re.compile(r"^[ \t]*(?:#{1,6}[ \t].*|\*\*[^*\n]+\*\*:?)[ \t]*$", re.MULTILINE)


def says_something(short: str) -> bool:
    """Whether a shortened form holds some of the span's text beyond headings, a bold label
    and elision marks."""
    return any(ch.isalnum() for ch in _NOT_TEXT.sub("", short.replace("[…]", "")))
