"""Walk the four OrionFS stage folders safely.

- Only ``01_context/``, ``02_knowledge/``, ``03_workstreams/``, ``04_artifacts/`` are read.
- Accepted files: ``.md``, ``.markdown``, ``.mdx`` (Markdown with front matter; an ``.mdx`` page without indented code, as MDX reads it) and ``.txt``/``.rst``
  (plain text notes people keep beside them; read as Markdown, and a ``.rst`` page's section
  titles under any adornment as its outline: ``blocks.read_blocks(syntax="rst")``).
- Hidden files and folders (``.git``, ``.oriongraph``), ``node_modules`` and ``__pycache__``
  are skipped.
- Only regular files are listed: a FIFO, device or socket with an accepted name is
  skipped with a warning (reading it could hang or never end).
- Symlinks are followed only while they stay inside the project root (a stage folder
  that is itself a link out of the root is skipped too). Each real directory is walked
  once, real paths before symlinked ones, so directories linked to each other, a link
  loop or a DAG of links cannot make the walk loop or grow exponentially; a file also
  reached through a symlink is indexed once, under its real path (hard links are separate
  names, indexed like copies).
- File names that are not valid UTF-8 or hold control characters (a newline, ESC) are
  skipped with a warning: they cannot be stored, printed or piped unambiguously.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from oriongraph_cli.errors import NotAProjectError
from oriongraph_cli.models import TOP_FOLDERS
from oriongraph_cli.safeio import describe_mode
from oriongraph_cli.textsafe import clean_line, has_control

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")  # .mdx: Docusaurus's Markdown with components
TEXT_SUFFIXES = (".txt", ".rst")
ACCEPTED_SUFFIXES = MARKDOWN_SUFFIXES + TEXT_SUFFIXES
SKIP_DIRS = {"node_modules", "__pycache__"}


@dataclass(frozen=True)
class WalkWarning:
    path: str
    kind: str  # symlink-escape | symlink-loop | unreadable | not-regular | alias | bad-name
    message: str
    skipped: bool = True  # the entry was not indexed
    line: None = None
    col: None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def to_dict(self) -> dict:
        return {"path": self.path, "kind": self.kind, "message": self.message, "line": None, "col": None, "skipped": self.skipped}


@dataclass(frozen=True)
class FoundFile:
    rel: str  # POSIX path relative to the root
    abs_path: str  # as the walk reached it (a Path made only when asked for: ~14 µs a file)
    dev: int = 0  # identity of the file the walk saw (the read must open this file)
    ino: int = 0
    via_symlink: bool = False
    st: os.stat_result | None = field(default=None, compare=False, repr=False)  # the walk's stat of it

    @property
    def abs(self) -> Path:
        return Path(self.abs_path)

    @property
    def identity(self) -> tuple[int, int]:
        return (self.dev, self.ino)


def check_project(root: Path) -> list[str]:
    """Return the OrionFS folders present; raise NotAProjectError when there are none."""
    if not root.is_dir():
        raise NotAProjectError(f"{root}: no such directory", hint="pass an existing project with --root PATH")
    present = [name for name in TOP_FOLDERS if (root / name).is_dir()]
    if not present:
        raise NotAProjectError(
            f"{root} is not an OrionFS project: none of {', '.join(f'{n}/' for n in TOP_FOLDERS)} exists",
            hint=(
                "create the layout, e.g. `mkdir -p 01_context 02_knowledge 03_workstreams 04_artifacts` "
                "and put Markdown notes there, or point at a project with --root PATH"
            ),
        )
    return present


class _Walker:
    def __init__(self, root: Path):
        self.root = root
        self.root_prefix = str(root).rstrip(os.sep) + os.sep
        self.files: list[FoundFile] = []  # reached through real directories and names
        self.linked: list[FoundFile] = []  # reached through a symlink
        self.warnings: list[WalkWarning] = []
        self.visited: set[tuple[int, int]] = set()
        self.deferred: list[tuple[str, str]] = []  # (rel, real target) of symlinked directories
        self.others: OtherFiles | None = None  # every other file's path (images, PDFs, code): links may name them

    def _inside(self, real: str) -> bool:
        return real == str(self.root) or real.startswith(self.root_prefix)

    def walk_dir(self, directory: str, rel_dir: str) -> None:
        """Relative paths are built as strings (``rel_dir/name``): pathlib per entry cost a
        quarter of a no-change re-index on 5k files."""
        try:
            st = os.stat(directory)
        except OSError as exc:
            self.warnings.append(WalkWarning(rel_dir, "unreadable", f"cannot read directory ({exc.strerror}); skipped"))
            return
        key = (st.st_dev, st.st_ino)
        if key in self.visited:
            return  # already walked under its real path (or another link): walked once
        self.visited.add(key)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.warnings.append(WalkWarning(rel_dir, "unreadable", f"cannot list directory ({exc.strerror}); skipped"))
            return
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in SKIP_DIRS:
                continue
            rel = f"{rel_dir}/{name}"
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_link:
                self._link(entry.path, rel, name)
            elif is_dir:
                self.walk_dir(entry.path, rel)
            elif name.lower().endswith(ACCEPTED_SUFFIXES):
                self._file(entry.path, rel, name, via_symlink=False)
            elif self.others is not None:
                self.others.add(rel)

    def _link(self, path: str, rel: str, name: str) -> None:
        real = os.path.realpath(path)
        try:
            st = os.stat(real)
        except OSError:
            self.warnings.append(WalkWarning(clean_line(rel), "symlink-loop", "broken or looping symlink; skipped"))
            return
        if not self._inside(real):
            self.warnings.append(
                WalkWarning(clean_line(rel), "symlink-escape", f"symlink leaves the project root (-> {clean_line(real)}); skipped")
            )
            return
        if stat.S_ISDIR(st.st_mode):
            self.deferred.append((rel, real))
        elif name.lower().endswith(ACCEPTED_SUFFIXES):
            self._file(real, rel, name, via_symlink=True)
        elif self.others is not None:
            self.others.add(rel)

    def _file(self, path: str, rel: str, name: str, *, via_symlink: bool) -> None:
        if has_control(rel) or _not_utf8(rel):
            self.warnings.append(
                WalkWarning(clean_line(rel), "bad-name", "file name is not valid UTF-8 or holds a control character; skipped — rename it")
            )
            return
        try:
            st = os.stat(path)
        except OSError as exc:
            self.warnings.append(WalkWarning(rel, "unreadable", f"cannot read ({exc.strerror}); skipped"))
            return
        if not stat.S_ISREG(st.st_mode):
            self.warnings.append(WalkWarning(rel, "not-regular", f"{describe_mode(st.st_mode)}, not a regular file; skipped"))
            return
        found = FoundFile(rel, path, st.st_dev, st.st_ino, via_symlink, st)
        (self.linked if via_symlink else self.files).append(found)

    def result(self) -> list[FoundFile]:
        """Every real file, plus each file reached through a symlink that is not also
        reached otherwise (an alias is indexed once, under the real path or the first link).
        Hard links are separate names, like copies: each is indexed."""
        by_id = {f.identity: f for f in reversed(self.files)}
        by_rel = {f.rel: f for f in self.files}
        out = list(self.files)
        for f in sorted(self.linked, key=lambda x: x.rel):
            target = os.path.relpath(f.abs_path, self.root).replace(os.sep, "/")
            kept = by_rel.get(target) or by_id.get(f.identity)
            if kept is not None:
                self.warnings.append(WalkWarning(f.rel, "alias", f"symlink to {kept.rel}; indexed once, under that path"))
                continue
            by_id[f.identity] = f
            out.append(f)
        return sorted(out, key=lambda f: f.rel)

    def run(self, tops: list[str]) -> None:
        for top in tops:
            path = os.path.join(str(self.root), top)
            if os.path.islink(path):
                self._link(path, top, top)
            else:
                self.walk_dir(path, top)
        # symlinked directories last, in path order: a real directory is always reached
        # under its real path first; each target is walked at most once
        while self.deferred:
            self.deferred.sort()
            rel, real = self.deferred.pop(0)
            self.walk_dir(real, rel)


def _not_utf8(rel: str) -> bool:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def walk(root: Path, others: OtherFiles | None = None) -> tuple[list[FoundFile], list[WalkWarning]]:
    """All indexable files under the stage folders, sorted by relative path; ``others``,
    when given, takes the path of every other file there as the walk lists it (no file is
    opened or stat'ed for them)."""
    root = root.resolve()
    walker = _Walker(root)
    walker.others = others
    walker.run(check_project(root))
    return walker.result(), walker.warnings


class OtherFiles:
    """The paths of the files in the stage folders that are not notes (images, PDFs, code),
    as one digest made while the walk lists them — nothing is held, whatever their number.
    The walk's order is fixed (names sorted in each folder, symlinked folders last, sorted),
    so the same files give the same digest. An index records it; a run that finds it
    changed (an image added beside the note that embeds it, a PDF removed) looks up again the
    links that asked the file system."""

    def __init__(self) -> None:
        import xxhash

        self._hash = xxhash.xxh3_128()
        self.count = 0

    def add(self, rel: str) -> None:
        self._hash.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        self.count += 1

    def digest(self) -> str:
        return self._hash.hexdigest()
