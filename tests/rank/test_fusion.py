"""Fusion methods beside min-max: z-score, rank percentile, calibrated and weighted RRF —
each registered once, each scale-free in the way its docstring claims."""

from __future__ import annotations

import pytest

from oriongraph_cli.fusion import FUSIONS
from oriongraph_cli.rank.score import score
from oriongraph_cli.config import load_config
from oriongraph_cli.errors import ConfigError
from oriongraph_cli.api import FUSION_METHODS
from oriongraph_cli.models import ScoreWeights, SoftPreferences

from test_score import NOW, cand  # noqa: E402

W = ScoreWeights(semantic=0.5, lexical=0.5, structural=0.0, graph=0.0, recency=0.0, stage_boost=0.0, usage=0.0)


def _order(cands, fusion):
    return [c.span_ref.span_id for c in score(cands, W, SoftPreferences(), NOW, 180.0, fusion=fusion)]


def _pool(lex_scale=1.0, lex_shift=0.0):
    raw = [("a", 0.71, 9.0), ("b", 0.62, 3.0), ("c", 0.55, 2.5), ("d", 0.50, 0.0), ("e", 0.30, 1.0)]
    return [cand(s, row=i, semantic=sem, lexical=(lex * lex_scale + lex_shift) if lex else 0.0) for i, (s, sem, lex) in enumerate(raw)]


def test_every_method_is_registered_and_validated():
    assert tuple(FUSIONS) == FUSION_METHODS
    for name in FUSION_METHODS:
        assert load_config(".", fusion=name).fusion == name
    with pytest.raises(ConfigError) as exc:
        load_config(".", fusion="borda")
    assert "zscore" in str(exc.value) and "--fusion" in str(exc.value)


@pytest.mark.parametrize("fusion", FUSION_METHODS)
def test_relevance_stays_in_unit_range(fusion):
    out = score(_pool(), W, SoftPreferences(), NOW, 180.0, fusion=fusion)
    assert all(0.0 <= c.base_score <= 1.0 + 1e-9 for c in out)
    assert out[0].span_ref.span_id == "a"  # best in both channels wins everywhere


@pytest.mark.parametrize("fusion", ["zscore", "percentile", "rrf"])
def test_order_ignores_the_lexical_scale(fusion):
    """BM25's scale changes with the corpus and the query length; these methods must not care."""
    assert _order(_pool(), fusion) == _order(_pool(lex_scale=7.3), fusion)


def test_zscore_ignores_a_shift_percentile_ignores_any_monotone_map():
    assert _order(_pool(), "zscore") == _order(_pool(lex_scale=2.0, lex_shift=5.0), "zscore")
    squashed = [cand(c.span_ref.span_id, row=c.row, semantic=c.raw_scores.semantic,
                     lexical=c.raw_scores.lexical ** 0.2 if c.raw_scores.lexical else 0.0) for c in _pool()]
    assert _order(_pool(), "percentile") == _order(squashed, "percentile")


def test_one_outlier_does_not_flatten_the_lexical_channel_under_percentile():
    """Min-max divides by the outlier: the rest of the lexical channel shrinks to nothing
    (z-score too: the outlier sets the spread). Rank percentile keeps the lexical evidence
    between the others ('b' over 'c' by lexical)."""
    pool = [cand("a", row=0, semantic=0.50, lexical=100.0), cand("b", row=1, semantic=0.49, lexical=3.0),
            cand("c", row=2, semantic=0.50, lexical=1.0)] + [cand(f"z{i}", row=3 + i, semantic=0.2, lexical=0.5) for i in range(5)]
    out = {c.span_ref.span_id: c.scores.lexical for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="percentile")}
    mm = {c.span_ref.span_id: c.scores.lexical for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted")}
    assert mm["b"] - mm["c"] < 0.03
    assert out["b"] - out["c"] > 0.05


def test_calibrated_keeps_the_cosine_absolute():
    weak = [cand("a", row=0, semantic=0.20), cand("b", row=1, semantic=0.10)]
    out = score(weak, W, SoftPreferences(), NOW, 180.0, fusion="calibrated")
    assert out[0].scores.semantic == pytest.approx(0.20)  # min-max would say 1.0
    assert out[1].scores.semantic == pytest.approx(0.10)


def test_channels_not_found_score_zero():
    out = {c.span_ref.span_id: c.scores for c in score(_pool(), W, SoftPreferences(), NOW, 180.0, fusion="percentile")}
    assert out["d"].lexical == 0.0 and out["a"].lexical == 1.0


def test_document_evidence_lifts_a_document_that_matches_in_several_places():
    from oriongraph_cli.rank.score import DocumentEvidence, document_evidence

    def span(sid, doc, sem):
        c = cand(sid, semantic=sem)
        from dataclasses import replace
        return replace(c, metadata=replace(c.metadata, filepath=f"02_knowledge/{doc}.md"))

    pool = [span("one", "single", 0.80), span("m1", "many", 0.78), span("m2", "many", 0.70), span("m3", "many", 0.69),
            span("x", "other", 0.30)]
    plain = _order(pool, "weighted")
    assert plain[0] == "one"
    lifted = [c.span_ref.span_id for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=DocumentEvidence(0.3))]
    assert lifted[0] == "m1" and lifted.index("m2") < lifted.index("m3")  # order inside a document kept
    rel = [0.5, 0.4, 0.3]
    assert document_evidence(pool[1:4], rel, DocumentEvidence(0.0)) == [0.0, 0.0, 0.0]
    assert document_evidence(pool[1:4], rel, DocumentEvidence(0.3)) == pytest.approx([0.3 * 0.35, 0.0, 0.0])  # mean of the next two, to the best span
    # the document moves up; its other spans keep their own scores (no more of the budget)
    base = {c.span_ref.span_id: c.base_score for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted")}
    lifted_base = {c.span_ref.span_id: c.base_score for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=DocumentEvidence(0.3))}
    assert lifted_base["m1"] > base["m1"] and lifted_base["m2"] == base["m2"] and lifted_base["m3"] == base["m3"]
    out = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=DocumentEvidence(0.3))
    assert any(r.startswith("document matches in several places") for r in out[0].reasons)


def test_document_evidence_does_not_rank_a_short_document_below_a_long_one_for_its_length():
    """A one-span document has no next-best span: the places it cannot have count as its best
    span. A long document with one matching span still gets nothing."""
    from dataclasses import replace

    from oriongraph_cli.rank.score import DocumentEvidence, document_evidence

    def span(sid, doc, sem):
        c = cand(sid, semantic=sem)
        return replace(c, metadata=replace(c.metadata, filepath=f"02_knowledge/{doc}.md"))

    pool = [span("abstract", "short", 0.80), span("m1", "long", 0.78), span("m2", "long", 0.70), span("m3", "long", 0.69),
            span("lone", "sparse", 0.75), span("x", "other", 0.30)]
    counts = {"02_knowledge/short.md": 1, "02_knowledge/long.md": 40, "02_knowledge/sparse.md": 40}
    out = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=DocumentEvidence(0.3, span_counts=counts))
    order = [c.span_ref.span_id for c in out]
    assert order[0] == "abstract"  # without span counts the long document overtakes it (test above)
    evidence = dict(zip([c.span_ref.span_id for c in pool], document_evidence(pool, [0.8, 0.7, 0.6, 0.5, 0.9, 0.1], DocumentEvidence(0.3, span_counts=counts))))
    assert evidence["abstract"] == pytest.approx(0.3 * 0.8)  # both missing places count as its best span
    assert evidence["lone"] == 0.0  # it has 40 spans: one match is one match
    two = document_evidence(pool[1:3], [0.7, 0.6], DocumentEvidence(0.3, span_counts={"02_knowledge/long.md": 2}))
    assert two == pytest.approx([0.3 * (0.6 + 0.7) / 2, 0.0])  # its second span, then its best for the slot it lacks
    reasons = {c.span_ref.span_id: c.reasons for c in out}
    assert any(r.startswith("short document, matches as a whole") for r in reasons["abstract"])
    assert any(r.startswith("document matches in several places") for r in reasons["m1"])


def test_document_evidence_spread_decides_how_much_of_the_budget_it_buys():
    """0: only the best span rises (the document moves up); 1: every span alike; between,
    that share. The order inside the document never changes."""
    from dataclasses import replace

    from oriongraph_cli.rank.score import DocumentEvidence, document_evidence
    from oriongraph_cli.config import load_config
    from oriongraph_cli.errors import ConfigError

    def span(sid, sem):
        c = cand(sid, semantic=sem)
        return replace(c, metadata=replace(c.metadata, filepath="02_knowledge/long.md"))

    pool = [span("a", 0.9), span("b", 0.8), span("c", 0.7)]
    rel = [0.6, 0.5, 0.4]
    lift = 0.3 * (0.5 + 0.4) / 2
    assert document_evidence(pool, rel, DocumentEvidence(0.3)) == pytest.approx([lift, 0.0, 0.0])
    assert document_evidence(pool, rel, DocumentEvidence(0.3, spread=0.5)) == pytest.approx([lift, lift / 2, lift / 2])
    assert document_evidence(pool, rel, DocumentEvidence(0.3, spread=1.0)) == pytest.approx([lift] * 3)
    for spread in (0.0, 0.5, 1.0):
        out = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=DocumentEvidence(0.3, spread=spread))
        assert [c.span_ref.span_id for c in out] == ["a", "b", "c"]
    assert load_config(".", doc_evidence_spread=0.5).doc_evidence_spread == 0.5
    with pytest.raises(ConfigError):
        load_config(".", doc_evidence_spread=1.5)


def test_the_leading_document_is_read_whole_when_all_of_it_fits():
    """The document whose best span scores highest (with its lift) gives every span the
    whole lift when all its spans are candidates and fit in ``lead_budget`` tokens; a longer
    leader, one with spans outside the pool, and every other document keep ``spread``."""
    from dataclasses import replace

    from oriongraph_cli.rank.score import DocumentEvidence, document_evidence
    from oriongraph_cli.config import load_config
    from oriongraph_cli.errors import ConfigError

    def span(sid, doc, sem, tokens=100):
        c = cand(sid, semantic=sem)
        return replace(c, span_ref=replace(c.span_ref, token_cost=tokens), metadata=replace(c.metadata, filepath=f"02_knowledge/{doc}.md"))

    pool = [span("a1", "lead", 0.9), span("a2", "lead", 0.8), span("a3", "lead", 0.7),
            span("b1", "next", 0.85), span("b2", "next", 0.6), span("b3", "next", 0.5)]
    counts = {"02_knowledge/lead.md": 3, "02_knowledge/next.md": 3}
    rel = [0.6, 0.5, 0.4, 0.55, 0.3, 0.2]
    lead, nxt = 0.3 * (0.5 + 0.4) / 2, 0.3 * (0.3 + 0.2) / 2
    halves = [lead, lead / 2, lead / 2, nxt, nxt / 2, nxt / 2]
    assert document_evidence(pool, rel, DocumentEvidence(0.3, span_counts=counts, spread=0.5, lead_budget=300)) == pytest.approx([lead, lead, lead, nxt, nxt / 2, nxt / 2])
    assert document_evidence(pool, rel, DocumentEvidence(0.3, span_counts=counts, spread=0.5, lead_budget=299)) == pytest.approx(halves)  # 300 tokens: too long
    assert document_evidence(pool, rel, DocumentEvidence(0.3, span_counts={**counts, "02_knowledge/lead.md": 4}, spread=0.5, lead_budget=1000))[1] < lead  # a span not in the pool
    assert document_evidence(pool, rel, DocumentEvidence(0.3, span_counts=counts, spread=0.5)) == pytest.approx(halves)  # off
    # the leader is chosen by its best span *with* its lift
    rel2 = [0.5, 0.5, 0.5, 0.58, 0.0, 0.0]
    got2 = document_evidence(pool, rel2, DocumentEvidence(0.3, span_counts=counts, spread=0.0, lead_budget=1000))
    assert got2[1] == got2[0] > 0 and got2[4] == 0.0
    out = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=DocumentEvidence(0.3, spread=0.5, lead_budget=300, span_counts=counts))
    assert [c.span_ref.span_id for c in out if c.metadata.filepath.endswith("lead.md")] == ["a1", "a2", "a3"]
    # selection is told which document that is (it leaves it out of the per-document cap): the
    # scored spans of the document read whole carry it, and only those
    def whole(**kw):
        ev = replace(DocumentEvidence(0.3, spread=0.5, lead_budget=300, span_counts=counts), **kw)
        got = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=ev)
        return {c.metadata.filepath for c in got if c.read_whole}

    assert out[0].metadata.filepath == "02_knowledge/lead.md"
    assert [c.span_ref.span_id for c in out if c.read_whole] == ["a1", "a2", "a3"]
    assert whole(lead_budget=299) == set()  # too long
    assert whole(span_counts={**counts, "02_knowledge/lead.md": 4}, lead_budget=1000) == set()  # a span not among the candidates
    assert whole(lead_budget=None) == set() and whole(span_counts=None) == set() and whole(spread=1.0) == set()
    assert whole(weight=0.0) == set()
    assert "read_whole" not in out[0].to_dict()
    # the leader is the one document evidence lifts whole, even where other signals put
    # another document's span first (here a usage score)
    used = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    got = score(pool, replace(W, usage=0.5), SoftPreferences(), NOW, 180.0, fusion="weighted",
                evidence=DocumentEvidence(0.3, spread=0.5, lead_budget=300, span_counts=counts), usage=(used, [{}] * 6))
    assert got[0].span_ref.span_id == "b1" and {c.metadata.filepath for c in got if c.read_whole} == {"02_knowledge/lead.md"}
    assert load_config(".", lead_whole_ratio=0.5).lead_whole_ratio == 0.5
    with pytest.raises(ConfigError):
        load_config(".", lead_whole_ratio=1.5)


def test_a_short_leader_is_read_whole_at_any_budget_a_long_one_within_half_a_large_one():
    """The leader's room: the whole of a budget up to ``lead_whole_tokens``, half of a larger
    one (the larger of the two), off with ``lead_whole_ratio`` 0; a ratio of 1 is the whole
    budget whatever the tokens say."""
    from oriongraph_cli.rank.score import DocumentEvidence, lead_whole_budget

    cfg = load_config(".")
    assert (cfg.lead_whole_ratio, cfg.lead_whole_tokens) == (0.5, 1000)
    assert [lead_whole_budget(cfg, b) for b in (150, 300, 1000, 1500, 2000, 4000, 8000)] == [150, 300, 1000, 1000, 1000, 2000, 4000]
    assert lead_whole_budget(load_config(".", lead_whole_ratio=0.0), 4000) is None
    assert lead_whole_budget(load_config(".", lead_whole_ratio=1.0), 4000) == 4000
    assert lead_whole_budget(load_config(".", lead_whole_tokens=0), 1000) == 500
    assert DocumentEvidence.of(cfg, 4000, {}).lead_budget == 2000
    with pytest.raises(ConfigError):
        load_config(".", lead_whole_tokens=-1)


def test_strong_documents_after_a_leader_read_whole_are_read_whole_while_they_fit():
    """After a leader read whole, the next documents (by best span with its lift) are read
    whole too while each scores at least ``strong_floor ×`` the leader and all of them fit
    ``strong_budget`` tokens together; the first weak, too long or partly pooled one ends it,
    and without a leader read whole nothing is."""
    from dataclasses import replace

    from oriongraph_cli.config import load_config
    from oriongraph_cli.errors import ConfigError
    from oriongraph_cli.rank.score import DocumentEvidence

    def span(sid, doc, sem, tokens=100):
        c = cand(sid, semantic=sem)
        return replace(c, span_ref=replace(c.span_ref, token_cost=tokens), metadata=replace(c.metadata, filepath=f"02_knowledge/{doc}.md"))

    # in order: a, the leader (200 tokens); c, strong (one span, 100 tokens); b, strong (50
    # tokens); d, weak
    pool = [span("a1", "a", 0.9), span("a2", "a", 0.8), span("b1", "b", 0.8, 25), span("b2", "b", 0.7, 25),
            span("c1", "c", 0.82), span("d1", "d", 0.3)]
    counts = {"02_knowledge/a.md": 2, "02_knowledge/b.md": 2, "02_knowledge/c.md": 1, "02_knowledge/d.md": 1}

    def whole(**kw):
        ev = replace(DocumentEvidence(0.3, lead_budget=1000, span_counts=counts, strong_floor=0.8), **kw)
        got = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted", evidence=ev)
        return {c.metadata.filepath.split("/")[-1] for c in got if c.read_whole}

    assert whole() == {"a.md"}  # no strong budget: the leader only
    assert whole(strong_budget=350) == {"a.md", "b.md", "c.md"}  # 200 + 100 + 50; d is weak
    assert whole(strong_budget=1000, strong_floor=0.0) == {"a.md", "b.md", "c.md", "d.md"}
    assert whole(strong_budget=349) == {"a.md", "c.md"}  # b no longer fits
    assert whole(strong_budget=299) == {"a.md"}  # c does not fit: it ends there, though b would
    # a span of b not among the candidates: b is not read whole, and nothing after it (d)
    assert whole(strong_budget=1000, strong_floor=0.0, span_counts={**counts, "02_knowledge/b.md": 3}) == {"a.md", "c.md"}
    assert whole(strong_budget=350, lead_budget=199) == set()  # no leader read whole, no followers
    # the spans of a document read whole take its whole lift, the others keep the spread
    got = score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted",
                evidence=DocumentEvidence(0.3, lead_budget=1000, span_counts=counts, strong_floor=0.8, strong_budget=350))
    ids = [c.span_ref.span_id for c in got]
    assert ids.index("b2") < ids.index("d1")
    # from the settings: strong_whole_ratio × the budget, with document_floor as the floor; off
    # when either is 0
    cfg = load_config(".", strong_whole_ratio=0.5, document_floor=0.8)
    ev = DocumentEvidence.of(cfg, 2000, counts)
    assert (ev.strong_budget, ev.strong_floor) == (1000, 0.8)
    assert DocumentEvidence.of(load_config(".", strong_whole_ratio=0.0), 2000, counts).strong_budget is None
    assert DocumentEvidence.of(load_config(".", document_floor=0.0), 2000, counts).strong_budget is None
    with pytest.raises(ConfigError):
        load_config(".", strong_whole_ratio=1.5)


def test_help_and_completion_read_the_registry():
    from oriongraph_cli.api import FUSION_HELP

    for name, method in FUSIONS.items():
        assert f"{name} ({method.summary})" in FUSION_HELP


@pytest.mark.parametrize("fusion", FUSION_METHODS)
@pytest.mark.parametrize("given", [False, True])
def test_relevance_over_columns_follows_each_methods_formula(fusion, given):
    """Scoring computes every candidate's relevance over numpy columns; each method's
    formula, written here one candidate at a time, gives the same numbers."""
    import math

    from oriongraph_cli.fusion import _raw_columns, rrf_score
    from oriongraph_cli.models import CHANNELS
    from oriongraph_cli.normalise import EPS, FLAT

    w = ScoreWeights(semantic=0.45, lexical=0.3, structural=0.17, graph=0.08)
    pool = [cand(f"s{i}", row=i, semantic=(i * 0.37) % 1.0, lexical=((i * 7) % 5) * 1.3, structural=(i % 4) * 0.5,
                 graph=0.2 if i % 6 == 0 else 0.0) for i in range(40)]
    ranks = None
    if given:  # each generator's own order, as fusion is given it: a rank for some rows only
        ranks = {ch: {c.row: r for r, c in enumerate(sorted((c for c in pool if c.raw_scores.get(ch) > 0),
                                                            key=lambda c: -c.raw_scores.get(ch)), 1)} for ch in CHANNELS}
    impl = FUSIONS[fusion]
    raw = _raw_columns(pool)
    cols = impl.channel_columns(pool, raw)
    rank_cols = impl.rank_columns(pool, ranks, raw)
    column = impl.relevance(cols, rank_cols, w, 60).tolist()

    x = {ch: [c.raw_scores.get(ch) for c in pool] for ch in CHANNELS}
    found = {ch: [ch == "semantic" or v > 0 for v in x[ch]] for ch in CHANNELS}

    def minmax(ch):
        lo, hi = min(x[ch]), max(x[ch])
        return [float(v > 0) if hi - lo < FLAT else (v - lo) / (hi - lo + EPS) for v in x[ch]]

    def zscore(ch):
        xs = [v for v, f in zip(x[ch], found[ch]) if f]
        m = sum(xs) / len(xs)
        sd = math.sqrt(sum((v - m) ** 2 for v in xs) / len(xs))
        return [(0.5 * (1 + math.erf((v - m) / (sd * math.sqrt(2)))) if sd >= FLAT else 0.5) if f else 0.0
                for v, f in zip(x[ch], found[ch])]

    def percentile(ch):
        order = sorted((i for i, f in enumerate(found[ch]) if f), key=lambda i: -x[ch][i])
        out = [0.0] * len(pool)
        for r, i in enumerate(order):
            out[i] = 1 - r / len(order)
        return out

    def calibrated(ch):
        if ch == "semantic":
            return [min(1.0, max(0.0, v)) for v in x[ch]]
        if ch == "lexical":
            return [v / max(x[ch]) for v in x[ch]]
        return minmax(ch)

    def rank_of(i):
        if ranks is not None:
            return {ch: ranks[ch][pool[i].row] for ch in CHANNELS if pool[i].row in ranks[ch]}
        out = {}
        for ch in CHANNELS:
            hits = sorted((j for j in range(len(pool)) if x[ch][j] > 0), key=lambda j: (-x[ch][j], pool[j].span_ref.span_id))
            if i in hits:
                out[ch] = hits.index(i) + 1
        return out

    scale = {"zscore": zscore, "percentile": percentile, "calibrated": calibrated}.get(fusion, minmax)
    chans = {ch: scale(ch) for ch in CHANNELS}
    weighted = [sum(getattr(w, ch) * chans[ch][i] for ch in CHANNELS) for i in range(len(pool))]
    rrf = [rrf_score(rank_of(i), w, 60) for i in range(len(pool))]
    total = sum(getattr(w, ch) for ch in CHANNELS)
    expect = {"rrf": rrf, "hybrid": [0.5 * a / total + 0.5 * b for a, b in zip(weighted, rrf)]}.get(fusion, weighted)
    assert column == pytest.approx(expect, rel=1e-12, abs=1e-15)
    for ch in CHANNELS:
        assert cols[ch].tolist() == pytest.approx(chans[ch], rel=1e-12, abs=1e-15)
    # rrf_score of one candidate: the denominator is a candidate ranked first everywhere
    best = sum(getattr(w, ch) for ch in CHANNELS) / 61
    assert rrf_score({"semantic": 2, "graph": 1}, w) == pytest.approx((0.45 / 62 + 0.08 / 61) / best)
    assert rrf_score({"semantic": 0, "other": 1}, w) == 0.0


def test_a_peer_of_the_best_span_takes_the_whole_lift():
    """A document's other span whose own relevance is at least ``peer`` × its best span's
    answers as well as the best: it takes the whole lift, the others ``spread`` × it; off
    (0) every other span takes the spread."""
    from dataclasses import replace

    from oriongraph_cli.config import load_config
    from oriongraph_cli.rank.score import DocumentEvidence, document_evidence

    def span(sid, doc, sem):
        c = cand(sid, semantic=sem)
        return replace(c, metadata=replace(c.metadata, filepath=f"02_knowledge/{doc}.md"))

    pool = [span("best", "d", 0.8), span("near", "d", 0.75), span("far", "d", 0.4)]
    rel = [1.0, 0.9, 0.5]
    lift = 0.3 * (0.9 + 0.5) / 2
    off = document_evidence(pool, rel, DocumentEvidence(0.3, spread=0.25))
    assert off == pytest.approx([lift, 0.25 * lift, 0.25 * lift])
    on = document_evidence(pool, rel, DocumentEvidence(0.3, spread=0.25, peer=0.85))
    assert on == pytest.approx([lift, lift, 0.25 * lift])
    assert document_evidence(pool, rel, DocumentEvidence(0.3, spread=0.25, peer=0.95)) == pytest.approx(off)  # 0.9 < 0.95 × 1.0
    # the setting reaches scoring: the near span rises by the whole lift
    base = {c.span_ref.span_id: c.base_score for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted",
                                                           evidence=DocumentEvidence(0.3, spread=0.25))}
    peer = {c.span_ref.span_id: c.base_score for c in score(pool, W, SoftPreferences(), NOW, 180.0, fusion="weighted",
                                                           evidence=DocumentEvidence(0.3, spread=0.25, peer=0.85))}
    assert peer["near"] > base["near"] and peer["best"] == base["best"] and peer["far"] == base["far"]
    assert load_config(".", doc_evidence_peer=0.85).doc_evidence_peer == 0.85
    with pytest.raises(Exception):
        load_config(".", doc_evidence_peer=1.5)
