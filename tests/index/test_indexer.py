"""The index pipeline with a fake embedder: incremental runs, deletions, renames, model
change, bad input, strictness, generations and the writer lock."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading

import pytest

from oriongraph_cli.config import load_config
from oriongraph_cli.errors import IndexBusyError, NotAProjectError, StrictError
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store.layout import Layout
from oriongraph_cli.store.reader import IndexReader

WORKER = "03_workstreams/ws-ingestion/design/worker.md"


def consistent(root) -> dict:
    """Registry rows, Whoosh docs and FAISS vectors agree; no ghost paths."""
    reader = IndexReader(load_config(root), load_embedder=False)
    try:
        counts = reader.registry.counts()
        assert counts["spans"] == reader.lexical.doc_count() == reader.vectors.ntotal
        paths = {d["path"] for d in reader.documents}
        span_paths = {r[0] for r in reader.registry.conn.execute("SELECT DISTINCT path FROM spans")}
        assert span_paths <= paths
        return {"paths": paths, **counts}
    finally:
        reader.close()


def test_a_run_that_changes_nothing_imports_no_numpy(project, fake_embedder):
    """What a pre-commit hook runs most: `orion index` with nothing changed reads the files'
    stat keys and the manifest and stops; it loads neither numpy nor a model, nor asyncio
    for its lock."""
    import subprocess
    import sys

    index_project(load_config(project))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "oriongraph_cli", "index", "--root", str(project)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "nothing changed" in proc.stdout.lower() + proc.stderr.lower(), proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "oriongraph_cli.index.indexer" in imported
    assert not {m for m in imported if m.split(".")[0] in ("numpy", "onnxruntime", "tiktoken", "whoosh", "faiss", "filelock", "asyncio", "orjson")}


def test_a_run_that_changes_files_does_not_load_numpys_masked_arrays(project, fake_embedder, monkeypatch):
    """``numpy.unique`` asks ``numpy.ma`` whether its input is masked, and the first ask
    imports the masked-array module (10-18 ms of a pre-commit hook's one-file run): a run
    that edits, removes and adds notes never asks."""
    import numpy.ma

    cfg = load_config(project)
    index_project(cfg)
    asked = []
    monkeypatch.setattr(numpy.ma, "is_masked", lambda *a: asked.append(1) or False)
    worker = project / WORKER
    worker.write_text(worker.read_text() + "\n\nOne more paragraph about retry storms.\n")
    sorted((project / "02_knowledge").rglob("*.md"))[0].unlink()
    (project / "02_knowledge" / "new_note.md").write_text("# Quokka notes\n\nQuokkas smile.\n")
    r = index_project(cfg)
    assert r.updated_documents == 1 and r.removed_documents == 1 and r.added_documents == 1
    assert asked == []
    consistent(project)


def test_a_run_verifies_the_generation_it_builds_on_once(project, fake_embedder, monkeypatch):
    """The base generation is verified once a run (its manifest parsed, its files
    checked); removing old generations keeps the one just verified or just written
    without verifying it again. Older generations beyond the kept ones still go."""
    from oriongraph_cli.store.layout import Layout

    cfg = load_config(project)
    index_project(cfg)
    checked = []
    real = Layout.problem
    monkeypatch.setattr(Layout, "problem", lambda self, gen, **kw: checked.append(gen) or real(self, gen, **kw))
    r = index_project(cfg)
    assert r.nothing_changed and checked == [r.generation]
    worker = project / WORKER
    gens = []
    for n in range(3):
        worker.write_text(worker.read_text() + f"\n\nEdit number {n}.\n")
        checked.clear()
        r = index_project(cfg)
        assert checked == [r.previous_generation]
        gens.append(r.generation)
    kept = sorted(p.name for p in (cfg.index_dir / "gen").iterdir())
    assert kept == sorted(gens[-cfg.keep_generations:]) and Layout(cfg.index_dir).current() == gens[-1]


def test_first_index_then_nothing_changed(project, fake_embedder):
    cfg = load_config(project)
    r1 = index_project(cfg)
    assert r1.generation == "000001" and r1.documents == 49 and r1.spans > 100
    assert r1.embedded_spans == r1.spans and r1.rebuild_reason == "first index"
    calls = fake_embedder.calls
    r2 = index_project(cfg)
    assert r2.nothing_changed and r2.embedded_spans == 0 and r2.generation == "000001"
    assert fake_embedder.calls == calls
    d = r2.to_dict()
    for key in ("documents", "spans", "embedded_spans", "removed_documents", "warnings", "generation", "schema_version"):
        assert key in d
    consistent(project)


def test_a_file_added_beside_the_notes_resolves_the_links_to_it(project, fake_embedder, tmp_path):
    """An image or PDF added to (or removed from) a stage folder changes no note, but the
    links to it: the next run looks those links up again — nothing parsed or embedded —, the
    index then holds what a build from the files holds, and `orion status` says so before.
    A hidden file changes nothing."""
    from oriongraph_cli.graph import edges as graph_edges
    from oriongraph_cli.index.status import project_status
    from oriongraph_cli.index.walk import OtherFiles, walk

    note = "02_knowledge/diagram-note.md"
    (project / note).write_text("---\ntitle: Diagram note\n---\n# Diagram note\n\n![[flow.png]]\n\nAnd [the spec](spec.pdf).\n")
    cfg = load_config(project)

    def dangling(root=project) -> set[str]:
        reader = IndexReader(load_config(root), load_embedder=False)
        try:
            return {d.target for d in graph_edges.dangling(reader.registry) if d.path == note}
        finally:
            reader.close()

    index_project(cfg)
    assert dangling() == {"[[flow.png]]", "spec.pdf"}
    (project / "02_knowledge/.DS_Store").write_bytes(b"x")
    assert project_status(cfg)["up_to_date"] and index_project(cfg).nothing_changed
    digests = set()
    for _ in range(2):  # the walk's order is fixed: the same files, the same digest
        others = OtherFiles()
        walk(project, others)
        digests.add((others.digest(), others.count))
    assert len(digests) == 1
    (project / "02_knowledge/assets").mkdir()
    (project / "02_knowledge/assets/flow.png").write_bytes(b"PNG")
    (project / "02_knowledge/spec.pdf").write_bytes(b"%PDF")
    st = project_status(cfg)
    assert st["other_files_changed"] and not st["up_to_date"] and not any(st["stale"].values())
    calls = fake_embedder.calls
    r = index_project(cfg)
    assert not r.nothing_changed and r.other_files_changed and r.embedded_spans == 0 and r.updated_documents == 0
    assert fake_embedder.calls == calls and dangling() == set()
    assert project_status(cfg)["up_to_date"] and index_project(cfg).nothing_changed
    full = tmp_path / "full"
    shutil.copytree(project, full, ignore=shutil.ignore_patterns(".oriongraph"))
    index_project(load_config(full))
    assert dangling(full) == set()
    (project / "02_knowledge/assets/flow.png").unlink()
    r = index_project(cfg)
    assert r.other_files_changed and dangling() == {"[[flow.png]]"}
    assert any("flow.png" in w["message"] for w in r.warnings)  # a link that dangles now is told
    consistent(project)


def test_an_index_resolved_by_other_link_rules_has_its_links_resolved_again_once(project, fake_embedder, monkeypatch):
    """An index whose links an older orion resolved gets them resolved by today's rules on
    its next run, though no file changed — nothing re-parsed or embedded — and only once."""
    from oriongraph_cli import graph
    from oriongraph_cli.index import indexer

    page = project / "02_knowledge/howto/queue-runbook.md"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text("---\ntitle: Queue runbook\n---\n# Queue runbook\n\nDrain the queue first.\n")
    worker = project / WORKER
    worker.write_text(worker.read_text() + "\nSee [the runbook](/manual/queue-runbook.html).\n")
    cfg = load_config(project)
    monkeypatch.setattr(graph, "LINK_RULES", 1)  # the generation an older orion wrote
    r1 = index_project(cfg)
    manifest = json.loads((project / ".oriongraph/gen" / r1.generation / "manifest.json").read_text())
    assert manifest["link_rules"] == 1
    monkeypatch.setattr(graph, "LINK_RULES", 2)
    calls = fake_embedder.calls
    r2 = indexer.index_project(cfg)
    assert not r2.nothing_changed and r2.relinked == "link rules changed (1 -> 2)" and r2.rebuild_reason is None
    assert r2.generation == "000002" and r2.embedded_spans == 0 and r2.updated_documents == 0 and fake_embedder.calls == calls
    assert r2.edges == r1.edges and r2.documents == r1.documents
    r3 = indexer.index_project(cfg)
    assert r3.nothing_changed and r3.relinked is None
    reader = IndexReader(cfg, load_embedder=False)
    try:
        from oriongraph_cli.graph import edges as graph_edges

        out = graph_edges.edges_for(reader.registry, WORKER, "out")["out"]
        assert any(e.dst_path == "02_knowledge/howto/queue-runbook.md" and e.type == "REF" for e in out)
    finally:
        reader.close()
    consistent(project)


def test_one_edit_reembeds_only_changed_spans(project, fake_embedder):
    cfg = load_config(project)
    r1 = index_project(cfg)
    path = project / WORKER
    path.write_text(path.read_text() + "\n## Appendix\n\nA brand new closing section about quotas.\n")
    fake_embedder.texts.clear()
    r2 = index_project(cfg)
    assert r2.updated_documents == 1 and r2.added_documents == 0 and r2.removed_documents == 0
    assert 1 <= r2.embedded_spans <= 2, r2.embedded_spans
    assert all("quotas" in t or "Appendix" in t for t in fake_embedder.texts)
    assert r2.generation == "000002" and r2.spans >= r1.spans
    consistent(project)


def test_delete_and_rename_leave_no_ghosts(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    gone = "02_knowledge/research/bm25.md"
    (project / gone).unlink()
    old = project / "01_context/glossary.md"
    new = project / "01_context/terms.md"
    os.rename(old, new)
    fake_embedder.texts.clear()
    r = index_project(cfg)
    assert r.removed_documents == 2 and r.added_documents == 1
    assert r.embedded_spans == 0, "a renamed file's spans reuse their vectors"
    state = consistent(project)
    assert gone not in state["paths"] and "01_context/glossary.md" not in state["paths"]
    assert "01_context/terms.md" in state["paths"]
    reader = IndexReader(cfg, load_embedder=False)
    try:
        hits = reader.lexical.search(["okapi", "bm25"], 50)
        assert all(reader.rows([row])[row].meta.filepath != gone for row, _s, _m in hits)
    finally:
        reader.close()


def test_model_change_forces_reembed(project, fake_embedder, monkeypatch):
    cfg = load_config(project)
    r1 = index_project(cfg)
    monkeypatch.setenv("ORION_MODEL", "BAAI/bge-small-en-v1.5")
    cfg2 = load_config(project)
    r2 = index_project(cfg2)
    assert r2.rebuild_reason.startswith("embedding model changed")
    assert r2.embedded_spans == r1.spans


def test_full_rebuilds(project, fake_embedder):
    cfg = load_config(project)
    r1 = index_project(cfg)
    r2 = index_project(cfg, full=True)
    assert r2.rebuild_reason == "--full" and r2.embedded_spans == r1.spans and r2.generation == "000002"


def test_bad_inputs_warn_and_never_stop_the_run(project, fake_embedder):
    k = project / "02_knowledge"
    (k / "binary.md").write_bytes(b"# x\x00\x01\x02")
    (k / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (k / "empty.md").write_bytes(b"")
    (k / "huge.md").write_bytes(b"# big\n" + b"word " * 500_000)
    (k / "bom.md").write_bytes(b"\xef\xbb\xbf---\ntitle: Bom\n---\r\n# Bom\r\n\r\nwindows line endings\r\n")
    (k / "badyaml.md").write_text("---\ntitle: [unclosed\n---\n# Still indexed\n\nbody text here\n")
    os.symlink("/etc", k / "escape")
    r = index_project(load_config(project))
    kinds = r.warning_counts()
    assert kinds == {"binary": 1, "dangling-link": 2, "empty": 1, "encoding": 1, "symlink-escape": 1, "too-large": 1, "yaml": 1}
    assert r.skipped_files == 5
    state = consistent(project)
    assert "02_knowledge/bom.md" in state["paths"] and "02_knowledge/badyaml.md" in state["paths"]
    assert all(w["path"].startswith("02_knowledge/") for w in r.warnings if w["kind"] != "dangling-link")


def test_a_run_warns_of_the_dangling_links_it_found_not_again_of_every_one(project, fake_embedder):
    """A one-file run (a pre-commit hook's) names the dangling links of the files it indexed
    and those it left dangling (a page removed), not again every one an untouched file has
    held since before; it counts them all, and --strict still judges them all."""
    k = project / "02_knowledge"
    (k / "target.md").write_text("# Target\n\nThe page others link to.\n")
    (k / "linker.md").write_text("# Linker\n\nSee [the target](target.md) and [a gap](missing.md).\n")
    cfg = load_config(project)
    dangling = lambda r: sorted((w["path"], w["message"]) for w in r.warnings if w["kind"] == "dangling-link")  # noqa: E731
    first = index_project(cfg)
    assert len(dangling(first)) == first.dangling_links == 3  # the sample's two, linker's gap: a first run names all
    (project / WORKER).write_text((project / WORKER).read_text() + "\nOne more line.\n")
    edit = index_project(cfg)
    assert dangling(edit) == [] and edit.dangling_links == 3
    (k / "target.md").unlink()
    removed = index_project(cfg)
    assert dangling(removed) == [("02_knowledge/linker.md", "dangling link → target.md")] and removed.dangling_links == 4
    (k / "linker.md").write_text((k / "linker.md").read_text() + "\nStill here.\n")
    touched = index_project(cfg)  # the file indexed: its own dangling links again, nothing else
    assert dangling(touched) == [("02_knowledge/linker.md", "dangling link → missing.md"),
                                 ("02_knowledge/linker.md", "dangling link → target.md")]
    (project / WORKER).write_text((project / WORKER).read_text() + "\nAnd another.\n")
    with pytest.raises(StrictError) as err:
        index_project(cfg, strict=True)
    assert len([w for w in err.value.warnings if w["kind"] == "dangling-link"]) == 4


def test_strict_fails_and_changes_nothing(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    (project / "02_knowledge" / "bad.md").write_bytes(b"\xff\xfe")
    (project / WORKER).write_text("# changed\n\nnew body\n")
    with pytest.raises(StrictError):
        index_project(cfg, strict=True)
    assert Layout(cfg.index_dir).current() == "000001"


def test_file_turning_bad_keeps_its_indexed_version(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    (project / WORKER).write_bytes(b"\x00binary now")
    r = index_project(cfg)
    assert WORKER in consistent(project)["paths"]
    assert r.kept_previous == 1 and "previous indexed version kept" in json.dumps(r.warnings)


def test_not_a_project(tmp_path, fake_embedder):
    with pytest.raises(NotAProjectError):
        index_project(load_config(tmp_path))


def test_generations_pruned_and_orphans_removed(project, fake_embedder):
    cfg = load_config(project)
    layout = Layout(cfg.index_dir)
    index_project(cfg)
    orphan = layout.staging_dir / "000009.12345"
    orphan.mkdir(parents=True)
    (orphan / "junk").write_text("x")
    for i in range(3):
        (project / "02_knowledge" / f"n{i}.md").write_text(f"# note {i}\n\nbody {i}\n")
        index_project(cfg)
    assert not orphan.exists()
    assert layout.generations() == ["000003", "000004"]
    assert (layout.dir / ".gitignore").exists() and (layout.dir / "CACHEDIR.TAG").exists()


def test_broken_current_falls_back_to_newest_verified(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    (project / "02_knowledge" / "n.md").write_text("# n\n\nbody\n")
    index_project(cfg)
    layout = Layout(cfg.index_dir)
    layout.current_file.write_text("garbage\n")
    assert layout.current() == "000002"
    shutil.rmtree(layout.gen_dir / "000002" / "lexical")
    (layout.gen_dir / "000002" / "manifest.json").write_text("{truncated")
    assert layout.current() == "000001"


def test_a_reader_reads_the_manifest_it_verified_once(project, fake_embedder, monkeypatch):
    """Opening an index verifies the current generation against its manifest; the reader
    keeps that manifest (a generation never changes once complete) instead of parsing the
    file a second time, and it is the one on disk."""
    from oriongraph_cli.store import manifest as manifest_mod

    cfg = load_config(project)
    index_project(cfg)
    loads = []
    real = manifest_mod.Manifest.load.__func__
    monkeypatch.setattr(manifest_mod.Manifest, "load", classmethod(lambda cls, path: loads.append(path) or real(cls, path)))
    reader = IndexReader(cfg, load_embedder=False)
    try:
        assert len(loads) == 1 and reader.manifest == real(manifest_mod.Manifest, reader.path)
    finally:
        reader.close()


def test_second_writer_waits_then_reports_busy(project, fake_embedder):
    cfg = load_config(project, lock_timeout=0.2)
    layout = Layout(cfg.index_dir)
    held = threading.Event()
    release = threading.Event()

    def holder():
        with layout.writer_lock(5):
            held.set()
            release.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    held.wait(5)
    try:
        with pytest.raises(IndexBusyError) as err:
            index_project(cfg)
        assert err.value.exit_code == 75 and "--lock-timeout" in err.value.hint
    finally:
        release.set()
        t.join()


def test_stat_fast_path_still_detects_same_size_edits(project, fake_embedder):
    """Files whose size and mtime match the manifest are not re-read; any edit that touches
    the mtime is re-hashed, including one that keeps the size."""
    cfg = load_config(project)
    index_project(cfg)
    path = project / WORKER
    text = path.read_text()
    os.utime(path, ns=(1, 1))  # an old timestamp: outside the racy window
    r = index_project(cfg)  # stat changed, content did not: re-hashed, nothing to do
    assert r.generation == "000002" or r.nothing_changed
    head, word, tail = text.rpartition(" the ")  # a body word (not front matter)
    swapped = head + " THE " + tail
    assert len(swapped) == len(text) and swapped != text
    path.write_text(swapped)
    r = index_project(cfg)
    assert r.updated_documents == 1 and r.embedded_spans >= 1


# ---------------------------------------------------------------- the tokenizer loads only to count

_NO_CHANGE = """
import sys
from oriongraph_cli.cli import app
try:  # the CLI's own app, as `orion index` runs it (main() would leave with os._exit)
    app(args=["index", "--root", sys.argv[1], "--json"], prog_name="orion", standalone_mode=True)
    code = 0
except SystemExit as exc:
    code = exc.code
import json
print(json.dumps({"code": code, "tiktoken": "tiktoken" in sys.modules, "onnxruntime": "onnxruntime" in sys.modules}))
"""


def _index_in_subprocess(root):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _NO_CHANGE, str(root)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    *payload, last = proc.stdout.strip().splitlines()
    return json.loads("\n".join(payload)), json.loads(last)


def test_a_no_change_index_never_loads_tiktoken_or_the_model(project, fake_embedder):
    first = index_project(load_config(project))
    assert first.tokenizer.startswith("tiktoken:")
    result, seen = _index_in_subprocess(project)
    assert seen == {"code": 0, "tiktoken": False, "onnxruntime": False}
    assert result["nothing_changed"] and result["tokenizer"] == first.tokenizer
    assert not result["rebuild_reason"]


def test_a_changed_file_still_counts_with_tiktoken(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    (project / WORKER).write_text((project / WORKER).read_text() + "\n\nOne more paragraph about retries.\n")
    from oriongraph_cli import tokens

    tokens.get_counter.cache_clear()
    r = index_project(cfg)
    assert r.updated_documents == 1 and r.tokenizer.startswith("tiktoken:")
    assert tokens.get_counter.cache_info().currsize == 1  # loaded, to count the changed file
    reader = IndexReader(cfg, load_embedder=False)
    try:
        assert reader.manifest.tokenizer == r.tokenizer
    finally:
        reader.close()


def test_an_index_counted_by_the_heuristic_is_rebuilt_once_tiktoken_loads(project, fake_embedder, monkeypatch):
    from oriongraph_cli import tokens

    cfg = load_config(project)
    tokens.get_counter.cache_clear()
    monkeypatch.setattr(tokens.TiktokenCounter, "__init__", lambda self, enc="": (_ for _ in ()).throw(ImportError("no tiktoken")))
    first = index_project(cfg)
    assert first.tokenizer == "heuristic:bytes4" and any(w["kind"] == "tokenizer" for w in first.warnings)
    monkeypatch.undo()
    from oriongraph_cli.store import embed

    monkeypatch.setattr(embed, "load_embedder", lambda cfg, kind="index": fake_embedder)
    tokens.get_counter.cache_clear()
    again = index_project(cfg)
    assert again.tokenizer.startswith("tiktoken:") and again.rebuild_reason.startswith("tokenizer changed")
    tokens.get_counter.cache_clear()


def test_an_edit_that_embeds_nothing_never_loads_the_model(project, fake_embedder, monkeypatch):
    """Front matter edited (no span's embedding text changes): the changed document is
    re-indexed with its cached vectors and the model is not loaded; a body edit loads it."""
    from oriongraph_cli.index import indexer

    cfg = load_config(project)
    index_project(cfg)
    loads = []
    real = indexer._load_index_embedder
    monkeypatch.setattr(indexer, "_load_index_embedder", lambda c: loads.append(1) or real(c))
    text = (project / WORKER).read_text()
    assert text.startswith("---\n")
    (project / WORKER).write_text("---\nowner: someone-new\n" + text[4:])
    r = index_project(cfg)
    assert r.updated_documents == 1 and r.embedded_spans == 0 and r.reused_vectors > 0
    assert loads == []
    (project / WORKER).write_text((project / WORKER).read_text() + "\n\nA new paragraph about retry budgets.\n")
    r = index_project(cfg)
    assert r.embedded_spans >= 1 and loads == [1]


def test_a_build_reads_each_file_again_to_parse_it(project, fake_embedder, monkeypatch):
    """A build from the files keeps only each file's hash until it parses it: what is parsed
    is the file as it is then, and the manifest records that version (never a hash of
    other bytes than the registry holds); a file gone by then is left out with a warning."""
    import hashlib

    from oriongraph_cli.index import indexer

    worker, gone = project / WORKER, sorted((project / "02_knowledge").rglob("*.md"))[0]
    read = indexer._read_project

    def read_then_edit(cfg, files, scan, full, loader, progress):
        read(cfg, files, scan, full, loader, progress)
        assert all(data is None for _f, data, _t, _m in scan.contents.values())  # nothing held
        worker.write_text(worker.read_text() + "\n## Late section\n\nWritten while the run was parsing.\n")
        gone.unlink()

    monkeypatch.setattr(indexer, "_read_project", read_then_edit)
    cfg = load_config(project)
    r = index_project(cfg)
    rel_gone = gone.relative_to(project).as_posix()
    assert any(w["path"] == rel_gone and w["skipped"] for w in r.warnings) and r.skipped_files == 1
    gen = Layout(cfg.index_dir).current_path()
    files = json.loads((gen / "manifest.json").read_text())["files"]
    assert files[WORKER] == hashlib.sha256(worker.read_bytes()).hexdigest()
    assert rel_gone not in files
    info = consistent(project)
    assert rel_gone not in info["paths"] and WORKER in info["paths"]
    reader = IndexReader(cfg, load_embedder=False)
    try:
        texts = [r[0] for r in reader.registry.conn.execute("SELECT text FROM spans WHERE path = ?", (WORKER,))]
    finally:
        reader.close()
    assert any("Written while the run was parsing" in t for t in texts)
    monkeypatch.setattr(indexer, "_read_project", read)
    again = index_project(cfg)
    assert again.nothing_changed  # the recorded versions are the files' own


def test_an_interrupt_right_after_the_build_directory_exists_removes_it(project, fake_embedder, monkeypatch):
    """Ctrl-C or SIGTERM (a KeyboardInterrupt in the main thread) can land between the
    moment the build directory is created and the build itself: the directory goes with the
    run, and the generation before it stays current."""
    from oriongraph_cli.index import indexer

    cfg = load_config(project)
    first = index_project(cfg)
    (project / "01_context" / "glossary.md").write_text((project / "01_context" / "glossary.md").read_text() + "\nOne more line.\n")

    def interrupted(**_kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(indexer, "_Plan", interrupted)
    with pytest.raises(KeyboardInterrupt):
        index_project(cfg)
    layout = Layout(cfg.index_dir)
    assert list(layout.staging_dir.iterdir()) == []
    assert layout.current_path().name == first.generation


def test_an_index_parsed_by_older_front_matter_rules_is_rebuilt_with_its_vectors(project, fake_embedder, monkeypatch):
    """A TOML front matter note indexed by an orion that read only YAML had its +++ block as
    text: after the upgrade the next run rebuilds (status says why first), reads its fields,
    and reuses the vectors of every embedding text it had; the run after finds nothing changed."""
    from oriongraph_cli import blocks
    from oriongraph_cli.index import parse
    from oriongraph_cli.index.rebuild import pending_rebuild
    from oriongraph_cli.store.manifest import Manifest

    note = project / "02_knowledge/hugo-page.md"
    note.write_text('+++\ntitle = "Rotate keys"\ntags = ["security"]\n+++\n\n# Rotate keys\n\nRotate every 90 days.\n')
    cfg = load_config(project)
    monkeypatch.setattr(parse, "PARSE_RULES", 1)  # the generation an older orion wrote
    monkeypatch.setattr(blocks, "TOML_FM_RE", re.compile(r"(?!)"))  # ... which read no TOML
    r1 = index_project(cfg)
    assert r1.rebuild_reason == "first index"
    monkeypatch.undo()
    manifest = Manifest.load(project / ".oriongraph/gen" / r1.generation)
    assert manifest.parse_rules == 1
    assert pending_rebuild(cfg, manifest) == f"parse rules changed (1 -> {parse.PARSE_RULES})"
    calls = fake_embedder.calls
    r2 = index_project(cfg)
    assert r2.rebuild_reason == f"parse rules changed (1 -> {parse.PARSE_RULES})"
    # the +++ block was a span of its own before the heading: it is gone, and the note's
    # other span embeds the same text as before, so nothing is embedded again
    assert r2.spans == r1.spans - 1 and r2.embedded_spans == 0 and fake_embedder.calls == calls
    reader = IndexReader(cfg, load_embedder=False)
    try:
        assert "security" in reader.registry.conn.execute("SELECT tags FROM documents WHERE path = '02_knowledge/hugo-page.md'").fetchone()[0]
    finally:
        reader.close()
    assert index_project(cfg).nothing_changed
