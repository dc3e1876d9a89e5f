"""Orion against a baseline over many projects at once, from ``budgets.py`` reports: each
project's mean difference (orion − baseline) and its 95 % interval, then what they say
together — the mean over projects (each project one unit; its 95 % interval from resampling
the projects) and the precision-weighted mean (each project weighted by its own interval's
width; its 95 % interval from the weights).

    python bench/suite/pooled.py bench/results/suite_unseen_21/*.json --baseline rrf
    python bench/suite/pooled.py bench/results/suite_unseen_21/*.json --baseline best --out bench/results/pooled_21_best.json

A report may hold several projects. Standard library only; nothing is measured here.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path

METRICS = ("ndcg", "ws@1000", "ws@4000", "share@4000")
Z = 1.96


def read(paths: list[Path], baseline: str) -> dict[str, dict[str, list[float]]]:
    """project -> metric -> [mean, lo, hi] of orion − ``baseline`` (the last report wins);
    ``best``: per metric, the baseline orion is closest to (the smallest mean difference)."""
    out: dict[str, dict[str, list[float]]] = {}
    for path in paths:
        for project, rep in json.loads(path.read_text())["projects"].items():
            minus = rep.get("orion_minus", {})
            if baseline == "best" and minus:
                out[project] = {m: min((d[m] for d in minus.values() if m in d), key=lambda d: d[0]) for m in METRICS}
            elif minus.get(baseline):
                out[project] = minus[baseline]
    return out


def over_projects(deltas: list[float], rounds: int = 10_000, seed: int = 7) -> tuple[float, float, float]:
    """The mean of the projects' differences and its 95 % interval, resampling projects."""
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(deltas, k=len(deltas))) for _ in range(rounds))
    return statistics.fmean(deltas), means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def weighted(rows: list[list[float]]) -> tuple[float, float, float]:
    """Precision-weighted mean of the differences (each weight 1 / its standard error², the
    error read from its 95 % interval) and that mean's 95 % interval. A project whose
    interval has no width (every intent's difference the same: a small project where both
    find everything) has an error the resampling could not see, not none: it counts as much
    as the most precise project whose interval has a width, never more."""
    errors = [(hi - lo) / (2 * Z) for _mean, lo, hi in rows]
    floor = min((e for e in errors if e > 0), default=1e-4)
    ws, xs = [], []
    for (mean, _lo, _hi), se in zip(rows, errors):
        ws.append(1 / max(se, floor) ** 2)
        xs.append(mean)
    total = sum(ws)
    m = sum(w * x for w, x in zip(ws, xs)) / total
    se = (1 / total) ** 0.5
    return m, m - Z * se, m + Z * se


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", type=Path, nargs="+")
    ap.add_argument("--baseline", default="rrf", help="bm25, dense, rrf, or best (per metric, the baseline closest to orion)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    per = read(args.reports, args.baseline)
    if not per:
        ap.error(f"no report holds orion − {args.baseline}")
    print(f"| project (orion − {args.baseline}) | " + " | ".join(METRICS) + " |")
    print("|---" * (len(METRICS) + 1) + "|")
    for project in sorted(per):
        print(f"| {project} | " + " | ".join(f"{per[project][m][0]:+.3f} [{per[project][m][1]:+.3f}, {per[project][m][2]:+.3f}]" for m in METRICS) + " |")
    summary: dict[str, dict[str, list[float]]] = {"over_projects": {}, "weighted": {}, "below_zero": {}}
    for m in METRICS:
        rows = [per[p][m] for p in sorted(per)]
        summary["over_projects"][m] = [round(v, 4) for v in over_projects([r[0] for r in rows])]
        summary["weighted"][m] = [round(v, 4) for v in weighted(rows)]
        summary["below_zero"][m] = [sum(r[0] < 0 for r in rows), sum(r[2] < 0 for r in rows)]
    for name, label in (("over_projects", f"mean over {len(per)} projects"), ("weighted", "precision-weighted")):
        print(f"| **{label}** | " + " | ".join(f"{summary[name][m][0]:+.3f} [{summary[name][m][1]:+.3f}, {summary[name][m][2]:+.3f}]" for m in METRICS) + " |")
    print("| below zero (point; whole interval) | " + " | ".join(f"{a}; {b}" for a, b in (summary["below_zero"][m] for m in METRICS)) + " |")
    if args.out:
        args.out.write_text(json.dumps({"baseline": args.baseline, "projects": per, **summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
