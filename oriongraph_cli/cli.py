"""The `orion` command line: flags -> Config -> one api call -> a renderer.

stdout carries data only (tables, Markdown, JSON); progress, warnings and errors go to
stderr. Heavy libraries are imported inside the commands so `orion --help` stays fast.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

import typer

from oriongraph_cli import __version__
from oriongraph_cli.errors import ExitStatus, OrionError
from oriongraph_cli.textsafe import clean, clean_line, clean_tree

app = typer.Typer(
    name="orion",
    help="orion — a context compiler over OrionFS projects: index Markdown knowledge, then compile "
    "a token-budgeted, diverse, explained Working Set for an intent.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

ROOT_OPT = typer.Option(None, "--root", "-r", help="Project root (default: the current directory).", show_default=False)
JSON_OPT = typer.Option(False, "--json", help="Machine-readable JSON on stdout.")


def _err_console():
    from oriongraph_cli.render.table import make_console

    return make_console(sys.stderr)


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {clean_line(message)}\n")


@contextmanager
def handled(as_json: bool = False) -> Iterator[None]:
    """Every failure becomes one message + hint on stderr (and JSON on stdout with --json)
    and its documented exit code — never a traceback (``ORION_DEBUG=1`` shows one)."""
    import warnings

    from oriongraph_cli.errors import as_orion_error

    def show(message, category, filename, lineno, file=None, line=None):
        warn(str(message))

    warnings.showwarning = show
    try:
        yield
    except typer.Exit:
        raise
    except BrokenPipeError:  # `orion … | head`: the reader left; stop quietly, as SIGPIPE would
        raise typer.Exit(141) from None
    except KeyboardInterrupt as exc:
        sys.stderr.write("interrupted\n" if not isinstance(exc, Terminated) else "terminated\n")
        raise typer.Exit(143 if isinstance(exc, Terminated) else 130) from None
    except Exception as exc:  # noqa: BLE001 — the one place every failure is translated
        if os.environ.get("ORION_DEBUG"):
            import traceback

            traceback.print_exc()
        err = as_orion_error(exc)
        sys.stderr.write(f"error: {clean_line(err.message)}\n")
        if err.hint:
            sys.stderr.write(f"  hint: {clean_line(err.hint)}\n")
        if as_json:
            sys.stdout.write(json.dumps({"schema_version": 1, "kind": "error", **err.to_dict()}, indent=2) + "\n")
        raise typer.Exit(int(err.exit_code)) from None


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: cleanup runs, the message says so, exit 143."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated()


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"orion {__version__}\n")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """orion — retrieval as compilation."""


def _config(root: Optional[Path], **overrides):
    from oriongraph_cli.config import load_config

    return load_config(root or Path("."), **overrides)


def _prefetch_model(cfg) -> None:
    """Start the query-model load now, overlapping the compile's imports (prefetch.py)."""
    if (Path(cfg.index_dir) / "CURRENT").exists():
        from oriongraph_cli.store import prefetch

        prefetch.start(cfg)


# ============================================================================ index


class _RichProgress:
    """Progress on stderr for long runs; silent when not a TTY, --json or --quiet."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._progress = None
        self._task = None

    def __enter__(self):
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description:<16}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=_err_console(), transient=True,
            )
            self._progress.__enter__()
        return self

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def phase(self, name: str, total: int | None) -> None:
        if self._progress is None:
            return
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._task = self._progress.add_task(name, total=total)

    def advance(self, n: int = 1) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, n)


@app.command("index")
def index_cmd(
    root: Optional[Path] = ROOT_OPT,
    full: bool = typer.Option(False, "--full", help="Rebuild everything (re-parse and re-embed every document)."),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 6) on any warning instead of skipping the file."),
    as_json: bool = JSON_OPT,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress and no summary; warnings still go to stderr."),
    lock_timeout: Optional[float] = typer.Option(None, "--lock-timeout", help="Seconds to wait for another writer (default 30)."),
    max_file_bytes: Optional[int] = typer.Option(None, "--max-file-bytes", help="Skip files larger than this (default 2000000)."),
) -> None:
    """Index the OrionFS project: spans, lexical (Whoosh) and semantic (FAISS) indices under .oriongraph/.

    Incremental: unchanged documents cost nothing, edited documents re-embed only changed spans.
    """
    from oriongraph_cli.index.indexer import index_project

    with handled(as_json):
        cfg = _config(root, lock_timeout=lock_timeout, max_file_bytes=max_file_bytes)
        show_progress = not (as_json or quiet) and sys.stderr.isatty()
        with _RichProgress(show_progress) as progress:
            result = index_project(cfg, full=full, strict=strict, progress=progress)
        for w in result.warnings:
            loc = w["path"] + (f":{w['line']}" if w.get("line") else "") + (f":{w['col']}" if w.get("col") else "")
            warn(f"{loc}: {w['message']}")
        if as_json:
            sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
        elif not quiet:
            sys.stdout.write(_index_summary(result) + "\n")


def _index_summary(r) -> str:
    if r.nothing_changed:
        head = f"Nothing changed: {r.documents} documents, {r.spans} spans already indexed (generation {r.generation}); embedded 0 spans."
    else:
        head = (
            f"Indexed {r.documents} documents, {r.spans} spans ({r.tokens:,} tokens) into generation {r.generation}: "
            f"{r.added_documents} added, {r.updated_documents} updated, {r.removed_documents} removed, "
            f"{r.unchanged_documents} unchanged; embedded {r.embedded_spans} spans, reused {r.reused_vectors}."
        )
        if r.rebuild_reason and r.rebuild_reason not in ("first index", "damaged index"):
            head += f"\nRebuilt: {r.rebuild_reason}."
        if r.repaired:
            head += f"\nRepaired: {r.repaired}."
    if r.warnings:
        counts = ", ".join(f"{n} {k}" for k, n in r.warning_counts().items())
        head += f"\n{len(r.warnings)} warning(s) ({counts}); {r.skipped_files} file(s) skipped."
    return head + f"\nModel {r.model}; tokenizer {r.tokenizer}; {r.elapsed_ms / 1000:.1f}s."


# ============================================================================ status


@app.command("status")
def status_cmd(root: Optional[Path] = ROOT_OPT, as_json: bool = JSON_OPT) -> None:
    """What is indexed: documents, spans, model, tokenizer, generation, last run, stale files."""
    from oriongraph_cli.index.status import project_status

    with handled(as_json):
        cfg = _config(root)
        st = project_status(cfg)
        if as_json:
            sys.stdout.write(json.dumps(st, indent=2) + "\n")
            return
        lines = [
            f"Project:     {st['root']}",
            f"Generation:  {st['generation']}  (indexed {st['indexed_at_iso']})",
            f"Documents:   {st['documents']}",
            f"Spans:       {st['spans']}  ({st['tokens']:,} tokens)",
            f"Model:       {st['model']}  (dim {st['dim']})",
            f"Tokenizer:   {st['tokenizer']}",
            f"Generations: {', '.join(st['generations'])}",
        ]
        stale = st["stale"]
        if any(stale.values()):
            lines.append(
                f"Stale:       {len(stale['modified'])} modified, {len(stale['new'])} new, {len(stale['deleted'])} deleted — run `orion index`"
            )
            for kind in ("modified", "new", "deleted"):
                for p in stale[kind][:20]:
                    lines.append(f"  {kind:<9}{p}")
        else:
            lines.append("Stale:       none — the index matches the files")
        for d in st["damaged"]:
            lines.append(f"Damaged:     generation {d['generation']} ({d['problem']}); using {st['generation']} — run `orion index` to repair")
        sys.stdout.write(clean("\n".join(lines)) + "\n")


# ============================================================================ compile / search / show


def _split_where(values: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for v in values:
        k, _, val = v.partition("=")
        if "=" not in v or not k.strip():
            raise OrionError(f"--where {v!r} is not KEY=VALUE", hint="e.g. --where owner=alice", exit_code=ExitStatus.USAGE)
        out.append((k.strip(), val.strip()))
    return tuple(out)


def _since(value: Optional[str]) -> Optional[int]:
    if not value:
        return None
    from oriongraph_cli.index.parse import parse_date

    ts = parse_date(value)
    if ts is None:
        raise OrionError(f"--since {value!r} is not a date", hint="use ISO format, e.g. --since 2026-01-31", exit_code=ExitStatus.USAGE)
    return ts


def _build_request(cfg, intent, budget, task_id, keyword, path, stage, workstream, source_type, tag, since, where,
                   prefer_stage, lam, max_source_ratio, fusion, weights, explain, top_k, timings, episode=None, expand=False,
                   record=True, relax=True):
    from oriongraph_cli.models import CompileRequest, HardFilters, SoftPreferences

    if not intent or not intent.strip():
        raise OrionError("the intent is empty", hint='say what you are about to do, e.g. orion compile "add retry logic to the worker"', exit_code=ExitStatus.USAGE)
    w = cfg.weights()
    if weights:
        from dataclasses import replace

        overrides = {}
        for item in weights:
            k, _, v = item.partition("=")
            key = {"stage": "stage_boost"}.get(k.strip(), k.strip())
            if key not in w.to_dict():
                raise OrionError(f"--weight {item!r}: unknown channel {k!r}", hint="channels: " + ", ".join(w.to_dict()), exit_code=ExitStatus.USAGE)
            from oriongraph_cli.config import _coerce

            overrides[key] = _coerce("w_semantic", v, f"--weight {k.strip()}", label=f"the {k.strip()} weight")
        w = replace(w, **overrides)
    stages = tuple(s.lower() for s in stage)
    return CompileRequest(
        intent=intent,
        budget_tokens=cfg.budget,
        task_id=task_id,
        keywords=tuple(keyword),
        episode_id=episode,
        hard_filters=HardFilters(
            paths=tuple(path), stages=stages, workstreams=tuple(workstream), source_types=tuple(source_type),
            tags=tuple(t.lower() for t in tag), since=_since(since), where=_split_where(where),
        ),
        soft_prefs=SoftPreferences(
            prefer_stages=tuple(s.lower() for s in prefer_stage) + (("final",) if "final" in stages else ()),
            diversity_lambda=cfg.diversity_lambda if lam is None else lam,
            max_single_source_ratio=cfg.max_source_ratio if max_source_ratio is None else max_source_ratio,
        ),
        weights=w,
        fusion=fusion or cfg.fusion,
        explain=explain,
        top_k=top_k or cfg.top_k,
        timings=timings,
        expand=expand,
        record_usage=record,
        relax=relax,
    )


_BUDGET = typer.Option(None, "--budget", "-b", help="Token budget of the working set (default 4000).")
_KEYWORD = typer.Option([], "--keyword", "-k", help="Extra keyword signal (repeatable).")
_PATH = typer.Option([], "--path", help="Only paths matching this glob or prefix (repeatable).")
_STAGE = typer.Option([], "--stage", help="Only this stage: requirements|design|research|impl|eval|final (repeatable).")
_WS = typer.Option([], "--workstream", help="Only this workstream (repeatable).")
_SRC = typer.Option([], "--source-type", help="Only Context|Knowledge|Workstream|Artifact (repeatable).")
_TAG = typer.Option([], "--tag", help="Only documents carrying this tag (repeatable; all must match).")
_SINCE = typer.Option(None, "--since", help="Only documents created on or after this date (YYYY-MM-DD).")
_WHERE = typer.Option([], "--where", help="Front matter filter KEY=VALUE (repeatable).")
_PREFER = typer.Option([], "--prefer-stage", help="Soft preference: boost this stage (repeatable).")
_LAMBDA = typer.Option(None, "--lambda", help="Diversity λ in [0,1]: 1 = relevance only, lower = more diverse.")
_RATIO = typer.Option(None, "--max-source-ratio", help="Most of the budget one document may take, in (0,1].")
_FUSION = typer.Option(None, "--fusion", help="Channel fusion: weighted (spec 5.1) or rrf (k=60).")
_WEIGHT = typer.Option([], "--weight", "-w", help="Override a weight, CHANNEL=VALUE (semantic, lexical, structural, graph, recency, stage, usage).")
_TOPK = typer.Option(None, "--top-k", help="Candidates per generator (default 200).")
_TIMINGS = typer.Option(False, "--timings", help="Include per-stage timings (makes output non-deterministic).")
_EPISODE = typer.Option(None, "--episode", help="Boost spans used in this earlier episode (id printed by `compile --explain`, or a --task-id).")


@app.command("compile")
def compile_cmd(
    intent: str = typer.Argument(..., help="What you are about to do, in plain language."),
    root: Optional[Path] = ROOT_OPT,
    budget: Optional[int] = _BUDGET,
    task_id: Optional[str] = typer.Option(None, "--task-id", help="Task identifier recorded with the compile."),
    keyword: List[str] = _KEYWORD,
    path: List[str] = _PATH,
    stage: List[str] = _STAGE,
    workstream: List[str] = _WS,
    source_type: List[str] = _SRC,
    tag: List[str] = _TAG,
    since: Optional[str] = _SINCE,
    where: List[str] = _WHERE,
    prefer_stage: List[str] = _PREFER,
    lam: Optional[float] = _LAMBDA,
    max_source_ratio: Optional[float] = _RATIO,
    fusion: Optional[str] = _FUSION,
    weight: List[str] = _WEIGHT,
    top_k: Optional[int] = _TOPK,
    explain: bool = typer.Option(False, "--explain", "-e", help="Show the rationale: scores, penalties, reasons, rejections, defaults."),
    fmt: str = typer.Option("table", "--format", "-f", help="table | markdown | json."),
    as_json: bool = JSON_OPT,
    brief: Optional[Path] = typer.Option(None, "--brief", help="Also write a TASK_BRIEF.md to this path."),
    timings: bool = _TIMINGS,
    episode: Optional[str] = _EPISODE,
    expand: bool = typer.Option(False, "--expand", help="Bring the previous/next/parent-section context of selected spans, charged to the budget."),
    no_usage_log: bool = typer.Option(False, "--no-usage-log", help="Do not record this compile in .oriongraph/usage.jsonl."),
    no_relax: bool = typer.Option(False, "--no-relax", help="Exit 5 when the filters match nothing, instead of relaxing them."),
) -> None:
    """Compile the Working Set for INTENT: ordered, token-budgeted, diverse, explained spans with provenance."""
    fmt = "json" if as_json else fmt.lower()
    with handled(fmt == "json"):
        if fmt not in ("table", "markdown", "json"):
            raise OrionError(f"--format {fmt!r} is not one of table, markdown, json", exit_code=ExitStatus.USAGE)
        cfg = _config(root, diversity_lambda=lam, max_source_ratio=max_source_ratio, fusion=fusion, top_k=top_k, budget=budget)
        _prefetch_model(cfg)
        from oriongraph_cli.api import compile_workingset

        request = _build_request(cfg, intent, budget, task_id, keyword, path, stage, workstream, source_type, tag, since,
                                 where, prefer_stage, lam, max_source_ratio, fusion, weight, True, top_k, timings,
                                 episode=episode, expand=expand, record=not no_usage_log, relax=not no_relax)
        if brief is not None:
            _check_brief_path(cfg, brief)
        resp = compile_workingset(request, cfg)
        if resp.stats.relaxed_filters:
            warn("no candidates matched the filters; relaxed: " + ", ".join(resp.stats.relaxed_filters))
        if resp.stats.stale_spans:
            warn(f"{resp.stats.stale_spans} span(s) come from files changed since indexing; quoting the indexed text — run `orion index`")
        for name, err in resp.stats.generator_errors.items():
            warn(f"generator {name} failed: {err}")
        if brief is not None:
            from oriongraph_cli.render.markdown import task_brief
            from oriongraph_cli.store.layout import atomic_write

            atomic_write(brief, task_brief(clean_tree(resp)).encode("utf-8"))
            sys.stderr.write(f"wrote {brief}\n")
            if resp.episode_id:
                from oriongraph_cli.compile.usage import mark_brief_used

                items = resp.workingset.spans
                mark_brief_used(cfg.index_dir, [i.span_ref.span_id for i in items], [i.path for i in items], episode_id=resp.episode_id)
        if resp.episode_id and explain:
            sys.stderr.write(f"recorded episode {resp.episode_id} (reuse it with --episode {resp.episode_id})\n")
        _render_compile(resp, fmt, explain)


def _check_brief_path(cfg, brief: Path) -> None:
    """The brief never replaces project knowledge or orion's own state: refuse a path
    inside a stage folder with an indexable name, or inside .oriongraph/."""
    from oriongraph_cli.index.walk import ACCEPTED_SUFFIXES
    from oriongraph_cli.models import TOP_FOLDERS

    target = Path(os.path.realpath(brief))
    root = Path(os.path.realpath(cfg.root))
    if target.is_dir():
        raise OrionError(f"--brief {brief}: is a directory", hint="give a file path, e.g. --brief TASK_BRIEF.md", exit_code=ExitStatus.USAGE)
    if target.is_relative_to(root):
        parts = target.relative_to(root).parts
        if parts and parts[0] == ".oriongraph":
            raise OrionError(f"--brief {brief}: inside orion's index directory", hint="write the brief elsewhere, e.g. --brief TASK_BRIEF.md", exit_code=ExitStatus.USAGE)
        if parts and parts[0] in TOP_FOLDERS and target.name.lower().endswith(ACCEPTED_SUFFIXES):
            what = "would overwrite an indexed document" if target.exists() else "would be indexed as project knowledge"
            raise OrionError(
                f"--brief {brief}: {what} ({'/'.join(parts)})",
                hint="write the brief outside the stage folders, e.g. --brief TASK_BRIEF.md at the project root",
                exit_code=ExitStatus.USAGE,
            )


def _render_compile(resp, fmt: str, explain: bool) -> None:
    if fmt == "json":
        from oriongraph_cli.render.json import dumps

        sys.stdout.write(dumps(resp))
    elif fmt == "markdown":
        from oriongraph_cli.render.markdown import workingset_markdown

        sys.stdout.write(workingset_markdown(clean_tree(resp), explain=explain))
    else:
        from oriongraph_cli.render.table import make_console, print_compile

        print_compile(make_console(sys.stdout), clean_tree(resp), explain=explain)


@app.command("search")
def search_cmd(
    intent: str = typer.Argument(..., help="What you are looking for."),
    root: Optional[Path] = ROOT_OPT,
    top_k: int = typer.Option(20, "--top-k", "-n", help="How many ranked candidates to show."),
    keyword: List[str] = _KEYWORD,
    path: List[str] = _PATH,
    stage: List[str] = _STAGE,
    workstream: List[str] = _WS,
    source_type: List[str] = _SRC,
    tag: List[str] = _TAG,
    since: Optional[str] = _SINCE,
    where: List[str] = _WHERE,
    prefer_stage: List[str] = _PREFER,
    fusion: Optional[str] = _FUSION,
    weight: List[str] = _WEIGHT,
    episode: Optional[str] = _EPISODE,
    as_json: bool = JSON_OPT,
) -> None:
    """Ranked candidates before selection: every channel's score, no budget, no diversity."""
    with handled(as_json):
        cfg = _config(root, fusion=fusion)
        from oriongraph_cli.config import _coerce

        top_k = _coerce("top_k", top_k, "--top-k")
        _prefetch_model(cfg)
        from oriongraph_cli import api

        request = _build_request(cfg, intent, None, None, keyword, path, stage, workstream, source_type, tag, since,
                                 where, prefer_stage, None, None, fusion, weight, True, max(top_k, cfg.top_k), False,
                                 episode=episode)
        signals, hits, info = api.search(request, cfg)
        hits = hits[:top_k]
        if as_json:
            from oriongraph_cli.models import SCHEMA_VERSION

            doc = {
                "schema_version": SCHEMA_VERSION,
                "kind": "search",
                "intent": signals.intent,
                "signals": signals.to_dict(),
                "hits": [dict(rank=i + 1, **h.to_dict()) for i, h in enumerate(hits)],
                **info,
            }
            sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        else:
            from oriongraph_cli.render.table import make_console, print_search

            print_search(make_console(sys.stdout), clean_tree(hits))


@app.command("show")
def show_cmd(
    span_id: str = typer.Argument(..., help="A span id (or a unique prefix of one)."),
    root: Optional[Path] = ROOT_OPT,
    as_json: bool = JSON_OPT,
) -> None:
    """Quote one span exactly, with its provenance."""
    with handled(as_json):
        from oriongraph_cli.api import show_span

        if not span_id.strip():
            raise OrionError("the span id is empty", hint="span ids come from `orion compile --json` or `orion search`", exit_code=ExitStatus.USAGE)
        info = show_span(_config(root), span_id)
        if info["stale"] and as_json:
            warn(f"{info['path']} changed since indexing; quoting the indexed version — run `orion index`")
        if as_json:
            sys.stdout.write(json.dumps(info, indent=2, ensure_ascii=False) + "\n")
        else:
            from oriongraph_cli.render.table import make_console, print_span

            print_span(make_console(sys.stdout), clean_tree(info))


# ============================================================================ links / usage


@app.command("links")
def links_cmd(
    target: Optional[str] = typer.Argument(None, help="A document path (relative to the root) or a span id / prefix."),
    root: Optional[Path] = ROOT_OPT,
    dangling: bool = typer.Option(False, "--dangling", help="List links whose target does not exist (path:line → target)."),
    structural: bool = typer.Option(False, "--structural", help="Also show NEXT/PREV and section edges."),
    as_json: bool = JSON_OPT,
) -> None:
    """What links in and out of a document or span, by type (ADR supersession, references, mentions, citations)."""
    with handled(as_json):
        from oriongraph_cli.reports import links_of

        report = links_of(_config(root), target, dangling=dangling, structural=structural)
        if as_json:
            sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
            return
        from oriongraph_cli.render.table import make_console, print_links

        print_links(make_console(sys.stdout), clean_tree(report))


@app.command("usage")
def usage_cmd(
    root: Optional[Path] = ROOT_OPT,
    top: int = typer.Option(10, "--top", "-n", help="How many most/least used documents to list."),
    as_json: bool = JSON_OPT,
) -> None:
    """Usage memory: most and least used documents, never-used documents, dynamic scores (seed 002)."""
    with handled(as_json):
        from oriongraph_cli.config import _coerce
        from oriongraph_cli.reports import usage_of

        report = usage_of(_config(root), _coerce("top_k", top, "--top"))
        if as_json:
            sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
            return
        from oriongraph_cli.render.table import make_console, print_usage

        print_usage(make_console(sys.stdout), clean_tree(report))


def _register_eval() -> None:
    from oriongraph_cli.cli_eval import eval_cmd

    app.command("eval")(eval_cmd)


_register_eval()


def main() -> None:
    import signal

    if os.environ.get("NO_COLOR") is not None:
        os.environ.setdefault("TERM", "dumb")
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        app(standalone_mode=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt as exc:  # outside a command (e.g. while importing)
        sys.stderr.write("terminated\n" if isinstance(exc, Terminated) else "interrupted\n")
        code = 143 if isinstance(exc, Terminated) else 130
    # the query model may still be loading in a background thread (onnxruntime): a normal
    # interpreter shutdown under it can abort ("terminate called without an active
    # exception", exit 134). Everything is written and closed by now: leave at once.
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or 141
    except (OSError, ValueError):
        code = code or 1
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


if __name__ == "__main__":
    main()
