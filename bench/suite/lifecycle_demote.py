"""How hard a replaced or retired document is demoted, chosen leave-one-project-out.

A document marked superseded or deprecated is ranked with its base score × ``lifecycle_demote``,
one marked not in force (withdrawn, rejected, obsolete, archived, defunct, ...) × ``lifecycle_inactive_demote``.
For each named setting of those two (and any other ranking setting), on the same indexes in one
process: nDCG@10 per intent, the baselines' nDCG@10 (BM25, dense, RRF: the best per project) and
the lifecycle pairs (``run.py pairs``: the current document ranked above the one it replaced,
marked and unmarked). Each project's figures are cached in ``--cache`` (one JSON a project), so a
long list can be split across processes and reported once all are there (``--report-only``).

The report: per project and setting the mean nDCG@10 and the pairs; then, for each project held
out, the setting with the best macro nDCG@10 on the others (``tune.choose``, each project counting
once; ties to the earlier setting) and its held-out figures, against each setting kept everywhere,
with 95 % bootstrap intervals over projects. With ``--against DIR``, also the first setting here
minus the same setting in another cache, project by project (before and after a change of code
or of the index, on the same intents).

    python bench/suite/lifecycle_demote.py --list TREES --cache DIR \\
        --setting shipped= --setting "d75=lifecycle_demote:0.75,lifecycle_inactive_demote:0.75" --out OUT.json

TREES: lines of "SUITE PROJECT" (the directory holding the indexed tree, the project's name in ``run.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _pairs(cfg, reader, pairs) -> dict:
    """Marked and unmarked pairs whose current document ranks above the replaced one."""
    from oriongraph_cli import pipeline
    from oriongraph_cli.evaluate import default_request, doc_ranking

    res = {"marked": [0, 0], "unmarked": [0, 0], "missed": []}
    for pr in pairs:
        req = default_request(cfg, pr["text"], 4000)
        _sig, scored, *_ = pipeline.rank_candidates(req, cfg, reader)
        order = doc_ranking(x.metadata.filepath for x in scored)
        a = order.index(pr["current"]) if pr["current"] in order else 10**6
        b = order.index(pr["superseded"]) if pr["superseded"] in order else 10**6
        kind = "marked" if pr["marked"] else "unmarked"
        res[kind][1] += 1
        res[kind][0] += a < b
        if a >= b:
            res["missed"].append(pr["id"])
    return res


def _baselines(cfg, reader, queries) -> list[float]:
    """BM25's, dense's and RRF's nDCG@10 per intent."""
    from oriongraph_cli import pipeline
    from oriongraph_cli.evaluate import baseline_span_lists, default_request, doc_ranking, ndcg_at_k

    out: dict[str, list[float]] = {"bm25": [], "dense": [], "rrf": []}
    for q in queries:
        sig, *_ = pipeline.rank_candidates(default_request(cfg, q.text, 4000), cfg, reader)
        lists = baseline_span_lists(reader, sig, list(out))
        for name, rows in lists.items():
            meta = reader.rows(rows)
            out[name].append(ndcg_at_k(doc_ranking(meta[r].meta.filepath for r in rows if r in meta), q.positives))
    return out


def measure(suite: Path, project: str, settings: dict[str, dict], with_baselines: bool = True) -> dict:
    import run as suite_run  # noqa: E402

    from oriongraph_cli import tune

    cfg, reader = suite_run._open(suite, project)
    reader.repeat_cache = {}
    qs = suite_run._queries(project, None)
    pairs_file = suite_run.PAIRS.get(project)
    pairs = [json.loads(x) for x in pairs_file.read_text().splitlines() if x.strip()] if pairs_file else []
    out: dict = {"intents": len(qs), "pairs": len(pairs), "settings": {}}
    try:
        if with_baselines:
            out["baselines"] = _baselines(cfg, reader, qs)
        for name, values in settings.items():
            c = tune.with_settings(cfg, values)
            rows = tune.measure(c, reader, qs, tune.Variant(name), ranking_only=True)
            out["settings"][name] = {"ndcg": [r["ndcg"] for r in rows], **(_pairs(c, reader, pairs) if pairs else {})}
    finally:
        reader.close()
    return out


def report(cache: Path, projects: list[str], names: list[str], baselines: Path | None = None) -> dict:
    """Per project and setting, and each fold's choice; the baselines are read from
    ``baselines`` (another cache of the same trees and indexes) where given, else this one's."""
    from oriongraph_cli import tune

    data = {p: json.loads((cache / f"{p}.json").read_text()) for p in projects}
    if baselines is not None:
        for p in projects:
            data[p]["baselines"] = json.loads((baselines / f"{p}.json").read_text())["baselines"]
    table = {p: {n: [{"ndcg": x} for x in data[p]["settings"][n]["ndcg"]] for n in names} for p in projects}
    per_project = {}
    for p in projects:
        best_base = max(tune.mean(v) for v in data[p]["baselines"].values())
        per_project[p] = {"best baseline": round(best_base, 4)}
        for n in names:
            s = data[p]["settings"][n]
            per_project[p][n] = {"ndcg": round(tune.mean(s["ndcg"]), 4), "marked": s.get("marked"), "unmarked": s.get("unmarked")}
    folds, held = {}, {}
    for p in projects:
        others = [q for q in projects if q != p]
        chosen = tune.choose(table, others, names, tune.ranking_objective)
        folds[p] = chosen
        held[p] = tune.mean(data[p]["settings"][chosen]["ndcg"])
    summary: dict = {"folds choose": {n: sum(1 for c in folds.values() if c == n) for n in names}}
    for n in names:
        kept = {p: tune.mean(data[p]["settings"][n]["ndcg"]) for p in projects}
        above = sum(1 for p in projects if kept[p] > per_project[p]["best baseline"])
        marked = [sum(data[p]["settings"][n].get("marked", [0, 0])[i] for p in projects) for i in (0, 1)]
        unmarked = [sum(data[p]["settings"][n].get("unmarked", [0, 0])[i] for p in projects) for i in (0, 1)]
        summary[n] = {"macro ndcg": round(tune.mean(list(kept.values())), 5), "above best baseline": above,
                      "marked pairs": marked, "unmarked pairs": unmarked}
        if n != names[0]:
            d = [kept[p] - tune.mean(data[p]["settings"][names[0]]["ndcg"]) for p in projects]
            lo, hi = tune.bootstrap_interval(d)
            summary[n][f"minus {names[0]}"] = [round(tune.mean(d), 5), round(lo, 5), round(hi, 5)]
    d = [held[p] - tune.mean(data[p]["settings"][names[0]]["ndcg"]) for p in projects]
    lo, hi = tune.bootstrap_interval(d)
    held_marked = [sum(data[p]["settings"][folds[p]].get("marked", [0, 0])[i] for p in projects) for i in (0, 1)]
    held_unmarked = [sum(data[p]["settings"][folds[p]].get("unmarked", [0, 0])[i] for p in projects) for i in (0, 1)]
    summary["held out"] = {"macro ndcg": round(tune.mean(list(held.values())), 5),
                           f"minus {names[0]}": [round(tune.mean(d), 5), round(lo, 5), round(hi, 5)],
                           "above best baseline": sum(1 for p in projects if held[p] > per_project[p]["best baseline"]),
                           "marked pairs": held_marked, "unmarked pairs": held_unmarked}
    return {"summary": summary, "folds": folds, "projects": per_project}


def against(cache: Path, other: Path, projects: list[str], name: str) -> dict:
    """Per project, setting ``name`` here minus the same setting in ``other``'s cache (the same
    intents on another code or index): nDCG@10 with a 95 % paired bootstrap interval, the
    intents that changed, and the pairs on both sides."""
    from oriongraph_cli import tune

    out = {}
    for p in projects:
        a = json.loads((cache / f"{p}.json").read_text())["settings"][name]
        b = json.loads((other / f"{p}.json").read_text())["settings"][name]
        d = [x - y for x, y in zip(a["ndcg"], b["ndcg"])]
        lo, hi = tune.bootstrap_interval(d)
        out[p] = {"ndcg": round(tune.mean(a["ndcg"]), 4), "ndcg there": round(tune.mean(b["ndcg"]), 4),
                  "minus there": [round(tune.mean(d), 4), round(lo, 4), round(hi, 4)],
                  "intents changed": sum(1 for x in d if abs(x) > 1e-9),
                  "marked": a.get("marked"), "marked there": b.get("marked"),
                  "unmarked": a.get("unmarked"), "unmarked there": b.get("unmarked")}
    return out


def measure_cached(cache: Path, trees: list[tuple[str, str]], measure_one) -> None:
    """``measure_one(suite, project)`` for each tree whose figures ``cache`` lacks, each
    written there as it is done (a run can be resumed, or split across processes)."""
    cache.mkdir(parents=True, exist_ok=True)
    for suite, project in trees:
        f = cache / f"{project}.json"
        if f.exists():
            continue
        t = time.time()
        f.write_text(json.dumps(measure_one(Path(suite), project)))
        print(project, f"{time.time() - t:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", type=Path, required=True)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--setting", action="append", required=True, help="NAME=KEY:VALUE,KEY:VALUE (empty: the shipped defaults); the first is the reference")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--against", type=Path, help="another cache (another code or index): the first setting here minus it there, per project")
    ap.add_argument("--baselines", type=Path, help="another cache of the same trees and indexes holding the baselines: not measured again here")
    ap.add_argument("--out", help="results file name under bench/results/")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    import run as suite_run  # noqa: E402

    settings = suite_run.named_settings(args.setting)
    trees = suite_run.read_trees(args.list)
    if not args.report_only:
        measure_cached(args.cache, trees, lambda suite, project: measure(suite, project, settings, with_baselines=args.baselines is None))
    rep = report(args.cache, [p for _s, p in trees], list(settings), args.baselines)
    if args.against:
        rep["against"] = against(args.cache, args.against, [p for _s, p in trees], next(iter(settings)))
        print(json.dumps(rep["against"], indent=1))
    print(json.dumps(rep["summary"], indent=1))
    if args.out:
        from results_file import write

        write(args.out, rep)


if __name__ == "__main__":
    main()
