"""Bytes -> Document: input hygiene, YAML front matter (python-frontmatter), metadata.

The *document text* that span offsets index is the file decoded as UTF-8 with a leading
BOM removed and CRLF/CR line endings turned into LF. ``doc_version_id`` is the SHA256 of
the raw bytes, so any change to the file is a new version.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from oriongraph_cli.models import STAGES, TOP_FOLDERS, Document

FM_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)
HEADING_RE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
STAGE_ALIASES = {
    "requirement": "requirements",
    "reqs": "requirements",
    "spec": "requirements",
    "implementation": "impl",
    "implement": "impl",
    "evaluation": "eval",
    "evaluate": "eval",
    "decision": "final",
    "done": "final",
}


def _yaml_handler():
    """python-frontmatter's YAML handler, imported on first use: compiles import this module
    for ``decode`` (stale checks) and must not pay for YAML (~50 ms)."""
    global _YAML
    if _YAML is None:
        import frontmatter

        _YAML = frontmatter.YAMLHandler()
    return _YAML


_YAML = None


@dataclass(frozen=True)
class ParseWarning:
    path: str
    kind: str  # binary | too-large | empty | encoding | yaml | front-matter | stage
    message: str
    line: int | None = None
    col: int | None = None
    skipped: bool = False  # the file was not indexed

    def __str__(self) -> str:
        loc = self.path
        if self.line is not None:
            loc += f":{self.line}"
            if self.col is not None:
                loc += f":{self.col}"
        return f"{loc}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "message": self.message, "line": self.line, "col": self.col, "skipped": self.skipped}


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode(rel: str, data: bytes, max_bytes: int) -> tuple[str | None, ParseWarning | None]:
    """Apply the input rules; return the normalised text or a warning saying why not."""
    if len(data) > max_bytes:
        return None, ParseWarning(
            rel, "too-large", f"{len(data):,} bytes exceeds max_file_bytes={max_bytes:,}; skipped (raise it in .orion.toml)", skipped=True
        )
    if b"\x00" in data[:65536]:
        return None, ParseWarning(rel, "binary", "binary file (NUL bytes); skipped", skipped=True)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, ParseWarning(
            rel, "encoding", f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); skipped — re-save as UTF-8", line=line, skipped=True
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        return None, ParseWarning(rel, "empty", "empty file; skipped", skipped=True)
    return text, None


def split_front_matter(rel: str, text: str) -> tuple[dict[str, Any], int, list[ParseWarning]]:
    """Return (metadata, body_start, warnings). Malformed YAML keeps the body indexable."""
    m = FM_RE.match(text)
    if not m:
        return {}, 0, []
    raw = m.group(1) or ""
    body_start = m.end()
    import yaml

    try:
        meta = _yaml_handler().load(raw) if raw.strip() else {}
    except yaml.YAMLError as exc:
        # the construct that is broken starts at context_mark ("tags: [oops" on line 2);
        # problem_mark is where the parser gave up (often the closing ---)
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1  # +1 for the opening ---, +1 one-based
        col = mark.column + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return {}, body_start, [ParseWarning(rel, "yaml", f"malformed YAML front matter ({problem}); body indexed without metadata", line=line, col=col)]
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return {}, body_start, [ParseWarning(rel, "front-matter", f"front matter is a {type(meta).__name__}, not a mapping; ignored", line=2)]
    return _jsonable(meta), body_start, []


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def parse_date(value: Any) -> int | None:
    """Front matter date (ISO string/date) -> unix timestamp (UTC), or None."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    text = str(value).strip()
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            when = dt.datetime.strptime(text[:10], "%Y-%m-%d")
        except ValueError:
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return int(when.timestamp())


def as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for v in value:
            out.extend(as_list(v) if not isinstance(v, dict) else [str(v)])
        return out
    return [str(value)]


def normalise_stage(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip().lower()
    return STAGE_ALIASES.get(text, text) or None


def parse_document(rel: str, data: bytes, text: str, *, mtime: float, git_time: int | None = None) -> tuple[Document, list[ParseWarning]]:
    meta, body_start, warnings = split_front_matter(rel, text)
    parts = PurePosixPath(rel).parts
    source_type = TOP_FOLDERS[parts[0]]
    workstream = meta.get("workstream")
    if not workstream and parts[0] == "03_workstreams" and len(parts) > 2:
        workstream = parts[1]
    stage = normalise_stage(meta.get("stage"))
    if stage and stage not in STAGES:
        warnings.append(ParseWarning(rel, "stage", f"unknown stage {stage!r} (expected one of {', '.join(STAGES)}); kept as is", line=2))
    title = meta.get("title")
    if not title:
        h = HEADING_RE.search(text, body_start)
        title = h.group(1).strip() if h else PurePosixPath(rel).stem
    created = parse_date(meta.get("created")) or parse_date(meta.get("date"))
    if created is not None:
        created_source = "front-matter"
    elif git_time is not None:
        created, created_source = git_time, "git"
    else:
        created, created_source = int(mtime), "mtime"
    tags = tuple(dict.fromkeys(t.lower() for t in as_list(meta.get("tags"))))
    doc = Document(
        path=rel,
        doc_version_id=sha256_hex(data),
        text=text,
        body_start=body_start,
        meta=meta,
        source_type=source_type,
        title=str(title),
        workstream=str(workstream) if workstream else None,
        stage=stage,
        created_at=created,
        created_source=created_source,
        tags=tags,
        size_bytes=len(data),
    )
    return doc, warnings
