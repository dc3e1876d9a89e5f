"""`orion links` and `orion usage`.
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
    QUIET_OPT,
    ROOT_OPT,
    handled,
    project_config,
    stdout_console,
    tables_wanted,
)
from oriongraph_cli.errors import CheckFailed, ExitStatus, OrionError, check_result
from oriongraph_cli.api import clean_tree

# ============================================================================ links / usage


def links_cmd(
    target: Optional[str] = typer.Argument(None, help="A document path (relative to the root) or a span id / prefix."),
    root: Optional[Path] = ROOT_OPT,
    dangling: bool = typer.Option(False, "--dangling", help="List links whose target does not exist (path:line → target). A site URL (/manual/dns.html, /manual/dns/, also as a template writes it: {{ site.baseurl }}/manual/dns/, {% page \"/manual/dns/\" %}) names the page built from dns.md (or 02-dns.md, a page ordered by its number), or the page whose redirect_from lists it or whose permalink it is; a path from the site root (/config/dns.md) kept under a stage folder, the one page whose path ends so (of several, the one nearest the top: a translation's copy beside it is not named); #x names a heading (by its slug or an id written on it, {#x} or as an MDX comment {/*x*/}) or an anchor set in HTML (<a name=\"x\">, id=\"x\") or by an attribute list on its own line ({#x}). A file of the project's own repository by its web address (https://github.com/o/r/blob/main/docs/dns.md; the repository setting, else the git remotes) names that file; another repository's address, or a file the index does not hold, is an external link, never a dangling one."),
    structural: bool = typer.Option(False, "--structural", help="Also show NEXT/PREV and section edges."),
    as_json: bool = JSON_OPT,
    check: bool = typer.Option(False, "--check", help="With --dangling: exit 1 when there are dangling links (for CI and hooks)."),
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """What links in and out of a document or span, by type (ADR supersession, references, mentions, citations)."""
    with handled(as_json, output, page=True):
        from oriongraph_cli.api import links as links_of

        if check and not dangling:
            raise OrionError("--check applies to --dangling", hint="orion links --dangling --check", exit_code=ExitStatus.USAGE)
        report = links_of(project_config(root), target, dangling=dangling, structural=structural)
        n = len(report.get("dangling") or ())
        problem = f"{n} dangling link(s)" if check and n else None
        hint = "fix the links listed above, or remove them"
        if as_json:
            doc = {**report, "check": check_result(problem, hint)} if check else report
            sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        elif not tables_wanted():
            from oriongraph_cli.render.plain import links_lines

            sys.stdout.write(links_lines(report))
        else:
            from oriongraph_cli.render.table import print_links

            print_links(stdout_console(), clean_tree(report))
        if problem:
            raise CheckFailed(problem, hint=hint, exit_code=ExitStatus.ERROR)


def usage_cmd(
    root: Optional[Path] = ROOT_OPT,
    top: int = typer.Option(10, "--top", "-n", help="How many most/least used documents to list."),
    as_json: bool = JSON_OPT,
    output: Optional[Path] = OUTPUT_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Usage memory: most and least used documents, never-used documents, and their usage scores."""
    with handled(as_json, output, page=True):
        from oriongraph_cli.api import check_setting
        from oriongraph_cli.api import usage as usage_of

        report = usage_of(project_config(root), check_setting("top_k", top, "--top"))
        if as_json:
            sys.stdout.write(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
            return
        if not tables_wanted():
            from oriongraph_cli.render.plain import usage_lines

            sys.stdout.write(usage_lines(report))
            return
        from oriongraph_cli.render.table import print_usage

        print_usage(stdout_console(), clean_tree(report))
