"""The compile path in order; each stage lives in the module that owns it.

    rank/      intent -> signals -> generators on the intent (structural, lexical, semantic;
               concurrently) -> candidates -> generators on those candidates (graph,
               lifecycle) -> usage memory -> fusion -> adjustments (lifecycle, episode)
    assemble/  select (MMR, floor, budget) -> expand -> pack (shortened forms) -> hydrate
               -> layout (reading order) -> explain, at a selection budget that
               ``deliver.fit`` chooses so the rendered output fits the budget

``rank_candidates`` runs ``rank/`` (``orion search`` stops there); ``compile_workingset``
then hands ``deliver.fit`` the working-set build (``assemble/workingset.py``) and records
the compile in the usage log. The explanation travels with the data: every candidate
carries its reasons and channel scores from the stage that set them.
"""

from __future__ import annotations

import functools
import gc
import os
import time
from dataclasses import replace
from functools import partial
from typing import Any

from oriongraph_cli.assemble import deliver, explain
from oriongraph_cli.assemble.workingset import Assembly
from oriongraph_cli.config import Config
from oriongraph_cli.models import CandidateSpan, CompileRequest, CompileResponse, DerivedSignals
from oriongraph_cli.rank import adjust, candidates, copies, generators, score, signals, usage
from oriongraph_cli.rank import weights as rank_weights
from oriongraph_cli.rank.generators.base import GenContext
from oriongraph_cli.store.reader import IndexReader
from oriongraph_cli.tokens import get_counter, preload, remembered


def collector_paused(fn):
    """``fn`` with the cyclic garbage collector paused while it runs, resumed after it (if
    it ran before). A compile makes some 10^5 short-lived objects — candidates, their
    scores and metadata — that reference counting frees; meanwhile every few hundred of
    them set off a collection, and the older generations' collections walk the open
    index's caches (10^5 objects and more) again and again to find nothing: a fifth of a
    resident compile's CPU. Resumed once ``fn`` has returned (its locals freed), the first
    collection looks at what the call returned and what it cached; cycles it left are
    collected then."""

    @functools.wraps(fn)
    def paused(*args, **kwargs):
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was:
                gc.enable()

    return paused


def reference_time(reader: IndexReader) -> int:
    """Recency is measured against the index build time, not the wall clock, so the same
    index gives the same scores tomorrow (determinism); ``SOURCE_DATE_EPOCH`` (the
    reproducible-builds convention: whole seconds since 1970), when set, replaces it, so a
    CI job or a test compiles the same working set from an index built on any day."""
    pinned = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not pinned:
        return reader.manifest.created_at
    if not (pinned.isascii() and pinned.isdigit()):
        from oriongraph_cli.errors import ExitStatus, OrionError

        raise OrionError(f"SOURCE_DATE_EPOCH={pinned[:40]!r} is not a time",
                         hint="set it to whole seconds since 1970 (e.g. $(git log -1 --format=%ct)) or unset it",
                         exit_code=ExitStatus.USAGE)
    return int(pinned)


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
    lexical = hits.get("lexical") or ()
    sig = replace(sig, intent_embedding=embed(), lexical_best=max((h.score for h in lexical), default=0.0))
    timings["generate"] = (time.perf_counter() - t) * 1000

    t = time.perf_counter()
    weights = rank_weights.effective_weights(request, cfg, sig)
    now = reference_time(reader)
    fetched: dict = {}  # rows already read, shared by every rebuild of the candidate list
    counts = reader.span_counts if cfg.doc_evidence > 0 else None
    cands = candidates.build(reader, sig, hits, fetched)
    ctx = GenContext(reader, sig, filters, request.top_k, request, cfg, weights, cands)
    base_of = partial(_base_scores, weights=weights, request=request, cfg=cfg, now=now, counts=counts)
    cands, hits, errors, followed = generators.run_following(ctx, hits, errors, partial(candidates.build, reader, sig, cache=fetched), base_of, timings)
    used = adjust.before_fusion(cands, cfg, weights, now)
    scored = score.fuse(cands, hits, weights, request, cfg, now, span_counts=counts, usage=used, owned=True,
                        metas=reader.memo("scored-metadata", dict))
    scored = adjust.after_fusion(scored, followed, request, cfg)
    scored = copies.newest_version_ranked(copies.newest_first_ranked(scored, reader), request.intent)
    timings["score"] = (time.perf_counter() - t) * 1000
    return sig, scored, hits, errors, relaxed


def _base_scores(cands, hits, *, weights, request, cfg, now, counts):
    """The base score fusion gives each of ``cands`` (their order): where the graph channel starts."""
    return score.fuse(cands, hits, weights, request, cfg, now, how=score.base_scores, span_counts=counts)


@collector_paused
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


@collector_paused
def compile_workingset(request: CompileRequest, cfg: Config, reader: IndexReader | None = None, ranked: tuple | None = None) -> CompileResponse:
    """Compile the Working Set for ``request``: rank, then select, assemble and hydrate until
    the rendered output fits the budget; explain; record the compile in the usage log.

    ``ranked``: what :func:`rank_candidates` returned for this very ``request`` and ``cfg``
    (the budget included: document evidence reads it), for a caller that has ranked
    already — ``orion eval`` and tuning read the ranking's nDCG first — so it is not
    worked out twice; the output is the same."""
    formats = tuple(dict.fromkeys(request.deliver)) or ("markdown",)
    deliver.check_formats(formats)
    own = reader is None
    started = time.perf_counter()
    timings: dict[str, float] = {}
    reader = reader or IndexReader(cfg)
    try:
        if own:
            timings["open"] = (time.perf_counter() - started) * 1000
        tokenizer = str(reader.manifest.tokenizer or cfg.tokenizer)
        preload(tokenizer)  # loads while ranking runs (a no-op once loaded)
        sig, scored, hits, errors, relaxed = ranked if ranked is not None else rank_candidates(request, cfg, reader, timings)
        if not scored:
            raise candidates.no_candidates(request, reader)

        t = time.perf_counter()
        counter = get_counter(tokenizer)
        weights = rank_weights.effective_weights(request, cfg, sig)
        defaults = explain.effective_defaults(cfg, request, sig)
        assembly = Assembly(request, cfg, reader, sig, scored, hits, errors, relaxed, weights, defaults, counter)
        # the episode id the usage log will record is printed in the JSON document: decided
        # now, so the budget counts it (recorded after delivery, it went over by its length)
        episode = usage.planned_episode(cfg, request)
        build = assembly.build if episode is None else (lambda *a: replace(assembly.build(*a), episode_id=episode))
        resp = deliver.fit(build, request.budget_tokens, formats, remembered(counter))
        if not resp.workingset.spans and assembly.name_copies:
            assembly.name_copies = False  # the copies' names are the first framing to give way to text
            resp = deliver.fit(build, request.budget_tokens, formats, remembered(counter))
        if not resp.workingset.spans:  # candidates, but none fits with its framing: never an empty success
            from oriongraph_cli.errors import NoCandidatesError

            why = resp.stats.stop.removeprefix("nothing fits: ") if resp.stats.stop else "no candidate fits with its framing"
            least = deliver.least_budget(build, formats, remembered(counter), request.budget_tokens)
            raise NoCandidatesError(f"nothing fits in a budget of {request.budget_tokens:,} tokens: {why}",
                                    hint=(deliver.least_hint(least) + ", or narrow the intent so a shorter span answers it")
                                    if least is not None else "raise --budget, or narrow the intent so a shorter span answers it")
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
