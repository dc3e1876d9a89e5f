"""Delivered tokens / budget: how large is what a reader actually gets?

    python bench/bench_delivery.py --root /tmp/sample-eval --queries bench/fixture_queries.jsonl
    python bench/bench_delivery.py --root /tmp/scifact-eval --limit 40

For each query and budget (1k, 4k, 8k), compile the working set for each output format
(TASK_BRIEF.md, Markdown, XML, JSON), render it exactly as the CLI writes it, and count
the whole output with cl100k (the index's tokenizer). Reports, per format and budget, the
mean and the worst delivered/budget ratio, the share of the output that is quoted text, and
the share that is the documents' paths and statuses (what is neither is the format's
framing: keys, tags, brackets, escapes, counts, marks, line ranges), and for the JSON formats
the share that is JSON's syntax alone: the output's tokens less those of every value in it
(strings unescaped, numbers as written) — keys, brackets, quotes and escapes.
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

FORMATS = ("brief", "markdown", "xml", "json", "json-lean")


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


def _values(node) -> list[str]:
    """Every leaf value of a parsed JSON document, as plain text."""
    if isinstance(node, dict):
        return [v for x in node.values() for v in _values(x)]
    if isinstance(node, list):
        return [v for x in node for v in _values(x)]
    return [] if node is None else [node if isinstance(node, str) else json.dumps(node)]


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
                ratios, quoted_share, paths_share, syntax_share = [], [], [], []
                for q in queries:
                    req = replace(default_request(cfg, q.text, budget), explain=False, record_usage=False)
                    if has_deliver:
                        req = replace(req, deliver=(fmt,))
                    resp = compile_workingset(req, cfg, reader)
                    text = render(resp, fmt)
                    n = counter.count(text)
                    quoted = sum(counter.count(i.text) for i in resp.workingset.spans)
                    ratios.append(n / budget)
                    quoted_share.append(quoted / n if n else 0.0)
                    paths = sum(counter.count(d.path) + (counter.count(d.status) if d.status else 0)
                                for d in resp.workingset.documents)
                    paths_share.append(paths / n if n else 0.0)
                    if fmt.startswith("json") and n:
                        syntax_share.append((n - sum(counter.count(v) for v in _values(json.loads(text)))) / n)
                rows.append({
                    "format": fmt, "budget": budget, "queries": len(queries),
                    "mean_ratio": round(statistics.mean(ratios), 3), "max_ratio": round(max(ratios), 3),
                    "over_budget": sum(r > 1.0 for r in ratios), "quoted_share": round(statistics.mean(quoted_share), 3),
                    "paths_share": round(statistics.mean(paths_share), 3),
                    "syntax_share": round(statistics.mean(syntax_share), 3) if syntax_share else None,
                })
                print(json.dumps(rows[-1]), file=sys.stderr)
    finally:
        reader.close()

    print("| format | budget | delivered / budget (mean) | worst | over budget | quoted share | paths and statuses | the rest | JSON syntax |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['format']} | {r['budget']} | {r['mean_ratio']:.2f} | {r['max_ratio']:.2f} | {r['over_budget']}/{r['queries']} | {r['quoted_share']:.2f} | {r['paths_share']:.2f} | {1 - r['quoted_share'] - r['paths_share']:.2f} | "
              + (f"{r['syntax_share']:.2f} |" if r["syntax_share"] is not None else "|"))
    if args.out:
        from results_file import write

        write(args.out, {"rows": rows})


if __name__ == "__main__":
    main()
