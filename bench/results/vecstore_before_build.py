"""What 452e1ae's GenerationWriter.write_vectors held at N spans: Registry.all_vectors' one
preallocated matrix of every vector, then vectors.build (IndexIDMap2(IndexFlatIP), which
copies the matrix) written to a file. Rows as bench_vecstore.py makes them. Needs a
checkout of 452e1ae at /tmp/vecstore-base (`git worktree add /tmp/vecstore-base 452e1ae`):

    python bench/results/vecstore_before_build.py 1000000 /tmp/bb1m > bench/results/vecstore_before_build_1m.json
"""
import sys, time, json, resource
sys.path.insert(0, "/tmp/vecstore-base"); sys.path.insert(0, "/work/wt-vecstore/bench")
import numpy as np
from pathlib import Path
from oriongraph_cli.store import vectors  # 452e1ae's (imported before bench_vecstore puts this checkout first)
assert vectors.__file__.startswith("/tmp/vecstore-base"), vectors.__file__
import bench_vecstore as BV
n = int(sys.argv[1]); out = Path(sys.argv[2]); out.mkdir(parents=True, exist_ok=True)
import faiss
mats = []
for name in "scifact,django,peps,rfcs,adr-moj".split(","):  # the suite's stored vectors (one-file layout), as bench_ann reads them
    idx = Path("/tmp/suite") / name / ".oriongraph"
    f = faiss.read_index(str(idx / "gen" / (idx / "CURRENT").read_text().strip() / "vectors.faiss"))
    inner = faiss.downcast_index(f.index)
    mats.append(inner.reconstruct_n(0, inner.ntotal))
real = np.concatenate(mats).astype("float32")
del mats, f, inner
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
c = time.process_time()
mat = np.empty((n, 384), dtype="float32")
for s in range(0, n, 16384):
    mat[s:s + 16384] = BV._rows(real, s, min(16384, n - s))
vectors.build(out / "vectors.faiss", np.arange(1, n + 1, dtype="int64"), mat, 384)
print(json.dumps({"spans": n, "code": vectors.__file__, "build_cpu_s": round(time.process_time() - c, 2),
                  "build_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "rss_before_build_mib": round(before, 1)}))
