"""A one-file re-index against a no-change one in one process that keeps the index model,
as `orion serve` and `orion watch` run them: the median CPU of N of each, measured inside
the process (no client, socket or server ticks of 10 ms to blur a change of ~10 ms), and the
median wall time of each (waiting on the disk, which CPU time does not show).

    PYTHONPATH=CHECKOUT python -P bench/bench_kept_index.py PROJECT [-n 7] [--phases]

PROJECT is an indexed copy this script may edit: the eighth note under ``02_knowledge/``
(or ``--note PATH``, relative to PROJECT) gets a sentence appended each round (restored at
the end). Paired before/after figures come
from running it with each checkout in turn. ``--phases`` also prints the median CPU of each
phase of a one-file run, as the indexer names them to its progress display (the time before
the first is the walk).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

from oriongraph_cli import api
from oriongraph_cli.config import load_config


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("-n", type=int, default=7)
    ap.add_argument("--phases", action="store_true", help="the median CPU of each phase of a one-file run too")
    ap.add_argument("--note", default=None, help="the note to edit, relative to PROJECT (default: the eighth under 02_knowledge/)")
    args = ap.parse_args()
    cfg = load_config(args.root, usage_log=False)
    kept = api.kept_index_model()
    note = args.root / args.note if args.note else sorted((args.root / "02_knowledge").rglob("*.md"))[7]
    original = note.read_bytes()

    phases: dict[str, list[float]] = defaultdict(list)

    class Phases:
        """The indexer's progress display, timing each phase it names (CPU)."""

        def __init__(self):
            self.name, self.t, self.spent = "walk", time.process_time(), defaultdict(float)

        def phase(self, name, total=None):
            now = time.process_time()
            self.spent[self.name] += now - self.t
            self.name, self.t = name, now

        def advance(self, n=1):
            pass

    walls: dict[str, list[float]] = defaultdict(list)

    def cpu_of_run(record: bool = False, kind: str | None = None) -> float:
        progress = Phases()
        t, w = time.process_time(), time.perf_counter()
        api.index_project(cfg, embedder_source=kept, progress=progress)
        if kind:
            walls[kind].append(time.perf_counter() - w)
        progress.phase("end")
        if record:
            for name, spent in progress.spent.items():
                phases[name].append(spent)
        return time.process_time() - t

    try:
        note.write_text(original.decode() + "\nA sentence added before the rounds.\n")
        cpu_of_run()  # the model loaded, the index in step with the files
        cpu_of_run()
        one, none = [], []
        for i in range(args.n):
            note.write_text(note.read_text() + f"\nAn added sentence, round {i}.\n")
            one.append(cpu_of_run(record=True, kind="one"))
            none.append(cpu_of_run(kind="none"))
    finally:
        note.write_bytes(original)
        api.index_project(cfg, embedder_source=kept)
    print(f"one file: median {statistics.median(one):.3f} s CPU ({min(one):.3f}-{max(one):.3f}); "
          f"nothing changed: median {statistics.median(none):.3f} s; ratio {statistics.median(one) / statistics.median(none):.1f}x; "
          f"wall: one file {statistics.median(walls['one']):.3f} s, nothing changed {statistics.median(walls['none']):.3f} s")
    if args.phases:
        print("one file, by phase (median CPU ms): " + ", ".join(f"{k} {statistics.median(v) * 1000:.1f}" for k, v in phases.items()))


if __name__ == "__main__":
    main()
