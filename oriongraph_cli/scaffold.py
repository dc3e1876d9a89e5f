"""`orion init`: a new OrionFS project — the four stage folders, one example note, a
commented ``.orion.toml`` whose values are read from :data:`config.DEFAULTS`, and
``.oriongraph/`` in ``.gitignore``. Files that exist are never overwritten."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from oriongraph_cli.models import TOP_FOLDERS
from oriongraph_cli.fusion import FUSIONS

EXAMPLE_NOTE = Path("03_workstreams/ws-example/design/example-note.md")

# the settings .orion.toml lists, with what each does; the values come from Config
MAIN_SETTINGS: tuple[tuple[str, str], ...] = (
    ("budget", "tokens in a compiled working set, framing included"),
    ("fusion", ", ".join(list(FUSIONS)[:-1]) + " or " + list(FUSIONS)[-1]),
    ("w_semantic", "weight of the embedding similarity"),
    ("w_lexical", "weight of BM25"),
    ("w_structural", "weight of ids, titles, tags and stages named in the intent"),
    ("w_recency", "weight of how recent a document is"),
    ("diversity_lambda", "MMR λ: 1 = relevance only, lower = more diverse"),
    ("max_source_ratio", "largest share of the budget one document may take"),
    ("relevance_floor", "spans under this × the best score are not taken whole (0 fills the budget)"),
    ("document_floor", "a new document waits while stronger ones (this × the best score) have text left (0: off)"),
    ("compress", "shorten a span that does not fit instead of leaving it out"),
    ("top_k", "candidates per generator"),
    ("model", "fastembed model name (orion never downloads one)"),
    ("model_path", "default none; or a local directory with model.onnx + tokenizer.json"),
    ("max_file_bytes", "larger files are skipped with a warning"),
    ("lock_timeout", "seconds a second writer waits for the index lock"),
    ("vector_index", "auto (exact below 200,000 spans, HNSW above), flat or hnsw"),
    ("usage_log", "record each compile in .oriongraph/usage.jsonl (ids, never text)"),
    ("serve_idle_timeout", "seconds orion serve waits for a request before it exits (0: never)"),
)


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def orion_toml() -> str:
    """A commented .orion.toml: every main setting at its default (uncomment to change)."""
    from oriongraph_cli.config import DEFAULTS

    lines = [
        "# orion settings for this project. Each line shows a default; uncomment it to change it.",
        "# Precedence: command-line flag > ORION_<SETTING> variable > this file > default.",
        "# `orion config` shows every setting, its value and where it came from.",
        "",
    ]
    width = max(len(k) for k, _ in MAIN_SETTINGS) + 3 + 12
    for key, what in MAIN_SETTINGS:
        value = getattr(DEFAULTS, key)
        text = f'{key} = "/models/bge-small-onnx"' if value is None else f"{key} = {toml_value(value)}"
        lines.append(f"# {text:<{width}} # {what}")
    return "\n".join(lines) + "\n"


EXAMPLE_TEXT = """---
title: Example Note
stage: design
workstream: ws-example
tags: [example, orionfs]
status: draft
created: {created}
---

# Example Note

This project is an OrionFS project: Markdown notes with YAML front matter in four stage
folders. `01_context/` holds what frames the work (vision, requirements, constraints),
`02_knowledge/` what the team has learned (research, how-tos), `03_workstreams/` the work
itself, one folder per workstream with its design, implementation notes and decisions,
and `04_artifacts/` what the work produced (specifications, reports, postmortems).

## Writing a note

Give each note a title, a stage, tags and a status in its front matter; in a workstream
folder the workstream comes from the folder name. Headings split a note into spans,
the passages orion quotes.

## Using orion

Run `orion index` after editing notes (or `orion watch`), then `orion compile "what you
are about to do"` for a working set within a token budget. Replace this note with your own.
"""


@dataclass
class InitResult:
    root: Path
    created: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # existed with other content: not overwritten
    linked: list[str] = field(default_factory=list)  # a link, or under one: nothing written through it


def init_project(directory: Path | str, today: str | None = None) -> InitResult:
    """Scaffold ``directory`` (created when missing). Idempotent; never overwrites a file."""
    import datetime

    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    result = InitResult(root=root.resolve())
    for top in TOP_FOLDERS:
        if os.path.islink(root / top):  # its files live where the link points: nothing is written there
            result.linked.append(top + "/")
        elif not (root / top).is_dir():
            (root / top).mkdir()
            result.created.append(top + "/")
    created = today or datetime.date.today().isoformat()
    files = {str(EXAMPLE_NOTE): EXAMPLE_TEXT.format(created=created), ".orion.toml": orion_toml()}
    for rel, text in files.items():
        path = root / rel
        if not _inside(root, path):  # under a link (a stage folder linked elsewhere): not ours to write
            result.linked.append(rel)
            continue
        if os.path.lexists(path):
            try:
                same = path.read_text(encoding="utf-8") == text or (rel == str(EXAMPLE_NOTE) and _same_but_date(path, text))
            except (OSError, UnicodeDecodeError):
                same = False
            (result.unchanged if same else result.kept).append(rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as fh:  # "x": never replace a file made meanwhile
            fh.write(text)
        result.created.append(rel)
    _ignore_index(root, result)
    return result


def _same_but_date(path: Path, text: str) -> bool:
    """The example note as an earlier ``orion init`` wrote it (on another day)."""
    import re

    def undated(t: str) -> str:
        return re.sub(r"^created: \S+$", "created:", t, count=1, flags=re.M)

    return undated(path.read_text(encoding="utf-8")) == undated(text)


def _inside(root: Path, path: Path) -> bool:
    """Whether writing ``path`` writes inside ``root``: no link on the way from the root to it
    (the file itself included), so nothing outside the project is written."""
    rel = path.relative_to(root)
    here = root
    for part in rel.parts:
        here = here / part
        if os.path.islink(here):
            return False
    return True


def _ignore_index(root: Path, result: InitResult) -> None:
    """``.oriongraph/`` in .gitignore: added to the file (created when missing), once; a
    .gitignore that is a link or no file is left as it is."""
    path = root / ".gitignore"
    entry = ".oriongraph/"
    if os.path.islink(path):
        result.linked.append(".gitignore")
        return
    if os.path.lexists(path) and not path.is_file():
        result.kept.append(".gitignore")
        return
    if path.exists():
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(line.strip() in (entry, ".oriongraph", "/.oriongraph", "/.oriongraph/") for line in text.splitlines()):
            result.unchanged.append(".gitignore")
            return
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(("" if not text or text.endswith("\n") else "\n") + entry + "\n")
        result.created.append(".gitignore: .oriongraph/")
        return
    path.write_text(entry + "\n", encoding="utf-8")
    result.created.append(".gitignore")
