"""Tried, not built: the Markdown document header without the line ranges of its quotes
(``## path`` and the status instead of ``## path:L7-L12,L18-L19``), measured by the
evidence benchmark (docs/BENCHMARKS.md, "Measured, not built: ... line ranges ...").

    python bench/archive/headers_without_lines.py --root /tmp/suite/scifact --split dev --limit 150 --systems orion --budgets 300,600

Every argument goes to ``bench/bench_evidence.py``; the header is replaced in this process
before it runs (the framing each compile measures follows, so the packer spends what the
header no longer takes).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent


def main() -> None:
    from oriongraph_cli.render import markdown

    def header(doc) -> str:
        parts = [f"## {doc.path}"]
        if doc.status:
            parts.append(markdown.one_line(doc.status))
        return markdown.DOT.join(parts)

    markdown.document_header = header
    sys.path.insert(0, str(BENCH))
    sys.argv = [str(BENCH / "bench_evidence.py"), *sys.argv[1:]]
    runpy.run_path(str(BENCH / "bench_evidence.py"), run_name="__main__")


if __name__ == "__main__":
    main()
