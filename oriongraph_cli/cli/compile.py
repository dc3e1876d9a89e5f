"""`orion compile`, `orion search` and `orion show`: flags -> request -> one library call -> a renderer.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from oriongraph_cli.cli.context import (
    COMPILE_OUTPUT_OPT,
    JSON_OPT,
    NULL_OPT,
    OUTPUT_OPT,
    QUIET_OPT,
    ROOT_OPT,
    color_mode,
    handled,
    note,
    prefetch_model,
    project_config,
    read_intent,
    resident_reader,
    stdout_console,
    tables_wanted,
    warn,
)
from oriongraph_cli.cli import complete
from oriongraph_cli.errors import ExitStatus, OrionError
from oriongraph_cli.render import COMPILE_FORMATS, DELIVERED_FORMATS
from oriongraph_cli.api import FUSION_HELP, FUSION_METHODS, WEIGHT_NAMES, SourceType, clean, clean_tree

# ============================================================================ compile / search / show


def _since(value: Optional[str]) -> Optional[int]:
    if not value:
        return None
    from oriongraph_cli.api import parse_date

    ts = parse_date(value)
    if ts is None:
        raise OrionError(f"--since {value!r} is not a date", hint="use ISO format, e.g. --since 2026-01-31", exit_code=ExitStatus.USAGE)
    return ts


def _build_request(cfg, intent, budget, task_id, keyword, path, stage, workstream, source_type, tag, since, where,
                   prefer_stage, lam, max_source_ratio, fusion, weights, explain, top_k, timings, episode=None, expand=False,
                   record=True, relax=True, deliver=("markdown",), compress=True):
    from oriongraph_cli.api import HardFilters, check_intent, check_setting

    check_intent(intent)  # before the weights are read: an empty intent is the first thing to say
    overrides: dict[str, float] = {}
    if weights:
        known = cfg.weights().to_dict()
        for item in weights:
            k, _, v = item.partition("=")
            key = {"stage": "stage_boost"}.get(k.strip(), k.strip())
            if key not in known:
                raise OrionError(f"--weight {item!r}: unknown channel {k!r}", hint="channels: " + ", ".join(known), exit_code=ExitStatus.USAGE)
            overrides[key] = check_setting("w_semantic", v, f"--weight {k.strip()}", label=f"the {k.strip()} weight")
    from oriongraph_cli.api import build_request, parse_where

    return build_request(
        cfg, intent, task_id=task_id, keywords=tuple(keyword), episode_id=episode,
        hard_filters=HardFilters(
            paths=tuple(path), stages=tuple(stage), workstreams=tuple(workstream), source_types=tuple(source_type),
            tags=tuple(tag), since=_since(since), where=parse_where(where),
        ),
        prefer_stages=tuple(prefer_stage),
        diversity_lambda=lam, max_source_ratio=max_source_ratio, weights=overrides or None, fusion=fusion,
        explain=explain, top_k=top_k, timings=timings, expand=expand, record_usage=record, relax=relax,
        deliver=deliver, compress=compress,
    )


_BUDGET = typer.Option(None, "--budget", "-b", help="Token budget of the working set (default 4000).")
_KEYWORD = typer.Option([], "--keyword", "-k", help="Extra keyword signal (repeatable).")
_PATH = typer.Option([], "--path", help="Only paths matching this glob or prefix (repeatable).")
_STAGE = typer.Option([], "--stage", autocompletion=complete.stages, help="Only this stage: requirements|design|research|impl|eval|final (repeatable).")
_WS = typer.Option([], "--workstream", autocompletion=complete.workstreams, help="Only this workstream (repeatable).")
_SRC = typer.Option([], "--source-type", autocompletion=complete.choices(t.value for t in SourceType), help="Only Context|Knowledge|Workstream|Artifact (repeatable).")
_TAG = typer.Option([], "--tag", autocompletion=complete.tags, help="Only documents carrying this tag (repeatable; all must match).")
_SINCE = typer.Option(None, "--since", help="Only documents created on or after this date (YYYY-MM-DD).")
_WHERE = typer.Option([], "--where", help="Front matter filter KEY=VALUE (repeatable; the key in any case; status also as a note's first lines state it, lang as the index reads it: lang=fr).")
_PREFER = typer.Option([], "--prefer-stage", autocompletion=complete.stages, help="Soft preference: boost this stage (repeatable).")
_LAMBDA = typer.Option(None, "--lambda", help="Diversity λ in [0,1]: 1 = relevance only, lower = more diverse.")
_RATIO = typer.Option(None, "--max-source-ratio", help="Most of the budget one document may take, in (0,1].")
_FUSION = typer.Option(None, "--fusion", autocompletion=complete.choices(FUSION_METHODS), help=f"Channel fusion: {FUSION_HELP}.")
_WEIGHT = typer.Option([], "--weight", "-w", help=f"Override a weight, CHANNEL=VALUE ({', '.join(WEIGHT_NAMES)}).")
_BOUNDED = [f for f in COMPILE_FORMATS if f in DELIVERED_FORMATS]  # formats whose whole output the budget bounds
_FORMAT_HELP = (" | ".join("table (plain lines on a pipe)" if f == "table" else f for f in COMPILE_FORMATS)
                + f". The whole {', '.join(_BOUNDED[:-1])} or {_BOUNDED[-1]} output is at most --budget tokens.")
_TOPK = typer.Option(None, "--top-k", help="Candidates per generator (default 200).")
_TIMINGS = typer.Option(False, "--timings", help="Include per-stage timings (makes output non-deterministic).")
_EPISODE = typer.Option(None, "--episode", help="Boost spans used in this earlier episode (id printed by `compile --explain`, or a --task-id).")


def compile_cmd(
    intent: str = typer.Argument(..., help="What you are about to do, in plain language ('-' reads it from stdin)."),
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
    fmt: str = typer.Option("table", "--format", "-f", autocompletion=complete.choices(tuple(COMPILE_FORMATS)), help=_FORMAT_HELP),
    as_json: bool = JSON_OPT,
    files_only: bool = typer.Option(False, "--files-only", "-l", help="Print only the paths of the documents in the working set, one per line, relative to the current directory."),
    null: bool = NULL_OPT,
    brief: Optional[Path] = typer.Option(None, "--brief", help="Also write a TASK_BRIEF.md to this path (the whole file at most --budget tokens)."),
    no_compress: bool = typer.Option(False, "--no-compress", help="Never shorten a span: one that does not fit whole is left out."),
    floor: Optional[float] = typer.Option(None, "--floor", "--relevance-floor", help="Relevance floor in [0,1]: spans scoring under FLOOR × the best are not taken (default 0.5; 0 fills the budget)."),
    timings: bool = _TIMINGS,
    episode: Optional[str] = _EPISODE,
    expand: bool = typer.Option(False, "--expand", help="Bring the previous/next/parent-section context of selected spans, charged to the budget."),
    no_usage_log: bool = typer.Option(False, "--no-usage-log", help="Do not record this compile in .oriongraph/usage.jsonl."),
    no_relax: bool = typer.Option(False, "--no-relax", help="Exit 5 when the filters match nothing, instead of relaxing them."),
    output: Optional[Path] = COMPILE_OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Compile the Working Set for INTENT: ordered, token-budgeted, diverse, explained spans with provenance."""
    fmt = "json" if as_json else fmt.lower()
    with handled(fmt in ("json", "json-lean"), output, page=True):
        intent = read_intent(intent)

        if fmt not in COMPILE_FORMATS:
            raise OrionError(f"--format {fmt!r} is not one of {', '.join(COMPILE_FORMATS)}", exit_code=ExitStatus.USAGE)
        cfg = project_config(root, diversity_lambda=lam, max_source_ratio=max_source_ratio, fusion=fusion, top_k=top_k, budget=budget,
                             relevance_floor=floor)
        prefetch_model(cfg)
        from oriongraph_cli.api import compile_workingset

        deliver = (fmt if fmt in DELIVERED_FORMATS else "markdown",) + (("brief",) if brief is not None else ())
        request = _build_request(cfg, intent, budget, task_id, keyword, path, stage, workstream, source_type, tag, since,
                                 where, prefer_stage, lam, max_source_ratio, fusion, weight, True, top_k, timings,
                                 episode=episode, expand=expand, record=not no_usage_log, relax=not no_relax,
                                 deliver=deliver, compress=not no_compress)
        if brief is not None:
            _check_brief_path(cfg, brief)
        resp = compile_workingset(request, cfg, resident_reader(cfg))
        if resp.stats.relaxed_filters:
            warn("no candidates matched the filters; relaxed: " + ", ".join(resp.stats.relaxed_filters))
        if resp.stats.stale_spans:
            warn(f"{resp.stats.stale_spans} span(s) come from files changed since indexing; quoting the indexed text — run `orion index`")
        for name, err in resp.stats.generator_errors.items():
            warn(f"generator {name} failed: {err}")
        if brief is not None:
            from oriongraph_cli.render import render_text
            from oriongraph_cli.api import write_atomically

            write_atomically(brief, render_text(resp, "brief").encode("utf-8"))
            note(f"wrote {brief}")
            if resp.episode_id:
                from oriongraph_cli.api import mark_brief_used

                items = resp.workingset.spans
                mark_brief_used(cfg, [i.span_ref.span_id for i in items], [i.path for i in items], episode_id=resp.episode_id)
        if resp.episode_id and explain:
            note(f"recorded episode {resp.episode_id} (reuse it with --episode {resp.episode_id})")
        if files_only or null:
            from oriongraph_cli.render.plain import files_only as paths_of

            sys.stdout.write(paths_of((i.path for i in resp.workingset.spans), null=null))
            return
        _render_compile(resp, fmt if fmt != "table" or tables_wanted() else "plain", explain)


def _check_brief_path(cfg, brief: Path) -> None:
    """The brief never replaces project knowledge or orion's own state: refuse a path
    inside a stage folder with an indexable name, or inside .oriongraph/."""
    from oriongraph_cli.api import ACCEPTED_SUFFIXES, TOP_FOLDERS

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

    if fmt == "table":
        COMPILE_FORMATS[fmt](resp, explain=explain, out=sys.stdout, color=color_mode())
    else:
        COMPILE_FORMATS[fmt](resp, explain=explain, out=sys.stdout)


def search_cmd(
    intent: str = typer.Argument(..., help="What you are looking for ('-' reads it from stdin)."),
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
    files_only: bool = typer.Option(False, "--files-only", "-l", help="Print only the paths of the matching documents, best first, one per line, relative to the current directory."),
    null: bool = NULL_OPT,
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Ranked candidates before selection: every channel's score, no budget, no diversity."""
    with handled(as_json, output, page=True):
        intent = read_intent(intent)
        cfg = project_config(root, fusion=fusion)
        from oriongraph_cli.api import check_setting

        top_k = check_setting("top_k", top_k, "--top-k")
        prefetch_model(cfg)
        from oriongraph_cli import api

        request = _build_request(cfg, intent, None, None, keyword, path, stage, workstream, source_type, tag, since,
                                 where, prefer_stage, None, None, fusion, weight, True, None, False,
                                 episode=episode)  # the candidates compile scores; --top-k only cuts the list
        signals, hits, info = api.search(request, cfg, resident_reader(cfg))
        hits = hits[:top_k]
        if as_json:
            from oriongraph_cli.api import SCHEMA_VERSION

            doc = {
                "schema_version": SCHEMA_VERSION,
                "kind": "search",
                "intent": signals.intent,
                "signals": signals.to_dict(),
                "hits": [dict(rank=i + 1, **h.to_dict()) for i, h in enumerate(hits)],
                **info,
            }
            sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        elif files_only or null:
            from oriongraph_cli.render.plain import files_only as paths_of

            sys.stdout.write(paths_of((h.metadata.filepath for h in hits), null=null))
        elif not tables_wanted():
            from oriongraph_cli.render.plain import search_lines

            sys.stdout.write(search_lines(hits))
        else:
            from oriongraph_cli.render.table import print_search

            print_search(stdout_console(), clean_tree(hits))


def show_cmd(
    span_id: str = typer.Argument(..., metavar="REF", help="A span id (or a unique prefix of one), a document's lines as PATH:L12-L40 (what a compiled document's header names), a PATH alone for the whole file, or a document id (ADR-0007) for its file."),
    root: Optional[Path] = ROOT_OPT,
    as_json: bool = JSON_OPT,
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Quote one span (or a document's lines, or a whole file by its path or document id) exactly, with its provenance."""
    with handled(as_json, output, page=True):
        from oriongraph_cli.api import show

        if not span_id.strip():
            raise OrionError("the span id is empty", hint="span ids come from `orion search` or `orion compile --json --explain`; a compiled quote's PATH:L12-L40, or a PATH alone, works too", exit_code=ExitStatus.USAGE)
        cfg = project_config(root)
        from oriongraph_cli.render.paths import from_shown

        info = show(cfg, from_shown(span_id))  # a path as line output showed it from this folder, too
        if info["stale"] and as_json:
            warn(f"{info['path']} changed since indexing; quoting the indexed version — run `orion index`")
        if as_json:
            sys.stdout.write(json.dumps(info, indent=2, ensure_ascii=False) + "\n")
        elif not tables_wanted():  # a pipe gets the quoted text itself
            text = clean(info["text"])
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        else:
            from oriongraph_cli.render.table import print_span

            print_span(stdout_console(), clean_tree(info))
