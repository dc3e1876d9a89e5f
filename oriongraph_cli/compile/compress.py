"""Priority compression: a span that does not fit whole may enter shortened instead of
being dropped. Extractive and deterministic (no model): the words delivered are the
document's own, and every shortened span carries its backref (``orion show SPAN_ID``).

Priority comes from the span's base score relative to the best candidate's (and from the
intent naming its document):

- ``critical`` — the first pick, or a document the intent names: never shortened;
- ``high``     — ≥ 0.85 × the best: may be trimmed to its first sentences;
- ``medium``   — ≥ 0.60 × the best: first sentences, or heading + first sentence;
- ``low``      — the rest: any level down to a one-line pointer.

Levels (``COMPRESSORS``, from least to most shortened): ``sentences`` keeps the headings and
the first sentence of each paragraph (list items, table rows and code keep their first
line; code and tables are left out) up to about 40 % of the span; ``heading`` keeps the innermost heading and the first
sentence; ``pointer`` keeps no text, only where the span is and how to fetch it.
"""

from __future__ import annotations

import re
from typing import Protocol

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
SENTENCES_SHARE = 0.4  # `sentences` keeps about this share of the span's characters
TRIM_MARK = " […]"

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[`*_]*[A-Z0-9])")
_HEADING = re.compile(r"^#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINE_BLOCK = re.compile(r"^\s*([-*+]\s|\d+[.)]\s|\|)")


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


def first_sentence(paragraph: str) -> str:
    text = " ".join(paragraph.split())
    parts = _SENTENCE_END.split(text, maxsplit=1)
    return parts[0]


def _blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) blocks: heading, code (whole fence), lines (list/table), para."""
    out: list[tuple[str, str]] = []
    para: list[str] = []
    lines = text.split("\n")
    i = 0

    def flush() -> None:
        if para:
            out.append(("para", "\n".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
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
        elif not line.strip():
            flush()
        elif _LINE_BLOCK.match(line):
            flush()
            out.append(("lines", line.rstrip()))
        else:
            para.append(line)
        i += 1
    flush()
    return out


class Compressor(Protocol):
    name: str

    def shorten(self, text: str, section_title: str | None) -> str: ...


class FirstSentences:
    """Headings kept; the first sentence of each paragraph (first line of a list item,
    table row or code block) until about ``SENTENCES_SHARE`` of the span."""

    name = "sentences"

    def shorten(self, text: str, section_title: str | None) -> str:
        target = max(80, int(len(text) * SENTENCES_SHARE))
        kept: list[str] = []
        size = 0
        last_kind = ""
        for kind, block in _blocks(text):
            if kind == "heading":
                piece = block
            elif kind == "code" or block.lstrip().startswith("|"):
                continue  # code and tables do not shorten into sentences
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
    """The innermost heading (or the section title) and the first sentence."""

    name = "heading"

    def shorten(self, text: str, section_title: str | None) -> str:
        heading, sentence = "", ""
        for kind, block in _blocks(text):
            if kind == "heading" and not heading and not sentence:
                heading = block
            elif kind in ("para", "lines") and not sentence and not block.lstrip().startswith("|"):
                sentence = first_sentence(block) if kind == "para" else block
                break
        if not heading and section_title:
            heading = section_title.split(" > ")[-1]
            heading = f"**{heading}**"
        body = "\n\n".join(p for p in (heading, sentence) if p)
        return (body + TRIM_MARK) if body else ""


class Pointer:
    """No text: where the span is and how to fetch it (the renderer writes the line)."""

    name = "pointer"

    def shorten(self, text: str, section_title: str | None) -> str:
        return ""


COMPRESSORS: dict[str, Compressor] = {c.name: c for c in (FirstSentences(), HeadingSentence(), Pointer())}


def pointer_text(section_title: str | None, path: str, lines: str, tokens_full: int, span_id: str) -> str:
    """The one line a pointer delivers."""
    where = f"{path}:{lines}" if lines else path
    what = f"{section_title} — " if section_title else ""
    return f"→ {what}{where}, {tokens_full} tokens not quoted: orion show {span_id}"


def shortened(level: str, text: str, section_title: str | None, path: str, ref) -> str:
    """What a span delivers at ``level``: its shortened text, or the pointer line."""
    if level == "pointer":
        return pointer_text(section_title, path, ref.lines, ref.token_cost, ref.span_id)
    return COMPRESSORS[level].shorten(text, section_title)
