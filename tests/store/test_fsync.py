"""A build is made durable before it becomes current (``layout.fsync_tree``): every file
written for it is fsynced, and every directory; a file hard-linked from the generation it
was built on already was, and is not fsynced again."""

from __future__ import annotations

import os

from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store import layout as layout_mod
from oriongraph_cli.store.layout import Layout


def _spy(monkeypatch) -> list[str]:
    synced: list[str] = []
    real = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr(layout_mod.os, "fsync", fsync)
    return synced


def test_written_files_and_directories_are_fsynced_linked_files_are_not(tmp_path, monkeypatch):
    old, tree = tmp_path / "old", tmp_path / "build"
    old.mkdir()
    (tree / "sub").mkdir(parents=True)
    (old / "segment").write_bytes(b"kept")
    os.link(old / "segment", tree / "sub" / "segment")
    (tree / "new").write_bytes(b"written")
    (tree / "sub" / "also-new").write_bytes(b"written")
    synced = _spy(monkeypatch)
    layout_mod.fsync_tree(tree)
    assert set(synced) == {str(tree / "new"), str(tree / "sub" / "also-new"), str(tree), str(tree / "sub")}


def test_an_incremental_run_fsyncs_every_file_it_wrote(project, fake_embedder, monkeypatch):
    cfg = load_config(project)
    index_project(cfg)
    note = next((project / "02_knowledge").rglob("*.md"))
    note.write_text(note.read_text() + "\nA sentence added to one note.\n")
    synced = _spy(monkeypatch)
    index_project(cfg)
    layout = Layout(cfg.index_dir)
    gen = layout.gen_dir / layout.current()
    files = [os.path.join(d, n) for d, _s, names in os.walk(gen) for n in names]
    linked = {f for f in files if os.stat(f).st_nlink > 1}
    written = set(files) - linked
    assert linked and written  # the unchanged segments were linked, the registry and manifest written
    # the build was fsynced under its staging name (staging/<generation>.<pid>/…), then renamed into gen/
    in_build = [os.path.relpath(p, layout.staging_dir) for p in synced if p.startswith(str(layout.staging_dir) + os.sep)]
    fsynced = {p.split(os.sep, 1)[1] for p in in_build if os.sep in p}
    assert {os.path.relpath(p, gen) for p in written} <= fsynced
    assert not fsynced & {os.path.relpath(p, gen) for p in linked}
