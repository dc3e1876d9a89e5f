"""The graph index: typed edges between documents and spans, built and read through the
registry's graph tables (``store/graph_store.py``; this module holds no SQL).

Two phases keep ``orion index`` incremental:

1. **Per document** (:func:`store_document`, for each *changed* document; needs its text):
   front matter link lists, Markdown / wiki links and id-shaped tokens are stored
   unresolved, with their line numbers, in ``link_refs``; its IN_WORKSTREAM edge is written
   to ``edges``. Rows of unchanged documents are carried over with the registry copy,
   exactly like their spans. The *structural* edges (NEXT/PREV, PARENT_SECTION/CHILD_SECTION)
   are not stored: they follow from a document's spans and are derived where they are read
   (:func:`structural_of`, :func:`edge_counts`) — three quarters of the edges and a third of
   the registry were theirs.
2. **Global** (:func:`rebuild_edges`, once per index run that changed anything): a
   :class:`LinkResolver` is built from the registry (paths, ids, file stems, titles,
   heading slugs), the stored references that can resolve differently are resolved
   (all of them the first time; then those of changed documents and those whose recorded
   lookup keys a change touched, see :func:`rebuild_edges`), DEFINES edges are recomputed
   from the span texts, and the *global* edges and ``dangling_links`` are updated. No document
   text is needed, so a link from an unchanged document to a new or changed one, a mention
   of a new id, or a newly dangling link are all picked up without re-reading files.

Nodes are ``(path, span_id)``; ``span_id`` is ``None`` for a whole document (front matter
edges, links without an anchor). Workstreams are the nodes ``("ws:<name>", None)``.

Edge types (``Edge.type``)::

    LINKS RELATED DEPENDS_ON SUPERSEDES SUPERSEDED_BY PARENT   front matter (doc -> doc[#anchor])
    REF        body Markdown/wiki link (span -> doc, or span -> span for an #anchor)
    CITES      a body link whose target lives in 04_artifacts/ (instead of REF)
    MENTIONS   ADR-0007 / ADR-20251113-foo / a document `id` named in the text (span -> doc)
    NEXT PREV  consecutive spans of one document                      (structural, derived)
    PARENT_SECTION CHILD_SECTION  span <-> head span of its section    (structural, derived)
    IN_WORKSTREAM  doc -> ws:<name>                                    (local)
    DEFINES    defining span of a term (glossary ### heading, front matter id, short title)
               -> spans of other documents using it (bounded, see defines_edges)
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from oriongraph_cli.graph.extract import (
    DEFINES_MAX_DF,
    DEFINES_MAX_PER_TERM,
    LOCAL_TYPES,
    MD_SUFFIXES,
    STRUCTURAL_TYPES,
    WS_PREFIX,
    DanglingLink,
    DocInfo,
    Edge,
    RawRef,
    SpanInfo,
    extract_refs,
    local_edges,
    structural_edges,
    workstream_edges,
)
from oriongraph_cli.repository import OwnRepository
from oriongraph_cli.graph.resolve import FS_KEY, LinkResolver, document_keys, kept_registry_written, resolve_refs
from oriongraph_cli.graph.terms import Term, TermIndex, collect_terms, defines_edges, term_key, users_limit
from oriongraph_cli.models import Document, Span
from oriongraph_cli.store.registry import Registry


_DEFINES_CHUNK = 16_384  # span texts read at a time to match the terms (not every span's text at once)


_DEFINES_SIG = "w1"  # defines_cache rows of another scheme (the term list's signature) are matched again
_PREFILTER_TERMS = 32  # new terms up to this many are looked for by substring before words are split


def _chunks_with_texts(reg: Registry, rows: Sequence[int]) -> Iterator[tuple[list[tuple], dict[str, str]]]:
    """The spans at ``rows`` a chunk at a time: ((path, span_id, ordinal) of each, span_id ->
    text), so that matching every span of a large index holds one chunk's texts."""
    for at in range(0, len(rows), _DEFINES_CHUNK):
        part = reg.graph.spans_at_rows(rows[at : at + _DEFINES_CHUNK])
        yield part, reg.span_texts([sid for _p, sid, _o in part])


def _match_new_terms(reg: Registry, terms: Sequence[Term], keys: Sequence[int], new: Sequence[int]) -> None:
    """Match the spans matched before against the terms at indices ``new`` alone (terms the
    project gained since): a span whose lower-cased text holds none of a term's longest word
    cannot hold the term (words_of only turns punctuation into spaces), so most spans are
    passed over without splitting their words."""
    index = TermIndex([terms[i] for i in new])
    longest = [max(terms[i].words, key=len) for i in new] if len(new) <= _PREFILTER_TERMS else None
    for part, texts in _chunks_with_texts(reg, reg.graph.defines_matched_rows()):
        hits = []
        for path, sid, o in part:
            text = texts.get(sid, "")
            if longest is not None:
                low = text.lower()
                if not any(w in low for w in longest):
                    continue
            hits += [(keys[new[t_i]], sid, path, o, n) for t_i, n in index.match(text)]
        reg.graph.save_defines_hits(_DEFINES_SIG, [], hits)


def _follow_term_list(reg: Registry, terms: Sequence[Term], keys: Sequence[int], known: set[int]) -> None:
    """Bring the match tables to the term list ``terms`` (``keys`` theirs, ``known`` the keys
    the tables hold): a term no longer defined leaves with its matches, a new one is looked
    for in the spans matched before (:func:`_match_new_terms`)."""
    reg.graph.forget_defines_terms(known - set(keys))
    new = [i for i, k in enumerate(keys) if k not in known]
    if new:
        _match_new_terms(reg, terms, keys, new)
        reg.graph.add_defines_terms((keys[i], " ".join(terms[i].words)) for i in new)


def _match_spans(reg: Registry, terms: Sequence[Term], keys: Sequence[int], rows: Sequence[int]) -> set[int]:
    """Match the spans at ``rows`` (not matched yet) against every term and store their
    hits; returns the keys of the terms they hold. A build from the files matches every
    span: the spans, their texts and their hits (millions at 1M spans) are handled a chunk
    at a time, each table's rows written in the order one batch wrote them (the matched
    spans first, then the hits)."""
    if not len(rows):
        return set()
    index = TermIndex(terms)
    for at in range(0, len(rows), _DEFINES_CHUNK):
        reg.graph.save_defines_hits(_DEFINES_SIG, [sid for _p, sid, _o in reg.graph.spans_at_rows(rows[at : at + _DEFINES_CHUNK])], [])
    hit: set[int] = set()
    for part, texts in _chunks_with_texts(reg, rows):
        hits = [(keys[t_i], sid, path, o, n) for path, sid, o in part for t_i, n in index.match(texts.get(sid, ""))]
        reg.graph.save_defines_hits(_DEFINES_SIG, [], hits)
        hit.update(h[0] for h in hits)
    return hit


def _cached_defines(reg: Registry, terms: Sequence[Term], *, max_per_term: int, max_df: float) -> list[Edge]:
    """DEFINES through the registry's match tables (``defines_cache`` marks the spans
    matched, ``defines_terms`` the terms they were matched against, ``defines_hits`` holds
    their matches, a term by :func:`term_key`): only spans not seen before are matched
    against every term (an edited document costs its own spans), only terms not seen before
    are looked for in the other spans (a document added with a short title costs one pass
    for that term, not every span against every term), and each term's users are chosen in
    SQL (:meth:`GraphStore.defines_top`) by the rule of :func:`defines_edges`, which gives
    the same edges (tests/index/test_incremental.py, tests/graph)."""
    keys = [term_key(t.words) for t in terms]
    reg.graph.defines_hits_prune(_DEFINES_SIG)
    _follow_term_list(reg, terms, keys, reg.graph.defines_term_keys())
    _match_spans(reg, terms, keys, reg.graph.defines_unmatched_rows())
    n_spans = reg.graph.span_count()
    top = _defines_top(reg, terms, keys, range(len(terms)), n_spans, max_per_term=max_per_term, max_df=max_df)
    reg.graph.set_defines_definers((t.path, t.span_id, t.text, k) for k, t in zip(keys, terms))
    return top


def _defines_top(reg: Registry, terms: Sequence[Term], keys: Sequence[int], chosen: Iterable[int], n_spans: int, *,
                 max_per_term: int, max_df: float) -> list[Edge]:
    """The DEFINES edges of the terms at indices ``chosen`` (:meth:`GraphStore.defines_top`),
    in term-list order."""
    at_key = {keys[i]: i for i in chosen}
    limit = users_limit(n_spans, max_per_term, max_df)
    top = reg.graph.defines_top([(k, terms[i].path) for k, i in at_key.items()], limit, max_per_term)
    top.sort(key=lambda r: at_key[r[0]])  # term-list order (stable: each term's users keep their order)
    return [Edge(terms[at_key[k]].path, terms[at_key[k]].span_id, path, span_id, "DEFINES", terms[at_key[k]].text) for k, path, span_id in top]


_DEFINES_MARK = "defines_of"  # info key: the generation, span count and caps the stored DEFINES edges were chosen with


def _defines_state(n_spans: int, max_per_term: int, max_df: float, generation: str | None) -> dict:
    return {"generation": generation, "n_spans": n_spans, "max_per_term": max_per_term, "max_df": max_df}


def _update_defines(reg: Registry, terms: Sequence[Term], change: "GraphChange", *, max_per_term: int, max_df: float) -> tuple[int, int] | None:
    """The stored DEFINES edges brought up to date by choosing again only the terms this
    run's change can touch — a term gained, lost or defined elsewhere, a term matched in a
    span that left or entered, a term whose count of users crossed the too-generic limit as
    the span count moved — and replacing only their edges. The same edges as
    :func:`_cached_defines` and a full comparison (tests/index/test_incremental.py).
    None (nothing changed) when the stored edges were not chosen on the generation this
    run builds on, with the same caps: the caller takes the full path. Returns (inserted,
    deleted)."""
    state = reg.get_info(_DEFINES_MARK)
    if not isinstance(state, dict) or state.get("generation") is None or state.get("generation") != reg.get_info("generation") \
            or state.get("max_per_term") != max_per_term or state.get("max_df") != max_df or not isinstance(state.get("n_spans"), int):
        return None
    keys = [term_key(t.words) for t in terms]
    now = {k: (t.path, t.span_id, t.text) for k, t in zip(keys, terms)}
    before = reg.graph.defines_definers()
    touched = {k for k in now.keys() | before.keys() if now.get(k) != before.get(k)}  # gained, lost, defined elsewhere
    _follow_term_list(reg, terms, keys, set(before))
    left = change.spans_before
    touched |= reg.graph.defines_terms_of_spans(left)
    reg.graph.forget_defines_spans(left)
    touched |= _match_spans(reg, terms, keys, reg.graph.defines_unmatched_rows_of(change.paths))
    n_spans = reg.graph.span_count()
    old_cut = int(users_limit(state["n_spans"], max_per_term, max_df))  # users <= limit, users whole
    new_cut = int(users_limit(n_spans, max_per_term, max_df))
    if old_cut != new_cut:
        touched |= reg.graph.defines_users_between([(k, t.path) for k, t in zip(keys, terms)], min(old_cut, new_cut), max(old_cut, new_cut))
    at = {k: i for i, k in enumerate(keys)}
    wanted = _defines_top(reg, terms, keys, sorted(at[k] for k in touched if k in at), n_spans, max_per_term=max_per_term, max_df=max_df)
    stored = reg.graph.defines_edges_from(sorted(d for k in touched if (d := before.get(k)) is not None and d[1] is not None))
    changed = _replace_edges(reg, stored, wanted)
    reg.graph.set_defines_definers((now[k][0], now[k][1], now[k][2], k) for k in touched if k in now)
    return changed


def extract_edges(doc: Document, spans: list[Span], resolver: LinkResolver) -> tuple[list[Edge], list[DanglingLink]]:
    """All edges of one document, pure (the resolver knows the other documents): its
    references resolved, its local edges, and the DEFINES edges from the resolver's terms
    into its spans (not capped per term — :func:`rebuild_edges` caps globally)."""
    edges, dangling_out = resolve_refs(extract_refs(doc, spans), resolver)
    infos = [SpanInfo.from_span(s) for s in spans]
    edges += local_edges(infos, DocInfo.from_document(doc))
    edges += defines_edges(collect_terms(resolver), infos, max_per_term=max(len(infos), 1), max_df=float("inf"))
    return edges, dangling_out


# --------------------------------------------------------------------------- stored graph


def create_tables(reg: Registry) -> None:
    """Create the graph tables and indexes (idempotent, no commit)."""
    reg.graph.create_tables()


def has_tables(reg: Registry) -> bool:
    return reg.graph.has_tables()


def forget_document(reg: Registry, path: str) -> None:
    """Drop everything phase 1 stored for ``path`` (a removed or changed document)."""
    reg.graph.forget_document(path, LOCAL_TYPES)


def write_refs(reg: Registry, doc: Document, refs: Iterable[RawRef]) -> None:
    """Replace the stored references of ``doc.path`` (and mark its version as extracted)."""
    reg.graph.write_refs(doc.path, doc.doc_version_id, refs)


def store_document(reg: Registry, doc: Document, spans: Sequence[Span]) -> int:
    """Phase 1 for one changed or added document: replace its stored references and its
    IN_WORKSTREAM edge (structural edges are derived, not stored). Returns the number of
    references stored. Does not commit."""
    forget_document(reg, doc.path)
    refs = extract_refs(doc, spans)
    write_refs(reg, doc, refs)
    reg.graph.add_edges(workstream_edges(DocInfo.from_document(doc)))
    return len(refs)


def structural_of(reg: Registry, path: str, span: str | None = None) -> list[Edge]:
    """The structural edges (NEXT/PREV, PARENT_SECTION/CHILD_SECTION) of the document at
    ``path`` — those with ``span`` at either end, when given — derived from its spans as
    the registry holds them."""
    infos = [SpanInfo(path, sid, ordinal, tuple(json.loads(hp))) for _row, sid, ordinal, hp, _level, _cost in reg.document_outline(path)]
    found = structural_edges(infos)
    return found if span is None else [e for e in found if span in (e.src_span, e.dst_span)]


def read_refs(reg: Registry, paths: Iterable[str] | None = None) -> Iterator[RawRef]:
    """The stored references (of the documents at ``paths`` only, when given)."""
    make = RawRef._make
    for r in reg.graph.read_refs(paths):
        yield make(r)


def write_edges(reg: Registry, edges: Iterable[Edge], *, replace: bool = False) -> int:
    """Insert edges (``replace``: delete every edge first). Returns the number written."""
    rows = list(edges)
    reg.graph.write_edges(rows, replace=replace)
    return len(rows)


def write_dangling(reg: Registry, items: Iterable[DanglingLink], *, replace: bool = True) -> None:
    reg.graph.write_dangling([(d.path, d.line, d.target, d.kind) for d in items], replace=replace)


def edges_for(
    reg: Registry, path_or_span_id: str, direction: str = "both", types: Iterable[str] | None = None,
    *, structural: bool = True,
) -> dict[str, list[Edge]]:
    """Edges of a document (a path — its own edges and those of all its spans — or a
    ``ws:<name>`` node) or of one span (a span id). ``direction``: "out" | "in" | "both".
    Returns ``{"out": [...], "in": [...]}`` (the requested keys), sorted by type, then the
    other end, then line. ``structural``: with the derived structural edges (of the
    requested ``types``; an index written before they were derived also stores them, and
    each is listed once)."""
    if direction not in ("out", "in", "both"):
        raise ValueError(f"direction must be 'out', 'in' or 'both', got {direction!r}")
    key = path_or_span_id
    is_path = "/" in key or key.lower().endswith(MD_SUFFIXES) or key.startswith(WS_PREFIX)
    if not is_path:
        is_path = reg.graph.is_edge_path(key)
    type_list = sorted(set(types)) if types else []
    col = "path" if is_path else "span"
    derived: list[Edge] = []
    if structural and (not type_list or STRUCTURAL_TYPES & set(type_list)):
        if is_path:
            derived = structural_of(reg, key)
        else:
            derived = [e for _row, path, _sid, _hp in reg.spans_by_span_id([key]) for e in structural_of(reg, path, key)]
        derived = [e for e in derived if not type_list or e.type in type_list]
    out: dict[str, list[Edge]] = {}
    if direction in ("out", "both"):
        rows = [Edge._make(r) for r in reg.graph.edges_at("src", col, key, type_list)]
        stored = set(rows)
        rows += [e for e in derived if (e.src_path if is_path else e.src_span) == key and e not in stored]
        out["out"] = sorted(rows, key=lambda e: (e.type, e.dst_path, e.dst_span or "", e.line or 0, e.src_span or ""))
    if direction in ("in", "both"):
        rows = [Edge._make(r) for r in reg.graph.edges_at("dst", col, key, type_list)]
        stored = set(rows)
        rows += [e for e in derived if (e.dst_path if is_path else e.dst_span) == key and e not in stored]
        out["in"] = sorted(rows, key=lambda e: (e.type, e.src_path, e.src_span or "", e.line or 0, e.dst_span or ""))
    return out


def links_report(reg: Registry, path_or_span_id: str, *, include_structural: bool = False) -> dict[str, Any]:
    """JSON-ready answer for ``orion links PATH|SPAN_ID``: edges out and in, grouped by
    type (NEXT/PREV/PARENT_SECTION/CHILD_SECTION left out unless ``include_structural``),
    and the dangling links written in that document."""
    found = edges_for(reg, path_or_span_id, structural=include_structural)
    report: dict[str, Any] = {"schema_version": 1, "kind": "links", "target": path_or_span_id}
    for direction in ("out", "in"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for e in found[direction]:
            if include_structural or e.type not in STRUCTURAL_TYPES:
                groups.setdefault(e.type, []).append(e.to_dict())
        report[direction] = dict(sorted(groups.items()))
    report["dangling"] = [d.to_dict() for d in dangling(reg, path_or_span_id)]
    return report


def dangling(reg: Registry, path: str | None = None) -> list[DanglingLink]:
    """Dangling links (of one document, or all), by path then line."""
    return [DanglingLink(*r) for r in reg.graph.dangling(path)]


def edge_counts(reg: Registry) -> dict[str, int]:
    """Edges by type: the stored ones counted, the structural ones as many as the spans
    imply (``GraphStore.structural_counts``)."""
    counts = reg.graph.edge_counts()
    totals = {**reg.totals(), "spans": reg.counts()["spans"]}
    counts.update({t: n for t, n in reg.graph.structural_counts(totals).items() if n})
    return dict(sorted(counts.items()))


@dataclass
class GraphBuildResult:
    edges: int  # all edges in the table after the rebuild
    by_type: dict[str, int]
    dangling: list[DanglingLink]
    stale_documents: list[str]  # documents whose references were never extracted for this version
    elapsed_ms: float
    timings_ms: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": self.edges, "by_type": self.by_type, "dangling": [d.to_dict() for d in self.dangling],
            "stale_documents": self.stale_documents, "elapsed_ms": round(self.elapsed_ms, 1),
        }


_RESOLVE_BATCH = 20_000  # references resolved (and their lookup keys written) at a time


def _document_batches(refs: Iterable[RawRef], size: int) -> Iterator[list[RawRef]]:
    """``refs`` (ordered by document) in lists of about ``size``, never splitting a
    document's references across two lists."""
    batch: list[RawRef] = []
    for r in refs:
        if len(batch) >= size and r[0] != batch[-1][0]:
            yield batch
            batch = []
        batch.append(r)
    if batch:
        yield batch


def _resolve_all(reg: Registry, resolver: LinkResolver, *, write_edges: bool) -> tuple[list[Edge], list[DanglingLink], int]:
    """Every stored reference resolved, a batch of documents at a time: each batch's lookup
    keys written as it is resolved (every document's replaced), and its edges written too
    when ``write_edges`` (else returned). The same rows, in the same order, as resolving
    them all at once: references come by document, and an edge is a duplicate only of
    another from its own document. Returns (edges kept, dangling links, edges written)."""
    reg.graph.write_deps({}, replace=True)
    kept: list[Edge] = []
    dangling_out: list[DanglingLink] = []
    written = 0
    for refs in _document_batches(read_refs(reg), _RESOLVE_BATCH):
        deps: dict[str, set[str]] = {}
        edges, dangling_list = resolve_refs(refs, resolver, deps)
        reg.graph.write_deps(deps, append=True)
        dangling_out += dangling_list
        if write_edges:
            reg.graph.add_edges(edges)
            written += len(edges)
        else:
            kept += edges
    return kept, dangling_out, written


def _add_edges_once(reg: Registry, edges: list[Edge]) -> int:
    """Insert ``edges``, equal ones together where the first stands (as
    :func:`_sync_global_edges` inserts into a table without them). Returns how many."""
    new = [e for e, n in Counter(edges).items() for _ in range(n)]
    reg.graph.add_edges(new)
    return len(new)


def _replace_edges(reg: Registry, stored: Iterable[tuple], edges: list[Edge]) -> tuple[int, int]:
    """Make the ``stored`` edge rows ((rowid, *Edge) from the table) equal ``edges``,
    touching only the difference. Returns (inserted, deleted)."""
    wanted = Counter(edges)
    stale: list[int] = []
    for row in stored:
        e = Edge._make(row[1:])
        if wanted[e] > 0:
            wanted[e] -= 1
        else:
            stale.append(row[0])
    reg.graph.delete_edges(stale)
    new = [e for e, n in wanted.items() for _ in range(n)]
    reg.graph.add_edges(new)
    return len(new), len(stale)


def _sync_global_edges(reg: Registry, edges: list[Edge], only: str | None = None) -> tuple[int, int]:
    """Make the global edges in the table (of type ``only``, when given) equal ``edges``,
    touching only the difference (an incremental run changes few of them). Returns
    (inserted, deleted)."""
    return _replace_edges(reg, reg.graph.global_edges(LOCAL_TYPES, only), edges)


@dataclass(frozen=True)
class GraphChange:
    """What an index run changed, for :func:`rebuild_edges`: the paths of every document
    added, changed or removed, and how those documents read in the generation the run
    builds on (``before``: their :class:`DocInfo`, from :func:`documents_before`)."""

    paths: frozenset[str]
    before: tuple[DocInfo, ...]
    spans_before: frozenset[str] = frozenset()  # the span ids those documents had


def documents_before(reg: Registry, paths: Iterable[str]) -> tuple[DocInfo, ...]:
    """The :class:`DocInfo` of the documents at ``paths`` in ``reg`` (those it holds)."""
    return tuple(DocInfo.from_row(r) for r in reg.document_links_info(paths))


_DEPS_MARK = "link_deps_of"  # info key: the generation whose link_deps are complete


def _changed_keys(resolver: LinkResolver, change: GraphChange) -> set[str]:
    """Every lookup key a document of ``change`` sets, before or after the run."""
    keys: set[str] = set()
    for d in change.before:
        keys |= document_keys(d)
    for path in change.paths:
        if path in resolver.docs:
            keys |= document_keys(resolver.docs[path])
    return keys


def rebuild_edges(
    reg: Registry,
    root: Path | None = None,
    *,
    defines: bool = True,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
    change: GraphChange | None = None,
    generation: str | None = None,
    keep: bool = False,
    base_registry: Any = None,
    repository: OwnRepository | None = None,
) -> GraphBuildResult:
    """Phase 2: resolve the stored references against the current documents, recompute the
    DEFINES edges, rewrite the global edges and ``dangling_links``.

    With ``change`` (what this run added, changed or removed) and the resolution
    dependencies of the generation built on (``link_deps``, marked current for it), only
    the references that can resolve differently are resolved again: those of the changed
    documents, those that looked up a key a changed document sets or set (its path, stem,
    id, title, headings) and links to files outside the index (the disk may have
    changed). The result equals a full resolve (tests/index/test_incremental.py). Without
    them, every reference is resolved. ``generation``: the generation being built (its
    dependencies are marked current for it). ``keep``: this process indexes again (``orion
    serve``, ``orion watch``): what the document rows gave is kept for the next run
    (``LinkResolver.from_registry``, ``collect_terms``); ``base_registry``: the checksum of
    the registry ``reg`` was copied from (with ``change``): when the last run kept the rows
    of that very registry, only the changed documents' rows are read. ``repository``: the
    repositories the project's files belong to (a link by their web address names the file).

    Call once per index run, after the registry holds every current document and span and
    :func:`store_document` ran for each changed one. Rows of documents no longer in the
    registry are dropped. Does not commit.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    create_tables(reg)
    incremental = change is not None and reg.get_info(_DEPS_MARK) is not None and reg.get_info(_DEPS_MARK) == reg.get_info("generation")
    # the generation built on dropped the rows of every document it did not hold (its
    # link_deps are marked complete): only the documents this run removed can have rows left
    reg.graph.drop_removed_documents(change.paths if incremental else None)
    stale = reg.graph.unextracted_documents()
    t = time.perf_counter()
    since = (base_registry, change.paths) if change is not None and base_registry is not None else None
    resolver = LinkResolver.from_registry(reg, root, keep=keep, since=since, repository=repository)
    deps: dict[str, set[str]] = {}
    if incremental:
        assert change is not None
        again = (set(change.paths) | set(stale) | reg.graph.paths_depending_on(_changed_keys(resolver, change) | {FS_KEY})) & resolver.paths
        timings["resolved_documents"] = len(again)
        edges, dangling_list = resolve_refs(read_refs(reg, again), resolver, deps)
        reg.graph.forget_resolved(again | set(change.paths), LOCAL_TYPES | {"DEFINES"})
        reg.graph.write_deps({p: deps.get(p, set()) for p in again})
    else:
        # a first build writes its resolved edges as each batch of documents is resolved
        # (nothing to compare them with); a rebuild over stored edges keeps them to compare
        fresh = not reg.graph.has_global_edges(LOCAL_TYPES)
        edges, dangling_list, streamed = _resolve_all(reg, resolver, write_edges=fresh)
    timings["resolve"] = (time.perf_counter() - t) * 1000
    defines_list: list[Edge] = []
    defines_synced: tuple[int, int] | None = None
    if defines:
        t = time.perf_counter()
        terms = collect_terms(resolver, keep=keep)
        if incremental:
            assert change is not None
            defines_synced = _update_defines(reg, terms, change, max_per_term=max_per_term, max_df=max_df)
        if defines_synced is None:
            defines_list = _cached_defines(reg, terms, max_per_term=max_per_term, max_df=max_df)
        timings["defines"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    if incremental:
        reg.graph.add_edges(edges)
        reg.graph.write_dangling([(d.path, d.line, d.target, d.kind) for d in dangling_list], replace=False)
        added, removed = defines_synced if defines_synced is not None else _sync_global_edges(reg, defines_list, only="DEFINES")
        added += len(edges)
    elif fresh:
        added, removed = streamed + _add_edges_once(reg, defines_list), 0
        write_dangling(reg, dangling_list)
    else:
        added, removed = _sync_global_edges(reg, edges + defines_list)
        write_dangling(reg, dangling_list)
    reg.set_info(_DEPS_MARK, generation)
    # the stored DEFINES edges are those chosen now (none without DEFINES: a later run with
    # them starts from the whole rule)
    reg.set_info(_DEFINES_MARK, _defines_state(reg.graph.span_count(), max_per_term, max_df, generation) if defines else None)
    timings["write"] = (time.perf_counter() - t) * 1000
    timings["edges_added"], timings["edges_removed"] = added, removed
    counts = edge_counts(reg)
    return GraphBuildResult(
        edges=sum(counts.values()),
        by_type=counts,
        dangling=sorted(dangling(reg), key=lambda d: (d.path, d.line or 0, d.target, d.kind)),
        stale_documents=stale,
        elapsed_ms=(time.perf_counter() - t0) * 1000,
        timings_ms={k: round(v, 1) for k, v in timings.items()},
    )


__all__ = [ "LOCAL_TYPES", "STRUCTURAL_TYPES", "Edge", "DanglingLink", "RawRef", "SpanInfo",
    "DocInfo", "LinkResolver", "Term", "extract_refs", "resolve_refs",
    "local_edges", "collect_terms", "defines_edges", "extract_edges", "create_tables", "has_tables",
    "forget_document", "write_refs", "store_document", "structural_of", "read_refs", "write_edges", "write_dangling", "edges_for",
    "links_report", "dangling", "edge_counts", "GraphBuildResult", "GraphChange", "documents_before", "rebuild_edges",
    "kept_registry_written",
]
