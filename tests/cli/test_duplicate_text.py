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
