"""`orion serve`: one project's index kept open behind a Unix socket, for the CLI's compiles
and its small re-indexes.

The server listens on ``.oriongraph/serve/sock`` (the directory 0700, the socket 0600,
only this user's processes answered) and holds ``.oriongraph/serve/lock`` while it runs,
so a socket left by a server that died is known stale and replaced. A client
(``oriongraph_cli/client.py``) sends the command line of an ``orion compile`` or ``orion
search`` with its working directory, environment and output encodings; the server runs
that command line through the CLI itself (``cli.run_command``: the same options, request
building, pipeline, renderers and error handling) on its open index, and answers the
exact stdout and stderr bytes and the exit code. Anything it should not answer — another
project root, version or umask, settings that need another model, a command other than
compile, search or index, an index run too large for a server whose compiles wait on it
(``context.resident_index_options``), a malformed, oversized or slow request — is refused
in one line, and the client runs the command itself.

The index is reopened when ``orion index`` publishes a new generation
(``context.ResidentIndex``, as ``orion mcp`` does); the server exits after
``serve_idle_timeout`` seconds without a request, when its socket is removed, when
orion's own files change under it (an upgrade), on ``orion serve --stop``, SIGTERM or
Ctrl-C.
"""

from __future__ import annotations

import io
import os
import shlex
import sys
import time
from pathlib import Path

from typing import Optional

import typer

from oriongraph_cli import wire
from oriongraph_cli.cli.context import QUIET_OPT, JSON_OPT, ROOT_OPT
from oriongraph_cli.errors import ExitStatus, OrionError

LOCK_NAME = "lock"
LOG_NAME = "log"  # stderr of a detached server
READ_TIMEOUT = 10.0  # seconds a client has to send its request
_ERRORS = ("strict", "replace", "backslashreplace", "surrogateescape", "ignore", "xmlcharrefreplace", "namereplace")


class Refused(Exception):
    """A request the server does not run; the client runs the command itself."""


def serve_dir(cfg) -> Path:
    return Path(cfg.index_dir) / wire.SERVE_DIR


def _package_stamp() -> tuple:
    """orion's own files as they are now (path, size, mtime): a change means the code this
    server runs is not the code a client would run."""
    here = Path(wire.__file__).resolve().parent
    out = []
    for dirpath, dirnames, filenames in os.walk(here):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                st = os.stat(os.path.join(dirpath, name))
                out.append((dirpath, name, st.st_size, st.st_mtime_ns))
    return tuple(out)


# --------------------------------------------------------------------------- the directory


def _private_dir(path: Path) -> Path:
    """``.oriongraph/serve/``: created 0700, refused when it is a link or another user's."""
    for d in (path.parent, path):
        if d.is_symlink():
            raise OrionError(f"{d} is a symlink; orion never listens or writes through a link", hint=f"remove the link (`rm {d}`)")
    if not path.parent.is_dir():
        raise OrionError(f"no index in {path.parent}", hint="run `orion index` first", exit_code=ExitStatus.NO_INDEX)
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        st = path.lstat()
        if st.st_uid != os.getuid():
            raise OrionError(f"{path} belongs to another user", hint=f"remove it (`rm -r {path}`) and start orion serve again")
        os.chmod(path, 0o700)
    except OSError as exc:
        raise OrionError(f"{path}: cannot create ({exc.strerror or exc})", hint="check the permissions of .oriongraph/") from None
    return path


def _take_lock(directory: Path):
    """The server's lock (held while it runs); None when another server holds it."""
    import fcntl

    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def _bind(path: Path):
    """The listening socket at ``path`` (0600 from its creation); a stale one is replaced
    (the caller holds the lock, so no server owns it)."""
    import socket

    if os.path.lexists(path):
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        if len(os.fsencode(str(path))) < 100:
            sock.bind(str(path))
        else:  # past the kernel's limit on socket paths: bind by the directory's descriptor
            fd = os.open(path.parent, os.O_RDONLY)
            try:
                sock.bind(f"/proc/self/fd/{fd}/{path.name}")
            finally:
                os.close(fd)
        os.chmod(path, 0o600)
        sock.listen(16)
    except OSError as exc:
        sock.close()
        raise OrionError(f"{path}: cannot listen ({exc.strerror or exc})", hint="check the permissions of .oriongraph/serve/") from None
    finally:
        os.umask(old)
    return sock


# --------------------------------------------------------------------------- the server


class Server:
    def __init__(self, cfg, idle_timeout: float, log=None):
        from oriongraph_cli.cli.context import ResidentIndex

        self.cfg = cfg
        self.root = os.path.realpath(cfg.root)
        self.idle_timeout = idle_timeout
        self.index = ResidentIndex(cfg)
        self.identity = wire.identity()
        self.stamp = _package_stamp()
        self.umask = os.umask(0o022)
        os.umask(self.umask)
        self.started = time.time()
        self.served = 0
        self.stop = ""
        self.log = log or (lambda line: None)

    def warm(self) -> None:
        """Open the index and load the model, tokenizer and lookup tables now, so the first
        client is answered as fast as the next (a compile that records nothing)."""
        from oriongraph_cli.api import build_request, compile_workingset

        reader = self.index.reader()
        try:
            compile_workingset(build_request(self.cfg, "orion serve", budget=1000, record_usage=False), self.cfg, reader)
        except Exception:  # noqa: BLE001 — an index with nothing to compile still serves its errors
            pass

    def serve_forever(self, sock, sock_path: Path) -> str:
        """Answer connections until a reason to stop; the reason."""
        ino = os.stat(sock_path).st_ino
        last = time.monotonic()
        tick = 5.0 if not self.idle_timeout else min(5.0, self.idle_timeout)
        sock.settimeout(tick)
        while not self.stop:
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                if self.idle_timeout and time.monotonic() - last >= self.idle_timeout:
                    return f"idle for {self.idle_timeout:g} s"
                try:
                    if os.stat(sock_path).st_ino != ino:
                        return "its socket was replaced"
                except OSError:
                    return "its socket was removed"
                continue
            with conn:
                self.handle(conn)
            last = time.monotonic()
        return self.stop

    # -------------------------------------------------------------- one connection
    def handle(self, conn) -> None:
        conn.settimeout(READ_TIMEOUT)
        try:
            self._check_peer(conn)
            # the whole request within READ_TIMEOUT: a client trickling a byte at a time
            # would otherwise hold the server (it answers one connection at a time)
            req = wire.recv_frame(conn, wire.MAX_REQUEST, deadline=time.monotonic() + READ_TIMEOUT)
            head, out, err = self.answer(req)
        except Refused as exc:
            head, out, err = {"status": "refused", "reason": " ".join(str(exc).split())[:500]}, b"", b""
        except (OSError, ValueError, UnicodeError, RecursionError) as exc:  # malformed, oversized, slow, gone
            head, out, err = {"status": "error", "reason": _one_line(exc)}, b"", b""
        except Exception as exc:  # noqa: BLE001 — one client's fault never ends the server
            self.log(f"orion serve: a request failed ({_one_line(exc)})")
            head, out, err = {"status": "error", "reason": _one_line(exc)}, b"", b""
        try:
            conn.settimeout(READ_TIMEOUT)
            wire.send_frame(conn, {**head, "stdout": len(out), "stderr": len(err)})
            if out:
                conn.sendall(out)
            if err:
                conn.sendall(err)
        except OSError:
            pass  # the client left (Ctrl-C): it prints its own message

    def _check_peer(self, conn) -> None:
        import socket
        import struct

        if not hasattr(socket, "SO_PEERCRED"):
            return  # the socket's 0600 and its directory's 0700 still keep others out
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        if uid != os.getuid():
            raise Refused(f"a client of user {uid}; this server answers user {os.getuid()} only")

    def answer(self, req: dict) -> tuple[dict, bytes, bytes]:
        op = req.get("op")
        if op == "stop":
            self.stop = "stopped by orion serve --stop"
            return {"status": "ok", "exit": 0, "pid": os.getpid()}, b"", b""
        if op == "status":
            return {"status": "ok", "exit": 0, **self.describe()}, b"", b""
        if op != "run":
            raise Refused(f"unknown operation {str(op)[:40]!r}")
        for key in ("protocol", "version", "package"):
            if req.get(key) != self.identity[key]:
                raise Refused(f"another orion ({key} {str(req.get(key))[:80]!r}; this server: {self.identity[key]!r})")
        if _package_stamp() != self.stamp:
            self.stop = "orion's files changed since it started"
            raise Refused(self.stop)
        argv, cwd, env, stdin = _checked(req)
        if os.path.realpath(str(req.get("root"))) != self.root:
            raise Refused(f"another project ({str(req.get('root'))[:200]}); this server: {self.root}")
        if req.get("umask") != self.umask:
            raise Refused("another umask than the server's (files it writes would get other modes)")
        try:
            wire.command_of(argv)
        except wire.NotServed as exc:
            raise Refused(str(exc)) from None
        return self.run(argv, cwd, env, stdin, req)

    def describe(self) -> dict:
        reader = self.index._reader
        return {
            "pid": os.getpid(), "root": self.root, "version": self.identity["version"],
            "generation": reader.generation if reader is not None else None, "served": self.served,
            "idle_timeout": self.idle_timeout, "up_seconds": round(time.time() - self.started, 1),
            "index_model_loads": self.index.index_model.loads,
        }

    # -------------------------------------------------------------- one command
    def run(self, argv, cwd, env, stdin, req) -> tuple[dict, bytes, bytes]:
        import warnings

        from oriongraph_cli.cli import context, run_command

        saved_env, saved_io, saved_warn = dict(os.environ), (sys.stdin, sys.stdout, sys.stderr), warnings.showwarning
        out = _Stream(*req["stdout"], tty=False)
        err = _Stream(*req["stderr"], tty=bool(req.get("stderr_tty")))
        try:
            os.chdir(cwd)
        except OSError as exc:
            raise Refused(f"cannot enter {cwd}: {exc.strerror}") from None
        try:
            os.environ.clear()
            os.environ.update(env)
            sys.stdin = io.StringIO(stdin) if stdin is not None else _NoStdin()
            sys.stdout, sys.stderr = out, err
            context.reset_command_state()
            context.set_resident(self.index)
            with warnings.catch_warnings():  # each command warns as a fresh process would, not once per server
                code = run_command(argv)
        except context.NotResident as exc:
            raise Refused(str(exc)) from None
        except _StdinWanted:
            return {"status": "stdin"}, b"", b""
        finally:
            context.set_resident(None)
            sys.stdin, sys.stdout, sys.stderr = saved_io
            warnings.showwarning = saved_warn
            os.environ.clear()
            os.environ.update(saved_env)
            os.chdir(self.root)
        if context.was_terminated():  # SIGTERM was for the server, not for this command
            self.stop = "terminated"
            raise Refused("the server is stopping")
        try:
            data = out.getvalue().encode(out.encoding, out.errors), err.getvalue().encode(err.encoding, err.errors)
        except (UnicodeError, LookupError) as exc:
            raise Refused(f"output the client's encoding cannot carry ({exc.__class__.__name__})") from None
        self.served += 1
        return {"status": "ok", "exit": int(code)}, data[0], data[1]


class _Stream(io.StringIO):
    """What the command writes for the client, with the client's encoding and terminal."""

    def __init__(self, encoding, errors, tty: bool):
        super().__init__()
        self._encoding, self._errors, self._tty = encoding, errors, tty

    @property
    def encoding(self):
        return self._encoding

    @property
    def errors(self):
        return self._errors

    def isatty(self) -> bool:
        return self._tty


class _StdinWanted(BaseException):
    """The command reads its intent from stdin: the client sends it in a second request."""


class _NoStdin(io.StringIO):
    def read(self, *args):
        raise _StdinWanted()

    readline = read


def _checked(req: dict) -> tuple[list[str], str, dict[str, str], str | None]:
    """The fields of a run request, type-checked (Refused on anything else)."""
    argv, cwd, env, stdin = req.get("argv"), req.get("cwd"), req.get("env"), req.get("stdin")
    if not (isinstance(argv, list) and len(argv) <= 4096 and all(isinstance(a, str) and "\0" not in a for a in argv)):
        raise Refused("argv must be a list of strings")
    if not (isinstance(cwd, str) and os.path.isabs(cwd) and "\0" not in cwd):
        raise Refused("cwd must be an absolute path")
    if not (isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) and k and "=" not in k
                                          and "\0" not in k + v for k, v in env.items())):
        raise Refused("env must map names to strings")
    if stdin is not None and not (isinstance(stdin, str) and len(stdin) <= wire.STDIN_LIMIT):
        raise Refused("stdin must be at most 64 KiB of text")
    import codecs

    for key in ("stdout", "stderr"):
        pair = req.get(key)
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair) and pair[1] in _ERRORS):
            raise Refused(f"{key} must be [encoding, errors]")
        try:
            codecs.lookup(pair[0])
        except LookupError:
            raise Refused(f"unknown encoding {pair[0][:40]!r}") from None
    if not isinstance(req.get("stderr_tty"), bool) or not isinstance(req.get("umask"), int):
        raise Refused("stderr_tty and umask are required")
    return argv, cwd, env, stdin


def _one_line(exc: BaseException) -> str:
    return " ".join(f"{exc.__class__.__name__}: {exc}".split())[:300]


# --------------------------------------------------------------------------- the command's parts


def run_server(cfg, idle_timeout: float, note) -> str:
    """Serve ``cfg``'s project until a reason to stop (returned)."""
    directory = _private_dir(serve_dir(cfg))
    lock = _take_lock(directory)
    if lock is None:
        pid = _running_pid(directory)
        raise OrionError(f"orion serve already runs for {cfg.root}" + (f" (pid {pid})" if pid else ""),
                         hint="stop it with `orion serve --stop`, or use it as it is")
    sock = None
    path = directory / wire.SOCKET_NAME
    server = Server(cfg, idle_timeout, log=note)
    try:
        server.warm()
        sock = _bind(path)
        note(f"orion serve: serving {cfg.root} on {path} (pid {os.getpid()}"
             + (f", exits after {idle_timeout:g} s idle)" if idle_timeout else ")"))
        return server.serve_forever(sock, path)
    finally:
        if sock is not None:
            sock.close()
            try:
                if os.path.lexists(path):
                    os.unlink(path)
            except OSError:
                pass
        server.index.close()
        os.close(lock)  # frees the lock


def _running_pid(directory: Path) -> int | None:
    try:
        text = (directory / LOCK_NAME).read_text().strip()
        return int(text) if text.isdigit() else None
    except (OSError, ValueError):
        return None


def query(cfg, op: str, timeout: float = 5.0) -> dict | None:
    """The running server's answer to ``op`` (status, stop); None when none answers."""
    path = serve_dir(cfg) / wire.SOCKET_NAME
    if not os.path.exists(path):
        return None
    try:
        head, _out, _err = wire.ask(str(path), {"op": op}, timeout=timeout)
    except (OSError, ValueError, UnicodeError):
        return None
    return head if head.get("status") == "ok" else None


def stop_server(cfg, wait: float = 10.0) -> int | None:
    """Ask the server to stop and wait until it has; its pid, or None when none ran."""
    head = query(cfg, "stop")
    if head is None:
        return None
    directory = serve_dir(cfg)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        lock = _take_lock(directory)
        if lock is not None:
            os.close(lock)
            break
        time.sleep(0.05)
    return head.get("pid")


def detach(cfg, idle_timeout: float, wait: float = 120.0) -> int:
    """Start the server in the background (its own session; stderr to .oriongraph/serve/log)
    and return its pid once it answers."""
    import subprocess

    directory = _private_dir(serve_dir(cfg))
    if query(cfg, "status") is not None:
        raise OrionError(f"orion serve already runs for {cfg.root}", hint="stop it with `orion serve --stop`, or use it as it is")
    log_path = directory / LOG_NAME
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "oriongraph_cli", "serve", "--root", str(cfg.root), "--idle-timeout", f"{idle_timeout:g}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=fd, start_new_session=True, close_fds=True,
            cwd=str(cfg.root),
        )
    finally:
        os.close(fd)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            last = _last_line(log_path)
            raise OrionError(f"orion serve did not start: {last or f'exit {proc.returncode}'}",
                             hint=f"run `orion serve --root {shlex.quote(str(cfg.root))}` in the foreground to see why",
                             exit_code=proc.returncode if proc.returncode in set(ExitStatus) else None)
        head = query(cfg, "status", timeout=1.0)
        if head is not None and head.get("pid") == proc.pid:
            return proc.pid
        time.sleep(0.05)
    raise OrionError(f"orion serve did not answer within {wait:g} s (pid {proc.pid})", hint="see .oriongraph/serve/log")


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    errors = [line for line in lines if line.startswith("error:")]
    return (errors or lines or [""])[-1].removeprefix("error: ")


# --------------------------------------------------------------------------- the command


def serve_cmd(
    root: Optional[Path] = ROOT_OPT,
    detach_: bool = typer.Option(False, "--detach", "-d", help="Run in the background (its own session; its messages go to .oriongraph/serve/log) and return once it answers."),
    stop: bool = typer.Option(False, "--stop", help="Stop the server of this project (none running: a note, exit 0)."),
    status: bool = typer.Option(False, "--status", help="Whether a server runs for this project: one line (or --json), exit 0; exit 1 when none does."),
    idle_timeout: Optional[float] = typer.Option(None, "--idle-timeout", metavar="SECONDS", help="Exit after this many seconds without a request; 0 never (default: the serve_idle_timeout setting, 1800)."),
    as_json: bool = JSON_OPT,
    quiet: bool = QUIET_OPT,
) -> None:
    """Keep the project's index open so `orion compile`, `orion search` and `orion index` skip loading it.

    While the server runs, compile and search (not on a terminal) and index send their command line to it over a Unix socket in .oriongraph/serve/ and print its answer: the same bytes and exit code as in-process, at a fraction of the CPU. With no server, another project, version or model, or any socket error, they run in-process as before; ORION_NO_SERVE=1 always does. The server indexes only a small change: --full, a rebuild or repair, more than 20 notes to parse or remove, or a lock another writer holds run in the command's own process.

    The server reopens the index after `orion index` and exits after serve_idle_timeout seconds without a request, on --stop, SIGTERM or Ctrl-C.
    """
    from oriongraph_cli.cli.context import handled, note, project_config

    with handled(as_json):
        if detach_ + stop + status > 1:
            raise OrionError("--detach, --stop and --status go alone", hint="give one of them", exit_code=ExitStatus.USAGE)
        cfg = project_config(root, serve_idle_timeout=idle_timeout)
        if status:
            head = query(cfg, "status")
            if as_json:
                import json

                doc = {"running": head is not None, "root": str(cfg.root)}
                if head is not None:
                    doc.update({k: head[k] for k in ("pid", "version", "generation", "served", "idle_timeout", "up_seconds", "index_model_loads")
                                if k in head})
                sys.stdout.write(json.dumps(doc, indent=2) + "\n")
            elif head is None:
                sys.stdout.write(f"no orion serve for {cfg.root}\n")
            else:
                idle = f", exits after {head['idle_timeout']:g} s idle" if head.get("idle_timeout") else ""
                sys.stdout.write(f"serving {head['root']} (pid {head['pid']}, generation {head['generation']}, "
                                 f"{head['served']} commands answered, up {head['up_seconds']:g} s{idle})\n")
            if head is None:
                raise typer.Exit(1)
            return
        if stop:
            pid = stop_server(cfg)
            note(f"orion serve: stopped (pid {pid})" if pid else f"orion serve: none runs for {cfg.root}")
            return
        from oriongraph_cli.api import check_project

        check_project(cfg.root)
        if detach_:
            pid = detach(cfg, cfg.serve_idle_timeout)
            note(f"orion serve: serving {cfg.root} in the background (pid {pid}); `orion serve --stop` stops it")
            return
        reason = run_server(cfg, cfg.serve_idle_timeout, note)
        note(f"orion serve: stopped ({reason})")
        if reason == "terminated":
            sys.stderr.write("terminated\n")
            raise typer.Exit(143)
