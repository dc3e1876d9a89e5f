"""The graph index: typed edges between documents and spans (issue 4, seed 003).

Two phases, so that ``orion index`` stays incremental:

1. **Extraction** (:func:`extract_refs`, per *changed* document, needs its text): front
   matter link lists, Markdown / wiki links and id-shaped tokens are recorded as
   unresolved :class:`RawRef` rows in ``link_refs`` together with their line numbers.
   Like spans, the rows of unchanged documents are carried over with the registry copy.
2. **Resolution** (:func:`rebuild_edges`, global, every index run that changes anything):
   a :class:`LinkResolver` is built from the registry (paths, ids, file stems, titles,
   heading slugs per path), every stored ref is resolved, structural edges (NEXT/PREV,
   PARENT_SECTION/CHILD_SECTION, IN_WORKSTREAM) and entity edges (DEFINES) are derived
   from the ``spans`` / ``documents`` tables, and ``edges`` / ``dangling_links`` are
   rewritten. Resolution never needs a document's full text, so a link from an unchanged
   document to a changed or new one, or a mention of a new document id, is picked up
   without re-reading the unchanged file.

Nodes are ``(path, span_id)``; ``span_id`` is ``None`` for a whole document (front matter
edges and links without an anchor) and workstreams are the nodes ``("ws:<name>", None)``.

Edge types (``Edge.type``) and where they come from::

    LINKS RELATED DEPENDS_ON SUPERSEDES SUPERSEDED_BY PARENT   front matter (doc -> doc)
    REF        body Markdown/wiki link (span -> doc, or span -> span for an #anchor)
    CITES      body link whose target lives in 04_artifacts/ (instead of REF)
    MENTIONS   ADR-0007 / ADR-20251113-foo / a document `id` named in the text (span -> doc)
    NEXT PREV  consecutive spans of one document
    PARENT_SECTION CHILD_SECTION   a span and the head span of its enclosing section
    IN_WORKSTREAM  doc -> ws:<name>
    DEFINES    defining span of a term (title, glossary ### heading, id) -> span using it
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
import sqlite3
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence
from urllib.parse import unquote

from oriongraph_cli.models import Document, Span

# --------------------------------------------------------------------------- vocabulary

FRONT_MATTER_TYPES: dict[str, str] = {
    "links": "LINKS",
    "related": "RELATED",
    "depends_on": "DEPENDS_ON",
    "supersedes": "SUPERSEDES",
    "superseded_by": "SUPERSEDED_BY",
    "parent": "PARENT",
}
# spellings accepted for the keys above (normalised: lower case, '-' -> '_')
_FM_ALIASES = {"dependson": "depends_on", "supersededby": "superseded_by", "link": "links"}

EDGE_TYPES = (
    "LINKS", "RELATED", "DEPENDS_ON", "SUPERSEDES", "SUPERSEDED_BY", "PARENT",
    "REF", "CITES", "MENTIONS", "NEXT", "PREV", "PARENT_SECTION", "CHILD_SECTION",
    "IN_WORKSTREAM", "DEFINES",
)
STRUCTURAL_TYPES = frozenset({"NEXT", "PREV", "PARENT_SECTION", "CHILD_SECTION"})
ARTIFACTS_DIR = "04_artifacts/"
WS_PREFIX = "ws:"

# DEFINES bounds (see rebuild_edges / defines_edges)
DEFINES_MAX_PER_TERM = 20  # at most this many DEFINES edges per term
DEFINES_MAX_DF = 0.05  # a term used by more than this share of spans (and > 2*N spans) is too generic
TERM_MAX_WORDS = 6
TERM_MIN_CHARS = 3

MD_LINK_RE = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\]\n]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
REF_DEF_RE = re.compile(r"^ {0,3}\[([^\]\n]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
WIKI_RE = re.compile(r"\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
# id-shaped tokens: ADR-0007, ADR-20251113-retrieval-as-compilation, DES-ING-WORKER, INC-2025-031
ID_TOKEN_RE = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9]*(?:-[A-Za-z0-9]+)+)(?![\w-])")
ADR_RE = re.compile(r"^(ADR-\d+)", re.IGNORECASE)
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE_RE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
MD_SUFFIXES = (".md", ".markdown")
_TERM_STOP = frozenset(
    "a an and the of for to in on with by or at from is are be as it this that overview notes note design index "
    "readme introduction summary context decision decisions consequences rationale background status".split()
)


def slugify(heading: str) -> str:
    """GitHub-style heading anchor: lower case, punctuation dropped, spaces -> '-'."""
    text = unicodedata.normalize("NFKC", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def _norm_key(key: Any) -> str:
    k = str(key).strip().lower().replace("-", "_")
    return _FM_ALIASES.get(k.replace("_", ""), k)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Edge:
    src_path: str
    src_span: str | None  # None: the whole document (or a workstream node)
    dst_path: str  # a document path, or "ws:<name>"
    dst_span: str | None
    type: str
    detail: str = ""  # raw target / term / id as written
    line: int | None = None  # 1-based line in src_path where the link is written

    def to_dict(self) -> dict[str, Any]:
        return {
            "src_path": self.src_path, "src_span": self.src_span, "dst_path": self.dst_path,
            "dst_span": self.dst_span, "type": self.type, "detail": self.detail, "line": self.line,
        }


@dataclass(frozen=True)
class DanglingLink:
    path: str
    line: int | None
    target: str
    kind: str  # "link" | "image" | "wiki" | "anchor" | "front-matter:<key>" | "outside-root"

    def __str__(self) -> str:
        loc = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{loc} → {self.target}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "target": self.target, "kind": self.kind}


@dataclass(frozen=True)
class RawRef:
    """An unresolved reference found in one document version (phase 1)."""

    path: str
    span_id: str | None  # span holding the reference; None for front matter
    line: int | None
    kind: str  # fm:<key> | md | img | wiki | id
    target: str  # as written (path, id, wiki target, token)
    anchor: str | None = None  # "#retention" without '#'


@dataclass(frozen=True)
class SpanInfo:
    """What resolution and structure need of a span (built from a Span or a registry row)."""

    path: str
    span_id: str
    ordinal: int
    heading_path: tuple[str, ...]
    heading_level: int
    text: str = ""
    row: int | None = None

    @classmethod
    def from_span(cls, s: Span, row: int | None = None) -> "SpanInfo":
        return cls(s.path, s.ref.span_id, s.ordinal, tuple(s.heading_path), s.heading_level, s.text, row)


@dataclass(frozen=True)
class DocInfo:
    path: str
    title: str
    doc_id: str | None
    workstream: str | None
    tags: tuple[str, ...] = ()


# --------------------------------------------------------------------------- phase 1: extraction


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def _mask_code(text: str, start: int, end: int) -> str:
    """text[start:end] with fenced code blocks and inline code spans blanked out (offsets kept)."""
    chunk = text[start:end]
    out: list[str] = []
    fence: str | None = None
    for line in chunk.splitlines(keepends=True):
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append(re.sub(r"[^\n]", " ", line))
            continue
        if m:
            fence = m.group(1)
            out.append(re.sub(r"[^\n]", " ", line))
            continue
        out.append(line)
    masked = "".join(out)
    if "`" in masked:
        masked = INLINE_CODE_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), masked)
    return masked


def _fm_values(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for v in value:
            out.extend(_fm_values(v))
        return out
    if isinstance(value, dict):
        for key in ("path", "id", "target", "href", "url", "link"):
            if key in value:
                return _fm_values(value[key])
        return []
    return [str(value)]


def _fm_lines(text: str, body_start: int) -> list[str]:
    return text[:body_start].split("\n")


def _fm_line_of(fm_lines: list[str], key_raw: str, value: str) -> int | None:
    """1-based line of ``value`` under front matter key ``key_raw`` (the key's line if not found)."""
    key_re = re.compile(rf"^{re.escape(str(key_raw))}\s*:")
    for i, line in enumerate(fm_lines):
        if key_re.match(line):
            if value in line[line.index(":") + 1 :]:
                return i + 1
            for j in range(i + 1, len(fm_lines)):
                nxt = fm_lines[j]
                if nxt and not nxt[0].isspace() and not nxt.startswith("-"):
                    break
                if value in nxt:
                    return j + 1
            return i + 1
    return None


def extract_refs(doc: Document, spans: Sequence[Span]) -> list[RawRef]:
    """Every outgoing reference of one document version, unresolved, with its line.

    Front matter: ``links``, ``related``, ``depends_on``, ``supersedes``, ``superseded_by``,
    ``parent`` (ids or paths relative to the document). Body: ``[text](target)`` links and
    reference definitions (``[x]: target``) outside code, images (checked for existence
    only), ``[[wiki]]`` links, and id-shaped tokens (``ADR-0007``, ``DES-ING-WORKER``) for
    MENTIONS — id tokens are kept even inside code, since ``ADR-0007`` in backticks is still
    a mention.
    """
    refs: list[RawRef] = []
    text = doc.text
    fm_lines = _fm_lines(text, doc.body_start)
    for raw_key, value in (doc.meta or {}).items():
        key = _norm_key(raw_key)
        if key not in FRONT_MATTER_TYPES:
            continue
        for v in _fm_values(value):
            target, _, anchor = v.partition("#")
            refs.append(RawRef(doc.path, None, _fm_line_of(fm_lines, raw_key, v), f"fm:{key}", target.strip() or v, anchor or None))

    starts = _line_starts(text)
    span_starts = [s.ref.char_start for s in spans]

    def locate(offset: int) -> tuple[int, str | None]:
        line = bisect.bisect_right(starts, offset)
        i = bisect.bisect_right(span_starts, offset) - 1
        if i < 0:
            sid = spans[0].ref.span_id if spans else None
        else:
            sid = spans[i].ref.span_id
        return line, sid

    body_start = doc.body_start
    masked = _mask_code(text, body_start, len(text))
    for m in MD_LINK_RE.finditer(masked):
        target = m.group(3).strip()
        if not target:
            continue
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = target.partition("#")
        refs.append(RawRef(doc.path, sid, line, "img" if m.group(1) else "md", path_part, anchor or None))
    for m in REF_DEF_RE.finditer(masked):
        target = m.group(2).strip()
        if target.startswith("^"):  # footnote definitions
            continue
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = target.partition("#")
        refs.append(RawRef(doc.path, sid, line, "md", path_part, anchor or None))
    for m in WIKI_RE.finditer(masked):
        target = (m.group(1) or "").strip()
        anchor = (m.group(2) or "").strip() or None
        if not target and not anchor:
            continue
        line, sid = locate(body_start + m.start())
        refs.append(RawRef(doc.path, sid, line, "wiki", target, anchor))
    seen: set[tuple[str | None, str]] = set()
    body = text[body_start:]
    for m in ID_TOKEN_RE.finditer(body):
        token = m.group(1)
        if not any(c.isdigit() for c in token) and token.upper() != token:
            continue  # "Foo-bar" prose, not an id
        line, sid = locate(body_start + m.start())
        if (sid, token) in seen:
            continue
        seen.add((sid, token))
        refs.append(RawRef(doc.path, sid, line, "id", token, None))
    return refs


# --------------------------------------------------------------------------- resolver


@dataclass
class LinkResolver:
    """Where a reference points, given the set of indexed documents.

    Build it with :meth:`from_documents` (parsed Documents + Spans) or
    :meth:`from_registry` (the registry connection: no document text needed).
    ``root`` (optional) lets links to files that exist on disk but are not indexed
    (images, code, a README outside the stage folders) count as not dangling.
    """

    docs: dict[str, DocInfo] = field(default_factory=dict)
    spans_by_path: dict[str, list[SpanInfo]] = field(default_factory=dict)
    root: Path | None = None

    def __post_init__(self) -> None:
        self.paths = set(self.docs)
        self.lower_paths = {p.lower(): p for p in sorted(self.docs)}
        self.ids: dict[str, str] = {}
        self.stems: dict[str, list[str]] = {}
        self.titles: dict[str, str] = {}
        for path in sorted(self.docs):
            d = self.docs[path]
            stem = posixpath.splitext(posixpath.basename(path))[0]
            self.stems.setdefault(stem.lower(), []).append(path)
            if d.doc_id:
                self.ids.setdefault(str(d.doc_id).lower(), path)
            self.titles.setdefault(d.title.strip().lower(), path)
        # ADR-0007 also names the document ADR-0007-foo.md / titled "ADR-0007: ..." without an `id`
        for path in sorted(self.docs):
            d = self.docs[path]
            for source in (posixpath.basename(path), d.title):
                m = ADR_RE.match(source.strip())
                if m:
                    self.ids.setdefault(m.group(1).lower(), path)
        self.slugs: dict[str, dict[str, str]] = {}
        self.first_span: dict[str, str] = {}
        for path, spans in self.spans_by_path.items():
            spans.sort(key=lambda s: s.ordinal)
            if spans:
                self.first_span[path] = spans[0].span_id
            table: dict[str, str] = {}
            seen_heads: set[tuple[str, ...]] = set()
            counts: Counter[str] = Counter()
            for s in spans:
                for depth in range(1, len(s.heading_path) + 1):
                    prefix = s.heading_path[:depth]
                    if prefix in seen_heads:
                        continue
                    seen_heads.add(prefix)
                    slug = slugify(prefix[-1])
                    n = counts[slug]
                    counts[slug] += 1
                    table.setdefault(slug if n == 0 else f"{slug}-{n}", s.span_id)
            self.slugs[path] = table

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_documents(cls, docs: Iterable[Document], spans: dict[str, Sequence[Span]] | None = None, root: Path | None = None) -> "LinkResolver":
        infos = {}
        for d in docs:
            doc_id = d.meta.get("id") if isinstance(d.meta, dict) else None
            infos[d.path] = DocInfo(d.path, d.title, str(doc_id) if doc_id is not None else None, d.workstream, tuple(d.tags))
        by_path = {p: [SpanInfo.from_span(s) for s in ss] for p, ss in (spans or {}).items()}
        return cls(infos, by_path, root)

    @classmethod
    def from_registry(cls, conn: sqlite3.Connection, root: Path | None = None, *, with_text: bool = False) -> "LinkResolver":
        docs = {
            r[0]: DocInfo(r[0], r[1], r[2], r[3], tuple(json.loads(r[4] or "[]")))
            for r in conn.execute("SELECT path, title, doc_key, workstream, tags FROM documents")
        }
        cols = "id, span_id, path, ordinal, heading_path, heading_level" + (", text" if with_text else "")
        by_path: dict[str, list[SpanInfo]] = {}
        for r in conn.execute(f"SELECT {cols} FROM spans ORDER BY path, ordinal"):
            by_path.setdefault(r[2], []).append(
                SpanInfo(r[2], r[1], r[3], tuple(json.loads(r[4])), r[5], r[6] if with_text else "", r[0])
            )
        return cls(docs, by_path, root)

    # ---------------------------------------------------------------- lookups
    def anchor(self, path: str, anchor: str) -> str | None:
        """span_id of the section ``#anchor`` in ``path`` (slug match), or None."""
        table = self.slugs.get(path, {})
        return table.get(anchor.lower()) or table.get(slugify(unquote(anchor)))

    def resolve_id(self, token: str) -> str | None:
        """Path of the document named by an id, trying shorter prefixes
        (``ADR-0001-use-sqs`` -> ``ADR-0001``)."""
        parts = token.split("-")
        for n in range(len(parts), 1, -1):
            hit = self.ids.get("-".join(parts[:n]).lower())
            if hit:
                return hit
        return self.ids.get(token.lower())

    def _exists_on_disk(self, rel: str) -> bool:
        return self.root is not None and (self.root / rel).exists()

    def resolve_path(self, src_path: str, target: str) -> tuple[str | None, str]:
        """Resolve a link path written in ``src_path``. Returns (indexed path | None, status)
        with status "ok" | "external" | "not-indexed" (exists on disk) | "missing" | "outside-root"."""
        target = unquote(target.split("?", 1)[0]).strip()
        if not target:
            return src_path, "ok"
        if SCHEME_RE.match(target) or target.startswith("//"):
            return None, "external"
        if target.startswith("/"):
            rel = posixpath.normpath(target.lstrip("/"))
        else:
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(src_path), target))
        if rel == ".." or rel.startswith("../"):
            return None, "outside-root"
        for cand in (rel, rel + ".md", posixpath.join(rel, "README.md"), posixpath.join(rel, "index.md")):
            if cand in self.paths:
                return cand, "ok"
        low = self.lower_paths.get(rel.lower())
        if low:
            return low, "ok"
        if self._exists_on_disk(rel):
            return None, "not-indexed"
        return None, "missing"

    def resolve_name(self, src_path: str, name: str) -> str | None:
        """A wiki target or a front matter value: id, path (relative to the document, then
        to the root), file stem, title — in that order. Ambiguous stems prefer the
        document's own folder, then the longest shared folder prefix, then the shortest path."""
        name = name.strip()
        if not name:
            return None
        hit = self.ids.get(name.lower())
        if hit:
            return hit
        if "/" in name or name.lower().endswith(MD_SUFFIXES):
            for base in (name, "/" + name.lstrip("/")):
                path, status = self.resolve_path(src_path, base)
                if status == "ok" and path is not None:
                    return path
        stem = posixpath.splitext(posixpath.basename(name))[0].lower() if name.lower().endswith(MD_SUFFIXES) else posixpath.basename(name).lower()
        cands = self.stems.get(stem)
        if cands:
            if len(cands) == 1:
                return cands[0]
            src_dir = posixpath.dirname(src_path)

            def rank(p: str) -> tuple[int, int, int, str]:
                d = posixpath.dirname(p)
                common = len(posixpath.commonpath([d, src_dir]).split("/")) if d and src_dir else 0
                return (0 if d == src_dir else 1, -common, len(p), p)

            return sorted(cands, key=rank)[0]
        hit = self.titles.get(name.lower())
        if hit:
            return hit
        return self.resolve_id(name) if ADR_RE.match(name) else None


# --------------------------------------------------------------------------- phase 2: resolution


def resolve_refs(refs: Iterable[RawRef], resolver: LinkResolver) -> tuple[list[Edge], list[DanglingLink]]:
    """Raw references -> typed edges and dangling links (see module doc for the types)."""
    edges: list[Edge] = []
    dangling: list[DanglingLink] = []
    for r in refs:
        written = r.target + (f"#{r.anchor}" if r.anchor else "")
        if r.kind.startswith("fm:"):
            key = r.kind[3:]
            etype = FRONT_MATTER_TYPES[key]
            dst = resolver.resolve_name(r.path, r.target) if r.target else r.path
            if dst is None:
                dangling.append(DanglingLink(r.path, r.line, written, f"front-matter:{key}"))
                continue
            if dst == r.path and not r.anchor:
                continue
            dst_span = resolver.anchor(dst, r.anchor) if r.anchor else None
            edges.append(Edge(r.path, None, dst, dst_span, etype, written, r.line))
        elif r.kind in ("md", "img"):
            dst, status = resolver.resolve_path(r.path, r.target)
            if status in ("external", "not-indexed"):
                continue
            if dst is None:
                dangling.append(DanglingLink(r.path, r.line, written, "image" if r.kind == "img" else ("outside-root" if status == "outside-root" else "link")))
                continue
            if r.kind == "img":
                continue
            _link_edge(edges, dangling, resolver, r, dst, written)
        elif r.kind == "wiki":
            dst = resolver.resolve_name(r.path, r.target) if r.target else r.path
            if dst is None:
                dangling.append(DanglingLink(r.path, r.line, f"[[{written}]]", "wiki"))
                continue
            _link_edge(edges, dangling, resolver, r, dst, f"[[{written}]]")
        elif r.kind == "id":
            dst = resolver.resolve_id(r.target)
            if dst is None or dst == r.path:
                continue
            edges.append(Edge(r.path, r.span_id, dst, None, "MENTIONS", r.target, r.line))
    return _dedupe(edges), dangling


def _link_edge(edges: list[Edge], dangling: list[DanglingLink], resolver: LinkResolver, r: RawRef, dst: str, written: str) -> None:
    dst_span = None
    if r.anchor:
        dst_span = resolver.anchor(dst, r.anchor)
        if dst_span is None:
            dangling.append(DanglingLink(r.path, r.line, written, "anchor"))
    if dst == r.path and dst_span is None:
        return
    etype = "CITES" if dst.startswith(ARTIFACTS_DIR) else "REF"
    edges.append(Edge(r.path, r.span_id, dst, dst_span, etype, written, r.line))


def _dedupe(edges: Iterable[Edge]) -> list[Edge]:
    seen: set[tuple] = set()
    out = []
    for e in edges:
        key = (e.src_path, e.src_span, e.dst_path, e.dst_span, e.type)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def section_parents(spans: Sequence[SpanInfo]) -> dict[int, tuple[int, str]]:
    """For spans of ONE document (any order): index -> (index of its parent span, relation).

    The parent of a span that continues a section (an earlier span has the same heading
    path) is the head span of that section ("section head"); otherwise it is the first span
    of the nearest enclosing section that starts before it ("parent section"). The first
    span of a document has no parent.
    """
    order = sorted(range(len(spans)), key=lambda i: spans[i].ordinal)
    first_with_prefix: dict[tuple[str, ...], int] = {}
    out: dict[int, tuple[int, str]] = {}
    for i in order:
        hp = spans[i].heading_path
        if hp in first_with_prefix and first_with_prefix[hp] != i and hp:
            out[i] = (first_with_prefix[hp], "section head")
        else:
            for k in range(len(hp) - 1, -1, -1):
                j = first_with_prefix.get(hp[:k])
                if j is not None and j != i:
                    out[i] = (j, "parent section")
                    break
        for depth in range(0, len(hp) + 1):
            first_with_prefix.setdefault(hp[:depth], i)
    return out


def structural_edges(spans: Sequence[SpanInfo], doc: DocInfo | None = None) -> list[Edge]:
    """NEXT/PREV, PARENT_SECTION/CHILD_SECTION for the spans of one document, and
    IN_WORKSTREAM for the document itself."""
    out: list[Edge] = []
    ordered = sorted(spans, key=lambda s: s.ordinal)
    for a, b in zip(ordered, ordered[1:]):
        out.append(Edge(a.path, a.span_id, b.path, b.span_id, "NEXT"))
        out.append(Edge(b.path, b.span_id, a.path, a.span_id, "PREV"))
    for i, (j, rel) in sorted(section_parents(ordered).items()):
        child, parent = ordered[i], ordered[j]
        out.append(Edge(child.path, child.span_id, parent.path, parent.span_id, "PARENT_SECTION", rel))
        out.append(Edge(parent.path, parent.span_id, child.path, child.span_id, "CHILD_SECTION", rel))
    if doc is not None and doc.workstream:
        out.append(Edge(doc.path, None, WS_PREFIX + doc.workstream, None, "IN_WORKSTREAM", doc.workstream))
    return out


# --------------------------------------------------------------------------- DEFINES (entities)


@dataclass(frozen=True)
class Term:
    text: str  # as defined (display)
    words: tuple[str, ...]  # lower-case word tuple that must occur contiguously
    path: str  # defining document
    span_id: str  # defining span
    source: str  # "glossary" | "id" | "title"


def _is_glossary(doc: DocInfo) -> bool:
    stem = posixpath.basename(doc.path).lower()
    return "glossary" in stem or "glossary" in doc.title.lower() or "glossary" in doc.tags or "terminology" in doc.tags


def _term_words(text: str) -> tuple[str, ...]:
    return tuple(WORD_RE.findall(text.lower()))


def collect_terms(resolver: LinkResolver) -> list[Term]:
    """The entities the project defines: ``###`` headings of glossary documents (with an
    acronym in parentheses as an alias: "Dead Letter Queue (DLQ)"), front matter ids and
    short titles. One definer per term: glossary > id > title; documents in path order."""
    found: dict[tuple[str, ...], Term] = {}
    priority = {"glossary": 0, "id": 1, "title": 2}

    def add(text: str, path: str, span_id: str | None, source: str) -> None:
        if span_id is None:
            return
        words = _term_words(text)
        if not words or len(words) > TERM_MAX_WORDS:
            return
        if source != "id" and (len(" ".join(words)) < TERM_MIN_CHARS or all(w in _TERM_STOP for w in words)):
            return
        old = found.get(words)
        if old is None or priority[source] < priority[old.source]:
            found[words] = Term(text.strip(), words, path, span_id, source)

    for path in sorted(resolver.docs):
        doc = resolver.docs[path]
        spans = resolver.spans_by_path.get(path, [])
        first = resolver.first_span.get(path)
        if _is_glossary(doc):
            levels = [len(s.heading_path) for s in spans]
            level = 3 if 3 in levels else (max(levels) if levels else 0)
            for s in spans:
                if len(s.heading_path) == level and level >= 2:
                    head = s.heading_path[-1]
                    main = re.sub(r"\s*\([^)]*\)\s*", " ", head).strip()
                    add(main, path, s.span_id, "glossary")
                    for alias in re.findall(r"\(([^)]+)\)", head):
                        add(alias, path, s.span_id, "glossary")
        if doc.doc_id:
            add(str(doc.doc_id), path, first, "id")
        title = re.sub(r"^\s*ADR-[\w-]+\s*:\s*", "", doc.title)
        add(title, path, first, "title")
    return [found[k] for k in sorted(found, key=lambda w: (found[w].path, " ".join(w)))]


def defines_edges(
    terms: Sequence[Term],
    spans: Iterable[SpanInfo],
    *,
    n_spans: int | None = None,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
) -> list[Edge]:
    """DEFINES edges: defining span -> spans (of other documents) that use the term,
    matched case-insensitively on word boundaries. At most ``max_per_term`` per term (most
    occurrences first, then path, ordinal); a term used by more than
    ``max(max_df * n_spans, 2 * max_per_term)`` spans is too generic and gets none."""
    singles: dict[str, list[int]] = {}  # word -> single-word terms
    multis: dict[tuple[str, str], list[int]] = {}  # first bigram -> multi-word terms
    for t_i, t in enumerate(terms):
        if len(t.words) == 1:
            singles.setdefault(t.words[0], []).append(t_i)
        else:
            multis.setdefault((t.words[0], t.words[1]), []).append(t_i)
    multi_first = {k[0] for k in multis}
    hits: dict[int, list[tuple[int, str, int, str]]] = {}
    count = 0
    for s in spans:
        count += 1
        words = WORD_RE.findall(s.text.lower())
        if not words:
            continue
        vocab = set(words)
        found: list[tuple[int, int]] = []  # (term, occurrences)
        single_hits = singles.keys() & vocab
        if single_hits:
            counts = Counter(words)
            found.extend((t_i, counts[w]) for w in single_hits for t_i in singles[w])
        if not multi_first.isdisjoint(vocab):
            bigrams = multis.keys() & set(zip(words, words[1:]))
            if bigrams:
                joined = " " + " ".join(words) + " "
                for bg in bigrams:
                    for t_i in multis[bg]:
                        n = joined.count(" " + " ".join(terms[t_i].words) + " ")
                        if n:
                            found.append((t_i, n))
        for t_i, n in found:
            if terms[t_i].path != s.path:
                hits.setdefault(t_i, []).append((n, s.path, s.ordinal, s.span_id))
    n_spans = n_spans if n_spans is not None else count
    limit = max(max_df * n_spans, 2 * max_per_term)
    out: list[Edge] = []
    for t_i in sorted(hits):
        t = terms[t_i]
        users = hits[t_i]
        if len(users) > limit:
            continue
        users.sort(key=lambda u: (-u[0], u[1], u[2]))
        for _n, path, _o, span_id in users[:max_per_term]:
            out.append(Edge(t.path, t.span_id, path, span_id, "DEFINES", t.text))
    return out


def extract_edges(doc: Document, spans: list[Span], resolver: LinkResolver) -> tuple[list[Edge], list[DanglingLink]]:
    """All edges leaving one document (pure; the resolver knows the other documents):
    front matter, body links, mentions, structure, workstream, and DEFINES edges from the
    resolver's terms into this document's spans (uncapped — the global cap is applied by
    :func:`rebuild_edges`)."""
    edges, dangling = resolve_refs(extract_refs(doc, spans), resolver)
    infos = [SpanInfo.from_span(s) for s in spans]
    doc_id = doc.meta.get("id") if isinstance(doc.meta, dict) else None
    edges += structural_edges(infos, DocInfo(doc.path, doc.title, str(doc_id) if doc_id else None, doc.workstream, tuple(doc.tags)))
    terms = collect_terms(resolver)
    edges += defines_edges(terms, infos, n_spans=1, max_per_term=len(infos) or 1, max_df=float("inf"))
    return edges, dangling


# --------------------------------------------------------------------------- SQLite

DDL = """
CREATE TABLE IF NOT EXISTS link_refs(
    path TEXT NOT NULL,
    span_id TEXT,
    line INTEGER,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    anchor TEXT
);
CREATE INDEX IF NOT EXISTS link_refs_path ON link_refs(path);
CREATE TABLE IF NOT EXISTS link_docs(path TEXT PRIMARY KEY, doc_version_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS edges(
    src_path TEXT NOT NULL,
    src_span TEXT,
    dst_path TEXT NOT NULL,
    dst_span TEXT,
    type TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    line INTEGER
);
CREATE INDEX IF NOT EXISTS edges_src_span ON edges(src_span);
CREATE INDEX IF NOT EXISTS edges_dst_span ON edges(dst_span);
CREATE INDEX IF NOT EXISTS edges_src_path ON edges(src_path, type);
CREATE INDEX IF NOT EXISTS edges_dst_path ON edges(dst_path, type);
CREATE TABLE IF NOT EXISTS dangling_links(
    path TEXT NOT NULL,
    line INTEGER,
    target TEXT NOT NULL,
    kind TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS dangling_path ON dangling_links(path, line);
"""
_EDGE_INDEXES = ("edges_src_span", "edges_dst_span", "edges_src_path", "edges_dst_path")
# lookups from edges back to registry rows (the registry's own schema has neither)
SPAN_INDEXES = """
CREATE INDEX IF NOT EXISTS spans_span_id ON spans(span_id);
CREATE INDEX IF NOT EXISTS spans_path ON spans(path, ordinal);
"""


def _run(conn: sqlite3.Connection, script: str) -> None:
    """Execute DDL statement by statement (``executescript`` would COMMIT the caller's transaction)."""
    for stmt in script.split(";"):
        if stmt.strip():
            conn.execute(stmt)


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the graph tables (idempotent). Also indexes ``spans(span_id)`` and
    ``spans(path, ordinal)`` when the registry's ``spans`` table exists."""
    _run(conn, DDL)
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='spans'").fetchone():
        _run(conn, SPAN_INDEXES)


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='edges'").fetchone() is not None


def delete_refs(conn: sqlite3.Connection, path: str) -> None:
    conn.execute("DELETE FROM link_refs WHERE path = ?", (path,))
    conn.execute("DELETE FROM link_docs WHERE path = ?", (path,))


def write_refs(conn: sqlite3.Connection, doc: Document, refs: Iterable[RawRef]) -> None:
    """Replace the stored references of ``doc.path`` with ``refs`` (phase 1 result)."""
    delete_refs(conn, doc.path)
    conn.executemany(
        "INSERT INTO link_refs(path, span_id, line, kind, target, anchor) VALUES(?,?,?,?,?,?)",
        [(r.path, r.span_id, r.line, r.kind, r.target, r.anchor) for r in refs],
    )
    conn.execute("INSERT OR REPLACE INTO link_docs(path, doc_version_id) VALUES(?,?)", (doc.path, doc.doc_version_id))


def store_document(conn: sqlite3.Connection, doc: Document, spans: Sequence[Span]) -> int:
    """Phase 1 for one changed/added document: extract and store its references.
    Returns the number of references stored."""
    refs = extract_refs(doc, spans)
    write_refs(conn, doc, refs)
    return len(refs)


def read_refs(conn: sqlite3.Connection) -> list[RawRef]:
    return [RawRef(*r) for r in conn.execute("SELECT path, span_id, line, kind, target, anchor FROM link_refs ORDER BY path, line, rowid")]


def write_edges(conn: sqlite3.Connection, edges: Iterable[Edge], *, replace: bool = True) -> int:
    """Write edges (``replace``: clear the table first and bulk-load it, rebuilding the
    indexes once at the end). Returns the number written."""
    rows = [(e.src_path, e.src_span, e.dst_path, e.dst_span, e.type, e.detail, e.line) for e in edges]
    if replace:
        for name in _EDGE_INDEXES:
            conn.execute(f"DROP INDEX IF EXISTS {name}")
        conn.execute("DELETE FROM edges")
    conn.executemany("INSERT INTO edges(src_path, src_span, dst_path, dst_span, type, detail, line) VALUES(?,?,?,?,?,?,?)", rows)
    if replace:
        _run(conn, DDL)  # recreates the dropped indexes
    return len(rows)


def write_dangling(conn: sqlite3.Connection, items: Iterable[DanglingLink], *, replace: bool = True) -> None:
    if replace:
        conn.execute("DELETE FROM dangling_links")
    conn.executemany(
        "INSERT INTO dangling_links(path, line, target, kind) VALUES(?,?,?,?)",
        [(d.path, d.line, d.target, d.kind) for d in items],
    )


def _edge(row: Sequence[Any]) -> Edge:
    return Edge(row[0], row[1], row[2], row[3], row[4], row[5] or "", row[6])


_EDGE_COLS = "src_path, src_span, dst_path, dst_span, type, detail, line"


def edges_for(
    conn: sqlite3.Connection, path_or_span_id: str, direction: str = "both", types: Iterable[str] | None = None
) -> dict[str, list[Edge]]:
    """Edges of a document (a path: its document-level edges and those of all its spans)
    or of one span (a span id). ``direction``: "out" | "in" | "both". Returns
    ``{"out": [...], "in": [...]}`` (only the requested keys), each sorted by type, then
    the other end, then line."""
    if direction not in ("out", "in", "both"):
        raise ValueError(f"direction must be 'out', 'in' or 'both', got {direction!r}")
    key = path_or_span_id
    is_path = conn.execute("SELECT 1 FROM edges WHERE src_path = ? OR dst_path = ? LIMIT 1", (key, key)).fetchone() is not None
    if not is_path and ("/" in key or key.endswith(MD_SUFFIXES) or key.startswith(WS_PREFIX)):
        is_path = True
    type_list = sorted(set(types)) if types else None
    tfilter = f" AND type IN ({','.join('?' * len(type_list))})" if type_list else ""
    targs = tuple(type_list or ())
    out: dict[str, list[Edge]] = {}
    col = "path" if is_path else "span"
    if direction in ("out", "both"):
        rows = conn.execute(f"SELECT {_EDGE_COLS} FROM edges WHERE src_{col} = ?{tfilter}", (key, *targs)).fetchall()
        out["out"] = sorted((_edge(r) for r in rows), key=lambda e: (e.type, e.dst_path, e.dst_span or "", e.line or 0, e.src_span or ""))
    if direction in ("in", "both"):
        rows = conn.execute(f"SELECT {_EDGE_COLS} FROM edges WHERE dst_{col} = ?{tfilter}", (key, *targs)).fetchall()
        out["in"] = sorted((_edge(r) for r in rows), key=lambda e: (e.type, e.src_path, e.src_span or "", e.line or 0, e.dst_span or ""))
    return out


def links_report(conn: sqlite3.Connection, path_or_span_id: str, *, include_structural: bool = False) -> dict[str, Any]:
    """JSON-ready summary for ``orion links PATH|SPAN_ID``: edges out and in, grouped by type."""
    found = edges_for(conn, path_or_span_id)
    report: dict[str, Any] = {"schema_version": 1, "kind": "links", "target": path_or_span_id}
    for direction in ("out", "in"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for e in found[direction]:
            if not include_structural and e.type in STRUCTURAL_TYPES:
                continue
            groups.setdefault(e.type, []).append(e.to_dict())
        report[direction] = dict(sorted(groups.items()))
    report["dangling"] = [d.to_dict() for d in dangling(conn) if d.path == path_or_span_id]
    return report


def dangling(conn: sqlite3.Connection) -> list[DanglingLink]:
    """Every dangling link, by path then line."""
    return [
        DanglingLink(r[0], r[1], r[2], r[3])
        for r in conn.execute("SELECT path, line, target, kind FROM dangling_links ORDER BY path, coalesce(line, 0), target")
    ]


def edge_counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {r[0]: r[1] for r in conn.execute("SELECT type, count(*) FROM edges GROUP BY type ORDER BY type")}


@dataclass
class GraphBuildResult:
    edges: int
    by_type: dict[str, int]
    dangling: list[DanglingLink]
    stale_documents: list[str]  # documents whose refs were never extracted for this version
    elapsed_ms: float
    timings_ms: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": self.edges, "by_type": self.by_type, "dangling": [d.to_dict() for d in self.dangling],
            "stale_documents": self.stale_documents, "elapsed_ms": round(self.elapsed_ms, 1),
        }


def rebuild_edges(
    conn: sqlite3.Connection,
    root: Path | None = None,
    *,
    defines: bool = True,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
) -> GraphBuildResult:
    """Phase 2: resolve every stored reference against the current documents, derive the
    structural and DEFINES edges, and rewrite ``edges`` and ``dangling_links``.

    Call after the registry holds every current document and span and ``link_refs`` is up to
    date for the changed ones (:func:`store_document`). References of documents that no
    longer exist are dropped. Does not commit.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    create_tables(conn)
    conn.execute("DELETE FROM link_refs WHERE path NOT IN (SELECT path FROM documents)")
    conn.execute("DELETE FROM link_docs WHERE path NOT IN (SELECT path FROM documents)")
    stale = [
        r[0]
        for r in conn.execute(
            "SELECT d.path FROM documents d LEFT JOIN link_docs l ON l.path = d.path "
            "WHERE l.doc_version_id IS NULL OR l.doc_version_id != d.doc_version_id ORDER BY d.path"
        )
    ]
    t = time.perf_counter()
    resolver = LinkResolver.from_registry(conn, root, with_text=defines)
    timings["load"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    edges, dangling_list = resolve_refs(read_refs(conn), resolver)
    timings["resolve"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    for path in sorted(resolver.docs):
        edges.extend(structural_edges(resolver.spans_by_path.get(path, []), resolver.docs[path]))
    timings["structure"] = (time.perf_counter() - t) * 1000
    if defines:
        t = time.perf_counter()
        n_spans = sum(len(v) for v in resolver.spans_by_path.values())
        all_spans = (s for p in sorted(resolver.spans_by_path) for s in resolver.spans_by_path[p])
        edges.extend(defines_edges(collect_terms(resolver), all_spans, n_spans=n_spans, max_per_term=max_per_term, max_df=max_df))
        timings["defines"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    n = write_edges(conn, edges)
    write_dangling(conn, dangling_list)
    timings["write"] = (time.perf_counter() - t) * 1000
    counts = Counter(e.type for e in edges)
    return GraphBuildResult(
        edges=n,
        by_type=dict(sorted(counts.items())),
        dangling=sorted(dangling_list, key=lambda d: (d.path, d.line or 0, d.target)),
        stale_documents=stale,
        elapsed_ms=(time.perf_counter() - t0) * 1000,
        timings_ms={k: round(v, 1) for k, v in timings.items()},
    )


__all__ = [
    "EDGE_TYPES", "Edge", "DanglingLink", "RawRef", "SpanInfo", "DocInfo", "LinkResolver", "Term",
    "slugify", "extract_refs", "resolve_refs", "section_parents", "structural_edges", "collect_terms",
    "defines_edges", "extract_edges", "create_tables", "has_tables", "delete_refs", "write_refs", "store_document",
    "read_refs", "write_edges", "write_dangling", "edges_for", "links_report", "dangling", "edge_counts",
    "GraphBuildResult", "rebuild_edges",
]
