"""When git last committed each file (index/history.py): only the files asked for, found
newest first, untracked files left out, and nothing outside a git work tree."""

from __future__ import annotations

import os
import subprocess

import pytest

from oriongraph_cli.index import history
from oriongraph_cli.index.history import git_times


def _git(root, *args, when=None):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    if when is not None:
        env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"] = f"{when} +0000"
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "notes").mkdir(parents=True)
    _git(root, "init", "-q")
    names = ["notes/a.md", "notes/b.md", "notes/caf\u00e9 [draft]*.md", "notes/:magic.md"]
    for i, name in enumerate(names):  # one commit each, a day apart
        (root / name).write_text(f"# {i}\n")
        _git(root, "add", "--", name)
        _git(root, "commit", "-q", "-m", f"c{i}", when=1_700_000_000 + i * 86_400)
    (root / "notes/a.md").write_text("# edited\n")
    _git(root, "commit", "-q", "-am", "edit a", when=1_700_000_000 + 9 * 86_400)
    (root / "notes/new.md").write_text("# not committed\n")
    return root


def test_the_last_commit_of_each_file_asked_for(repo):
    got = git_times(repo, ["notes/a.md", "notes/b.md", "notes/new.md"])
    assert got == {"notes/a.md": 1_700_000_000 + 9 * 86_400, "notes/b.md": 1_700_000_000 + 86_400}


def test_names_git_would_read_as_patterns_or_quote(repo):
    """A non-ASCII name, glob characters and a leading colon are file names, not patterns."""
    got = git_times(repo, ["notes/caf\u00e9 [draft]*.md", "notes/:magic.md"])
    assert got == {"notes/caf\u00e9 [draft]*.md": 1_700_000_000 + 2 * 86_400, "notes/:magic.md": 1_700_000_000 + 3 * 86_400}


def test_many_files_read_the_log_for_all(repo, monkeypatch):
    monkeypatch.setattr(history, "NAMED", 1)  # more files than git is told by name
    got = git_times(repo, ["notes/a.md", "notes/b.md", "notes/new.md"])
    assert got == {"notes/a.md": 1_700_000_000 + 9 * 86_400, "notes/b.md": 1_700_000_000 + 86_400}
    assert set(git_times(repo)) == {"notes/a.md", "notes/b.md", "notes/caf\u00e9 [draft]*.md", "notes/:magic.md"}


def test_untracked_files_alone_read_no_log(repo, monkeypatch):
    calls = []
    real = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert git_times(repo, ["notes/new.md"]) == {} and not [c for c in calls if "log" in c[0]]
    assert git_times(repo, []) == {}


def test_outside_a_work_tree_or_without_git(tmp_path, monkeypatch):
    assert git_times(tmp_path, ["a.md"]) == {} and git_times(tmp_path) == {}
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on the PATH
    assert git_times(tmp_path, ["a.md"]) == {}


def test_an_index_run_dates_a_note_without_a_date_by_its_last_commit(project, fake_embedder):
    """A note whose front matter gives no date is as old as its last commit; one git has
    never seen, as its file."""
    from oriongraph_cli.config import load_config
    from oriongraph_cli.index.indexer import index_project
    from oriongraph_cli.store.reader import IndexReader

    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "sample", when=1_600_000_000)
    note = project / "02_knowledge" / "undated.md"
    note.write_text("# Undated note\n\nNo date in front matter.\n")
    _git(project, "add", "--", "02_knowledge/undated.md")
    _git(project, "commit", "-q", "-m", "undated", when=1_650_000_000)
    cfg = load_config(project)
    index_project(cfg)
    note.write_text(note.read_text() + "\nAn edit not committed yet.\n")
    (project / "02_knowledge" / "fresh.md").write_text("# Fresh note\n\nNever committed.\n")
    index_project(cfg)
    reader = IndexReader(cfg, load_embedder=False)
    try:
        docs = {d["path"]: d for d in reader.documents}
    finally:
        reader.close()
    assert (docs["02_knowledge/undated.md"]["created_source"], docs["02_knowledge/undated.md"]["created_at"]) == ("git", 1_650_000_000)
    assert docs["02_knowledge/fresh.md"]["created_source"] == "mtime"


def test_a_checkouts_fsmonitor_command_is_never_run(repo, tmp_path):
    """A repository's own configuration may name a command git runs to list changed files
    (core.fsmonitor): reading commit times never runs it — a checkout from elsewhere is not
    trusted to run commands."""
    from oriongraph_cli.index.remotes import own_repository

    ran = tmp_path / "fsmonitor-ran"
    _git(repo, "config", "core.fsmonitor", f"touch {ran}")
    git_times(repo, ["notes/a.md", "notes/new.md"])
    own_repository(repo)
    assert not ran.exists()
