"""Errors the library raises and the exit codes the CLI maps them to.

Commands translate, the library raises: every user-facing failure is an
``OrionError`` carrying a message, a hint that says how to fix it, and an exit code.
"""

from __future__ import annotations

import shlex
from enum import IntEnum


class ExitStatus(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2  # typer/click usage errors
    NOT_A_PROJECT = 3  # none of the OrionFS folders under the root
    NO_INDEX = 4  # `orion index` has not been run (or the index is unreadable)
    NO_CANDIDATES = 5  # compile/search found nothing, even after relaxing filters
    STRICT = 6  # --strict and the run produced warnings
    NOT_FOUND = 7  # a span id / path named on the command line does not exist
    INDEX_BUSY = 75  # another writer holds the lock (EX_TEMPFAIL)


def index_command(root) -> str:
    """``orion index --root ROOT`` as a hint names it, the root quoted so it runs as pasted."""
    return f"orion index --root {shlex.quote(str(root))}"


class OrionError(Exception):
    exit_code: ExitStatus = ExitStatus.ERROR

    def __init__(self, message: str, hint: str | None = None, exit_code: ExitStatus | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def to_dict(self) -> dict:
        return {
            "error": type(self).__name__,
            "message": self.message,
            "hint": self.hint,
            "exit_code": int(self.exit_code),
        }


class CheckFailed(OrionError):
    """``--check`` found a problem. The command's own output (one JSON document with
    ``--json``) already reports it under ``"check"``, so no error object follows it on
    stdout: stdout stays one document that ``json.loads`` reads; the message goes to stderr."""


def check_result(problem: str | None, hint: str | None = None) -> dict:
    """The ``"check"`` member of a ``--check --json`` document."""
    return {"passed": problem is None, "message": problem, "hint": hint if problem else None}


class NotAProjectError(OrionError):
    exit_code = ExitStatus.NOT_A_PROJECT


class NoIndexError(OrionError):
    exit_code = ExitStatus.NO_INDEX


class NoCandidatesError(OrionError):
    exit_code = ExitStatus.NO_CANDIDATES


class StrictError(OrionError):
    exit_code = ExitStatus.STRICT


class NotFoundError(OrionError):
    exit_code = ExitStatus.NOT_FOUND


class IndexBusyError(OrionError):
    exit_code = ExitStatus.INDEX_BUSY


class ConfigError(OrionError):
    exit_code = ExitStatus.USAGE


class UnsafeStateError(OrionError):
    """The index directory is a symlink or otherwise not what orion created; refused."""

    exit_code = ExitStatus.ERROR


def as_orion_error(exc: BaseException) -> OrionError:
    """Any exception as an OrionError with a one-line message, a hint and an exit code."""
    import errno
    import sqlite3

    if isinstance(exc, OrionError):
        return exc
    if isinstance(exc, OSError):
        where = f" while writing {exc.filename}" if exc.filename else ""
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return OrionError(
                f"no space left on device{where}; the previous index is intact",
                hint="free some disk space and run the command again",
            )
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return OrionError(f"permission denied: {exc.filename or exc}", hint="check the permissions of that path")
        return OrionError(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), hint="check that path and run again")
    if isinstance(exc, sqlite3.Error) and (getattr(exc, "sqlite_errorcode", None) == getattr(sqlite3, "SQLITE_FULL", 13)
                                           or "database or disk is full" in str(exc)):
        return OrionError("no space left on device while writing the index; the previous index is intact",
                          hint="free some disk space and run the command again")
    if isinstance(exc, sqlite3.Error):
        return OrionError(
            f"the index database cannot be read ({exc})",
            hint="run `orion index` to repair it",
            exit_code=ExitStatus.NO_INDEX,
        )
    if isinstance(exc, MemoryError):
        return OrionError("out of memory", hint="lower embed_batch_size or max_file_bytes in .orion.toml")
    if isinstance(exc, RecursionError):
        return OrionError("input nested too deeply to process", hint="run with ORION_DEBUG=1 and report the file it names")
    return OrionError(
        f"internal error: {exc.__class__.__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": "),
        hint="please report this with the command you ran (ORION_DEBUG=1 prints the traceback)",
    )
