"""The relevant-token share with repeated text counted once: of the tokens a system
delivers, the share that is a relevant document's text *not already delivered word for
word* earlier in the same output (whitespace aside, as selection compares texts). On a
site keeping each release's copy of its pages a naive pack delivers the same relevant
passage once per copy, and the relevant-token share counts each copy; this view counts it
once, every system alike. Nothing is chosen here: it reads what the shipped defaults and
the naive packs deliver.

    python bench/suite/distinct_share.py --suite /tmp/suite --projects jest,prettier --out bench/results/suite_distinct_share.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))

BUDGETS = (1000, 4000)


def distinct_share(chunks: list[tuple[str, str, int]], relevant: dict[str, float]) -> tuple[float, float]:
    """(relevant share, the same with repeated text counted once) of ``chunks`` — (path,
    text, tokens) in the order delivered."""
    from oriongraph_cli.rank.copies import words

    seen: set[str] = set()
    total = rel = rel_once = 0
    for path, text, n in chunks:
        total += n
        if relevant.get(path, 0) > 0:
            rel += n
            key = words(text)
            if key not in seen:
                rel_once += n
        seen.add(words(text))
    return (rel / total, rel_once / total) if total else (0.0, 0.0)


def measure(suite: Path, project: str) -> dict[str, dict[str, float]]:
    sys.path.insert(1, str(HERE))
    import run as suite_run  # noqa: E402
    from dataclasses import replace

    from oriongraph_cli import pipeline, tune
    from oriongraph_cli.errors import NoCandidatesError
    from oriongraph_cli.evaluate import baseline_span_lists, default_request, pack_rank_order

    cfg, reader = suite_run._open(suite, project)
    reader.repeat_cache = {}
    sums: dict[str, list[float]] = {}
    try:
        qs = suite_run._queries(project, None)
        for q in qs:
            req = default_request(cfg, q.text, max(BUDGETS))
            ranked = pipeline.rank_candidates(req, cfg, reader)
            lists = baseline_span_lists(reader, ranked[0], ("bm25", "dense", "rrf"))
            for b in BUDGETS:
                try:
                    resp = pipeline.compile_workingset(replace(req, budget_tokens=b), cfg, reader,
                                                       ranked=ranked if b == req.budget_tokens else None)
                    items = sorted(resp.workingset.spans, key=lambda i: i.selection_rank)
                    chunks = [(i.path, i.text, i.compression.tokens if i.compression else i.span_ref.token_cost) for i in items]
                except NoCandidatesError:
                    chunks = []
                for key, v in zip(("share", "once"), distinct_share(chunks, q.positives)):
                    sums.setdefault(f"orion {key}@{b}", []).append(v)
                for name, rows in lists.items():
                    meta = reader.rows(list(rows))
                    rows = [r for r in rows if r in meta]
                    picked = pack_rank_order([meta[r].ref.token_cost for r in rows], b)
                    chunks = [(meta[rows[i]].meta.filepath, meta[rows[i]].text, meta[rows[i]].ref.token_cost) for i in picked]
                    for key, v in zip(("share", "once"), distinct_share(chunks, q.positives)):
                        sums.setdefault(f"{name} {key}@{b}", []).append(v)
    finally:
        reader.close()
    return {k: round(tune.mean(v), 4) for k, v in sums.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--projects", required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    sys.path.insert(1, str(HERE.parent))
    from results_file import header  # noqa: E402

    report = {**header("python bench/suite/distinct_share.py " + " ".join(sys.argv[1:])), "projects": {}}
    for project in args.projects.split(","):
        report["projects"][project] = found = measure(args.suite, project)
        print(project, json.dumps(found), flush=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
