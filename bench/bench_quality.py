"""Ranking quality on SciFact (issue 5 "Quality targets") and the tuning log behind the defaults.

    python bench/bench_quality.py run  [--root /tmp/scifact-eval] [--queries .../queries_train.jsonl]
    python bench/bench_quality.py tune [--root /tmp/scifact-eval] [--queries .../queries_train.jsonl]

``run`` is `orion eval QUERIES --budget 4000 --compare bm25,dense,rrf` in-process with the
shipped defaults: writes bench/results/quality.json and prints the Markdown table.

``tune`` answers "what does each knob buy?" on the train split. Channel hits are computed
once per query (signals, the three generators at ``top_k``) and cached; each variant then
re-scores the cached candidates (``score.score``), optionally re-ranks them
(bench-only functions in ``archive/tuning_grid.py``), ranks documents by their best span (nDCG@10, Recall@100) and
runs the real ``select.select`` at 4000 tokens (working-set recall). Variants that change
the lexical channel (field boosts, keyword extraction) re-run only the Whoosh query.
Writes bench/results/tuning.json and prints one Markdown row per variant.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
DEFAULT_QUERIES = REPO.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl"


def _header(cmd: str) -> dict:
    from results_file import header

    return header(cmd)


# ============================================================================ run


def cmd_run(args) -> None:
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import evaluate_file

    cfg = load_config(args.root)
    t = time.perf_counter()

    def progress(done, total):
        if done % 100 == 0 or done == total:
            sys.stderr.write(f"  {done}/{total} queries, {time.perf_counter() - t:.0f}s\n")

    report = evaluate_file(cfg, args.queries, budget=args.budget, compare=("bm25", "dense", "rrf"), limit=args.limit, progress=progress)
    out = {**_header(f"python bench/bench_quality.py run --root {args.root} --budget {args.budget}"), **report.to_dict()}
    name = args.out or "quality.json"
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / name).write_text(json.dumps(out, indent=2) + "\n")
    print(markdown_run(out))


def markdown_run(out: dict) -> str:
    labels = {"orion": "**orion default**", "bm25": "bm25 (Whoosh lexical channel only)", "dense": "dense (FAISS, all-MiniLM-L6-v2 only)",
              "rrf": "rrf (bm25 + dense, k=60)"}
    lines = [
        f"{out['n_queries']} queries ({Path(out['queries_file']).name}), index: {out['index'].get('documents')} documents, "
        f"{out['index'].get('spans')} spans; budget {out['budget']} tokens. Machine {out['machine']}, {out['date']}, commit {out['commit']}.",
        f"Command: `{out['command']}`",
        "",
        "| system | nDCG@10 | Recall@100 | WS recall @4000 | utilisation | compile p50 / p95 ms |",
        "|---|---|---|---|---|---|",
    ]
    for name in out["systems"]:
        s = out["summary"][name]
        lat = f"{s['latency_p50_ms']} / {s['latency_p95_ms']}" if s["latency_p50_ms"] is not None else "—"
        lines.append(f"| {labels.get(name, name)} | {s['ndcg_at_10']:.4f} | {s['recall_at_100']:.4f} | {s['ws_recall']:.4f} | {s['utilisation']:.4f} | {lat} |")
    return "\n".join(lines)


# ============================================================================ tune


class Memo:
    """Bench-only caches, installed by monkeypatching inside this process: the query
    embedding and the lexical / semantic / structural generators' hits depend only on the
    intent, keywords, filters and top_k, not on weights or fusion, so each query pays for
    them once across all variants. Graph hits depend on the fused seeds and are recomputed."""

    def __init__(self, reader):
        from oriongraph_cli.rank import generators as generate

        self.reader = reader
        self.gen = generate
        self.orig = dict(generate.GENERATORS)
        self.cache: dict = {}
        emb: dict = {}
        orig_embed = reader.embed_query

        def embed_query(text):
            if text not in emb:
                emb[text] = orig_embed(text)
            return emb[text]

        reader.embed_query = embed_query
        self.install()

    def install(self) -> None:
        for name, factory in self.orig.items():
            if name in ("lexical", "semantic", "structural"):
                self.gen.GENERATORS[name] = self._wrap(name, factory)

    def clear(self, name: str) -> None:
        self.cache = {k: v for k, v in self.cache.items() if k[0] != name}

    def _wrap(self, name, factory):
        memo = self

        class Cached:
            def __init__(self):
                self.inner = factory()
                self.name, self.channel = self.inner.name, self.inner.channel
                self.needs_embedding = getattr(self.inner, "needs_embedding", False)
                self.follows = False

            def wanted(self, ctx):
                return True

            def generate(self, ctx):
                key = (name, ctx.signals.intent, ctx.signals.keywords, repr(ctx.filters), ctx.top_k)
                if key not in memo.cache:
                    memo.cache[key] = self.inner.generate(ctx)
                return memo.cache[key]

        return Cached


@dataclass(frozen=True)
class Variant:
    name: str
    cfg: dict = field(default_factory=dict)  # Config overrides (w_semantic=..., fusion=..., top_k=...)
    rerank: Callable | None = None  # f(scored, reader, cfg, request) -> scored; see archive/tuning_grid.py
    setup: Callable | None = None  # f() -> undo(); e.g. patch FIELD_BOOSTS (clears the lexical cache)
    weights_fn: Callable | None = None  # f(weights, signals) -> weights, as pipeline.rank_candidates would apply it
    ws: bool = True  # run selection for working-set recall
    select_kw: dict = field(default_factory=dict)  # extra keyword arguments for select.select


def eval_variant(reader, queries, v: Variant, base_cfg, budget: int = 4000, memo: Memo | None = None) -> dict:
    from oriongraph_cli import pipeline
    from oriongraph_cli.rank import signals
    from oriongraph_cli.assemble.select import select
    from oriongraph_cli.evaluate import (
        default_request,
        doc_ranking,
        ndcg_at_k,
        recall_at_k,
        set_recall,
    )

    cfg = replace(base_cfg, **v.cfg)
    undo = None
    if v.setup is not None:
        undo = v.setup()
        if memo is not None:
            memo.clear("lexical")
    nd, rc, ws, ut, first1, per_query = [], [], [], [], 0, []
    try:
        for q in queries:
            rel = q.positives
            req = default_request(cfg, q.text, budget)
            if v.weights_fn is not None:
                req = replace(req, weights=v.weights_fn(req.weights or cfg.weights(), signals.from_index(req, reader)))
            _sig, scored, *_ = pipeline.rank_candidates(req, cfg, reader)
            if v.rerank is not None:
                scored = v.rerank(scored, reader, cfg, req)
            docs = doc_ranking(c.metadata.filepath for c in scored)
            n = ndcg_at_k(docs, rel, 10)
            nd.append(n)
            per_query.append(n)
            rc.append(recall_at_k(docs, rel, 100))
            first1 += bool(docs) and rel.get(docs[0], 0) > 0
            if v.ws:
                sel = select(scored, budget, cfg.diversity_lambda, cfg.max_source_ratio, cfg.mmr_threshold, **v.select_kw)  # as compile_workingset
                ws.append(set_recall({p.candidate.metadata.filepath for p in sel.picked}, rel))
                ut.append(sel.utilisation)
    finally:
        if undo is not None:
            undo()
            if memo is not None:
                memo.clear("lexical")
    m = lambda xs: round(statistics.fmean(xs), 4) if xs else None  # noqa: E731
    return {"variant": v.name, "ndcg_at_10": m(nd), "recall_at_100": m(rc), "ws_recall": m(ws), "utilisation": m(ut),
            "p_at_1": round(first1 / len(queries), 4), "per_query_ndcg": per_query}


def paired_delta(a: list[float], b: list[float], n_boot: int = 2000, seed: int = 1) -> dict:
    """Mean paired difference b - a with a bootstrap 95% interval (is a change real?)."""
    import random

    d = [y - x for x, y in zip(a, b)]
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(d, k=len(d))) for _ in range(n_boot))
    return {"delta": round(statistics.fmean(d), 4), "ci95": [round(means[int(0.025 * n_boot)], 4), round(means[int(0.975 * n_boot)], 4)],
            "better": sum(1 for x in d if x > 1e-9), "worse": sum(1 for x in d if x < -1e-9)}


def cmd_tune(args) -> None:
    import importlib
    import importlib.util

    from oriongraph_cli import api
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import load_queries

    cfg = load_config(args.root)
    queries = load_queries(args.queries)[: args.limit]
    reader = api.open_index(cfg)
    memo = Memo(reader)
    sys.path.insert(0, str(HERE))
    if args.grid.endswith(".py"):
        spec = importlib.util.spec_from_file_location("grid", args.grid)
        grid = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(grid)
    else:
        grid = importlib.import_module(args.grid if "." in args.grid else f"archive.{args.grid}")
    variants = grid.variants(cfg)
    if args.only:
        variants = [v for i, v in enumerate(variants) if i == 0 or any(o in v.name for o in args.only.split(","))]
    results = []
    base = None
    header = _header(f"python bench/bench_quality.py tune --root {args.root} --grid {args.grid}")
    (HERE / "results").mkdir(exist_ok=True)
    for v in variants:
        t = time.perf_counter()
        r = eval_variant(reader, queries, v, cfg, args.budget, memo)
        if base is None:
            base = r
        else:
            r["vs_first"] = paired_delta(base["per_query_ndcg"], r["per_query_ndcg"])
        results.append(r)
        sys.stderr.write(f"{v.name:<60} nDCG@10 {r['ndcg_at_10']:.4f}  R@100 {r['recall_at_100']:.4f}  WS {r['ws_recall']}  ({time.perf_counter() - t:.0f}s)\n")
        sys.stderr.flush()
        out = {**header, "queries": len(queries), "results": [{k: v for k, v in r.items() if k != "per_query_ndcg"} for r in results]}
        (HERE / "results" / (args.out or "tuning.json")).write_text(json.dumps(out, indent=2) + "\n")  # after every variant
    reader.close()
    print("| variant | nDCG@10 | Recall@100 | WS recall @4000 | P@1 | Δ nDCG vs first [95% CI] |")
    print("|---|---|---|---|---|---|")
    for r in results:
        d = r.get("vs_first")
        ds = f"{d['delta']:+.4f} [{d['ci95'][0]:+.4f}, {d['ci95'][1]:+.4f}]" if d else "—"
        print(f"| {r['variant']} | {r['ndcg_at_10']:.4f} | {r['recall_at_100']:.4f} | {r['ws_recall']} | {r['p_at_1']} | {ds} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "tune"):
        p = sub.add_parser(name)
        p.add_argument("--root", type=Path, default=Path("/tmp/scifact-eval"))
        p.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
        p.add_argument("--budget", type=int, default=4000)
        p.add_argument("--limit", type=int, default=None)
        p.add_argument("--out", default=None, help="results file name under bench/results/")
        if name == "tune":
            p.add_argument("--grid", default="tuning_grid", help="a grid in bench/archive/ (tuning_grid, tuning_grid2, tuning_grid_select) or a .py path, with variants(cfg) -> list[Variant]")
            p.add_argument("--only", default=None, help="comma-separated substrings: run the first variant and those matching")
    args = ap.parse_args()
    {"run": cmd_run, "tune": cmd_tune}[args.cmd](args)


if __name__ == "__main__":
    main()
