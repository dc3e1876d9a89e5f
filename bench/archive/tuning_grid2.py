"""Second tuning round (session 2): ideas that re-rank the fused candidates.

    python bench/bench_quality.py tune --root /tmp/scifact-eval --grid tuning_grid2 --out tuning2.json
"""

from __future__ import annotations

import numpy as np
from bench_quality import Variant


def _w(cfg):
    return cfg.w_semantic, cfg.w_lexical


def _renorm(x: np.ndarray) -> np.ndarray:
    lo, hi = float(x.min()), float(x.max())
    return (x - lo) / (hi - lo + 1e-9) if hi - lo > 1e-6 else (x > 0).astype(float)


def _resort(scored, new_base):
    from dataclasses import replace

    from oriongraph_cli.rank.score import sort_key

    out = [replace(c, base_score=float(b)) for c, b in zip(scored, new_base)]
    out.sort(key=sort_key)
    return out


def doc_channel_max(gamma: float):
    """Each span's normalised semantic / lexical score is pulled towards its document's best
    (among candidates): s' = s + gamma * (docmax - s)."""

    def f(scored, reader, cfg, req):
        ws, wl = _w(cfg)
        sem = np.array([c.scores.semantic for c in scored])
        lex = np.array([c.scores.lexical for c in scored])
        docs = [c.metadata.filepath for c in scored]
        ms, ml = {}, {}
        for d, s, l in zip(docs, sem, lex):
            ms[d] = max(ms.get(d, 0.0), s)
            ml[d] = max(ml.get(d, 0.0), l)
        dsem = np.array([ms[d] for d in docs]) - sem
        dlex = np.array([ml[d] for d in docs]) - lex
        base = np.array([c.base_score for c in scored]) + gamma * (ws * dsem + wl * dlex)
        return _resort(scored, base)

    return f


def zscore(scored, reader, cfg, req):
    """z-score normalisation of semantic and lexical instead of min-max."""
    ws, wl = _w(cfg)
    sem_raw = np.array([c.raw_scores.semantic for c in scored])
    lex_raw = np.array([c.raw_scores.lexical for c in scored])
    z = lambda x: (x - x.mean()) / (x.std() + 1e-9)  # noqa: E731
    old = ws * np.array([c.scores.semantic for c in scored]) + wl * np.array([c.scores.lexical for c in scored])
    new = ws * z(sem_raw) / 4 + wl * z(lex_raw) / 4
    base = np.array([c.base_score for c in scored]) - old + new
    return _resort(scored, base)


def dense_prf(beta: float, k: int, resort_first: bool = True):
    """Rocchio on the query embedding: q' = q + beta * mean(top-k candidate embeddings by
    fused score); semantic cosines recomputed for every candidate, renormalised."""

    def f(scored, reader, cfg, req):
        ws, wl = _w(cfg)
        q = reader.embed_query(req.intent)
        E = np.stack([c.embedding for c in scored])
        top = E[:k].mean(axis=0)
        q2 = q + beta * top
        q2 = q2 / np.linalg.norm(q2)
        cos = np.maximum(0.0, E @ q2)
        new = _renorm(cos)
        old = np.array([c.scores.semantic for c in scored])
        base = np.array([c.base_score for c in scored]) + ws * (new - old)
        return _resort(scored, base)

    return f


def doc_mean_vector(beta: float):
    """Each span's semantic raw score blended with the cosine of its document's mean span
    vector (all spans of the document, not only candidates): s = (1-beta)*own + beta*doc."""

    def f(scored, reader, cfg, req):
        ws, _wl = _w(cfg)
        q = reader.embed_query(req.intent)
        idx = reader.memo("bench-doc-rows", lambda: _doc_rows(reader))
        paths = sorted({c.metadata.filepath for c in scored})
        dcos = {}
        for p in paths:
            rows = idx.get(p, [])
            if rows:
                m = reader.vectors.vectors(rows).mean(axis=0)
                dcos[p] = float(m @ q / (np.linalg.norm(m) + 1e-9))
        own = np.array([c.raw_scores.semantic for c in scored])
        doc = np.array([dcos.get(c.metadata.filepath, 0.0) for c in scored])
        new = _renorm((1 - beta) * own + beta * doc)
        old = np.array([c.scores.semantic for c in scored])
        base = np.array([c.base_score for c in scored]) + ws * (new - old)
        return _resort(scored, base)

    return f


def _doc_rows(reader) -> dict:
    path_of = {d["id"]: d["path"] for d in reader.documents}
    out: dict = {}
    for row, doc, _o, _h in reader.span_outline:
        out.setdefault(path_of[doc], []).append(row)
    return out


def plus_rrf(alpha: float):
    """base + alpha * RRF(semantic, lexical ranks among the candidates; weights 0.6/0.3,
    k = 60, rescaled to [0, 1]): does RRF's better depth help the weighted fusion?"""

    def f(scored, reader, cfg, req):
        ws, wl = _w(cfg)
        n = len(scored)
        sem_rank = np.empty(n)
        lex_rank = np.full(n, np.inf)
        order = sorted(range(n), key=lambda i: (-scored[i].raw_scores.semantic, scored[i].row))
        sem_rank[order] = np.arange(1, n + 1)
        lex = [i for i in range(n) if scored[i].raw_scores.lexical > 0]
        lex.sort(key=lambda i: (-scored[i].raw_scores.lexical, scored[i].row))
        lex_rank[lex] = np.arange(1, len(lex) + 1)
        rrf = (ws / (60 + sem_rank) + wl / (60 + lex_rank)) / ((ws + wl) / 61)
        base = np.array([c.base_score for c in scored]) + alpha * rrf
        return _resort(scored, base)

    return f


def chain(*fs):
    def f(scored, reader, cfg, req):
        for g in fs:
            scored = g(scored, reader, cfg, req)
        return scored

    return f


def variants(cfg) -> list[Variant]:
    out = [Variant("shipped defaults")]
    for alpha in (0.1, 0.25, 0.5):
        out.append(Variant(f"plus rrf alpha {alpha}", rerank=plus_rrf(alpha)))
    for beta in (0.3, 0.5, 0.7):
        out.append(Variant(f"doc mean vector beta {beta}", rerank=doc_mean_vector(beta)))
    for g in (0.25, 0.5, 1.0):
        out.append(Variant(f"doc channel max gamma {g}", rerank=doc_channel_max(g)))
    out.append(Variant("zscore sem/lex", rerank=zscore))
    for beta, k in ((0.3, 3), (0.5, 3), (0.5, 5), (1.0, 5)):
        out.append(Variant(f"dense prf beta {beta} k {k}", rerank=dense_prf(beta, k)))
    out.append(Variant("prf 0.5/3 + docmax 0.5", rerank=chain(dense_prf(0.5, 3), doc_channel_max(0.5))))
    return out
