"""Copies of one text in several documents ranked newest first (``rank/copies.py``)."""

from __future__ import annotations

from types import SimpleNamespace

from oriongraph_cli.models import CandidateSpan, SourceType, SpanMetadata, SpanRef
from oriongraph_cli.rank.copies import newest_first_ranked


def cand(span_id: str, row: int, path: str, base: float, cost: int = 40) -> CandidateSpan:
    return CandidateSpan(span_ref=SpanRef("d" * 64, span_id, 0, 10, cost),
                         metadata=SpanMetadata(filepath=path, source_type=SourceType.KNOWLEDGE), base_score=base, row=row)


class Reader:
    def __init__(self, texts: dict[int, str]):
        self.texts, self.asked = texts, []

    def rows(self, rows):
        self.asked += list(rows)
        return {r: SimpleNamespace(text=self.texts[r]) for r in rows if r in self.texts}


def test_the_copies_of_a_text_swap_scores_so_the_newest_version_ranks_first_and_nothing_else_moves():
    scored = [cand("a", 1, "k/vd/version-1.x/mocks.md", 0.9), cand("o", 4, "k/docs/other.md", 0.85),
              cand("b", 2, "k/docs/mocks.md", 0.8), cand("c", 3, "k/vd/version-2.x/mocks.md", 0.7)]
    reader = Reader({1: "Put mocks\nin __mocks__.", 2: "Put mocks in __mocks__.", 3: "Put  mocks in __mocks__.", 4: "Other text here."})
    out = newest_first_ranked(scored, reader)
    assert [(c.span_ref.span_id, c.base_score) for c in out] == [("b", 0.9), ("o", 0.85), ("c", 0.8), ("a", 0.7)]
    assert any("ranked newest version first" in r for r in out[0].reasons)
    assert all("newest" not in r for r in out[1].reasons)


def test_nothing_is_read_or_moved_without_version_folders_nor_for_texts_that_differ():
    plain = [cand("a", 1, "k/a.md", 0.9), cand("b", 2, "k/b.md", 0.8)]
    reader = Reader({1: "Same.", 2: "Same."})
    assert newest_first_ranked(plain, reader) is plain and reader.asked == []
    differ = [cand("a", 1, "k/v1/x.md", 0.9), cand("b", 2, "k/v2/x.md", 0.8)]
    assert newest_first_ranked(differ, Reader({1: "One text.", 2: "Another text."})) is differ
    same_version = [cand("a", 1, "k/v2/x.md", 0.9), cand("b", 2, "k/v2/y.md", 0.8)]
    assert newest_first_ranked(same_version, Reader({1: "Same.", 2: "Same."})) is same_version
