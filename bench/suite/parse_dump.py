"""What a checkout's parse makes of every page of some source trees, and what changed between
two such runs: the check behind every new reading rule (a rule must change the pages it was
written for and nothing else that a reader would not agree with).

    PYTHONPATH=BEFORE python -P bench/suite/parse_dump.py dump before.json ROOT…
    PYTHONPATH=AFTER python -P bench/suite/parse_dump.py dump after.json ROOT…
    python bench/suite/parse_dump.py diff before.json after.json

``dump`` parses every ``.md``, ``.mdx`` and ``.rst`` file under each ROOT as ``orion index``
would (``02_knowledge/<root's name>/<its path>``) and writes, per page, its title, status,
date and where the date came from, the supersession its text states and the supersession
references its front matter and text give the link graph. ``diff`` prints each page whose
record differs, what it was and what it is, and a count per tree. Nothing is indexed; the
orion on ``sys.path`` is the one measured (``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

SUFFIXES = (".md", ".mdx", ".rst")


def dump(out: Path, roots: list[Path]) -> int:
    from oriongraph_cli.graph.extract import extract_refs
    from oriongraph_cli.index.parse import parse_document

    pages: dict[str, dict] = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.suffix not in SUFFIXES or not p.is_file():
                continue
            data = p.read_bytes()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            rel = f"02_knowledge/{root.name}/{p.relative_to(root).as_posix()}"
            try:
                doc, _warnings = parse_document(rel, data, text, mtime=0)
                refs = sorted({(r.kind, r.target) for r in extract_refs(doc, []) if r.kind.startswith(("fm:supersed", "stated:"))})
            except Exception as exc:  # a page the parse fails on is a finding, not a stop
                pages[rel] = {"error": repr(exc)}
                continue
            pages[rel] = {"title": doc.title, "status": doc.status, "created": doc.created_at, "src": doc.created_source,
                          "stated": [list(r) for r in doc.stated_refs], "refs": [list(r) for r in refs]}
    out.write_text(json.dumps(pages, indent=0))
    return len(pages)


def diff(before: Path, after: Path) -> list[str]:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    lines, per_tree = [], collections.Counter()
    for rel in sorted(set(a) | set(b)):
        x, y = a.get(rel), b.get(rel)
        if x == y:
            continue
        per_tree[rel.split("/")[1]] += 1
        changed = {k: (None if x is None else x.get(k), None if y is None else y.get(k))
                   for k in sorted(set(x or {}) | set(y or {})) if (x or {}).get(k) != (y or {}).get(k)}
        lines.append(f"{rel}: " + "; ".join(f"{k} {v[0]!r} -> {v[1]!r}" for k, v in changed.items()))
    lines.append(f"{sum(per_tree.values())} of {len(set(a) | set(b))} pages changed: "
                 + ", ".join(f"{t} {n}" for t, n in per_tree.most_common()))
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="parse every page of ROOT… into OUT (JSON)")
    d.add_argument("out", type=Path)
    d.add_argument("roots", type=Path, nargs="+")
    c = sub.add_parser("diff", help="the pages whose parse differs between two dumps")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        print(dump(args.out, args.roots))
    else:
        sys.stdout.write("\n".join(diff(args.before, args.after)) + "\n")


if __name__ == "__main__":
    main()
