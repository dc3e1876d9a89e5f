"""What a note's bytes must be to be read: the input rules, and the warning that says why a
file is skipped.

A file over ``max_file_bytes``, with NUL bytes, not UTF-8 or empty is skipped with a
warning naming it; otherwise its text is the bytes decoded as UTF-8 with a leading BOM
removed and CRLF/CR line endings turned into LF (the text span offsets index). Kept apart
from ``index.parse`` (front matter, stated states, spans): a compile reads a quoted note
again (``assemble.hydrate``) by these rules alone, and importing the parser's reading rules
cost it ~35 ms of CPU (their patterns compiled at import).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
