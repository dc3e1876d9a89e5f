"""`orion watch`: re-index when notes change (debounced), using watchfiles (inotify via Rust:
no polling, so an idle watch costs next to no CPU)."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def _relevant(root: Path):
    from watchfiles import Change

    from oriongraph_cli.api import watched_paths

    wanted = watched_paths(root)

    def keep(change, path: str) -> bool:
        return wanted(path, change != Change.modified)

    return keep


def watch(cfg, *, debounce_ms: int, once_ready=None, quiet: bool = False) -> None:
    """Index now, then after each burst of changes under the stage folders. A failed run is
    reported and the watch goes on; Ctrl-C or SIGTERM ends it. ``quiet``: no line per run."""
    from watchfiles import watch as watch_files

    from oriongraph_cli.cli.context import warn
    from oriongraph_cli.cli.index import print_warnings
    from oriongraph_cli.errors import as_orion_error
    from oriongraph_cli.api import index_project, kept_index_model

    model = kept_index_model()  # loaded by the first run that embeds, then kept: an edit does not load it again

    def run(reason: str) -> None:
        started = time.perf_counter()
        try:
            r = index_project(cfg, embedder_source=model)
        except Exception as exc:  # noqa: BLE001 — keep watching; say what went wrong
            err = as_orion_error(exc)
            warn(f"orion watch: index failed: {err.message}" + (f" ({err.hint})" if err.hint else ""))
            return
        print_warnings(r.warnings)  # escaped like every other warning
        notes = r.added_documents or r.updated_documents or r.removed_documents
        what = "nothing changed" if r.nothing_changed else (
            "links to other files looked up again" if r.other_files_changed and not notes
            else f"{r.added_documents} added, {r.updated_documents} updated, {r.removed_documents} removed"
        )
        say(f"{reason}: {what} (generation {r.generation}, {(time.perf_counter() - started):.1f}s)")

    def say(text: str) -> None:
        if not quiet:
            sys.stdout.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {text}\n")
            sys.stdout.flush()

    run("start")
    if once_ready is not None:
        once_ready()

    def stage_folders() -> list[str]:
        return [str(cfg.root / top) for top in ("01_context", "02_knowledge", "03_workstreams", "04_artifacts") if (cfg.root / top).is_dir()]

    ready = False
    pending: str | None = None  # a run owed once the new watches are in place
    while True:
        # the stage folders are watched as they are now; one created, moved away or replaced
        # (a checkout) is seen by the check each second and watched from then on — the run
        # it causes waits for the new watches, so nothing written meanwhile goes unseen
        watched = stage_folders()
        ids = {path: _folder_id(path) for path in watched}
        if not watched:  # none yet: look again each second
            if not ready:
                ready = True
                say("watching for changes")
            if pending:
                run(pending)
                pending = None
            time.sleep(1)
            if stage_folders():
                pending = "stage folders changed"
            continue
        for changes in watch_files(*watched, watch_filter=_relevant(cfg.root), debounce=debounce_ms, raise_interrupt=True,
                                   rust_timeout=1000, yield_on_timeout=True):
            if not ready:  # the first yield: the watches are in place
                ready = True
                say("watching for changes")
            if pending:
                run(pending)
                pending = None
                continue
            if stage_folders() != watched or any(_folder_id(path) != ids[path] for path in watched):
                pending = "stage folders changed"
                break
            if not changes:
                continue
            n = len({p for _c, p in changes})
            run(f"{n} file(s) changed")


def _folder_id(path: str) -> tuple | None:
    """A folder's identity, to tell one moved away and another made under its name."""
    import os

    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
