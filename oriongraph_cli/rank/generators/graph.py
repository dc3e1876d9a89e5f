"""The graph channel: candidates reached over typed edges from the best candidates of the
other channels (or from what the intent names), scored by edge type x seed strength."""

from __future__ import annotations

from typing import Mapping, Sequence

from oriongraph_cli.errors import ConfigError
from oriongraph_cli.graph import edges, extract
from oriongraph_cli.graph.traverse import (
    DEFAULT_EDGE_WEIGHTS,
    DOC_FANOUT,
    NODE_BUDGET,
    REVERSE_FACTOR,
    SEED_COUNT,
    EdgeGraph,
    Node,
    _labels,
    describe,
    parse_edge_weights,
    personalized_pagerank,
    traverse,
)
from oriongraph_cli.models import CandidateSpan, GenHit, HardFilters
from oriongraph_cli.rank.generators.base import GenContext, filter_hits, ranked


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
    path). Sorted by score (equal scores by span id), at most ``top_k``. Returns [] when the index
    has no edges table (built before the graph existed).
    """
    if method not in ("hop", "ppr"):
        raise ValueError(f"method must be 'hop' or 'ppr', got {method!r}")
    registry = reader.registry
    if not seed_scores or not edges.has_tables(registry):
        return []
    weights = parse_edge_weights(None) if edge_weights is None else dict(edge_weights)
    rows = reader.rows(sorted(seed_scores))
    seeds: dict[Node, float] = {}
    for row, s in seed_scores.items():
        r = rows.get(row)
        if r is not None and s > 0:
            node = (r.meta.filepath, r.ref.span_id)
            seeds[node] = max(seeds.get(node, 0.0), float(s))
    graph = EdgeGraph(registry, structural=any(weights.get(t, 0.0) > 0 for t in extract.STRUCTURAL_TYPES))

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
    for row, path, span, _hp in registry.spans_by_span_id(sorted({n[1] for n in span_nodes})):
        if (path, span) in span_nodes:
            _keep(per_row, row, reached[(path, span)].score, (path, span))
    doc_nodes = sorted(n[0] for n in reached if n[1] is None and not n[0].startswith(extract.WS_PREFIX))
    fanout = max(doc_fanout, 1)
    per_doc: dict[str, list[tuple[int, int]]] = {}
    for row, path, ordinal in registry.spans_of_paths(doc_nodes):
        per_doc.setdefault(path, []).append((ordinal, row))
    for path, spans in per_doc.items():
        for i, (_o, row) in enumerate(sorted(spans)[:fanout]):
            _keep(per_row, row, reached[(path, None)].score * (1.0 - 0.1 * i), (path, None))
    k = top_k if filters.is_empty() else top_k * 8
    ordered = ranked(reader, [GenHit(row, score) for row, (score, _node) in per_row.items()], k)
    needed = {per_row[h.row][1] for h in ordered}
    label_nodes = set(needed) | {reached[n].origin for n in needed} | {s.dst for n in needed for s in reached[n].path}
    labels = _labels(registry, label_nodes)
    hits = [GenHit(h.row, h.score, (describe(reached[per_row[h.row][1]], labels),)) for h in ordered]
    return filter_hits(reader, hits, filters)[:top_k]


def _keep(per_row: dict[int, tuple[float, Node]], row: int, score: float, node: Node) -> None:
    old = per_row.get(row)
    if old is None or score > old[0] + 1e-12:
        per_row[row] = (score, node)


class GraphGen:
    """The graph channel as a generator that follows the others: it starts from the best of
    the candidates found so far (``ctx.found`` ranked by ``ctx.base()``), with the
    compile's graph settings. A failure is recorded and never takes the compile down; an
    unknown edge type (or method) is a settings error."""

    name = "graph"
    channel = "graph"
    follows = True
    needs_embedding = False

    def wanted(self, ctx: GenContext) -> bool:
        return bool(ctx.cfg is not None and ctx.cfg.graph and ctx.weights is not None and ctx.weights.graph > 0 and ctx.found)

    def generate(self, ctx: GenContext) -> list[GenHit]:
        cfg = ctx.cfg
        try:
            seeds = seeds_from_candidates(ctx.found, cfg.graph_seeds, base=ctx.base())
            return graph_hits(
                ctx.reader, seeds, ctx.filters, ctx.top_k, depth=cfg.graph_depth,
                method=cfg.graph_method, edge_weights=parse_edge_weights(cfg.graph_edge_weights),
                node_budget=cfg.graph_node_budget,
            )
        except ValueError as exc:  # an unknown edge type in graph_edge_weights
            raise ConfigError(f"graph_edge_weights: {exc}", hint="edge types: " + ", ".join(sorted(DEFAULT_EDGE_WEIGHTS))) from None
