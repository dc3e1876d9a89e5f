"""Exact (flat) against approximate (HNSW, IVF) vector search on real MiniLM vectors.

    python bench/bench_ann.py recall --suite /tmp/suite --out bench/results/ann_recall.json
    python bench/bench_ann.py cost --sizes 10000,30000,100000,300000,1000000 --out bench/results/ann_cost.json

``recall``: the stored vectors of every index under ``--suite`` (read from each project's
current generation, read-only) are the base; the queries are real query embeddings (the
SciFact train claims and the suite's intents, embedded with the packaged model) plus
held-out stored vectors (removed from the base). For each candidate index: recall@100
against flat (the share of flat's top 100 the index also returns) and CPU per one-query
search on one thread (``time.process_time``; the machine is shared, wall time is not a figure).

Candidates: ``product`` (the HNSW orion builds: 8-bit rows, twice k proposed, exact
rerank on the float rows), ``hnsw`` (FAISS ``IndexHNSWFlat``), ``ivf`` (``IndexIVFFlat``).

``cost``: CPU per query of flat and of the chosen ANN at growing sizes (the real vectors
tiled with small seeded noise, re-normalised: the cost depends on the size, not the
content), to place the size above which the ANN is chosen.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

K = 100


def suite_vectors(suite: Path, names: list[str]) -> tuple[np.ndarray, list[str]]:
    import faiss

    from oriongraph_cli.store.vectors import read_all

    mats, used = [], []
    for name in names:
        idx = suite / name / ".oriongraph"
        gen = (idx / "CURRENT").read_text().strip()
        path = idx / "gen" / gen
        mats.append(read_all(path))
        used.append(f"{name} ({len(mats[-1])})")
    del faiss
    return np.concatenate(mats), used


def query_texts(paths: list[Path], n_each: int) -> list[str]:
    out = []
    for p in paths:
        with open(p) as fh:
            for i, line in enumerate(fh):
                if i >= n_each:
                    break
                out.append(json.loads(line)["text"])
    return out


def embed(texts: list[str]) -> np.ndarray:
    from oriongraph_cli.config import load_config
    from oriongraph_cli.store.embed import load_embedder

    emb = load_embedder(load_config(Path(".")), "query")
    return np.concatenate([emb.embed(texts[i:i + 32]) for i in range(0, len(texts), 32)]).astype("float32")


def one_by_one(search, queries: np.ndarray) -> tuple[np.ndarray, float]:
    """Top-K ids of each query searched alone, and CPU ms per query."""
    out = np.empty((len(queries), K), dtype="int64")
    c = time.process_time()
    for i, q in enumerate(queries):
        out[i] = search(q.reshape(1, -1))
    return out, (time.process_time() - c) * 1000 / len(queries)


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / K for f, t in zip(found, truth)]))


def candidates(base: np.ndarray, which: list[str]):
    """name -> search function over ``base`` (ids are positions)."""
    import faiss

    from oriongraph_cli.store import vectors

    d = base.shape[1]
    flat = faiss.IndexFlatIP(d)
    flat.add(base)
    yield "flat", lambda q: flat.search(q, K)[1][0], 0.0
    for spec in which:
        kind, _, params = spec.partition(":")
        c = time.process_time()
        if kind == "product":  # the product's HNSW (store/vectors.py: 8-bit rows, exact rerank), efSearch from params
            ann = vectors.build_ann(base)
            build = time.process_time() - c
            for ef in [int(x) for x in params.split(",")]:
                yield f"hnsw-sq8+rerank M={vectors.HNSW_M} efSearch={ef}", (lambda a, e: lambda q: a.search_positions(q[0], K, ef_search=e)[0])(ann, ef), build
        elif kind == "ivf":  # IVF-flat, nprobe from params
            nlist = int(round(2 * len(base) ** 0.5))
            ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, nlist, faiss.METRIC_INNER_PRODUCT)
            ivf.train(base)
            ivf.add(base)
            build = time.process_time() - c
            for nprobe in [int(x) for x in params.split(",")]:
                def s(q, ivf=ivf, nprobe=nprobe):
                    p = faiss.SearchParametersIVF()
                    p.nprobe = nprobe
                    return ivf.search(q, K, params=p)[1][0]
                yield f"ivf-flat nlist={nlist} nprobe={nprobe}", s, build
        elif kind == "hnsw":
            m = 32
            h = faiss.IndexHNSWFlat(d, m, faiss.METRIC_INNER_PRODUCT)
            h.hnsw.efConstruction = 80
            h.add(base)
            build = time.process_time() - c
            for ef in [int(x) for x in params.split(",")]:
                def s(q, h=h, ef=ef):
                    p = faiss.SearchParametersHNSW()
                    p.efSearch = ef
                    return h.search(q, K, params=p)[1][0]
                yield f"hnsw M={m} efSearch={ef}", s, build


def cmd_recall(args) -> dict:
    import faiss

    faiss.omp_set_num_threads(1)
    base, used = suite_vectors(args.suite, args.projects.split(","))
    rng = np.random.default_rng(7)
    held = rng.choice(len(base), size=args.held_out, replace=False)
    keep = np.ones(len(base), dtype=bool)
    keep[held] = False
    queries_held = base[held]
    base = np.ascontiguousarray(base[keep])
    texts = query_texts(args.queries, args.n_queries)
    queries_real = embed(texts)
    rows = []
    truth: dict[str, np.ndarray] = {}
    for name, search, build_s in candidates(base, args.ann):
        row = {"index": name, "build_cpu_s": round(build_s, 2)}
        for qname, qs in (("query embeddings", queries_real), ("held-out vectors", queries_held)):
            found, ms = one_by_one(search, qs)
            if name == "flat":
                truth[qname] = found
            row[qname] = {"recall@100": round(recall(found, truth[qname]), 4), "cpu_ms_per_query": round(ms, 3)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return {"base": len(base), "projects": used, "queries": {"query embeddings": len(queries_real), "held-out vectors": len(queries_held)},
            "query_files": [str(p) for p in args.queries], "rows": rows}


def cmd_cost(args) -> dict:
    import faiss

    from oriongraph_cli.store import vectors

    faiss.omp_set_num_threads(1)
    real, used = suite_vectors(args.suite, args.projects.split(","))
    rng = np.random.default_rng(11)
    queries = real[rng.choice(len(real), size=args.n, replace=False)]
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        reps = -(-size // len(real))
        base = np.concatenate([real] * reps)[:size]
        if reps > 1:
            base = base + rng.normal(0, 0.02, size=base.shape).astype("float32")
            base /= np.linalg.norm(base, axis=1, keepdims=True)
        base = np.ascontiguousarray(base, dtype="float32")
        flat = faiss.IndexFlatIP(base.shape[1])
        flat.add(base)
        truth, flat_ms = one_by_one(lambda q: flat.search(q, K)[1][0], queries)
        del flat
        c = time.process_time()
        ann = vectors.build_ann(base)
        build = time.process_time() - c
        found, ann_ms = one_by_one(lambda q: ann.search_positions(q[0], K)[0], queries)
        row = {"size": size, "flat_cpu_ms": round(flat_ms, 3), "ann": f"hnsw-sq8+rerank M={vectors.HNSW_M} efSearch={ann.ef_search}",
               "ann_cpu_ms": round(ann_ms, 3), "ann_build_cpu_s": round(build, 2), "recall@100 (tiled vectors)": round(recall(found, truth), 4)}
        print(json.dumps(row), flush=True)
        rows.append(row)
        del base, ann
    return {"real_vectors": used, "queries": args.n, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recall")
    c = sub.add_parser("cost")
    for p in (r, c):
        p.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
        p.add_argument("--projects", default="scifact,django,peps,rfcs,adr-moj")
        p.add_argument("--out", type=Path)
    r.add_argument("--queries", type=Path, nargs="+", default=[Path("/work/shared/datasets/scifact/queries_train.jsonl"),
                                                              HERE / "realproject_intents.jsonl", HERE / "suite/peps.intents.jsonl",
                                                              HERE / "suite/rfcs.intents.jsonl", HERE / "suite/adr_moj.intents.jsonl"])
    r.add_argument("--n-queries", type=int, default=300, help="per query file")
    r.add_argument("--held-out", type=int, default=500)
    r.add_argument("--ann", nargs="+", default=["product:64,128,256,384", "hnsw:128,256,384", "ivf:32,64,128"])
    c.add_argument("--sizes", default="10000,30000,100000,300000,1000000")
    c.add_argument("-n", type=int, default=200)
    args = ap.parse_args()
    out = {"command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%d"), **({"recall": cmd_recall, "cost": cmd_cost}[args.cmd](args))}
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
