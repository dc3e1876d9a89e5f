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
    ROOT_OPT,
    err_console,
    handled,
    project_config,
    warn,
)


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
) -> None:
    """Measure retrieval quality on your own judged queries: nDCG@10, Recall@100, working-set
    recall, budget utilisation and compile latency (p50/p95), beside BM25-only, dense-only and
    RRF baselines on the same index.

    Use it to tune weights and defaults for your project (edit .orion.toml, re-run, compare).
    """

    with handled(as_json):
        from oriongraph_cli.errors import ExitStatus, OrionError
        from oriongraph_cli.evaluate import evaluate, load_queries, parse_compare

        if budget is not None and budget <= 0:
            raise OrionError(f"--budget must be positive, got {budget}", hint="e.g. --budget 4000", exit_code=ExitStatus.USAGE)
        if limit is not None and limit <= 0:
            raise OrionError(f"--limit must be positive, got {limit}", hint="e.g. --limit 100", exit_code=ExitStatus.USAGE)
        systems = parse_compare(compare)
        qs = load_queries(queries)
        cfg = project_config(root)
        total = min(len(qs), limit) if limit else len(qs)
        show_progress = not as_json and sys.stderr.isatty()
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
        else:
            report = evaluate(cfg, qs, budget=budget, compare=systems, limit=limit, queries_file=str(queries))
        shown = report.warnings[:10]
        for w in shown:
            warn(w)
        if len(report.warnings) > len(shown):
            warn(f"... and {len(report.warnings) - len(shown)} more unknown relevant paths (see --json)")
        if as_json:
            sys.stdout.write(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
        else:
            from oriongraph_cli.render.table import make_console

            print_eval(make_console(sys.stdout), report)


_LABELS = {
    "orion": "orion (default)",
    "bm25": "bm25 (lexical only)",
    "dense": "dense (semantic only)",
    "rrf": "rrf (bm25 + dense, k=60)",
}


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
