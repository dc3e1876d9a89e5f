"""What the new defaults cost per compile: the first N SciFact claims compiled alternately
with the previous defaults and the current ones in one process (CPU time, p50 / p95).

    python bench/suite/latency.py --root /tmp/suite/scifact -n 60
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from oriongraph_cli import api, tune
from oriongraph_cli.config import load_config
from oriongraph_cli.evaluate import default_request, load_queries

PREVIOUS = dict(fusion="weighted", w_semantic=0.6, w_lexical=0.3, w_graph=0.1, top_k=200, diversity_lambda=0.85,
                floor_depth=0.0, lifecycle_demote=0.6, lifecycle_inactive_demote=1.0)
QUERIES = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default="/tmp/suite/scifact")
    ap.add_argument("--queries", default=str(QUERIES))
    ap.add_argument("-n", type=int, default=60)
    args = ap.parse_args()
    cfg = load_config(args.root)
    reader = api.open_index(cfg)
    before = tune.with_settings(cfg, PREVIOUS)
    qs = load_queries(args.queries)[: args.n]
    api.compile_workingset(default_request(cfg, qs[0].text, 4000), cfg, reader)  # warm the model and caches
    res: dict[str, list[float]] = {"previous": [], "current": []}
    for q in qs:
        for name, c in (("previous", before), ("current", cfg)):
            t = time.process_time()
            api.compile_workingset(default_request(c, q.text, 4000), c, reader)
            res[name].append((time.process_time() - t) * 1000)
    for k, v in res.items():
        print(f"{k}: CPU ms p50 {statistics.median(v):.1f}  p95 {sorted(v)[int(0.95 * len(v))]:.1f}")
    reader.close()
    os._exit(0)  # a model thread may still be winding down


if __name__ == "__main__":
    main()
