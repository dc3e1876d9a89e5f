"""A generation's ``manifest.json``, typed: what built the generation, what it holds, and
the checksums every reader verifies.

On disk it stays the JSON object it always was (``indent=1``, sorted keys), so indexes
written before this type existed read unchanged; keys this type does not know are kept
and written back as they were. A manifest whose fields have the wrong shape is a
:class:`ManifestError`: an unreadable index to the user (exit 4), a ``ValueError`` to
code that reads files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from oriongraph_cli.errors import NoIndexError

MANIFEST = "manifest.json"
# on-disk layout; a change forces a rebuild (2: graph tables, 3: one lexical field,
# 4: span ids include the path, file checksums and stat keys in the manifest, 5: span line numbers,
# 6: vectors in segment files under vectors/, not in the registry and vectors.faiss,
# 7: structural edges derived from the spans, not stored, 8: the headings and code blocks of
# the notes with fenced code kept beside them, for the compile, 9: their tables too, and the
# notes with a table, 10: each document's language)
INDEX_SCHEMA_VERSION = 10


# the last manifest file read, its bytes and what they gave (one: a large project's is tens of
# MB parsed)
_LAST: tuple[bytes, "Manifest"] | None = None


class ManifestError(NoIndexError, ValueError):
    """A manifest that is not the object orion writes."""


@dataclass(frozen=True)
class Counts:
    documents: int = 0
    spans: int = 0
    tokens: int = 0
    edges: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"documents": self.documents, "spans": self.spans, "tokens": self.tokens, "edges": self.edges}


def _strings(value: list | None, key: str) -> list[str] | None:
    if value is not None and not all(isinstance(v, str) for v in value):
        raise ManifestError(f"manifest field {key!r} holds a value that is not text", hint="run `orion index` to rebuild the index")
    return value


@dataclass(frozen=True)
class Manifest:
    generation: str
    complete: bool
    index_schema_version: int | None = None
    tool_version: str | None = None
    model_id: str | None = None
    dim: int | None = None
    tokenizer: str | None = None
    span_params: list[int] | None = None  # [target, max, min] tokens
    created_at: int = 0  # when the generation was built (recency's "now")
    counts: Counts = field(default_factory=Counts)
    files: dict[str, str] = field(default_factory=dict)  # path -> sha256 of the indexed bytes
    stats: dict[str, list[int]] = field(default_factory=dict)  # path -> [size, mtime_ns, ctime_ns, inode]
    file_warnings: dict[str, list] = field(default_factory=dict)  # path -> parse warnings (for --strict)
    checksums: dict[str, Any] | None = None  # file -> size and digests (None: written before checksums)
    id_length: int | None = None  # the prefix length that tells every span id apart (None: written before it)
    link_rules: int | None = None  # the link resolution rules its edges were resolved by (None: before they were versioned)
    parse_rules: int | None = None  # the rules its files were parsed by (index.parse.PARSE_RULES; None: before they were versioned)
    other_files: str | None = None  # digest of the paths of the other files in the stage folders (index.walk.OtherFiles; None: not recorded)
    repository: list[str] | None = None  # the repositories its links by web address were resolved against (repository.OwnRepository.state; None: none)
    extra: dict[str, Any] = field(default_factory=dict)  # keys of a newer or older orion, kept as they are

    # ------------------------------------------------------------ reading
    @classmethod
    def from_dict(cls, raw: Any) -> "Manifest":
        if not isinstance(raw, dict):
            raise ManifestError(f"manifest is a JSON {type(raw).__name__}, not an object", hint="run `orion index` to rebuild the index")
        known = {f.name for f in fields(cls)} - {"extra"}

        def want(key: str, types: tuple[type, ...], default: Any = None, *, required: bool = False) -> Any:
            if key not in raw:
                if required:
                    raise ManifestError(f"manifest has no {key!r}", hint="run `orion index` to rebuild the index")
                return default
            value = raw[key]
            if value is None and not required:
                return default
            if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
                raise ManifestError(f"manifest field {key!r} is a {type(value).__name__}", hint="run `orion index` to rebuild the index")
            return value

        counts = want("counts", (dict,), {})
        for k, v in counts.items():
            if not isinstance(v, int) or isinstance(v, bool):
                raise ManifestError(f"manifest count {k!r} is a {type(v).__name__}", hint="run `orion index` to rebuild the index")
        return cls(
            generation=want("generation", (str,), required=True),
            complete=want("complete", (bool,), required=True),
            index_schema_version=want("index_schema_version", (int,)),
            tool_version=want("tool_version", (str,)),
            model_id=want("model_id", (str,)),
            dim=want("dim", (int,)),
            tokenizer=want("tokenizer", (str,)),
            span_params=want("span_params", (list,)),
            created_at=want("created_at", (int,), 0),
            counts=Counts(**{k: counts[k] for k in ("documents", "spans", "tokens", "edges") if k in counts}),
            files=want("files", (dict,), {}),
            stats=want("stats", (dict,), {}),
            file_warnings=want("file_warnings", (dict,), {}),
            checksums=want("checksums", (dict,)),
            id_length=want("id_length", (int,)),
            link_rules=want("link_rules", (int,)),
            parse_rules=want("parse_rules", (int,)),
            other_files=want("other_files", (str,)),
            repository=_strings(want("repository", (list,)), "repository"),
            extra={k: v for k, v in raw.items() if k not in known},
        )

    @classmethod
    def parse(cls, text: str) -> "Manifest":
        """From the file's text; invalid JSON raises ``ValueError`` (``json.JSONDecodeError``)."""
        return cls.from_dict(json.loads(text))

    @classmethod
    def load(cls, gen_path: Path) -> "Manifest":
        """The manifest of the generation at ``gen_path``. Raises ``OSError`` (unreadable),
        ``ValueError`` (not JSON; ``UnicodeDecodeError`` not UTF-8) or :class:`ManifestError`
        (not a manifest).

        A manifest is written once and read several times: an index run checks the current
        generation before and after taking the lock and after promoting a new one, and
        ``orion serve`` and ``orion watch`` run many. The file is read each time, but the
        same bytes as the last manifest read are that Manifest, not parsed again (reading
        and comparing 1 MB costs a few percent of parsing it). A Manifest is never changed
        after it is read."""
        global _LAST
        data = (gen_path / MANIFEST).read_bytes()
        last = _LAST
        if last is not None and last[0] == data:
            return last[1]
        manifest = cls.parse(data.decode())
        _LAST = (data, manifest)
        return manifest

    def written_as(self, data: bytes) -> None:
        """This manifest was just written as ``data``: the next :meth:`load` of those very
        bytes is this Manifest, not a parse of them (the run that wrote a generation is
        followed by a run that reads its manifest, in ``orion serve`` and ``orion watch``)."""
        global _LAST
        _LAST = (data, self)

    # ------------------------------------------------------------ writing
    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.extra)
        out.update({
            "generation": self.generation,
            "complete": self.complete,
            "index_schema_version": self.index_schema_version,
            "tool_version": self.tool_version,
            "model_id": self.model_id,
            "dim": self.dim,
            "tokenizer": self.tokenizer,
            "span_params": self.span_params,
            "created_at": self.created_at,
            "counts": self.counts.to_dict(),
            "files": self.files,
            "stats": self.stats,
            "file_warnings": self.file_warnings,
        })
        if self.checksums is not None:
            out["checksums"] = self.checksums
        if self.id_length is not None:
            out["id_length"] = self.id_length
        if self.link_rules is not None:
            out["link_rules"] = self.link_rules
        if self.parse_rules is not None:
            out["parse_rules"] = self.parse_rules
        if self.other_files is not None:
            out["other_files"] = self.other_files
        if self.repository is not None:
            out["repository"] = self.repository
        return out

    def to_bytes(self) -> bytes:
        """The file's bytes: compact JSON, keys sorted (``store/compact_json.py``). (Indented,
        as it was written before, it took Python's pure encoder: 0.09 s of every index run
        that writes a generation at 100k spans, against 0.02; readers take either.)"""
        from oriongraph_cli.store.compact_json import dumps

        return dumps(self.to_dict())
