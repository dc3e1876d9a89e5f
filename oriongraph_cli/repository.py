"""Which web addresses name the project's own files: a link to the repository that holds the
project, by its address on the forge (``https://github.com/o/r/blob/main/docs/setup.md``),
names ``docs/setup.md`` as a root-absolute path would. Pure: the repositories come from the
``repository`` setting or the git remotes (:mod:`index.remotes`); the resolver
(:mod:`graph.resolve`) looks the path up.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import unquote

# a repository as a git remote or a setting writes it: https://host/owner/name(.git),
# ssh://git@host(:port)/owner/name.git, git@host:owner/name.git; GitLab groups nest
_REMOTE_RE = re.compile(
    r"^(?:(?:https?|ssh|git)://(?:[^@/\s]+@)?([^/:\s]+)(?::\d+)?/|(?:[^@/\s]+@)?([^/:\s]+):(?!//))"
    r"([^\s?#]+?)(?:\.git)?/*$"
)
# a file of a repository by its web address: https://host/<repo>/blob/<ref>/<path> (tree, raw,
# edit; GitLab's /-/blob/), or GitHub's raw host, https://raw.githubusercontent.com/o/r/<ref>/<path>
_FILE_RE = re.compile(r"^https?://([^/?#\s@]+)/([^?#\s]+?)/(?:-/)?(?:blob|tree|raw|edit)/([^/?#\s]+)(?:/([^?#\s]*))?$", re.IGNORECASE)
_RAW_RE = re.compile(r"^https?://raw\.githubusercontent\.com/([^/?#\s]+/[^/?#\s]+)/([^/?#\s]+)(?:/([^?#\s]*))?$", re.IGNORECASE)


def addresses_of(setting: str) -> list[str]:
    """The addresses a ``repository`` setting lists, separated by commas or spaces."""
    return [a for a in re.split(r"[\s,]+", setting.strip()) if a]


def repository_key(address: str) -> str | None:
    """A repository's address as a key: ``host/owner/name``, lower case, from a web address or
    a git remote (``git@github.com:o/r.git`` -> ``github.com/o/r``); None for anything that
    names no repository (a bare host, a local path, a file URL)."""
    address = address.strip()
    if not address or address.startswith(("/", ".", "file:")):
        return None
    m = _REMOTE_RE.match(address)
    if m is None:
        return None
    host, path = (m.group(1) or m.group(2)).lower(), m.group(3).strip("/").lower()
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2 or any(p in (".", "..") for p in parts):
        return None
    return f"{host}/{'/'.join(parts)}"


@dataclass(frozen=True)
class OwnRepository:
    """The repositories a project's files belong to (``keys``: :func:`repository_key`) and
    the folder of the repository the project's root is (``prefix``: ``""`` at the
    repository's root, else ``docs/``)."""

    keys: frozenset[str] = frozenset()
    prefix: str = ""

    @classmethod
    def of(cls, addresses: str | list[str] | tuple[str, ...], prefix: str = "") -> OwnRepository:
        if isinstance(addresses, str):
            addresses = addresses_of(addresses)
        keys = frozenset(k for k in map(repository_key, addresses) if k is not None)
        prefix = posixpath.normpath(prefix.strip("/")) if prefix.strip("/") else "."
        return cls(keys, "" if prefix == "." else prefix + "/")

    def __bool__(self) -> bool:
        return bool(self.keys)

    def state(self) -> list[str] | None:
        """What an index records to know when these change: the sorted keys and the prefix."""
        return [*sorted(self.keys), f"prefix:{self.prefix}"] if self.keys else None

    def path_of(self, address: str) -> str | None:
        """The project-relative path a web address names when it is a file (or folder) of one
        of these repositories at any revision, under the project's folder: ``https://github.com/
        o/r/blob/5e1f…/docs/setup.md`` -> ``docs/setup.md`` (``setup.md`` when the project is
        the repository's ``docs/``); None for another repository's address, its front page, a
        file outside the project's folder or a path leaving it."""
        if not self.keys:
            return None
        address = address.split("?", 1)[0].strip()  # ?plain=1: a view of the same file
        m = _RAW_RE.match(address)
        if m is not None:
            key, path = f"github.com/{m.group(1).lower()}", m.group(3)
        else:
            m = _FILE_RE.match(address)
            if m is None:
                return None
            key, path = f"{m.group(1).lower()}/{m.group(2).strip('/').lower()}", m.group(4)
        if key not in self.keys:
            return None
        path = unquote(path or "").strip("/")
        rel = posixpath.normpath(path) if path else "."
        if rel in (".", "..") or rel.startswith(("../", "/")):
            return None  # the repository's front page, or a path leaving it
        if self.prefix:
            if not rel.startswith(self.prefix):
                return None
            rel = rel[len(self.prefix):]
        return rel
