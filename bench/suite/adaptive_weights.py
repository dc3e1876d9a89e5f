"""Measured, not built: channel weights chosen per intent from what the intent and its
hits look like, judged leave-one-project-out on the five projects defaults are chosen on.

The shipped ranking weighs the meaning and word channels alike (hybrid 0.5/0.5). Each
project would rank better with another split (its own best among 0.8/0.2 … 0.2/0.8), and
an oracle choosing the split intent by intent would gain 0.01–0.04 nDCG@10. The question is
whether anything a compile can see without judgements predicts the better split:

1. every intent ranked with the shipped settings at seven meaning/word splits (nDCG@10);
2. per intent, features read before fusion: keyword count, the keywords' inverse document
   frequencies (mean, min, max), the best and tenth cosine and BM25 scores, how many of the
   two channels' top-10 documents agree and whether their first document is the same;
3. rules "split A when feature > its q-quantile on this project, else split B", over every
   feature, q in {0.25, 0.5, 0.75} and ordered pair of splits, chosen on four projects (each
   counting once) and measured on the fifth against the shipped 0.5/0.5.

    python bench/suite/adaptive_weights.py --suite /tmp/suite --out bench/results/adaptive_weights.json
    python bench/suite/adaptive_weights.py --suite SUITE --projects P1,P2,… --splits 0.8/0.2,…,0.3/0.7 --out OUT

With ``--absolute`` the rules' thresholds are values of the feature, not quantiles of the held-out
project's own intents (which no single compile can know): each fold takes the pooled 10th, 25th,
50th, 75th and 90th percentiles of the other projects' intents as candidate thresholds, so the
chosen rule is one a compile can apply. ``--cache DIR`` keeps each project's measurement (one
JSON file per project) so that a run over many projects can be split across processes and the
report made once they are all there (``--report-only``):

    python bench/suite/adaptive_weights.py --suite SUITE --projects P1,… --splits 0.9/0.1,…,0.2/0.8 --cache DIR --absolute --out OUT

Any project of ``run.py`` may be named (the unseen ones too). A split whose rows ``run.py``
already cached for a project (``<suite>/results/<project>.json``, the shipped ranking with that
split: ``run.py ranking`` measures them) is read from there, not measured again.

Nothing here changes orion; the report says whether the rule chosen on the other projects
gains on the one held out.
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

PROJECTS = ("scifact", "django", "peps", "rfcs", "adr-moj")
SPLITS = ((0.8, 0.2), (0.7, 0.3), (0.6, 0.4), (0.5, 0.5), (0.4, 0.6), (0.3, 0.7), (0.2, 0.8))
SHIPPED = "0.5/0.5"
QUANTILES = (0.25, 0.5, 0.75)


def _cached(cache: dict, settings: dict) -> list[float] | None:
    """nDCG@10 per intent of the ranking variant with ``settings`` from a project's ``run.py``
    cache, when it measured that variant."""
    from oriongraph_cli import tune

    name = next((v.name for v in tune.RANKING_SPACE if v.as_dict() == settings), None)
    rows = cache.get(f"ranking:{name}") if name else None
    return [r["ndcg"] for r in rows] if rows else None


def measure(suite: Path, project: str, splits=SPLITS) -> dict:
    """nDCG@10 per intent at every split, and each intent's features."""
    sys.path.insert(1, str(HERE))
    import run as suite_run  # noqa: E402  (the suite's projects and queries)
    from oriongraph_cli import tune
    from oriongraph_cli.evaluate import default_request
    from oriongraph_cli.rank import candidates, signals

    cfg, reader = suite_run._open(suite, project)
    reader.repeat_cache = {}
    qs = suite_run._queries(project, None)
    cached = suite_run._load_cache(suite, project)  # the rows run.py measured, read once
    try:
        ndcg = {}
        for sem, lex in splits:
            settings = {**tune._CHOSEN, "w_semantic": sem, "w_lexical": lex}
            rows = _cached(cached, settings)
            if rows is None or len(rows) != len(qs):
                v = tune._v(f"{sem}/{lex}", **settings)
                rows = [r["ndcg"] for r in tune.measure(cfg, reader, qs, v, ranking_only=True)]
            ndcg[f"{sem}/{lex}"] = rows
            print(f"{project} {sem}/{lex}: {st.mean(rows):.4f}", file=sys.stderr, flush=True)
        feats = [_features(reader, default_request(cfg, q.text, 4000), signals, candidates) for q in qs]
    finally:
        reader.close()
    return {"ndcg": ndcg, "features": feats}


def _features(reader, req, signals, candidates) -> dict[str, float]:
    sig = signals.from_index(req, reader)
    hits, _errors, _relaxed, _filters = candidates.generate(req, reader, sig, candidates.IntentEmbedding(reader, sig.intent), {})
    kws = [k.lower() for k in sig.keywords]
    idf = [v for v in (reader.lexical.idf(kws) if kws else {}).values() if v]
    sem, lex = hits.get("semantic", []), hits.get("lexical", [])
    rows = reader.rows([h.row for h in sem[:20]] + [h.row for h in lex[:20]])

    def docs(hs):
        out: list[str] = []
        for h in hs:
            p = rows[h.row].meta.filepath if h.row in rows else ""
            if p not in out:
                out.append(p)
        return out[:10]

    ds, dl = docs(sem[:20]), docs(lex[:20])
    return {"keywords": len(kws), "idf_mean": st.mean(idf) if idf else 0.0, "idf_min": min(idf, default=0.0),
            "idf_max": max(idf, default=0.0), "cos_1": sem[0].score if sem else 0.0,
            "cos_10": sem[9].score if len(sem) > 9 else 0.0, "bm25_1": lex[0].score if lex else 0.0,
            "bm25_10": lex[9].score if len(lex) > 9 else 0.0, "top10_agree": len(set(ds) & set(dl)) / 10,
            "same_first": float(bool(ds and dl and ds[0] == dl[0]))}


def _threshold(feats: list[dict], name: str, q: float) -> float:
    values = sorted(f[name] for f in feats)
    return values[min(len(values) - 1, int(q * len(values)))]


def _apply(data: dict, rule: tuple) -> float:
    """Mean nDCG@10 of one project under ``rule`` = (feature, quantile, split above, split at or below)."""
    name, q, above, below = rule
    feats, ndcg = data["features"], data["ndcg"]
    t = _threshold(feats, name, q)
    return st.mean(ndcg[above][i] if f[name] > t else ndcg[below][i] for i, f in enumerate(feats))


def report(data: dict[str, dict]) -> dict:
    from oriongraph_cli import tune

    splits = list(next(iter(data.values()))["ndcg"])
    names = list(next(iter(data.values()))["features"][0])
    rules = [(n, q, a, b) for n in names for q in QUANTILES for a in splits for b in splits if a != b]
    applied = {p: [_apply(d, r) for r in rules] for p, d in data.items()}  # each rule's mean on each project, once
    static_mean = {p: {sp: st.mean(d["ndcg"][sp]) for sp in splits} for p, d in data.items()}
    out: dict = {"per_project": {}, "held_out": {}}
    for p, d in data.items():
        n = len(d["features"])
        oracle = st.mean(max(d["ndcg"][s][i] for s in splits) for i in range(n))
        out["per_project"][p] = {**{s: round(st.mean(d["ndcg"][s]), 4) for s in splits}, "oracle": round(oracle, 4)}
    for p in data:
        others = [o for o in data if o != p]
        static = max(splits, key=lambda s: st.mean(static_mean[o][s] for o in others))
        best = max(range(len(rules)), key=lambda k: sum(applied[o][k] for o in others))
        rule = rules[best]
        d = data[p]
        name, q, above, below = rule
        t = _threshold(d["features"], name, q)
        chosen = [d["ndcg"][above][i] if f[name] > t else d["ndcg"][below][i] for i, f in enumerate(d["features"])]
        delta = [c - s for c, s in zip(chosen, d["ndcg"][SHIPPED])]
        lo, hi = tune.bootstrap_interval(delta)
        out["held_out"][p] = {"static_split_chosen": static, "rule": list(rule),
                              "rule_on_others": round(st.mean(applied[o][best] for o in others), 4),
                              "shipped_on_others": round(st.mean(static_mean[o][SHIPPED] for o in others), 4),
                              "held_out": round(st.mean(chosen), 4), "shipped": round(st.mean(d["ndcg"][SHIPPED]), 4),
                              "delta": [round(st.mean(delta), 4), round(lo, 4), round(hi, 4)]}
    return out


def report_absolute(data: dict[str, dict], quantiles=(0.1, 0.25, 0.5, 0.75, 0.9)) -> dict:
    """Leave-one-project-out with rules whose threshold is a value of the feature: each fold
    chooses, on the other projects (each counting once), one static split and one rule
    "split A when the feature > t, else split B", t among the pooled quantiles of the other
    projects' intents; both are measured on the held-out project against the shipped split."""
    import numpy as np
    from oriongraph_cli import tune

    projects = sorted(data)
    splits = list(data[projects[0]]["ndcg"])
    names = list(data[projects[0]]["features"][0])
    mean = {p: {s: st.mean(data[p]["ndcg"][s]) for s in splits} for p in projects}
    feat = {p: {n: np.array([f[n] for f in data[p]["features"]]) for n in names} for p in projects}
    nd = {p: {s: np.array(data[p]["ndcg"][s]) for s in splits} for p in projects}
    out: dict = {"projects": len(projects), "per_project": {p: {s: round(mean[p][s], 4) for s in splits} for p in projects},
                 "held_out": {}}
    for p in projects:
        others = [o for o in projects if o != p]
        static = max(splits, key=lambda s: st.mean(mean[o][s] for o in others))
        best, best_v = None, -1.0
        for n in names:
            pooled = np.concatenate([feat[o][n] for o in others])
            for q in quantiles:
                t = float(np.quantile(pooled, q))
                above = {o: feat[o][n] > t for o in others}
                for a in splits:
                    for b in splits:
                        if a != b:
                            v = st.mean(float(np.where(above[o], nd[o][a], nd[o][b]).mean()) for o in others)
                            if v > best_v:
                                best, best_v = (n, round(t, 3), a, b), v
        n, t, a, b = best
        delta = np.where(feat[p][n] > t, nd[p][a], nd[p][b]) - nd[p][SHIPPED]
        lo, hi = tune.bootstrap_interval(list(delta))
        out["held_out"][p] = {"static_split_chosen": static, "static_delta": round(mean[p][static] - mean[p][SHIPPED], 4),
                              "rule": list(best), "rule_on_others": round(best_v, 4),
                              "shipped_on_others": round(st.mean(mean[o][SHIPPED] for o in others), 4),
                              "delta": [round(float(delta.mean()), 4), round(lo, 4), round(hi, 4)]}
    pooled = [r["delta"][0] for r in out["held_out"].values()]
    lo, hi = tune.bootstrap_interval(pooled)
    out["mean_delta_over_projects"] = [round(st.mean(pooled), 4), round(lo, 4), round(hi, 4)]
    static = [r["static_delta"] for r in out["held_out"].values()]
    lo, hi = tune.bootstrap_interval(static)
    out["static_mean_delta_over_projects"] = [round(st.mean(static), 4), round(lo, 4), round(hi, 4)]
    out["mean_by_split"] = {s: round(st.mean(mean[p][s] for p in projects), 4) for s in splits}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
    ap.add_argument("--projects", default=",".join(PROJECTS))
    ap.add_argument("--splits", default=",".join(f"{a}/{b}" for a, b in SPLITS), help="meaning/word splits tried (the shipped 0.5/0.5 among them)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cache", type=Path, help="keep each project's measurement here (DIR/PROJECT.json) and reuse it")
    ap.add_argument("--report-only", action="store_true", help="report on every project --cache holds, measure nothing")
    ap.add_argument("--absolute", action="store_true", help="rules with a feature value as threshold (report_absolute)")
    a = ap.parse_args()
    splits = [tuple(float(x) for x in sp.split("/")) for sp in a.splits.split(",")]
    if a.report_only:
        if a.cache is None:
            ap.error("--report-only needs --cache")
        data = {f.stem: json.loads(f.read_text()) for f in sorted(a.cache.glob("*.json"))}
    else:
        data = {}
        for p in a.projects.split(","):
            cached = a.cache / f"{p}.json" if a.cache is not None else None
            if cached is not None and cached.exists():
                data[p] = json.loads(cached.read_text())
                continue
            data[p] = measure(a.suite, p, splits)
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(json.dumps(data[p]) + "\n")
    if a.absolute:
        sys.path.insert(1, str(HERE.parent))
        from results_file import header  # noqa: E402  (machine, date, commit, command)

        rep = {**header("python bench/suite/adaptive_weights.py " + " ".join(sys.argv[1:])), **report_absolute(data)}
        a.out.write_text(json.dumps(rep, indent=1) + "\n")
        for p, r in rep["held_out"].items():
            print(f"held out {p}: static {r['static_split_chosen']} {r['static_delta']:+.4f}; rule {r['rule']} {r['delta'][0]:+.4f} "
                  f"[{r['delta'][1]:+.4f}, {r['delta'][2]:+.4f}]")
        print(f"rule: mean over projects {rep['mean_delta_over_projects']}; static: {rep['static_mean_delta_over_projects']}")
        return
    rep = report(data)
    pooled = [r["delta"][0] for r in rep["held_out"].values()]
    rep["mean_delta_over_projects"] = round(st.mean(pooled), 4)
    rep["projects_gaining"] = sum(1 for d in pooled if d > 0)
    rep["projects_losing"] = sum(1 for d in pooled if d < 0)
    a.out.write_text(json.dumps(rep, indent=1) + "\n")
    for p, r in rep["held_out"].items():
        print(f"held out {p}: static split chosen {r['static_split_chosen']}; rule {r['rule']} "
              f"{r['held_out']:.4f} against shipped {r['shipped']:.4f}, {r['delta'][0]:+.4f} [{r['delta'][1]:+.4f}, {r['delta'][2]:+.4f}]")
    print(f"mean over projects {rep['mean_delta_over_projects']:+.4f}; {rep['projects_gaining']} gain, {rep['projects_losing']} lose")


if __name__ == "__main__":
    main()
