"""The compile request, built one way for every front end (CLI, MCP server, ``orion eval``,
``--tune``, the library): this is the one place compile defaults are decided. The library
exposes it as ``oriongraph_cli.api.build_request``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oriongraph_cli.models import CompileRequest, HardFilters, SoftPreferences

if TYPE_CHECKING:
    from oriongraph_cli.config import Config


def parse_where(values) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE`` filters (``--where`` on the command line, ``where`` for an MCP client) as
    (key, value) pairs; anything else is a usage error naming it."""
    from oriongraph_cli.errors import ExitStatus, OrionError

    out = []
    for v in values:
        k, _, val = str(v).partition("=")
        if "=" not in str(v) or not k.strip():
            raise OrionError(f"--where {v!r} is not KEY=VALUE", hint="e.g. --where status=accepted", exit_code=ExitStatus.USAGE)
        out.append((k.strip(), val.strip()))
    return tuple(out)


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
