"""Selection (spec 6-7, tests from spec 10): MMR diversity, budget, source cap, tie-breaks, reasons."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oriongraph_cli.assemble.select import Selection, select
from oriongraph_cli.models import CandidateSpan, SourceType, SpanMetadata, SpanRef

DIM = 16


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def axis(i: int, noise: float = 0.0, seed: int = 0) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    if noise:
        v += np.random.default_rng(seed).normal(0, noise, DIM).astype(np.float32)
    return unit(v)


def cand(span_id: str, base: float, cost: int, path: str | None = None, emb=None,
         section: str | None = None) -> CandidateSpan:
    return CandidateSpan(
        span_ref=SpanRef("doc", span_id, 0, 10, cost),
        metadata=SpanMetadata(filepath=path or f"02_knowledge/{span_id}.md", source_type=SourceType.KNOWLEDGE,
                              section_title=section),
        base_score=base,
        embedding=emb,
    )


def ids(sel: Selection) -> list[str]:
    return [p.candidate.span_ref.span_id for p in sel.picked]


def per_source(sel: Selection) -> dict[str, int]:
    out: dict[str, int] = {}
    for p in sel.picked:
        out[p.candidate.metadata.filepath] = out.get(p.candidate.metadata.filepath, 0) + p.candidate.span_ref.token_cost
    return out


def reasons_by_id(sel: Selection) -> dict[str, object]:
    return {r.span_id: r for r in sel.rejected}


# --------------------------------------------------------------------------- MMR diversity


def two_topics() -> list[CandidateSpan]:
    a = [cand(f"a{i}", 0.90 - 0.01 * i, 100, emb=axis(0, 0.02, seed=i)) for i in range(6)]
    b = [cand(f"b{i}", 0.80 - 0.01 * i, 100, emb=axis(1, 0.02, seed=10 + i)) for i in range(2)]
    return a + b


def test_mmr_diversity_brings_in_the_second_topic():
    sel = select(two_topics(), budget=400, lam=0.5, max_source_ratio=1.0)
    topics = {i[0] for i in ids(sel)}
    assert topics == {"a", "b"}
    assert ids(sel)[:2] == ["a0", "b0"]


def test_lambda_one_is_pure_relevance():
    sel = select(two_topics(), budget=400, lam=1.0, max_source_ratio=1.0)
    assert ids(sel) == ["a0", "a1", "a2", "a3"]


def test_picked_records_mmr_penalty_and_most_similar():
    sel = select(two_topics(), budget=400, lam=0.5, max_source_ratio=1.0)
    first, second = sel.picked[0], sel.picked[1]
    assert first.rank == 1 and first.max_sim == 0.0 and first.most_similar_span_id is None
    assert first.mmr_score == pytest.approx(0.5 * 0.90)
    assert first.candidate.mmr_score == first.mmr_score
    assert second.diversity_penalty == pytest.approx(0.5 * second.max_sim)
    assert second.mmr_score == pytest.approx(0.5 * 0.80 - second.diversity_penalty)


def test_same_section_penalised_reason_and_diverse_reason():
    cands = [
        cand("s1", 0.9, 100, path="p.md", section="Design", emb=axis(0)),
        cand("s2", 0.89, 100, path="p.md", section="Design", emb=axis(0, 0.1, seed=3)),
        cand("t1", 0.5, 100, path="q.md", section="Other", emb=unit(axis(0) + axis(2))),
    ]
    sel = select(cands, budget=300, lam=0.5, max_source_ratio=1.0)
    by_id = {p.candidate.span_ref.span_id: p for p in sel.picked}
    assert set(by_id) == {"s1", "s2", "t1"}
    assert by_id["s1"].candidate.reasons[0] == "first pick: highest MMR"
    assert any(r.startswith("same section as #1 — penalised") for r in by_id["s2"].candidate.reasons)
    assert any(r.startswith("diverse: max sim 0.7") for r in by_id["t1"].candidate.reasons)


# --------------------------------------------------------------------------- budget & utilisation


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(
        st.tuples(st.integers(1, 400), st.floats(0, 1), st.integers(0, 3), st.integers(-1, DIM - 1)),
        min_size=0, max_size=60,
    ),
    budget=st.integers(0, 3000),
    lam=st.floats(0, 1),
    ratio=st.floats(0.05, 1.0),
    threshold=st.sampled_from([0.0, 0.1, 0.5]),
)
def test_budget_and_source_cap_never_exceeded(items, budget, lam, ratio, threshold):
    cands = [
        cand(f"s{i:03d}", base, cost, path=f"doc{src}.md", emb=None if e < 0 else axis(e, 0.05, seed=i))
        for i, (cost, base, src, e) in enumerate(items)
    ]
    sel = select(cands, budget=budget, lam=lam, max_source_ratio=ratio, mmr_threshold=threshold)
    assert sel.tokens_used <= budget
    assert len(set(ids(sel))) == len(sel.picked)
    if sel.source_cap_tokens is not None:
        for path, tokens in per_source(sel).items():
            if tokens > sel.source_cap_tokens:  # only a document's first two spans may exceed the cap
                assert [p.candidate.metadata.filepath for p in sel.picked].count(path) <= 2
    if any(c.span_ref.token_cost <= budget for c in cands):
        assert sel.picked, "at least one span when one fits"
    again = select(cands, budget=budget, lam=lam, max_source_ratio=ratio, mmr_threshold=threshold)
    assert ids(again) == ids(sel) and again.rejected == sel.rejected


def test_utilisation_at_least_90_percent_with_many_small_spans():
    rng = np.random.default_rng(7)
    cands = [
        cand(f"s{i:03d}", float(rng.random()), int(rng.integers(30, 90)), path=f"doc{i % 5}.md",
             emb=unit(rng.normal(size=DIM)))
        for i in range(120)
    ]
    for threshold in (0.0, 0.5):  # the threshold may not stop selection below 90%
        sel = select(cands, budget=2000, lam=0.7, max_source_ratio=0.5, mmr_threshold=threshold)
        assert 0.9 * 2000 <= sel.tokens_used <= 2000
        assert sel.utilisation >= 0.9


def test_threshold_stops_once_utilisation_is_high():
    cands = [cand("a", 0.9, 95), cand("b", 0.05, 4)]
    sel = select(cands, budget=100, lam=1.0, max_source_ratio=1.0, mmr_threshold=0.1)
    assert ids(sel) == ["a"] and sel.stop_reason == "threshold"
    assert reasons_by_id(sel)["b"].reason == "threshold"


def test_tiny_budget_returns_one_span_when_one_fits():
    cands = [cand("big", 0.9, 200), cand("small", 0.5, 40)]
    sel = select(cands, budget=50, lam=0.7, max_source_ratio=0.5)
    assert ids(sel) == ["small"]


def test_tiny_budget_returns_nothing_when_nothing_fits():
    cands = [cand("big", 0.9, 200), cand("small", 0.5, 40)]
    sel = select(cands, budget=10, lam=0.7, max_source_ratio=0.5)
    assert sel.picked == ()
    assert {r.span_id: r.reason for r in sel.rejected} == {"big": "budget", "small": "budget"}
    assert reasons_by_id(sel)["small"].detail == "needs --budget >= 40 (40 tokens, 10 left)"


def test_tiny_budget_may_exceed_source_cap_with_a_single_span():
    cands = [cand("x", 0.9, 80, path="x.md"), cand("y", 0.8, 150, path="y.md")]
    sel = select(cands, budget=100, lam=0.7, max_source_ratio=0.5)
    assert sel.source_cap_tokens == 50
    assert ids(sel) == ["x"]
    assert any("first 2 spans are never capped" in r for r in sel.picked[0].candidate.reasons)


def test_a_documents_first_two_spans_are_never_capped():
    # at 300 tokens the cap is 150: the best span (185) still enters before a weaker one
    # under the cap, so does the same document's second span (a small budget is not spread
    # over weaker documents for the cap's sake), and its third stays capped
    cands = [cand("best", 0.9, 185, path="a.md"), cand("a2", 0.85, 40, path="a.md"),
             cand("a3", 0.8, 20, path="a.md"), cand("other", 0.7, 60, path="b.md")]
    sel = select(cands, budget=300, lam=1.0, max_source_ratio=0.5)
    assert sel.source_cap_tokens == 150
    assert ids(sel) == ["best", "a2", "other"]
    assert reasons_by_id(sel)["a3"].reason == "source_cap"
    assert any("first 2 spans are never capped" in r for r in sel.picked[1].candidate.reasons)


def test_a_document_read_whole_is_not_capped():
    cands = [cand("a1", 0.9, 100, path="a.md"), cand("a2", 0.85, 100, path="a.md"),
             cand("a3", 0.8, 60, path="a.md"), cand("other", 0.7, 40, path="b.md")]
    capped = select(cands, budget=300, lam=1.0, max_source_ratio=0.5)
    assert ids(capped) == ["a1", "a2", "other"]
    whole = select(cands, budget=300, lam=1.0, max_source_ratio=0.5, uncapped=frozenset({"a.md"}))
    assert ids(whole) == ["a1", "a2", "a3", "other"]
    assert any("the document is read whole" in r for r in whole.picked[2].candidate.reasons)


def test_no_candidates():
    sel = select([], budget=100, lam=0.7, max_source_ratio=0.5)
    assert sel.picked == () and sel.rejected == () and sel.pruned == 0 and sel.sources_in_play == 0


# --------------------------------------------------------------------------- source ratio


def test_source_ratio_respected_with_several_sources():
    cands = [cand(f"{src}{i}", 0.9 - 0.01 * i - (0.2 if src == "z" else 0), 50, path=f"{src}.md")
             for src in ("x", "y", "z") for i in range(10)]
    sel = select(cands, budget=1000, lam=1.0, max_source_ratio=0.4)
    assert sel.sources_in_play == 3 and sel.source_cap_tokens == 400
    assert all(t <= 400 for t in per_source(sel).values())
    assert sel.tokens_used >= 900


def test_source_ratio_ignored_with_one_source():
    cands = [cand(f"s{i}", 0.9 - 0.01 * i, 50, path="only.md") for i in range(30)]
    sel = select(cands, budget=1000, lam=1.0, max_source_ratio=0.4)
    assert sel.sources_in_play == 1 and sel.source_cap_tokens is None
    assert sel.tokens_used == 1000


# --------------------------------------------------------------------------- determinism & ties


def test_identical_scores_order_by_cost_then_id_and_repeatable():
    cands = [cand("d", 0.5, 30), cand("b", 0.5, 10), cand("c", 0.5, 20), cand("a", 0.5, 10)]
    first = select(cands, budget=1000, lam=0.7, max_source_ratio=1.0)
    second = select(list(reversed(cands)), budget=1000, lam=0.7, max_source_ratio=1.0)
    assert ids(first) == ["a", "b", "c", "d"]
    assert ids(second) == ids(first)


def test_tie_break_prefers_cheaper_within_001():
    cands = [cand("A", 0.800, 100), cand("B", 0.795, 50), cand("C", 0.780, 10)]
    sel = select(cands, budget=1000, lam=1.0, max_source_ratio=1.0)
    assert ids(sel) == ["B", "A", "C"]  # C is 0.02 below A: no tie
    assert any(r.startswith("tie-break: cheaper") for r in sel.picked[0].candidate.reasons)


# --------------------------------------------------------------------------- rejections


def test_rejection_budget():
    sel = select([cand("A", 0.9, 90), cand("B", 0.8, 50)], budget=100, lam=0.7, max_source_ratio=1.0)
    assert ids(sel) == ["A"]
    r = reasons_by_id(sel)["B"]
    assert (r.reason, r.detail, r.token_cost, r.base_score) == ("budget", "needs --budget >= 140 (50 tokens, 10 left)", 50, 0.8)


def test_rejection_redundancy_names_the_span():
    cands = [
        cand("A", 0.9, 60, path="a.md", emb=axis(0)),
        cand("B", 0.6, 35, path="b.md", emb=axis(1)),
        cand("A2", 0.85, 4, path="c.md", emb=0.93 * axis(0) + np.sqrt(1 - 0.93**2) * axis(2)),
    ]
    sel = select(cands, budget=100, lam=0.5, max_source_ratio=1.0)
    assert ids(sel) == ["A", "B"]
    r = reasons_by_id(sel)["A2"]
    assert r.reason == "redundancy" and r.related_span_id == "A"
    assert r.detail == "lost to span A (cos 0.93)"


def test_rejection_source_cap_names_source_and_cap():
    cands = [cand("x1", 0.9, 30, path="x.md"), cand("x2", 0.88, 20, path="x.md"), cand("x3", 0.85, 40, path="x.md"),
             cand("y1", 0.5, 40, path="y.md")]
    sel = select(cands, budget=100, lam=1.0, max_source_ratio=0.5)
    assert ids(sel) == ["x1", "x2", "y1"]
    r = reasons_by_id(sel)["x3"]
    assert r.reason == "source_cap" and r.detail == "source x.md reached its cap of 50 tokens; would enter with --max-source-ratio >= 0.90"


def test_rejection_outranked_when_saturated():
    sel = select([cand("A", 0.9, 996), cand("B", 0.5, 1)], budget=1000, lam=1.0, max_source_ratio=1.0)
    assert ids(sel) == ["A"] and sel.stop_reason == "saturated"
    r = reasons_by_id(sel)["B"]
    assert r.reason == "outranked" and "last pick (#1)" in r.detail


def test_pruning_counts_and_lists_top_five():
    cands = [cand(f"s{i:03d}", 1.0 - i / 1000, 10) for i in range(100)]
    sel = select(cands, budget=20, lam=1.0, max_source_ratio=1.0)  # 5x budget = 100 tokens -> keep >= 50
    assert sel.pruned == 50
    pruned = [r for r in sel.rejected if r.reason == "pruned"]
    assert [r.span_id for r in pruned] == [f"s{i:03d}" for i in range(50, 55)]
    assert len([r for r in sel.rejected if r.reason != "pruned"]) == 20


def test_pruning_never_drops_the_only_span_that_fits():
    cands = [cand(f"big{i:02d}", 0.9, 500) for i in range(60)] + [cand("small", 0.1, 10)]
    sel = select(cands, budget=100, lam=0.7, max_source_ratio=1.0)
    assert ids(sel) == ["small"]


# --------------------------------------------------------------------------- scale


def test_500_candidates_run():
    rng = np.random.default_rng(1)
    cands = [
        cand(f"s{i:03d}", float(rng.random()), int(rng.integers(20, 300)), path=f"doc{i % 40}.md",
             emb=unit(rng.normal(size=384)))
        for i in range(500)
    ]
    sel = select(cands, budget=4000, lam=0.7, max_source_ratio=0.5)
    assert 0 < sel.tokens_used <= 4000
    assert all(t <= 2000 for t in per_source(sel).values())


# ---------------------------------------------------------------- precision rule, framing, counterfactuals


def test_relevance_floor_stops_short_of_the_budget_and_says_what_would_let_it_in():
    cands = [cand("A", 0.9, 50), cand("B", 0.5, 50, path="b.md"), cand("C", 0.2, 50, path="c.md")]
    sel = select(cands, budget=1000, lam=1.0, max_source_ratio=1.0, floor=0.35)
    assert ids(sel) == ["A", "B"] and sel.stop_reason == "floor"
    r = reasons_by_id(sel)["C"]
    assert r.reason == "floor" and "would enter with --floor <= 0.22" in r.detail
    assert ids(select(cands, budget=1000, lam=1.0, max_source_ratio=1.0, floor=0.0)) == ["A", "B", "C"]


def test_source_cap_yields_when_other_sources_are_much_weaker():
    first = [cand("x0", 0.95, 30, path="x.md"), cand("x1", 0.9, 20, path="x.md")]
    cands = [*first, cand("x2", 0.85, 40, path="x.md"), cand("y1", 0.3, 40, path="y.md")]
    capped = select(cands, budget=100, lam=1.0, max_source_ratio=0.5)
    assert ids(capped) == ["x0", "x1", "y1"]
    yielded = select(cands, budget=100, lam=1.0, max_source_ratio=0.5, cap_yield=0.6)
    assert ids(yielded) == ["x0", "x1", "x2"]
    assert any("over the source cap" in r for r in yielded.picked[2].candidate.reasons)
    # a comparable alternative keeps the cap: y1 scores 0.6 of x2 or more
    close = [*first, cand("x2", 0.85, 40, path="x.md"), cand("y1", 0.6, 40, path="y.md")]
    assert ids(select(close, budget=100, lam=1.0, max_source_ratio=0.5, cap_yield=0.6)) == ["x0", "x1", "y1"]


def test_span_overhead_is_charged_to_every_pick():
    cands = [cand("A", 0.9, 40), cand("B", 0.8, 40, path="b.md"), cand("C", 0.7, 40, path="c.md")]
    assert ids(select(cands, budget=120, lam=1.0, max_source_ratio=1.0)) == ["A", "B", "C"]
    sel = select(cands, budget=120, lam=1.0, max_source_ratio=1.0, span_overhead=20)
    assert ids(sel) == ["A", "B"] and sel.used == 120


def test_outranked_names_the_lambda_that_would_let_it_in():
    from oriongraph_cli.assemble.select import Picked, _outranked

    last = Picked(cand("L", 0.5, 40), 0.25, 0.0, 0.0, None, 2)
    detail = _outranked(cand("B", 0.85, 40), 0.5 * 0.85 - 0.5 * 0.96, 0.96, last, lam=0.5)
    assert detail.startswith("would enter at --lambda >= 0.74")  # (0.96) / (0.35 + 0.96) = 0.733
    # a candidate that no λ in (0.5, 1] lifts above the last pick gets the scores instead
    assert "last pick (#2)" in _outranked(cand("W", 0.4, 40), 0.1, 0.2, last, lam=0.5)


# --------------------------------------------------------------------------- depth floor


def test_depth_floor_is_the_score_where_the_ranking_holds_the_depth():
    from oriongraph_cli.assemble.select import depth_floor

    ordered = [cand(f"s{i}", 1.0 - i * 0.1, 100) for i in range(8)]
    assert depth_floor(ordered, 300) == pytest.approx(0.8)  # s0..s2 hold 300 tokens
    assert depth_floor(ordered, 10_000) == float("-inf")  # shallower than the depth: no floor
    big = [cand("huge", 1.0, 5000)] + ordered
    assert depth_floor(big, 300) == pytest.approx(0.8)  # a span larger than the depth does not count


def test_depth_floor_lets_selection_spend_the_budget_the_relative_floor_left_empty():
    """Scores fall off smoothly: the 0.5 × best floor stops at 3 of 10 spans; with the
    depth floor the spans a naive top-k pack would take (1 × the budget) stay eligible."""
    pool = [cand(f"s{i}", 1.0 / (1 + 0.6 * i), 100) for i in range(10)]
    relative = select(pool, 1000, 1.0, 1.0, floor=0.5)
    deeper = select(pool, 1000, 1.0, 1.0, floor=0.5, floor_depth=1.0)
    assert relative.stop_reason == "floor" and len(relative.picked) < 5
    assert len(deeper.picked) == 10 and deeper.tokens_used == 1000
    assert ids(deeper)[: len(relative.picked)] == ids(relative)  # same order, more of it


def test_depth_floor_never_raises_the_relative_floor():
    pool = [cand("a", 1.0, 100), cand("b", 0.9, 100), cand("c", 0.2, 100)]
    sel = select(pool, 1000, 1.0, 1.0, floor=0.5, floor_depth=0.1)  # depth cut-off at 'a'
    assert ids(sel) == ["a", "b"]  # the relative floor (0.5) still applies below it


def test_document_floor_reads_strong_documents_deeper_before_weak_ones_enter():
    # a strong document (best 0.9) and a weak one (0.5): without the document floor the
    # weak document's span (0.5) is taken before the strong one's second (0.45); with it
    # the strong document is read first, and the weak one still enters once nothing of the
    # strong documents fits, so the budget is spent either way
    cands = [cand("a1", 0.9, 100, path="a.md"), cand("b1", 0.5, 100, path="b.md"),
             cand("a2", 0.45, 100, path="a.md"), cand("a3", 0.40, 100, path="a.md")]
    plain = select(cands, budget=300, lam=1.0, max_source_ratio=1.0)
    assert ids(plain) == ["a1", "b1", "a2"]
    deep = select(cands, budget=300, lam=1.0, max_source_ratio=1.0, doc_floor=0.7)
    assert ids(deep) == ["a1", "a2", "a3"]
    room = select(cands, budget=500, lam=1.0, max_source_ratio=1.0, doc_floor=0.7)
    assert ids(room) == ["a1", "a2", "a3", "b1"] and room.used == 400
    # the weak document says why it is out and what would let it in
    why = reasons_by_id(deep)["b1"]
    assert why.reason == "document_floor" and "document_floor <= 0.55" in why.detail
    assert reasons_by_id(plain)["a3"].reason != "document_floor"


def test_document_floor_holds_while_a_strong_passage_fits_shortened():
    # a1 fits whole; a2 (a strong document's next passage) does not fit whole in the 100
    # tokens left, b1 (a weak document) would. Without shortened forms the gate lifts and b1
    # enters whole; when a2's shortened form fits, selection stops there for the packer to
    # deliver a2 shortened, and b1 waits (under the document floor)
    cands = [cand("a1", 0.9, 100, path="a.md"), cand("a2", 0.85, 150, path="a.md"), cand("b1", 0.5, 80, path="b.md")]
    args = dict(budget=200, lam=1.0, max_source_ratio=1.0, doc_floor=0.7)
    assert ids(select(cands, **args)) == ["a1", "b1"]
    held = select(cands, **args, shortened=lambda c: 60)
    assert ids(held) == ["a1"]
    why = reasons_by_id(held)
    assert why["a2"].reason == "budget" and why["b1"].reason == "document_floor"
    # no shortened form, or one that does not fit either: the weak document enters as before
    assert ids(select(cands, **args, shortened=lambda c: None)) == ["a1", "b1"]
    assert ids(select(cands, **args, shortened=lambda c: 101)) == ["a1", "b1"]


def test_a_strong_document_not_yet_picked_is_charged_its_header_shortened():
    # c1 is a strong document the working set does not hold yet: its shortened form brings a
    # header too, so it counts the framing twice (10 + 10 on 70 or 75 tokens, 90 left)
    cands = [cand("a1", 0.9, 100, path="a.md"), cand("c1", 0.88, 150, path="c.md"), cand("b1", 0.5, 80, path="b.md")]
    args = dict(budget=200, lam=1.0, max_source_ratio=1.0, doc_floor=0.7, span_overhead=10)
    assert ids(select(cands, **args, shortened=lambda c: 70)) == ["a1"]
    assert ids(select(cands, **args, shortened=lambda c: 75)) == ["a1", "b1"]


def test_document_floor_gives_way_to_the_source_cap():
    # the strong document's next span is held back by the cap: the weak document enters
    # instead of selection stopping short
    cands = [cand("a1", 0.9, 100, path="a.md"), cand("a2", 0.8, 100, path="a.md"),
             cand("a3", 0.7, 100, path="a.md"), cand("b1", 0.3, 100, path="b.md")]
    sel = select(cands, budget=400, lam=1.0, max_source_ratio=0.5, cap_yield=0.0, doc_floor=0.7)
    assert ids(sel) == ["a1", "a2", "b1"]


@given(st.lists(st.tuples(st.floats(0.01, 1.0), st.integers(1, 300), st.integers(0, 5)), min_size=1, max_size=30),
       st.integers(1, 2000), st.floats(0.0, 1.0))
@settings(max_examples=150, deadline=None)
def test_document_floor_never_spends_less_of_the_budget_than_none(items, budget, doc_floor):
    cands = [cand(f"s{i}", b, c, path=f"d{d}.md") for i, (b, c, d) in enumerate(items)]
    plain = select(cands, budget=budget, lam=1.0, max_source_ratio=1.0)
    deep = select(cands, budget=budget, lam=1.0, max_source_ratio=1.0, doc_floor=doc_floor)
    assert deep.used <= budget
    # the same spans are feasible in the end: greedy packing may differ, but never by more
    # than the largest span left out
    left = [c.span_ref.token_cost for c in cands if c.span_ref.span_id not in set(ids(deep))]
    assert deep.used >= plain.used - max(left, default=0)


# --------------------------------------------------------------------------- the same text twice


def test_a_span_repeating_the_text_of_one_picked_is_left_out_and_named():
    """Two documents holding the same words (a shared include, a module README's boilerplate):
    once one is picked the other says nothing new — it is left out as ``duplicate``, naming
    the span it repeats, and the budget goes to the next text; whitespace does not count."""
    text = {"a": "## Requirements\n\n| Name | Version |\n|---|---|\n| terraform | >= 1.0 |",
            "b": "## Requirements\n\n| Name | Version |\n|---|---|\n|  terraform | >= 1.0 |".replace("|  ", "| "),
            "c": "## Requirements\n\n| Name  | Version |\n|---|---|\n| terraform | >= 1.0 |",
            "d": "Something else that answers too."}
    cs = [cand("a", 0.9, 100, "02_knowledge/kms.md"), cand("b", 0.85, 100, "02_knowledge/vpc.md"),
          cand("c", 0.84, 100, "02_knowledge/dns.md"), cand("d", 0.5, 100, "02_knowledge/other.md")]
    sel = select(cs, 300, 1.0, 1.0, texts=lambda pool: [text[c.span_ref.span_id] for c in pool])
    assert ids(sel) == ["a", "d"]
    why = reasons_by_id(sel)
    assert why["b"].reason == why["c"].reason == "duplicate" and why["b"].related_span_id == "a"
    assert "the same text as 02_knowledge/kms.md" in why["b"].detail and "(#1)" in why["b"].detail
    # without the texts nothing is known to repeat
    assert ids(select(cs, 300, 1.0, 1.0)) == ["a", "b", "c"]
    # texts that no other candidate shares repeat nothing
    assert ids(select(cs[:1] + cs[3:], 300, 1.0, 1.0, texts=lambda pool: [text[c.span_ref.span_id] for c in pool])) == ["a", "d"]


def test_the_pools_groups_of_the_same_words_are_kept_best_first_for_the_working_set_to_name():
    """``Selection.copy_groups``: the candidates with the same words, in base-score order (a
    versioned site's copies of a page); none without texts."""
    text = {"a": "Same words.", "b": "Same words.", "c": "Same  words.", "d": "Other words."}
    cs = [cand("a", 0.9, 100, "02_knowledge/next/x.md"), cand("b", 0.85, 100, "02_knowledge/v2/x.md"),
          cand("c", 0.84, 100, "02_knowledge/v1/x.md"), cand("d", 0.5, 100, "02_knowledge/other.md")]
    sel = select(cs, 300, 1.0, 1.0, texts=lambda pool: [text[c.span_ref.span_id] for c in pool])
    assert ids(sel) == ["a", "d"]
    assert [[c.span_ref.span_id for c in g] for g in sel.copy_groups] == [["a", "b", "c"]]
    assert select(cs, 300, 1.0, 1.0).copy_groups == ()


def test_of_several_copies_in_play_the_one_on_the_newest_version_is_picked():
    """Copies of one text (a versioned site): the pick is the copy in no version folder,
    else the highest release, whatever their scores; without version folders the MMR pick."""
    text = lambda pool: ["Same words." for _ in pool]  # noqa: E731
    cs = [cand("a", 0.9, 100, "02_knowledge/vd/version-1.x/x.md"), cand("b", 0.85, 100, "02_knowledge/vd/version-2.x/x.md"),
          cand("c", 0.8, 100, "02_knowledge/docs/x.md")]
    sel = select(cs, 300, 1.0, 1.0, texts=text)
    assert ids(sel) == ["c"] and [c.span_ref.span_id for c in sel.copy_groups[0]] == ["a", "b", "c"]
    assert any("newest version" in r for r in sel.picked[0].candidate.reasons)
    assert ids(select(cs[:2], 300, 1.0, 1.0, texts=text)) == ["b"]
    plain = [cand("a", 0.9, 100, "02_knowledge/x.md"), cand("b", 0.85, 100, "02_knowledge/y.md")]
    assert ids(select(plain, 300, 1.0, 1.0, texts=text)) == ["a"]
