"""Selection tuning (session 2): MMR λ and the same-document similarity floor, judged by
working-set recall @4000 (the ranking, hence nDCG@10, does not depend on them).

The same-document floor (``select.select(same_source_sim=...)``) lived in commit 41947e4
only: +0.001 working-set recall at best on SciFact train (docs/BENCHMARKS.md, "MMR λ"), so
it was removed; this grid now sweeps λ alone.

    python bench/bench_quality.py tune --root /tmp/scifact-eval --grid tuning_grid_select --out tuning_select.json
"""

from __future__ import annotations

from bench_quality import Variant


def variants(cfg) -> list[Variant]:
    out = [Variant("shipped defaults")]
    for lam in (0.7, 0.8, 0.85, 0.9, 1.0):
        out.append(Variant(f"lambda {lam}", cfg={"diversity_lambda": lam}))
    out.append(Variant("fusion rrf, lambda 0.85", cfg={"fusion": "rrf", "diversity_lambda": 0.85}))
    return out
