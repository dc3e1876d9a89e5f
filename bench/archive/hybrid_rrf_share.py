"""Tried, not built: the share of rank fusion in the hybrid fusion (``fusion.Hybrid``: half
the min-max weighted sum, half the rescaled RRF) at other values than one half; nDCG@10 per
project with the shipped defaults otherwise (docs/BENCHMARKS.md, "Measured, not built:
adjacent query terms in the lexical channel", last paragraph).

    python bench/archive/hybrid_rrf_share.py --suite /tmp/suite --projects adr-moj,django,peps,rfcs --shares 0.5,0.35,0.25,0.1,0
    python bench/archive/hybrid_rrf_share.py --suite /tmp/suite --projects scifact --shares 0.5,0.35,0.25,0.1,0 --limit 300
"""

from __future__ import annotations


from sweep import sweep, sweep_args  # beside this file; it puts the suite and the repository on the path

SHARE = {"rrf": 0.5}


def install() -> None:
    from oriongraph_cli import fusion

    def relevance(self, cols, rank_cols, weights, rrf_k):
        total = sum(float(getattr(weights, ch)) for ch in fusion.CHANNELS) or 1.0
        s = SHARE["rrf"]
        return ((1 - s) * fusion._weighted_sum(cols, weights) / total
                + s * fusion._rrf_sum(rank_cols, weights, rrf_k, len(cols[fusion.CHANNELS[0]])))

    fusion.Hybrid.relevance = relevance


def main() -> None:
    a = sweep_args(__doc__, "--shares", "0.5,0.25,0")

    install()
    sweep(a.suite, a.projects, a.limit, a.shares, "rrf share", lambda v: SHARE.__setitem__("rrf", v))


if __name__ == "__main__":
    main()
