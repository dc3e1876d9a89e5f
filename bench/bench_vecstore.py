"""The vector store alone at 10k-1M spans: build memory and CPU, a one-file change, search CPU.

    python bench/bench_vecstore.py --sizes 100000,1000000 --workdir /tmp/vs --out bench/results/vecstore_scale.json

Per size, each step in its own process (so its peak RSS is its own; ``ru_maxrss``):

* **build**: a generation's vector store written as the indexer writes it — rows streamed
  to ``SegmentWriter.add`` one document (7 rows) at a time, ``finish`` (the HNSW graph when
  ``vector_index = "auto"`` asks for one at this size), then the manifest's checksums
  (``file_checksums``) — CPU seconds and peak RSS.
* **one-file change**: the next generation on top of it: 7 rows deleted, 7 appended, the
  manifest's checksums (linked segments keep theirs) — CPU seconds, bytes written.
* **search**: one-query CPU (ms) of the store as ``auto`` built it and of an exact (flat)
  search over the same segment, 200 queries, and recall@100 of the one against the other.

The vectors are synthetic at these sizes: the stored vectors of the suite indexes
(``--suite``, real MiniLM vectors, read-only) tiled with small seeded noise and
re-normalised — cost depends on the size; recall on real vectors is ``bench_ann.py recall``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
DIM = 384
PER_DOC = 7
EF_TRIES = (1536, 2048, 3072)


def _real(suite: Path) -> np.ndarray:
    from bench_ann import suite_vectors

    return suite_vectors(suite, "scifact,django,peps,rfcs,adr-moj".split(","))[0]


def _rows(real: np.ndarray, start: int, n: int, rng_seed: int = 11) -> np.ndarray:
    idx = np.arange(start, start + n)
    base = real[idx % len(real)]
    if start + n > len(real):
        rng = np.random.default_rng(rng_seed + start)
        base = base + rng.normal(0, 0.02, size=base.shape).astype("float32")
    return (base / np.linalg.norm(base, axis=1, keepdims=True)).astype("float32")


def _peak_mib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def child_build(work: Path, n: int, suite: Path) -> dict:
    from oriongraph_cli.store import vectors
    from oriongraph_cli.store.layout import file_checksums

    real = _real(suite)
    before = _peak_mib()  # the interpreter, FAISS and the real vectors the rows are made from
    gen = work / "000001"
    gen.mkdir(parents=True)
    c = time.process_time()
    w = vectors.SegmentWriter(gen, None, "000001", "auto")
    chunk = 16_384
    for s in range(0, n, chunk):
        rows = _rows(real, s, min(chunk, n - s))
        for d in range(0, len(rows), PER_DOC):
            w.add(np.arange(s + d + 1, s + d + 1 + len(rows[d:d + PER_DOC])), rows[d:d + PER_DOC])
    live = w.finish(DIM)
    (gen / "checksums.json").write_text(json.dumps(file_checksums(gen)))
    return {"build_cpu_s": round(time.process_time() - c, 2), "build_peak_rss_mib": _peak_mib(), "rss_before_build_mib": before, "rows": live,
            "segments": json.loads((gen / "vectors" / "segments.json").read_text())["segments"]}


def child_append(work: Path, n: int, suite: Path) -> dict:
    from oriongraph_cli.store import vectors
    from oriongraph_cli.store.layout import file_checksums
    from oriongraph_cli.store.manifest import Manifest

    real = _real(suite)
    base, gen = work / "000001", work / "000002"
    # the base as a generation: its manifest with the checksums build recorded
    (base / "manifest.json").write_bytes(Manifest(generation="000001", complete=True, checksums=json.loads((base / "checksums.json").read_text())).to_bytes())
    gen.mkdir()
    c = time.process_time()
    w = vectors.SegmentWriter(gen, base, "000002", "auto")
    w.delete(range(n // 2, n // 2 + PER_DOC))
    w.add(np.arange(n + 1, n + 1 + PER_DOC), _rows(real, n // 2, PER_DOC, 99))
    live = w.finish(DIM)
    sums = file_checksums(gen, base, json.loads((base / "checksums.json").read_text()))
    cpu = time.process_time() - c
    linked = sum(p.stat().st_size for p in (gen / "vectors").iterdir()
                 if (base / "vectors" / p.name).exists() and os.path.samefile(p, base / "vectors" / p.name))
    written = sum(p.stat().st_size for p in (gen / "vectors").iterdir()) - linked
    return {"one_file_change_cpu_s": round(cpu, 3), "one_file_change_peak_rss_mib": _peak_mib(), "rows_after_change": live,
            "bytes_written": written, "bytes_linked": linked, "checksummed_files": len(sums)}


def child_search(work: Path, n: int, suite: Path, queries: int) -> dict:
    import faiss

    from oriongraph_cli.store import vectors

    faiss.omp_set_num_threads(1)
    real = _real(suite)
    rng = np.random.default_rng(5)
    qs = real[rng.choice(len(real), size=queries, replace=False)]
    gen = work / "000002"
    store = vectors.VectorIndex(gen, threads=1)
    flat = vectors.VectorIndex(gen, threads=1)
    for seg in flat._segments:
        seg.ann = None  # the same rows searched exactly
    out = {"kinds": store.kinds}
    found = {}
    for name, index in (("flat", flat), ("store", store)):
        index.search(qs[0], 100)  # pages in
        c = time.process_time()
        found[name] = [[i for i, _s in index.search(q, 100)] for q in qs]
        out[f"{name}_cpu_ms_per_query"] = round((time.process_time() - c) * 1000 / len(qs), 3)
    out["recall@100_vs_flat (tiled vectors)"] = round(float(np.mean([len(set(a) & set(b)) / 100 for a, b in zip(found["store"], found["flat"])])), 4)
    graphs = [s.ann for s in store._segments if s.ann is not None]
    for ef in (EF_TRIES if graphs else ()):  # the graph searched wider: what recall costs at this size
        for g in graphs:
            g.ef_search = ef
        c = time.process_time()
        got = [[i for i, _s in store.search(q, 100)] for q in qs]
        out[f"efSearch={ef}"] = {"cpu_ms_per_query": round((time.process_time() - c) * 1000 / len(qs), 3),
                                 "recall@100": round(float(np.mean([len(set(a) & set(b)) / 100 for a, b in zip(got, found["flat"])])), 4)}
    out["search_peak_rss_mib"] = _peak_mib()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/orion-vecstore"))
    ap.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--keep", action="store_true", help="keep the stores built")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        what, n = args.child[0], int(args.child[1])
        work = args.workdir / f"n{n}"
        res = {"build": lambda: child_build(work, n, args.suite), "append": lambda: child_append(work, n, args.suite),
               "search": lambda: child_search(work, n, args.suite, args.queries)}[what]()
        print(json.dumps(res))
        return
    import shutil

    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        work = args.workdir / f"n{n}"
        shutil.rmtree(work, ignore_errors=True)
        row = {"spans": n}
        for what in ("build", "append", "search"):
            p = subprocess.run([sys.executable, __file__, "--child", what, str(n), "--workdir", str(args.workdir), "--suite", str(args.suite),
                                "--queries", str(args.queries)], capture_output=True, text=True)
            if p.returncode:
                sys.stderr.write(p.stderr)
                raise SystemExit(p.returncode)
            row.update(json.loads(p.stdout.strip().splitlines()[-1]))
            sys.stderr.write(f"[vecstore] {n} {what}: {p.stdout.strip()}\n")
        rows.append(row)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        if args.out:
            args.out.write_text(json.dumps({"command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=1) + "\n")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
