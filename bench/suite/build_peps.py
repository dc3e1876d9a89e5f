"""The Python Enhancement Proposals as an OrionFS project tree, for judging orion on a large
body of design documents with a real, recorded decision history.

    git clone https://github.com/python/peps /tmp/src/peps
    git -C /tmp/src/peps checkout ba4deeb7969588d937da609008d05bb83a47b1ab
    python bench/suite/build_peps.py /tmp/src/peps --out /tmp/suite/peps [--hide-lifecycle]

Source: ``peps/pep-NNNN.rst`` (and ``.md`` if any) of python/peps at commit
ba4deeb7969588d937da609008d05bb83a47b1ab. Each PEP's RFC-822-style header block (PEP, Title,
Author, Status, Type, Topic, Created, Replaces, Superseded-By, ...) is parsed and dropped from
the body; reST section adornments become Markdown headings (levels in order of first
appearance, as reST defines them); the rest of the text is kept as written. The document
title ("PEP 518 – ...") is written as a ``# `` heading at the top of the body.

Mapping: Process PEPs -> ``01_context/process/`` (stage requirements); Informational PEPs ->
``02_knowledge/informational/`` (stage research); Standards Track PEPs ->
``03_workstreams/<workstream>/`` where the workstream is the slug of the first Topic
(packaging, typing, release, governance) or ``language`` when there is no Topic, stage
``final`` when the status is final/accepted/active, else ``design``. File names are
``pep-NNNN-<title slug>.md`` (stem at most 60 characters, cut at a word boundary, trailing
stop words dropped). pep-0000 (the index) and PEPs whose body has under 50 words are skipped.

Front matter: title, id (``PEP-NNNN``), stage, workstream (03_workstreams only), status
(lower-cased), date (from Created), supersedes (from Replaces), superseded_by (from
Superseded-By), tags ([pep, <type>, <topics>]).

``--hide-lifecycle`` writes the same tree without supersedes/superseded_by, with status
``superseded`` written as ``final``, and with the body sentences that state "superseded by
PEP NNN" / "replaced by PEP NNN" (and ``.. superseded::`` directives) removed, to test the
detection of implicit supersession when the explicit marks are hidden.

``bench/suite/peps.intents.jsonl`` holds graded developer intents for this tree and
``bench/suite/peps.pairs.jsonl`` lifecycle pairs (current vs superseded decision), both
judged by reading the documents.
"""

from __future__ import annotations

import argparse
import re
import shutil
from datetime import datetime
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from realproject import rest_to_markdown  # noqa: E402  (reST section titles -> Markdown headings)

MIN_BODY_WORDS = 50
MAX_STEM = 60
STOP_TAIL = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "with"}
FINAL_STATUSES = {"final", "accepted", "active"}
_HEADER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$")
_LIFECYCLE = re.compile(
    r"(?:superseded|replaced|obsoleted)\s+(?:in\s+favou?r\s+of|by)\s+(?::pep:`|PEP\s*)\d+",
    re.IGNORECASE,
)
_SUPERSEDED_DIRECTIVE = re.compile(r"^\.\. superseded::.*$")
_DIRECTIVE = re.compile(r"^\s*\.\. [A-Za-z-]+::\s*$")


def parse_pep(raw: str) -> tuple[dict[str, str], str]:
    """(headers, body): the RFC-822-style block up to the first blank line, continuation
    lines (starting with whitespace) folded into the previous field."""
    lines = raw.replace("\r\n", "\n").split("\n")
    headers: dict[str, str] = {}
    key = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            break
        m = _HEADER.match(line)
        if m and not line[0].isspace():
            key = m.group(1).lower()
            headers[key] = m.group(2).strip()
        elif key and line[0].isspace():
            headers[key] = (headers[key] + " " + line.strip()).strip()
        else:  # not a header line: the body starts here
            break
        i += 1
    return headers, "\n".join(lines[i:]).strip("\n") + "\n"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def file_stem(number: int, title: str) -> str:
    stem = f"pep-{number:04d}"
    words = [w for w in slug(title).split("-") if w]
    kept: list[str] = []
    for w in words:
        if len(stem) + 1 + len("-".join(kept + [w])) > MAX_STEM:
            break
        kept.append(w)
    while kept and kept[-1] in STOP_TAIL:
        kept.pop()
    return stem + ("-" + "-".join(kept) if kept else "")


def pep_ids(value: str) -> list[str]:
    return [f"PEP-{int(n):04d}" for n in re.findall(r"\d+", value or "")]


def parse_date(value: str) -> str | None:
    value = (value or "").split(",")[0].strip()
    for fmt in ("%d-%b-%Y", "%d-%B-%Y", "%Y-%m-%d", "%d %b %Y", "%d %B %Y"):
        try:
            return datetime.strptime(value, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def yaml_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def strip_lifecycle(body: str) -> str:
    """Drop ``.. superseded::`` directives and the sentences stating "superseded by PEP NNN"
    / "replaced by PEP NNN" (paragraphs holding such a sentence are reflowed)."""
    parts = re.split(r"(\n[ \t]*\n)", body)
    out: list[str] = []
    skip_sep = False
    for k, para in enumerate(parts):
        if k % 2:  # a blank-line separator
            if not skip_sep:
                out.append(para)
            skip_sep = False
            continue
        if para.strip() and _SUPERSEDED_DIRECTIVE.match(para.strip()):
            skip_sep = True
            continue
        if _LIFECYCLE.search(para):
            lines = para.split("\n")
            head = []  # a leading directive line (".. note::") is kept as it stands
            while lines and _DIRECTIVE.match(lines[0]):
                head.append(lines.pop(0))
            rest = "\n".join(lines)
            indent = re.match(r"[ \t]*", rest).group(0)  # type: ignore[union-attr]
            sentences = re.split(r"(?<=[.!?])\s+", " ".join(rest.split()))
            kept = [s for s in sentences if not _LIFECYCLE.search(s)]
            if not kept:
                skip_sep = True
                continue
            para = "\n".join(head + [indent + " ".join(kept)])
        out.append(para)
    return "".join(out)


def build(src: Path, dest: Path, hide_lifecycle: bool = False) -> int:
    if dest.exists():
        shutil.rmtree(dest)
    files = sorted(list((src / "peps").glob("pep-*.rst")) + list((src / "peps").glob("pep-*.md")))
    n = 0
    for path in files:
        headers, body = parse_pep(path.read_text(encoding="utf-8"))
        try:
            number = int(headers.get("pep", ""))
        except ValueError:
            continue
        if number == 0 or len(body.split()) < MIN_BODY_WORDS:
            continue
        raw_title = " ".join(headers.get("title", "").split()) or path.stem
        title = f"PEP {number} – {raw_title}"
        status = slug(headers.get("status", "")).replace("-", " ").strip() or "unknown"
        status = status.replace(" ", "-")
        if hide_lifecycle and status == "superseded":
            status = "final"
        ptype = " ".join(headers.get("type", "").split()).lower()
        topics = [slug(t) for t in headers.get("topic", "").split(",") if t.strip()]
        if ptype == "process":
            folder, stage, workstream = "01_context/process", "requirements", None
        elif ptype == "informational":
            folder, stage, workstream = "02_knowledge/informational", "research", None
        else:
            workstream = topics[0] if topics else "language"
            folder = f"03_workstreams/{workstream}"
            stage = "final" if status in FINAL_STATUSES else "design"
        if path.suffix == ".rst":
            text, _ = rest_to_markdown(body)
        else:
            text = body
        if hide_lifecycle:
            text = strip_lifecycle(text)
        front = ["---", f"title: {yaml_quote(title)}", f"id: PEP-{number:04d}", f"stage: {stage}"]
        if workstream:
            front.append(f"workstream: {workstream}")
        front.append(f"status: {status}")
        date = parse_date(headers.get("created", ""))
        if date:
            front.append(f"date: {date}")
        if not hide_lifecycle:
            replaces = pep_ids(headers.get("replaces", ""))
            superseded_by = pep_ids(headers.get("superseded-by", ""))
            if replaces:
                front.append(f"supersedes: [{', '.join(replaces)}]")
            if superseded_by:
                front.append(f"superseded_by: [{', '.join(superseded_by)}]")
        tags = ["pep", slug(ptype) if ptype else "unknown"] + topics
        front.append(f"tags: [{', '.join(dict.fromkeys(tags))}]")
        front.append("---")
        out = dest / folder / (file_stem(number, raw_title) + ".md")
        out.parent.mkdir(parents=True, exist_ok=True)
        content = "\n".join(front) + "\n\n# " + title + "\n\n" + text.strip("\n") + "\n"
        out.write_text(content, encoding="utf-8")
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="checkout of python/peps")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--hide-lifecycle", action="store_true")
    args = ap.parse_args()
    n = build(args.src, args.out, args.hide_lifecycle)
    print(f"wrote {n} documents to {args.out}")


if __name__ == "__main__":
    main()
