"""An index run checks every byte of the generation it builds on, except files it verified
or wrote before that have not changed since (``Layout.remember``, ``.oriongraph/verified.json``):
a change made through the file system is still found; ``orion status`` always reads every byte."""

from __future__ import annotations

import json
import os
import time

import pytest

from oriongraph_cli import safeio
from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.errors import NoIndexError
from oriongraph_cli.index.status import project_status
from oriongraph_cli.store import layout as layout_mod
from oriongraph_cli.store.layout import Layout


def _age(path, seconds=600):
    """Every file under ``path`` made ``seconds`` older (past the racy window)."""
    for dirpath, _d, names in os.walk(path):
        for n in names:
            p = os.path.join(dirpath, n)
            st = os.stat(p)
            os.utime(p, ns=(st.st_atime_ns - int(seconds * 1e9), st.st_mtime_ns - int(seconds * 1e9)))


def _flip_middle(path):
    """Flip bytes in the middle of ``path`` (where no sample reads), keeping its size and
    its modification time."""
    st = os.stat(path)
    data = bytearray(path.read_bytes())
    at = len(data) // 2 + 1234
    for i in range(at, at + 8):
        data[i] ^= 0xFF
    with open(path, "r+b") as f:
        f.write(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.fixture
def indexed(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    layout = Layout(cfg.index_dir)
    gen = layout.current()
    _age(layout.gen_dir / gen)
    return cfg, layout, gen


def test_a_run_remembers_the_settled_files_of_the_generation_it_verified(indexed):
    cfg, layout, gen = indexed
    assert index_project(cfg).nothing_changed  # verifies every byte, then remembers
    record = json.loads(layout.verified_file.read_text())
    st = os.stat(layout.gen_dir / gen / "registry.sqlite")
    manifest = json.loads((layout.gen_dir / gen / "manifest.json").read_text())
    assert record["generation"] == gen
    assert record["files"][layout_mod._stat_key(st)] == manifest["checksums"]["registry.sqlite"][1]
    assert len(record["files"]) == len(manifest["checksums"])


def test_a_file_changed_through_the_file_system_is_read_whole_and_repaired(indexed):
    cfg, layout, gen = indexed
    index_project(cfg)
    reg = layout.gen_dir / gen / "registry.sqlite"
    data = bytearray(reg.read_bytes())
    data[len(data) // 2 + 1234] ^= 0xFF
    reg.write_bytes(bytes(data))  # a write: a new modification time
    r = index_project(cfg)
    assert r.repaired and gen in r.repaired


def test_a_change_that_keeps_size_and_time_is_left_to_status(indexed):
    """The documented limit: bytes changed in place with the size and modification time put
    back (not what a write does) pass the run's sampled check; ``orion status`` finds them."""
    cfg, layout, gen = indexed
    index_project(cfg)
    _flip_middle(layout.gen_dir / gen / "registry.sqlite")
    assert not index_project(cfg).repaired  # the file was remembered: only its samples are read
    assert "checksum mismatch" in layout.problem(gen, full=True)
    with pytest.raises(NoIndexError, match="damaged"):
        project_status(cfg)  # `orion status` reads every byte


@pytest.mark.parametrize("record", ["not json", json.dumps({"version": 9, "files": {}}), json.dumps({"version": 1, "files": []}), ""])
def test_an_unreadable_record_means_every_byte_is_read(indexed, monkeypatch, record):
    cfg, layout, gen = indexed
    index_project(cfg)
    layout.verified_file.write_text(record)
    _flip_middle(layout.gen_dir / gen / "registry.sqlite")
    r = index_project(cfg)
    assert r.repaired and gen in r.repaired


@pytest.mark.parametrize("coarse", [False, True])
def test_files_written_moments_ago_are_not_remembered(indexed, monkeypatch, coarse):
    """A file modified within the racy window of the moment it would be remembered is read
    whole next time: a change in the same timestamp tick would keep its time."""
    cfg, layout, gen = indexed
    # the window of the file's kind is a minute, the other kind's none: the kind decides
    monkeypatch.setattr(safeio, "RACY_SECONDS", 60.0 if coarse else 0.0)
    monkeypatch.setattr(safeio, "RACY_FINE_SECONDS", 0.0 if coarse else 60.0)
    reg = layout.gen_dir / gen / "registry.sqlite"
    five_ago = time.time_ns() - 5_000_000_000
    mtime = (five_ago // 1_000_000_000) * 1_000_000_000 if coarse else five_ago | 1  # whole seconds, or not
    os.utime(reg, ns=(mtime, mtime))
    index_project(cfg)
    record = json.loads(layout.verified_file.read_text())
    assert layout_mod._stat_key(os.stat(reg)) not in record["files"] and len(record["files"]) >= 3
    _flip_middle(reg)
    r = index_project(cfg)
    assert r.repaired and gen in r.repaired


def test_a_build_remembers_what_it_wrote_once_settled(project, fake_embedder, monkeypatch):
    """Files of a new generation older than the fine racy window when it is promoted are
    remembered by the run that wrote them."""
    monkeypatch.setattr(safeio, "RACY_FINE_SECONDS", 0.0)
    cfg = load_config(project)
    index_project(cfg)
    layout = Layout(cfg.index_dir)
    record = json.loads(layout.verified_file.read_text())
    gen = layout.current()
    assert record["generation"] == gen
    assert layout_mod._stat_key(os.stat(layout.gen_dir / gen / "registry.sqlite")) in record["files"]


def test_a_record_that_is_a_link_is_not_followed(indexed, tmp_path):
    cfg, layout, gen = indexed
    index_project(cfg)
    outside = tmp_path / "outside.json"
    before = layout.verified_file.read_text()
    outside.write_text(before)
    layout.verified_file.unlink()
    layout.verified_file.symlink_to(outside)
    _flip_middle(layout.gen_dir / gen / "registry.sqlite")
    r = index_project(cfg)
    assert r.repaired and gen in r.repaired  # the linked record was not trusted
    assert outside.read_text() == before  # nor written through


def test_checksums_are_xxh3_and_a_generation_recorded_with_sha256_still_verifies(tmp_path):
    """A generation records xxh3-128 checksums, with their prefix; one recorded before with
    sha256 (no prefix) is checked with sha256; either way a flipped byte in the middle is
    found by the full check and missed by neither the sample check nor the size check of a
    truncated file."""
    import hashlib

    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "registry.sqlite").write_bytes(os.urandom(3 << 20))
    (gen / "small.json").write_bytes(b'{"a": 1}')
    sums = layout_mod.file_checksums(gen)
    assert all(v[1].startswith("xxh3:") and v[2].startswith("xxh3:") for v in sums.values())
    assert layout_mod.check_files(gen, sums, full=True) is None

    def sha(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()

    with open(gen / "registry.sqlite", "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        old_sample = layout_mod._sample_digest(fh, size, "0" * 64)  # recorded as sha256 was
    assert not old_sample.startswith("xxh3:")
    old = {"registry.sqlite": [size, sha((gen / "registry.sqlite").read_bytes()), old_sample]}
    assert layout_mod.check_files(gen, old, full=True) is None
    _flip_middle(gen / "registry.sqlite")
    for recorded in (sums, old):
        assert layout_mod.check_files(gen, recorded, full=False) is None  # the sample misses the middle
        assert layout_mod.check_files(gen, recorded, full=True) == "registry.sqlite checksum mismatch"
    with open(gen / "small.json", "r+b") as fh:
        fh.truncate(3)
    assert layout_mod.check_files(gen, sums, full=False) == "small.json is 3 bytes, expected 8"
    # a manifest whose entries are not what orion writes is a mismatch, never an exception
    for entry in ([3, 7, 9], [3, None, ["x"]], [3, {}, "xxh3:"], [3], "3", None):
        assert layout_mod.check_files(gen, {"small.json": entry}, full=True) is not None, entry
