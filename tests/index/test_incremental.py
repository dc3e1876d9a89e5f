"""An incrementally updated index equals a full rebuild of the same files: after each of a
sequence of edits (body edit, a link target added, removal, rename, a heading an anchor
points at, a title a wiki link names, a file outside the index appearing), the registry,
the link graph (with the resolution dependencies), the BM25 postings and the Whoosh
documents of `orion index` equal those of `orion index --full` on a copy.

(An updated registry numbers a changed document's rows after the others where a rebuilt
one numbers them by path, so rows are compared through span ids here; the working sets
both compile are compared in test_incremental_ranking.py.)"""

from __future__ import annotations

import functools
import json
import os
import shutil
import time as real_time
from pathlib import Path

import pytest
from conftest import PINNED_MTIME

from oriongraph_cli.config import load_config
from oriongraph_cli.index import indexer
from oriongraph_cli.store import postings
from oriongraph_cli.store.layout import Layout, atomic_write, file_checksums
from oriongraph_cli.store.manifest import MANIFEST, Manifest
from oriongraph_cli.store.registry import Registry

POSTMORTEM = "04_artifacts/postmortem-2025-10-retry-storm.md"
RUNBOOK = "02_knowledge/howto/retry-storm-runbook.md"  # the postmortem links to it; absent in the sample
WORKER = "03_workstreams/ws-ingestion/design/worker.md"
RANKING = "03_workstreams/ws-search/design/ranking.md"
ADR3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
BM25 = "02_knowledge/research/bm25.md"


class _FixedTime:
    """``time`` for the indexer with one build time, so both indexes share their "now"."""

    perf_counter = staticmethod(real_time.perf_counter)

    @staticmethod
    def time() -> float:
        return 1_800_000_000.0


def _summed_tokens(root: Path) -> int:
    """The current generation's spans' token costs, summed row by row."""
    reg = Registry.open(Layout(root / ".oriongraph").current_path() / "registry.sqlite")
    try:
        return reg.conn.execute("SELECT sum(token_cost) FROM spans").fetchone()[0]
    finally:
        reg.close()


def _rows(reg: Registry, sql: str) -> list:
    return sorted(tuple(r) for r in reg.conn.execute(sql))


def snapshot(root: Path) -> dict:
    """Everything an index holds, independent of registry row numbers and of build order."""
    gen = Layout(root / ".oriongraph").current_path()
    reg = Registry.open(gen / "registry.sqlite")
    try:
        sid = dict(reg.conn.execute("SELECT id, span_id FROM spans"))
        snap = {
            "documents": _rows(reg, "SELECT path, doc_version_id, title, source_type, workstream, stage, status, priority, doc_key, "
                                    "created_at, tags, meta, body_start, n_spans FROM documents"),
            "spans": _rows(reg, "SELECT span_id, path, ordinal, char_start, char_end, line_start, line_end, token_cost, "
                                "heading_path, heading_level, text, embed_hash, vector FROM spans"),
            "headings": _rows(reg, "SELECT d.path, h.level, h.title, h.heading_path, s.span_id FROM headings h "
                                   "JOIN documents d ON d.id = h.doc LEFT JOIN spans s ON s.id = h.span"),
            "edges": _rows(reg, "SELECT src_path, coalesce(src_span, ''), dst_path, coalesce(dst_span, ''), type, detail, coalesce(line, -1) FROM edges"),
            "dangling": _rows(reg, "SELECT path, coalesce(line, -1), target, kind FROM dangling_links"),
            "refs": _rows(reg, "SELECT path, coalesce(span_id, ''), coalesce(line, -1), kind, target, coalesce(anchor, '') FROM link_refs"),
            "deps": _rows(reg, "SELECT path, key FROM link_deps"),
        }
    finally:
        reg.close()
    arr, meta = postings.logical_arrays(gen / postings.DIR)
    terms = postings._vocab_terms(arr)
    per_term = {}
    for t, term in enumerate(terms):
        lo, hi = int(arr["ptr"][t]), int(arr["ptr"][t + 1])
        per_term[term] = sorted((sid[int(r)], int(f), int(b)) for r, f, b in zip(arr["rows"][lo:hi], arr["tf"][lo:hi], arr["lb"][lo:hi]))
    snap["postings"] = per_term
    snap["doc_len"] = sorted((sid[int(r)], int(n)) for r, n in zip(arr["doc_rows"], arr["doc_len"]))
    snap["postings_meta"] = {k: meta[k] for k in ("docs", "total_length", "terms", "postings")}
    from whoosh import index as windex

    ix = windex.open_dir(str(gen / "lexical"), indexname="spans", readonly=True)
    with ix.searcher() as s:
        snap["whoosh"] = sorted((f["span_id"], f["path"]) for f in s.all_stored_fields())
    ix.close()
    return snap


def _pin_mtimes(root: Path) -> None:
    """Every file dated as the sample is (recency then does not depend on when a step ran)."""
    for p in root.rglob("*"):
        if p.is_file() and ".oriongraph" not in p.parts:
            os.utime(p, (PINNED_MTIME, PINNED_MTIME))


def _write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def _edit_body(root: Path) -> None:
    p = root / WORKER
    p.write_text(p.read_text() + "\n\nThe worker also logs every retry storm it detects, with the tenant and queue depth.\n")


def _add_link_target(root: Path) -> None:
    # the unchanged postmortem links to this path: its dangling link must resolve
    _write(root, RUNBOOK, "---\ntitle: Retry storm runbook\ntags: [runbook]\n---\n\n# Retry storm runbook\n\n"
           "## Detect\n\nWatch queue depth; see [ADR-0007](../../03_workstreams/ws-ingestion/99_decisions/"
           "ADR-0007-exponential-backoff-with-jitter.md) and ADR-0003.\n\n## Mitigate\n\nPause the backfill; "
           "see the [[glossary]] and the [ranking design](../../03_workstreams/ws-search/design/ranking.md#fusion).\n")


def _remove_linked(root: Path) -> None:
    (root / ADR3).unlink()  # several unchanged documents name and link it


def _rename(root: Path) -> None:
    (root / BM25).rename(root / "02_knowledge/research/bm25-tuning.md")  # linked by path from unchanged documents


def _retitle_heading(root: Path) -> None:
    p = root / RANKING  # the runbook links to its #fusion section: the anchor now dangles
    text = p.read_text()
    assert "\n### 4. Fusion" in text
    p.write_text(text.replace("\n### 4. Fusion", "\n### 4. Rank fusion", 1))


def _retitle_glossary(root: Path) -> None:
    p = root / "01_context/glossary.md"  # [[glossary]] names it by stem: still resolves; its title terms change
    text = p.read_text()
    assert "title: Glossary" in text
    p.write_text(text.replace("title: Glossary", "title: Project glossary", 1))


def _file_outside_index(root: Path) -> None:
    _write(root, "02_knowledge/howto/diagram.md", "# Diagram\n\n![queue](img/queue.png) and [notes](../notes/missing.md)\n")


def _image_appears(root: Path) -> None:
    (root / "02_knowledge/howto/img").mkdir(parents=True, exist_ok=True)
    (root / "02_knowledge/howto/img/queue.png").write_bytes(b"\x89PNG\r\n")  # the link is no longer dangling
    _edit_body(root)  # (a run that finds no indexed file changed builds nothing)


STEPS = [_edit_body, _add_link_target, _remove_linked, _rename, _retitle_heading, _retitle_glossary, _file_outside_index, _image_appears]


@pytest.fixture
def resolved(monkeypatch):
    """The documents whose references each index run resolved (one set per run)."""
    from oriongraph_cli.graph import edges

    runs: list[set[str]] = []
    real = edges.resolve_refs

    def counting(refs, resolver, deps=None):
        refs = list(refs)
        runs.append({r.path for r in refs})
        return real(refs, resolver, deps)

    monkeypatch.setattr(edges, "resolve_refs", counting)
    return runs


def _documents_with_refs(root: Path) -> set[str]:
    reg = Registry.open(Layout(root / ".oriongraph").current_path() / "registry.sqlite")
    try:
        return {r[0] for r in reg.conn.execute("SELECT DISTINCT path FROM link_refs")}
    finally:
        reg.close()


@pytest.mark.parametrize("caps", [None, (1, 0.05)], ids=["default caps", "one user per term"])
def test_incremental_index_equals_full_rebuild(project, fake_embedder, monkeypatch, tmp_path, resolved, caps):
    from oriongraph_cli.graph import edges

    monkeypatch.setattr(indexer, "time", _FixedTime)
    if caps is not None:  # DEFINES' caps biting: each term keeps its one most frequent user
        monkeypatch.setattr(edges, "rebuild_edges", functools.partial(edges.rebuild_edges, max_per_term=caps[0], max_df=caps[1]))
    targeted: list = []  # what each run's DEFINES update did (None: chosen again from every term)
    update = edges._update_defines
    monkeypatch.setattr(edges, "_update_defines", lambda *a, **k: targeted.append(update(*a, **k)) or targeted[-1])
    cfg = load_config(project)
    indexer.index_project(cfg)
    resolved_again = []
    for step in STEPS:
        step(project)
        _pin_mtimes(project)
        resolved.clear()
        targeted.clear()
        got = indexer.index_project(cfg)
        assert resolved, f"{step.__name__}: nothing resolved ({got.nothing_changed=}, {got.updated_documents=})"
        assert targeted and targeted[0] is not None, f"{step.__name__}: DEFINES chosen again for every term"
        resolved_again.append(resolved[0])
        assert not got.nothing_changed and got.rebuild_reason is None, step.__name__
        full = tmp_path / f"full-{step.__name__}"
        shutil.copytree(project, full, symlinks=True)
        ref = indexer.index_project(load_config(full), full=True)
        assert ref.rebuild_reason == "--full"
        a, b = snapshot(project), snapshot(full)
        for key in a:
            assert a[key] == b[key], f"{step.__name__}: {key} differs from a full rebuild"
        assert got.edges == ref.edges and got.dangling_links == ref.dangling_links, step.__name__
        # the token total is carried from generation to generation, never summed again: it
        # must stay the sum of the spans' costs
        assert (got.documents, got.spans, got.tokens) == (ref.documents, ref.spans, ref.tokens), step.__name__
        assert got.tokens == _summed_tokens(project), step.__name__
        # the rebuild names every dangling link; the run, those of what it indexed or left dangling
        assert ref.dangling_links == sum(w["kind"] == "dangling-link" for w in ref.warnings), step.__name__
        assert all(w in ref.warnings for w in got.warnings), step.__name__
    # the graph resolved only what each change could touch, never every document with links
    every = _documents_with_refs(project)
    assert all(len(r) < len(every) for r in resolved_again), [sorted(r) for r in resolved_again]
    # a body edit: its own references, those that point at it and links to files outside the index
    assert WORKER in resolved_again[0] and len(resolved_again[0]) <= len(every) // 2, sorted(resolved_again[0])
    assert POSTMORTEM in resolved_again[1]  # its link to the added runbook now resolves


def test_graph_dependencies_of_an_older_generation_are_rebuilt(project, fake_embedder, resolved):
    """A registry whose link_deps are not marked current (built by a version that did not
    keep them) is resolved in full, then incrementally again."""
    cfg = load_config(project)
    indexer.index_project(cfg)
    gen = Layout(project / ".oriongraph").current_path()
    reg = Registry.create(gen / "registry.sqlite")
    reg.conn.execute("DELETE FROM link_deps")
    reg.set_info("link_deps_of", None)
    reg.commit()
    reg.close()
    manifest = Manifest.load(gen)
    atomic_write(gen / MANIFEST, manifest.__class__(**{**manifest.__dict__, "checksums": file_checksums(gen)}).to_bytes())
    every = _documents_with_refs(project)
    _edit_body(project)
    resolved.clear()
    first = indexer.index_project(cfg)
    assert first.repaired is None and resolved[0] == every  # everything, once
    _add_link_target(project)
    resolved.clear()
    indexer.index_project(cfg)
    assert len(resolved[0]) < len(every)
    full = project.parent / "full"
    shutil.copytree(project, full, symlinks=True)
    indexer.index_project(load_config(full), full=True)
    a, b = snapshot(project), snapshot(full)
    assert (a["edges"], a["dangling"], a["deps"]) == (b["edges"], b["dangling"], b["deps"])


def _defines_both_ways(root: Path, tmp: Path, max_per_term: int, max_df: float) -> tuple[list, list]:
    """DEFINES of the current generation from the match tables (SQL) and from the pure rule."""
    from oriongraph_cli.graph import edges
    from oriongraph_cli.graph.extract import SpanInfo
    from oriongraph_cli.graph.resolve import LinkResolver
    from oriongraph_cli.graph.terms import collect_terms, defines_edges

    copy = tmp / f"registry-{max_per_term}.sqlite"
    shutil.copyfile(Layout(root / ".oriongraph").current_path() / "registry.sqlite", copy)
    reg = Registry.create(copy)
    try:
        terms = collect_terms(LinkResolver.from_registry(reg))
        outline = reg.span_outline()
        texts = reg.span_texts([sid for _p, sid, _o in outline])
        spans = [SpanInfo(p, sid, o, (), 0, texts[sid]) for p, sid, o in outline]
        pure = defines_edges(terms, spans, n_spans=len(spans), max_per_term=max_per_term, max_df=max_df)
        stored = edges._cached_defines(reg, terms, max_per_term=max_per_term, max_df=max_df)
        return sorted(pure), sorted(stored)
    finally:
        reg.close()


def test_defines_from_the_match_tables_equal_the_pure_rule(project, fake_embedder, tmp_path):
    """The per-term choice made in SQL over the stored matches gives the edges of
    graph.terms.defines_edges, with its caps biting (few users per term, a low
    document-frequency limit), before and after an edit that reuses the stored matches."""
    cfg = load_config(project)
    indexer.index_project(cfg)
    for step in (None, _edit_body, _add_link_target):
        if step is not None:
            step(project)
            indexer.index_project(cfg)
        for max_per_term, max_df in ((20, 0.05), (2, 0.01), (1, 0.002)):
            pure, stored = _defines_both_ways(project, tmp_path, max_per_term, max_df)
            assert pure == stored, (step, max_per_term, max_df)
        assert pure, "the sample defines terms"


def test_defines_after_random_edits_equal_a_rebuild(project, fake_embedder, monkeypatch, tmp_path):
    """Fourteen seeded random edits that move terms about — notes added with short titles
    (some naming glossary terms), titles changed, sentences using other documents' titles
    appended, notes removed — and after each, the DEFINES edges of `orion index` (the
    targeted update) equal those of `orion index --full` on a copy, with the caps biting."""
    import random

    from oriongraph_cli.graph import edges

    monkeypatch.setattr(indexer, "time", _FixedTime)
    monkeypatch.setattr(edges, "rebuild_edges", functools.partial(edges.rebuild_edges, max_per_term=2, max_df=0.1))
    rng = random.Random(20261128)
    words = ["retry storm", "backoff", "jitter", "tenant", "ranking", "queue depth", "worker", "ingestion"]
    cfg = load_config(project)
    indexer.index_project(cfg)
    notes: list[Path] = []
    for step in range(14):
        kind = rng.choice(["add", "add", "retitle", "append", "remove"] if notes else ["add"])
        if kind == "add":
            title = rng.choice([rng.choice(words), " ".join(rng.sample(words, 2))]).title()
            p = project / "02_knowledge" / f"note-{step}.md"
            p.write_text(f"---\ntitle: {title}\n---\n\n# {title}\n\nAbout the {rng.choice(words)} and the {rng.choice(words)}.\n")
            notes.append(p)
        elif kind == "retitle":
            p = rng.choice(notes)
            text = p.read_text()
            old = text.split("\n")[1]
            p.write_text(text.replace(old, f"title: {rng.choice(words).title()}", 1))
        elif kind == "append":
            p = rng.choice(notes + [project / WORKER])
            p.write_text(p.read_text() + f"\n\nSee {rng.choice(words)}, {rng.choice(words)} and {rng.choice(words)}.\n")
        else:
            p = notes.pop(rng.randrange(len(notes)))
            p.unlink()
        _pin_mtimes(project)
        indexer.index_project(cfg)
        full = tmp_path / f"full-{step}"
        shutil.copytree(project, full, symlinks=True)
        indexer.index_project(load_config(full), full=True)
        got = [e for e in snapshot(project)["edges"] if e[4] == "DEFINES"]
        want = [e for e in snapshot(full)["edges"] if e[4] == "DEFINES"]
        assert got == want, (step, kind)
        shutil.rmtree(full)



@pytest.mark.parametrize("holder_text, label_line", [
    ("See @ref docs_howto_xref-target and @ref xref_anchor for the details.", "## Labelled section {{#xref_anchor}}"),
    ("See :doc:`/howto/xref-target` and :ref:`xref_anchor` for the details.", ".. _xref_anchor:\n\n## Labelled section"),
], ids=["doxygen", "sphinx"])
def test_cross_references_resolve_incrementally_as_a_full_rebuild_does(project, fake_embedder, monkeypatch, resolved,
                                                                        holder_text, label_line):
    """A cross-reference (Doxygen's ``@ref``, Sphinx's ``:doc:`` and ``:ref:``) in an
    unchanged page names a page added later, a heading id or label written later in another
    page, and nothing once that page is removed: each run resolves the page holding it again,
    and the index equals a full rebuild after every step."""
    monkeypatch.setattr(indexer, "time", _FixedTime)
    holder, target = "02_knowledge/howto/xref-holder.md", "02_knowledge/howto/xref-target.md"
    _write(project, holder, f"# Cross-references\n\n{holder_text}\n")
    _pin_mtimes(project)
    cfg = load_config(project)
    indexer.index_project(cfg)
    long = " ".join(f"Sentence {i} about the retry budget of the ingestion worker and its queue." for i in range(30))

    def add_target(root):
        _write(root, target, f"# Cross-reference target\n\n{long}\n")

    def add_label(root):
        p = root / WORKER
        p.write_text(p.read_text() + "\n\n" + label_line.format() + f"\n\n{long}\n")

    def remove_target(root):
        (root / target).unlink()

    expected = [{target}, {target, WORKER}, {WORKER}]
    for n, step in enumerate((add_target, add_label, remove_target)):
        step(project)
        _pin_mtimes(project)
        resolved.clear()
        indexer.index_project(cfg)
        assert holder in resolved[0], step.__name__  # resolved again though it did not change
        full = project.parent / f"full-xref-{n}"
        shutil.copytree(project, full, symlinks=True)
        indexer.index_project(load_config(full), full=True)
        a, b = snapshot(project), snapshot(full)
        for key in a:
            assert a[key] == b[key], f"{step.__name__}: {key} differs from a full rebuild"
        reg = Registry.open(Layout(project / ".oriongraph").current_path() / "registry.sqlite")
        try:
            dst = {r[0] for r in reg.conn.execute("SELECT dst_path FROM edges WHERE src_path = ? AND type = 'REF'", (holder,))}
        finally:
            reg.close()
        assert dst == expected[n], step.__name__


def test_a_pep_role_resolves_incrementally_by_the_id_it_names(project, fake_embedder, monkeypatch, resolved):
    """``:pep:`N``` looks up one id: a page holding only such roles is resolved again when the
    PEP it names is added, not on every run, and the index equals a full rebuild."""
    holder, pep = "02_knowledge/howto/pep-roles.md", "01_context/pep-0042-feature-requests.md"
    _write(project, holder, "# PEP roles\n\nAs :pep:`42` and :pep:`the style guide <8>` say.\n")
    assert _named_later(project, monkeypatch, resolved, holder, pep,
                        "---\nid: PEP-0042\n---\n# PEP 42 – Feature Requests\n\nA list of feature requests.\n", "REF") == {pep}


def test_a_successor_named_by_series_and_number_resolves_incrementally(project, fake_embedder, monkeypatch, resolved):
    """"Status: Abandoned (in favor of SEP-6)" names ``sep-0006.md`` of the same folder: when
    that file is added later, the abandoned record is resolved again, and the index equals a
    full rebuild."""
    folder = "02_knowledge/ecosystem"
    old, new = f"{folder}/sep-0026.md", f"{folder}/sep-0006.md"
    head = "## Preamble\n\n```\nSEP: {n}\nTitle: {title}\nStatus: {status}\n```\n\n## Summary\n\n{title}.\n"
    _write(project, old, head.format(n="0026", title="Non-interactive transfer", status="Abandoned (in favor of SEP-6)"))
    assert _named_later(project, monkeypatch, resolved, old, new,
                        head.format(n="0006", title="Deposit and withdrawal", status="Active"), "SUPERSEDED_BY") == {new}


def _named_later(project, monkeypatch, resolved, holder: str, target: str, target_text: str, edge_type: str) -> set[str]:
    """``holder`` (written) names ``target``, which does not exist yet: an index, an edit
    elsewhere that must not resolve ``holder`` again, then ``target`` added, which must; the
    index then equals a full rebuild. The paths ``holder``'s ``edge_type`` edges lead to."""
    monkeypatch.setattr(indexer, "time", _FixedTime)
    _pin_mtimes(project)
    cfg = load_config(project)
    indexer.index_project(cfg)
    _edit_body(project)
    _pin_mtimes(project)
    resolved.clear()
    indexer.index_project(cfg)
    assert holder not in resolved[0]  # an edit elsewhere touches no name it gives
    _write(project, target, target_text)
    _pin_mtimes(project)
    resolved.clear()
    indexer.index_project(cfg)
    assert holder in resolved[0]
    full = project.parent / f"full-{Path(target).stem}"
    shutil.copytree(project, full, symlinks=True)
    indexer.index_project(load_config(full), full=True)
    a, b = snapshot(project), snapshot(full)
    for key in a:
        assert a[key] == b[key], key
    reg = Registry.open(Layout(project / ".oriongraph").current_path() / "registry.sqlite")
    try:
        return {r[0] for r in reg.conn.execute("SELECT dst_path FROM edges WHERE src_path = ? AND type = ?", (holder, edge_type))}
    finally:
        reg.close()
