"""A sequence of index runs on an indexed project, each after one kind of change, timed in
one process (CPU seconds, and the graph phase), the embedder replaced by ``bench/synth.py``'s
(figures exclude model time).

    PYTHONPATH=CHECKOUT python -P bench/reindex_steps.py ROOT edit,add,edit,add,edit

Steps: ``edit`` appends a sentence to one document (``synth.edit_files``), ``add`` writes a
new note whose title has four words (a term the link graph's DEFINES edges look for),
``none`` changes nothing. Run it on a copy: every step writes into ROOT.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, steps = Path(sys.argv[1]), sys.argv[2].split(",")
    synth.install_fast_embedder()
    import oriongraph_cli
    from oriongraph_cli.api import index_project
    from oriongraph_cli.config import load_config

    print("orion from", Path(oriongraph_cli.__file__).parent, flush=True)
    cfg = load_config(root)
    for step in steps:
        if step == "edit":
            synth.edit_files(root)
        elif step == "add":
            n = time.time_ns()
            (root / "02_knowledge" / f"new-note-{n}.md").write_text(
                f"---\ntitle: Queue depth alarms {n}\n---\n\n# Queue depth alarms\n\nWe alarm when queue depth exceeds the retry budget.\n")
        elif step != "none":
            sys.exit(f"unknown step {step!r}: edit, add or none")
        timer = synth.PhaseTimer()
        c = time.process_time()
        index_project(cfg, progress=timer)
        phases = timer.done()
        print(f"{step}\t{time.process_time() - c:.3f} s CPU\tgraph {phases.get('graph', 0) / 1000:.2f} s", flush=True)


if __name__ == "__main__":
    main()
