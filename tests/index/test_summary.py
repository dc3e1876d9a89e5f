"""A page's own summary (front matter ``description``) is read with its first span: embedded
and in the lexical index, never quoted; the lexical text rebuilt from the registry is the
one the index run made; an edit of the summary alone is searched by the next run."""

from __future__ import annotations

import pytest

from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.index.parse import parse_document
from oriongraph_cli.index.span import embed_text, split_document
from oriongraph_cli.models import SUMMARY_MAX_CHARS, page_summary
from oriongraph_cli.store.lexical import LexicalDoc, lexical_text
from oriongraph_cli.tokens import get_counter

NOTE = "02_knowledge/howto/embeds.md"
PAD = " ".join(f"Step {i} copies the block reference and pastes it where it belongs." for i in range(45))


def _note(description: str) -> str:
    return (f"---\ntitle: Embed files\ndescription: {description}\n---\n# Embed files\n\nAn exclamation mark before a link shows the file inline. {PAD}\n\n"
            f"## Embed an image\n\nImages keep their size unless you give one. {PAD}\n")


@pytest.mark.parametrize("meta, expected", [
    ({"description": "Reuse text across notes."}, "Reuse text across notes."),
    ({"Description": "  Reuse\n text\tacross   notes.  "}, "Reuse text across notes."),  # any case, one line
    ({"summary": "Hugo's summary field."}, "Hugo's summary field."),
    ({"description": "", "summary": "The other field."}, "The other field."),
    ({"description": ["a", "list"]}, ""),  # not text: nothing
    ({"description": {"nested": "map"}}, ""),
    ({"description": 42}, ""),
    ({"description": None}, ""),
    ({}, ""),
    ("not a mapping", ""),
])
def test_a_pages_summary_is_its_description_as_one_line(meta, expected):
    assert page_summary(meta) == expected


def test_a_long_summary_is_cut_at_a_word():
    words = "reuse " * 200
    got = page_summary({"description": words})
    assert len(got) <= SUMMARY_MAX_CHARS and got.endswith("reuse") and got == " ".join(got.split())


def test_the_summary_is_read_with_the_first_span_only_and_never_quoted():
    text = _note("Show a quokka section of one note inside another.")
    doc, _warnings = parse_document(NOTE, text.encode(), text, mtime=0)
    assert doc.summary == "Show a quokka section of one note inside another."
    spans = split_document(doc, get_counter())
    assert len(spans) >= 2
    assert all("quokka" not in s.text for s in spans)  # the quotes are the page's text
    first, later = (embed_text(s, doc.title, doc.summary) for s in (spans[0], spans[-1]))
    assert first.split("\n")[:2] == ["# Embed files", doc.summary]  # after the title line
    assert "quokka" not in later and embed_text(spans[-1], doc.title) == later
    assert embed_text(spans[0], doc.title) == first.replace(doc.summary + "\n", "", 1)  # no summary: as before

    def lex(span):
        return lexical_text(LexicalDoc(row=1, span_id="s", path=doc.path, title=doc.title, headings=" / ".join(span.heading_path),
                                       body=span.text, tags=(), stage=None, workstream=None, source_type="note",
                                       summary=doc.summary if span.ordinal == 0 else ""))

    assert "quokka" in lex(spans[0]) and "quokka" not in lex(spans[-1])


def test_an_indexed_summary_is_searched_embedded_and_kept_in_step_with_its_edits(project, fake_embedder):
    from oriongraph_cli.store.generation import all_lexical_texts
    from oriongraph_cli.store.reader import IndexReader

    (project / NOTE).parent.mkdir(parents=True, exist_ok=True)
    (project / NOTE).write_text(_note("Show a quokka section of one note inside another."))
    cfg = load_config(project)
    index_project(cfg)
    assert any(t.startswith("# Embed files\nShow a quokka section") for t in fake_embedder.texts)

    def hits(word):
        reader = IndexReader(load_config(project), load_embedder=False)
        try:
            rows = [r for r, *_ in reader.lexical.search([word], 10)]
            assert rows == [r for r, *_ in reader.lexical.search_whoosh(word, 10)]  # the postings and Whoosh agree
            return rows, dict(all_lexical_texts(reader.registry))
        finally:
            reader.close()

    found, texts = hits("quokka")
    assert len(found) == 1 and "quokka" in texts[found[0]]  # the first span, and it alone
    assert sum("quokka" in t for t in texts.values()) == 1
    # the summary edited alone: the next run searches the new words, not the old
    (project / NOTE).write_text(_note("Show a wombat section of one note inside another."))
    index_project(load_config(project))
    assert hits("quokka")[0] == [] and len(hits("wombat")[0]) == 1
