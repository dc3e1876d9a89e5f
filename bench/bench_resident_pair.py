"""Two checkouts' resident compiles, intent by intent in turn: the CPU of each compile in
a process that keeps its index open (as `orion serve` and the MCP server do), measured
inside that process, with the two processes running the same intents alternately so that
a machine growing busier or quieter shifts both alike.

    python bench/bench_resident_pair.py A_CHECKOUT A_ROOT B_CHECKOUT B_ROOT \
        [--queries ../shared/datasets/scifact/queries_train.jsonl] [-n 50]

Each ROOT is a project indexed by its checkout (an older checkout may not read a newer
index). Each process compiles one warm-up intent, then the first N intents of the queries
file at 4,000 tokens, each once; which of the two goes first alternates from intent to
intent. Prints each side's CPU p50 and p95 (ms), the median of the per-intent ratios B/A
with a 95 % bootstrap interval, and each side's working-set digest (the same digest: the
same working sets). `bench_threads.py resident` measures one checkout at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parent))
from bench_threads import intents, pct  # noqa: E402  (the same intents and percentiles as its `resident`)

CHILD = r"""
import hashlib, json, sys, time
from pathlib import Path
from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.evaluate import default_request
cfg = load_config(Path(sys.argv[1]), usage_log=False)
reader = api.open_index(cfg)
digest = hashlib.sha256()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("done"):
        print(json.dumps({"digest": digest.hexdigest()[:16]}), flush=True)
        break
    c = time.process_time()
    resp = api.compile_workingset(default_request(cfg, msg["intent"], 4000), cfg, reader)
    ms = (time.process_time() - c) * 1000
    if not msg.get("warmup"):
        digest.update(" ".join(i.span_ref.span_id for i in resp.workingset.ranked).encode() + b"\n")
    print(json.dumps({"ms": ms}), flush=True)
"""


def _start(checkout: Path, root: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(checkout), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.Popen([sys.executable, "-P", "-c", CHILD, str(root)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)


def _ask(proc: subprocess.Popen, msg: dict) -> dict:
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    if not line:
        raise SystemExit("a compile process ended early (see its error above)")
    return json.loads(line)


def main() -> None:
    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path)
    ap.add_argument("a_root", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("b_root", type=Path)
    ap.add_argument("--queries", type=Path, default=here.parent.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl")
    ap.add_argument("-n", type=int, default=50)
    args = ap.parse_args()
    texts = intents(args.queries, args.n + 1)  # the first is the warm-up
    procs = [_start(args.a, args.a_root), _start(args.b, args.b_root)]
    try:
        for p in procs:
            _ask(p, {"intent": texts[0], "warmup": True})
        ms: list[list[float]] = [[], []]
        for i, text in enumerate(texts[1:]):
            for side in ((0, 1) if i % 2 == 0 else (1, 0)):
                ms[side].append(_ask(procs[side], {"intent": text})["ms"])
        digests = [_ask(p, {"done": True})["digest"] for p in procs]
    finally:
        for p in procs:
            p.stdin.close()
            p.wait()
    ratios = [b / a for a, b in zip(*ms)]
    rng = random.Random(1234)
    boots = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    print(json.dumps({
        "intents": len(ratios),
        "a": {"checkout": str(args.a), "cpu_p50": pct(ms[0], 50), "cpu_p95": pct(ms[0], 95), "digest": digests[0]},
        "b": {"checkout": str(args.b), "cpu_p50": pct(ms[1], 50), "cpu_p95": pct(ms[1], 95), "digest": digests[1]},
        "b_over_a_median": round(statistics.median(ratios), 4),
        "interval95": [round(boots[50], 4), round(boots[1949], 4)],
    }, indent=2))


if __name__ == "__main__":
    main()
