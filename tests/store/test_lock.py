"""The writer lock: the kernel's exclusive ``flock`` on a file, taken, waited for with a
timeout, freed when its descriptor closes, never through a link."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from oriongraph_cli.store.layout import exclusive_lock, locked


def test_taken_when_free_and_freed_when_closed(tmp_path):
    path = tmp_path / "orion.lock"
    fd = exclusive_lock(path, 0)
    with pytest.raises(TimeoutError):
        exclusive_lock(path, 0)  # another open of the file: another holder, as another process would be
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        exclusive_lock(path, 0.2)
    assert time.monotonic() - started >= 0.2  # it waited its timeout, then gave up
    os.close(fd)
    with locked(path, 0):
        pass
    os.close(exclusive_lock(path, 0))


def test_a_holder_in_another_process_is_waited_for_until_it_ends(tmp_path):
    path = tmp_path / "orion.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "time.sleep(0.5)\n"
    )], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(TimeoutError):
            exclusive_lock(path, 0)
        fd = exclusive_lock(path, 30)  # the kernel frees it when the holder ends
        os.close(fd)
    finally:
        holder.wait(timeout=30)


def test_never_through_a_link(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("")
    (tmp_path / "orion.lock").symlink_to(target)
    with pytest.raises(OSError):
        exclusive_lock(tmp_path / "orion.lock", 0)
