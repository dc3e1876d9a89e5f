"""Graph traversal, the graph channel (spec 4.2 GraphGen) and neighbourhood expansion
(seed 003 ``expand(hit)``).

Safety is enforced by the operators themselves, not by the callers' neighbour functions
(seed 003): every walk keeps a visited set (a node is expanded at most once), a depth cap
and a node budget (at most ``node_budget`` distinct nodes are ever discovered), and a
per-node fan-out cap, so a cyclic or complete graph terminates after a bounded amount of
work whatever the neighbour function returns.

Scores: a node reached from a seed of strength ``s`` along edges ``e1..en`` scores
``s * Π weight(e_i)``, where ``weight`` is the edge type's weight, multiplied by
``reverse_factor`` when the edge is walked against its direction; the best path wins
(best-first search on the product, which is exact for weights <= 1 without a depth cap).
A seed is only reported when another seed reaches it.
"""

from __future__ import annotations

import heapq
import json
import posixpath
import sqlite3
from dataclasses import dataclass
from itertools import islice
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Sequence

from oriongraph_cli.compile.generate import GenHit, filter_hits
from oriongraph_cli.graph import edges, extract
from oriongraph_cli.models import CandidateSpan, DerivedSignals, HardFilters

Node = tuple[str, "str | None"]  # (path, span_id | None); workstreams are ("ws:<name>", None)

# weights of the graph channel; structural edges are 0 (they are --expand's business)
DEFAULT_EDGE_WEIGHTS: dict[str, float] = {
    "SUPERSEDES": 0.9,
    "SUPERSEDED_BY": 0.9,
    "REF": 0.7,
    "DEPENDS_ON": 0.7,
    "CITES": 0.6,
    "RELATED": 0.6,
    "LINKS": 0.6,
    "MENTIONS": 0.5,
    "PARENT": 0.5,
    "DEFINES": 0.3,
    "IN_WORKSTREAM": 0.1,
    "NEXT": 0.0,
    "PREV": 0.0,
    "PARENT_SECTION": 0.0,
    "CHILD_SECTION": 0.0,
}
REVERSE_FACTOR = 0.8  # walking an edge backwards ("links to the seed") counts a little less
NODE_BUDGET = 500
MAX_FANOUT = 64
SCAN_FACTOR = 16  # at most MAX_FANOUT * SCAN_FACTOR neighbour items are read per node
DOC_FANOUT = 3  # a document node contributes its first spans (score x 1, 0.9, 0.8)
SEED_COUNT = 20  # seeds taken from the fused candidates


class Step(NamedTuple):
    """One edge on a walk: ``src -> dst`` as walked; ``forward`` is False when the stored
    edge points the other way (dst -> src)."""

    src: Node
    dst: Node
    type: str
    forward: bool
    detail: str = ""


class Reach(NamedTuple):
    score: float
    path: tuple[Step, ...]  # from the origin seed to the node
    origin: Node  # the seed the best path starts from


Neighbours = Callable[[Node], Iterable[tuple]]
"""``neighbours(node)`` yields ``(neighbour, edge_type[, forward[, detail]])``."""


def parse_edge_weights(spec: str | Mapping[str, float] | None, base: Mapping[str, float] | None = None) -> dict[str, float]:
    """``"REF=0.8,DEFINES=0"`` (or a mapping) over ``base`` (default DEFAULT_EDGE_WEIGHTS)."""
    out = dict(DEFAULT_EDGE_WEIGHTS if base is None else base)
    if not spec:
        return out
    items = spec.items() if isinstance(spec, Mapping) else (p.split("=", 1) for p in str(spec).split(",") if p.strip())
    for key, value in items:
        name = str(key).strip().upper()
        if name not in extract.EDGE_TYPES:
            raise ValueError(f"unknown edge type {key!r} (known: {', '.join(extract.EDGE_TYPES)})")
        weight = float(value)
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"edge weight {name}={weight} must be in [0, 1]")
        out[name] = weight
    return out


def _unpack(item: tuple) -> tuple[Node, str, bool, str]:
    nbr, etype = item[0], item[1]
    forward = item[2] if len(item) > 2 else True
    detail = item[3] if len(item) > 3 else ""
    return nbr, etype, forward, detail


def _weighted(node: Node, neighbours: Neighbours, weights: Mapping[str, float], reverse_factor: float, max_fanout: int) -> list[tuple[float, Node, Step]]:
    """The positive-weight neighbours of ``node``, best first, at most ``max_fanout``; a
    neighbour reachable over several edges keeps its best one."""
    best: dict[Node, tuple[float, Step]] = {}
    # a neighbour function may yield without end: look at a bounded number of items
    for item in islice(neighbours(node), max(max_fanout, 1) * SCAN_FACTOR):
        nbr, etype, forward, detail = _unpack(item)
        if nbr == node:
            continue
        w = weights.get(etype, 0.0) * (1.0 if forward else reverse_factor)
        if w <= 0.0:
            continue
        old = best.get(nbr)
        if old is None or w > old[0] or (w == old[0] and (etype, detail) < (old[1].type, old[1].detail)):
            best[nbr] = (w, Step(node, nbr, etype, forward, detail))
    ranked = sorted(((w, nbr, step) for nbr, (w, step) in best.items()), key=lambda x: (-x[0], _key(x[1]), x[2].type))
    return ranked[:max_fanout]


def _key(node: Node) -> tuple[str, str]:
    return (node[0], node[1] or "")


def traverse(
    seeds: Mapping[Node, float],
    neighbours: Neighbours,
    *,
    depth: int = 1,
    node_budget: int = NODE_BUDGET,
    edge_weights: Mapping[str, float] | None = None,
    reverse_factor: float = REVERSE_FACTOR,
    max_fanout: int = MAX_FANOUT,
    same_origin: Callable[[Node, Node], bool] | None = None,
) -> dict[Node, Reach]:
    """Bounded best-first walk from weighted seeds.

    Returns every node reached over at least one edge from a seed other than itself, with
    its best score (seed strength × product of edge weights), the path and the origin seed.
    ``same_origin(node, origin)`` (default: ``node == origin``) says which nodes are not
    reported when reached from ``origin`` (they are still walked through).
    Guarantees: each node is expanded at most once (visited set); nothing deeper than
    ``depth`` edges from a seed is reached; at most ``node_budget`` distinct nodes
    (seeds included) are ever discovered, so ``neighbours`` is called at most
    ``node_budget`` times. Deterministic for a deterministic ``neighbours``.

    Each node is expanded once, from its best-scoring path; a node whose best path already
    uses the whole depth is not expanded further even if a weaker, shorter path exists
    (the price of the visited set). Seeds always expand from depth 0.
    """
    weights = DEFAULT_EDGE_WEIGHTS if edge_weights is None else edge_weights
    same = same_origin or (lambda node, origin: node == origin)
    if depth < 1 or node_budget < 1:
        return {}
    best: dict[Node, tuple[float, int, tuple[Step, ...], Node]] = {}  # frontier state per node
    reached: dict[Node, Reach] = {}
    discovered: set[Node] = set()
    expanded: set[Node] = set()
    heap: list[tuple[float, tuple[str, str], int, Node]] = []
    seed_nodes: set[Node] = set()
    for node, s in sorted(seeds.items(), key=lambda kv: (-kv[1], _key(kv[0]))):
        if len(discovered) >= node_budget:
            break
        if s <= 0:
            continue
        discovered.add(node)
        seed_nodes.add(node)
        best[node] = (s, 0, (), node)
        heapq.heappush(heap, (-s, _key(node), 0, node))
    while heap:
        neg, _k, d, node = heapq.heappop(heap)
        if node in expanded:
            continue
        state = best[node]
        if -neg < state[0] or d != state[1]:
            continue  # an outdated heap entry
        expanded.add(node)
        if d >= depth:
            continue
        score, _d, path, origin = state
        for w, nbr, step in _weighted(node, neighbours, weights, reverse_factor, max_fanout):
            if nbr not in discovered:
                if len(discovered) >= node_budget:
                    continue  # budget spent: known nodes may still improve, no new ones
                discovered.add(nbr)
            cand = score * w
            new_path = path + (step,)
            if not (same(nbr, origin)):
                old = reached.get(nbr)
                if old is None or cand > old.score + 1e-12:
                    reached[nbr] = Reach(cand, new_path, origin)
            if nbr in expanded or nbr in seed_nodes:
                continue  # seeds keep depth 0 so they are always expanded
            cur = best.get(nbr)
            if cur is None or cand > cur[0] + 1e-12:
                best[nbr] = (cand, d + 1, new_path, origin)
                heapq.heappush(heap, (-cand, _key(nbr), d + 1, nbr))
    return reached


def personalized_pagerank(
    seeds: Mapping[Node, float],
    neighbours: Neighbours,
    *,
    alpha: float = 0.15,
    iters: int = 20,
    depth: int = 2,
    node_budget: int = NODE_BUDGET,
    edge_weights: Mapping[str, float] | None = None,
    reverse_factor: float = REVERSE_FACTOR,
    max_fanout: int = MAX_FANOUT,
    same_origin: Callable[[Node, Node], bool] | None = None,
) -> dict[Node, Reach]:
    """Personalised PageRank on the bounded neighbourhood of the seeds.

    The subgraph is discovered with :func:`traverse` (same safety: ``depth``,
    ``node_budget``, fan-out), then ``iters`` power iterations of
    ``r = alpha·p + (1-alpha)·Wᵀr`` run on it (``p`` = normalised seed strengths, ``W`` =
    edge weights normalised per node; mass of nodes without out-edges returns to ``p``).
    The score of a node is the mass it receives over edges, ``r - alpha·p``, scaled so the
    best node has the best seed's strength; paths come from the best-first walk.
    """
    weights = DEFAULT_EDGE_WEIGHTS if edge_weights is None else edge_weights
    hop = traverse(seeds, neighbours, depth=depth, node_budget=node_budget, edge_weights=weights, reverse_factor=reverse_factor, max_fanout=max_fanout)
    same = same_origin or (lambda node, origin: node == origin)
    reported = {n for n, r in hop.items() if not same(n, r.origin)}
    nodes = sorted(set(hop) | {n for n, s in seeds.items() if s > 0}, key=_key)[:node_budget]
    if not nodes or not hop:
        return {}
    index = {n: i for i, n in enumerate(nodes)}
    total = sum(s for n, s in seeds.items() if s > 0 and n in index)
    p = [0.0] * len(nodes)
    for n, s in seeds.items():
        if s > 0 and n in index:
            p[index[n]] = s / total
    out_edges: list[list[tuple[int, float]]] = []
    for n in nodes:
        row = [(index[nbr], w) for w, nbr, _s in _weighted(n, neighbours, weights, reverse_factor, max_fanout) if nbr in index]
        z = sum(w for _j, w in row)
        out_edges.append([(j, w / z) for j, w in row] if z > 0 else [])
    r = list(p)
    for _ in range(max(iters, 0)):
        nxt = [alpha * x for x in p]
        leak = 0.0
        for i, row in enumerate(out_edges):
            mass = (1.0 - alpha) * r[i]
            if not row:
                leak += mass
                continue
            for j, w in row:
                nxt[j] += mass * w
        if leak:
            nxt = [x + leak * q for x, q in zip(nxt, p)]
        r = nxt
    received = {n: r[index[n]] - alpha * p[index[n]] for n in reported if n in index}
    top = max(received.values(), default=0.0)
    if top <= 0:
        return {}
    scale = max(s for s in seeds.values()) / top
    return {n: Reach(v * scale, hop[n].path, hop[n].origin) for n, v in received.items() if v > 1e-12}


# --------------------------------------------------------------------------- the registry graph


class EdgeGraph:
    """Neighbours read from the ``edges`` table of a registry connection (cached).

    A span node's neighbours are its own edges (out and in) plus, when ``doc_edges`` is
    true, the document-level edges of its document (front matter, links to the document as
    a whole, IN_WORKSTREAM): a span inherits what its document is related to. A document
    node has the document-level edges; a ``ws:`` node has its documents.
    """

    def __init__(self, conn: sqlite3.Connection, *, doc_edges: bool = True):
        self.conn = conn
        self.doc_edges = doc_edges
        self._cache: dict[Node, list[tuple[Node, str, bool, str]]] = {}
        self.calls = 0

    def __call__(self, node: Node) -> list[tuple[Node, str, bool, str]]:
        return self.neighbours(node)

    def neighbours(self, node: Node) -> list[tuple[Node, str, bool, str]]:
        hit = self._cache.get(node)
        if hit is not None:
            return hit
        self.calls += 1
        path, span = node
        q = self.conn.execute
        out: list[tuple[Node, str, bool, str]] = []
        if span is not None:
            for r in q("SELECT dst_path, dst_span, type, detail FROM edges WHERE src_span = ? AND src_path = ?", (span, path)):
                out.append(((r[0], r[1]), r[2], True, r[3]))
            for r in q("SELECT src_path, src_span, type, detail FROM edges WHERE dst_span = ? AND dst_path = ?", (span, path)):
                out.append(((r[0], r[1]), r[2], False, r[3]))
        if span is None or self.doc_edges:
            for r in q("SELECT dst_path, dst_span, type, detail FROM edges WHERE src_path = ? AND src_span IS NULL", (path,)):
                out.append(((r[0], r[1]), r[2], True, r[3]))
            for r in q("SELECT src_path, src_span, type, detail FROM edges WHERE dst_path = ? AND dst_span IS NULL", (path,)):
                out.append(((r[0], r[1]), r[2], False, r[3]))
        out.sort(key=lambda x: (_key(x[0]), x[1], x[2], x[3]))
        self._cache[node] = out
        return out


def _in_chunks(conn: sqlite3.Connection, sql: str, values: Sequence[Any], size: int = 500) -> list[tuple]:
    """Run ``sql`` (with one ``IN ({})`` placeholder) over ``values`` in chunks."""
    out: list[tuple] = []
    for i in range(0, len(values), size):
        chunk = list(values[i : i + size])
        out.extend(tuple(r) for r in conn.execute(sql.format(",".join("?" * len(chunk))), chunk))
    return out


def _labels(conn: sqlite3.Connection, nodes: Iterable[Node]) -> dict[Node, str]:
    """Short human labels: document id or file name, plus " › section" for spans."""
    nodes = list(nodes)
    paths = sorted({n[0] for n in nodes if not n[0].startswith(extract.WS_PREFIX)})
    keys = {r[0]: r[1] for r in _in_chunks(conn, "SELECT path, doc_key FROM documents WHERE path IN ({})", paths)}
    heads = {
        (r[0], r[1]): json.loads(r[2])
        for r in _in_chunks(conn, "SELECT path, span_id, heading_path FROM spans WHERE span_id IN ({})", sorted({n[1] for n in nodes if n[1]}))
    }
    out: dict[Node, str] = {}
    for path, span in nodes:
        if path.startswith(extract.WS_PREFIX):
            out[(path, span)] = f"workstream {path[len(extract.WS_PREFIX):]}"
            continue
        base = keys.get(path) or posixpath.basename(path)
        hp = heads.get((path, span), []) if span else []
        out[(path, span)] = f"{base} › {hp[-1]}" if len(hp) > 1 else base
    return out


_PHRASES: dict[tuple[str, bool], str] = {
    ("REF", True): "linked from {seed}",
    ("REF", False): "links to {seed}",
    ("CITES", True): "cited by {seed}",
    ("CITES", False): "cites {seed}",
    ("MENTIONS", True): "mentioned in {seed}",
    ("MENTIONS", False): "mentions {seed}",
    ("RELATED", True): "listed as related by {seed}",
    ("RELATED", False): "lists {seed} as related",
    ("LINKS", True): "linked from {seed} (front matter)",
    ("LINKS", False): "links to {seed} (front matter)",
    ("DEPENDS_ON", True): "dependency of {seed}",
    ("DEPENDS_ON", False): "depends on {seed}",
    ("SUPERSEDES", True): "superseded by {seed}",
    ("SUPERSEDES", False): "supersedes {seed}",
    ("SUPERSEDED_BY", True): "supersedes {seed}",
    ("SUPERSEDED_BY", False): "superseded by {seed}",
    ("PARENT", True): "parent of {seed}",
    ("PARENT", False): "child of {seed}",
    ("DEFINES", True): "uses '{detail}' defined in {seed}",
    ("DEFINES", False): "defines '{detail}' used in {seed}",
    ("NEXT", True): "follows {seed}",
    ("PREV", True): "precedes {seed}",
    ("NEXT", False): "precedes {seed}",
    ("PREV", False): "follows {seed}",
    ("PARENT_SECTION", True): "section containing {seed}",
    ("PARENT_SECTION", False): "subsection of {seed}",
    ("CHILD_SECTION", True): "subsection of {seed}",
    ("CHILD_SECTION", False): "section containing {seed}",
    ("IN_WORKSTREAM", True): "workstream of {seed}",
    ("IN_WORKSTREAM", False): "in the workstream of {seed}",
}


def describe(reach: Reach, labels: Mapping[Node, str]) -> str:
    """Human-readable reason for a reached node, e.g. "linked from DES-ING-WORKER › Retry
    behaviour via REF", "supersedes ADR-0003 via SUPERSEDED_BY", or for longer walks
    "reached from X in 2 hops: X —REF→ Y —SUPERSEDES→ Z"."""
    seed = labels.get(reach.origin, reach.origin[0])
    if len(reach.path) == 1:
        step = reach.path[0]
        phrase = _PHRASES.get((step.type, step.forward), "connected to {seed}").format(seed=seed, detail=step.detail)
        return f"{phrase} via {step.type}"
    chain = seed
    for step in reach.path:
        arrow = f"—{step.type}→" if step.forward else f"←{step.type}—"
        chain += f" {arrow} {labels.get(step.dst, step.dst[0])}"
    return f"reached from {seed} in {len(reach.path)} hops: {chain}"


def seeds_from_candidates(cands: Sequence[CandidateSpan], k: int = SEED_COUNT, base: Sequence[float] | None = None) -> dict[int, float]:
    """The top ``k`` candidates by base score as graph seeds: row -> base / best base.
    ``base`` gives the scores in ``cands`` order (``score.base_scores``) instead of
    ``c.base_score``, so the caller need not build scored copies to pick seeds."""
    scores = [c.base_score for c in cands] if base is None else list(base)
    top = sorted(((b, c) for b, c in zip(scores, cands) if c.row >= 0 and b > 0), key=lambda bc: (-bc[0], bc[1].span_ref.span_id))[:k]
    if not top:
        return {}
    best = top[0][0]
    return {c.row: b / best for b, c in top}


def graph_hits(
    reader,
    seed_scores: Mapping[int, float],
    filters: HardFilters,
    top_k: int,
    *,
    depth: int = 1,
    method: str = "hop",
    edge_weights: Mapping[str, float] | None = None,
    node_budget: int = NODE_BUDGET,
    reverse_factor: float = REVERSE_FACTOR,
    doc_fanout: int = DOC_FANOUT,
    alpha: float = 0.15,
    iters: int = 20,
) -> list[GenHit]:
    """The graph channel: neighbours of the seed spans (registry rows -> strength in (0,1]).

    ``method="hop"``: bounded best-first walk of ``depth`` edges (score = seed strength ×
    edge weights); ``"ppr"``: personalised PageRank on the bounded neighbourhood
    (``depth`` defaults to 2 there if 1 is given). A document reached as a whole brings its
    first ``doc_fanout`` spans. Hits obey ``filters`` and carry one reason each (the best
    path). Sorted by (score desc, row asc), at most ``top_k``. Returns [] when the index
    has no edges table (built before the graph existed).
    """
    if method not in ("hop", "ppr"):
        raise ValueError(f"method must be 'hop' or 'ppr', got {method!r}")
    conn = reader.registry.conn
    if not seed_scores or not edges.has_tables(conn):
        return []
    weights = parse_edge_weights(None) if edge_weights is None else dict(edge_weights)
    rows = reader.rows(sorted(seed_scores))
    seeds: dict[Node, float] = {}
    for row, s in seed_scores.items():
        r = rows.get(row)
        if r is not None and s > 0:
            node = (r.meta.filepath, r.ref.span_id)
            seeds[node] = max(seeds.get(node, 0.0), float(s))
    graph = EdgeGraph(conn)

    def same_document(node: Node, origin: Node) -> bool:  # the seed's own document is --expand's business
        return node[0] == origin[0]

    if method == "hop":
        reached = traverse(seeds, graph, depth=depth, node_budget=node_budget, edge_weights=weights,
                           reverse_factor=reverse_factor, same_origin=same_document)
    else:
        reached = personalized_pagerank(seeds, graph, alpha=alpha, iters=iters, depth=max(depth, 2), node_budget=node_budget,
                                        edge_weights=weights, reverse_factor=reverse_factor, same_origin=same_document)
    if not reached:
        return []
    # nodes -> registry rows
    per_row: dict[int, tuple[float, Node]] = {}
    span_nodes = {n for n in reached if n[1] is not None}
    for row, path, span in _in_chunks(conn, "SELECT id, path, span_id FROM spans WHERE span_id IN ({})", sorted({n[1] for n in span_nodes})):
        if (path, span) in span_nodes:
            _keep(per_row, row, reached[(path, span)].score, (path, span))
    doc_nodes = sorted(n[0] for n in reached if n[1] is None and not n[0].startswith(extract.WS_PREFIX))
    fanout = max(doc_fanout, 1)
    per_doc: dict[str, list[tuple[int, int]]] = {}
    for row, path, ordinal in _in_chunks(conn, "SELECT id, path, ordinal FROM spans WHERE path IN ({})", doc_nodes):
        per_doc.setdefault(path, []).append((ordinal, row))
    for path, spans in per_doc.items():
        for i, (_o, row) in enumerate(sorted(spans)[:fanout]):
            _keep(per_row, row, reached[(path, None)].score * (1.0 - 0.1 * i), (path, None))
    ordered = sorted(per_row.items(), key=lambda kv: (-kv[1][0], kv[0]))
    k = top_k if filters.is_empty() else top_k * 8
    ordered = ordered[:k]
    needed = {per_row[row][1] for row, _v in ordered}
    label_nodes = set(needed) | {reached[n].origin for n in needed} | {s.dst for n in needed for s in reached[n].path}
    labels = _labels(conn, label_nodes)
    hits = [GenHit(row, score, (describe(reached[node], labels),)) for row, (score, node) in ordered]
    return filter_hits(reader, hits, filters)[:top_k]


def _keep(per_row: dict[int, tuple[float, Node]], row: int, score: float, node: Node) -> None:
    old = per_row.get(row)
    if old is None or score > old[0] + 1e-12:
        per_row[row] = (score, node)


class GraphGen:
    """Generator protocol wrapper (name "graph", channel "graph").

    With ``seed_scores`` (registry row -> strength) it expands those; without, it seeds from
    the documents whose ids the intent names (``struct_hints.doc_ids``; their first span,
    strength 1.0). The compile pipeline calls :func:`graph_hits` directly after the other
    generators, with :func:`seeds_from_candidates` of the fused candidates.
    """

    name = "graph"
    channel = "graph"

    def __init__(self, seed_scores: Mapping[int, float] | None = None, *, depth: int = 1, method: str = "hop",
                 edge_weights: Mapping[str, float] | None = None, node_budget: int = NODE_BUDGET, doc_fanout: int = DOC_FANOUT):
        self.seed_scores = dict(seed_scores or {})
        self.depth = depth
        self.method = method
        self.edge_weights = edge_weights
        self.node_budget = node_budget
        self.doc_fanout = doc_fanout

    def generate(self, reader, signals: DerivedSignals, filters: HardFilters, top_k: int) -> list[GenHit]:
        seeds = self.seed_scores or seeds_from_signals(reader, signals)
        return graph_hits(reader, seeds, filters, top_k, depth=self.depth, method=self.method,
                          edge_weights=self.edge_weights, node_budget=self.node_budget, doc_fanout=self.doc_fanout)


def seeds_from_signals(reader, signals: DerivedSignals) -> dict[int, float]:
    """First span of each document whose id (or ADR number) the intent names -> 1.0."""
    wanted = {d.lower() for d in signals.struct_hints.doc_ids}
    if not wanted:
        return {}
    conn = reader.registry.conn
    out: dict[int, float] = {}
    for path, key in conn.execute("SELECT path, doc_key FROM documents WHERE doc_key IS NOT NULL"):
        k = key.lower()
        if k in wanted or any(w.startswith(k + "-") for w in wanted):
            r = conn.execute("SELECT id FROM spans WHERE path = ? ORDER BY ordinal LIMIT 1", (path,)).fetchone()
            if r:
                out[r[0]] = 1.0
    return out


# --------------------------------------------------------------------------- expand (seed 003)


@dataclass(frozen=True)
class Expansion:
    row: int  # registry row of the neighbour span
    span_id: str
    relation: str  # "parent section" | "section head" | "previous" | "next"
    token_cost: int
    of_row: int  # the selected span it expands
    of_span_id: str

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row, "span_id": self.span_id, "relation": self.relation, "token_cost": self.token_cost, "of_span_id": self.of_span_id}


def expand(
    reader,
    span_row: int,
    budget_left: int,
    *,
    exclude: Iterable[int] = (),
    max_spans: int = 2,
    order: Sequence[str] = ("parent", "previous", "next"),
) -> list[Expansion]:
    """Context for one selected span (seed 003 ``expand(hit)``): the head span of its
    section or of its enclosing section ("parent"), then the spans just before and after
    it, in ``order`` — each only if it is not in ``exclude`` (already selected) and its
    ``token_cost`` fits what is left of ``budget_left``; at most ``max_spans``. The caller
    charges the returned costs to the budget."""
    conn = reader.registry.conn
    me = conn.execute("SELECT path, ordinal, span_id FROM spans WHERE id = ?", (span_row,)).fetchone()
    if me is None or budget_left <= 0 or max_spans <= 0:
        return []
    path, ordinal, span_id = me[0], me[1], me[2]
    recs = conn.execute("SELECT id, span_id, ordinal, heading_path, heading_level, token_cost FROM spans WHERE path = ? ORDER BY ordinal", (path,)).fetchall()
    infos = [extract.SpanInfo(path, r[1], r[2], tuple(json.loads(r[3])), r[4], "", r[0]) for r in recs]
    pos = next(i for i, s in enumerate(infos) if s.row == span_row)
    candidates: dict[str, tuple[int, str]] = {}
    parent = extract.section_parents(infos).get(pos)
    if parent is not None:
        candidates["parent"] = (parent[0], parent[1])
    if pos > 0:
        candidates["previous"] = (pos - 1, "previous")
    if pos + 1 < len(infos):
        candidates["next"] = (pos + 1, "next")
    skip = set(exclude) | {span_row}
    left = budget_left
    out: list[Expansion] = []
    for name in order:
        if name not in candidates or len(out) >= max_spans:
            continue
        i, relation = candidates[name]
        row, cost = recs[i][0], recs[i][5]
        if row in skip or cost > left:
            continue
        skip.add(row)
        left -= cost
        out.append(Expansion(row, recs[i][1], relation, cost, span_row, span_id))
    return out


__all__ = [
    "DEFAULT_EDGE_WEIGHTS", "REVERSE_FACTOR", "Node", "Step", "Reach", "parse_edge_weights", "traverse",
    "personalized_pagerank", "EdgeGraph", "describe", "seeds_from_candidates", "graph_hits", "GraphGen",
    "seeds_from_signals", "Expansion", "expand",
]
