"""Completion of option values (``--stage <TAB>``): stages, workstreams and tags read from the
index's registry (SQLite, read-only; the model and the other indices are never loaded), fixed
choices from their definitions, command names from the app. A completion never fails: with
no project or no index, or anything else wrong, it offers nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Callable, Iterable, List

import typer


def _matching(values: Iterable[str], incomplete: str) -> List[str]:
    return sorted({v for v in values if v and v.startswith(incomplete)})


def _registry(ctx: typer.Context) -> Path | None:
    """The registry of the current generation of the project the command line names."""
    from oriongraph_cli.config import resolve_root
    from oriongraph_cli.store.layout import _is_gen_name

    root = Path(resolve_root(ctx.params.get("root"))).resolve()
    index = root / ".oriongraph"
    gen = (index / "CURRENT").read_text().strip()
    path = index / "gen" / gen / "registry.sqlite"
    return path if _is_gen_name(gen) and path.is_file() else None


def _indexed(column: str) -> Callable[[typer.Context, str], List[str]]:
    def complete(ctx: typer.Context, incomplete: str) -> List[str]:
        try:
            path = _registry(ctx)
            if path is None:
                return []
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                rows = [r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM documents WHERE {column} IS NOT NULL")]
            finally:
                conn.close()
            if column == "tags":
                rows = [t for r in rows for t in json.loads(r)]
            if column == "stage":
                from oriongraph_cli.models import STAGES

                rows += list(STAGES)
            return _matching(map(str, rows), incomplete)
        except Exception:  # noqa: BLE001 — a completion offers nothing rather than fail
            return []

    return complete


def choices(values: Iterable[str]) -> Callable[[str], List[str]]:
    fixed = tuple(values)

    def complete(incomplete: str) -> List[str]:
        return _matching(fixed, incomplete)

    return complete


def command_names(ctx: typer.Context, incomplete: str) -> List[str]:
    try:
        group = ctx.find_root().command
        return _matching(group.list_commands(ctx), incomplete)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        return []


stages = _indexed("stage")
workstreams = _indexed("workstream")
tags = _indexed("tags")
