"""The git pre-commit hook, with the real `pre-commit` in a temp git repository.

The hooks file under test is this checkout's `.pre-commit-hooks.yaml`, committed into a
small hook repository of its own (pre-commit clones hook repositories by rev); the
`orion-index-system` hook runs the `orion` of this environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SAMPLE

pytestmark = pytest.mark.slow


def git(cwd: Path, *args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)


@pytest.fixture
def hook_env(tmp_path):
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "ORION_LOCK_TIMEOUT": "2",
    }


def _hook_repo(tmp_path: Path, env) -> tuple[Path, str]:
    repo = tmp_path / "hooks"
    repo.mkdir()
    shutil.copy(REPO / ".pre-commit-hooks.yaml", repo / ".pre-commit-hooks.yaml")
    assert git(repo, "init", "-q", env=env).returncode == 0
    git(repo, "add", ".", env=env)
    assert git(repo, "commit", "-qm", "hooks", env=env).returncode == 0
    return repo, git(repo, "rev-parse", "HEAD", env=env).stdout.strip()


def _project(tmp_path: Path, env, *, subdir: str = "", args: str = "") -> Path:
    """A git repository holding the sample project (at its root or in ``subdir``), with
    the hook installed as the README shows."""
    hooks, rev = _hook_repo(tmp_path, env)
    work = tmp_path / "work"
    shutil.copytree(SAMPLE, work / subdir if subdir else work, ignore=shutil.ignore_patterns(".oriongraph"))
    (work / "src").mkdir()
    (work / "src" / "app.py").write_text("print('hi')\n")
    (work / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {hooks}\n"
        f"    rev: {rev}\n"
        "    hooks:\n"
        "      - id: orion-index-system\n" + (f"        args: {args}\n" if args else "")
    )
    assert git(work, "init", "-q", env=env).returncode == 0
    r = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=work, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr + r.stdout
    return work


def commit(work: Path, env, message: str) -> subprocess.CompletedProcess:
    git(work, "add", "-A", env=env)
    return git(work, "commit", "-m", message, env=env)


def test_hook_indexes_on_note_commits_only_and_never_blocks(tmp_path, hook_env):
    work = _project(tmp_path, hook_env)
    state = work / ".oriongraph"
    r = commit(work, hook_env, "notes")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "orion index (installed orion)" in r.stdout + r.stderr and "Passed" in r.stdout + r.stderr
    assert (state / "CURRENT").exists()
    first = (state / "CURRENT").read_text()

    # a code-only commit does not run it
    (work / "src" / "app.py").write_text("print('bye')\n")
    r = commit(work, hook_env, "code")
    assert r.returncode == 0 and "Skipped" in r.stdout + r.stderr, r.stdout + r.stderr
    assert (state / "CURRENT").read_text() == first

    # a busy index: the hook says who holds it, waits briefly, warns, and lets the commit through
    from conftest import flock_held

    glossary = work / "01_context" / "glossary.md"
    glossary.write_text(glossary.read_text() + "\nA new line.\n")
    (state / "writer.pid").write_text(f"{os.getpid()}\n")
    with flock_held(state / "orion.lock"):
        r = commit(work, hook_env, "busy")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert f"waiting for the index lock held by pid {os.getpid()}" in out and "the commit goes ahead" in out

    # a damaged index: the commit goes through and the hook repairs it
    gen = state / "gen" / (state / "CURRENT").read_text().strip()
    data = bytearray((gen / "registry.sqlite").read_bytes())
    data[20:28] = b"\xff" * 8
    (gen / "registry.sqlite").write_bytes(bytes(data))
    glossary.write_text(glossary.read_text() + "\nAnother line.\n")
    r = commit(work, hook_env, "damaged")
    assert r.returncode == 0, r.stdout + r.stderr
    st = subprocess.run([sys.executable, "-m", "oriongraph_cli", "status", "--check", "--root", str(work)],
                        capture_output=True, text=True, env=hook_env)
    assert st.returncode == 0, st.stdout + st.stderr


def test_hook_in_a_monorepo_with_notes_under_docs(tmp_path, hook_env):
    work = _project(tmp_path, hook_env, subdir="docs", args="[--root, docs]")
    r = commit(work, hook_env, "notes under docs/")
    assert r.returncode == 0 and "Passed" in r.stdout + r.stderr, r.stdout + r.stderr
    assert (work / "docs" / ".oriongraph" / "CURRENT").exists()


def test_hook_without_the_root_argument_warns_and_lets_the_commit_through(tmp_path, hook_env):
    work = _project(tmp_path, hook_env, subdir="docs")
    r = commit(work, hook_env, "forgot args")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "args: [--root, docs]" in out and "the commit goes ahead" in out


def test_system_hook_without_orion_on_path_warns_and_lets_the_commit_through(tmp_path, hook_env):
    """An IDE or a shell without orion's environment: the commit is not blocked."""
    work = _project(tmp_path, hook_env)
    # pre-commit's own launcher keeps working (git's hook script names its interpreter);
    # PATH holds git and sh but no orion
    bare = {**hook_env, "PATH": os.pathsep.join(d for d in ("/usr/bin", "/bin") if Path(d).is_dir())}
    assert shutil.which("orion", path=bare["PATH"]) is None
    r = commit(work, bare, "notes, no orion here")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "orion is not on PATH here" in out and "the commit goes ahead" in out
    assert not (work / ".oriongraph" / "CURRENT").exists()


def test_the_readme_snippet_works_after_autoupdate(tmp_path, hook_env):
    """The README's configuration as written (only the repository's address replaced):
    `pre-commit autoupdate --freeze` pins the newest commit, and a commit of notes passes."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    snippet = re.search(r"```yaml\n(# \.pre-commit-config\.yaml.*?)```", readme, re.S).group(1)
    hooks, head = _hook_repo(tmp_path, hook_env)
    work = tmp_path / "work"
    shutil.copytree(SAMPLE, work, ignore=shutil.ignore_patterns(".oriongraph"))
    (work / ".pre-commit-config.yaml").write_text(re.sub(r"repo: \S+", f"repo: {hooks}", snippet), encoding="utf-8")
    assert git(work, "init", "-q", env=hook_env).returncode == 0
    pc = [sys.executable, "-m", "pre_commit"]
    r = subprocess.run([*pc, "autoupdate", "--freeze"], cwd=work, capture_output=True, text=True, env=hook_env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"rev: {head}" in (work / ".pre-commit-config.yaml").read_text()
    assert subprocess.run([*pc, "install"], cwd=work, capture_output=True, text=True, env=hook_env).returncode == 0
    r = commit(work, hook_env, "notes")
    assert r.returncode == 0 and "Passed" in r.stdout + r.stderr, r.stdout + r.stderr
    assert (work / ".oriongraph" / "CURRENT").exists()
