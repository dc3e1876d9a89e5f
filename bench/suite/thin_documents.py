"""Where working-set recall at a small budget comes from: each system's recall counted as
usual and counted only over documents it delivers at least ``--min-tokens`` of text from.

A naive pack fills the end of its budget with whatever small chunks still fit — a title
line, a heading with one sentence, a licence footer ("# Copyright / This document has been
placed in the public domain.", 13 tokens, ends every PEP) — and each counts as delivering
its document. This shows how much of a system's recall those are.

    python bench/suite/thin_documents.py --suite /tmp/suite --projects peps,adr-moj --budget 300 --min-tokens 20

``orion`` is the shipped compile (its shortened spans at their delivered size; a one-line
pointer never counts, as in ``orion eval``); ``bm25``, ``dense``, ``rrf`` are the naive packs
of ``orion eval --compare``. One JSON line per project on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(HERE.parent.parent)))  # another checkout's orion first

SYSTEMS = ("bm25", "dense", "rrf")


def measure(suite: Path, project: str, budget: int, min_tokens: int) -> dict:
    sys.path.insert(1, str(HERE))
    import run as suite_run  # noqa: E402  (the suite's projects and queries)
    from oriongraph_cli import pipeline
    from oriongraph_cli.errors import NoCandidatesError
    from oriongraph_cli.evaluate import (
        baseline_span_lists, default_request, delivered_docs, naive_pack, set_recall, working_set_tokens,
    )

    cfg, reader = suite_run._open(suite, project)
    reader.repeat_cache = {}
    sums = {f"{s}{k}": 0.0 for s in ("orion", *SYSTEMS) for k in ("", "_thick")}
    queries = suite_run._queries(project, None)
    try:
        for q in queries:
            req = default_request(cfg, q.text, budget)
            sig, *_ = pipeline.rank_candidates(req, cfg, reader)
            try:
                resp = pipeline.compile_workingset(req, cfg, reader)
                docs, tokens = delivered_docs(resp), working_set_tokens(resp)
            except NoCandidatesError:
                docs, tokens = set(), {}
            sums["orion"] += set_recall(docs, q.positives)
            sums["orion_thick"] += set_recall({d for d in docs if tokens.get(d, 0) >= min_tokens}, q.positives)
            for name, rows in baseline_span_lists(reader, sig, SYSTEMS).items():
                by_doc = naive_pack(reader, rows)[1](budget)
                sums[name] += set_recall(by_doc, q.positives)
                sums[f"{name}_thick"] += set_recall({d for d, n in by_doc.items() if n >= min_tokens}, q.positives)
    finally:
        reader.close()
    n = max(len(queries), 1)
    return {"project": project, "budget": budget, "min_tokens": min_tokens, "intents": len(queries),
            **{k: round(v / n, 4) for k, v in sums.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, required=True, help="directory holding the indexed projects (run.py's --suite)")
    ap.add_argument("--projects", default="scifact,django,peps,rfcs,adr-moj")
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--min-tokens", type=int, default=20, help="a document counts only with at least this much text delivered")
    args = ap.parse_args()
    for project in [p for p in args.projects.split(",") if p]:
        print(json.dumps(measure(args.suite, project, args.budget, args.min_tokens)), flush=True)


if __name__ == "__main__":
    main()
