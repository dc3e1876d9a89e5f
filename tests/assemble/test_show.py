"""`orion show`: a document's lines, a whole file by its path, or by its document id."""

from __future__ import annotations

import pytest

from oriongraph_cli.assemble.hydrate import show
from oriongraph_cli.config import load_config
from oriongraph_cli.errors import NotFoundError


def test_a_path_brings_the_whole_file_and_an_empty_one_is_refused(tmp_path):
    (tmp_path / "02_knowledge").mkdir()
    (tmp_path / "02_knowledge" / "note.md").write_text("# Note\n\nFirst.\nSecond.\n")
    (tmp_path / "02_knowledge" / "empty.md").write_text("")
    cfg = load_config(tmp_path)
    whole = show(cfg, " 02_knowledge/note.md ")
    assert whole["kind"] == "lines" and whole["lines"] == "L1-L4" and whole["text"] == "# Note\n\nFirst.\nSecond."
    assert show(cfg, "02_knowledge/note.md:L3-L4")["text"] == "First.\nSecond."  # ranges as before
    with pytest.raises(NotFoundError, match="is empty"):
        show(cfg, "02_knowledge/empty.md")
    with pytest.raises(NotFoundError, match="cannot read 02_knowledge/missing.md"):
        show(cfg, "02_knowledge/missing.md")


def test_a_document_id_brings_its_file_and_an_unknown_or_shared_one_is_one_line(project, fake_embedder):
    """`orion show ADR-0007` (any case): the indexed document whose front matter id it is,
    whole; an id no document has, or one two documents share, is refused by name."""
    from oriongraph_cli.index.indexer import index_project

    adr = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"
    (project / "02_knowledge" / "copy-a.md").write_text("---\ntitle: Copy A\nid: NOTE-9\n---\n# A\n\nOne.\n")
    (project / "02_knowledge" / "copy-b.md").write_text("---\ntitle: Copy B\nid: note-9\n---\n# B\n\nTwo.\n")
    cfg = load_config(project)
    with pytest.raises(NotFoundError, match="neither a project file nor an indexed document's id"):
        show(cfg, "ADR-0007")  # no index yet: no ids
    index_project(cfg)
    got = show(cfg, "adr-0007")
    assert got["path"] == adr and got["lines"] == f"L1-L{len((project / adr).read_text().splitlines())}"
    with pytest.raises(NotFoundError, match="neither a project file nor an indexed document's id"):
        show(cfg, "ADR-9999")
    with pytest.raises(NotFoundError, match="document id NOTE-9 names 2 documents: 02_knowledge/copy-a.md, 02_knowledge/copy-b.md"):
        show(cfg, "NOTE-9")
    with pytest.raises(NotFoundError, match="cannot read 02_knowledge/ADR-0007: no such file"):
        show(cfg, "02_knowledge/ADR-0007")  # a path is never read as an id


def test_a_series_id_a_title_gives_brings_its_file(project, fake_embedder):
    """`orion show MSC2290`: a proposal titled "MSC2290: …" in ``2290-….md`` has no front
    matter id, but the link graph knows it by that one; so does `orion show`. A title whose
    number is not its file's gives none."""
    from oriongraph_cli.index.indexer import index_project

    (project / "02_knowledge" / "msc").mkdir()
    (project / "02_knowledge" / "msc" / "2290-separate-bind.md").write_text("# MSC2290: Separate endpoints\n\nTwo endpoints.\n")
    (project / "02_knowledge" / "msc" / "0017-other.md").write_text("# MSC4 support\n\nText.\n")
    cfg = load_config(project)
    index_project(cfg)
    assert show(cfg, "msc2290")["path"] == "02_knowledge/msc/2290-separate-bind.md"
    from oriongraph_cli import api  # `orion links` takes the same ids, through the same lookup

    assert api.links(cfg, "MSC2290")["target"] == "02_knowledge/msc/2290-separate-bind.md"
    with pytest.raises(NotFoundError, match="neither a project file nor an indexed document's id"):
        show(cfg, "MSC4")
