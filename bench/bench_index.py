"""Index benchmark on the SciFact OrionFS tree (issue 2 targets).

    python bench/bench_index.py [--shared ../shared] [--workdir /tmp/orion-bench] [--sample 1500]

Measures, in one run on this machine:
  1. full `orion index` wall time and peak RSS (a fresh subprocess, ru_maxrss of children);
  2. raw embedding throughput of the *same* spans (their exact embedding texts, same model,
     same length-sorted batching) on a seeded sample, and the share of the full index
     that is not embedding: 1 - (spans / raw_spans_per_s) / index_wall;
  3. no-change re-index wall time; 4. one edited file re-index wall time;
  5. `orion --help` wall time (best of 5).
Writes bench/results/index.json and prints a Markdown table for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def unpack(shared: Path, workdir: Path) -> Path:
    root = workdir / "orionfs"
    if not root.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        with tarfile.open(shared / "datasets" / "scifact" / "orionfs.tar.gz") as tar:
            tar.extractall(workdir, filter="data")
    return root


def orion(*args: str) -> tuple[float, subprocess.CompletedProcess]:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", *args], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"orion {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return dt, proc


def raw_embedding_rate(root: Path, sample: int) -> tuple[float, int]:
    sys.path.insert(0, str(REPO))
    from oriongraph_cli.config import load_config
    from oriongraph_cli.index.span import embed_text
    from oriongraph_cli.store.embed import embed_batched, load_embedder
    from oriongraph_cli.store.reader import IndexReader

    cfg = load_config(root)
    reader = IndexReader(cfg, load_embedder=False)
    texts = []
    for r in reader.registry.iter_span_rows():
        from oriongraph_cli.models import Span

        span = Span(None, r["path"], r["ordinal"], tuple(json.loads(r["heading_path"])), 0, r["text"])  # type: ignore[arg-type]
        texts.append(embed_text(span, r["title"]))
    reader.close()
    random.Random(7).shuffle(texts)
    texts = texts[:sample]
    emb = load_embedder(cfg, "index")
    t = time.perf_counter()
    embed_batched(emb, texts, cfg.embed_batch_size)
    return len(texts) / (time.perf_counter() - t), len(texts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/orion-bench-scifact"))
    ap.add_argument("--sample", type=int, default=1500)
    ap.add_argument("--keep", action="store_true", help="reuse an existing index instead of --full")
    args = ap.parse_args()
    root = unpack(args.shared, args.workdir)
    out: dict = {"machine": f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d"), "root": str(root)}

    if not args.keep:
        shutil.rmtree(root / ".oriongraph", ignore_errors=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        wall, proc = orion("index", "--root", str(root), "--json")
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        res = json.loads(proc.stdout)
        out.update(full_index_s=round(wall, 1), documents=res["documents"], spans=res["spans"],
                   embedded_spans=res["embedded_spans"], peak_rss_mib=round(max(peak, before) / 1024, 1),
                   index_spans_per_s=round(res["spans"] / wall, 2))
    rate, n = raw_embedding_rate(root, args.sample)
    out.update(raw_embed_spans_per_s=round(rate, 2), raw_sample=n)
    if "full_index_s" in out:
        embed_only = out["spans"] / rate
        out["embedding_share"] = round(embed_only / out["full_index_s"], 3)
        out["non_embedding_share"] = round(1 - embed_only / out["full_index_s"], 3)

    times = []
    for _ in range(3):
        dt, proc = orion("index", "--root", str(root), "--json")
        assert json.loads(proc.stdout)["nothing_changed"], proc.stdout
        times.append(dt)
    out["no_change_reindex_s"] = round(min(times), 3)

    victim = sorted((root / "02_knowledge" / "scifact").glob("*.md"))[17]
    original = victim.read_bytes()
    try:
        victim.write_bytes(original + b"\nAn added closing sentence about the benchmark edit.\n")
        dt, proc = orion("index", "--root", str(root), "--json")
        res = json.loads(proc.stdout)
        out["one_edit_reindex_s"] = round(dt, 3)
        out["one_edit_embedded_spans"] = res["embedded_spans"]
    finally:
        victim.write_bytes(original)
        orion("index", "--root", str(root), "--quiet")

    helps = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([shutil.which("orion") or "orion", "--help"], capture_output=True)
        helps.append(time.perf_counter() - t)
    out["help_s"] = round(min(helps), 3)
    disk = sum(p.stat().st_size for p in (root / ".oriongraph").rglob("*") if p.is_file())
    out["index_disk_mib"] = round(disk / 2**20, 1)

    (HERE / "results").mkdir(exist_ok=True)
    name = "index_keep.json" if args.keep else "index_full.json"  # a --keep run must not erase the full-run figures
    (HERE / "results" / name).write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
