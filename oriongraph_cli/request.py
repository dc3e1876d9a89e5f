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


def check_intent(intent: str) -> str:
    """``intent`` when it says something: an intent of blanks and control characters is empty,
    and one holding text that is not UTF-8 (a command line's undecodable bytes, a lone
    surrogate from JSON) is refused, the same through every door."""
    from oriongraph_cli.errors import ExitStatus, OrionError

    if not isinstance(intent, str) or not any(ch.isprintable() and not ch.isspace() for ch in intent):
        raise OrionError("the intent is empty", hint='say what you are about to do, e.g. orion compile "add retry logic to the worker"',
                         exit_code=ExitStatus.USAGE)
    try:
        intent.encode("utf-8")
    except UnicodeEncodeError:
        raise OrionError("the intent is not UTF-8 text", hint="write it in UTF-8 (a terminal's or file's other encoding: convert it with iconv)",
                         exit_code=ExitStatus.USAGE) from None
    return intent


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

    check_intent(intent)
    w = None
    if weights:
        w = replace(cfg.weights(), **weights)
    filters = hard_filters or HardFilters()
    # stages and tags are matched in lower case, and a request for final documents only
    # also prefers them (so "final" ranks as every door's --stage final)
    filters = replace(filters, stages=tuple(s.lower() for s in filters.stages), tags=tuple(t.lower() for t in filters.tags))
    prefer = tuple(s.lower() for s in prefer_stages)
    if "final" in filters.stages and "final" not in prefer:
        prefer += ("final",)
    return CompileRequest(
        intent=intent,
        budget_tokens=cfg.budget if budget is None else budget,
        task_id=task_id,
        keywords=tuple(keywords),
        episode_id=episode_id,
        hard_filters=filters,
        soft_prefs=SoftPreferences(
            prefer_stages=prefer,
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
