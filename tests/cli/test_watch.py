"""`orion watch` against a real project: a new note is indexed without a command, and
SIGTERM stops it like Ctrl-C."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time

import pytest
from conftest import run_orion

pytestmark = pytest.mark.slow


def test_watch_reindexes_a_new_note_and_stops_on_sigterm(sample_index, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", "watch", "--root", str(root), "--debounce", "200"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    import queue
    import threading

    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()

    def wait_for(text: str) -> str:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            if text in line:
                return line
        raise AssertionError(f"no line with {text!r} within 60 s")

    try:
        wait_for("start:")
        wait_for("watching for changes")
        (root / "01_context" / "watched.md").write_text("# Watched\n\nA note the watcher indexes by itself.\n")
        wait_for("1 added")
        st = json.loads(run_orion("status", "--json", "--root", str(root)).stdout)
        assert st["up_to_date"], st["stale"]
        (root / "01_context" / "flow.png").write_bytes(b"PNG")  # a file a link may name
        wait_for("links to other files looked up again")
        st = json.loads(run_orion("status", "--json", "--root", str(root)).stdout)
        assert st["up_to_date"] and not st["other_files_changed"], st
        # a stage folder moved away, and one made after the watch began: both seen
        shutil.move(str(root / "04_artifacts"), str(tmp_path / "artifacts-elsewhere"))
        wait_for("stage folders changed")
        (root / "04_artifacts").mkdir()
        (root / "04_artifacts" / "report.md").write_text("# Report\n\nThe okapi report.\n")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = json.loads(run_orion("status", "--json", "--root", str(root)).stdout)
            if st["up_to_date"]:
                break
            time.sleep(1)
        assert st["up_to_date"], st["stale"]
        out = run_orion("show", "04_artifacts/report.md", "--root", str(root))
        assert "okapi" in out.stdout
        (root / "04_artifacts" / "later.md").write_text("# Later\n\nA note in the folder made after the watch began.\n")
        wait_for("1 added")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        err = proc.stderr.read()
    assert proc.returncode == 143 and "terminated" in err and "Traceback" not in err


def test_watch_refuses_a_bad_debounce_and_a_non_project(tmp_path):
    assert run_orion("watch", "--root", str(tmp_path), "--debounce", "1").returncode == 2
    r = run_orion("watch", "--root", str(tmp_path))
    assert r.returncode == 3 and "not an OrionFS project" in r.stderr
