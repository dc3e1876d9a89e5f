"""`orion show` without an index: a document's lines, or a whole file by its path."""

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
