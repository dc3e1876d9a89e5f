"""Hostile input and faults, against the real CLI in subprocesses.

Each test builds its inputs in a temp project beside an ``outside/`` folder of victim
files, runs `orion` as a user (or an attacker) would, and asserts: the documented exit
code, a one-line message naming the file and the fix, no traceback, nothing outside the
project read or changed, and the rest of the project still indexed and compilable.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_orion, ws_spans

pytestmark = pytest.mark.slow

GOOD = "---\ntitle: Retry policy\nstage: design\ntags: [retry]\n---\n# Retry policy\n\nWorkers retry failed jobs with exponential backoff and jitter.\n"
OTHER = "---\ntitle: Queue notes\n---\n# Queue\n\nThe queue keeps jobs for seven days before they expire.\n"


def tree_hash(path: Path) -> str:
    """A hash of every name, type, size and content under ``path`` (links not followed)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(path)):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            p = os.path.join(dirpath, name)
            h.update(p.encode("utf-8", "surrogateescape"))
            st = os.lstat(p)
            h.update(str((st.st_mode, st.st_size)).encode())
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            elif os.path.isfile(p):
                h.update(Path(p).read_bytes())
    return h.hexdigest()


@pytest.fixture
def world(tmp_path):
    """(project root, outside folder holding victim files)."""
    outside = tmp_path / "outside"
    (outside / "secrets").mkdir(parents=True)
    (outside / "secrets" / "passwd.md").write_text("# Secret\n\nroot:x:0:0:TOPSECRETVALUE\n")
    (outside / "keep.txt").write_text("do not delete\n")
    root = tmp_path / "proj"
    for d in ("01_context", "02_knowledge", "03_workstreams/ws-a"):
        (root / d).mkdir(parents=True)
    (root / "02_knowledge" / "retry.md").write_text(GOOD)
    (root / "03_workstreams" / "ws-a" / "queue.md").write_text(OTHER)
    return root, outside


def orion(*args, root: Path, env=None, timeout=120):
    r = run_orion(*args, "--root", str(root), env=env, timeout=timeout)
    assert "Traceback" not in r.stderr, r.stderr
    assert "terminate called" not in r.stderr, r.stderr
    return r


def indexed_paths(root: Path) -> set[str]:
    """Every indexed document a search ranks (a compile delivers the same text only once,
    so identical copies would hide each other there)."""
    r = orion("search", "retry backoff queue jobs", "-n", "1000", "--files-only", root=root)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


# ---------------------------------------------------------------- 1. one file never stops the run


def test_one_bad_file_never_stops_the_run(world):
    root, outside = world
    k = root / "02_knowledge"
    before = tree_hash(outside)
    (k / "copy.md").write_text(GOOD)  # byte-identical copy
    (k / "stub1.md").write_text("# TODO\n\nstub\n")
    (k / "stub2.md").write_text("# TODO\n\nstub\n")  # two identical stubs
    os.symlink("retry.md", k / "alias.md")  # in-root symlink alias
    (root / "01_context" / "a").mkdir()
    (root / "01_context" / "b").mkdir()
    os.symlink("../b", root / "01_context" / "a" / "to_b")  # two directories linked to each other
    os.symlink("../a", root / "01_context" / "b" / "to_a")
    (root / "01_context" / "a" / "in_a.md").write_text("# In A\n\nA note in folder a.\n")
    (k / "baddate.md").write_text("---\ncreated: 2026-02-30\npriority: .inf\n---\n# Bad date\n\nbody one\n")
    (k / "overflow.md").write_text("---\ncreated: 99999999999999999999999\npriority: 99999999999999999999\ndate: .nan\n---\n# Overflow\n\nbody two\n")
    (k / "deep.md").write_text("---\nx: " + "[" * 10000 + "]" * 10000 + "\n---\n# Deep\n\nbody three\n")
    bomb = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for n in "bcdefghi":
        bomb += f"{n}: &{n} [" + ",".join([f"*{prev}"] * 9) + "]\n"
        prev = n
    (k / "bomb.md").write_text("---\n" + bomb + "---\n# Bomb\n\nbody four\n")
    (k / "listtitle.md").write_text("---\ntitle: [a, b]\nstatus: {x: 1}\ntags: {a: 1}\nlinks: 5\nsupersedes: [1, {x: 2}]\n---\n# Odd\n\nbody five\n")
    with open(os.fsencode(k) + b"/bad\xff.md", "wb") as fh:
        fh.write(b"# Latin-1 name\n\nbody\n")
    (k / "new\nline.md").write_text("# newline\n\nbody\n")
    os.mkfifo(k / "fifo.md")
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(k / "sock.md"))
    os.link(k / "retry.md", k / "hardlink.md")  # a hard link alias
    os.symlink("/dev/zero", k / "zero.md")
    os.symlink(str(outside / "secrets" / "passwd.md"), k / "leak.md")
    (k / "dag").mkdir()
    for i in range(25):  # a DAG of links: exponential for a walk that tracks only ancestors
        (k / "dag" / f"d{i + 1}").mkdir()
        for s in "ab":
            os.symlink(f"../d{i + 1}", k / "dag" / (f"d{i}" if i else "") / f"l{s}") if i else os.symlink(f"d{i + 1}", k / "dag" / f"l{s}")
    (k / "dag" / "d25" / "leaf.md").write_text("# Leaf\n\ndeep leaf note\n")

    started = time.monotonic()
    r = orion("index", root=root, timeout=120)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - started < 60
    err = r.stderr
    for name, words in {
        "baddate.md:2": "not a valid date", "baddate.md:3": "priority", "overflow.md:2": "not a valid date",
        "overflow.md:3": "priority", "deep.md": "nested deeper", "bomb.md": "aliases are expanded",
        "bad\\xff.md": "rename it", "new\\x0aline.md": "rename it", "fifo.md": "FIFO", "sock.md": "socket", "zero.md": "leaves the project root",
        "leak.md": "leaves the project root", "alias.md": "symlink to 02_knowledge/retry.md; indexed once", "listtitle.md": "title",
    }.items():
        assert any(name in line and words in line for line in err.splitlines()), (name, err)
    assert "TOPSECRETVALUE" not in r.stdout + err
    paths = indexed_paths(root)
    assert {"02_knowledge/retry.md", "02_knowledge/copy.md", "03_workstreams/ws-a/queue.md"} <= paths
    assert not any("leak" in p or "zero" in p or "alias" in p for p in paths)
    assert "02_knowledge/hardlink.md" in paths  # a hard link is another name, indexed like a copy
    leaf = orion("search", "deep leaf note", "--json", root=root)
    assert any(h["metadata"]["filepath"].endswith("leaf.md") for h in json.loads(leaf.stdout)["hits"])
    st = orion("status", "--json", root=root, timeout=60)  # the FIFO must not hang the stale check
    assert st.returncode == 0 and json.loads(st.stdout)["up_to_date"], st.stdout
    assert orion("index", root=root).returncode == 0  # and again, incrementally
    assert tree_hash(outside) == before
    registry = root / ".oriongraph"
    assert "TOPSECRETVALUE".encode() not in b"".join(p.read_bytes() for p in registry.rglob("*") if p.is_file())
    sock.close()


def test_front_matter_bounds():
    from oriongraph_cli.index.parse import split_front_matter

    for raw, words in (("x: " + "a" * 70_000, "larger than 64 KiB"), ("x: " + "[" * 40 + "]" * 40, "nested deeper than 32")):
        meta, _start, warnings = split_front_matter("01_context/x.md", f"---\n{raw}\n---\nbody\n")
        assert meta == {} and any(words in w.message for w in warnings), (words, warnings)
    meta, _start, warnings = split_front_matter("01_context/x.md", "---\ncreated: 2026-02-30\ntitle: ok\n---\nbody\n")
    assert meta == {"title": "ok"} and warnings[0].line == 2 and "created" in warnings[0].message


def test_front_matter_values_are_checked_and_json_safe():
    """Every value a YAML front matter can hold parses into JSON-safe metadata or a warning."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from oriongraph_cli.index.parse import parse_document

    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=20), st.sampled_from(["2026-02-30", "2026-13-01", "9999-12-31", "0000-01-01", "1e400", ".inf", ".nan", "~"]),
    )
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=12)
    keys = st.sampled_from(["title", "id", "stage", "workstream", "tags", "created", "date", "status", "priority", "links", "supersedes", "owner"])

    @settings(max_examples=300, deadline=None)
    @given(st.dictionaries(keys, values, max_size=6))
    def check(meta):
        import yaml

        text = "---\n" + yaml.safe_dump(meta, allow_unicode=True) + "---\n# Body\n\ntext\n"
        doc, warnings = parse_document("02_knowledge/x.md", text.encode(), text, mtime=0.0)
        json.dumps(doc.meta, allow_nan=False)
        assert isinstance(doc.title, str) and isinstance(doc.created_at, int)
        p = doc.meta.get("priority")
        assert p is None or (isinstance(p, int) and 1 <= p <= 10)
        assert all(w.line is not None for w in warnings if w.kind == "front-matter")

    check()


# ---------------------------------------------------------------- 2. nothing outside is read or written


@pytest.mark.parametrize("link", [".oriongraph", ".oriongraph/staging", ".oriongraph/gen"])
def test_symlinked_state_directory_is_refused(world, link):
    root, outside = world
    if link != ".oriongraph":
        assert orion("index", root=root).returncode == 0
        target = root / link
        import shutil

        shutil.rmtree(target)
    victim = outside / "secrets"
    os.symlink(victim, root / link)
    before = tree_hash(outside)
    for args in (["index"], ["index", "--full"], ["compile", "retry"], ["status"]):
        r = orion(*args, root=root)
        assert r.returncode in (1, 4), (args, r.stderr)
        assert "symlink" in r.stderr and "rm " in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) <= 2
    assert tree_hash(outside) == before


def test_stage_folder_linked_outside_is_not_indexed(world):
    root, outside = world
    os.symlink(outside / "secrets", root / "04_artifacts")
    r = orion("index", root=root)
    assert r.returncode == 0 and "04_artifacts: symlink leaves the project root" in r.stderr
    assert not any(p.startswith("04_artifacts") for p in indexed_paths(root))


def test_symlink_swapped_between_walk_and_read_is_refused(world):
    from oriongraph_cli.index.walk import walk
    from oriongraph_cli.safeio import UnsafeFile, read_project_file

    root, outside = world
    files, _ = walk(root)
    f = next(x for x in files if x.rel == "02_knowledge/retry.md")
    target = root / f.rel
    # moved aside, not unlinked: its inode stays taken, so the file that replaces it below can
    # never reuse it (on ext4 and tmpfs a freed inode is handed out again, and the swap passed)
    os.rename(target, outside / "walked.md")
    os.symlink(outside / "secrets" / "passwd.md", target)  # the swap
    with pytest.raises(UnsafeFile) as err:
        read_project_file(root, f.rel, 1 << 20, expect=f.identity)
    assert err.value.kind == "outside-root"
    (root / "02_knowledge" / "tmp").write_text(GOOD)
    os.replace(root / "02_knowledge" / "tmp", target)  # replaced by another file: a different inode than the walk saw
    with pytest.raises(UnsafeFile) as err:
        read_project_file(root, f.rel, 1 << 20, expect=f.identity)
    assert err.value.kind == "changed"
    # an intermediate directory swapped for a link out of the root between check and open
    (root / "02_knowledge" / "sub").mkdir()
    (root / "02_knowledge" / "sub" / "n.md").write_text(OTHER)
    from oriongraph_cli import safeio

    real_inside = safeio.inside
    def racing_inside(r, rel):
        out = real_inside(r, rel)
        os.rename(root / "02_knowledge" / "sub", root / "02_knowledge" / "sub.old")
        os.symlink(outside / "secrets", root / "02_knowledge" / "sub")
        return out
    safeio.inside = racing_inside
    try:
        with pytest.raises(UnsafeFile):
            read_project_file(root, "02_knowledge/sub/passwd.md", 1 << 20)
    finally:
        safeio.inside = real_inside


def test_brief_never_overwrites_a_document_or_the_index(world):
    root, _outside = world
    assert orion("index", root=root).returncode == 0
    doc = root / "02_knowledge" / "retry.md"
    for target in (doc, root / "01_context" / "TASK_BRIEF.md", root / ".oriongraph" / "x.md"):
        r = orion("compile", "retry", "--brief", str(target), root=root)
        assert r.returncode == 2 and "--brief" in r.stderr and "hint:" in r.stderr, r.stderr
    assert doc.read_text() == GOOD and not (root / "01_context" / "TASK_BRIEF.md").exists()
    ok = orion("compile", "retry", "--brief", str(root / "TASK_BRIEF.md"), root=root)
    assert ok.returncode == 0 and (root / "TASK_BRIEF.md").read_text().startswith("# TASK BRIEF")


# ---------------------------------------------------------------- 3. special files and bombs are bounded


def test_replaced_huge_file_is_not_read_whole_by_status_or_compile(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    big = root / "02_knowledge" / "retry.md"
    with open(big, "wb") as fh:  # a sparse 4 GiB file: reading it whole would take minutes and memory
        fh.truncate(4 << 30)
    started = time.monotonic()
    st = orion("status", "--json", root=root, timeout=60)
    c = orion("compile", "retry backoff", "--json", root=root, timeout=60)
    assert time.monotonic() - started < 30
    # every `orion index` skips it and keeps the version it indexed: skipped, as the README says, not stale
    doc = json.loads(st.stdout)
    assert st.returncode == 0 and doc["stale"]["modified"] == [] and [s["path"] for s in doc["skipped"]] == ["02_knowledge/retry.md"]
    assert c.returncode == 0 and json.loads(c.stdout)["stats"]["stale_spans"] >= 1
    r = orion("index", root=root)
    assert r.returncode == 0 and "exceeds max_file_bytes" in r.stderr and "previous indexed version kept" in r.stderr


# ---------------------------------------------------------------- 4. a damaged index is detected and repaired


def _gen(root: Path) -> Path:
    return root / ".oriongraph" / "gen" / (root / ".oriongraph" / "CURRENT").read_text().strip()


@pytest.fixture(scope="module")
def two_generations(tmp_path_factory):
    """A project indexed, a note added, indexed again: built once for the module (two index
    runs), copied for each test by ``cp -a``, which keeps the hard links generations share."""
    root = tmp_path_factory.mktemp("two-generations") / "proj"
    for d in ("01_context", "02_knowledge", "03_workstreams/ws-a"):
        (root / d).mkdir(parents=True)
    (root / "02_knowledge" / "retry.md").write_text(GOOD)
    (root / "03_workstreams" / "ws-a" / "queue.md").write_text(OTHER)
    assert orion("index", root=root).returncode == 0
    (root / "01_context" / "new.md").write_text("# New\n\nA second generation.\n")
    assert orion("index", root=root).returncode == 0
    return root


@pytest.fixture
def indexed_twice(two_generations, tmp_path) -> Path:
    root = tmp_path / "proj"
    subprocess.run(["cp", "-a", str(two_generations), str(root)], check=True)
    return root


def _garble(path: Path, where: str) -> None:
    data = bytearray(path.read_bytes())
    if where == "truncate":
        path.write_bytes(bytes(data[: len(data) // 2]))
        return
    at = {"head": 16, "middle": len(data) // 2, "tail": len(data) - 10}[where]
    for i in range(at, min(at + 8, len(data))):
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("name,where", [
    ("registry.sqlite", "truncate"), ("registry.sqlite", "head"), ("registry.sqlite", "middle"),
    ("vectors/000002.f32", "truncate"), ("vectors/000002.f32", "head"), ("vectors/000002.ids", "tail"),
    ("vectors/segments.json", "head"),
    ("manifest.json", "head"),
])
def test_damaged_generation_is_detected_and_repaired(indexed_twice, name, where):
    root = indexed_twice
    gen = _gen(root)
    _garble(gen / name, where)
    st = orion("status", root=root)
    assert st.returncode == 0 and "Damaged:" in st.stdout and gen.name in st.stdout, st.stdout + st.stderr
    c = orion("compile", "retry", "--json", root=root)
    # the previous generation answers, with a warning naming the damage (a middle-of-file
    # garble only a full check sees is still answered from the intact parts or refused cleanly)
    assert c.returncode in (0, 4), c.stderr
    if c.returncode == 0:
        assert ws_spans(json.loads(c.stdout))
    r = orion("index", root=root)
    assert r.returncode == 0 and "Repaired:" in r.stdout and gen.name in r.stdout, r.stdout + r.stderr
    st = orion("status", "--json", root=root)
    assert json.loads(st.stdout)["damaged"] == [] and json.loads(st.stdout)["up_to_date"]
    assert "01_context/new.md" in indexed_paths(root)


def test_a_damaged_shared_segment_is_a_one_line_error_then_rebuilt(indexed_twice):
    """A segment every generation shares (hard-linked) damaged: no generation verifies, so a
    compile says what is damaged and how to repair it, and the next index rebuilds."""
    root = indexed_twice
    assert os.stat(_gen(root) / "vectors" / "000001.f32").st_nlink >= 2  # the copy kept the link
    _garble(_gen(root) / "vectors" / "000001.f32", "truncate")
    c = orion("compile", "retry", root=root)
    assert c.returncode == 4 and "damaged" in c.stderr and "orion index" in c.stderr and "Traceback" not in c.stderr
    assert len(c.stderr.strip().splitlines()) <= 2, c.stderr
    r = orion("index", root=root)
    assert r.returncode == 0 and "Repaired:" in r.stdout, r.stdout + r.stderr
    assert "01_context/new.md" in indexed_paths(root)
    assert orion("compile", "retry", "--json", root=root).returncode == 0


def test_every_generation_damaged_rebuilds_from_the_files(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    _garble(_gen(root) / "registry.sqlite", "head")
    c = orion("compile", "retry", root=root)
    assert c.returncode == 4 and "damaged" in c.stderr and "orion index" in c.stderr
    r = orion("index", root=root)
    assert r.returncode == 0 and "Repaired:" in r.stdout
    assert "02_knowledge/retry.md" in indexed_paths(root)


@pytest.mark.parametrize("junk", ["gen-file", "lock-dir", "current-garbage", "manifest-list"])
def test_odd_state_files_get_a_clear_error_or_repair(world, junk):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    state = root / ".oriongraph"
    if junk == "gen-file":
        (state / "gen" / "000002").write_text("not a generation")
    elif junk == "lock-dir":
        (state / "orion.lock").unlink(missing_ok=True)
        (state / "orion.lock").mkdir()
    elif junk == "current-garbage":
        (state / "CURRENT").write_bytes(b"\xff\xfe../../etc\n")
    else:
        (_gen(root) / "manifest.json").write_text("[1, 2]")
    (root / "01_context" / "new.md").write_text("# New\n\nmore\n")
    r = orion("index", root=root)
    if junk == "lock-dir":
        assert r.returncode == 1 and "orion.lock" in r.stderr and "rm -r" in r.stderr
        (state / "orion.lock").rmdir()
        r = orion("index", root=root)
    assert r.returncode == 0, r.stderr
    assert "01_context/new.md" in indexed_paths(root)


# ---------------------------------------------------------------- 5. clean exits


def test_errors_while_the_model_loads_exit_cleanly(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    for _ in range(4):
        r = orion("compile", "retry", "--stage", "designn", root=root)
        assert r.returncode == 2 and "did you mean design?" in r.stderr
        r = orion("search", "retry", "--workstream", "ws-b", root=root)
        assert r.returncode == 2 and "ws-a" in r.stderr


def test_a_closed_pipe_ends_quietly(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", "search", "retry", "--root", str(root), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader (`| head -0`) is gone before orion writes
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == "", err


def test_sigterm_behaves_like_ctrl_c(sample_index, tmp_path):
    import shutil

    root = tmp_path / "p"
    shutil.copytree(sample_index, root, ignore=shutil.ignore_patterns(".oriongraph"))
    proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", "index", "--root", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    staging = root / ".oriongraph" / "staging"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (staging.is_dir() and any(staging.iterdir())):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "terminated" in err and "Traceback" not in err
    assert not any(staging.iterdir())  # its build was cleaned up
    assert orion("index", root=root).returncode == 0


def test_full_disk_is_one_line_and_keeps_the_previous_index(world, monkeypatch):
    from typer.testing import CliRunner

    from oriongraph_cli import cli
    from oriongraph_cli.store import registry

    root, _ = world
    assert orion("index", root=root).returncode == 0
    before = tree_hash(root / ".oriongraph" / "gen")
    (root / "01_context" / "new.md").write_text("# New\n\nmore text\n")

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(root / ".oriongraph" / "staging" / "registry.sqlite"))

    monkeypatch.setattr(registry.Registry, "create", classmethod(lambda cls, *a, **k: full()))
    r = CliRunner().invoke(cli.app, ["index", "--root", str(root)])
    assert r.exit_code == 1
    assert "no space left on device while writing" in r.output and "previous index is intact" in r.output
    assert "Traceback" not in r.output
    assert tree_hash(root / ".oriongraph" / "gen") == before
    assert not any((root / ".oriongraph" / "staging").iterdir())


# ---------------------------------------------------------------- 6. settings validated in one place


@pytest.mark.parametrize("source,value,words", [
    ("env", ("ORION_BUDGET", "0"), "ORION_BUDGET=0: budget must be a positive integer"),
    ("toml", "budget = -100", "budget must be a positive integer"),
    ("toml", "budget = 2.9", "budget=2.9: budget must be"),
    ("toml", "budget = true", "budget=true: budget must be"),
    ("toml", "budget = inf", "budget must be"),
    ("toml", "[weights]\nsemantic = nan", "w_semantic must be a number from 0 to 1,000,000"),
    ("env", ("ORION_W_LEXICAL", "-1"), "ORION_W_LEXICAL=-1"),
    ("env", ("ORION_EMBED_BATCH_SIZE", "0"), "embed_batch_size must be"),
    ("env", ("ORION_LOCK_TIMEOUT", "nan"), "lock_timeout must be"),
    ("env", ("ORION_QUERY_THREADS", "-1"), "ORION_QUERY_THREADS=-1: query_threads must be an integer from 0 to 1024"),
    ("env", ("ORION_EMBED_THREADS", "two"), "ORION_EMBED_THREADS=two: embed_threads must be"),
    ("toml", "query_threads = 1.5", "query_threads must be"),
    ("pyproject", "[tool.oriongraph]\ntop_k = 0", "top_k must be"),
    ("toml", "span_max_tokens = 4000", "model's window"),
    ("flag", ["--top-k", "-1"], "--top-k=-1"),
    ("flag", ["--budget", "0"], "--budget=0"),
    ("flag", ["--budget", "99999999999999999999"], "budget must be a positive integer no larger than 10,000,000"),
    ("flag", ["--lambda", "nan"], "--lambda=nan"),
    ("toml", 'tokenizer = "bogus"', "tokenizer=bogus: tokenizer must be tiktoken, tiktoken:ENCODING or heuristic"),
    ("env", ("ORION_TOKENIZER", "tiktoken:"), "tokenizer must be"),
    ("flag", ["--weight", "graph=inf"], "--weight graph=inf"),
])
def test_every_setting_is_validated_whatever_its_source(world, source, value, words):
    root, _ = world
    env, extra = None, []
    if source == "env":
        env = {value[0]: value[1]}
    elif source == "toml":
        (root / ".orion.toml").write_text(value + "\n")
    elif source == "pyproject":
        (root / "pyproject.toml").write_text(value + "\n")
    else:
        extra = value
    r = orion("compile", "retry", *extra, root=root, env=env)
    assert r.returncode == 2, r.stderr
    assert words in r.stderr, r.stderr
    assert len([line for line in r.stderr.splitlines() if line.startswith("error:")]) == 1


def test_filters_are_checked_against_the_index_and_relaxation_is_stated(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    r = orion("compile", "retry", "--workstream", "ws-aa", root=root)
    assert r.returncode == 2 and "did you mean ws-a?" in r.stderr
    # valid values that match nothing together: relaxed, and the result says so on stdout
    r = orion("compile", "retry", "--workstream", "ws-a", "--tag", "retry", "--format", "markdown", root=root)
    assert r.returncode == 0 and "filters relaxed (nothing matched them together): tags" in r.stdout
    r = orion("compile", "retry", "--workstream", "ws-a", "--tag", "retry", "--no-relax", root=root)
    assert r.returncode == 5 and "--no-relax" in r.stderr


# ---------------------------------------------------------------- 7. change detection is exact


def test_same_size_edit_with_restored_mtime_is_reindexed(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    doc = root / "02_knowledge" / "retry.md"
    st = doc.stat()
    time.sleep(1.1)  # out of the racy window of the previous run
    assert orion("index", root=root).stdout.startswith("Nothing changed")
    doc.write_text(GOOD.replace("jitter", "JITTER"))  # same size
    os.utime(doc, ns=(st.st_atime_ns, st.st_mtime_ns))  # cp -p / tar / touch -r
    assert doc.stat().st_size == st.st_size and doc.stat().st_mtime_ns == st.st_mtime_ns
    st_json = json.loads(orion("status", "--json", root=root).stdout)
    assert st_json["stale"]["modified"] == ["02_knowledge/retry.md"]
    r = orion("index", root=root)
    assert "1 updated" in r.stdout, r.stdout
    shown = orion("search", "JITTER", "--json", root=root)
    assert "JITTER" in shown.stdout


def test_a_writer_that_waited_indexes_the_files_as_they_are_now(world):
    from conftest import flock_held

    root, _ = world
    assert orion("index", root=root).returncode == 0
    with flock_held(root / ".oriongraph" / "orion.lock"):
        proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", "index", "--root", str(root)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)  # it is waiting for the lock now
        (root / "01_context" / "late.md").write_text("# Late\n\nwritten while the writer waited\n")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "1 added" in out, out
    assert "01_context/late.md" in indexed_paths(root)


# ---------------------------------------------------------------- 8. output is safe for terminals


def test_control_sequences_from_files_never_reach_the_terminal(world):
    root, _ = world
    evil = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
    (root / "02_knowledge" / "evil.md").write_text(
        f"---\ntitle: \"Retry {evil} title\"\ntags: [retry]\nstatus: \"ok{evil}\"\n---\n# Retry {evil} heading\n\nRetry backoff {evil} body.\n\nSee [x](missing{evil}.md).\n"
    )
    os.makedirs(root / "02_knowledge" / "dir\x1b[31m")
    (root / "02_knowledge" / "dir\x1b[31m" / "n.md").write_text("# N\n\nretry\n")
    r = orion("index", root=root)
    assert r.returncode == 0
    outputs = [r.stdout, r.stderr]
    span = ws_spans(json.loads(orion("compile", "retry backoff", "--json", "--explain", root=root).stdout))[0]["span_id"]
    for args in (["compile", "retry backoff"], ["compile", "retry backoff", "--format", "markdown", "--explain"],
                 ["compile", "retry backoff", "--explain"], ["search", "retry"], ["show", span], ["status"],
                 ["links", "02_knowledge/evil.md"], ["links", "--dangling"], ["usage"]):
        out = orion(*args, root=root)
        assert out.returncode == 0, (args, out.stderr)
        outputs += [out.stdout, out.stderr]
    brief = root / "TASK_BRIEF.md"
    orion("compile", "retry backoff", "--brief", str(brief), root=root)
    outputs.append(brief.read_text())
    for text in outputs:
        assert not any(ch in text for ch in "\x1b\x07\x9b"), repr(text[:400])
    assert any("\\x1b" in text for text in outputs)  # shown, escaped, not dropped


@pytest.mark.parametrize("kind", ["link-out", "fifo", "deep"])
def test_config_file_is_read_only_as_a_regular_file_in_the_project(world, kind):
    root, outside = world
    cfg = root / ".orion.toml"
    if kind == "link-out":
        (outside / "evil.toml").write_text("budget = 5\n")
        os.symlink(outside / "evil.toml", cfg)
    elif kind == "fifo":
        os.mkfifo(cfg)
    else:
        cfg.write_text("x = " + "[" * 100_000 + "\n")
    r = orion("status", root=root, timeout=30)
    assert r.returncode == 2 and ".orion.toml" in r.stderr and "hint:" in r.stderr, r.stderr


def test_full_rebuild_keeps_what_cannot_be_read_now(world):
    root, _ = world
    assert orion("index", root=root).returncode == 0
    doc = root / "02_knowledge" / "retry.md"
    doc.unlink()
    os.mkfifo(doc)  # was a document; now cannot be read
    for args in (["index"], ["index", "--full"]):
        r = orion(*args, root=root)
        assert r.returncode == 0 and "previous indexed version kept" in r.stderr, r.stderr
        assert "02_knowledge/retry.md" in indexed_paths(root), args


def test_a_model_that_is_not_cached_fails_at_once_with_the_fix(world):
    root, _ = world
    started = time.monotonic()
    r = orion("index", root=root, env={"ORION_MODEL": "BAAI/bge-small-en-v1.5", "FASTEMBED_CACHE_PATH": str(root / "no-cache")})
    assert time.monotonic() - started < 20  # no download retries
    assert r.returncode == 1 and "does not download models" in r.stderr and "ORION_MODEL_PATH" in r.stderr, r.stderr
    assert "ERROR" not in r.stderr and len(r.stderr.strip().splitlines()) == 2


@pytest.mark.parametrize("args, setting", [
    (["--floor", "2"], "--relevance-floor=2.0"),
    (["--floor", "nan"], "--relevance-floor=nan"),
    (["--budget", "12"], "a budget of 12 tokens is smaller than the markdown output's own framing"),
    (["--budget", "1"], "a budget of 1 token is smaller than"),
])
def test_assembly_settings_out_of_range_are_one_line_usage_errors(project, fake_embedder, args, setting):
    from oriongraph_cli.cli import app
    from typer.testing import CliRunner

    r = CliRunner().invoke(app, ["index", "--root", str(project), "--quiet"])
    assert r.exit_code == 0
    r = CliRunner().invoke(app, ["compile", "retry", "--root", str(project), "-f", "markdown", "--no-usage-log", *args])
    assert r.exit_code == 2 and setting in r.stderr and "Traceback" not in r.stderr and "hint:" in r.stderr


def test_index_compile_eval_and_status_write_nothing_outside_the_project(world, tmp_path):
    """The libraries orion loads keep files of their own outside any project: tiktoken a
    copy of every vocabulary it reads in the temporary directory, which it reads back on
    later runs; onnxruntime a telemetry session file (a device id) there. With the temporary
    directory, HOME and the cache home empty folders of their own, a first index (which
    builds the int8 model), a compile, an eval and a status leave them empty."""
    root, _outside = world
    tmp, home, cache = tmp_path / "tmp", tmp_path / "home", tmp_path / "cache"
    for d in (tmp, home, cache):
        d.mkdir()
    # the libraries' own switches unset, as on a user's machine
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "ORT_DISABLE_TELEMETRY", "ORION_MODEL_CACHE")}
    env.update(TMPDIR=str(tmp), HOME=str(home), XDG_CACHE_HOME=str(cache))
    run = lambda *args: subprocess.run([sys.executable, "-m", "oriongraph_cli", *args, "--root", str(root)],  # noqa: E731
                                       capture_output=True, text=True, env=env, timeout=300)
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps({"id": "q1", "text": "retry backoff", "relevant": {"02_knowledge/retry.md": 1}}) + "\n")
    for args in (("index",), ("compile", "retry backoff", "--budget", "500"), ("eval", str(queries)), ("status",)):
        r = run(*args)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (args, r.stderr)
    assert [p.relative_to(tmp_path).as_posix() for d in (tmp, home, cache) for p in d.rglob("*")] == []
    assert list((root / ".oriongraph" / "models").glob("*.onnx"))  # the model was built, under the index


def test_a_setting_too_large_names_its_limit(world):
    """1e300 is finite and at least 0: the message names the largest value instead."""
    root, _ = world
    r = run_orion("serve", "--idle-timeout", "1e300", "--root", str(root))
    assert r.returncode == 2 and "must be a number from 0 to 31,536,000" in r.stderr, r.stderr


def test_settings_files_as_editors_and_other_tools_leave_them(tmp_path):
    """A byte order mark before .orion.toml's first line is read past, as notes' are; a
    pyproject.toml whose tool.oriongraph is no table is one message naming it, not an
    internal error, and a broken pyproject.toml is not to be removed."""
    root = tmp_path / "p"
    (root / "02_knowledge").mkdir(parents=True)
    (root / ".orion.toml").write_bytes(b"\xef\xbb\xbfbudget = 1500\n")
    r = run_orion("config", "budget", "--root", str(root))
    assert r.returncode == 0 and r.stdout.strip() == "1500", r.stderr
    (root / ".orion.toml").unlink()
    for body in ('[tool]\noriongraph = "s"\n', "[[tool.oriongraph]]\nbudget = 1\n"):
        (root / "pyproject.toml").write_text(body)
        r = run_orion("config", "budget", "--root", str(root))
        assert r.returncode == 2 and "pyproject.toml: [tool.oriongraph] is a" in r.stderr and "internal" not in r.stderr, r.stderr
    (root / "pyproject.toml").write_text("[tool.oriongraph\n")
    r = run_orion("config", "budget", "--root", str(root))
    assert r.returncode == 2 and "invalid TOML" in r.stderr and "remove the file" not in r.stderr, r.stderr


def test_a_full_disk_while_sqlite_writes_is_no_damaged_index():
    import sqlite3

    from oriongraph_cli.errors import as_orion_error

    err = as_orion_error(sqlite3.OperationalError("database or disk is full"))
    assert "no space left on device" in err.message and "intact" in err.message and int(err.exit_code) == 1
    assert int(as_orion_error(sqlite3.DatabaseError("file is not a database")).exit_code) == 4


def test_show_counts_lines_as_the_index_does(world, sample_index):
    """A form feed or U+2028 inside a line is that line's text: `orion show PATH:Lx-Ly` gives
    the lines grep -n and the index number, and `orion links` without a target is a usage
    error (exit 2)."""
    root, _ = world
    (root / "02_knowledge" / "ff.md").write_text("# T\n\nform\x0cfeed and line\u2028sep\r\n\n## Target\n\ntarget text\n")
    r = run_orion("show", "02_knowledge/ff.md:L5-L7", "--root", str(root))
    assert r.returncode == 0 and r.stdout == "## Target\n\ntarget text\n", (r.stdout, r.stderr)
    r = run_orion("show", "02_knowledge/ff.md:L3", "--root", str(root))
    assert "form" in r.stdout and "sep" in r.stdout and "\r" not in r.stdout
    assert run_orion("links", "--root", str(sample_index)).returncode == 2
    # the index itself and a binary file are no text `orion show` quotes
    for ref in (".oriongraph/CURRENT", "02_knowledge/../.oriongraph/CURRENT"):
        r = run_orion("show", ref, "--root", str(sample_index))
        assert r.returncode == 7 and "orion's index, not a project file" in r.stderr, r.stderr
    (root / "02_knowledge" / "blob.md").write_bytes(b"# x\x00\x01binary")
    r = run_orion("show", "02_knowledge/blob.md", "--root", str(root))
    assert r.returncode == 7 and "a binary file, not text" in r.stderr, r.stderr


def test_a_damaged_index_is_said_as_such_by_show_not_taken_for_an_unknown_id(sample_index, tmp_path):
    import shutil

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    gen = max((root / ".oriongraph" / "gen").iterdir())
    reg = gen / "registry.sqlite"
    reg.write_bytes(reg.read_bytes()[:4096])  # cut short: no generation verifies
    r = run_orion("show", "ADR-0007", "--root", str(root))
    assert r.returncode == 4 and "damaged" in r.stderr and "neither" not in r.stderr, r.stderr
