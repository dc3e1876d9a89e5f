"""Text made safe to print (textsafe.py): what clean() escapes, clean_tree() finds with one
search, and text with nothing to escape stays the very same object."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from oriongraph_cli.textsafe import clean, clean_tree

_CHARS = st.one_of(st.characters(max_codepoint=0x250), st.sampled_from(["\u2028", "\u2029", "\ud800", "\udc9b", "\udfff", "\t", "\n"]))


@given(st.text(alphabet=_CHARS, max_size=12))
def test_clean_tree_changes_a_string_exactly_where_clean_does(text):
    out = clean_tree(text)
    assert out == clean(text)
    assert (out is text) == (clean(text) == text)


@dataclass(frozen=True)
class _Item:
    path: str
    text: str
    score: float


def test_a_tree_with_an_escape_is_copied_and_one_without_is_kept():
    plain = [_Item("a.md", "line one\n\tline two", 1.0)]
    assert clean_tree(plain) is plain
    hostile = [_Item("b\x1b]0;x\x07.md", "text\x1b[2J\n", 0.5), plain[0]]
    out = clean_tree(hostile)
    assert out[0].path == "b\\x1b]0;x\\x07.md" and out[0].text == "text\\x1b[2J\n" and out[1] is plain[0]
