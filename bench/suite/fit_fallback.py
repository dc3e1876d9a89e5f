"""How often delivery's bisection fallback runs, and what it costs: every intent of the
given projects compiled at the given budgets, counting the compiles where the shrink rounds
did not settle and the fallback searched the selection budget (builds and CPU time).

    python bench/suite/fit_fallback.py --suite /tmp/suite --projects django,adr-moj,peps --budgets 1000,4000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (the suite's projects and queries)
from oriongraph_cli import api  # noqa: E402
from oriongraph_cli.assemble import deliver  # noqa: E402
from oriongraph_cli.config import load_config  # noqa: E402
from oriongraph_cli.evaluate import default_request  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="/tmp/suite")
    ap.add_argument("--projects", default="django,adr-moj,peps")
    ap.add_argument("--budgets", default="1000,4000")
    args = ap.parse_args()
    stats = {"compiles": 0, "fallbacks": 0, "fallback_cpu_ms": 0.0, "compile_cpu_ms": 0.0}
    inner = deliver._bisect

    def counted(*a, **kw):
        t = time.process_time()
        try:
            return inner(*a, **kw)
        finally:
            stats["fallbacks"] += 1
            stats["fallback_cpu_ms"] += (time.process_time() - t) * 1000

    deliver._bisect = counted
    for p in args.projects.split(","):
        cfg = load_config(Path(args.suite) / run.PROJECTS[p][0])
        reader = api.open_index(cfg)
        for q in run._queries(p, None):
            for b in (int(x) for x in args.budgets.split(",")):
                t = time.process_time()
                try:
                    api.compile_workingset(default_request(cfg, q.text, b), cfg, reader)
                except Exception as exc:  # noqa: BLE001 — counted, not fatal
                    print(f"{p} {q.id} {b}: {exc}")
                stats["compiles"] += 1
                stats["compile_cpu_ms"] += (time.process_time() - t) * 1000
        reader.close()
    print(stats)
    os._exit(0)


if __name__ == "__main__":
    main()
