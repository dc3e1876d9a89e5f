"""CLI behaviour through typer's runner: stdout/stderr separation, exit codes, help text."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from oriongraph_cli.cli import app
from oriongraph_cli.errors import ExitStatus

runner = CliRunner()

COMMANDS = ["index", "status", "compile", "search", "show", "links", "usage", "eval"]


def invoke(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_version_and_help():
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.startswith("orion ")
    r = invoke("--help")
    assert r.exit_code == 0
    for cmd in COMMANDS:
        assert cmd in r.stdout


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_has_help(cmd):
    r = invoke(cmd, "--help")
    assert r.exit_code == 0 and "Usage" in r.stdout and len(r.stdout) > 200


def test_help_paragraphs_wrap_to_the_terminal_not_to_the_source():
    """typer keeps the line breaks of a help's later paragraphs: written at 92 columns, they
    broke mid-sentence on an 80-column terminal ("Running it" / "again changes nothing.")."""
    for info in app.registered_commands:
        assert all("\n" not in p for p in (info.help or "").split("\n\n")), info.name
    r = CliRunner().invoke(app, ["init", "--help"], env={"COLUMNS": "80"}, catch_exceptions=False)
    assert r.exit_code == 0 and "Running it again changes nothing." in r.stdout


@pytest.mark.parametrize("cmd", COMMANDS)
def test_a_commands_help_names_only_options_it_has(cmd):
    """The help of a command names --format only when the command takes it (the shared
    --output help once sent `orion show` users to an option it refuses)."""
    import typer.main

    command = typer.main.get_command(app).commands[cmd]  # type: ignore[attr-defined]
    has_format = any("--format" in p.opts for p in command.params)
    helps = " ".join(getattr(p, "help", None) or "" for p in command.params)
    assert ("--format" in helps) <= has_format
    assert has_format == (cmd == "compile")  # the one command with output formats


def test_index_not_a_project_has_clear_error(tmp_path):
    r = invoke("index", "--root", str(tmp_path))
    assert r.exit_code == ExitStatus.NOT_A_PROJECT
    assert r.stdout == ""
    assert "not an OrionFS project" in r.stderr and "01_context/" in r.stderr and "hint:" in r.stderr


def test_index_json_summary_and_quiet(project, fake_embedder):
    r = invoke("index", "--root", str(project), "--json")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["schema_version"] == 1 and data["kind"] == "index" and data["documents"] == 49
    r = invoke("index", "--root", str(project))
    assert r.exit_code == 0 and "Nothing changed" in r.stdout and "embedded 0 spans" in r.stdout
    r = invoke("index", "--root", str(project), "--quiet")
    assert r.exit_code == 0 and r.stdout == ""


def test_index_off_a_terminal_writes_progress_lines_for_long_runs(project, fake_embedder, monkeypatch):
    """CI logs: a plain line every EVERY seconds (here every event); quick runs stay silent."""
    from oriongraph_cli.cli.progress import LineProgress

    r = invoke("index", "--root", str(project), "--full")
    assert r.exit_code == 0 and "orion index:" not in r.stderr  # under 10 s: nothing
    monkeypatch.setattr(LineProgress, "EVERY", 0.0)
    r = invoke("index", "--root", str(project), "--full")
    assert r.exit_code == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("orion index: ")]
    assert any(ln.startswith("orion index: embedding ") and " spans (" in ln and "elapsed" in ln for ln in lines), r.stderr
    assert "\x1b" not in r.stderr and "\r" not in r.stderr  # plain lines, no bar
    r = invoke("index", "--root", str(project), "--full", "--quiet")
    assert "orion index:" not in r.stderr
    r = invoke("index", "--root", str(project), "--full", "--json")
    assert "orion index:" not in r.stderr and json.loads(r.stdout)["kind"] == "index"


def test_line_progress_estimates_time_left():
    from oriongraph_cli.cli.index import INDEX_UNITS
    from oriongraph_cli.cli.progress import LineProgress

    now = [0.0]
    out: list[str] = []
    p = LineProgress("orion index", INDEX_UNITS, write=out.append, clock=lambda: now[0], every=10.0)
    p.phase("embedding", 400)
    now[0] = 4.0
    p.advance(100)
    assert out == []  # 4 s: nothing yet
    now[0] = 10.0
    p.advance(50)
    assert out == ["orion index: embedding 150/400 spans (37 %), 0:10 elapsed, about 0:17 left in this step\n"]
    now[0] = 15.0
    p.advance(50)
    assert len(out) == 1  # the next line waits another 10 s
    now[0] = 3730.0
    p.phase("graph", None)
    assert out[-1] == "orion index: graph, 1:02:10 elapsed\n"


def test_index_warnings_go_to_stderr_and_strict_fails(project, fake_embedder):
    (project / "02_knowledge" / "bad.md").write_text("---\ntitle: [oops\n---\n# Bad\n\ntext\n")
    r = invoke("index", "--root", str(project), "--json")
    assert r.exit_code == 0
    assert "02_knowledge/bad.md:2:" in r.stderr and "malformed YAML" in r.stderr
    assert json.loads(r.stdout)["warning_counts"] == {"dangling-link": 2, "yaml": 1}  # the sample has two dangling links
    # a later run edits one file: the links dangling before in files it did not touch are
    # counted in the summary, not listed again (a pre-commit hook's output stays short)
    (project / "01_context" / "glossary.md").write_text((project / "01_context" / "glossary.md").read_text() + "\nMore.\n")
    r = invoke("index", "--root", str(project))
    assert r.exit_code == 0 and "dangling" not in r.stderr
    assert "2 dangling link(s) in the index: the 2 not listed were dangling before" in r.stdout
    r = invoke("index", "--root", str(project), "--strict", "--full")
    assert r.exit_code == ExitStatus.STRICT and "--strict" in r.stderr


def test_many_warnings_for_one_file_are_counted_not_listed(project, fake_embedder):
    # a generated page with many broken links: five lines for it, then one counting the rest;
    # the JSON still holds every warning
    links = " ".join(f"[x{i}](missing-{i}.md)" for i in range(8))
    (project / "02_knowledge" / "generated.md").write_text(f"# Generated\n\n{links}\n")
    r = invoke("index", "--root", str(project), "--json")
    assert r.exit_code == 0
    mine = [line for line in r.stderr.splitlines() if "02_knowledge/generated.md" in line]
    assert len(mine) == 6 and all("dangling" in line for line in mine[:5])
    assert mine[5] == "warning: 02_knowledge/generated.md: 3 more dangling links not shown (`orion links --dangling` lists them all)"
    report = json.loads(r.stdout)
    assert report["warning_counts"]["dangling-link"] == 10  # the sample's two as well
    assert sum(w["path"] == "02_knowledge/generated.md" for w in report["warnings"]) == 8


def test_status_before_and_after_index(project, fake_embedder):
    r = invoke("status", "--root", str(project))
    assert r.exit_code == ExitStatus.NO_INDEX and "orion index" in r.stderr
    invoke("index", "--root", str(project), "--quiet")
    r = invoke("status", "--root", str(project), "--json")
    st = json.loads(r.stdout)
    assert st["up_to_date"] and st["documents"] == 49 and st["generation"] == "000001"
    assert st["model"].startswith("sentence-transformers/all-MiniLM-L6-v2")
    (project / "02_knowledge" / "new.md").write_text("# New\n\nnew note\n")
    (project / "01_context" / "glossary.md").write_text("# Glossary\n\nchanged\n")
    (project / "02_knowledge" / "research" / "bm25.md").unlink()
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["stale"] == {
        "modified": ["01_context/glossary.md"],
        "new": ["02_knowledge/new.md"],
        "deleted": ["02_knowledge/research/bm25.md"],
    }
    text = invoke("status", "--root", str(project)).stdout
    assert "1 modified, 1 new, 1 deleted" in text


def test_a_file_the_index_skips_is_not_stale_for_status(project, fake_embedder):
    """An empty note, or one that is not UTF-8, is read and skipped by every `orion index`
    (with a warning): status lists it as skipped, with the reason, and --check passes —
    it used to say "new — run `orion index`" however often the index ran, so a CI gate or
    a hook on `orion status --check` failed for good."""
    k = project / "02_knowledge"
    (k / "empty.md").write_bytes(b"")
    (k / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    r = invoke("index", "--root", str(project))
    assert r.exit_code == 0 and "empty file; skipped" in r.stderr
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["up_to_date"] and st["stale"]["new"] == []
    assert [(s["path"], s["kind"]) for s in st["skipped"]] == [("02_knowledge/empty.md", "empty"), ("02_knowledge/latin1.md", "encoding")]
    text = invoke("status", "--root", str(project)).stdout
    assert "Skipped:     2 file(s) `orion index` cannot read" in text and "02_knowledge/empty.md: empty file; skipped" in text
    assert invoke("status", "--check", "--root", str(project)).exit_code == 0
    (k / "empty.md").write_text("# Now a note\n\nWith text.\n")  # written: new, until indexed
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["stale"]["new"] == ["02_knowledge/empty.md"] and not st["up_to_date"]
    invoke("index", "--root", str(project), "--quiet")
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["up_to_date"] and [s["path"] for s in st["skipped"]] == ["02_knowledge/latin1.md"]
    # an indexed note made unreadable later: every `orion index` skips it and keeps the
    # version it indexed, so it is skipped for status too, not modified for good
    with open(k / "empty.md", "ab") as fh:
        fh.write(b"\xff")
    assert "previous indexed version kept" in invoke("index", "--root", str(project)).stderr
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["up_to_date"] and st["stale"]["modified"] == [], st["stale"]
    assert [s["message"].endswith("(its indexed version kept)") for s in st["skipped"] if s["path"] == "02_knowledge/empty.md"] == [True]
    assert invoke("status", "--check", "--root", str(project)).exit_code == 0


def test_status_says_when_the_next_index_run_resolves_every_link_again(project, fake_embedder, monkeypatch):
    """After an upgrade whose link rules differ from the index's, status says so, --check
    fails, and one index run (nothing re-parsed or embedded) clears it."""
    from oriongraph_cli import graph

    monkeypatch.setattr(graph, "LINK_RULES", 1)
    invoke("index", "--root", str(project), "--quiet")
    monkeypatch.setattr(graph, "LINK_RULES", 2)
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["relink"] == "link rules changed (1 -> 2)" and st["rebuild"] is None and not st["up_to_date"]
    assert "Links:       link rules changed (1 -> 2)" in invoke("status", "--root", str(project)).stdout
    r = invoke("status", "--check", "--root", str(project))
    assert r.exit_code == ExitStatus.ERROR and "resolves every link again (link rules changed (1 -> 2))" in r.stderr
    r = invoke("index", "--root", str(project))
    assert r.exit_code == 0 and "Links resolved again: link rules changed (1 -> 2)." in r.stdout and "embedded 0 spans" in r.stdout
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["relink"] is None and st["up_to_date"]


def test_status_and_index_say_when_files_beside_the_notes_changed(project, fake_embedder):
    """An image added beside the notes: status says the next run looks up the links to
    files again, --check fails, and the index run says what it did."""
    invoke("index", "--root", str(project), "--quiet")
    (project / "02_knowledge" / "flow.png").write_bytes(b"PNG")
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["other_files_changed"] and not st["up_to_date"] and st["relink"] is None
    text = invoke("status", "--root", str(project)).stdout
    assert "Stale:       no note changed" in text and "looks up the links to them again" in text
    r = invoke("status", "--check", "--root", str(project))
    assert r.exit_code == ExitStatus.ERROR and "files other than notes were added or removed" in r.stderr
    r = invoke("index", "--root", str(project))
    assert r.exit_code == 0 and "Links to other files looked up again" in r.stdout and "embedded 0 spans" in r.stdout
    assert json.loads(invoke("status", "--root", str(project), "--json").stdout)["up_to_date"]


def test_status_says_when_the_next_index_run_rebuilds(project, fake_embedder, monkeypatch):
    """A setting the index was built with changed (here the span sizes; a new index schema
    after an upgrade alike): status names the reason, --check fails, and one index run
    clears it."""
    invoke("index", "--root", str(project), "--quiet")
    assert json.loads(invoke("status", "--root", str(project), "--json").stdout)["rebuild"] is None
    monkeypatch.setenv("ORION_SPAN_TARGET_TOKENS", "100")
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["rebuild"] == "span sizes changed ([160, 200, 24] -> [100, 200, 24])" and not st["up_to_date"]
    assert "Rebuild:     span sizes changed" in invoke("status", "--root", str(project)).stdout
    r = invoke("status", "--check", "--root", str(project))
    assert r.exit_code == ExitStatus.ERROR and "the next index run rebuilds it (span sizes changed" in r.stderr
    invoke("index", "--root", str(project), "--quiet")
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["rebuild"] is None and st["up_to_date"]


def test_compile_usage_errors(project):
    r = invoke("compile", "", "--root", str(project))
    assert r.exit_code == ExitStatus.USAGE and "intent is empty" in r.stderr
    r = invoke("compile", "x", "--root", str(project), "--budget", "0")
    assert r.exit_code == ExitStatus.USAGE
    r = invoke("compile", "x", "--root", str(project), "--where", "novalue")
    assert r.exit_code == ExitStatus.USAGE and "KEY=VALUE" in r.stderr
    r = invoke("compile", "x", "--root", str(project), "--lambda", "3")
    assert r.exit_code == ExitStatus.USAGE and "diversity_lambda" in r.stderr


def test_compile_without_index_json_error(project):
    r = invoke("compile", "retry", "--root", str(project), "--json")
    assert r.exit_code == ExitStatus.NO_INDEX
    err = json.loads(r.stdout)
    assert err["kind"] == "error" and err["exit_code"] == ExitStatus.NO_INDEX and "orion index" in err["hint"]


def test_bad_config_file_names_the_file(project):
    (project / ".orion.toml").write_text("budget = 'lots'\n")
    r = invoke("status", "--root", str(project))
    assert r.exit_code == ExitStatus.USAGE and ".orion.toml" in r.stderr and "budget" in r.stderr
    (project / ".orion.toml").write_text("no_such_setting = 1\n")
    r = invoke("status", "--root", str(project))
    assert r.exit_code == ExitStatus.USAGE and "unknown setting 'no_such_setting'" in r.stderr


# ---------------------------------------------------------------- finding the project, gating CI


def test_root_is_found_like_git_from_a_subfolder_with_C_and_ORION_ROOT(sample_index, tmp_path):
    import json as _json

    from conftest import run_orion as run, ws_spans

    sub = sample_index / "03_workstreams" / "ws-ingestion"
    for how in ({"cwd": sub}, {"cwd": tmp_path, "env": {"ORION_ROOT": str(sample_index)}}):
        r = run("status", "--json", **how)
        assert r.returncode == 0, r.stderr
        assert _json.loads(r.stdout)["root"] == str(sample_index)
    r = run("-C", str(sub), "status", "--json", cwd=tmp_path)
    assert r.returncode == 0 and _json.loads(r.stdout)["root"] == str(sample_index)
    r = run("compile", "retry backoff", "--json", "--no-usage-log", cwd=sub)
    assert r.returncode == 0 and ws_spans(_json.loads(r.stdout))
    # outside any project: the error names where it looked
    r = run("status", cwd=tmp_path)
    assert r.returncode == 3 and str(tmp_path) in r.stderr
    r = run("-C", str(tmp_path / "missing"), "status")
    assert r.returncode == 2 and "-C" in r.stderr


def test_status_and_dangling_links_can_gate_ci(sample_index, tmp_path):
    import re
    import shutil

    from conftest import run_orion as run

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    ok = run("status", "--check", "--root", str(root))
    assert ok.returncode == 0, ok.stderr
    assert re.search(r"indexed \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)", ok.stdout), ok.stdout  # ISO 8601
    (root / "01_context" / "glossary.md").write_text((root / "01_context" / "glossary.md").read_text() + "\nmore\n")
    stale = run("status", "--check", "--root", str(root))
    assert stale.returncode == 1 and "out of date" in stale.stderr and "orion index" in stale.stderr
    assert "modified 01_context/glossary.md" in stale.stdout
    d = run("links", "--dangling", "--check", "--root", str(root))
    assert d.returncode == 1 and "dangling link(s)" in d.stderr  # the sample has two
    assert run("links", "--dangling", "--root", str(root)).returncode == 0
    # with --json, stdout is one document that says the check failed (no error object after it)
    for args in (("status", "--check", "--json"), ("links", "--dangling", "--check", "--json")):
        r = run(*args, "--root", str(root))
        assert r.returncode == 1, r.stderr
        doc = json.loads(r.stdout)
        assert doc["check"]["passed"] is False and doc["check"]["message"] in r.stderr
    fresh = run("status", "--check", "--json", "--root", str(sample_index))
    assert fresh.returncode == 0 and json.loads(fresh.stdout)["check"] == {"passed": True, "message": None, "hint": None}
    assert "check" not in json.loads(run("status", "--json", "--root", str(root)).stdout)  # only when asked


# ---------------------------------------------------------------- pipes get lines, terminals get tables


def _tty_run(args, env=None):
    """Run orion with stdout on a pseudo-terminal; returns what it printed there."""
    from conftest import run_on_tty

    return run_on_tty(args, env={"COLUMNS": "160", **(env or {})})


def test_a_pipe_gets_tab_separated_lines_with_line_provenance(sample_index):
    import re

    from conftest import run_orion as run

    root = ["--root", str(sample_index)]
    r = run("compile", "exponential backoff with jitter", *root, "--budget", "1500", "--no-usage-log")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines and not any(ch in r.stdout for ch in "│─┃━\x1b")
    for line in lines:
        where, span_id, score, tokens, _section = line.split("\t")  # COLUMNS["compile"]
        assert re.fullmatch(r"\d\d_[a-z_]+/.+\.md:L\d+(-L\d+)?", where) and re.fullmatch(r"[0-9a-f]{16}", span_id) and tokens.isdigit()
        assert re.fullmatch(r"\d+\.\d{4}", score)
    adr = [x for x in lines if "ADR-0007-exponential-backoff-with-jitter.md" in x]
    assert adr, r.stdout  # grep finds the document by its full name
    # the L-range is the span's place in the file
    first = adr[0].split("\t")
    path, lines_ = first[0].rsplit(":", 1)
    a, _, b = lines_.partition("-")
    text = (sample_index / path).read_text().splitlines()
    shown = run("show", first[1], *root).stdout
    assert shown.strip().splitlines()[0].strip() == text[int(a[1:]) - 1].strip()  # a pipe gets the quoted text

    s = run("search", "exponential backoff", *root, "-n", "5")
    assert s.returncode == 0 and len(s.stdout.splitlines()) == 5 and all(len(x.split("\t")) == 5 for x in s.stdout.splitlines())
    files = run("compile", "exponential backoff with jitter", *root, "-l", "--no-usage-log").stdout.splitlines()
    assert files and len(files) == len(set(files)) and all(f.endswith(".md") and "\t" not in f for f in files)
    import subprocess as sp
    import sys as _sys

    piped = sp.run([_sys.executable, "-m", "oriongraph_cli", "search", "-", *root, "-n", "3", "-l"],
                   input="per tenant rate limits", capture_output=True, text=True)
    assert piped.returncode == 0 and "rate-limits" in piped.stdout, piped.stderr
    links = run("links", "ADR-0007", *root).stdout.splitlines()
    assert links and all(x.split("\t")[0] in ("out", "in", "dangling") for x in links)
    dangling = run("links", "--dangling", *root).stdout.splitlines()
    assert dangling and all(re.fullmatch(r".+\.md:\d+", x.split("\t")[0]) for x in dangling)
    usage = run("usage", *root).stdout.splitlines()
    assert usage and all(len(x.split("\t")) == 3 for x in usage)


def test_colour_and_tables_follow_the_terminal_and_the_flags(sample_index):
    from conftest import run_orion as run

    args = ["search", "exponential backoff", "--root", str(sample_index), "-n", "2"]
    code, tty = _tty_run(args)
    assert code == 0 and "─" in tty and "\x1b[" in tty  # a terminal: a table, in colour
    code, tty = _tty_run(["--color", "never", *args])
    assert code == 0 and "─" in tty and "\x1b[" not in tty
    code, tty = _tty_run(args, env={"NO_COLOR": "1"})
    assert code == 0 and "\x1b[" not in tty
    forced = run("--color", "always", *args)
    assert forced.returncode == 0 and "\x1b[" in forced.stdout and "─" in forced.stdout
    assert "\x1b[" in run(*args, env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in run(*args, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    bad = run("--color", "sometimes", *args)
    assert bad.returncode == 2 and "--color" in bad.stderr
    import subprocess as sp
    import sys as _sys

    empty = sp.run([_sys.executable, "-m", "oriongraph_cli", "search", "-", "--root", str(sample_index)], input="", capture_output=True, text=True)
    assert empty.returncode == 2 and "intent is empty" in empty.stderr


def test_strict_judges_the_whole_index_not_only_what_changed(sample_index, tmp_path):
    import shutil

    from conftest import run_orion as run

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    (root / "01_context" / "bad-date.md").write_text("---\ncreated: 2026-02-30\n---\n# Bad date\n\nText.\n")
    assert run("index", "--root", str(root), "-q").returncode == 0  # warns, indexes
    for _ in range(2):  # nothing changed since: the same verdict every time
        r = run("index", "--root", str(root), "--strict")
        assert r.returncode == 6, r.stdout + r.stderr
        assert "bad-date.md:2: created" in r.stderr and "dangling link" in r.stderr
    (root / "01_context" / "bad-date.md").unlink()
    assert run("index", "--root", str(root), "-q").returncode == 0
    r = run("index", "--root", str(root), "--strict")
    assert r.returncode == 6 and "bad-date" not in r.stderr and "dangling link" in r.stderr  # the sample's two links remain


def test_every_output_the_cli_writes_fits_the_budget(sample_index, tmp_path):
    """README: the whole Markdown, XML or JSON output, and TASK_BRIEF.md, are at most --budget tokens."""
    import json as _json
    import xml.etree.ElementTree as ET

    from conftest import run_orion as run, ws_spans
    from oriongraph_cli.tokens import get_counter

    count = get_counter("tiktoken").count
    args = ["compile", "why did we replace ADR-0003", "--root", str(sample_index), "--budget", "1200", "--no-usage-log"]
    brief = tmp_path / "TASK_BRIEF.md"
    outs = {fmt: run(*args, "--format", fmt) for fmt in ("markdown", "xml", "json")}
    outs["brief"] = run(*args, "--format", "json", "--brief", str(brief))
    for fmt, r in outs.items():
        assert r.returncode == 0, r.stderr
        assert count(r.stdout) <= 1200, fmt
    assert count(brief.read_text()) <= 1200 and brief.read_text().startswith("# TASK BRIEF")
    root = ET.fromstring(outs["xml"].stdout)
    assert root.tag == "working_set" and root.findall("document")
    data = _json.loads(outs["json"].stdout)
    assert data["delivered_tokens"] == count(outs["json"].stdout) and ws_spans(data)
    # span ids are quoted by the prefix no other span of the index shares (8 hex digits on the
    # sample), and `orion show` reads each back
    json_ids = [i for d in data["documents"] for q in d["quotes"] for i in q["spans"]]
    assert json_ids and all(len(i) == 8 for i in json_ids)
    shown = run("show", json_ids[0], "--root", str(sample_index))
    assert shown.returncode == 0 and shown.stdout.strip()
    # XML names its text by `source` alone (path:lines at 1,000 tokens and up), which `orion show` reads back
    source = root.find("document").get("source")
    assert "spans" not in root.find("document").attrib and ":L" in source
    shown = run("show", source, "--root", str(sample_index))
    assert shown.returncode == 0 and shown.stdout.strip()
    assert outs["json"].stdout.count("\n") == 1  # one compact line
    md = outs["markdown"].stdout
    assert "tokens delivered" not in md  # under 3,000 tokens no summary line: the room goes to text
    big = run(*args[:-3], "--budget", "3200", "--no-usage-log", "--format", "markdown").stdout
    assert f"{count(big):,} / 3,200 tokens delivered" in big and count(big) <= 3200  # the line says its own count
    # --no-compress: nothing shortened
    plain = _json.loads(run(*args, "--json", "--no-compress").stdout)
    assert all("shortened" not in s for s in ws_spans(plain))
    # a budget below the framing is a usage error with a hint, not an overrun
    tiny = run(*args[:-3], "--budget", "10")
    assert tiny.returncode == 2 and "framing" in tiny.stderr and "--budget" in tiny.stderr


def test_readme_example_reading_order_merges_demotes_and_rewrites_links(sample_index):
    """README "What the working set looks like": merged quotes, demoted headings, root-relative links."""
    import re as _re

    from conftest import run_orion as run

    md = run("compile", "why did we replace ADR-0003", "--root", str(sample_index), "--budget", "2000",
             "-f", "markdown", "--no-usage-log").stdout
    docs = [line[3:].split(" · ")[0].split(":")[0] for line in md.splitlines() if line.startswith("## ")]
    assert len(docs) == len(set(docs)) and all(d.endswith(".md") or d == "Left out" for d in docs)  # one header per document
    # the header names the lines of each quote, path first; no span ids
    assert _re.search(r"^## \S+ADR-0007\S+\.md:L\d+-L\d+(,L\d+-L\d+)+ · accepted$", md, _re.M)
    assert not _re.search(r"^`L\d+", md, _re.M) and not _re.search(r"\b[0-9a-f]{16}\b", md)
    assert "#### ADR-0007: Exponential Backoff" in md and "\n# ADR-0007" not in md  # quoted headings demoted
    assert "[ADR-0003](03_workstreams/ws-ingestion/99_decisions/ADR-0003-fixed-interval-retries.md)" in md
    assert _re.search(r"^\[… skipped Alternatives considered …\]$", md, _re.M)  # the gap is named by its headings
    # the leading document, short enough, is quoted whole: one quote from its first line to its last
    assert _re.search(r"^## \S+ADR-0003\S+\.md:L11-L37 · superseded by ADR-0007$", md, _re.M)
    # the header's reference, several ranges and all, is what `orion show` reads: each range
    # as the file has it, […] between
    ref = _re.search(r"^## (\S+ADR-0007\S+\.md:L\d+-L\d+(?:,L\d+-L\d+)+) · accepted$", md, _re.M).group(1)
    path, ranges = ref.split(":")
    file_lines = (sample_index / path).read_text().splitlines()
    pieces = ["\n".join(file_lines[int(a) - 1:int(b)]) for a, b in (r[1:].split("-L") for r in ranges.split(","))]
    shown = run("show", ref, "--root", str(sample_index))
    assert shown.returncode == 0 and shown.stdout == "\n[…]\n".join(pieces) + "\n"


def test_a_shortened_quote_names_lines_that_orion_show_brings_whole(sample_index):
    """Markdown names a document's quotes by their lines in its header, not by span ids; a
    shortened quote shows […]; `orion show PATH:L12-L40` prints those lines exactly as the
    file has them."""
    import re as _re

    from conftest import run_orion as run

    md = run("compile", "add retry logic to the ingestion worker", "--root", str(sample_index), "--budget", "2000",
             "-f", "markdown", "--no-usage-log").stdout
    path, lines = None, None
    for block in md.split("\n## ")[1:]:
        m = _re.match(r"^(\S+\.md):(L\d+-L\d+)(?: · .*)?\n", block)
        if m and "[…]" in block:  # a document with a shortened quote: its first range
            path, lines = m.group(1), m.group(2)
            break
    assert lines, "a 2,000-token working set on the sample shortens at least one quote"
    assert not _re.search(r"\b[0-9a-f]{16}\b", md)  # no span ids in the reader-facing text
    r = run("show", f"{path}:{lines}", "--root", str(sample_index))
    a, b = (int(x) for x in lines[1:].split("-L"))
    assert r.returncode == 0 and r.stdout == "\n".join((sample_index / path).read_text().splitlines()[a - 1 : b]) + "\n"
    bad = run("show", f"{path}:L1-L99999", "--root", str(sample_index))
    assert bad.returncode == 7 and "lines" in bad.stderr and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) <= 2
    outside = run("show", "../../../../etc/passwd:L1", "--root", str(sample_index))
    assert outside.returncode == 7 and "root" in outside.stderr and "root:" not in outside.stdout


def test_under_1000_tokens_a_header_names_its_path_and_orion_show_path_prints_the_file(sample_index, tmp_path):
    """A working set under 1,000 tokens heads each document with its path alone; `orion show
    PATH` prints that file whole (a pipe gets the text, --json a `lines` record), and a path
    that is not a readable project file is one line naming it, exit 7."""
    import re as _re

    from conftest import run_orion as run

    md = run("compile", "add retry logic to the ingestion worker", "--root", str(sample_index), "--budget", "600",
             "-f", "markdown", "--no-usage-log").stdout
    headers = _re.findall(r"^## (\S+)(?: · .*)?$", md, _re.M)
    assert headers and all(h.endswith(".md") for h in headers)  # no :L12-L40 under 1,000 tokens
    path = headers[0]
    whole = (sample_index / path).read_text()
    r = run("show", path, "--root", str(sample_index))
    assert r.returncode == 0 and r.stdout == "\n".join(whole.splitlines()) + "\n"
    info = json.loads(run("show", path, "--root", str(sample_index), "--json").stdout)
    assert info["kind"] == "lines" and info["span_id"] is None and info["lines"] == f"L1-L{len(whole.splitlines())}"
    adr = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"
    by_id = run("show", "ADR-0007", "--root", str(sample_index))  # a document id, as --explain names documents
    assert by_id.returncode == 0 and by_id.stdout == "\n".join((sample_index / adr).read_text().splitlines()) + "\n"
    for ref, says in (("02_knowledge/no-such-note.md", "cannot read"), ("../../../../etc/passwd", "root"),
                      ("02_knowledge", "cannot read"), ("/etc/passwd", "cannot read"), ("ADR-9999", "document's id")):
        bad = run("show", ref, "--root", str(sample_index))
        assert bad.returncode == 7 and says in bad.stderr and "Traceback" not in bad.stderr, (ref, bad.stderr)
        assert len(bad.stderr.strip().splitlines()) <= 2 and "root:" not in bad.stdout


def test_json_with_the_usage_log_on_counts_its_episode_id(sample_index, tmp_path):
    """The episode id the usage log records is printed in the JSON document: it is decided
    before delivery, so the budget counts it (it used to be added after, 400 -> 406)."""
    import shutil

    from conftest import run_orion as run
    from oriongraph_cli.tokens import get_counter

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    count = get_counter("tiktoken").count
    for budget, intent in ((400, "retry budget for ingestion workers"), (1500, "why did we replace ADR-0003")):
        r = run("compile", intent, "--root", str(root), "--budget", str(budget), "--json")
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert count(r.stdout) <= budget and doc["delivered_tokens"] == count(r.stdout)
        assert isinstance(doc["episode_id"], str) and len(doc["episode_id"]) == 32
        log = (root / ".oriongraph" / "usage.jsonl").read_text()
        assert doc["episode_id"] in log  # the printed id is the one recorded
    # with --no-usage-log there is no record to name: the key is absent, as the README says
    r = run("compile", "retry budget", "--root", str(root), "--json", "--no-usage-log")
    assert "episode_id" not in json.loads(r.stdout)


def test_version_short_flag_and_help_command():
    from conftest import run_orion as run
    from oriongraph_cli import __version__

    assert run("-V").stdout.strip() == f"orion {__version__}"
    h = run("help", "compile")
    assert h.returncode == 0 and "orion compile" in h.stdout and "--budget" in h.stdout
    assert run("help").returncode == 0 and "compile" in run("help").stdout
    bad = run("help", "nope")
    assert bad.returncode == 2 and "no command 'nope'" in bad.stderr and "compile" in bad.stderr


def test_color_is_accepted_after_the_command(sample_index):
    """rg takes --color anywhere; so does orion (global options after the command move in
    front of it; after `--` every word is an argument)."""
    from conftest import run_orion as run
    from oriongraph_cli.cli import global_options_first

    after = run("search", "retry budget", "--root", str(sample_index), "-l", "--color", "never")
    before = run("--color", "never", "search", "retry budget", "--root", str(sample_index), "-l")
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and after.stdout.strip()
    assert run("search", "x", "--root", str(sample_index), "--color=blue").returncode == 2
    assert global_options_first(["compile", "--", "--color", "never"]) == ["compile", "--", "--color", "never"]
    assert global_options_first(["compile", "x", "--color=always"]) == ["--color=always", "compile", "x"]


def test_line_output_paths_follow_the_current_directory(sample_index, tmp_path):
    """As rg and fd: from a subfolder `-l | xargs cat` works; from above the project the
    paths carry the way down; JSON keeps root-relative paths."""
    import shutil
    import subprocess as sp

    from conftest import run_orion as run

    root = tmp_path / "repo" / "notes"
    shutil.copytree(sample_index, root)
    sub = root / "03_workstreams"
    for cwd, prefix in ((root, ""), (sub, None), (tmp_path / "repo", "notes/")):
        args = ("--root", str(root)) if cwd == tmp_path / "repo" else ()
        r = run("search", "retry budget", *args, "-l", cwd=cwd)
        assert r.returncode == 0, r.stderr
        paths = r.stdout.splitlines()
        assert paths and all((cwd / p).is_file() for p in paths), (cwd, paths)
        if prefix is not None:
            assert all(p.startswith(prefix) and not p.startswith("..") for p in paths)
        else:
            assert any(p.startswith("../") for p in paths) and all(not p.startswith("03_workstreams/") for p in paths)
        cat = sp.run(["xargs", "cat"], input=r.stdout, capture_output=True, text=True, cwd=cwd)
        assert cat.returncode == 0 and cat.stdout, cat.stderr
        lines = run("search", "retry budget", *args, "-n", "3", cwd=cwd).stdout.splitlines()
        assert all((cwd / x.split("\t")[0].rsplit(":", 1)[0]).is_file() for x in lines)
    j = json.loads(run("search", "retry budget", "--json", "-n", "3", cwd=sub).stdout)
    assert all(h["path"].startswith(("01_", "02_", "03_", "04_")) for h in j["hits"])


def test_a_compile_search_or_index_builds_only_its_own_command(monkeypatch):
    """``run_command`` hands typer an app holding just the compile, search or index it runs
    (the other commands' options are never built); help, completion and every other
    command line get the whole app."""
    from oriongraph_cli import cli

    for argv, name in ((["compile", "retry logic", "--json"], "compile"), (["--color", "never", "search", "q"], "search"),
                       (["index", "--hook"], "index")):
        one = cli._app_for(argv)
        assert [c.name for c in one.registered_commands] == [name]
        assert one.registered_callback is cli.app.registered_callback
    for argv in (["compile", "x", "--help"], ["index", "--help"], ["status"], ["--version"], []):
        assert cli._app_for(argv) is cli.app
    monkeypatch.setenv("_ORION_COMPLETE", "complete_bash")
    assert cli._app_for(["compile", "x"]) is cli.app


def test_usage_errors_are_the_same_from_the_one_command_app(capsys):
    from oriongraph_cli import cli

    outs = []
    for make in (lambda argv: cli.app, cli._app_for):
        for argv in (["compile"], ["compile", "x", "--bogus"], ["search", "q", "--top-k", "many"]):
            try:
                make(argv)(args=argv, prog_name="orion", standalone_mode=True)
            except SystemExit as exc:
                outs.append((argv, exc.code, capsys.readouterr()))
    assert outs[:3] == outs[3:] and all(code == 2 for _a, code, _o in outs)


def test_a_site_url_link_resolves_and_a_quote_names_the_page(project, fake_embedder):
    """A page linked by its site URL (/manual/purge-cache.html) is an edge, not a dangling
    link, and a delivered quote's link names the page's path (what `orion show` reads)."""
    page = project / "02_knowledge/ops/purge-cache.md"
    page.parent.mkdir(parents=True)
    page.write_text("---\ntitle: Purge the cache\n---\n# Purge the cache\n\n## One page\n\nPurge one page from the CDN with the purge task.\n")
    src = project / "02_knowledge/research/token-budgets.md"
    src.write_text(src.read_text() + "\n## Zanzibar quokka caching\n\nA zanzibar quokka page is stale: [purge it](/manual/purge-cache.html#one-page).\n")
    assert invoke("index", "--root", str(project), "--quiet").exit_code == 0
    r = invoke("links", "--dangling", "--json", "--root", str(project))
    assert "/manual/purge-cache.html#one-page" not in r.stdout
    r = invoke("links", "02_knowledge/research/token-budgets.md", "--json", "--root", str(project))
    assert "02_knowledge/ops/purge-cache.md" in r.stdout
    r = invoke("compile", "zanzibar quokka caching", "--root", str(project), "--format", "markdown", "--budget", "2000", "--no-usage-log")
    assert r.exit_code == 0, r.stderr
    assert "[purge it](02_knowledge/ops/purge-cache.md#one-page)" in r.stdout
    assert invoke("show", "02_knowledge/ops/purge-cache.md", "--root", str(project)).exit_code == 0


def test_a_link_to_the_projects_own_repository_by_web_address_is_an_edge(project, fake_embedder):
    """In a git work tree whose remote is the forge's repository, a link to one of its files by
    its web address is an edge to the file (a quote keeps the address as written); the remote
    removed, status says every link is resolved again, and the index run makes it external; the
    ``repository`` setting names the repository without git, a list in .orion.toml."""
    import subprocess

    subprocess.run(["git", "-C", str(project), "init", "-q"], check=True)
    subprocess.run(["git", "-C", str(project), "remote", "add", "origin", "git@github.com:acme/lumen.git"], check=True)
    src = project / "02_knowledge/research/token-budgets.md"
    address = "https://github.com/acme/lumen/blob/main/03_workstreams/ws-ingestion/design/worker.md"
    src.write_text(src.read_text() + f"\n## Zanzibar quokka retries\n\nA zanzibar quokka retries as [the worker does]({address}).\n")
    assert invoke("index", "--root", str(project), "--quiet").exit_code == 0

    def targets():
        r = invoke("links", "02_knowledge/research/token-budgets.md", "--json", "--root", str(project))
        return {e["dst_path"] for e in json.loads(r.stdout)["out"].get("REF", [])}

    assert "03_workstreams/ws-ingestion/design/worker.md" in targets()
    assert json.loads(invoke("status", "--root", str(project), "--json").stdout)["repositories"] == ["github.com/acme/lumen"]
    assert "Repository:  github.com/acme/lumen" in invoke("status", "--root", str(project)).stdout
    r = invoke("compile", "zanzibar quokka retries", "--root", str(project), "--format", "markdown", "--budget", "2000", "--no-usage-log")
    assert f"[the worker does]({address})" in r.stdout  # a web address is quoted as written
    subprocess.run(["git", "-C", str(project), "remote", "remove", "origin"], check=True)
    st = json.loads(invoke("status", "--root", str(project), "--json").stdout)
    assert st["relink"] == "the project's repositories changed (now none)" and not st["up_to_date"]
    r = invoke("index", "--root", str(project))
    assert "Links resolved again: the project's repositories changed (now none)." in r.stdout and "embedded 0 spans" in r.stdout
    assert "03_workstreams/ws-ingestion/design/worker.md" not in targets()
    assert "acme/lumen" not in r.stdout + r.stderr  # external again, not dangling
    assert "acme/lumen" not in invoke("links", "--dangling", "--root", str(project)).stdout
    (project / ".orion.toml").write_text('repository = ["https://github.com/acme/lumen", "https://gitlab.com/acme/mirror"]\n')
    assert invoke("config", "repository", "--root", str(project)).stdout.strip() == "https://github.com/acme/lumen, https://gitlab.com/acme/mirror"
    assert invoke("index", "--root", str(project), "--quiet").exit_code == 0
    assert "03_workstreams/ws-ingestion/design/worker.md" in targets()
    for bad in ('repository = "not a repository"\n', "repository = [1]\n", 'repository = "/srv/git/lumen"\n'):
        (project / ".orion.toml").write_text(bad)
        r = invoke("index", "--root", str(project))
        assert r.exit_code == ExitStatus.USAGE and "repository" in r.stderr and "Traceback" not in r.stderr, bad
        assert len(r.stderr.strip().splitlines()) <= 2
