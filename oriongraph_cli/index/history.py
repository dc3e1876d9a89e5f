"""When git last committed each file: a note's creation time when its front matter gives
none (``parse_document``'s ``git_time``).

``git log`` lists commits newest first, so the first commit that names a file is its last
one. Only the files a run parses are asked for, and the log is read only until every one of
them has been named: a one-file change in a repository with a long history no longer walks
all of it (on python/peps, 11.6k commits, the whole log costs git ~0.3 s of CPU; a file
committed recently is found in the first few commits). Files git does not track (a new
note, not yet committed: what a pre-commit hook most often indexes) are left out before the
log is read, since no commit names them.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Iterable

NAMED = 200  # up to this many files are named to git (pathspecs); more: the log is read for all
TIMEOUT = 10.0  # seconds git may take in all; what was read by then is kept
_GIT = ("git", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "--literal-pathspecs")


def git_times(root: Path, paths: Iterable[str] | None = None) -> dict[str, int]:
    """{relative path: unix time of the last commit that changed it} for ``paths`` (all the
    files the log names, when None) that git tracks under ``root``; {} outside a git work
    tree, without git, or when git fails."""
    wanted = None if paths is None else set(paths)
    if wanted is not None:
        if not wanted:
            return {}
        if len(wanted) <= NAMED:
            wanted = _tracked(root, wanted)
            if not wanted:
                return {}
    cmd = [*_GIT, "-C", str(root), "log", "--format=%x00%ct", "--name-only", "--no-renames", "--relative"]
    if wanted is not None and len(wanted) <= NAMED:
        cmd += ["--", *sorted(wanted)]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                text=True, encoding="utf-8", errors="surrogateescape")
    except OSError:
        return {}
    watchdog = threading.Timer(TIMEOUT, proc.kill)
    watchdog.start()
    times: dict[str, int] = {}
    try:
        stamp = 0
        for line in proc.stdout:
            if line.startswith("\x00"):
                try:
                    stamp = int(line[1:].strip() or 0)
                except ValueError:
                    stamp = 0
                continue
            name = line.rstrip("\n")
            if not name.strip() or name in times or (wanted is not None and name not in wanted):
                continue
            times[name] = stamp
            if wanted is not None and len(times) == len(wanted):
                break  # every file asked for is named: older commits cannot change the answer
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.wait()
    return times


def _tracked(root: Path, paths: set[str]) -> set[str]:
    """Which of ``paths`` git tracks (its index lists them), in one ``git ls-files``."""
    try:
        out = subprocess.run([*_GIT, "-C", str(root), "ls-files", "-z", "--", *sorted(paths)], capture_output=True,
                             stdin=subprocess.DEVNULL, timeout=TIMEOUT, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p} & paths
