"""A proposal's header block in code, read as its front matter (``index.preamble``)."""

from __future__ import annotations

import json

import pytest
from conftest import run_orion

from oriongraph_cli.index.parse import parse_document, split_front_matter
from oriongraph_cli.index.preamble import preamble_fields, preamble_range
from oriongraph_cli.index.stated import read_stated

CAP = """## Preamble

```
CAP: 0016
Title: Cosigned assets: NopOp and COSIGN_REQUIRED
Author: David Mazières
Status: Rejected (In favor of CAP-0018)
Created: 2019-01-02
Discussion: https://github.com/stellar/stellar-protocol/issues/1
https://github.com/stellar/stellar-protocol/issues/2
Version 0.2
```

## Simple Summary

Issuers may require their cosignature.
"""


def parse(text: str, rel: str = "02_knowledge/core/cap-0016.md"):
    return parse_document(rel, text.encode(), text, mtime=0.0)


def test_a_header_block_is_read_as_the_notes_front_matter():
    doc, warnings = parse(CAP)
    assert doc.title == "Cosigned assets: NopOp and COSIGN_REQUIRED"
    assert doc.status == "rejected (in favor of cap-0018)"
    assert doc.created_source == "front-matter" and doc.created_at == 1546387200
    assert doc.stated_refs == (("superseded_by", "CAP-0018", 7),)  # the status line names the successor
    # a value going on under its key, or a slipped line at the margin, joins its value
    assert doc.meta["Discussion"] == ("https://github.com/stellar/stellar-protocol/issues/1 "
                                      "https://github.com/stellar/stellar-protocol/issues/2")  # "Version 0.2": a slipped field
    assert doc.meta["created"] == "2019-01-02" and doc.meta["CAP"] == "0016"
    assert warnings == []
    # Bitcoin's Markdown proposals: the block at the top, indented, with no heading before it
    bip = "```\n  BIP: 3\n  Title: Updated BIP Process\n  Status: Deployed\n  Type: Process\n```\n\n## Abstract\n\nText.\n"
    doc, _w = parse(bip, "02_knowledge/bip-0003.md")
    assert (doc.title, doc.status) == ("Updated BIP Process", "deployed")


@pytest.mark.parametrize("text", [
    "Some prose first.\n\n```\nTitle: x\nStatus: Final\nAuthor: y\n```\n",  # prose before it: an example
    "```\nTitle: x\nStatus: Final\n```\n",  # two fields only
    "```\nAuthor: x\nType: y\nCreated: 2020-01-01\n```\n",  # neither a title nor a status
    "```\nTitle: x\nStatus: Final\nTitle: y\nAuthor: z\n```\n",  # a key twice
    "```\n$ run this\nTitle: x\nStatus: Final\nAuthor: z\n```\n",  # it opens with no field
    "```\nTitle: x\nStatus: Final\nAuthor: z\none\ntwo\n```\n",  # more loose lines than a slip
    "---\ntitle: Front\n---\n```\nTitle: x\nStatus: Final\nAuthor: z\n```\n",  # front matter has the fields
    "# Heading\n\n    Title: x\n    Status: Final\n    Author: z\n\nThen prose.\n",  # an indented block counts too
])
def test_what_is_no_header_block(text):
    want_block = text.startswith("# Heading")
    assert (preamble_fields(text, 0) is not None) == want_block or text.startswith("---")
    if text.startswith("---"):
        meta, start, _w = split_front_matter("02_knowledge/x.md", text)
        assert preamble_range(text, start) is None and meta == {"title": "Front"}
        assert parse(text, "02_knowledge/x.md")[0].title == "Front"


def test_the_status_line_in_the_block_names_the_successor_and_other_code_stays_code():
    assert read_stated(CAP).refs == (("superseded_by", "CAP-0018", 7),)
    example = "# Record\n\nThe tool prints:\n\n```\nStatus: Superseded by ADR-0009\n```\n"
    assert not read_stated(example)  # code after prose is an example, not the record's state
    assert preamble_range(CAP, 0, "rst") is None


@pytest.mark.slow
def test_proposals_with_header_blocks_end_to_end(tmp_path):
    """Stellar's proposals as written: the rejected one names its successor in its status,
    is demoted with its reason, and the successor ranks first; the block's title is the
    document's title in every format."""
    core = tmp_path / "02_knowledge" / "core"
    core.mkdir(parents=True)
    for n, title, status, summary in (
        (16, "Cosigned assets: NopOp and COSIGN_REQUIRED", "Rejected (In favor of CAP-0018)",
         "Issuers of an asset require their cosignature on every payment of it."),
        (18, "Fine-Grained Control of Authorization", "Final",
         "Issuers of an asset authorize each payment of it at a finer grain than the trustline."),
        (30, "Remove NoOp behaviour from Allow Trust", "Final", "Allow trust no longer succeeds without effect."),
    ):
        (core / f"cap-{n:04d}.md").write_text(
            f"## Preamble\n\n```\nCAP: {n:04d}\nTitle: {title}\nAuthor: someone\nStatus: {status}\nCreated: 2019-0{n % 9 + 1}-01\n```\n\n"
            f"## Simple Summary\n\n{summary}\n")
    out = run_orion("index", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    out = run_orion("compile", "issuer authorizes each payment of its asset", "--budget", "800", "--json", "--explain", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    docs = payload["documents"]
    assert docs[0]["path"].endswith("cap-0018.md")
    titles = {d["path"].rsplit("/", 1)[-1]: d.get("title") for d in payload["explanation"]["documents"]}
    assert titles["cap-0018.md"] == "Fine-Grained Control of Authorization"
    assert "superseded by" in out.stdout and "(demoted" in out.stdout
