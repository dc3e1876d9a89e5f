"""A document that several of the top-ranked spans cite, lifted (tried, not built): for each
judged intent, orion's ranking as `orion eval` reads it (the candidates in base-score order,
documents by their best span); then every document linked from the spans of the first
``--top`` candidates by at least two other documents has its score × (1 + β) and the
documents are ordered again. nDCG@10 per β, and β chosen leave-one-project-out (each
project one unit), reported on the held-out one.

    python bench/suite/cocited.py --suite /tmp/suite --projects peps,rfcs,eeps --betas 0,0.1,0.2,0.4 \
        --out bench/results/suite_cocited_55.json

The links are the index's own edges (REF, CITES, LINKS, MENTIONS, DEPENDS_ON, RELATED; not
the structural ones, SUPERSEDES or DEFINES).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(HERE))

from run import PROJECTS, UNSEEN  # noqa: E402  (each project's tree and judged intents)

TABLE = {**PROJECTS, **UNSEEN}

LINKS = ("REF", "CITES", "LINKS", "MENTIONS", "DEPENDS_ON", "RELATED")


def project_rows(suite: Path, project: str, top: int) -> list[dict]:
    """Per intent: the documents in orion's order with their best score, the documents the
    top spans' documents link to (each with how many distinct documents link to it), and
    the judgements."""
    from oriongraph_cli import pipeline
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import default_request, load_queries
    from oriongraph_cli.store.reader import IndexReader

    tree, intents = TABLE[project]
    cfg = load_config(suite / tree, usage_log=False)
    reader = IndexReader(cfg)
    conn = reader.registry.conn
    marks = ",".join("?" * len(LINKS))
    rows = []
    for q in load_queries(intents):
        scored = pipeline.rank_candidates(default_request(cfg, q.text, 4000), cfg, reader)[1]
        best: dict[str, float] = {}
        for c in scored:
            best.setdefault(c.metadata.filepath, c.base_score)
        citing: dict[str, set[str]] = {}
        for c in scored[:top]:
            src = c.metadata.filepath
            for (dst,) in conn.execute(f"SELECT DISTINCT dst_path FROM edges WHERE src_span = ? AND type IN ({marks})",
                                       (c.span_ref.span_id, *LINKS)):
                if dst != src:
                    citing.setdefault(dst, set()).add(src)
        rows.append({"id": q.id, "best": best, "cited": {d: len(s) for d, s in citing.items()}, "relevant": dict(q.positives)})
    reader.close()
    return rows


def ndcg_for(rows: list[dict], beta: float) -> list[float]:
    from oriongraph_cli.evaluate import ndcg_at_k

    out = []
    for r in rows:
        lifted = {d: s * (1 + beta) if r["cited"].get(d, 0) >= 2 else s for d, s in r["best"].items()}
        order = sorted(lifted, key=lambda d: -lifted[d])  # a stable sort: ties keep orion's order
        out.append(ndcg_at_k(order, r["relevant"], 10))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
    ap.add_argument("--projects", required=True)
    ap.add_argument("--betas", default="0,0.1,0.2,0.4")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    os.environ.setdefault("ORION_USAGE_LOG", "false")
    from pooled import over_projects  # noqa: E402
    from results_file import header  # noqa: E402

    projects, betas = args.projects.split(","), [float(b) for b in args.betas.split(",")]
    nd = {}
    for p in projects:
        rows = project_rows(args.suite, p, args.top)
        nd[p] = {b: ndcg_for(rows, b) for b in betas}
        print(p, {b: round(sum(v) / len(v), 4) for b, v in nd[p].items()}, flush=True)
    mean = {p: {b: sum(v) / len(v) for b, v in nd[p].items()} for p in projects}

    def choose(group):
        return max(betas, key=lambda b: (sum(mean[q][b] for q in group) / len(group), -betas.index(b)))

    rows = {p: {"chosen": choose([q for q in projects if q != p]), "by_beta": {str(b): round(mean[p][b], 4) for b in betas}} for p in projects}
    for p in projects:
        rows[p]["held_out_minus_off"] = round(mean[p][rows[p]["chosen"]] - mean[p][betas[0]], 4)
    summary = {"held_out_minus_off": [round(x, 4) for x in over_projects([rows[p]["held_out_minus_off"] for p in projects])],
               "folds_choosing": {str(b): sum(1 for p in projects if rows[p]["chosen"] == b) for b in betas},
               "chosen_on_all": choose(projects)}
    args.out.write_text(json.dumps({**header(), "top": args.top, "rows": rows, "summary": summary}, indent=1))
    for p in projects:
        print(p, rows[p])
    print(summary)


if __name__ == "__main__":
    main()
