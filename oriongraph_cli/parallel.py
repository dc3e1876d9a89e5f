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
stdout (what they print goes to stderr: stdout is the command's data), and report each
intent measured through a queue, so the caller's progress counts every intent of every job.
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
    """This system cannot start worker processes or share a queue with them (no POSIX
    semaphores: a container without /dev/shm, a sandbox)."""


# ---------------------------------------------------------------- in worker processes

_READER: Any = None
_QUERIES: list = []
_QUEUE: Any = None
_FAILED: tuple | None = None  # the error opening the index raised, returned by every job


def _error_tuple(exc: BaseException) -> tuple:
    from oriongraph_cli.errors import OrionError

    if isinstance(exc, OrionError):
        return ("error", type(exc).__name__, exc.message, exc.hint, int(exc.exit_code))
    return ("error", "OrionError", f"a measuring process failed: {type(exc).__name__}: {exc}",
            "run again with --jobs 1 to measure in one process", None)


def _start(cfg: Config, generation: str, queries: list, queue) -> None:
    import signal

    global _READER, _QUERIES, _QUEUE, _FAILED
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent stops us
    os.dup2(2, 1)  # stdout is the command's data (one JSON document, a table): a worker never writes there
    _QUERIES, _QUEUE = queries, queue
    try:
        from oriongraph_cli.errors import OrionError
        from oriongraph_cli.store.reader import IndexReader

        _READER = IndexReader(cfg)
        if _READER.path.name != generation:
            raise OrionError("the index changed while the settings were being measured",
                             hint="run it again once `orion index` has finished")
    except BaseException as exc:  # noqa: BLE001 - returned to the parent as a one-line error
        _FAILED = _error_tuple(exc)


def _work(job: Job) -> tuple:
    if _FAILED is not None:
        return _FAILED

    def progress(_name: str, _done: int, _total: int) -> None:
        _QUEUE.put(1)

    try:
        return ("ok", job.fn(job.cfg, _READER, _QUERIES, *job.args, progress=progress))
    except BaseException as exc:  # noqa: BLE001 - returned to the parent as a one-line error
        return _error_tuple(exc)


def _raise(status: tuple) -> None:
    from oriongraph_cli import errors

    _, name, message, hint, code = status
    cls = getattr(errors, name, errors.OrionError)
    if not (isinstance(cls, type) and issubclass(cls, errors.OrionError)):
        cls = errors.OrionError
    exc = cls.__new__(cls)
    errors.OrionError.__init__(exc, message, hint=hint, exit_code=errors.ExitStatus(code) if code is not None else None)
    raise exc


def _stop(pool) -> None:
    """Stops the workers now, whatever they are measuring (Python 3.14 names this
    ``terminate_workers``; before it, the pool's own table of processes)."""
    stop = getattr(pool, "terminate_workers", None)
    if stop is not None:
        stop()
    else:
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _run_in_workers(jobs: list[Job], reader, queries: list, workers: int, tick: TickFn | None) -> list[Any]:
    import multiprocessing
    import queue as queue_mod
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    from oriongraph_cli.errors import OrionError

    try:
        ctx = multiprocessing.get_context("spawn")
        ticks = ctx.Queue()
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_start,
                                   initargs=(reader.cfg, reader.path.name, queries, ticks))
    except (OSError, ImportError, ValueError) as exc:
        raise _NoWorkers() from exc

    total, told = len(jobs) * len(queries), 0

    def drain() -> None:
        nonlocal told
        n = 0
        while True:
            try:
                n += ticks.get_nowait()
            except queue_mod.Empty:
                break
        n = min(n, total - told)
        if n and tick is not None:
            told += n
            tick(n)

    results: list[Any] = [None] * len(jobs)
    try:
        futures = {pool.submit(_work, job): i for i, job in enumerate(jobs)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            drain()
            for fut in done:
                try:
                    status = fut.result()
                except BrokenProcessPool as exc:
                    raise OrionError("a measuring process stopped before it finished (out of memory, or killed)",
                                     hint="run again with --jobs 1, or fewer jobs") from exc
                if status[0] != "ok":
                    _raise(status)
                results[futures[fut]] = status[1]
        if tick is not None and told < total:  # ticks still on their way when the last job returned
            tick(total - told)
    except BaseException:
        _stop(pool)
        raise
    finally:
        ticks.close()
        ticks.join_thread()
    pool.shutdown(wait=True)
    return results
