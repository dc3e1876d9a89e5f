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

The stages themselves live in ``oriongraph_cli.compile`` (``pipeline.py`` reads as the
data flow); this module is the front door.
"""

from __future__ import annotations

from typing import Any

from oriongraph_cli.compile import hydrate, pipeline
from oriongraph_cli.config import Config, load_config
from oriongraph_cli.models import (
    CandidateSpan,
    CompileRequest,
    CompileResponse,
    DerivedSignals,
    HardFilters,
    Rejection,
    SoftPreferences,
)
from oriongraph_cli.store.reader import IndexReader


def index_project(cfg: Config, **kwargs):
    """``orion index`` (see ``oriongraph_cli.index.indexer.index_project``). Imported on
    call: the indexer pulls in YAML parsing, which a compile never needs (~0.1 s)."""
    from oriongraph_cli.index.indexer import index_project as run

    return run(cfg, **kwargs)


def open_index(cfg: Config, *, load_embedder: bool = True) -> IndexReader:
    """The current generation, opened once: pass it to many compiles to skip the set-up."""
    return IndexReader(cfg, load_embedder=load_embedder)


def build_request(
    cfg: Config,
    intent: str,
    *,
    budget: int | None = None,
    diversity_lambda: float | None = None,
    max_source_ratio: float | None = None,
    fusion: str | None = None,
    weights: dict[str, float] | None = None,
    top_k: int | None = None,
    hard_filters: HardFilters | None = None,
    prefer_stages: tuple[str, ...] = (),
    keywords: tuple[str, ...] = (),
    task_id: str | None = None,
    episode_id: str | None = None,
    explain: bool = False,
    deliver: tuple[str, ...] = ("markdown",),
    compress: bool = True,
    timings: bool = False,
    expand: bool = False,
    record_usage: bool = True,
    relax: bool = True,
) -> CompileRequest:
    """The one way every front end (CLI, MCP server, ``orion eval``, the library) turns an
    intent into a request: whatever is not given comes from ``cfg`` (flags > ``ORION_*`` >
    ``.orion.toml`` > defaults, as :func:`oriongraph_cli.config.load_config` resolved them),
    so the same settings give the same working set through every door. ``weights`` are
    overrides of the configured weights (``{"semantic": 0.5}``); without them the pipeline
    applies the configured weights itself (with the structural channel's no-hint rule)."""
    from dataclasses import replace

    w = None
    if weights:
        w = replace(cfg.weights(), **weights)
    return CompileRequest(
        intent=intent,
        budget_tokens=cfg.budget if budget is None else budget,
        task_id=task_id,
        keywords=tuple(keywords),
        episode_id=episode_id,
        hard_filters=hard_filters or HardFilters(),
        soft_prefs=SoftPreferences(
            prefer_stages=tuple(prefer_stages),
            diversity_lambda=cfg.diversity_lambda if diversity_lambda is None else diversity_lambda,
            max_single_source_ratio=cfg.max_source_ratio if max_source_ratio is None else max_source_ratio,
        ),
        weights=w,
        fusion=fusion or cfg.fusion,
        explain=explain,
        top_k=top_k or cfg.top_k,
        timings=timings,
        expand=expand,
        record_usage=record_usage,
        relax=relax,
        deliver=tuple(deliver),
        compress=compress,
    )


def compile_workingset(request: CompileRequest, cfg: Config | None = None, reader: IndexReader | None = None) -> CompileResponse:
    """Compile the Working Set for ``request`` (``orion compile``)."""
    return pipeline.compile_workingset(request, cfg or load_config("."), reader)


def search(request: CompileRequest, cfg: Config | None = None, reader: IndexReader | None = None) -> tuple[DerivedSignals, list[CandidateSpan], dict[str, Any]]:
    """Ranked candidates before selection (``orion search``)."""
    return pipeline.search(request, cfg or load_config("."), reader)


def show_span(cfg: Config, span_id: str) -> dict[str, Any]:
    """One span quoted exactly, with provenance (``orion show``)."""
    return hydrate.show_span(cfg, span_id)


def show(cfg: Config, ref: str) -> dict[str, Any]:
    """``orion show REF``: a span by id (or unique prefix), or a document's lines as ``path:L12-L40``."""
    return hydrate.show(cfg, ref)


__all__ = [
    "CompileRequest",
    "CompileResponse",
    "HardFilters",
    "SoftPreferences",
    "Rejection",
    "build_request",
    "compile_workingset",
    "index_project",
    "open_index",
    "search",
    "show",
    "show_span",
]
