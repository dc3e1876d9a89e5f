"""How far the leading document stands above the next, and whether that says the next one
answers too (issue 21: read deeper into the leader, or wider?).

    python bench/leader_margin.py scifact [--limit 150]           # SciFact claims with evidence, dev split
    python bench/leader_margin.py suite --suite /tmp/suite        # the suite's judged intents (not SciFact)

For each intent one compile (1,000 tokens; 300 for SciFact claims) records the scored
candidates; a document's score is its best span's base score, ``r`` the runner-up
document's over the leader's. Printed per band of ``r``: how many intents, how often the
leader is relevant (an evidence document for SciFact) and how often the runner-up is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "suite"))

BANDS = [(0, .7), (.7, .8), (.8, .9), (.9, .95), (.95, 1.01)]


def _leaders(cfg, reader, text: str, budget: int) -> tuple[float, str, str | None]:
    from oriongraph_cli.api import build_request, compile_workingset
    from oriongraph_cli.assemble import workingset

    seen: dict = {}
    real = workingset.Assembly.__init__

    def spy(self, request, cfg_, reader_, sig, scored, *a, **k):
        seen["scored"] = scored
        real(self, request, cfg_, reader_, sig, scored, *a, **k)

    workingset.Assembly.__init__ = spy
    try:
        compile_workingset(build_request(cfg, text, budget=budget, explain=False, record_usage=False, deliver=("markdown",)), cfg, reader)
    finally:
        workingset.Assembly.__init__ = real
    best: dict[str, float] = {}
    for c in seen.get("scored", []):
        best[c.metadata.filepath] = max(best.get(c.metadata.filepath, 0.0), c.base_score)
    docs = sorted(best.items(), key=lambda x: -x[1])
    if not docs:
        return 0.0, "", None
    r = docs[1][1] / docs[0][1] if len(docs) > 1 and docs[0][1] > 0 else 0.0
    return r, docs[0][0], docs[1][0] if len(docs) > 1 else None


def _table(name: str, rows: list[tuple[float, bool, bool]]) -> None:
    for lo, hi in BANDS:
        g = [x for x in rows if lo <= x[0] < hi]
        if g:
            print(f"{name}\tr in [{lo}, {min(hi, 1.0)}]\tn={len(g)}\tleader relevant {sum(x[1] for x in g) / len(g):.2f}"
                  f"\trunner-up relevant {sum(x[2] for x in g) / len(g):.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("scifact", "suite"))
    ap.add_argument("--root", type=Path, default=Path("/tmp/suite/scifact"), help="indexed SciFact project (scifact)")
    ap.add_argument("--suite", type=Path, default=Path("/tmp/suite"))
    ap.add_argument("--limit", type=int, default=150)
    args = ap.parse_args()
    if args.what == "scifact":
        import bench_evidence as be

        bench = be.Bench(args.root, {})
        claims = [c for c in be.load_claims(be.DATA) if c.split == "dev"][: args.limit]
        rows = []
        for c in claims:
            r, first, second = _leaders(bench.cfg, bench.reader, c.text, 300)
            rows.append((r, first in c.docs, second in c.docs))
        bench.close()
        _table("scifact-dev", rows)
        return
    import run as suite_run

    for project in ("django", "peps", "rfcs", "adr-moj"):
        cfg, reader = suite_run._open(args.suite, project)
        rows = []
        for q in suite_run._queries(project, None):
            rel = set(q.positives)
            r, first, second = _leaders(cfg, reader, q.text, 1000)
            rows.append((r, first in rel, second in rel))
        reader.close()
        _table(project, rows)


if __name__ == "__main__":
    main()
