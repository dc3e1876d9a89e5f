"""What a page names for links to find inside it, as its text writes it: the anchors of its
headings (an id written on one, its GitHub slug numbered when repeated), anchors set in HTML,
by an attribute list or as an Obsidian block id, definition-list terms, Sphinx and MyST labels
and mdBook rule ids; :class:`PageAnchors` holds each page's tables, read from its spans (and
its file, for the outline) the first time a link names an anchor in it. The resolver
(:mod:`graph.resolve`) finds an anchor through it and reads labels and rule ids with these.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Callable
from urllib.parse import unquote

from oriongraph_cli.blocks import front_matter_end, read_blocks, syntax_of
from oriongraph_cli.graph.addresses import md_unescape
from oriongraph_cli.graph.extract import HEADING_TEXT_MAX, SpanInfo, heading_id, heading_text, loose_anchor, mask_code, slugify, toc_slug

# a note read for its outline (``PageAnchors.outline_anchors``) is at most this long
OUTLINE_MAX_BYTES = 16 * 1024 * 1024

# a label's line: reStructuredText's ``.. _label:`` (not a hyperlink target, which has a URL
# after the colon), MyST's ``(label)=``, and a MyST directive's ``:label: x`` option
_LABEL_LINE = re.compile(r"^\s*(?:\.\.\s+_([^`:\n][^:\n]*):|\(([^()\s]+)\)=|:label:[ \t]+([^\s`]+))\s*$")


# a block id, as Obsidian marks a paragraph a link may name (``[[Note#^block-id]]``): "^id" ending a line
BLOCK_ID = re.compile(r"(?:^|[ \t]|(?<=\]\]))\^([A-Za-z0-9-]+)[ \t]*$", re.MULTILINE)
# a definition list's definition line (``: text`` under its term, PHP Markdown Extra's and
# goldmark's syntax): a site that gives each term an id (Hugo's ``autoDefinitionTermID``)
# lets a link name the term
_DEFINITION_LINE = re.compile(r"^ {0,3}:[ \t]+\S")
ANY_DEFINITION_LINE = re.compile(_DEFINITION_LINE.pattern, re.MULTILINE)
# an anchor written in HTML, as generated documentation sets them: <a name="x"></a>, <h3 id="x">
HTML_ANCHOR = re.compile(r"<[A-Za-z][\w-]*\s[^<>]*?(?<![\w-])(?:id|name)\s*=\s*([\"'])([^\"'<>]+)\1")
# an id set by an attribute list alone on its line, as Python-Markdown's attr_list (MkDocs)
# gives it to the block above — "{#field-after-validator}" under a list item's text —, or by
# mkdocs-autorefs' empty link, "[](){#pattern-constraint-note}"
ATTR_LIST_ANCHOR = re.compile(r"^[ \t]*(?:\[\]\(\))?\{:?[ \t]*#([^\s{}\"']+)(?:[ \t]+[^{}\n]*)?\}[ \t]*$", re.MULTILINE)
# an ATX heading inside a list item or a block quote (``  ### Details {#details}`` under
# ``- **Type**``, as API references write them): a heading where it renders, with the
# anchor a site gives it, but no section of the outline (its code blanked first). Indented,
# quoted or after a list marker: a heading at the margin the outline did not read is in code
# (a fence left open in an earlier passage, which a passage's own text cannot show)
_LIST_MARKER = r"(?:[-*+]|\d{1,9}[.)])[ \t]+"
NESTED_HEADING = re.compile(
    rf"^(?:(?:[ \t]*>[ \t]*|[ \t]+)(?:{_LIST_MARKER})?|{_LIST_MARKER})#{{1,6}}[ \t]+(\S.*?)(?:[ \t]+#+)?[ \t]*$", re.MULTILINE)
# ... or one that begins a span's text: a long section's part begins at the block such a
# heading opens, its indentation left out (Vue's ``  ### Note on webpack Treeshaking {#…}``)
SPAN_FIRST_HEADING = re.compile(r"#{1,6}[ \t]+(\S.*?)(?:[ \t]+#+)?[ \t]*")  # (on the first line, at most HEADING_TEXT_MAX long)


def definition_terms(text: str) -> list[str]:
    """The terms of ``text``'s definition lists, in order: a line directly above a ``: ``
    definition line that is not itself one, outside code blocks (a term written as a code
    span, ``publishDir``, is read as written), never a heading, list item, table row or quote."""
    if ":" not in text:
        return []
    lines, masked = text.split("\n"), mask_code(text).split("\n")
    out = []
    for i in range(1, min(len(lines), len(masked))):
        term = lines[i - 1].strip()
        if (_DEFINITION_LINE.match(masked[i]) and term and not _DEFINITION_LINE.match(lines[i - 1])
                and not term.startswith(("#", "|", ">", "- ", "* ", "+ "))):
            out.append(term)
    return out


# a rule id as mdBook's spec preprocessor writes it (the Rust Reference): a line ``r[expr.deref]``
# before the paragraph or heading it names, and links that name the rule instead of a file,
# ``[dereference expression]: expr.deref``
_RULE_LINE = re.compile(r"r\[([a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)+)\][ \t]*")
RULE_ID_RE = re.compile(r"[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)+")


def label_of(line: str) -> str | None:
    """The label a Sphinx label line sets (``.. _label:``, ``(label)=``, or a MyST directive's
    ``:label: x`` option, which labels the figure, table or block it opens), lower-cased."""
    m = _LABEL_LINE.match(line)
    return next(g for g in m.groups() if g).strip().lower() if m else None


def rule_of(line: str) -> str | None:
    """The rule id a line ``r[expr.deref]`` marks."""
    m = _RULE_LINE.fullmatch(line)
    return m.group(1) if m else None


def add_heading_anchors(table: dict[str, str], counts: Counter[str], heading: str, span_id: str) -> str:
    """A heading's anchors into ``table`` (the first place to set one keeps it): the id written
    on it, and its GitHub slug, numbered ``-1``, ``-2`` by ``counts`` when repeated; returns
    the slug."""
    given = heading_id(heading)
    if given is not None:  # an id written on the heading is its anchor too
        table.setdefault(given.lower(), span_id)
    slug = slugify(heading_text(heading))
    n = counts[slug]
    counts[slug] += 1
    table.setdefault(slug if n == 0 else f"{slug}-{n}", span_id)
    return slug


def first_line_is(text: str, title: str) -> bool:
    """Whether ``text`` begins with the heading ``title``: an ATX line (``## Title``), or the
    title's own line over a setext or reStructuredText underline."""
    first = text.lstrip("\n").split("\n", 1)[0].strip()
    return bool(title) and (first == title or first.lstrip("#").strip().rstrip("#").strip() == title)


def _in_order(wanted: list[str], found: list[str]) -> bool:
    """Whether every item of ``wanted`` is in ``found``, in that order (others between)."""
    rest = iter(found)
    return all(any(w == f for f in rest) for w in wanted)


class PageAnchors:
    """The anchors of each page a link names, read when one is first named: its headings'
    (:meth:`slugs`), those its text sets (:meth:`text_anchors`), its definition terms'
    (:meth:`term_anchors`) and its file's outline (:meth:`outline_anchors`), each table kept
    for the resolver's life. ``spans_of(path)``: the page's spans in order (heading paths);
    ``load_texts(path)``: (span_id, text) of its spans; ``root``: where its file is read
    for the outline (None: no outline)."""

    def __init__(self, spans_of: Callable[[str], list[SpanInfo]], load_texts: Callable[[str], list[tuple[str, str]]],
                 root: Path | None):
        self.spans_of = spans_of
        self._load_texts = load_texts
        self.root = root
        self._slugs: dict[str, dict[str, str]] = {}
        # a heading's letters and digits alone -> its span, where no other heading of the page has them
        self._loose: dict[str, dict[str, str]] = {}
        self._toc: dict[str, dict[str, str]] = {}  # path -> Python-Markdown's anchors (slugs)
        self._outline: dict[str, dict[str, str]] = {}  # path -> outline_anchors
        self._text_anchors: dict[str, dict[str, str]] = {}
        self._term_anchors: dict[str, dict[str, str]] = {}

    def slugs(self, path: str) -> dict[str, str]:
        """Heading slug -> span_id of the first span under that heading (GitHub numbering
        ``-1``, ``-2`` for repeated headings), or the heading's own id where one is written on
        it (``## Review {#supervisor-review}``, ``{ id=review }``); fills :attr:`_toc` (the
        anchor Python-Markdown's ``toc`` makes where it differs: ``caret-mark-tilde`` for
        "Caret, Mark & Tilde", :func:`toc_slug`, unless a GitHub anchor of the page is that)
        and :attr:`_loose` too."""
        table = self._slugs.get(path)
        if table is None:
            table = {}
            loose: dict[str, list[str]] = {}
            toc: list[tuple[str, str]] = []  # Python-Markdown's anchors, where GitHub's differ
            seen: set[tuple[str, ...]] = set()
            counts: Counter[str] = Counter()
            for s in self.spans_of(path):
                for depth in range(1, len(s.heading_path) + 1):
                    prefix = s.heading_path[:depth]
                    if prefix in seen:
                        continue
                    seen.add(prefix)
                    text = heading_text(prefix[-1])
                    slug = add_heading_anchors(table, counts, prefix[-1], s.span_id)
                    if (other := toc_slug(text)) != slug:
                        toc.append((other, s.span_id))
                    loose.setdefault(loose_anchor(text), []).append(s.span_id)
            gh = set(table)
            self._toc[path] = {}
            for other, span_id in toc:  # never one a GitHub anchor of the page is
                if other not in gh:
                    self._toc[path].setdefault(other, span_id)
            self._slugs[path] = table
            self._loose[path] = {k: v[0] for k, v in loose.items() if k and len(v) == 1}
        return table

    def text_anchors(self, path: str) -> dict[str, str]:
        """Anchor -> span_id of the first span that sets it in its text, outside code: in HTML
        (``<a name="x">``, ``id="x"`` on an element) as ``x``, an attribute list alone on its
        line (``{#x}``, ``[](){#x}``) as ``x``, a block id (a line ending in ``^x``) as ``^x``,
        a heading inside a list item or a quote by the id written on it and
        by its slug (read only for an anchor the outline's headings do not name)."""
        table = self._text_anchors.get(path)
        if table is None:
            table = {}
            for span_id, text in self._load_texts(path):
                if "<" in text or "^" in text or "#" in text:
                    masked = mask_code(text)
                    for m in HTML_ANCHOR.finditer(masked):
                        table.setdefault(m.group(2), span_id)
                    for m in BLOCK_ID.finditer(masked):
                        table.setdefault("^" + m.group(1), span_id)
                    for m in ATTR_LIST_ANCHOR.finditer(masked):
                        table.setdefault(m.group(1), span_id)
                    line = masked.split("\n", 1)[0] if masked.startswith("#") else ""
                    first = SPAN_FIRST_HEADING.fullmatch(line) if len(line) <= HEADING_TEXT_MAX else None
                    for m in ([first] if first else []) + list(NESTED_HEADING.finditer(masked)):
                        title = m.group(1)
                        given = heading_id(title)
                        if given is not None:
                            table.setdefault(given, span_id)
                        slug = slugify(heading_text(title))
                        if slug:
                            table.setdefault(slug, span_id)
            self._text_anchors[path] = table
        return table

    def find(self, path: str, anchor: str) -> str | None:
        """span_id of the place ``#anchor`` names in ``path``: a section by its heading's
        slug, else an anchor set in HTML; a block id (``#^x``) only by its block; None when
        it is not there."""
        anchor = md_unescape(anchor)
        if anchor.startswith("^"):
            return self.text_anchors(path).get(anchor)
        table = self.slugs(path)
        hit = table.get(anchor.lower()) or table.get(slugify(unquote(anchor)))
        if hit is None:
            found = self.text_anchors(path)
            hit = found.get(anchor) or found.get(unquote(anchor))
        if hit is None:  # as Python-Markdown's toc (MkDocs) makes it: "#caret-mark-tilde"
            hit = self._toc[path].get(anchor.lower()) or self._toc[path].get(toc_slug(unquote(anchor)))
        if hit is None:  # as another site generator slugs: "#cloud-gov", "#508-accessibility", "#m-and-ie"
            hit = self._loose[path].get(loose_anchor(unquote(anchor)))
        if hit is None:  # a definition list's term, as a site that gives terms ids numbers them
            found = self.term_anchors(path)
            hit = found.get(anchor.lower()) or found.get(slugify(unquote(anchor)))
        if hit is None and "#" in anchor:  # Obsidian's heading chain: [[Note#Setup#Linux]]
            hit = self.heading_chain(path, [slugify(part) for part in anchor.split("#") if part.strip()])
        if hit is None:  # a heading with no text of its own, which no span is under
            found = self.outline_anchors(path)
            hit = found.get(anchor.lower()) or found.get(slugify(unquote(anchor)))
        return hit

    def outline_anchors(self, path: str) -> dict[str, str]:
        """Anchor -> span of every heading of the note as its file has it, read only for an
        anchor nothing else names: a heading whose section holds no text but a comment
        (a template's ``### Non-Goals`` over ``<!-- … -->``) is under no span, and GitHub
        still gives it an anchor — numbered over every heading of the file, empty ones too
        (``-8`` for the ninth of nine alike). Each heading lands on the span that holds it,
        or the first span under a heading after it (the last span when none follows). Read
        from the project's file (the index run has just read it); empty without a root."""
        table = self._outline.get(path)
        if table is not None:
            return table
        table = self._outline[path] = {}
        spans = self.spans_of(path)
        if self.root is None or not spans:
            return table
        try:
            file = self.root / path
            if file.is_symlink() or file.stat().st_size > OUTLINE_MAX_BYTES:
                return table
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return table
        titles = [h.title for h in read_blocks(text, front_matter_end(text), syntax_of(path)).headings]
        owner: list[str | None] = [None] * len(titles)
        j = 0  # the first heading no span has claimed
        prev: tuple[str, ...] = ()
        for s in spans:
            # a span opens a section when its heading path changes or its text begins with
            # the heading (a section's later spans, and a section under a heading repeated
            # just above, share the path)
            opens = s.heading_path != prev or first_line_is(s.text, s.heading_path[-1] if s.heading_path else "")
            prev = s.heading_path
            if not s.heading_path or not opens:
                continue
            k = next((k for k in range(j, len(titles)) if titles[k] == s.heading_path[-1]), None)
            if k is None:
                continue
            for m in range(j, k + 1):  # the headings before it with no span of their own lead into it
                owner[m] = s.span_id
            j = k + 1
        for m in range(j, len(titles)):
            owner[m] = spans[-1].span_id
        counts: Counter[str] = Counter()
        for title, span_id in zip(titles, owner):
            add_heading_anchors(table, counts, title, span_id)
        return table

    def heading_chain(self, path: str, chain: list[str]) -> str | None:
        """span_id of the first span under the section a chain of heading slugs names, as
        Obsidian writes a heading under another (``Setup#Linux``): the last heading, under
        the others in that order (not necessarily directly)."""
        if not chain:
            return None
        *outer, last = chain
        for s in self.spans_of(path):
            slugs = [slugify(heading_text(h)) for h in s.heading_path]
            for i, slug in enumerate(slugs):
                if slug == last and _in_order(outer, slugs[:i]):
                    return s.span_id
        return None

    def term_anchors(self, path: str) -> dict[str, str]:
        """Anchor -> span_id for a page whose definition lists' terms have ids (goldmark's
        ``autoDefinitionTermID``, as Hugo sites set it): each term (the line above a ``: ``
        definition, outside code) by its slug, numbered in one series with the headings in
        document order as the renderer numbers them — a term ``cascade`` before a section
        ``## Cascade`` makes the section ``#cascade-1``. Empty for a page without definitions;
        read only for an anchor nothing else names."""
        table = self._term_anchors.get(path)
        if table is None:
            table = {}
            texts = dict(self._load_texts(path))
            if any(":" in t and ANY_DEFINITION_LINE.search(t) for t in texts.values()):
                seen: set[tuple[str, ...]] = set()
                counts: Counter[str] = Counter()
                for s in self.spans_of(path):
                    for depth in range(1, len(s.heading_path) + 1):
                        if s.heading_path[:depth] not in seen:
                            seen.add(s.heading_path[:depth])
                            add_heading_anchors(table, counts, s.heading_path[depth - 1], s.span_id)
                    for term in definition_terms(texts.get(s.span_id, "")):
                        add_heading_anchors(table, counts, term, s.span_id)
            self._term_anchors[path] = table
        return table
