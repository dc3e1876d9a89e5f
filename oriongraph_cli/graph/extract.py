"""References and structure read from a document's text: what the graph is built from.

Front matter link lists, Markdown and wiki links, id-shaped tokens (``ADR-0007``) become
unresolved :class:`RawRef` records with their line numbers; spans give the local edges (NEXT/PREV
and section parent/child, derived when asked for and not stored; workstream). Nothing here
touches storage: :mod:`graph.resolve` turns references into edges and :mod:`graph.edges`
stores them.
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
import unicodedata
from dataclasses import dataclass
from itertools import chain
from typing import Any, Iterable, NamedTuple, Sequence
from urllib.parse import unquote

from oriongraph_cli.blocks import HEADING_ATTRS, RST_ADORNMENT, read_blocks, syntax_of, template_blocks
from oriongraph_cli.docids import ADR_RE, SERIES_TOKEN_RE  # noqa: F401  (ADR_RE: part of extract's API, read by resolve)
from oriongraph_cli.graph.site_links import HUGO_REF_RE, SITE_URL_RE, TAG_LINK_RE, written
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
# "Replaced-By: EEP-0068" and "replaces: FIP-0090" (Erlang's EEPs, Filecoin's FIPs) say what
# "Superseded-By" and "supersedes" say
_FM_ALIASES = {"dependson": "depends_on", "supersededby": "superseded_by", "replacedby": "superseded_by",
               "deprecatedby": "superseded_by",  # TypeScript's old handbook: "deprecated_by: /docs/handbook/2/classes.html"
               "replaces": "supersedes", "link": "links"}
# a value naming nothing: "replaces: N/A", "superseded_by: none", "-"
_FM_NONE_RE = re.compile(r"^\W*(?:n/?a|none|nothing|tbd|null)?\W*$", re.IGNORECASE)
_FM_LIST_ITEM_RE = re.compile(r"(?:[A-Za-z]{2,10}[- ]?)?[0-9]{1,6}")

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

# a destination holds parentheses escaped, "#delivery-\(tlc\)", or balanced, "Foo_(bar)", as
# CommonMark reads them (each alternative starts with a different character: no backtracking);
# the text holds brackets one level deep, "[see [1]](x.md)", and a bracket inside those ends
# the try: "[a[a[a…" on one line, each "[" scanning to the line's end, was quadratic. The text
# may run on over a line break as a paragraph's does ("[Alert\nhierarchy](x.svg)"), never over
# a blank line
MD_LINK_RE = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\n(?![ \t]*\n)|\[[^\[\]\n]*\])*)\]\(\s*<?((?:\\.|\([^()\s]*\)|[^()\s>\\])+)>?"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
# a reference definition, [x]: target "title" (the target may start the next line; the
# title stays on its lines: a match never runs on into the next definition)
REF_DEF_RE = re.compile(r"^ {0,3}\[([^\]\n]+)\]:[ \t]*\n?[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$", re.MULTILINE)
WIKI_RE = re.compile(r"\[\[([^\[\]\n|#]*)(?:#([^\[\]\n|]*))?(?:\|([^\[\]\n]*))?\]\]")
# characters no note's file name holds (Obsidian refuses them): a "wiki link" naming one is data
_NOT_A_NOTE = re.compile(r'["<>*?]')
# a table of contents marker alone on its line, ``[[toc]]`` (VitePress, markdown-it-toc) or
# ``[[_TOC_]]`` (GitLab, Azure DevOps wikis): the site puts the page's outline there
_TOC_MARKER = re.compile(r"^[ \t]*\[\[(?:toc|_toc_)\]\][ \t]*$", re.IGNORECASE | re.MULTILINE)
_WORD_CHAR = re.compile(r"\w")
# Doxygen's cross-references, ``@ref name``, ``\\ref name``, ``@subpage name`` (also as a Markdown
# link's destination, ``[ADR 25](@ref adr_0025)``): a page or a heading's ``{#id}``; a name that
# goes on as a class or member path, ``@ref Wikibase\\Lib\\Foo``, ``@ref Foo::bar``, is code's
DOXYGEN_NAME = r"[A-Za-z_][\w.-]*[\w]"
DOXYGEN_REF_RE = re.compile(r"(?<![\w@\\])[@\\](?:ref|subpage)[ \t]+(" + DOXYGEN_NAME + r")(?![\w\\]|::)")
# the same as a Markdown link's destination, from its ``](`` to its ``)`` (rewritten in quotes)
DOXYGEN_LINK_RE = re.compile(r"\]\(\s*[@\\](?:ref|subpage)[ \t]+(" + DOXYGEN_NAME + r")\s*\)")
# Sphinx's cross-references: reStructuredText's ``:doc:`path```, ``:ref:`label``` and
# ``:pep:`8``` and MyST's ``{doc}``, ``{ref}`` and ``{pep}``, each also ``title <target>``; ``~``
# or ``!`` before the target only changes how it is shown
SPHINX_ROLE_RE = re.compile(r"(?<![\w`])(?::(doc|ref|pep):|\{(doc|ref|pep)\})`([^`\n]+)`")
_ROLE_TARGET = re.compile(r"<([^<>\n]+)>\s*$")


def role_target(m: re.Match) -> tuple[str, str]:
    """(role, target) of a :data:`SPHINX_ROLE_RE` match: ``Installing <../guides/installing>``
    names ``../guides/installing``; ``~`` or ``!`` before a target only changes how it is shown."""
    role, target = m.group(1) or m.group(2), m.group(3).strip()
    inner = _ROLE_TARGET.search(target)
    return role, (inner.group(1) if inner else target).strip().lstrip("~!")


def role_title(m: re.Match) -> str:
    """The title a :data:`SPHINX_ROLE_RE` match gives itself (``Installing`` of
    ``Installing <../guides/installing>``), "" when it names its target alone."""
    content = m.group(3).strip()
    inner = _ROLE_TARGET.search(content)
    return content[: inner.start()].strip() if inner else ""


_INTERSPHINX = re.compile(r"^[A-Za-z][\w.-]*:(?!/)")
# id-shaped tokens: ADR-0007, ADR-20251113-retrieval-as-compilation, DES-ING-WORKER, INC-2025-031
ID_TOKEN_RE = re.compile(r"(?<![\w/.-])([A-Z][A-Z0-9]*(?:-[A-Za-z0-9]+)+)(?![\w-])")
# the file stems of a folder's page, served at the folder's own URL
FOLDER_PAGE_STEMS = frozenset({"readme", "index", "_index"})
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_BACKTICKS_RE = re.compile(r"`+")


def code_spans(text: str) -> list[tuple[int, int]]:
    """The inline code spans of ``text`` as CommonMark reads them: a run of n backticks opens
    one, the next run of exactly n closes it (runs of other lengths are its text); a run
    that nothing closes is text. One pass over the runs (a regex of backreferences took
    minutes on a line of 2,000 backticks)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(text)]
    later: dict[int, list[int]] = {}  # run length -> indexes of the runs of that length, last first
    for i in range(len(runs) - 1, -1, -1):
        later.setdefault(runs[i][1] - runs[i][0], []).append(i)
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        a, b = runs[i]
        same = later[b - a]
        while same and same[-1] <= i:
            same.pop()
        if same and runs[same[-1]][0] > b:  # closed by the next run of its length
            j = same[-1]
            out.append((a, runs[j][1]))
            i = j + 1
        else:
            i += 1
    return out
# a reStructuredText adornment line, in a multi-line text
_RST_ADORNMENT_LINE = re.compile(RST_ADORNMENT.pattern, re.MULTILINE)
MD_SUFFIXES = (".md", ".markdown", ".mdx")
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


_INLINE_LINK = re.compile(r"!?\[([^\[\]]*)\](?:\([^()]*\)|\[[^\[\]]*\])")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
HEADING_TEXT_MAX = 500
_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])")


_TICKS = re.compile(r"`+")
_HOLDER = 0xE000  # code spans stand in the private-use area while the rest is rendered


def heading_text(heading: str) -> str:
    """A Markdown heading as it reads rendered, which is what its anchor is made from:
    ``[Electricity Consumption](https://…)`` -> ``Electricity Consumption``; an image by its
    alt text, HTML tags and emphasis marks dropped (``my_var`` keeps its underscore); a code
    span's text as written (``assert.throws(fn[, error])`` in backticks is not a link, nor
    ``<div>`` a tag); an id written on it in braces (``{#review}``) dropped. A heading longer than ``HEADING_TEXT_MAX`` is taken as written: no link
    names its anchor, and a hostile one must not cost quadratic time."""
    if len(heading) > HEADING_TEXT_MAX:
        return heading
    if "{" in heading:
        heading = HEADING_ATTRS.sub("", heading)
    code: list[str] = []
    if "`" in heading and not any(_HOLDER <= ord(c) < _HOLDER + HEADING_TEXT_MAX for c in heading):
        heading, code = _hold_code_spans(heading)
    if "[" in heading:
        heading = _INLINE_LINK.sub(r"\1", heading)
    if "<" in heading:
        heading = _HTML_TAG.sub("", heading)
    if "*" in heading or "_" in heading:
        heading = _EMPHASIS.sub(r"\2", heading)
    if code:
        heading = "".join(code[ord(c) - _HOLDER] if _HOLDER <= ord(c) < _HOLDER + len(code) else c for c in heading)
    return heading


def _hold_code_spans(text: str) -> tuple[str, list[str]]:
    """``text`` with each code span (a run of n backticks to the next run of exactly n, as
    CommonMark pairs them) replaced by one private-use character, and the spans' text."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    out: list[str] = []
    code: list[str] = []
    pos = i = 0
    while i < len(runs):
        a, b = runs[i]
        j = next((k for k in range(i + 1, len(runs)) if runs[k][1] - runs[k][0] == b - a), None)
        if j is None:  # no closing run: these backticks are literal
            i += 1
            continue
        inner = text[b:runs[j][0]].replace("\n", " ")
        if len(inner) > 2 and inner[0] == inner[-1] == " " and inner.strip():
            inner = inner[1:-1]  # one space each side is the delimiter's padding
        out.append(text[pos:a] + chr(_HOLDER + len(code)))
        code.append(inner)
        pos = runs[j][1]
        i = j + 1
    out.append(text[pos:])
    return "".join(out), code


def heading_id(heading: str) -> str | None:
    """The id written on a heading in braces at its end (``{#id}``, ``{ id=id }``, or an MDX
    comment ``{/*id*/}``), or None."""
    if "{" not in heading or len(heading) > HEADING_TEXT_MAX:
        return None
    m = HEADING_ATTRS.search(heading)
    return next((g for g in m.groups() if g), None) if m else None


# a word in a link target that could name a file
PATHISH_RE = re.compile(r"[A-Za-z0-9_]{2,}")


def looks_like_path(target: str) -> bool:
    """A link target that could name a file: has a separator or suffix and a real word
    ("../x.md", "notes/plan"); bare "i", "+", "-/-" come from prose such as "[M + K](+)",
    and "g" from a site's own shorthand (Hugo's manual links a glossary term as
    ``[page bundle](g)``)."""
    return bool(PATHISH_RE.search(target)) and ("/" in target or "." in target)


def loose_anchor(text: str) -> str:
    """A heading or an anchor by its letters and digits alone, ``&`` read as "and": how the
    anchors site generators make from one heading still match ("Cloud.gov" as ``cloudgov`` or
    ``cloud-gov``, "Expenses (M&IE)" as ``expenses-mie`` or ``expenses-m-and-ie``)."""
    text = unicodedata.normalize("NFKC", text).lower().replace("&", "and")
    return "".join(c for c in text if c.isalnum())


def slugify(heading: str) -> str:
    """GitHub-style heading anchor: lower case, punctuation dropped, spaces -> '-'."""
    text = unicodedata.normalize("NFKC", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def toc_slug(heading: str) -> str:
    """The anchor Python-Markdown's ``toc`` extension makes (MkDocs' default): as
    :func:`slugify`, but a run of spaces and hyphens is one hyphen — "Caret, Mark & Tilde" is
    ``caret-mark-tilde`` where GitHub writes ``caret-mark--tilde``."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", unicodedata.normalize("NFKC", heading), flags=re.UNICODE).strip().lower())


def front_matter_key(key: Any) -> str:
    """A front matter key as the link graph reads it: ``Superseded-By`` and ``supersededBy``
    are ``superseded_by``, ``dependsOn`` is ``depends_on``."""
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
    kind: str  # fm:<key> | md | img | wiki | id | hugo | jekyll | site | tag:<name> (site references) | doxygen | sphinx:doc|ref|pep
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
    aliases: tuple[str, ...] = ()  # front matter ``aliases``: other names a wiki link may use (Obsidian)
    # site URLs the page also answers at (its old addresses): ``redirect_from`` (Jekyll, Eleventy)
    # and ``aliases`` written as URL paths (Hugo), each as ``site_url_key`` makes it; and the
    # address its front matter gives it, ``permalink`` (Jekyll, Eleventy, Gatsby)
    urls: tuple[str, ...] = ()
    # web addresses its front matter gives outside the link keys (``own_urls_of``): Ember's RFCs
    # name their own pull request, ``prs: {accepted: https://github.com/emberjs/rfcs/pull/669}``
    own_urls: tuple[str, ...] = ()

    @classmethod
    def from_document(cls, d: Document) -> "DocInfo":
        meta = d.meta if isinstance(d.meta, dict) else {}
        doc_id = meta.get("id")
        aliases = aliases_of(meta.get("aliases", meta.get("alias")))
        redirects = (*aliases_of(meta.get("redirect_from")), *aliases_of(meta.get("permalink")))
        return cls(d.path, d.title, str(doc_id) if doc_id is not None else None, d.workstream, tuple(d.tags),
                   aliases, urls_of(aliases, redirects), own_urls_of(_fm_urls(meta)))

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> "DocInfo":
        """From ``Registry.document_links_info``: tags as JSON, aliases and redirect_from as
        SQLite's ``json_extract`` gives them (JSON text for a list, the text itself for one name),
        the front matter's web addresses as [[key path, address], …] (None: it has none), and
        its permalink."""
        aliases = aliases_of(_json_list(row[5] if len(row) > 5 else None))
        redirects = aliases_of(_json_list(row[6] if len(row) > 6 else None))
        if len(row) > 8 and row[8] is not None:
            redirects = (*redirects, *aliases_of(_json_list(row[8])))
        tags = () if row[4] in (None, "", "[]") else tuple(json.loads(row[4]))  # most notes have none: no parse
        own = own_urls_of((_top_key(k), v) for k, v in json.loads(row[7])) if len(row) > 7 and row[7] not in (None, "[]") else ()
        return cls(row[0], row[1], row[2], row[3], tags, aliases, urls_of(aliases, redirects) if aliases or redirects else (), own)


def _json_list(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("["):
        try:
            return json.loads(value)
        except ValueError:
            pass
    return value


def site_url_key(url: str) -> str | None:
    """A site URL as a lookup key, from the site's root: ``/Docs/Setup/`` and ``/docs/setup.html``
    -> ``docs/setup``; None for a full URL, a bare ``/`` or one leaving the root."""
    url = unquote(url.split("#", 1)[0].split("?", 1)[0]).strip()
    if not url or SCHEME_RE.match(url) or url.startswith("//"):
        return None
    rel = posixpath.normpath(url.lstrip("/"))
    stem, ext = posixpath.splitext(rel)
    if ext.lower() in (".html", ".htm"):
        rel = stem
    if rel in (".", "") or rel == ".." or rel.startswith("../"):
        return None
    return rel.lower()


# a full web address with a path: the host (no user info) and what follows it, the fragment left out
_WEB_URL = re.compile(r"^[Hh][Tt][Tt][Pp][Ss]?://([^/?#\s@]+)(/[^#\s]*)?")


def folder_name(path: str) -> str | None:
    """The name of the folder ``path`` is the own page of (``quic/README.md``, ``guide/index.md``,
    Hugo's ``_index.md``), lower case; None for any other page."""
    head, base = posixpath.split(path)
    if not head or posixpath.splitext(base)[0].lower() not in FOLDER_PAGE_STEMS:
        return None
    return posixpath.basename(head).lower()


def short_name(path: str) -> str:
    """A document's name in a reason or a note: its file name, with its folder's for a
    folder's own page (``mplex/README.md``, not one ``README.md`` among many)."""
    base = posixpath.basename(path)
    return f"{posixpath.basename(posixpath.dirname(path))}/{base}" if folder_name(path) is not None else base


def own_url_key(url: str) -> str | None:
    """A full web address as a lookup key: ``https://github.com/emberjs/rfcs/pull/669/`` ->
    ``github.com/emberjs/rfcs/pull/669`` (no scheme, fragment or trailing slash; lower case);
    None for anything else and for a bare host, which names a site, not a page."""
    m = _WEB_URL.match(url.strip())
    if m is None:
        return None
    path = (m.group(2) or "").rstrip("/")
    return (m.group(1) + path).lower() if path else None


def _fm_urls(meta: Any, key: str = "") -> Iterable[tuple[str, str]]:
    """(top-level key, value) of every text value in front matter ``meta`` (nested ones too)."""
    if isinstance(meta, dict):
        for k, v in meta.items():
            yield from _fm_urls(v, key or str(k))
    elif isinstance(meta, (list, tuple)):
        for v in meta:
            yield from _fm_urls(v, key)
    elif isinstance(meta, str) and key:
        yield key, meta


def _top_key(fullkey: str) -> str:
    """The top-level key of a path as SQLite's ``json_tree`` writes it: ``$.prs.accepted`` ->
    ``prs``, ``$."superseded-by"[0]`` -> ``superseded-by``."""
    rest = fullkey.removeprefix("$.")
    if rest.startswith('"'):
        end = rest.find('"', 1)
        return rest[1:end] if end > 0 else rest[1:]
    return re.split(r"[.\[]", rest, maxsplit=1)[0]


# a repository's address of a file or folder (GitHub's and Gitea's ``/blob/``, ``/tree/``,
# ``/raw/``, GitLab's ``/-/blob/``): it names that file, never a page's own address
_REPO_FILE_URL = re.compile(r"/(?:-/)?(?:blob|tree|raw)/", re.IGNORECASE)


def own_urls_of(values: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The page's own web addresses, as :func:`own_url_key` makes them, from its front matter's
    (key, value) pairs: every value that is a full address with a path, but under the keys
    that link to other records (``links``, ``related``, ``supersedes``…), where an address
    names another page, and but a repository's address of a file or folder (a translation's
    ``Source: …/blob/master/CIP-1694/README.md``, a problem statement's ``Proposed Solutions:
    …/tree/master/CIP-0013``), which names that file. A link elsewhere to exactly one page's
    own address names that page."""
    keys = (own_url_key(v) for k, v in values if front_matter_key(k) not in FRONT_MATTER_TYPES and not _REPO_FILE_URL.search(v))
    return tuple(dict.fromkeys(k for k in keys if k))


def urls_of(aliases: Sequence[str], redirects: Sequence[str]) -> tuple[str, ...]:
    """The site URLs a page answers at besides its own: every ``redirect_from`` entry, and the
    ``aliases`` written as paths from the site's root (Hugo's); Obsidian's aliases are names."""
    keys = (site_url_key(u) for u in (*redirects, *(a for a in aliases if a.startswith("/"))))
    return tuple(dict.fromkeys(k for k in keys if k))


def aliases_of(value: Any) -> tuple[str, ...]:
    """Front matter ``aliases`` (a name or a list of names) as names, blanks and non-text dropped."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(dict.fromkeys(str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip()))


# --------------------------------------------------------------------------- phase 1: extraction


def line_starts(text: str) -> list[int]:
    """The offset each line of ``text`` starts at (lines end at ``\\n``)."""
    starts = [0]
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def _blank(s: str) -> str:
    return re.sub(r"[^\n]", " ", s)


def mask_code(text: str, start: int = 0, syntax: str = "markdown", end: int | None = None) -> str:
    """``text[start:end]`` with code blocks (fenced or indented, at any depth, as CommonMark
    reads them; an MDX page has no indented code) and inline code spans blanked out (offsets
    kept), read as the splitter reads the page (``read_blocks(syntax=…)``); a
    reStructuredText page's adornment lines blanked first (two lines of backticks would
    otherwise read as one code span around a section).
    ``end``: only the text before it (the blocks are still read from the whole page)."""
    blocks = read_blocks(text, start, syntax)
    rst = syntax == "rst"
    end = len(text) if end is None else min(end, len(text))
    masked = text[start:end]
    if rst:
        masked = _RST_ADORNMENT_LINE.sub(lambda m: _blank(m.group(0)), masked)
    if blocks.code:
        parts: list[str] = []
        pos = start
        for a, b in blocks.code:
            if a >= end:
                break
            b = min(b, end)
            parts.append(masked[pos - start : a - start])
            parts.append(_blank(text[a:b]))
            pos = b
        parts.append(masked[pos - start :])
        masked = "".join(parts)
    if "`" in masked:
        parts, pos = [], 0
        for a, b in code_spans(masked):
            parts.append(masked[pos:a])
            parts.append(_blank(masked[a:b]))
            pos = b
        masked = "".join(parts) + masked[pos:]
    return masked


# a front matter value that is an HTML element written as a tag, `<link>`, `<a href="x">`,
# `</style>`, `<br/>` (an autolink, `<https://…>`, a path in brackets or an id, `<ADR-7>`, is
# not one: the name is lower-case letters and digits, as HTML's own elements are written)
_FM_TAG_ONLY = re.compile(r"</?[a-z][a-z0-9]*(?:\s[^<>]*)?/?>\Z")


def fm_targets(value: Any) -> list[str]:
    """The targets a front matter value names: each string of it but a tag (React titles its
    <link> page `link: "<link>"`), a value naming nothing ("N/A", "none") and prose (a header
    block whose last field ran on into the body: no target is 300 characters long); a list of
    numbers or ids in one string ("2, 3") is its items."""
    out: list[str] = []
    for v in _fm_values(value):
        if _FM_TAG_ONLY.match(v) or _FM_NONE_RE.match(v) or len(v) > 300:
            continue
        parts = [x.strip() for x in v.split(",")]
        # "Replaces: 2, 3" (an RFC 822 header's list): each number or id a target
        out.extend(parts if len(parts) > 1 and all(_FM_LIST_ITEM_RE.fullmatch(x) for x in parts) else [v])
    return out


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


def front_matter_line(fm_lines: list[str], key_raw: str, value: str) -> int | None:
    """1-based line of ``value`` under front matter key ``key_raw`` (the key's line if the
    value is not found on its own line; None if the key is not found)."""
    key_re = re.compile(rf"^{re.escape(str(key_raw))}\s*:", re.IGNORECASE)  # ``Status:`` as ``status:``
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
    accepted), and the supersession the document's first lines state where its front matter
    names none (``Document.stated_refs``: "Superseded by [ADR-7](0007-x.md)"). Body, outside
    code: ``[text](target)`` links and reference definitions (``[x]: target``), images
    (checked for existence only), Doxygen's ``@ref name`` and ``@subpage name``, Sphinx's
    ``:doc:``, ``:ref:`` and ``:pep:`` roles (MyST's ``{doc}``, ``{ref}``, ``{pep}``) and
    ``[[wiki]]`` links (not inside
    a site template's block, ``{{< code-toggle >}}`` around TOML's ``[[menus.main]]``; in a
    table cell ``[[Note\\|shown]]`` names ``Note``). Anywhere
    in the body (code included, since ``ADR-0007`` in backticks is still a mention):
    id-shaped tokens, one per span and token, for MENTIONS.
    """
    refs: list[RawRef] = []
    text = doc.text
    fm_lines = text[: doc.body_start].split("\n")
    for raw_key, value in (doc.meta or {}).items():
        key = front_matter_key(raw_key)
        if key not in FRONT_MATTER_TYPES:
            continue
        for v in fm_targets(value):
            target, _, anchor = v.partition("#")
            refs.append(RawRef(doc.path, None, front_matter_line(fm_lines, raw_key, v), f"fm:{key}", target.strip(), anchor.strip() or None))
    for key, value, line in doc.stated_refs:  # "Superseded by [ADR-7](0007-x.md)" in its first lines
        target, _, anchor = value.partition("#")
        refs.append(RawRef(doc.path, None, line, f"stated:{key}", target.strip(), anchor.strip() or None))

    starts = line_starts(text)
    span_starts = [s.ref.char_start for s in spans]
    body_start = doc.body_start

    def locate(offset: int) -> tuple[int, str | None]:
        i = bisect.bisect_right(span_starts, offset) - 1
        sid = spans[max(i, 0)].ref.span_id if spans else None
        return bisect.bisect_right(starts, offset), sid

    masked = mask_code(text, body_start, syntax_of(doc.path))
    for m in MD_LINK_RE.finditer(masked):
        target = m.group(3).strip()
        if target.startswith(("{{", "{%")):
            continue  # a template's URL: the site references below
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = target.partition("#")
        refs.append(RawRef(doc.path, sid, line, "img" if m.group(1) else "md", path_part, anchor or None))
    for m in HUGO_REF_RE.finditer(masked):
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = written(m).partition("#")
        refs.append(RawRef(doc.path, sid, line, "hugo", path_part, anchor or None))
    for m in TAG_LINK_RE.finditer(masked):
        line, sid = locate(body_start + m.start())
        name, bare = m.group(1), m.group(4)
        if name == "link" and bare:  # Jekyll's own: a file path, never an anchor
            refs.append(RawRef(doc.path, sid, line, "jekyll", bare, None))
            continue
        path_part, _, anchor = (m.group(2) or m.group(3) or bare).strip().partition("#")
        refs.append(RawRef(doc.path, sid, line, f"tag:{name}", path_part, anchor or None))
    for m in SITE_URL_RE.finditer(masked):
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = (m.group(1) if m.group(1) is not None else m.group(3)).strip().partition("#")
        refs.append(RawRef(doc.path, sid, line, "site", path_part, anchor or None))
    for m in REF_DEF_RE.finditer(masked):
        target = m.group(2).strip()
        if m.group(1).startswith("^"):  # footnote definition
            continue
        line, sid = locate(body_start + m.start())
        path_part, _, anchor = target.partition("#")
        refs.append(RawRef(doc.path, sid, line, "md", path_part, anchor or None))
    if "ref" in masked or "subpage" in masked:
        for m in DOXYGEN_REF_RE.finditer(masked):
            line, sid = locate(body_start + m.start())
            refs.append(RawRef(doc.path, sid, line, "doxygen", m.group(1), None))
    if ":`" in text or "}`" in text:
        body = text[body_start:]
        for m in SPHINX_ROLE_RE.finditer(body):
            if masked[m.start()] != body[m.start()]:
                continue  # in a code block or span: text
            role, target = role_target(m)
            if target and not _INTERSPHINX.match(target):  # python:tutorial/venv: another project's page
                line, sid = locate(body_start + m.start())
                refs.append(RawRef(doc.path, sid, line, f"sphinx:{role}", target, None))
    blocks = template_blocks(masked) if "[[" in masked else []
    for m in WIKI_RE.finditer(masked):
        target, anchor = m.group(1) or "", m.group(2)
        if m.group(3) is not None:  # [[Note\|shown]]: in a table cell the bar is escaped, as Obsidian writes it there
            if anchor is not None:
                anchor = anchor.removesuffix("\\")
            else:
                target = target.removesuffix("\\")
        target = target.strip()
        anchor = (anchor or "").strip() or None
        if not target and not anchor:
            continue
        if masked.startswith("(", m.end()) or _NOT_A_NOTE.search(target) or (m.start() and _WORD_CHAR.match(masked, m.start() - 1)):
            # "[[1]](url)": a link whose text is "[1]"; [["CPU","ns"]]: data — no note's name
            # holds " < > * ?; Z[[int, str]]: a type's arguments, glued to its name
            continue
        if blocks and any(a <= m.start() < b for a, b in blocks):
            continue  # a site template's block is no vault: [[menus.main]] there is TOML
        if anchor is None and target.lower() in ("toc", "_toc_") and _TOC_MARKER.match(masked, masked.rfind("\n", 0, m.start()) + 1):
            continue  # the page's table of contents, not a note named "toc"
        line, sid = locate(body_start + m.start())
        refs.append(RawRef(doc.path, sid, line, "wiki", target, anchor))
    seen: set[tuple[str | None, str]] = set()
    # ADR-0007, and MSC2290 (a series id; UTF8 or SHA256 names nothing and is dropped unresolved)
    for m in chain(ID_TOKEN_RE.finditer(text, body_start), SERIES_TOKEN_RE.finditer(text, body_start)):
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


def structural_edges(spans: Sequence[SpanInfo]) -> list[Edge]:
    """The edges the spans of ONE document imply: NEXT/PREV between consecutive spans,
    PARENT_SECTION/CHILD_SECTION between a span and the head span of its section (see
    :func:`section_parents`). They are derived from the spans whenever they are asked for
    (``graph.edges.structural_of``), never stored."""
    out: list[Edge] = []
    ordered = sorted(spans, key=lambda s: s.ordinal)
    for a, b in zip(ordered, ordered[1:]):
        out.append(Edge(a.path, a.span_id, b.path, b.span_id, "NEXT"))
        out.append(Edge(b.path, b.span_id, a.path, a.span_id, "PREV"))
    for i, (j, rel) in sorted(section_parents(ordered).items()):
        child, parent = ordered[i], ordered[j]
        out.append(Edge(child.path, child.span_id, parent.path, parent.span_id, "PARENT_SECTION", rel))
        out.append(Edge(parent.path, parent.span_id, child.path, child.span_id, "CHILD_SECTION", rel))
    return out


def workstream_edges(doc: DocInfo | None) -> list[Edge]:
    """IN_WORKSTREAM (doc -> ``ws:<name>``): the one stored edge that depends on its document alone."""
    if doc is not None and doc.workstream:
        return [Edge(doc.path, None, WS_PREFIX + doc.workstream, None, "IN_WORKSTREAM", doc.workstream)]
    return []


def local_edges(spans: Sequence[SpanInfo], doc: DocInfo | None = None) -> list[Edge]:
    """The edges of one document that depend on nothing else: its structural edges and
    IN_WORKSTREAM."""
    return structural_edges(spans) + workstream_edges(doc)
