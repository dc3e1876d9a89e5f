"""Delivered tokens / budget: how large is what a reader actually gets?

    python bench/bench_delivery.py --root /tmp/sample-eval --queries bench/fixture_queries.jsonl
    python bench/bench_delivery.py --root /tmp/scifact-eval --limit 40

For each query and budget (1k, 4k, 8k), compile the working set for each output format
(TASK_BRIEF.md, Markdown, XML, JSON), render it exactly as the CLI writes it, and count
the whole output with cl100k (the index's tokenizer). Reports, per format and budget, the
mean and the worst delivered/budget ratio and the share of the output that is quoted text.
Works on older checkouts too (formats they lack are skipped), so before/after figures
come from the same script. Writes bench/results/<--out> and prints the Markdown table.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
from dataclasses import fields, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(REPO)))
DEFAULT_QUERIES = REPO.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl"

FORMATS = ("brief", "markdown", "xml", "json")


def render(resp, fmt: str) -> str:
    from oriongraph_cli.render import COMPILE_FORMATS
    from oriongraph_cli.textsafe import clean_tree

    if fmt == "brief":
        from oriongraph_cli.render import markdown

        brief = getattr(markdown, "task_brief")
        return brief(clean_tree(resp))
    out = io.StringIO()
    COMPILE_FORMATS[fmt](resp, explain=False, out=out)
    return out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    ap.add_argument("--budgets", default="1000,4000,8000")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--formats", default=",".join(FORMATS), help="of brief, markdown, xml, json (default all)")
    ap.add_argument("--out", default=None, help="results file name under bench/results/ (none: print only)")
    args = ap.parse_args()

    from oriongraph_cli.api import compile_workingset, open_index
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import default_request, load_queries
    from oriongraph_cli.models import CompileRequest
    from oriongraph_cli.render import COMPILE_FORMATS
    from oriongraph_cli.tokens import get_counter

    cfg = load_config(root=args.root)
    counter = get_counter("tiktoken")
    queries = load_queries(args.queries)[: args.limit]
    budgets = [int(b) for b in args.budgets.split(",")]
    has_deliver = any(f.name == "deliver" for f in fields(CompileRequest))
    formats = [f for f in FORMATS if (f == "brief" or f in COMPILE_FORMATS) and f in args.formats.split(",")]
    reader = open_index(cfg)
    rows = []
    try:
        for fmt in formats:
            for budget in budgets:
                ratios, quoted_share = [], []
                for q in queries:
                    req = replace(default_request(cfg, q.text, budget), explain=False, record_usage=False)
                    if has_deliver:
                        req = replace(req, deliver=(fmt,))
                    resp = compile_workingset(req, cfg, reader)
                    n = counter.count(render(resp, fmt))
                    quoted = sum(counter.count(i.text) for i in resp.workingset.spans)
                    ratios.append(n / budget)
                    quoted_share.append(quoted / n if n else 0.0)
                rows.append({
                    "format": fmt, "budget": budget, "queries": len(queries),
                    "mean_ratio": round(statistics.mean(ratios), 3), "max_ratio": round(max(ratios), 3),
                    "over_budget": sum(r > 1.0 for r in ratios), "quoted_share": round(statistics.mean(quoted_share), 3),
                })
                print(json.dumps(rows[-1]), file=sys.stderr)
    finally:
        reader.close()

    print("| format | budget | delivered / budget (mean) | worst | over budget | quoted share |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['format']} | {r['budget']} | {r['mean_ratio']:.2f} | {r['max_ratio']:.2f} | {r['over_budget']}/{r['queries']} | {r['quoted_share']:.2f} |")
    if args.out:
        from results_file import write

        write(args.out, {"rows": rows})


if __name__ == "__main__":
    main()
