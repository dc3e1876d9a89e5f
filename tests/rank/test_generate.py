"""The structural generator's lookups against the registry (ids, titles, headings)."""

from __future__ import annotations

import pytest

from oriongraph_cli import api
from oriongraph_cli.rank.generators.base import GenContext
from oriongraph_cli.rank.generators.structural import StructuralGen, _Outline, _words
from oriongraph_cli.config import load_config
from oriongraph_cli.models import DerivedSignals, HardFilters, StructHints


@pytest.fixture
def reader(project, fake_embedder):
    cfg = load_config(project)
    api.index_project(cfg)
    r = api.open_index(cfg, load_embedder=False)
    yield r
    r.close()


def test_spans_of_matches_the_full_outline(reader):
    expected: dict[int, list[tuple[int, int]]] = {}
    for row, doc, ordinal, _hp in reader.span_outline:
        expected.setdefault(doc, []).append((row, ordinal))
    docs = sorted(expected)
    assert _Outline.spans_of(reader, docs) == expected
    assert _Outline.spans_of(reader, docs[:3]) == {d: expected[d] for d in docs[:3]}
    assert _Outline.spans_of(reader, []) == {}


def test_spans_of_kept_per_reader_are_bounded_and_the_same(reader, monkeypatch):
    from oriongraph_cli.rank.generators import structural

    expected: dict[int, list[tuple[int, int]]] = {}
    for row, doc, ordinal, _hp in reader.span_outline:
        expected.setdefault(doc, []).append((row, ordinal))
    docs = sorted(expected)
    monkeypatch.setattr(structural, "MAX_KEPT_DOCUMENTS", 4)
    kept = reader.memo("structural-document-spans", dict)
    for part in (docs[:3], docs[2:5], docs[:3], docs):
        assert _Outline.spans_of(reader, part) == {d: expected[d] for d in part}
        assert len(kept) <= max(4, len(part))


def test_heading_words_cover_exactly_the_spans_below_a_title(reader):
    o = _Outline.build(reader)
    expected: dict[str, set[int]] = {}
    for row, _doc, _o, hp in reader.span_outline:
        if len(hp) > 1:
            for w in _words(" ".join(hp[1:])):
                expected.setdefault(w, set()).add(row)
    assert expected, "the sample fixture has subsections"
    assert {w: set(rows) for w, rows in o.heading_words.items()} == expected


def test_a_heading_word_finds_its_section_and_an_id_its_document(reader):
    row, _doc, _o, hp = next(r for r in reader.span_outline if len(r[3]) > 1 and _words(r[3][-1]))
    word = sorted(_words(hp[-1]), key=len)[-1]
    sig = DerivedSignals(intent=word, keywords=(word,), struct_hints=StructHints())
    hits = StructuralGen().generate(GenContext(reader, sig, HardFilters(), 200))
    by_row = {h.row: h for h in hits}
    assert row in by_row and any("section heading matches" in r for r in by_row[row].reasons)

    sig = DerivedSignals(intent="ADR-0007", keywords=("ADR-0007",), struct_hints=StructHints(doc_ids=("ADR-0007",)))
    hits = StructuralGen().generate(GenContext(reader, sig, HardFilters(), 200))
    paths = {reader.rows([h.row])[h.row].meta.filepath for h in hits}
    assert len(paths) == 1 and "ADR-0007" in next(iter(paths))
    assert hits[0].score > hits[-1].score  # the document's first span outranks its others
    assert all("document id ADR-0007 named in the intent" in h.reasons for h in hits)


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 20])
def test_reading_only_the_top_documents_keeps_the_top_k_exact(reader, k):
    """The cut in StructuralGen._document_spans must not change the top k: compare with a
    run whose k is large enough that every document is read."""
    o = _Outline.build(reader)
    heading_word = sorted(o.heading_words, key=lambda w: (-len(o.heading_words[w]), w))[0]
    common_title = sorted(o.title_words, key=lambda w: (-len(o.title_words[w]), w))[:3]
    intents = [
        tuple(common_title),
        (common_title[0], heading_word),
        (heading_word,),
        ("retry", "worker", "ingestion"),
        ("adr-0003",),
    ]
    for kws in intents:
        hints = StructHints(doc_ids=("ADR-0003",)) if kws == ("adr-0003",) else StructHints()
        sig = DerivedSignals(intent=" ".join(kws), keywords=kws, struct_hints=hints)
        full = StructuralGen().generate(GenContext(reader, sig, HardFilters(), 10**6))
        top = StructuralGen().generate(GenContext(reader, sig, HardFilters(), k))
        assert top == full[:k], kws


def test_the_generators_threads_are_kept_for_the_process_and_made_again_after_a_fork():
    """A resident compile (`orion serve`, the MCP server, `eval`) started and joined three
    threads per compile; the threads are now kept. A forked child (``eval --tune``'s workers)
    does not have its parent's threads: it gets its own, and they run."""
    import os

    from oriongraph_cli.rank import generators

    pool = generators._pool(3)
    assert generators._pool(3) is pool and generators._pool(2) is pool
    assert list(pool.map(abs, [-1, -2])) == [1, 2]
    pid = os.fork()
    if pid == 0:  # the child: a pool of its own, which runs
        ok = generators._pool(3) is not pool and list(generators._pool(3).map(abs, [-3])) == [3]
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert generators._pool(4) is not pool and generators._pool(4).map(abs, [-4]) is not None
