"""Every delivered output of many compiles, in one file, to compare two checkouts with diff.

    ORION_BENCH_SRC=CHECKOUT python bench/compile_outputs.py ROOT QUERIES.jsonl N OUT.txt [--tables-in-memory]

One process opens ROOT's index and compiles the first N intents of QUERIES (plus three
structural ones: a document id, "design decisions about retrieval", "what did we decide on
tags") at budgets 300, 1,000 and 4,000: JSON with ``--explain`` (the rendered text and the
whole payload), Markdown and XML delivered together, and the brief. Errors are written as
lines too. ``--tables-in-memory`` ignores the generation's ``lookups.json`` (what an index
written before it gets). Prints the sha256 of OUT (first 16 hex digits).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent)))

EXTRA = ["ADR-0003", "design decisions about retrieval", "what did we decide on tags"]


def main() -> None:
    root, qpath, n, out = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    from oriongraph_cli import api
    from oriongraph_cli.config import load_config
    from oriongraph_cli.render import render_text
    from oriongraph_cli.render.json import compile_payload, dumps_compact
    from oriongraph_cli.request import build_request

    if "--tables-in-memory" in sys.argv[5:]:
        from oriongraph_cli.store import lookups

        lookups.load = lambda path: None  # bench only: as if the generation had no lookups.json
    texts = [json.loads(line)["text"] for line in open(qpath)][:n] + EXTRA
    cfg = load_config(root)
    reader = api.open_index(cfg)
    with out.open("w") as fh:
        for t in texts:
            for budget in (300, 1000, 4000):
                for fmts in (("json",), ("markdown", "xml"), ("brief",)):
                    explain = fmts == ("json",)
                    req = build_request(cfg, t, budget=budget, explain=explain, record_usage=False, deliver=fmts)
                    try:
                        resp = api.compile_workingset(req, cfg, reader)
                    except Exception as exc:  # the error is an output too
                        fh.write(f"== {t!r} {budget} {fmts} ERROR {type(exc).__name__}: {exc}\n")
                        continue
                    for f in fmts:
                        fh.write(f"== {t!r} {budget} {f}\n{render_text(resp, f, explain=explain)}\n")
                    if explain:
                        fh.write(dumps_compact(compile_payload(resp, explain=True)) + "\n")
    reader.close()
    print(hashlib.sha256(out.read_bytes()).hexdigest()[:16])


if __name__ == "__main__":
    main()
