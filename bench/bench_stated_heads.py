"""How long reading a note's head for its state takes on hostile heads: many brackets, many
links, thousands of "recommend"s, a line of megabytes. The best of three reads of each, in
milliseconds; the orion measured is this checkout's or ORION_BENCH_SRC's (another checkout,
for a before-and-after).

    python -P bench/bench_stated_heads.py
    ORION_BENCH_SRC=/tmp/base python -P bench/bench_stated_heads.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(Path(__file__).resolve().parent.parent)))

from oriongraph_cli.index.stated import read_stated  # noqa: E402

CASES = {
    "40,000 brackets": "# T\n\n" + "[" * 40_000 + "\n",
    "6,000 links": "# T\n\n" + "[a](b) " * 6_000 + "\n",
    "5,000 recommends": "# T\n\n" + "we recommend " * 5_000 + "instead of this page.\n",
    "2,000 successors": "# T\n\n" + "[x](y) the successor to th " * 2_000 + "\n",
    "3,000 for-current": "# T\n\nThis is old. " + "For current x, see " * 3_000 + "[a](b).\n",
    "2 MB line + a recommendation": "# T\n\n" + "x" * 2_000_000 + " recommend [a](b) instead of T.\n",
    "2 MB line of words": "# T\n\n" + "x " * 1_000_000 + "\n",
}


def main() -> None:
    for name, text in CASES.items():
        best = min(_time(text) for _ in range(3))
        print(f"{name:30s} {best * 1000:8.1f} ms")


def _time(text: str) -> float:
    t0 = time.perf_counter()
    read_stated(text, title="T")
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
