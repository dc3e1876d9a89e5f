"""Completion of option values (``--stage <TAB>``): stages, workstreams and tags read from the
index's registry (SQLite, read-only; the model and the other indices are never loaded), fixed
choices from their definitions, command names from the app. A completion never fails: with
no project or no index, or anything else wrong, it offers nothing."""

from __future__ import annotations

from typing import Callable, Iterable, List

import typer


def _matching(values: Iterable[str], incomplete: str) -> List[str]:
    return sorted({v for v in values if v and v.startswith(incomplete)})


def _indexed(column: str) -> Callable[[typer.Context, str], List[str]]:
    def complete(ctx: typer.Context, incomplete: str) -> List[str]:
        try:
            from oriongraph_cli import api

            # the registry of the generation readers would open, in the project the command line names
            values = api.indexed_values(ctx.params.get("root"), column)
            if values is None:
                return []
            if column == "stage":
                values += list(api.STAGES)
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
