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
    # and the wire format orion serve shares with the entry point (standard library only)
    allowed = ("oriongraph_cli.api", "oriongraph_cli.render", "oriongraph_cli.errors", "oriongraph_cli.cli", "oriongraph_cli.wire")
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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _edges(path: Path, lazy: bool) -> set[str]:
    """Modules of the package that ``path`` imports: at module level, or (``lazy``) anywhere,
    inside functions too. ``from pkg import sub`` counts as importing ``pkg.sub``."""
    tree = ast.parse(path.read_text())
    nodes = ast.walk(tree) if lazy else (n for top in tree.body if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(top))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = {f"{node.module}.{a.name}" for a in node.names} & MODULES.keys()
            out |= subs
            if node.module in MODULES and len(subs) < len(node.names):
                out.add(node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in MODULES}
    return out - {_module_name(path)}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    """What a module imports when it loads never leads back to it."""
    assert _cycles({m: _edges(p, lazy=False) for m, p in MODULES.items()}) == []


def test_the_compile_path_has_no_cycles_even_through_deferred_imports():
    """rank/, assemble/ and the pipeline: no cycle, counting the imports inside functions."""
    mine = {m: p for m, p in MODULES.items() if m.startswith(("oriongraph_cli.rank", "oriongraph_cli.assemble")) or m == "oriongraph_cli.pipeline"}
    assert _cycles({m: _edges(p, lazy=True) & mine.keys() for m, p in mine.items()}) == []


def test_ranking_never_imports_assembly():
    """The compile path runs one way: rank/ knows nothing of assemble/ or the pipeline, and
    assemble/ nothing of the pipeline (deferred imports included)."""
    wrong = []
    for m, p in MODULES.items():
        for target in _edges(p, lazy=True):
            if m.startswith("oriongraph_cli.rank") and target.startswith(("oriongraph_cli.assemble", "oriongraph_cli.pipeline")):
                wrong.append(f"{m} -> {target}")
            if m.startswith("oriongraph_cli.assemble") and target == "oriongraph_cli.pipeline":
                wrong.append(f"{m} -> {target}")
    assert wrong == []


def test_the_entry_point_imports_only_the_standard_library():
    """`orion compile` answered by `orion serve`: the client never loads the CLI or the library."""
    import subprocess
    import sys

    code = "import sys, oriongraph_cli.client; print(sorted(m for m in sys.modules if m.startswith(('oriongraph_cli.', 'typer', 'numpy'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['oriongraph_cli.client', 'oriongraph_cli.wire']"


def test_the_wire_protocol_sits_below_the_client_and_the_cli():
    """The protocol both ends speak imports nothing of orion's, and the CLI reaches the
    client's protocol through it: no import runs from the CLI back up to the entry point."""
    assert _imports(PACKAGE / "wire.py") <= {"oriongraph_cli.__version__"}  # for the identity
    assert not {m for p in (PACKAGE / "cli").glob("*.py") for m in _imports(p) if m == "oriongraph_cli.client"}


def test_the_modules_below_the_packages_import_none_of_them():
    """Settings, the data model and the shared readers sit below every package: none of them
    imports one (a deferred import too), so no import runs back up the layers."""
    bottom = ("config", "fusion", "normalise", "models", "errors", "tokens", "blocks", "docids",
              "safeio", "textsafe", "repository", "request", "language", "wire")
    packages = ("cli", "api", "tune", "evaluate", "pipeline", "assemble", "rank", "index", "graph", "store", "render", "parallel", "scaffold", "client")
    wrong = {
        f"{name}.py: {m}"
        for name in bottom
        for m in _imports(PACKAGE / f"{name}.py")
        if any(m == f"oriongraph_cli.{p}" or m.startswith(f"oriongraph_cli.{p}.") for p in packages)
    }
    assert not wrong, sorted(wrong)


def test_a_compile_loads_neither_the_notes_reading_rules_nor_pythons_json_decoder_for_the_lookup_tables(sample_index):
    """A compile reads a quoted note's text again by the input rules alone (``index.decode``):
    the front matter and stated-status rules (``index.parse``, ``index.stated``, ~35 ms of
    patterns compiled at import) are the index's, not a compile's, with a stage filter too;
    its lookup tables are read by orjson (``store.compact_json.loads``)."""
    import subprocess
    import sys

    for extra in ((), ("--stage", "design")):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "oriongraph_cli", "compile", "retry policy for the worker",
                               "--root", str(sample_index), "--json", "--no-usage-log", *extra],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert '"documents"' in proc.stdout
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
        assert {"oriongraph_cli.pipeline", "oriongraph_cli.index.decode", "orjson"} <= imported
        assert not imported & {"oriongraph_cli.index.parse", "oriongraph_cli.index.stated", "oriongraph_cli.index.preamble", "yaml"}
