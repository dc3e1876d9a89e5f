"""What Whoosh's build holds in memory, by its writer settings (issue 20's build memory).

    python -P bench/lexical_memory.py ROOT LIMIT_MB COMPOUND(0|1) [--digest]

Rebuilds the Whoosh index of ROOT's current generation (every span of its registry, read
as the indexer reads them) into a temporary directory with the writer's spill limit
``LIMIT_MB`` and compound (1) or plain (0) segment files, and prints the CPU, the
anonymous RSS before and after, the process's peak RSS above where it started, and the
index's size; ``--digest`` adds a digest of the index contents (stored fields, every
term's postings, field lengths), equal for equal contents. ROOT is only read.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _mem() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("RssAnon", "VmHWM")):
                out[line.split(":")[0]] = int(line.split()[1]) // 1024
    return out


def main() -> None:
    from oriongraph_cli.config import load_config
    from oriongraph_cli.store import lexical
    from oriongraph_cli.store.generation import lexical_doc
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.registry import Registry

    root, limit, compound = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
    gen = Layout(load_config(root).index_dir).current_path()
    reg = Registry.open(gen / "registry.sqlite")
    lexical.WRITER_LIMIT_MB, lexical.COMPOUND_SEGMENTS = limit, compound
    with tempfile.TemporaryDirectory(prefix="orion-lexmem-") as tmp:
        out = Path(tmp) / "lexical"
        m0, t = _mem(), time.process_time()
        n = lexical.build(out, None, [], (lexical_doc(*r) for r in reg.lexical_rows()))
        m1, cpu = _mem(), time.process_time() - t
        size = sum(f.stat().st_size for f in out.iterdir()) / 2**20
        extra = f", contents {lexical.contents_digest(out)[:16]}" if "--digest" in sys.argv else ""
        print(f"limit {limit} MB, {'compound' if compound else 'plain'} segments: {n} spans, CPU {cpu:.0f} s, "
              f"anon {m0['RssAnon']} -> {m1['RssAnon']} MiB, peak +{m1['VmHWM'] - m0['VmHWM']} MiB, {size:.0f} MB{extra}")
        shutil.rmtree(out, ignore_errors=True)
    reg.close()


if __name__ == "__main__":
    main()
