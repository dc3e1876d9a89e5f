"""Where a reference points: the resolver over the indexed documents, and raw references
turned into typed edges and dangling links (edge types in :mod:`graph.edges`). What a written
address may name before any lookup is :mod:`graph.addresses`'; the anchors a page defines,
:mod:`graph.anchors`'.
"""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, NamedTuple, Sequence

from oriongraph_cli.graph.addresses import (
    SERIES_NUMBER_RE,
    SPHINX_SUFFIXES,
    at_site_root,
    by_tail,
    file_number,
    folder_candidates,
    is_attachment,
    is_site_ref,
    md_unescape,
    named_ids,
    page_candidates,
    page_files,
    page_url,
    page_url_dir,
    relative,
    site_candidates,
    site_ref_shown,
    site_ref_target,
    unnumbered,
)
from oriongraph_cli.graph.anchors import (
    PageAnchors,
    RULE_ID_RE,
    label_of,
    rule_of,
)
from oriongraph_cli.graph.extract import (
    ADR_RE,
    ARTIFACTS_DIR,
    FRONT_MATTER_TYPES,
    MD_SUFFIXES,
    SCHEME_RE,
    SPHINX_ROLE_RE,
    DanglingLink,
    DocInfo,
    Edge,
    RawRef,
    SpanInfo,
    folder_name,
    heading_id,
    looks_like_path,
    own_url_key,
    role_target,
    site_url_key,
)
from oriongraph_cli.docids import own_series, prefixed_number
from oriongraph_cli.repository import OwnRepository
from oriongraph_cli.models import TOP_FOLDERS, Document, Span

if TYPE_CHECKING:
    from oriongraph_cli.store.registry import Registry

# --------------------------------------------------------------------------- resolver

class DocumentNames(NamedTuple):
    """The names by which links find a document, built from every document's link info and
    only read after: its path (as written and lower-cased), file stem, id, title, aliases and
    the site URLs it was moved from."""

    paths: set[str]
    lower_paths: dict[str, str]
    ids: dict[str, str]
    stems: dict[str, list[str]]
    titles: dict[str, str]
    urls: dict[str, list[str]]  # a site URL a page was moved from -> the pages declaring it
    unnumbered: dict[str, list[str]]  # a file stem without its number prefix -> its documents
    own_urls: dict[str, list[str]]  # a web address a page's front matter gives as its own -> those pages
    folders: dict[str, list[str]]  # a folder's name -> the folder's own pages (README.md, index.md, _index.md)
    numbered: dict[str, list[str]]  # "dir/N" -> the files of dir whose names begin with the number N (file_number)
    prefixed: dict[str, list[str]]  # "dir/sep-6" -> the files of dir whose stem is that series' name and number (sep-0006.md)

    @classmethod
    def of(cls, docs: dict[str, DocInfo]) -> "DocumentNames":
        order = sorted(docs)
        out = cls(set(docs), {p.lower(): p for p in order}, {}, {}, {}, {}, {}, {}, {}, {}, {})
        names = {path: posixpath.basename(path) for path in order}
        for path in order:
            d = docs[path]
            stem = posixpath.splitext(names[path])[0].lower()
            out.stems.setdefault(stem, []).append(path)
            if (bare := unnumbered(stem)) is not None:
                out.unnumbered.setdefault(bare, []).append(path)
            if (folder := folder_name(path)) is not None:
                out.folders.setdefault(folder, []).append(path)
            if (number := file_number(path)) is not None:
                out.numbered.setdefault(number, []).append(path)
            if (series := prefixed_number(stem)) is not None:
                out.prefixed.setdefault(f"{posixpath.dirname(path)}/{series}", []).append(path)
            for url in d.urls:
                out.urls.setdefault(url, []).append(path)
            for url in d.own_urls:
                out.own_urls.setdefault(url, []).append(path)
            if d.doc_id:
                out.ids.setdefault(str(d.doc_id).lower(), path)
            out.titles.setdefault(d.title.strip().lower(), path)
        for path in order:  # front matter aliases name a document after every title does
            for alias in docs[path].aliases:
                out.titles.setdefault(alias.lower(), path)
        # ADR-0007 also names ADR-0007-foo.md / a document titled "ADR-0007: ..." without an `id`,
        # and MSC2290 the document ``2290-….md`` titled "MSC2290: …"
        for path in order:
            for doc_id in named_ids(path, docs[path].title):
                out.ids.setdefault(doc_id.lower(), path)
        return out


# Each document row read -> its DocInfo, and the names those rows give: pure functions of the
# rows, kept between the runs of a process that indexes many times (``orion serve``, ``orion
# watch``: ``from_registry(keep=True)``), where a one-file change leaves the other rows (often
# every row) as they were. Replaced whole by each such read, so it holds one project's rows;
# a process that indexes once keeps nothing (~1.4 KB a document it would hold to its end).
_READ_ROWS: tuple[dict[tuple, DocInfo], DocumentNames | None] = ({}, None)

# ... and, for the rows of that read (``_READ_ROWS``' keys), the registry they were read from
# by its checksum once it is written (``kept_registry_written``; None until then), each
# document's first span and the read's token (``LinkResolver.read_token``): a next run whose
# registry is a copy of that one, changed at known paths, reads the rows of those paths only
# (``from_registry(since=)``).
_LAST_REGISTRY: tuple[Any, dict[str, str], object] | None = None


def kept_registry_written(checksum: Any) -> None:
    """The registry the last kept read was of is now written, with ``checksum``."""
    global _LAST_REGISTRY
    if _LAST_REGISTRY is not None and _LAST_REGISTRY[0] is None:
        _LAST_REGISTRY = (checksum, *_LAST_REGISTRY[1:])


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
        texts_loader: Callable[[str], list[tuple[str, str]]] | None = None,
        marked_loader: Callable[..., list[tuple[str, str, int, str, str, str | None]]] | None = None,
        names: DocumentNames | None = None,
        repository: OwnRepository | None = None,
    ):
        self.docs = docs
        # the repositories the project's files belong to: a link by such an address names the file
        self.repository = repository or OwnRepository()
        self.first_span = first_span
        self._load_spans = spans_loader
        # (span_id, text) of a document's spans, read only for an anchor no heading has
        self._load_texts = texts_loader or (lambda path: [(s.span_id, s.text) for s in self.spans_of(path)])
        # (path, span_id, ordinal, heading path JSON, text, next span id) of the spans holding a
        # needle: Registry.spans_holding, else read from every document's spans
        self._load_marked = marked_loader or self._marked_from_spans
        self.root = root
        self.names = names or DocumentNames.of(docs)
        self.paths, self.lower_paths = self.names.paths, self.names.lower_paths
        self.ids, self.stems, self.titles, self.urls = self.names.ids, self.names.stems, self.names.titles, self.names.urls
        self.unnumbered = self.names.unnumbered
        self._spans: dict[str, list[SpanInfo]] = {}
        # each page's anchors, read from its spans (and its file, for an outline) when a link names one
        self.anchors = PageAnchors(self.spans_of, self._load_texts, root)
        self._file_names: set[str] | None = None  # every file name in the stage folders, lower-cased
        self._doxygen: tuple[dict[str, tuple[str, str]], dict[str, list[str]]] | None = None  # doxygen_target's tables
        self._sphinx_paths: dict[str, list[str]] | None = None  # sphinx_doc's table
        self._sphinx_labels: dict[str, tuple[str, str]] | None = None  # sphinx_ref's table
        self._rules: dict[str, tuple[str, str]] | None = None  # rule_target's table
        self._path_cache: dict[tuple[str, str, str | None], tuple[str | None, str]] = {}
        # set by a kept read (``from_registry(keep=True)``): this read's token; and when it
        # was built on the last kept read, that read's token and the paths whose rows it read
        # again (every other document is the very DocInfo that read gave, with its first span)
        self.read_token: object | None = None
        self.kept_base: object | None = None
        self.reread: frozenset[str] = frozenset()

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_documents(cls, docs: Iterable[Document], spans: dict[str, Sequence[Span]] | None = None, root: Path | None = None) -> "LinkResolver":
        infos = {d.path: DocInfo.from_document(d) for d in docs}
        by_path = {p: sorted((SpanInfo.from_span(s) for s in ss), key=lambda s: s.ordinal) for p, ss in (spans or {}).items()}
        first = {p: ss[0].span_id for p, ss in by_path.items() if ss}
        return cls(infos, first, lambda p: by_path.get(p, []), root)

    @classmethod
    def from_registry(cls, registry: "Registry", root: Path | None = None, *, keep: bool = False,
                      since: tuple[Any, Collection[str]] | None = None,
                      repository: OwnRepository | None = None) -> "LinkResolver":
        """``keep``: the process reads again (``orion serve``, ``orion watch``): what each
        row gave, and the names they gave, are kept for the next read, and taken from the
        last one where it kept them. ``since`` (with ``keep``): (checksum, paths): this
        registry is a copy of the one written with that checksum, changed at those paths
        only; when the last kept read was of that registry, only the rows of those paths are
        read again."""
        global _READ_ROWS, _LAST_REGISTRY
        (kept, kept_names), read = _READ_ROWS if keep else ({}, None), {}
        last = _LAST_REGISTRY if keep else None
        base, changed = None, set()
        if last is not None and since is not None and last[0] == since[0]:
            base, changed = last[2], set(since[1])
            # (every reader of the documents goes in path order: the rows' order does not count)
            rows = [r for r in kept if r[0] not in changed] + registry.document_links_info(changed)
            first = {p: s for p, s in last[1].items() if p not in changed}
            first.update(registry.first_span_ids(changed))
        else:
            rows, first = registry.document_links_info(), registry.first_span_ids()
        docs, misses = {}, 0
        for r in rows:
            info = kept.get(r)
            if info is None:
                info, misses = DocInfo.from_row(r), misses + 1
            read[r] = docs[r[0]] = info
        # every row read before, and no other: the same documents by the same names
        names = kept_names if not misses and len(read) == len(kept) else None

        def load(path: str) -> list[SpanInfo]:
            return [SpanInfo(path, r[1], r[2], tuple(json.loads(r[3])), r[4], "", r[0]) for r in registry.document_outline(path)]

        resolver = cls(docs, first, load, root, registry.document_texts, registry.spans_holding, names, repository)
        if keep:
            resolver.read_token, resolver.kept_base, resolver.reread = object(), base, frozenset(changed)
            _READ_ROWS = (read, resolver.names)
            _LAST_REGISTRY = (None, first, resolver.read_token)
        return resolver

    # ---------------------------------------------------------------- lookups
    def spans_of(self, path: str) -> list[SpanInfo]:
        if path not in self._spans:
            self._spans[path] = sorted(self._load_spans(path), key=lambda s: s.ordinal)
        return self._spans[path]

    def anchor(self, path: str, anchor: str) -> str | None:
        """span_id of the place ``#anchor`` names in ``path`` (:meth:`PageAnchors.find`)."""
        return self.anchors.find(path, anchor)

    def ref_page(self, src_path: str, target: str) -> str | None:
        """The document a site generator's page reference (Hugo's ``ref``, Jekyll's ``link``)
        names when no file has its path: the page its URL is (``docs/setup.md`` as
        ``docs/setup``: the site rules of :meth:`resolve_path`)."""
        dst, status = self.resolve_path(src_path, page_url(target))
        return dst if status in ("ok", "page") else None

    def attachment(self, src_path: str, name: str) -> bool:
        """Whether a file a wiki embed names (``![[diagram.png]]``) is in the project: beside
        the document, at that path from the root, or — as Obsidian finds attachments — by
        its name anywhere in the stage folders."""
        if self.root is None:
            return False
        rel, _why = relative(posixpath.dirname(src_path), name)
        if rel is not None and (self.root / rel).is_file():
            return True
        rel, _why = relative("", name)
        if rel is not None and (self.root / rel).is_file():
            return True
        if self._file_names is None:
            self._file_names = {f.lower() for top in TOP_FOLDERS
                                for _dir, _subdirs, files in os.walk(self.root / top)  # links are not followed
                                for f in files}
        return posixpath.basename(name).lower() in self._file_names

    def _marked_from_spans(self, *needles: str) -> list[tuple[str, str, int, str, str, str | None]]:
        out = []
        for path in sorted(self.docs):
            texts = self._load_texts(path)
            outline = {s.span_id: s for s in self.spans_of(path)}
            for i, (span_id, text) in enumerate(texts):
                s = outline.get(span_id)
                heading = json.dumps(list(s.heading_path)) if s is not None else "[]"
                if any(n in text or n in heading for n in needles):
                    out.append((path, span_id, i, heading, text, texts[i + 1][0] if i + 1 < len(texts) else None))
        return out

    def doxygen_target(self, name: str) -> tuple[str, str | None] | None:
        """(path, span id or None) a Doxygen cross-reference names, ``@ref name``: the heading
        whose id is written ``{#name}`` (the first in path order), else the one page whose
        Doxygen name — its path without the extension, ``/`` read as ``_`` — ends as ``name``
        does, from a folder boundary on (``docs_storage_terms`` names ``…/storage/terms.md``,
        ``docs_sql_wb_changes`` ``…/sql/wb_changes.md``, whatever folder the pages were
        copied under); None when none (a class, a group or a member: Doxygen's own symbols)
        or when two pages end alike. Case is ignored, as in the other name rules."""
        if self._doxygen is None:
            ids: dict[str, tuple[str, str]] = {}
            for path, span_id, _o, heading_path, _text, _next in self._load_marked("{#"):
                if path not in self.docs:
                    continue
                for heading in json.loads(heading_path):  # the first span under the heading, as slugs() names it
                    hid = heading_id(heading)
                    if hid is not None:
                        ids.setdefault(hid.lower(), (path, span_id))
            self._doxygen = (ids, self._path_tails("_"))
        ids, tails = self._doxygen
        key = name.lower()
        if key in ids:
            return ids[key]
        pieces = key.split("_")
        for n in range(len(pieces)):  # the longest end of the name some page's path ends with
            if "_".join(pieces[n:]) in tails:
                dst = _only(tails["_".join(pieces[n:])])
                return (dst, None) if dst is not None else None
        return None

    def _path_tails(self, sep: str) -> dict[str, list[str]]:
        """Every document's path without its suffix, lower-cased, and each end of it from a
        folder boundary on, joined by ``sep`` -> the documents whose path ends so."""
        tails: dict[str, list[str]] = {}
        for path in sorted(self.docs):
            parts = posixpath.splitext(path)[0].lower().split("/")
            for n in range(len(parts)):
                tails.setdefault(sep.join(parts[n:]), []).append(path)
        return tails

    def sphinx_doc(self, src_path: str, target: str) -> str | None:
        """The document Sphinx's ``:doc:`target``` names: a path without its suffix, from the
        linking page's folder, or from the documentation's root when it starts with ``/``
        (``/intro/tutorial05``) — read, wherever the docs were copied to, as the one
        document whose path ends as the target does from a folder on, or, of several that a
        target from the root fits, the one at the documentation's root (Flask's
        ``:doc:`/gevent``` is ``flask/gevent.rst``, not ``flask/deploying/gevent.rst``:
        :func:`at_site_root`); None when none, or two as near the root."""
        if self._sphinx_paths is None:
            self._sphinx_paths = self._path_tails("/")
        tails = self._sphinx_paths  # a whole path is its own longest end
        t = target.strip()
        if not t.startswith("/"):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(src_path), t)).lower()
            joined = posixpath.splitext(joined)[0] if joined.endswith(SPHINX_SUFFIXES) else joined
            hit = [p for p in tails.get(joined, ()) if posixpath.splitext(p)[0].lower() == joined]
            if len(hit) == 1:
                return hit[0]
        rel = posixpath.normpath("/" + t).lstrip("/").lower()
        rel = posixpath.splitext(rel)[0] if rel.endswith(SPHINX_SUFFIXES) else rel
        if not rel or rel == ".":
            return None
        hits = tails.get(rel, ())
        # from the root, of several the one at the documentation's root (link rules 26)
        return _only(hits) or (at_site_root(hits) if t.startswith("/") and hits else None)

    def sphinx_ref(self, label: str) -> tuple[str, str] | None:
        """(path, span id) of the place Sphinx's ``:ref:`label``` names: the section after a
        label's line, ``.. _label:`` (reStructuredText) or ``(label)=`` (MyST) — the span that
        holds the line, or the next one when nothing but labels follows it in its span; the
        first in path order; case ignored, as Sphinx ignores it."""
        if self._sphinx_labels is None:
            self._sphinx_labels = self._marker_table((".. _", ")=", ":label:"), label_of)
        return self._sphinx_labels.get(label.strip().lower())

    def rule_target(self, rule: str) -> tuple[str, str] | None:
        """(path, span id) of the place a rule id names, ``expr.deref``: the span holding the
        line ``r[expr.deref]`` (mdBook's spec preprocessor marks each rule so), or the next one
        when nothing but rule lines follows it in its span; the first in path order."""
        if self._rules is None:
            self._rules = self._marker_table(("r[",), rule_of)
        return self._rules.get(rule)

    def _marker_table(self, needles: tuple[str, ...], name_of: Callable[[str], str | None]) -> dict[str, tuple[str, str]]:
        """Name -> (path, span id) of every line that marks a place (``name_of(line)``: the
        name it gives, else None) in the spans holding one of ``needles``: the span holding the
        line, or the next one when nothing but marker lines follows it in its span; the first
        in path order."""
        table: dict[str, tuple[str, str]] = {}
        for path, span_id, _o, _heading, text, next_id in self._load_marked(*needles):
            if path not in self.docs:
                continue
            lines = text.split("\n")
            for k, line in enumerate(lines):
                name = name_of(line)
                if name is None:
                    continue
                last = all(not ln.strip() or name_of(ln) is not None for ln in lines[k + 1:])
                table.setdefault(name, (path, next_id if last and next_id else span_id))
        return table

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

    def series_record(self, src_path: str, name: str) -> str | None:
        """The one file of ``src_path``'s folder whose name begins with the number ``name``
        gives, written alone or after the series' name (``0015``, ``SIMD-0387``): a front matter
        link field's way (``supersedes``, ``related``…) of naming a record of its own series (:data:`SERIES_NUMBER_RE`);
        else the one whose file stem is the series' name and that number with any zeros
        (a status's "in favor of SEP-6" for ``sep-0006.md``)."""
        m = SERIES_NUMBER_RE.fullmatch(name.strip())
        if m is None:
            return None
        folder = posixpath.dirname(src_path)
        hit = _only(self.names.numbered.get(f"{folder}/{int(m.group(1))}", ()))
        if hit is None and (series := prefixed_number(name) or own_series(src_path, name)) is not None:
            hit = _only(self.names.prefixed.get(f"{folder}/{series}", ()))  # "SEP-6" for sep-0006.md
        return hit

    def unnumbered_page(self, name: str) -> str | None:
        """The one page whose file name without the number that orders it is ``name``: the
        way a site numbering its files names its pages, and so the way a record's state names
        its successor there ("deprecated in favour of [$app/env]($app-env)" for
        ``19-$app-env.md``: SvelteKit's docs). None for none or several."""
        stem = name_stem(name.strip().lower())
        return _only(self.unnumbered.get(stem, ())) if stem else None

    def resolve_path(self, src_path: str, target: str) -> tuple[str | None, str]:
        """Resolve a link path written in ``src_path``: (indexed path | None, status) with
        status "ok" | "page" (a site URL's page: :meth:`_site_page`) | "external" |
        "not-indexed" (exists on disk) | "missing" | "outside-root"."""
        key = (posixpath.dirname(src_path), target, page_url_dir(src_path, target))
        hit = self._path_cache.get(key)
        if hit is None:
            hit = self._path_cache[key] = self._resolve_path(key[0], target, key[2])
        return (src_path, "ok") if hit == ("", "self") else hit


    def _resolve_path(self, src_dir: str, target: str, page_dir: str | None = None) -> tuple[str | None, str]:
        """As :meth:`resolve_path`; ``page_dir`` the folder a static site serves the linking
        page as (:func:`page_url_dir`), read after the file's folder and before any page
        found by its name alone."""
        rel, why = relative(src_dir, target)
        if rel is None:
            if why == "external" and (own := self.own_url(target)) is not None:
                return own, "ok"
            if why == "external" and (hit := self.own_repository_file(target)) is not None:
                return hit
            return ("", "self") if why == "self" else (None, why)
        for cand in folder_candidates(rel):
            if cand in self.paths:
                return cand, "ok"
        low = self.lower_paths.get(rel.lower())
        if low:
            return low, "ok"
        if self.root is not None and (self.root / rel).exists():
            return None, "not-indexed"
        page = self._site_page(rel, page_dir, target) or (self._rooted_page(rel) if target.lstrip().startswith("/") else None)
        if page is not None:
            return page, "page"
        return None, "missing"

    def _rooted_page(self, rel: str) -> str | None:
        """The document a root-absolute Markdown path names when the site's root is kept
        under a stage folder (VitePress, Docusaurus: ``/config/server-options.md`` names
        ``02_knowledge/vite/config/server-options.md``): the one document whose path ends as
        the link's does, or with its longest tail that any document's path ends with, its
        folder at least (:func:`by_tail`: ``/docs/config/server-options.md`` names it too), or —
        a file named alone at the site's root, ``/overview.md`` — the one of that name whose
        folder holds every other's (Helm's ``helm/overview.md``, not ``helm/plugins/overview.md``).
        A relative path that names no file stays dangling."""
        if not rel.lower().endswith(MD_SUFFIXES):
            return None
        return by_tail(self.stems.get(posixpath.splitext(posixpath.basename(rel))[0].lower(), ()), rel, rooted=True)

    def _site_page(self, rel: str, page_dir: str | None = None, target: str = "") -> str | None:
        """The document a site URL names when no file has its path: ``manual/dns.html`` or
        ``manual/dns/`` (a static site's page, as Jekyll, Middleman, MkDocs and Hugo link
        them) names ``manual/dns.md``, else — ``target`` read from the linking page's own URL,
        ``page_dir``, as a static site serves ``tools/slack.md`` at ``/tools/slack/``, where
        ``records/`` names ``tools/slack/records.md`` — the page there, else the one page whose front matter says it was moved
        from that URL (``redirect_from``, Hugo's path ``aliases``), else the one document whose
        file stem is ``dns`` — or, of several, the one whose path ends in ``manual/dns.md`` —,
        else the one folder page whose path ends in ``manual/dns/index.md`` (or README.md).
        Never for a ``.md`` path (a root-absolute one: :meth:`_rooted_page`) or a file of
        another kind: a moved file stays dangling."""
        cands = site_candidates(rel)
        if cands is not None and (hit := next((c for c in page_files(cands[0]) if c in self.paths), None)) is not None:
            return hit
        if page_dir is not None:
            hit = next((c for c in page_candidates(page_dir, target) if c in self.paths), None)
            if hit is not None:
                return hit
        if cands is None:
            return None
        path, stem = cands
        moved = self.urls.get(site_url_key(rel) or "", ())
        if len(moved) == 1:  # the page that says it was moved from this URL (redirect_from, Hugo's aliases)
            return moved[0]
        # a page's file name, else its name without the number that orders it (Docusaurus and
        # Svelte's site serve 07-misc/02-testing.md at /docs/svelte/testing)
        hits = self.stems.get(stem, ()) or self.unnumbered.get(stem, ())
        if len(hits) == 1:
            return hits[0]
        # several pages share the name: the one whose path ends as the URL does (the site's
        # root kept under a stage folder: /manual/get-started.html -> 02_knowledge/manual/get-started.md;
        # the folder a site serves its pages from need not be kept: /docs/visualization/consoles/
        # -> 02_knowledge/prometheus/visualization/consoles.md)
        hit = by_tail(hits, path)
        if hit is not None:
            return hit
        # a folder's page under a stage folder: /docs/guide/ -> 02_knowledge/site/docs/guide/index.md
        for page in folder_candidates(rel)[3:]:
            hit = by_tail(self.stems.get(posixpath.splitext(posixpath.basename(page))[0].lower(), ()), page)
            if hit is not None:
                return hit
        return None

    def own_repository_file(self, target: str) -> tuple[str, str] | None:
        """(document, status) a web address names when it is a file of the project's own
        repository (``https://github.com/o/r/blob/main/docs/setup.md``: :class:`OwnRepository`),
        found as the root-absolute path ``/docs/setup.md`` is; None for any other address and
        for a file the index does not hold, which stays an external link (never a dangling one).
        A Markdown file no document's path ends with is the one document of its file name, if
        one alone has it (the project keeps it under other folders, or it moved since)."""
        rel = self.repository.path_of(target)
        if rel is None:
            return None
        dst, status = self._resolve_path("", "/" + rel)
        if dst is not None and status in ("ok", "page"):
            return dst, status
        # a Markdown file the project keeps under other folders (or moved since the link was
        # written): the one document of that file name
        base = posixpath.basename(rel)
        if base.lower().endswith(MD_SUFFIXES):
            named = [p for p in self.stems.get(posixpath.splitext(base)[0].lower(), ()) if posixpath.basename(p).lower() == base.lower()]
            if len(named) == 1:
                return named[0], "page"
        return None

    def own_url(self, target: str) -> str | None:
        """The one page whose front matter gives ``target`` (a full web address) as its own:
        a link to Ember's RFC 1071 by its pull request, ``https://github.com/emberjs/rfcs/pull/1071``,
        names ``1071-….md``, whose ``prs: {accepted: …}`` is that address. None when no page, or
        more than one, gives it."""
        key = own_url_key(target)
        return _only(self.names.own_urls.get(key, ())) if key else None

    def resolve_name(self, src_path: str, name: str) -> str | None:
        """A wiki target, front matter value or a name a record's text gives its successor:
        id, then path (relative to the document, then to the root), file stem, title, then the
        one folder of that name's own page. An ambiguous stem prefers the document's own
        folder, then the longest shared folder prefix, then the shortest path."""
        name = name.strip()
        if not name:
            return None
        hit = self.ids.get(name.lower())
        if hit:
            return hit
        if SCHEME_RE.match(name):  # a web address: the page giving it as its own, or a file of the project's repository
            own = self.own_url(name)
            if own is None and (found := self.own_repository_file(name)) is not None:
                own = found[0]
            return own
        lower = name.lower()
        if "/" in name or lower.endswith(MD_SUFFIXES):
            for base in (name, "/" + name.lstrip("/")):
                path, status = self.resolve_path(src_path, base)
                if status in ("ok", "page") and path is not None:  # a site URL's page too, as its link resolves
                    return path
        stem = name_stem(lower)
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
        if ADR_RE.match(name):
            return self.resolve_id(name)
        # a folder's own page by the folder's name, when one folder has it: "QUIC" names
        # quic/README.md, whose title is "QUIC in libp2p"
        return _only(self.names.folders.get(stem, ()))


# --------------------------------------------------------------------------- phase 2: resolution


# --------------------------------------------------------------------------- dependencies
#
# What a reference's resolution looked up, as keys: "path:P" (P in the indexed paths),
# "lower:P" (case-insensitive path), "stem:S", "title:T", "id:I" (ids, ADR numbers),
# "url:U" (a site URL a page was moved from), "own:W" (a web address a page gives as its own),
# "num:D/N" (the files of folder D whose names begin with the number N), "pnum:D/sep-6" (the
# files of folder D whose stem is that series' name and number, sep-0006.md),
# "doc:P" (anything of document P: its headings, for an anchor) and "fs" (the file
# system was asked: a link to a file that is not indexed). A reference resolves the same
# against two document sets that agree on every key it looked up (and, for "fs", the
# same files on disk); :func:`document_keys` gives the keys a document contributes, so
# the keys of the documents an index run changed say which references to resolve again.
FS_KEY = "fs"
# what a Doxygen or Sphinx cross-reference or a rule id looked up: every document's heading ids, labels, rule lines and
# path (a coarse key every document sets: a change anywhere resolves the pages holding one again)
XREF_KEY = "xref"



def name_stem(name: str) -> str:
    """The file stem a name (lower-cased) looks pages up by: its last path part, without a
    Markdown suffix (``docs/setup.md`` and ``setup`` are ``setup``; ``v1.2`` stays ``v1.2``)."""
    base = posixpath.basename(name)
    return posixpath.splitext(base)[0] if base.endswith(MD_SUFFIXES) else base


def _only(paths) -> str | None:
    """The one path of ``paths``; None for none or several (a name two pages fit names none)."""
    return paths[0] if len(paths) == 1 else None


def _pep_ids(number: str) -> tuple[str, ...]:
    """The ids a ``:pep:`N``` role may name: PEP-000N as the PEPs write it, else PEP-N."""
    return (f"PEP-{int(number):04d}", f"PEP-{int(number)}") if number.strip().isdigit() else ()


def _ref_type(dst: str) -> str:
    return "CITES" if dst.startswith(ARTIFACTS_DIR) else "REF"


def document_keys(doc: DocInfo) -> set[str]:
    """The lookup keys ``doc`` sets in a :class:`LinkResolver` (see above)."""
    path = doc.path
    keys = {f"path:{path}", f"lower:{path.lower()}", f"doc:{path}", f"title:{doc.title.strip().lower()}", XREF_KEY}
    keys.update(f"title:{alias.lower()}" for alias in doc.aliases)
    keys.update(f"url:{url}" for url in doc.urls)
    keys.update(f"own:{url}" for url in doc.own_urls)
    if (number := file_number(path)) is not None:
        keys.add(f"num:{number}")  # LinkResolver.series_record
    stem = posixpath.splitext(posixpath.basename(path))[0].lower()
    if (series := prefixed_number(stem)) is not None:
        keys.add(f"pnum:{posixpath.dirname(path)}/{series}")  # LinkResolver.series_record
    keys.add("stem:" + stem)
    if (bare := unnumbered(stem)) is not None:
        keys.add("stem:" + bare)  # LinkResolver._site_page
    if (folder := folder_name(path)) is not None:
        keys.add("stem:" + folder)  # LinkResolver.resolve_name, a folder's own page
    if doc.doc_id:
        keys.add(f"id:{str(doc.doc_id).lower()}")
    keys.update(f"id:{doc_id.lower()}" for doc_id in named_ids(path, doc.title))
    return keys


def _id_keys(token: str, keys: set[str]) -> None:
    """The ids :meth:`LinkResolver.resolve_id` may try for ``token``."""
    keys.add(f"id:{token.lower()}")
    parts = token.split("-")
    for n in range(len(parts) - 1, 1, -1):
        keys.add("id:" + "-".join(parts[:n]).lower())


def _path_keys(src_path: str, target: str, keys: set[str]) -> None:
    """The paths :meth:`LinkResolver.resolve_path` may look up for ``target``."""
    if (own := own_url_key(target)) is not None:  # a web address: the page giving it as its own
        keys.add(f"own:{own}")
    if (page_dir := page_url_dir(src_path, target)) is not None:
        keys.update(f"path:{c}" for c in page_candidates(page_dir, target))
    rel, _why = relative(posixpath.dirname(src_path), target)
    if rel is not None:
        keys.update(f"path:{c}" for c in folder_candidates(rel))
        keys.add(f"lower:{rel.lower()}")
        if target.lstrip().startswith("/") and rel.lower().endswith(MD_SUFFIXES):
            keys.add("stem:" + posixpath.splitext(posixpath.basename(rel))[0].lower())  # LinkResolver._rooted_page
        site = site_candidates(rel)
        if site is not None:
            keys.update((*(f"path:{f}" for f in page_files(site[0])), f"stem:{site[1]}"))
            if (url := site_url_key(rel)) is not None:
                keys.add(f"url:{url}")
            keys.update("stem:" + posixpath.splitext(posixpath.basename(page))[0].lower() for page in folder_candidates(rel)[3:])


def _name_keys(src_path: str, name: str, keys: set[str]) -> None:
    """The keys :meth:`LinkResolver.resolve_name` may look up for ``name``."""
    name = name.strip()
    if not name:
        return
    lower = name.lower()
    keys.add(f"id:{lower}")
    if (own := own_url_key(name)) is not None:
        keys.add(f"own:{own}")
    if "/" in name or lower.endswith(MD_SUFFIXES):
        for base in (name, "/" + name.lstrip("/")):
            _path_keys(src_path, base, keys)
    keys.add("stem:" + name_stem(lower))
    keys.add(f"title:{lower}")
    if ADR_RE.match(name):
        _id_keys(name, keys)


def resolve_refs(
    refs: Iterable[RawRef], resolver: LinkResolver, deps: dict[str, set[str]] | None = None
) -> tuple[list[Edge], list[DanglingLink]]:
    """Raw references -> typed edges and dangling links (types in the module doc).
    ``deps`` (optional) receives, per source document, the keys its references looked up."""
    edges: list[Edge] = []
    dangling_out: list[DanglingLink] = []
    for r in refs:
        path, span_id, line, kind, target, anchor = r
        n_edges = len(edges)
        _resolve_one(r, resolver, edges, dangling_out)
        if deps is not None:
            keys = deps.setdefault(path, set())
            if kind == "id":
                _id_keys(target, keys)
            elif kind == "sphinx:pep":  # an id, as a mention looks it up
                for pep in _pep_ids(target.partition("#")[0]):
                    _id_keys(pep, keys)
            elif kind == "doxygen" or kind.startswith("sphinx:"):
                keys.add(XREF_KEY)
            elif kind.startswith("stated:") and (role := SPHINX_ROLE_RE.fullmatch(target)) is not None:
                role_name, named = role_target(role)
                if role_name == "pep":
                    for pep in _pep_ids(named.partition("#")[0]):
                        _id_keys(pep, keys)
                else:
                    keys.add(XREF_KEY)
            elif is_site_ref(kind):
                target = site_ref_target(kind, target)
                _path_keys(path, target, keys)
                if resolver.resolve_path(path, target)[1] != "ok":  # the page its URL is was looked for too
                    _path_keys(path, page_url(target), keys)
                    keys.add(FS_KEY)
            elif kind == "md" or kind == "img":
                _path_keys(path, md_unescape(target), keys)
                if (in_repo := resolver.repository.path_of(md_unescape(target))) is not None:
                    _path_keys("", "/" + in_repo, keys)  # LinkResolver.own_repository_file
                dst, status = resolver.resolve_path(path, md_unescape(target))
                if status in ("not-indexed", "missing", "page"):
                    keys.add(FS_KEY)
                if status == "missing" and kind == "md" and RULE_ID_RE.fullmatch(target):
                    keys.add(XREF_KEY)  # LinkResolver.rule_target
                if anchor and kind == "md" and dst is not None and resolver.anchor(dst, anchor) is None:
                    keys.add(XREF_KEY)  # an anchor no heading names: the labels were looked up (_link_edge)
            elif target:
                _name_keys(path, target, keys)
                if (in_repo := resolver.repository.path_of(target)) is not None:
                    _path_keys("", "/" + in_repo, keys)  # LinkResolver.own_repository_file
                if kind.startswith(("fm:", "stated:")) and (m := SERIES_NUMBER_RE.fullmatch(md_unescape(target).strip())):
                    keys.add(f"num:{posixpath.dirname(path)}/{int(m.group(1))}")  # LinkResolver.series_record
                    if (series := prefixed_number(md_unescape(target)) or own_series(path, md_unescape(target))) is not None:
                        keys.add(f"pnum:{posixpath.dirname(path)}/{series}")
                if kind == "wiki" and is_attachment(target):
                    keys.add(FS_KEY)
            # the other end of an edge: an anchor reads its headings
            keys.update(f"doc:{e.dst_path}" for e in edges[n_edges:])
            if anchor:
                keys.add(f"doc:{path}")
    return _dedupe(edges), dangling_out


def _resolve_one(r: RawRef, resolver: LinkResolver, edges: list[Edge], dangling_out: list[DanglingLink]) -> None:
    path, span_id, line, kind, target, anchor = r
    written = target + (f"#{anchor}" if anchor else "")
    if kind == "id":
        dst = resolver.resolve_id(target)
        if dst is not None and dst != path:
            edges.append(Edge(path, span_id, dst, None, "MENTIONS", target, line))
    elif kind == "doxygen":  # nothing named is no dangling link: the name may be a class's or a group's
        hit = resolver.doxygen_target(target)
        if hit is not None and (hit[0] != path or hit[1] is not None):
            edges.append(Edge(path, span_id, hit[0], hit[1], _ref_type(hit[0]), f"@ref {target}", line))
    elif kind == "sphinx:doc":  # a page named by its path: one the project lacks is a dangling link
        dst, _ = sphinx_destination(resolver, path, "doc", target)
        if dst is None:
            dangling_out.append(DanglingLink(path, line, f":doc:`{target}`", "link"))
        elif dst != path:
            edges.append(Edge(path, span_id, dst, None, _ref_type(dst), f":doc:`{target}`", line))
    elif kind == "sphinx:pep":  # PEP 8 as the project holds it (an id PEP-0008); python.org's else
        dst, dst_span = sphinx_destination(resolver, path, "pep", target)
        if dst is not None and dst != path:
            edges.append(Edge(path, span_id, dst, dst_span, _ref_type(dst), f":pep:`{target}`", line))
    elif kind == "sphinx:ref":  # a label no page sets may come from another project (intersphinx): left alone
        dst, dst_span = sphinx_destination(resolver, path, "ref", target)
        if dst is not None and (dst != path or dst_span != span_id):
            edges.append(Edge(path, span_id, dst, dst_span, _ref_type(dst), f":ref:`{target}`", line))
    elif kind == "md" or kind == "img":
        dst, status = resolver.resolve_path(path, md_unescape(target))
        if status == "external" or status == "not-indexed":
            return
        if dst is None and kind == "md" and status == "missing" and not anchor and RULE_ID_RE.fullmatch(target):
            hit = resolver.rule_target(target)  # "[dereference expression]: expr.deref"
            if hit is not None:
                if hit != (path, span_id):
                    edges.append(Edge(path, span_id, hit[0], hit[1], _ref_type(hit[0]), written, line))
                return
        if dst is None:
            if not looks_like_path(target):
                return  # "[Ca(2+)](i)" in a chemistry abstract is text, not a link
            if kind == "img" and "/" not in target and resolver.attachment(path, md_unescape(target)):
                return  # ![](diagram.png): a file named alone, found as Obsidian finds attachments
            dangling_out.append(DanglingLink(path, line, written, "image" if kind == "img" else ("outside-root" if status == "outside-root" else "link")))
        elif kind == "md":
            _link_edge(edges, dangling_out, resolver, r, dst, written)
    elif is_site_ref(kind):  # a page as a site generator's tag names it: a path, or the page built from it
        site_target = site_ref_target(kind, target)
        dst, status = resolver.resolve_path(path, site_target)
        if dst is None and status == "missing":
            dst = resolver.ref_page(path, site_target)
        if dst is None:
            if status not in ("external", "not-indexed", "self"):
                dangling_out.append(DanglingLink(path, line, site_ref_shown(kind, written), "link"))
        else:
            _link_edge(edges, dangling_out, resolver, r, dst, written)
    elif kind == "wiki":
        dst = resolver.resolve_name(path, target) if target else path
        if dst is None:
            if is_attachment(target) and resolver.attachment(path, target):
                return  # an embedded file that is not a note: in the project, not indexed
            if target.isdigit() and r.anchor is None:
                return  # "[[17]]", a numbered citation, names a note only where one has that name
            dangling_out.append(DanglingLink(path, line, f"[[{written}]]", "wiki"))
        else:
            _link_edge(edges, dangling_out, resolver, r, dst, f"[[{written}]]")
    elif kind.startswith(("fm:", "stated:")):
        origin, _, key = kind.partition(":")
        role = SPHINX_ROLE_RE.fullmatch(target) if origin == "stated" and target.endswith("`") else None
        if role is not None:  # ":Replaced-By: :ref:`NEP56`": the page the cross-reference names
            dst, dst_span = sphinx_destination(resolver, path, *role_target(role))
            if dst is None:
                return  # a link in the text too: reported as that, where it is one
        else:
            name = md_unescape(target) if origin == "stated" else target
            dst = (resolver.resolve_name(path, name) or resolver.series_record(path, name)
                   or resolver.unnumbered_page(name)) if target else path
            if dst is None:
                if origin == "fm":  # a stated one is a link in the text too: reported as that
                    dangling_out.append(DanglingLink(path, line, written, f"front-matter:{key}"))
                return
            dst_span = resolver.anchor(dst, anchor) if anchor else None
        if dst == path and dst_span is None:
            return
        edges.append(Edge(path, None, dst, dst_span, FRONT_MATTER_TYPES[key], written, line))




def sphinx_destination(resolver: LinkResolver, path: str, role: str, target: str) -> tuple[str | None, str | None]:
    """(page, span or None) a Sphinx cross-reference from ``path`` names: ``:doc:`` a page by
    its path, ``:ref:`` the place a label is set (None for a label no page sets: another
    project's, through intersphinx), ``:pep:`` PEP N as the project holds it (an id PEP-000N)."""
    if role == "doc":
        return resolver.sphinx_doc(path, target), None
    if role == "pep":
        number, _, anchor = target.partition("#")
        dst = next((d for d in map(resolver.resolve_id, _pep_ids(number)) if d is not None), None)
        return dst, (resolver.anchor(dst, anchor) if dst is not None and anchor else None)
    return resolver.sphinx_ref(target) or (None, None)


def _link_edge(edges: list[Edge], dangling_out: list[DanglingLink], resolver: LinkResolver, r: RawRef, dst: str, written: str) -> None:
    dst_span = None
    if r.anchor:
        dst_span = resolver.anchor(dst, r.anchor)
        if dst_span is None and (label := resolver.sphinx_ref(md_unescape(r.anchor))) is not None and (label[0] == dst or dst == r.path):
            # a label's line, MyST's "(label)=" or ".. _label:", on the page the link names;
            # a link to this page's "#label" names it on any page, as MyST resolves "[](#label)"
            dst, dst_span = label
        if dst_span is None and not SCHEME_RE.match(r.target):  # a web address's heading may be another revision's
            dangling_out.append(DanglingLink(r.path, r.line, written, "anchor"))
    if dst == r.path and dst_span is None:
        return
    edges.append(Edge(r.path, r.span_id, dst, dst_span, _ref_type(dst), written, r.line))


def _dedupe(edges: Iterable[Edge]) -> list[Edge]:
    seen: set[tuple] = set()
    out = []
    for e in edges:
        key = e[:5]
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
