"""`orion watch`: the CPU one edit costs the watching process, at two checkouts in turn.

    python bench/bench_watch_edits.py --root PROJECT --file REL [-n 6] [--before CHECKOUT]

Starts ``orion watch --root PROJECT`` (``PYTHONPATH=CHECKOUT python -P -m oriongraph_cli``,
this checkout and, with ``--before``, the other, one after the other), waits until it says
it is watching, then ``n`` times appends a sentence to REL and waits for the run's line; the
CPU of that run is the growth of the process's utime + stime in ``/proc/PID/stat`` (10 ms
ticks) from the edit to the line. The note is restored at the end (and indexed again by the
next watch). Writes bench/results/watch_edits.json.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

from results_file import write

TICK = os.sysconf("SC_CLK_TCK")
HERE = Path(__file__).resolve().parent.parent


def cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def wait_line(proc, needle: str, timeout: float = 300) -> str:
    deadline = time.monotonic() + timeout
    buf = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if not ready:
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            raise RuntimeError(f"watch ended: {buf.decode(errors='replace')[-500:]}")
        buf += chunk
        for line in buf.decode(errors="replace").splitlines():
            if needle in line:
                return line
    raise TimeoutError(needle)


def measure(checkout: str, root: str, note: Path, n: int, tag: str) -> list[float]:
    env = {**os.environ, "PYTHONPATH": checkout, "ORION_NO_SERVE": "1"}
    proc = subprocess.Popen([sys.executable, "-P", "-m", "oriongraph_cli", "watch", "--root", root, "--debounce", "200"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, cwd="/")
    runs = []
    try:
        wait_line(proc, "watching for changes")
        for i in range(n):
            time.sleep(0.5)
            before = cpu(proc.pid)
            with note.open("a") as fh:
                fh.write(f"\n{tag} edit {i}: a sentence appended while orion watch runs.\n")
            wait_line(proc, "file(s) changed")
            runs.append(cpu(proc.pid) - before)
    finally:
        proc.terminate()
        proc.wait(30)
    return runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("-n", type=int, default=6)
    ap.add_argument("--before", help="a checkout of the commit to compare with")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    note = Path(root) / args.file
    original = note.read_bytes()
    results = {}
    try:
        for name, checkout in (("this", str(HERE)), ("before", args.before)):
            if checkout:
                results[name] = measure(checkout, root, note, args.n, name)
    finally:
        note.write_bytes(original)
    med = {k: round(statistics.median(v), 3) for k, v in results.items()}
    write("watch_edits.json", {"root": root, "file": args.file, "edits": args.n, "runs": results, "median": med})
    for k, v in results.items():
        print(f"{k}: CPU per edit median {med[k]:.3f} s ({', '.join(f'{x:.2f}' for x in v)})")


if __name__ == "__main__":
    main()
