"""What BM25 reads of a span: a word with a letter marked in brackets, as command cheat
sheets mark the option a letter stands for ("[c]reate", "e[x]tract"), is read as the word."""

from __future__ import annotations

import pytest

from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store.lexical import LexicalDoc, lexical_text


def _lex(body: str) -> str:
    return lexical_text(LexicalDoc(row=1, span_id="s", path="02_knowledge/tar.md", title="tar", headings="tar", body=body,
                                   tags=(), stage=None, workstream=None, source_type="note"))


@pytest.mark.parametrize("body, read", [
    ("- [c]reate an archive and write it to a [f]ile:", "- create an archive and write it to a file:"),
    ("- E[x]tract a g[z]ipped archive [v]erbosely", "- Extract a gzipped archive verbosely"),
    ("- [R]eveal a file in Finder", "- Reveal a file in Finder"),
    # no mark: an index, a task list, links, a type
    ("x = arr[i] + 1", "x = arr[i] + 1"),
    ("- [x] done\n- [ ] to do", "- [x] done\n- [ ] to do"),
    ("see [a](a.md) and [ab][ref] and [1]st", "see [a](a.md) and [ab][ref] and [1]st"),
    ("def f(x: list[str]) -> dict[str, int]", "def f(x: list[str]) -> dict[str, int]"),
    # code: Go's map types, Swift's optional parts
    ("the type `[]map[int]bool` and `[U]Int128`; [c]ompile it", "the type `[]map[int]bool` and `[U]Int128`; compile it"),
    ("```go\nm := map[K]V{}\n```\n- [l]ist", "```go\nm := map[K]V{}\n```\n- list"),
])
def test_a_word_with_marked_letters_is_read_as_the_word(body, read):
    assert read in _lex(body).split("\n", 1)[1]


def test_an_indexed_cheat_sheet_is_found_by_the_words_it_marks(project, fake_embedder):
    from oriongraph_cli.store.generation import all_lexical_texts
    from oriongraph_cli.store.reader import IndexReader

    note = project / "02_knowledge" / "tar.md"
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text("# tar\n\n> Archiving utility.\n\n- [c]reate a g[z]ipped archive from a directory:\n\n"
                    "`tar czf {{path/to/target.tar.gz}} {{path/to/directory}}`\n\n- E[x]tract an archive into a directory:\n\n"
                    "`tar xf {{path/to/source.tar}} --directory {{path/to/directory}}`\n")
    index_project(load_config(project))
    reader = IndexReader(load_config(project), load_embedder=False)
    try:
        tar = {row for row, text in all_lexical_texts(reader.registry) if text.startswith("tar\n")}
        assert tar
        for words in (["create", "gzipped"], ["extract"]):
            rows = [r for r, *_ in reader.lexical.search(words, 10)]
            assert rows[0] in tar and rows == [r for r, *_ in reader.lexical.search_whoosh(" ".join(words), 10)]
    finally:
        reader.close()
