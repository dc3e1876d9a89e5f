"""Does the graph channel help or hurt? (issue 4)

    python bench/bench_graph.py [--shared ../shared] [--scifact-root DIR] [--limit N]

1. Ranking quality with and without the graph channel, same index, same process:
   nDCG@10, Recall@100 and working-set recall at 4,000 tokens, on the sample fixture's
   own queries (bench/fixture_queries.jsonl) and on SciFact train.
2. Index time added by graph extraction on SciFact: phase 1 (per-document references and
   local edges) for every document plus phase 2 (global resolution, DEFINES) from
   scratch, against the full index wall time in bench/results/index.json.
Writes bench/results/graph.json and prints it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from oriongraph_cli.config import load_config  # noqa: E402
from oriongraph_cli.evaluate import evaluate, load_queries  # noqa: E402


def quality(root: Path, queries_path: Path, limit: int | None) -> dict:
    queries = load_queries(queries_path)
    out = {}
    for name, overrides in (("graph on (default)", {}), ("graph off", {"graph": False})):
        cfg = load_config(root, usage_log=False, **overrides)
        rep = evaluate(cfg, queries, budget=4000, compare=(), limit=limit)
        s = rep.summaries["orion"].to_dict()
        out[name] = {k: s[k] for k in ("ndcg_at_10", "recall_at_100", "ws_recall", "utilisation", "latency_p50_ms")}
        out[name]["queries"] = rep.n_queries
    return out


def graph_cost(root: Path) -> dict:
    """Rebuild the graph of the current generation from scratch in a scratch copy."""
    from oriongraph_cli.graph import edges
    from oriongraph_cli.index.parse import decode, parse_document
    from oriongraph_cli.index.span import split_document
    from oriongraph_cli.index.walk import walk
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.registry import Registry
    from oriongraph_cli.tokens import get_counter

    cfg = load_config(root)
    gen = Layout(cfg.index_dir).current_path()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "registry.sqlite"
        shutil.copyfile(gen / "registry.sqlite", db)
        conn = sqlite3.connect(db)
        for table in ("edges", "link_refs", "link_docs", "dangling_links", "defines_cache", "defines_hits", "link_deps"):
            try:
                conn.execute(f"DELETE FROM {table}")
            except sqlite3.OperationalError:
                pass  # a table the generation was built without
        files, _w = walk(root)
        counter = get_counter(cfg.tokenizer)
        docs = []
        for f in files:
            data = f.abs.read_bytes()
            text, _warn = decode(f.rel, data, cfg.max_file_bytes)
            doc, _ = parse_document(f.rel, data, text, mtime=0)
            docs.append((doc, split_document(doc, counter, target_tokens=cfg.span_target_tokens,
                                             max_tokens=cfg.span_max_tokens, min_tokens=cfg.span_min_tokens)))
        t = time.perf_counter()
        for doc, spans in docs:
            edges.store_document(Registry(conn), doc, spans)
        phase1 = time.perf_counter() - t
        t = time.perf_counter()
        res = edges.rebuild_edges(Registry(conn), root)
        phase2 = time.perf_counter() - t
        conn.close()
    return {"documents": len(docs), "edges": res.edges, "by_type": res.by_type, "phase1_s": round(phase1, 2),
            "phase2_s": round(phase2, 2), "phase2_parts_ms": res.timings_ms}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--scifact-root", type=Path, default=Path("/tmp/orion-bench-scifact/orionfs"),
                    help="an indexed SciFact tree (bench/bench_index.py builds one)")
    ap.add_argument("--sample-root", type=Path, default=None, help="an indexed copy of fixtures/orionfs_sample")
    ap.add_argument("--limit", type=int, default=None, help="first N SciFact train queries only")
    args = ap.parse_args()
    out: dict = {"date": time.strftime("%Y-%m-%d")}

    sample = args.sample_root
    if sample is None:
        sample = Path(tempfile.mkdtemp()) / "orionfs_sample"
        shutil.copytree(REPO / "fixtures" / "orionfs_sample", sample)
        from oriongraph_cli.index.indexer import index_project

        index_project(load_config(sample))
    out["fixture"] = quality(sample, HERE / "fixture_queries.jsonl", None)
    out["scifact"] = quality(args.scifact_root, args.shared / "datasets" / "scifact" / "queries_train.jsonl", args.limit)
    cost = graph_cost(args.scifact_root)
    full = None
    for name in ("index.json", "index_full.json"):  # `bench_index.py --keep` writes no full-index time
        path = HERE / "results" / name
        if path.exists():
            full = full or json.loads(path.read_text()).get("full_index_s")
    cost["full_index_s"] = full
    if cost["full_index_s"]:
        cost["share_of_full_index"] = round((cost["phase1_s"] + cost["phase2_s"]) / cost["full_index_s"], 4)
    out["scifact_graph_cost"] = cost
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "graph.json").write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
