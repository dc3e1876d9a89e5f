"""Tried, not built: the meaning channel's share of the hybrid fusion (``w_semantic``, the
lexical channel taking the rest), and whether long intents prefer more of it: nDCG@10 per
project with the shipped defaults otherwise, over all intents and over the halves of them
shorter and longer than the project's median (in words) (docs/BENCHMARKS.md, "Measured, not
built: the dense channel's hubs and the meaning channel's share").

    python bench/archive/semantic_share.py --suite /tmp/suite --projects adr-moj,django --shares 0.3,0.4,0.5,0.6,0.7
    python bench/archive/semantic_share.py --suite /tmp/suite --projects scifact --shares 0.5,0.6,0.7 --limit 300
"""

from __future__ import annotations

import statistics

from sweep import sweep_args  # beside this file; it puts the suite and the repository on the path


def main() -> None:
    import run as suite_run

    from oriongraph_cli import tune

    args = sweep_args(__doc__, "--shares", "0.3,0.4,0.5,0.6,0.7")
    for project in args.projects.split(","):
        cfg, reader = suite_run._open(args.suite, project)
        queries = suite_run._queries(project, args.limit)
        words = [len(q.text.split()) for q in queries]
        median = statistics.median(words)
        for share in (float(x) for x in args.shares.split(",")):
            v = tune.Variant(f"semantic {share:g}", tuple(sorted({**tune._CHOSEN, "w_semantic": share, "w_lexical": round(1 - share, 3)}.items())))
            ndcg = [r["ndcg"] for r in tune.measure(cfg, reader, queries, v, ranking_only=True)]
            short = [x for x, n in zip(ndcg, words) if n <= median]
            long = [x for x, n in zip(ndcg, words) if n > median]
            print(f"{project}\tsemantic {share:g}\tnDCG@10 {tune.mean(ndcg):.4f}\tshort {tune.mean(short):.4f} (n={len(short)})\t"
                  f"long {tune.mean(long):.4f} (n={len(long)}; median {median:g} words)", flush=True)
        reader.close()


if __name__ == "__main__":
    main()
