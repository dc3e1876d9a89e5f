"""The rows ``choose_rows.py`` chooses from: per project, the naive packs' rows and orion's
rows for each named selection setting, per intent at 1,000 and 4,000 tokens, all on the same
index in one process (the intents' rankings kept between settings).

    python bench/suite/setting_rows.py --list TREES --out-dir ROWS \\
        --setting shipped= --setting "lw25=lead_whole_ratio:0.25"

TREES: lines of "SUITE PROJECT". Writes ROWS/{project}_baselines.json and
ROWS/{project}_{name}.jsonl, skipping those already there (a run can be resumed).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUDGETS = (1000, 4000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", type=Path, required=True)
    ap.add_argument("--out-dir", type=Path, required=True)
    ap.add_argument("--setting", action="append", required=True, help="NAME=KEY:VALUE,KEY:VALUE (empty: the shipped defaults)")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import run as suite_run  # noqa: E402

    from oriongraph_cli import tune

    settings = suite_run.named_settings(args.setting)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for suite, project in suite_run.read_trees(args.list):
        t = time.time()
        cfg, reader = suite_run._open(Path(suite), project)
        reader.repeat_cache = {}
        qs = suite_run._queries(project, None)
        try:
            base = args.out_dir / f"{project}_baselines.json"
            if not base.exists():
                base.write_text(json.dumps(tune.measure_baselines(cfg, reader, qs, BUDGETS)))
            for name, values in settings.items():
                out = args.out_dir / f"{project}_{name}.jsonl"
                if not out.exists():
                    rows = tune.measure(tune.with_settings(cfg, values), reader, qs, tune.Variant(name), BUDGETS)
                    out.write_text("".join(json.dumps({"project": project, **r}) + "\n" for r in rows))
        finally:
            reader.close()
        print(project, f"{time.time() - t:.0f} s", flush=True)


if __name__ == "__main__":
    main()
