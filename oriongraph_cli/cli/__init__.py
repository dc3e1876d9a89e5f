"""The `orion` command line: flags -> Config -> one api call -> a renderer.

stdout carries data only (tables, Markdown, JSON); progress, warnings and errors go to
stderr. Heavy libraries are imported inside the commands so `orion --help` stays fast.
One module per command group (``index``, ``compile``, ``reports``, ``eval``); what they
share is in ``context``.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from oriongraph_cli.api import __version__
from oriongraph_cli.cli import compile as compile_commands
from oriongraph_cli.cli import complete
from oriongraph_cli.cli import eval as eval_commands
from oriongraph_cli.cli import index as index_commands
from oriongraph_cli.cli import init as init_commands
from oriongraph_cli.cli import reports as report_commands
from oriongraph_cli.cli import serve as serve_commands
from oriongraph_cli.cli import settings as settings_commands
from oriongraph_cli.cli.context import QUIET_OPT, Terminated, _on_sigterm, quiet_option

def _typer_app() -> typer.Typer:
    return typer.Typer(
        name="orion",
        help="orion — a context compiler over OrionFS projects: index Markdown knowledge, then compile "
        "a token-budgeted, diverse, explained Working Set for an intent.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )


app = _typer_app()


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"orion {__version__}\n")
        raise typer.Exit()


def _chdir(value: Optional[Path]) -> None:
    if value is None:
        return
    try:
        os.chdir(value)
    except OSError as exc:
        raise typer.BadParameter(f"cannot change to {value}: {exc.strerror}", param_hint="-C") from None


def _no_pager(value: bool) -> bool:
    from oriongraph_cli.cli.context import set_pager

    set_pager(not value)
    return value


def _color(value: Optional[str]) -> Optional[str]:
    from oriongraph_cli.cli.context import COLOR_MODES, set_color

    if value is not None and value not in COLOR_MODES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(COLOR_MODES)}", param_hint="--color")
    set_color(value)
    return value


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."),
    directory: Optional[Path] = typer.Option(
        None, "-C", callback=_chdir, is_eager=True, metavar="DIR",
        help="Run as if orion was started in DIR (like git -C); the project root is then found from there.",
    ),
    color: Optional[str] = typer.Option(
        None, "--color", callback=_color, is_eager=True, metavar="WHEN", autocompletion=complete.choices(("auto", "always", "never")),
        help="auto (default: colour and tables on a terminal, plain lines on a pipe), always, or never; "
        "NO_COLOR and FORCE_COLOR are honoured when this is not given.",
    ),
    no_pager: bool = typer.Option(
        False, "--no-pager", "-P", callback=_no_pager, is_eager=True,
        help="Never page: by default output longer than the terminal goes through $ORION_PAGER, $PAGER or less -FRX (only on a terminal).",
    ),
) -> None:
    """orion — retrieval as compilation."""


app.command("init")(init_commands.init_cmd)
app.command("index")(index_commands.index_cmd)
app.command("status")(index_commands.status_cmd)
app.command("compile")(compile_commands.compile_cmd)
app.command("search")(compile_commands.search_cmd)
app.command("show")(compile_commands.show_cmd)
app.command("links")(report_commands.links_cmd)
app.command("usage")(report_commands.usage_cmd)
app.command("eval")(eval_commands.eval_cmd)
app.command("config")(settings_commands.config_cmd)
app.command("serve")(serve_commands.serve_cmd)


@app.command("mcp")
def mcp_cmd(
    root: Optional[Path] = typer.Option(None, "--root", "-r", help="Project root (default: as for every command).", show_default=False),
    quiet: bool = QUIET_OPT,
) -> None:
    """Serve the project to agents over MCP (stdio): compile_context, search, get_span, status — read-only."""
    from oriongraph_cli.cli.context import handled, project_config

    with handled():
        cfg = project_config(root)
        from oriongraph_cli.api import check_project

        check_project(cfg.root)
        try:
            from oriongraph_cli.cli.mcp_server import serve
        except ImportError as exc:
            from oriongraph_cli.errors import OrionError

            raise OrionError(f"the MCP SDK is not installed ({exc})", hint="pip install 'mcp>=2,<3'") from None
        serve(cfg)


@app.command("watch")
def watch_cmd(
    root: Optional[Path] = typer.Option(None, "--root", "-r", help="Project root (default: as for every command).", show_default=False),
    debounce: int = typer.Option(1000, "--debounce", help="Milliseconds of quiet before re-indexing a burst of changes."),
    quiet: bool = quiet_option("No note on stderr and no line per run on stdout: only warnings and errors."),
) -> None:
    """Re-index whenever notes in the stage folders change, or other files there are added or removed (debounced); Ctrl-C to stop."""
    from oriongraph_cli.cli.context import handled, note, project_config
    from oriongraph_cli.errors import ExitStatus, OrionError

    with handled():
        if not 50 <= debounce <= 600_000:
            raise OrionError(f"--debounce={debounce}: must be from 50 to 600000 ms", exit_code=ExitStatus.USAGE)
        cfg = project_config(root)
        from oriongraph_cli.api import check_project

        check_project(cfg.root)
        from oriongraph_cli.cli.watch import watch

        note(f"orion watch: watching {cfg.root} (Ctrl-C to stop)")
        watch(cfg, debounce_ms=debounce, quiet=quiet)


@app.command("help")
def help_cmd(
    command: Optional[str] = typer.Argument(None, autocompletion=complete.command_names, help="A command (compile, index, …); none: the overview."),
    quiet: bool = QUIET_OPT,
) -> None:
    """Show a command's help, as `orion COMMAND --help` does (`orion help compile`)."""
    from oriongraph_cli.cli.context import handled
    from oriongraph_cli.errors import ExitStatus, OrionError

    with handled():
        names = sorted(c.name for c in app.registered_commands if c.name)
        if command is not None and command not in names:
            raise OrionError(f"no command {command!r}", hint=f"commands: {', '.join(names)}", exit_code=ExitStatus.USAGE)
    app([command, "--help"] if command else ["--help"], prog_name="orion")


@app.command("man")
def man_cmd(
    command: Optional[str] = typer.Argument(None, autocompletion=complete.command_names, help="A command (compile, index, …); none: the overview page."),
    quiet: bool = QUIET_OPT,
) -> None:
    """Show a manual page: through man(1) on a terminal, as roff text on a pipe (`orion man compile | man -l -`)."""
    import shutil
    import subprocess

    from oriongraph_cli.cli.context import handled
    from oriongraph_cli.cli.manpage import render_all
    from oriongraph_cli.errors import ExitStatus, OrionError

    with handled():
        pages = render_all(app)
        name = "orion.1" if not command else f"orion-{command}.1"
        if name not in pages:
            commands = ", ".join(n[len("orion-"):-2] for n in sorted(pages) if n != "orion.1")
            raise OrionError(f"no manual page for {command!r}", hint=f"commands: {commands}", exit_code=ExitStatus.USAGE)
        page = pages[name]
        if sys.stdout.isatty() and shutil.which("man"):
            sys.stdout.flush()
            subprocess.run(["man", "-l", "-"], input=page.encode(), check=False)
        else:
            sys.stdout.write(page)


GLOBAL_VALUE_OPTIONS = ("--color",)  # global options also accepted after the command, as rg does
GLOBAL_FLAGS = ("--no-pager", "-P")


def _one_line_paragraphs(doc: str) -> str:
    """A command's docstring with each paragraph on one line: typer keeps the line breaks of
    every paragraph after the first, so help written at 92 columns broke mid-sentence on an
    80-column terminal ("… and kept. Running it" / "again changes nothing.")."""
    import inspect

    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


for _info in app.registered_commands:
    if _info.help is None and _info.callback is not None and _info.callback.__doc__:
        _info.help = _one_line_paragraphs(_info.callback.__doc__)


def global_options_first(argv: list[str]) -> list[str]:
    """``orion compile X --color never`` as ``orion --color never compile X``: global
    options given after the command move in front of it (up to a ``--``, after which every
    word is an argument)."""
    moved: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        if a in GLOBAL_VALUE_OPTIONS and i + 1 < len(argv) and rest:
            moved += [a, argv[i + 1]]
            i += 2
            continue
        if a in GLOBAL_FLAGS and rest:
            moved.append(a)
            i += 1
            continue
        if rest and any(a.startswith(o + "=") for o in GLOBAL_VALUE_OPTIONS):
            moved.append(a)
        else:
            rest.append(a)
        i += 1
    return moved + rest


class _WholeWrites(io.RawIOBase):
    """File descriptor 1 written whole or not at all: CPython's BufferedWriter reports a pipe
    write cut short by the reader leaving (``| head``) as a short count, which TextIOWrapper
    ignores, so the rest of the output vanished and orion exited 0. Here the next write of
    the remainder raises BrokenPipeError, which becomes exit 141 as documented. Closing it
    leaves the descriptor open (RawIOBase owns none)."""

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self._fd, view[done:])
        return done


def _stdout_written_whole() -> None:
    out = sys.stdout
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test runner's capture): leave it
    out.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_WholeWrites(fd)), encoding=out.encoding, errors=out.errors,
        line_buffering=out.line_buffering,
    )


def _app_for(argv: list[str]) -> typer.Typer:
    """``app``, or for a compile or search (not its help, not shell completion) an app of the
    same settings holding that one command: typer makes a click command of every registered
    command on each run, inspecting their signatures (~10 ms of a fresh compile), and the
    command run is the only one needed. Its options, usage errors and output are the same."""
    from oriongraph_cli.wire import NotServed, command_of

    if any(k.startswith("_ORION_COMPLETE") or k == "_TYPER_COMPLETE_ARGS" for k in os.environ):
        return app
    try:
        name = command_of(argv)[0]
    except NotServed:
        return app
    one = _typer_app()
    one.registered_callback = app.registered_callback
    one.registered_commands = [c for c in app.registered_commands if c.name == name]
    return one if len(one.registered_commands) == 1 else app


def _click_exceptions() -> tuple[tuple, tuple, tuple]:
    """(usage and other command-line errors, usage errors, aborts) as the installed typer
    raises them: its own copy of click's (typer 0.28) or click's."""
    errors, usage, aborts = [], [], []
    try:
        from typer._click.exceptions import ClickException, UsageError

        errors.append(ClickException)
        usage.append(UsageError)
    except ImportError:
        pass
    try:
        import click

        errors.append(click.ClickException)
        usage.append(click.UsageError)
        aborts.append(click.exceptions.Abort)
    except ImportError:
        pass
    from typer.exceptions import Abort

    aborts.append(Abort)
    return tuple(errors), tuple(usage), tuple(aborts)


def run_command(argv: list[str]) -> int:
    """``orion ARGV`` on this process's sys.stdout and sys.stderr: its exit code. What
    ``main`` runs, and what ``orion serve`` runs for a client (cli/serve.py)."""
    click_error, usage_error, abort = _click_exceptions()
    try:
        argv = global_options_first(argv)
        # not standalone: a usage error comes back here, to be said as every error is
        rv = _app_for(argv)(args=argv, prog_name="orion", standalone_mode=False)
        return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
    except click_error as exc:  # an unknown option, a value of the wrong type, a missing argument
        from oriongraph_cli.api import clean_line

        where = exc.ctx.command_path if getattr(exc, "ctx", None) is not None else "orion"
        sys.stderr.write(f"error: {clean_line(exc.format_message())}\n")
        if isinstance(exc, usage_error):
            sys.stderr.write(f"  hint: {where} --help lists what it takes\n")
        return exc.exit_code
    except abort:  # end of input at a prompt
        sys.stderr.write("aborted\n")
        return 1
    except BrokenPipeError:  # help or a message into a reader that left (`orion help | head`)
        return 141
    except SystemExit as exc:
        if exc.code == 1 and isinstance(exc.__context__, BrokenPipeError):
            return 141  # click's answer to a reader gone is 1; the CLI's is 141
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt as exc:  # outside a command (e.g. while importing)
        sys.stderr.write("terminated\n" if isinstance(exc, Terminated) else "interrupted\n")
        return 143 if isinstance(exc, Terminated) else 130


def _closed_streams() -> None:
    """A closed stdout has nowhere to put a command's output: say so on stderr (when it is
    open) and exit 1 before any work; a closed stderr alone is a sink for messages."""
    if sys.stdout is None:
        if sys.stderr is not None:
            sys.stderr.write("error: stdout is closed: nowhere to write the output\n"
                             "  hint: run it with stdout open, or write to a file with -o FILE\n")
            sys.stderr.flush()
        os._exit(1)
    sys.stderr = open(os.devnull, "w", encoding="utf-8")


def main() -> None:
    import signal

    _stdout_written_whole()
    if os.environ.get("NO_COLOR") is not None:
        os.environ.setdefault("TERM", "dumb")
    # numpy's OpenBLAS (read when numpy is first imported, which is later): its pool threads
    # spin after every matrix-vector product of scoring and selection. One thread cost 0.93x
    # the CPU of a fresh compile and 0.89x a resident one, with the same working sets
    # (docs/BENCHMARKS.md, "Threads that don't spin"); a value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    signal.signal(signal.SIGTERM, _on_sigterm)
    if sys.stdout is None or sys.stderr is None:  # started with a stream closed (>&-, 2>&-)
        _closed_streams()
    code = run_command(sys.argv[1:])
    # the query model may still be loading in a background thread (onnxruntime): a normal
    # interpreter shutdown under it can abort ("terminate called without an active
    # exception", exit 134). Everything is written and closed by now: leave at once.
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or 141
    except (OSError, ValueError) as exc:  # a full device, a descriptor closed under us
        code = code or 1
        try:
            sys.stderr.write(f"error: cannot write the output ({getattr(exc, 'strerror', None) or exc})\n"
                             "  hint: free space where stdout goes, or write to a file with -o FILE\n")
        except (OSError, ValueError):
            pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
