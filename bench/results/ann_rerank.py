"""How many graph candidates to rescore (RERANK) against efSearch, on the real vectors of bench_ann.py recall.

    python bench/results/ann_rerank.py > bench/results/ann_rerank.jsonl
"""
import sys, json, time
sys.argv=["x"]
HERE = __import__("pathlib").Path(__file__).resolve().parents[1]; sys.path.insert(0, str(HERE)); sys.path.insert(0, str(HERE.parent))
import numpy as np, faiss
import bench_ann as B
from oriongraph_cli.store import vectors
from pathlib import Path
faiss.omp_set_num_threads(1)
base, used = B.suite_vectors(Path("/tmp/suite"), "scifact,django,peps,rfcs,adr-moj".split(","))
rng = np.random.default_rng(7)
held = rng.choice(len(base), size=500, replace=False)
keep = np.ones(len(base), dtype=bool); keep[held] = False
qh = base[held]; base = np.ascontiguousarray(base[keep])
qs = B.embed(B.query_texts([Path("/work/shared/datasets/scifact/queries_train.jsonl"), Path(HERE / "realproject_intents.jsonl"), Path(HERE / "suite/peps.intents.jsonl"), Path(HERE / "suite/rfcs.intents.jsonl"), Path(HERE / "suite/adr_moj.intents.jsonl")], 300))
flat = faiss.IndexFlatIP(base.shape[1]); flat.add(base)
truth = {n: B.one_by_one(lambda q: flat.search(q, 100)[1][0], x)[0] for n, x in (("q", qs), ("h", qh))}
ann = vectors.build_ann(base)
for rr in (2, 4, 8):
    vectors.RERANK = rr
    for ef in (256, 512, 768):
        row = {"rerank": rr, "ef": ef}
        for n, x in (("q", qs), ("h", qh)):
            f, ms = B.one_by_one(lambda q: ann.search_positions(q[0], 100, ef_search=ef)[0], x)
            row[n] = (round(B.recall(f, truth[n]), 4), round(ms, 3))
        print(json.dumps(row), flush=True)
