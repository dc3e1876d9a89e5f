"""Who may import what: the front ends go through the library API, and only store/ holds SQL."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "oriongraph_cli"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "oriongraph_cli":  # from oriongraph_cli import api
                out.update(f"oriongraph_cli.{a.name}" for a in node.names)
            else:
                out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("oriongraph_cli")}


def test_front_ends_import_only_the_api_render_and_errors():
    allowed = ("oriongraph_cli.api", "oriongraph_cli.render", "oriongraph_cli.errors", "oriongraph_cli.cli")
    wrong = {
        f"{p.name}: {m}"
        for p in sorted((PACKAGE / "cli").glob("*.py"))
        for m in _imports(p)
        if not any(m == a or m.startswith(a + ".") for a in allowed)
    }
    assert not wrong, sorted(wrong)


def test_only_store_holds_sql():
    sql = re.compile(r"\.execute(many|script)?\(|CREATE (TABLE|INDEX)|\bimport sqlite3\b|\.conn\b")
    wrong = [
        str(p.relative_to(PACKAGE))
        for p in sorted(PACKAGE.rglob("*.py"))
        if "store" not in p.relative_to(PACKAGE).parts[:1] and p.name != "errors.py" and sql.search(p.read_text())
    ]
    assert wrong == []


def test_the_api_imports_cheaply():
    """`orion --help` and completions import the API: it must not pull in the pipeline."""
    import subprocess
    import sys

    code = "import sys, oriongraph_cli.api; print(sorted(m for m in sys.modules if m.startswith('oriongraph_cli.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for heavy in ("oriongraph_cli.pipeline", "oriongraph_cli.store.reader", "oriongraph_cli.config", "numpy"):
        assert f"'{heavy}'" not in loaded
