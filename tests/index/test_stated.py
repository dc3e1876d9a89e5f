"""A note's status, supersession and date read from its first lines (index.stated), and how
the index, the link graph and the ranking take them when the front matter is silent."""

from __future__ import annotations

import json

import pytest
from conftest import run_orion

from oriongraph_cli.index.parse import parse_document
from oriongraph_cli.index.stated import HEAD_LINES, read_stated, replaced_status, status_word


def _doc(rel: str, text: str):
    return parse_document(rel, text.encode(), text, mtime=0.0)[0]


@pytest.mark.parametrize("text, status, refs", [
    # Nygard / adr-tools: a "Status" section, supersession in it, adr-tools' spelling
    ("# 1. X\n\nDate: 2016-02-12\n\n## Status\n\nAccepted\n\n## Context\n", "accepted", ()),
    ("# 1. X\n\n## Status\n\nSuperceded by [2. Y](0002-y.md)\n", "superseded", (("superseded_by", "0002-y.md", 5),)),
    ("# 2. Y\n\n## Status\n\nAccepted\n\nSupercedes [1. X](0001-x.md)\n\n## Context\n\nReplaced by [z](z.md)\n",
     "accepted", (("supersedes", "0001-x.md", 7),)),
    ("# 21\n\n## Status\n\n⌛️ Superseded by [036. Multi-cluster](036-multi-cluster.md)\n", "superseded",
     (("superseded_by", "036-multi-cluster.md", 5),)),
    ("# 4\n\n## Status\n\n⌛️ Superseded [0019](0019-x.md)\n", "superseded", (("superseded_by", "0019-x.md", 5),)),
    ("# 18\n\n## Status\n\n**rejected**\n", "rejected", ()),
    # a decision undone later, by a discussion outside the records (Home Assistant's)
    ("# 0016. Core\n\nDate: 2020-07-01\n\n## Status\n\nReverted by [discussion #1197](https://github.com/x/y/discussions/1197).\n\n"
     "Home Assistant Core is no longer an officially supported installation method.\n", "reverted", ()),
    ("# 18\n\n## Status\n\n❌ Rejected (see [019](019-shared.md))\n", "rejected", ()),
    ("# X\n\n## Status\n\n✅ Accepted (documenting an existing thing)\n", "accepted", ()),
    ("# X\n\n## Status:\n\n- Proposed\n", "proposed", ()),
    ("Status\n------\n\nAccepted, supersedes ADR-0003\n", "accepted", (("supersedes", "ADR-0003", 4),)),
    ("# X\n\n## **Status**\n\n* Proposed\n", "proposed", ()),
    # MADR, Log4brains, bold keys, a PEP's header, reStructuredText's field
    ("# T\n\n* Status: superseded by [ADR-0005](0005-example.md)\n* Deciders: x\n", "superseded",
     (("superseded_by", "0005-example.md", 3),)),
    ("- Status: accepted\n- Deciders: x\n", "accepted", ()),
    ("**Status:** Draft\n", "draft", ()),
    ("# ADR 007: Logging\n\n**Status:** Accepted | **Date:** 2025-02-25 | **Review:** 2026-02-25\n", "accepted", ()),
    ("**Status**: In progress\n", "in progress", ()),
    ("PEP: 8\nTitle: x\nStatus: Active\n", "active", ()),
    (":Status: Final\n", "final", ()),
    ("## Status: Deprecated\n", "deprecated", ()),
    # a table, as Open Data Hub's records keep it; N/A names nothing
    ("# X\n\n| | |\n|---|---|\n| Status | Approved |\n| Supersedes | N/A |\n| Superseded by: | [ODH-ADR-9](x.md) |\n",
     "approved", (("superseded_by", "x.md", 7),)),
    ("| Status | TBD |\n", "tbd", ()),
    # the IETF's Obsoletes / Obsoleted by, the gRPC proposals' Deprecated by
    ("Title\n----\n* Status: Final\n* Deprecated by: [A88: xDS Data Error Handling](A88-xds.md)\n", "final",
     (("superseded_by", "A88-xds.md", 4),)),
    ("Obsoletes: [RFC 2616](rfc2616.md)\nStatus: Proposed Standard\n", "proposed", (("supersedes", "rfc2616.md", 1),)),
    ("| Status | Draft |\n| Obsoleted-by | [RFC 9110](rfc9110.md) |\n", "draft", (("superseded_by", "rfc9110.md", 2),)),
    ("Status: Obsoleted by [RFC 9110](rfc9110.md)\n", "obsolete", (("superseded_by", "rfc9110.md", 1),)),  # the state word as the IETF writes it
    # a template's braces kept around the one state chosen (gRPC proposals)
    ("Title\n----\n* Author(s): x\n* Status: {In Review}\n", "in review", ()),
    ("* Status: In Review {Draft, In Review, Ready for Implementation, Implemented}\n", "in review", ()),
    # a table whose header row names the column: libp2p's specs; a lone "Status" header too
    ("# mplex\n\n| Lifecycle Stage | Maturity | Status | Latest Revision |\n|---|---|---|---|\n| 3A | Recommendation | Deprecated | r0 |\n",
     "deprecated", ()),
    ("| Status | Date |\n| :--- | ---: |\n| **Accepted** | 2020-01-02 |\n", "accepted", ()),
    # TensorFlow's RFCs: a key-value table without its outer bars, as GitHub renders it; with
    # no-break spaces in its cells; its first row over ":"-continued rows of a long cell
    ("# New tf.print\n\nStatus        | Accepted\n:------------ | :-----\n**Author(s)** | A\n**Updated**   | 2018-08-24\n",
     "accepted", ()),
    ("# X\n\n| Status\xa0\xa0 | Accepted\xa0 |\n:-------- |:------ |\n| **Sponsor**\xa0| K |\n", "accepted", ()),
    ("# X\n\n| Status | Accepted |\n| :--- | :--- |\n| **Author(s)** | Z, J |\n:  : (j@x.com) :\n| **Updated** | 2021 |\n",
     "accepted", ()),
    # ... but no prose line with a bar in it, and no row over a thematic break
    ("# X\n\nStatus | an idea we had\n\nText.\n", None, ()),
    ("# X\n\nStatus | Accepted\n-----\n\nText.\n", None, ()),
    # a template's choices in parentheses: no state
    ("# Title of RFC\n\n| Status | (Proposed / Accepted / Implemented / Obsolete) |\n| :--- | :--- |\n| **RFC #** | NNN |\n", None, ()),
    # NumPy's NEPs: the other records named by Sphinx cross-references
    (":Status: Superseded\n:Replaced-By: :ref:`NEP56`\n", "superseded", (("superseded_by", ":ref:`NEP56`", 2),)),
    (":Status: Final\n:Replaces: :ref:`NEP30`, :ref:`NEP31`\n", "final",
     (("supersedes", ":ref:`NEP30`", 2), ("supersedes", ":ref:`NEP31`", 2))),
    # a record that says it is gone names what took its place in a sentence of its head
    ("NEP 16\n======\n\n:Status: Withdrawn\n\n.. note::\n\n    This NEP has been withdrawn in favor of the protocol based approach\n"
     "    described in :doc:`nep-0022-overview`\n\nAbstract\n--------\n\nText.\n", "withdrawn",
     (("superseded_by", ":doc:`nep-0022-overview`", 8),)),
    ("# 3. X\n\n* Status: superseded\n* Date: 2021-02-01\n\nThis decision was superseded by [ADR-9](0009-y.md). See [z](z.md).\n",
     "superseded", (("superseded_by", "0009-y.md", 6),)),
])
def test_the_forms_records_write(text, status, refs):
    got = read_stated(text, 0, syntax="rst" if ".. note::" in text else "markdown")  # a reStructuredText note read as one
    assert got.status == status
    assert got.refs == refs


def test_only_a_record_that_says_it_is_gone_names_its_successor_in_a_sentence():
    """A record in force that mentions a replacement in prose ("the cron job was replaced by
    [the queue](q.md)") supersedes nothing and is superseded by nothing; the sentence read is
    the first that says so, up to its end."""
    live = "# 4. Queue\n\n* Status: accepted\n\nThe cron job was replaced by [the queue](q.md).\n"
    assert read_stated(live).refs == ()
    gone = "# 2. X\n\n* Status: rejected\n\nRejected in favor of a plain file. The [old notes](n.md) stay.\n"
    assert read_stated(gone).refs == ()  # the link is in the next sentence


@pytest.mark.parametrize("text", [
    "# README\n\n## Status\n\nThis project is in beta and may change without notice.\n",  # a sentence
    "```\nStatus: accepted\n```\n",  # code
    "    Status: accepted\n",  # indented code
    "<!-- Status: accepted -->\n",  # a comment the page does not show
    "| Name | Status |\n| x | y |\n",  # no delimiter row: no table
    "| Stage | Status |\n|---|---|\n",  # a header and no row under it
    "<!--\nStatus: accepted\n-->\n",
    "The status: accepted by everyone in the meeting.\n",  # prose
    "Status: 200 OK\n",  # an HTTP status in an example
    "",
    "\n" * (HEAD_LINES + 5) + "Status: accepted\n",  # beyond the head
    # a template's choices left unfilled: no state, and no supersession from its last choice
    "Title\n----\n* Status: {Draft, In Review, Ready for Implementation, Implemented}\n",
    "* Status: {Rejected, Accepted}\n",
    "# T\n\n* Status: [proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)]\n",
    # an index of records with their states: the note's own state is none of them
    "# CIPs\n\n| # | Title | Status |\n| --- | --- | --- |\n| 0001 | [CIP Process](./CIP-0001/) | Active |\n| 0002 | [Coin](./CIP-0002/) | Proposed |\n",
])
def test_what_is_no_status(text):
    assert read_stated(text).status is None
    assert read_stated(text).refs == ()


def test_a_restructuredtext_section_titled_status():
    text = "=====\nTitle\n=====\n\nStatus\n------\n\nAccepted\n\nBody\n----\n\nStatus: rejected\n"
    assert read_stated(text, 0, syntax="rst").status == "accepted"
    assert read_stated(":Status: Final\n:Created: 2020\n", 0, syntax="rst").status == "final"


def test_status_words():
    assert status_word("Superseded") == "superseded"
    assert status_word("superceded by x") == "superseded"
    assert status_word("`accepted`") == "accepted"
    assert status_word("Implemented") == "implemented"
    assert status_word("Refinement completed. TP in 3.4") is None
    assert status_word("🤔") is None


def test_hostile_heads_are_read_in_bounded_time():
    huge = "Status: " + "a" * 2_000_000  # one line of two million characters
    assert read_stated(huge).status is None
    many = "| Status |" * 100_000
    read_stated(many)
    nested = "## Status\n\n" + "[" * 50_000 + "accepted" + "](x)" * 10
    read_stated(nested)
    assert read_stated("Status: Accepted\r\n").status == "accepted"
    comments = "Status: " + "<!-- x -->" * 200_000 + " accepted\n"  # one line of 200,000 comments: blanked in one pass
    assert read_stated(comments).status == "accepted"  # as the page shows it
    assert read_stated("<!-- a -->" * 50_000 + "\nStatus: accepted\n").status == "accepted"
    # the sentences naming a successor or sending the reader elsewhere: each read once, in the
    # head's first characters (a regex looking ahead from every "use" was quadratic here)
    read_stated("# X\n\n" + "see [" * 400_000 + "\n")
    read_stated("# X\n\n" + "please refer to [x](" * 100_000 + "\n")
    assert read_stated("# X\n\nStatus: deprecated\n\n" + "use " * 500_000 + "\n").refs == ()
    assert read_stated("# X\n\nThis is outdated, " + "see [x](y.md) instead, " * 100_000 + "\n").status == "superseded"
    assert read_stated("# X\n\nStatus: deprecated\n\nUsers should prefer " + "A or " * 400_000 + "\n").refs[0][1] == "A"


def test_the_front_matter_wins_and_the_text_fills_what_it_lacks():
    text = "---\nstatus: proposed\nsuperseded_by: [ADR-0009]\n---\n# X\n\nDate: 2020-01-02\n\n## Status\n\nSuperseded by [Y](y.md)\n"
    doc = _doc("03_workstreams/w/adr/x.md", text)
    assert doc.status == "proposed"
    assert doc.stated_refs == ()  # the front matter names the successor
    assert doc.created_source == "mtime"  # a record's "Date:" is when it was decided, not its age
    doc = _doc("03_workstreams/w/adr/x.md", "---\nstatus: proposed\n---\n## Status\n\nSuperseded by [Y](y.md)\n")
    assert doc.status == "proposed" and doc.stated_refs == (("superseded_by", "y.md", 6),)
    doc = _doc("03_workstreams/w/adr/x.md", "---\nSuperseded-By: ADR-0009\n---\n## Status\n\nSuperseded by [Y](y.md)\n")
    assert doc.status == "superseded" and doc.stated_refs == ()
    doc = _doc("03_workstreams/w/adr/x.md", "# X\n\n## Status\n\nSuperseded by [Y](y.md)\n")
    assert doc.status == "superseded" and doc.stated_refs == (("superseded_by", "y.md", 5),)
    doc = _doc("02_knowledge/n.md", "# Note\n\nNothing stated here.\n")
    assert doc.status is None and doc.stated_refs == ()


def test_front_matter_keys_in_another_case_and_a_status_naming_its_successor():
    """Cardano's proposals write ``Title:``, ``Status:``, ``Created:``: read as orion's keys
    where the note does not also write them in lower case (other keys stay as written). Their
    ``Status: Inactive (superseded by CIP-0121 and CIP-0122)`` is a state no longer in force
    naming its successors, at the field's line; a front matter ``superseded-by`` wins."""
    head = ("---\nCIP: 58\nTitle: Plutus Big Integers\nCategory: Plutus\n"
            "Status: Inactive (superseded by CIP-0121 and CIP-0122)\nCreated: 2022-03-25\nLanguage: fr\n---\n")
    doc = _doc("02_knowledge/cips/CIP-0058/README.md", head + "## Abstract\n\nText.\n")
    assert doc.title == "Plutus Big Integers" and doc.created_source == "front-matter" and doc.language == "fr"
    assert doc.status.startswith("inactive") and status_word(doc.status) == "inactive"
    assert doc.stated_refs == (("superseded_by", "CIP-0121", 5), ("superseded_by", "CIP-0122", 5))
    assert doc.meta["Category"] == "Plutus" and "CIP" in doc.meta  # keys orion does not read: as written
    toml = _doc("02_knowledge/x.md", "+++\nTitle = \"Hugo page\"\nStatus = \"Draft\"\n+++\nText.\n")
    assert toml.title == "Hugo page" and toml.status == "draft"  # TOML front matter alike
    both = _doc("02_knowledge/x.md", "---\ntitle: lower\nTitle: Upper\n---\nText.\n")
    assert both.title == "lower" and both.meta["Title"] == "Upper"
    assert _doc("02_knowledge/x.md", head.replace("Created", "superseded-by: CIP-0999\nCreated") + "Text.\n").stated_refs == ()
    accepted = _doc("02_knowledge/adr/x.md", "---\nStatus: Accepted, supersedes ADR-0003\n---\nText.\n")
    assert accepted.status.startswith("accepted") and accepted.stated_refs == (("supersedes", "ADR-0003", 2),)


def test_a_reason_in_the_front_matter_names_the_successor():
    """EIPs give a withdrawn proposal's reason in its front matter; one naming the proposal
    that took its place states the supersession ("Superseded by EIP-8141", "Replaced by
    EIP-3860.", "Withdrawn in favor of [EIP-2681](./eip-2681.md)"), at the field's line. A
    reason naming no successor states none, nor does a preference read without the record's
    state (a withdrawn one's: the next test); a front matter
    ``superseded-by`` wins, as it wins over the text."""
    from oriongraph_cli.index.stated import reason_successors

    assert reason_successors("Superseded by EIP-8141") == ["EIP-8141"]
    assert reason_successors("Replaced by EIP-3860.") == ["EIP-3860"]
    assert reason_successors("Withdrawn in favor of [EIP-2681](./eip-2681.md)") == ["./eip-2681.md"]
    assert reason_successors("Withdrawn in favour of ADR-0012") == ["ADR-0012"]
    for none in ("This proposal has been superseded by the EOF proposals.", "The authors prefer [EIP-2200](./eip-2200.md)",
                 "Very out of date; needs rewrite.", "Niche use-case, better implemented with EIP-7702."):
        assert reason_successors(none) == []
    head = "---\neip: 7701\ntitle: Native AA\nstatus: Withdrawn\nwithdrawal-reason: Superseded by EIP-8141\nrequires: 7692\n---\n"
    doc = _doc("02_knowledge/eips/eip-7701.md", head + "## Abstract\n\nText.\n")
    assert doc.status == "withdrawn" and doc.stated_refs == (("superseded_by", "EIP-8141", 5),)
    doc = _doc("02_knowledge/eips/eip-7701.md", head.replace("requires", "superseded-by: EIP-9999\nrequires") + "Text.\n")
    assert doc.stated_refs == ()  # the field names it
    doc = _doc("02_knowledge/eips/eip-1.md", "---\nstatus: Living\nreason: Superseded by a rewrite\n---\nText.\n")
    assert doc.stated_refs == ()


def test_a_reason_for_a_state_not_in_force_names_what_its_authors_prefer():
    """A withdrawn EIP's reason may name what its authors prefer or where its text went
    ("The authors prefer [EIP-2200](./eip-2200.md)", "material moved to EIP-2315"): for a
    record no longer in force that is what a reader should read instead. The same words in a
    reason of a record in force name nothing."""
    from oriongraph_cli.index.stated import reason_successors

    assert reason_successors("The authors prefer [EIP-2200](./eip-2200.md)", gone=True) == ["./eip-2200.md"]
    assert reason_successors("The author prefers EIP-7702", gone=True) == ["EIP-7702"]
    assert reason_successors("material moved to EIP-2315", gone=True) == ["EIP-2315"]
    assert reason_successors("Niche use-case, better implemented with EIP-7702.", gone=True) == ["EIP-7702"]
    for none in ("Very out of date; needs rewrite.", "Lack of use and conflicts with some client developers",
                 "I have decided to pursue EIP-3074 as the preferred solution to transaction packages."):
        assert reason_successors(none, gone=True) == []
    head = ("---\neip: 1706\ntitle: Disable SSTORE with gasleft lower than call stipend\nstatus: Withdrawn\n"
            "withdrawal-reason: The authors prefer [EIP-2200](./eip-2200.md)\ntype: Standards Track\n---\n")
    doc = _doc("02_knowledge/eips/eip-1706.md", head + "## Simple Summary\n\nText.\n")
    assert doc.status == "withdrawn" and doc.stated_refs == (("superseded_by", "./eip-2200.md", 5),)
    doc = _doc("02_knowledge/adr/0007.md", "---\nstatus: Accepted\nreason: The team prefers [Postgres](0003.md)\n---\nText.\n")
    assert doc.status == "accepted" and doc.stated_refs == ()


def _adrs(root):
    adr = root / "03_workstreams" / "platform" / "adr"
    adr.mkdir(parents=True)
    (adr / "0001-use-postgres-for-queue.md").write_text(
        "# 1. Use Postgres as the job queue\n\nDate: 2021-02-01\n\n## Status\n\n"
        "Superceded by [2. Use SQS for the job queue](0002-use-sqs-for-job-queue.md)\n\n"
        "## Context\n\nJobs are queued in a Postgres table polled by the workers.\n\n"
        "## Decision\n\nUse a Postgres table with SKIP LOCKED as the job queue for background jobs.\n")
    (adr / "0002-use-sqs-for-job-queue.md").write_text(
        "# 2. Use SQS for the job queue\n\nDate: 2024-05-01\n\n## Status\n\nAccepted\n\n"
        "Supercedes [1. Use Postgres as the job queue](0001-use-postgres-for-queue.md)\n\n"
        "## Context\n\nThe job queue in Postgres could not keep up with retries.\n\n"
        "## Decision\n\nUse Amazon SQS as the job queue for background jobs, with a dead letter queue.\n")
    return adr


def _indexed_and_explained(root, intent: str, budget: int) -> tuple[list[dict], str]:
    """``root`` indexed, then compiled for ``intent`` with ``--explain``: the delivered
    documents (JSON) and every reason of the rationale, joined."""
    assert run_orion("index", cwd=root).returncode == 0
    out = run_orion("compile", intent, "--budget", str(budget), "--json", "--explain", cwd=root)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    return data["documents"], " ".join(r for e in data["explanation"]["rationale"] for r in e["reasons"])


@pytest.mark.slow
def test_decision_records_without_front_matter_end_to_end(tmp_path):
    """adr-tools' records as written: the replaced one is demoted with its reason, its
    successor ranks first, the status reaches every format and ``--where``."""
    _adrs(tmp_path)
    docs, reasons = _indexed_and_explained(tmp_path, "which job queue do background jobs use", 800)
    assert docs[0]["path"].endswith("0002-use-sqs-for-job-queue.md")
    status = {d["path"].rsplit("/", 1)[-1]: d.get("status") for d in docs}
    assert status["0002-use-sqs-for-job-queue.md"] == "accepted"
    assert status["0001-use-postgres-for-queue.md"] == "superseded by 0002-use-sqs-for-job-queue.md"
    assert "0001-use-postgres-for-queue.md superseded by 0002-use-sqs-for-job-queue.md (demoted" in reasons
    out = run_orion("compile", "job queue", "--where", "status=accepted", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert {d["path"].rsplit("/", 1)[-1] for d in json.loads(out.stdout)["documents"]} == {"0002-use-sqs-for-job-queue.md"}


@pytest.mark.slow
def test_capitalised_front_matter_end_to_end(tmp_path):
    """Cardano's proposals as written: the inactive one names its successor in its
    ``Status:``, is demoted with its reason, and the successor ranks first; titles and
    statuses reach the output; ``--where`` matches a key whatever its case."""
    for n, title, status, category in ((58, "Plutus Big Integers", "Inactive (superseded by CIP-0121)", "Plutus"),
                                       (121, "Integer-ByteString conversions in Plutus", "Active", "Plutus"),
                                       (30, "Cardano dApp-Wallet Web Bridge", "Active", "Wallets")):
        folder = tmp_path / "02_knowledge" / "cips" / f"CIP-{n:04d}"
        folder.mkdir(parents=True)
        (folder / "README.md").write_text(
            f"---\nCIP: {n}\nTitle: {title}\nCategory: {category}\nStatus: {status}\nCreated: 2022-0{n % 9 + 1}-01\n---\n\n"
            f"## Abstract\n\n{title}: how Plutus scripts convert integers to bytestrings and back, big integers included.\n")
    docs, reasons = _indexed_and_explained(tmp_path, "convert integers to bytestrings in Plutus", 800)
    assert docs[0]["path"].endswith("CIP-0121/README.md")
    assert {d["path"].rsplit("/", 2)[-2]: d.get("status") for d in docs}["CIP-0058"].startswith("inactive")
    assert "superseded by" in reasons and "(demoted" in reasons
    out = run_orion("compile", "wallet bridge", "--where", "category=wallets", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert {d["path"] for d in json.loads(out.stdout)["documents"]} == {"02_knowledge/cips/CIP-0030/README.md"}


def test_a_folder_named_for_a_state_gives_it_and_a_gone_record_names_its_successor_in_a_sentence():
    """C#'s language design keeps turned-down proposals in ``proposals/rejected/`` ("Closed in
    favor of [immediately enumerated collection expressions](../x.md)."), .NET's designs in
    ``accepted/<year>/``; a record's own state (front matter, then its text) wins over its
    folder's. A front matter state that says the record is gone lets its head's sentence
    name the successor too (PEP 9: withdrawn, "superseded by :pep:`12`")."""
    from oriongraph_cli.index.parse import folder_status

    assert folder_status("02_knowledge/cs/proposals/rejected/x.md") == "rejected"
    assert folder_status("02_knowledge/designs/accepted/2020/single-file/x.md") == "accepted"
    assert folder_status("02_knowledge/bp/drafts/toc.md") == "draft"
    assert folder_status("02_knowledge/cs/proposals/x.md") is None
    assert folder_status("rejected/x.md") is None  # the stage folder itself names nothing
    # a folder kept for history: the Kubernetes community's archive/ of retired groups, Helm's
    # hips/archives/ of proposals written before its current process
    assert folder_status("02_knowledge/k8scomm/archive/wg-security-audit/README.md") == "archived"
    assert folder_status("02_knowledge/helm/community/hips/archives/helm/hip-x.md") == "archived"
    assert folder_status("02_knowledge/k8scomm/sig-node/archive/x.md") == "archived"
    assert folder_status("02_knowledge/docs/archiving/x.md") is None
    # Crossplane keeps its retired designs in design/defunct/, each "* Status: Defunct"
    assert folder_status("02_knowledge/crossplane/defunct/one-pager-release-process.md") == "defunct"
    assert read_stated("# Packages\n\n* Owner: Someone\n* Status: Defunct\n\n## Background\n").status == "defunct"
    from oriongraph_cli.rank.lifecycle import INACTIVE_STATUSES, _is_demoted_status

    doc = _doc("02_knowledge/k8scomm/archive/wg-apply/README.md",
               "# Apply Working Group\n\nSuperseded by [wg-api-expression](/wg-api-expression/README.md).\n\nText.\n")
    assert doc.status == "archived" and _is_demoted_status(doc.status, INACTIVE_STATUSES)
    assert doc.stated_refs == (("superseded_by", "/wg-api-expression/README.md", 3),)
    assert _doc("02_knowledge/k8scomm/archive/x.md", "---\nstatus: active\n---\n# X\n").status == "active"
    text = "# Collection expressions in foreach\n\nClosed in favor of [immediately enumerated ones](../immediately.md).\n"
    doc = _doc("02_knowledge/cs/proposals/rejected/foreach.md", text)
    assert doc.status == "rejected" and doc.stated_refs == (("superseded_by", "../immediately.md", 3),)
    doc = _doc("02_knowledge/cs/proposals/rejected/foreach.md", "# X\n\n* Status: accepted\n\nClosed in favor of [y](y.md).\n")
    assert doc.status == "accepted" and doc.stated_refs == ()  # its own state wins: nothing read from the sentence
    doc = _doc("01_context/pep-0009.md", "---\nstatus: Withdrawn\n---\n# PEP 9\n\nThis PEP has been superseded by [PEP 12](pep-0012.md).\n")
    assert doc.status == "withdrawn" and doc.stated_refs == (("superseded_by", "pep-0012.md", 6),)
    doc = _doc("01_context/pep-0010.md", "---\nstatus: Final\n---\n# PEP 10\n\nIt replaced by [PEP 2](pep-0002.md) nothing.\n")
    assert doc.stated_refs == ()  # in force: no sentence is read


def _tree(root, folder, files):
    """Notes written under ``02_knowledge/<folder>/``, name -> text."""
    where = root / "02_knowledge" / folder
    where.mkdir(parents=True)
    for name, text in files.items():
        (where / name).write_text(text)


def _neps(root):
    _tree(root, "neps", {
        "nep-0031-uarray.rst": (
            ".. _NEP31:\n\n======================================\nNEP 31 — Overrides of the NumPy API\n"
            "======================================\n\n:Author: A. Author\n:Status: Superseded\n:Replaced-By: :ref:`NEP56`\n"
            ":Created: 2019-08-22\n\nAbstract\n--------\n\nThis NEP proposes to make all of NumPy's public API overridable "
            "with a set_backend context manager and uarray multimethods.\n"),
        "nep-0056-array-api-main-namespace.rst": (
            ".. _NEP56:\n\n============================================\nNEP 56 — Array API standard support\n"
            "============================================\n\n:Status: Final\n:Replaces: :ref:`NEP30`, :ref:`NEP31`\n"
            ":Created: 2023-12-19\n\nAbstract\n--------\n\nNumPy's main namespace supports the array API standard: "
            "libraries write code once with __array_namespace__ instead of overriding NumPy's API.\n"),
        "nep-0016-abstract-array.rst": (
            ".. _NEP16:\n\n=====================================\nNEP 16 — An abstract base class for duck arrays\n"
            "=====================================\n\n:Status: Withdrawn\n\n.. note::\n\n    This NEP has been withdrawn in favor of "
            "the protocol based approach\n    described in :doc:`nep-0022-duck-typing`\n\nAbstract\n--------\n\n"
            "We propose an AbstractArray base class for duck arrays.\n"),
        "nep-0022-duck-typing.rst": (
            "==========================\nNEP 22 — Duck typing for arrays\n==========================\n\n:Status: Final\n\n"
            "Abstract\n--------\n\nDuck arrays implement protocols such as __array_function__ rather than an abstract base class.\n"),
    })


@pytest.mark.slow
def test_numpy_style_records_name_their_successors_by_cross_references_end_to_end(tmp_path):
    """NumPy's NEPs as written (reStructuredText): ``:Replaced-By: :ref:`NEP56``` and a
    withdrawal note naming ``:doc:`nep-0022-…``` are supersession edges; the replaced NEP is
    demoted with its reason and its successor ranks first."""
    _neps(tmp_path)
    assert run_orion("index", cwd=tmp_path).returncode == 0
    links = run_orion("links", "02_knowledge/neps/nep-0031-uarray.rst", cwd=tmp_path)
    assert "SUPERSEDED_BY\t02_knowledge/neps/nep-0056-array-api-main-namespace.rst" in links.stdout, links.stdout
    links = run_orion("links", "02_knowledge/neps/nep-0016-abstract-array.rst", cwd=tmp_path)
    assert "SUPERSEDED_BY\t02_knowledge/neps/nep-0022-duck-typing.rst" in links.stdout, links.stdout
    for intent, first in (("override NumPy's API with set_backend and uarray multimethods", "nep-0056-array-api-main-namespace.rst"),
                          ("an abstract base class to identify duck arrays", "nep-0022-duck-typing.rst")):
        out = run_orion("compile", intent, "--budget", "800", "--json", "--explain", cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["documents"][0]["path"].endswith(first), [d["path"] for d in data["documents"]]
        reasons = " ".join(r for e in data["explanation"]["rationale"] for r in e["reasons"])
        assert "superseded by" in reasons


def _nips(root):
    _tree(root, "nips", {
        "04.md": (
            "> __Warning__  `unrecommended`: deprecated in favor of [NIP-17](17.md)\n\nNIP-04\n======\n\nEncrypted Direct Message\n"
            "------------------------\n\n`final` `optional`\n\nA special event with kind `4` means an encrypted direct message. The "
            "content is base64-encoded, aes-256-cbc encrypted with a shared secret from ECDH of the sender's and receiver's keys.\n"),
        "17.md": (
            "NIP-17\n======\n\nPrivate Direct Messages\n-----------------------\n\n`draft` `optional`\n\nThis NIP defines an "
            "encrypted chat scheme: messages are sealed and gift-wrapped so relays do not learn who talks to whom.\n"),
        "12.md": (
            "NIP-12\n======\n\nGeneric Tag Queries\n-------------------\n\n`final` `mandatory`\n\nMoved to [NIP-01](01.md).\n"),
        "01.md": (
            "NIP-01\n======\n\nBasic protocol flow description\n-------------------------------\n\n`draft` `mandatory`\n\n"
            "Filters select events by ids, authors, kinds and generic tag queries: any single-letter tag as `#e` or `#p`.\n"),
    })


@pytest.mark.slow
def test_nostr_style_records_name_their_successors_end_to_end(tmp_path):
    """Nostr's NIPs as written: a warning labelled `unrecommended` above an id title names the
    successor "in favor of"; a stub "Moved to [NIP-01](01.md)" under its id title and subtitle
    is superseded by NIP-01. The titles carry their subtitles, and the replaced records are
    demoted below their successors with the reason."""
    _nips(tmp_path)
    assert run_orion("index", cwd=tmp_path).returncode == 0
    for path, succ in (("04.md", "17.md"), ("12.md", "01.md")):
        links = run_orion("links", f"02_knowledge/nips/{path}", cwd=tmp_path)
        assert f"SUPERSEDED_BY\t02_knowledge/nips/{succ}" in links.stdout, links.stdout
    for intent, first, reason, title in (
            ("send an encrypted direct message to another user", "17.md", "04.md superseded by 17.md (demoted",
             "NIP-04: Encrypted Direct Message"),
            ("query events by a single-letter generic tag", "01.md", "12.md superseded by 01.md (demoted", "NIP-12: Generic Tag Queries")):
        out = run_orion("compile", intent, "--budget", "800", "--json", "--explain", cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        data = json.loads(out.stdout)
        assert data["documents"][0]["path"].endswith(first), [d["path"] for d in data["documents"]]
        hits = json.loads(run_orion("search", intent, "--json", cwd=tmp_path).stdout)["hits"]
        assert title in {h["title"] for h in hits}, [h["title"] for h in hits]
        reasons = " ".join(r for e in data["explanation"]["rationale"] for r in e["reasons"])
        assert reason in reasons, reasons


@pytest.mark.parametrize("text, status, refs", [
    # tldr pages: the notice is the page's description, a quote under its title
    ("# pnmscale\n\n> This command has been superseded by `pamscale`.\n> More information: <https://x.org>.\n\n- Scale:\n\n`pnmscale 2 in.pnm`\n",
     "superseded", (("superseded_by", "pamscale", 3),)),  # the successor by its name
    ("# gksu\n\n> Note: This command is deprecated in favor of commands like `pkexec`.\n", "deprecated", ()),
    ("# mvn idea\n\n> Note: This plugin is retired. It is no longer maintained.\n", "retired", ()),
    # a GitHub alert under the title, the successor linked in the same sentence (Ember's RFCs)
    ("# Tracked Storage Primitives\n\n> [!IMPORTANT]\n> This RFC has been discontinued, because of x, and this RFC (in use "
     "case) has been replaced with [RFC#1071](1071-tracked.md)\n\n## Summary\n", "discontinued", (("superseded_by", "1071-tracked.md", 4),)),
    ("# X\n\n**Note:** this tool has been deprecated. Use [y](y.md) instead.\n", "deprecated", (("superseded_by", "y.md", 3),)),
    ("Intro sentence. This document is now obsolete.\n\n# Body\n", "obsolete", ()),  # before the first heading
    # WezTerm's reference pages: "considered to be", a paragraph opening with "Deprecated", a
    # record that has moved to a linked place; "should migrate to" over a line break
    ("# `Copy`\n\nCopy the selection.\n\nThis action is considered to be deprecated and will be removed in\n"
     "a future release; please use [CopyTo](CopyTo.md) instead.\n", "deprecated", (("superseded_by", "CopyTo.md", 6),)),
    ("# `font_antialias`\n\n*Deprecated starting in version 2021; this option no longer does anything. "
     "Use [freetype_load_target](freetype_load_target.md) instead*\n\nAdjusts it.\n", "deprecated",
     (("superseded_by", "freetype_load_target.md", 3),)),
    ("# `pane:mux_pane()`\n\n*Deprecated Since: 20221119*\n\nReturns it.\n", "deprecated", ()),
    ("# `update-right-status`\n\nText.\n\nThis event is considered to be deprecated and you should migrate\n"
     "to using [update-status](update-status.md), which behaves the same.\n", "deprecated", (("superseded_by", "update-status.md", 5),)),
    ("# `gradient_colors`\n\nText.\n\nThis function has moved to\n[wezterm.color.gradient](../color/gradient.md) and that "
     "name should be used.\n", "superseded", (("superseded_by", "../color/gradient.md", 5),)),
    ("# KubeAPIDown\n\nThis alert has been moved to [KubeAPIDown.md](../api/KubeAPIDown.md).\n", "superseded",
     (("superseded_by", "../api/KubeAPIDown.md", 3),)),
    # "this" and up to three words naming the record (OpenShift's runbooks); its successor named
    # in a link whose text runs over a line break
    ("# SSPOperatorDown [Deprecated]\n\nThis alert runbook has been deprecated; since it is a duplicate of the SSPDown\n"
     "alert runbook.\n\n**Note:** this runbook will no longer be supported. For a supported runbook, please see [SSPDown\n"
     "Runbook](SSPDown.md).\n", "deprecated", (("superseded_by", "SSPDown.md", 6),)),
    # a notice sending its reader elsewhere for good: libp2p's old gossipsub page
    ("# gossipsub v1.0 (OLD)\n\n> `DISCLAIMER:` This is the original specification, please refer to "
     "[gossipsub-v1.0](gossipsub-v1.0.md) from now on\n\n## Overview\n", "superseded", (("superseded_by", "gossipsub-v1.0.md", 3),)),
    ("# X\n\nThis page is outdated, see [the new guide](guide.md) instead.\n\n## A\n", "superseded", (("superseded_by", "guide.md", 3),)),
    # the notice is the heading that ends the lead, "made obsolete by" naming the successor by
    # its series id (the Matrix spec proposals); "rendered obsolete by" a link
    ("# Allowing 3PID Owners to Rebind\n\n## Note: This MSC has been made obsolete by MSC2290.\n\nMSC2290 provides two "
     "endpoints.\n", "obsolete", (("superseded_by", "MSC2290", 3),)),
    ("# X\n\nThis RFC was rendered obsolete by [RFC 9](0009-x.md).\n\n## Body\n", "obsolete", (("superseded_by", "0009-x.md", 3),)),
    # the page's subject named in code, as its title names it (OpenTofu's command pages), and
    # its successor named before "should be used instead"
    ("# Command: env\n\nThe `tofu env` command is deprecated.\n[The `tofu workspace` command](workspace/index.mdx)\n"
     "should be used instead.\n", "deprecated", (("superseded_by", "workspace/index.mdx", 5),)),
    # Nostr's NIPs: a state's word as the label of a warning above the title, the successor
    # "in favor of" a link or to "try … instead"; a subject-less "Moved to [x](…)" under an id
    # title and its subtitle (the lead runs past the subtitle)
    ("> __Warning__  `unrecommended`: deprecated in favor of [NIP-17](17.md)\n\nNIP-04\n======\n\nEncrypted Direct Message\n"
     "------------------------\n\n`final` `optional`\n\nText.\n", "unrecommended", (("superseded_by", "17.md", 1),)),
    ("> __Warning__  `unrecommended`: too complicated, try [99](99.md) instead\n\nNIP-15\n======\n", "unrecommended",
     (("superseded_by", "99.md", 1),)),
    ("NIP-12\n======\n\nGeneric Tag Queries\n-------------------\n\n`final` `mandatory`\n\nMoved to [NIP-01](01.md).\n",
     "superseded", (("superseded_by", "01.md", 9),)),
    ('NIP-33\n======\n\nParameterized Replaceable Events\n---\n\nRenamed to "Addressable events" and moved to [NIP-01](01.md).\n',
     "superseded", (("superseded_by", "01.md", 7),)),
    ("Moved to [2071-impl-trait-existential-types.md](2071-impl-trait-existential-types.md).\n", "superseded",
     (("superseded_by", "2071-impl-trait-existential-types.md", 1),)),  # a stub left where a file was (Rust's RFCs)
    ("# X\n\n> [!WARNING]\n> **Obsolete:** see [the new guide](guide.md) instead.\n", "obsolete", (("superseded_by", "guide.md", 4),)),
    ("# `old_call`\n\n**Deprecated**: `old_call` is kept for a year; use [new_call](new_call.md) instead.\n", "deprecated",
     (("superseded_by", "new_call.md", 3),)),  # the label over the thing the title names
    # ESLint's removed rules: "This rule was removed …" in a container, the successor "replaced
    # by" a link; the page's subject in code without "The" (tldr pages, Cosmos's modules)
    ("# global-strict\n\n::: important\nThis rule was removed in ESLint v1.0.0 and replaced by the [strict](strict) rule.\n:::\n",
     "removed", (("superseded_by", "strict", 4),)),
    ("# drupal\n\n> Generate code.\n> `drupal` has been deprecated. Use `drush` instead.\n", "deprecated",
     (("superseded_by", "drush", 4),)),
])
def test_a_notice_in_the_lead_says_the_record_is_gone(text, status, refs):
    got = read_stated(text)
    assert (got.status, got.refs, got.notice) == (status, refs, True)

def test_a_declined_or_retired_record_names_where_it_went():
    """Every state not in force lets the head's first sentence name the successor: a Gateway
    API proposal "Declined" says "This GEP has been merged back into [GEP-713](/geps/gep-713/)"
    ("merged into" a link is a successor's cue, as "moved to" is); a tldr page "retired" says
    "it is recommended to use Databricks Asset Bundles instead". A proposal in force merged
    into nothing names nothing."""
    gep = ("---\ntitle: \"GEP-2648: Direct Policy Attachment\"\n---\n\n* Issue: [#2648](https://x/issues/2648)\n"
           "* Status: Declined\n\n## TLDR\n\n{{% alert color=\"warning\" %}}\n\nThis GEP has been merged back into "
           "[GEP-713](/geps/gep-713/)\nand now it's now obsolete.\n")
    doc = _doc("02_knowledge/geps/gep-2648/index.md", gep)
    assert doc.status == "declined" and doc.stated_refs == (("superseded_by", "/geps/gep-713/", 12),)
    assert _doc("02_knowledge/geps/gep-2648/index.md", gep.replace("Declined", "Standard")).stated_refs == ()
    dbx = ("# dbx\n\n> Interact with the Databricks platform.\n> Note: This tool has been retired and it is recommended "
           "to use Databricks Asset Bundles instead.\n")
    got = read_stated(dbx)
    assert (got.status, got.refs) == ("retired", (("superseded_by", "Databricks Asset Bundles", 4),))


def test_a_record_meant_to_replace_a_linked_one_names_it():
    """Astro's RFC 0016: "**This RFC is intended to supercede [RFC0008](…/0008-style-script-behavior.md).**"
    — "is intended (meant, designed) to" before the verb says what "supersedes" says; a sentence
    about another thing's intent ("The old API is intended to replace …") names nothing."""
    text = ("- Start Date: 2022-04-12\n\n**This RFC is intended to supercede "
            "[RFC0008](https://github.com/withastro/roadmap/tree/main/proposals/0008-style-script-behavior.md).**\n\n# Summary\n")
    assert read_stated(text).refs == (("supersedes", "https://github.com/withastro/roadmap/tree/main/proposals/0008-style-script-behavior.md", 3),)
    assert read_stated(text.replace("is intended to supercede", "is meant to replace")).refs[0][0] == "supersedes"
    assert read_stated("# X\n\nThe old API is intended to replace [y](y.md).\n").refs == ()


def test_a_record_not_in_force_names_what_it_recommends_instead_of_itself():
    """Stellar's SEP-0003, abandoned: "For most use cases, we actually recommend the workflow
    specified in [SEP-0024](sep-0024.md) instead of SEP-0003" names SEP-0024, not what it is
    recommended over; in a record in force, or naming no link or id, it names nothing."""
    sep = ("# Compliance protocol\n\n## Deprecation Notice\nFor most use cases, we actually recommend the workflow "
           "specified in\n[SEP-0024](sep-0024.md) instead of SEP-0003\n\n## Simple Summary\n\nText.\n")
    assert read_stated(sep, status="abandoned").refs == (("superseded_by", "sep-0024.md", 4),)
    assert read_stated(sep, status="active").refs == ()
    assert read_stated(sep.replace("[SEP-0024](sep-0024.md)", "the interactive flow"), status="abandoned").refs == ()
    over = "# X\n\nWe recommend [A](a.md) instead of [B](b.md).\n"
    assert read_stated(over, status="deprecated").refs == (("superseded_by", "a.md", 3),)



def test_a_notice_naming_its_subject_by_the_whole_title_says_the_record_is_gone():
    """The Kubernetes community's Flexvolume page: "**NOTE:** Flexvolume is deprecated." under
    "# Flexvolume"; tldr's dstat: "> Note: dstat is deprecated and no longer maintained." The
    subject must be the whole title: "The Flexvolume plugin API is deprecated" is about another
    thing, as "Snapshots is deprecated" is under "Volume snapshots"."""
    text = ("# Flexvolume\n\n**NOTE:** Flexvolume is deprecated. Out-of-tree CSI driver is the recommended way to "
            "write volume drivers.\n\nFlexvolume enables users to write their own drivers.\n\n## Prerequisites\n")
    assert (read_stated(text).status, read_stated(text).notice) == ("deprecated", True)
    dstat = "# dstat\n\n> Versatile tool for generating system resource statistics.\n> Note: dstat is deprecated and no longer maintained.\n"
    assert read_stated(dstat).status == "deprecated"
    for other in ("# Flexvolume\n\nThe Flexvolume plugin API is deprecated.\n", "# Volume snapshots\n\nSnapshots is deprecated.\n",
                  "# Flexvolume\n\nFlexvolume is stable.\n"):
        assert read_stated(other).status is None


def test_a_notice_after_an_emoji_and_a_since_clause_says_the_record_is_gone():
    """Babel's docs: ":::danger" over "🚨 As of Babel 7.8.0, this package has been deprecated. It
    is now included in [@babel/standalone](standalone.md)." — the emoji and the clause saying
    since when do not hide the notice, and "now included in" a linked page names the successor;
    in a record in force "now included in" names nothing."""
    text = ("\n:::danger\n🚨 As of Babel 7.8.0, this package has been deprecated. It is now included in "
            "[@babel/standalone](standalone.md).\n:::\n\n## Install\n")
    got = read_stated(text, title="@babel/preset-env-standalone")
    assert (got.status, got.refs, got.notice) == ("deprecated", (("superseded_by", "standalone.md", 3),), True)
    assert read_stated("# X\n\nSince v2.0, this flag is deprecated.\n").status == "deprecated"
    assert read_stated("# X\n\nAs of 2024, this project is active.\n").status is None
    assert read_stated("# X\n\nIt is now included in [y](y.md).\n", status="accepted").refs == ()


def test_a_notice_about_the_kind_of_page_the_page_is_says_it_is_gone():
    """Babel's yearly presets: "As of Babel v6, all the yearly presets have been deprecated. We
    recommend using [`@babel/preset-env`](preset-env.md) instead." on "@babel/preset-es2015" —
    the kind's last word ("presets") is in the title; the same sentence on a page titled
    otherwise says nothing of that page."""
    text = ("\n:::danger\nAs of Babel v6, all the yearly presets have been deprecated.\n"
            "We recommend using [`@babel/preset-env`](preset-env.md) instead.\n:::\n\n## Install\n")
    got = read_stated(text, title="@babel/preset-es2015")
    assert (got.status, got.refs) == ("deprecated", (("superseded_by", "preset-env.md", 4),))
    assert read_stated(text, title="Upgrade to Babel 7").status is None
    assert read_stated("# Stage presets\n\nAll the stage presets are stable.\n").status is None
    assert read_stated("# The v1 endpoints\n\nAll of the v1 endpoints are now deprecated.\n").status == "deprecated"


@pytest.mark.parametrize("opening, state", [
    (":::warning Sunsetting on July 20, 2026\n\nDeno Deploy Classic will be shut down on July 20, 2026.\n\n:::", "deprecated"),
    (":::danger Archived\n\nThis helper is archived.\n:::", "archived"),
    ("::: warning Deprecated\nUse the other one.\n:::", "deprecated"),
    ('!!! warning "Removed in v2.0"\n    Gone.', "removed"),
    (":::note Defunct\nText.\n:::", "defunct"),
])
def test_an_admonition_titled_with_a_state_says_the_pages(opening, state):
    """Documentation sites mark a page by an admonition at its top: Deno's ":::warning
    Sunsetting on July 20, 2026" over each Deploy Classic page, Babel's ":::danger Archived"
    over its retired helpers, MkDocs' '!!! warning "Deprecated"'."""
    got = read_stated(f"\n{opening}\n\nThe page's text.\n\n## Usage\n")
    assert (got.status, got.notice) == (state, True)


@pytest.mark.parametrize("text", [
    "\n::: warning Future Deprecation\nThe old hook will be deprecated in v7.\n:::\n",  # not yet
    "\n:::warning Deprecated Options\nSome options are deprecated.\n:::\n",  # some of the page's options
    "\n:::warning Deploy Classic sunsetting July 20, 2026\nText.\n:::\n",  # another thing's
    "# X\n\nIntro.\n\n## Options\n\n:::warning Deprecated\nText.\n:::\n",  # in a section, not the lead
    "\n:::warning Deprecated\n\n`pnpm env` is deprecated.\n:::\n",  # a thing named in code the title does not name
])
def test_an_admonition_about_something_else_says_nothing(text):
    assert read_stated(text, title="pnpm add").status is None


def test_a_record_gone_names_what_to_consider_using_or_migrating_to():
    """Deno's `@std/log`: ":::info No longer recommended" over "The @std/log package is likely to
    be removed in the future; consider using [OpenTelemetry](/runtime/fundamentals/open_telemetry/)
    for production systems."; "We recommend migrating to [x](…)" names x the same way."""
    text = (":::info No longer recommended\n\nThe @std/log package is likely to be removed in the future; consider using\n"
            "[OpenTelemetry](/runtime/fundamentals/open_telemetry/) for production systems.\n\n:::\n\n## Usage\n")
    got = read_stated(text, title="@std/log")
    assert (got.status, got.refs) == ("deprecated", (("superseded_by", "/runtime/fundamentals/open_telemetry/", 3),))
    moved = "# X\n\nWe recommend migrating to [the new platform](/deploy/) soon.\n"
    assert read_stated(moved, status="deprecated").refs == (("superseded_by", "/deploy/", 3),)
    assert read_stated(moved, status="accepted").refs == ()


def test_a_status_whose_later_words_say_the_record_was_replaced_is_that():
    """Erlang's EEPs: "Status: Final/R-33 Replaced by EEP 33" — final once, replaced since; the
    state is what its later words say, whether the status is a header field (front matter) or
    a line of the text. A template's choices, or a state already gone, are left as they are."""
    assert replaced_status("Final/R-33 Replaced by EEP 33") == "replaced"
    assert replaced_status("Accepted, superseded by [ADR-9](0009-x.md)") == "superseded"
    assert replaced_status("Final/R-34 Replaced with EEP-11 and EEP-31") == "replaced"
    for value in ("Final", "Replaced", "Superseded by ADR-9", "[proposed | accepted | superseded by [ADR-5](5.md)]",
                  "proposed | rejected | accepted | … | superseded by [0005](0005-example.md)",  # React Router's template
                  "Accepted (supersedes ADR-3)"):
        assert replaced_status(value) is None
    doc = _doc("02_knowledge/eeps/eep-0009.md", "    Title: Binary strings\n    Status: Final/R-34 Replaced with EEP-11 and EEP-31\n"
               "    Type: Standards Track\n\nAbstract\n========\n\nText.\n")
    assert doc.status == "replaced" and {t for _k, t, _l in doc.stated_refs} == {"EEP-11", "EEP-31"}
    got = read_stated("# ADR 4\n\n* Status: Accepted, superseded by [ADR-9](0009-x.md)\n\n## Context\n")
    assert (got.status, got.refs) == ("superseded", (("superseded_by", "0009-x.md", 3),))


def test_a_notice_with_its_link_on_the_verb_names_where_the_record_moved():
    """The Dart language's working proposals, stubs once their feature was accepted: "This
    document [has moved]." over the reference "[has moved]: https://…/feature-specification.md";
    inline, "This page [moved here](new.md)."; a link elsewhere in the sentence is no such notice."""
    text = ("This document [has moved].\n\n[has moved]: https://github.com/dart-lang/language/blob/main/accepted/3.0/"
            "records/feature-specification.md\n")
    got = read_stated(text)
    assert got.status == "superseded" and got.refs == (
        ("superseded_by", "https://github.com/dart-lang/language/blob/main/accepted/3.0/records/feature-specification.md", 1),)
    assert read_stated("# Old\n\nThis page [moved here](new.md).\n").refs == (("superseded_by", "new.md", 3),)
    assert read_stated("# X\n\nThe [files moved](a.md) last year.\n\n## Y\n").status is None


def test_a_notice_naming_its_subject_in_code_reads_a_front_matter_title():
    """pnpm's `cli/env.md` has no title heading, its title in front matter ("pnpm env <cmd>"),
    and opens with a Docusaurus warning: "`pnpm env` is deprecated. Use [`pnpm runtime`](…)
    instead." The front matter title is the one the code must name."""
    text = ("\n:::warning Deprecated\n\n`pnpm env` is deprecated. Use [`pnpm runtime`](./runtime.md) instead.\n\n:::\n\n"
            "Manages the Node.js environment.\n\n## Commands\n\n### use\n")
    got = read_stated(text, title="pnpm env <cmd>")
    assert (got.status, got.refs, got.notice) == ("deprecated", (("superseded_by", "./runtime.md", 4),), True)
    assert read_stated(text, title="pnpm add").status is None and read_stated(text).status is None
    doc = _doc("02_knowledge/cli/env.md", '---\nid: env\ntitle: "pnpm env <cmd>"\n---\n' + text)
    assert doc.status == "deprecated" and doc.stated_refs == (("superseded_by", "./runtime.md", 8),)


def test_a_notice_with_its_helpers_before_the_linked_verb_or_a_rename_names_where_the_record_went():
    """The Dart language's stubs again: "The feature specification has been\n[moved](…) to the
    accepted features folder.", and "This feature has been [renamed](…)." — the verb's helpers
    outside the link, over a line break; "renamed" says the record lives on under the link."""
    moved = ("The feature specification has been \n[moved](../../accepted/future-releases/parts-with-imports/feature-specification.md)\n"
             "to the accepted features folder.\n")
    got = read_stated(moved)
    assert got.status == "superseded" and got.refs == (
        ("superseded_by", "../../accepted/future-releases/parts-with-imports/feature-specification.md", 2),)  # the link's line
    got = read_stated("# Augmentation libraries\n\nThis feature has been [renamed](../augmentations/feature-specification.md).\n")
    assert (got.status, got.refs) == ("superseded", (("superseded_by", "../augmentations/feature-specification.md", 3),))
    assert read_stated("# X\n\nThe variable was [renamed](r.md) in the example below.\n\n## Y\n").status is None


def test_a_package_named_in_code_by_the_titles_words_is_the_pages_subject():
    """SvelteKit's "Cloudflare Workers" page: "> [!NOTE] `adapter-cloudflare-workers` has been
    deprecated in favour of [`adapter-cloudflare`](adapter-cloudflare)." — a package's name
    joining every word of a title of two or more; one word shared is not enough."""
    text = ("> [!NOTE] `adapter-cloudflare-workers` has been deprecated in favour of [`adapter-cloudflare`](adapter-cloudflare). "
            "We recommend using `adapter-cloudflare` instead.\n\nTo deploy to Cloudflare Workers, use it.\n\n## Usage\n")
    got = read_stated(text, title="Cloudflare Workers")
    assert (got.status, got.refs) == ("deprecated", (("superseded_by", "adapter-cloudflare", 1),))
    assert read_stated(text, title="Cloudflare Pages").status is None
    assert read_stated(text.replace("adapter-cloudflare-workers", "workers-kv"), title="Cloudflare Workers").status is None


def test_a_link_recommended_instead_of_the_page_itself_replaces_it():
    """Hono's "Cloudflare Pages": "For new projects, Cloudflare now recommends using [Cloudflare
    Workers](…) instead of Cloudflare Pages. … see [Cloudflare Workers + Vite](…), which is the
    successor to this Pages setup." — still there, recommended against, with two successors; a
    recommendation instead of something else, or of nothing linked, is no notice."""
    text = ("# Cloudflare Pages\n\n::: warning\nFor new projects, Cloudflare now recommends using [Cloudflare Workers]"
            "(/docs/getting-started/cloudflare-workers) instead of Cloudflare Pages. If you are starting a new full-stack "
            "application, see [Cloudflare Workers + Vite](/docs/getting-started/cloudflare-workers-vite), which is the "
            "successor to this Pages setup.\n:::\n\n## Setup\n")
    got = read_stated(text)
    assert got.status == "deprecated" and {t for _k, t, _l in got.refs} == {
        "/docs/getting-started/cloudflare-workers", "/docs/getting-started/cloudflare-workers-vite"}
    this = "# X plugin\n\nWe recommend using [the Y option](y.md) instead of this plugin.\n"
    assert read_stated(this).status == "deprecated" and read_stated(this).refs == (("superseded_by", "y.md", 3),)
    for other in ("# Cloudflare Pages\n\nWe recommend using [Workers](w.md) instead of KV for sessions.\n",
                  "# Cloudflare Pages\n\nWe recommend using Workers instead of Cloudflare Pages.\n"):
        assert read_stated(other).status is None
    only = "# Old setup\n\nSee [the new setup](new.md), which is the successor to this guide.\n"
    assert read_stated(only).refs == (("superseded_by", "new.md", 3),) and read_stated(only).status == "superseded"


def test_a_page_of_old_things_sending_its_reader_to_the_current_ones_is_replaced():
    """Cluster API's v1beta1 reference: "> This page documents **deprecated** API packages. For
    current types, see [CRD API Reference (v1beta2)](crd-api-reference.md)." A README's "For the
    latest release notes, see [x]", with nothing saying the page is old, is no notice."""
    text = ("> This page documents **deprecated** API packages. For current types, see "
            "[CRD API Reference (v1beta2)](crd-api-reference.md).\n\n# API Reference\n\n## Packages\n")
    got = read_stated(text)
    assert (got.status, got.refs) == ("superseded", (("superseded_by", "crd-api-reference.md", 1),))
    assert read_stated("# Tool\n\nFor the latest release notes, see [the changelog](CHANGELOG.md).\n").status is None


@pytest.mark.parametrize("text", [
    "# Relref\n\n> When working with Markdown this shortcode is obsolete.\n",  # not the sentence's subject
    # in a section, not the lead (an id title straight over a heading reads it as its subtitle)
    "# EIP-1102\n\nIntro.\n\n## Methods\n\nThis method is deprecated in favor of [x](x.md).\n",
    "# X\n\n> This RFC has been accepted.\n",  # a state in force is no notice
    "# X\n\n> The old API was replaced by the new one in version 2, which this page describes.\n",  # not a gone word after
    "# X\n\n```\nThis command has been superseded by y.\n```\n",  # code
    "# X\n\nThe thing we built was deprecatedish.\n",
    "# X\n\nThe old logging API is deprecated.\n",  # "the" and more than one word: another thing
    "# X\n\nDeprecated features are listed below.\n",  # "Deprecated" opening a sentence about others
    "# X\n\nThe project has moved to GitHub.\n",  # moved, no place linked
    "# X\n\nThis means the old API was deprecated.\n",  # this: not the record
    "# X\n\nIf you are on Windows, see [the other page](w.md) instead.\n",  # "instead" alone: no word saying it is old
    "# X\n\nPlease refer to [the guide](g.md) for details.\n",  # pointing elsewhere, not for good
    "# X\n\n## Usage\n\nThis is outdated, please refer to [y](y.md) from now on.\n",  # in a section, not the lead
    "# X\n\n## Summary\n\nThis API has been made available to everyone.\n",  # "made", but not obsolete
    "# Command: plan\n\nThe `-refresh` flag is deprecated.\n",  # a flag of the page, not the page: the title does not name it
    "# Command: plan\n\nThe `tofu env` command is deprecated.\n",  # another command than the title's
    "# X\n\nIntro.\n\n## Background\n\n### This design was rejected in 2019\n",  # the third heading: past the lead
    # a state's label over a thing named in code the title does not name (NIP-23's lead)
    "NIP-23\n======\n\nLong-form Content\n---\n\nThis NIP defines `kind:30023`.\n\nDeprecated: `kind:30024` was used for drafts. "
    "Use [NIP-37](37.md) instead.\n",
    "# X\n\n**Note:** `legacy`: kept for old clients.\n",  # a label that is no state's word
    "# X\n\nFiles moved to [the archive](a.md) in 2020.\n",  # moved, but the files, not the record
    "# Overview\n\n## Moved pages\n\nMoved to [x](x.md).\n",  # a subtitle under a title that is no id: past the lead
    # "removed" said of something else, mid-sentence, or in the present
    "# quote-props\n\n1. If you use IE8. This restriction was removed in ECMAScript 5.\n",
    "# logout\n\nThe token is removed from [auth.ini](x.md).\n",
    "# pnpm add\n\n`pnpm env` is deprecated. Use [runtime](runtime.md) instead.\n",  # code the title does not name
])

def test_what_is_no_notice(text):
    got = read_stated(text)
    assert got.status is None and not got.notice


def test_a_title_that_is_only_an_id_takes_its_subtitle():
    """"NIP-12" over "Generic Tag Queries" is one title; "Overview" over "Usage" is not, nor an
    id with text between it and the next heading."""
    from oriongraph_cli.blocks import read_blocks
    from oriongraph_cli.index.stated import subtitle

    def sub(text):
        got = subtitle(text, read_blocks(text, 0, "markdown").headings)
        return got.title if got else None

    assert sub("NIP-12\n======\n\nGeneric Tag Queries\n-------------------\n\nText.\n") == "Generic Tag Queries"
    assert sub("# RFC 1234\n\n## Streams\n") == "Streams"
    assert sub("# NIP-B7\n## Blossom\n") == "Blossom"
    assert sub("# Overview\n\n## Usage\n") is None
    assert sub("# NIP-12\n\nIntro.\n\n## Usage\n") is None
    assert sub("## NIP-12\n\n# Title\n") is None  # not a level deeper


def test_a_gone_notice_wins_over_a_state_in_force_and_a_gone_state_over_a_notice():
    """A notice saying the record is gone is what a project adds when it retires one, over
    whatever its template states: libp2p's old gossipsub page keeps its table's "Active" under
    "please refer to … from now on"; Ember's discontinued RFC keeps the template's ``stage:
    accepted``. The notice is the later word. A state, in a line or front matter, that already
    says the record is gone stays, with what it names."""
    table = "# gossipsub (OLD)\n\n> This spec is obsolete.\n\n| Lifecycle Stage | Maturity | Status |\n|---|---|---|\n| 3A | Recommendation | Active |\n"
    got = read_stated(table)
    assert got.status == "obsolete" and got.notice and got.status_line == 3
    line = "# X\n\n> This spec is deprecated.\n\nStatus: Superseded by [Y](y.md)\n"
    got = read_stated(line)
    assert (got.status, got.notice, got.refs) == ("superseded", False, (("superseded_by", "y.md", 5),))
    ember = ("---\nstage: accepted\nprs:\n  accepted: https://github.com/emberjs/rfcs/pull/669\n---\n\n# Tracked Storage Primitives\n\n"
             "> [!IMPORTANT]\n> This RFC has been discontinued, and has been replaced with [RFC#1071](1071-tracked.md)\n\n## Summary\n")
    doc = _doc("02_knowledge/ember/0669-tracked.md", ember)
    assert doc.status == "discontinued" and doc.stated_refs == (("superseded_by", "1071-tracked.md", 10),)
    doc = _doc("02_knowledge/t/pnmscale.md", "---\nstatus: deprecated\n---\n# pnmscale\n\n> This command has been superseded by `pamscale`.\n")
    assert doc.status == "deprecated"
    doc = _doc("02_knowledge/t/x.md", "---\nstatus: accepted\n---\n# X\n\n## Usage\n\nThis command has been superseded by y.\n")
    assert doc.status == "accepted"  # not in the lead: the front matter stands


@pytest.mark.parametrize("sentence, names", [
    ("Users should **prefer QUIC or Yamux**.", ("QUIC", "Yamux")),  # libp2p's mplex
    ("Use `pamscale` instead.", ("pamscale",)),
    ("Please migrate to Cache V2, which is faster.", ("Cache V2",)),
    ("This was replaced by [the store](store.md) and the cache.", ("store.md",)),  # a link before names
    ("It was superseded by ADR-0009.", ("ADR-0009",)),  # an id before names
    ("This was superseded by the EOF proposals.", ()),  # no name: lower case words
    ("You should use the new Config API.", ()),
    ("We use Foo for logging. Bar is nice.", ()),  # a use, not a recommendation
    ("Should the team use Foo?", ()),
])
def test_a_gone_record_names_its_successor_in_a_sentence(sentence, names):
    """A record whose state says it is gone may say what to use instead without a link or
    an id: the names are `code`, or one to three capitalised words, which the link resolver
    looks up as it does a wiki link's. A record still in force names none this way."""
    got = read_stated(f"# X\n\nStatus: deprecated\n\n{sentence}\n")
    assert got.status == "deprecated" and tuple(t for _k, t, _l in got.refs) == names
    assert all(k == "superseded_by" and line == 5 for k, _t, line in got.refs)
    assert read_stated(f"# X\n\nStatus: accepted\n\n{sentence}\n").refs == ()


def test_a_state_held_in_part_a_record_replacing_another_in_a_sentence_and_a_bare_deprecated_mark():
    """GOV.UK's AWS decision records: "Partly superseded" under "## Status" is superseded; the
    later record says in its context "This ADR in part supersedes [0003](…)", which names what
    it replaces; a guide whose lead opens "*DEPRECATED*" alone on its line is deprecated. Not:
    the word unemphasised, a sentence about deprecated features, a section that supersedes."""
    old = "# 3. Networking Outline\n\nDate: 2017-06-30\n\n## Status\n\nPartly superseded\n\n## Context\n\nRanges.\n"
    assert read_stated(old).status == "superseded" and status_word("Partially replaced") == "replaced"
    new = ("# 3. Networking Outline\n\nDate: 2018-09-26\n\n## Status\n\nPending\n\n## Context\n\n"
           "This ADR in part supersedes [0003](0003-aws-networking-outline.md). It also cites [0010](0010-x.md).\n")
    got = read_stated(new)
    assert got.status == "pending" and got.refs == (("supersedes", "0003-aws-networking-outline.md", 11),)
    assert read_stated("# R\n\n## Status\n\nAccepted\n\nThis RFC replaces [RFC 12](12.md) and [RFC 14](14.md).\n").refs == (
        ("supersedes", "12.md", 7), ("supersedes", "14.md", 7))
    # without a state line in the head, and with a verb before "and" (Filecoin's FIP-0067 and
    # FIP-0092, whose state is in their front matter)
    fip = ("# FIP-0092: Non-Interactive PoRep\n\n## Simple Summary\n\nThis proposal presents a new protocol. This proposal "
           "builds on and supersedes  [FIP-0090: Non-Interactive PoRep](fip-0090.md).\n")
    assert read_stated(fip, status="final").refs == (("supersedes", "fip-0090.md", 5),)
    assert read_stated("# X\n\nThis page describes and never replaces [y](y.md) quickly and badly.\n").refs == ()
    guide = "# Certificate Validation\n\n*DEPRECATED*\nNew environments should manage validation with DNS.\n"
    assert read_stated(guide).status == "deprecated" and read_stated(guide).notice
    for text in ("# T\n\nDeprecated\nfoo\n", "# T\n\nDeprecated features are listed below.\n",
                 "# T\n\n## Status\n\nAccepted\n\n## Design\n\nThis section supersedes the draft's table.\n"):
        assert read_stated(text).status in (None, "accepted") and not read_stated(text).refs, text
