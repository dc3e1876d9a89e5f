"""Man pages generated from the CLI itself: man/orion.1 and man/orion-<command>.1.

    python -m oriongraph_cli.manpage [OUTDIR]     # default: man/
    orion man [COMMAND]                           # one page, shown with man(1) on a terminal

The pages are derived from the typer/click definitions plus the hand-written sections
below (description, exit status, files, examples), so they cannot drift from the flags;
tests/test_manpages.py fails when the committed pages are out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from oriongraph_cli.api import __version__

DATE = "2026-11-21"
EXIT_STATUS = [
    ("0", "success"),
    ("1", "failure (see the message on stderr)"),
    ("2", "usage error: bad flag, value or configuration"),
    ("3", "not an OrionFS project: none of 01_context/, 02_knowledge/, 03_workstreams/, 04_artifacts/"),
    ("4", "no index: run orion index first"),
    ("5", "no candidates, even after relaxing the filters"),
    ("6", "--strict and the run produced warnings (the index is unchanged)"),
    ("7", "span id or path not found"),
    ("75", "index busy: another orion index holds the lock"),
    ("130", "interrupted (Ctrl-C)"),
    ("141", "the reader of a pipe went away while orion still had output to write (e.g. | head -1 on a long output; output the pipe took whole exits 0)"),
    ("143", "terminated (SIGTERM); a build in progress is removed"),
]
EXAMPLES = {
    None: [
        ("Index the sample project and compile a working set",
         "orion index --root fixtures/orionfs_sample\norion compile \"add retry logic to the ingestion worker\" --root fixtures/orionfs_sample --budget 4000 --explain"),
        ("Pipe JSON to jq", "orion compile \"why did we replace ADR-0003\" --budget 2000 --json | jq -r '.documents[].path'"),
        ("Plain lines on a pipe: path:lines, span id, score, tokens, section", "orion compile \"retry policy\" | grep ADR-0007 | cut -f1"),
        ("From anywhere inside the project, or from elsewhere", "cd 03_workstreams/ws-ingestion && orion status\norion -C ~/notes status"),
    ],
    "init": [
        ("Start a project and compile from it", "orion init notes && cd notes && orion index && orion compile \"what goes where\""),
    ],
    "index": [
        ("Index the current project", "orion index"),
        ("From a git hook (never fails the commit)", "orion index --hook"),
        ("Machine-readable summary", "orion index --root fixtures/orionfs_sample --json | jq .embedded_spans"),
        ("Rebuild from scratch", "orion index --full"),
    ],
    "status": [
        ("What is indexed and what changed since", "orion status --root fixtures/orionfs_sample"),
        ("Fail a CI job when the index is stale or damaged", "orion status --check"),
    ],
    "compile": [
        ("Explain the choice", "orion compile \"add retry logic to the ingestion worker\" --budget 4000 --explain"),
        ("Markdown for an agent", "orion compile \"design the search ranking\" --format markdown > context.md"),
        ("CI brief", "orion compile \"$TASK\" --budget 8000 --brief TASK_BRIEF.md"),
        ("Write the output to a file, replaced atomically", "orion compile \"retry policy\" -f markdown -o context.md"),
        ("Filters and preferences", "orion compile \"retry policy\" --workstream ws-ingestion --prefer-stage final --lambda 0.6"),
    ],
    "search": [
        ("Ranked candidates with channel scores", "orion search \"exponential backoff\" --top-k 10"),
        ("The intent from stdin, just the paths", "echo \"retry storms\" | orion search - -l"),
        ("Paths with spaces to xargs", "orion search \"retry storms\" -0 | xargs -0 cat"),
    ],
    "show": [("Quote a span exactly", "orion show 3f2a9c1d --json"),
             ("Print a decision record whole by its document id", "orion show ADR-0007")],
    "links": [
        ("Everything that links to or from a decision", "orion links ADR-0007"),
        ("Links whose target does not exist", "orion links --dangling"),
    ],
    "usage": [("Most, least and never used documents", "orion usage --top 5")],
    "config": [
        ("Every setting, its value and where it came from", "orion config"),
        ("Settings that are not defaults", "orion config | awk -F'\\t' '$3 != \"default\"'"),
        ("One value, for a script", "orion config budget"),
    ],
    "serve": [
        ("Keep the index open in the background; compiles then use it", "orion serve --detach\norion compile \"retry policy\" --json"),
        ("Is one running? Stop it", "orion serve --status\norion serve --stop"),
        ("Compare with a compile in this process", "ORION_NO_SERVE=1 orion compile \"retry policy\" --json"),
    ],
    "eval": [
        ("Ranking quality against baselines", "orion eval queries.jsonl --budget 4000 --compare bm25,dense,rrf"),
    ],
}
FILES = [
    (".oriongraph/", "the index: CURRENT, gen/<id>/{registry.sqlite, lexical/, postings/, vectors/, manifest.json}, orion.lock; safe to delete"),
    (".oriongraph/serve/", "orion serve: its socket (sock, 0600), lock (holding its pid) and, when detached, its log; the directory is 0700"),
    (".oriongraph/models/", "the default embedding model re-quantised to int8, built once from the packaged file and checked by sha256 before each load (in ORION_MODEL_CACHE instead when that is set)"),
    (".oriongraph/usage.jsonl", "episodic usage log: one line per compile (intent, span ids, paths, time; never document text)"),
    (".orion.toml", "project configuration (or [tool.oriongraph] in pyproject.toml)"),
]
ENVIRONMENT = [
    ("ORION_<SETTING>", "any setting, e.g. ORION_MODEL_PATH, ORION_BUDGET, ORION_LOCK_TIMEOUT, ORION_W_LEXICAL"),
    ("ORION_ROOT", "the project root when --root is not given (else it is found from the current directory)"),
    ("ORION_MODEL_CACHE", "an absolute folder where the int8 model is built once for every project, in its models/ folder, instead of under each index (made when missing if its parent exists); read from the environment only, never from a project's settings"),
    ("ORION_PAGER, PAGER", "the pager for output longer than the terminal (default less -FRX; empty or cat: none)"),
    ("NO_COLOR", "disable colour on a terminal"),
    ("FORCE_COLOR", "colour and tables even on a pipe (NO_COLOR and --color win)"),
    ("ORION_NO_SERVE", "set and not empty: compile and search run in this process even when orion serve runs for the project"),
    ("SOURCE_DATE_EPOCH", "seconds since 1970: recency and document age are measured from this time instead of the index build time, so a compile is reproducible on any day"),
    ("ORION_DEBUG", "print the traceback of an unexpected error (for bug reports)"),
    ("ORT_DISABLE_TELEMETRY", "orion sets it to 1 unless it is set: onnxruntime's telemetry client (a session file with a device id in the temporary directory, an upload cache) never starts"),
]


def _esc(text: str) -> str:
    text = text.replace("\\[", "[")  # rich markup's escaped bracket: a literal "[" in the help
    return text.replace("\\", "\\\\").replace("-", "\\-").replace("'", "\\(aq")


def _para(text: str) -> str:
    out = []
    for line in text.strip().splitlines():
        line = line.rstrip()
        out.append(".PP" if not line else (("\\&" if line[:1] in ".'" else "") + _esc(line)))
    return "\n".join(out)


def _metavar(param) -> str:
    """PATH / INTEGER / FLOAT / TEXT from the click parameter type (typer < 0.29) or the
    annotation typer 0.29 keeps in ``type_descriptor``."""
    descriptor = getattr(param, "type_descriptor", None)
    text = str(descriptor.annotation if descriptor is not None else getattr(param.type, "name", "text")).lower()
    for key, name in (("path", "PATH"), ("int", "INTEGER"), ("float", "FLOAT")):
        if key in text:
            return name
    return "TEXT"


def _option_lines(cmd) -> list[str]:
    lines = []
    for p in cmd.params:
        if p.param_type_name != "option" or getattr(p, "hidden", False):
            continue
        names = ", ".join(p.opts + p.secondary_opts)
        metavar = "" if p.is_flag else " " + (p.metavar or _metavar(p))
        lines += [".TP", f"\\fB{_esc(names)}\\fR{_esc(metavar)}", _esc((p.help or "").strip())]
    return lines


def _summary(name: str, help_text: str) -> str:
    """The first paragraph of the help, on one line, without a leading "orion — "."""
    first = " ".join((help_text or "").strip().split("\n\n")[0].split())
    for prefix in (f"{name} — ", "orion — "):
        if first.startswith(prefix):
            first = first[len(prefix):]
    return first


def _pipe_columns(command: str | None) -> list[str]:
    """The OUTPUT ON A PIPE section: the tab-separated columns of the command's lines, from
    ``render.plain.COLUMNS`` (what the code writes); the overview page lists them all."""
    from oriongraph_cli.render.plain import COLUMNS

    extra = {"compile": " (+ reasons with \\-\\-explain)", "eval": " (after a header line naming them)"}
    wanted = [k for k in COLUMNS if command is None or k.split()[0] == command or (k == "-l" and command in ("compile", "search"))]
    if not wanted:
        return []
    out = [".SH OUTPUT ON A PIPE", _esc("One line per result, fields separated by tabs, in this order. score is the base score, "
                                        "as in the table and in --json.")]
    for k in wanted:
        label = ("orion " + k) if not k.startswith("-") else "-l, -0"
        out += [".TP", f"\\fB{_esc(label)}\\fR", _esc(", ".join(COLUMNS[k])) + extra.get(k.split()[0], "")]
    return out


def _page(name: str, cmd, ctx_name: str, group) -> str:
    title = name.upper()
    short = _summary(name, cmd.help or "")
    out = [
        f'.TH "{_esc(title)}" "1" "{DATE}" "orion {__version__}" "User Commands"',
        ".SH NAME",
        f"{_esc(name)} \\- {_esc(short)}",
        ".SH SYNOPSIS",
    ]
    args = " ".join((p.name or "").upper() for p in cmd.params if p.param_type_name == "argument")
    if hasattr(cmd, "commands"):
        args = "COMMAND [ARGS]..."
    out.append(f"\\fB{_esc(ctx_name)}\\fR [OPTIONS] {_esc(args)}".rstrip())
    out += [".SH DESCRIPTION", _para(cmd.help or "")]
    if hasattr(cmd, "commands"):
        out.append(".SH COMMANDS")
        for sub_name in sorted(cmd.commands):
            sub = cmd.commands[sub_name]
            out += [".TP", f"\\fB{sub_name}\\fR", _esc(_summary(sub_name, sub.help or "")), ]
            out.append(f"See \\fBorion\\-{sub_name}\\fR(1).")
    opts = _option_lines(cmd)
    if opts:
        out += [".SH OPTIONS", *opts]
    key = None if hasattr(cmd, "commands") else ctx_name.split()[-1]
    out += _pipe_columns(key)
    if EXAMPLES.get(key):
        out.append(".SH EXAMPLES")
        for desc, example in EXAMPLES[key]:
            out += [".PP", _esc(desc) + ":", ".PP", ".nf", ".RS 4", *[_esc(line) for line in example.splitlines()], ".RE", ".fi"]
    out += [".SH EXIT STATUS"]
    for code, meaning in EXIT_STATUS:
        out += [".TP", f"\\fB{code}\\fR", _esc(meaning)]
    out += [".SH ENVIRONMENT"]
    for var, meaning in ENVIRONMENT:
        out += [".TP", f"\\fB{_esc(var)}\\fR", _esc(meaning)]
    out += [".SH FILES"]
    for path, meaning in FILES:
        out += [".TP", f"\\fI{_esc(path)}\\fR", _esc(meaning)]
    see = ["orion(1)"] + [f"orion-{n}(1)" for n in sorted(group.commands)]
    out += [".SH SEE ALSO", _esc(", ".join(s for s in see if not s.startswith(name + "(")))]
    return "\n".join(out) + "\n"


def render_all(app=None) -> dict[str, str]:
    """{file name: roff text} for the app (default: orion's)."""
    if app is None:
        from oriongraph_cli.cli import app
    group = typer.main.get_command(app)
    pages = {"orion.1": _page("orion", group, "orion", group)}
    for sub_name, sub in sorted(group.commands.items()):  # type: ignore[attr-defined]
        pages[f"orion-{sub_name}.1"] = _page(f"orion-{sub_name}", sub, f"orion {sub_name}", group)
    return pages


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent.parent / "man"
    out.mkdir(parents=True, exist_ok=True)
    pages = render_all()
    for old in out.glob("orion*.1"):
        if old.name not in pages:
            old.unlink()
    for name, text in pages.items():
        (out / name).write_text(text)
    print(f"wrote {len(pages)} pages to {out}")


if __name__ == "__main__":
    main()
