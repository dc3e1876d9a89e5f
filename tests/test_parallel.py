"""Measuring jobs in worker processes (``orion eval --tune --jobs``): results in order, a
worker's error as the error it raised, a dead worker and Ctrl-C as one line, no worker
left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO

from oriongraph_cli.config import load_config
from oriongraph_cli.errors import ConfigError, OrionError
from oriongraph_cli.parallel import Job, run_jobs, workers_for
from oriongraph_cli.store.reader import IndexReader

FIXTURE_QUERIES = REPO / "bench" / "fixture_queries.jsonl"


# module-level, so a worker process imports them by name
def _count(cfg, reader, queries, factor, *, progress=None):
    for i, _q in enumerate(queries):
        if progress is not None:
            progress("count", i + 1, len(queries))
    return (factor * len(queries), reader.path.name, os.getpid())


def _fails(cfg, reader, queries, *, progress=None):
    raise ConfigError("a setting no worker can read", hint="fix it in .orion.toml")


def _crashes(cfg, reader, queries, *, progress=None):
    raise ZeroDivisionError("division by zero")


def _dies(cfg, reader, queries, *, progress=None):
    os._exit(3)


def _prints(cfg, reader, queries, *, progress=None):
    print("a stray line from a library")
    os.write(1, b"and one written to the descriptor\n")
    return os.getpid()


@pytest.fixture
def reader(sample_index):
    r = IndexReader(load_config(sample_index), load_embedder=False)
    yield r
    r.close()


def test_results_come_back_in_the_jobs_order_from_the_generation_the_caller_holds(reader, tmp_path, monkeypatch):
    import tempfile

    cfg = reader.cfg
    ticks: list[int] = []
    # nothing outside the project: no temporary files, and no semaphore (a named file in
    # /dev/shm on Linux): the workers talk to this process over pipes only
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    from multiprocessing import synchronize

    made: list[str] = []
    name = synchronize.SemLock._make_name
    monkeypatch.setattr(synchronize.SemLock, "_make_name", staticmethod(lambda: made.append(name()) or made[-1]))
    out = run_jobs([Job(_count, cfg, (k,)) for k in range(6)], reader, ["a", "b", "c"], workers=2, tick=ticks.append)
    assert list(tmp_path.iterdir()) == []
    assert made == []
    assert [r[0] for r in out] == [0, 3, 6, 9, 12, 15]
    assert {r[1] for r in out} == {reader.path.name}
    assert os.getpid() not in {r[2] for r in out} and len({r[2] for r in out}) <= 2
    assert sum(ticks) == 6 * 3
    # one worker, or one job: in this process, on the caller's reader
    assert [r[2] for r in run_jobs([Job(_count, cfg, (1,))], reader, ["a"], workers=2)] == [os.getpid()]
    assert workers_for(0) >= 1 and workers_for(3) == 3


def test_a_workers_error_is_the_error_it_raised(reader):
    with pytest.raises(ConfigError) as err:
        run_jobs([Job(_count, reader.cfg, (1,)), Job(_fails, reader.cfg)], reader, ["a"], workers=2)
    assert err.value.message == "a setting no worker can read" and err.value.hint == "fix it in .orion.toml"
    with pytest.raises(OrionError, match="a measuring process failed: ZeroDivisionError: division by zero") as err:
        run_jobs([Job(_crashes, reader.cfg), Job(_count, reader.cfg, (1,))], reader, ["a"], workers=2)
    assert "--jobs 1" in err.value.hint


def test_a_worker_that_dies_is_one_line_naming_jobs_1(reader):
    with pytest.raises(OrionError, match="a measuring process stopped before it finished") as err:
        run_jobs([Job(_dies, reader.cfg), Job(_count, reader.cfg, (1,))], reader, ["a"], workers=2)
    assert "--jobs 1" in err.value.hint


def _children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_or_sigterm_during_tune_stops_every_worker(sample_index, tmp_path, sig, code, word):
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", "eval", str(FIXTURE_QUERIES), "--root", str(root),
                             "--tune", "--jobs", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a suite started in the background of a script inherits SIGINT ignored,
                            # and Python keeps it so: a user's Ctrl-C is what is tested
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    workers: set[int] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        # the spawned workers (the resource tracker is a child too, and stops with the parent)
        workers = {c for c in _children(proc.pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text(errors="replace")}
        time.sleep(0.1)
    assert len(workers) == 2, proc.stderr.read() if proc.poll() is not None else "no workers"
    time.sleep(1.0)  # measuring
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert word in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)


def test_nothing_a_worker_prints_reaches_stdout(reader, capfd):
    """stdout carries the command's data (`--json` is one document): a worker's stray output
    goes to stderr."""
    pids = run_jobs([Job(_prints, reader.cfg), Job(_prints, reader.cfg)], reader, ["a"], workers=2)
    assert os.getpid() not in pids
    out, err = capfd.readouterr()
    assert out == "" and "a stray line from a library" in err and "and one written to the descriptor" in err


def test_without_worker_processes_the_jobs_run_here_with_a_warning(reader, monkeypatch):
    """A system that cannot start a process (a sandbox, no pipes left): the jobs run in
    this process, and a warning says so."""
    import multiprocessing.context

    def no_pipes(self, *a, **k):
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(multiprocessing.context.BaseContext, "Pipe", no_pipes)
    with pytest.warns(UserWarning, match="measuring in this process: no worker processes here"):
        out = run_jobs([Job(_count, reader.cfg, (1,)), Job(_count, reader.cfg, (2,))], reader, ["a", "b"], workers=2)
    assert [r[0] for r in out] == [2, 4] and {r[2] for r in out} == {os.getpid()}
