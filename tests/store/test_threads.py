"""Threads (issue 20): no spin-wait, one thread per query by default, FAISS's thread count
set for the search alone — and the same working sets whatever the thread counts."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import numpy as np
import pytest

from conftest import run_orion, ws_spans
from oriongraph_cli.config import load_config
from oriongraph_cli.store import vectors


def test_zero_means_one_thread_and_each_kind_has_its_setting(tmp_path, monkeypatch):
    cfg = load_config(tmp_path)
    assert (cfg.threads("index"), cfg.threads("query")) == (1, 1)
    monkeypatch.setenv("ORION_EMBED_THREADS", "3")
    monkeypatch.setenv("ORION_QUERY_THREADS", "2")
    cfg = load_config(tmp_path)
    assert (cfg.threads("index"), cfg.threads("query")) == (3, 2)


def test_onnx_sessions_never_spin(tmp_path):
    from oriongraph_cli.store.embed import load_embedder

    (tmp_path / ".oriongraph").mkdir()  # the int8 model is built into the index directory

    for kind, threads in (("index", 2), ("query", 0)):
        emb = load_embedder(replace(load_config(tmp_path), embed_threads=threads), kind)
        opts = emb._session.get_session_options()
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
        assert opts.get_session_config_entry("session.inter_op.allow_spinning") == "0"
        assert opts.intra_op_num_threads == (2 if kind == "index" else 1)


@pytest.fixture
def small_index(tmp_path):
    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((50, 8)).astype("float32")
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    vectors.build(tmp_path, np.arange(50, dtype="int64"), vecs, 8, mode="flat")
    return tmp_path, vecs


def test_faiss_searches_on_its_thread_count_and_puts_the_caller_s_back(small_index):
    import faiss

    path, vecs = small_index
    index = vectors.VectorIndex(path, threads=1)
    seen = []
    real = index._flat

    def spy(seg, q, k):
        seen.append(faiss.omp_get_max_threads())
        return real(seg, q, k)

    index._flat = spy
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(2)
    try:
        hits = index.search(vecs[3], 5)
        assert seen == [1] and faiss.omp_get_max_threads() == 2
        assert hits[0][0] == 3
        # OpenMP keeps the count per thread: a search in a worker leaves the main thread's alone
        worker = threading.Thread(target=index.search, args=(vecs[4], 5))
        worker.start()
        worker.join()
        assert seen == [1, 1] and faiss.omp_get_max_threads() == 2
    finally:
        faiss.omp_set_num_threads(before)


def test_faiss_results_do_not_depend_on_threads(small_index):
    path, vecs = small_index
    one, two = vectors.VectorIndex(path, threads=1), vectors.VectorIndex(path, threads=2)
    for q in vecs[:10]:
        assert one.search(q, 20) == two.search(q, 20)


def test_same_working_set_on_more_threads(sample_index):
    """The real model: a compile on the default single thread and on two threads (query
    embedder, FAISS and numpy's OpenBLAS) delivers the same spans."""
    intents = ["retry policy for the ingestion queue", "who decided on secrets management"]
    out = {}
    for threads in ("0", "2"):
        got = []
        for intent in intents:
            r = run_orion("compile", intent, "--root", str(sample_index), "--json", "--explain", "--no-usage-log",
                          env={"ORION_QUERY_THREADS": threads, "OPENBLAS_NUM_THREADS": threads.replace("0", "1")})
            assert r.returncode == 0, r.stderr
            got.append([s["span_id"] for s in ws_spans(json.loads(r.stdout))])
        out[threads] = got
    assert out["0"] == out["2"] and all(out["0"])


def test_same_vectors_on_more_index_threads(tmp_path):
    from oriongraph_cli.store.embed import embed_batched, load_embedder

    texts = [f"note {i}: retries back off exponentially, capped at {i} seconds" * (1 + i % 5) for i in range(24)]
    (tmp_path / ".oriongraph").mkdir()  # the int8 model is built into the index directory
    cfg = load_config(tmp_path)
    one = embed_batched(load_embedder(cfg, "index"), texts, 8)
    two = embed_batched(load_embedder(replace(cfg, embed_threads=2), "index"), texts, 8)
    assert np.allclose(one, two, atol=1e-5)


def test_the_cli_keeps_openblas_to_one_thread_unless_told():
    import os
    import subprocess
    import sys

    # main() with the command itself replaced by a print of what numpy would read
    probe = ("import os, oriongraph_cli.cli as c; "
             "c.app = lambda **k: print(os.environ.get('OPENBLAS_NUM_THREADS'), flush=True); c.main()")
    for preset, expected in ((None, "1"), ("3", "3")):
        env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
        if preset:
            env["OPENBLAS_NUM_THREADS"] = preset
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
        assert out.stdout.strip() == expected, out.stderr
