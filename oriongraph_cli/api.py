"""The library API: everything the CLI does, without typer or rich.

```python
from oriongraph_cli.api import compile_workingset, index_project
from oriongraph_cli.config import load_config
from oriongraph_cli.models import CompileRequest

cfg = load_config("path/to/project")
index_project(cfg)
resp = compile_workingset(CompileRequest("add retry logic to the ingestion worker", budget_tokens=4000), cfg)
for item in resp.workingset.spans:
    print(item.path, item.section_title, item.span_ref.token_cost)
```

Every front end — the CLI (``cli/``) and the MCP server — goes through this module (and
``render`` and ``errors``): one entry per command, and the constants the front ends
need to define their options. The compile stages live in ``oriongraph_cli.rank`` and
``oriongraph_cli.assemble`` (``oriongraph_cli.pipeline`` holds their order), the write path
in ``oriongraph_cli.index``, persistence in ``oriongraph_cli.store``.

Importing this module is cheap (the models and text sanitising only): each entry
imports what it runs when called, so ``orion --help`` and completions stay fast, and
``Config``/``ACCEPTED_SUFFIXES`` are loaded on first use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from oriongraph_cli import __version__
from oriongraph_cli.request import build_request, check_intent, parse_where
from oriongraph_cli.models import (
    CHANNELS,
    SCHEMA_VERSION,
    STAGES,
    TOP_FOLDERS,
    CandidateSpan,
    CompileRequest,
    CompileResponse,
    DerivedSignals,
    HardFilters,
    Rejection,
    SoftPreferences,
    SourceType,
)
from oriongraph_cli import fusion as _fusion
from oriongraph_cli.textsafe import clean, clean_line, clean_tree

FUSION_METHODS = _fusion.names()  # the registered fusion methods (fusion.py)
FUSION_HELP = _fusion.describe()  # each with a few words, for help texts
WEIGHT_NAMES = (*CHANNELS, "recency", "stage", "usage")  # what --weight NAME=VALUE may set

if TYPE_CHECKING:
    from oriongraph_cli.config import Config
    from oriongraph_cli.store.reader import IndexReader


def __getattr__(name: str) -> Any:
    """``Config`` and ``ACCEPTED_SUFFIXES``, imported on first use (module doc)."""
    if name == "Config":
        from oriongraph_cli.config import Config

        return Config
    if name == "ACCEPTED_SUFFIXES":
        from oriongraph_cli.index.walk import ACCEPTED_SUFFIXES

        return ACCEPTED_SUFFIXES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- settings


def load_config(root: Path | str = ".", **overrides: Any) -> Config:
    """The settings of the project at ``root`` (flags > ``ORION_*`` > ``.orion.toml`` /
    ``pyproject.toml`` > defaults), validated."""
    from oriongraph_cli.config import load_config as load

    return load(root, **overrides)


def resolve_root(root: Path | str | None) -> Path:
    """``root`` or ``$ORION_ROOT``, else the nearest directory at or above the current one
    that holds a stage folder or ``.oriongraph/``."""
    from oriongraph_cli.config import resolve_root as resolve

    return resolve(root)


def config_origins(root: Path | str | None) -> tuple[Path, Any, Config, dict[str, Any]]:
    """``orion config``: (project root, where the root came from, the settings, where each
    setting came from)."""
    from oriongraph_cli.config import load_config_origins, resolve_root_origin

    where, root_origin = resolve_root_origin(root)
    cfg, origins = load_config_origins(where)
    return where, root_origin, cfg, origins


def setting_fields() -> list[str]:
    """The names of every setting, in ``Config``'s order."""
    from dataclasses import fields

    from oriongraph_cli.config import Config

    return [f.name for f in fields(Config)]


def check_setting(name: str, value: Any, source: str, label: str | None = None) -> Any:
    """``value`` checked and converted as setting ``name`` would be (a flag's value is
    checked the way ``.orion.toml`` is); ``source`` names it in the error."""
    from oriongraph_cli.config import _coerce

    return _coerce(name, value, source, label=label)


def parse_date(value: Any) -> int | None:
    """A front-matter or ``--since`` date as a UTC timestamp, or None when it is not one."""
    from oriongraph_cli.index.parse import parse_date as parse

    return parse(value)


def check_project(root: Path) -> list[str]:
    """The stage folders found under ``root``; raises ``NotAProjectError`` when there are none."""
    from oriongraph_cli.index.walk import check_project as check

    return check(root)


def init_project(directory: Path | str, today: str | None = None):
    """``orion init``: the stage folders, an example note, a commented ``.orion.toml``."""
    from oriongraph_cli.scaffold import init_project as init

    return init(directory, today=today)


# --------------------------------------------------------------------------- the index


def index_project(cfg: Config, **kwargs):
    """``orion index`` (see ``oriongraph_cli.index.indexer.index_project``). Imported on
    call: the indexer pulls in YAML parsing, which a compile never needs (~0.1 s)."""
    from oriongraph_cli.index.indexer import index_project as run

    return run(cfg, **kwargs)


def kept_index_model():
    """The index model for a process that indexes many times (``orion serve``, ``orion
    watch``), loaded by the first run that embeds and kept while the model and thread count
    stay the same: pass it as ``index_project(cfg, embedder_source=...)``."""
    from oriongraph_cli.store.embed import KeptEmbedder

    return KeptEmbedder()


def status(cfg: Config) -> dict[str, Any]:
    """``orion status``: what is indexed, whether it is intact, what changed since."""
    from oriongraph_cli.index.status import project_status

    return project_status(cfg)


def open_index(cfg: Config, *, load_embedder: bool = True) -> IndexReader:
    """The current generation, opened once: pass it to many compiles to skip the set-up."""
    from oriongraph_cli.store.reader import IndexReader

    return IndexReader(cfg, load_embedder=load_embedder)


def current_generation(cfg: Config) -> str | None:
    """The generation a reader opening now would read (None: no usable index)."""
    from oriongraph_cli.store.layout import Layout

    return Layout(cfg.index_dir).current()


def generation_stamp(cfg: Config, generation: str | None) -> tuple | None:
    """What tells a generation from another of the same name (an index deleted and built
    again starts at 000001 again): its folder's identity on the file system; None when
    there is none."""
    from oriongraph_cli.store.layout import Layout

    if not generation:
        return None
    try:
        st = os.stat(Layout(cfg.index_dir).gen_dir / generation)
    except OSError:
        return None
    return (generation, st.st_dev, st.st_ino, st.st_ctime_ns)


def prefetch_model(cfg: Config) -> None:
    """Start loading the query model in the background when there is an index to query."""
    if (Path(cfg.index_dir) / "CURRENT").exists():
        from oriongraph_cli.store import prefetch

        prefetch.start(cfg)


def indexed_values(root: Path | str | None, column: str) -> list[str] | None:
    """The values of a document column (``stage``, ``workstream``, ``tags``) in the index
    readers would open, for completing option values; None with no index. Reads the
    registry only (no model, no other index)."""
    from oriongraph_cli.store.layout import Layout
    from oriongraph_cli.store.registry import Registry

    layout = Layout(Path(resolve_root(root)).resolve() / ".oriongraph")
    gen = layout.current(warn=False)
    path = layout.gen_dir / gen / "registry.sqlite" if gen else None
    if path is None or not path.is_file():
        return None
    registry = Registry.open(path)
    try:
        return registry.document_values(column)
    finally:
        registry.close()


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` at once (a reader sees the old file or the new one)."""
    from oriongraph_cli.store.layout import atomic_write

    atomic_write(path, data)


# --------------------------------------------------------------------------- compile and read


def compile_workingset(request: CompileRequest, cfg: Config | None = None, reader: IndexReader | None = None) -> CompileResponse:
    """Compile the Working Set for ``request`` (``orion compile``)."""
    from oriongraph_cli import pipeline

    return pipeline.compile_workingset(request, cfg or load_config("."), reader)


def search(request: CompileRequest, cfg: Config | None = None, reader: IndexReader | None = None) -> tuple[DerivedSignals, list[CandidateSpan], dict[str, Any]]:
    """Ranked candidates before selection (``orion search``)."""
    from oriongraph_cli import pipeline

    return pipeline.search(request, cfg or load_config("."), reader)


def show_span(cfg: Config, span_id: str) -> dict[str, Any]:
    """One span quoted exactly, with provenance (``orion show``)."""
    from oriongraph_cli.assemble import hydrate

    return hydrate.show_span(cfg, span_id)


def show(cfg: Config, ref: str) -> dict[str, Any]:
    """``orion show REF``: a span by id (or unique prefix), a document's lines as ``path:L12-L40``,
    or a whole file by its path."""
    from oriongraph_cli.assemble import hydrate

    return hydrate.show(cfg, ref)


def mark_brief_used(cfg: Config, span_ids: Sequence[str], paths: Sequence[str], *, episode_id: str) -> None:
    """Record in the usage log that a compile's spans went into a written brief."""
    from oriongraph_cli.store.usage_log import mark_brief_used as mark

    mark(cfg.index_dir, list(span_ids), list(paths), episode_id=episode_id)


# --------------------------------------------------------------------------- reports


def links(cfg: Config, target: str | None, *, dangling: bool = False, structural: bool = False) -> dict[str, Any]:
    """``orion links``: what links in and out of a document or span, or the dangling links."""
    from oriongraph_cli.graph.report import links_of

    return links_of(cfg, target, dangling=dangling, structural=structural)


def usage(cfg: Config, top: int) -> dict[str, Any]:
    """``orion usage``: most and least used documents, never-used ones, usage scores."""
    from oriongraph_cli.rank.usage import usage_of

    return usage_of(cfg, top)


# --------------------------------------------------------------------------- evaluation


def parse_compare(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``--compare`` as baseline names (checked)."""
    from oriongraph_cli.evaluate import parse_compare as parse

    return parse(value)


def load_queries(path: Path | str) -> list:
    """Judged intents from a JSONL file (``orion eval QUERIES``)."""
    from oriongraph_cli.evaluate import load_queries as load

    return load(path)


def evaluate(cfg: Config, queries: Sequence, **kwargs: Any):
    """``orion eval``: retrieval quality of the pipeline and the baselines on judged intents."""
    from oriongraph_cli.evaluate import evaluate as run

    return run(cfg, queries, **kwargs)


def tune_min_queries() -> int:
    """The fewest judged intents ``--tune`` splits into folds."""
    from oriongraph_cli.tune import MIN_QUERIES

    return MIN_QUERIES


def tune_budgets(budget: int | None = None) -> tuple[int, ...]:
    """The budgets ``--tune`` measures working sets at: ``budget`` alone, or the defaults."""
    from oriongraph_cli.tune import BUDGETS

    return BUDGETS if budget is None else (budget,)


def tune(cfg: Config, queries: Sequence, *, folds: int, budgets: Sequence[int], progress: Callable[[str, int, int], None] | None = None,
         jobs: int = 1):
    """``orion eval --tune``: settings chosen by cross-validation on the judged intents,
    measured by ``jobs`` processes (0: one per core)."""
    from oriongraph_cli import tune as tuning

    return tuning.tune(cfg, queries, folds=folds, budgets=budgets, progress=progress, jobs=jobs)


def write_tuned_settings(root: Path, settings: dict[str, Any]) -> Path:
    """Write chosen settings into the project's ``.orion.toml`` (comments kept)."""
    from oriongraph_cli.tune import write_settings

    return write_settings(root, settings)


# --------------------------------------------------------------------------- watch


def watched_paths(root: Path) -> Callable[..., bool]:
    """``orion watch``: whether a change to a path can change the index — a note or a folder
    inside a stage folder, changed in any way, or any other file there added or removed (a
    link may name it: ``index.walk.OtherFiles``); never a hidden name. ``wanted(path,
    added_or_removed=True)``."""
    import os

    from oriongraph_cli.index.walk import ACCEPTED_SUFFIXES

    prefixes = tuple(str(root / top) + os.sep for top in TOP_FOLDERS)

    def wanted(path: str, added_or_removed: bool = True) -> bool:
        if not path.startswith(prefixes):
            return False
        name = os.path.basename(path)
        if name.startswith("."):
            return False
        return added_or_removed or name.lower().endswith(ACCEPTED_SUFFIXES) or "." not in name

    return wanted


__all__ = [
    "ACCEPTED_SUFFIXES",
    "FUSION_HELP",
    "FUSION_METHODS",
    "WEIGHT_NAMES",
    "SCHEMA_VERSION",
    "STAGES",
    "TOP_FOLDERS",
    "CompileRequest",
    "CompileResponse",
    "Config",
    "HardFilters",
    "Rejection",
    "SoftPreferences",
    "SourceType",
    "build_request",
    "check_intent",
    "parse_where",
    "check_project",
    "check_setting",
    "clean",
    "clean_line",
    "clean_tree",
    "compile_workingset",
    "config_origins",
    "current_generation",
    "generation_stamp",
    "evaluate",
    "index_project",
    "indexed_values",
    "init_project",
    "links",
    "load_config",
    "load_queries",
    "mark_brief_used",
    "open_index",
    "parse_compare",
    "parse_date",
    "prefetch_model",
    "resolve_root",
    "search",
    "setting_fields",
    "show",
    "show_span",
    "status",
    "tune",
    "tune_budgets",
    "tune_min_queries",
    "usage",
    "watched_paths",
    "write_atomically",
    "write_tuned_settings",
]
