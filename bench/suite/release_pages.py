"""One page in several releases ranked newest first (``rank/copies.newest_version_ranked``):
orion's figures per intent with the rule off and at each ``NEWEST_AT_LEAST`` given, on the
same indexes in one process — nDCG@10, working-set recall at 1,000 and 4,000 tokens and the
relevant share at 4,000 — and each setting minus off with a 95 % paired bootstrap interval.

    python bench/suite/release_pages.py --list TREES --modes off,0,0.8,0.9 --out release_pages.json

TREES: lines of "SUITE PROJECT" (the directory holding the indexed tree, the project's name in
``run.py``). Lifecycle pairs are measured by ``run.py pairs`` on the same trees.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
METRICS = ("ndcg", "ws@1000", "ws@4000", "share@4000")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", type=Path, required=True)
    ap.add_argument("--modes", default="off,0.8")
    ap.add_argument("--out", help="results file name under bench/results/")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    import run as suite_run  # noqa: E402

    from oriongraph_cli import tune
    from oriongraph_cli.rank import copies

    rule = copies.newest_version_ranked
    modes = args.modes.split(",")
    out: dict[str, dict] = {}
    for suite, project in suite_run.read_trees(args.list):
        cfg, reader = suite_run._open(Path(suite), project)
        reader.repeat_cache = {}
        qs = suite_run._queries(project, None)
        rows: dict[str, list[dict]] = {}
        try:
            for mode in modes:
                copies.newest_version_ranked = (lambda scored, intent: scored) if mode == "off" else rule
                copies.NEWEST_AT_LEAST = 0.0 if mode == "off" else float(mode)
                rows[mode] = tune.measure(cfg, reader, qs, tune.Variant(mode), (1000, 4000))
        finally:
            reader.close()
        res: dict[str, dict] = {"intents": len(qs)}
        for mode in modes:
            res[mode] = {m: round(tune.mean([r[m] for r in rows[mode]]), 4) for m in METRICS}
            if mode != "off" and "off" in rows:
                for m in METRICS:
                    d = [a[m] - b[m] for a, b in zip(rows[mode], rows["off"])]
                    lo, hi = tune.bootstrap_interval(d)
                    res[mode][m + " - off"] = [round(tune.mean(d), 4), round(lo, 4), round(hi, 4)]
        out[project] = res
        print(project, {k: v for k, v in res.items() if k != "intents"}, flush=True)
    if args.out:
        from results_file import write

        write(args.out, {"projects": out})


if __name__ == "__main__":
    main()
