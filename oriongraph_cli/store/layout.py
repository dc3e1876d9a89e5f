"""On-disk layout of ``.oriongraph/``: generations, the CURRENT pointer, the writer lock.

```
.oriongraph/  CURRENT  orion.lock  gen/<id>/{registry.sqlite, lexical/, vectors.faiss, manifest.json}
              staging/<id>.<pid>/  usage.jsonl  CACHEDIR.TAG  .gitignore
```

A writer holds an OS lock (flock via ``filelock``; the kernel frees it when the process
dies) for the whole build, builds in ``staging/``, fsyncs, renames the build into
``gen/`` and then atomically replaces ``CURRENT``. Readers read ``CURRENT`` once and open
only that generation, so a crash at any moment leaves the previous index usable.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from oriongraph_cli.errors import IndexBusyError, NoIndexError

MANIFEST = "manifest.json"
_UMASK = os.umask(0)
os.umask(_UMASK)
CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# orion index data; safe to delete, `orion index` rebuilds it.\n"


def fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temp file in the same directory, fsync, rename, fsync the dir."""
    atomic_write_with(path, lambda tmp: tmp.write_bytes(data))


def atomic_write_with(path: Path, fill) -> None:
    """Atomically replace ``path`` with what ``fill(tmp)`` writes into a temp file in the
    same directory (our bytes, or a library writing the file itself, e.g.
    ``faiss.write_index`` — no copy of the whole file in memory): the temp file is
    fsynced and renamed onto ``path``, then the directory is fsynced."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        fill(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def fsync_tree(path: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            with open(os.path.join(dirpath, name), "rb") as fh:
                os.fsync(fh.fileno())
        fsync_dir(Path(dirpath))


class Layout:
    def __init__(self, index_dir: Path):
        self.dir = index_dir
        self.gen_dir = index_dir / "gen"
        self.staging_dir = index_dir / "staging"
        self.current_file = index_dir / "CURRENT"
        self.lock_file = index_dir / "orion.lock"
        self.usage_log = index_dir / "usage.jsonl"

    def exists(self) -> bool:
        return self.dir.is_dir()

    def ensure(self) -> None:
        for d in (self.dir, self.gen_dir, self.staging_dir):
            d.mkdir(parents=True, exist_ok=True)
        tag = self.dir / "CACHEDIR.TAG"
        if not tag.exists():
            atomic_write(tag, CACHEDIR_TAG.encode())
        ignore = self.dir / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, b"# orion's index: local and rebuildable\n*\n")

    # ------------------------------------------------------------------ lock
    @contextmanager
    def writer_lock(self, timeout: float) -> Iterator[None]:
        from filelock import FileLock, Timeout

        self.ensure()
        lock = FileLock(str(self.lock_file), timeout=timeout)
        try:
            lock.acquire()
        except Timeout:
            raise IndexBusyError(
                f"another `orion index` is writing {self.dir} (waited {timeout:g}s for {self.lock_file.name})",
                hint="wait for it to finish, or raise the wait with --lock-timeout / ORION_LOCK_TIMEOUT",
            ) from None
        try:
            yield
        finally:
            lock.release()

    # ------------------------------------------------------------------ generations
    def generations(self) -> list[str]:
        if not self.gen_dir.is_dir():
            return []
        return sorted((p.name for p in self.gen_dir.iterdir() if p.is_dir() and p.name.isdigit()), key=int)

    def verified(self, gen: str) -> bool:
        path = self.gen_dir / gen / MANIFEST
        try:
            manifest = json.loads(path.read_text())
        except (OSError, ValueError):
            return False
        return manifest.get("generation") == gen and manifest.get("complete") is True

    def current(self) -> str | None:
        """The generation readers should open: CURRENT if it verifies, else the newest that does."""
        try:
            gen = self.current_file.read_text().strip()
        except OSError:
            gen = ""
        if gen and self.verified(gen):
            return gen
        for candidate in reversed(self.generations()):
            if self.verified(candidate):
                return candidate
        return None

    def current_path(self) -> Path:
        gen = self.current()
        if gen is None:
            raise NoIndexError(
                f"no index in {self.dir}",
                hint=f"run `orion index --root {self.dir.parent}` first",
            )
        return self.gen_dir / gen

    def next_generation(self) -> str:
        gens = self.generations()
        n = int(gens[-1]) + 1 if gens else 1
        return f"{n:06d}"

    def new_staging(self, gen: str) -> Path:
        self.ensure()
        path = self.staging_dir / f"{gen}.{os.getpid()}"
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path

    def promote(self, staging: Path, gen: str) -> Path:
        """fsync the build, move it into gen/, point CURRENT at it (atomically)."""
        fsync_tree(staging)
        final = self.gen_dir / gen
        os.replace(staging, final)
        fsync_dir(self.gen_dir)
        fsync_dir(self.staging_dir)
        atomic_write(self.current_file, (gen + "\n").encode())
        return final

    def cleanup(self, keep: int) -> list[str]:
        """Remove orphaned staging builds and generations older than the newest ``keep``
        (the current one is always kept). Call only while holding the writer lock."""
        removed: list[str] = []
        if self.staging_dir.is_dir():
            for p in self.staging_dir.iterdir():
                shutil.rmtree(p, ignore_errors=True)
                removed.append(f"staging/{p.name}")
        current = self.current()
        gens = self.generations()
        keep_set = set(gens[-max(1, keep):]) | ({current} if current else set())
        for g in gens:
            if g not in keep_set:
                shutil.rmtree(self.gen_dir / g, ignore_errors=True)
                removed.append(f"gen/{g}")
        return removed
