"""`orion compile` through `orion serve` against a fresh in-process compile: CPU seconds, paired.

    python bench/bench_serve.py --root PROJECT --queries QUERIES.jsonl [-n 12] [--before CHECKOUT]

Starts `orion serve --detach` for PROJECT (stopped at the end), then runs, in turn for
each of ``n`` intents: a fresh compile of the same command line at CHECKOUT (``--before``:
``PYTHONPATH=CHECKOUT python -P -m oriongraph_cli``), the same fresh compile with this
checkout (``ORION_NO_SERVE=1``), and the served compile. Each process's CPU is the
kernel's own accounting of the finished child (user + sys, as ``/usr/bin/time`` reads
it); the server's CPU for a served compile is the growth of its utime + stime in
``/proc/PID/stat`` across that run. The outputs of the three are compared byte for byte.
Writes bench/results/serve.json.
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


def run(cmd: list[str], env: dict, cwd: str) -> tuple[float, bytes, int]:
    """(user + sys CPU seconds of the finished child, its stdout, its exit code)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, cwd=cwd)
    out = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, out, proc.returncode


def server_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--queries", required=True)
    ap.add_argument("-n", type=int, default=12)
    ap.add_argument("--before", help="a checkout of the commit to compare with (fresh compiles)")
    ap.add_argument("--budget", type=int, default=4000)
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    intents = [json.loads(line)["text"] for line in Path(args.queries).read_text().splitlines() if line.strip()][: args.n]
    py = sys.executable
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ORION_NO_SERVE")}
    here = str(Path(__file__).resolve().parent.parent)
    cwd = "/"  # holds no oriongraph_cli: PYTHONPATH chooses the checkout

    started = subprocess.run([py, "-m", "oriongraph_cli", "serve", "--detach", "--root", root], env=base_env, cwd=cwd,
                             capture_output=True, text=True)
    if started.returncode != 0:
        sys.exit(started.stderr)
    st = json.loads(subprocess.run([py, "-m", "oriongraph_cli", "serve", "--status", "--json", "--root", root],
                                   env=base_env, cwd=cwd, capture_output=True, text=True).stdout)
    pid = st["pid"]
    rows = []
    try:
        for intent in intents:
            argv = ["compile", intent, "--root", root, "--no-usage-log", "--json", "--budget", str(args.budget)]
            row: dict = {"intent": intent}
            if args.before:
                row["before_cpu"], before_out, _ = run([py, "-P", "-m", "oriongraph_cli", *argv], {**base_env, "PYTHONPATH": args.before}, cwd)
            row["fresh_cpu"], fresh_out, code = run([py, "-P", "-m", "oriongraph_cli", *argv], {**base_env, "PYTHONPATH": here, "ORION_NO_SERVE": "1"}, cwd)
            s0 = server_cpu(pid)
            row["client_cpu"], served_out, served_code = run([py, "-P", "-m", "oriongraph_cli", *argv], {**base_env, "PYTHONPATH": here}, cwd)
            row["server_cpu"] = server_cpu(pid) - s0
            row["identical"] = served_out == fresh_out and code == served_code and (not args.before or before_out == fresh_out)
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        subprocess.run([py, "-m", "oriongraph_cli", "serve", "--stop", "--root", root], env=base_env, cwd=cwd, capture_output=True)

    def med(key):
        return round(statistics.median(r[key] for r in rows), 3)

    both = [r["client_cpu"] + r["server_cpu"] for r in rows]
    summary = {
        "pairs": len(rows),
        "identical_outputs": sum(r["identical"] for r in rows),
        "fresh_cpu_median": med("fresh_cpu"),
        "client_cpu_median": med("client_cpu"),
        "server_cpu_median": med("server_cpu"),
        "client_plus_server_cpu_median": round(statistics.median(both), 3),
        "client_over_fresh_median": round(statistics.median(r["client_cpu"] / r["fresh_cpu"] for r in rows), 3),
        "client_plus_server_over_fresh_median": round(statistics.median((r["client_cpu"] + r["server_cpu"]) / r["fresh_cpu"] for r in rows), 3),
    }
    if args.before:
        summary["before_cpu_median"] = med("before_cpu")
        summary["fresh_over_before_median"] = round(statistics.median(r["fresh_cpu"] / r["before_cpu"] for r in rows), 3)
    print(json.dumps(summary, indent=2))
    write("serve.json", {"root": root, "budget": args.budget, "server_tick_s": 1 / TICK, "summary": summary, "runs": rows,
                         "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})


if __name__ == "__main__":
    main()
