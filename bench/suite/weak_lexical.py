"""A weak lexical match leans on meaning: orion with the rule and without it, and the naive
packs, on every intent of the suite's projects at 1,000 and 4,000 tokens.

The rule (``rank.weights.weak_lexical``): when the lexical channel's best BM25 score for an
intent is at most ``weak_lexical_score``, ``weak_lexical_shift`` of the lexical weight goes to
the semantic channel. It was chosen leave-one-project-out on nDCG@10 alone
(``adaptive_weights.py --absolute``); this measures what it does to the working set too —
recall, relevant share, utilisation — and where each project then stands against BM25,
dense and RRF and their naive packs.

    python bench/suite/weak_lexical.py measure --suite SUITE --projects P1,P2,… --cache DIR [--which on,off,base]
    python bench/suite/weak_lexical.py report --cache DIR --out bench/results/weak_lexical_66.json

``measure`` keeps one JSON file per project and system in DIR (``on/P.json``, ``off/P.json``,
``base/P.json``) and skips what is there, so several processes can share a run; ``report``
reads them all. "off" is the same code with ``weak_lexical_score = 0``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as st
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))

sys.path.insert(1, str(HERE))
from standing import METRICS, TARGETS, under_best  # noqa: E402  (the targets, and the gap to the best baseline)

BUDGETS = (1000, 4000)


def measure(suite: Path, projects: list[str], cache: Path, which: list[str]) -> None:
    import run as suite_run  # noqa: E402  (the suite's projects and queries)
    from oriongraph_cli import tune

    for p in projects:
        for w in which:
            f = cache / w / f"{p}.json"
            if f.exists():
                continue
            cfg, reader = suite_run._open(suite, p)
            reader.repeat_cache = {}
            qs = suite_run._queries(p, None)
            try:
                if w == "base":
                    rows = tune.measure_baselines(cfg, reader, qs, BUDGETS)
                else:
                    vcfg = cfg if w == "on" else replace(cfg, weak_lexical_score=0.0)
                    rows = {"orion": tune.measure(vcfg, reader, qs, tune.Variant("shipped"), BUDGETS)}
            finally:
                reader.close()
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(json.dumps(rows) + "\n")
            print(f"{p} {w}: done", file=sys.stderr, flush=True)


def report(cache: Path) -> dict:
    from oriongraph_cli import tune

    projects = sorted(f.stem for f in (cache / "on").glob("*.json") if (cache / "off" / f.name).exists())
    out: dict = {"projects": {}, "pooled": {}, "under_best_baseline": {"off": {}, "on": {}}}
    means: dict[str, list[float]] = {m: [] for m in METRICS}
    for p in projects:
        rows = {w: json.loads((cache / w / f"{p}.json").read_text())["orion"] for w in ("off", "on")}
        entry = {}
        for m in METRICS:
            d = [a[m] - b[m] for a, b in zip(rows["on"], rows["off"])]
            lo, hi = tune.bootstrap_interval(d)
            entry[m] = {"off": round(st.mean(r[m] for r in rows["off"]), 4), "on": round(st.mean(r[m] for r in rows["on"]), 4),
                        "delta": [round(st.mean(d), 4), round(lo, 4), round(hi, 4)]}
            means[m].append(st.mean(d))
        base_file = cache / "base" / f"{p}.json"
        if base_file.exists():
            base = json.loads(base_file.read_text())
            entry["baselines"] = {s: {m: round(st.mean(r[m] for r in base[s]), 4) for m in METRICS} for s in base}
            for w in ("off", "on"):
                out["under_best_baseline"][w][p] = under_best(rows[w], base)
        out["projects"][p] = entry
    for m in METRICS:
        lo, hi = tune.bootstrap_interval(means[m])
        out["pooled"][m] = {"mean": round(st.mean(means[m]), 4), "interval": [round(lo, 4), round(hi, 4)],
                            "higher": sum(d > 1e-9 for d in means[m]), "lower": sum(d < -1e-9 for d in means[m])}
    out["count_under"] = {w: {m: sum(1 for u in out["under_best_baseline"][w].values() if m in u) for m, _s in TARGETS}
                          for w in ("off", "on")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("measure", "report"))
    ap.add_argument("--suite", type=Path)
    ap.add_argument("--projects", default="")
    ap.add_argument("--which", default="on,off,base")
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    if a.command == "measure":
        if a.suite is None:
            ap.error("measure needs --suite")
        measure(a.suite, [p for p in a.projects.split(",") if p], a.cache, a.which.split(","))
        return
    rep = report(a.cache)
    if a.out is not None:
        sys.path.insert(1, str(HERE.parent))
        from results_file import header  # noqa: E402  (machine, date, commit, command)

        a.out.write_text(json.dumps({**header("python bench/suite/weak_lexical.py " + " ".join(sys.argv[1:])), **rep}, indent=1) + "\n")
    print(json.dumps(rep["pooled"], indent=1))
    print(json.dumps(rep["count_under"]))
    for w in ("off", "on"):
        for p, u in rep["under_best_baseline"][w].items():
            if u:
                print(w, p, u)


if __name__ == "__main__":
    main()
