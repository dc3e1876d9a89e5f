"""nDCG@10 per suite project at each value of a bench-only knob (the archived experiments
``bigram_lexical.py`` and ``hybrid_rrf_share.py``), the shipped defaults otherwise."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "suite"))
sys.path.insert(0, str(HERE.parent.parent))


def sweep_args(doc: str | None, values_flag: str, default: str):
    """The arguments every archived sweep takes (``--suite``, ``--projects``, ``--limit``)
    and its knob's values (``values_flag``, comma-separated)."""
    import argparse

    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--projects", required=True)
    ap.add_argument(values_flag, default=default)
    ap.add_argument("--limit", type=int, default=None, help="the first N intents of each project")
    return ap.parse_args()


def sweep(suite: Path, projects: str, limit: int | None, values: str, label: str,
          apply: Callable[[float], None], setup: Callable[[object], None] | None = None) -> None:
    """For each project (comma-separated), ``setup(reader)`` once, then for each value
    ``apply(value)`` and one line: project, ``label value``, nDCG@10, intents, seconds."""
    import run as suite_run  # the suite's projects and queries

    from oriongraph_cli import tune

    for project in projects.split(","):
        cfg, reader = suite_run._open(suite, project)
        t = time.time()
        if setup is not None:
            setup(reader)
        queries = suite_run._queries(project, limit)
        for value in (float(x) for x in values.split(",")):
            apply(value)
            reader.repeat_cache = {}  # generator hits depend on the knob
            rows = tune.measure(cfg, reader, queries, tune.Variant("shipped"), (1000,), ranking_only=True)
            print(f"{project}\t{label} {value:g}\tnDCG@10 {tune.mean([r['ndcg'] for r in rows]):.4f}\t"
                  f"n={len(rows)}\t{time.time() - t:.0f} s", flush=True)
        reader.close()
