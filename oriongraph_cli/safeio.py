"""Reading project files without leaving the project, blocking, or running out of memory.

Every document byte orion reads goes through :func:`read_project_file`:

- the path is resolved, and must stay inside the project root; then it is opened one
  component at a time from the root with ``O_NOFOLLOW`` (``openat``), so a symlink swapped
  in between the check and the open cannot redirect the read outside the root;
- the final open is non-blocking (a FIFO named ``x.md`` cannot hang the run) and what was
  opened is checked with ``fstat``: only regular files are read (no devices, FIFOs,
  sockets), at most ``max_bytes`` of them;
- when the caller knows the identity the walk saw (device, inode), the opened file must
  be that file, or the read is refused ("changed while reading").
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class UnsafeFile(Exception):
    """The file was not read; ``reason`` says why in words for a one-line warning."""

    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind = kind  # outside-root | not-regular | too-large | changed | unreadable
        self.reason = reason


@dataclass(frozen=True)
class FileRead:
    data: bytes
    size: int
    mtime: float
    mtime_ns: int
    ctime_ns: int
    dev: int
    ino: int

    @property
    def stat_key(self) -> list[int]:
        return [self.size, self.mtime_ns, self.ctime_ns, self.ino]


def stat_key(st: os.stat_result) -> list[int]:
    """What change detection compares (git's racy-file rules): size, mtime, ctime, inode.
    A same-size edit whose mtime was restored (``cp -p``, ``tar``, ``touch -r``) still moves
    the ctime, and a file replaced by rename has a new inode."""
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


RACY_SECONDS = 2.0  # a change this soon after a file's last one may not move its times ...
RACY_FINE_SECONDS = 0.05  # ... or this soon, on a file system that records sub-second times


def settled(st: os.stat_result, now_ns: int) -> bool:
    """Whether the next write to a file whose stat is ``st`` must move its modification time:
    it was last modified longer ago than the file system's timestamp resolution (git's
    racy-file rule): ``RACY_SECONDS`` where it records whole seconds, ``RACY_FINE_SECONDS``
    where it records finer times (several clock ticks)."""
    coarse = st.st_mtime_ns % 1_000_000_000 == 0
    return now_ns - st.st_mtime_ns > (RACY_SECONDS if coarse else RACY_FINE_SECONDS) * 1e9


def unchanged_since(st: os.stat_result, recorded: list[int] | None, indexed_at: int) -> bool:
    """Whether a file whose stat is ``st`` is the one recorded when the index was written at
    ``indexed_at`` (unix seconds), by git's racy-file rules: the stat key matches, and it was
    not modified in or after the second the index was written (such a change may not show)."""
    racy_after = (int(indexed_at) - 1) * 1_000_000_000
    return recorded == stat_key(st) and st.st_mtime_ns < racy_after and st.st_ctime_ns < racy_after


def inside(root: Path, rel: str) -> str | None:
    """The real path of ``root/rel`` relative to the real root, or None if it leaves it."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, rel))
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(real, real_root)


def _open_beneath(root: Path, real_rel: str) -> int:
    """Open ``real_rel`` (no ``..``, no symlinks expected) component by component from the
    root, never following a symlink."""
    parts = [p for p in real_rel.split(os.sep) if p not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafeFile("outside-root", "path leaves the project root; skipped")
    fd = os.open(os.path.realpath(root), _DIR_FLAGS)
    try:
        for part in parts[:-1]:
            nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
        return os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def read_project_file(root: Path, rel: str, max_bytes: int, *, expect: tuple[int, int] | None = None) -> FileRead:
    """Read the regular file ``root/rel`` (symlinks inside the root are followed, nothing
    outside it is opened) — at most ``max_bytes``. Raises :class:`UnsafeFile`."""
    real_rel = inside(root, rel)
    if real_rel is None:
        raise UnsafeFile("outside-root", "resolves outside the project root; skipped")
    try:
        fd = _open_beneath(root, real_rel)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafeFile("changed", "was replaced by a symlink while being read; skipped") from None
        raise UnsafeFile("unreadable", f"cannot read ({exc.strerror}); skipped") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile("not-regular", f"not a regular file ({_kind(st.st_mode)}); skipped")
        if expect is not None and (st.st_dev, st.st_ino) != expect:
            raise UnsafeFile("changed", "was replaced while being read; skipped (run `orion index` again)")
        if st.st_size > max_bytes:
            raise UnsafeFile(
                "too-large", f"{st.st_size:,} bytes exceeds max_file_bytes={max_bytes:,}; skipped (raise it in .orion.toml)"
            )
        data = _read_at_most(fd, max_bytes)
        if data is None:  # grew while being read
            raise UnsafeFile("too-large", f"grew beyond max_file_bytes={max_bytes:,} while being read; skipped")
    except OSError as exc:
        raise UnsafeFile("unreadable", f"cannot read ({exc.strerror}); skipped") from None
    finally:
        os.close(fd)
    return FileRead(data, st.st_size, st.st_mtime, st.st_mtime_ns, st.st_ctime_ns, st.st_dev, st.st_ino)


def read_regular(path: Path, max_bytes: int, *, follow: bool = False) -> bytes:
    """The bytes of a file orion owns or was handed (the usage log, a queries file): only
    a regular file, at most ``max_bytes``, never blocking; a link is refused unless
    ``follow``. FileNotFoundError passes through; anything else is :class:`UnsafeFile`."""
    flags = _FILE_FLAGS if not follow else _FILE_FLAGS & ~getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile("not-regular", "is a symlink; not read") from None
        raise UnsafeFile("unreadable", f"cannot read ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile("not-regular", f"is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > max_bytes:
            raise UnsafeFile("too-large", f"is larger than {max_bytes:,} bytes")
        data = _read_at_most(fd, max_bytes)
        if data is None:
            raise UnsafeFile("too-large", f"is larger than {max_bytes:,} bytes")
        return data
    except OSError as exc:
        raise UnsafeFile("unreadable", f"cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)


def _read_at_most(fd: int, max_bytes: int) -> bytes | None:
    """All of ``fd`` if it holds at most ``max_bytes`` (None: more — reading stops there)."""
    chunks, total = [], 0
    while total <= max_bytes:
        chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return None if total > max_bytes else b"".join(chunks)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


describe_mode = _kind
