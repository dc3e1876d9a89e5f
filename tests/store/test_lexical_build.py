"""The Whoosh build (store/lexical.py): its writer spills sorted runs past a small memory
limit and writes plain segment files, and the index holds exactly what one in-memory
compound build holds — the memory settings change nothing a reader sees."""

from __future__ import annotations

import pytest

from oriongraph_cli.store import lexical


def _docs(n: int):
    words = ["retry", "backoff", "queue", "worker", "ledger", "cache", "latency", "budget", "token", "graph"]
    for i in range(n):
        body = " ".join(words[(i * 7 + j * 3) % len(words)] + str(j % 13) for j in range(60))
        yield lexical.LexicalDoc(
            row=i, span_id=f"{i:064x}", path=f"02_knowledge/doc{i // 5}.md", title=f"Doc {i // 5}",
            headings="Design / Retries", body=body, tags=("ops",), stage=None, workstream="ws-a", source_type="knowledge",
        )


@pytest.mark.parametrize("n", [40, 2500])  # 2,500: past the optimise threshold
def test_spilled_plain_segments_hold_what_one_compound_build_holds(tmp_path, monkeypatch, n):
    monkeypatch.setattr(lexical, "WRITER_LIMIT_MB", 1)  # forces sorted runs to disk
    assert lexical.build(tmp_path / "plain", None, [], _docs(n)) == n
    names = {p.suffix for p in (tmp_path / "plain").iterdir()}
    assert ".seg" not in names and ".trm" in names  # plain segment files, no compound one

    monkeypatch.setattr(lexical, "WRITER_LIMIT_MB", 512)
    monkeypatch.setattr(lexical, "COMPOUND_SEGMENTS", True)
    assert lexical.build(tmp_path / "compound", None, [], _docs(n)) == n
    assert ".seg" in {p.suffix for p in (tmp_path / "compound").iterdir()}
    assert lexical.contents_digest(tmp_path / "plain") == lexical.contents_digest(tmp_path / "compound")


def test_an_update_on_a_compound_index_reads_like_a_fresh_build(tmp_path, monkeypatch):
    """An index written before segments were plain (compound files) takes plain segments on
    top and finds what one built afresh with the same documents finds (Whoosh's scores
    keep the deleted documents' lengths until a merge, so they are not compared)."""
    monkeypatch.setattr(lexical, "COMPOUND_SEGMENTS", True)
    lexical.build(tmp_path / "old", None, [], _docs(30))
    monkeypatch.setattr(lexical, "COMPOUND_SEGMENTS", False)
    extra = list(_docs(36))[30:]
    assert lexical.build(tmp_path / "new", tmp_path / "old", ["02_knowledge/doc0.md"], extra) == 31
    fresh = [d for d in _docs(36) if d.path != "02_knowledge/doc0.md"]
    lexical.build(tmp_path / "fresh", None, [], fresh)
    a, b = lexical.LexicalIndex(tmp_path / "new", tmp_path / "none"), lexical.LexicalIndex(tmp_path / "fresh", tmp_path / "none")
    for q in ("retry0 backoff3", "ledger5", "worker1 cache2 graph4"):
        found = sorted((row, terms) for row, _score, terms in a.search_whoosh(q, 50))
        assert found and found == sorted((row, terms) for row, _score, terms in b.search_whoosh(q, 50))
