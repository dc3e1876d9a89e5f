"""Measured, not built: among dated documents of one folder, the later one saying the same
about an intent ranked first.

Release-note blogs and numbered series say one thing and later another ("trailingComma now
defaults to all" in Prettier 3.0's post, "es5" in 2.0's), and the earlier post often matches
the intent as well or better. The rule tried here, on top of the shipped ranking: in the
ranking's head (300 candidates), take each document's best span; among documents of one
folder dated by their authors (front matter or a file name starting with the date) at least
30 days apart, when the later one's best span scores at least SHARE of the earlier one's and
the two spans' embeddings have a cosine of at least COS (they say the same about the intent),
the two swap scores, later first. Each document moves once.

Modes are "SHARE/COS" pairs; "off" is the shipped ranking. Per project and mode the figures of
``lifecycle_demote.py`` (nDCG@10 per intent, the lifecycle pairs, the baselines' nDCG@10),
cached per project in ``--cache``, and the same report: each project held out, the mode with
the best macro nDCG@10 on the others.

    python bench/suite/dated_later_first.py --list TREES --cache DIR --modes "0.8/0.8;0.8/0.7;0.9/0.7" --out OUT.json

TREES: lines of "SUITE PROJECT" — the trees with author-dated documents in a shared folder.
Nothing here changes orion: the rule is applied by replacing the ranking's last step in this
process only.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAD = 300
MIN_DAYS_APART = 30
STATED = ("front-matter", "name")  # dates the authors wrote, not git's or the file system's


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", type=Path, required=True)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--modes", default="0.8/0.8;0.8/0.7;0.9/0.7")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--out", help="results file name under bench/results/")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    import lifecycle_demote  # noqa: E402
    import numpy as np

    from oriongraph_cli import api
    from oriongraph_cli.models import with_reasons
    from oriongraph_cli.rank import copies
    from oriongraph_cli.rank.score import sort_key

    mode = {"on": False, "share": 0.8, "cos": 0.8}
    open_reader: dict = {}

    def later_first(scored, intent):
        reader = open_reader["r"]
        dates = reader.memo("bench-dated", lambda: {d["path"]: int(d["created_at"] or 0) for d in reader.lookups.document_dicts()
                                                    if d["created_source"] in STATED})
        head = scored[:HEAD]
        best: dict[str, int] = {}
        for j, c in enumerate(head):
            best.setdefault(c.metadata.filepath, j)
        groups: dict[str, list[int]] = {}
        for path, j in best.items():
            if dates.get(path, 0) > 0:
                groups.setdefault(posixpath.dirname(path), []).append(j)
        out, moved = list(scored), False
        for members in (sorted(m) for m in groups.values() if len(m) > 1):
            vecs = reader.vectors.vectors([head[j].row for j in members])
            vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)
            done: set[int] = set()
            for ia, a in enumerate(members):  # in score order: a ranks above every later member
                if a in done:
                    continue
                for ib in range(ia + 1, len(members)):
                    b = members[ib]
                    if (b in done or dates[head[b].metadata.filepath] - dates[head[a].metadata.filepath] < MIN_DAYS_APART * 86_400
                            or head[b].base_score < mode["share"] * head[a].base_score or float(vecs[ia] @ vecs[ib]) < mode["cos"]):
                        continue
                    out[b] = with_reasons(head[b], ("later on the same subject",), base_score=head[a].base_score)
                    out[a] = with_reasons(head[a], ("earlier on the same subject",), base_score=head[b].base_score)
                    done |= {a, b}
                    moved = True
                    break
        return sorted(out, key=sort_key) if moved else scored

    shipped_last_step = copies.newest_version_ranked

    def last_step(scored, intent):
        scored = shipped_last_step(scored, intent)
        return later_first(scored, intent) if mode["on"] else scored

    copies.newest_version_ranked = last_step
    shipped_open = api.open_index

    def remembered_open(cfg):
        open_reader["r"] = shipped_open(cfg)
        return open_reader["r"]

    api.open_index = remembered_open
    modes = ["off", *args.modes.split(";")]

    def measure_modes(suite: Path, project: str) -> dict:
        res: dict | None = None
        for name in modes:
            mode["on"] = name != "off"
            if mode["on"]:
                mode["share"], mode["cos"] = (float(x) for x in name.split("/"))
            r = lifecycle_demote.measure(suite, project, {name: {}}, with_baselines=res is None)
            if res is None:
                res = r
            else:
                res["settings"][name] = r["settings"][name]
        return res

    import run as suite_run  # noqa: E402

    trees = suite_run.read_trees(args.list)
    if not args.report_only:
        lifecycle_demote.measure_cached(args.cache, trees, measure_modes)
    rep = lifecycle_demote.report(args.cache, [p for _s, p in trees], modes)
    print(json.dumps(rep["summary"], indent=1))
    if args.out:
        from results_file import write

        write(args.out, rep)


if __name__ == "__main__":
    main()
