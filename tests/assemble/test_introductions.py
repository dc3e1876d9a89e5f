"""A quote never ends on an introduction without what it introduces, nor begins with a
block without its introduction; a section's anchors do not trail the quote before it."""

from __future__ import annotations

from oriongraph_cli.assemble.introductions import INTRODUCED_MAX, INTRODUCTION_MAX
from oriongraph_cli.assemble.layout import layout
from oriongraph_cli.models import Compression, SpanRef, WSItem

PATH = "02_knowledge/tar.md"
SHEET = (
    "# tar\n\n> Archiving utility.\n\n"
    "- Create an archive and write it to a file:\n\n`tar cf path/to/target.tar path/to/file1`\n\n"
    "- Create a gzipped archive:\n\n`tar czf path/to/target.tar.gz path/to/file1`\n\n"
    "- Extract a compressed archive into a directory:\n\n`tar xf path/to/source.tar.gz -C path/to/dir`\n\n"
    "- List the contents of a tar file:\n\n`tar tvf path/to/source.tar`\n"
)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def span(text: str, a: int, b: int, rank: int = 1, sid: str = "s", **kw) -> WSItem:
    """A whole span of ``text[a:b]`` with its true line numbers."""
    ref = SpanRef("v", sid, a, b, 10, _line(text, a), _line(text, max(a, b - 1)))
    return WSItem(ref, PATH, None, text[a:b], rank, 0.1, **kw)


def quotes(text: str, *items: WSItem):
    return layout(list(items), {PATH: text}, {})[0].quotes


def lines_of(text: str, q) -> str:
    """The file's lines the quote says it shows."""
    return "\n".join(text.split("\n")[q.line_start - 1 : q.line_end])


def test_a_quote_ending_on_an_introduction_is_extended_through_the_short_block_it_introduces():
    a = SHEET.index("- Create a gzipped")
    b = SHEET.index("- Extract") + len("- Extract a compressed archive into a directory:")
    (q,) = quotes(SHEET, span(SHEET, a, b))
    assert q.text.endswith("- Extract a compressed archive into a directory:\n\n`tar xf path/to/source.tar.gz -C path/to/dir`")
    assert q.char_end == SHEET.index("`tar xf") + len("`tar xf path/to/source.tar.gz -C path/to/dir`")
    assert lines_of(SHEET, q) == SHEET[a:q.char_end]  # the line range covers what is shown


def test_a_quote_beginning_with_an_introduced_block_is_given_its_introduction():
    a = SHEET.index("`tar czf")
    b = SHEET.index("`tar xf") - 2
    (q,) = quotes(SHEET, span(SHEET, a, b))
    assert q.text.startswith("- Create a gzipped archive:\n\n`tar czf")
    assert q.char_start == SHEET.index("- Create a gzipped") and lines_of(SHEET, q).startswith("- Create a gzipped")
    # both ends at once: the quote holds whole pairs of description and command
    c = SHEET.index("- List") + len("- List the contents of a tar file:")
    (both,) = quotes(SHEET, span(SHEET, a, c))
    assert both.text.startswith("- Create a gzipped") and both.text.endswith("`tar tvf path/to/source.tar`")
    assert lines_of(SHEET, both) == SHEET[both.char_start:both.char_end]


def test_two_quotes_never_share_what_an_introduction_introduces():
    """The block after the first quote's introduction is the second quote's beginning: the
    first is not extended into it, and the second does not take the first's introduction."""
    x = SHEET.index("- Create a gzipped") + len("- Create a gzipped archive:")
    first = span(SHEET, SHEET.index("- Create an archive"), x, 1, "a")
    c = SHEET.index("`tar czf")
    second = span(SHEET, c + 4, SHEET.index("`tar xf") - 2, 2, "b")  # a later span, not adjacent
    q1, q2 = quotes(SHEET, first, second)
    assert q1.char_end <= q2.char_start
    assert q1.text.count("`tar czf") + q2.text.count("`tar czf") <= 1


def test_a_quote_introducing_a_block_too_long_to_bring_stays_as_it_is():
    """Before a long block the introduction stays: it often names what answers, and the
    reader has the lines to read the rest."""
    code = "\n".join(f"    step_{i}()" for i in range(60))
    text = f"# Setup\n\nThe service starts in two steps.\n\nFirst, run the bootstrap with `init()` like this:\n\n```py\n{code}\n```\n"
    assert len(code) > INTRODUCED_MAX
    a = text.index("The service")
    b = text.index("like this:") + len("like this:")
    (q,) = quotes(text, span(text, a, b))
    assert q.text == text[a:b] and (q.char_start, q.char_end) == (a, b)
    assert lines_of(text, q) == text[a:b]


def test_an_introduction_too_long_to_bring_is_left_out():
    intro = "Before the command, " + "a long explanation of the options and their defaults, " * 8 + "run:"
    assert len(intro) > INTRODUCTION_MAX
    text = f"# Run\n\n{intro}\n\n`make all`\n\nThen check the logs.\n"
    a = text.index("`make all`")
    (q,) = quotes(text, span(text, a, len(text) - 1))
    assert q.text.startswith("`make all`")


def test_code_headings_and_shortened_or_stale_quotes_are_left_as_they_are():
    fenced = "# Py\n\n```py\ndef handler(event):\n    return event\n```\n\nAfter.\n"
    a, b = fenced.index("def handler"), fenced.index("(event):") + len("(event):")
    (q,) = quotes(fenced, span(fenced, a, b))
    assert q.text == "```py\ndef handler(event):\n```" and q.char_end == b  # fenced as code, nothing added
    heading = "# Doc\n\nIntro text.\n\n## Usage:\n\nCall it.\n"
    (h,) = quotes(heading, span(heading, heading.index("Intro"), heading.index("## Usage:") + 9))
    assert h.char_end == heading.index("## Usage:") + 9  # a heading introduces a section, not a block
    a = SHEET.index("- Create a gzipped")
    b = SHEET.index("- Extract") + len("- Extract a compressed archive into a directory:")
    short = span(SHEET, a, b, compression=Compression("sentences", 30, 10, "orion show s"))
    assert quotes(SHEET, short)[0].char_end == b
    stale = span(SHEET, a, b, stale=True)
    assert quotes(SHEET, stale)[0].char_end == b


def test_the_anchors_of_the_next_section_do_not_trail_a_quote():
    for anchor in (".. _executing-custom-sql:", "(executing-custom-sql)=", '<a id="executing-custom-sql"></a>'):
        text = f"# SQL\n\nUse parameters, never string formatting.\n\n{anchor}\n\n## Executing custom SQL\n\nUse a cursor.\n"
        a = text.index("Use parameters")
        b = text.index(anchor) + len(anchor)
        (q,) = quotes(text, span(text, a, b))
        assert q.text == "Use parameters, never string formatting.", anchor
        assert lines_of(text, q) == q.text
    # a quote that is nothing but an anchor stays
    text = "# SQL\n\n.. _top:\n\n## Part\n\nBody.\n"
    a = text.index(".. _top:")
    assert quotes(text, span(text, a, a + 8))[0].text == ".. _top:"


def test_a_directive_whose_body_is_not_quoted_is_brought_when_short():
    text = "# Raw\n\nPass parameters as a list.\n\n.. warning::\n\n    Do not use string formatting on raw queries.\n\nMore.\n"
    a, b = text.index("Pass"), text.index(".. warning::") + len(".. warning::")
    (q,) = quotes(text, span(text, a, b))
    assert q.text.endswith(".. warning::\n\n    Do not use string formatting on raw queries.")


def test_an_introduction_the_quote_before_holds_part_of_is_not_given_again():
    """The paragraph of an introduction that the quote before ends inside is not repeated,
    and the line numbers stay those of the lines shown."""
    text = "# Run\n\nBuild first, then run the\ncommand below:\n\n`make run`\n\nDone.\n"
    a = text.index("Build")
    b = text.index("then run the") + len("then run the")
    c = text.index("`make run`")
    q1, q2 = quotes(text, span(text, a, b, 1, "a"), span(text, c, len(text) - 1, 2, "b"))
    assert q1.text == "Build first, then run the" and q2.text == "`make run`\n\nDone."
    assert [lines_of(text, q) for q in (q1, q2)] == ["Build first, then run the", "`make run`\n\nDone."]
    # without the quote before, the whole paragraph is the introduction
    (alone,) = quotes(text, span(text, c, len(text) - 1))
    assert alone.text.startswith("Build first, then run the\ncommand below:\n\n`make run`")
    assert lines_of(text, alone) == alone.text


def test_a_note_written_with_crlf_line_ends_is_mended_the_same_way():
    text = SHEET.replace("\n", "\r\n")
    a = text.index("- Create a gzipped")
    b = text.index("- Extract") + len("- Extract a compressed archive into a directory:")
    (q,) = quotes(text, span(text, a, b))
    assert q.text.endswith("directory:\r\n\r\n`tar xf path/to/source.tar.gz -C path/to/dir`")
    assert lines_of(text, q).replace("\r", "") == text[a:q.char_end].replace("\r", "")
