"""Swift Evolution's proposals as an OrionFS project tree: language design proposals with a
recorded outcome (implemented, accepted, rejected, returned, withdrawn), for judging orion on
a proposal collection none of the tuned projects came from.

    git clone https://github.com/swiftlang/swift-evolution /tmp/src/swift-evolution
    git -C /tmp/src/swift-evolution checkout 0105e139a22938561c700cfbb89ddc3ebe402f0c
    python bench/suite/build_swift.py /tmp/src/swift-evolution --out /tmp/suite/swift

Source: ``proposals/NNNN-*.md`` (SE-NNNN), ``proposals/testing/NNNN-*.md`` (ST-NNNN),
``visions/*.md``, and the top-level ``process.md`` and ``commonly_proposed.md`` of
swiftlang/swift-evolution at commit 0105e139a22938561c700cfbb89ddc3ebe402f0c. A proposal's
header list (``* Proposal:``, ``* Status:``, ``* Authors:``, ``* Review:`` …, up to the first
heading) is parsed and dropped from the body; the title line is kept.

Mapping: the process documents -> ``01_context/process/``; visions ->
``02_knowledge/visions/``; language proposals -> ``03_workstreams/language/`` and Swift
Testing's -> ``03_workstreams/testing/``, stage ``final`` when the status is implemented,
accepted or previewing, else ``design``. File names are the source names.

Front matter: title, id (``SE-NNNN`` / ``ST-NNNN``), stage, workstream, status (the status
word lower-cased and hyphenated: implemented, accepted, rejected, returned-for-revision,
withdrawn, active-review, …), supersedes / superseded_by where the header states them
("Superseded by:", "Superseding Proposal:"), tags ([swift-evolution, swift-<version>] when the
status names the version).

The intents and judgements for this tree (``bench/suite/swift.intents.jsonl``) were written
from the documents before any system ran on them, and no default was chosen on it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_peps import slug, yaml_quote  # noqa: E402  (the same slugs and quoting as the PEPs tree)

MIN_BODY_WORDS = 50
FINAL = {"implemented", "accepted", "accepted-with-modifications", "previewing", "partially-implemented", "implemented-with-modifications"}
_FIELD = re.compile(r"^[*-]\s+([A-Za-z][A-Za-z ]*?):\s*(.*)$")


def parse_proposal(raw: str) -> tuple[str, dict[str, str], str]:
    """(title, header fields, body): the ``# `` title line, the ``* Key: value`` list after it
    (continuation lines folded in), and the rest: lines between the list and the first
    heading that are not fields (a note) followed by the text from that heading."""
    lines = raw.replace("\r\n", "\n").split("\n")
    title, fields, key = "", {}, ""
    kept: list[str] = []
    i = 0
    while i < len(lines) and not lines[i].startswith("# "):
        i += 1
    if i < len(lines):
        title = lines[i][2:].strip()
        i += 1
    while i < len(lines) and not lines[i].startswith("#"):
        m = _FIELD.match(lines[i])
        if m:
            key = m.group(1).strip().lower()
            fields[key] = m.group(2).strip()
        elif key and lines[i].startswith((" ", "\t")) and lines[i].strip():
            fields[key] += " " + lines[i].strip()
        elif lines[i].strip() and not lines[i].startswith((">", "*", "-")):
            break  # prose before any heading: the body starts here
        else:
            kept.append(lines[i])
        i += 1
    return title, fields, "\n".join(kept + lines[i:]).strip("\n")


def status_of(value: str) -> tuple[str, str | None]:
    """("implemented", "5.9") from ``**Implemented (Swift 5.9)**``."""
    text = value.replace("*", "")
    version = re.search(r"Swift\s+(\d+(?:\.\d+)*)", text)
    word = re.sub(r"\(.*?\)", "", text).split(":")[-1] if text.lower().startswith("status:") else re.sub(r"\(.*?\)", "", text).split(":")[0]
    return slug(word) or "unknown", version.group(1) if version else None


def ids_in(value: str, prefix: str) -> list[str]:
    return [f"{prefix}-{int(n):04d}" for n in re.findall(prefix + r"-(\d+)", value or "")]


def write(out: Path, front: list[str], title: str, body: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(["---", *front, "---"]) + "\n\n# " + title + "\n\n" + body.strip("\n") + "\n", encoding="utf-8")


def build(src: Path, dest: Path) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    n = 0
    for name in ("process.md", "commonly_proposed.md"):
        raw = (src / name).read_text(encoding="utf-8")
        title, _fields, body = parse_proposal(raw)
        write(dest / "01_context/process" / name, [f"title: {yaml_quote(title)}", "stage: requirements", "tags: [swift-evolution, process]"], title, body)
        n += 1
    for path in sorted((src / "visions").glob("*.md")):
        title, _fields, body = parse_proposal(path.read_text(encoding="utf-8"))
        if len(body.split()) < MIN_BODY_WORDS:
            continue
        write(dest / "02_knowledge/visions" / path.name, [f"title: {yaml_quote(title)}", "stage: research", "tags: [swift-evolution, vision]"], title, body)
        n += 1
    for folder, prefix, workstream in (("proposals", "SE", "language"), ("proposals/testing", "ST", "testing")):
        for path in sorted((src / folder).glob("[0-9][0-9][0-9][0-9]-*.md")):
            title, fields, body = parse_proposal(path.read_text(encoding="utf-8"))
            if not title or len(body.split()) < MIN_BODY_WORDS:
                continue
            pid = ids_in(fields.get("proposal", ""), prefix)
            number = pid[0] if pid else f"{prefix}-{path.name[:4]}"
            status, version = status_of(fields.get("status", ""))
            front = [
                f"title: {yaml_quote(f'{number}: {title}')}",
                f"id: {number}",
                f"stage: {'final' if status in FINAL else 'design'}",
                f"workstream: {workstream}",
                f"status: {status}",
            ]
            superseded_by = ids_in(fields.get("superseded by", ""), prefix)
            supersedes = ids_in(fields.get("supersedes", ""), prefix)
            if superseded_by:
                front.append(f"superseded_by: [{', '.join(superseded_by)}]")
            replacing = ids_in(fields.get("superseding proposal", ""), prefix)
            if replacing:  # "Superseding Proposal: SE-0498" names the proposal that replaces this one
                front.append(f"superseded_by: [{', '.join(replacing)}]")
            if supersedes:
                front.append(f"supersedes: [{', '.join(supersedes)}]")
            tags = ["swift-evolution"] + ([f"swift-{version}"] if version else [])
            front.append(f"tags: [{', '.join(tags)}]")
            write(dest / "03_workstreams" / workstream / path.name, front, f"{number}: {title}", body)
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="checkout of swiftlang/swift-evolution")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    print(f"wrote {build(args.src, args.out)} documents to {args.out}")


if __name__ == "__main__":
    main()
