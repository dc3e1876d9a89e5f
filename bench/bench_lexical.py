"""Lexical channel: numpy BM25 (store/postings.py) against Whoosh BM25F on one index.

    python bench/bench_lexical.py --root /tmp/scifact-np \
        --queries /work/shared/datasets/scifact/queries_train.jsonl -n 200 --limit 200

For each query (the keywords LexicalGen sends: ``signals.keywords`` of the intent) both
backends run back to back on the same open generation, alternating which goes first.
Prints per-query latency percentiles, the score difference and the top-``limit`` overlap;
rankings must agree except the order within exact ties (and which tied hits take the
last places).

    python bench/bench_lexical.py --root /tmp/scifact-np --queries ... -n 200 --replicate 8

builds postings (numpy only, in a temp dir) from the generation's span texts repeated
``--replicate`` times (SciFact x 8 ~ 107k spans) and times the full build, a one-span
delta and the queries: the scale check without a 100k-span Whoosh index.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--replicate", type=int, default=0)
    args = ap.parse_args()
    if args.replicate:
        return replicate(args)

    from oriongraph_cli.rank.signals import keywords, normalise_intent
    from oriongraph_cli.store import postings
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.lexical import LexicalIndex, _quote

    gen = Layout(Path(args.root) / ".oriongraph").current_path()
    t0 = time.perf_counter()
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    open_np = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    lex._open_whoosh()
    open_wh = (time.perf_counter() - t0) * 1000
    assert lex.backend == "numpy", "no postings arrays in this generation"
    qs = [json.loads(line)["text"] for line in Path(args.queries).read_text().splitlines()[: args.n]]
    kws = [list(keywords(normalise_intent(q))) for q in qs]
    lex.search(kws[0], args.limit), lex.search_whoosh(" ".join(_quote(k) for k in kws[0]), args.limit)  # warm
    t_np, t_wh, overlaps, max_diff, rank_equal, fallbacks = [], [], [], 0.0, 0, 0
    mismatched = []
    for i, kw in enumerate(kws):
        qtext = " ".join(_quote(k) for k in kw)
        if postings.query_terms(qtext) is None:
            fallbacks += 1
        runs = [("np", lambda: lex.search(kw, args.limit)), ("wh", lambda: lex.search_whoosh(qtext, args.limit))]
        if i % 2:
            runs.reverse()
        res = {}
        for name, fn in runs:
            t0 = time.perf_counter()
            res[name] = fn()
            (t_np if name == "np" else t_wh).append((time.perf_counter() - t0) * 1000)
        a, b = res["np"], res["wh"]
        assert len(a) == len(b), (i, len(a), len(b))
        if not a:
            overlaps.append(1.0)
            rank_equal += 1
            continue
        for (_r1, s1, _m1), (_r2, s2, _m2) in zip(a, b):
            max_diff = max(max_diff, abs(s1 - s2))
        ra, rb = {r for r, _s, _m in a}, {r for r, _s, _m in b}
        overlaps.append(len(ra & rb) / len(a))
        # beyond ties: the ranks agree once runs of equal scores are taken as sets
        def groups(hits):
            out, cur, last = [], set(), None
            for r, s, _m in hits:
                key = round(s, 9)
                if last is not None and key != last:
                    out.append(cur)
                    cur = set()
                cur.add(r)
                last = key
            out.append(cur)
            return out

        ga, gb = groups(a), groups(b)
        if ga[:-1] == gb[:-1]:
            rank_equal += 1
        else:
            mismatched.append(i)
        assert {r: m for r, _s, m in a if r in rb} == {r: m for r, _s, m in b if r in ra}
    n = len(kws)
    print(f"generation {gen} · {lex.doc_count()} spans · {n} queries · limit {args.limit}")
    print(f"open: numpy {open_np:.1f} ms, whoosh {open_wh:.1f} ms · queries answered by Whoosh (phrases/operators): {fallbacks}")
    for name, ts in (("whoosh", t_wh), ("numpy", t_np)):
        print(f"{name:7s} p50 {pct(ts, 50):7.2f} ms  p95 {pct(ts, 95):7.2f} ms  mean {statistics.mean(ts):7.2f} ms")
    print(f"ratio   p50 {pct(t_wh, 50) / pct(t_np, 50):.1f}x  p95 {pct(t_wh, 95) / pct(t_np, 95):.1f}x")
    print(f"max |score diff| {max_diff:.2e} · mean top-{args.limit} overlap {statistics.mean(overlaps):.4f} "
          f"(min {min(overlaps):.4f}) · rankings equal up to exact ties: {rank_equal}/{n}"
          + (f" (differ: {mismatched[:10]})" if mismatched else ""))


def replicate(args) -> None:
    import shutil
    import tempfile

    from oriongraph_cli.rank.signals import keywords, normalise_intent
    from oriongraph_cli.index.indexer import _all_lexical_texts
    from oriongraph_cli.store import postings
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.lexical import BM25_B, BM25_K1, _quote
    from oriongraph_cli.store.registry import Registry

    gen = Layout(Path(args.root) / ".oriongraph").current_path()
    reg = Registry.open(gen / "registry.sqlite")
    base = _all_lexical_texts(reg)
    reg.close()
    step = max(r for r, _t in base) + 1
    docs = [(r + k * step, t) for k in range(args.replicate) for r, t in base]
    tmp = Path(tempfile.mkdtemp(prefix="bench-lexical-"))
    try:
        t0 = time.perf_counter()
        postings.build(tmp / "p", None, [], docs)
        full = time.perf_counter() - t0
        deltas = []
        for i in range(3):
            t0 = time.perf_counter()
            postings.build(tmp / f"q{i}", tmp / "p", [docs[100 + i][0]], [(args.replicate * step + i, docs[100 + i][1] + " edited")])
            deltas.append(time.perf_counter() - t0)
        p = postings.Postings(tmp / "p", k1=BM25_K1, b=BM25_B)
        qs = [json.loads(line)["text"] for line in Path(args.queries).read_text().splitlines()[: args.n]]
        lat = []
        for q in qs:
            terms = postings.query_terms(" ".join(_quote(k) for k in keywords(normalise_intent(q))))
            t0 = time.perf_counter()
            p.search_terms(terms or [], args.limit)
            lat.append((time.perf_counter() - t0) * 1000)
        print(f"{len(docs)} spans ({args.replicate} x {len(base)}), {p.meta['postings']} postings, {p.meta['terms']} terms")
        print(f"full build {full:.2f} s · one-span delta {statistics.median(deltas) * 1000:.0f} ms · "
              f"query p50 {pct(lat, 50):.2f} ms p95 {pct(lat, 95):.2f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
