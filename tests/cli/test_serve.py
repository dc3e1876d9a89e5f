"""`orion serve` and the thin client: a real server process on a copy of the indexed sample,
the same bytes, exit codes and files served as in-process, fallback, stale sockets,
re-index, hostile requests, idle exit."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oriongraph_cli import client, wire
from conftest import run_orion

pytestmark = pytest.mark.slow

IN_PROCESS = {wire.OFF_ENV: "1"}


@pytest.fixture(scope="module")
def served(sample_index, tmp_path_factory):
    """A copy of the indexed sample with `orion serve --detach` running on it."""
    root = tmp_path_factory.mktemp("served") / "proj"
    shutil.copytree(sample_index, root, symlinks=True)
    proc = run_orion("serve", "--detach", "--root", str(root), "--idle-timeout", "300")  # gone by itself if a run dies
    assert proc.returncode == 0, proc.stderr
    yield root
    run_orion("serve", "--stop", "--root", str(root))


def status(root: Path) -> dict | None:
    proc = run_orion("serve", "--status", "--json", "--root", str(root))
    doc = json.loads(proc.stdout)
    return doc if doc["running"] else None


def both(root: Path, *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict | None = None):
    """(in-process, served) results of `orion ARGS` run from ``cwd`` (default the root)."""
    out = []
    for extra in (IN_PROCESS, {}):
        proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", *args], capture_output=True, input=(stdin or "").encode(),
                              cwd=cwd or root, env={**os.environ, **(env or {}), **extra}, timeout=300)
        out.append((proc.returncode, proc.stdout, proc.stderr))
    return out


CASES = [
    ("compile", "add retry logic to the ingestion worker", "--no-usage-log"),
    ("compile", "add retry logic to the ingestion worker", "--no-usage-log", "--explain"),
    ("compile", "why did we replace ADR-0003", "--no-usage-log", "-f", "markdown", "-b", "1500"),
    ("compile", "why did we replace ADR-0003", "--no-usage-log", "--format", "xml", "-b", "800", "--explain"),
    ("compile", "retry storm", "--no-usage-log", "--json", "-b", "300"),
    ("compile", "retry storm", "--no-usage-log", "-l"),
    ("compile", "retry storm", "--no-usage-log", "-0"),
    ("compile", "retry storm", "--no-usage-log", "--stage", "design", "--fusion", "rrf"),
    ("--color", "always", "compile", "retry storm", "--no-usage-log"),
    ("compile", "", "--no-usage-log"),  # usage error
    ("compile", "retry", "--no-usage-log", "--stage", "nope"),
    ("compile", "retry", "--no-usage-log", "--budget", "5", "--json"),  # nothing fits: exit 5 with a JSON error
    ("compile", "retry", "--no-usage-log", "--weight", "bogus=1"),
    ("search", "retry storm"),
    ("search", "retry storm", "--json"),
    ("search", "retry storm", "-n", "3", "-l"),
]


def test_served_output_is_the_in_process_output_byte_for_byte(served):
    before = status(served)["served"]
    for args in CASES:
        local, remote = both(served, *args)
        assert remote == local, args
    assert status(served)["served"] == before + len(CASES)  # every one was answered by the server


def test_served_from_a_subfolder_with_stdin_and_settings_from_the_environment(served):
    before = status(served)["served"]
    sub = served / "02_knowledge"
    local, remote = both(served, "compile", "retry", "--no-usage-log", cwd=sub)
    assert remote == local
    local, remote = both(served, "-C", "02_knowledge", "search", "retry")
    assert remote == local
    local, remote = both(served, "compile", "-", "--no-usage-log", "-f", "plain", stdin="retry policy for the worker\n")
    assert remote == local and local[0] == 0
    local, remote = both(served, "compile", "retry", "--no-usage-log", env={"ORION_BUDGET": "700", "NO_COLOR": "1"})
    assert remote == local
    local, remote = both(served, "compile", "retry", "--no-usage-log", env={"ORION_BUDGET": "0"})  # a bad setting
    assert remote == local and local[0] == 2
    assert status(served)["served"] == before + 5


def test_output_file_and_brief_are_written_alike(served, tmp_path):
    results = []
    for name, extra in (("local", IN_PROCESS), ("remote", {})):
        out, brief = tmp_path / f"{name}.md", tmp_path / f"{name}-brief.md"
        proc = run_orion("compile", "retry storm", "--no-usage-log", "-f", "markdown", "-o", str(out), "--brief", str(brief),
                         cwd=served, env=extra)
        results.append((proc.returncode, proc.stdout, proc.stderr.replace(name, "X"), out.read_bytes(), brief.read_bytes()))
        assert stat.S_IMODE(out.stat().st_mode) == stat.S_IMODE(brief.stat().st_mode)
    assert results[0] == results[1]
    assert results[0][3] and results[0][4]


def test_a_served_compile_is_recorded_in_the_usage_log(served):
    log = served / ".oriongraph" / "usage.jsonl"
    size = log.stat().st_size if log.exists() else 0
    proc = run_orion("compile", "retry storm", "--task-id", "served-task", "--json", cwd=served)
    assert proc.returncode == 0 and json.loads(proc.stdout)["episode_id"] == "served-task"
    assert "served-task" in log.read_text()[size:]


def test_the_directory_and_socket_are_private(served):
    d = served / ".oriongraph" / wire.SERVE_DIR
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert stat.S_IMODE((d / wire.SOCKET_NAME).stat().st_mode) == 0o600
    assert stat.S_ISSOCK((d / wire.SOCKET_NAME).stat().st_mode)


def test_a_second_server_is_refused(served):
    proc = run_orion("serve", "--root", str(served))
    assert proc.returncode == 1 and "already runs" in proc.stderr and "Traceback" not in proc.stderr


def _raw(root: Path, payload: bytes) -> dict:
    """Send raw bytes to the server; its reply header."""
    with wire.connect(str(root / ".oriongraph" / wire.SERVE_DIR / wire.SOCKET_NAME), timeout=30) as sock:
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)
        return wire.recv_frame(sock, wire.MAX_HEADER)


def _frame(doc) -> bytes:
    data = json.dumps(doc).encode()
    return len(data).to_bytes(4, "big") + data


def test_hostile_requests_get_a_one_line_refusal_and_the_server_lives_on(served):
    umask = os.umask(0o022)
    os.umask(umask)
    good = {"op": "run", **wire.identity(), "root": str(served), "argv": ["compile", "retry"], "cwd": str(served),
            "env": {}, "umask": umask, "stdin": None, "stdout": ["utf-8", "strict"], "stderr": ["utf-8", "strict"],
            "stderr_tty": False}
    hostile = [
        b"",  # nothing
        b"\x00\x00",  # a cut length
        (1 << 31).to_bytes(4, "big") + b"{}",  # oversized
        (10).to_bytes(4, "big") + b"\xff" * 10,  # not UTF-8
        _frame([1, 2, 3]),  # not an object
        (200_000).to_bytes(4, "big") + b"[" * 100_000 + b"]" * 100_000,  # nested past the recursion limit
        _frame({"op": "run"}),  # nothing but the operation
        _frame({"op": "format-disk"}),
        _frame({**good, "version": "0.0.0"}),  # another orion
        _frame({**good, "root": "/"}),  # another project
        _frame({**good, "root": "/x\nerror: forged"}),  # a reason must stay one line
        _frame({**good, "argv": ["index", "--full"]}),  # a command the server does not run
        _frame({**good, "argv": ["serve", "--stop"]}),
        _frame({**good, "argv": ["compile", "x", "--help"]}),
        _frame({**good, "argv": "compile retry"}),
        _frame({**good, "cwd": "relative"}),
        _frame({**good, "cwd": "/nonexistent/dir"}),
        _frame({**good, "env": {"A": 1}}),
        _frame({**good, "env": {"A=B": "x"}}),
        _frame({**good, "stdin": "x" * (wire.STDIN_LIMIT + 1)}),
        _frame({**good, "stdout": ["no-such-codec", "strict"]}),
        _frame({**good, "stdout": ["utf-8", "evil"]}),
        _frame({**good, "umask": umask ^ 0o077}),
        _frame({**good, "env": {"ORION_MODEL": "another/model"}}),  # settings that need another model
    ]
    for payload in hostile:
        head = _raw(served, payload)
        assert head["status"] in ("refused", "error"), payload[:60]
        assert "\n" not in head.get("reason", ""), head
    head = _raw(served, _frame(good))  # and it still answers
    assert head["status"] == "ok" and head["exit"] == 0


def test_reopens_a_new_generation_after_orion_index(served):
    before = status(served)["generation"]
    note = served / "02_knowledge" / "served-fresh-note.md"
    note.write_text("# Zebra crossings\n\nThe quokka protocol answers every zebra crossing question.\n")
    try:
        assert run_orion("index", "--root", str(served), "-q").returncode == 0
        local, remote = both(served, "compile", "quokka protocol zebra crossing", "--no-usage-log", "-l")
        assert remote == local and b"served-fresh-note.md" in remote[1]
        assert status(served)["generation"] != before
    finally:
        note.unlink()


# --------------------------------------------------------------------------- orion index, served


def _index_both(root: Path, tmp_path: Path, edit, *args: str):
    """`orion index ARGS` after ``edit(root)``, served on ``root`` and in-process on a copy
    made before the edit: (in-process, served) as (exit, stdout, stderr), with the run's
    times taken out."""
    twin = tmp_path / "twin"
    shutil.copytree(root, twin, symlinks=True, ignore=shutil.ignore_patterns("serve"))
    out = []
    for where, extra in ((twin, IN_PROCESS), (root, {})):
        edit(where)
        proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", "index", *args], capture_output=True, cwd=where,
                              env={**os.environ, **extra}, timeout=300)
        text = proc.stdout.decode().replace(str(where), "ROOT")
        if "--json" in args:
            doc = json.loads(text)
            doc.pop("elapsed_ms"), doc.pop("graph_ms")  # times of the run
            text = json.dumps(doc)
        else:
            text = text.rsplit("; ", 1)[0]  # "...; 0.3s." is the run's own time
        out.append((proc.returncode, text, proc.stderr.decode().replace(str(where), "ROOT")))
    return out


def test_index_served_is_the_in_process_index(served, tmp_path):
    """A one-file edit, a new note and a removed one, indexed by the server: the same
    report, exit code and warnings as in-process, and the server's next compile ranks on
    the new generation exactly as a fresh process does on its copy."""
    note = served / "02_knowledge" / "served-index-note.md"

    def add(where):
        (where / note.relative_to(served)).write_text("# Walrus tariffs\n\nThe walrus tariff applies to every [[missing-note]] shipment.\n")

    before = status(served)["served"]
    try:
        local, remote = _index_both(served, tmp_path, add, "--json")
        assert remote == local and local[0] == 0 and "dangling" in local[2]
        assert json.loads(local[1])["added_documents"] == 1
        twin = tmp_path / "twin"
        for root in (twin, served):
            edited = root / "02_knowledge" / "served-index-note.md"
            edited.write_text(edited.read_text() + "\nWalrus tariffs were halved in the spring.\n")
        runs = [run_orion("index", cwd=root, env=extra) for root, extra in ((twin, IN_PROCESS), (served, {}))]
        assert [r.returncode for r in runs] == [0, 0]
        assert runs[0].stdout.replace(str(twin), "R").rsplit("; ", 1)[0] == runs[1].stdout.replace(str(served), "R").rsplit("; ", 1)[0]
        assert "1 updated" in runs[1].stdout and "embedded 1 spans" in runs[1].stdout
        fresh = run_orion("compile", "walrus tariff halved", "--no-usage-log", "--json", cwd=twin, env=IN_PROCESS)
        got = run_orion("compile", "walrus tariff halved", "--no-usage-log", "--json", cwd=served)
        assert got.returncode == 0 and got.stdout.replace(str(served), "R") == fresh.stdout.replace(str(twin), "R")
        assert status(served)["served"] == before + 3  # both index runs and the compile
    finally:
        note.unlink(missing_ok=True)
        assert run_orion("index", "-q", cwd=served).returncode == 0


def test_index_the_server_leaves_to_the_command(served, tmp_path):
    """--full, a change of more notes than a server indexes, and a lock another writer
    holds run in the command's own process (the server's count does not move), with the
    same outcome."""
    from oriongraph_cli.cli.context import SERVED_INDEX_MAX_FILES

    before = status(served)["served"]
    many = [served / "02_knowledge" / f"served-bulk-{i}.md" for i in range(SERVED_INDEX_MAX_FILES + 1)]
    try:
        for i, path in enumerate(many):
            path.write_text(f"# Bulk note {i}\n\nThe bulk note number {i}.\n")
        proc = run_orion("index", "--json", cwd=served)
        assert proc.returncode == 0 and json.loads(proc.stdout)["added_documents"] == len(many)
        assert status(served)["served"] == before
    finally:
        for path in many:
            path.unlink(missing_ok=True)
    assert run_orion("index", "-q", cwd=served).returncode == 0
    assert status(served)["served"] == before  # removing 21 notes: still more than a server indexes
    proc = run_orion("index", "--full", "--json", cwd=served)
    assert proc.returncode == 0 and json.loads(proc.stdout)["rebuild_reason"] == "--full"
    assert status(served)["served"] == before
    from conftest import flock_held

    (served / "02_knowledge" / "served-locked.md").write_text("# Locked\n\nWritten while another writer held the lock.\n")
    try:
        with flock_held(served / ".oriongraph" / "orion.lock"):
            proc = run_orion("index", "--lock-timeout", "0.5", cwd=served)
        assert proc.returncode != 0 and "waiting for the index lock" in proc.stderr and "another `orion index`" in proc.stderr
        assert status(served)["served"] == before  # the waiting and its failure were the command's own
    finally:
        (served / "02_knowledge" / "served-locked.md").unlink()
    assert run_orion("index", "-q", cwd=served).returncode == 0
    assert status(served)["served"] == before + 1


def test_index_hook_is_served_and_never_blocks(served):
    """`orion index --hook` (a git hook's call) is answered by the server: quiet, exit 0;
    with the lock held by another writer it runs in its own process and lets the commit
    through with a warning, as it always has."""
    from conftest import flock_held

    note = served / "02_knowledge" / "served-hook-note.md"
    before = status(served)["served"]
    try:
        note.write_text("# Hooked\n\nIndexed by a pre-commit hook through the server.\n")
        proc = run_orion("index", "--hook", cwd=served)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
        assert status(served)["served"] == before + 1
        note.write_text("# Hooked\n\nEdited while another writer held the lock.\n")
        with flock_held(served / ".oriongraph" / "orion.lock"):
            proc = run_orion("index", "--hook", "--lock-timeout", "0.5", cwd=served)
        assert proc.returncode == 0 and "orion index skipped" in proc.stderr and "the commit goes ahead" in proc.stderr
        assert status(served)["served"] == before + 1
    finally:
        note.unlink(missing_ok=True)
        assert run_orion("index", "-q", cwd=served).returncode == 0


def test_index_served_keeps_its_model(served):
    """The server loads the index model for the first index run that embeds, then keeps it."""
    note = served / "02_knowledge" / "served-kept-model.md"
    try:
        for i in range(3):
            note.write_text(f"# Kept model\n\nRevision {i} of a note about narwhal migration.\n")
            proc = run_orion("index", cwd=served)
            assert proc.returncode == 0 and "embedded 1 spans" in proc.stdout
        assert status(served)["index_model_loads"] == 1
    finally:
        note.unlink()
        assert run_orion("index", "-q", cwd=served).returncode == 0


def test_a_damaged_generation_is_reported_once_per_command_as_in_process(served):
    """CURRENT's generation damaged: every compile warns once and reads the previous one,
    served or not (the server warns per command, not once per process)."""
    gens = sorted(p for p in (served / ".oriongraph" / "gen").iterdir() if p.is_dir())
    if len(gens) < 2:  # run alone: make the previous generation this test falls back to
        (served / "02_knowledge" / "served-second-gen.md").write_text("# Second generation\n\nA note.\n")
        assert run_orion("index", "--root", str(served), "-q").returncode == 0
    current = (served / ".oriongraph" / "CURRENT").read_text().strip()
    victim = served / ".oriongraph" / "gen" / current / "registry.sqlite"  # each generation's own (vector segments are shared)
    size = victim.stat().st_size
    before = status(served)["served"]
    with open(victim, "ab") as fh:
        fh.write(b"x")
    try:
        for _ in range(2):
            local, remote = both(served, "compile", "retry storm", "--no-usage-log", "-l")
            assert remote == local and local[0] == 0
            assert local[2].count(b"is damaged") == 1
    finally:
        os.truncate(victim, size)
    local, remote = both(served, "compile", "retry storm", "--no-usage-log", "-l")
    assert remote == local and b"damaged" not in remote[2]
    assert status(served)["served"] == before + 3


def test_falls_back_in_process_when_the_server_dies_and_a_stale_socket_is_replaced(served):
    pid = status(served)["pid"]
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        if status(served) is None:
            break
        time.sleep(0.05)
    sock = served / ".oriongraph" / wire.SERVE_DIR / wire.SOCKET_NAME
    assert sock.exists()  # left behind by the killed server
    local, remote = both(served, "compile", "retry storm", "--no-usage-log", "--json")
    assert remote == local and local[0] == 0
    proc = run_orion("serve", "--detach", "--root", str(served), "--idle-timeout", "300")  # the stale socket is no obstacle
    assert proc.returncode == 0, proc.stderr
    assert status(served)["pid"] != pid


def test_stop_and_idle_exit(served, tmp_path):
    root = tmp_path / "idle"
    shutil.copytree(served, root, symlinks=True, ignore=shutil.ignore_patterns("serve"))
    proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", "serve", "--root", str(root), "--idle-timeout", "1"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "stopped (idle for 1 s)" in proc.stderr
    assert not (root / ".oriongraph" / wire.SERVE_DIR / wire.SOCKET_NAME).exists()
    stop = run_orion("serve", "--stop", "--root", str(root))
    assert stop.returncode == 0 and "none runs" in stop.stderr
    none = run_orion("serve", "--status", "--root", str(root))
    assert none.returncode == 1 and none.stdout.startswith("no orion serve")


def test_serve_needs_an_index(project):
    proc = run_orion("serve", "--root", str(project))
    assert proc.returncode == 4 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


# --------------------------------------------------------------------------- the client alone


def test_the_client_knows_the_stage_folders():
    from oriongraph_cli.models import TOP_FOLDERS

    assert wire.TOP_FOLDERS == tuple(TOP_FOLDERS)


@pytest.mark.parametrize("argv, command, chdir", [
    (["compile", "x"], "compile", None),
    (["--color", "never", "-P", "search", "x"], "search", None),
    (["-C", "sub", "--color=always", "compile", "x"], "compile", "sub"),
    (["index", "--hook"], "index", None),
])
def test_routing(argv, command, chdir):
    got, _rest, where = wire.command_of(argv)
    assert (got, where) == (command, chdir)


@pytest.mark.parametrize("argv", [["index", "--help"], ["status"], ["compile", "x", "--help"], ["--version"], ["-h"], [], ["serve"], ["mcp"]])
def test_what_always_runs_in_process(argv):
    with pytest.raises(wire.NotServed):
        wire.command_of(argv)


def test_the_root_as_the_cli_finds_it(tmp_path, monkeypatch):
    (tmp_path / "p" / "02_knowledge" / "a").mkdir(parents=True)
    monkeypatch.delenv("ORION_ROOT", raising=False)
    assert wire.root_of([], str(tmp_path / "p" / "02_knowledge" / "a")) == os.path.realpath(tmp_path / "p")
    assert wire.root_of(["--root", "/x"], "/") == "/x"
    assert wire.root_of(["-r/y", "x"], "/") == "/y"
    assert wire.root_of(["--root=/z"], "/") == "/z"
    monkeypatch.setenv("ORION_ROOT", "/w")
    assert wire.root_of(["--", "--root", "/x"], "/") == "/w"


_USAGE = b'{"status":"ok","exit":2,"stdout":0,"stderr":5}error'


@pytest.mark.parametrize("reply", [b"", b"\x00\x00\x00\x05{}", b"\x00\x00\x00\x02{}", b'\x00\x00\x00\x2a{"status":"ok","exit":0,"stdout":9,"stderr":0}abc',
                                   (len(_USAGE) - 5).to_bytes(4, "big") + _USAGE])
def test_a_server_gone_mid_answer_leaves_the_command_to_run_in_process(tmp_path, monkeypatch, reply):
    """A server that closes the connection before its whole answer (killed mid-way, or a
    header cut short), or answers a usage error (laid out for the terminal's width): the
    client writes nothing and the command runs in-process."""
    import threading

    d = tmp_path / ".oriongraph" / wire.SERVE_DIR
    d.mkdir(parents=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(d / wire.SOCKET_NAME))
    listener.listen(1)

    def serve_once():
        conn, _ = listener.accept()
        with conn:
            wire.recv_frame(conn, wire.MAX_REQUEST)
            conn.sendall(reply)

    thread = threading.Thread(target=serve_once, daemon=True)
    thread.start()
    monkeypatch.setattr(os, "isatty", lambda fd: False)
    written = []
    monkeypatch.setattr(client, "_write_all", lambda fd, data: written.append((fd, data)))
    with pytest.raises(wire.NotServed):
        client.served(["compile", "x", "--root", str(tmp_path)])
    thread.join(5)
    listener.close()
    assert written == []


def test_an_intent_read_for_a_server_that_then_refuses_is_kept_for_the_cli(tmp_path, monkeypatch):
    import io
    import threading

    d = tmp_path / ".oriongraph" / wire.SERVE_DIR
    d.mkdir(parents=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(d / wire.SOCKET_NAME))
    listener.listen(2)
    seen = []

    def serve_twice():
        for head in ({"status": "stdin"}, {"status": "refused", "reason": "another orion"}):
            conn, _ = listener.accept()
            with conn:
                seen.append(wire.recv_frame(conn, wire.MAX_REQUEST)["stdin"])
                wire.send_frame(conn, {**head, "stdout": 0, "stderr": 0})

    thread = threading.Thread(target=serve_twice, daemon=True)
    thread.start()
    monkeypatch.setattr(os, "isatty", lambda fd: False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("the intent\n"))
    monkeypatch.setattr(client, "_stdin_read", None)
    with pytest.raises(wire.NotServed):
        client.served(["search", "-", "--root", str(tmp_path)])
    thread.join(5)
    listener.close()
    assert seen == [None, "the intent\n"] and client._stdin_read == ["the intent\n"]


def test_the_collector_is_off_only_for_a_one_shot_compile_or_search():
    """A compile or search run in the entry point's process turns the cyclic collector off
    (the process ends with os._exit); every other command keeps it."""
    import gc

    from oriongraph_cli import client

    was = gc.isenabled()
    try:
        for argv, off in ((["compile", "retry logic", "--json"], True), (["-C", "x", "search", "q"], True),
                          (["index"], False), (["serve"], False), (["compile", "--help"], False), ([], False)):
            gc.enable()
            client._collector_off_for_one_compile(argv)
            assert gc.isenabled() is not off, argv
    finally:
        (gc.enable if was else gc.disable)()


def test_an_index_deleted_and_built_again_is_read_again_though_its_generation_has_the_same_name(project, fake_embedder):
    """`orion serve` and `orion mcp` keep one reader open and reopen it when `orion index`
    publishes a new generation. An index deleted and built again starts at 000001 again:
    the open reader must not take the new 000001 for the one it read."""
    import shutil

    from oriongraph_cli.api import index_project, load_config
    from oriongraph_cli.cli.context import ResidentIndex

    cfg = load_config(project)
    index_project(cfg)
    resident = ResidentIndex(cfg)
    first = resident.reader()
    assert resident.reader() is first  # nothing changed: the same reader
    shutil.rmtree(project / ".oriongraph")
    (project / "02_knowledge" / "zanzibar.md").write_text("# Zanzibar quokka policy\n\nEvery quokka gets a zanzibar.\n")
    index_project(cfg)
    again = resident.reader()
    assert again is not first and again.generation == first.generation == "000001"
    assert "02_knowledge/zanzibar.md" in {d["path"] for d in again.documents}
    resident.close()


def _shell(root: Path, script: str, env: dict | None = None) -> subprocess.CompletedProcess:
    orion = f"{sys.executable} -m oriongraph_cli"
    return subprocess.run(["bash", "-c", script.replace("ORION", orion)], capture_output=True, text=True, cwd=root,
                          env={**os.environ, **(env or {})}, timeout=120)


@pytest.mark.parametrize("env", [IN_PROCESS, {}], ids=["in-process", "served"])
def test_closed_streams_a_full_device_and_output_in_place(served, env):
    """Served or not: a closed stdout or stdin is one message and its exit code (never a
    traceback), a full device says so, and ``-o`` naming a pipe or a device is written by
    this process as itself (``-o /dev/stdout`` into a pipe, a FIFO another process reads) —
    the server would open its own, or block on the FIFO."""
    r = _shell(served, "ORION compile retry --json --no-usage-log >&-", env)
    assert r.returncode == 1 and r.stderr.startswith("error: stdout is closed") and "Traceback" not in r.stderr, r.stderr
    r = _shell(served, "ORION compile - --no-usage-log <&-", env)
    assert r.returncode == 2 and r.stderr.startswith("error: stdin is closed"), r.stderr
    r = _shell(served, "ORION compile retry --no-usage-log >/dev/full", env)
    assert r.returncode == 1 and "No space left on device" in r.stderr and "Traceback" not in r.stderr, r.stderr
    whole = _shell(served, "ORION compile retry --no-usage-log -f markdown", env).stdout
    r = _shell(served, "ORION compile retry --no-usage-log -f markdown -o /dev/stdout | cat", env)
    assert r.returncode == 0 and r.stdout == whole, r.stderr
    r = _shell(served, "rm -f ff && mkfifo ff && (cat ff > got &) && ORION compile retry --no-usage-log -f markdown -o ff"
                       " && sleep 0.5 && cat got && rm -f ff got", env)
    assert r.returncode == 0 and r.stdout == whole, r.stderr


def test_a_client_trickling_its_request_is_cut_off_and_others_are_answered(served):
    """The server reads one request at a time: a client sending a byte every few seconds
    gets the whole request's deadline, not one per byte, and the next command is answered."""
    import threading

    from oriongraph_cli.cli import serve as serve_mod

    path = str(served / ".oriongraph" / wire.SERVE_DIR / wire.SOCKET_NAME)
    done = threading.Event()

    def trickle():
        with wire.connect(path, timeout=60) as sock:
            sock.sendall((1000).to_bytes(4, "big"))
            for _ in range(int(serve_mod.READ_TIMEOUT) * 6):
                if done.is_set():
                    break
                try:
                    sock.sendall(b" ")
                except OSError:
                    break
                time.sleep(1)

    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    time.sleep(0.5)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", "compile", "retry storm", "--no-usage-log", "-f", "markdown"],
                          capture_output=True, text=True, cwd=served, timeout=120)
    waited = time.monotonic() - start
    done.set()
    assert proc.returncode == 0 and proc.stdout.startswith("# Working set"), proc.stderr
    assert waited < serve_mod.READ_TIMEOUT * 4, waited  # not held for as long as the trickle lasts (60 s)
