"""How many quotes of what the shipped defaults deliver begin among a table's rows (so carry
the table's header and delimiter rows), and what those rows cost, per budget.

    python bench/table_quotes.py --root /tmp/suite/modplat --queries bench/suite/modplat.intents.jsonl --out table_quotes_modplat.json
    ORION_BENCH_SRC=CHECKOUT python bench/table_quotes.py ...   # another checkout's orion
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent)))  # another checkout's orion first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True, help="JSON lines with a text (or query) field")
    ap.add_argument("--budgets", default="1000,4000")
    ap.add_argument("--out", help="file name under bench/results/")
    args = ap.parse_args()
    from oriongraph_cli.api import build_request, compile_workingset, open_index
    from oriongraph_cli.blocks import quote_table_head
    from oriongraph_cli.config import load_config
    from oriongraph_cli.blocks import front_matter_end
    from oriongraph_cli.tokens import get_counter

    intents = []
    for line in args.queries.read_text().splitlines():
        if line.strip():
            doc = json.loads(line)
            intents.append(doc.get("text") or doc.get("query"))
    cfg = load_config(args.root)
    reader = open_index(cfg)
    count = get_counter().count
    rows = {}
    for budget in (int(b) for b in args.budgets.split(",")):
        quotes = headed = head_tokens = delivered = 0
        for intent in intents:
            ws = compile_workingset(build_request(cfg, intent, budget=budget, record_usage=False), cfg, reader).workingset
            delivered += ws.total_tokens
            for d in ws.documents:
                text = (args.root / d.path).read_text(encoding="utf-8")
                for q in d.quotes:
                    quotes += 1
                    head = quote_table_head(text, q.char_start, front_matter_end(text)) if q.compression is None else ""
                    if head:
                        headed += 1
                        head_tokens += count(head)
        rows[budget] = {"intents": len(intents), "quotes": quotes, "headed": headed, "head_tokens": head_tokens, "delivered": delivered}
        print(f"{args.root.name} @{budget}: {headed} of {quotes} quotes begin among a table's rows; their header rows "
              f"{head_tokens} of {delivered} tokens delivered ({head_tokens / max(delivered, 1):.2%})")
    reader.close()
    if args.out:
        sys.path.insert(1, str(HERE))
        import results_file

        results_file.write(args.out, {"root": str(args.root), "budgets": rows})


if __name__ == "__main__":
    main()
