"""The compile pipeline, one stage per step, each in the module that owns it:

    intent -> signals -> generators -> normalise + fuse -> select (MMR, floor, budget)
           -> pack (shortened forms) -> hydrate -> layout (reading order) -> deliver (fit the rendered output)

``rank_candidates`` runs the stages up to scoring (``orion search`` stops there);
``compile_workingset`` selects, assembles, hydrates and explains, as many times as
``deliver.fit`` needs to make the rendered output fit the budget. The explanation travels
with the data: every candidate carries its reasons and channel scores from the stage that
set them.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from oriongraph_cli.compile import (
    assemble,
    candidates,
    compress,
    deliver,
    expansions,
    explain,
    graph_channel,
    hydrate,
    implicit,
    lifecycle,
    score,
    select,
    signals,
    usage,
)
from oriongraph_cli.config import Config
from oriongraph_cli.models import (
    CandidateSpan,
    LeftOut,
    CompileRequest,
    CompileResponse,
    CompileStats,
    DerivedSignals,
    WorkingSet,
)
from oriongraph_cli.store.reader import IndexReader
from oriongraph_cli.tokens import get_counter, preload

LEFT_OUT_MAX = 5
STOP_NOTE_BELOW = 0.85  # a selection that ends below this share of its room says why
LEFT_OUT_TOKENS_EACH = 1000  # one left-out line per this many tokens of budget (at least 1)


def reference_time(reader: IndexReader) -> int:
    """Recency is measured against the index build time, not the wall clock, so the same
    index gives the same scores tomorrow (determinism)."""
    return reader.manifest.created_at


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
    counts = reader.span_counts if cfg.doc_evidence > 0 else None
    cands = candidates.build(reader, sig, hits, fetched)
    # graph channel: neighbours of the best candidates of the other channels
    if cfg.graph and weights.graph > 0 and cands:
        base_of = lambda: score.fuse(cands, hits, weights, request, cfg, now, how=score.base_scores, span_counts=counts)  # noqa: E731
        if graph_channel.add_hits(reader, cfg, request, filters, cands, base_of, hits, errors, timings):
            cands = candidates.build(reader, sig, hits, fetched)
    # decision lifecycle: superseded decisions demoted, their successors pulled in
    plan = None
    if cfg.lifecycle and cands:
        likely = implicit.likely_replaced(reader, cands) if cfg.likely_replaced else None
        plan = lifecycle.plan_lifecycle(
            cands, reader.registry, prefer_stages=request.soft_prefs.prefer_stages,
            intent_doc_ids=sig.struct_hints.doc_ids, demote=cfg.lifecycle_demote, final_boost=cfg.lifecycle_final_boost,
            likely=likely, likely_demote=cfg.likely_replaced_demote, inactive_demote=cfg.lifecycle_inactive_demote,
        )
        if plan.extra:
            present = {c.row for c in cands}
            extra = candidates.build(reader, sig, {"lifecycle": plan.extra_hits()}, fetched)
            cands = cands + [c for c in extra if c.row not in present]
    # usage memory: each document's usage score, from the snapshot taken by `orion index`
    if weights.usage > 0 and cands:
        cands = usage.apply_dynamic_scores(cands, cfg.index_dir, now, cfg.usage_weights)
    scored = score.fuse(cands, hits, weights, request, cfg, now, span_counts=counts)
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
        return sig, scored, info  # every candidate compile scores, in its order; callers cut the list
    finally:
        if own:
            reader.close()


def compile_workingset(request: CompileRequest, cfg: Config, reader: IndexReader | None = None) -> CompileResponse:
    """Compile the Working Set for ``request``: rank, then select, assemble and hydrate until
    the rendered output fits the budget; explain; record the compile in the usage log."""
    own = reader is None
    started = time.perf_counter()
    timings: dict[str, float] = {}
    reader = reader or IndexReader(cfg)
    try:
        if own:
            timings["open"] = (time.perf_counter() - started) * 1000
        tokenizer = str(reader.manifest.tokenizer or cfg.tokenizer)
        preload(tokenizer)  # loads while ranking runs (a no-op once loaded)
        sig, scored, hits, errors, relaxed = rank_candidates(request, cfg, reader, timings)
        if not scored:
            raise candidates.no_candidates(request, reader)

        t = time.perf_counter()
        counter = get_counter(tokenizer)
        weights = explain.effective_weights(request, cfg, sig)
        defaults = explain.effective_defaults(cfg, request, sig)
        assembly = _Assembly(request, cfg, reader, sig, scored, hits, errors, relaxed, weights, defaults, counter)
        formats = tuple(dict.fromkeys(request.deliver)) or ("markdown",)
        # the episode id the usage log will record is printed in the JSON document: decided
        # now, so the budget counts it (recorded after delivery, it went over by its length)
        episode = usage.planned_episode(cfg, request)
        build = assembly.build if episode is None else (lambda *a: replace(assembly.build(*a), episode_id=episode))
        resp = deliver.fit(build, request.budget_tokens, formats, counter.count)
        if not resp.workingset.spans:  # candidates, but none fits with its framing: never an empty success
            from oriongraph_cli.errors import NoCandidatesError

            why = resp.stats.stop.removeprefix("nothing fits: ") if resp.stats.stop else "no candidate fits with its framing"
            raise NoCandidatesError(f"nothing fits in a budget of {request.budget_tokens:,} tokens: {why}",
                                    hint="raise --budget, or narrow the intent so a shorter span answers it")
        timings["assemble"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - started) * 1000
        st = resp.stats
        stats = replace(st, utilization=round(st.delivered_tokens / st.budget, 4) if st.budget else 0.0,
                        timings_ms={k: round(v, 2) for k, v in timings.items()} if request.timings else None)
        items = resp.workingset.ranked
        return replace(resp, stats=stats, episode_id=usage.record(cfg, request, items, episode))
    finally:
        if own:
            reader.close()


class _Assembly:
    """One working set at a given selection budget: select -> pack -> hydrate -> layout.
    Built several times per compile by ``deliver.fit``; documents and shortened forms are
    read and counted once."""

    def __init__(self, request, cfg, reader, sig, scored, hits, errors, relaxed, weights, defaults, counter):
        self.request, self.cfg, self.reader, self.sig, self.scored = request, cfg, reader, sig, scored
        self.hits, self.errors, self.relaxed, self.weights, self.defaults = hits, errors, relaxed, weights, defaults
        self.counter = counter
        self.by_id = {c.span_ref.span_id: c for c in scored}
        self.filtered = _filtered_out(reader, sig, scored, request)
        # which sentences a shortened span keeps: the intent's terms, weighted by the index
        self.focus = compress.Focus.of(sig.intent, None if "lexical" in errors else reader.lexical.idf)
        self.files: dict = {}
        self._short: dict[tuple[int, str], tuple[int, float]] = {}
        self._counts: dict[str, int] = {}
        self._status: dict[str, str | None] = {}

    def status_notes(self, statuses: dict[str, str | None]) -> dict[str, str | None]:
        """Document statuses with their successors named, looked up once per document."""
        missing = {p: st for p, st in statuses.items() if p not in self._status}
        if missing:
            self._status.update(lifecycle.status_notes(self.reader.registry, missing))
        return {p: self._status[p] for p in statuses}

    def count(self, text: str) -> int:
        """Token count of a quote or a shortened span, remembered across the builds of one compile."""
        n = self._counts.get(text)
        if n is None:
            n = self._counts[text] = self.counter.count(text)
        return n

    def _shortened(self, c: CandidateSpan, level: str) -> tuple[int, float]:
        key = (c.row, level)
        if key not in self._short:
            full = "" if level == "pointer" else self.reader.rows([c.row])[c.row].text  # the reader keeps rows
            text = compress.shortened(level, full, c.metadata.section_title, c.metadata.filepath, c.span_ref, self.focus)
            self._short[key] = (self.count(text) if text else c.span_ref.token_cost, compress.keep(level, full, text, self.focus))
        return self._short[key]

    def shortened_cost(self, c: CandidateSpan, level: str) -> int:
        return self._shortened(c, level)[0]

    def shortened_keep(self, c: CandidateSpan, level: str) -> float:
        return self._shortened(c, level)[1]

    def build(self, room: int, overhead: int, compact: bool = False) -> CompileResponse:
        request, cfg = self.request, self.cfg
        prefs = request.soft_prefs
        q = max(room, 0)
        sel = select.select(
            self.scored, expansions.selection_budget(request, q), prefs.diversity_lambda, prefs.max_single_source_ratio,
            cfg.mmr_threshold, span_overhead=overhead, floor=cfg.relevance_floor, cap_yield=cfg.cap_yield,
            floor_depth=cfg.floor_depth,
            budget_offset=request.budget_tokens - q,
        )
        entries = expansions.with_expansions(cfg, self.reader, sel.picked, request, q, overhead) if q else []
        placed = assemble.pack(
            sel, entries, self.by_id, q, overhead, self.shortened_cost,
            enabled=request.compress and cfg.compress, named_docs=frozenset(self.sig.struct_hints.doc_ids),
            keep_of=self.shortened_keep,
        ) if q else []
        items, stale, texts = hydrate.hydrate(cfg, self.reader, placed, self.files)
        items = [assemble.shorten_item(it, p.level, self.count, self.focus) if p.level else it for it, p in zip(items, placed)]
        statuses = self.status_notes({i.path: i.status for i in items})
        docs = assemble.layout(items, texts, statuses)
        quoted = sum(self.count(q_.text) for d in docs for q_ in d.quotes)
        in_ws = {i.path for i in items}
        stop = ""
        if sel.stop_reason == "floor" and items:
            best = self.scored[0].base_score if self.scored else 0.0
            if cfg.floor_depth > 0 and sel.floor_score < cfg.relevance_floor * best - 1e-9:
                why = f"the rest ranks below the top {cfg.floor_depth:g} × the budget in tokens"
            else:
                why = f"nothing else scored above {cfg.relevance_floor:g} × the best"
            stop = f"selection stopped at {quoted:,} quoted tokens: {why}"
        elif sel.stop_reason in ("no_feasible", "exhausted") and items and sel.used < STOP_NOTE_BELOW * q:
            stop = f"selection stopped at {quoted:,} quoted tokens: no other candidate fits, whole or shortened"
        elif not items and sel.rejected and room > 0:
            stop = f"nothing fits: the best span {sel.rejected[0].detail}"
        stats = CompileStats(
            tokens_used=quoted,
            budget=request.budget_tokens,
            utilization=0.0,
            candidates_seen={k: len(v) for k, v in sorted(self.hits.items())},
            candidates_total=len(self.scored),
            selected=len(items),
            dropped=len(self.scored) - len(items),
            sources=len(in_ws),
            fusion=request.fusion or cfg.fusion,
            relaxed_filters=self.relaxed,
            generator_errors=dict(sorted(self.errors.items())),
            stale_spans=stale,
            format=(request.deliver or ("markdown",))[0],
            compressed=sum(1 for i in items if i.compression is not None),
            stop=stop,
        )
        ranked = [(p.picked, p.expansion_of) for p in placed]
        return CompileResponse(
            request=request,
            signals=self.sig,
            workingset=WorkingSet(documents=docs, total_tokens=quoted),
            stats=stats,
            rationale=explain.rationale(ranked, items, self.weights) if request.explain else None,
            rejected=tuple(sel.rejected) if request.explain else (),
            defaults=self.defaults,
            index=self.reader.info(),
            left_out=() if compact else _left_out(sel.rejected, in_ws, request.budget_tokens, self.filtered),
            compact=compact,
        )


def _left_out(rejected, in_ws: set[str], budget: int, filtered: tuple[LeftOut, ...] = ()) -> tuple[LeftOut, ...]:
    """The best documents with no span in the working set, each with what would let it in;
    with hard filters, the closest document they excluded comes first."""
    limit = min(LEFT_OUT_MAX, max(1, budget // LEFT_OUT_TOKENS_EACH))
    out: dict[str, LeftOut] = {lo.path: lo for lo in filtered[:1]}
    for r in rejected:
        if len(out) >= limit:
            break
        if r.path in in_ws or r.path in out or r.reason == "pruned":
            continue
        out[r.path] = LeftOut(path=r.path, score=r.base_score, span_id=r.span_id, reason=r.reason, detail=r.detail)
    return tuple(out.values())[:limit]


FILTERED_PROBE = 30  # nearest spans looked at, without filters, for "excluded by the filters"


def _filtered_out(reader: IndexReader, sig: DerivedSignals, scored: list[CandidateSpan], request: CompileRequest) -> tuple[LeftOut, ...]:
    """Documents semantically closest to the intent that the hard filters excluded (the
    counterfactual "filtered by --stage design"); empty without filters or embeddings."""
    from oriongraph_cli.compile.filters import filters_flags

    if request.hard_filters.is_empty() or sig.intent_embedding is None:
        return ()
    seen = {c.metadata.filepath for c in scored}
    found = reader.vectors.search(sig.intent_embedding, FILTERED_PROBE)
    rows = reader.rows([r for r, _s in found])
    out: dict[str, LeftOut] = {}
    for row, cos in found:
        rec = rows.get(row)
        if rec is None or rec.meta.filepath in seen or rec.meta.filepath in out:
            continue
        out[rec.meta.filepath] = LeftOut(
            path=rec.meta.filepath, score=round(cos, 6), span_id=rec.ref.span_id, reason="filtered",
            detail=f"filtered by {filters_flags(request.hard_filters)} (cos {cos:.2f} to the intent)",
        )
    return tuple(out.values())
