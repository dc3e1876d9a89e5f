"""A suite tree with its lifecycle told only in the text: a copy whose front matter keeps
everything but ``status``, ``supersedes``, ``superseded_by``, ``date`` and ``created``.

    python bench/suite/strip_stated.py /tmp/suite/adr-moj --out /tmp/suite/adr-moj-text

The MoJ records keep their "## Status" sections and "Date:" lines in the body (the builder
copies bodies as written), so this is the tree a team gets that writes its records as
adr-tools does, without front matter: what ``orion`` reads from the first lines
(``oriongraph_cli/index/stated.py``) is measured against what it reads from front matter.
Standard library only; the output directory is deleted and rewritten.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path

DROPPED = ("status", "supersedes", "superseded_by", "date", "created")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


def strip(text: str) -> str:
    if not text.startswith("---\n"):
        return text
    end = text.find("\n---", 4)
    if end < 0:
        return text
    kept: list[str] = []
    dropping = False
    for line in text[4:end + 1].splitlines(keepends=True):
        m = _KEY.match(line)
        if m:
            dropping = m.group(1).lower() in DROPPED
        elif not (line.startswith((" ", "\t", "-"))):
            dropping = False
        if not dropping:
            kept.append(line)
    return "---\n" + "".join(kept) + text[end + 1:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.out.exists():
        shutil.rmtree(args.out)
    n = 0
    for path in sorted(args.src.rglob("*")):
        rel = path.relative_to(args.src)
        if rel.parts[0].startswith("."):
            continue
        dst = args.out / rel
        if path.is_dir():
            dst.mkdir(parents=True, exist_ok=True)
        elif path.suffix == ".md":
            dst.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            stripped = strip(text)
            n += stripped != text
            dst.write_text(stripped, encoding="utf-8")
    print(f"{n} front matters stripped into {args.out}")


if __name__ == "__main__":
    main()
