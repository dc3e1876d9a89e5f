"""The variants behind docs/BENCHMARKS.md "Tuning log" (used by `bench_quality.py tune`).

The first variant is the shipped configuration; every other one changes one thing (its
name says what) and is compared with the first by a paired bootstrap over the queries.
"""

from __future__ import annotations

from dataclasses import replace

from bench_quality import Variant


def doc_support(scored, bonus: float):
    """Bench-only document aggregation (measured, not adopted): each span's base score plus
    ``bonus`` × the best *other* span of its document, re-sorted. Every bonus tried lowered
    nDCG@10 on SciFact — a document's best span is the better signal (docs/BENCHMARKS.md)."""
    from oriongraph_cli.rank.score import sort_key

    top2: dict[str, list[float]] = {}
    for c in scored:
        top2.setdefault(c.metadata.filepath, []).append(c.base_score)
    top2 = {p: sorted(v, reverse=True)[:2] for p, v in top2.items()}
    out = []
    for c in scored:
        t = top2[c.metadata.filepath]
        other = (t[1] if len(t) > 1 else 0.0) if c.base_score >= t[0] else t[0]
        out.append(replace(c, base_score=c.base_score + bonus * other) if other > 0 else c)
    out.sort(key=sort_key)
    return out


def _w(sem: float, lex: float) -> dict:
    return {"w_semantic": sem, "w_lexical": lex}


def variants(cfg) -> list[Variant]:
    out = [Variant("shipped defaults")]
    # the spec's weights, structural always on (the defaults before this issue, on the new lexical field)
    out.append(Variant("before: spec weights 0.4/0.2/0.2/0.1, structural always", cfg={
        "w_semantic": 0.4, "w_lexical": 0.2, "w_structural": 0.2, "w_structural_no_hint": 0.2, "w_graph": 0.1}))
    out.append(Variant("structural 0.2 also without a hint", cfg={"w_structural_no_hint": 0.2}))
    out.append(Variant("structural 0.05 without a hint", cfg={"w_structural_no_hint": 0.05}))
    for sem, lex in ((0.45, 0.45), (0.5, 0.4), (0.55, 0.35), (0.65, 0.25), (0.7, 0.2)):
        out.append(Variant(f"semantic {sem} / lexical {lex}", cfg=_w(sem, lex)))
    out.append(Variant("fusion rrf (k=60)", cfg={"fusion": "rrf"}))
    out.append(Variant("graph weight 0", cfg={"w_graph": 0.0}))
    for k in (100, 400):
        out.append(Variant(f"top_k {k}", cfg={"top_k": k}))
    # MMR λ: the ranking is base-score order whatever λ is; λ only changes the working set
    for lam in (0.5, 0.6, 0.8, 0.9, 1.0):
        out.append(Variant(f"lambda {lam}", cfg={"diversity_lambda": lam}))
    out.append(Variant("max_source_ratio 0.25", cfg={"max_source_ratio": 0.25}))
    for bonus in (0.05, 0.1, 0.2):
        out.append(Variant(f"doc_support bonus {bonus}", rerank=lambda s, r, c, q, b=bonus: doc_support(s, b)))
    return out
