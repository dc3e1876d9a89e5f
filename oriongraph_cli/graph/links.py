"""The graph index: typed edges between documents and spans (issue 4, seed 003).

Two phases keep ``orion index`` incremental:

1. **Per document** (:func:`store_document`, for each *changed* document; needs its text):
   front matter link lists, Markdown / wiki links and id-shaped tokens are stored
   unresolved, with their line numbers, in ``link_refs``; the document's *local* edges
   (NEXT/PREV, PARENT_SECTION/CHILD_SECTION, IN_WORKSTREAM — they depend on nothing else)
   are written to ``edges``. Rows of unchanged documents are carried over with the registry
   copy, exactly like their spans.
2. **Global** (:func:`rebuild_edges`, once per index run that changed anything): a
   :class:`LinkResolver` is built from the registry (paths, ids, file stems, titles,
   heading slugs), every stored reference is resolved, DEFINES edges are recomputed from
   the span texts, and the *global* edges and ``dangling_links`` are rewritten. No document
   text is needed, so a link from an unchanged document to a new or changed one, a mention
   of a new id, or a newly dangling link are all picked up without re-reading files.

Nodes are ``(path, span_id)``; ``span_id`` is ``None`` for a whole document (front matter
edges, links without an anchor). Workstreams are the nodes ``("ws:<name>", None)``.

Edge types (``Edge.type``)::

    LINKS RELATED DEPENDS_ON SUPERSEDES SUPERSEDED_BY PARENT   front matter (doc -> doc[#anchor])
    REF        body Markdown/wiki link (span -> doc, or span -> span for an #anchor)
    CITES      a body link whose target lives in 04_artifacts/ (instead of REF)
    MENTIONS   ADR-0007 / ADR-20251113-foo / a document `id` named in the text (span -> doc)
    NEXT PREV  consecutive spans of one document                      (local)
    PARENT_SECTION CHILD_SECTION  span <-> head span of its section    (local)
    IN_WORKSTREAM  doc -> ws:<name>                                    (local)
    DEFINES    defining span of a term (glossary ### heading, front matter id, short title)
               -> spans of other documents using it (bounded, see defines_edges)
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence
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
_FM_ALIASES = {"dependson": "depends_on", "supersededby": "superseded_by", "link": "links"}

EDGE_TYPES = (
    "LINKS", "RELATED", "DEPENDS_ON", "SUPERSEDES", "SUPERSEDED_BY", "PARENT",
    "REF", "CITES", "MENTIONS", "NEXT", "PREV", "PARENT_SECTION", "CHILD_SECTION",
    "IN_WORKSTREAM", "DEFINES",
)
STRUCTURAL_TYPES = frozenset({"NEXT", "PREV", "PARENT_SECTION", "CHILD_SECTION"})
LOCAL_TYPES = STRUCTURAL_TYPES | {"IN_WORKSTREAM"}  # depend on one document only (phase 1)
GLOBAL_TYPES = tuple(t for t in EDGE_TYPES if t not in LOCAL_TYPES)
ARTIFACTS_DIR = "04_artifacts/"
WS_PREFIX = "ws:"

DEFINES_MAX_PER_TERM = 20  # at most this many DEFINES edges per term
DEFINES_MAX_DF = 0.05  # a term used by more than max(this share of spans, 2*N) spans is too generic
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
MD_SUFFIXES = (".md", ".markdown")
_TERM_STOP = frozenset(
    "a an and the of for to in on with by or at from is are be as it this that overview notes note design index "
    "readme introduction summary context decision decisions consequences rationale background status".split()
)
# word splitting for term matching: ASCII punctuation and common Unicode punctuation -> space
_PUNCT = "".join(chr(c) for c in range(128) if not chr(c).isalnum()) + "\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u00a0\u00b7\u2022\u2192"
_SPLIT_TABLE = str.maketrans(_PUNCT, " " * len(_PUNCT))


def words_of(text: str) -> list[str]:
    """Lower-case words (letters/digits), split on punctuation: "ADR-0007's" -> adr 0007 s."""
    return text.lower().translate(_SPLIT_TABLE).split()


def slugify(heading: str) -> str:
    """GitHub-style heading anchor: lower case, punctuation dropped, spaces -> '-'."""
    text = unicodedata.normalize("NFKC", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def _norm_key(key: Any) -> str:
    k = str(key).strip().lower().replace("-", "_")
    return _FM_ALIASES.get(k.replace("_", ""), k)


# --------------------------------------------------------------------------- records


class Edge(NamedTuple):
    src_path: str
    src_span: str | None  # None: the whole document
    dst_path: str  # a document path, or "ws:<name>"
    dst_span: str | None
    type: str
    detail: str = ""  # the target / term / id as written
    line: int | None = None  # 1-based line in src_path where the reference is written

    def to_dict(self) -> dict[str, Any]:
        return dict(self._asdict())


class RawRef(NamedTuple):
    """An unresolved reference found in one document version (phase 1)."""

    path: str
    span_id: str | None  # span holding the reference; None for front matter
    line: int | None
    kind: str  # fm:<key> | md | img | wiki | id
    target: str  # as written (path, id, wiki target, token), without '#anchor'
    anchor: str | None = None


class SpanInfo(NamedTuple):
    """What resolution and structure need of a span (from a Span or a registry row)."""

    path: str
    span_id: str
    ordinal: int
    heading_path: tuple[str, ...] = ()
    heading_level: int = 0
    text: str = ""
    row: int | None = None

    @classmethod
    def from_span(cls, s: Span, row: int | None = None) -> "SpanInfo":
        return cls(s.path, s.ref.span_id, s.ordinal, tuple(s.heading_path), s.heading_level, s.text, row)


@dataclass(frozen=True)
class DanglingLink:
    path: str
    line: int | None
    target: str
    kind: str  # "link" | "image" | "wiki" | "anchor" | "outside-root" | "front-matter:<key>"

    def __str__(self) -> str:
        loc = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{loc} → {self.target}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "target": self.target, "kind": self.kind}


@dataclass(frozen=True)
class DocInfo:
    path: str
    title: str
    doc_id: str | None
    workstream: str | None
    tags: tuple[str, ...] = ()

    @classmethod
    def from_document(cls, d: Document) -> "DocInfo":
        doc_id = d.meta.get("id") if isinstance(d.meta, dict) else None
        return cls(d.path, d.title, str(doc_id) if doc_id is not None else None, d.workstream, tuple(d.tags))


# --------------------------------------------------------------------------- phase 1: extraction


def _line_starts(text: str) -> list[int]:
    starts = [0]
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def _mask_code(text: str) -> str:
    """``text`` with fenced code blocks and inline code spans blanked out (offsets kept)."""
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append(_blank(line))
        elif m:
            fence = m.group(1)
            out.append(_blank(line))
        else:
            out.append(line)
    masked = "".join(out)
    if "`" in masked:
        masked = INLINE_CODE_RE.sub(lambda m: _blank(m.group(0)), masked)
    return masked


def _fm_values(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _fm_values(v)]
    if isinstance(value, dict):
        for key in ("path", "id", "target", "href", "url", "link"):
            if key in value:
                return _fm_values(value[key])
        return []
    return [str(value)]


def _fm_line_of(fm_lines: list[str], key_raw: str, value: str) -> int | None:
    """1-based line of ``value`` under front matter key ``key_raw`` (the key's line if the
    value is not found on its own line; None if the key is not found)."""
    key_re = re.compile(rf"^{re.escape(str(key_raw))}\s*:")
    for i, line in enumerate(fm_lines):
        if key_re.match(line):
            if value in line[line.index(":") + 1 :]:
                return i + 1
            for j in range(i + 1, len(fm_lines)):
                nxt = fm_lines[j]
                if nxt.strip() and not nxt[0].isspace() and not nxt.startswith("-"):
                    break
                if value in nxt:
                    return j + 1
            return i + 1
    return None


def extract_refs(doc: Document, spans: Sequence[Span]) -> list[RawRef]:
    """Every outgoing reference of one document version, unresolved, with its line.

    Front matter ``links``, ``related``, ``depends_on``, ``supersedes``, ``superseded_by``,
    ``parent`` (ids or paths relative to the document; ``depends-on``/``dependsOn`` spellings
    accepted). Body, outside code: ``[text](target)`` links and reference definitions
    (``[x]: target``), images (checked for existence only) and ``[[wiki]]`` links. Anywhere
    in the body (code included, since ``ADR-0007`` in backticks is still a mention):
    id-shaped tokens, one per span and token, for MENTIONS.
    """
    refs: list[RawRef] = []
    text = doc.text
    fm_lines = text[: doc.body_start].split("\n")
    for raw_key, value in (doc.meta or {}).items():
        key = _norm_key(raw_key)
        if key not in FRONT_MATTER_TYPES:
            continue
        for v in _fm_values(value):
            target, _, anchor = v.partition("#")
            refs.append(RawRef(doc.path, None, _fm_line_of(fm_lines, raw_key, v), f"fm:{key}", target.strip(), anchor.strip() or None))

    starts = _line_starts(text)
    span_starts = [s.ref.char_start for s in spans]
    body_start = doc.body_start

    def locate(offset: int) -> tuple[int, str | None]:
        i = bisect.bisect_right(span_starts, offset) - 1
        sid = spans[max(i, 0)].ref.span_id if spans else None
        return bisect.bisect_right(starts, offset), sid

    masked = _mask_code(text[body_start:])
    for m in MD_LINK_RE.finditer(masked):
        target = m.group(3).strip()
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = target.partition("#")
        refs.append(RawRef(doc.path, sid, line, "img" if m.group(1) else "md", path_part, anchor or None))
    for m in REF_DEF_RE.finditer(masked):
        target = m.group(2).strip()
        if m.group(1).startswith("^"):  # footnote definition
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
    for m in ID_TOKEN_RE.finditer(text, body_start):
        token = m.group(1)
        if not any(c.isdigit() for c in token) and token.upper() != token:
            continue  # "Foo-bar" prose, not an id
        line, sid = locate(m.start())
        if (sid, token) not in seen:
            seen.add((sid, token))
            refs.append(RawRef(doc.path, sid, line, "id", token, None))
    return refs


def section_parents(spans: Sequence[SpanInfo]) -> dict[int, tuple[int, str]]:
    """For the spans of ONE document: index -> (index of its parent span, relation).

    A span that continues a section (an earlier span has the same heading path) has the
    head span of that section as parent ("section head"); otherwise the parent is the
    first span of the nearest enclosing section that starts before it ("parent section").
    The first span of a document has no parent. Indexes refer to ``spans`` as given.
    """
    order = sorted(range(len(spans)), key=lambda i: spans[i].ordinal)
    first_with_prefix: dict[tuple[str, ...], int] = {}
    out: dict[int, tuple[int, str]] = {}
    for i in order:
        hp = tuple(spans[i].heading_path)
        if hp and hp in first_with_prefix:
            out[i] = (first_with_prefix[hp], "section head")
        else:
            for k in range(len(hp) - 1, -1, -1):
                j = first_with_prefix.get(hp[:k])
                if j is not None:
                    out[i] = (j, "parent section")
                    break
        for depth in range(len(hp) + 1):
            first_with_prefix.setdefault(hp[:depth], i)
    return out


def local_edges(spans: Sequence[SpanInfo], doc: DocInfo | None = None) -> list[Edge]:
    """The edges of one document that depend on nothing else: NEXT/PREV between
    consecutive spans, PARENT_SECTION/CHILD_SECTION between a span and the head span of its
    section (see :func:`section_parents`), and IN_WORKSTREAM (doc -> ``ws:<name>``)."""
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


structural_edges = local_edges  # alias


# --------------------------------------------------------------------------- resolver


class LinkResolver:
    """Where a reference points, given the set of indexed documents.

    Build it with :meth:`from_documents` (parsed Documents + Spans) or :meth:`from_registry`
    (the registry connection; heading paths are then loaded lazily, per linked document).
    ``root`` (optional) lets links to files that exist on disk but are not indexed (images,
    code, a README outside the stage folders) count as not dangling.
    """

    def __init__(
        self,
        docs: dict[str, DocInfo],
        first_span: dict[str, str],
        spans_loader: Callable[[str], list[SpanInfo]],
        root: Path | None = None,
    ):
        self.docs = docs
        self.first_span = first_span
        self._load_spans = spans_loader
        self.root = root
        self.paths = set(docs)
        self.lower_paths = {p.lower(): p for p in sorted(docs)}
        self.ids: dict[str, str] = {}
        self.stems: dict[str, list[str]] = {}
        self.titles: dict[str, str] = {}
        for path in sorted(docs):
            d = docs[path]
            stem = posixpath.splitext(posixpath.basename(path))[0]
            self.stems.setdefault(stem.lower(), []).append(path)
            if d.doc_id:
                self.ids.setdefault(str(d.doc_id).lower(), path)
            self.titles.setdefault(d.title.strip().lower(), path)
        # ADR-0007 also names ADR-0007-foo.md / a document titled "ADR-0007: ..." without an `id`
        for path in sorted(docs):
            for source in (posixpath.basename(path), docs[path].title):
                m = ADR_RE.match(source.strip())
                if m:
                    self.ids.setdefault(m.group(1).lower(), path)
        self._spans: dict[str, list[SpanInfo]] = {}
        self._slugs: dict[str, dict[str, str]] = {}
        self._path_cache: dict[tuple[str, str], tuple[str | None, str]] = {}

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_documents(cls, docs: Iterable[Document], spans: dict[str, Sequence[Span]] | None = None, root: Path | None = None) -> "LinkResolver":
        infos = {d.path: DocInfo.from_document(d) for d in docs}
        by_path = {p: sorted((SpanInfo.from_span(s) for s in ss), key=lambda s: s.ordinal) for p, ss in (spans or {}).items()}
        first = {p: ss[0].span_id for p, ss in by_path.items() if ss}
        return cls(infos, first, lambda p: by_path.get(p, []), root)

    @classmethod
    def from_registry(cls, conn: sqlite3.Connection, root: Path | None = None) -> "LinkResolver":
        docs = {
            r[0]: DocInfo(r[0], r[1], r[2], r[3], tuple(json.loads(r[4] or "[]")))
            for r in conn.execute("SELECT path, title, doc_key, workstream, tags FROM documents")
        }
        first = {r[0]: r[1] for r in conn.execute("SELECT path, span_id, min(ordinal) FROM spans GROUP BY path")}

        def load(path: str) -> list[SpanInfo]:
            return [
                SpanInfo(path, r[1], r[2], tuple(json.loads(r[3])), r[4], "", r[0])
                for r in conn.execute("SELECT id, span_id, ordinal, heading_path, heading_level FROM spans WHERE path = ? ORDER BY ordinal", (path,))
            ]

        return cls(docs, first, load, root)

    # ---------------------------------------------------------------- lookups
    def spans_of(self, path: str) -> list[SpanInfo]:
        if path not in self._spans:
            self._spans[path] = sorted(self._load_spans(path), key=lambda s: s.ordinal)
        return self._spans[path]

    def slugs(self, path: str) -> dict[str, str]:
        """Heading slug -> span_id of the first span under that heading (GitHub numbering
        ``-1``, ``-2`` for repeated headings)."""
        table = self._slugs.get(path)
        if table is None:
            table = {}
            seen: set[tuple[str, ...]] = set()
            counts: Counter[str] = Counter()
            for s in self.spans_of(path):
                for depth in range(1, len(s.heading_path) + 1):
                    prefix = s.heading_path[:depth]
                    if prefix in seen:
                        continue
                    seen.add(prefix)
                    slug = slugify(prefix[-1])
                    n = counts[slug]
                    counts[slug] += 1
                    table.setdefault(slug if n == 0 else f"{slug}-{n}", s.span_id)
            self._slugs[path] = table
        return table

    def anchor(self, path: str, anchor: str) -> str | None:
        """span_id of the section ``#anchor`` in ``path`` (slug match), or None."""
        table = self.slugs(path)
        return table.get(anchor.lower()) or table.get(slugify(unquote(anchor)))

    def resolve_id(self, token: str) -> str | None:
        """Path of the document an id names, trying shorter prefixes
        (``ADR-0001-use-sqs`` -> ``ADR-0001``)."""
        hit = self.ids.get(token.lower())
        if hit:
            return hit
        parts = token.split("-")
        for n in range(len(parts) - 1, 1, -1):
            hit = self.ids.get("-".join(parts[:n]).lower())
            if hit:
                return hit
        return None

    def resolve_path(self, src_path: str, target: str) -> tuple[str | None, str]:
        """Resolve a link path written in ``src_path``: (indexed path | None, status) with
        status "ok" | "external" | "not-indexed" (exists on disk) | "missing" | "outside-root"."""
        key = (posixpath.dirname(src_path), target)
        hit = self._path_cache.get(key)
        if hit is None:
            hit = self._path_cache[key] = self._resolve_path(key[0], target)
        return (src_path, "ok") if hit == ("", "self") else hit

    def _resolve_path(self, src_dir: str, target: str) -> tuple[str | None, str]:
        target = unquote(target.split("?", 1)[0]).strip()
        if not target:
            return "", "self"
        if SCHEME_RE.match(target) or target.startswith("//"):
            return None, "external"
        rel = posixpath.normpath(target.lstrip("/") if target.startswith("/") else posixpath.join(src_dir, target))
        if rel == ".." or rel.startswith("../"):
            return None, "outside-root"
        for cand in (rel, rel + ".md", rel + "/README.md", rel + "/index.md"):
            if cand in self.paths:
                return cand, "ok"
        low = self.lower_paths.get(rel.lower())
        if low:
            return low, "ok"
        if self.root is not None and (self.root / rel).exists():
            return None, "not-indexed"
        return None, "missing"

    def resolve_name(self, src_path: str, name: str) -> str | None:
        """A wiki target or front matter value: id, then path (relative to the document, then
        to the root), file stem, title. An ambiguous stem prefers the document's own folder,
        then the longest shared folder prefix, then the shortest path."""
        name = name.strip()
        if not name:
            return None
        hit = self.ids.get(name.lower())
        if hit:
            return hit
        lower = name.lower()
        if "/" in name or lower.endswith(MD_SUFFIXES):
            for base in (name, "/" + name.lstrip("/")):
                path, status = self.resolve_path(src_path, base)
                if status == "ok" and path is not None:
                    return path
        base = posixpath.basename(lower)
        stem = posixpath.splitext(base)[0] if base.endswith(MD_SUFFIXES) else base
        cands = self.stems.get(stem)
        if cands:
            if len(cands) == 1:
                return cands[0]
            src_dir = posixpath.dirname(src_path)

            def rank(p: str) -> tuple[int, int, int, str]:
                d = posixpath.dirname(p)
                common = len(posixpath.commonpath([d, src_dir]).split("/")) if d and src_dir else 0
                return (0 if d == src_dir else 1, -common, len(p), p)

            return min(cands, key=rank)
        hit = self.titles.get(lower)
        if hit:
            return hit
        return self.resolve_id(name) if ADR_RE.match(name) else None


# --------------------------------------------------------------------------- phase 2: resolution


def resolve_refs(refs: Iterable[RawRef], resolver: LinkResolver) -> tuple[list[Edge], list[DanglingLink]]:
    """Raw references -> typed edges and dangling links (types in the module doc)."""
    edges: list[Edge] = []
    dangling_out: list[DanglingLink] = []
    for r in refs:
        path, span_id, line, kind, target, anchor = r
        written = target + (f"#{anchor}" if anchor else "")
        if kind == "id":
            dst = resolver.resolve_id(target)
            if dst is not None and dst != path:
                edges.append(Edge(path, span_id, dst, None, "MENTIONS", target, line))
        elif kind == "md" or kind == "img":
            dst, status = resolver.resolve_path(path, target)
            if status == "external" or status == "not-indexed":
                continue
            if dst is None:
                if not _looks_like_path(target):
                    continue  # "[Ca(2+)](i)" in a chemistry abstract is text, not a link
                dangling_out.append(DanglingLink(path, line, written, "image" if kind == "img" else ("outside-root" if status == "outside-root" else "link")))
            elif kind == "md":
                _link_edge(edges, dangling_out, resolver, r, dst, written)
        elif kind == "wiki":
            dst = resolver.resolve_name(path, target) if target else path
            if dst is None:
                dangling_out.append(DanglingLink(path, line, f"[[{written}]]", "wiki"))
            else:
                _link_edge(edges, dangling_out, resolver, r, dst, f"[[{written}]]")
        elif kind.startswith("fm:"):
            key = kind[3:]
            dst = resolver.resolve_name(path, target) if target else path
            if dst is None:
                dangling_out.append(DanglingLink(path, line, written, f"front-matter:{key}"))
                continue
            dst_span = resolver.anchor(dst, anchor) if anchor else None
            if dst == path and dst_span is None:
                continue
            edges.append(Edge(path, None, dst, dst_span, FRONT_MATTER_TYPES[key], written, line))
    return _dedupe(edges), dangling_out


_PATHISH_RE = re.compile(r"[A-Za-z0-9_]{2,}")


def _looks_like_path(target: str) -> bool:
    """A link target that could name a file: has a separator or suffix and a real word
    ("../x.md", "notes/plan"); bare "i", "+", "-/-" come from prose such as "[M + K](+)"."""
    return bool(_PATHISH_RE.search(target)) and ("/" in target or "." in target)


def _link_edge(edges: list[Edge], dangling_out: list[DanglingLink], resolver: LinkResolver, r: RawRef, dst: str, written: str) -> None:
    dst_span = None
    if r.anchor:
        dst_span = resolver.anchor(dst, r.anchor)
        if dst_span is None:
            dangling_out.append(DanglingLink(r.path, r.line, written, "anchor"))
    if dst == r.path and dst_span is None:
        return
    etype = "CITES" if dst.startswith(ARTIFACTS_DIR) else "REF"
    edges.append(Edge(r.path, r.span_id, dst, dst_span, etype, written, r.line))


def _dedupe(edges: Iterable[Edge]) -> list[Edge]:
    seen: set[tuple] = set()
    out = []
    for e in edges:
        key = e[:5]
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


# --------------------------------------------------------------------------- DEFINES (entities)


class Term(NamedTuple):
    text: str  # as defined (display)
    words: tuple[str, ...]  # lower-case words that must occur contiguously
    path: str  # defining document
    span_id: str  # defining span
    source: str  # "glossary" | "id" | "title"


def _is_glossary(doc: DocInfo) -> bool:
    stem = posixpath.basename(doc.path).lower()
    return "glossary" in stem or "glossary" in doc.title.lower() or "glossary" in doc.tags or "terminology" in doc.tags


def collect_terms(resolver: LinkResolver) -> list[Term]:
    """The entities the project defines: ``###`` headings of glossary documents (path, title
    or tag says glossary; the deepest heading level if there is no ``###``), with an acronym
    in parentheses as an alias ("Dead Letter Queue (DLQ)"); front matter ids; titles of at
    most 6 words (an "ADR-0007:" prefix stripped). One definer per term: glossary > id >
    title, then path order."""
    found: dict[tuple[str, ...], Term] = {}
    priority = {"glossary": 0, "id": 1, "title": 2}

    def add(text: str, path: str, span_id: str | None, source: str) -> None:
        if span_id is None:
            return
        words = tuple(words_of(text))
        if not words or len(words) > TERM_MAX_WORDS:
            return
        if source != "id" and (len(" ".join(words)) < TERM_MIN_CHARS or all(w in _TERM_STOP for w in words)):
            return
        old = found.get(words)
        if old is None or priority[source] < priority[old.source]:
            found[words] = Term(text.strip(), words, path, span_id, source)

    for path in sorted(resolver.docs):
        doc = resolver.docs[path]
        first = resolver.first_span.get(path)
        if _is_glossary(doc):
            spans = resolver.spans_of(path)
            levels = {len(s.heading_path) for s in spans}
            level = 3 if 3 in levels else max(levels, default=0)
            for s in spans:
                if level >= 2 and len(s.heading_path) == level:
                    head = s.heading_path[-1]
                    add(re.sub(r"\s*\([^)]*\)\s*", " ", head).strip(), path, s.span_id, "glossary")
                    for alias in re.findall(r"\(([^)]+)\)", head):
                        add(alias, path, s.span_id, "glossary")
        if doc.doc_id:
            add(str(doc.doc_id), path, first, "id")
        add(re.sub(r"^\s*ADR-[\w-]+\s*:\s*", "", doc.title), path, first, "title")
    return sorted(found.values(), key=lambda t: (t.path, t.words))


class _TermIndex:
    """Single-word terms by word, multi-word terms by their first bigram."""

    def __init__(self, terms: Sequence[Term]):
        self.singles: dict[str, list[int]] = {}
        self.multis: dict[tuple[str, str], list[int]] = {}
        for t_i, t in enumerate(terms):
            if len(t.words) == 1:
                self.singles.setdefault(t.words[0], []).append(t_i)
            else:
                self.multis.setdefault((t.words[0], t.words[1]), []).append(t_i)
        self.single_set = set(self.singles)
        self.bigram_set = set(self.multis)
        self.multi_first = {k[0] for k in self.multis}
        self.phrase = {t_i: " " + " ".join(terms[t_i].words) + " " for ts in self.multis.values() for t_i in ts}

    def match(self, text: str) -> list[tuple[int, int]]:
        """(term index, occurrences) of every term in ``text``."""
        words = words_of(text)
        if not words:
            return []
        vocab = set(words)
        found: list[tuple[int, int]] = []
        present = vocab & self.single_set
        if present:
            counts = Counter(words)
            found.extend((t_i, counts[w]) for w in sorted(present) for t_i in self.singles[w])
        if not self.multi_first.isdisjoint(vocab):
            bigrams = set(zip(words, words[1:])) & self.bigram_set
            if bigrams:
                joined = " " + " ".join(words) + " "
                for bg in sorted(bigrams):
                    for t_i in self.multis[bg]:
                        n = joined.count(self.phrase[t_i])
                        if n:
                            found.append((t_i, n))
        return found


def defines_edges(
    terms: Sequence[Term],
    spans: Iterable[SpanInfo],
    *,
    n_spans: int | None = None,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
    known: Mapping[str, list[tuple[int, int]]] | None = None,
    learned: dict[str, list[tuple[int, int]]] | None = None,
) -> list[Edge]:
    """DEFINES edges: defining span -> spans of *other* documents using the term, matched
    case-insensitively on word boundaries. Per term at most ``max_per_term`` edges (most
    occurrences first, then path, ordinal); a term used by more than
    ``max(max_df * n_spans, 2 * max_per_term)`` spans is too generic and gets none.

    ``known`` maps span ids to their matches against this same term list (a cache: such
    spans need no text); matches computed here are added to ``learned``."""
    index = _TermIndex(terms)
    hits: dict[int, list[tuple[int, str, int, str]]] = {}
    count = 0
    for s in spans:
        count += 1
        if known is not None and s.span_id in known:
            found = known[s.span_id]
        else:
            found = index.match(s.text)
            if learned is not None:
                learned[s.span_id] = found
        for t_i, n in found:
            if terms[t_i].path != s.path:
                hits.setdefault(t_i, []).append((n, s.path, s.ordinal, s.span_id))
    limit = max(max_df * (n_spans if n_spans is not None else count), 2 * max_per_term)
    out: list[Edge] = []
    for t_i in sorted(hits):
        users = hits[t_i]
        if len(users) > limit:
            continue
        t = terms[t_i]
        users.sort(key=lambda u: (-u[0], u[1], u[2]))
        out.extend(Edge(t.path, t.span_id, path, span_id, "DEFINES", t.text) for _n, path, _o, span_id in users[:max_per_term])
    return out


def _cached_defines(conn: sqlite3.Connection, terms: Sequence[Term], *, max_per_term: int, max_df: float) -> list[Edge]:
    """DEFINES with a per-span cache (table ``defines_cache``) keyed by a signature of the
    term list: when the terms did not change, only spans not seen before are read and
    matched (an edited document costs its own spans, not the whole corpus)."""
    import hashlib

    sig = hashlib.sha256(json.dumps([t.words for t in terms]).encode()).hexdigest()[:16]
    conn.execute("DELETE FROM defines_cache WHERE sig != ? OR span_id NOT IN (SELECT span_id FROM spans)", (sig,))
    known = {r[0]: [tuple(x) for x in json.loads(r[1])] for r in conn.execute("SELECT span_id, found FROM defines_cache")}
    outline = conn.execute("SELECT path, span_id, ordinal FROM spans ORDER BY id").fetchall()
    missing = [r[1] for r in outline if r[1] not in known]
    texts: dict[str, str] = {}
    for i in range(0, len(missing), 500):
        chunk = missing[i : i + 500]
        texts.update(conn.execute(f"SELECT span_id, text FROM spans WHERE span_id IN ({','.join('?' * len(chunk))})", chunk).fetchall())
    learned: dict[str, list[tuple[int, int]]] = {}
    spans = (SpanInfo(p, sid, o, (), 0, texts.get(sid, "")) for p, sid, o in outline)
    edges = defines_edges(terms, spans, n_spans=len(outline), max_per_term=max_per_term, max_df=max_df, known=known, learned=learned)
    conn.executemany(
        "INSERT OR REPLACE INTO defines_cache(span_id, sig, found) VALUES(?,?,?)",
        [(sid, sig, json.dumps(found)) for sid, found in learned.items()],
    )
    return edges


def extract_edges(doc: Document, spans: list[Span], resolver: LinkResolver) -> tuple[list[Edge], list[DanglingLink]]:
    """All edges of one document, pure (the resolver knows the other documents): its
    references resolved, its local edges, and the DEFINES edges from the resolver's terms
    into its spans (not capped per term — :func:`rebuild_edges` caps globally)."""
    edges, dangling_out = resolve_refs(extract_refs(doc, spans), resolver)
    infos = [SpanInfo.from_span(s) for s in spans]
    edges += local_edges(infos, DocInfo.from_document(doc))
    edges += defines_edges(collect_terms(resolver), infos, max_per_term=max(len(infos), 1), max_df=float("inf"))
    return edges, dangling_out


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
CREATE TABLE IF NOT EXISTS defines_cache(span_id TEXT PRIMARY KEY, sig TEXT NOT NULL, found TEXT NOT NULL);
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
# lookups from edges back to registry rows (the registry schema indexes neither column)
SPAN_INDEXES = """
CREATE INDEX IF NOT EXISTS spans_span_id ON spans(span_id);
CREATE INDEX IF NOT EXISTS spans_path ON spans(path, ordinal);
"""
_EDGE_COLS = "src_path, src_span, dst_path, dst_span, type, detail, line"
_INSERT_EDGE = f"INSERT INTO edges({_EDGE_COLS}) VALUES(?,?,?,?,?,?,?)"
_LOCAL_SQL = "(" + ",".join(f"'{t}'" for t in sorted(LOCAL_TYPES)) + ")"


def _run(conn: sqlite3.Connection, script: str) -> None:
    """DDL statement by statement (``executescript`` would COMMIT the caller's transaction)."""
    for stmt in script.split(";"):
        if stmt.strip():
            conn.execute(stmt)


def create_tables(conn: sqlite3.Connection) -> None:
    """Create the graph tables and indexes (idempotent, no commit). Also indexes
    ``spans(span_id)`` and ``spans(path, ordinal)`` when the registry's ``spans`` exists."""
    _run(conn, DDL)
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='spans'").fetchone():
        _run(conn, SPAN_INDEXES)


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='edges'").fetchone() is not None


def forget_document(conn: sqlite3.Connection, path: str) -> None:
    """Drop everything phase 1 stored for ``path`` (a removed or changed document)."""
    conn.execute("DELETE FROM link_refs WHERE path = ?", (path,))
    conn.execute("DELETE FROM link_docs WHERE path = ?", (path,))
    conn.execute(f"DELETE FROM edges WHERE src_path = ? AND type IN {_LOCAL_SQL}", (path,))


def write_refs(conn: sqlite3.Connection, doc: Document, refs: Iterable[RawRef]) -> None:
    """Replace the stored references of ``doc.path`` (and mark its version as extracted)."""
    conn.execute("DELETE FROM link_refs WHERE path = ?", (doc.path,))
    conn.executemany("INSERT INTO link_refs(path, span_id, line, kind, target, anchor) VALUES(?,?,?,?,?,?)", list(refs))
    conn.execute("INSERT OR REPLACE INTO link_docs(path, doc_version_id) VALUES(?,?)", (doc.path, doc.doc_version_id))


def store_document(conn: sqlite3.Connection, doc: Document, spans: Sequence[Span]) -> int:
    """Phase 1 for one changed or added document: replace its stored references and local
    edges. Returns the number of references stored. Does not commit."""
    forget_document(conn, doc.path)
    refs = extract_refs(doc, spans)
    write_refs(conn, doc, refs)
    conn.executemany(_INSERT_EDGE, local_edges([SpanInfo.from_span(s) for s in spans], DocInfo.from_document(doc)))
    return len(refs)


def read_refs(conn: sqlite3.Connection) -> Iterator[RawRef]:
    make = RawRef._make
    for r in conn.execute("SELECT path, span_id, line, kind, target, anchor FROM link_refs ORDER BY path, rowid"):
        yield make(r)


def write_edges(conn: sqlite3.Connection, edges: Iterable[Edge], *, replace: bool = False) -> int:
    """Insert edges (``replace``: delete every edge first). Returns the number written."""
    if replace:
        conn.execute("DELETE FROM edges")
    rows = list(edges)
    conn.executemany(_INSERT_EDGE, rows)
    return len(rows)


def write_dangling(conn: sqlite3.Connection, items: Iterable[DanglingLink], *, replace: bool = True) -> None:
    if replace:
        conn.execute("DELETE FROM dangling_links")
    conn.executemany("INSERT INTO dangling_links(path, line, target, kind) VALUES(?,?,?,?)", [(d.path, d.line, d.target, d.kind) for d in items])


def edges_for(
    conn: sqlite3.Connection, path_or_span_id: str, direction: str = "both", types: Iterable[str] | None = None
) -> dict[str, list[Edge]]:
    """Edges of a document (a path — its own edges and those of all its spans — or a
    ``ws:<name>`` node) or of one span (a span id). ``direction``: "out" | "in" | "both".
    Returns ``{"out": [...], "in": [...]}`` (the requested keys), sorted by type, then the
    other end, then line."""
    if direction not in ("out", "in", "both"):
        raise ValueError(f"direction must be 'out', 'in' or 'both', got {direction!r}")
    key = path_or_span_id
    is_path = "/" in key or key.lower().endswith(MD_SUFFIXES) or key.startswith(WS_PREFIX)
    if not is_path:
        is_path = conn.execute("SELECT 1 FROM edges WHERE src_path = ? OR dst_path = ? LIMIT 1", (key, key)).fetchone() is not None
    type_list = sorted(set(types)) if types else []
    tfilter = f" AND type IN ({','.join('?' * len(type_list))})" if type_list else ""
    col = "path" if is_path else "span"
    out: dict[str, list[Edge]] = {}
    if direction in ("out", "both"):
        rows = conn.execute(f"SELECT {_EDGE_COLS} FROM edges WHERE src_{col} = ?{tfilter}", (key, *type_list))
        out["out"] = sorted((Edge._make(r) for r in rows), key=lambda e: (e.type, e.dst_path, e.dst_span or "", e.line or 0, e.src_span or ""))
    if direction in ("in", "both"):
        rows = conn.execute(f"SELECT {_EDGE_COLS} FROM edges WHERE dst_{col} = ?{tfilter}", (key, *type_list))
        out["in"] = sorted((Edge._make(r) for r in rows), key=lambda e: (e.type, e.src_path, e.src_span or "", e.line or 0, e.dst_span or ""))
    return out


def links_report(conn: sqlite3.Connection, path_or_span_id: str, *, include_structural: bool = False) -> dict[str, Any]:
    """JSON-ready answer for ``orion links PATH|SPAN_ID``: edges out and in, grouped by
    type (NEXT/PREV/PARENT_SECTION/CHILD_SECTION left out unless ``include_structural``),
    and the dangling links written in that document."""
    found = edges_for(conn, path_or_span_id)
    report: dict[str, Any] = {"schema_version": 1, "kind": "links", "target": path_or_span_id}
    for direction in ("out", "in"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for e in found[direction]:
            if include_structural or e.type not in STRUCTURAL_TYPES:
                groups.setdefault(e.type, []).append(e.to_dict())
        report[direction] = dict(sorted(groups.items()))
    report["dangling"] = [d.to_dict() for d in dangling(conn, path_or_span_id)]
    return report


def dangling(conn: sqlite3.Connection, path: str | None = None) -> list[DanglingLink]:
    """Dangling links (of one document, or all), by path then line."""
    where, args = ("WHERE path = ?", (path,)) if path else ("", ())
    return [
        DanglingLink(*r)
        for r in conn.execute(f"SELECT path, line, target, kind FROM dangling_links {where} ORDER BY path, coalesce(line, 0), target", args)
    ]


def edge_counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {r[0]: r[1] for r in conn.execute("SELECT type, count(*) FROM edges GROUP BY type ORDER BY type")}


@dataclass
class GraphBuildResult:
    edges: int  # all edges in the table after the rebuild
    by_type: dict[str, int]
    dangling: list[DanglingLink]
    stale_documents: list[str]  # documents whose references were never extracted for this version
    elapsed_ms: float
    timings_ms: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "edges": self.edges, "by_type": self.by_type, "dangling": [d.to_dict() for d in self.dangling],
            "stale_documents": self.stale_documents, "elapsed_ms": round(self.elapsed_ms, 1),
        }


def _sync_global_edges(conn: sqlite3.Connection, edges: list[Edge]) -> tuple[int, int]:
    """Make the global edges in the table equal ``edges``, touching only the difference
    (an incremental run changes few of them). Returns (inserted, deleted)."""
    wanted = Counter(edges)
    stale: list[tuple[int]] = []
    for row in conn.execute(f"SELECT rowid, {_EDGE_COLS} FROM edges WHERE type NOT IN {_LOCAL_SQL}"):
        e = Edge._make(row[1:])
        if wanted[e] > 0:
            wanted[e] -= 1
        else:
            stale.append((row[0],))
    conn.executemany("DELETE FROM edges WHERE rowid = ?", stale)
    new = [e for e, n in wanted.items() for _ in range(n)]
    conn.executemany(_INSERT_EDGE, new)
    return len(new), len(stale)


def rebuild_edges(
    conn: sqlite3.Connection,
    root: Path | None = None,
    *,
    defines: bool = True,
    max_per_term: int = DEFINES_MAX_PER_TERM,
    max_df: float = DEFINES_MAX_DF,
) -> GraphBuildResult:
    """Phase 2: resolve every stored reference against the current documents, recompute the
    DEFINES edges, rewrite the global edges and ``dangling_links``.

    Call once per index run, after the registry holds every current document and span and
    :func:`store_document` ran for each changed one. Rows of documents no longer in the
    registry are dropped. Does not commit.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    create_tables(conn)
    for table, col in (("link_refs", "path"), ("link_docs", "path"), ("edges", "src_path")):
        conn.execute(f"DELETE FROM {table} WHERE {col} NOT IN (SELECT path FROM documents)")
    stale = [
        r[0]
        for r in conn.execute(
            "SELECT d.path FROM documents d LEFT JOIN link_docs l ON l.path = d.path "
            "WHERE l.doc_version_id IS NULL OR l.doc_version_id != d.doc_version_id ORDER BY d.path"
        )
    ]
    t = time.perf_counter()
    resolver = LinkResolver.from_registry(conn, root)
    edges, dangling_list = resolve_refs(read_refs(conn), resolver)
    timings["resolve"] = (time.perf_counter() - t) * 1000
    if defines:
        t = time.perf_counter()
        edges.extend(_cached_defines(conn, collect_terms(resolver), max_per_term=max_per_term, max_df=max_df))
        timings["defines"] = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    added, removed = _sync_global_edges(conn, edges)
    write_dangling(conn, dangling_list)
    timings["write"] = (time.perf_counter() - t) * 1000
    timings["edges_added"], timings["edges_removed"] = added, removed
    counts = edge_counts(conn)
    return GraphBuildResult(
        edges=sum(counts.values()),
        by_type=counts,
        dangling=sorted(dangling_list, key=lambda d: (d.path, d.line or 0, d.target)),
        stale_documents=stale,
        elapsed_ms=(time.perf_counter() - t0) * 1000,
        timings_ms={k: round(v, 1) for k, v in timings.items()},
    )


__all__ = [
    "EDGE_TYPES", "LOCAL_TYPES", "GLOBAL_TYPES", "STRUCTURAL_TYPES", "Edge", "DanglingLink", "RawRef", "SpanInfo",
    "DocInfo", "LinkResolver", "Term", "slugify", "words_of", "extract_refs", "resolve_refs", "section_parents",
    "local_edges", "collect_terms", "defines_edges", "extract_edges", "create_tables", "has_tables",
    "forget_document", "write_refs", "store_document", "read_refs", "write_edges", "write_dangling", "edges_for",
    "links_report", "dangling", "edge_counts", "GraphBuildResult", "rebuild_edges",
]
