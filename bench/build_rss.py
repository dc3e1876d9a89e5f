"""Where a whole index build holds its memory: RSS sampled with the main thread's stack.

    python -P bench/build_rss.py ROOT [EVERY]  # ROOT: a bench/synth.py project (its fast embedder)
    /usr/bin/time -v python -P bench/build_rss.py ROOT 0.02

Builds ROOT's index from the files (``full=True``) with the bench embedder of
``bench/synth.py`` (never in product code). A thread reads the process's RSS
(``/proc/self/status``) and the main thread's innermost orion and Whoosh frames every
EVERY seconds (default 0.25); at the end it prints the largest RSS seen at each distinct place (MiB, innermost
frame first), so the phase and the line that hold the peak are named.

A second, separate process samples the same RSS every 10 ms as anonymous and file-backed
pages (``RssAnon``/``RssFile``): a native call that holds the GIL stops the thread, not
that process, so its peak is the process's peak, printed with the last stack the thread saw.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(1, str(HERE))


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return 0.0


_WATCH = r"""
import sys, time
pid, out = sys.argv[1], sys.argv[2]
with open(out, "w") as o:
    while True:
        try:
            with open(f"/proc/{pid}/status") as f:
                v = {l.split(":")[0]: int(l.split()[1]) for l in f if l.startswith(("VmRSS", "RssAnon", "RssFile"))}
        except (OSError, ValueError, IndexError):
            break
        o.write(f"{time.time():.3f} {v.get('VmRSS', 0)} {v.get('RssAnon', 0)} {v.get('RssFile', 0)}\n")
        time.sleep(0.01)
"""


def main() -> None:
    import synth

    synth.install_fast_embedder()
    from oriongraph_cli.api import index_project
    from oriongraph_cli.config import load_config

    every = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    main_id = threading.main_thread().ident
    samples: list[tuple[float, list[str], float]] = []
    watch_out = Path(f"/tmp/build_rss_watch_{os.getpid()}.txt")
    watcher = subprocess.Popen([sys.executable, "-c", _WATCH, str(os.getpid()), str(watch_out)])
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            frame = sys._current_frames().get(main_id)
            stack = traceback.extract_stack(frame) if frame else []
            where = [f"{os.path.basename(s.filename)}:{s.name}:{s.lineno}" for s in stack
                     if "oriongraph_cli" in s.filename or "whoosh" in s.filename][-6:]
            samples.append((_rss_mib(), where, time.time()))
            time.sleep(every)

    threading.Thread(target=sample, daemon=True).start()
    t = time.perf_counter()
    res = index_project(load_config(Path(sys.argv[1])), full=True)
    done.set()
    print(f"{res.spans} spans in {time.perf_counter() - t:.0f} s")
    watcher.terminate()
    watcher.wait()
    rows = [tuple(float(x) for x in line.split()) for line in watch_out.read_text().splitlines() if len(line.split()) == 4]
    watch_out.unlink()
    if rows:
        top = sorted(rows, key=lambda r: -r[1])
        print("out-of-process peaks (MiB: rss = anon + file), with the last stack the thread saw:")
        shown: list[float] = []
        for when, rss, anon, filed in top:
            if any(abs(when - w) < 5 for w in shown):
                continue
            shown.append(when)
            before = [s for s in samples if s[2] <= when]
            where = before[-1][1] if before else []
            print(f"{rss / 1024:.0f} = {anon / 1024:.0f} + {filed / 1024:.0f}", " <- ".join(reversed(where)))
            if len(shown) >= 8:
                break
    print("in-process samples:")
    seen: set[tuple[str, ...]] = set()
    for rss, where, _when in sorted(samples, key=lambda s: -s[0]):
        key = tuple(where[-3:])
        if key in seen:
            continue
        seen.add(key)
        print(round(rss), " <- ".join(reversed(where)))
        if len(seen) >= 12:
            break


if __name__ == "__main__":
    main()
