"""nDCG@10 of the shipped ranking alone (no selection) on suite projects, one row per
intent: the quick check a ranking prototype (behind an environment variable) was judged by.

    PYTHONPATH=CHECKOUT python -P bench/archive/rank_only_ndcg.py TAG adr-moj,django,peps,rfcs,scifact \
        --suite /tmp/suite --out /tmp/nd_TAG.json

Run each variant in a process of its own: the reader's repeat cache keeps every intent's
generator hits. SciFact counts its first 300 train claims, as the suite's search does.
Used for the lexical term weights measured on 2026-12-05 (bench/results/lexical_term_weights.patch,
``ORION_TW=alpha``): docs/BENCHMARKS.md, "A one-file re-index that writes, encodes, verifies and asks git less", its last list.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "suite"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tag")
    ap.add_argument("projects", help="comma-separated suite project names")
    ap.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import run as suite_run  # noqa: E402  (the suite's projects and queries)

    from oriongraph_cli import tune

    out = {}
    for proj in args.projects.split(","):
        cfg, reader = suite_run._open(args.suite, proj)
        reader.repeat_cache = {}
        qs = suite_run._queries(proj, 300 if proj == "scifact" else None)
        try:
            rows = tune.measure(cfg, reader, qs, tune.Variant("shipped"), (4000,), ranking_only=True)
        finally:
            reader.close()
        out[proj] = [r["ndcg"] for r in rows]
        print(args.tag, proj, round(tune.mean(out[proj]), 4), flush=True)
    if args.out:
        args.out.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
