"""The lookup tables written with each generation: what they hold, that readers load them,
and that an index without them (or with another version's) gives the same compile."""

from __future__ import annotations

import pytest

from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.models import CompileRequest
from oriongraph_cli.render.json import compile_payload, dumps_compact
from oriongraph_cli.store import lookups
from oriongraph_cli.store.layout import Layout
from oriongraph_cli.store.manifest import Manifest


@pytest.fixture
def indexed(project, fake_embedder):
    cfg = load_config(project)
    api.index_project(cfg)
    return cfg


def _compiles(cfg) -> list[str]:
    reader = api.open_index(cfg)
    try:
        out = []
        for intent in ("why did we replace ADR-0003", "retry backoff for the ingestion worker", "design decisions on storage"):
            for budget in (400, 3000):
                req = CompileRequest(intent, budget_tokens=budget, explain=True, record_usage=False)
                out.append(dumps_compact(compile_payload(api.compile_workingset(req, cfg, reader), explain=True)))
        return out
    finally:
        reader.close()


def test_written_with_the_generation_and_checksummed(indexed):
    gen = Layout(indexed.index_dir).current_path()
    assert (gen / lookups.FILE).is_file()
    assert lookups.FILE in (Manifest.load(gen).checksums or {})
    reader = api.open_index(indexed, load_embedder=False)
    try:
        built = lookups.build(reader.registry)
        assert lookups.load(gen) == built
        assert reader.lookups == built
        docs = {d["path"]: d for d in reader.documents}
        assert [d["path"] for d in built.document_dicts()] == sorted(docs)
        for d in built.document_dicts():
            assert {k: docs[d["path"]][k] for k in lookups.DOC_FIELDS} == d
        assert built.span_counts == reader.registry.span_counts()
        assert built.workstreams == {d["workstream"] for d in docs.values() if d["workstream"]}
        assert built.tags == {t for d in docs.values() for t in d["tags"]}
        assert built.doc_keys == {d["doc_key"].lower() for d in docs.values() if d["doc_key"]}
        for stage, ids in built.stage_docs.items():
            assert ids == [d["id"] for d in reader.documents if d["stage"] == stage]
    finally:
        reader.close()


def _drop_lookups(cfg, replacement: bytes | None) -> None:
    """The current generation as an older version wrote it: without the file (or with
    ``replacement`` in its place), its manifest's checksums rewritten to match."""
    from dataclasses import replace

    from oriongraph_cli.store.layout import atomic_write, file_checksums

    gen = Layout(cfg.index_dir).current_path()
    if replacement is None:
        (gen / lookups.FILE).unlink()
    else:
        (gen / lookups.FILE).write_bytes(replacement)
    m = Manifest.load(gen)
    sums = {k: v for k, v in file_checksums(gen).items() if k in (m.checksums or {}) or k == lookups.FILE}
    atomic_write(gen / "manifest.json", replace(m, checksums=sums).to_bytes())


@pytest.mark.parametrize("replacement", [None, b'{"version": 0}', b"not json", b'{"version": 1, "documents": []}'])
def test_an_index_without_usable_tables_compiles_the_same(indexed, replacement):
    with_file = _compiles(indexed)
    _drop_lookups(indexed, replacement)
    gen = Layout(indexed.index_dir).current_path()
    assert lookups.load(gen) is None
    assert Layout(indexed.index_dir).problem(gen.name) is None  # still an intact generation
    assert _compiles(indexed) == with_file
    reader = api.open_index(indexed, load_embedder=False)
    try:
        assert reader.lookups == lookups.build(reader.registry)
    finally:
        reader.close()


def test_filters_and_hints_read_the_tables(indexed):
    """A stage hint and a --stage filter give what the documents' own fields say."""
    from oriongraph_cli.models import HardFilters

    reader = api.open_index(indexed)
    try:
        stages = sorted(reader.lookups.stages)
        assert stages
        req = CompileRequest("design notes", budget_tokens=2000, hard_filters=HardFilters(stages=(stages[0],)), record_usage=False)
        resp = api.compile_workingset(req, indexed, reader)
        docs = {d["path"]: d for d in reader.documents}
        assert resp.workingset.spans and all(docs[i.path]["stage"] == stages[0] for i in resp.workingset.spans)
    finally:
        reader.close()
    assert lookups.Lookups.from_bytes(b'{"version": 1}') is None


def _edits(root):
    """Edits that move every table: a body and section heading change, a new document with
    a new tag (twice), a new stage and front matter id, a removal, a rename, front matter
    changed in place."""
    worker = root / "03_workstreams/ws-ingestion/design/worker.md"
    yield lambda: worker.write_text(worker.read_text().replace("\n## ", "\n## Revised ", 1) + "\n\n### Retry storms\n\nLogged.\n")
    new = root / "02_knowledge/howto/backpressure.md"

    def add():
        new.parent.mkdir(parents=True, exist_ok=True)
        new.write_text("---\ntitle: Backpressure handling notes\nid: KB-0042\nstage: operations\ntags: [queue, queue, flowcontrol]\n"
                       "---\n\n# Backpressure\n\n## When queues grow\n\nSlow the polling.\n\n## Fusing signals\n\nOne score.\n")
    yield add
    yield lambda: (root / "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md").unlink()
    yield lambda: (root / "02_knowledge/research/bm25.md").rename(root / "02_knowledge/research/bm25-tuning.md")
    yield lambda: new.write_text(new.read_text().replace("stage: operations", "stage: research").replace("KB-0042", "KB-0043"))
    glossary = root / "01_context/glossary.md"
    yield lambda: glossary.write_text(glossary.read_text().replace("title: Glossary", "title: Project glossary of terms", 1))


def _assert_tables_as_built(cfg) -> None:
    """The current generation's tables file holds what building them from its registry gives."""
    gen = Layout(cfg.index_dir).current_path()
    reader = api.open_index(cfg, load_embedder=False)
    try:
        assert (gen / lookups.FILE).read_bytes() == lookups.build(reader.registry).to_bytes()
    finally:
        reader.close()


def test_an_updated_generation_writes_the_tables_a_build_gives(project, fake_embedder, monkeypatch):
    """Each generation built on another updates the base's tables with the changed
    documents only; the file equals what building them from its registry writes."""
    calls = []
    real = lookups.update
    monkeypatch.setattr(lookups, "update", lambda *a: calls.append(1) or real(*a))
    cfg = load_config(project)
    api.index_project(cfg)
    for edit in _edits(project):
        edit()
        got = api.index_project(cfg)
        assert not got.nothing_changed
        _assert_tables_as_built(cfg)
    assert len(calls) == 6  # every run above updated; none rebuilt the tables


def test_a_process_that_indexes_again_updates_the_tables_it_kept(project, fake_embedder, monkeypatch):
    """With a kept model (``orion serve``, ``orion watch``) each run updates the tables the
    last one wrote without parsing the file again, and writes what a build gives; tables
    another writer wrote in between are parsed, not mistaken for the kept ones."""
    from oriongraph_cli.store.embed import KeptEmbedder

    monkeypatch.setattr(lookups, "_WRITTEN", None)
    parsed = []
    real = lookups.Lookups.from_bytes.__func__
    monkeypatch.setattr(lookups.Lookups, "from_bytes", classmethod(lambda cls, data: parsed.append(1) or real(cls, data)))
    cfg = load_config(project)
    kept = KeptEmbedder()
    api.index_project(cfg, embedder_source=kept)
    for n, edit in enumerate(list(_edits(project))):
        edit()
        parsed.clear()
        if n == 3:  # another writer (a run of its own, keeping nothing) indexes this edit
            api.index_project(cfg)
            continue
        api.index_project(cfg, embedder_source=kept)
        assert parsed == ([1] if n == 4 else [])
        _assert_tables_as_built(cfg)
    gen = Layout(cfg.index_dir).current_path()
    assert lookups._WRITTEN is not None and lookups._WRITTEN[0] == (gen / lookups.FILE).read_bytes()


def test_kept_tables_are_taken_once_and_only_for_their_bytes(tmp_path):
    """A kept table is handed over once (an update changes it in place), and only to a
    load of the very bytes it was written as."""
    tables = lookups.Lookups({f: [] for f in lookups.DOC_FIELDS}, {}, {}, {}, {}, {}, {}, {}, {}, {})
    data = tables.to_bytes()
    (tmp_path / lookups.FILE).write_bytes(data)
    lookups.keep_written(data, tables)
    try:
        assert lookups.load(tmp_path) is not tables  # not asked for: parsed
        assert lookups.load(tmp_path, take_kept=True) is tables
        assert lookups.load(tmp_path, take_kept=True) is not tables  # taken: update changes them in place
        lookups.keep_written(data, tables)
        (tmp_path / lookups.FILE).write_bytes(data.replace(b'"version"', b' "version"'))
        got = lookups.load(tmp_path, take_kept=True)
        assert got is not tables and got == tables and lookups._WRITTEN is None
    finally:
        lookups._WRITTEN = None


def test_the_ids_a_file_name_or_title_gives_are_keys_as_front_matter_ids_are(project, fake_embedder):
    """A decision record named ``adr-040-….md`` or a proposal titled "MSC2290: …" in
    ``2290-….md`` has no front matter id; the link graph knows it by that id, and so do the
    structural channel's keys: an intent naming it is a hint, and the reason names the id."""
    from oriongraph_cli import api
    from oriongraph_cli.rank import signals

    (project / "02_knowledge" / "adr-040-storage.md").write_text("# Storage and commitments\n\nA sparse merkle tree.\n")
    (project / "02_knowledge" / "2290-bind.md").write_text("# MSC2290: Separate endpoints\n\nTwo endpoints.\n")
    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    try:
        by_key = reader.lookups.by_key
        assert {"adr-040", "msc2290", "adr-0007"} <= set(by_key)
        named = signals.from_index(CompileRequest(intent="was ADR-040 replaced, and what does MSC2290 say?"), reader)
        assert named.struct_hints.doc_ids == ("ADR-040", "MSC2290")
        resp = api.compile_workingset(CompileRequest(intent="was ADR-040 replaced?", record_usage=False, explain=True), cfg, reader)
        reasons = [r for s in resp.workingset.spans if s.path == "02_knowledge/adr-040-storage.md" for r in s.reasons]
        assert "document id ADR-040 named in the intent" in reasons
    finally:
        reader.close()
