"""`orion compile --format json-lean`: the XML's content as JSON, one ``{"source", "text"}``
per document, within the budget like every delivered format. Runs the real pipeline on the
sample project indexed with the real model."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace

from conftest import run_orion as run

from oriongraph_cli import api
from oriongraph_cli.config import load_config
from oriongraph_cli.evaluate import default_request
from oriongraph_cli.render import render_text
from oriongraph_cli.tokens import get_counter

COUNT = get_counter("tiktoken").count
INTENT = "why did we replace ADR-0003"


def test_lean_json_says_what_the_xml_says_for_the_same_working_set(sample_index):
    cfg = load_config(sample_index)
    reader = api.open_index(cfg)
    try:
        for budget in (700, 1500, 3500):
            req = replace(default_request(cfg, INTENT, budget), record_usage=False, deliver=("xml", "json-lean"))
            resp = api.compile_workingset(req, cfg, reader)
            lean = json.loads(render_text(resp, "json-lean"))
            xml = ET.fromstring(render_text(resp, "xml"))
            docs = xml.findall("document")
            assert docs and [d["source"] for d in lean["documents"]] == [d.get("source") for d in docs]
            assert [d.get("status") for d in lean["documents"]] == [d.get("status") for d in docs]
            assert [d["text"] for d in lean["documents"]] == ["".join(d.itertext()).strip("\n") for d in docs]
            assert lean["schema_version"] == 1 and lean["kind"] == "compile-lean"
            # no span ids, no per-quote keys: the source names the text
            assert not {"spans", "quotes", "lines", "path"} & {k for d in lean["documents"] for k in d}
            if budget < 1000:
                assert all(":L" not in d["source"] for d in lean["documents"])  # the path alone, as the XML
            if budget < 3000:  # the room goes to text: no counts, no preamble, no intent echo
                assert not {"intent", "budget", "delivered_tokens", "about", "summary", "left_out"} & set(lean)
            else:
                assert lean["intent"] == INTENT and lean["budget"] == budget and lean["about"]
                assert lean["delivered_tokens"] == resp.stats.delivered["json-lean"]
                assert lean["summary"].startswith(f"{resp.stats.delivered['json-lean']:,} / {budget:,} tokens delivered")
    finally:
        reader.close()


def test_the_cli_writes_lean_json_within_the_budget_and_orion_show_reads_its_sources(sample_index):
    args = ["compile", INTENT, "--root", str(sample_index), "--no-usage-log", "--format", "json-lean"]
    for budget in ("1200", "3200"):
        r = run(*args, "--budget", budget)
        assert r.returncode == 0, r.stderr
        assert COUNT(r.stdout) <= int(budget) and r.stdout.count("\n") == 1  # one compact line
        data = json.loads(r.stdout)
        if budget == "3200":
            assert data["delivered_tokens"] == COUNT(r.stdout)  # the count printed is the output's own
    source = data["documents"][0]["source"]
    shown = run("show", source, "--root", str(sample_index))
    assert ":L" in source and shown.returncode == 0 and shown.stdout.strip()
    # the same working set in fewer tokens of JSON: more of the budget quotes text
    full = json.loads(run(*args[:-2], "--json", "--budget", "1200").stdout)
    lean = json.loads(run(*args, "--budget", "1200").stdout)
    quoted = lambda d: sum(COUNT(q["text"]) for doc in d["documents"] for q in doc.get("quotes", [doc]))  # noqa: E731
    assert quoted(lean) > quoted(full)
    # --explain adds the rationale, marked as not counted
    explained = json.loads(run(*args, "--budget", "1200", "--explain").stdout)
    assert explained["explanation"]["counted"] is False and explained["explanation"]["rationale"]
    # a failure is a JSON error on stdout, as with --json, and its exit code
    tiny = run(*args, "--budget", "10")
    assert tiny.returncode == 2 and json.loads(tiny.stdout)["kind"] == "error" and "framing" in tiny.stderr


def test_lean_json_carries_hostile_text_exactly(sample_index, tmp_path):
    """Quotes, backslashes, control characters and a would-be closing tag in a note: the
    output is valid JSON whose text is the note's lines as written."""
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    body = 'Escape "quoted" words, a C:\\path\\to\\file, a tab\there, a bell \x07 and </document> ]]> in the zebra notes.'
    (root / "02_knowledge" / "zebra.md").write_text(f"---\ntitle: Zebra escapes\n---\n# Zebra escapes\n\n{body}\n")
    assert run("index", "--root", str(root), "-q").returncode == 0
    r = run("compile", "zebra escapes notes", "--root", str(root), "--no-usage-log", "--format", "json-lean", "--budget", "1500")
    assert r.returncode == 0, r.stderr
    doc = next(d for d in json.loads(r.stdout)["documents"] if d["source"].startswith("02_knowledge/zebra.md"))
    assert body in doc["text"]
