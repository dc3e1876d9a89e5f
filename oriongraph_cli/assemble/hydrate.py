"""Hydration: each selected span quoted exactly from the document version it was indexed
from; a file changed since is reported stale and the indexed text is quoted instead."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from oriongraph_cli.blocks import heading_label, heading_labels
from oriongraph_cli.config import Config
from oriongraph_cli.errors import NotFoundError, OrionError
from oriongraph_cli.index.decode import decode
from oriongraph_cli.models import WSItem
from oriongraph_cli.safeio import UnsafeFile, read_project_file
from oriongraph_cli.store.reader import IndexReader


def hydrate(cfg: Config, reader: IndexReader, placed, files: dict | None = None) -> tuple[list[WSItem], int, dict[str, str | None]]:
    """(working-set items with their whole text, how many are stale, each document's current
    text or None when it changed); ``placed`` are ``assemble.Placed`` in pick order;
    ``files`` caches documents across calls."""
    files = {} if files is None else files
    items: list[WSItem] = []
    stale_count = 0
    total_base = sum(p.candidate.base_score for p in placed) or 1.0
    texts: dict[str, str | None] = {}
    for rank, p in enumerate(placed, start=1):
        c = p.candidate
        path = c.metadata.filepath
        if path not in files:
            files[path] = read_document_text(cfg.root, path, cfg.max_file_bytes)
        text_now, version_now = files[path]
        ref = c.span_ref
        stale = version_now != ref.doc_version_id
        texts[path] = None if stale else text_now
        if stale:
            stale_count += 1
            text = reader.rows([c.row])[c.row].text
        else:
            text = text_now[ref.char_start : ref.char_end]  # type: ignore[index]
        items.append(
            WSItem(
                span_ref=ref,
                path=path,
                section_title=c.metadata.section_title,
                text=text,
                selection_rank=rank,
                source_weight=round(c.base_score / total_base, 6),
                stale=stale,
                expansion_of=p.expansion_of,
                title=c.metadata.title,
                stage=c.metadata.stage,
                workstream=c.metadata.workstream,
                score=c.base_score,
                priority=p.priority,
                reasons=c.reasons,
                status=c.metadata.status,
            )
        )
    return items, stale_count, texts


LINES_REF = re.compile(r"^(?P<path>.+?):(?P<ranges>L\d+(?:-L\d+)?(?:,L\d+(?:-L\d+)?)*)$")
_RANGE = re.compile(r"L(\d+)(?:-L(\d+))?")
_SPAN_ID = re.compile(r"^[0-9a-fA-F]+$")  # a span id or a prefix of one; anything else is a path


def show(cfg: Config, ref: str) -> dict[str, Any]:
    """A span by id (or unique prefix), or a document's lines given as ``path:L12-L40`` —
    or as a compiled document's header names them, ``path:L12-L40,L61-L64`` (each range in
    turn, ``[…]`` between) — or a whole file by its path (what a header names under 1,000
    tokens, where it gives no lines): a ref that is not hexadecimal cannot be a span id."""
    ref = ref.strip()
    m = LINES_REF.match(ref)
    if not m:
        return show_span(cfg, ref) if _SPAN_ID.match(ref) else show_file(cfg, ref)
    ranges = [(int(a), int(b or a)) for a, b in _RANGE.findall(m["ranges"])]
    parts = [show_lines(cfg, m["path"], a, b) for a, b in ranges]
    if len(parts) == 1:
        return parts[0]
    return {**parts[0], "line_end": parts[-1]["line_end"], "lines": m["ranges"],
            "text": "\n[…]\n".join(p["text"] for p in parts)}


def show_file(cfg: Config, path: str) -> dict[str, Any]:
    """Every line of a project file, as :func:`show_lines` gives a range of them; a name
    that is no file may be an indexed document's id (``ADR-0031``, as ``--explain`` and
    ``orion links`` name documents: its front matter ``id``, else one its file name or title
    gives, ``MSC2290``)."""
    try:
        lines = _file_lines(cfg, path)
    except NotFoundError as exc:
        if "/" in path or os.path.lexists(cfg.root / path):
            raise  # an id has no slash; a name that is there but unreadable says why
        found = _paths_with_id(cfg, path)
        if not found:
            raise NotFoundError(f"{path} is neither a project file nor an indexed document's id", hint=exc.hint) from None
        if len(found) > 1:
            raise NotFoundError(f"document id {path} names {len(found)} documents: {', '.join(found)}",
                                hint="give the path of the one you mean") from None
        path = found[0]
        lines = _file_lines(cfg, path)
    if not lines:
        raise NotFoundError(f"{path} is empty", hint="nothing to quote; `orion index` skips an empty file too")
    return _lines_record(path, lines, 1, len(lines))


def _paths_with_id(cfg: Config, doc_id: str) -> list[str]:
    """The indexed documents ``doc_id`` names (``IndexReader.paths_with_id``); none without
    an index (a damaged one is said as such, not taken for a name no document has)."""
    try:
        reader = IndexReader(cfg, load_embedder=False)
    except OrionError:
        if (Path(cfg.index_dir) / "CURRENT").exists():
            raise
        return []
    try:
        return reader.paths_with_id(doc_id)
    finally:
        reader.close()


_SHOW_HINT = "give a span id, a document id (ADR-0007) or a path relative to the project root, e.g. 02_knowledge/notes.md or 02_knowledge/notes.md:L12-L40"


def _file_lines(cfg: Config, path: str) -> list[str]:
    """The lines of a text file of the project: never orion's own index, a binary file or a
    name no file can have (a NUL byte)."""
    if "\x00" in path:
        raise NotFoundError(f"cannot read {path!r}: a path holds no NUL byte", hint=_SHOW_HINT)
    index_dir, target = Path(cfg.index_dir).resolve(), (Path(cfg.root) / path).resolve()
    if target == index_dir or index_dir in target.parents:
        raise NotFoundError(f"cannot read {path}: it is orion's index, not a project file", hint="`orion status` tells what the index holds")
    try:
        got = read_project_file(cfg.root, path, cfg.max_file_bytes)
    except UnsafeFile as exc:
        # the reason as the indexer words it ("cannot read (No such file or directory);
        # skipped"), without what only a skipped file needs
        why = exc.reason.replace("; skipped", "")
        why = why[len("cannot read ("):-1].lower() if why.startswith("cannot read (") else why
        raise NotFoundError(f"cannot read {path}: {why}", hint=_SHOW_HINT) from None
    if b"\x00" in got.data[:8192]:
        raise NotFoundError(f"cannot show {path}: a binary file, not text", hint=_SHOW_HINT)
    # lines end at "\n" alone (a CRLF's "\r" dropped), as the index counts them: a form feed,
    # a vertical tab or U+2028 in a line is text of that line (str.splitlines() split there)
    lines = got.data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _lines_record(path: str, lines: list[str], a: int, b: int) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "kind": "lines",
        "span_id": None,
        "path": path,
        "line_start": a,
        "line_end": b,
        "lines": f"L{a}-L{b}",
        "stale": False,
        "text": "\n".join(lines[a - 1 : b]),
    }


def show_lines(cfg: Config, path: str, a: int, b: int) -> dict[str, Any]:
    """Lines ``a``..``b`` of a project file, exactly as they are on disk now (what a
    shortened quote's ``path:L12-L40`` brings back whole)."""
    lines = _file_lines(cfg, path)
    if not 1 <= a <= b <= len(lines):
        raise NotFoundError(f"{path} has {len(lines)} lines; asked for L{a}-L{b}", hint=f"lines run from L1 to L{len(lines)}")
    return _lines_record(path, lines, a, b)


def show_span(cfg: Config, span_id: str) -> dict[str, Any]:
    """One span quoted exactly, with provenance (``orion show``)."""
    reader = IndexReader(cfg, load_embedder=False)
    try:
        found = reader.registry.span_by_id(span_id)
        if found is None:
            raise NotFoundError(f"no span {span_id!r} in index generation {reader.generation}", hint="span ids come from `orion search` or `orion compile --json --explain`; a compiled quote's PATH:L12-L40, or a PATH alone, works too")
        if isinstance(found, list):
            raise NotFoundError(f"span id prefix {span_id!r} is ambiguous", hint="give more characters of the id")
        rec = found
        text_now, version_now = read_document_text(cfg.root, rec["path"], cfg.max_file_bytes)
        stale = version_now != rec["doc_version_id"]
        text = rec["text"] if stale else text_now[rec["char_start"] : rec["char_end"]]  # type: ignore[index]
        return {
            "schema_version": 1,
            "kind": "span",
            "span_id": rec["span_id"],
            "doc_version_id": rec["doc_version_id"],
            "path": rec["path"],
            "title": heading_label(rec["title"]) if rec["title"] else rec["title"],
            "section_title": " > ".join(heading_labels(json.loads(rec["heading_path"]))) or None,
            "char_start": rec["char_start"],
            "char_end": rec["char_end"],
            "line_start": rec["line_start"],
            "line_end": rec["line_end"],
            "token_cost": rec["token_cost"],
            "stage": rec["stage"],
            "workstream": rec["workstream"],
            "source_type": rec["source_type"],
            "stale": stale,
            "text": text,
            "generation": reader.generation,
        }
    finally:
        reader.close()


def read_document_text(root: Path, rel: str, max_bytes: int) -> tuple[str | None, str | None]:
    """(normalised text, sha256 of bytes) of the file as it is now, or (None, None) when it
    is gone, unreadable, not a regular file inside the root, or larger than ``max_bytes``
    (indexed files are never larger, so such a file has changed: it is not read)."""
    try:
        got = read_project_file(root, rel, max_bytes)
    except UnsafeFile:
        return None, None
    text, _warn = decode(rel, got.data, max_bytes=max_bytes)
    return text, hashlib.sha256(got.data).hexdigest()
