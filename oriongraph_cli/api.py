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
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from oriongraph_cli.config import Config, load_config
from oriongraph_cli.errors import NoCandidatesError, NotFoundError
from oriongraph_cli.models import (
    CandidateSpan,
    CompileRequest,
    CompileResponse,
    CompileStats,
    DerivedSignals,
    HardFilters,
    Rejection,
    ScoreChannels,
    SoftPreferences,
    SpanExplanation,
    WorkingSet,
    WSItem,
)
from oriongraph_cli.compile.filters import check_filters
from oriongraph_cli.store.reader import IndexReader, read_document_text

RELAX_ORDER = ("since", "where", "tags", "paths", "stages", "workstreams", "source_types")


def index_project(cfg: Config, **kwargs):
    """``orion index`` (see ``oriongraph_cli.indexer.index_project``). Imported on call: the
    indexer pulls in YAML and front-matter parsing, which a compile never needs (~0.1 s)."""
    from oriongraph_cli.index.indexer import index_project as run

    return run(cfg, **kwargs)


def open_index(cfg: Config, *, load_embedder: bool = True) -> IndexReader:
    return IndexReader(cfg, load_embedder=load_embedder)


def _reference_time(reader: IndexReader) -> int:
    """Recency is measured against the index build time, not the wall clock, so the same
    index gives the same scores tomorrow (determinism)."""
    return int(reader.manifest.get("created_at") or 0)


def derive_signals(request: CompileRequest, reader: IndexReader) -> DerivedSignals:
    """Keywords and structural hints; the embedding is added lazily (see _Embedding)."""
    from oriongraph_cli.compile.signals import derive

    keys = reader.memo("doc-keys", lambda: {d["doc_key"].lower() for d in reader.documents if d["doc_key"]})
    return derive(request, workstreams=reader.workstreams, tags=reader.tags, doc_keys=keys)


class _Embedding:
    """The intent embedding, computed once on first request from any thread."""

    def __init__(self, reader: IndexReader, text: str):
        import threading

        self._reader, self._text, self._lock, self._value = reader, text, threading.Lock(), None

    def __call__(self):
        with self._lock:
            if self._value is None:
                self._value = self._reader.embed_query(self._text)
            return self._value


def _candidates(reader: IndexReader, signals: DerivedSignals, filters: HardFilters, top_k: int, timings: dict[str, float], embed=None):
    from oriongraph_cli.compile.generate import run_generators

    hits, errors, gen_ms = run_generators(reader, signals, filters, top_k, embed=embed)
    for name, ms in gen_ms.items():
        timings[f"generate.{name}"] = ms
    if errors and len(errors) == len(hits):
        from oriongraph_cli.errors import OrionError

        raise OrionError(
            "every candidate generator failed: " + "; ".join(f"{k}: {v}" for k, v in sorted(errors.items())),
            hint="run `orion index --full` to rebuild the index",
        )
    return hits, errors


def _build_candidates(reader: IndexReader, signals: DerivedSignals, hits: dict, cache: dict | None = None) -> list[CandidateSpan]:
    """One CandidateSpan per row any generator found, with every channel's raw score.

    ``cache`` (row -> registry row, vector, cosine, preview) is filled as rows are fetched;
    passing the same dict again (after the graph channel adds hits) fetches only new rows."""
    import numpy as np

    raw: dict[int, dict[str, float]] = {}
    reasons: dict[int, list[str]] = {}
    for name, gen_hits in hits.items():
        for h in gen_hits:
            raw.setdefault(h.row, {})[name] = h.score
            reasons.setdefault(h.row, []).extend(h.reasons)
    rows = sorted(raw)
    if not rows:
        return []
    cache = {} if cache is None else cache
    missing = [row for row in rows if row not in cache]
    if missing:
        meta = reader.rows(missing)
        vecs = reader.vectors.vectors(missing)
        q = signals.intent_embedding
        cos = vecs @ q if q is not None else np.zeros(len(missing))
        for i, row in enumerate(missing):
            r = meta.get(row)
            if r is not None:
                preview = " ".join(r.text[:400].split())[:160]
                # every candidate gets its true cosine, not only FAISS hits
                cache[row] = (r, vecs[i], max(0.0, float(cos[i])), preview)
    out = []
    for row in rows:
        entry = cache.get(row)
        if entry is None:
            continue
        r, vec, cosine, preview = entry
        ch = raw[row]
        scores = ScoreChannels(
            semantic=cosine,
            lexical=ch.get("lexical", 0.0),
            structural=ch.get("structural", 0.0),
            graph=ch.get("graph", 0.0),
        )
        out.append(
            CandidateSpan(
                span_ref=r.ref,
                metadata=r.meta,
                raw_scores=scores,
                text_preview=preview,
                reasons=tuple(dict.fromkeys(reasons.get(row, []))),
                row=row,
                embedding=vec,
            )
        )
    return out


def filters_text(filters: HardFilters) -> str:
    return ", ".join(f"{k}={v}" for k, v in filters.to_dict().items() if v not in (None, [], ()))


def _relax(filters: HardFilters) -> list[tuple[str, HardFilters]]:
    """Successively weaker filter sets: drop one kind of filter at a time, in RELAX_ORDER."""
    steps = []
    current = filters
    dropped: list[str] = []
    for name in RELAX_ORDER:
        value = getattr(current, name)
        if value:
            current = replace(current, **{name: None if name == "since" else ()})
            dropped.append(name)
            steps.append((", ".join(dropped), current))
    return steps


def rank_candidates(request: CompileRequest, cfg: Config, reader: IndexReader, timings: dict[str, float] | None = None):
    """Signals -> generators -> normalise -> score. Returns (signals, scored candidates,
    hits per generator, generator errors, relaxed filter names)."""
    from oriongraph_cli.compile import score as scoring

    timings = {} if timings is None else timings
    t = time.perf_counter()
    signals = derive_signals(request, reader)
    embed = _Embedding(reader, signals.intent)
    timings["signals"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    filters = check_filters(request.hard_filters, reader.documents)
    hits, errors = _candidates(reader, signals, filters, request.top_k, timings, embed)
    relaxed: tuple[str, ...] = ()
    if not any(hits.values()) and not filters.is_empty():
        if not request.relax:
            raise NoCandidatesError(
                f"no candidates for {request.intent!r} match the filters ({filters_text(filters)})",
                hint="widen or drop a filter, or run without --no-relax to relax them one kind at a time",
            )
        for names, weaker in _relax(filters):
            hits, errors = _candidates(reader, signals, weaker, request.top_k, timings, embed)
            if any(hits.values()):
                relaxed, filters = tuple(names.split(", ")), weaker
                break
    signals = replace(signals, intent_embedding=embed())
    timings["generate"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    weights = effective_weights(request, cfg, signals)
    fetched: dict = {}
    cands = _build_candidates(reader, signals, hits, fetched)

    def fuse(cands: list[CandidateSpan], how=scoring.score):
        fusion = request.fusion or cfg.fusion
        ranks = None
        if fusion == "rrf":
            ranks = {name: {h.row: i + 1 for i, h in enumerate(sorted(hs, key=lambda h: (-h.score, h.row)))} for name, hs in hits.items()}
            ranks["semantic"] = {c.row: i + 1 for i, c in enumerate(sorted(cands, key=lambda c: (-c.raw_scores.semantic, c.row)))}
        return how(
            cands, weights, request.soft_prefs, _reference_time(reader), cfg.recency_half_life_days,
            fusion=fusion, rrf_k=cfg.rrf_k, ranks=ranks,
        )

    # graph channel: neighbours of the best candidates of the other channels (spec 4.2)
    if cfg.graph and weights.graph > 0 and cands:
        from oriongraph_cli.graph import traverse as graph

        tg = time.perf_counter()
        try:
            seeds = graph.seeds_from_candidates(cands, cfg.graph_seeds, base=fuse(cands, scoring.base_scores))
            hits["graph"] = graph.graph_hits(
                reader, seeds, filters, request.top_k, depth=cfg.graph_depth,
                method=cfg.graph_method, edge_weights=graph.parse_edge_weights(cfg.graph_edge_weights),
                node_budget=cfg.graph_node_budget,
            )
            cands = _build_candidates(reader, signals, hits, fetched)
        except ValueError as exc:  # an unknown edge type in graph_edge_weights
            from oriongraph_cli.errors import ConfigError

            raise ConfigError(f"graph_edge_weights: {exc}", hint="edge types: " + ", ".join(sorted(graph.DEFAULT_EDGE_WEIGHTS))) from None
        except Exception as exc:  # the graph channel must not take the compile down
            errors["graph"] = f"{type(exc).__name__}: {exc}"
        timings["generate.graph"] = (time.perf_counter() - tg) * 1000
    # ADR lifecycle: superseded decisions demoted, successors pulled in
    plan = None
    if cfg.lifecycle and cands:
        from oriongraph_cli.compile import lifecycle

        plan = lifecycle.plan_lifecycle(
            cands, reader.registry.conn, prefer_stages=request.soft_prefs.prefer_stages,
            intent_doc_ids=signals.struct_hints.doc_ids, demote=cfg.lifecycle_demote, final_boost=cfg.lifecycle_final_boost,
        )
        if plan.extra:
            present = {c.row for c in cands}
            extra = _build_candidates(reader, signals, {"lifecycle": plan.extra_hits()}, fetched)
            cands = cands + [c for c in extra if c.row not in present]
    # usage memory: the dynamic score of seed 002, from the snapshot taken at `orion index`
    if weights.usage > 0 and cands:
        from oriongraph_cli.compile import usage

        cutoff, stats = usage.read_snapshot(cfg.index_dir)
        cands, comps = usage.with_usage(
            cands, stats, now=cutoff or _reference_time(reader), weights=usage.parse_dynamic_weights(cfg.usage_weights)
        )
        cands = [scoring._evolve(c, components={k: round(v, 6) for k, v in comps.get(c.row, {}).items()}) for c in cands]
    scored = fuse(cands)
    if plan is not None:
        from oriongraph_cli.compile import lifecycle

        scored = lifecycle.apply_lifecycle(scored, plan)
    if request.episode_id:
        from oriongraph_cli.compile import usage

        scored = usage.episode_boost(
            scored, usage.episode_rows(cfg.index_dir, request.episode_id), request.episode_id,
            paths=usage.episode_paths(cfg.index_dir, request.episode_id), boost=cfg.episode_boost,
        )
    timings["score"] = (time.perf_counter() - t) * 1000
    return signals, scored, hits, errors, relaxed


def _no_candidates(request: CompileRequest, reader: IndexReader) -> NoCandidatesError:
    hints = []
    if not request.hard_filters.is_empty():
        hints.append("loosen the filters (--path/--stage/--workstream/--tag/--since/--where)")
    hints.append("rephrase the intent with words your documents use, or add --keyword")
    if (reader.manifest.get("counts", {}).get("spans") or 0) == 0:
        hints.insert(0, "the index is empty: add Markdown notes to 01_context/, 02_knowledge/, 03_workstreams/ or 04_artifacts/ and run `orion index`")
    return NoCandidatesError(f"no candidates for {request.intent!r}", hint="; ".join(hints))


def search(request: CompileRequest, cfg: Config | None = None, reader: IndexReader | None = None) -> tuple[DerivedSignals, list[CandidateSpan], dict[str, Any]]:
    """Ranked candidates before selection (``orion search``)."""
    cfg = cfg or load_config(".")
    own = reader is None
    reader = reader or open_index(cfg)
    try:
        signals, scored, hits, errors, relaxed = rank_candidates(request, cfg, reader)
        if not scored:
            raise _no_candidates(request, reader)
        info = {
            "candidates_seen": {k: len(v) for k, v in sorted(hits.items())},
            "generator_errors": errors,
            "relaxed_filters": list(relaxed),
            "index": reader.info(),
        }
        return signals, scored[: request.top_k], info
    finally:
        if own:
            reader.close()


def compile_workingset(request: CompileRequest, cfg: Config | None = None, reader: IndexReader | None = None) -> CompileResponse:
    """Compile the Working Set for ``request`` (spec sections 3-7)."""
    from oriongraph_cli.compile.select import select

    cfg = cfg or load_config(".")
    own = reader is None
    started = time.perf_counter()
    timings: dict[str, float] = {}
    reader = reader or open_index(cfg)
    try:
        if own:
            timings["open"] = (time.perf_counter() - started) * 1000
        signals, scored, hits, errors, relaxed = rank_candidates(request, cfg, reader, timings)
        if not scored:
            raise _no_candidates(request, reader)
        prefs = request.soft_prefs
        t = time.perf_counter()
        # --expand keeps a quarter of the budget for the neighbours of what is selected
        select_budget = int(request.budget_tokens * (1 - EXPAND_RESERVE)) if request.expand else request.budget_tokens
        sel = select(scored, select_budget, prefs.diversity_lambda, prefs.max_single_source_ratio, cfg.mmr_threshold)
        timings["select"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        entries = _with_expansions(cfg, reader, sel.picked, request) if request.expand else [(p, None) for p in sel.picked]
        items, stale = _hydrate(cfg, reader, entries)
        timings["hydrate"] = (time.perf_counter() - t) * 1000
        weights = effective_weights(request, cfg, signals)
        rationale = tuple(
            SpanExplanation(
                span_ref=p.candidate.span_ref,
                path=p.candidate.metadata.filepath,
                section_title=p.candidate.metadata.section_title,
                final_score=p.mmr_score,
                base_score=p.candidate.base_score,
                diversity_penalty=p.diversity_penalty,
                raw_scores=p.candidate.raw_scores,
                scores=p.candidate.scores,
                weights=weights,
                recency_score=p.candidate.metadata.recency_score,
                stage_boost=p.candidate.stage_boost,
                usage_score=p.candidate.usage_score,
                final_rank=item.selection_rank,
                reasons=p.candidate.reasons,
                components=p.candidate.components,
            )
            for (p, _exp), item in zip(entries, items)
        ) if request.explain else None
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
            signals=signals,
            workingset=WorkingSet(spans=tuple(items), total_tokens=total),
            stats=stats,
            rationale=rationale,
            rejected=tuple(sel.rejected) if request.explain else (),
            defaults=effective_defaults(cfg, request, signals),
            index=reader.info(),
            episode_id=_record_usage(cfg, request, items),
        )
    finally:
        if own:
            reader.close()


def effective_weights(request: CompileRequest, cfg: Config, signals: DerivedSignals | None = None):
    """The request's weights, or the configured ones — where the structural channel counts
    fully only when the intent names something structural (a document id, stage, workstream,
    tag or source type); otherwise its title-word overlap mostly repeats the lexical channel
    and costs ranking quality (docs/BENCHMARKS.md, "Tuning")."""
    if request.weights is not None:
        return request.weights
    w = cfg.weights()
    hints = signals.struct_hints if signals is not None else None
    if hints is not None and not any((hints.doc_ids, hints.stages, hints.workstreams, hints.tags, hints.source_types)):
        w = replace(w, structural=cfg.w_structural_no_hint)
    return w


def effective_defaults(cfg: Config, request: CompileRequest, signals: DerivedSignals | None = None) -> dict[str, Any]:
    w = effective_weights(request, cfg, signals)
    return {
        "weights": w.to_dict(),
        "fusion": request.fusion or cfg.fusion,
        "rrf_k": cfg.rrf_k,
        "diversity_lambda": request.soft_prefs.diversity_lambda,
        "max_source_ratio": request.soft_prefs.max_single_source_ratio,
        "mmr_threshold": cfg.mmr_threshold,
        "top_k": request.top_k,
        "recency_half_life_days": cfg.recency_half_life_days,
        "graph": {"enabled": cfg.graph, "depth": cfg.graph_depth, "method": cfg.graph_method, "seeds": cfg.graph_seeds},
        "lifecycle": {"enabled": cfg.lifecycle, "demote": cfg.lifecycle_demote, "final_boost": cfg.lifecycle_final_boost},
        "usage": {"weight": w.usage, "dynamic_weights": cfg.usage_weights or "seed 002 defaults"},
        "expand": request.expand,
    }


def _hydrate(cfg: Config, reader: IndexReader, entries) -> tuple[list[WSItem], int]:
    """Exact text from the indexed document version; a changed file is reported as stale
    and the indexed text (stored in the registry) is quoted instead of today's bytes.
    ``entries`` are (Picked, expansion_of span id or None) in working-set order."""
    files: dict[str, tuple[str | None, str | None]] = {}
    items: list[WSItem] = []
    stale_count = 0
    total_base = sum(p.candidate.base_score for p, _e in entries) or 1.0
    for rank, (p, expansion_of) in enumerate(entries, start=1):
        c = p.candidate
        path = c.metadata.filepath
        if path not in files:
            files[path] = read_document_text(cfg.root, path, cfg.max_file_bytes)
        text_now, version_now = files[path]
        ref = c.span_ref
        stale = version_now != ref.doc_version_id
        if stale:
            stale_count += 1
            text = reader.rows([c.row])[c.row].text
        else:
            text = text_now[ref.char_start : ref.char_end]  # type: ignore[index]
        items.append(
            WSItem(
                span_ref=ref,
                path=path,
                section_title=c.metadata.section_title,
                text=text,
                selection_rank=rank,
                source_weight=round(c.base_score / total_base, 6),
                stale=stale,
                expansion_of=expansion_of,
                title=c.metadata.title,
                stage=c.metadata.stage,
                workstream=c.metadata.workstream,
            )
        )
    return items, stale_count


EXPAND_RESERVE = 0.25  # share of the budget --expand keeps for neighbours


def _with_expansions(cfg: Config, reader: IndexReader, picked, request: CompileRequest):
    """seed 003 expand(hit): each selected span, in rank order, may bring its section head
    or previous span (placed before it) and its next span (after it), while they fit the
    budget; each is charged to the budget and explained as an expansion."""
    from oriongraph_cli.graph import traverse as graph
    from oriongraph_cli.compile.select import Picked

    left = request.budget_tokens - sum(p.candidate.span_ref.token_cost for p in picked)
    taken = {p.candidate.row for p in picked}
    out = []
    for p in picked:
        found = graph.expand(reader, p.candidate.row, left, exclude=taken, max_spans=cfg.expand_max_spans)
        rows = reader.rows([e.row for e in found])
        before, after = [], []
        for e in found:
            r = rows[e.row]
            left -= e.token_cost
            taken.add(e.row)
            cand = CandidateSpan(
                span_ref=r.ref, metadata=r.meta, row=e.row,
                reasons=(f"expansion of span {e.of_span_id} (#{p.rank}): {e.relation} context",),
            )
            entry = (Picked(cand, 0.0, 0.0, 0.0, e.of_span_id, p.rank), e.of_span_id)
            (after if e.relation == "next" else before).append(entry)
        out.extend(before + [(p, None)] + after)
    return out


def _record_usage(cfg: Config, request: CompileRequest, items: list[WSItem]) -> str | None:
    """Append the compile to the episodic log (ids and paths only, never text)."""
    if not (cfg.usage_log and request.record_usage) or not items:
        return None
    from oriongraph_cli.compile import usage

    try:
        return usage.record_compile(
            cfg.index_dir, intent=request.intent, task_id=request.task_id,
            span_ids=[i.span_ref.span_id for i in items], paths=[i.path for i in items],
        )
    except OSError:
        return None  # a read-only checkout still compiles


def show_span(cfg: Config, span_id: str) -> dict[str, Any]:
    """One span quoted exactly, with provenance (``orion show``)."""
    reader = open_index(cfg, load_embedder=False)
    try:
        found = reader.registry.span_by_id(span_id)
        if found is None:
            raise NotFoundError(f"no span {span_id!r} in index generation {reader.generation}", hint="span ids come from `orion compile --json` or `orion search`")
        if isinstance(found, list):
            raise NotFoundError(f"span id prefix {span_id!r} is ambiguous", hint="give more characters of the id")
        rec = found
        text_now, version_now = read_document_text(cfg.root, rec["path"], cfg.max_file_bytes)
        stale = version_now != rec["doc_version_id"]
        text = rec["text"] if stale else text_now[rec["char_start"] : rec["char_end"]]  # type: ignore[index]
        import json

        return {
            "schema_version": 1,
            "kind": "span",
            "span_id": rec["span_id"],
            "doc_version_id": rec["doc_version_id"],
            "path": rec["path"],
            "title": rec["title"],
            "section_title": " > ".join(json.loads(rec["heading_path"])) or None,
            "char_start": rec["char_start"],
            "char_end": rec["char_end"],
            "token_cost": rec["token_cost"],
            "stage": rec["stage"],
            "workstream": rec["workstream"],
            "source_type": rec["source_type"],
            "stale": stale,
            "text": text,
            "generation": reader.generation,
        }
    finally:
        reader.close()


__all__ = [
    "CompileRequest",
    "CompileResponse",
    "HardFilters",
    "SoftPreferences",
    "Rejection",
    "compile_workingset",
    "index_project",
    "open_index",
    "search",
    "show_span",
]
