"""A real project's documentation as an OrionFS tree, for judging the working set on text
nobody here wrote.

    pip download --no-binary :all: --no-deps django==5.1.4 -d /tmp/sdist
    python bench/realproject.py build /tmp/sdist/Django-5.1.4.tar.gz --out /tmp/django-orion
    orion index --root /tmp/django-orion
    orion eval bench/realproject_intents.jsonl --root /tmp/django-orion --budget 1000 --compare dense,rrf

Why Django: its sdist ships its whole manual (600 reStructuredText files), written for
developers by many authors over many years, with long topic guides — the kind of project
knowledge orion compiles for. We take the guides a developer works from (``topics/``,
``howto/``, ``intro/``, ``faq/``, ``misc/``: 126 documents, ~230k words); the API reference
and the release notes are left out to keep indexing to minutes on two cores.

Mapping: ``intro/``, ``faq/``, ``misc/`` -> ``01_context/`` (stage requirements);
``topics/`` -> ``02_knowledge/topics/`` (stage research); ``howto/`` ->
``03_workstreams/howto/`` (stage impl). Tables of contents (``index.txt`` under 400 words)
are skipped. reST section adornments become Markdown headings (levels in order of first
appearance, as reST defines them); the rest of the text is kept as written.

``bench/realproject_intents.jsonl`` holds 55 developer intents with graded judgements
(2: the document that answers it; 1: a document that helps), written from the manual's
table of contents before any run of orion on it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import tarfile
from pathlib import Path

FOLDERS = {
    "intro": ("01_context/intro", "requirements"),
    "faq": ("01_context/faq", "requirements"),
    "misc": ("01_context/misc", "requirements"),
    "topics": ("02_knowledge/topics", "research"),
    "howto": ("03_workstreams/howto", "impl"),
}
MIN_INDEX_WORDS = 400
_ADORN = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}\s*$")


def rest_to_markdown(text: str) -> tuple[str, str]:
    """(markdown, title): section titles (with or without overline) become ``#`` headings."""
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []
    out: list[str] = []
    title = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        over = bool(_ADORN.match(line)) and i + 2 < len(lines) and _ADORN.match(lines[i + 2]) and lines[i + 1].strip()
        if over:
            style, head = (line.strip()[0], True), lines[i + 1].strip()
            i += 3
        elif (
            line.strip() and not _ADORN.match(line) and i + 1 < len(lines) and _ADORN.match(lines[i + 1])
            and len(lines[i + 1].strip()) >= len(line.strip()) and not line.startswith(" ")
        ):
            style, head = (lines[i + 1].strip()[0], False), line.strip()
            i += 2
        else:
            out.append(line)
            i += 1
            continue
        if style not in styles:
            styles.append(style)
        level = min(6, styles.index(style) + 1)
        title = title or head
        out.append("#" * level + " " + head)
    return "\n".join(out), title


def build(sdist: Path, dest: Path) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    n = 0
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            if len(parts) < 4 or parts[1] != "docs" or parts[2] not in FOLDERS or not member.name.endswith(".txt") or not member.isfile():
                continue
            raw = tar.extractfile(member).read().decode("utf-8")  # type: ignore[union-attr]
            rel = Path(*parts[3:])
            if rel.name == "index.txt" and len(raw.split()) < MIN_INDEX_WORDS:
                continue
            body, title = rest_to_markdown(raw)
            folder, stage = FOLDERS[parts[2]]
            out = dest / folder / rel.with_suffix(".md")
            out.parent.mkdir(parents=True, exist_ok=True)
            tags = [parts[2]] + list(rel.parent.parts)
            safe_title = title.replace('"', "'") or rel.stem
            front = f'---\ntitle: "{safe_title}"\nstage: {stage}\ntags: [{", ".join(tags)}]\n---\n\n'
            out.write_text(front + body, encoding="utf-8")
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("sdist", type=Path)
    b.add_argument("--out", type=Path, default=Path("/tmp/django-orion"))
    args = ap.parse_args()
    n = build(args.sdist, args.out)
    print(f"wrote {n} documents under {args.out}")


if __name__ == "__main__":
    main()
