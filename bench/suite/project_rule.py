"""A ranking setting chosen by the project's shape, measured leave-one-project-out.

The ranking defaults are one setting for every project. Some shapes of project may want
another: a collection of short abstracts (SciFact) ranks best with more weight on meaning,
a manual of long pages with headings with the shipped mix. This asks whether a rule read
from the index alone — what the registry already keeps of every span (its documents,
spans, tokens, the spans under a heading) — picks, for a project nobody tuned for, a
setting that beats the shipped one.

For each tree: nDCG@10 per intent of every named setting (ranking only, on the same index,
cached per project in ``--cache`` as ``lifecycle_demote.py`` caches them; the pairs too) and
the project's shape. Then, for each project held out, the rule with the best macro nDCG@10 on
the others (each project counting once): "where FEATURE is at least (or below) T, use
SETTING, else the first setting", T each midpoint between two other projects' values; no rule
(the first setting everywhere) wins ties. Reported: the rule each fold chose, the held-out
figures against the first setting, with a 95 % bootstrap interval over projects, and the
pairs.

    python bench/suite/project_rule.py --list TREES --cache DIR \\
        --setting shipped= --setting "sem6=w_semantic:0.6,w_lexical:0.4" [--baselines LIFECYCLE_CACHE] --out OUT.json

TREES: lines of "SUITE PROJECT" (the directory holding the indexed tree, the project's name in ``run.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import lifecycle_demote  # noqa: E402

FEATURES = ("documents (log10)", "spans per document", "tokens per span", "tokens per document", "share of spans under a heading")


def shape(root: Path) -> dict[str, float]:
    """What the registry keeps of the project's spans (``Registry.totals``, and the span
    count), read from its current generation."""
    from oriongraph_cli.store.registry import Registry

    gen = (root / ".oriongraph" / "CURRENT").read_text().strip()
    reg = Registry.open(root / ".oriongraph" / "gen" / gen / "registry.sqlite")
    try:
        totals = reg.totals()
        spans = reg.conn.execute("SELECT count(*) FROM spans").fetchone()[0]
    finally:
        reg.close()
    docs = max(totals["span_documents"], 1)
    spans = max(spans, 1)
    return {"documents (log10)": math.log10(docs), "spans per document": spans / docs, "tokens per span": totals["tokens"] / spans,
            "tokens per document": totals["tokens"] / docs, "share of spans under a heading": totals["sections"] / spans}


def _rules(shapes: dict[str, dict], projects: list[str], names: list[str]):
    """Every rule over ``projects``' values: (feature, threshold, at_least, setting)."""
    yield None
    for f in FEATURES:
        vals = sorted({shapes[p][f] for p in projects})
        for a, b in zip(vals, vals[1:]):
            t = (a + b) / 2
            for at_least in (True, False):
                for n in names[1:]:
                    yield (f, t, at_least, n)


def apply(rule, shape_of: dict, first: str) -> str:
    if rule is None:
        return first
    f, t, at_least, n = rule
    return n if (shape_of[f] >= t) == at_least else first


def choose(means: dict[str, dict[str, float]], shapes: dict[str, dict], projects: list[str], names: list[str]):
    """The rule with the best macro nDCG@10 over ``projects`` (no rule wins ties, then the earlier rule)."""
    best, best_score = None, None
    for rule in _rules(shapes, projects, names):
        score = sum(means[p][apply(rule, shapes[p], names[0])] for p in projects) / len(projects)
        if best_score is None or score > best_score + 1e-12:
            best, best_score = rule, score
    return best, best_score


def report(cache: Path, trees: list[tuple[str, str]], names: list[str], baselines: Path | None = None) -> dict:
    """The rules chosen leave-one-project-out and their held-out figures; with ``baselines``
    (a ``lifecycle_demote.py`` cache of the same trees and indexes), each setting's count of
    projects above their best of BM25, dense and RRF."""
    from oriongraph_cli import tune

    projects = [p for _s, p in trees]
    data = {p: json.loads((cache / f"{p}.json").read_text()) for p in projects}
    shapes = {p: data[p]["shape"] for p in projects}
    means = {p: {n: tune.mean(data[p]["settings"][n]["ndcg"]) for n in names} for p in projects}
    folds, held = {}, {}
    for p in projects:
        rule, _ = choose(means, shapes, [q for q in projects if q != p], names)
        folds[p] = rule
        held[p] = apply(rule, shapes[p], names[0])
    first = names[0]
    d = [means[p][held[p]] - means[p][first] for p in projects]
    lo, hi = tune.bootstrap_interval(d)

    def pairs(kind: str, pick) -> list[int]:
        return [sum(data[p]["settings"][pick(p)].get(kind, [0, 0])[i] for p in projects) for i in (0, 1)]

    summary = {
        "settings": {n: {"macro ndcg": round(tune.mean([means[p][n] for p in projects]), 5),
                         "marked pairs": pairs("marked", lambda _p, n=n: n), "unmarked pairs": pairs("unmarked", lambda _p, n=n: n)}
                     for n in names},
        "held out": {"macro ndcg": round(tune.mean([means[p][held[p]] for p in projects]), 5),
                     f"minus {first}": [round(tune.mean(d), 5), round(lo, 5), round(hi, 5)],
                     "projects changed": sum(1 for p in projects if held[p] != first),
                     "marked pairs": pairs("marked", lambda p: held[p]), "unmarked pairs": pairs("unmarked", lambda p: held[p])},
        "folds choose": {},
    }
    for p in projects:
        key = "no rule" if folds[p] is None else f"{folds[p][3]} where {folds[p][0]} {'>=' if folds[p][2] else '<'} {folds[p][1]:.3g}"
        summary["folds choose"][key] = summary["folds choose"].get(key, 0) + 1
    if baselines is not None:
        best = {p: max(tune.mean(v) for v in json.loads((baselines / f"{p}.json").read_text())["baselines"].values()) for p in projects}
        for n in names:
            summary["settings"][n]["above best baseline"] = sum(1 for p in projects if means[p][n] > best[p])
        summary["held out"]["above best baseline"] = sum(1 for p in projects if means[p][held[p]] > best[p])
    rule_all, _ = choose(means, shapes, projects, names)
    summary["chosen on all"] = None if rule_all is None else list(rule_all)
    per_project = {p: {"shape": {f: round(v, 3) for f, v in shapes[p].items()},
                       **{n: round(means[p][n], 4) for n in names},
                       "held out": held[p], "held out minus first": round(means[p][held[p]] - means[p][first], 4)}
                   for p in projects}
    return {"summary": summary, "projects": per_project}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", type=Path, required=True)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--setting", action="append", required=True,
                    help="NAME=KEY:VALUE,KEY:VALUE (empty: the shipped defaults); the first is the one a rule departs from")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--baselines", type=Path, help="a lifecycle_demote.py cache of the same trees: each setting's projects above their best baseline")
    ap.add_argument("--out", help="results file name under bench/results/")
    args = ap.parse_args()
    import run as suite_run  # noqa: E402

    settings = suite_run.named_settings(args.setting)
    trees = suite_run.read_trees(args.list)

    def one(suite: Path, project: str) -> dict:
        out = lifecycle_demote.measure(suite, project, settings, with_baselines=False)
        out["shape"] = shape(suite / (suite_run.PROJECTS | suite_run.UNSEEN | suite_run.TEXT_TREES)[project][0])
        return out

    if not args.report_only:
        lifecycle_demote.measure_cached(args.cache, trees, one)
    rep = report(args.cache, trees, list(settings), args.baselines)
    print(json.dumps(rep["summary"], indent=1))
    if args.out:
        from results_file import write

        write(args.out, rep)


if __name__ == "__main__":
    main()
