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
