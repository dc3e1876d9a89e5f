"""Conventions users bring from git, ripgrep and fd, run through the real CLI in
subprocesses: -q, -o FILE, -0, config with origins, init, completion of option values."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO, run_orion

FIXTURE_QUERIES = REPO / "bench" / "fixture_queries.jsonl"
ALL_COMMANDS = ["index", "status", "compile", "search", "show", "links", "usage", "eval", "mcp", "watch", "help", "man"]


@pytest.fixture
def writable(sample_index, tmp_path):
    """A copy of the indexed sample that a test may change."""
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    return root


@pytest.mark.parametrize("cmd", ALL_COMMANDS)
def test_every_command_takes_quiet(cmd):
    r = run_orion(cmd, "--help")
    assert r.returncode == 0 and "--quiet" in r.stdout and "-q" in r.stdout, r.stdout


def test_quiet_silences_progress_and_notes_but_not_data_or_errors(writable, tmp_path):
    root = ["--root", str(writable)]
    (writable / "01_context" / "quiet.md").write_text("# Quiet\n\nA note added so that index has work to do.\n")
    r = run_orion("status", "--check", "-q", *root)
    assert (r.returncode, r.stdout) == (1, "") and r.stderr.startswith("error: the index is out of date")
    r = run_orion("index", "-q", *root)
    assert (r.returncode, r.stdout) == (0, "") and all(x.startswith("warning: ") for x in r.stderr.splitlines())
    r = run_orion("status", "--check", "-q", *root)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert run_orion("status", "-q", "--json", *root).stdout.startswith("{")  # asked-for data still prints

    brief = tmp_path / "BRIEF.md"
    loud = run_orion("compile", "retry storms", "--brief", str(brief), "--explain", *root)
    assert loud.returncode == 0 and "wrote " in loud.stderr and "recorded episode" in loud.stderr
    r = run_orion("compile", "retry storms", "--brief", str(brief), "--explain", "-q", *root)
    assert r.returncode == 0 and r.stderr == "" and r.stdout and brief.exists()
    span = run_orion("search", "retry storms", "-n", "1", *root).stdout.split("\t")[1]
    for args in (["search", "retry storms"], ["show", span], ["links", "ADR-0007"], ["usage"]):
        plain, quiet = run_orion(*args, *root), run_orion(*args, "-q", *root)
        assert (quiet.returncode, quiet.stderr) == (0, "") and quiet.stdout == plain.stdout, args
    r = run_orion("eval", str(FIXTURE_QUERIES), "--limit", "2", "--compare", "none", "-q", *root)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("system\t")
    assert run_orion("help", "-q").returncode == 0
    # errors still print, with their exit codes
    r = run_orion("compile", " ", "-q", *root)
    assert r.returncode == 2 and "error: the intent is empty" in r.stderr
    r = run_orion("show", "ffffffffffff", "-q", *root)
    assert r.returncode == 7 and r.stderr.startswith("error:")
