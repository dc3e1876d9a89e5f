"""How many whole quotes of what the shipped defaults deliver end on a line introducing what
follows without it, or begin with a block whose introduction they leave out, on the suite's
projects at 1,000 and 4,000 tokens — and how long the missing piece is.

An introduction here is judged from the note's text alone, not by orion's rule
(``assemble.introductions``): a line ending with a colon that holds a word, outside code, not a
heading, a table row, a container's ``:::`` line or a section's anchor (``.. _name:``,
``(name)=``, ``<a id=…></a>``). A quote "begins after" one when the line with content just
above it is one and the quote does not begin with a heading; it is "only an introduction"
when it ends on one and is a single paragraph.

    python bench/suite/introductions.py --suite SUITE --projects tldr,django,… [--limit 30] --out F.json
    ORION_BENCH_SRC=CHECKOUT python bench/suite/introductions.py …   # another checkout's orion
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics as st
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))
sys.path.insert(1, str(HERE))

ANCHOR = re.compile(r"^[ \t]*(?:\.\. _[^:\n]+:|\([\w.:-]+\)=|<a\s+(?:id|name)=[\"'][^\"']*[\"']\s*>\s*</a>)[ \t]*$")
NOT_PROSE = re.compile(r"^[ \t]*(?:#|\||:::|```|~~~)")


def is_introduction(line: str) -> bool:
    return line.strip().endswith(":") and bool(re.search(r"\w", line)) and not ANCHOR.match(line) and not NOT_PROSE.match(line)


def last_line(text: str) -> tuple[int, str]:
    s = text.rstrip()
    i = s.rfind("\n") + 1
    return i, s[i:]


def next_block(text: str, pos: int) -> int:
    """Characters of the block after ``pos``: a fence through its closing line, else a paragraph."""
    m = re.compile(r"\S").search(text, pos)
    if not m:
        return 0
    s = m.start()
    fm = re.match(r"[ \t]*(```+|~~~+)", text[text.rfind("\n", 0, s) + 1:])
    if fm:
        e = text.find("\n" + fm.group(1)[0] * 3, s + 3)
        e = len(text) if e < 0 else (text.find("\n", e + 1) if text.find("\n", e + 1) > 0 else len(text))
        return e - s
    e = text.find("\n\n", s)
    return (e if e > 0 else len(text)) - s


def project(suite: Path, name: str, limit: int | None) -> dict:
    import run as suite_run
    from oriongraph_cli.api import compile_workingset
    from oriongraph_cli.blocks import front_matter_end, read_blocks, syntax_of
    from oriongraph_cli.evaluate import default_request

    cfg, reader = suite_run._open(suite, name)
    out = {}
    try:
        qs = suite_run._queries(name, limit)
        for budget in (1000, 4000):
            n, ending, beginning, alone, after, before = 0, 0, 0, 0, [], []
            for q in qs:
                resp = compile_workingset(replace(default_request(cfg, q.text, budget), explain=False, record_usage=False), cfg, reader)
                for d in resp.workingset.documents:
                    try:
                        text = (cfg.root / d.path).read_text()
                    except (OSError, UnicodeDecodeError):
                        continue
                    blocks = read_blocks(text, front_matter_end(text), syntax_of(d.path))
                    for quote in d.quotes:
                        if any(i.compression or i.stale for i in quote.items):
                            continue
                        n += 1
                        body = text[quote.char_start:quote.char_end].rstrip()
                        _, line = last_line(body)
                        if is_introduction(line) and not blocks.in_code(quote.char_start + len(body) - 1):
                            ending += 1
                            alone += len([p for p in re.split(r"\n\s*\n", body) if p.strip()]) == 1
                            after.append(next_block(text, quote.char_end))
                        above = text[:quote.char_start].rstrip()
                        _, line = last_line(above)
                        if (len(above) > front_matter_end(text) and is_introduction(line) and not blocks.in_code(len(above) - 1)
                                and not any(h.start == quote.char_start for h in blocks.headings)):
                            beginning += 1
                            before.append(len(above) - (above.rfind("\n\n") + 2))
            out[str(budget)] = {
                "whole_quotes": n, "end_on_introduction": ending, "only_an_introduction": alone,
                "begin_after_introduction": beginning,
                "share_ending": round(ending / max(n, 1), 4), "share_beginning": round(beginning / max(n, 1), 4),
                "introduced_chars_median": st.median(after) if after else 0,
                "introduction_chars_median": st.median(before) if before else 0,
            }
            print(name, budget, json.dumps(out[str(budget)]), file=sys.stderr, flush=True)
    finally:
        reader.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--projects", required=True)
    ap.add_argument("--limit", type=int, help="the first N intents of each project")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    result = {p: project(args.suite, p, args.limit) for p in args.projects.split(",")}
    text = json.dumps(result, indent=1) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
