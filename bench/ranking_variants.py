"""nDCG@10 per query of named ranking variants (``oriongraph_cli.tune.RANKING_SPACE``) on
one project, and the paired difference of each against the first, on query ranges.

    python bench/ranking_variants.py ROOT QUERIES.jsonl --variants "A;B" [--ranges 0:300,300:,0:] [--out FILE]

Used for SciFact train: which fusion a project's own judged queries choose (cross-validated
on the first 300 claims in the suite's results, `--cv SUITE_RESULTS.json`) and how it does
on the claims that were not used to choose it.
"""

from __future__ import annotations

import argparse
import json


def main() -> None:
    from oriongraph_cli import api, tune
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import load_queries

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("queries")
    ap.add_argument("--variants", required=True, help="ranking variant names separated by ';' (the first is the reference)")
    ap.add_argument("--ranges", default="0:", help="query ranges start:end, comma-separated")
    ap.add_argument("--cv", help="a suite results file (bench/suite/run.py): choose among its ranking variants by "
                                 "five-fold cross-validation over its queries and print each fold's choice")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.cv:
        d = json.load(open(a.cv))
        rows = {k[len("ranking:"):]: v for k, v in d.items() if k.startswith("ranking:")}
        n = min(len(v) for v in rows.values())
        folds = tune.folds_of(n, 5)
        held = [0.0] * n
        for k in range(5):
            train = [i for i in range(n) if folds[i] != k]
            best = max(rows, key=lambda r: sum(rows[r][i]["ndcg"] for i in train))
            print(f"fold {k}: {best}")
            for i in range(n):
                if folds[i] == k:
                    held[i] = rows[best][i]["ndcg"]
        print(f"held-out nDCG@10 of the fold choices on {n} queries: {sum(held) / n:.4f}")
    names = [s.strip() for s in a.variants.split(";") if s.strip()]
    space = {v.name: v for v in tune.RANKING_SPACE}
    unknown = [n for n in names if n not in space]
    if unknown:
        raise SystemExit(f"unknown ranking variant(s): {unknown}; see oriongraph_cli/tune.py RANKING_SPACE")
    cfg = load_config(a.root)
    reader = api.open_index(cfg)
    qs = load_queries(a.queries)
    out = {n: [r["ndcg"] for r in tune.measure(cfg, reader, qs, space[n], ranking_only=True)] for n in names}
    ref = out[names[0]]
    for rng in a.ranges.split(","):
        lo, _, hi = rng.partition(":")
        lo, hi = int(lo or 0), int(hi) if hi else len(ref)
        for n in names:
            x = out[n][lo:hi]
            lo_i, hi_i = tune.bootstrap_interval([p - q for p, q in zip(x, ref[lo:hi])])
            print(f"queries {lo}:{hi}  {sum(x) / len(x):.4f}  vs first {sum(x) / len(x) - sum(ref[lo:hi]) / len(x):+.4f} "
                  f"[{lo_i:+.4f}, {hi_i:+.4f}]  {n}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
