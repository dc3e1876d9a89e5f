"""Where orion misses evidence that naive RRF chunks deliver: a failure reading for the
answer-per-token benchmark (``bench_evidence.py``).

    python bench/evidence_failures.py --root /tmp/scifact-copy --split dev --limit 80 --budgets 300,600,1000,2000
    ORION_BENCH_SRC=/tmp/base python bench/evidence_failures.py ...   # the orion of another checkout

For each claim and budget, the evidence sentences present in RRF chunks' delivery and not in
orion's Markdown are classed by what orion did with their document: not delivered at all
(``doc not delivered``), delivered but without the span that holds the sentence (``span not
quoted``), or the span delivered shortened without that sentence (``shortened (LEVEL)
dropped it``). ``orion only`` counts the sentences orion delivered and RRF chunks did not;
``unspent`` is the budget minus orion's whole output, mean over claims. ``-v`` prints one line
per lost sentence (budget, claim id, cause, orion's tokens, document, sentence).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_evidence as be  # noqa: E402  (puts ORION_BENCH_SRC's orion first on the path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True, help="indexed SciFact OrionFS project (read only)")
    ap.add_argument("--data", type=Path, default=be.DATA)
    ap.add_argument("--split", choices=("dev", "held", "all"), default="dev")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--budgets", default="300,600,1000,2000")
    ap.add_argument("--settings", default="{}", help="orion settings overrides as JSON")
    ap.add_argument("-v", action="store_true", help="one line per lost sentence")
    args = ap.parse_args()

    from oriongraph_cli.api import build_request, compile_workingset
    from oriongraph_cli.render import render_text

    claims = [c for c in be.load_claims(args.data) if args.split == "all" or c.split == args.split][: args.limit]
    bench = be.Bench(args.root, json.loads(args.settings))
    rrf_rows = {c.id: bench.rankings(c, {"rrf"})["rrf"] for c in claims}
    for budget in [int(b) for b in args.budgets.split(",")]:
        cause: Counter = Counter()
        unspent = []
        for c in claims:
            rrf_text = be.norm(bench.chunks(rrf_rows[c.id], budget).text)
            request = build_request(bench.cfg, c.text, budget=budget, explain=False, record_usage=False, deliver=("markdown",))
            resp = compile_workingset(request, bench.cfg, bench.reader)
            raw = render_text(resp, "markdown")
            text = be.norm(raw)
            tokens = bench.count(raw)
            unspent.append(budget - tokens)
            docs = {d.path: d for d in resp.workingset.documents}
            for (path, _i), s in c.sentences.items():
                if s in text and s not in rrf_text:
                    cause["orion only"] += 1
                if s not in rrf_text or s in text:
                    continue
                if path not in docs:
                    why = "doc not delivered"
                else:
                    src = bench.file_text(path)
                    holding = [q for q in docs[path].quotes if s in be.norm(src[q.char_start : q.char_end])]
                    if not holding:
                        why = "span not quoted"
                    elif holding[0].compression is not None:
                        why = f"shortened ({holding[0].compression.level}) dropped it"
                    else:
                        why = "whole quote holds it (matching differs)"
                cause[why] += 1
                if args.v:
                    print(budget, c.id, why, tokens, path, "|", s[:80])
        print(f"{budget}: {dict(sorted(cause.items()))}; unspent {sum(unspent) / len(unspent):.1f} tokens (mean)", flush=True)
    bench.close()


if __name__ == "__main__":
    main()
