"""What every command shares: options, the project configuration, consoles, and the one
place where every failure becomes a message, a hint and an exit code.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import typer

from oriongraph_cli.errors import ExitStatus, OrionError
from oriongraph_cli.api import clean_line

ROOT_OPT = typer.Option(
    None, "--root", "-r",
    help="Project root (default: $ORION_ROOT, else the nearest directory at or above the current one holding a stage folder or .oriongraph/).",
    show_default=False,
)
JSON_OPT = typer.Option(False, "--json", help="Machine-readable JSON on stdout.")


def _set_quiet(value: bool) -> bool:
    _output["quiet"] = bool(value)
    return value


def quiet_option(help: str = "No progress and no notes on stderr; warnings and errors still print, exit codes are unchanged."):
    """``-q/--quiet``, the same on every command: it silences :func:`note` and progress."""
    return typer.Option(False, "--quiet", "-q", callback=_set_quiet, help=help)


QUIET_OPT = quiet_option()


def err_console():
    from oriongraph_cli.render.table import make_console

    return make_console(sys.stderr)


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {clean_line(message)}\n")


def note(message: str) -> None:
    """An informational line on stderr ("wrote FILE"); nothing with ``-q``."""
    if not _output["quiet"]:
        sys.stderr.write(f"{clean_line(message)}\n")


def is_quiet() -> bool:
    return bool(_output["quiet"])


def progress_wanted(as_json: bool = False) -> bool:
    """A progress bar: on a terminal's stderr, not with ``--json`` or ``-q``."""
    return not (as_json or _output["quiet"]) and sys.stderr.isatty()


def progress_lines(as_json: bool = False) -> bool:
    """Progress as plain lines (``cli.progress.LineProgress``): stderr is not a terminal (CI,
    a script), and neither ``--json`` nor ``-q`` asked for silence."""
    return not (as_json or _output["quiet"]) and not sys.stderr.isatty()


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The first exception a group holds, however deep: what went wrong, said as any other."""
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


@contextmanager
def handled(as_json: bool = False, output: Optional[Path] = None, page: bool = False) -> Iterator[None]:
    """Every failure becomes one message + hint on stderr (and JSON on stdout with --json)
    and its documented exit code — never a traceback (``ORION_DEBUG=1`` shows one).
    ``output`` (``-o FILE``): what stdout gets goes to that file instead (:func:`stdout_to`);
    ``page``: output longer than the terminal goes through a pager (:func:`paged`)."""
    import warnings

    def show(message, category, filename, lineno, file=None, line=None):
        warn(str(message))

    warnings.showwarning = show
    try:
        with stdout_to(output), paged(page and output is None):
            yield
    except typer.Exit:
        raise
    except BrokenPipeError:  # `orion … | head`: the reader left; stop quietly, as SIGPIPE would
        raise typer.Exit(141) from None
    except BaseExceptionGroup as group:  # an async server's task group (orion mcp): its client left
        if group.subgroup(lambda e: isinstance(e, (BrokenPipeError, ConnectionResetError))) is not None and \
                group.subgroup(lambda e: not isinstance(e, (BrokenPipeError, ConnectionResetError, BaseExceptionGroup))) is None:
            raise typer.Exit(141) from None
        _fail(_first_leaf(group), as_json)
    except KeyboardInterrupt as exc:
        # a library may re-raise a plain KeyboardInterrupt for our SIGTERM: the flag tells
        term = isinstance(exc, Terminated) or _signals["terminated"]
        sys.stderr.write("terminated\n" if term else "interrupted\n")
        raise typer.Exit(143 if term else 130) from None
    except Exception as exc:  # noqa: BLE001 — the one place every failure is translated
        _fail(exc, as_json)


def _fail(exc: BaseException, as_json: bool):
    """``exc`` said as one message and hint on stderr (and JSON on stdout with --json), and
    its exit code."""
    from oriongraph_cli.errors import CheckFailed, as_orion_error

    if os.environ.get("ORION_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    err = as_orion_error(exc)
    sys.stderr.write(f"error: {clean_line(err.message)}\n")
    if err.hint:
        sys.stderr.write(f"  hint: {clean_line(err.hint)}\n")
    if as_json and not isinstance(err, CheckFailed):  # a failed check is already in the document
        sys.stdout.write(json.dumps({"schema_version": 1, "kind": "error", **err.to_dict()}, indent=2) + "\n")
    raise typer.Exit(int(err.exit_code)) from None


NULL_OPT = typer.Option(
    False, "--null", "-0",
    help="With -l (implied): end each path with a NUL instead of a newline, for xargs -0.",
)
def _output_opt(plain_unless: str) -> Any:
    return typer.Option(
        None, "--output", "-o", metavar="FILE", show_default=False,
        help=f"Write what stdout would get to FILE instead, as `> FILE` would (plain lines unless {plain_unless}), "
        "replacing it atomically when the command succeeds.",
    )


OUTPUT_OPT = _output_opt("--json")
COMPILE_OUTPUT_OPT = _output_opt("--format or --json")  # compile's: it has --format too


class _Captured(io.StringIO):
    """stdout while ``-o FILE`` collects it: not a terminal, like a file."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return False


def check_output_path(path: Path, flag: str = "-o") -> Path:
    """The file ``-o`` will write (symlinks followed), refused before any work is done when
    it is inside an index directory, a directory, or in a directory that cannot be written."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        st = None
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return Path(path)  # a FIFO, a device, /dev/stdout (a pipe's magic link): written in place, as given
    target = Path(os.path.realpath(path))
    if ".oriongraph" in target.parts:
        raise OrionError(f"{flag} {path}: inside orion's index directory", hint="write the file elsewhere, e.g. -o out.txt", exit_code=ExitStatus.USAGE)
    if target.is_dir():
        raise OrionError(f"{flag} {path}: is a directory", hint="give a file path, e.g. -o out.txt", exit_code=ExitStatus.USAGE)
    if not target.parent.is_dir():
        raise OrionError(f"{flag} {path}: no directory {target.parent}", hint="create it first, or choose another path")
    if not os.access(target.parent, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise OrionError(f"{flag} {path}: permission denied", hint="choose a path you can write")
    return target


@contextmanager
def stdout_to(path: Optional[Path]) -> Iterator[None]:
    """``-o FILE``: stdout is collected and, when the command succeeds (or a ``--check``
    fails after its report is complete), written to FILE through a temp file and a rename,
    so a reader never sees half a file and a failed command leaves it as it was. A FIFO or
    a device (``-o /dev/null``) is written in place."""
    if path is None:
        yield
        return
    from oriongraph_cli.errors import CheckFailed

    target = check_output_path(path)
    real, buf = sys.stdout, _Captured()
    sys.stdout = buf
    complete = False
    try:
        yield
        complete = True
    except typer.Exit as exc:
        complete = not exc.exit_code
        raise
    except CheckFailed:
        complete = True
        raise
    finally:
        sys.stdout = real
        if complete:
            _write_output(path, target, buf.getvalue())


def _write_output(path: Path, target: Path, text: str) -> None:
    from oriongraph_cli.api import write_atomically

    try:
        if target.exists() and not target.is_file():
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(text)
        else:
            write_atomically(target, text.encode("utf-8"))
    except OSError as exc:
        raise OrionError(f"-o {path}: cannot write ({exc.strerror or exc})", hint="choose another path, or free space there") from None
    note(f"wrote {path}")


# --------------------------------------------------------------------------- pager

DEFAULT_PAGER = "less"  # with LESS=FRX unless LESS is set, as git runs it: "less -FRX"


def set_pager(enabled: bool) -> None:
    _output["pager"] = enabled


def pager_command(isatty: bool, env: Optional[dict] = None) -> Optional[str]:
    """The pager for output longer than the terminal, chosen as git chooses it: none off a
    terminal or with ``--no-pager``; else ``$ORION_PAGER``, then ``$PAGER``, then ``less``
    (as ``less -FRX``); an empty value or ``cat`` means none."""
    if not isatty or not _output["pager"]:
        return None
    env = os.environ if env is None else env
    for var in ("ORION_PAGER", "PAGER"):
        if var in env:
            value = env[var].strip()
            return None if value in ("", "cat") else value
    return DEFAULT_PAGER


class _TerminalCapture(_Captured):
    """stdout collected for the pager: still a terminal to the renderers (tables, colour)."""

    def isatty(self) -> bool:
        return True


@contextmanager
def paged(enabled: bool = True) -> Iterator[None]:
    """On a terminal, collect what stdout gets; then write it as it is when it fits the
    terminal's height, else run the pager on it (``less -FRX``: colour kept, nothing
    cleared on exit). Off a terminal, with ``--no-pager``, or an unknown terminal height,
    nothing changes."""
    real = sys.stdout
    try:
        rows = os.get_terminal_size(real.fileno()).lines if real.isatty() else 0
    except (AttributeError, ValueError, OSError):
        rows = 0
    command = pager_command(enabled and rows > 0)
    if command is None:
        yield
        return
    buf = _TerminalCapture()
    sys.stdout = buf
    try:
        yield
    finally:
        sys.stdout = real
        show_paged(buf.getvalue(), command, rows)


def show_paged(text: str, command: str, rows: int) -> None:
    """``text`` through ``command`` (run by the shell, as git runs a pager) when it has more
    lines than ``rows``; written directly when it fits or the pager cannot be found."""
    import shlex
    import shutil
    import signal
    import subprocess

    words = shlex.split(command) if command.strip() else []
    if text.count("\n") < rows or not words or shutil.which(words[0]) is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    env = {**os.environ}
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the pager
    try:
        subprocess.run(command, shell=True, input=text.encode("utf-8", "replace"), env=env, check=False)
    finally:
        signal.signal(signal.SIGINT, previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: cleanup runs, the message says so, exit 143."""


_signals = {"terminated": False}


def _on_sigterm(signum, frame) -> None:
    _signals["terminated"] = True
    raise Terminated()



def project_config(root: Optional[Path], **overrides):
    """The configuration of the project at ``--root``, ``ORION_ROOT``, or the nearest
    directory at or above the current one that holds a stage folder or ``.oriongraph/``."""
    from oriongraph_cli.api import load_config, resolve_root
    from oriongraph_cli.render.paths import follow_cwd

    cfg = load_config(resolve_root(root), **overrides)
    follow_cwd(cfg.root)  # line output and tables show paths from where the user stands
    return cfg


def prefetch_model(cfg) -> None:
    """Start the query-model load now, overlapping the compile's imports (store/prefetch.py);
    nothing inside ``orion serve``, whose open index holds its model."""
    if _resident["index"] is not None:
        return
    from oriongraph_cli.api import prefetch_model as start

    start(cfg)


# --------------------------------------------------------------------------- an index kept open


class NotResident(BaseException):
    """Inside ``orion serve``: this command's settings need an index other than the one kept
    open (another project, model or thread count). A BaseException, so ``handled`` lets it
    through to the server, which answers that the command runs in the client's process."""


class ResidentIndex:
    """One open reader of a project's index, reopened when ``orion index`` publishes a new
    generation: what ``orion mcp`` and ``orion serve`` compile on."""

    def __init__(self, cfg):
        import threading

        from oriongraph_cli.api import kept_index_model

        self.cfg = cfg
        self._reader = None
        self._stamp: tuple | None = None  # the open generation: its name and its folder's identity
        self._lock = threading.Lock()
        self.index_model = kept_index_model()  # loaded by the first `orion index` that embeds, then kept

    @staticmethod
    def key(cfg) -> tuple:
        """What a reader depends on besides the index itself (the embedder and FAISS setup)."""
        return (str(cfg.index_dir), cfg.model, cfg.model_path, cfg.threads("query"))

    def reader(self, cfg=None):
        """The open reader (``cfg``, when given, must need this same one: NotResident else)."""
        from oriongraph_cli.api import current_generation, generation_stamp, open_index

        if cfg is not None and self.key(cfg) != self.key(self.cfg):
            raise NotResident("the settings need another index or model than the one kept open")
        with self._lock:
            current = current_generation(self.cfg)  # warns of a damaged generation, once, as opening does
            # a generation is its name and its folder: an index deleted and built again
            # names its first generation 000001 again
            stamp = generation_stamp(self.cfg, current)
            if self._reader is not None and self._stamp != stamp:
                self._reader.close()
                self._reader = None
            if self._reader is None:
                import warnings

                with warnings.catch_warnings():  # said just above
                    warnings.simplefilter("ignore")
                    self._reader = open_index(self.cfg)
                self._stamp = generation_stamp(self.cfg, self._reader.generation)
            return self._reader

    def close(self) -> None:
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None


_resident: dict = {"index": None}  # set by `orion serve` while it runs a command


def set_resident(index: "ResidentIndex | None") -> None:
    _resident["index"] = index


def resident_reader(cfg):
    """The reader a compile runs on: the server's open index inside ``orion serve``, else None
    (the library opens the current generation itself)."""
    index = _resident["index"]
    return None if index is None else index.reader(cfg)


SERVED_INDEX_MAX_FILES = 20  # notes a served `orion index` parses again or removes at most (compiles wait while it runs)


def resident_index_options(cfg) -> dict:
    """How ``orion index`` runs inside ``orion serve`` (``index_project``'s keywords), {} in
    its own process. The server's kept model; and only a short run, since the compiles sent
    to the server wait for it: a rebuild, a repair, more than ``SERVED_INDEX_MAX_FILES``
    notes to parse or remove, or another writer holding the lock run in the command's own process
    (NotResident), with its progress and its wait."""
    index = _resident["index"]
    if index is None:
        return {}
    if str(cfg.index_dir) != str(index.cfg.index_dir):
        raise NotResident("another project's index")

    def admit(planned) -> None:
        if planned.rebuild:
            raise NotResident(f"a rebuild ({planned.rebuild})")
        if planned.repair:
            raise NotResident("a repair of a damaged generation")
        if planned.files + planned.removed > SERVED_INDEX_MAX_FILES:
            raise NotResident(f"{planned.files + planned.removed} notes to index or remove (a server takes at most {SERVED_INDEX_MAX_FILES})")

    def on_wait(pid) -> None:
        raise NotResident("another writer holds the index lock")

    return {"embedder_source": index.index_model, "admit": admit, "on_wait": on_wait}


# --------------------------------------------------------------------------- output

COLOR_MODES = ("auto", "always", "never")
_output = {"color": None, "quiet": False, "pager": True}  # set by the global --color, --no-pager and -q


def set_color(mode: str | None) -> None:
    _output["color"] = mode


def reset_command_state() -> None:
    """Forget what the last command in this process set (``--color``, ``-q``, ``--no-pager``,
    a SIGTERM seen, the directory paths are shown from): ``orion serve`` runs many."""
    from oriongraph_cli.render import paths

    _output.update(color=None, quiet=False, pager=True)
    _signals["terminated"] = False
    paths.reset()


def was_terminated() -> bool:
    """Whether SIGTERM arrived during the last command."""
    return bool(_signals["terminated"])


def color_mode() -> str:
    """``--color`` if given; else ``never`` with NO_COLOR, ``always`` with FORCE_COLOR; else ``auto``."""
    if _output["color"]:
        return _output["color"]
    if os.environ.get("NO_COLOR", ""):
        return "never"
    if os.environ.get("FORCE_COLOR", "") not in ("", "0"):
        return "always"
    return "auto"


def tables_wanted(stream=None) -> bool:
    """Tables on a terminal (or when colour is forced); line-oriented plain text on a pipe."""
    stream = stream if stream is not None else sys.stdout
    if color_mode() == "always":
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def stdout_console():
    from oriongraph_cli.render.table import make_console

    return make_console(sys.stdout, color=color_mode())


def read_intent(intent: str) -> str:
    """``-`` reads the intent from stdin (at most 64 KiB)."""
    if intent != "-":
        return intent
    if sys.stdin is None:  # closed (<&-)
        raise OrionError("stdin is closed: no intent to read", hint='pipe the intent in, or give it as an argument: orion compile "…"',
                         exit_code=ExitStatus.USAGE)
    data = sys.stdin.read(64 * 1024 + 1)
    if len(data) > 64 * 1024:
        raise OrionError("the intent on stdin is longer than 64 KiB", hint="say what you are about to do in a few sentences", exit_code=ExitStatus.USAGE)
    return data.strip()
