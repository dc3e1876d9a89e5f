"""Tried, not built: the sentences a shortened span keeps chosen by embedding similarity to
the intent as well as by the intent's terms (docs/BENCHMARKS.md, "Measured, not built: the
intent's meaning in the sentences a shortened span keeps").

    SENTENCE_ALPHA=1 python bench/archive/sentence_similarity.py --root /tmp/suite/scifact --split dev --limit 150 --systems orion --budgets 300,600,1000

Every argument goes to ``bench/bench_evidence.py``. In this process a sentence's match
(``assemble.compress.Focus.score``: the share of the intent's IDF weight it holds) becomes
that share plus ``SENTENCE_ALPHA`` × the cosine of the sentence's and the intent's
embeddings (the index's model, each sentence embedded once and remembered), so a sentence
that says what the intent says in other words can be kept. ``SENTENCE_ALPHA=0`` is the
shipped rule.
"""

from __future__ import annotations

import os
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent.parent
ALPHA = float(os.environ.get("SENTENCE_ALPHA", "1.0"))


def main() -> None:
    from oriongraph_cli.assemble import compress
    from oriongraph_cli.store import reader as reader_mod

    vectors: dict[str, np.ndarray] = {}
    model: dict[str, object] = {}

    def vector(text: str) -> np.ndarray:
        v = vectors.get(text)
        if v is None:
            v = vectors[text] = model["embedder"].embed([text])[0]
        return v

    @dataclass(frozen=True)
    class MeaningFocus(compress.Focus):
        intent: str = ""

        def score(self, text: str) -> float:
            lexical = compress.Focus.score(self, text)
            if not self.intent or ALPHA == 0:
                return lexical
            return lexical + ALPHA * max(0.0, float(np.dot(vector(self.intent), vector(text))))

    plain_of = compress.Focus.of.__func__

    def of(cls, intent: str, idf=None):
        return MeaningFocus(plain_of(compress.Focus, intent, idf).weights, intent)

    compress.Focus.of = classmethod(of)
    opened = reader_mod.IndexReader.__init__

    def open_and_keep(self, *a, **k):
        opened(self, *a, **k)
        model["embedder"] = self.embedder

    reader_mod.IndexReader.__init__ = open_and_keep
    sys.path.insert(0, str(BENCH))
    sys.argv = [str(BENCH / "bench_evidence.py"), *sys.argv[1:]]
    runpy.run_path(str(BENCH / "bench_evidence.py"), run_name="__main__")


if __name__ == "__main__":
    main()
