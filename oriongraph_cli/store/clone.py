"""A file copied as cheaply as the file system allows.

A generation's registry starts as a copy of the one it is built on, and files that cannot
be hard-linked are copied. Where the file system shares blocks between files (XFS, Btrfs,
bcachefs, and others with reflinks) ``clone_file`` asks it for a copy-on-write clone: the
new file takes no time and no space until it is written, and then only the pages written.
Elsewhere (ext4, tmpfs, another platform) it is a byte copy, as before.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Linux's FICLONE ioctl: _IOW(0x94, 9, int)
FICLONE = 0x40049409


def clone_file(src: Path, dst: Path) -> bool:
    """``dst`` as a copy of ``src``: a copy-on-write clone where the file system makes one
    (returns True), else a byte copy (False). ``dst`` is created or truncated."""
    if sys.platform.startswith("linux"):
        import fcntl

        with open(src, "rb") as s, open(dst, "wb") as d:
            try:
                fcntl.ioctl(d.fileno(), FICLONE, s.fileno())
                return True
            except OSError:  # not a reflink file system, another device, or not allowed
                pass
    shutil.copyfile(src, dst)
    return False


def link_or_clone(src: Path, dst: Path) -> None:
    """``dst`` as a hard link of ``src``; a clone or copy (``clone_file``) where the file
    system cannot link. ``FileNotFoundError`` when ``src`` is missing."""
    try:
        os.link(src, dst)
    except FileNotFoundError:
        raise
    except OSError:
        clone_file(src, dst)
