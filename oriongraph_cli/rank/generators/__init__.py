"""Candidate generators: one protocol (``base.Generator``), a name -> class registry.

Each generator returns ``GenHit``s — a registry row, a raw score in its channel and the
reasons it matched. The generators that work from the intent alone (structural, lexical,
semantic) run concurrently (``run_generators``); those that ``follow`` them (graph,
lifecycle) run afterwards, in registry order, on the candidates found so far
(``run_one``). A failing generator is recorded and skipped unless every generator of the
first group fails; a settings error (``ConfigError``) is never a generator failure.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Callable

from oriongraph_cli.errors import ConfigError
from oriongraph_cli.models import CandidateSpan, DerivedSignals, GenHit, HardFilters
from oriongraph_cli.rank.generators.base import GenContext, Generator, allowed, filter_hits  # noqa: F401
from oriongraph_cli.rank.generators.graph import GraphGen
from oriongraph_cli.rank.generators.language import LanguageGen
from oriongraph_cli.rank.generators.lexical import LexicalGen
from oriongraph_cli.rank.generators.lifecycle import LifecycleGen
from oriongraph_cli.rank.generators.semantic import SemanticGen
from oriongraph_cli.rank.generators.structural import StructuralGen
from oriongraph_cli.store.reader import IndexReader

GENERATORS: dict[str, Callable[[], Generator]] = {
    "structural": StructuralGen,
    "lexical": LexicalGen,
    "semantic": SemanticGen,
    "graph": GraphGen,
    "lifecycle": LifecycleGen,
    "language": LanguageGen,
}


def register(name: str, factory: Callable[[], Generator]) -> None:
    GENERATORS[name] = factory


def following() -> list[Generator]:
    """The generators that run on the candidates of the others, in registry order."""
    gens = [factory() for factory in GENERATORS.values()]
    return [g for g in gens if getattr(g, "follows", False)]


def run_one(gen: Generator, ctx: GenContext) -> tuple[list[GenHit], str | None, float]:
    """(hits, error or None, ms) of one generator."""
    t = time.perf_counter()
    try:
        return gen.generate(ctx), None, (time.perf_counter() - t) * 1000
    except ConfigError:
        raise
    except Exception as exc:  # one failing generator must not abort the compile
        return [], f"{type(exc).__name__}: {exc}", (time.perf_counter() - t) * 1000


def run_following(ctx: GenContext, hits: dict[str, list[GenHit]], errors: dict[str, str], build, base_of,
                  timings: dict[str, float]) -> tuple[list[CandidateSpan], dict[str, list[GenHit]], dict[str, str], list[Generator]]:
    """Run the generators that follow the others, in registry order, each on the candidates
    so far (``ctx.found``, ranked by ``base_of(cands, hits)``). A generator with a channel
    adds its hits to ``hits`` and the candidates are rebuilt (``build(hits)``), so its
    scores join theirs; one without adds only the rows new to the list. Returns (the
    candidates, hits, errors, the generators that ran) — new objects, the arguments are
    left as they were."""
    cands = list(ctx.found)
    ran: list[Generator] = []
    for gen in following():
        here = replace(ctx, found=cands, base=partial(base_of, cands, hits))
        if not gen.wanted(here):
            continue
        found, err, timings[f"generate.{gen.name}"] = run_one(gen, here)
        if err:
            errors = {**errors, gen.name: err}
            continue
        ran.append(gen)
        if gen.channel:
            hits = {**hits, gen.name: found}
            cands = build(hits)
        elif found:
            cands = cands + build({gen.name: found})
    return cands, hits, errors, ran


def run_generators(
    reader: IndexReader,
    signals: DerivedSignals,
    filters: HardFilters,
    top_k: int,
    names: list[str] | None = None,
    embed: Callable[[], object] | None = None,
) -> tuple[dict[str, list[GenHit]], dict[str, str], dict[str, float]]:
    """Run the generators that work from the intent alone, concurrently. Returns (hits
    per generator, errors, ms per generator).

    Generators that need the intent embedding wait for ``embed()`` (the model may still be
    loading); the others start at once, so lexical and structural search overlap the
    model load of a fresh process."""
    all_gens = {n: GENERATORS[n]() for n in (names or list(GENERATORS))}
    gens = {n: g for n, g in all_gens.items() if not getattr(g, "follows", False)}
    results: dict[str, list[GenHit]] = {}
    errors: dict[str, str] = {}
    timings: dict[str, float] = {}

    def run(name: str):
        t = time.perf_counter()
        try:
            sig = signals
            if getattr(gens[name], "needs_embedding", False) and sig.intent_embedding is None and embed is not None:
                sig = replace(signals, intent_embedding=embed())
            return name, gens[name].generate(GenContext(reader, sig, filters, top_k)), None, time.perf_counter() - t
        except Exception as exc:  # one failing generator must not abort the compile
            return name, [], f"{type(exc).__name__}: {exc}", time.perf_counter() - t

    for name, hits, err, dt in _pool(len(gens)).map(run, sorted(gens)):
        results[name] = hits
        timings[name] = dt * 1000
        if err:
            errors[name] = err
    return results, errors, timings


_POOL: tuple[int, ThreadPoolExecutor] | None = None  # (workers, pool)
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """The threads the generators run on, kept for the process: a resident compile (``orion
    serve``, the MCP server, ``eval``) started and joined three threads per compile. Idle
    threads wait on a queue without spinning. Made again in a forked child (its parent's
    threads do not exist there: ``_forget``) and when more workers are asked for (the
    smaller pool is left to its running tasks; nothing fills its queue again)."""
    global _POOL
    kept = _POOL
    if kept is not None and kept[0] >= workers:
        return kept[1]
    with _POOL_LOCK:  # (a compile served on another thread may be asking too)
        if _POOL is None or _POOL[0] < workers:
            _POOL = (workers, ThreadPoolExecutor(max_workers=workers, thread_name_prefix="orion-generate"))
        return _POOL[1]


def _forget() -> None:
    """In a forked child: neither the parent's threads nor the state of its lock are there."""
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # (not on Windows, which does not fork)
    os.register_at_fork(after_in_child=_forget)
