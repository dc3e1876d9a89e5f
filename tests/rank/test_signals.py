"""Intent -> signals: keywords, structural hints, and id hints grounded in the index."""

from __future__ import annotations

from oriongraph_cli import api
from oriongraph_cli.assemble import explain
from oriongraph_cli.rank import weights as rank_weights
from oriongraph_cli.rank import signals
from oriongraph_cli.rank.signals import derive, id_forms, keywords
from oriongraph_cli.config import load_config
from oriongraph_cli.models import CompileRequest


def req(text: str) -> CompileRequest:
    return CompileRequest(intent=text, budget_tokens=4000)


def test_keywords_drop_stopwords_and_keep_ids_and_quotes():
    kws = keywords('Why did we pick "full jitter" in ADR-0007 for the retry worker?')
    assert kws[:2] == ("full jitter", "ADR-0007")
    assert "retry" in kws and "worker" in kws and "the" not in kws and "why" not in kws


def test_id_forms():
    assert id_forms("ADR-0007-backoff") == {"adr-0007-backoff", "adr-0007"}
    assert id_forms("ADR-0007") == {"adr-0007"}


def test_id_hints_without_an_index_are_ungrounded():
    assert derive(req("PD-1 blockade in melanoma")).struct_hints.doc_ids == ("PD-1",)


def test_id_hints_are_grounded_in_the_indexed_document_keys():
    keys = {"adr-0007", "req-12"}
    h = derive(req("PD-1 and HIV-1 next to ADR-0007-backoff and REQ-12"), doc_keys=keys).struct_hints
    assert h.doc_ids == ("ADR-0007-backoff", "REQ-12")
    assert derive(req("PD-1 blockade in melanoma"), doc_keys=keys).struct_hints.doc_ids == ()


def test_a_series_id_without_a_dash_is_a_hint_only_where_a_document_is_known_by_it():
    # MSC2290 names the proposal a title gives that id; SHA256 and UTF8 name nothing
    keys = {"msc2290", "adr-040"}
    h = derive(req("does MSC2290 replace ADR-040, hashed with SHA256 in UTF8?"), doc_keys=keys).struct_hints
    assert h.doc_ids == ("ADR-040", "MSC2290")
    assert derive(req("MSC2290 endpoints")).struct_hints.doc_ids == ()  # ungrounded: only ids with a dash


def test_an_id_that_names_no_document_does_not_switch_the_structural_channel_on(project, fake_embedder):
    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    try:
        named = signals.from_index(req("why ADR-0007 uses jitter"), reader)
        assert named.struct_hints.doc_ids == ("ADR-0007",)
        assert rank_weights.effective_weights(req("x"), cfg, named).structural == cfg.w_structural
        ghost = signals.from_index(req("what BCL-2 means for us"), reader)
        assert ghost.struct_hints.doc_ids == ()
        assert rank_weights.effective_weights(req("x"), cfg, ghost).structural == cfg.w_structural_no_hint
    finally:
        reader.close()


def test_a_weak_lexical_match_moves_part_of_the_lexical_weight_to_the_semantic_channel():
    """When the lexical channel's best BM25 score for an intent is at most
    ``weak_lexical_score``, ``weak_lexical_shift`` of its weight goes to the semantic channel
    (0.5/0.5 becomes 0.7/0.3); above it, before ranking (no score yet), with the rule off, or
    with weights the request sets, nothing moves; the shift never takes the lexical weight
    below zero."""
    from dataclasses import replace

    from oriongraph_cli.config import Config
    from oriongraph_cli.models import ScoreWeights

    cfg = Config()
    sig = derive(req("find all files bigger than 1GB"))
    weak, strong = replace(sig, lexical_best=12.0), replace(sig, lexical_best=40.0)
    w = rank_weights.effective_weights(req("x"), cfg, weak)
    assert (round(w.semantic, 6), round(w.lexical, 6)) == (0.7, 0.3) and rank_weights.weak_lexical(cfg, weak)
    at = replace(sig, lexical_best=cfg.weak_lexical_score)
    assert rank_weights.effective_weights(req("x"), cfg, at).semantic == w.semantic  # at the score counts as weak
    for s in (strong, sig, None):
        w = rank_weights.effective_weights(req("x"), cfg, s)
        assert (w.semantic, w.lexical) == (cfg.w_semantic, cfg.w_lexical) and not rank_weights.weak_lexical(cfg, s)
    assert rank_weights.effective_weights(req("x"), replace(cfg, weak_lexical_score=0.0), weak).lexical == cfg.w_lexical
    assert rank_weights.effective_weights(req("x"), replace(cfg, weak_lexical_shift=0.0), weak).lexical == cfg.w_lexical
    w = rank_weights.effective_weights(req("x"), replace(cfg, w_lexical=0.1, weak_lexical_shift=0.5), weak)
    assert (round(w.semantic, 6), w.lexical) == (0.6, 0.0)
    given = replace(req("x"), weights=ScoreWeights(semantic=0.2, lexical=0.8))
    assert rank_weights.effective_weights(given, cfg, weak).lexical == 0.8


def test_a_compile_reads_the_lexical_channels_best_score_and_explains_the_weights_it_used(project, fake_embedder):
    """Ranking records the lexical channel's best raw score in the signals; the weights a
    compile scores with, those ``--explain`` reports and ``orion eval`` measures are the same
    (one function), and the explanation says whether the weak-match rule applied."""
    from oriongraph_cli import pipeline

    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    try:
        sig, scored, hits, _errors, _relaxed = pipeline.rank_candidates(req("retry"), cfg, reader)
        assert sig.lexical_best == max(h.score for h in hits["lexical"]) > 0
        defaults = explain.effective_defaults(cfg, req("retry"), sig)
        applied = sig.lexical_best <= cfg.weak_lexical_score
        assert defaults["weak_lexical"] == {"score": cfg.weak_lexical_score, "shift": cfg.weak_lexical_shift, "applied": applied}
        assert defaults["weights"] == rank_weights.effective_weights(req("retry"), cfg, sig).to_dict()
        assert "applied" not in explain.effective_defaults(cfg, req("retry"))["weak_lexical"]  # before ranking: not known
        sig2, *_ = pipeline.rank_candidates(req("zzzz qqqq"), cfg, reader)
        assert sig2.lexical_best == 0.0 and rank_weights.weak_lexical(cfg, sig2)  # no lexical hit at all: the weakest match
    finally:
        reader.close()
