"""`orion eval QUERIES.jsonl`: retrieval quality of the default pipeline beside baselines.

Registered in ``cli/__init__.py``. The library behind it is
:mod:`oriongraph_cli.evaluate`; this module only translates flags and renders.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from oriongraph_cli.cli.context import (
    OUTPUT_OPT,
    QUIET_OPT,
    ROOT_OPT,
    err_console,
    handled,
    progress_lines,
    progress_wanted,
    project_config,
    tables_wanted,
    warn,
)
from oriongraph_cli.cli.progress import LineProgress


def eval_cmd(
    queries: Path = typer.Argument(
        ..., help='JSONL file, one query a line: {"id", "text", "relevant": {"<path relative to the root>": grade}}.',
        show_default=False,
    ),
    root: Optional[Path] = ROOT_OPT,
    budget: Optional[int] = typer.Option(None, "--budget", "-b", help="Token budget of each compiled working set (default 4000)."),
    compare: str = typer.Option(
        "bm25,dense,rrf", "--compare", "-c",
        help="Baselines run on the same index, comma-separated: bm25, dense, rrf (k=60); 'none' for none.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable JSON on stdout (per-query rows and averages)."),
    limit: Optional[int] = typer.Option(None, "--limit", "-n", help="Evaluate only the first N queries."),
    tune: bool = typer.Option(False, "--tune", help="Search the ranking and selection settings with cross-validation over the queries; print the chosen settings and their held-out gain."),
    folds: int = typer.Option(5, "--folds", help="With --tune: number of folds the queries are split into (2 or more)."),
    write: bool = typer.Option(False, "--write", help="With --tune: write the chosen settings to .orion.toml (or pyproject's \\[tool.oriongraph] when the project keeps them there)."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="With --tune: processes measuring settings side by side, each holding the index open (0: one per core; 1: in this process).", show_default=False),
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Measure retrieval quality on your own judged queries: nDCG@10, Recall@100, working-set
    recall, budget utilisation and compile latency (p50/p95), beside BM25-only, dense-only and
    RRF baselines on the same index.

    Use it to tune weights and defaults for your project (edit .orion.toml, re-run, compare).

    Shows a progress bar on a terminal; off one (CI, a script's log) it writes a plain line
    every 10 s once the run lasts that long (`orion eval: evaluating 120/809 intents (14 %),
    0:30 elapsed, about 3:05 left in this step`; with --tune, the stage being measured).
    """

    with handled(as_json, output, page=True):
        from oriongraph_cli.errors import ExitStatus, OrionError
        from oriongraph_cli.api import evaluate, load_queries, parse_compare

        if budget is not None and budget <= 0:
            raise OrionError(f"--budget must be positive, got {budget}", hint="e.g. --budget 4000", exit_code=ExitStatus.USAGE)
        if limit is not None and limit <= 0:
            raise OrionError(f"--limit must be positive, got {limit}", hint="e.g. --limit 100", exit_code=ExitStatus.USAGE)
        systems = parse_compare(compare)
        if (write or folds != 5 or jobs != 0) and not tune:
            raise OrionError("--write, --folds and --jobs go with --tune", hint="add --tune", exit_code=ExitStatus.USAGE)
        if jobs < 0:
            raise OrionError(f"--jobs must be 0 (one per core) or more, got {jobs}", hint="e.g. --jobs 2", exit_code=ExitStatus.USAGE)
        if folds < 2:
            raise OrionError(f"--folds must be 2 or more, got {folds}", hint="e.g. --folds 5", exit_code=ExitStatus.USAGE)
        qs = load_queries(queries)
        cfg = project_config(root)
        if tune:
            _tune(cfg, qs[:limit] if limit else qs, folds, write, as_json, budget, jobs)
            return
        total = min(len(qs), limit) if limit else len(qs)
        show_progress = progress_wanted(as_json)
        if show_progress:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            with Progress(
                TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                console=err_console(), transient=True,
            ) as bar:
                task = bar.add_task("eval", total=total)
                report = evaluate(cfg, qs, budget=budget, compare=systems, limit=limit, queries_file=str(queries),
                                  progress=lambda done, _n: bar.update(task, completed=done))
        elif progress_lines(as_json):
            with LineProgress("orion eval", {"": "intents"}) as lines:
                report = evaluate(cfg, qs, budget=budget, compare=systems, limit=limit, queries_file=str(queries),
                                  progress=lambda done, n: lines.update("evaluating", done, n))
        else:
            report = evaluate(cfg, qs, budget=budget, compare=systems, limit=limit, queries_file=str(queries))
        shown = report.warnings[:10]
        for w in shown:
            warn(w)
        if len(report.warnings) > len(shown):
            warn(f"... and {len(report.warnings) - len(shown)} more unknown relevant paths (see --json)")
        advice = baseline_advice(report, queries)
        if advice:
            from oriongraph_cli.cli.context import note

            note(advice)
        if as_json:
            sys.stdout.write(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
        elif not tables_wanted():
            sys.stdout.write(eval_lines(report))
        else:
            from oriongraph_cli.render.table import make_console

            print_eval(make_console(sys.stdout), report)


def _tune(cfg: Any, qs: list, folds: int, write: bool, as_json: bool, budget: Optional[int], jobs: int) -> None:
    from oriongraph_cli import api

    budgets = api.tune_budgets(budget)
    show_progress = progress_wanted(as_json)
    if show_progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("tuning {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=err_console(), transient=True) as bar:
            task = bar.add_task("", total=None)
            report = api.tune(cfg, qs, folds=folds, budgets=budgets, jobs=jobs,
                              progress=lambda name, done, n: bar.update(task, description=name, completed=done, total=n))
    elif progress_lines(as_json):
        with LineProgress("orion eval --tune", {"": "runs"}) as lines:  # a run: one intent under one setting
            report = api.tune(cfg, qs, folds=folds, budgets=budgets, jobs=jobs, progress=lambda name, done, n: lines.update(name, done, n))
    else:
        report = api.tune(cfg, qs, folds=folds, budgets=budgets, jobs=jobs)
    written = None
    if write:
        written = api.write_tuned_settings(cfg.root, report.chosen)
    if as_json:
        d = report.to_dict()
        d["written"] = str(written) if written else None
        sys.stdout.write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
        return
    if not tables_wanted():
        from oriongraph_cli.cli.context import note

        sys.stdout.write(tune_lines(report))
        note(f"written to {written}" if written else "not written: add --write to keep these settings in .orion.toml")
        return
    from oriongraph_cli.render.table import make_console

    print_tune(make_console(sys.stdout), report, written)


def tune_lines(report: Any) -> str:
    """On a pipe: three blocks separated by a blank line, each a header line naming its
    columns and tab-separated rows (``awk -v RS= 'NR==2'`` takes one block): every variant
    (stage, variant, nDCG@10, working-set recall and relevant share at each budget, ``*`` for
    the chosen ones); the held-out gain per metric with its 95 % interval; the chosen settings."""

    def f(v: Any) -> str:
        return "" if v is None or v == "" else f"{v:.4f}"

    from oriongraph_cli.render.plain import _row

    b = report.budgets
    r_name, s_name = report.chosen_names
    out = [_row("stage", "variant", "ndcg@10", *[c for x in b for c in (f"ws_recall@{x}", f"relevant_share@{x}")], "chosen")]
    for v in report.variants:
        cells = [f(v.get(f"{k}@{x}")) for x in b for k in ("ws", "share")]
        out.append(_row(v["stage"], v["name"], f(v.get("ndcg")), *cells, "*" if v["name"] in (r_name, s_name) else ""))
    out += ["\n", _row("metric", "current", "tuned", "gain", "interval_low", "interval_high")]
    for m, v in report.held_out.items():
        if not m.startswith("util"):
            out.append(_row(_metric_name(m), f(v["current"]), f(v["tuned"]), f(v["gain"]), f(v["interval"][0]), f(v["interval"][1])))
    out += ["\n", _row("setting", "value")]
    out += [_row(k, str(v).lower() if isinstance(v, bool) else v) for k, v in report.chosen.items()]
    return "".join(out)


def _metric_name(m: str) -> str:
    """The tuner's metric keys (ndcg, ws@1000, share@1000) as the columns of eval's lines."""
    kind, _, budget = m.partition("@")
    name = {"ndcg": "ndcg@10", "ws": "ws_recall", "share": "relevant_share"}.get(kind, kind)
    return f"{name}@{budget}" if budget else name


def print_tune(console: Any, report: Any, written: Any) -> None:
    """The search space with each variant's figure, the held-out gain of tuning, the choice."""
    from rich import box
    from rich.table import Table

    b = report.budgets
    t = Table(title=f"orion eval --tune: {report.queries} intents, {report.folds} folds", box=box.SIMPLE_HEAD)
    t.add_column("stage")
    t.add_column("variant", no_wrap=True)
    t.add_column("nDCG@10", justify="right")
    for x in b:
        t.add_column(f"WS recall @{x}", justify="right")
        t.add_column(f"rel. share @{x}", justify="right")
    r_name, s_name = report.chosen_names
    for v in report.variants:
        mark = " *" if v["name"] in (r_name, s_name) else ""
        if v["stage"] == "ranking":
            t.add_row("ranking", v["name"] + mark, f"{v['ndcg']:.3f}", *([""] * (2 * len(b))))
        else:
            cells = [c for x in b for c in (f"{v[f'ws@{x}']:.3f}", f"{v[f'share@{x}']:.3f}")]
            t.add_row("selection", v["name"] + mark, "", *cells)
    console.print(t)
    h = Table(title="held out: each fold's intents scored with settings chosen on the other folds", box=box.SIMPLE_HEAD)
    for head in ("metric", "current", "tuned", "gain", "95 % interval"):
        h.add_column(head, justify="right" if head != "metric" else "left")
    for m, v in report.held_out.items():
        if m.startswith("util"):
            continue
        h.add_row(m, f"{v['current']:.3f}", f"{v['tuned']:.3f}", f"{v['gain']:+.3f}", f"[{v['interval'][0]:+.3f}, {v['interval'][1]:+.3f}]")
    console.print(h)
    console.print("chosen on all intents: " + ", ".join(f"{k} = {v}" for k, v in report.chosen.items()))
    if written:
        console.print(f"written to {written}")
    else:
        console.print("not written: add --write to keep these settings in .orion.toml")


def baseline_advice(report: Any, queries: Path) -> str | None:
    """One line when a baseline ranks these intents above orion: which, by how much, and the
    command that fits orion's settings to them (``--tune`` tries the channels' shares, among
    others); with too few intents to fit, how many more to judge. None otherwise."""
    import shlex

    from oriongraph_cli.api import tune_min_queries

    ours = report.summaries.get("orion")
    if ours is None or ours.ndcg_at_10 is None:
        return None
    above = [(report.summaries[n].ndcg_at_10, n) for n in report.systems
             if n != "orion" and report.summaries[n].ndcg_at_10 is not None and report.summaries[n].ndcg_at_10 > ours.ndcg_at_10]
    if not above:
        return None
    score, name = max(above)
    alone = {"bm25": "BM25 alone", "dense": "dense retrieval alone", "rrf": "RRF"}.get(name, name)
    head = f"{alone} ranks these intents above orion (nDCG@10 {score:.3f} against {ours.ndcg_at_10:.3f})"
    command = f"orion eval {shlex.quote(str(queries))} --tune"
    least = tune_min_queries()
    if report.n_queries < least:
        return f"{head}: judge at least {least} intents, then `{command}` fits orion's settings to them"
    return f"{head}: `{command}` fits orion's settings to them, the channels' shares among them"


_LABELS = {
    "orion": "orion (default)",
    "bm25": "bm25 (lexical only)",
    "dense": "dense (semantic only)",
    "rrf": "rrf (bm25 + dense, k=60)",
}


from oriongraph_cli.render.plain import COLUMNS  # noqa: E402 — the columns of every command's lines

EVAL_COLUMNS = COLUMNS["eval"]


def eval_lines(report: Any) -> str:
    """On a pipe: a header line naming the columns, then one tab-separated line per system
    (``cut -f2`` is nDCG@10); a figure a system does not have is empty."""

    def f(v: float | None, n: int = 4) -> str:
        return "" if v is None else f"{v:.{n}f}"

    rows = ["\t".join(EVAL_COLUMNS)]
    for name in report.systems:
        s = report.summaries[name]
        rows.append("\t".join((name, f(s.ndcg_at_10), f(s.recall_at_100), f(s.ws_recall), f(s.relevant_share),
                               f(s.utilisation), f(s.latency_p50_ms, 1), f(s.latency_p95_ms, 1))))
    return "\n".join(rows) + "\n"


def print_eval(console: Any, report: Any) -> None:
    """One row per system: orion's default pipeline, then each baseline."""
    from rich import box
    from rich.table import Table

    def f(v: float | None, n: int = 3) -> str:
        return "—" if v is None else f"{v:.{n}f}"

    table = Table(
        title=f"orion eval: {report.n_queries} queries, budget {report.budget} tokens",
        caption=f"index {report.index.get('generation')} · {report.index.get('documents')} documents, "
        f"{report.index.get('spans')} spans · fusion {report.settings.get('fusion')}",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("system", no_wrap=True)
    for head in ("nDCG@10", "Recall@100", "WS recall", "relevant share", "utilisation", "p50 ms", "p95 ms"):
        table.add_column(head, justify="right", no_wrap=True)
    best = max(report.summaries[s].ndcg_at_10 for s in report.systems)
    for name in report.systems:
        s = report.summaries[name]
        ndcg = f(s.ndcg_at_10)
        style = "bold" if s.ndcg_at_10 == best else None
        table.add_row(
            _LABELS.get(name, name), ndcg, f(s.recall_at_100), f(s.ws_recall), f(s.relevant_share), f(s.utilisation),
            f(s.latency_p50_ms, 1), f(s.latency_p95_ms, 1), style=style,
        )
    console.print(table)
