"""End to end, the real pipeline: a quote cut out of a long fenced code block is delivered
as code (README, "Reading order")."""

from __future__ import annotations

import pytest

from conftest import run_orion

pytestmark = pytest.mark.slow


def _compiled(tmp_path, notes: dict[str, str], intent: str, budget: int) -> str:
    """The notes indexed as a project by the real pipeline, and the Markdown of one compile."""
    root = tmp_path / "proj"
    (root / "02_knowledge").mkdir(parents=True)
    for name, text in notes.items():
        (root / "02_knowledge" / name).write_text(text)
    assert run_orion("index", "--root", str(root), "-q").returncode == 0
    out = run_orion("compile", intent, "--root", str(root), "--budget", str(budget), "--format", "markdown", "--no-usage-log")
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_a_quote_from_the_middle_of_a_long_code_block_is_delivered_as_code(tmp_path):
    steps = "\n".join(f"# step {i}: configure widget {i}\nrun_tool --widget {i} --mode fast" for i in range(120))
    md = _compiled(tmp_path, {
        "deploy.md": f"# Deploy script\n\nHow we deploy the billing service.\n\n```bash\n{steps}\n```\n\n## Rollback\n\nRerun with the previous tag.\n",
        "owners.md": "# Owners\n\nThe payments team owns the billing service.\n",
    }, "configure widget 77 with run_tool", 600)
    assert "# step 77: configure widget 77" in md and "```bash\n# step" in md
    fences = [line for line in md.split("\n") if line.startswith("```")]
    assert fences and len(fences) % 2 == 0  # every quote of code is opened and closed
    assert "#### step" not in md  # a comment in code is never made a heading


def test_a_quote_from_among_a_long_tables_rows_carries_the_tables_header(tmp_path):
    rows = "".join(f"| `region_{i}` | Where replica {i} of the billing database runs | `eu-west-{i}` |\n" for i in range(80))
    md = _compiled(tmp_path, {
        "inputs.md": f"# Billing module inputs\n\nThe inputs of the billing module.\n\n| Name | Description | Default |\n|------|-------------|---------|\n{rows}\n## Outputs\n\nNone.\n",
    }, "where does replica 71 of the billing database run", 400)
    assert "`region_71`" in md
    head = "| Name | Description | Default |\n|------|-------------|---------|\n"
    assert head + "| `region_" in md
    first_row = md.split(head, 1)[1].split("\n", 1)[0]
    assert not first_row.startswith("| `region_0`")  # the quote began among the rows: the header came with it
    assert md.count("| Name | Description | Default |") == len([line for line in md.split("\n") if line.startswith("|---")])


def test_a_quote_never_ends_on_an_introduction_without_what_it_introduces(tmp_path):
    """README, "Reading order": a cheat sheet long enough to be split into several spans,
    whose span boundaries fall between a command's description and the command; whatever
    the compile quotes of it, no quote ends on a description, and each quote's line range is
    the lines it shows."""
    import json

    items = "".join(
        f"- Create a backup of volume {i} with compression level {i % 9} and label {i}:\n\n"
        f"`backup create --volume vol{i} --level {i % 9} --label nightly-{i}`\n\n"
        for i in range(80)
    )
    sheet = f"# backup\n\n> Back up volumes.\n\n{items}"
    root = tmp_path / "proj"
    (root / "02_knowledge").mkdir(parents=True)
    (root / "02_knowledge" / "backup.md").write_text(sheet)
    assert run_orion("index", "--root", str(root), "-q").returncode == 0
    out = run_orion("compile", "back up volume 41 with its compression level", "--root", str(root),
                    "--budget", "1500", "--json", "--no-usage-log")
    assert out.returncode == 0, out.stderr
    docs = json.loads(out.stdout)["documents"]
    quotes = [q for d in docs for q in d["quotes"]]
    assert quotes and any("vol41 " in q["text"] for q in quotes)
    lines = sheet.split("\n")
    for q in quotes:
        assert not q["text"].rstrip().endswith(":"), q["text"][-120:]
        start, end = q["lines"]
        shown = "\n".join(lines[start - 1 : end]).strip()
        if not q.get("shortened"):
            assert shown == q["text"].strip()
