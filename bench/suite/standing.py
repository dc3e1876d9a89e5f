"""Where every project of the suite stands against BM25, dense and RRF and their naive packs,
measured in one run on one version of the code.

The issue's targets, per project: nDCG@10 above the best of BM25, dense and RRF; working-set
recall at 1,000 and 4,000 tokens at least the best naive pack's; relevant-token share at 4,000
at least RRF's. ``weak_lexical.py measure --which on,base`` measures orion as shipped ("on")
and the naive packs ("base") intent by intent, one JSON file per project in the cache; this
reads them and says, per project and target, the gap to the best baseline with its 95 %
bootstrap interval over the project's intents (paired, intent by intent):

    python bench/suite/weak_lexical.py measure --suite SUITE --projects P1,P2,… --cache DIR --which on,base
    python bench/suite/standing.py --cache DIR --out bench/results/standing_66.json
    python bench/suite/standing.py --cache AFTER --against BEFORE --out …   # orion's change between two runs

Re-index every tree with the code measured first (``orion index --root TREE``): a tree
indexed by older parse rules reads its notes as those rules did.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as st
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))

METRICS = ("ndcg", "ws@1000", "share@1000", "util@1000", "ws@4000", "share@4000", "util@4000")
# each target: the metric and the baselines whose best orion must reach
TARGETS = (("ndcg", ("bm25", "dense", "rrf")), ("ws@1000", ("bm25", "dense", "rrf")), ("ws@4000", ("bm25", "dense", "rrf")),
           ("share@4000", ("rrf",)))


def under_best(orion: list[dict], base: dict[str, list[dict]], rows: dict | None = None) -> dict[str, list]:
    """The targets ``orion``'s rows (one per intent) miss against the best of ``base``'s
    systems: metric -> [gap, best system]. ``rows``: their :func:`standing`, when read."""
    rows = rows or standing(orion, base)
    return {m: [rows[m]["gap"][0], rows[m]["best"]] for m, _s in TARGETS if rows[m]["gap"][0] < -1e-9}


def standing(orion: list[dict], base: dict[str, list[dict]]) -> dict:
    """Per target: orion's mean, the best baseline's, which one, and the paired gap with its
    interval."""
    from oriongraph_cli import tune

    out = {}
    for m, systems in TARGETS:
        best = max(systems, key=lambda s: st.mean(r[m] for r in base[s]))
        d = [a[m] - b[m] for a, b in zip(orion, base[best])]
        lo, hi = tune.bootstrap_interval(d)
        out[m] = {"orion": round(st.mean(r[m] for r in orion), 4), "best": best,
                  "baseline": round(st.mean(r[m] for r in base[best]), 4), "gap": [round(st.mean(d), 4), round(lo, 4), round(hi, 4)]}
    out["util@1000"] = round(st.mean(r["util@1000"] for r in orion), 4)
    out["util@4000"] = round(st.mean(r["util@4000"] for r in orion), 4)
    out["intents"] = len(orion)
    return out


def report(cache: Path) -> dict:
    projects = sorted(f.stem for f in (cache / "on").glob("*.json") if (cache / "base" / f.name).exists())
    rows = {}
    for p in projects:
        orion = json.loads((cache / "on" / f"{p}.json").read_text())["orion"]
        base = json.loads((cache / "base" / f"{p}.json").read_text())
        row = standing(orion, base)
        rows[p] = {**row, "under": under_best(orion, base, row)}
    count = {m: sorted(p for p, r in rows.items() if m in r["under"]) for m, _s in TARGETS}
    return {"projects": rows, "pooled": pooled(rows), "under": count, "count_under": {m: len(v) for m, v in count.items()}}


def pooled(rows: dict[str, dict]) -> dict:
    """Per target, the mean over the projects (each counting once) of orion's gap to the best
    baseline, with its 95 % bootstrap interval over the projects."""
    from oriongraph_cli import tune

    out = {}
    for m, _systems in TARGETS:
        gaps = [r[m]["gap"][0] for r in rows.values()]
        lo, hi = tune.bootstrap_interval(gaps)
        out[m] = {"mean": round(st.mean(gaps), 4), "interval": [round(lo, 4), round(hi, 4)]} if gaps else {}
    return out


def compare(before: Path, after: Path) -> dict:
    """orion after − before (two caches of the same projects and intents, say two reading
    rules), per project and metric: the paired mean over its intents with its interval; and
    over the projects, the mean of those means with its interval and how many rose or fell."""
    from oriongraph_cli import tune

    projects = sorted(f.stem for f in (after / "on").glob("*.json") if (before / "on" / f.name).exists())
    rows, means = {}, {m: [] for m in METRICS}
    for p in projects:
        a = json.loads((before / "on" / f"{p}.json").read_text())["orion"]
        b = json.loads((after / "on" / f"{p}.json").read_text())["orion"]
        rows[p] = {}
        for m in METRICS:
            d = [y[m] - x[m] for x, y in zip(a, b)]
            lo, hi = tune.bootstrap_interval(d)
            rows[p][m] = [round(st.mean(d), 4), round(lo, 4), round(hi, 4)]
            means[m].append(st.mean(d))
    pooled = {}
    for m, v in means.items():
        lo, hi = tune.bootstrap_interval(v)
        pooled[m] = {"mean": round(st.mean(v), 4), "interval": [round(lo, 4), round(hi, 4)],
                     "higher": sum(x > 1e-9 for x in v), "lower": sum(x < -1e-9 for x in v)}
    return {"projects": rows, "pooled": pooled}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--against", type=Path, help="another run's cache: report orion's change from it (--cache after, --against before)")
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    if a.against is not None:
        rep = compare(a.against, a.cache)
        if a.out is not None:
            sys.path.insert(1, str(HERE.parent))
            from results_file import header  # noqa: E402  (machine, date, commit, command)

            a.out.write_text(json.dumps({**header("python bench/suite/standing.py " + " ".join(sys.argv[1:])), **rep}, indent=1) + "\n")
        print(json.dumps(rep["pooled"], indent=1))
        return
    rep = report(a.cache)
    if a.out is not None:
        sys.path.insert(1, str(HERE.parent))
        from results_file import header  # noqa: E402  (machine, date, commit, command)

        a.out.write_text(json.dumps({**header("python bench/suite/standing.py " + " ".join(sys.argv[1:])), **rep}, indent=1) + "\n")
    print(f"{len(rep['projects'])} projects; under the best baseline: {json.dumps(rep['count_under'])}")
    print("mean gap to the best baseline over the projects:", json.dumps(rep["pooled"]))
    for p, r in rep["projects"].items():
        for m, (gap, system) in r["under"].items():
            lo, hi = r[m]["gap"][1:]
            print(f"{p}: {m} {gap:+.4f} [{lo:+.4f}, {hi:+.4f}] against {system}")


if __name__ == "__main__":
    main()
