"""Copies of a quoted text named beside it: the version a path names, the braced paths,
the header note, the spans a working set names, and what evaluation counts as delivered."""

from __future__ import annotations

from types import SimpleNamespace

from oriongraph_cli.assemble.layout import layout
from oriongraph_cli.assemble.workingset import with_copies
from oriongraph_cli.evaluate import delivered_docs, quoted_docs
from oriongraph_cli.models import (
    CandidateSpan, Compression, Copy, SourceType, SpanMetadata, SpanRef, WorkingSet, WSItem,
)
from oriongraph_cli.render.markdown import copies_note, document_header
from oriongraph_cli.render.paths import braced
from oriongraph_cli.versions import newest_first, version_of

NEXT = "02_knowledge/docs/mocks.md"


def test_a_folder_names_a_release_by_a_prefix_or_a_dotted_or_x_form_never_a_bare_number():
    assert version_of("02_knowledge/versioned_docs/version-30.4/a.md") == (30, 4)
    assert version_of("site/en/5x/a.md") == (5,) and version_of("site/4.x/a.md") == (4,)
    assert version_of("docs/v2/a.md") == (2,) and version_of("docs/version-6.x.x/a.md") == (6,)
    assert version_of("docs/2019/a.md") is None and version_of("01_context/a.md") is None
    assert version_of("docs/v2.md") is None  # a file's own name is not a folder
    order = sorted(["d/version-29.7/a.md", "d/version-30.4/a.md", "docs/a.md", "d/version-30.0/a.md"], key=newest_first)
    assert order == ["docs/a.md", "d/version-30.4/a.md", "d/version-30.0/a.md", "d/version-29.7/a.md"]


def test_paths_differing_in_one_folder_are_braced_once_and_odd_names_listed_as_they_are():
    assert braced(["k/v/version-2/a.md", "k/v/version-1/a.md", "k/d/a.md"]) == "k/v/{version-2,version-1}/a.md, k/d/a.md"
    assert braced(["a/b.md"]) == "a/b.md"
    assert braced(["a/x,y/b.md", "a/z/b.md"]) == "a/x,y/b.md, a/z/b.md"  # a comma of its own: never braced
    assert braced(["a/b.md", "a/b.md"]) == "a/b.md"


def _ref(span_id: str, lines: tuple[int, int], start: int = 0) -> SpanRef:
    return SpanRef(doc_version_id="d" * 64, span_id=span_id, char_start=start, char_end=start + 10, token_cost=50,
                   line_start=lines[0], line_end=lines[1])


def _item(span_id, path, lines, rank, start=0, copies=(), compression=None) -> WSItem:
    return WSItem(_ref(span_id, lines, start), path, None, "text " + span_id, rank, 0.5, copies=copies, compression=compression)


def _copy(path: str, lines=(1, 5)) -> Copy:
    return Copy(path, "c" + path[-8:], *lines)


def test_the_header_names_where_all_or_part_of_a_documents_text_stands_again():
    v2, v1 = "02_knowledge/vd/version-2.x/mocks.md", "02_knowledge/vd/version-1.x/mocks.md"
    whole = layout([_item("a", NEXT, (1, 5), 1, copies=(_copy(v2), _copy(v1)))], {}, {})[0]
    assert copies_note(whole) == "same text in 02_knowledge/vd/{version-2.x,version-1.x}/mocks.md"
    assert document_header(whole).endswith(" · same text in 02_knowledge/vd/{version-2.x,version-1.x}/mocks.md")
    two = [_item("a", NEXT, (1, 5), 1, copies=(_copy(v2), _copy(v1))), _item("b", NEXT, (40, 44), 2, start=900, copies=(_copy(v2),))]
    doc = layout(two, {}, {})[0]
    assert copies_note(doc) == f"same text in {v2} · L1-L5 also in {v1}"
    three = two + [_item("c", NEXT, (80, 84), 3, start=2000, copies=(_copy(v1),))]
    assert copies_note(layout(three, {}, {})[0]) == f"same text but L80-L84 in {v2} · same text but L40-L44 in {v1}"
    assert copies_note(doc, lines=False) == f"same text in {v2} · part also in {v1}"
    assert copies_note(layout([_item("a", NEXT, (1, 5), 1)], {}, {})[0]) == ""


def _cand(span_id: str, path: str) -> CandidateSpan:
    return CandidateSpan(span_ref=_ref(span_id, (3, 9)), metadata=SpanMetadata(filepath=path, source_type=SourceType.KNOWLEDGE))


def test_a_quoted_span_names_one_copy_per_other_document_and_a_pointer_names_none():
    quoted = _item("a", NEXT, (1, 5), 1)
    other = _item("b", "02_knowledge/vd/version-2.x/other.md", (1, 5), 2)
    pointer = _item("p", "02_knowledge/p.md", (1, 5), 3, compression=Compression("pointer", 50, 8, "orion show p"))
    groups = ((_cand("a", NEXT), _cand("x", "02_knowledge/vd/version-2.x/mocks.md"),
               _cand("y", "02_knowledge/vd/version-2.x/mocks.md"), _cand("z", other.path)),
              (_cand("p", pointer.path), _cand("q", "02_knowledge/q.md")))
    a, b, p = with_copies([quoted, other, pointer], groups)
    assert [(c.path, c.span_id, c.line_start, c.line_end) for c in a.copies] == [("02_knowledge/vd/version-2.x/mocks.md", "x", 3, 9)]
    assert b.copies == () and p.copies == ()


def test_a_copy_named_beside_quoted_text_counts_as_delivered_and_not_beside_a_pointer():
    items = [_item("a", NEXT, (1, 5), 1, copies=(_copy("02_knowledge/v1/mocks.md"),)),
             _item("p", "02_knowledge/p.md", (1, 5), 2, start=50, compression=Compression("pointer", 50, 8, "orion show p"),
                   copies=(_copy("02_knowledge/v1/p.md"),))]
    resp = SimpleNamespace(workingset=WorkingSet(layout(items, {}, {}), 100))
    assert delivered_docs(resp) == {NEXT, "02_knowledge/v1/mocks.md"}
    assert quoted_docs(resp) == {NEXT}


def test_a_versioned_page_is_placed_by_its_folders_and_an_intent_names_releases_by_their_forms():
    from oriongraph_cli.versions import named_releases, page_of

    assert page_of("docs/en/5x/guide/routing.md") == ("docs/en", "guide/routing.md")
    assert page_of("k/versioned_docs/version-6.6/a.md") == ("k/versioned_docs", "a.md")
    assert page_of("docs/2019/a.md") is None and page_of("docs/v2.md") is None
    assert named_releases("in Express 4.x and v5, version 29, 5x, 10.x and 2.0.0") == {4, 5, 29, 10, 2}
    assert named_releases("4 spaces, node 18, ES2015") == frozenset()
    # hostile: thousands of digits name no release (int() refuses them) and cost one pass
    assert named_releases("v" + "1" * 5000 + " and " + "2" * 5000 + ".x and " + "3" * 5000 + "x") == frozenset()
