"""Scoring (spec 5): normalisation, recency, stage boost, weighted and RRF base scores."""

from __future__ import annotations

import pytest

from oriongraph_cli.rank.score import (
    base_scores,
    normalise,
    recency,
    rrf_score,
    score,
    sort_key,
    stage_boost,
)
from oriongraph_cli.models import (
    CandidateSpan,
    ScoreChannels,
    ScoreWeights,
    SoftPreferences,
    SourceType,
    SpanMetadata,
    SpanRef,
)

DAY = 86_400
NOW = 1_790_000_000  # fixed "now" for deterministic tests (2026-09-21)


def cand(span_id: str, *, row: int = -1, stage: str | None = None, created_at: int = 0,
         usage: float = 0.0, reasons: tuple[str, ...] = (), **raw: float) -> CandidateSpan:
    return CandidateSpan(
        span_ref=SpanRef("doc", span_id, 0, 10, 10),
        metadata=SpanMetadata(filepath=f"02_knowledge/{span_id}.md", source_type=SourceType.KNOWLEDGE,
                              stage=stage, created_at=created_at),
        raw_scores=ScoreChannels(**raw),
        usage_score=usage,
        reasons=reasons,
        row=row,
    )


ONLY_RELEVANCE = ScoreWeights(recency=0.0, stage_boost=0.0, usage=0.0)


# --------------------------------------------------------------------------- normalise


def test_normalise_min_max_range():
    out = normalise([cand("a", semantic=0.2), cand("b", semantic=0.5), cand("c", semantic=0.8)])
    assert [c.scores.semantic for c in out] == pytest.approx([0.0, 0.5, 1.0], abs=1e-6)


def test_normalise_zero_stays_zero():
    out = normalise([cand("a", lexical=0.0), cand("b", lexical=2.0), cand("c", lexical=4.0)])
    assert out[0].scores.lexical == 0.0
    assert [c.scores.lexical for c in out[1:]] == pytest.approx([0.5, 1.0], abs=1e-6)


def test_normalise_flat_channel_is_inactive():
    out = normalise([cand("a", graph=0.7, structural=0.0), cand("b", graph=0.7, structural=0.0)])
    assert [c.scores.graph for c in out] == [1.0, 1.0]  # flat and positive -> 1.0
    assert [c.scores.structural for c in out] == [0.0, 0.0]  # flat at zero -> 0.0


def test_normalise_nearly_flat_counts_as_flat():
    out = normalise([cand("a", semantic=0.5), cand("b", semantic=0.5 + 1e-8)])
    assert [c.scores.semantic for c in out] == [1.0, 1.0]


def test_normalise_single_candidate_and_empty():
    assert normalise([]) == []
    (only,) = normalise([cand("a", semantic=0.3, lexical=0.0)])
    assert only.scores.semantic == 1.0 and only.scores.lexical == 0.0


def test_normalise_returns_new_objects_and_keeps_inputs():
    inputs = [cand("a", semantic=0.1), cand("b", semantic=0.9)]
    out = normalise(inputs)
    assert all(o is not i for o, i in zip(out, inputs))
    assert inputs[1].scores.semantic == 0.0  # untouched


# --------------------------------------------------------------------------- recency / stage


def test_recency_half_life():
    assert recency(NOW - 180 * DAY, NOW, 180.0) == pytest.approx(0.5)
    assert recency(NOW - 360 * DAY, NOW, 180.0) == pytest.approx(0.25)
    assert recency(NOW, NOW, 180.0) == 1.0


def test_recency_unknown_future_and_disabled():
    assert recency(0, NOW, 180.0) == 0.0
    assert recency(-5, NOW, 180.0) == 0.0
    assert recency(NOW + 10 * DAY, NOW, 180.0) == 1.0
    assert recency(NOW - DAY, NOW, 0.0) == 0.0


def test_stage_boost():
    assert stage_boost("design", ("design", "impl")) == 1.0
    assert stage_boost("Design", ("design",)) == 1.0
    assert stage_boost("eval", ("design",)) == 0.0
    assert stage_boost("design", ()) == 0.0
    assert stage_boost(None, ("design",)) == 0.0


# --------------------------------------------------------------------------- weighted score


def test_weighted_base_score_formula_and_metadata():
    w = ScoreWeights(semantic=0.4, lexical=0.2, structural=0.2, graph=0.1, recency=0.05, stage_boost=0.05, usage=0.1)
    cands = [
        cand("a", semantic=0.8, lexical=4.0, stage="design", created_at=NOW - 180 * DAY, usage=0.5),
        cand("b", semantic=0.2, lexical=0.0, structural=1.0),
    ]
    out = {c.span_ref.span_id: c for c in score(cands, w, SoftPreferences(prefer_stages=("design",)), NOW, 180.0)}
    a, b = out["a"], out["b"]
    # a: semantic 1, lexical 1 (zero stays zero for b), structural flat -> b only, graph 0
    assert a.metadata.recency_score == pytest.approx(0.5)
    assert a.stage_boost == 1.0
    assert a.base_score == pytest.approx(0.4 + 0.2 + 0.05 * 0.5 + 0.05 + 0.1 * 0.5, abs=1e-6)
    assert b.base_score == pytest.approx(0.2, abs=1e-6)  # structural flat & positive -> 1.0
    assert b.metadata.recency_score == 0.0 and b.stage_boost == 0.0


def test_reasons_are_human_readable_and_appended_without_duplicates():
    w = ScoreWeights()
    prefs = SoftPreferences(prefer_stages=("design",))
    created = NOW - 2 * DAY
    c0 = cand("a", semantic=0.61, lexical=3.2, stage="design", created_at=created,
              reasons=("lexical match on 'retry', 'worker'",))
    others = [cand("b", semantic=0.1, lexical=0.0)]
    (a,) = [c for c in score([c0, *others], w, prefs, NOW, 180.0) if c.span_ref.span_id == "a"]
    assert a.reasons[0] == "lexical match on 'retry', 'worker'"
    assert "semantic 1.00 (raw cos 0.61)" in a.reasons
    assert "lexical 1.00 (raw bm25 3.20)" in a.reasons
    assert "preferred stage: design" in a.reasons
    assert "recent: 2026-09-19" in a.reasons
    again = [c for c in score([a, *others], w, prefs, NOW, 180.0) if c.span_ref.span_id == "a"][0]
    assert again.reasons == a.reasons  # rescoring adds nothing twice


def test_reasons_made_when_read_are_the_same_in_every_copy():
    """Scoring leaves the reasons' text to be made when read: copies made before the first
    read (``replace``, a field changed under them) give the same reasons as the original,
    and ``to_dict`` and equality see them."""
    import dataclasses

    from oriongraph_cli.normalise import _evolve

    w = ScoreWeights()
    prefs = SoftPreferences(prefer_stages=("design",))
    cands = [cand("a", semantic=0.61, lexical=3.2, stage="design", created_at=NOW - DAY, reasons=("found",)),
             cand("b", semantic=0.1)]
    first = score(cands, w, prefs, NOW, 180.0)
    second = score(cands, w, prefs, NOW, 180.0)
    copied = _evolve(second[0], base_score=9.0, stage_boost=0.0, scores=ScoreChannels())
    replaced = dataclasses.replace(second[1], mmr_score=0.5)
    expected = ("found", "semantic 1.00 (raw cos 0.61)", "lexical 1.00 (raw bm25 3.20)", "preferred stage: design",
                "recent: 2026-09-20")
    assert copied.reasons == first[0].reasons == second[0].reasons == expected
    assert replaced.reasons == first[1].reasons == ()  # the lowest cosine normalises to 0: no reason
    assert first[0] == second[0] and first[0].to_dict()["reasons"] == list(expected)


def test_score_output_sorted_by_base_then_span_id():
    cands = [cand("c", semantic=0.5), cand("b", semantic=0.9), cand("a", semantic=0.5), cand("d", semantic=0.1)]
    out = score(cands, ONLY_RELEVANCE, SoftPreferences(), NOW, 180.0)
    assert [c.span_ref.span_id for c in out] == ["b", "a", "c", "d"]
    assert out == sorted(out, key=sort_key)


def test_unknown_fusion_rejected():
    with pytest.raises(ValueError):
        score([cand("a", semantic=1.0)], ScoreWeights(), SoftPreferences(), NOW, 180.0, fusion="max")


# --------------------------------------------------------------------------- rrf


def test_rrf_formula_with_explicit_ranks():
    w = ONLY_RELEVANCE  # semantic .4, lexical .2, structural .2, graph .1
    k = 60
    cands = [cand("a", row=1, semantic=0.5), cand("b", row=2, lexical=1.0), cand("c", row=3)]
    ranks = {"semantic": {1: 1, 2: 2}, "lexical": {2: 1, 1: 3}, "structural": {1: 1, 2: 1}, "graph": {1: 1, 2: 1}}
    out = {c.span_ref.span_id: c for c in score(cands, w, SoftPreferences(), NOW, 180.0, fusion="rrf",
                                                  rrf_k=k, ranks=ranks)}
    best = (0.4 + 0.2 + 0.2 + 0.1) / (k + 1)
    assert out["a"].base_score == pytest.approx((0.4 / 61 + 0.2 / 63 + 0.2 / 61 + 0.1 / 61) / best)
    assert out["b"].base_score == pytest.approx((0.4 / 62 + 0.2 / 61 + 0.2 / 61 + 0.1 / 61) / best)
    assert out["c"].base_score == 0.0  # ranked nowhere
    assert "semantic rank 1 (raw cos 0.50)" in out["a"].reasons


def test_rrf_rank_one_everywhere_is_one_and_recency_still_added():
    w = ScoreWeights(recency=0.1, stage_boost=0.0)
    ranks = {ch: {7: 1} for ch in ("semantic", "lexical", "structural", "graph")}
    (a,) = score([cand("a", row=7, created_at=NOW)], w, SoftPreferences(), NOW, 180.0, fusion="rrf", ranks=ranks)
    assert a.base_score == pytest.approx(1.0 + 0.1)


def test_rrf_score_helper_and_derived_ranks():
    w = ONLY_RELEVANCE
    assert rrf_score({}, w) == 0.0
    assert rrf_score({"semantic": 1, "lexical": 1, "structural": 1, "graph": 1}, w, k=10) == pytest.approx(1.0)
    # without explicit ranks they come from raw scores (desc), raw <= 0 means unranked
    cands = [cand("a", semantic=0.9), cand("b", semantic=0.3, lexical=2.0), cand("c")]
    out = {c.span_ref.span_id: c for c in score(cands, w, SoftPreferences(), NOW, 180.0, fusion="rrf")}
    best = 0.9 / 61
    assert out["a"].base_score == pytest.approx((0.4 / 61) / best)
    assert out["b"].base_score == pytest.approx((0.4 / 62 + 0.2 / 61) / best)
    assert out["c"].base_score == 0.0


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
def test_base_scores_equal_the_scored_base_in_input_order(fusion):
    w = ScoreWeights(recency=0.1, stage_boost=0.2, usage=0.05)
    prefs = SoftPreferences(prefer_stages=("design",))
    cands = [
        cand("a", row=1, semantic=0.9, lexical=3.0, created_at=NOW - 30 * DAY),
        cand("b", row=2, semantic=0.2, lexical=9.0, stage="design", usage=0.5),
        cand("c", row=3, semantic=0.5, structural=1.5, graph=0.3),
        cand("d", row=4),
    ]
    bases = base_scores(cands, w, prefs, NOW, 180.0, fusion=fusion)
    scored = {c.span_ref.span_id: c.base_score for c in score(cands, w, prefs, NOW, 180.0, fusion=fusion)}
    assert bases == [scored[c.span_ref.span_id] for c in cands]  # exactly, not approximately
    assert base_scores([], w, prefs, NOW, 180.0) == []


# --------------------------------------------------------------------------- owned candidates, kept metadata


def _fields(c: CandidateSpan) -> dict:
    return {k: v for k, v in c.__dict__.items() if k != "_reasons_of"} | {"reasons": c.reasons}


def test_owned_candidates_scored_in_place_as_copies_would_be():
    def fresh():
        return [cand("a", row=1, semantic=0.9, lexical=2.0, created_at=NOW - 3 * DAY),
                cand("b", row=2, semantic=0.4, created_at=NOW - 40 * DAY, stage="plan"),
                cand("c", row=3, lexical=5.0, reasons=("bm25",))]

    weights, prefs = ScoreWeights(recency=0.1, stage_boost=0.1), SoftPreferences(prefer_stages=("plan",))
    copied_from = fresh()
    copied = score(copied_from, weights, prefs, NOW, 30.0)
    assert all(c.scores == ScoreChannels() for c in copied_from)  # the inputs are left as they were
    owned_from = fresh()
    owned = score(owned_from, weights, prefs, NOW, 30.0, owned=True)
    assert {id(c) for c in owned} == {id(c) for c in owned_from}  # the same objects, scored
    assert [_fields(c) for c in owned] == [_fields(c) for c in copied]


def test_scored_metadata_kept_per_row_while_its_recency_holds():
    c1, c2 = cand("a", row=7, semantic=0.9, created_at=NOW - 3 * DAY), cand("b", row=8, semantic=0.2)
    metas: dict = {}
    weights = ScoreWeights(recency=0.1)
    first = {c.row: c.metadata for c in score([c1, c2], weights, SoftPreferences(), NOW, 30.0, metas=metas)}
    again = {c.row: c.metadata for c in score([c1, c2], weights, SoftPreferences(), NOW, 30.0, metas=metas)}
    assert all(again[r] is first[r] for r in (7, 8))  # made once
    assert first[7].recency_score == pytest.approx(recency(NOW - 3 * DAY, NOW, 30.0))
    later = {c.row: c.metadata for c in score([c1, c2], weights, SoftPreferences(), NOW + 30 * DAY, 30.0, metas=metas)}
    assert later[7] is not first[7] and later[7].recency_score == pytest.approx(recency(NOW - 3 * DAY, NOW + 30 * DAY, 30.0))
    assert later[8] is first[8]  # no creation time: the same recency, the same object
    other = cand("a", row=7, semantic=0.9, created_at=NOW - 3 * DAY)  # another span row object: not taken for the kept one
    assert score([other], weights, SoftPreferences(), NOW, 30.0, metas=metas)[0].metadata is not first[7]


def test_fuse_scores_in_place_only_when_told_the_candidates_are_its_own(tmp_path):
    from oriongraph_cli.config import load_config
    from oriongraph_cli.models import CompileRequest
    from oriongraph_cli.rank.score import fuse

    cfg, request = load_config(tmp_path), CompileRequest("x")
    cands = [cand("a", row=1, semantic=0.9, lexical=2.0), cand("b", row=2, semantic=0.4)]
    fused = fuse(cands, {}, ONLY_RELEVANCE, request, cfg, NOW)
    assert not {id(c) for c in fused} & {id(c) for c in cands}
    assert all(c.scores == ScoreChannels() and c.base_score == 0.0 for c in cands)  # left as they were
    owned = fuse(cands, {}, ONLY_RELEVANCE, request, cfg, NOW, owned=True)
    assert {id(c) for c in owned} == {id(c) for c in cands}
    assert [c.base_score for c in owned] == [c.base_score for c in fused]
