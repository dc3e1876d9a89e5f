"""`orion config`: every effective setting, its value and where it came from (as
`git config list --show-origin`), from the layering :func:`config.load_config_origins` records."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import typer

from oriongraph_cli.cli.context import JSON_OPT, OUTPUT_OPT, QUIET_OPT, ROOT_OPT, handled, stdout_console, tables_wanted
from oriongraph_cli.errors import ExitStatus, OrionError


def value_text(value: Any) -> str:
    """A value as .orion.toml would spell it (``true``, ``0.5``, a path), empty for none."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def effective_settings(root: Optional[Path]) -> tuple[Path, list[tuple[str, Any, Any]]]:
    """(root, [(setting, value, Origin)]) in Config's order, the root first."""
    from oriongraph_cli import api

    _where, root_origin, cfg, origins = api.config_origins(root)
    rows = [("root", cfg.root, root_origin)]
    rows += [(name, getattr(cfg, name), origins[name]) for name in api.setting_fields() if name != "root"]
    return cfg.root, rows


def config_cmd(
    key: Optional[str] = typer.Argument(None, help="One setting: print just its value (as `git config KEY`); `list` or none: every setting."),
    root: Optional[Path] = ROOT_OPT,
    show_origin: bool = typer.Option(False, "--show-origin", help="Accepted as git spells it: the origin is always shown."),
    as_json: bool = JSON_OPT,
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Every effective setting with its value and where it came from: flag, ORION_* variable,
    .orion.toml or pyproject.toml [tool.oriongraph] (with its path), or the default.

    On a pipe one line per setting: setting, value, origin, tab-separated (origin is
    default, env:ORION_BUDGET, file:/path/.orion.toml, flag:--root or cwd:DIR for a root
    found from the current directory). A flag given to another command wins over all of these.
    """
    with handled(as_json, output, page=True):
        project, rows = effective_settings(root)
        if key == "list":  # git config list
            key = None
        if key is not None:
            names = [r[0] for r in rows]
            if key not in names:
                import difflib

                close = difflib.get_close_matches(key, names, n=1)
                raise OrionError(
                    f"no setting {key!r}" + (f"; did you mean {close[0]}?" if close else ""),
                    hint="`orion config` lists every setting", exit_code=ExitStatus.USAGE,
                )
            rows = [r for r in rows if r[0] == key]
        if as_json:
            from oriongraph_cli.api import SCHEMA_VERSION

            doc = {
                "schema_version": SCHEMA_VERSION, "kind": "config", "root": str(project),
                "settings": [{"key": k, "value": str(v) if isinstance(v, Path) else v, "origin": {"kind": o.kind, "name": o.name}}
                             for k, v, o in rows],
            }
            sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        elif key is not None:
            sys.stdout.write(value_text(rows[0][1]) + "\n")
        elif not tables_wanted():
            from oriongraph_cli.api import clean_line

            sys.stdout.write("".join("\t".join(clean_line(x) for x in (k, value_text(v), str(o))) + "\n" for k, v, o in rows))
        else:
            from rich import box
            from rich.table import Table

            t = Table(title=f"orion settings for {project}", box=box.SIMPLE_HEAD)
            t.add_column("setting", no_wrap=True)
            t.add_column("value", overflow="fold")
            t.add_column("origin", overflow="fold")
            for k, v, o in rows:
                style = None if o.kind == "default" else "bold"
                t.add_row(k, value_text(v), str(o), style=style)
            stdout_console().print(t)
