"""Equal scores are ordered by span id, never by registry row: an updated index and a
rebuild of the same files number spans differently, and must rank alike."""

from __future__ import annotations

from oriongraph_cli.config import load_config
from oriongraph_cli.models import CompileRequest, GenHit, ScoreWeights
from oriongraph_cli.rank.generators.base import TIE_DEPTH, ranked, ranked_rows, search_ranked
from oriongraph_cli.rank.score import fuse

from test_score import NOW, cand  # noqa: E402

SCORES = {"s-e": 3.0, "s-c": 2.0, "s-a": 2.0, "s-d": 2.0, "s-b": 1.0}


class _Rows:
    """The one thing ``ranked`` asks of an index: the span id of a row."""

    def __init__(self, rows: dict[int, str]):
        self.names = rows
        self.asked: list[int] = []

    def span_ids(self, rows):
        self.asked.extend(rows)
        return {r: self.names[r] for r in rows if r in self.names}


def _numbered(order: list[str]) -> tuple[_Rows, list[GenHit]]:
    """The spans of SCORES numbered by ``order`` (row i is order[i])."""
    reader = _Rows(dict(enumerate(order)))
    return reader, [GenHit(row, SCORES[sid]) for row, sid in reader.names.items()]


ORDERS = [["s-a", "s-b", "s-c", "s-d", "s-e"], ["s-e", "s-d", "s-c", "s-b", "s-a"], ["s-c", "s-e", "s-a", "s-b", "s-d"]]


def test_a_tie_is_ordered_and_cut_by_span_id_whatever_the_rows():
    for k, want in ((None, ["s-e", "s-a", "s-c", "s-d", "s-b"]), (2, ["s-e", "s-a"]), (3, ["s-e", "s-a", "s-c"])):
        for order in ORDERS:
            reader, hits = _numbered(order)
            got = [reader.names[h.row] for h in ranked(reader, hits, k)]
            assert got == want, (k, order)


def test_ranked_rows_keeps_what_ranked_keeps_in_its_order():
    for k in (1, 2, 3, 4, 5, 9):
        for order in ORDERS:
            reader, hits = _numbered(order)
            assert ranked_rows(reader, {h.row: h.score for h in hits}, k) == [h.row for h in ranked(reader, hits, k)], (k, order)


def test_span_ids_are_asked_only_for_hits_that_share_a_score():
    reader, hits = _numbered(ORDERS[1])
    ranked(reader, hits, 4)
    assert sorted(reader.names[r] for r in reader.asked) == ["s-a", "s-c", "s-d"]
    reader, hits = _numbered(ORDERS[1])
    ranked(reader, [h for h in hits if reader.names[h.row] in ("s-e", "s-b")], 2)
    assert reader.asked == []


def test_a_search_is_deepened_until_the_tie_at_the_cut_is_whole():
    # 40 equal scores after 3 distinct ones: the best 5 must be the 2 tied with the smallest ids
    names = {row: f"id-{(row * 7919) % 1000:03d}" for row in range(43)}
    scores = {row: 10.0 - row if row < 3 else 1.0 for row in names}
    by_row = sorted(names, key=lambda r: (-scores[r], r))  # a search's own order: ties by row
    asked: list[int] = []

    def search(n):
        asked.append(n)
        return [(r, scores[r]) for r in by_row[:n]]

    reader = _Rows(names)
    found = search_ranked(search, 5)
    assert asked[0] == 5 + TIE_DEPTH and asked[-1] >= 43 and len(found) == 43
    got = [names[h.row] for h in ranked(reader, [GenHit(r, s) for r, s in found], 5)]
    tied = sorted(names[r] for r in names if r >= 3)
    assert got == [names[0], names[1], names[2]] + tied[:2]
    # no tie at the cut: one search, k + TIE_DEPTH deep
    asked.clear()
    distinct = {row: float(100 - row) for row in names}
    search_ranked(lambda n: (asked.append(n), [(r, distinct[r]) for r in sorted(names)[:n]])[1], 5)
    assert asked == [5 + TIE_DEPTH]


def test_reciprocal_rank_fusion_ranks_a_tie_by_span_id(tmp_path):
    """The same candidates and hits under two row numberings fuse to the same scores."""
    cfg = load_config(tmp_path)
    request = CompileRequest("x", fusion="rrf")
    weights = ScoreWeights(recency=0.0, stage_boost=0.0, usage=0.0)
    out = []
    for order in ORDERS:
        row = {sid: i for i, sid in enumerate(order)}
        cands = [cand(sid, row=row[sid], semantic=0.5, lexical=SCORES[sid]) for sid in sorted(SCORES)]
        hits = {"lexical": [GenHit(row[sid], SCORES[sid]) for sid in sorted(SCORES, key=row.get)]}
        fused = fuse(cands, hits, weights, request, cfg, NOW)
        out.append([(c.span_ref.span_id, c.base_score, c.reasons) for c in fused])
    assert out[0] == out[1] == out[2]
    base = {sid: b for sid, b, _r in out[0]}
    assert base["s-a"] > base["s-c"] > base["s-d"]  # tied in both channels: ranked by span id
