"""The graph channel's weight chosen leave-one-project-out: each project's judged intents run
through `orion eval` (the command a user runs) with ``ORION_W_GRAPH`` set to each weight,
then for every held-out project the weight with the best macro nDCG@10 on the others (each
project one unit), reported on the held-out one beside the shipped weight (0) and the best
of BM25, dense and RRF; the mean over projects of held-out − shipped with its interval from
resampling the projects.

    python bench/suite/graph_weight.py --suite /tmp/suite --projects peps,rfcs,eeps --weights 0,0.1,0.3 \
        --out bench/results/suite_graph_weight_55.json

Each run's report is kept in ``<suite>/results-graph/<project>@<weight>.json`` and read
again unless ``--fresh``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(HERE))

from run import PROJECTS, UNSEEN  # noqa: E402  (each project's tree and judged intents)

TABLE = {**PROJECTS, **UNSEEN}


def run_one(suite: Path, project: str, weight: str, budget: int, fresh: bool) -> dict:
    cache = suite / "results-graph" / f"{project}@{weight}.json"
    if cache.is_file() and not fresh:
        return json.loads(cache.read_text())
    cache.parent.mkdir(exist_ok=True)
    env = {**os.environ, "ORION_W_GRAPH": weight, "ORION_USAGE_LOG": "false"}
    tree, intents = TABLE[project]
    proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", "eval", str(intents), "--root", str(suite / tree),
                           "--budget", str(budget), "--json", "-q"], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"graph_weight.py: orion eval on {project} with graph {weight} failed: {proc.stderr.strip()[:300]}")
    report = json.loads(proc.stdout)
    cache.write_text(json.dumps(report))
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
    ap.add_argument("--projects", required=True, help="comma-separated")
    ap.add_argument("--weights", default="0,0.1,0.3", help="comma-separated; the first is the shipped one")
    ap.add_argument("--budget", type=int, default=4000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    from pooled import over_projects  # noqa: E402
    from results_file import header  # noqa: E402

    projects, weights = args.projects.split(","), args.weights.split(",")
    jobs = [(p, w) for p in projects for w in weights]
    with ThreadPoolExecutor(args.workers) as pool:
        reports = dict(zip(jobs, pool.map(lambda j: run_one(args.suite, j[0], j[1], args.budget, args.fresh), jobs)))
    nd = {p: {w: reports[p, w]["summary"]["orion"]["ndcg_at_10"] for w in weights} for p in projects}
    base = {p: {b: reports[p, weights[0]]["summary"][b]["ndcg_at_10"] for b in ("bm25", "dense", "rrf")} for p in projects}

    def macro(group: list[str], w: str) -> float:
        return sum(nd[q][w] for q in group) / len(group)

    def choose(group: list[str]) -> str:
        return max(weights, key=lambda w: (macro(group, w), -weights.index(w)))  # ties: the earlier weight

    rows = {}
    for p in projects:
        chosen = choose([q for q in projects if q != p])
        rows[p] = {"chosen": chosen, "held_out": nd[p][chosen], "shipped": nd[p][weights[0]], **base[p],
                   "n": reports[p, weights[0]]["n_queries"], "by_weight": nd[p]}
    summary = {
        "held_out_minus_shipped": [round(x, 4) for x in over_projects([rows[p]["held_out"] - rows[p]["shipped"] for p in projects])],
        "held_out_minus_best_baseline": [round(x, 4) for x in over_projects([rows[p]["held_out"] - max(base[p].values()) for p in projects])],
        "folds_choosing": {w: sum(1 for p in projects if rows[p]["chosen"] == w) for w in weights},
        "chosen_on_all": choose(projects),
        "macro": {w: round(macro(projects, w), 4) for w in weights},
    }
    args.out.write_text(json.dumps({**header(), "budget": args.budget, "weights": weights, "rows": rows, "summary": summary}, indent=1))
    print("| project | n | chosen on the others | held out | shipped | BM25 | dense | RRF |")
    print("|---|---|---|---|---|---|---|---|")
    for p in projects:
        r = rows[p]
        print(f"| {p} | {r['n']} | {r['chosen']} | {r['held_out']:.4f} | {r['shipped']:.4f} | {r['bm25']:.4f} | {r['dense']:.4f} | {r['rrf']:.4f} |")
    for k, v in summary.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
