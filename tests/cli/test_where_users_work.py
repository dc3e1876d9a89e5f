"""Conventions users bring from git, ripgrep and fd, run through the real CLI in
subprocesses: -q, -o FILE, -0, config with origins, init, completion of option values."""

from __future__ import annotations

import re
import shutil
import sys

import pytest
from conftest import REPO, run_orion, ws_spans

FIXTURE_QUERIES = REPO / "bench" / "fixture_queries.jsonl"
ALL_COMMANDS = ["index", "status", "compile", "search", "show", "links", "usage", "eval", "mcp", "serve", "watch", "help", "man", "config", "init"]


@pytest.fixture
def writable(sample_index, tmp_path):
    """A copy of the indexed sample that a test may change."""
    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    return root


def test_every_command_takes_quiet():
    from typer.main import get_command

    from oriongraph_cli.cli import app

    commands = get_command(app).commands  # type: ignore[attr-defined]
    assert set(commands) == set(ALL_COMMANDS)
    for name, cmd in commands.items():
        opts = {o for p in cmd.params for o in p.opts}
        assert {"-q", "--quiet"} <= opts, name


def test_quiet_silences_progress_and_notes_but_not_data_or_errors(writable, tmp_path):
    root = ["--root", str(writable)]
    (writable / "01_context" / "quiet.md").write_text("# Quiet\n\nA note added so that index has work to do.\n")
    r = run_orion("status", "--check", "-q", *root)
    assert (r.returncode, r.stdout) == (1, "") and r.stderr.startswith("error: the index is out of date")
    r = run_orion("index", "-q", *root)
    assert (r.returncode, r.stdout) == (0, "") and all(x.startswith("warning: ") for x in r.stderr.splitlines())
    r = run_orion("status", "--check", "-q", *root)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert run_orion("status", "-q", "--json", *root).stdout.startswith("{")  # asked-for data still prints

    brief = tmp_path / "BRIEF.md"
    loud = run_orion("compile", "retry storms", "--brief", str(brief), "--explain", *root)
    assert loud.returncode == 0 and "wrote " in loud.stderr and "recorded episode" in loud.stderr
    r = run_orion("compile", "retry storms", "--brief", str(brief), "--explain", "-q", *root)
    assert r.returncode == 0 and r.stderr == "" and r.stdout and brief.exists()
    span = run_orion("search", "retry storms", "-n", "1", *root).stdout.split("\t")[1]
    for args in (["search", "retry storms"], ["show", span], ["links", "ADR-0007"], ["usage"]):
        plain, quiet = run_orion(*args, *root), run_orion(*args, "-q", *root)
        assert (quiet.returncode, quiet.stderr) == (0, "") and quiet.stdout == plain.stdout, args
    r = run_orion("eval", str(FIXTURE_QUERIES), "--limit", "2", "--compare", "none", "-q", *root)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("system\t")
    assert run_orion("help", "-q").returncode == 0
    # errors still print, with their exit codes
    r = run_orion("compile", " ", "-q", *root)
    assert r.returncode == 2 and "error: the intent is empty" in r.stderr
    r = run_orion("show", "ffffffffffff", "-q", *root)
    assert r.returncode == 7 and r.stderr.startswith("error:")


OUTPUT_CASES = [
    ["compile", "retry storms", "--no-usage-log"],
    ["compile", "retry storms", "--no-usage-log", "--format", "markdown"],
    ["compile", "retry storms", "--no-usage-log", "--json"],
    ["compile", "retry storms", "--no-usage-log", "-l"],
    ["search", "retry storms", "-n", "5"],
    ["links", "ADR-0007"],
    ["links", "--dangling", "--json"],
    ["usage"],
    ["status", "--json"],
]


@pytest.mark.parametrize("args", OUTPUT_CASES, ids=lambda a: " ".join(a[:1] + a[2:]))
def test_output_file_holds_exactly_what_stdout_gets(sample_index, tmp_path, args):
    out = tmp_path / "out.txt"
    root = ["--root", str(sample_index)]
    piped = run_orion(*args, *root, cwd=tmp_path)
    written = run_orion(*args, *root, "-o", "out.txt", cwd=tmp_path)
    assert written.returncode == 0 == piped.returncode, written.stderr
    assert written.stdout == "" and out.read_text() == piped.stdout and piped.stdout
    assert written.stderr.endswith("wrote out.txt\n")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.txt")]  # no temp file left behind


def test_output_file_for_show_eval_and_a_failed_check(writable, tmp_path):
    root = ["--root", str(writable)]
    span = run_orion("search", "retry storms", "-n", "1", *root).stdout.split("\t")[1]
    run_orion("show", span, *root, "-o", str(tmp_path / "span.txt"))
    assert (tmp_path / "span.txt").read_text() == run_orion("show", span, *root).stdout
    r = run_orion("eval", str(FIXTURE_QUERIES), "--limit", "2", "--compare", "bm25", *root, "-o", str(tmp_path / "eval.tsv"))
    assert r.returncode == 0 and (tmp_path / "eval.tsv").read_text().startswith("system\tndcg@10")
    # a --check that fails still writes its complete report (and exits 1)
    (writable / "01_context" / "new.md").write_text("# New\n\nNot indexed yet.\n")
    r = run_orion("status", "--check", "--json", *root, "-o", str(tmp_path / "st.json"))
    import json

    assert r.returncode == 1 and json.loads((tmp_path / "st.json").read_text())["check"]["passed"] is False


def test_output_file_refusals_are_one_line_with_exit_codes(sample_index, tmp_path):
    root = ["--root", str(sample_index)]
    keep = tmp_path / "keep.txt"
    keep.write_text("before\n")
    r = run_orion("compile", " ", *root, "-o", str(keep))  # the command fails: the file is left as it was
    assert r.returncode == 2 and keep.read_text() == "before\n"
    cases = [
        (str(sample_index / ".oriongraph" / "x.txt"), 2, "inside orion's index directory"),
        (str(tmp_path), 2, "is a directory"),
        (str(tmp_path / "nodir" / "x.txt"), 1, "no directory"),
        (str(keep / "x.txt"), 1, "no directory"),
        ("/proc/orion-test-output", 1, "cannot write"),
    ]
    for path, code, message in cases:
        r = run_orion("search", "retry", *root, "-o", path)
        assert r.returncode == code and message in r.stderr and "Traceback" not in r.stderr, (path, r.stderr)
        assert r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 2 and r.stdout == ""
    assert not (sample_index / ".oriongraph" / "x.txt").exists()


def test_null_separated_paths_feed_xargs_0(writable, tmp_path):
    import subprocess
    import sys

    src = writable / "02_knowledge" / "research" / "exponential-backoff.md"
    spaced = src.with_name("exponential backoff notes.md")
    src.rename(spaced)
    assert run_orion("index", "-q", "--root", str(writable)).returncode == 0
    orion = f"{sys.executable} -m oriongraph_cli"
    for cmd in ("search 'exponential backoff jitter' -n 5 -l -0", "search 'exponential backoff jitter' -n 5 -0",
                "compile 'exponential backoff jitter' --no-usage-log -l --null"):
        r = subprocess.run(["bash", "-o", "pipefail", "-c", f"{orion} {cmd} | xargs -0 -n1 printf '<%s>\\n'"],
                           cwd=writable / "02_knowledge", capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        got = r.stdout.splitlines()
        assert "<research/exponential backoff notes.md>" in got, got  # one argument, relative to where we stand
        assert all(g.startswith("<") and g.endswith(".md>") for g in got)
    raw = run_orion("search", "exponential backoff jitter", "-n", "3", "-0", "--root", str(writable)).stdout
    assert raw.endswith("\0") and "\n" not in raw
    cat = subprocess.run(["bash", "-c", f"{orion} search 'exponential backoff' -n 3 -0 | xargs -0 cat"], cwd=writable,
                         capture_output=True, text=True)
    assert cat.returncode == 0 and "jitter" in cat.stdout.lower()


def test_config_shows_every_setting_with_its_origin(tmp_path):
    import json

    root = tmp_path / "proj"
    (root / "02_knowledge").mkdir(parents=True)
    (root / ".orion.toml").write_text('budget = 6000\n\n[weights]\nlexical = 0.3\n')
    env = {"ORION_TOP_K": "300", "ORION_ROOT": ""}
    r = run_orion("config", cwd=root / "02_knowledge", env=env)
    assert r.returncode == 0, r.stderr
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in r.stdout.splitlines()}
    assert all(len(v) == 2 for v in rows.values())
    assert rows["root"] == [str(root), f"cwd:{root / '02_knowledge'}"]
    assert rows["budget"] == ["6000", f"file:{root / '.orion.toml'}"]
    assert rows["w_lexical"] == ["0.3", f"file:{root / '.orion.toml'}"]
    assert rows["top_k"] == ["300", "env:ORION_TOP_K"]
    assert rows["fusion"] == ["hybrid", "default"] and rows["compress"] == ["true", "default"]
    from oriongraph_cli.config import Config

    assert set(rows) == {f for f in Config.__dataclass_fields__}  # every setting, none invented

    r = run_orion("config", "--root", str(root), "--json", env={**env, "ORION_BUDGET": "7000"})
    doc = json.loads(r.stdout)
    by = {s["key"]: s for s in doc["settings"]}
    assert by["budget"]["value"] == 7000 and by["budget"]["origin"] == {"kind": "env", "name": "ORION_BUDGET"}  # env > file
    assert by["root"]["origin"] == {"kind": "flag", "name": "--root"} and by["model_path"]["value"] is None
    # pyproject's [tool.oriongraph] names its file; one setting prints just its value
    (root / ".orion.toml").unlink()
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.oriongraph]\ndiversity_lambda = 0.7\n')
    r = run_orion("config", "--root", str(root), "--show-origin", env=env)
    assert f"diversity_lambda\t0.7\tfile:{root / 'pyproject.toml'}\n" in r.stdout
    assert run_orion("config", "diversity_lambda", "--root", str(root), env=env).stdout == "0.7\n"
    assert run_orion("config", "list", "--root", str(root), env=env).stdout == r.stdout
    bad = run_orion("config", "buget", "--root", str(root), env=env)
    assert bad.returncode == 2 and "did you mean budget?" in bad.stderr
    bad = run_orion("config", "--root", str(root), env={**env, "ORION_BUDGET": "0"})
    assert bad.returncode == 2 and "ORION_BUDGET=0" in bad.stderr and "Traceback" not in bad.stderr


def test_init_index_compile_end_to_end(tmp_path):
    import json

    root = tmp_path / "notes"
    r = run_orion("init", str(root))
    assert r.returncode == 0 and r.stdout == "" and "created .orion.toml" in r.stderr, r.stderr
    for top in ("01_context", "02_knowledge", "03_workstreams", "04_artifacts"):
        assert (root / top).is_dir()
    assert ".oriongraph/" in (root / ".gitignore").read_text().splitlines()
    note = (root / "03_workstreams/ws-example/design/example-note.md").read_text()
    assert note.startswith("---\ntitle: Example Note\nstage: design\nworkstream: ws-example\ntags: [example, orionfs]\nstatus: draft\n")
    r = run_orion("index", "--root", str(root), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["documents"] == 1 and not json.loads(r.stdout)["warnings"], r.stdout
    r = run_orion("compile", "what goes in the stage folders", "--root", str(root), "--json", "--no-usage-log")
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["documents"][0]["path"] == "03_workstreams/ws-example/design/example-note.md"
    # idempotent, and never overwrites: an edited file is kept and named
    again = run_orion("init", str(root))
    assert again.returncode == 0 and "nothing to do" in again.stderr
    (root / ".orion.toml").write_text("budget = 3000\n")
    (root / "03_workstreams/ws-example/design/example-note.md").unlink()
    r = run_orion("init", cwd=root)
    assert r.returncode == 0 and "kept .orion.toml" in r.stderr and "created 03_workstreams/ws-example" in r.stderr
    assert (root / ".orion.toml").read_text() == "budget = 3000\n"
    assert (root / ".gitignore").read_text().count(".oriongraph/") == 1
    r = run_orion("init", str(root / ".orion.toml"))
    assert r.returncode == 2 and "is not a directory" in r.stderr


def test_init_settings_file_lists_the_defaults_of_config(tmp_path):
    from oriongraph_cli.config import DEFAULTS, load_config
    from oriongraph_cli.scaffold import MAIN_SETTINGS, orion_toml

    text = orion_toml()
    assert all(line.startswith("#") or not line for line in text.splitlines())  # changes nothing as written
    (tmp_path / "02_knowledge").mkdir()
    live = [ln[2:].split("  #")[0] for ln in text.splitlines() if ln.startswith("# ") and " = " in ln and "model_path" not in ln]
    assert len(live) == len(MAIN_SETTINGS) - 1
    (tmp_path / ".orion.toml").write_text("\n".join(live) + "\n")
    cfg = load_config(tmp_path)  # every value parses and is the default
    assert all(getattr(cfg, k) == getattr(DEFAULTS, k) for k, _ in MAIN_SETTINGS)


def _complete(words: str, cwd=None) -> tuple[int, list[str], str]:
    """What bash completion offers for the last (possibly empty) word of ``words``, through
    the script `orion --show-completion bash` installs (COMP_WORDS, COMP_CWORD)."""
    n = len(words.split()) - (0 if words.endswith(" ") else 1)
    r = run_orion(cwd=cwd, env={"_ORION_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(n), "ORION_ROOT": ""})
    return r.returncode, r.stdout.split(), r.stderr


def test_option_values_complete_from_the_index_and_the_choices(sample_index, tmp_path):
    root = f"--root {sample_index} "
    assert _complete("orion compile x " + root + "--workstream ws-") == (0, ["ws-ingestion", "ws-platform", "ws-search"], "")
    code, tags, _ = _complete("orion search x " + root + "--tag ret")
    assert code == 0 and "retry" in tags and all(t.startswith("ret") for t in tags)
    _, stages, _ = _complete("orion compile x --stage ", cwd=sample_index / "03_workstreams")  # the root found from here
    assert {"design", "impl", "requirements"} <= set(stages)
    assert _complete("orion compile x --format ")[1] == ["json", "json-lean", "markdown", "plain", "table", "xml"]
    assert _complete("orion compile x --fusion r")[1] == ["rrf"]
    assert _complete("orion --color ")[1] == ["always", "auto", "never"]
    assert _complete("orion help c")[1] == ["compile", "config"]
    assert {"compile", "index", "init", "search"} <= set(_complete("orion man ")[1])
    # no project, no index, a damaged registry: nothing offered, never a traceback
    (tmp_path / "02_knowledge").mkdir()
    for cwd in (tmp_path, tmp_path / "02_knowledge"):
        assert _complete("orion compile x --tag ", cwd=cwd) == (0, [], "")
    bad = tmp_path / "bad"
    shutil.copytree(sample_index, bad)
    gen = (bad / ".oriongraph" / "CURRENT").read_text().strip()
    (bad / ".oriongraph" / "gen" / gen / "registry.sqlite").write_bytes(b"not a database")
    assert _complete(f"orion compile x --root {bad} --workstream ") == (0, [], "")


def _terminal_run(args, rows=12, env=None):
    """orion with stdout on a pseudo-terminal of ``rows`` lines; what it printed there."""
    from conftest import run_on_tty

    code, out = run_on_tty(args, env={"ORION_ROOT": "", **(env or {})}, rows=rows)
    return code, out.replace("\r\n", "\n")


def test_long_output_on_a_terminal_goes_through_the_pager(sample_index):
    pager = {"ORION_PAGER": "sed 's/^/PAGED /'", "PAGER": "false"}
    explain = ["compile", "retry storms", "--root", str(sample_index), "--explain", "--no-usage-log", "--budget", "1500"]
    code, out = _terminal_run(explain, env=pager)
    lines = out.splitlines()
    assert code == 0 and len(lines) > 12 and all(x.startswith("PAGED ") for x in lines if x), out[:500]
    assert "─" in out  # still the terminal's table, as less -R shows it
    for args in (["--no-pager", *explain], [*explain, "-P"]):
        code, out = _terminal_run(args, env=pager)
        assert code == 0 and "PAGED" not in out and "─" in out
    code, out = _terminal_run(["config", "budget", "--root", str(sample_index)], env=pager)  # fits: no pager
    assert (code, out) == (0, "4000\n")
    assert "PAGED" not in run_orion(*explain, env=pager).stdout  # a pipe is never paged
    code, out = _terminal_run(explain, env={"ORION_PAGER": "", "PAGER": "sed 's/^/PAGED /'"})  # empty: none
    assert code == 0 and "PAGED" not in out
    code, out = _terminal_run(explain, env={"PAGER": "sed 's/^/PAGED /'"})  # then $PAGER
    assert code == 0 and out.startswith("PAGED ")
    code, out = _terminal_run(explain, env={"ORION_PAGER": "no-such-pager-here"})  # missing: written as is
    assert code == 0 and "─" in out


def test_pager_choice_follows_git():
    from oriongraph_cli.cli.context import pager_command, set_pager

    assert pager_command(False, {"PAGER": "most"}) is None
    assert pager_command(True, {}) == "less"
    assert pager_command(True, {"PAGER": "most"}) == "most"
    assert pager_command(True, {"PAGER": "most", "ORION_PAGER": "less -S"}) == "less -S"
    assert pager_command(True, {"PAGER": "cat"}) is None and pager_command(True, {"ORION_PAGER": " "}) is None
    set_pager(False)
    try:
        assert pager_command(True, {"PAGER": "most"}) is None
    finally:
        set_pager(True)


@pytest.mark.parametrize("columns", ["90", "160"])
def test_table_cells_never_split_a_name(sample_index, columns):
    """Paths in tables break only after a `/`: every file and folder name stays whole on one
    line (copyable); from 150 columns a whole path fits on one line."""
    root = ["--root", str(sample_index)]
    runs = [
        (["search", "retry backoff jitter", "-n", "8"], ["search", "retry backoff jitter", "-n", "8", "-l"]),
        (["compile", "retry backoff jitter", "--budget", "1500", "--explain", "--no-usage-log"],
         ["compile", "retry backoff jitter", "--budget", "1500", "--no-usage-log", "-l"]),
        (["usage"], None),
        (["links", "ADR-0007"], None),
    ]
    for table_args, list_args in runs:
        code, out = _terminal_run(["--no-pager", *table_args, *root], env={"COLUMNS": columns, "NO_COLOR": "1"})
        assert code == 0, out
        lines = out.splitlines()
        paths = run_orion(*list_args, *root).stdout.split() if list_args else [
            x.split("\t")[0 if table_args == ["usage"] else 2].split("#")[0] for x in run_orion(*table_args, *root).stdout.splitlines()]
        assert paths
        for p in paths:
            for name in p.split("/"):
                assert any(name in ln for ln in lines), (name, out)
            if int(columns) >= 150 and table_args[0] in ("search", "usage"):
                assert any(p in ln for ln in lines), (p, out)


def test_a_reader_that_leaves_early_gives_exit_141_in_a_real_shell(sample_index):
    """`orion … | head -1` with pipefail: 141 when orion still had output to write (it was 0:
    CPython reported the cut-short pipe write as a short count and dropped the rest)."""
    import subprocess
    import sys

    orion = f"{sys.executable} -m oriongraph_cli"
    root = f"--root {sample_index}"
    for reader in ("head -1", "(sleep 2; head -c 10)"):
        script = f"set -o pipefail; {orion} search retry {root} -n 1000 --json | {reader} >/dev/null; echo ${{PIPESTATUS[0]}}"
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
        assert r.stdout.strip() == "141", (reader, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and "error" not in r.stderr.lower()
    whole = subprocess.run(["bash", "-c", f"set -o pipefail; {orion} search retry {root} -n 1000 --json | cat | wc -c; echo ${{PIPESTATUS[0]}}"],
                           capture_output=True, text=True, timeout=120)
    size, code = whole.stdout.split()
    assert code == "0" and int(size) > 65536  # a reader that stays gets everything, exit 0


def _shown(score: float, table: str) -> bool:
    """The table shows the score to four places; the JSON gives it to five, so the score the
    table rounded lies within half a unit of the fifth place of the JSON's (0.98895 is
    0.9889 or 0.9890 as the unrounded score falls)."""
    return any(f"{score + d:.4f}" in table for d in (-5e-6, 0.0, 5e-6))


def test_a_span_shows_one_score_in_the_table_the_lines_and_json(sample_index):
    import json
    import re

    root = ["--root", str(sample_index)]
    for args in (["compile", "why did we replace ADR-0003", "--budget", "2000", "--no-usage-log"],
                 ["search", "why did we replace ADR-0003", "-n", "8"]):
        plain = run_orion(*args, *root).stdout.splitlines()
        table = run_orion("--color", "always", *args, *root).stdout  # the terminal's table, on a pipe
        table = re.sub(r"\x1b\[[0-9;]*m", "", table)
        doc = json.loads(run_orion(*args, "--json", *(["--explain"] if args[0] == "compile" else []), *root).stdout)
        from oriongraph_cli.render.plain import COLUMNS

        by_id = {}
        for line in plain:
            fields = dict(zip(COLUMNS[args[0]], line.split("\t")))
            assert len(line.split("\t")) == len(COLUMNS[args[0]]) and fields["tokens"].isdigit()
            by_id[fields["span_id"]] = fields["score"]
        if args[0] == "compile":  # each span's score (the JSON's explanation) as the lines and the table say it
            spans = [s for s in ws_spans(doc) if s["span_id"] in by_id]  # the JSON is fitted to its own size
            assert spans
            for s in spans:
                assert s["score"] == pytest.approx(float(by_id[s["span_id"]]), abs=5e-5)
                assert _shown(s["score"], table), (s["span_id"], s["score"])
            continue
        spans = doc["hits"]
        assert spans
        for s in spans:
            score = s["base_score"]
            if s["span_id"] in by_id:
                assert float(by_id[s["span_id"]]) == pytest.approx(score, abs=5e-5)
            assert _shown(score, table), (s["span_id"], score)


def test_readme_documents_the_columns_the_code_writes():
    from oriongraph_cli.render.plain import COLUMNS

    readme = (REPO / "README.md").read_text()
    table = readme.split("| command | columns on a pipe |")[1].split("\n\n")[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cmd, cols = line.strip("|").split("|")
        rows[re.sub(r" [A-Z]+$", "", cmd.strip().strip("`").replace("`, `", " "))] = re.findall(r"`([^`]+)`", cols.replace("(out, in, dangling)", ""))
    for key, cols in COLUMNS.items():
        row = rows["-l -0" if key == "-l" else f"orion {key}"]
        assert row[: len(cols)] == list(cols), (key, row)
    assert rows["orion compile"][len(COLUMNS["compile"]):] == ["reasons", "--explain"]


def test_a_current_directory_removed_under_the_shell(sample_index, tmp_path):
    """A shell left in a folder someone removed: with --root the command works, paths from
    the root; without, one message saying so, not "No such file or directory"."""
    import subprocess
    import sys

    gone = tmp_path / "gone"
    gone.mkdir()
    script = (f"cd {gone} && rmdir {gone} && {sys.executable} -m oriongraph_cli search retry -n 2 --root {sample_index}; "
              f"echo rc=$?; {sys.executable} -m oriongraph_cli search retry -n 2; echo rc=$?")
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    first, _, second = r.stdout.partition("rc=0\n")
    assert first.startswith("03_workstreams/") or first.startswith("0"), r.stdout
    assert second.strip() == "rc=2" and "the current directory no longer exists" in r.stderr and "Traceback" not in r.stderr, (r.stdout, r.stderr)


def test_init_writes_nothing_through_a_link(tmp_path):
    """A .gitignore or a stage folder that is a link leading out of the project: orion init
    names it and writes nothing through it, and everything else is made as usual."""
    outside = tmp_path / "victim.txt"
    outside.write_text("precious\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "p"
    root.mkdir()
    (root / ".gitignore").symlink_to(outside)
    (root / "03_workstreams").symlink_to(elsewhere)
    r = run_orion("init", str(root))
    assert r.returncode == 0, r.stderr
    assert outside.read_text() == "precious\n" and list(elsewhere.iterdir()) == []
    assert "kept .gitignore: a symbolic link" in r.stderr and "kept 03_workstreams/: a symbolic link" in r.stderr
    assert (root / ".orion.toml").is_file() and (root / "01_context").is_dir()


def test_help_into_a_reader_that_leaves_exits_as_any_output_does():
    """`orion help | head -1`: the reader left, so 141 (or 0 when all was written first),
    never click's 1 with nothing said."""
    import subprocess
    import sys

    for args in ("help", "compile --help"):
        r = subprocess.run(["bash", "-c", f"set -o pipefail; {sys.executable} -m oriongraph_cli {args} | head -1 >/dev/null; "
                                          "echo ${PIPESTATUS[0]}"], capture_output=True, text=True, timeout=60)
        assert r.stdout.strip() in ("141", "0") and "Traceback" not in r.stderr, (args, r.stdout, r.stderr)


def test_a_project_folder_with_a_space_or_a_newline_in_its_name(tmp_path):
    """A hint naming the root is a command that runs as pasted (the path quoted), and the
    status line escapes a newline in the folder's name instead of breaking the line."""
    import shlex
    import subprocess

    spaced = tmp_path / "my proj"
    (spaced / "02_knowledge").mkdir(parents=True)
    (spaced / "02_knowledge" / "a.md").write_text("# A\n\nText.\n")
    r = run_orion("status", "--root", str(spaced))
    assert r.returncode == 4 and f"orion index --root {shlex.quote(str(spaced))}" in r.stderr, r.stderr
    hint = r.stderr.split("`")[1]
    assert subprocess.run(["bash", "-c", hint.replace("orion", f"{sys.executable} -m oriongraph_cli", 1)],
                          capture_output=True, text=True, timeout=300).returncode == 0
    lined = tmp_path / "nl\nproj"
    (lined / "02_knowledge").mkdir(parents=True)
    (lined / "02_knowledge" / "a.md").write_text("# A\n\nText.\n")
    assert run_orion("index", "--root", str(lined), "--quiet").returncode == 0
    out = run_orion("status", "--root", str(lined)).stdout
    assert out.splitlines()[0] == "Project:     " + str(lined).replace("\n", "\\x0a"), out


def test_show_takes_the_paths_line_output_prints_from_where_the_reader_stands(sample_index):
    """From a subfolder (or above the root) search prints paths as the reader would type
    them there; `orion show` takes those same paths, lines and all."""
    import subprocess

    orion = f"{sys.executable} -m oriongraph_cli"
    for cwd, extra in ((sample_index / "03_workstreams", ""), (sample_index.parent, f" --root {sample_index.name}")):
        script = f'ref=$({orion} search retry{extra} | head -1 | cut -f1); echo "$ref"; {orion} show "$ref"{extra}'
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=cwd, timeout=120)
        ref, _, quoted = r.stdout.partition("\n")
        assert r.returncode == 0 and ":L" in ref and quoted.strip(), (r.stdout, r.stderr)


@pytest.mark.parametrize("args, words", [
    (["compile", "x", "--budget", "abc"], "'abc' is not a valid int"),
    (["compile", "x", "--bogus"], "No such option: --bogus"),
    (["nosuch"], "No such command 'nosuch'"),
    (["show"], "Missing argument 'REF'"),
])
def test_a_command_line_error_is_one_message_and_a_hint(args, words):
    """What the command line parser refuses is said as every other error is: one `error:`
    line, a hint naming the help to read, exit 2 — not a boxed usage block."""
    r = run_orion(*args)
    assert r.returncode == 2 and r.stdout == "", (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: ") and words in lines[0], r.stderr
    assert lines[1].startswith("  hint: orion") and lines[1].endswith("--help lists what it takes"), r.stderr
