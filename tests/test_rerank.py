"""rerank.py: document-support aggregation (measured, not adopted; see docs/BENCHMARKS.md)."""

from __future__ import annotations

import pytest

from oriongraph_cli.models import CandidateSpan, SourceType, SpanMetadata, SpanRef
from oriongraph_cli.rerank import doc_support


def _cand(path: str, sid: str, base: float) -> CandidateSpan:
    return CandidateSpan(
        span_ref=SpanRef("v", sid, 0, 1, 10),
        metadata=SpanMetadata(filepath=path, source_type=SourceType.KNOWLEDGE),
        base_score=base,
    )


def test_doc_support_lifts_documents_matching_in_several_places():
    cands = [_cand("a.md", "a1", 0.80), _cand("b.md", "b1", 0.78), _cand("b.md", "b2", 0.60), _cand("c.md", "c1", 0.10)]
    out = doc_support(cands, 0.1)
    assert [c.span_ref.span_id for c in out] == ["b1", "a1", "b2", "c1"]
    by_id = {c.span_ref.span_id: c for c in out}
    assert by_id["b1"].base_score == pytest.approx(0.78 + 0.06)
    assert by_id["b2"].base_score == pytest.approx(0.60 + 0.078)
    assert by_id["a1"].base_score == pytest.approx(0.80) and by_id["c1"].base_score == pytest.approx(0.10)
    assert any("document support" in r for r in by_id["b1"].reasons)
    assert [c.span_ref.span_id for c in doc_support(cands, 0.0)] == ["a1", "b1", "b2", "c1"]
