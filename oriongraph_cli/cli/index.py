"""`orion index` and `orion status`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from oriongraph_cli.cli.context import (
    JSON_OPT,
    OUTPUT_OPT,
    ROOT_OPT,
    err_console,
    handled,
    note,
    project_config,
    quiet_option,
    resident_index_options,
    warn,
)
from oriongraph_cli.cli.progress import LineProgress
from oriongraph_cli.errors import CheckFailed, ExitStatus, OrionError, StrictError, check_result, index_command
from oriongraph_cli.api import clean, clean_line

# ============================================================================ index

INDEX_UNITS = {"reading": "files", "parsing": "documents", "embedding": "spans", "writing registry": "documents"}


class _RichProgress:
    """A progress bar on a terminal's stderr (elapsed and estimated time left); disabled for
    --json and --quiet. Off a terminal, :class:`cli.progress.LineProgress` writes lines instead."""

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
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description:<16}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TextColumn("left"), TimeRemainingColumn(),
                console=err_console(), transient=True,
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


def index_cmd(
    root: Optional[Path] = ROOT_OPT,
    full: bool = typer.Option(False, "--full", help="Rebuild everything (re-parse and re-embed every document)."),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 6) on any warning instead of skipping the file."),
    as_json: bool = JSON_OPT,
    quiet: bool = quiet_option("No progress and no summary; warnings and errors still print, exit codes are unchanged."),
    lock_timeout: Optional[float] = typer.Option(None, "--lock-timeout", help="Seconds to wait for another writer (default 30)."),
    max_file_bytes: Optional[int] = typer.Option(None, "--max-file-bytes", help="Skip files larger than this (default 2000000)."),
    hook: bool = typer.Option(
        False, "--hook",
        help="For git hooks: quiet, waits at most 10 s for another writer (unless --lock-timeout), and never fails: "
        "any problem is a warning and exit 0, so a commit is never blocked.",
    ),
) -> None:
    """Index the OrionFS project: spans, lexical (Whoosh) and semantic (FAISS) indices under .oriongraph/.

    Incremental: unchanged documents cost nothing, edited documents re-embed only changed spans.

    Progress goes to stderr: a bar with the time left on a terminal; off one (CI logs) a plain
    line every 10 s once the run lasts that long. Warnings go there too, at most five of one
    kind for one file, then a line counting the rest (--json holds every one).
    """
    if hook:
        return _index_for_hook(root, full, lock_timeout, max_file_bytes)
    from oriongraph_cli.api import index_project

    with handled(as_json):
        cfg = project_config(root, lock_timeout=lock_timeout, max_file_bytes=max_file_bytes)
        served = {"on_wait": _say_waiting, **resident_index_options(cfg)}
        talk = not (as_json or quiet or len(served) > 1)  # a served run is short, and its stderr arrives whole at the end
        try:
            with (_RichProgress(True) if talk and sys.stderr.isatty() else LineProgress("orion index", INDEX_UNITS) if talk else _RichProgress(False)) as progress:
                result = index_project(cfg, full=full, strict=strict, progress=progress, **served)
        except StrictError as exc:
            print_warnings(getattr(exc, "warnings", []))
            raise
        print_warnings(result.warnings)
        if as_json:
            sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
        elif not quiet:
            sys.stdout.write(_index_summary(result) + "\n")


# warnings of one kind for one file printed on a line each; the rest of them are counted on one
# line (a generated page with thousands of broken anchors would bury every other warning)
WARNINGS_PER_FILE = 5
_LISTS_THEM = {"dangling-link": "`orion links --dangling` lists them all"}


def print_warnings(warnings) -> None:
    """Each warning on a line of its own, at most :data:`WARNINGS_PER_FILE` of one kind for
    one file; then, for each file and kind past it, one line saying how many were not shown
    and where to read them (``--json`` holds every warning)."""
    shown: dict[tuple[str, str], int] = {}
    for w in warnings:
        key = (w["path"], w.get("kind", ""))
        shown[key] = shown.get(key, 0) + 1
        if shown[key] <= WARNINGS_PER_FILE:
            loc = w["path"] + (f":{w['line']}" if w.get("line") else "") + (f":{w['col']}" if w.get("col") else "")
            warn(f"{loc}: {w['message']}")
    for (path, kind), n in shown.items():
        if n > WARNINGS_PER_FILE:
            more = n - WARNINGS_PER_FILE
            what = (kind.replace("-", " ") if kind == "dangling-link" else f"{kind} warning") + ("s" if more > 1 else "")
            warn(f"{path}: {more:,} more {what} not shown ({_LISTS_THEM.get(kind, '`orion index --json` lists every warning of a run')})")


HOOK_LOCK_TIMEOUT = 10.0


def _say_waiting(pid) -> None:
    by = f" held by pid {pid}" if pid else ""
    note(f"orion: waiting for the index lock{by}...")


def _index_for_hook(root, full, lock_timeout, max_file_bytes) -> None:
    """`orion index --hook`: the index is a cache of the project, so a problem with it must
    never stop a commit. Warnings go to stderr; the exit code is always 0."""
    from oriongraph_cli.errors import NotAProjectError, as_orion_error

    try:
        from oriongraph_cli.api import index_project

        cfg = project_config(root, lock_timeout=HOOK_LOCK_TIMEOUT if lock_timeout is None else lock_timeout, max_file_bytes=max_file_bytes)
        result = index_project(cfg, full=full, **{"on_wait": _say_waiting, **resident_index_options(cfg)})
        print_warnings(result.warnings)
        if result.repaired:
            warn(f"repaired: {result.repaired}")
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 — a hook reports and lets the commit through
        err = as_orion_error(exc)
        extra = ""
        if isinstance(err, NotAProjectError):
            extra = " (if the notes live in a subfolder, add `args: [--root, docs]` to the hook)"
        warn(f"orion index skipped: {err.message}{extra}; the commit goes ahead")
        if err.hint:
            sys.stderr.write(f"  hint: {clean(err.hint)}\n")


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
        if r.relinked:
            head += f"\nLinks resolved again: {r.relinked}."
        elif r.other_files_changed:
            head += "\nLinks to other files looked up again: files other than notes were added or removed in the stage folders."
    if r.warnings:
        counts = ", ".join(f"{n} {k}" for k, n in r.warning_counts().items())
        head += f"\n{len(r.warnings)} warning(s) ({counts}); {r.skipped_files} file(s) skipped."
    told = r.warning_counts().get("dangling-link", 0)
    if r.dangling_links > told:
        head += (f"\n{r.dangling_links} dangling link(s) in the index: the {r.dangling_links - told} not listed were dangling "
                 "before, in files this run did not touch (`orion links --dangling` lists them all).")
    return head + f"\nModel {r.model}; tokenizer {r.tokenizer}; {r.elapsed_ms / 1000:.1f}s."


# ============================================================================ status


def status_cmd(
    root: Optional[Path] = ROOT_OPT,
    as_json: bool = JSON_OPT,
    check: bool = typer.Option(False, "--check", help="Exit 1 when the index is stale, damaged, due a rebuild or its links due to be resolved again (for CI and hooks)."),
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = quiet_option("Print no report (with --check: only the exit code, and the error when it fails); --json still prints."),
) -> None:
    """What is indexed: documents, spans, model, tokenizer, generation, last run, stale files."""
    from oriongraph_cli.api import status as project_status

    with handled(as_json, output, page=True):
        cfg = project_config(root)
        st = project_status(cfg)
        problem = None
        if check and not st["up_to_date"]:
            stale = st["stale"]
            what = []
            if st["damaged"]:
                what.append(f"generation {st['damaged'][0]['generation']} is damaged")
            if any(stale.values()):
                what.append(f"{len(stale['modified'])} modified, {len(stale['new'])} new, {len(stale['deleted'])} deleted file(s) not indexed")
            if st["rebuild"]:
                what.append(f"the next index run rebuilds it ({st['rebuild']})")
            if st.get("relink"):
                what.append(f"the next index run resolves every link again ({st['relink']})")
            if st.get("other_files_changed"):
                what.append("files other than notes were added or removed; the next index run looks up the links to them again")
            problem = "the index is out of date: " + "; ".join(what)
        hint = f"run `{index_command(cfg.root)}`"
        if as_json:
            doc = {**st, "check": check_result(problem, hint)} if check else st
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        elif not quiet:
            _print_status(st)
        if problem:
            raise CheckFailed(problem, hint=hint, exit_code=ExitStatus.ERROR)


def _print_status(st) -> None:
    lines = [
        f"Project:     {clean_line(st['root'])}",  # a newline in a folder's name is escaped, not a line
        f"Generation:  {st['generation']}  (indexed {st['indexed_at_iso']})",
        f"Documents:   {st['documents']}",
        f"Spans:       {st['spans']}  ({st['tokens']:,} tokens)",
        f"Model:       {st['model']}  (dim {st['dim']})",
        f"Tokenizer:   {st['tokenizer']}",
        f"Generations: {', '.join(st['generations'])}",
    ]
    if st.get("repositories"):  # a link to one of their files by its web address names the file
        lines.append(f"Repository:  {', '.join(st['repositories'])}")
    stale = st["stale"]
    if any(stale.values()):
        lines.append(
            f"Stale:       {len(stale['modified'])} modified, {len(stale['new'])} new, {len(stale['deleted'])} deleted — run `orion index`"
        )
        for kind in ("modified", "new", "deleted"):
            for p in stale[kind][:20]:
                lines.append(f"  {kind:<9}{p}")
    elif st.get("other_files_changed"):
        lines.append("Stale:       no note changed")
    else:
        lines.append("Stale:       none — the index matches the files")
    if st.get("skipped"):  # read and skipped by every `orion index`: not stale, but not indexed either
        lines.append(f"Skipped:     {len(st['skipped'])} file(s) `orion index` cannot read — fix or remove them")
        for s in st["skipped"][:20]:
            lines.append(f"  {s['path']}: {s['message']}")
    if st.get("other_files_changed"):
        lines.append("Links:       files other than notes were added or removed — the next `orion index` looks up the links to them again")
    if st["rebuild"]:
        lines.append(f"Rebuild:     {st['rebuild']} — the next `orion index` rebuilds the index")
    if st.get("relink"):
        lines.append(f"Links:       {st['relink']} — the next `orion index` resolves every link again")
    for d in st["damaged"]:
        lines.append(f"Damaged:     generation {d['generation']} ({d['problem']}); using {st['generation']} — run `orion index` to repair")
    sys.stdout.write(clean("\n".join(lines)) + "\n")
