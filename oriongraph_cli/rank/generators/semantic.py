"""The semantic channel: FAISS inner product between the intent embedding and the span
embeddings (cosine)."""

from __future__ import annotations

from oriongraph_cli.models import GenHit
from oriongraph_cli.rank.generators.base import FromIntent, GenContext, filter_hits, ranked, search_ranked


class SemanticGen(FromIntent):
    """FAISS inner product between the intent embedding and span embeddings (cosine)."""

    name = "semantic"
    channel = "semantic"
    needs_embedding = True

    def generate(self, ctx: GenContext) -> list[GenHit]:
        reader, signals, filters, top_k = ctx.reader, ctx.signals, ctx.filters, ctx.top_k
        q = signals.intent_embedding
        if q is None:
            raise RuntimeError("no intent embedding")
        k = top_k if filters.is_empty() else top_k * 8
        hits = [GenHit(row, score) for row, score in search_ranked(lambda n: reader.vectors.search(q, n), k)]
        return filter_hits(reader, ranked(reader, hits, k), filters)[:top_k]
