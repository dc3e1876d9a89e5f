"""Tried, not built: a bigram BM25 term added to the lexical channel (adjacent analysed terms
of the intent matched as adjacent terms of a span, scored like a term with its own document
frequency), weighted ``alpha`` against the unigram BM25, on the suite's projects with the
shipped defaults otherwise; nDCG@10 per project (docs/BENCHMARKS.md, "Measured, not built:
adjacent query terms in the lexical channel").

    python bench/archive/bigram_lexical.py --suite /tmp/suite --projects adr-moj,django --alphas 0,0.25,0.5,1
    python bench/archive/bigram_lexical.py --suite /tmp/suite --projects scifact,peps,rfcs --alphas 0,0.1,0.25,0.5 --limit 300

The bigram postings are built in memory from the registry's lexical texts (nothing is
written); the numpy postings' search is wrapped so each query's unigram top list (three
times as deep) takes ``alpha`` × the bigram score before it is cut.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from sweep import sweep, sweep_args  # beside this file; it puts the suite and the repository on the path

STATE: dict = {"alpha": 0.0, "bigrams": None}


def build_bigrams(registry) -> dict:
    from oriongraph_cli.store import postings
    from oriongraph_cli.store.generation import all_lexical_texts

    ana = postings.analyzer()
    post: dict = defaultdict(dict)
    lengths: dict[int, int] = {}
    for row, text in all_lexical_texts(registry):
        terms = ana.terms(text)
        lengths[row] = max(len(terms) - 1, 1)
        for pair, n in Counter(zip(terms, terms[1:])).items():
            post[pair][row] = n
    return {"post": post, "len": lengths, "avg": sum(lengths.values()) / max(len(lengths), 1)}


def install() -> None:
    from oriongraph_cli.store import postings

    unigram = postings.Postings.search_terms

    def search_terms(self, terms, limit):
        alpha = STATE["alpha"]
        found = unigram(self, terms, limit * 3 if alpha else limit)
        if not alpha or len(terms) < 2:
            return found[:limit]
        bi, n, k1, b = STATE["bigrams"], self.n_docs, self.k1, self.b
        extra: dict[int, float] = defaultdict(float)
        for pair in zip(terms, terms[1:]):
            post = bi["post"].get(pair)
            if not post:
                continue
            idf = math.log(n / (len(post) + 1)) + 1
            for row, tf in post.items():
                extra[row] += idf * (tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * bi["len"][row] / bi["avg"]))
        if not extra:
            return found[:limit]
        score = {r: s for r, s, _m in found}
        matched = {r: m for r, _s, m in found}
        for r, s in extra.items():
            score[r] = score.get(r, 0.0) + alpha * s
        top = sorted(score.items(), key=lambda x: (-x[1], x[0]))[:limit]
        return [(r, s, matched.get(r, ())) for r, s in top]

    postings.Postings.search_terms = search_terms


def main() -> None:
    a = sweep_args(__doc__, "--alphas", "0,0.25,0.5")

    from oriongraph_cli.store.registry import Registry

    def setup(reader) -> None:
        reg = Registry.open(reader.path / "registry.sqlite")  # the generation the reader holds
        STATE["bigrams"] = build_bigrams(reg)
        reg.close()

    install()
    sweep(a.suite, a.projects, a.limit, a.alphas, "alpha", lambda v: STATE.__setitem__("alpha", v), setup)


if __name__ == "__main__":
    main()
