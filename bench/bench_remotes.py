"""What asking git for the project's repositories costs an index run (index/remotes.py):
wall time and git's CPU per call, 30 calls.

    python -P bench/bench_remotes.py ROOT
"""

import resource
import statistics
import sys
import time
from pathlib import Path

from oriongraph_cli.index.remotes import own_repository

root = Path(sys.argv[1])
walls = []
for _ in range(30):
    t = time.perf_counter(); own_repository(root); walls.append((time.perf_counter() - t) * 1000)
ch = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"wall ms median {statistics.median(walls):.1f} (min {min(walls):.1f}, max {max(walls):.1f}); git CPU per call {(ch.ru_utime + ch.ru_stime) / 30 * 1000:.1f} ms")
