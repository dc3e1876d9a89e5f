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


def page(span_id: str, path: str, base: float, section: str = "Routing") -> CandidateSpan:
    return CandidateSpan(span_ref=SpanRef("d" * 64, span_id, 0, 10, 40),
                         metadata=SpanMetadata(filepath=path, source_type=SourceType.KNOWLEDGE, section_title=section),
                         base_score=base)


def ranked(scored, intent="route paths"):
    from oriongraph_cli.rank.copies import newest_version_ranked

    return [(c.span_ref.span_id, round(c.base_score, 3)) for c in newest_version_ranked(scored, intent)]


def test_one_page_in_several_releases_ranks_its_newest_release_first_whatever_its_sections():
    scored = [page("old", "k/docs/en/4x/guide/routing.md", 0.9, "res.sendfile"), page("other", "k/docs/en/guide.md", 0.88),
              page("new", "k/docs/en/5x/guide/routing.md", 0.85, "res.sendFile"), page("old2", "k/docs/en/4x/guide/routing.md", 0.6)]
    assert ranked(scored) == [("new", 0.9), ("other", 0.88), ("old", 0.85), ("old2", 0.6)]
    from oriongraph_cli.rank.copies import newest_version_ranked

    out = newest_version_ranked(scored, "route paths")
    assert "the same page in 1 other release: ranked newest version first" in out[0].reasons
    assert out[1] is scored[1] and out[3] is scored[3]  # only each document's best span moves


def test_the_newest_release_is_not_raised_from_far_below_nor_when_the_intent_names_an_older_one():
    far = [page("old", "k/en/4x/a.md", 0.9), page("new", "k/en/5x/a.md", 0.7)]  # under 0.8 x the best: rewritten
    assert ranked(far) == [("old", 0.9), ("new", 0.7)]
    near = [page("old", "k/en/4x/a.md", 0.9), page("new", "k/en/5x/a.md", 0.8)]
    assert ranked(near, "in Express 4.x, how do route paths work") == [("old", 0.9), ("new", 0.8)]
    assert ranked(near, "route paths with version 4") == [("old", 0.9), ("new", 0.8)]
    assert ranked(near, "how do route paths work in 5.x") == [("new", 0.9), ("old", 0.8)]
    assert ranked(near, "4 route paths") == [("new", 0.9), ("old", 0.8)]  # a bare number names no release


def test_the_sites_own_line_is_newest_only_beside_a_folder_of_releases_kept_apart():
    docusaurus = [page("old", "k/versioned_docs/version-6.6/guide/a.md", 0.9), page("new", "k/docs/guide/a.md", 0.85)]
    assert ranked(docusaurus) == [("new", 0.9), ("old", 0.85)]
    drafts = [page("acc", "k/accepted/3.6/feature/spec.md", 0.9), page("draft", "k/working/feature/spec.md", 0.85)]
    assert ranked(drafts) == [("acc", 0.9), ("draft", 0.85)]
    beside = [page("v1", "k/meta/v1/reference/link.md", 0.9), page("root", "k/meta/reference/link.md", 0.85)]
    assert ranked(beside) == [("v1", 0.9), ("root", 0.85)]


def test_pages_naming_no_release_are_returned_untouched():
    from oriongraph_cli.rank.copies import newest_version_ranked

    plain = [page("a", "k/a.md", 0.9), page("b", "k/b.md", 0.8)]
    assert newest_version_ranked(plain, "anything") is plain
    other_pages = [page("a", "k/v1/a.md", 0.9), page("b", "k/v2/b.md", 0.85)]
    assert newest_version_ranked(other_pages, "anything") is other_pages
