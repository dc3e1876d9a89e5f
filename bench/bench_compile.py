"""Compile latency on the SciFact index (spec section 11; issue 5 "Speed targets").

    python bench/bench_compile.py [--root /tmp/scifact-eval] [--queries ../shared/datasets/scifact/queries_train.jsonl]

Measures, in one run on this machine:
  1. in-process, index open: per-stage timings of `api.compile_workingset` (query
     embedding, candidate generation, scoring, selection, hydration) and end-to-end
     p50/p95 over the train queries;
  2. MMR + knapsack (`select.select`) over exactly 500 candidates per query, p50/p95;
  3. utilisation at budgets 1k / 4k / 8k (mean and 5th percentile);
  4. `orion compile` as a fresh process: wall time (median of 7), `orion --help`,
     `python -c "import oriongraph_cli.cli"`, what the time is made of
     (`python -X importtime`, top imports; `cProfile` of one run, top functions).
Writes bench/results/compile.json and prints Markdown for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))


def pct(values, q):
    from oriongraph_cli.evaluate import percentile

    return round(percentile(values, q), 2)


def in_process(root: Path, queries: list, budgets=(1000, 4000, 8000)) -> dict:
    from oriongraph_cli import api
    from oriongraph_cli import pipeline
    from oriongraph_cli.assemble.select import select
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import default_request

    cfg = load_config(root)
    t = time.perf_counter()
    reader = api.open_index(cfg)
    reader.embedder
    reader.lexical, reader.vectors, reader.documents  # noqa: B018  (warm the lazy parts; the first compile below warms the rest)
    open_ms = (time.perf_counter() - t) * 1000
    stages: dict[str, list[float]] = {}
    total: list[float] = []
    util: dict[int, list[float]] = {b: [] for b in budgets}
    sel500: list[float] = []
    n500 = []
    # warm-up (first compile touches caches)
    api.compile_workingset(default_request(cfg, queries[0].text, 4000), cfg, reader)
    for q in queries:
        for b in budgets:
            req = default_request(cfg, q.text, b)
            if b == 4000:
                from dataclasses import replace

                req = replace(req, timings=True)
                t = time.perf_counter()
                resp = api.compile_workingset(req, cfg, reader)
                total.append((time.perf_counter() - t) * 1000)
                for k, v in resp.stats.timings_ms.items():
                    stages.setdefault(k, []).append(v)
            else:
                resp = api.compile_workingset(req, cfg, reader)
            util[b].append(resp.stats.utilization)
        # selection alone over exactly 500 candidates
        req = default_request(cfg, q.text, 4000)
        from dataclasses import replace

        _sig, scored, *_ = pipeline.rank_candidates(replace(req, top_k=max(cfg.top_k, 400)), cfg, reader)
        cands = scored[:500]
        n500.append(len(cands))
        t = time.perf_counter()
        select(cands, 4000, cfg.diversity_lambda, cfg.max_source_ratio, cfg.mmr_threshold)
        sel500.append((time.perf_counter() - t) * 1000)
    reader.close()
    return {
        "queries": len(queries),
        "open_index_ms": round(open_ms, 1),
        "stages_ms": {k: {"p50": pct(v, 50), "p95": pct(v, 95)} for k, v in sorted(stages.items())},
        "end_to_end_ms": {"p50": pct(total, 50), "p95": pct(total, 95), "max": round(max(total), 2)},
        "select_500_ms": {"p50": pct(sel500, 50), "p95": pct(sel500, 95), "candidates_min": min(n500)},
        "utilisation": {str(b): {"mean": round(statistics.fmean(v), 4), "p5": round(pct(v, 5), 4), "min": round(min(v), 4)} for b, v in util.items()},
    }


def _orion_cmd() -> list[str]:
    exe = shutil.which("orion")
    return [exe] if exe else [sys.executable, "-m", "oriongraph_cli"]


def _wall(cmd: list[str], n: int, env=None) -> dict:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3), "max_s": round(max(times), 3), "runs": n}


def importtime(root: Path, intent: str, top: int = 12) -> dict:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "oriongraph_cli", "compile", intent, "--root", str(root), "--json"],
        capture_output=True, text=True,
    )
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), int(m.group(1)), len(m.group(3)) // 2, m.group(4)))
    total_us = sum(self_us for _c, self_us, _d, _n in rows)
    top_level = sorted((r for r in rows if r[2] <= 1), reverse=True)[:top]
    return {
        "total_import_ms": round(total_us / 1000, 1),
        "top_cumulative_ms": [{"module": n, "cumulative_ms": round(c / 1000, 1)} for c, _s, _d, n in top_level],
    }


def profile_fresh(root: Path, intent: str, top: int = 15) -> dict:
    """cProfile of one `orion compile` in a fresh interpreter (the child prints pstats)."""
    code = (
        "import cProfile, pstats, io, sys, os\n"
        "from oriongraph_cli.cli import app\n"
        f"sys.argv = ['orion', 'compile', {intent!r}, '--root', {str(root)!r}, '--json']\n"
        "pr = cProfile.Profile(); pr.enable()\n"
        "out = sys.stdout; sys.stdout = open(os.devnull, 'w')\n"
        "try:\n    app()\nexcept SystemExit:\n    pass\n"
        "pr.disable(); sys.stdout = out\n"
        "s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats('cumulative').print_stats(40); print(s.getvalue())\n"
    )
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    wall = time.perf_counter() - t
    lines = []
    for line in proc.stdout.splitlines():
        m = re.match(r"\s*(\d+(?:/\d+)?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(.*)", line)
        if m:
            lines.append({"cumtime_s": float(m.group(4)), "function": m.group(6).strip()})
    return {"wall_s": round(wall, 3), "top_cumulative": lines[:top], "raw": proc.stdout[:6000]}


def markdown(res: dict) -> str:
    ip = res["in_process"]
    st = ip["stages_ms"]
    lines = [
        f"Index: SciFact, {res['index']['documents']} documents, {res['index']['spans']} spans; {ip['queries']} train queries; budget 4000.",
        "",
        "| stage (in-process, index open) | p50 ms | p95 ms | target |",
        "|---|---|---|---|",
    ]
    names = {"signals": "query embedding + signals", "generate": "candidate generation (3 generators)",
             "generate.lexical": "  · lexical (numpy BM25; Whoosh for phrases)", "generate.semantic": "  · semantic (FAISS)",
             "generate.structural": "  · structural", "score": "scoring (build candidates, normalise, fuse)",
             "select": "selection (MMR + budget)", "hydrate": "hydration (exact text)",
             "assemble": "select + pack + hydrate + layout + render/count until it fits"}
    targets = {"generate": "< 100", "select": "< 50"}
    for k in ("signals", "generate", "generate.lexical", "generate.semantic", "generate.structural", "score", "select", "hydrate", "assemble"):
        if k in st:
            lines.append(f"| {names[k]} | {st[k]['p50']} | {st[k]['p95']} | {targets.get(k, '')} |")
    e2e = ip["end_to_end_ms"]
    s5 = ip["select_500_ms"]
    lines.append(f"| MMR + knapsack over 500 candidates | {s5['p50']} | {s5['p95']} | < 50 |")
    lines.append(f"| **end-to-end compile** | **{e2e['p50']}** | **{e2e['p95']}** | < 200 |")
    lines += ["", "| budget | mean utilisation | 5th percentile | min |", "|---|---|---|---|"]
    for b, u in ip["utilisation"].items():
        lines.append(f"| {b} | {u['mean']} | {u['p5']} | {u['min']} |")
    fr = res["fresh"]
    lines += ["", "| fresh process | median s | min s | max s |", "|---|---|---|---|"]
    for k, label in (("compile", "`orion compile \"…\" --json`"), ("help", "`orion --help`"), ("import_cli", "`python -c 'import oriongraph_cli.cli'`"), ("python", "`python -c pass`")):
        v = fr[k]
        lines.append(f"| {label} | {v['median_s']} | {v['min_s']} | {v['max_s']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=Path("/tmp/scifact-eval"))
    ap.add_argument("--queries", type=Path, default=REPO.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--fresh-runs", type=int, default=7)
    args = ap.parse_args()
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import load_queries
    from oriongraph_cli.store.reader import IndexReader

    queries = load_queries(args.queries)[: args.limit]
    r = IndexReader(load_config(args.root), load_embedder=False)
    index = r.info()
    r.close()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    res: dict = {"machine": f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d"), "commit": commit,
                 "command": "python bench/bench_compile.py --root " + str(args.root), "index": index}
    intent = queries[0].text
    sys.stderr.write("fresh-process timings...\n")
    res["fresh"] = {
        "compile": _wall([*_orion_cmd(), "compile", intent, "--root", str(args.root), "--json"], args.fresh_runs),
        "help": _wall([*_orion_cmd(), "--help"], args.fresh_runs),
        "import_cli": _wall([sys.executable, "-c", "import oriongraph_cli.cli"], args.fresh_runs),
        "python": _wall([sys.executable, "-c", "pass"], args.fresh_runs),
    }
    res["importtime"] = importtime(args.root, intent)
    res["profile"] = profile_fresh(args.root, intent)
    sys.stderr.write("in-process timings...\n")
    res["in_process"] = in_process(args.root, queries)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "compile.json").write_text(json.dumps(res, indent=2) + "\n")
    print(markdown(res))


if __name__ == "__main__":
    main()
