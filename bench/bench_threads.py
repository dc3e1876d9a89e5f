"""CPU time of the thread settings (issue 20, point 1) and of a resident compile.

    python bench/bench_threads.py resident [--root /tmp/suite/scifact] [--queries Q.jsonl] [-n 50] [--synthetic]
    python bench/bench_threads.py embed    [--root ROOT] [--spans 1500] [--threads 1,2] [--batch 8]
    python bench/bench_threads.py faiss    [--root ROOT] [--queries Q.jsonl] [-n 200]

CPU is process user+sys (``resource.getrusage(RUSAGE_SELF)``: every thread, spinning
included), the figure to trust on a shared machine; wall is printed beside it.

- ``resident``: one open index, a warm-up compile, then ``-n`` train intents at budget
  4000; CPU per compile p50/p95 and a digest of the working sets (span ids in pick
  order), so two runs can be checked for the same output. ``--synthetic``: ROOT is a
  ``bench/synth.py`` project, compiled with its intents and its bench-only embedder.
  ``ORION_BENCH_SRC=CHECKOUT`` measures another checkout's code.
- ``embed``: the index embedder over the first ``--spans`` span texts of ``ROOT``, once per
  thread count, spin-wait on and off; CPU per span.
- ``faiss``: one-query flat search over ``ROOT``'s vectors on 1 and 2 OpenMP threads.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent)))  # the checkout measured
QUERIES = HERE.parent.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl"


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def pct(values, q):
    from oriongraph_cli.evaluate import percentile

    return round(percentile(values, q), 2)


def intents(path: Path, n: int) -> list[str]:
    out = []
    with open(path) as fh:
        for line in fh:
            out.append(json.loads(line)["text"])
            if len(out) >= n:
                break
    return out


def resident(args) -> dict:
    from oriongraph_cli import api
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import default_request

    if args.synthetic:  # a bench/synth.py project: its fast embedder and its intents
        sys.path.insert(1, str(HERE))
        import synth

        synth.install_fast_embedder()
        texts = [synth.INTENTS[i % len(synth.INTENTS)] for i in range(args.n)]
    else:
        texts = intents(args.queries, args.n)
    cfg = load_config(args.root)
    reader = api.open_index(cfg)
    api.compile_workingset(default_request(cfg, texts[0], 4000), cfg, reader)  # warm-up
    cpus, walls, digest = [], [], hashlib.sha256()
    for text in texts:
        c, w = cpu(), time.perf_counter()
        resp = api.compile_workingset(default_request(cfg, text, 4000), cfg, reader)
        cpus.append((cpu() - c) * 1000)
        walls.append((time.perf_counter() - w) * 1000)
        digest.update(" ".join(i.span_ref.span_id for i in resp.workingset.ranked).encode() + b"\n")
    reader.close()
    return {"intents": len(texts), "cpu_ms": {"p50": pct(cpus, 50), "p95": pct(cpus, 95)},
            "wall_ms": {"p50": pct(walls, 50), "p95": pct(walls, 95)}, "workingsets_sha256": digest.hexdigest()[:16]}


def _span_texts(root: Path, n: int) -> list[str]:
    import sqlite3

    from oriongraph_cli.config import load_config
    from oriongraph_cli.store.layout import Layout

    path = Layout(load_config(root).index_dir).current_path() / "registry.sqlite"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return [t for (t,) in conn.execute("SELECT text FROM spans ORDER BY id LIMIT ?", (n,))]


def embed(args) -> dict:
    import onnxruntime as ort

    from oriongraph_cli.store import embed as E

    texts = _span_texts(args.root, args.spans)
    onnx = E._default_onnx()
    out = {}
    for threads in (int(t) for t in args.threads.split(",")):
        for spin in ("1", "0"):
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
            opts.add_session_config_entry("session.intra_op.allow_spinning", spin)
            opts.add_session_config_entry("session.inter_op.allow_spinning", spin)
            opts.log_severity_level = 3
            emb = E.OnnxEmbedder.__new__(E.OnnxEmbedder)
            emb._session = ort.InferenceSession(str(onnx), opts, providers=["CPUExecutionProvider"])
            emb._inputs = {i.name for i in emb._session.get_inputs()}
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(E.ASSETS / "tokenizer.json"))
            tok.enable_truncation(max_length=E.MAX_LENGTH)
            tok.enable_padding(pad_id=0, pad_token="[PAD]")
            emb._tok, emb.dim = tok, 384
            E.embed_batched(emb, texts[:64], args.batch)  # warm-up
            c, w = cpu(), time.perf_counter()
            E.embed_batched(emb, texts, args.batch)
            out[f"threads={threads} spin={spin}"] = {
                "cpu_ms_per_span": round((cpu() - c) * 1000 / len(texts), 3),
                "wall_ms_per_span": round((time.perf_counter() - w) * 1000 / len(texts), 3),
            }
            # one short text, as the query embedder sees it
            q = texts[:1]
            c = cpu()
            for _ in range(args.queries_n):
                emb.embed([q[0][:120]])
            out[f"threads={threads} spin={spin}"]["cpu_ms_per_query"] = round((cpu() - c) * 1000 / args.queries_n, 3)
            del emb
    return {"spans": len(texts), "batch": args.batch, **out}


def faiss_search(args) -> dict:
    import faiss

    from oriongraph_cli.config import load_config
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.vectors import VectorIndex

    # threads=0: the count set below stays in force for each search
    index = VectorIndex(Layout(load_config(args.root).index_dir).current_path(), threads=0)
    import numpy as np

    rng = np.random.default_rng(0)
    qs = rng.standard_normal((args.n, index.dim)).astype("float32")
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    out = {"vectors": index.ntotal}
    before = faiss.omp_get_max_threads()
    for threads in (1, 2):
        faiss.omp_set_num_threads(threads)
        for q in qs[:5]:
            index.search(q, 1000)
        c, w = cpu(), time.perf_counter()
        for q in qs:
            index.search(q, 1000)
        out[f"threads={threads}"] = {"cpu_ms_per_search": round((cpu() - c) * 1000 / args.n, 3),
                                     "wall_ms_per_search": round((time.perf_counter() - w) * 1000 / args.n, 3)}
    faiss.omp_set_num_threads(before)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("resident", "embed", "faiss"))
    ap.add_argument("--root", type=Path, default=Path("/tmp/suite/scifact"))
    ap.add_argument("--queries", type=Path, default=QUERIES)
    ap.add_argument("-n", type=int, default=50)
    ap.add_argument("--spans", type=int, default=1500)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--queries-n", type=int, default=100)
    ap.add_argument("--synthetic", action="store_true", help="resident: ROOT is a bench/synth.py project (its fast embedder, its intents)")
    args = ap.parse_args()
    fn = {"resident": resident, "embed": embed, "faiss": faiss_search}[args.mode]
    print(json.dumps(fn(args), indent=2))


if __name__ == "__main__":
    main()
