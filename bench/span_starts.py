"""Spans that begin inside a list item, and inside a sentence, in an indexed project: for each
span, the line it begins on and the line before, from the index's registry and the note; and
spans whose text is headings alone (every non-blank line an ATX heading); spans whose last
line is a tag alone that opens an element (``<Listing caption="…">``, ``<div class="x">``;
not a void element's nor a self-closing one's), its content left to the next span.

    python bench/span_starts.py ROOT [ROOT ...]

A span begins inside a list item when its first line is neither blank, a list marker, a
heading, a table row, a fence, a quote nor HTML, and the run of non-blank lines before it
goes back to a list marker; mid-sentence when the line before is not blank and does not end
in sentence punctuation (or a closing bracket, backtick or emphasis).
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

LIST = re.compile(r"^\s*([-*+]|\d+[.)])\s")
NOT_TEXT = ("#", "|", "```", ">", "<")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
OPENING_TAG = re.compile(r"^[ \t]*<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?(?<!/)>[ \t]*$")
VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def counts(root: Path) -> tuple[int, int, int, int, int]:
    current = (root / ".oriongraph" / "CURRENT").read_text().strip()
    con = sqlite3.connect(f"file:{root / '.oriongraph' / 'gen' / current / 'registry.sqlite'}?mode=ro", uri=True)
    files: dict[str, list[str]] = {}
    n = in_item = mid_sentence = headings_alone = ends_opening = 0
    for path, start, text in con.execute("SELECT path, line_start, text FROM spans"):
        n += 1
        shown = [ln for ln in text.split("\n") if ln.strip()]
        headings_alone += bool(shown) and all(HEADING.match(ln) for ln in shown)
        tag = OPENING_TAG.match(shown[-1]) if shown else None
        ends_opening += tag is not None and tag.group(1).lower() not in VOID
        if path not in files:
            try:
                files[path] = (root / path).read_text(encoding="utf-8", errors="replace").split("\n")
            except OSError:
                files[path] = []
        lines = files[path]
        if start < 2 or start > len(lines):
            continue
        first, prev = lines[start - 1], lines[start - 2]
        if not first.strip() or not prev.strip() or LIST.match(first) or first.lstrip().startswith(NOT_TEXT):
            continue
        k = start - 2
        while k >= 0 and lines[k].strip() and not LIST.match(lines[k]):
            k -= 1
        in_item += k >= 0 and bool(LIST.match(lines[k]))
        mid_sentence += not re.search(r"[.!?:;)\]`*]\s*$", prev)
    con.close()
    return n, in_item, mid_sentence, headings_alone, ends_opening


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        n, item, sentence, heads, opening = counts(Path(arg))
        print(f"{Path(arg).name}\tspans {n}\tbegin inside a list item {item}\tbegin mid-sentence {sentence}\theadings alone {heads}"
              f"\tend in an opening tag {opening}")
