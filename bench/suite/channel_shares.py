"""nDCG@10 of the shipped ranking with the meaning channel's share of the hybrid fusion set to
each of ``--shares`` (the lexical channel taking the rest), intent by intent, on one indexed
project — the shares `orion eval --tune` tries (``tune.RANKING_SPACE``).

    python bench/suite/channel_shares.py --root /tmp/suite/tldr --queries bench/suite/tldr.intents.jsonl \\
        --shares 0.3,0.4,0.5,0.6,0.7,0.8,0.9 --out /tmp/shares_tldr.json

Prints each share's mean; ``--out`` keeps the per-intent figures (share -> [nDCG@10 per intent]),
which ``--folds A.json B.json …`` reads back to say which share each leave-one-project-out fold
chooses (each project one unit, as the suite chooses).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))


def measure(root: Path, queries: Path, shares: list[float]) -> dict[str, list[float]]:
    from oriongraph_cli import api, tune
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import load_queries

    cfg = load_config(root)
    reader = api.open_index(cfg)
    reader.repeat_cache = {}
    qs = load_queries(queries)
    out: dict[str, list[float]] = {}
    try:
        for s in shares:
            v = tune.Variant(f"share {s:g}", tuple(sorted({**tune._CHOSEN, "w_semantic": s, "w_lexical": round(1 - s, 3)}.items())))
            out[f"{s:g}"] = [row["ndcg"] for row in tune.measure(cfg, reader, qs, v, tune.BUDGETS, ranking_only=True)]
            print(f"{s:g}\t{sum(out[f'{s:g}']) / len(out[f'{s:g}']):.4f}", flush=True)
    finally:
        reader.close()
    return out


def folds(paths: list[Path]) -> None:
    tables = {p.stem: json.loads(p.read_text()) for p in paths}
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    shares = list(next(iter(tables.values())))
    for held in [*tables, "*"]:
        train = [p for p in tables if p != held]
        scores = {s: mean([mean(tables[p][s]) for p in train]) for s in shares}
        best = max(scores, key=scores.get)
        print(f"held out {held}: chooses {best}\t" + "  ".join(f"{s} {v:.4f}" for s, v in scores.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path)
    ap.add_argument("--queries", type=Path)
    ap.add_argument("--shares", default="0.3,0.4,0.5,0.6,0.7,0.8,0.9")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--folds", type=Path, nargs="+", help="per-project --out files: the share each fold chooses")
    a = ap.parse_args()
    if a.folds:
        folds(a.folds)
        return
    if not (a.root and a.queries):
        ap.error("--root and --queries are required (or --folds)")
    out = measure(a.root, a.queries, [float(s) for s in a.shares.split(",")])
    if a.out:
        a.out.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
