"""CPU of tuning's selection stage: ``tune.measure`` of the last selection variants over the
first intents of a project, in one process (``time.process_time``), with a digest of the rows
so two checkouts can be shown to measure the same thing.

    PYTHONPATH=CHECKOUT python -P bench/tune_cpu.py --root /tmp/suite/playbook --queries bench/suite/playbook.intents.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import time


def main() -> None:
    from oriongraph_cli import api, tune
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import load_queries

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("-n", type=int, default=40, help="intents measured")
    ap.add_argument("--variants", type=int, default=3, help="the last N selection variants")
    a = ap.parse_args()
    cfg = load_config(a.root)
    reader = api.open_index(cfg)
    reader.repeat_cache = {}
    try:
        qs = load_queries(a.queries)[: a.n]
        tune.measure(cfg, reader, qs[:3], tune.SELECTION_SPACE[0])  # warm: the model, the tokenizer, the caches
        t = time.process_time()
        rows = [tune.measure(cfg, reader, qs, v) for v in tune.SELECTION_SPACE[-a.variants :]]
        print(f"{time.process_time() - t:.2f} s CPU, rows {hashlib.sha256(repr(rows).encode()).hexdigest()[:12]}")
    finally:
        reader.close()


if __name__ == "__main__":
    main()
