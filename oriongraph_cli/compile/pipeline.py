"""The compile pipeline, one stage per step, each in the module that owns it:

    intent -> signals -> generators -> normalise + fuse -> select (MMR + budget)
           -> hydrate -> (render, in the CLI)

``rank_candidates`` runs the stages up to scoring (``orion search`` stops there);
``compile_workingset`` selects, hydrates and explains. The explanation travels with the
data: every candidate carries its reasons and channel scores from the stage that set them.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from oriongraph_cli.compile import (
    candidates,
    expansions,
    explain,
    graph_channel,
    hydrate,
    lifecycle,
    score,
    select,
    signals,
    usage,
)
from oriongraph_cli.config import Config
from oriongraph_cli.models import (
    CandidateSpan,
    CompileRequest,
    CompileResponse,
    CompileStats,
    DerivedSignals,
    WorkingSet,
)
from oriongraph_cli.store.reader import IndexReader


def reference_time(reader: IndexReader) -> int:
    """Recency is measured against the index build time, not the wall clock, so the same
    index gives the same scores tomorrow (determinism)."""
    return int(reader.manifest.get("created_at") or 0)


def rank_candidates(request: CompileRequest, cfg: Config, reader: IndexReader, timings: dict[str, float] | None = None):
    """Signals -> generators -> normalise -> score. Returns (signals, scored candidates,
    hits per generator, generator errors, relaxed filter names)."""
    timings = {} if timings is None else timings
    t = time.perf_counter()
    sig = signals.from_index(request, reader)
    embed = candidates.IntentEmbedding(reader, sig.intent)
    timings["signals"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    hits, errors, relaxed, filters = candidates.generate(request, reader, sig, embed, timings)
    sig = replace(sig, intent_embedding=embed())
    timings["generate"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    weights = explain.effective_weights(request, cfg, sig)
    now = reference_time(reader)
    fetched: dict = {}  # rows already read, shared by every rebuild of the candidate list
    cands = candidates.build(reader, sig, hits, fetched)
    # graph channel: neighbours of the best candidates of the other channels
    if cfg.graph and weights.graph > 0 and cands:
        base_of = lambda: score.fuse(cands, hits, weights, request, cfg, now, how=score.base_scores)  # noqa: E731
        if graph_channel.add_hits(reader, cfg, request, filters, cands, base_of, hits, errors, timings):
            cands = candidates.build(reader, sig, hits, fetched)
    # decision lifecycle: superseded decisions demoted, their successors pulled in
    plan = None
    if cfg.lifecycle and cands:
        plan = lifecycle.plan_lifecycle(
            cands, reader.registry.conn, prefer_stages=request.soft_prefs.prefer_stages,
            intent_doc_ids=sig.struct_hints.doc_ids, demote=cfg.lifecycle_demote, final_boost=cfg.lifecycle_final_boost,
        )
        if plan.extra:
            present = {c.row for c in cands}
            extra = candidates.build(reader, sig, {"lifecycle": plan.extra_hits()}, fetched)
            cands = cands + [c for c in extra if c.row not in present]
    # usage memory: each document's usage score, from the snapshot taken by `orion index`
    if weights.usage > 0 and cands:
        cands = usage.apply_dynamic_scores(cands, cfg.index_dir, now, cfg.usage_weights)
    scored = score.fuse(cands, hits, weights, request, cfg, now)
    if plan is not None:
        scored = lifecycle.apply_lifecycle(scored, plan)
    if request.episode_id:
        scored = usage.apply_episode(scored, cfg.index_dir, request.episode_id, cfg.episode_boost)
    timings["score"] = (time.perf_counter() - t) * 1000
    return sig, scored, hits, errors, relaxed


def search(request: CompileRequest, cfg: Config, reader: IndexReader | None = None) -> tuple[DerivedSignals, list[CandidateSpan], dict[str, Any]]:
    """Ranked candidates before selection (``orion search``)."""
    own = reader is None
    reader = reader or IndexReader(cfg)
    try:
        sig, scored, hits, errors, relaxed = rank_candidates(request, cfg, reader)
        if not scored:
            raise candidates.no_candidates(request, reader)
        info = {
            "candidates_seen": {k: len(v) for k, v in sorted(hits.items())},
            "generator_errors": errors,
            "relaxed_filters": list(relaxed),
            "index": reader.info(),
        }
        return sig, scored[: request.top_k], info
    finally:
        if own:
            reader.close()


def compile_workingset(request: CompileRequest, cfg: Config, reader: IndexReader | None = None) -> CompileResponse:
    """Compile the Working Set for ``request``: rank, select under the budget, hydrate,
    explain, and record the compile in the usage log."""
    own = reader is None
    started = time.perf_counter()
    timings: dict[str, float] = {}
    reader = reader or IndexReader(cfg)
    try:
        if own:
            timings["open"] = (time.perf_counter() - started) * 1000
        sig, scored, hits, errors, relaxed = rank_candidates(request, cfg, reader, timings)
        if not scored:
            raise candidates.no_candidates(request, reader)

        t = time.perf_counter()
        prefs = request.soft_prefs
        sel = select.select(
            scored, expansions.selection_budget(request), prefs.diversity_lambda, prefs.max_single_source_ratio, cfg.mmr_threshold
        )
        timings["select"] = (time.perf_counter() - t) * 1000

        t = time.perf_counter()
        entries = expansions.with_expansions(cfg, reader, sel.picked, request)
        items, stale = hydrate.hydrate(cfg, reader, entries)
        timings["hydrate"] = (time.perf_counter() - t) * 1000

        weights = explain.effective_weights(request, cfg, sig)
        total = sum(i.span_ref.token_cost for i in items)
        timings["total"] = (time.perf_counter() - started) * 1000
        stats = CompileStats(
            tokens_used=total,
            budget=request.budget_tokens,
            utilization=round(total / request.budget_tokens, 4) if request.budget_tokens else 0.0,
            candidates_seen={k: len(v) for k, v in sorted(hits.items())},
            candidates_total=len(scored),
            selected=len(items),
            dropped=len(scored) - len(items),
            sources=len({i.path for i in items}),
            fusion=request.fusion or cfg.fusion,
            relaxed_filters=relaxed,
            generator_errors=dict(sorted(errors.items())),
            stale_spans=stale,
            timings_ms={k: round(v, 2) for k, v in timings.items()} if request.timings else None,
        )
        return CompileResponse(
            request=request,
            signals=sig,
            workingset=WorkingSet(spans=tuple(items), total_tokens=total),
            stats=stats,
            rationale=explain.rationale(entries, items, weights) if request.explain else None,
            rejected=tuple(sel.rejected) if request.explain else (),
            defaults=explain.effective_defaults(cfg, request, sig),
            index=reader.info(),
            episode_id=usage.record(cfg, request, items),
        )
    finally:
        if own:
            reader.close()
