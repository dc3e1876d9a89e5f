"""Completion of option values (``--stage <TAB>``): stages, workstreams and tags read from the
index's registry (SQLite, read-only; the model and the other indices are never loaded), fixed
choices from their definitions, command names from the app. A completion never fails: with
no project or no index, or anything else wrong, it offers nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, List

import typer


def _matching(values: Iterable[str], incomplete: str) -> List[str]:
    return sorted({v for v in values if v and v.startswith(incomplete)})


def _registry(ctx: typer.Context) -> Path | None:
    """The registry of the generation readers would open, in the project the command line names."""
    from oriongraph_cli.config import resolve_root
    from oriongraph_cli.store.layout import Layout

    layout = Layout(Path(resolve_root(ctx.params.get("root"))).resolve() / ".oriongraph")
    gen = layout.current(warn=False)
    path = layout.gen_dir / gen / "registry.sqlite" if gen else None
    return path if path is not None and path.is_file() else None


def _indexed(column: str) -> Callable[[typer.Context, str], List[str]]:
    def complete(ctx: typer.Context, incomplete: str) -> List[str]:
        try:
            from oriongraph_cli.store.registry import Registry

            path = _registry(ctx)
            if path is None:
                return []
            registry = Registry.open(path)
            try:
                values = registry.document_values(column)
            finally:
                registry.close()
            if column == "stage":
                from oriongraph_cli.models import STAGES

                values += list(STAGES)
            return _matching(values, incomplete)
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
