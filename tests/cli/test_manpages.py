from conftest import REPO

"""Man pages are generated from the CLI; the committed ones must be current."""


from oriongraph_cli.manpage import render_all

MAN = REPO / "man"


def test_man_pages_up_to_date():
    pages = render_all()
    assert {"orion.1", "orion-index.1", "orion-compile.1"} <= set(pages)
    committed = {p.name for p in MAN.glob("orion*.1")}
    assert committed == set(pages), "run `python -m oriongraph_cli.manpage`"
    for name, text in pages.items():
        assert (MAN / name).read_text() == text, f"man/{name} is stale: run `python -m oriongraph_cli.manpage`"


def test_orion_man_prints_a_page_and_names_are_whole():
    from conftest import run_orion

    r = run_orion("man", "compile")
    assert r.returncode == 0 and r.stdout == render_all()["orion-compile.1"]
    assert run_orion("man", "nosuch").returncode == 2
    top = render_all()["orion.1"]
    assert "orion \\- a context compiler" in top and "orion \\- orion" not in top
    assert "\\fBorion\\fR [OPTIONS] COMMAND [ARGS]..." in top
    assert "baselines on the same index." in render_all()["orion-eval.1"].split(".SH SYNOPSIS")[0]  # not cut


def test_shell_completion_is_available():
    """The bash script, named: without a shell among its parents (a detached test run, a
    container's ``sh -c``) typer cannot detect one, and ``--show-completion`` then takes the
    shell's name only with detection off (typer's own switch), as here."""
    from conftest import run_orion

    r = run_orion("--show-completion", "bash", env={"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"})
    assert r.returncode == 0 and "complete" in r.stdout and "orion" in r.stdout, r.stdout + r.stderr


def test_man_pages_document_every_option():
    pages = render_all()
    for flag in ("--budget", "--explain", "--brief", "--where", "--fusion", "--lambda"):
        assert flag.replace("-", "\\-") in pages["orion-compile.1"]
    for flag in ("--full", "--strict", "--json", "--quiet"):
        assert flag.replace("-", "\\-") in pages["orion-index.1"]


def test_the_package_installs_every_man_page_where_man_finds_it():
    """`[tool.setuptools.data-files]` puts man/*.1 into <prefix>/share/man/man1 (man-db's
    path from <venv>/bin); every generated page matches its glob."""
    import fnmatch
    import tomllib

    files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    globs = files["share/man/man1"]
    assert all(any(fnmatch.fnmatch(f"man/{name}", g) for g in globs) for name in render_all())


def test_bracketed_words_in_help_survive_the_terminal_and_the_man_page():
    """Rich reads "[word]" as markup and drops it: a help text escapes it, and the man
    page shows the bracket, not the escape."""
    from conftest import run_orion

    r = run_orion("eval", "--help", env={"COLUMNS": "200"})
    assert r.returncode == 0 and "[tool.oriongraph]" in " ".join(r.stdout.split()), r.stdout
    page = render_all()["orion-eval.1"]
    assert "pyproject\\(aqs [tool.oriongraph] when" in page and "\\\\[" not in page
