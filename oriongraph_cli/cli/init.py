"""`orion init [DIR]`: scaffold an OrionFS project (see :mod:`oriongraph_cli.scaffold`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from oriongraph_cli.cli.context import QUIET_OPT, handled, note, warn
from oriongraph_cli.errors import ExitStatus, OrionError, index_command


def init_cmd(
    directory: Optional[Path] = typer.Argument(None, help="Where to create the project (default: the current directory; created when missing)."),
    quiet: bool = QUIET_OPT,
) -> None:
    """Create an OrionFS project: the four stage folders, one example note, a commented
    .orion.toml with the main settings at their defaults, and .oriongraph/ in .gitignore.

    A file that exists is never overwritten: it is named on stderr and kept. Running it
    again changes nothing. Then: orion index, orion compile "…".
    """
    with handled():
        from oriongraph_cli.api import init_project

        target = Path(directory) if directory is not None else Path(".")
        if target.exists() and not target.is_dir():
            raise OrionError(f"{target}: is not a directory", hint="give a directory, e.g. orion init notes", exit_code=ExitStatus.USAGE)
        if ".oriongraph" in target.resolve().parts:
            raise OrionError(f"{target}: inside orion's index directory", hint="give another directory", exit_code=ExitStatus.USAGE)
        result = init_project(target)
        for rel in result.kept:
            warn(f"kept {rel}: it exists and differs from what orion init writes (not overwritten)")
        for rel in result.linked:
            warn(f"kept {rel}: a symbolic link, or inside one; nothing is written through it (it may lead out of the project)")
        for rel in result.created:
            note(f"created {rel}")
        if not result.created:
            note(f"nothing to do: {result.root} is already an OrionFS project")
        else:
            note(f"next: {'orion index' if directory is None else index_command(target)}")
        sys.stdout.flush()
