"""The ``orion`` entry point, and the thin client of ``orion serve``.

A fresh ``orion compile`` spends most of its CPU importing numpy, FAISS, onnxruntime and
tiktoken and loading the model before it ranks anything. When ``orion serve`` runs for
the project, ``orion compile``, ``orion search`` and ``orion index`` send their command
line to it over a Unix socket in ``.oriongraph/serve/`` and write what it answers: stdout and stderr bytes
and an exit code, produced by the same command code on the server's open index. This
module imports only the standard library (and ``wire``) so that path stays cheap; everything else
(``--help``, other commands, a terminal, no server, a server for another project or
another version, any socket error) runs the command in this process as before
(``oriongraph_cli.cli.main``). ``ORION_NO_SERVE=1`` always runs in-process. The protocol
itself — which command lines are served, the socket, the frames — is ``wire.py``.

What the client decides locally and passes: the working directory, the environment
(colour, settings, ``ORION_ROOT``), the output encodings, whether stderr is a terminal,
the umask, and stdin when the command asks for it (``-``). A compile or search with stdout
on a terminal runs in-process: tables, their width and the pager belong to the terminal
(``orion index`` prints plain lines and is served there too); so does a usage
error (exit 2), which typer lays out for the width of whatever terminal this process's
streams are on.
"""

from __future__ import annotations

import os
import sys

from oriongraph_cli import wire
from oriongraph_cli.wire import NotServed


def main() -> None:
    """``orion``: the running server's answer when there is one, else the CLI in-process."""
    if os.environ.get("NO_COLOR") is not None:  # as cli.main does, so the server sees the same
        os.environ.setdefault("TERM", "dumb")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        code = served(sys.argv[1:])
    except NotServed:
        code = None
    if code is None:
        _collector_off_for_one_compile(sys.argv[1:])
        if _stdin_read is not None:  # the intent was read for a server that then refused: the CLI reads it again
            import io

            sys.stdin = io.StringIO(_stdin_read[0])
        from oriongraph_cli.cli import main as in_process

        in_process()
        return
    os._exit(code)


_stdin_read: list[str] | None = None  # what was read from stdin for the server, if anything


def _collector_off_for_one_compile(argv: list[str]) -> None:
    """A compile or search run in this process is the process's one job, and it ends with
    ``os._exit``: the cyclic garbage collector is turned off for all of it, as
    ``pipeline.collector_paused`` already does for the compile itself. Its passes over the
    imports' and the index's objects (some 70 of them, 15-25 ms of a fresh compile's CPU)
    find next to nothing to free: what a compile makes, reference counting frees."""
    try:
        command, _rest, _chdir = wire.command_of(argv)
    except NotServed:
        return
    if command not in ("compile", "search"):  # an index run of a whole project makes cycles worth collecting
        return
    import gc

    gc.disable()


# --------------------------------------------------------------------------- the compile


def served(argv: list[str]) -> int | None:
    """Run ``orion ARGV`` on the project's server and write its answer; the exit code, or
    NotServed (nothing written) when the command should run in-process."""
    if os.environ.get(wire.OFF_ENV, ""):
        raise NotServed(wire.OFF_ENV)
    command, rest, chdir = wire.command_of(argv)
    if sys.stdout is None or sys.stderr is None:  # closed (>&-): the CLI says so itself
        raise NotServed("no stdout")
    try:
        if os.isatty(1) and command not in wire.TERMINAL_COMMANDS:
            raise NotServed("stdout is a terminal")
    except OSError:
        raise NotServed("no stdout") from None
    if _output_in_place(rest):
        raise NotServed("-o names a pipe or a device, which only this process can open as its own")
    try:
        cwd = os.getcwd()
        base = os.path.join(cwd, chdir) if chdir is not None else cwd
        path = wire.socket_path(wire.root_of(rest, base))
        if not os.path.exists(path):
            raise NotServed("no server")
    except (OSError, ValueError) as exc:  # cwd gone, a name the OS refuses
        raise NotServed(str(exc)) from None
    umask = os.umask(0o022)
    os.umask(umask)
    request = {
        "op": "run", **wire.identity(), "root": os.path.dirname(os.path.dirname(os.path.dirname(path))),
        "argv": argv, "cwd": cwd, "env": dict(os.environ), "umask": umask, "stdin": None,
        "stdout": [sys.stdout.encoding, sys.stdout.errors], "stderr": [sys.stderr.encoding, sys.stderr.errors],
        "stderr_tty": _isatty(2),
    }
    import signal

    def _term(signum, frame):
        raise _Terminated()

    signal.signal(signal.SIGTERM, _term)
    try:
        head, out, err = _exchange(path, request)
    except (_Terminated, KeyboardInterrupt) as exc:  # as the CLI says it, before anything was written
        sys.stderr.write("terminated\n" if isinstance(exc, _Terminated) else "interrupted\n")
        sys.stderr.flush()
        return 143 if isinstance(exc, _Terminated) else 130
    code = head["exit"]
    if code == 2:  # a usage error: typer lays it out for the terminal this process's streams are on
        raise NotServed("usage error")
    try:
        _write_all(2, err)
    except OSError:
        pass  # as the CLI, which cannot report a failure to write its own messages
    try:
        _write_all(1, out)
    except BrokenPipeError:  # `| head`: the reader left, as the CLI reports it
        code = code or 141
    except OSError as exc:  # a full device: said as the CLI says it
        code = code or 1
        try:
            _write_all(2, f"error: cannot write the output ({exc.strerror or exc})\n"
                          "  hint: free space where stdout goes, or write to a file with -o FILE\n".encode())
        except OSError:
            pass
    return code


class _Terminated(BaseException):
    pass


def _exchange(path: str, request: dict) -> tuple[dict, bytes, bytes]:
    """The server's answer; NotServed on any refusal or socket trouble. A server that asks
    for stdin gets the intent read exactly as the CLI reads it, in a second request."""
    import json

    for _ in range(2):
        if len(json.dumps(request)) > wire.MAX_REQUEST:
            raise NotServed("request too large")
        try:
            head, out, err = wire.ask(path, request)
        except (OSError, ValueError, UnicodeError) as exc:
            raise NotServed(f"socket: {exc}") from None
        status, code = head.get("status"), head.get("exit")
        if status == "ok" and isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= 255:
            return head, out, err
        if status == "stdin" and request["stdin"] is None:
            global _stdin_read
            if sys.stdin is None:  # closed (<&-): the CLI says so itself
                raise NotServed("no stdin")
            _stdin_read = [sys.stdin.read(wire.STDIN_LIMIT)]
            request = {**request, "stdin": _stdin_read[0]}
            continue
        raise NotServed(str(head.get("reason") or status))
    raise NotServed("stdin asked twice")


def _output_in_place(args: list[str]) -> bool:
    """Whether ``-o``/``--output`` names something that is there and is no regular file — a
    FIFO, a device, ``/dev/stdout`` —, which the server would open as its own (its own
    stdout, or a FIFO that blocks it) rather than this process's."""
    import stat

    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("-o", "--output"):
            value = args[i + 1] if i + 1 < len(args) else None
        elif arg.startswith("--output="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-o") and not arg.startswith("--"):
            value = arg[2:]
        else:
            continue
        try:
            if value and not stat.S_ISREG(os.stat(value).st_mode):
                return True
        except (OSError, ValueError):
            continue
    return False


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
