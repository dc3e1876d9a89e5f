"""The UK Ministry of Justice Modernisation Platform's decision records, runbooks, user
guide and module READMEs as an OrionFS project tree: a fourth project no default was
chosen on, and the first of them whose core is a decision log.

    git clone https://github.com/ministryofjustice/modernisation-platform /tmp/src/modplat
    git -C /tmp/src/modplat checkout ed8a7936d0d18f09f9ed74671d4884b3adfdc1aa
    python bench/suite/build_modplat.py /tmp/src/modplat --out /tmp/suite/modplat

Source: ministryofjustice/modernisation-platform at commit ed8a7936 (2026-08-07). Standard
library only; the output directory is deleted and rewritten (deterministic). Built after
the shipped defaults were fixed and measured with them only (``run.UNSEEN``). The page
conventions (``## Status`` sections with status emoji, tech-docs ``*.html.md.erb`` pages)
are those of the Cloud Platform tree, so the parsing helpers are ``build_adr_moj``'s; this
file holds only what differs: the folders, the four-digit numbering and the wording of a
replacement ("⌛️ Superseded [0019](0019-….md)").

- ADRs (``architecture-decision-record/NNNN-*.md``; 45 at this commit) ->
  ``03_workstreams/modernisation-platform/decisions/ADR-NNNN-<slug>.md``, id ``ADR-NNNN``;
  title from the first heading without its number (from the ADR index where that number
  is not the file's: 0031 says "30."), status from the ``## Status`` section, else the
  index's emoji; ``supersedes``/``superseded_by`` only where an ADR names its successor
  (0004 -> 0019 at this commit; 0025 is superseded with no successor named); tags ``[adr]``
  (no hand-assigned topics: nothing here was read to help a system).
- ``01_context/``: the repository README, the ADR index, the CIDR register, the site's
  front page and ``source/concepts/**`` (what frames the work; stage requirements).
- ``02_knowledge/``: ``source/runbooks`` (runbooks), ``source/user-guide`` (user guide),
  ``source/team``, ``source/getting-help`` and other Markdown guides (stage research).
- ``04_artifacts/``: the Terraform modules' and environments' READMEs and the other
  READMEs beside code (what the work produced; stage final).
Pages with fewer than 80 words of body are skipped (as in the Cloud Platform tree), and
``.github/`` and templates. Relative links between pages are rewritten to where the pages
now are (``build_playbook.relink``: the ADR index's ``0019-….md`` names
``ADR-0019-….md``, the front page's ``runbooks/x.html`` the runbook built from
``source/runbooks/x.html.md.erb``); site links from the root (``/runbooks/x.html``) stay as
written.

``bench/suite/modplat.intents.jsonl`` holds graded developer intents and
``bench/suite/modplat.pairs.jsonl`` current-vs-replaced decision pairs, both written by
reading this tree before any system ran on it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_playbook import relink  # noqa: E402  (links between pages follow them to their new places)
from build_adr_moj import (  # noqa: E402  (the same page conventions)
    _DATE_LINE,
    _ERB_TITLE,
    _HEAD_NUM,
    EMOJI_STATUS,
    collect_docs,
    write_page,
    first_heading,
    normalise_status,
    parse_date,
    slug,
    split_front,
    status_section,
    yaml_quote,
)

MIN_WORDS = 80
ADR_DIR = "architecture-decision-record"
WORKSTREAM = "modernisation-platform"
FINAL = {"accepted", "superseded", "deprecated"}
_ADR_FILE = re.compile(r"^(\d{4})-(.+)\.md$")
# "⌛️ Superseded [0019](0019-use-bash-go-as-core-languages.md)", "superseded by ADR 19"
_SUCCESSOR = re.compile(r"(?:superseded|replaced)(?:\s+by)?\s*(?:\[[^\]]*\]\(\s*(?:[^)]*/)?(\d{4})-[^)]*\)|ADR[- ]?0*(\d{1,4})\b)",
                        re.IGNORECASE)
CONTEXT = {
    "README.md": "modernisation-platform-readme",
    f"{ADR_DIR}/README.md": "adr-index",
    "cidr-allocation.md": "cidr-allocation",
    "source/index.html.md.erb": "modernisation-platform-overview",
}


def read_index(src: Path) -> dict[str, tuple[str, str | None]]:
    """file name -> (title, status) from the ADR index's numbered table of contents."""
    out: dict[str, tuple[str, str | None]] = {}
    path = src / ADR_DIR / "README.md"
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").split("\n"):
        m = re.match(r"^\s*(?:\d+\.|[-*])\s*(\S*)\s*\[([^\]]+)\]\(([^)]+)\)", line)
        if m:
            status = next((st for emoji, st in EMOJI_STATUS.items() if emoji in m.group(1)), None)
            out[m.group(3).split("/")[-1]] = (m.group(2).strip(), status)
    return out


def collect_adrs(src: Path) -> list[dict]:
    index = read_index(src)
    adrs = []
    for path in sorted((src / ADR_DIR).glob("*.md")):
        m = _ADR_FILE.match(path.name)
        if not m:
            continue
        number = int(m.group(1))
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        heading = first_heading(text)
        hm = _HEAD_NUM.match(heading)
        idx_title, idx_status = index.get(path.name, ("", None))
        title = hm.group(2).strip() if hm else heading
        if hm and int(hm.group(1)) != number and idx_title:
            title = idx_title
        title = title or idx_title or m.group(2).replace("-", " ")
        lines = text.split("\n")
        s0, s1 = status_section(lines)
        status_text = "\n".join(lines[s0:s1]) if s0 >= 0 else ""
        first_status = next((ln for ln in status_text.split("\n") if ln.strip()), "")
        status = normalise_status(first_status) or idx_status or "proposed"
        dm = _DATE_LINE.search(text)
        successors = [int(a or b) for a, b in _SUCCESSOR.findall(status_text)]
        adrs.append({"src": path.relative_to(src).as_posix(), "number": number, "id": f"ADR-{number:04d}", "title": title, "status": status,
                     "date": parse_date(dm.group(1)) if dm else None, "text": text,
                     "superseded_by": successors, "supersedes": [],
                     "stem": f"ADR-{number:04d}-{slug(m.group(2))}"})
    by_num = {a["number"]: a for a in adrs}
    for a in adrs:
        a["superseded_by"] = [n for n in a["superseded_by"] if n in by_num and n != a["number"]]
        for n in a["superseded_by"]:
            by_num[n]["supersedes"].append(a["number"])
        if a["superseded_by"] and a["status"] == "accepted":
            a["status"] = "superseded"
    return adrs


def adr_target(a: dict) -> str:
    return f"03_workstreams/{WORKSTREAM}/decisions/{a['stem']}.md"


def write_adr(a: dict, dest: Path, moved: dict[str, Path]) -> None:
    stage = "final" if a["status"] in FINAL else "design"
    front = ["---", f"title: {yaml_quote(a['id'] + ': ' + a['title'])}", f"id: {a['id']}",
             f"stage: {stage}", f"workstream: {WORKSTREAM}", f"status: {a['status']}"]
    if a["date"]:
        front.append(f"date: {a['date']}")
    if a["supersedes"]:
        front.append(f"supersedes: [{', '.join(f'ADR-{n:04d}' for n in sorted(set(a['supersedes'])))}]")
    if a["superseded_by"]:
        front.append(f"superseded_by: [{', '.join(f'ADR-{n:04d}' for n in sorted(set(a['superseded_by'])))}]")
    front += ["tags: [adr]", "---"]
    out = dest / adr_target(a)
    out.parent.mkdir(parents=True, exist_ok=True)
    body = relink(a["text"].strip("\n"), Path(a["src"]), moved, Path(adr_target(a)))
    out.write_text("\n".join(front) + "\n\n" + body + "\n", encoding="utf-8")


def _stem(rel: str) -> str:
    name = Path(rel).name
    for ext in (".html.md.erb", ".md.erb", ".md"):
        if name.endswith(ext):
            return slug(name[: -len(ext)])
    return slug(name)


def doc_target(rel: str) -> tuple[str, str, list[str]]:
    """(output path, stage, tags) of a page that is not an ADR."""
    if rel in CONTEXT:
        return f"01_context/{CONTEXT[rel]}.md", "requirements", ["overview"]
    parts = rel.split("/")
    if rel.startswith("source/concepts/"):
        return f"01_context/concepts/{slug('-'.join(parts[2:-1] + [_stem(rel)]))}.md", "requirements", ["concept"]
    if rel.startswith("source/runbooks/"):
        return f"02_knowledge/runbooks/{_stem(rel)}.md", "research", ["runbook"]
    if rel.startswith("source/user-guide/"):
        return f"02_knowledge/user-guide/{_stem(rel)}.md", "research", ["user-guide"]
    if rel.startswith("source/"):
        return f"02_knowledge/{slug('-'.join(parts[1:-1] + [_stem(rel)]))}.md", "research", ["guide"]
    if parts[-1].lower() == "readme.md" and len(parts) > 1:  # a README beside code
        return f"04_artifacts/{slug('-'.join(parts[:-1]))}.md", "final", ["readme"]
    return f"02_knowledge/{slug(rel[: -len('.md')])}.md", "research", ["guide"]


def read_docs(src: Path) -> dict[str, tuple[dict[str, str], str]]:
    """source path -> (its front matter, body) of every page kept (80 words of body or more)."""
    out = {}
    for path in collect_docs(src, _ADR_FILE, (".md", ".md.erb")):
        meta, body = split_front(path.read_text(encoding="utf-8").replace("\r\n", "\n"))
        if len(body.split()) >= MIN_WORDS:
            out[path.relative_to(src).as_posix()] = (meta, body)
    return out


def write_docs(docs: dict[str, tuple[dict[str, str], str]], dest: Path, moved: dict[str, Path]) -> int:
    n = 0
    for rel, (meta, body) in docs.items():
        out_rel, stage, tags = doc_target(rel)
        title = meta.get("title") or first_heading(body).replace(_ERB_TITLE, "").strip() or _stem(rel)
        body = relink(body.replace(_ERB_TITLE, title), Path(rel), moved, Path(out_rel))
        date = parse_date(meta["last_reviewed_on"]) if meta.get("last_reviewed_on") else None
        write_page(dest, out_rel, title, stage, date, tags, body)
        n += 1
    return n


def build(src: Path, dest: Path) -> tuple[int, int]:
    if dest.exists():
        shutil.rmtree(dest)
    adrs = collect_adrs(src)
    docs = read_docs(src)
    moved = {a["src"]: Path(adr_target(a)) for a in adrs} | {rel: Path(doc_target(rel)[0]) for rel in docs}
    # a site page's relative link names the page it is built into: runbooks/x.html is source/runbooks/x.html.md.erb
    moved |= {rel[: -len(".md.erb")]: dest_rel for rel, dest_rel in moved.items() if rel.endswith(".html.md.erb")}
    for a in adrs:
        write_adr(a, dest, moved)
    return len(adrs), write_docs(docs, dest, moved)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="checkout of ministryofjustice/modernisation-platform")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    n_adr, n_doc = build(args.src, args.out)
    print(f"wrote {n_adr + n_doc} documents to {args.out} ({n_adr} ADRs, {n_doc} other pages)")


if __name__ == "__main__":
    main()
