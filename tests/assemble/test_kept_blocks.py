"""The index keeps the headings and code blocks of each note with fenced code, and a compile
reads them instead of parsing the note again: the same working set, without the parse."""

from __future__ import annotations

import json
import sqlite3

import pytest

from oriongraph_cli import api, blocks
from oriongraph_cli.config import load_config
from oriongraph_cli.blocks import front_matter_end
from oriongraph_cli.render import render_text
from oriongraph_cli.store import reader as reader_mod

STEPS = "\n".join(f"# step {i}: configure widget {i}\nrun_tool --widget {i} --mode fast" for i in range(90))
NOTES = {
    "02_knowledge/deploy.md": f"---\ntitle: Deploy script\n---\n# Deploy script\n\nHow we deploy billing.\n\n```bash\n{STEPS}\n```\n\n## Rollback\n\nRerun with the previous tag.\n",
    "02_knowledge/tilde.md": "# Tilde fences\n\n- a list item\n  ~~~python\n  print('widget 12')\n  ~~~\n\nSetext title\n============\n\nMore about widget 12.\n",
    "02_knowledge/plain.md": "# Owners\n\nThe payments team owns the billing service and widget 12.\n",
    "02_knowledge/table.md": "# Widget settings\n\n| Setting | Meaning |\n|---|---|\n"
                             + "".join(f"| `widget_{i}` | what widget {i} does when billing runs |\n" for i in range(60)),
}


@pytest.fixture
def indexed(tmp_path, fake_embedder):
    root = tmp_path / "proj"
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    cfg = load_config(root)
    api.index_project(cfg)
    return cfg


def _compile(cfg, intent, budget, fmt="markdown"):
    reader = api.open_index(cfg)
    try:
        resp = api.compile_workingset(api.build_request(cfg, intent, budget=budget, record_usage=False, deliver=(fmt,)), cfg, reader)
        return render_text(resp, fmt)
    finally:
        reader.close()


def test_the_index_keeps_the_blocks_of_the_notes_with_fenced_code(indexed):
    reader = api.open_index(indexed)
    try:
        kept = reader.blocks_of(list(NOTES))
    finally:
        reader.close()
    assert set(kept) == {"02_knowledge/deploy.md", "02_knowledge/tilde.md", "02_knowledge/table.md"}  # plain.md: nothing a compile would parse for
    for rel, found in kept.items():
        text = NOTES[rel]
        assert found == blocks.read_blocks(text, front_matter_end(text))
    assert kept["02_knowledge/tilde.md"].fences[0].opener == "~~~python"


def test_a_compile_reads_the_kept_blocks_and_delivers_what_parsing_would(indexed, monkeypatch):
    intents = [("configure widget 77 with run_tool", 500), ("widget 12", 300), ("rollback the deploy", 2000), ("what widget_51 does", 400)]
    parsed = {}
    for intent, budget in intents:
        for fmt in ("markdown", "xml"):
            blocks.read_blocks.cache_clear()
            with monkeypatch.context() as m:
                m.setattr(reader_mod.IndexReader, "blocks_of", lambda self, paths: {})
                parsed[intent, fmt] = _compile(indexed, intent, budget, fmt)
    assert "```bash\n# step" in parsed["configure widget 77 with run_tool", "markdown"]  # a quote from inside the fence
    assert "| Setting | Meaning |\n|---|---|\n| `widget_4" in parsed["what widget_51 does", "markdown"]  # one from among a table's rows

    def no_parse():
        raise AssertionError("a note was parsed at compile time")

    # (a quote holding a fence is read as delivered, by its own parser, to close a fence it
    # would leave open: a few hundred characters, not the note)

    blocks.read_blocks.cache_clear()
    monkeypatch.setattr(blocks, "_parser", no_parse)
    for (intent, fmt), want in parsed.items():
        budget = dict(intents)[intent]
        assert _compile(indexed, intent, budget, fmt) == want


def test_a_restructuredtext_note_is_quoted_as_restructuredtext(tmp_path, fake_embedder):
    """A Sphinx page (``.rst``) with sections adorned by backticks and tildes: indexed by its
    section titles, quoted without a fence around its prose (a line of backticks is an
    adornment), its titles as quoted headings; the same with or without kept blocks."""
    body = "\n\n".join(f"Paragraph {i} explains how the retry queue drains stale jobs and why." for i in range(12))
    page = ("=============\nRetry handling\n=============\n\nIntro.\n\nDraining the queue\n``````````````````\n\n" + body
            + "\n\nExample::\n\n    queue.drain(stale=True)\n\nBackoff rules\n~~~~~~~~~~~~~\n\n" + body.replace("drains", "backs off"))
    root = tmp_path / "proj"
    (root / "02_knowledge").mkdir(parents=True)
    (root / "02_knowledge/retry.rst").write_text(page)
    cfg = load_config(root)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    try:
        paths = {tuple(json.loads(r[3])) for r in reader.registry.document_outline("02_knowledge/retry.rst")}
    finally:
        reader.close()
    assert ("Retry handling", "Draining the queue") in paths and ("Retry handling", "Draining the queue", "Backoff rules") in paths
    outs = []
    for kept in (True, False):
        with pytest.MonkeyPatch.context() as m:
            if not kept:
                m.setattr(reader_mod.IndexReader, "blocks_of", lambda self, paths: {})
            outs.append(_compile(cfg, "how does the retry queue drain stale jobs", 300))
    assert outs[0] == outs[1]
    out = outs[0]
    assert "Paragraph" in out and "```" not in out and "~~~~" not in out, out


def test_a_registry_written_before_blocks_were_kept_has_none(tmp_path):
    """An older generation (no ``blocks`` table) gives no kept blocks; the compile then
    parses the note, as the test above checks with none given."""
    from oriongraph_cli.store.registry import Registry

    conn = sqlite3.connect(tmp_path / "old.sqlite")
    conn.execute("CREATE TABLE documents(id INTEGER PRIMARY KEY, path TEXT)")
    conn.execute("INSERT INTO documents(path) VALUES('02_knowledge/deploy.md')")
    assert Registry(conn).blocks_of(["02_knowledge/deploy.md"]) == {}


def test_an_edited_note_keeps_its_new_blocks_and_a_removed_one_none(indexed):
    """The kept blocks follow the note: an edit replaces them (they are the reading the new
    spans were cut from), a fence removed drops them, a note removed takes them along."""
    root = indexed.root
    (root / "02_knowledge/tilde.md").write_text("# Tilde fences\n\nNo code any more.\n")
    edited = NOTES["02_knowledge/deploy.md"].replace("## Rollback", "## Roll back\n\n```sh\ndeploy --previous\n```")
    (root / "02_knowledge/deploy.md").write_text(edited)
    (root / "02_knowledge/gone.md").write_text("# Gone\n\n```\nx\n```\n")
    api.index_project(indexed)
    (root / "02_knowledge/gone.md").unlink()
    api.index_project(indexed)
    reader = api.open_index(indexed)
    try:
        kept = reader.blocks_of(["02_knowledge/deploy.md", "02_knowledge/tilde.md", "02_knowledge/gone.md"])
        assert set(kept) == {"02_knowledge/deploy.md"}
        assert kept["02_knowledge/deploy.md"] == blocks.read_blocks(edited, front_matter_end(edited))
        assert reader.registry.conn.execute("SELECT count(*) FROM blocks").fetchone()[0] == 2  # deploy.md, table.md: no row left behind
    finally:
        reader.close()


def test_blocks_find_the_heading_and_the_code_block_holding_an_offset():
    """``heading_at`` and ``code_at`` answer by bisection what a scan of every heading or
    code block would: each offset of a note, setext headings and indented code included."""
    from oriongraph_cli.blocks import read_blocks

    text = "# One\n\ntext\n\nTwo\n===\n\n    indented code\n\n```sh\nls\n```\n\n## Three\nend\n"
    blocks = read_blocks(text)
    assert len(blocks.headings) == 3 and len(blocks.code) == 2
    for offset in range(len(text) + 1):
        head = next((h for h in blocks.headings if h.start <= offset < h.content_start), None)
        code = next(((s, e) for s, e in blocks.code if s <= offset < e), None)
        assert blocks.heading_at(offset) == head and blocks.code_at(offset) == code, offset
        assert blocks.in_code(offset) == (code is not None)
