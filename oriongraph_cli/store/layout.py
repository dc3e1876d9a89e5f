"""On-disk layout of ``.oriongraph/``: generations, the CURRENT pointer, the writer lock.

```
.oriongraph/  CURRENT  orion.lock  gen/<id>/{registry.sqlite, lexical/, postings/, vectors/, manifest.json}
              staging/<id>.<pid>/  usage.jsonl  verified.json  CACHEDIR.TAG  .gitignore
```

A writer holds an OS lock (``flock``: :func:`exclusive_lock`; the kernel frees it when the process
dies) for the whole build, builds in ``staging/``, fsyncs, renames the build into
``gen/`` and then atomically replaces ``CURRENT``. Readers read ``CURRENT`` once and open
only that generation, so a crash at any moment leaves the previous index usable.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import xxhash

from oriongraph_cli.errors import IndexBusyError, NoIndexError, UnsafeStateError, index_command
from oriongraph_cli.safeio import settled
from oriongraph_cli.store.manifest import MANIFEST, Manifest, ManifestError

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
    """Make a build durable: every file written for it and every directory (its entries).

    A file with more than one link was hard-linked from the generation the build started
    from (an unchanged store segment, ``store.clone.link_or_clone``): its bytes were made
    durable when that generation was promoted, and the new name is made durable by its
    directory's fsync, so it is not fsynced again (on SciFact a one-file run made 84 fsync
    calls, 31 of them on such links)."""
    for dirpath, _dirnames, filenames in os.walk(path):
        for name in filenames:
            with open(os.path.join(dirpath, name), "rb") as fh:
                if os.fstat(fh.fileno()).st_nlink < 2:
                    os.fsync(fh.fileno())
        fsync_dir(Path(dirpath))


class Layout:
    def __init__(self, index_dir: Path):
        self.dir = index_dir
        self.gen_dir = index_dir / "gen"
        self.staging_dir = index_dir / "staging"
        self.current_file = index_dir / "CURRENT"
        self.lock_file = index_dir / "orion.lock"
        self.pid_file = index_dir / "writer.pid"
        self.usage_log = index_dir / "usage.jsonl"
        self.verified_file = index_dir / VERIFIED
        self.manifests: dict[str, Manifest] = {}  # the manifest of each generation that verified (a reader's, read once)

    def check_no_links(self) -> None:
        """Refuse a state directory that is a symlink (or not a directory): a cloned
        repository can carry ``.oriongraph -> /somewhere``, and cleaning or writing
        through it would delete or overwrite files outside the project."""
        for d in (self.dir, self.gen_dir, self.staging_dir):
            if d.is_symlink():
                raise UnsafeStateError(
                    f"{d} is a symlink (-> {os.readlink(d)}); orion never writes or deletes through a link",
                    hint=f"remove the link (`rm {d}`) and run `orion index` again",
                )
            if d.exists() and not d.is_dir():
                raise UnsafeStateError(f"{d} is not a directory", hint=f"remove it (`rm {d}`) and run `orion index` again")

    def exists(self) -> bool:
        self.check_no_links()
        return self.dir.is_dir()

    def ensure(self) -> None:
        self.check_no_links()
        for d in (self.dir, self.gen_dir, self.staging_dir):
            d.mkdir(parents=True, exist_ok=True)
        self.check_no_links()
        tag = self.dir / "CACHEDIR.TAG"
        if not tag.exists():
            atomic_write(tag, CACHEDIR_TAG.encode())
        ignore = self.dir / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, b"# orion's index: local and rebuildable\n*\n")

    # ------------------------------------------------------------------ lock
    @contextmanager
    def writer_lock(self, timeout: float, on_wait=None) -> Iterator[None]:
        """Hold the writer lock. When another writer holds it, ``on_wait(pid or None)`` is
        called once before waiting up to ``timeout`` seconds (the holder writes its pid to
        ``writer.pid`` once it has the lock)."""
        self.ensure()
        if self.lock_file.is_symlink() or (self.lock_file.exists() and not self.lock_file.is_file()):
            raise UnsafeStateError(
                f"{self.lock_file} is not a regular file", hint=f"remove it (`rm -r {self.lock_file}`) and run `orion index` again"
            )
        try:
            fd = exclusive_lock(self.lock_file, 0)
        except TimeoutError:
            holder = self.holder_pid()
            if on_wait is not None:
                on_wait(holder)
            try:
                fd = exclusive_lock(self.lock_file, timeout)
            except TimeoutError:
                by = f" (pid {holder})" if holder else ""
                raise IndexBusyError(
                    f"another `orion index`{by} is writing {self.dir} (waited {timeout:g}s for {self.lock_file.name})",
                    hint="wait for it to finish, or raise the wait with --lock-timeout / ORION_LOCK_TIMEOUT",
                ) from None
        try:
            try:
                atomic_write(self.pid_file, f"{os.getpid()}\n".encode())
            except OSError:
                pass  # only informative
            yield
        finally:
            try:
                self.pid_file.unlink()
            except OSError:
                pass
            os.close(fd)  # frees the lock

    def holder_pid(self) -> int | None:
        """The pid the current lock holder recorded, if it is still running."""
        try:
            pid = int(self.pid_file.read_text().strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    # ------------------------------------------------------------------ generations
    def generations(self) -> list[str]:
        """Generation directories, oldest first (links and stray files are not generations)."""
        if not self.gen_dir.is_dir():
            return []
        return sorted(
            (p.name for p in self.gen_dir.iterdir() if _is_gen_name(p.name) and p.is_dir() and not p.is_symlink()), key=int
        )

    def verified(self, gen: str, *, full: bool = False) -> bool:
        return self.problem(gen, full=full) is None

    def problem(self, gen: str, *, full: bool = False, remembered: bool = False) -> str | None:
        """Why generation ``gen`` cannot be used (None: it verifies). ``full`` checks every
        byte against the manifest's checksums; otherwise sizes and sampled checksums
        (head, tail and evenly spaced pages of each file: a few hundred KB read in all).
        ``remembered`` (with ``full``): a file this index verified every byte of, or wrote,
        and that has not changed since (same device, inode, size and modification time,
        the same recorded checksum: :meth:`remember`) gets the sampled check only."""
        gen_path = self.gen_dir / gen
        if gen_path.is_symlink() or not gen_path.is_dir():
            return "not a directory"
        try:
            manifest = Manifest.load(gen_path)
        except ManifestError:
            return "incomplete manifest"
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            return f"unreadable manifest ({exc.__class__.__name__})"
        if manifest.generation != gen or manifest.complete is not True:
            return "incomplete manifest"
        if manifest.checksums is None:
            why = None  # a generation from before checksums were recorded: nothing to compare
        else:
            why = check_files(gen_path, manifest.checksums, full=full, known=self._remembered() if full and remembered else None)
        if why is None:
            self.manifests[gen] = manifest
        return why

    def current(self, *, full: bool = False, warn: bool = True, remembered: bool = False) -> str | None:
        """The generation readers should open: CURRENT if it verifies, else the newest that
        does. Falling back over a damaged generation warns (``DamagedIndexWarning``) and
        records why in ``self.damaged``. ``remembered``: see :meth:`problem`."""
        self.damaged: list[tuple[str, str]] = []
        try:
            gen = self.current_file.read_text().strip()
        except (OSError, UnicodeDecodeError):
            gen = ""
        if not _is_gen_name(gen):
            gen = ""
        if gen:
            why = self.problem(gen, full=full, remembered=remembered)
            if why is None:
                return gen
            self.damaged.append((gen, why))
        for candidate in reversed(self.generations()):
            if candidate == gen:
                continue
            why = self.problem(candidate, full=full, remembered=remembered)
            if why is None:
                if self.damaged and warn:
                    import warnings

                    bad, reason = self.damaged[0]
                    warnings.warn(DamagedIndexWarning(
                        f"index generation {bad} is damaged ({reason}); using generation {candidate} — run `orion index` to repair"
                    ), stacklevel=2)
                return candidate
            if int(candidate) > int(gen or 0):
                continue  # a newer generation that never became current (or is damaged): skip silently
            self.damaged.append((candidate, why))
        return None

    def current_path(self) -> Path:
        gen = self.current()
        if gen is None:
            if self.damaged:
                bad, why = self.damaged[0]
                raise NoIndexError(
                    f"the index in {self.dir} is damaged (generation {bad}: {why}) and no earlier generation verifies",
                    hint=f"run `{index_command(self.dir.parent)}` to rebuild it",
                )
            raise NoIndexError(
                f"no index in {self.dir}",
                hint=f"run `{index_command(self.dir.parent)}` first",
            )
        return self.gen_dir / gen

    def _remembered(self) -> dict[str, str]:
        """{stat key: checksum} of the files :meth:`remember` recorded ({} when there is no
        record or it does not read)."""
        try:
            if self.verified_file.is_symlink():
                return {}  # never followed out of the index
            data = json.loads(self.verified_file.read_text())
            files = data["files"] if data.get("version") == 1 else {}
            return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return {}

    def remember(self, gen: str) -> None:
        """Record generation ``gen``'s files as verified byte for byte (call right after a
        full check of it passed, or after writing it: every byte of it was hashed then, or
        is a link to a file that was): their stat keys with their recorded checksums,
        replacing any earlier record. The next full check of an unchanged file reads only its
        sample. A file modified too recently is left out (as git leaves out "racily clean"
        files): a change within the file system's timestamp resolution of the last write
        would keep the time it records (``safeio.settled``). Best effort: a record that
        cannot be written costs a full check later."""
        gen_path = self.gen_dir / gen
        try:
            manifest = self.manifests.get(gen) or Manifest.load(gen_path)
        except (OSError, ValueError, UnicodeDecodeError, ManifestError):
            return
        files: dict[str, str] = {}
        now = time.time_ns()
        for rel, expected in (manifest.checksums or {}).items():
            if not _inside_generation(rel):
                continue
            try:
                st = os.stat(gen_path / rel, follow_symlinks=False)
                if settled(st, now):
                    files[_stat_key(st)] = expected[1]
            except (OSError, TypeError, IndexError):
                continue
        if files == self._remembered():
            return  # already recorded (a run that changed nothing)
        try:
            atomic_write(self.verified_file, json.dumps({"version": 1, "generation": gen, "files": files}, sort_keys=True).encode())
        except OSError:
            pass

    def next_generation(self) -> str:
        """One past every generation-like name in gen/ (a stray file named 000007 too)."""
        names = [p.name for p in self.gen_dir.iterdir() if _is_gen_name(p.name)] if self.gen_dir.is_dir() else []
        n = max(map(int, names)) + 1 if names else 1
        return f"{n:06d}"

    def staging_path(self, gen: str) -> Path:
        """Where this process builds ``gen`` (known before it exists, so a caller can clean
        it up whatever moment an interrupt lands in)."""
        return self.staging_dir / f"{gen}.{os.getpid()}"

    def new_staging(self, gen: str) -> Path:
        """Create this process's build directory for ``gen`` (the caller has called
        :meth:`ensure`: a linked state directory is refused before any build starts)."""
        path = self.staging_path(gen)
        _remove(path)
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

    def cleanup(self, keep: int, current: str | None) -> list[str]:
        """Remove orphaned staging builds and generations older than the newest ``keep``
        and ``current`` (the generation readers open, which the caller has just verified
        or written: :meth:`current` or :meth:`promote`). Call only while holding the
        writer lock."""
        self.check_no_links()
        removed: list[str] = []
        if self.staging_dir.is_dir():
            for p in self.staging_dir.iterdir():
                _remove(p)
                removed.append(f"staging/{p.name}")
        gens = self.generations()
        keep_set = set(gens[-max(1, keep):]) | ({current} if current else set())
        for g in gens:
            if g not in keep_set:
                if in_use(self.gen_dir / g):
                    continue  # a reader still has it open: removed by a later run
                _remove(self.gen_dir / g)
                removed.append(f"gen/{g}")
        for p in self.gen_dir.iterdir() if self.gen_dir.is_dir() else ():
            if _is_gen_name(p.name) and (p.is_symlink() or not p.is_dir()):
                _remove(p)  # not a generation: a stray file or link
                removed.append(f"gen/{p.name}")
        return removed

    # ------------------------------------------------------------------ readers
    def hold(self, gen_path: Path):
        """Mark ``gen_path`` as in use by this process until the returned handle is
        closed (or the process dies): ``cleanup`` leaves it in place."""
        return hold_generation(gen_path)


READERS_LOCK = "readers.lock"
VERIFIED = "verified.json"  # in the index directory: the files an index run verified or wrote (Layout.remember)
_NOT_CHECKED = {MANIFEST, READERS_LOCK}
_SAMPLE = 64 * 1024
_PAGE = 4096
_PAGES = 8


class DamagedIndexWarning(UserWarning):
    """A generation failed verification and an earlier one is used instead."""


XXH3 = "xxh3:"  # the prefix of a recorded checksum made with xxh3-128; none: sha256


def _hasher(recorded: str | None = None):
    """(a new hash object, the prefix its checksum is recorded with): xxh3-128 for a new
    checksum and for one recorded with the prefix, sha256 for one recorded without (what
    generations written before recorded). A checksum here guards against damage, not
    against someone who can rewrite the manifest too; xxh3 hashes ~4x faster than sha256,
    which every generation pays for each file it rewrites (the registry above all)."""
    if recorded is None or (isinstance(recorded, str) and recorded.startswith(XXH3)):
        return xxhash.xxh3_128(), XXH3
    return hashlib.sha256(), ""


def _file_digest(fh, recorded: str | None = None) -> str:
    """The checksum of the whole file ``fh`` (from where it stands), made as ``recorded`` was."""
    h, prefix = _hasher(recorded)
    for chunk in iter(lambda: fh.read(1 << 20), b""):
        h.update(chunk)
    return prefix + h.hexdigest()


def _sample_digest(fh, size: int, recorded: str | None = None) -> str:
    """The checksum of the head, the tail and evenly spaced pages: reads at most ~160 KB."""
    h, prefix = _hasher(recorded)
    fd = fh.fileno()
    h.update(os.pread(fd, _SAMPLE, 0))
    for i in range(1, _PAGES + 1):
        h.update(os.pread(fd, _PAGE, size * i // (_PAGES + 1)))
    h.update(os.pread(fd, _SAMPLE, max(0, size - _SAMPLE)))
    return prefix + h.hexdigest()


def file_checksums(gen_path: Path, base: Path | None = None, base_checksums: dict | None = None) -> dict[str, list]:
    """{relative path: [size, checksum, sampled checksum]} of every file of a generation
    (xxh3-128, recorded with its prefix: :func:`_hasher`).

    A file that is the same file as ``base``'s at the same relative path (a hard link:
    same device and inode, same size) takes ``base_checksums``' entry instead of being
    read again; pass them only for a generation whose every byte was just verified, and
    only for files nobody writes after linking (the Whoosh segments, ``lexical._link_files``,
    and the vector segments, ``vectors.SegmentWriter``)."""
    out: dict[str, list] = {}
    for dirpath, _dirnames, filenames in os.walk(gen_path):
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, gen_path).replace(os.sep, "/")
            if rel in _NOT_CHECKED:
                continue
            carried = _carried(full, rel, base, base_checksums)
            if carried is not None:
                out[rel] = carried
                continue
            with open(full, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                out[rel] = [size, _file_digest(fh), _sample_digest(fh, size)]
    return dict(sorted(out.items()))


def _carried(full: str, rel: str, base: Path | None, base_checksums: dict | None) -> list | None:
    """``base_checksums[rel]`` when ``full`` is the very file ``base / rel`` is, else None."""
    if base is None or not base_checksums or rel not in base_checksums:
        return None
    try:
        st, bst = os.lstat(full), os.lstat(base / rel)
    except OSError:
        return None
    entry = base_checksums[rel]
    if (st.st_dev, st.st_ino) != (bst.st_dev, bst.st_ino) or not isinstance(entry, list) or len(entry) != 3 or entry[0] != st.st_size:
        return None
    return list(entry)


def _stat_key(st: os.stat_result) -> str:
    """What identifies one unchanged file: device, inode, size, modification time (ns)."""
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


def check_files(gen_path: Path, checksums: dict, *, full: bool, known: dict[str, str] | None = None) -> str | None:
    """The first file of a generation that differs from its recorded checksum, in words.
    ``known`` ({stat key: checksum}, :meth:`Layout.remember`): a file found there unchanged,
    with the checksum the manifest records, is not read whole again."""
    for rel, expected in checksums.items():
        if not _inside_generation(rel):
            return f"the manifest names {rel!r}, which is no file of the generation"
        path = gen_path / rel
        try:
            size, digest, sample = expected
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                if st.st_size != size:
                    return f"{rel} is {st.st_size:,} bytes, expected {size:,}"
                if _sample_digest(fh, size, sample) != sample:
                    return f"{rel} checksum mismatch"
                if full and not (known and known.get(_stat_key(st)) == digest) and _file_digest(fh, digest) != digest:
                    return f"{rel} checksum mismatch"
        except FileNotFoundError:
            return f"{rel} is missing"
        except (OSError, TypeError, ValueError) as exc:
            return f"{rel} unreadable ({exc.__class__.__name__})"
    return None


def _inside_generation(rel: object) -> bool:
    """Whether a manifest's file name stays in its generation's folder: relative, no ``..``,
    no NUL (a hand-edited manifest must not have a check read files elsewhere)."""
    if not isinstance(rel, str) or not rel or "\x00" in rel or rel.startswith(("/", "\\")):
        return False
    return ".." not in rel.replace("\\", "/").split("/")


def _is_gen_name(name: str) -> bool:
    return name.isdigit() and name.isascii()


def _remove(path: Path) -> None:
    """Remove ``path`` without following it: a link is unlinked, never traversed."""
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink()
        else:
            shutil.rmtree(path, ignore_errors=True)
    except FileNotFoundError:
        pass
    except OSError:
        shutil.rmtree(path, ignore_errors=True)


LOCK_POLL = 0.05  # seconds between two tries of a held lock


def exclusive_lock(path: Path, timeout: float) -> int:
    """An exclusive ``flock`` on ``path`` (created if missing, never through a link): the
    open descriptor, which frees the lock when closed (or when the process ends, however it
    ends). Tried every :data:`LOCK_POLL` seconds for up to ``timeout``; ``TimeoutError``
    when another holder keeps it. (The ``filelock`` package did this, but its import — with
    asyncio — cost ~9 ms of CPU of every `orion index`.)"""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o666 & ~_UMASK)
    deadline = time.monotonic() + max(0.0, timeout)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{path} is locked") from None
                time.sleep(min(LOCK_POLL, left))
    except BaseException:
        os.close(fd)
        raise


@contextmanager
def locked(path: Path, timeout: float = float("inf")) -> Iterator[None]:
    """Hold :func:`exclusive_lock` on ``path`` for the block (waiting up to ``timeout``)."""
    fd = exclusive_lock(path, timeout)
    try:
        yield
    finally:
        os.close(fd)


def hold_generation(gen_path: Path):
    """A shared flock on ``gen/<id>/readers.lock``; None where locking is unavailable."""
    import fcntl

    try:
        fd = os.open(gen_path / READERS_LOCK, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o666 & ~_UMASK)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def release_generation(handle) -> None:
    if handle is not None:
        try:
            os.close(handle)
        except OSError:
            pass


def in_use(gen_path: Path) -> bool:
    """Whether a reader holds ``gen_path`` (its shared lock blocks an exclusive one)."""
    import fcntl

    try:
        fd = os.open(gen_path / READERS_LOCK, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False
