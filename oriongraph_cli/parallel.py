"""Measuring jobs over one index, in this process or in worker processes.

``orion eval --tune`` measures dozens of settings, each over every judged intent: hours of
single-threaded Python on a large project. The settings are independent, so each is a
:class:`Job` (a module-level function, the settings it runs with, its arguments), and
:func:`run_jobs` runs a list of them either here, on the caller's reader, or in ``workers``
processes, each of which opens the same generation of the index once and takes the next
job when it is free. The results come back in the jobs' order, whatever order they finished
in, and are the ones this process would have computed: the same code on the same index.

Workers are started with ``spawn`` (a forked copy of a process whose ONNX and FAISS thread
pools are running is not safe), ignore Ctrl-C (the parent stops them), write nothing to
stdout (what they print goes to stderr: stdout is the command's data), and talk to the
parent over one pipe each: the next job, each intent measured (so the caller's progress
counts every intent of every job), each result. Nothing else is shared, so stopping them is
terminating them.
A failure in a worker comes back as the error it raised, a worker that dies as a one-line
error naming ``--jobs 1``; either way, and on Ctrl-C, the other workers are stopped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from oriongraph_cli.config import Config

TickFn = Callable[[int], None]


@dataclass(frozen=True)
class Job:
    """``fn(cfg, reader, queries, *args, progress=fn(name, done, total))``: a module-level
    function (workers import it by name) that measures ``queries``."""

    fn: Callable[..., Any]
    cfg: Config
    args: tuple = ()


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def workers_for(jobs: int) -> int:
    """``--jobs``: 0 means one worker per available core."""
    return available_cores() if jobs == 0 else jobs


def run_jobs(jobs: Sequence[Job], reader, queries: Sequence, *, workers: int = 1, tick: TickFn | None = None) -> list[Any]:
    """Each job's result, in order. ``workers`` ≤ 1 (or one job) runs them here on
    ``reader``; more runs them in that many processes on ``reader``'s generation.
    ``tick(n)``: n more intents measured."""
    jobs = list(jobs)
    if workers > 1 and len(jobs) > 1:
        try:
            return _run_in_workers(jobs, reader, list(queries), min(workers, len(jobs)), tick)
        except _NoWorkers as exc:
            import warnings

            warnings.warn(f"measuring in this process: no worker processes here ({exc.__cause__})", stacklevel=2)
    progress = (lambda _name, _done, _total: tick(1)) if tick is not None else None
    return [job.fn(job.cfg, reader, queries, *job.args, progress=progress) for job in jobs]


class _NoWorkers(Exception):
    """This system cannot start worker processes (a sandbox without ``fork``/``exec``, no
    pipes left)."""


# ---------------------------------------------------------------- in worker processes


def _error_tuple(exc: BaseException) -> tuple:
    from oriongraph_cli.errors import OrionError

    if isinstance(exc, OrionError):
        return ("error", type(exc).__name__, exc.message, exc.hint, int(exc.exit_code))
    return ("error", "OrionError", f"a measuring process failed: {type(exc).__name__}: {exc}",
            "run again with --jobs 1 to measure in one process", None)


def _serve(conn, cfg: Config, generation: str, queries: list) -> None:
    """A worker: opens the generation, then measures each job the parent sends until it
    sends None, reporting ``("tick", 1)`` per intent and ``("done", index, status)``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent stops us
    os.dup2(2, 1)  # stdout is the command's data (one JSON document, a table): a worker never writes there
    reader, failed = None, None
    try:
        from oriongraph_cli.errors import OrionError
        from oriongraph_cli.store.reader import IndexReader

        reader = IndexReader(cfg)
        if reader.path.name != generation:
            raise OrionError("the index changed while the settings were being measured",
                             hint="run it again once `orion index` has finished")
    except BaseException as exc:  # noqa: BLE001 - returned to the parent as a one-line error
        failed = _error_tuple(exc)

    def progress(_name: str, _done: int, _total: int) -> None:
        conn.send(("tick", 1))

    try:
        while (msg := conn.recv()) is not None:
            index, job = msg
            status = failed
            if status is None:
                try:
                    status = ("ok", job.fn(job.cfg, reader, queries, *job.args, progress=progress))
                except BaseException as exc:  # noqa: BLE001 - returned to the parent as a one-line error
                    status = _error_tuple(exc)
            conn.send(("done", index, status))
    except (EOFError, OSError):  # the parent went away: nothing to report to
        pass
    finally:
        if reader is not None:
            reader.close()


# ---------------------------------------------------------------- in the command's process


def _raise(status: tuple) -> None:
    from oriongraph_cli import errors

    _, name, message, hint, code = status
    cls = getattr(errors, name, errors.OrionError)
    if not (isinstance(cls, type) and issubclass(cls, errors.OrionError)):
        cls = errors.OrionError
    exc = cls.__new__(cls)
    errors.OrionError.__init__(exc, message, hint=hint, exit_code=errors.ExitStatus(code) if code is not None else None)
    raise exc


def _stop(procs: list, conns: list) -> None:
    """Stops the workers now, whatever they are measuring, and waits a moment for them."""
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join(timeout=5)
    for conn in conns:
        conn.close()


def _run_in_workers(jobs: list[Job], reader, queries: list, workers: int, tick: TickFn | None) -> list[Any]:
    """One pipe per worker and nothing shared: the parent hands a worker its next job when
    it reports the last one done, and reads ticks and results from every pipe as they come
    (no queue threads to join, no semaphores), so stopping is terminating the processes."""
    import multiprocessing
    from multiprocessing.connection import wait

    from oriongraph_cli.errors import OrionError

    ctx = multiprocessing.get_context("spawn")
    procs: list = []
    conns: list = []
    try:
        try:
            for _ in range(workers):
                here, there = ctx.Pipe()
                proc = ctx.Process(target=_serve, args=(there, reader.cfg, reader.path.name, queries), daemon=True)
                proc.start()
                there.close()
                procs.append(proc)
                conns.append(here)
        except (OSError, ImportError, ValueError) as exc:
            raise _NoWorkers() from exc
        results: list[Any] = [None] * len(jobs)
        busy: set = set()  # the pipes of the workers measuring a job (the job's index comes back with its result)
        queued = iter(range(len(jobs)))

        def hand(conn) -> None:
            i = next(queued, None)
            conn.send(None if i is None else (i, jobs[i]))
            if i is not None:
                busy.add(conn)

        for conn in conns:
            hand(conn)
        by_sentinel = {proc.sentinel: conn for proc, conn in zip(procs, conns)}
        left = len(jobs)
        while left:
            for ready in wait([*busy, *(s for s, c in by_sentinel.items() if c in busy)]):
                conn = by_sentinel.get(ready, ready)
                if conn not in busy:
                    continue
                try:
                    if ready is not conn and not conn.poll():
                        raise EOFError
                    msg = conn.recv()
                except (EOFError, OSError) as exc:
                    raise OrionError("a measuring process stopped before it finished (out of memory, or killed)",
                                     hint="run again with --jobs 1, or fewer jobs") from exc
                if msg[0] == "tick":
                    if tick is not None:
                        tick(msg[1])
                    continue
                _, i, status = msg
                if status[0] != "ok":
                    _raise(status)
                results[i] = status[1]
                busy.discard(conn)
                left -= 1
                hand(conn)
    except BaseException:
        _stop(procs, conns)
        raise
    for proc in procs:
        proc.join(timeout=30)
    _stop(procs, conns)
    return results
