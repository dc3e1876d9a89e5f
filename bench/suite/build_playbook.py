"""Microsoft's Code-With Engineering Playbook as an OrionFS project tree: an engineering
team's guidance (code reviews, CI/CD, testing, observability, design reviews, agile
practice), for judging orion on a third project no default was chosen on.

    git clone https://github.com/microsoft/code-with-engineering-playbook /tmp/src/playbook
    git -C /tmp/src/playbook checkout 016770e43d8a75be87b98c000c049f07c4a6e6f8
    python bench/suite/build_playbook.py /tmp/src/playbook --out /tmp/suite/playbook

Source: every ``docs/**/*.md`` of microsoft/code-with-engineering-playbook at commit
016770e43d8a75be87b98c000c049f07c4a6e6f8 (only the Markdown is read: a checkout without
its images serves); files whose body has under 30 words are skipped. The pages carry no
front matter; the body is kept as written, with a ``# `` title heading added when it
does not start with one.

Mapping: pages directly under ``docs/`` -> ``01_context/``; ``docs/<section>/…`` ->
``02_knowledge/<section slug>/<name>.md``, where a nested ``README.md`` is named after its
folders below the section (``docs/code-reviews/process-guidance/README.md`` ->
``02_knowledge/code-reviews/process-guidance.md``; a section's own README is named after
the section) and other files after their folders and name
(``docs/code-reviews/recipes/python.md`` -> ``recipes-python.md``).

Links between pages are rewritten to where the pages now are (a relative ``.md`` target, or
a folder standing for its ``README.md``, that resolves to a page written; its anchor kept),
so the tree's links work as the source's do; links to images and elsewhere stay as written.

Front matter: title (the first ``# `` heading, else the file name), stage ``final``, date
(the day of the last commit that changed the file, read from the checkout's history when
it has one; none otherwise), tags ([playbook, <section slug>]).

The intents and judgements for this tree (``bench/suite/playbook.intents.jsonl``) were
written from the documents before any system ran on them, and no default was chosen on it.
"""

from __future__ import annotations

import argparse
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_govuk import write_page  # noqa: E402  (pages written as the GOV.UK tree's)
from build_peps import slug, yaml_quote  # noqa: E402  (the same slugs and quoting as the PEPs tree)

MIN_BODY_WORDS = 30


def destination(rel: Path) -> Path:
    """The tree path of the source file ``rel`` (relative to ``docs/``)."""
    parts = list(rel.parts)
    if len(parts) == 1:
        return Path("01_context") / f"{slug(Path(parts[0]).stem)}.md"
    section, inner = slug(parts[0]), [slug(p) for p in parts[1:-1]]
    stem = Path(parts[-1]).stem
    name = "-".join(inner) or section if stem.lower() == "readme" else "-".join(inner + [slug(stem)])
    return Path("02_knowledge") / section / f"{name}.md"


LINK = re.compile(r"(\]\()([^)\s]+)(\))")


def relink(body: str, rel: Path, moved: dict[str, Path], out: Path) -> str:
    """``body`` of the page at ``rel`` (relative to ``docs/``) with every link to another
    written page pointing at that page's new place relative to ``out``'s folder."""
    def new_target(m: re.Match) -> str:
        target = m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target, re.IGNORECASE):
            return m.group(0)
        path, _, anchor = target.partition("#")
        joined = posixpath.normpath(posixpath.join(rel.parent.as_posix(), path))
        dest = moved.get(joined) or moved.get(posixpath.join(joined, "README.md"))
        if dest is None:
            return m.group(0)
        new = posixpath.relpath(dest.as_posix(), out.parent.as_posix()) + (f"#{anchor}" if anchor else "")
        return f"{m.group(1)}{new}{m.group(3)}"

    return LINK.sub(new_target, body)


def last_changed(src: Path, path: Path) -> str | None:
    """The day of the last commit that changed ``path`` (None without git history)."""
    try:
        out = subprocess.run(["git", "-C", str(src), "log", "-1", "--format=%cs", "--", str(path.relative_to(src))],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return out or None


def build(src: Path, dest: Path) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    root = src / "docs"
    pages = {}
    for path in sorted(root.rglob("*.md")):
        body = path.read_text(encoding="utf-8").strip("\n")
        if len(body.split()) >= MIN_BODY_WORDS:
            pages[path] = body
    moved = {p.relative_to(root).as_posix(): destination(p.relative_to(root)) for p in pages}
    n = 0
    for path, body in pages.items():
        rel = path.relative_to(root)
        body = relink(body, rel, moved, destination(rel))
        m = re.search(r"^# (.+)$", body, re.MULTILINE)
        title = " ".join((m.group(1) if m else path.stem.replace("-", " ")).split())
        out = dest / destination(rel)
        if out.exists():
            raise SystemExit(f"two sources map to {out}")
        front = ["---", f"title: {yaml_quote(title)}", "stage: final"]
        day = last_changed(src, path)
        if day:
            front.append(f"date: {day}")
        section = slug(rel.parts[0]) if len(rel.parts) > 1 else ""
        front.append(f"tags: [{', '.join(t for t in ('playbook', section) if t)}]")
        write_page(out, front, title, body)
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="checkout of microsoft/code-with-engineering-playbook")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    print(f"wrote {build(args.src, args.out)} documents to {args.out}")


if __name__ == "__main__":
    main()
