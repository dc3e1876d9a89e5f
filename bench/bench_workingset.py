"""What the compiled working set is worth, against naive baselines, on judged intents.

    python bench/bench_workingset.py --root /tmp/django-orion --queries bench/realproject_intents.jsonl --out workingset_django.json
    python bench/bench_workingset.py --root /tmp/scifact-eval --out workingset_scifact.json

For each budget (1,000 and 4,000 tokens) runs ``orion eval`` in-process: orion as shipped,
orion without compression (``compress = false``), orion without the precision rule
(``relevance_floor = 0``, ``cap_yield = 0``: the earlier "fill the budget, fixed source
cap"), and the baselines computed in the same run — ``dense`` (naive top-k chunks +
greedy packing) and ``rrf`` (BM25 + dense reciprocal rank fusion + greedy packing).
Reports document nDCG@10, working-set recall (a pointer alone does not count) and
relevant-token share (share of the quoted tokens that come from relevant documents).

Orion is charged for its whole delivered Markdown (headers, provenance, preamble, left-out
list); the baselines deliver bare chunk text with no framing at all, so the comparison
favours them. ``--split N`` also reports queries N+1.. separately (the half not used for
choosing the defaults).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
DEFAULT_QUERIES = REPO.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl"

VARIANTS = {
    "orion": {},
    "orion, no compression": {"compress": False},
    "orion, no precision rule": {"relevance_floor": 0.0, "cap_yield": 0.0},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    ap.add_argument("--budgets", default="1000,4000")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--split", type=int, default=None, help="also report the queries after the first N")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    from oriongraph_cli.api import open_index
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import evaluate, load_queries

    base = load_config(root=args.root)
    queries = load_queries(args.queries)[: args.limit]
    sets = {"all": queries}
    if args.split:
        sets[f"held out ({args.split + 1}..{len(queries)})"] = queries[args.split :]
    reader = open_index(base)
    rows = []
    try:
        for budget in (int(b) for b in args.budgets.split(",")):
            for label, qs in sets.items():
                for name, overrides in VARIANTS.items():
                    cfg = replace(base, **overrides)
                    compare = ("dense", "rrf") if name == "orion" else ()
                    rep = evaluate(cfg, qs, budget=budget, compare=compare, reader=reader)
                    for sys_name in rep.systems:
                        s = rep.summaries[sys_name]
                        rows.append({"budget": budget, "queries": label, "n": len(qs),
                                     "system": name if sys_name == "orion" else sys_name,
                                     "ndcg_at_10": round(s.ndcg_at_10, 3), "ws_recall": round(s.ws_recall, 3),
                                     "relevant_share": round(s.relevant_share, 3)})
                    print(json.dumps(rows[-1]), file=sys.stderr)
    finally:
        reader.close()
    print("| budget | queries | system | nDCG@10 | WS recall | relevant share |")
    print("|---:|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['budget']} | {r['queries']} ({r['n']}) | {r['system']} | {r['ndcg_at_10']:.3f} | {r['ws_recall']:.3f} | {r['relevant_share']:.3f} |")
    if args.out:
        from results_file import write

        write(args.out, {"rows": rows})


if __name__ == "__main__":
    main()
