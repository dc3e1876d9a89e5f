"""The repositories a project's files belong to, so that a link to one of its files by the
forge's web address (``https://github.com/o/r/blob/main/docs/setup.md``) names the file: the
``repository`` setting when it is set, else every remote of the git work tree the project
is in, with the project's folder inside it (``git rev-parse --show-prefix``). Outside a work
tree, without git or when git fails: none, and such a link stays external.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from oriongraph_cli.repository import OwnRepository

TIMEOUT = 5.0  # seconds each git command may take
_GIT = ("git", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false")


def _git(root: Path, *args: str) -> str | None:
    try:
        proc = subprocess.run([*_GIT, "-C", str(root), *args], capture_output=True, stdin=subprocess.DEVNULL,
                              timeout=TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "surrogateescape")


def own_repository(root: Path, setting: str = "") -> OwnRepository:
    """The project's repositories: ``setting`` (addresses separated by commas or spaces) when
    given, else the git remotes' addresses; the prefix is the project's folder in its work
    tree either way (``""`` outside one)."""
    shown = _git(root, "rev-parse", "--show-prefix")  # fails outside a work tree
    prefix = shown.strip() if shown is not None else ""
    if setting.strip():
        return OwnRepository.of(setting, prefix)
    if shown is None:
        return OwnRepository()
    remotes = _git(root, "config", "--get-regexp", r"^remote\..*\.url$") or ""
    addresses = [line.split(None, 1)[1] for line in remotes.splitlines() if len(line.split(None, 1)) == 2]
    return OwnRepository.of(addresses, prefix)
