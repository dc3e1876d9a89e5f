"""The shipped defaults against the naive baselines on every suite project, at the small
budgets too: working-set recall, relevant-token share and utilisation at 300, 600, 1,000
and 4,000 tokens, and nDCG@10, measured the way ``run.py`` measures a variant (``tune.measure``).

    python bench/suite/budgets.py --suite /tmp/suite --out bench/results/suite_budgets.json
    ORION_BENCH_SRC=/tmp/base python bench/suite/budgets.py --suite /tmp/suite --out OUT   # another checkout (git archive)
    python bench/suite/budgets.py ... --no-baselines --rows AFTER.jsonl   # orion's row per intent, to compare
    python bench/suite/budgets.py --compare BEFORE.jsonl AFTER.jsonl      # after minus before, intent by intent
    python bench/suite/budgets.py ... --baseline-rows 'ROWS/{project}_baselines.json'   # the naive packs' rows, for choose_rows.py

``run.py`` chooses defaults at 1,000 and 4,000 tokens; this reports what the chosen defaults
do below that, where a working set holds two to five passages. Nothing is chosen here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))  # another checkout's orion first

BUDGETS = (300, 600, 1000, 4000)
METRICS = ["ndcg"] + [f"{m}@{b}" for b in BUDGETS for m in ("ws", "wsq", "share", "util")]


def measure(suite: Path, project: str, baselines: bool) -> dict:
    sys.path.insert(1, str(HERE))
    import run as suite_run  # noqa: E402  (the suite's projects and queries)
    from oriongraph_cli import tune

    cfg, reader = suite_run._open(suite, project)
    reader.repeat_cache = {}
    qs = suite_run._queries(project, None)
    try:
        out = dict(tune.measure_baselines(cfg, reader, qs, BUDGETS)) if baselines else {}
        out["orion"] = tune.measure(cfg, reader, qs, tune.Variant("shipped"), BUDGETS)
    finally:
        reader.close()
    return out


PAIRED = ("ndcg", "ws@1000", "ws@4000", "share@4000")


def paired(rows: dict[str, list[dict]]) -> dict[str, dict[str, list[float]]]:
    """Orion minus each baseline, intent by intent: the mean difference and its 95 % paired
    bootstrap interval (``tune.bootstrap_interval``), for the generalisation targets' metrics."""
    from oriongraph_cli import tune

    out: dict[str, dict[str, list[float]]] = {}
    for base in (b for b in rows if b != "orion"):
        out[base] = {}
        for m in PAIRED:
            deltas = [o[m] - b[m] for o, b in zip(rows["orion"], rows[base]) if m in o and m in b]
            lo, hi = tune.bootstrap_interval(deltas)
            out[base][m] = [round(tune.mean(deltas), 4), round(lo, 4), round(hi, 4)]
    return out


def compare(before: Path, after: Path) -> None:
    """After minus before, intent by intent, for rows ``--rows`` wrote (the same intents in
    the same order): the mean difference and its 95 % paired bootstrap interval, per project."""
    from oriongraph_cli import tune

    def load(path: Path) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                out.setdefault(r["project"], []).append(r)
        return out

    a, b = load(before), load(after)
    for project in [p for p in a if p in b]:
        parts = []
        for m in PAIRED[:1] + tuple(f"{k}@{n}" for n in BUDGETS for k in ("ws", "share")):
            deltas = [y[m] - x[m] for x, y in zip(a[project], b[project]) if m in x and m in y]
            lo, hi = tune.bootstrap_interval(deltas)
            parts.append(f"{m} {tune.mean(deltas):+.4f} [{lo:+.4f}, {hi:+.4f}]")
        print(f"| {project} (n={len(a[project])}) | " + ", ".join(parts))


def mean(rows: list[dict], key: str) -> float:
    from oriongraph_cli import tune

    return tune.mean([r[key] for r in rows if key in r])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, help="directory holding the indexed projects (run.py's --suite)")
    ap.add_argument("--rows", type=Path, help="also write orion's row per intent here (JSON lines), for --compare")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"), help="after minus before from two --rows files, and stop")
    ap.add_argument("--projects", default="scifact,django,peps,rfcs,adr-moj")
    ap.add_argument("--no-baselines", action="store_true", help="orion only")
    ap.add_argument("--baseline-rows", help="also write the naive packs' rows per intent, {name: rows}, to this path "
                    "({project} in it: one file per project), for choose_rows.py --baselines")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    if args.suite is None or args.out is None:
        ap.error("--suite and --out are required")
    sys.path.insert(1, str(HERE.parent))
    from results_file import header  # noqa: E402  (machine, date, commit, command)

    # the orion measured: this checkout (its commit in the header) or ORION_BENCH_SRC's
    report = {**header("python bench/suite/budgets.py " + " ".join(sys.argv[1:])), "budgets": list(BUDGETS), "src": os.environ.get("ORION_BENCH_SRC", "this checkout"), "projects": {}}
    print("| project | system | " + " | ".join(METRICS) + " |")
    for project in [p for p in args.projects.split(",") if p]:
        t0 = time.time()
        rows = measure(args.suite, project, not args.no_baselines)
        if args.rows is not None:
            with args.rows.open("a") as f:
                for r in rows["orion"]:
                    f.write(json.dumps({"project": project, **r}) + "\n")
        if args.baseline_rows and len(rows) > 1:
            Path(args.baseline_rows.format(project=project)).write_text(json.dumps({n: r for n, r in rows.items() if n != "orion"}) + "\n")
        report["projects"][project] = {name: {m: round(mean(r, m), 4) for m in METRICS} | {"n": len(r)} for name, r in rows.items()}
        for name, summary in report["projects"][project].items():
            print(f"| {project} | {name} | " + " | ".join(f"{summary[m]:.4f}" for m in METRICS) + f" |  ({time.time() - t0:.0f} s)", flush=True)
        if len(rows) > 1:
            report["projects"][project]["orion_minus"] = paired(rows)
            for base, diffs in report["projects"][project]["orion_minus"].items():
                print(f"|   orion − {base} | " + ", ".join(f"{m} {d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]" for m, d in diffs.items()), flush=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
