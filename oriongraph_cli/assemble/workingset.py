"""One working set at a given selection budget: select -> pack -> hydrate -> layout, with
the statistics, the explanation and the left-out list that travel with it. ``deliver.fit``
builds it several times per compile, at the selection budgets it tries."""

from __future__ import annotations

from dataclasses import replace

from oriongraph_cli.assemble import compress, expand, explain, hydrate, layout, pack, select
from oriongraph_cli.blocks import front_matter_end, is_rst, quote_fences
from oriongraph_cli.models import (
    CandidateSpan,
    CompileRequest,
    CompileResponse,
    CompileStats,
    Copy,
    DerivedSignals,
    LeftOut,
    WorkingSet,
    is_pointer,
)
from oriongraph_cli.rank import lifecycle
from oriongraph_cli.store.reader import IndexReader
from oriongraph_cli.tokens import remembered

LEFT_OUT_MAX = 5
STOP_NOTE_BELOW = 0.85  # a selection that ends below this share of its room says why
LEFT_OUT_TOKENS_EACH = 1000  # one left-out line per this many tokens of budget (at least 1)


class Assembly:
    """One working set at a given selection budget: select -> pack -> hydrate -> layout.
    Built several times per compile by ``deliver.fit``; documents and shortened forms are
    read and counted once."""

    def __init__(self, request, cfg, reader, sig, scored, hits, errors, relaxed, weights, defaults, counter):
        self.request, self.cfg, self.reader, self.sig, self.scored = request, cfg, reader, sig, scored
        self.hits, self.errors, self.relaxed, self.weights, self.defaults = hits, errors, relaxed, weights, defaults
        self.counter = counter
        self.by_id = {c.span_ref.span_id: c for c in scored}
        self.top = max((c.base_score for c in self.by_id.values()), default=0.0)
        self.ranking = select.Ranking(scored)  # the selection order and embeddings, shared by every build
        # the document scoring reads whole: the source cap does not cut it back
        self.uncapped = frozenset(c.metadata.filepath for c in scored if c.read_whole)
        self.filtered = _filtered_out(reader, sig, scored, request)
        # which sentences a shortened span keeps: the intent's terms, weighted by the index
        self.focus = compress.Focus.of(sig.intent, None if "lexical" in errors else reader.lexical.idf)
        self.files: dict = {}
        self._short: dict[tuple[int, str], tuple[int, float]] = {}
        self._count = remembered(counter)
        self._forms: dict[tuple, tuple] = {}  # (span, level, text, section, path) -> shortened text, compression
        self._status: dict[str, str | None] = {}
        self._links: dict[str, dict[str, str]] = {}
        # name the copies of a quoted text beside it (``with_copies``); off when no quote
        # fits with their names (``pipeline.compile_workingset``)
        self.name_copies = True

    def status_notes(self, statuses: dict[str, str | None]) -> dict[str, str | None]:
        """Document statuses with their successors named, looked up once per document."""
        missing = {p: st for p, st in statuses.items() if p not in self._status}
        if missing:
            self._status.update(lifecycle.status_notes(self.reader.registry, missing))
        return {p: self._status[p] for p in statuses}

    def link_targets(self, paths: set[str]) -> dict[str, dict[str, str]]:
        """Where each document's resolved links point (``layout.rewrite_links``), looked up
        once per document across the builds of one compile."""
        missing = paths - self._links.keys()
        if missing:
            found = self.reader.link_targets(missing)
            self._links.update({p: found.get(p, {}) for p in missing})
        return {p: self._links[p] for p in paths}

    def count(self, text: str) -> int:
        """Token count of a quote or a shortened span, remembered across the builds of one compile."""
        return self._count(text)

    def _shortened(self, c: CandidateSpan, level: str) -> tuple[int, float]:
        key = (c.row, level)
        if key not in self._short:
            full = "" if level == "pointer" else self.reader.rows([c.row])[c.row].text  # the reader keeps rows
            text = compress.shortened(level, full, c.metadata.section_title, c.metadata.filepath, c.span_ref, self.focus)
            self._short[key] = (self.count(text) if text else c.span_ref.token_cost, compress.keep(level, full, text, self.focus, is_rst(c.metadata.filepath)))
        return self._short[key]

    def shorten_item(self, item, level: str):
        """``pack.shorten_item``, its text and compression worked out once per compile."""
        key = (item.span_ref, level, item.text, item.section_title, item.path)
        form = self._forms.get(key)
        if form is None:
            form = self._forms[key] = pack.shortened_form(item, level, self.count, self.focus)
        return replace(item, text=form[0], compression=form[1])

    @staticmethod
    def in_its_fence(item, texts, kept):
        """``item`` with the fence it lies in around its text when it begins or ends inside
        fenced code (``blocks.quote_fences``): shortened, its code is then read as code.
        ``kept``: the notes' blocks as the index read them (``IndexReader.blocks_of``)."""
        text = texts.get(item.path)
        if text is None or item.stale:
            return item
        opener, closer = quote_fences(text, item.span_ref.char_start, item.span_ref.char_end, front_matter_end(text), kept.get(item.path))
        return replace(item, text=opener + item.text + closer) if opener or closer else item

    def texts(self, cands: list[CandidateSpan]) -> list[str]:
        """The candidates' texts, as the index holds them (the reader keeps the rows it read)."""
        rows = self.reader.rows([c.row for c in cands])
        return [rows[c.row].text if c.row in rows else "" for c in cands]

    def shortened_cost(self, c: CandidateSpan, level: str) -> int:
        return self._shortened(c, level)[0]

    def shortened_keep(self, c: CandidateSpan, level: str) -> float:
        return self._shortened(c, level)[1]

    def build(self, room: int, overhead: int, compact: bool = False) -> CompileResponse:
        request, cfg = self.request, self.cfg
        prefs = request.soft_prefs
        q = max(room, 0)
        named = frozenset(self.sig.struct_hints.doc_ids)
        shorten = request.compress and cfg.compress
        sel = select.select(
            self.scored, expand.selection_budget(request, q), prefs.diversity_lambda, prefs.max_single_source_ratio,
            cfg.mmr_threshold, span_overhead=overhead, floor=cfg.relevance_floor, cap_yield=cfg.cap_yield,
            floor_depth=cfg.floor_depth, doc_floor=cfg.document_floor,
            shortened=pack.shortened_tokens(self.shortened_cost, named) if shorten else None,
            budget_offset=request.budget_tokens - q, ranking=self.ranking, uncapped=self.uncapped,
            texts=self.texts,
        )
        entries = expand.with_expansions(cfg, self.reader, sel.picked, request, q, overhead) if q else []
        placed = pack.pack(
            sel, entries, self.by_id, q, overhead, self.shortened_cost,
            enabled=shorten, named_docs=named,
            keep_of=self.shortened_keep, top=self.top, read_whole=self.uncapped,
        ) if q else []
        items, stale, texts = hydrate.hydrate(cfg, self.reader, placed, self.files)
        kept = self.reader.blocks_of([p for p, t in texts.items() if t is not None])
        items = [self.shorten_item(self.in_its_fence(it, texts, kept), p.level) if p.level else it for it, p in zip(items, placed)]
        items = with_copies(items, sel.copy_groups) if self.name_copies else items
        statuses = self.status_notes({i.path: i.status for i in items})
        docs = layout.layout(items, texts, statuses, self.link_targets({i.path for i in items}), kept)
        quoted = sum(self.count(q_.text) for d in docs for q_ in d.quotes)
        in_ws = {i.path for i in items}
        stop = ""
        short = sum(p.cost + overhead for p in placed) < STOP_NOTE_BELOW * q  # the working set leaves room unspent
        if sel.stop_reason == "floor" and items and short:
            best = self.scored[0].base_score if self.scored else 0.0
            if cfg.floor_depth > 0 and sel.floor_score < cfg.relevance_floor * best - 1e-9:
                why = f"the rest ranks below the top {cfg.floor_depth:g} × the budget in tokens"
            else:
                why = f"nothing else scored above {cfg.relevance_floor:g} × the best"
            stop = f"selection stopped at {quoted:,} quoted tokens: {why}"
        elif sel.stop_reason in ("no_feasible", "exhausted") and items and short:
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
            left_out=() if compact else _left_out(sel.rejected, in_ws | {c.path for i in items for c in i.copies},
                                                  request.budget_tokens, self.filtered),
            compact=compact,
            id_length=self.reader.manifest.id_length,
        )


def with_copies(items: list, groups: tuple[tuple[CandidateSpan, ...], ...]) -> list:
    """Each quoted span with the other spans of its group of the same words
    (``select.Selection.copy_groups``) that the working set does not hold, at most one per
    document and none of a document the working set quotes itself; a pointer, which quotes
    no text, names none."""
    group_of = select.copy_group_of(groups)
    held = {i.span_ref.span_id for i in items}
    quoted = {i.path for i in items}
    out = []
    for it in items:
        g = group_of.get(it.span_ref.span_id)
        group = groups[g] if g is not None else ()
        if group and not is_pointer(it):
            named: dict[str, Copy] = {}
            for c in group:
                path = c.metadata.filepath
                if c.span_ref.span_id not in held and path not in quoted and path not in named:
                    named[path] = Copy(path, c.span_ref.span_id, c.span_ref.line_start, c.span_ref.line_end)
            if named:
                it = replace(it, copies=tuple(named.values()))
        out.append(it)
    return out


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
    from oriongraph_cli.rank.filters import filters_flags

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
