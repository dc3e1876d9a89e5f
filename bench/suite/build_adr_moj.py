"""The UK Ministry of Justice Cloud Platform's architecture decision records, runbooks and
docs as an OrionFS project tree: the "decision records with status and supersession" corpus.

    git clone https://github.com/ministryofjustice/cloud-platform /tmp/src/cloud-platform
    git -C /tmp/src/cloud-platform checkout 7f879f3af6cd39f8711ec99ee3b4d2163ff54024
    python bench/suite/build_adr_moj.py /tmp/src/cloud-platform --out /tmp/suite/adr-moj [--hide-lifecycle]

Source: ministryofjustice/cloud-platform at commit 7f879f3af6cd39f8711ec99ee3b4d2163ff54024.
Standard library only; the output directory is deleted and rewritten (deterministic).

ADRs (``architecture-decision-record/NNN-*.md``; 49 files, 000-049 without 032, no
duplicate numbers at this commit) -> ``03_workstreams/cloud-platform/decisions/
ADR-0NNN-<file-name slug>.md``, id ``ADR-0NNN``. Should a number occur twice, the files
are sorted by name and the second, third, ... get ``ADR-0NNNb``, ``ADR-0NNNc``.
ADRs under ``architecture-decision-record/cp30/`` (none at this commit; the ``cp30``
pages at this commit are runbooks under ``source/cp30``) would go to
``03_workstreams/cp30/decisions/`` with ids ``CP30-ADR-0NN``.

ADR front matter:
- title ``"ADR-0NNN: <title>"``: the first ``#`` heading with its leading number ("21.",
  "020.", "23 ") removed. When that number differs from the file number (030's heading
  is a copy of 029's), the title is taken from the ADR index (``README.md`` table of
  contents) instead.
- status: from the ``## Status`` section (✅ Accepted -> accepted, 🤔 Proposed /
  Incomplete -> proposed, ❌ Rejected -> rejected, ⌛️ Superseded -> superseded,
  Deprecated -> deprecated, ♻️ Amended -> accepted). ADRs without a status section (the
  security sign-posts 028-031) take the status emoji of their line in the ADR index.
- stage: ``final`` for accepted/superseded/deprecated, ``design`` for proposed/rejected.
- date: the ``Date:`` line (``YYYY-MM-DD``, ``DD/MM/YYYY`` or ``DD/MM/YY`` - UK order).
- supersedes / superseded_by: only where an ADR states it ("Superseded by [036...]
  (036-multi-cluster.md)", "superseded by ADR 36", "supersedes NNN", "replaced by ADR
  NNN"); each stated link is also written on the other ADR (reciprocal). At this commit
  the only stated one is 021 -> 036. "Rejected (see 019)" (018) is a rejection, not a
  supersession, and is left as status rejected.
- workstream ``cloud-platform``; tags ``[adr, <hand-assigned topics>]`` (``TOPICS``).

Other Markdown with at least 80 words of body (``*.md`` and the runbook sources
``source/**/*.html.md.erb``; skipped: ``.github/``, templates, CHANGELOGs, vendored
dirs, ``node_modules``):
- ``01_context/<path slug>.md`` (stage requirements) for the overview/architecture docs in
  ``CONTEXT`` (repository README, docs/Architecture-Official.md, the ADR index, the CIDR
  allocation register);
- ``02_knowledge/runbooks/<name>.md`` for ``source/*.html.md.erb`` (runbooks),
  ``02_knowledge/runbooks/cp30/<name>.md`` for ``source/cp30/``,
  ``02_knowledge/incidents/<name>.md`` for ``source/incidents/`` (incident reports and
  log), ``02_knowledge/<path slug>.md`` for the remaining guides (stage research).
Front matter: title (the page's own ``title:`` front matter, else the first heading,
else the file name), stage, tags, date (``last_reviewed_on``, else the incident date in the
title/file name, else a ``Date:`` line; omitted when none). The page's own front matter is
dropped and the ERB expression ``<%= current_page.data.title %>`` in its heading is
replaced by the title; otherwise bodies are kept as written.

``--hide-lifecycle`` writes the same tree without supersedes/superseded_by, with status
superseded/deprecated written as accepted, with the status-section lines that mention
superseded/replaced removed (and the emptied ``## Status`` heading with them), and with
the ADR index's ⌛️ (superseded) marks on such ADRs written as ✅.

``bench/suite/adr_moj.intents.jsonl`` holds graded developer intents for this tree and
``bench/suite/adr_moj.pairs.jsonl`` lifecycle pairs (current vs replaced decision), both
judged by reading the documents.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from datetime import datetime
from pathlib import Path

MIN_WORDS = 80
ADR_DIR = "architecture-decision-record"
WORKSTREAM = "cloud-platform"
FINAL = {"accepted", "superseded", "deprecated"}
CONTEXT = {
    "README.md": "cloud-platform-readme",
    "docs/Architecture-Official.md": "architecture-official",
    "architecture-decision-record/README.md": "adr-index",
    "cidr-allocation.md": "cidr-allocation",
}
SKIP_DIRS = {".git", ".github", "node_modules", "vendor", "vendored", "third_party", "third-party", "template", "templates"}
# Hand-assigned subject tags per ADR number (read from each ADR's text).
TOPICS = {
    0: ["process", "documentation"], 1: ["logging", "elasticsearch"], 2: ["documentation", "process"],
    3: ["ci-cd", "concourse"], 4: ["kubernetes", "containers"], 5: ["ecr", "monitoring", "alerting"],
    6: ["identity", "github", "auth"], 7: ["ecr", "container-registry"], 8: ["ci-cd", "deployment"],
    9: ["clusters", "naming"], 10: ["clusters", "migration", "aws-account"], 11: ["policy", "opa", "security"],
    12: ["clusters", "environments"], 13: ["testing", "clusters"], 14: ["kubernetes", "kops", "clusters"],
    15: ["terraform", "modules"], 16: ["logging", "kibana", "access"], 17: ["terraform", "conventions"],
    18: ["ingress", "networking"], 19: ["ingress", "networking", "modsecurity"],
    20: ["environments", "namespaces", "pipeline"], 21: ["clusters", "multi-cluster"],
    22: ["eks", "kubernetes", "clusters"], 23: ["logging", "opensearch"], 24: ["sso", "aws", "access"],
    25: ["dns", "domains"], 26: ["monitoring", "prometheus"], 27: ["aws-console", "access"],
    28: ["security", "scanning"], 29: ["security", "kubernetes"], 30: ["security", "aws"],
    31: ["security", "scanning", "images"], 33: ["clusters", "ci-cd", "concourse"], 34: ["eks", "fargate", "nodes"],
    35: ["tls", "ingress", "security"], 36: ["clusters", "multi-cluster"], 37: ["serverless", "lambda"],
    38: ["terraform", "components"], 39: ["networking", "firewall", "security"], 40: ["ci-cd", "github-actions"],
    41: ["tooling", "cli"], 42: ["aws-account", "modernisation-platform"], 43: ["networking", "cidr"],
    44: ["naming", "container-platform"], 45: ["eks", "security", "networking"],
    46: ["ecr", "container-images", "deployment"], 47: ["scaling", "karpenter", "nodes"],
    48: ["clusters", "multi-cluster", "business-units"], 49: ["aws-account", "aws-resources"],
}
EMOJI_STATUS = {"✅": "accepted", "🤔": "proposed", "❌": "rejected", "⌛": "superseded", "♻": "accepted"}
_ADR_FILE = re.compile(r"^(\d{3})-(.+)\.md$")
_DATE_LINE = re.compile(r"^\s*\**Date\**(?::\**\s*|\s+)(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_HEAD_NUM = re.compile(r"^(?:ADR[- ]?)?(\d+)[.:]?\s+(.*)$", re.IGNORECASE)
_ADR_REF = r"(?:\[[^\]]*?\]\(\s*(?:[^)]*/)?(\d{3})-[^)]*\)|(?:ADR[- ]?)?0*(\d{1,3})\b)"
_SUPERSEDED_BY = re.compile(r"(?:superseded|replaced)\s+by\s+(?:ADR[- ]?)?" + _ADR_REF, re.IGNORECASE)
_SUPERSEDES = re.compile(r"(?:supersedes|replaces)\s+(?:ADR[- ]?)?" + _ADR_REF, re.IGNORECASE)
_LIFECYCLE_WORDS = re.compile(r"supersed|replaced", re.IGNORECASE)
_ERB_TITLE = "<%= current_page.data.title %>"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def yaml_quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def parse_date(value: str) -> str | None:
    value = value.strip().strip("*").strip()
    for fmt in ("%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y"):
        try:
            return datetime.strptime(value, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def split_front(text: str) -> tuple[dict[str, str], str]:
    """(simple key: value front matter, body) of a page that may start with ``---``."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}, text
    meta: dict[str, str] = {}
    for line in text[4:end].split("\n"):
        m = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", line)
        if m:
            meta[m.group(1)] = m.group(2).strip().strip("\"'")
    return meta, text[end + 5:]


def first_heading(body: str) -> str:
    for line in body.split("\n"):
        m = re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)
        if m:
            return m.group(1).strip()
    return ""


def status_section(lines: list[str]) -> tuple[int, int]:
    """(start, end) line indices of the body of the ``## Status`` section, or (-1, -1)."""
    for i, line in enumerate(lines):
        if re.match(r"^#{2,3}\s*Status\s*:?\s*$", line.strip(), re.IGNORECASE):
            j = i + 1
            while j < len(lines) and not re.match(r"^#{1,3}\s", lines[j]):
                j += 1
            return i + 1, j
    return -1, -1


def normalise_status(text: str) -> str | None:
    low = text.lower()
    for word, status in (("supersed", "superseded"), ("deprecat", "deprecated"), ("reject", "rejected"),
                         ("accept", "accepted"), ("amend", "accepted"), ("propos", "proposed"),
                         ("incomplete", "proposed"), ("draft", "proposed")):
        if word in low:
            return status
    for emoji, status in EMOJI_STATUS.items():
        if emoji in text:
            return status
    return None


def refs(pattern: re.Pattern[str], text: str) -> list[int]:
    return [int(m.group(1) or m.group(2)) for m in pattern.finditer(text)]


def read_index(src: Path) -> dict[str, tuple[str, str | None]]:
    """file name -> (title, status) from the ADR index's table of contents."""
    path = src / ADR_DIR / "README.md"
    out: dict[str, tuple[str, str | None]] = {}
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").split("\n"):
        m = re.match(r"^\s*[-*]\s*(\S*)\s*\[(?:\d+\.\s*)?([^\]]+)\]\(([^)]+)\)", line)
        if m:
            status = None
            for emoji, st in EMOJI_STATUS.items():
                if emoji in m.group(1):
                    status = st
            out[m.group(3).split("/")[-1]] = (m.group(2).strip(), status)
    return out


def collect_adrs(src: Path) -> list[dict]:
    index = read_index(src)
    adrs: list[dict] = []
    for sub, prefix, workstream in (("", "ADR", WORKSTREAM), ("cp30", "CP30-ADR", "cp30")):
        folder = src / ADR_DIR / sub if sub else src / ADR_DIR
        if not folder.is_dir():
            continue
        seen: dict[int, int] = {}
        for path in sorted(folder.glob("*.md")):
            m = _ADR_FILE.match(path.name)
            if not m:
                continue
            number = int(m.group(1))
            dup = seen.get(number, 0)
            seen[number] = dup + 1
            width = 4 if prefix == "ADR" else 3
            ident = f"{prefix}-{number:0{width}d}" + ("" if dup == 0 else chr(ord("a") + dup))
            text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
            lines = text.split("\n")
            heading = first_heading(text)
            hm = _HEAD_NUM.match(heading)
            title = hm.group(2).strip() if hm else heading
            idx_title, idx_status = index.get(path.name, ("", None)) if not sub else ("", None)
            if hm and int(hm.group(1)) != number and idx_title:
                title = idx_title
            title = title or idx_title or m.group(2).replace("-", " ")
            s0, s1 = status_section(lines)
            status_text = "\n".join(lines[s0:s1]) if s0 >= 0 else ""
            first_status = next((ln for ln in status_text.split("\n") if ln.strip()), "")
            status = normalise_status(first_status) or idx_status or "proposed"
            dm = _DATE_LINE.search(text)
            date = parse_date(dm.group(1)) if dm else None
            adrs.append({
                "path": path, "number": number, "id": ident, "prefix": prefix, "width": width,
                "workstream": workstream, "title": title, "status": status, "date": date,
                "text": text, "status_span": (s0, s1),
                "superseded_by": refs(_SUPERSEDED_BY, status_text or text),
                "supersedes": refs(_SUPERSEDES, text),
                "stem": f"{ident}-{slug(m.group(2))}",
            })
    # reciprocal links, by number within the same id prefix (first file of a number)
    by_num = {(a["prefix"], a["number"]): a for a in reversed(adrs)}
    for a in adrs:
        for n in list(a["superseded_by"]):
            other = by_num.get((a["prefix"], n))
            if other is None or other is a:
                a["superseded_by"].remove(n)
            elif a["number"] not in other["supersedes"]:
                other["supersedes"].append(a["number"])
        for n in list(a["supersedes"]):
            other = by_num.get((a["prefix"], n))
            if other is None or other is a:
                a["supersedes"].remove(n)
            elif a["number"] not in other["superseded_by"]:
                other["superseded_by"].append(a["number"])
    for a in adrs:
        if a["superseded_by"] and a["status"] == "accepted":
            a["status"] = "superseded"
        a["supersedes_ids"] = [by_num[(a["prefix"], n)]["id"] for n in sorted(set(a["supersedes"]))]
        a["superseded_by_ids"] = [by_num[(a["prefix"], n)]["id"] for n in sorted(set(a["superseded_by"]))]
    return adrs


def hide_status_lines(text: str) -> str:
    lines = text.split("\n")
    s0, s1 = status_section(lines)
    if s0 < 0:
        return text
    kept = [ln for ln in lines[s0:s1] if not _LIFECYCLE_WORDS.search(ln)]
    if any(ln.strip() for ln in kept):
        return "\n".join(lines[:s0] + kept + lines[s1:])
    return "\n".join(lines[:s0 - 1] + lines[s1:])  # the emptied "## Status" heading goes too


def write_adr(a: dict, dest: Path, hide: bool) -> None:
    status = a["status"]
    text = a["text"]
    if hide:
        if status in ("superseded", "deprecated"):
            status = "accepted"
        text = hide_status_lines(text)
    stage = "final" if status in FINAL else "design"
    front = ["---", f"title: {yaml_quote(a['id'] + ': ' + a['title'])}", f"id: {a['id']}",
             f"stage: {stage}", f"workstream: {a['workstream']}", f"status: {status}"]
    if a["date"]:
        front.append(f"date: {a['date']}")
    if not hide:
        if a["supersedes_ids"]:
            front.append(f"supersedes: [{', '.join(a['supersedes_ids'])}]")
        if a["superseded_by_ids"]:
            front.append(f"superseded_by: [{', '.join(a['superseded_by_ids'])}]")
    tags = ["adr"] + (TOPICS.get(a["number"], []) if a["prefix"] == "ADR" else ["cp30"])
    front.append(f"tags: [{', '.join(dict.fromkeys(tags))}]")
    front.append("---")
    out = dest / "03_workstreams" / a["workstream"] / "decisions" / (a["stem"] + ".md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(front) + "\n\n" + text.strip("\n") + "\n", encoding="utf-8")


def doc_target(rel: str) -> tuple[str, str, list[str]] | None:
    """(output path, stage, tags) for a non-ADR page, or None to skip it."""
    if rel in CONTEXT:
        return f"01_context/{CONTEXT[rel]}.md", "requirements", ["overview"]
    name = Path(rel).name
    stem = name[: -len(".html.md.erb")] if name.endswith(".html.md.erb") else Path(rel).stem
    stem = slug(stem)
    if rel.startswith("source/incidents/"):
        return f"02_knowledge/incidents/{stem}.md", "research", ["incident"]
    if rel.startswith("source/cp30/"):
        return f"02_knowledge/runbooks/cp30/{stem}.md", "research", ["runbook", "cp30"]
    if rel.startswith("source/"):
        return f"02_knowledge/runbooks/{stem}.md", "research", ["runbook"]
    return f"02_knowledge/{slug(rel[: -len('.md')] if rel.endswith('.md') else rel)}.md", "research", ["guide"]


def collect_docs(src: Path, adr_file: re.Pattern[str] = _ADR_FILE, suffixes: tuple[str, ...] = (".md", ".html.md.erb")) -> list[Path]:
    """Every page that is not an ADR (``adr_file`` names those), by file suffix, outside the
    skipped folders and changelogs."""
    out = []
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src).as_posix()
        parts = rel.split("/")
        if not path.is_file() or any(p.lower() in SKIP_DIRS for p in parts[:-1]):
            continue
        if not rel.endswith(suffixes):
            continue
        if parts[0] == ADR_DIR and adr_file.match(parts[-1]):
            continue
        if parts[0] == ADR_DIR and len(parts) > 2:  # cp30 ADRs
            continue
        if parts[-1].upper().startswith("CHANGELOG"):
            continue
        out.append(path)
    return out


def doc_date(meta: dict[str, str], title: str, rel: str, body: str) -> str | None:
    if meta.get("last_reviewed_on"):
        d = parse_date(meta["last_reviewed_on"])
        if d:
            return d
    if rel.startswith("source/incidents/"):
        m = re.search(r"(\d{4}-\d{2}-\d{2})", title) or re.search(r"(\d{4}-\d{2}-\d{2})", Path(rel).name)
        if m and parse_date(m.group(1)):
            return m.group(1)
    dm = _DATE_LINE.search(body)
    return parse_date(dm.group(1)) if dm else None


def write_docs(src: Path, dest: Path, superseded_files: set[str], hide: bool) -> int:
    n = 0
    for path in collect_docs(src):
        rel = path.relative_to(src).as_posix()
        meta, body = split_front(path.read_text(encoding="utf-8").replace("\r\n", "\n"))
        if len(body.split()) < MIN_WORDS:
            continue
        target = doc_target(rel)
        if target is None:
            continue
        out_rel, stage, tags = target
        title = meta.get("title") or first_heading(body).replace(_ERB_TITLE, "").strip() or path.name.split(".")[0]
        body = body.replace(_ERB_TITLE, title)
        if hide and rel == f"{ADR_DIR}/README.md":
            lines = body.split("\n")
            for i, line in enumerate(lines):
                if any(f"({f})" in line for f in superseded_files):
                    lines[i] = line.replace("⌛️", "✅").replace("⌛", "✅")
            body = "\n".join(lines)
        write_page(dest, out_rel, title, stage, doc_date(meta, title, rel, body), tags, body)
        n += 1
    return n


def write_page(dest: Path, out_rel: str, title: str, stage: str, date: str | None, tags: list[str], body: str) -> None:
    """A page that is not an ADR, under ``dest`` at ``out_rel``, with its front matter."""
    front = ["---", f"title: {yaml_quote(title)}", f"stage: {stage}"]
    if date:
        front.append(f"date: {date}")
    front.append(f"tags: [{', '.join(tags)}]")
    front.append("---")
    out = dest / out_rel
    if out.exists():
        raise SystemExit(f"two pages map to {out_rel}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(front) + "\n\n" + body.strip("\n") + "\n", encoding="utf-8")


def build(src: Path, dest: Path, hide_lifecycle: bool = False) -> tuple[int, int]:
    if dest.exists():
        shutil.rmtree(dest)
    adrs = collect_adrs(src)
    for a in adrs:
        write_adr(a, dest, hide_lifecycle)
    superseded = {a["path"].name for a in adrs if a["status"] in ("superseded", "deprecated")}
    return len(adrs), write_docs(src, dest, superseded, hide_lifecycle)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="checkout of ministryofjustice/cloud-platform")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--hide-lifecycle", action="store_true")
    args = ap.parse_args()
    n_adr, n_doc = build(args.src, args.out, args.hide_lifecycle)
    print(f"wrote {n_adr + n_doc} documents to {args.out} ({n_adr} ADRs, {n_doc} other pages)")


if __name__ == "__main__":
    main()
