"""Choose between selection settings leave-one-project-out from rows already measured.

``budgets.py --rows`` writes orion's figures per intent for one checkout or setting; this
reads those rows for two or more named settings, and the naive packs' rows measured on the
same indexes (``--baselines``: a JSON of ``tune.measure_baselines``'s rows per project), and
does what ``run.py all`` does for the selection stage: for each project held out, the
setting meeting the targets (``tune.selection_targets``: recall at 1k and 4k at least the
best naive pack's, relevant share at 4k at least RRF's) on the most other projects wins,
then the selection objective fixed before the suite ran (``tune.selection_objective``).

    python bench/suite/choose_rows.py --setting "lead whole 1=ROWS/{project}_base.jsonl" \\
        --setting "lead whole 0.5 or 1000 tokens=ROWS/{project}_var.jsonl" \\
        --baselines "ROWS/{project}_baselines.json" --projects P1,P2,… --out bench/results/OUT.json

Reports, per project, each setting's figures against the best naive pack, the setting each
fold chose, the held-out figures (each project scored with the setting the others chose)
against each setting kept everywhere, with 95 % bootstrap intervals over projects, and the
number of projects on which the targets are met.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))

BUDGETS = (1000, 4000)
METRICS = ("ws@1000", "ws@4000", "share@1000", "share@4000")


def load_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> None:
    from oriongraph_cli import tune

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--setting", action="append", required=True, help="NAME=PATH with {project}: budgets.py --rows files")
    ap.add_argument("--baselines", required=True, help="PATH with {project}: the naive packs' rows per intent")
    ap.add_argument("--projects", required=True)
    ap.add_argument("--out", type=Path, help="results file name under bench/results/")
    args = ap.parse_args()

    projects = args.projects.split(",")
    settings = dict(s.split("=", 1) for s in args.setting)
    table = {p: {name: load_rows(Path(pattern.format(project=p))) for name, pattern in settings.items()} for p in projects}
    baselines = {p: json.loads(Path(args.baselines.format(project=p)).read_text()) for p in projects}
    for p in projects:
        n = {len(rows) for rows in (*table[p].values(), *baselines[p].values())}
        if len(n) != 1:
            sys.exit(f"{p}: the rows hold different numbers of intents ({sorted(n)}); measure them on the same intents")
    names = list(settings)
    targets = tune.selection_targets(table, baselines, BUDGETS)
    objective = lambda row: tune.selection_objective(row, BUDGETS)  # noqa: E731

    def avg(rows: list[dict], m: str) -> float:
        return tune.mean([r[m] for r in rows])

    per_project, held = {}, {}
    for p in projects:
        others = [q for q in projects if q != p]
        chosen = tune.choose(table, others, names, objective, targets)
        held[p] = chosen
        best = {b: max(avg(baselines[p][n], f"ws@{b}") for n in baselines[p]) for b in BUDGETS}
        per_project[p] = {
            "chosen held out": chosen,
            "best pack": {f"ws@{b}": round(best[b], 4) for b in BUDGETS} | {"rrf share@4000": round(avg(baselines[p]["rrf"], "share@4000"), 4)},
            **{name: {m: round(avg(table[p][name], m), 4) for m in METRICS} | {"targets met": targets(p, name)} for name in names},
        }
    on_all = tune.choose(table, projects, names, objective, targets)
    summary = {"chosen on all": on_all, "folds choosing": {n: sum(1 for p in projects if held[p] == n) for n in names},
               "targets met": {n: sum(1 for p in projects if targets(p, n)) for n in names},
               "targets met held out": sum(1 for p in projects if targets(p, held[p]))}
    for name in names:
        diffs = {}
        for m in METRICS:
            d = [avg(table[p][held[p]], m) - avg(table[p][name], m) for p in projects]
            lo, hi = tune.bootstrap_interval(d)
            diffs[m] = [round(tune.mean(d), 4), round(lo, 4), round(hi, 4)]
        summary[f"held out minus {name} everywhere"] = diffs
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    print(f"\n| project | chosen held out | " + " | ".join(f"{n}: ws@4k / share@4k / met" for n in names) + " | best pack ws@4k / RRF share@4k |")
    print("|---|---|" + "---|" * len(names) + "---|")
    for p in projects:
        r = per_project[p]
        cells = [f"{r[n]['ws@4000']:.3f} / {r[n]['share@4000']:.3f} / {'yes' if r[n]['targets met'] else 'no'}" for n in names]
        print(f"| {p} | {r['chosen held out']} | " + " | ".join(cells) + f" | {r['best pack']['ws@4000']:.3f} / {r['best pack']['rrf share@4000']:.3f} |")
    if args.out:
        sys.path.insert(0, str(HERE.parent))
        from results_file import header

        cmd = "python bench/suite/choose_rows.py " + " ".join(f"'{a}'" if " " in a else a for a in sys.argv[1:])
        (HERE.parent / "results" / args.out.name).write_text(
            json.dumps({**header(cmd), "summary": summary, "projects": per_project}, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
