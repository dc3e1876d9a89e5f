"""Files copied as cheaply as the file system allows (store/clone.py): a copy-on-write clone
where it makes one, a byte copy elsewhere; a hard link first where a link is what is asked."""

from __future__ import annotations

import errno
import os

import pytest

from oriongraph_cli.store import clone
from oriongraph_cli.store.registry import Registry


def test_a_clone_or_copy_has_the_bytes_and_is_a_file_of_its_own(tmp_path):
    src, dst = tmp_path / "a.bin", tmp_path / "b.bin"
    src.write_bytes(os.urandom(300_000))
    cloned = clone.clone_file(src, dst)
    assert isinstance(cloned, bool) and dst.read_bytes() == src.read_bytes()
    assert os.stat(dst).st_ino != os.stat(src).st_ino
    with open(dst, "r+b") as fh:  # writing the new file never changes the old one
        fh.write(b"\0" * 4096)
    assert src.read_bytes()[:4096] != b"\0" * 4096 and dst.read_bytes()[:4096] == b"\0" * 4096


def test_a_file_system_without_reflinks_gets_a_byte_copy(tmp_path, monkeypatch):
    fcntl = pytest.importorskip("fcntl")

    def refuse(*_a):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(fcntl, "ioctl", refuse)
    src, dst = tmp_path / "a.bin", tmp_path / "b.bin"
    src.write_bytes(b"registry pages" * 1000)
    dst.write_bytes(b"an older, longer file that must be replaced whole" * 1000)
    assert clone.clone_file(src, dst) is False
    assert dst.read_bytes() == src.read_bytes()


def test_link_or_clone_links_first_and_clones_where_it_cannot(tmp_path, monkeypatch):
    src = tmp_path / "seg.f32"
    src.write_bytes(b"\1\2\3\4" * 1000)
    clone.link_or_clone(src, tmp_path / "linked")
    assert os.stat(tmp_path / "linked").st_ino == os.stat(src).st_ino

    def cross_device(*_a):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(clone.os, "link", cross_device)
    clone.link_or_clone(src, tmp_path / "copied")
    assert os.stat(tmp_path / "copied").st_ino != os.stat(src).st_ino and (tmp_path / "copied").read_bytes() == src.read_bytes()
    monkeypatch.undo()
    with pytest.raises(FileNotFoundError):
        clone.link_or_clone(tmp_path / "missing", tmp_path / "x")


def test_a_new_generation_s_registry_starts_as_a_clone_of_the_one_it_builds_on(tmp_path, monkeypatch):
    from oriongraph_cli.store import registry as registry_module

    base = Registry.create(tmp_path / "base.sqlite")
    base.set_info("generation", "000001")
    base.commit()
    base.close()
    calls = []
    real = registry_module.clone_file
    monkeypatch.setattr(registry_module, "clone_file", lambda s, d: calls.append((s, d)) or real(s, d))
    new = Registry.create(tmp_path / "new.sqlite", copy_from=tmp_path / "base.sqlite")
    try:
        assert calls == [(tmp_path / "base.sqlite", tmp_path / "new.sqlite")]
        assert new.get_info("generation") == "000001"
    finally:
        new.close()
