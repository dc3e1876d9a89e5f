"""GOV.UK's developer manual as an OrionFS project tree: a team manual of how-tos, runbooks
and alert guides, for judging orion on a project of a shape none of the tuned projects has.

    git clone https://github.com/alphagov/govuk-developer-docs /tmp/src/govuk-developer-docs
    git -C /tmp/src/govuk-developer-docs checkout 972d1b4410ffd165f2f3e889eda30bcf7d1cc6b3
    python bench/suite/build_govuk.py /tmp/src/govuk-developer-docs --out /tmp/suite/govuk

Source: every ``source/**/*.html.md`` of alphagov/govuk-developer-docs at commit
972d1b4410ffd165f2f3e889eda30bcf7d1cc6b3 (``.erb`` templates, ``partials/`` and
``templates/`` are skipped; so are files whose body has under 30 words). The front matter
the manual writes (title, section, type, last_reviewed_on, owner_slack) is read and
replaced by OrionFS front matter; the body is kept as written, with the title as a ``# ``
heading when the body does not start with one.

Mapping: top-level pages (``source/*.html.md``) -> ``01_context/``; the manual
(``source/manual/``) -> ``02_knowledge/manual/<section slug>/`` (``misc`` without a
section), its alert guides (``source/manual/alerts/``) -> ``02_knowledge/alerts/``; the
Kubernetes guides -> ``02_knowledge/kubernetes/`` and the other folders ->
``02_knowledge/<folder>/``, a nested ``…/index.html.md`` named after its folders. File
names are the source name without ``.html.md``.

Front matter: title, stage (``research`` for the manual's "learn" pages, else
``final``), date (from last_reviewed_on), tags ([manual, <section slug>, <type>]).

The intents and judgements for this tree (``bench/suite/govuk.intents.jsonl``) were written
from the documents before any system ran on them, and no default was chosen on it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_peps import slug, yaml_quote  # noqa: E402  (the same slugs and quoting as the PEPs tree)

MIN_BODY_WORDS = 30
SKIP_DIRS = {"partials", "templates"}


def split_front_matter(raw: str) -> tuple[dict, str]:
    """(front matter, body) of a page: the YAML block between leading ``---`` lines."""
    m = re.match(r"---\n(.*?)\n---\n", raw, re.DOTALL)
    if not m:
        return {}, raw.strip("\n")
    meta = yaml.safe_load(m.group(1)) or {}
    return (meta if isinstance(meta, dict) else {}), raw[m.end() :].strip("\n")


def destination(rel: Path, section: str) -> Path:
    """The tree path of the source file ``rel`` (relative to ``source/``)."""
    parts = list(rel.parts)
    name = parts[-1][: -len(".html.md")]
    if name == "index" and len(parts) > 1:  # kubernetes/manage-app/scale-app/index -> manage-app-scale-app
        name = "-".join(parts[1:-1]) or parts[0]
    if len(parts) == 1:
        return Path("01_context") / f"{name}.md"
    if parts[0] == "manual":
        if len(parts) > 2 and parts[1] == "alerts":
            return Path("02_knowledge/alerts") / f"{name}.md"
        return Path("02_knowledge/manual") / (slug(section) or "misc") / f"{name}.md"
    return Path("02_knowledge") / parts[0] / f"{name}.md"


def build(src: Path, dest: Path) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    root = src / "source"
    n = 0
    for path in sorted(root.rglob("*.html.md")):
        rel = path.relative_to(root)
        if SKIP_DIRS & set(rel.parts[:-1]):
            continue
        meta, body = split_front_matter(path.read_text(encoding="utf-8"))
        if len(body.split()) < MIN_BODY_WORDS:
            continue
        title = " ".join(str(meta.get("title") or rel.parts[-1][: -len(".html.md")]).split())
        section = str(meta.get("section") or "")
        kind = str(meta.get("type") or "")
        out = dest / destination(rel, section)
        if out.exists():
            raise SystemExit(f"two sources map to {out}")
        front = ["---", f"title: {yaml_quote(title)}", f"stage: {'research' if kind == 'learn' else 'final'}"]
        reviewed = meta.get("last_reviewed_on")
        if reviewed:
            front.append(f"date: {reviewed}")
        tags = ["manual"] + [t for t in (slug(section), slug(kind)) if t]
        front.append(f"tags: [{', '.join(dict.fromkeys(tags))}]")
        write_page(out, front, title, body)
        n += 1
    return n


def write_page(out: Path, front: list[str], title: str, body: str) -> None:
    """``out``: the front matter (``front`` opens with its ``---``), then the body, with
    ``# title`` above it when the body does not start with a heading of that level."""
    if not body.lstrip().startswith("# "):
        body = f"# {title}\n\n{body}"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join([*front, "---"]) + "\n\n" + body + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="checkout of alphagov/govuk-developer-docs")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    print(f"wrote {build(args.src, args.out)} documents to {args.out}")


if __name__ == "__main__":
    main()
