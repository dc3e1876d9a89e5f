"""The ``orion`` entry point, and the thin client of ``orion serve``.

A fresh ``orion compile`` spends most of its CPU importing numpy, FAISS, onnxruntime and
tiktoken and loading the model before it ranks anything. When ``orion serve`` runs for
the project, ``orion compile`` and ``orion search`` send their command line to it over a
Unix socket in ``.oriongraph/serve/`` and write what it answers: stdout and stderr bytes
and an exit code, produced by the same command code on the server's open index. This
module imports only the standard library so that path stays cheap; everything else
(``--help``, other commands, a terminal, no server, a server for another project or
another version, any socket error) runs the command in this process as before
(``oriongraph_cli.cli.main``). ``ORION_NO_SERVE=1`` always runs in-process.

What the client decides locally and passes: the working directory, the environment
(colour, settings, ``ORION_ROOT``), the output encodings, whether stderr is a terminal,
the umask, and stdin when the command asks for it (``-``). stdout on a terminal runs
in-process: tables, their width and the pager belong to the terminal; so does a usage
error (exit 2), which typer lays out for the width of whatever terminal this process's
streams are on.
"""

from __future__ import annotations

import os
import sys

PROTOCOL = 1
OFF_ENV = "ORION_NO_SERVE"
INDEX_DIR = ".oriongraph"
SERVE_DIR = "serve"  # .oriongraph/serve/: the socket and the server's lock, mode 0700
SOCKET_NAME = "sock"
SERVED_COMMANDS = ("compile", "search")
# a request is the command line, the environment and at most 64 KiB of intent on stdin
MAX_REQUEST = 4 << 20
MAX_HEADER = 64 << 10
STDIN_LIMIT = 64 * 1024 + 1  # what the CLI reads of an intent given as '-' (cli/context.read_intent)
# the stage folders (models.TOP_FOLDERS; importing the models costs a fresh client ~40 ms)
TOP_FOLDERS = ("01_context", "02_knowledge", "03_workstreams", "04_artifacts")
_GLOBAL_VALUES = ("-C", "--color")
_GLOBAL_FLAGS = ("--no-pager", "-P")


class NotServed(Exception):
    """This command runs in-process (the reason is for tests and ``orion serve --status``)."""


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
        command_of(argv)
    except NotServed:
        return
    import gc

    gc.disable()


# --------------------------------------------------------------------------- routing


def command_of(argv: list[str]) -> tuple[str, list[str], str | None]:
    """(command, its arguments, the ``-C`` directory) after the global options; NotServed
    when the command line is one only the CLI itself should read (help, version, ...)."""
    chdir = None
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        a = argv[i]
        if a in _GLOBAL_VALUES and i + 1 < len(argv):
            if a == "-C":
                chdir = argv[i + 1] if chdir is None else os.path.join(chdir, argv[i + 1])
            i += 2
        elif a in _GLOBAL_FLAGS or a.startswith("--color="):
            i += 1
        else:
            raise NotServed(f"global option {a}")
    if i >= len(argv) or argv[i] not in SERVED_COMMANDS:
        raise NotServed("not a served command")
    rest = argv[i + 1:]
    if any(a in ("-h", "--help") for a in rest):
        raise NotServed("help")
    return argv[i], rest, chdir


def root_of(rest: list[str], base: str) -> str:
    """The project root the command will use, found as ``config.resolve_root`` finds it
    (``--root``, else ``ORION_ROOT``, else the nearest directory at or above ``base`` with a
    stage folder or ``.oriongraph/``). The server checks it again against its own."""
    given = None
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--":
            break
        if a in ("--root", "-r") and i + 1 < len(rest):
            given = rest[i + 1]
            i += 2
            continue
        if a.startswith("--root="):
            given = a[len("--root="):]
        elif a.startswith("-r") and len(a) > 2 and not a.startswith("--"):
            given = a[2:]
        i += 1
    if given is None:
        given = os.environ.get("ORION_ROOT") or None
    if given is not None:
        return os.path.realpath(os.path.join(base, given))
    here = os.path.realpath(base)
    while True:
        if os.path.isdir(os.path.join(here, INDEX_DIR)) or any(os.path.isdir(os.path.join(here, t)) for t in TOP_FOLDERS):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return os.path.realpath(base)
        here = parent


def socket_path(root: str) -> str:
    return os.path.join(root, INDEX_DIR, SERVE_DIR, SOCKET_NAME)


# --------------------------------------------------------------------------- the wire


def connect(path: str, timeout: float = 2.0):
    """A connected stream socket to ``path``; a path past the kernel's ~107 bytes is reached
    through its directory's descriptor (Linux ``/proc/self/fd``)."""
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        if len(os.fsencode(path)) < 100:
            sock.connect(path)
        else:
            fd = os.open(os.path.dirname(path), os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            try:
                sock.connect(f"/proc/self/fd/{fd}/{os.path.basename(path)}")
            finally:
                os.close(fd)
    except BaseException:
        sock.close()
        raise
    return sock


def send_frame(sock, doc: dict) -> None:
    import json

    data = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    sock.sendall(len(data).to_bytes(4, "big") + data)


def recv_exact(sock, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("the connection closed early")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock, limit: int) -> dict:
    """One length-prefixed JSON object of at most ``limit`` bytes (ValueError otherwise)."""
    import json

    size = int.from_bytes(recv_exact(sock, 4), "big")
    if size > limit:
        raise ValueError(f"a message of {size} bytes (at most {limit})")
    doc = json.loads(recv_exact(sock, size).decode("utf-8"))
    if not isinstance(doc, dict):
        raise ValueError("a message that is not a JSON object")
    return doc


def ask(path: str, doc: dict, timeout: float | None = None) -> tuple[dict, bytes, bytes]:
    """Send one request; the server's header and its stdout and stderr bytes."""
    with connect(path) as sock:
        send_frame(sock, doc)
        sock.settimeout(timeout)
        head = recv_frame(sock, MAX_HEADER)
        out_n, err_n = head.get("stdout", 0), head.get("stderr", 0)
        if not (isinstance(out_n, int) and isinstance(err_n, int) and out_n >= 0 and err_n >= 0):
            raise ValueError("a reply with bad sizes")
        out = recv_exact(sock, out_n) if out_n else b""
        err = recv_exact(sock, err_n) if err_n else b""
    return head, out, err


def identity() -> dict:
    """What must match the server for its answer to be this process's: protocol, version,
    the installed package's directory."""
    from oriongraph_cli import __version__

    return {"protocol": PROTOCOL, "version": __version__, "package": os.path.dirname(os.path.abspath(__file__))}


# --------------------------------------------------------------------------- the compile


def served(argv: list[str]) -> int | None:
    """Run ``orion ARGV`` on the project's server and write its answer; the exit code, or
    NotServed (nothing written) when the command should run in-process."""
    if os.environ.get(OFF_ENV, ""):
        raise NotServed(OFF_ENV)
    try:
        if os.isatty(1):
            raise NotServed("stdout is a terminal")
    except OSError:
        raise NotServed("no stdout") from None
    _command, rest, chdir = command_of(argv)
    try:
        cwd = os.getcwd()
        base = os.path.join(cwd, chdir) if chdir is not None else cwd
        path = socket_path(root_of(rest, base))
        if not os.path.exists(path):
            raise NotServed("no server")
    except (OSError, ValueError) as exc:  # cwd gone, a name the OS refuses
        raise NotServed(str(exc)) from None
    umask = os.umask(0o022)
    os.umask(umask)
    request = {
        "op": "run", **identity(), "root": os.path.dirname(os.path.dirname(os.path.dirname(path))),
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
    except OSError:
        code = code or 1
    return code


class _Terminated(BaseException):
    pass


def _exchange(path: str, request: dict) -> tuple[dict, bytes, bytes]:
    """The server's answer; NotServed on any refusal or socket trouble. A server that asks
    for stdin gets the intent read exactly as the CLI reads it, in a second request."""
    import json

    for _ in range(2):
        if len(json.dumps(request)) > MAX_REQUEST:
            raise NotServed("request too large")
        try:
            head, out, err = ask(path, request)
        except (OSError, ValueError, UnicodeError) as exc:
            raise NotServed(f"socket: {exc}") from None
        status, code = head.get("status"), head.get("exit")
        if status == "ok" and isinstance(code, int) and not isinstance(code, bool) and 0 <= code <= 255:
            return head, out, err
        if status == "stdin" and request["stdin"] is None:
            global _stdin_read
            _stdin_read = [sys.stdin.read(STDIN_LIMIT)]
            request = {**request, "stdin": _stdin_read[0]}
            continue
        raise NotServed(str(head.get("reason") or status))
    raise NotServed("stdin asked twice")


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
