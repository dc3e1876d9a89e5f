"""What a process that indexes many times (`orion serve`, `orion watch`) asks of the
indexer: to be told what a run will do before it does anything (``admit``), and to bring
its own kept model (``embedder_source``, ``store.embed.KeptEmbedder``)."""

from __future__ import annotations

import pytest

from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import Planned, index_project
from oriongraph_cli.store.embed import KeptEmbedder
from oriongraph_cli.store.layout import Layout

WORKER = "03_workstreams/ws-ingestion/design/worker.md"
ADR3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
BM25 = "02_knowledge/research/bm25.md"


class Declined(Exception):
    pass


def _state(root) -> tuple:
    d = root / ".oriongraph"
    return ((d / "CURRENT").read_text(), sorted(p.name for p in (d / "gen").iterdir()),
            sorted(p.name for p in (d / "staging").iterdir()) if (d / "staging").exists() else [])


def test_admit_is_told_the_plan_and_a_refusal_leaves_the_index_as_it_was(project, fake_embedder):
    seen: list[Planned] = []

    def record(planned):
        seen.append(planned)

    index_project(load_config(project), admit=record)
    assert seen == [Planned("first index", False, seen[0].files, 0)] and seen[0].files > 40
    (project / WORKER).write_text((project / WORKER).read_text() + "\nA new paragraph on retries.\n")
    (project / BM25).write_text((project / BM25).read_text() + "\nAnother line.\n")
    (project / ADR3).unlink()
    before = _state(project)
    calls = fake_embedder.calls

    def decline(planned):
        seen.append(planned)
        raise Declined()

    with pytest.raises(Declined):
        index_project(load_config(project), admit=decline)
    assert seen[-1] == Planned(None, False, 2, 1)
    assert _state(project) == before and fake_embedder.calls == calls  # nothing embedded, written or left behind
    r = index_project(load_config(project), admit=record)
    assert seen[-1] == Planned(None, False, 2, 1) and r.updated_documents == 2 and r.removed_documents == 1
    with pytest.raises(Declined):  # --full is said before any file is read
        index_project(load_config(project), full=True, admit=decline)
    assert seen[-1].rebuild == "--full" and seen[-1].files == r.documents
    nothing = index_project(load_config(project), admit=record)
    assert nothing.nothing_changed and seen[-1] == Planned(None, False, 0, 0)


def test_a_kept_model_is_loaded_once_and_again_only_when_it_would_differ(project, counting_loader, monkeypatch):
    loads = counting_loader
    kept = KeptEmbedder()
    index_project(load_config(project), embedder_source=kept)
    for i in range(3):
        (project / WORKER).write_text((project / WORKER).read_text() + f"\nRevision {i}.\n")
        r = index_project(load_config(project), embedder_source=kept)
        assert r.embedded_spans >= 1
    assert loads == ["index"] and kept.loads == 1
    monkeypatch.setenv("ORION_EMBED_THREADS", "3")  # another thread count: loaded again, as a fresh run would
    (project / WORKER).write_text((project / WORKER).read_text() + "\nRevision 4.\n")
    index_project(load_config(project), embedder_source=kept)
    assert loads == ["index", "index"] and kept.loads == 2


def test_an_edit_that_embeds_nothing_loads_no_kept_model(project, fake_embedder):
    kept = KeptEmbedder()
    index_project(load_config(project))
    text = (project / WORKER).read_text()
    (project / WORKER).write_text(text.replace("---\n", "---\ntags: [kept]\n", 1) if text.startswith("---\n") else text + "\n")
    index_project(load_config(project), embedder_source=kept)
    assert kept.loads == 0
    assert Layout(project / ".oriongraph").current() is not None


def test_a_process_that_indexes_again_keeps_the_link_graphs_document_rows(project, fake_embedder, monkeypatch):
    """With a kept model the indexer knows the process runs again: the graph phase keeps
    what the document rows gave for the next run; a run of its own keeps nothing, and both
    build the same edges."""
    from oriongraph_cli.graph import resolve, terms
    from oriongraph_cli.store.registry import Registry

    monkeypatch.setattr(resolve, "_READ_ROWS", ({}, None))
    monkeypatch.setattr(resolve, "_LAST_REGISTRY", None)  # kept with _READ_ROWS, whose keys are its rows
    monkeypatch.setattr(terms, "_OWN_TERMS", {})
    index_project(load_config(project))
    (project / WORKER).write_text((project / WORKER).read_text() + "\nA first revision.\n")
    index_project(load_config(project))
    assert resolve._READ_ROWS == ({}, None) and terms._OWN_TERMS == {}

    def edges() -> set:
        reg = Registry.open(Layout(project / ".oriongraph").current_path() / "registry.sqlite")
        try:
            return set(reg.conn.execute("SELECT src_span, dst_span, type, detail FROM edges"))
        finally:
            reg.close()

    kept = KeptEmbedder()
    for i in range(2):
        (project / WORKER).write_text((project / WORKER).read_text() + f"\nKept revision {i}.\n")
        index_project(load_config(project), embedder_source=kept)
    rows, names = resolve._READ_ROWS
    assert len(rows) > 40 and names is not None and terms._OWN_TERMS
    with_kept = edges()
    index_project(load_config(project), full=True)
    assert edges() == with_kept


def test_a_process_that_indexes_again_reads_only_the_changed_documents_rows(project, fake_embedder, monkeypatch):
    """With a kept model, a run built on the generation the last run wrote reads the link
    rows and first spans of the documents it changed only, and what it then holds equals a
    whole read of its registry; after a generation another writer made, it reads them all."""
    from oriongraph_cli.graph import resolve
    from oriongraph_cli.store.registry import Registry

    monkeypatch.setattr(resolve, "_READ_ROWS", ({}, None))
    monkeypatch.setattr(resolve, "_LAST_REGISTRY", None)
    whole = []
    real_info, real_first = Registry.document_links_info, Registry.first_span_ids
    monkeypatch.setattr(Registry, "document_links_info", lambda self, paths=None: whole.append(paths is None) or real_info(self, paths))
    monkeypatch.setattr(Registry, "first_span_ids", lambda self, paths=None: whole.append(paths is None) or real_first(self, paths))

    def current() -> tuple[set, dict]:
        reg = Registry.open(Layout(project / ".oriongraph").current_path() / "registry.sqlite")
        try:
            return set(real_info(reg)), real_first(reg)
        finally:
            reg.close()

    kept = KeptEmbedder()
    cfg = load_config(project)
    index_project(cfg, embedder_source=kept)
    new = project / "02_knowledge/howto/backpressure.md"
    edits = [
        lambda: (project / WORKER).write_text("---\ntitle: Worker, retitled\nid: DES-WORKER\n---\n\nA new first span.\n"),
        lambda: new.parent.mkdir(parents=True, exist_ok=True) or new.write_text("---\ntitle: Backpressure\naliases: [flow control]\n---\n\nSlow down.\n"),
        lambda: (project / ADR3).unlink(),
        lambda: (project / BM25).rename(project / "02_knowledge/research/bm25-tuning.md"),
    ]
    for edit in edits:
        edit()
        whole.clear()
        index_project(cfg, embedder_source=kept)
        assert whole and not any(whole)  # only the changed documents' rows were read
        rows, first = resolve._READ_ROWS[0], resolve._LAST_REGISTRY[1]
        assert (set(rows), first) == current()
    (project / BM25).write_text("---\ntitle: BM25 again\n---\n\nBack.\n")
    index_project(cfg)  # another writer: its generation is not the one kept
    (project / WORKER).write_text((project / WORKER).read_text() + "\nOne more line.\n")
    whole.clear()
    index_project(cfg, embedder_source=kept)
    assert whole.count(True) == 2  # both read whole (the changed rows are read before the graph phase too)
    assert (set(resolve._READ_ROWS[0]), resolve._LAST_REGISTRY[1]) == current()


def test_a_kept_run_checks_the_terms_of_the_documents_it_read_again_only(project, fake_embedder, monkeypatch, tmp_path):
    """A run built on the last kept read checks only the documents it read again for the
    terms they define (a body edit: the last term list with the edited document's terms on
    its new first span); a glossary's edited heading and a new title each take the whole
    list again. After each step that used the kept list, and at the end, the stored edges
    are those a process that kept nothing builds on a copy of the project."""
    import shutil

    from oriongraph_cli.graph import resolve, terms
    from oriongraph_cli.store.registry import Registry

    monkeypatch.setattr(resolve, "_READ_ROWS", ({}, None))
    monkeypatch.setattr(resolve, "_LAST_REGISTRY", None)
    monkeypatch.setattr(terms, "_OWN_TERMS", {})
    monkeypatch.setattr(terms, "_LAST_TERMS", None)
    monkeypatch.setattr(terms, "_TERMS_OF", None)
    answered: list[bool] = []
    real = terms._kept_list
    monkeypatch.setattr(terms, "_kept_list", lambda r: answered.append((got := real(r)) is not None) or got)

    def edges(root) -> set:
        reg = Registry.open(Layout(root / ".oriongraph").current_path() / "registry.sqlite")
        try:
            return set(reg.conn.execute("SELECT src_span, dst_span, type, detail FROM edges"))
        finally:
            reg.close()

    def fresh_copy_edges(n: int) -> set:
        copy = tmp_path / f"copy{n}"
        shutil.copytree(project, copy, ignore=shutil.ignore_patterns(".oriongraph"))
        index_project(load_config(copy))
        return edges(copy)

    kept, cfg = KeptEmbedder(), load_config(project)
    index_project(cfg, embedder_source=kept)
    glossary = project / "01_context/glossary.md"
    steps = [
        (lambda: (project / WORKER).write_text((project / WORKER).read_text() + "\nA body edit.\n"), [True]),
        (lambda: glossary.write_text(glossary.read_text().replace("### Idempotency Key", "### Deduplication Key", 1)), [False]),
        (lambda: (project / BM25).write_text((project / BM25).read_text().replace("title:", "title: Okapi scoring,", 1)), [False]),
        (lambda: (project / WORKER).write_text((project / WORKER).read_text() + "\nAnother body edit.\n"), [True]),
        (lambda: glossary.write_text(glossary.read_text() + "\nA closing remark under the last term.\n"), [True]),
        (lambda: (project / "02_knowledge/howto/backpressure.md").write_text("---\ntitle: Backpressure\n---\n\nSlow down.\n"), []),  # one document more: the whole list
    ]
    for n, (edit, expected) in enumerate(steps):
        edit()
        answered.clear()
        index_project(cfg, embedder_source=kept)
        assert answered == expected
        if expected == [True] or n == len(steps) - 1:  # the kept list used, and at the end
            assert edges(project) == fresh_copy_edges(n)
    defined = {t.text for t in terms._LAST_TERMS}
    assert "Deduplication Key" in defined and "Idempotency Key" not in defined
