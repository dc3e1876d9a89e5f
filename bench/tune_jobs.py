"""`orion eval --tune`'s search run with each given number of processes, one after the
other: wall time, this process's CPU, the last progress report, and whether every report
is the same JSON.

    python bench/tune_jobs.py ROOT QUERIES.jsonl 2,1
"""

import json
import sys
import time

from oriongraph_cli import tune
from oriongraph_cli.config import load_config
from oriongraph_cli.evaluate import load_queries



def main() -> None:
    cfg = load_config(sys.argv[1])
    qs = load_queries(sys.argv[2])
    out = {}
    for jobs in map(int, sys.argv[3].split(",")):
        t, c, seen = time.time(), time.process_time(), []
        rep = tune.tune(cfg, qs, folds=5, budgets=(1000, 4000), jobs=jobs, progress=lambda s, d, n: seen.append((s, d, n)))
        out[jobs] = json.dumps(rep.to_dict(), sort_keys=True)
        print(jobs, "wall", round(time.time() - t, 1), "s; parent cpu", round(time.process_time() - c, 1), seen[-1], len(seen),
              rep.chosen_names, flush=True)
    print("identical:", len(set(out.values())) == 1)


if __name__ == "__main__":
    main()
