"""How a project's reStructuredText pages are read and quoted: each page's first line of
text (its title as written) compiled as an intent at 1,000 tokens with the shipped defaults;
the fence lines in the Markdown delivered, the quotes that open with a fence, and the spans
and sections of the index.

    python bench/rst_probe.py ROOT
    ORION_BENCH_SRC=CHECKOUT python -P bench/rst_probe.py ROOT   # another checkout, on an index it built
"""
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(Path(__file__).resolve().parent.parent)))
from oriongraph_cli import api  # noqa: E402
from oriongraph_cli.models import CompileRequest  # noqa: E402
from oriongraph_cli.render import render_text  # noqa: E402
root = sys.argv[1]
cfg = api.load_config(root, usage_log=False); reader = api.open_index(cfg)
# the probe intents: every page's first line of text (its title as written), nothing chosen
intents = []
for p in sorted(Path(root, "02_knowledge").rglob("*.rst")):
    for line in p.read_text().split("\n"):
        if re.search(r"[A-Za-z]{3}", line) and not line.startswith(".."):
            intents.append(line.strip()); break
fence_lines = wrapped = quotes = 0
for it in intents:
    resp = api.compile_workingset(CompileRequest(intent=it, budget_tokens=1000), cfg, reader)
    md = render_text(resp, "markdown")
    fence_lines += sum(1 for l in md.split("\n") if re.match(r"^\s*(```|~~~)", l))
    for d in resp.workingset.documents:
        for q in d.quotes:
            quotes += 1
            wrapped += q.text.lstrip().startswith(("```", "~~~"))
spans_with_section = reader.registry.conn.execute("select count(*) from spans where heading_path != '[]'").fetchone()[0]
total = reader.registry.conn.execute("select count(*) from spans").fetchone()[0]
sections = reader.registry.conn.execute("select count(distinct heading_path) from spans").fetchone()[0]
print(json.dumps({"root": root, "sections": sections, "intents": len(intents), "quotes": quotes, "fence_lines_in_markdown": fence_lines, "quotes_opening_with_a_fence": wrapped, "spans": total, "spans_under_a_section": spans_with_section}))
