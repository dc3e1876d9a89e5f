"""Tried, not built: hubness reduction in the dense channel. nDCG@10 of the dense channel
alone (a document by its best span's cosine), on a project's judged queries, with the
vectors as stored and with two corrections: the corpus mean subtracted (from the spans, or
from the spans and the query) before the cosine, and a CSLS-like penalty (each span's mean
cosine to its 10 nearest of 2,000 sampled spans, times ``b``, subtracted) (docs/BENCHMARKS.md,
"Measured, not built: the dense channel's hubs and the meaning channel's share").

    python bench/archive/dense_hubness.py --root /tmp/suite/scifact --queries ../shared/datasets/scifact/queries_train.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))


def main() -> None:
    import numpy as np

    from oriongraph_cli.config import load_config
    from oriongraph_cli.store import vectors
    from oriongraph_cli.store.embed import load_embedder
    from oriongraph_cli.store.layout import Layout

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    args = ap.parse_args()
    cfg = load_config(args.root, usage_log=False)
    gen = Layout(cfg.index_dir).current_path()
    con = sqlite3.connect(gen / "registry.sqlite")
    paths = [r[0] for r in con.execute("SELECT path FROM spans ORDER BY id")]
    span_vecs = vectors.read_all(gen)
    span_vecs /= np.linalg.norm(span_vecs, axis=1, keepdims=True)
    queries = [json.loads(line) for line in args.queries.open()]
    q = load_embedder(cfg, "query").embed([x["text"] for x in queries])
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    docs = sorted(set(paths))
    index_of = {d: i for i, d in enumerate(docs)}
    of_span = np.array([index_of[p] for p in paths])

    def ndcg(scores, rel) -> float:
        top = np.argsort(-scores)[:10]
        dcg = sum((2 ** rel.get(docs[d], 0) - 1) / math.log2(i + 2) for i, d in enumerate(top))
        ideal = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(sorted(rel.values(), reverse=True)[:10]))
        return dcg / ideal if ideal else 0.0

    def run(name, v, qv, penalty=None) -> None:
        sims = qv @ v.T
        if penalty is not None:
            sims = sims - penalty[None, :]
        total = 0.0
        for i, x in enumerate(queries):
            by_doc = np.full(len(docs), -9.0)
            np.maximum.at(by_doc, of_span, sims[i])
            total += ndcg(by_doc, x["relevant"])
        print(f"{name:32s} nDCG@10 {total / len(queries):.4f}", flush=True)

    run("as stored", span_vecs, q)
    mean = span_vecs.mean(0)
    for a in (0.5, 1.0):
        centred = span_vecs - a * mean
        centred /= np.linalg.norm(centred, axis=1, keepdims=True)
        qc = q - a * mean
        qc /= np.linalg.norm(qc, axis=1, keepdims=True)
        run(f"mean x{a:g} off both", centred, qc)
        run(f"mean x{a:g} off the spans", centred, q)
    sample = span_vecs[np.random.default_rng(0).choice(len(span_vecs), min(2000, len(span_vecs)), replace=False)]
    hub = np.sort(sample @ span_vecs.T, axis=0)[-10:].mean(0)
    for b in (0.25, 0.5):
        run(f"CSLS-like b={b:g}", span_vecs, q, b * hub)


if __name__ == "__main__":
    main()
