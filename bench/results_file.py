"""What every bench script records beside its figures: machine, date, commit, command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def header(cmd: str | None = None) -> dict:
    """``cmd`` defaults to the running script and its arguments."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()

    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    if cmd is None:
        script = Path(sys.argv[0]).resolve()
        shown = script.relative_to(REPO) if script.is_relative_to(REPO) else Path("bench", script.name)  # bench/suite/… too
        cmd = f"python {shown.as_posix()} " + " ".join(sys.argv[1:])
    return {"machine": f"{os.cpu_count()} cores, {os.uname().machine}", "date": time.strftime("%Y-%m-%d"),
            "commit": git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else ""), "command": cmd.strip()}


def write(name: str, payload: dict) -> None:
    """``bench/results/NAME`` = the header and ``payload``, indented JSON."""
    (HERE / "results" / name).write_text(json.dumps({**header(), **payload}, indent=2) + "\n")
