"""Spans holding a block quote inside a list item (``16. > text``, ``    > text``), and the
text blocks a shortened quote reads from them that keep a ``>`` mark, with the rule off and on
(``compress._LIST_QUOTE``), over every span of each project's current generation.

    python -P bench/list_quotes.py /tmp/suite/rfcs /tmp/suite/peps /tmp/suite/adr-moj /tmp/suite/django
"""
import sys, sqlite3, re
from pathlib import Path
from oriongraph_cli.assemble import compress
from oriongraph_cli.blocks import quotes_in_lists, without_unseen
MARK = re.compile(r"(^|\n)\s*(?:(?:[-*+]|\d+[.)])\s+)?>(?!>)")
real = compress._LIST_QUOTE
for root in sys.argv[1:]:
    gen = (Path(root) / ".oriongraph" / "CURRENT").read_text().strip()
    con = sqlite3.connect(f"file:{Path(root)/'.oriongraph'/'gen'/gen/'registry.sqlite'}?mode=ro", uri=True)
    out = {"before": 0, "after": 0}
    spans = 0
    for (text,) in con.execute("SELECT text FROM spans"):
        ls = without_unseen(text).split("\n")
        if not (any(real.match(l) for l in ls) and quotes_in_lists("\n".join(ls))):
            continue
        spans += 1
        for name, pat in (("before", re.compile(r"(?!)")), ("after", real)):
            compress._LIST_QUOTE = pat
            blocks = compress._blocks(text)
            out[name] += sum(1 for kind, b in blocks if kind in ("para", "lines") and MARK.search(b))
        compress._LIST_QUOTE = real
    print(f"{Path(root).name}: {spans} spans; text blocks with a '>' mark: {out['before']} -> {out['after']}")
