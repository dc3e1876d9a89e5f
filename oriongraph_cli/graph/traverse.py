"""Walking the graph: bounded best-first traversal and personalised PageRank over the
typed edges, and the words that describe how a node was reached.

Safety is enforced by the operators themselves, not by the callers' neighbour functions:
every walk keeps a visited set (a node is expanded at most once), a depth cap
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
from itertools import islice
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, NamedTuple

from oriongraph_cli.graph import extract
from oriongraph_cli.graph.edges import structural_of

if TYPE_CHECKING:
    from oriongraph_cli.store.registry import Registry

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
    """Neighbours read from the stored edges of a registry (cached).

    A span node's neighbours are its own edges (out and in) plus, when ``doc_edges`` is
    true, the document-level edges of its document (front matter, links to the document as
    a whole, IN_WORKSTREAM): a span inherits what its document is related to. A document
    node has the document-level edges; a ``ws:`` node has its documents. With
    ``structural`` a span also has its structural edges, derived from its document's spans
    (they are not stored; the walk asks for them only when one of their weights is positive).
    """

    def __init__(self, registry: Registry, *, doc_edges: bool = True, structural: bool = False):
        self.registry = registry
        self.doc_edges = doc_edges
        self.structural = structural
        self._cache: dict[Node, list[tuple[Node, str, bool, str]]] = {}
        self._structural: dict[str, list] = {}  # path -> its structural edges, derived once per walk
        self.calls = 0

    def __call__(self, node: Node) -> list[tuple[Node, str, bool, str]]:
        return self.neighbours(node)

    def neighbours(self, node: Node) -> list[tuple[Node, str, bool, str]]:
        hit = self._cache.get(node)
        if hit is not None:
            return hit
        self.calls += 1
        path, span = node
        out = self.registry.graph.neighbour_edges(path, span, doc_edges=self.doc_edges)
        if self.structural and span is not None:
            derived = self._structural.get(path)
            if derived is None:
                derived = self._structural[path] = structural_of(self.registry, path)
            for e in derived:
                if e.src_span == span:
                    out.append(((e.dst_path, e.dst_span), e.type, True, e.detail))
                elif e.dst_span == span:
                    out.append(((e.src_path, e.src_span), e.type, False, e.detail))
        out.sort(key=lambda x: (_key(x[0]), x[1], x[2], x[3]))
        self._cache[node] = out
        return out


def _labels(registry: Registry, nodes: Iterable[Node]) -> dict[Node, str]:
    """Short human labels: document id or file name, plus " › section" for spans."""
    nodes = list(nodes)
    paths = sorted({n[0] for n in nodes if not n[0].startswith(extract.WS_PREFIX)})
    keys = {r[0]: r[1] for r in registry.document_labels(paths)}
    heads = {(r[1], r[2]): json.loads(r[3]) for r in registry.spans_by_span_id(sorted({n[1] for n in nodes if n[1]}))}
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
