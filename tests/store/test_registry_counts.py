"""The registry's totals (tokens, spans under a section, documents with a span) are carried
from generation to generation as documents come and go — a one-file re-index does not count
every span again — and a registry that never recorded them (an earlier version's) counts
them once."""

from __future__ import annotations

from pathlib import Path

from oriongraph_cli.index.parse import parse_document
from oriongraph_cli.index.span import split_document
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.tokens import get_counter


def _doc(rel: str, body: str):
    text = f"---\ntitle: {rel}\n---\n\n# {rel}\n\n{body}\n"
    doc, _ = parse_document(rel, text.encode(), text, mtime=0.0)
    return doc, split_document(doc, get_counter("cl100k_base"))


def _summed(reg: Registry) -> int:
    return reg.conn.execute("SELECT coalesce(sum(token_cost), 0) FROM spans").fetchone()[0]


def _counted(reg: Registry) -> dict[str, int]:
    """What ``Registry.totals`` keeps, counted over every span row."""
    return {"tokens": _summed(reg),
            "sections": reg.conn.execute("SELECT count(*) FROM spans WHERE ordinal > 0 AND json_array_length(heading_path) > 0").fetchone()[0],
            "span_documents": reg.conn.execute("SELECT count(DISTINCT doc) FROM spans").fetchone()[0]}


def test_token_total_follows_adds_and_removals_across_copies(tmp_path: Path):
    first = tmp_path / "a.sqlite"
    reg = Registry.create(first)
    for i in range(3):
        body = "\n\n".join(f"## Part {k}\n\n" + "Words about retries. " * (20 * (i + 1)) for k in range(i + 1))
        doc, spans = _doc(f"02_knowledge/n{i}.md", body)
        reg.add_document(doc, spans, ["h"] * len(spans))
    reg.commit()
    assert reg.counts()["tokens"] == _summed(reg) > 0
    assert reg.totals() == _counted(reg) and reg.totals()["sections"] > 0
    reg.close()

    second = tmp_path / "b.sqlite"  # the next generation: a copy, one note changed, one removed
    reg = Registry.create(second, copy_from=first)
    reg.remove_document("02_knowledge/n1.md")
    doc, spans = _doc("02_knowledge/n1.md", "A shorter note now.")
    reg.add_document(doc, spans, ["h"] * len(spans))
    reg.remove_document("02_knowledge/n2.md")
    reg.remove_document("02_knowledge/never-indexed.md")  # nothing to take away
    reg.commit()
    counts = reg.counts()
    assert counts == {"documents": 2, "spans": reg.conn.execute("SELECT count(*) FROM spans").fetchone()[0], "tokens": _summed(reg)}
    assert reg.totals() == _counted(reg)
    reg.close()

    again = Registry.open(second)  # what the next copy starts from is recorded
    assert again.get_info("totals") == _counted(again)
    again.close()


def test_a_registry_without_a_recorded_total_sums_it_once(tmp_path: Path):
    path = tmp_path / "old.sqlite"
    reg = Registry.create(path)
    doc, spans = _doc("02_knowledge/n.md", "Old registry text. " * 40)
    reg.add_document(doc, spans, ["h"] * len(spans))
    reg.conn.commit()  # as an earlier version committed: no total recorded
    reg.conn.execute("DELETE FROM info WHERE key = 'totals'")
    reg.conn.commit()
    reg.close()

    reg = Registry.create(tmp_path / "new.sqlite", copy_from=path)
    assert reg.get_info("totals") is None
    assert reg.counts()["tokens"] == _summed(reg) > 0
    assert reg.totals() == _counted(reg)
    reg.close()
