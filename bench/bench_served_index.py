"""A one-file re-index against a no-change one: in the command's own process and through
`orion serve`, CPU seconds, paired.

    python bench/bench_served_index.py --root PROJECT --file REL [-n 6]

PROJECT is an indexed copy this script may edit (REL, a note under it, gets a sentence
appended each round; restored at the end). Each round, in turn: in-process (``ORION_NO_SERVE=1``)
append + ``orion index --quiet``, then ``orion index --quiet`` with nothing changed; then the same two
through the server (started with ``orion serve --detach`` before the first round, stopped at
the end). A process's CPU is the kernel's accounting of the finished child (user + sys, as
``/usr/bin/time -v`` reads it); the server's share of a served run is the growth of its
utime + stime in ``/proc/PID/stat`` across that run (10 ms ticks). After the rounds, the
served and in-process runs must have left the same index: a compile of the appended
sentence is run both ways and compared. Wall times (each command's whole process, as the
user waits for it) are recorded beside. Writes bench/results/served_index.json.

``--served-only``: the served rounds alone, as a project with a server running indexes (every
``orion index`` goes through it, so each run builds on the generation the server wrote; an
in-process run between two served ones makes the server read that generation afresh).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from results_file import write

TICK = os.sysconf("SC_CLK_TCK")


WALL: dict[str, list[float]] = {}


def run(cmd: list[str], env: dict, cwd: str, wall: str | None = None) -> tuple[float, int]:
    """(user + sys CPU seconds of the finished child, its exit code); its wall time is
    appended to ``WALL[wall]``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    _pid, status, usage = os.wait4(proc.pid, 0)
    if wall:
        WALL.setdefault(wall, []).append(time.perf_counter() - t0)
    return usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def server_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--file", required=True, help="a note (relative to the root) to append to")
    ap.add_argument("-n", type=int, default=6)
    ap.add_argument("--served-only", action="store_true", help="no in-process rounds: the server writes every generation")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    note = Path(root) / args.file
    original = note.read_bytes()
    py = sys.executable
    env = {k: v for k, v in os.environ.items() if k not in ("ORION_NO_SERVE",)}
    local_env = {**env, "ORION_NO_SERVE": "1"}
    cmd = [py, "-P", "-m", "oriongraph_cli", "index", "--quiet", "--root", root]
    rows = {k: [] for k in ("local_one", "local_none", "served_one_client", "served_one_server", "served_none_client", "served_none_server")}
    assert run(cmd, local_env, "/")[1] == 0  # start from an index that matches the files
    started = subprocess.run([py, "-P", "-m", "oriongraph_cli", "serve", "--detach", "--root", root], env=env, cwd="/",
                             capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    status = json.loads(subprocess.run([py, "-P", "-m", "oriongraph_cli", "serve", "--status", "--json", "--root", root],
                                       env=env, cwd="/", capture_output=True, text=True).stdout)
    pid = status["pid"]
    try:
        for i in range(args.n):
            local_rounds = () if args.served_only else (("one", f"\nLocal round {i}: a sentence appended to measure a one-file re-index.\n"), ("none", None))
            for kind, text in local_rounds:
                if text:
                    with note.open("a") as fh:
                        fh.write(text)
                cpu, code = run(cmd, local_env, "/", f"local_{kind}")
                assert code == 0
                rows[f"local_{kind}"].append(cpu)
            for kind, text in (("one", f"\nServed round {i}: a sentence appended to measure a one-file re-index.\n"), ("none", None)):
                if text:
                    with note.open("a") as fh:
                        fh.write(text)
                s0 = server_cpu(pid)
                cpu, code = run(cmd, env, "/", f"served_{kind}")
                assert code == 0
                rows[f"served_{kind}_client"].append(cpu)
                rows[f"served_{kind}_server"].append(server_cpu(pid) - s0)
        served_count = json.loads(subprocess.run([py, "-P", "-m", "oriongraph_cli", "serve", "--status", "--json", "--root", root],
                                                 env=env, cwd="/", capture_output=True, text=True).stdout)
        intent = f"Served round {args.n - 1}: a sentence appended to measure a one-file re-index"
        compile_cmd = [py, "-P", "-m", "oriongraph_cli", "compile", intent, "--root", root, "--json", "--no-usage-log"]
        same = (subprocess.run(compile_cmd, env=local_env, cwd="/", capture_output=True).stdout
                == subprocess.run(compile_cmd, env=env, cwd="/", capture_output=True).stdout)
    finally:
        subprocess.run([py, "-P", "-m", "oriongraph_cli", "serve", "--stop", "--root", root], env=env, cwd="/", capture_output=True)
        note.write_bytes(original)
        run(cmd, local_env, "/")
    med = {k: round(statistics.median(v), 3) if v else None for k, v in rows.items()}
    local = not args.served_only
    served_one = [c + s for c, s in zip(rows["served_one_client"], rows["served_one_server"])]
    served_none = [c + s for c, s in zip(rows["served_none_client"], rows["served_none_server"])]
    report = {
        "rounds": args.n, "served_only": args.served_only, "root": root, "file": args.file, "median": med, "runs": rows,
        "wall_median": {k: round(statistics.median(v), 3) for k, v in WALL.items()},
        "served_answered": served_count.get("served"), "index_model_loads": served_count.get("index_model_loads"),
        "compile_after_same": same,
        "ratio_local": round(med["local_one"] / med["local_none"], 2) if local else None,
        "ratio_served": round(statistics.median(served_one) / statistics.median(served_none), 2),
        "ratio_served_one_to_local_none": round(statistics.median(served_one) / med["local_none"], 2) if local else None,
    }
    write("served_index.json", report)
    if local:
        print(f"in-process: one file {med['local_one']:.3f} s, nothing changed {med['local_none']:.3f} s: {report['ratio_local']}x")
    print(f"served (client + server): one file {statistics.median(served_one):.3f} s "
          f"({med['served_one_client']:.3f} + {med['served_one_server']:.3f}), nothing changed {statistics.median(served_none):.3f} s "
          f"({med['served_none_client']:.3f} + {med['served_none_server']:.3f}): {report['ratio_served']}x")
    print(f"served one file / in-process nothing changed: {report['ratio_served_one_to_local_none']}x; "
          f"answered by the server {served_count.get('served')}, index model loads {served_count.get('index_model_loads')}; "
          f"compile after: {'same' if same else 'DIFFERENT'}")
    print("wall medians: " + ", ".join(f"{k} {v:.3f} s" for k, v in report["wall_median"].items()))


if __name__ == "__main__":
    main()
