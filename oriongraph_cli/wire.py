"""The protocol between ``orion`` and ``orion serve``: which command lines a server may
answer (``command_of``), the project root they name (``root_of``), the socket's place under
``.oriongraph/serve/``, and length-prefixed JSON frames over a Unix socket. Both the thin
client (``client.py``) and the server (``cli/serve.py``) speak it; it imports only the
standard library, so the client's path stays cheap.
"""

from __future__ import annotations

import os

PROTOCOL = 1
OFF_ENV = "ORION_NO_SERVE"
INDEX_DIR = ".oriongraph"
SERVE_DIR = "serve"  # .oriongraph/serve/: the socket and the server's lock, mode 0700
SOCKET_NAME = "sock"
SERVED_COMMANDS = ("compile", "search", "index")
TERMINAL_COMMANDS = ("index",)  # served with stdout on a terminal too: what they print is plain lines, no table
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


# --------------------------------------------------------------------------- frames


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


def recv_exact(sock, n: int, deadline: float | None = None) -> bytes:
    """``n`` bytes from ``sock``; with ``deadline`` (a ``time.monotonic()`` time) all of them
    by then, however slowly they trickle in (TimeoutError otherwise)."""
    import time

    chunks = []
    while n > 0:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request came too slowly")
            sock.settimeout(left)
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("the connection closed early")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock, limit: int, deadline: float | None = None) -> dict:
    """One length-prefixed JSON object of at most ``limit`` bytes (ValueError otherwise),
    whole by ``deadline`` when one is given."""
    import json

    size = int.from_bytes(recv_exact(sock, 4, deadline), "big")
    if size > limit:
        raise ValueError(f"a message of {size} bytes (at most {limit})")
    doc = json.loads(recv_exact(sock, size, deadline).decode("utf-8"))
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
