"""Measured, not built: a second per-intent rule on top of the weak-lexical one.

The shipped rule (``rank.weights.weak_lexical``: the lexical channel's best BM25 score at most
22.8 -> meaning/words 0.7/0.3, else 0.5/0.5) was the one single-feature rule every fold chose.
This asks whether a second single-feature rule, applied on one of its two branches ("split A
when the feature > t, else split B" for the intents that branch holds), gains held out. Each
fold chooses the second rule on the other projects (each counting once) and measures it on the
one held out against the shipped rule. Features: those of ``adaptive_weights.py`` and four
derived from them (the best BM25 score over the keywords' summed IDF, the gap and ratio of the
best and tenth BM25 scores, the gap of the best and tenth cosines). Candidate thresholds: the
10/25/50/75/90th percentiles of the feature over every intent of the suite (feature values
only, no judgement).

    python bench/suite/second_rule.py ADAPT_CACHE     # the --cache of adaptive_weights.py
"""
import json
import os
import statistics as st
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(Path(__file__).resolve().parent.parent.parent)))
from oriongraph_cli import tune  # noqa: E402

cache = Path(sys.argv[1])
data = {f.stem: json.loads(f.read_text()) for f in sorted(cache.glob('*.json'))}
projects = sorted(data)
splits = list(data[projects[0]]['ndcg'])
def derived(f):
    g = dict(f)
    s = f['keywords'] * f['idf_mean']
    g['bm25_norm'] = f['bm25_1'] / s if s else 0.0
    g['bm25_gap'] = f['bm25_1'] - f['bm25_10']
    g['bm25_ratio'] = f['bm25_10'] / f['bm25_1'] if f['bm25_1'] else 0.0
    g['cos_gap'] = f['cos_1'] - f['cos_10']
    return g
feats = {p: [derived(f) for f in data[p]['features']] for p in projects}
names = list(feats[projects[0]][0])
F = {p: {n: np.array([f[n] for f in feats[p]]) for n in names} for p in projects}
N = {p: np.array([data[p]['ndcg'][s] for s in splits]) for p in projects}  # splits x intents
si = {s: i for i, s in enumerate(splits)}
weak = {p: F[p]['bm25_1'] <= 22.8 for p in projects}
base = {p: np.where(weak[p], N[p][si['0.7/0.3']], N[p][si['0.5/0.5']]) for p in projects}
rules, M = [], {p: [] for p in projects}
for branch in ('weak', 'strong'):
    for n in names:
        allv = np.concatenate([F[p][n] for p in projects])
        for q in (0.1, 0.25, 0.5, 0.75, 0.9):
            t = float(np.quantile(allv, q))
            for a in splits:
                for b in splits:
                    rules.append((branch, n, round(t, 3), a, b))
            for p in projects:
                sel = weak[p] if branch == 'weak' else ~weak[p]
                above = F[p][n] > t
                A = N[p][:, None, :]  # a
                B = N[p][None, :, :]  # b
                alt = np.where(above[None, None, :], A, B)  # a x b x intents
                v = np.where(sel[None, None, :], alt, base[p][None, None, :]).mean(axis=2).ravel()
                M[p].extend(v.tolist())
M = {p: np.array(v) for p, v in M.items()}
B0 = {p: float(base[p].mean()) for p in projects}
tot = sum(M.values())
tot0 = sum(B0.values())
ds = []
for p in projects:
    others_sum = tot - M[p]
    k = int(np.argmax(others_sum))
    gain_others = (others_sum[k] - (tot0 - B0[p])) / (len(projects) - 1)
    d = float(M[p][k] - B0[p])
    ds.append(d)
    print(p, rules[k], 'held-out', round(d, 4), 'shipped', round(B0[p], 4), 'on others', round(gain_others, 4))
lo, hi = tune.bootstrap_interval(ds)
print('mean held-out gain over the shipped rule', round(st.mean(ds), 4), [round(lo, 4), round(hi, 4)], 'up', sum(x > 1e-9 for x in ds), 'down', sum(x < -1e-9 for x in ds))
