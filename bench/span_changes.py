"""What a change of the parse rules does to a project's spans and links: each note's title,
span boundaries and references (links, images, reference definitions, wiki links; not the
id mentions) as one checkout parses them, and the difference between two such dumps. No
index, no model: the parser, the splitter, the link extractor and the real tokenizer.

    ORION_BENCH_SRC=/tmp/old python bench/span_changes.py dump /tmp/suite/swift --out /tmp/old_swift.json
    python bench/span_changes.py dump /tmp/suite/swift --out /tmp/new_swift.json
    python bench/span_changes.py compare /tmp/old_swift.json /tmp/new_swift.json

``dump`` prints the CPU seconds of parsing and splitting (``time.process_time``) on stderr,
and how many spans begin inside fenced code (a long code block split in parts) or among a
table's rows (a long table split in parts).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent)))  # another checkout's orion first


def dump(root: Path, out: Path) -> None:
    from oriongraph_cli.graph.extract import extract_refs
    from oriongraph_cli.index.parse import decode, parse_document
    from oriongraph_cli.index.span import split_document
    from oriongraph_cli.index.walk import walk
    from oriongraph_cli.tokens import get_counter

    counter = get_counter()
    counter.count("warm")
    files = sorted(f.rel for f in walk(root)[0])
    try:  # what a quote of each span needs to read as code (a checkout before parse rules 3 cannot say)
        from oriongraph_cli.blocks import read_blocks
    except ImportError:
        read_blocks = None
    t0 = time.process_time()
    notes = {}
    in_fence = in_table = 0
    for rel in files:
        data = (root / rel).read_bytes()
        text, _warning = decode(rel, data, 10**8)
        if text is None:
            continue
        doc, _ = parse_document(rel, data, text, mtime=0)
        spans = split_document(doc, counter)
        refs = sorted({(r.kind, r.target, r.anchor or "", r.line) for r in extract_refs(doc, spans) if r.kind != "id"})
        if read_blocks is not None:
            blocks = read_blocks(doc.text, 0)
            in_fence += sum(1 for s in spans if blocks.fence_at(s.ref.char_start) is not None)
            in_table += sum(1 for s in spans if getattr(blocks, "tables", None) and blocks.table_at(s.ref.char_start) is not None)
        notes[rel] = {"title": doc.title, "spans": [[s.ref.char_start, s.ref.char_end, list(s.heading_path)] for s in spans], "refs": refs}
    print(f"{root}: {len(notes)} notes parsed, split and their links read in {time.process_time() - t0:.2f} s CPU", file=sys.stderr)
    if read_blocks is not None:
        n = sum(len(n['spans']) for n in notes.values())
        print(f"{root}: {in_fence} of {n} spans begin inside fenced code, {in_table} among a table's rows", file=sys.stderr)
    out.write_text(json.dumps(notes))


def compare(old_path: Path, new_path: Path) -> None:
    old, new = json.loads(old_path.read_text()), json.loads(new_path.read_text())
    common = sorted(set(old) & set(new))
    titles = [k for k in common if old[k]["title"] != new[k]["title"]]
    changed = [k for k in common if old[k]["spans"] != new[k]["spans"]]
    ranges_old = {(k, tuple(s[:2])) for k in common for s in old[k]["spans"]}
    ranges_new = {(k, tuple(s[:2])) for k in common for s in new[k]["spans"]}
    paths_old = {(k, tuple(s[2])) for k in common for s in old[k]["spans"]}
    paths_new = {(k, tuple(s[2])) for k in common for s in new[k]["spans"]}
    print(f"notes {len(common)}; title changed {len(titles)}; spans changed in {len(changed)}; "
          f"spans {len(ranges_old)} -> {len(ranges_new)} ({len(ranges_new - ranges_old)} new ranges); "
          f"sections (note, heading path) {len(paths_old)} -> {len(paths_new)} ({len(paths_new - paths_old)} new, {len(paths_old - paths_new)} gone)")
    refs_old = {(k, *r) for k in common for r in old[k].get("refs", [])}
    refs_new = {(k, *r) for k in common for r in new[k].get("refs", [])}
    gained = refs_new - refs_old
    in_project = [r for r in gained if r[2] and not SCHEME.match(r[2])]
    print(f"references {len(refs_old)} -> {len(refs_new)} ({len(gained)} found, {len(in_project)} of them naming a path, "
          f"not a URL; {len(refs_old - refs_new)} no longer read)")
    for k in titles[:10]:
        print(f"  title {k}: {old[k]['title']!r} -> {new[k]['title']!r}")
    for k, path in sorted(paths_new - paths_old)[:10]:
        print(f"  new section {k}: {' > '.join(path)}")
    for r in sorted(refs_old - refs_new)[:10]:
        print(f"  no longer read {r[0]}:{r[4]}: {r[1]} {r[2]}{'#' + r[3] if r[3] else ''}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("root", type=Path)
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "dump":
        dump(args.root, args.out)
    else:
        compare(args.old, args.new)


if __name__ == "__main__":
    main()
