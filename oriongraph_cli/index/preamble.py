"""A preamble: the header block a proposal opens with in a code block instead of front matter.

Stellar's proposals open with one under a ``## Preamble`` heading, Bitcoin's improvement
proposals with one at the top; each line is ``Key: value`` (RFC 822's form, as a PEP's
header), a longer value going on in deeper-indented lines::

    ```
    CAP: 0013
    Title: Change Trustlines to Balances
    Status: Rejected (In favor of CAP-0018)
    Created: 2018-11-14
    ```

A site shows it as code; its author wrote it as the record's fields. A note with no front
matter whose body opens with such a block — nothing before it but blank lines, headings and
HTML comments; at least :data:`MIN_FIELDS` fields at the block's margin, one of them
``Title`` or ``Status``; no other line than fields and their continuations — has it read as
its front matter (``index.parse``: title, status, created date, supersedes / superseded-by),
and the state and successor its ``Status`` line names are read where the head's other
status lines are (``index.stated``: the block is not code there). Any other code block stays
code.
"""

from __future__ import annotations

import re
from typing import Any

from oriongraph_cli.blocks import read_blocks, unseen_ranges

MIN_FIELDS = 3
HEAD_LINES = 60  # the block begins within the body's first lines
# "Key: value" at the block's margin (a key of words, digits, dashes: "Protocol version",
# "Superseded-By"), the value any text; "Key:" alone opens a value on the next lines
_FIELD_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*(?: [A-Za-z0-9_-]+){0,3})[ \t]*:(?:[ \t]+(.*))?")
_SLIPPED_RE = re.compile(r"[A-Z][A-Za-z-]*[ \t]+\S")  # a capitalised key, a space, a value
_FENCE_RE = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})")
_NEEDED = frozenset({"title", "status"})


def preamble_range(text: str, body_start: int = 0, syntax: str = "markdown") -> tuple[int, int] | None:
    """[start, end) of the preamble's code block in ``text`` (its fences included), else None.
    ``body_start``: where the body begins, after front matter — a note with front matter has
    its fields there, and no preamble."""
    if body_start or syntax == "rst":
        return None  # (reStructuredText: a literal block's "::" paragraph is prose before it)
    blocks = read_blocks(text, body_start, syntax)
    if not blocks.code:
        return None
    start, end = blocks.code[0]
    if text.count("\n", body_start, start) > HEAD_LINES:
        return None
    # nothing before it but headings and HTML comments: prose before it makes it an
    # example, not the record's fields
    hidden = [(h.start, h.content_start) for h in blocks.headings if h.start < start]
    hidden += [(body_start + a, body_start + b) for a, b in unseen_ranges(text[body_start:start])]
    pos = body_start
    for a, b in sorted(hidden):
        if text[pos:a].strip():
            return None
        pos = max(pos, b)
    if text[pos:start].strip():
        return None
    return (start, end) if _fields(text[start:end]) is not None else None


def preamble_fields(text: str, body_start: int = 0, syntax: str = "markdown") -> tuple[dict[str, Any], dict[str, int]] | None:
    """(fields, 1-based line of each field in ``text``) of the note's preamble, else None; the
    keys as written, each value its text (continuation lines joined with a space)."""
    found = preamble_range(text, body_start, syntax)
    if found is None:
        return None
    fields = _fields(text[found[0]:found[1]])
    assert fields is not None
    first_line = text.count("\n", 0, found[0]) + 1
    return fields[0], {k: first_line + n for k, n in fields[1].items()}


def _fields(block: str) -> tuple[dict[str, Any], dict[str, int]] | None:
    lines = block.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and _FENCE_RE.match(lines[0]):
        lines[0] = ""
        if len(lines) > 1 and _FENCE_RE.match(lines[-1]):
            lines[-1] = ""
    margin: int | None = None
    out: dict[str, Any] = {}
    at: dict[str, int] = {}
    key: str | None = None
    others = 0
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" \t"))
        if margin is None:
            margin = indent
        m = _FIELD_RE.fullmatch(line.strip()) if indent == margin else None
        if m is not None and m.group(1) in out:
            return None  # a key twice: not one record's fields
        if m is None:
            if key is None:
                return None  # the block opens with a field
            others += indent <= margin
            if indent <= margin and out[key] and _SLIPPED_RE.match(line.strip()):
                continue  # "Version 4.3.0": a field that lost its colon, not the value above going on
            # a value going on (deeper, or at the margin: a second address under "Discussion:")
            out[key] = f"{out[key]} {line.strip()}".strip()
            continue
        key = m.group(1)
        out[key] = (m.group(2) or "").strip()
        at[key] = n
    if len(out) < MIN_FIELDS or others * 3 > len(out) or not _NEEDED & {k.lower() for k in out}:
        return None
    return {k: (v or None) for k, v in out.items()}, at
