"""Bytes -> Document: input hygiene, front matter (YAML by bounded PyYAML, or TOML between
``+++`` lines as Hugo writes it), metadata.

The *document text* that span offsets index is the file decoded as UTF-8 with a leading
BOM removed and CRLF/CR line endings turned into LF. ``doc_version_id`` is the SHA256 of
the raw bytes, so any change to the file is a new version.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from oriongraph_cli.blocks import front_matter_block, read_blocks, syntax_of
from oriongraph_cli.graph.extract import front_matter_key, mask_code
from oriongraph_cli.index.decode import ParseWarning, decode
from oriongraph_cli.index.preamble import preamble_fields
from oriongraph_cli.index.stated import GONE, STATUS_WORDS, read_stated, reason_refs, replaced_status, status_word, subtitle
from oriongraph_cli.models import STAGE_ALIASES, STAGES, TOP_FOLDERS, Document, normalise_stage
from oriongraph_cli.safeio import UnsafeFile, read_project_file

if TYPE_CHECKING:
    from oriongraph_cli.index.walk import FoundFile
    from oriongraph_cli.safeio import FileRead

# the version of the rules a file is read by (front matter formats and fields here, the link
# forms ``graph.extract`` finds in it), kept in each generation's manifest: an index read by
# other rules is rebuilt by its next `orion index`, its vectors reused (1: YAML front matter;
# 2: TOML front matter between +++ lines, Hugo's ref and relref shortcodes and Jekyll's link
# tag as links, .mdx pages; 3: the outline and code blocks as CommonMark reads them —
# setext headings, fences inside list items, indented code —, the title from it, and every
# reference definition of a run of them, not every other one; 4: a run of link reference
# definitions alone, which renders as nothing, is no span; 5: a site template's URL as a link
# target — any tag with one argument, ``{% page "/docs/setup/" %}``, and ``{{ site.baseurl }}/x/``
# or ``{{ '/x/' | relative_url }}`` — a link from the site's root; 6: a paragraph too long for
# one span is cut, outside code, after a line that ends a sentence or before a list item
# before any other line: a hard-wrapped list was cut mid-item, a paragraph mid-sentence; 7: a
# ``.rst`` note's section titles, under and over any adornment, are its outline, and a line of
# backticks or tildes there is an adornment, not a fence — nor, in the link extractor, half of
# a code span hiding the references of a section; 8: no wiki link inside a site template's
# block, ``[[menus.main]]`` in Hugo's ``{{< code-toggle >}}`` being TOML's array of tables;
# 9: a long section's headings are never a span apart from its first paragraph; 10: an HTML
# comment, which the page does not show — ``<!-- ignore -->`` after a link, maintainers'
# notes, a generator's markers —, is neither embedded nor in the lexical index, begins or
# ends no span and alone is none, and an anchor set in HTML right above a heading begins
# that heading's section; 11: an opening tag alone on its line, ``<Listing caption="…">`` or
# ``<details>``, never ends a long section's part: it begins the part of what it opens;
# 12: in a table cell Obsidian escapes a wiki link's bar, ``[[Note\|shown]]``, which names
# ``Note``, not ``Note\``; 13: the page's own summary in its front matter, ``description:``
# (else ``summary:``), is read with its first span, embedded and in the lexical index;
# 14: a link's destination holds parentheses escaped or balanced, as CommonMark reads it,
# ``(#delivery-\(tlc\))``, ``(https://en.wikipedia.org/wiki/Tock_(software))``; 15: Doxygen's
# cross-references, ``@ref name``, ``\ref name``, ``@subpage name``, and Sphinx's roles,
# ``:doc:`path```, ``:ref:`label``` and MyST's ``{doc}`` and ``{ref}``, are read as references;
# 16: a note without a front matter status takes the one its first lines state, "## Status" /
# "Accepted", "* Status: accepted", "| Status | Approved |", and the records they say it
# supersedes or is superseded by where its front matter names none: ``index.stated``; 17: a
# ``.rst`` note's literal blocks — after a paragraph ending ``::`` and under a code directive,
# ``.. code-block:: c`` with its options — are code however little they are indented: a C
# ``#  define X 1`` three spaces in was a heading of the outline; 18: a ``.rst`` note's
# hyperlink targets, ``.. _label:``, begin the span of the section they name — a span of
# labels alone opened nearly every Sphinx page — and a page's trailing external targets are
# in no span; 19: a status that lists a template's choices, "{Draft, In Review, Implemented}"
# or MADR's "[proposed | rejected | accepted | …]", is no status — it was read as its first
# choice — and one choice kept in the braces, "{In Review}", is that state; "Obsoletes",
# "Obsoleted by" and "Deprecated by" lines name what a record replaces or is replaced by; 20:
# a document's path states its language where its front matter does not, ``x.fr.md``,
# ``x.korean.md``, ``i18n/ja/…``: a translation left in the page's language was read as
# that language and ranked as a copy of its page; and a status "Reverted by …", "Revoked",
# "Rescinded", "Retracted" or "Cancelled" is that state — it was none; 21: a word with a
# letter marked in brackets, as command cheat sheets mark options, "[c]reate", "e[x]tract",
# is searched as the word — the lexical channel read "c" and "reate"; and ``[[1]](url)``, a
# link whose text is "[1]", or data in double brackets, ``[["CPU","ns"]]``, is no wiki link —
# each was a dangling link; 22: a table of contents marker alone on its line, ``[[toc]]``
# or GitLab's ``[[_TOC_]]``, is no wiki link — it was a dangling one; and a front matter
# reason for a record's state that names its successor, EIPs' ``withdrawal-reason: Superseded
# by EIP-7702`` or "Withdrawn in favor of [EIP-2681](…)", states the supersession; 23: a front
# matter date written year first with slashes, react.dev's blog's ``date: 2024/12/05``, is that
# date — it was dropped with a warning and the file's time taken instead; 24: front matter YAML
# rejects whose every line is ``key: text`` at the margin is read as those lines, as Svelte's
# docs site reads ``title: {#if ...}`` and ``title: bind:`` — the page had no title, and its
# fields were dropped with a warning —, and a single-value field YAML read as a collection
# written on its line, ``title: {let/const ...}``, is the text written there; 25: a front
# matter link value written as an HTML tag is its text, not a target — react.dev titles its
# ``<link>`` page ``link: "<link>"``, which was a dangling link; 26: a record's state line
# naming the other record by a Sphinx cross-reference states the supersession — NumPy's NEPs
# write ``:Replaced-By: :ref:`NEP56``` and ``:Replaces: :ref:`NEP30`, :ref:`NEP31```; 27: a
# reStructuredText directive's body (``.. note::``) indented four spaces or more is text, not
# indented code — its words were read as code and its links not at all —, and a record whose
# stated status says it is gone names its successor in a sentence of its head: NEP 16's note
# "withdrawn in favor of the protocol based approach described in :doc:`nep-0022-…`"; 28: a
# front matter stage far from every stage is the project's own word, kept without a warning
# (a near one warns with the stage meant), and read as the status when it is a state's word
# and no status is given — Ember's RFCs write ``stage: discontinued``, and each of their 262
# pages warned "unknown stage"; 29: a folder named for a state (C#'s ``proposals/rejected/``,
# .NET's ``accepted/2020/``, ``drafts/``) gives its records that state where they state none,
# and a record whose state, however it is given, says it is gone names its successor in a
# sentence of its head — "Closed in favor of [x](../x.md)", a withdrawn PEP's "superseded by
# :pep:`12`"; 30: a table whose header row has a Status cell gives the state in the row
# under it — libp2p's specs open with "| Lifecycle Stage | Maturity | Status | …" over
# "| 3A | Recommendation | Deprecated | …"; 31: a notice in a record's lead saying the record
# itself is gone gives its state where no state line does — "> This command has been superseded
# by `pamscale`." (67 tldr pages), "> This RFC has been discontinued, … replaced with […](…)"
# (Ember's RFCs, whose front matter still said accepted); 32: such a notice outranks a state
# line still in force too, and a notice sending its reader elsewhere for good is one — libp2p's
# "> This is the original specification, please refer to [gossipsub-v1.0](gossipsub-v1.0.md)
# from now on" above its template's "| 3A | Recommendation | Active |" —; and a gone record
# names its successor in a sentence telling its reader what to use instead, by name where it
# gives no link or id — mplex's "Users should **prefer QUIC or Yamux**", tldr's "superseded
# by `pamscale`"; 33: a front matter key orion reads written in another case, ``Title:``,
# ``Status:``, ``Created:`` (Cardano's proposals), is that key — every proposal had no title,
# state or date —, "inactive" is a state no longer in force and a front matter status naming
# its successor states the supersession, "Inactive (superseded by CIP-0121 and CIP-0122)"; a
# table of several rows with a Status column lists other records' states, not the note's own
# (an index of proposals read as "active"); and a heading with nothing under it before the
# next heading at its level begins the span that follows, where a link to it lands — it was
# in no span, and every link to it dangled; and an MkDocs admonition's or tab's first line
# (``!!! note``, ``=== "Elvish"``) opens the body under it: no span ends on it; 34: a front
# matter number written with a leading zero is the text it is written as, not YAML 1.1's
# octal — Solana's ``supersedes: 0161`` was the integer 113 — and neither is ``1:30`` base 60;
# 35: a date the file's name begins with (``2025-12-02-release.md``, ``20181116-saved-model.md``)
# is the note's date where its front matter gives none — blogs, meeting notes and TensorFlow's
# RFCs were dated by the copy —; a key-value table written without its outer bars, as GitHub
# renders it ("Status | Accepted" over ":--- | :---"), with no-break spaces in its cells or
# its first row over ":"-continued rows, gives the state — 18 of TensorFlow's RFCs had none —,
# and a template's choices in parentheses, "(Proposed / Accepted / Implemented)", give none;
# a notice naming its record in up to three words ("This alert runbook has been deprecated"),
# "considered to be deprecated", a lead paragraph opening with "Deprecated" ("*Deprecated
# since …; use [x](x.md) instead*") and "This function has moved to [x](…)" say the record is
# gone — WezTerm's reference pages and OpenShift's runbooks
# 36: a self-closing JSX component alone on its line (``<ManualAnchor id="x" />``) is a block
# of its own, as MDX reads it: the heading on the next line is a heading, not part of an HTML
# block running to the next blank line; an element that only sets an id renders nothing and
# begins the section under it — Discord's reference pages
# 37: a long block holding an HTML table is cut between its rows, never inside one
# (``span.ROW_CUT_RE``) — OpenTelemetry's, TensorFlow's and Ember's proposals, the Kubernetes docs
# 38: "Partly superseded" is superseded; a record saying in its head "This ADR in part supersedes
# [0003](…)" supersedes it; "*DEPRECATED*" alone on the lead's first line is a notice — GOV.UK's
# AWS decision records and guides
# 39: a JSX component's opening or closing tag alone on its line (``<PackageManagerTabs>``,
# ``</Tabs>``) is a block of its own too: the fence and the heading under it are read as MDX
# reads them — Astro's documentation
# 40: what a page runs but does not show — an MDX module statement (``import Tabs from
# '@theme/Tabs';``, ``export const meta = {…}``) and a ``<script>`` or ``<style>`` element — is
# neither embedded nor indexed, and no span begins or ends with it (``blocks.unseen_ranges``)
# — Drizzle's, Astro's, Discord's and Helm's MDX pages, Vue's and Vite's VitePress pages
# 41: an MDX page (``.mdx``) has no indented code, as MDX reads it: a fence, a heading, a
# list or prose indented four spaces or more inside a component (``<Steps>``, ``<TabItem>``)
# is one (``blocks.syntax_of``) — Astro's, Discord's and Drizzle's pages; and a ``date`` written
# as a mapping, ``{created: 2026-02-18, updated: …}``, is its ``created`` (``date_value``) —
# Material for MkDocs' blog posts
# 42: a notice may be the heading that ends the lead ("## Note: This MSC has been made obsolete
# by MSC2290."), "made obsolete" and "rendered obsolete" say the record is, "obsoleted by",
# "made obsolete by" name its successor, and "Obsoleted" as a state is obsolete — the Matrix
# spec proposals
# 43: a token of capitals and digits in the text (MSC2290) is kept as a possible mention of the
# document a series id names (link rules 33) — the Matrix spec proposals
# 44: a notice may name the page's subject in code as its title names it ("The `tofu env`
# command is deprecated." under "Command: env"), and a successor may be named before "should be
# used instead" in its sentence — OpenTofu's command pages
# 45: a note without front matter whose body opens with a header block in code ("CAP: 0013",
# "Title: …", "Status: Rejected (In favor of CAP-0018)": Stellar's and Bitcoin's proposals)
# has it read as its front matter, and its status line read for the successor it names
# (index/preamble.py); front matter YAML rejects only for tabs before a line's text (inside
# a flow list, as Hugo reads it) is read with those tabs as spaces; inline code is read as
# CommonMark pairs backtick runs (the next run of the same length closes one), in one pass:
# a regex of backreferences hung on a line of 2,000 backticks and mis-paired runs of other
# lengths (49 of 21,689 pages with backticks mask other characters, their links read right);
# a front matter date is read whole ("2024-01-01garbage", an hour of 25: none, with a
# warning) and 1970-01-01 is a date, not a missing one
# 46: a paragraph of the lead opening with a state's word as its label, after an alert's
# label maybe ("> __Warning__ `unrecommended`: deprecated in favor of [NIP-17](17.md)"), says
# the record's state — "unrecommended" a state, demoted as "deprecated" is — unless it labels
# a thing named in code the title does not name ("Deprecated: `kind:30024` was used …", as a
# "Deprecated" paragraph now does too); a paragraph "Moved to [x](…)" (or 'Renamed to "…" and
# moved to [x](…)') says it is superseded by x; "try [x](…) instead" names a successor as
# "use … instead" does; a title that is only a series' id ("NIP-12") takes the subtitle under
# it ("NIP-12: Generic Tag Queries"), and the record's lead runs past that subtitle — Nostr's NIPs;
# front matter YAML rejects is read again with each value it reserves quoted whole (one opening
# with "@" or a backtick, or a Markdown link: "- @gregestren", "status: [Implemented](…)"),
# and a front matter status written as a link is its text — Bazel's proposals; a sentence of the
# head saying the record replaces a linked one is read without a state line in the head too, a
# verb maybe before "and" ("This proposal builds on and supersedes [FIP-0047](…)") — Filecoin's FIPs;
# a front matter date with its year last is read where only one order of day and month is a date
# ("04/14/2026"), and one that could be either is refused saying so — Aptos's AIPs; "removed" is a
# state a page may say of itself, "This rule was removed in ESLint v1.0.0 and replaced by the
# [strict](strict) rule" ("this", past, at a line's start), and a notice may name the page's
# subject in code without "The" ("`pnpm env` is deprecated."), the front matter title naming it
# where the body has no title heading — ESLint's and pnpm's docs
# 47: a record in a folder named ``archive/`` (``archives/``, ``archived/``) is archived, a
# state not in force — the Kubernetes community's retired groups, Helm's proposals before its
# current process; a front matter reason for a state not in force names as successor what its
# authors prefer or where its text moved ("withdrawal-reason: The authors prefer
# [EIP-2200](./eip-2200.md)", "material moved to EIP-2315") — Ethereum's EIPs; a record not in
# force that recommends a linked one "instead of" itself names it ("we actually recommend the
# workflow specified in [SEP-0024](sep-0024.md) instead of SEP-0003") — Stellar's proposals; a
# notice may name the page's subject by its whole title in words ("**NOTE:** Flexvolume is
# deprecated." under "# Flexvolume") — the Kubernetes community, tldr's dstat; Hugo's ``ref``
# and ``relref`` with their argument unquoted, as Hugo reads a shortcode's (``[x]({{< ref
# service_invocation_api.md >}})``, ``{{<ref getting-started>}}``), are links to their pages as
# quoted ones are — 1,631 of Dapr's 2,420 page references were no links at all; every state
# not in force lets the head's first sentence name the successor (declined, dropped, retired…
# too), and "merged into [x](…)" names x as "moved to" does — the Gateway API's GEPs, tldr's dbx;
# "This RFC is intended to supercede [RFC0008](…)" names what it replaces, as "This RFC
# supersedes [x]" does — Astro's RFCs. Rules 48: a notice may open with an emoji and a clause
# saying since when ("🚨 As of Babel 7.4.0, this package has been deprecated"), or say it of
# the kind of page the page is one of ("As of Babel v6, all the yearly presets have been
# deprecated." on "@babel/preset-es2015"); a record gone names its successor by "It is now
# included in [x](…)" and by "We recommend using [x](…) instead" — Babel's docs. Rules 49:
# "defunct" is a state not in force, and a `defunct/` folder names it (Crossplane's retired
# designs); an admonition opening in the lead whose title is a state says the page's (Deno's
# ":::warning Sunsetting on July 20, 2026", ":::info No longer recommended"; Babel's ":::danger
# Archived"); a record gone names its successor by "consider using [x](…)" and "recommend
# migrating to [x](…)". Rules 50: a status value whose later words say the record was replaced
# is that ("Final/R-33 Replaced by EEP 33": Erlang's EEPs); a front matter "Replaced-By" is
# "Superseded-By" and "replaces" is "supersedes", a value "N/A" names nothing; "This document
# [has moved]." with the link on the verb says it is superseded by that link's page (the Dart
# language's working proposals). Rules 51: the verb's helpers may stand before the linked verb,
# over a line break ("The feature specification has been\n[moved](…)"), and "[renamed](…)" says
# so too (the Dart language's stubs); a package named in code whose joined words hold every
# word of a title of two or more is the page's subject ("`adapter-cloudflare-workers` has been
# deprecated" on "Cloudflare Workers": SvelteKit); a link recommended "instead of" the page
# itself, by its title or "this plugin", says it is deprecated ("Cloudflare now recommends
# using [Cloudflare Workers](…) instead of Cloudflare Pages") and "[x](…), which is the
# successor to this Pages setup" names x (Hono's docs); "For current types, see [x](…)" in a
# paragraph saying the page is old says it is superseded by x (Cluster API's v1beta1 reference).
# Rules 52: front matter "deprecated_by" names the successor as "superseded_by" does, and it or
# "deprecated: true" gives the state "deprecated" where no status is written (TypeScript's old
# handbook: "deprecated_by: /docs/handbook/2/classes.html"). Rules 53: a date with its month
# named ("29-Oct-2019", "8 Sep 2021", "October 29, 2019": NEAR's NEPs) and a template's angle
# brackets left around a filled-in date ("<10/21/2024>": Aptos's AIPs) are read
PARSE_RULES = 53
_TOML_KEY = re.compile(r"^[ \t]*([A-Za-z0-9_-]+|\"[^\"\n]*\")[ \t]*=")
_TOML_WHERE = re.compile(r"\(at line (\d+), column (\d+)\)")


# Front matter is small; anything beyond these bounds is an attack or an accident, and is
# reported as malformed instead of exhausting memory or the stack.
MAX_FRONT_MATTER_BYTES = 64 * 1024
MAX_YAML_DEPTH = 32  # nesting of mappings/sequences
MAX_YAML_NODES = 10_000  # nodes after alias expansion (an "alias bomb" is 9^9 from 416 bytes)


def _yaml_loader():
    """A SafeLoader that bounds depth and alias expansion and leaves timestamps as text
    (dates are validated here: PyYAML raises on ``2026-02-30``), and numbers with a leading
    zero or written in base 60 too (:data:`_DECIMAL_INT`). Built on first use: a run
    that parses nothing (nothing changed) must not pay for YAML (~50 ms)."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class BoundedLoader(yaml.SafeLoader):
        _depth = 0

        def compose_node(self, parent, index):
            self._depth += 1
            try:
                if self._depth > MAX_YAML_DEPTH:
                    mark = self.peek_event().start_mark
                    raise yaml.composer.ComposerError(None, None, f"{_DEPTH_BOUND} {MAX_YAML_DEPTH} levels", mark)
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    BoundedLoader.yaml_implicit_resolvers = {
        first: [(tag, _DECIMAL_INT if tag == _INT_TAG else rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    _LOADER = BoundedLoader
    return _LOADER


_LOADER = None
_INT_TAG = "tag:yaml.org,2002:int"
# YAML 1.1's integers without its octal (``0161``, an id written with its zeros, is 113 to it)
# and base-60 forms (``1:30`` is 90): such a value stays the text it is written as
_DECIMAL_INT = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$")


def _expanded_size(node, memo: dict, limit: int) -> int:
    """Nodes in ``node`` with every alias expanded (aliases share node objects: memoised)."""
    key = id(node)
    if key in memo:
        return memo[key]
    total = 1
    value = node.value
    if isinstance(value, list):
        for item in value:
            for part in item if isinstance(item, tuple) else (item,):
                total += _expanded_size(part, memo, limit)
                if total > limit:
                    break
    memo[key] = total
    return total


def load_yaml(raw: str) -> tuple[Any, dict[str, int]]:
    """(value, line of each top-level key, 1-based within the YAML) with the bounds above.
    Raises yaml.YAMLError (a MarkedYAMLError where a position is known)."""
    import yaml

    if len(raw.encode("utf-8", "surrogatepass")) > MAX_FRONT_MATTER_BYTES:
        raise yaml.YAMLError(f"front matter larger than {MAX_FRONT_MATTER_BYTES // 1024} KiB")
    loader = _yaml_loader()(raw)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        if _expanded_size(node, {}, MAX_YAML_NODES) > MAX_YAML_NODES:
            raise yaml.YAMLError(f"more than {MAX_YAML_NODES:,} values once aliases are expanded")
        lines: dict[str, int] = {}
        if isinstance(node, yaml.MappingNode):
            for key_node, _value in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    lines.setdefault(str(key_node.value), key_node.start_mark.line + 1)
        return loader.construct_document(node), lines
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None
    finally:
        loader.dispose()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_note(root: Path, f: FoundFile, max_bytes: int) -> tuple[FileRead | None, str | None, ParseWarning | None]:
    """A note as ``orion index`` reads it: the file read safely (``safeio``) and its text
    decoded (:func:`decode`) — or the warning saying why the index skips it (unsafe, too
    large, binary, not UTF-8, empty)."""
    try:
        got = read_project_file(root, f.rel, max_bytes, expect=f.identity)
    except UnsafeFile as exc:
        return None, None, ParseWarning(f.rel, exc.kind, exc.reason, skipped=True)
    text, warn = decode(f.rel, got.data, max_bytes)
    return got, text, warn


def _toml_front_matter(rel: str, raw: str, body_start: int) -> tuple[dict[str, Any], int, list[ParseWarning]]:
    """TOML front matter (between ``+++`` lines): the same checks as YAML's, its own parser."""
    import tomllib

    try:
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_FRONT_MATTER_BYTES:
            raise ValueError(f"front matter larger than {MAX_FRONT_MATTER_BYTES // 1024} KiB")
        meta = tomllib.loads(raw)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        where = _TOML_WHERE.search(str(exc))
        line, col = (int(where.group(1)) + 1, int(where.group(2))) if where else (1, None)  # +1: the opening +++
        problem = _TOML_WHERE.sub("", str(exc)).strip() if not isinstance(exc, RecursionError) else "nested too deeply"
        return {}, body_start, [ParseWarning(rel, "front-matter", f"malformed TOML front matter ({problem}); body indexed without metadata", line=line, col=col)]
    key_lines: dict[str, int] = {}  # the line of each top-level key, for warnings (+1: the opening +++)
    for i, line in enumerate(raw.split("\n")):
        if line.lstrip().startswith("["):
            break  # a [table] header: the keys after it are not top-level fields
        km = _TOML_KEY.match(line)
        if km:
            key_lines.setdefault(km.group(1).strip('"'), i + 2)
    meta, key_lines = _read_keys_lowered(meta, key_lines)
    meta, warnings = validate_meta(rel, _jsonable(meta), key_lines)
    return meta, body_start, warnings


# tabs before a line's text: YAML 1.2 (Go's yaml, so Hugo) takes them as space inside a flow
# collection (Mastodon's docs: 'aliases: [' then '\t"/entities/announcement",'); PyYAML refuses
# them there, so front matter it rejects for a tab is read again with each such tab a space
_LEADING_TABS = re.compile(r"^[ \t]*\t[ \t]*", re.MULTILINE)


def _spaces(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


# a value YAML reserves or reads as something else than its author wrote, on a line of its
# own: one opening with ``@`` or a backtick (``- @gregestren``, ``title: `--flag` Respects…``:
# reserved indicators), or a Markdown link (``status: [Implemented](https://…)``: a flow list
# and then more). Front matter YAML rejects is read again with each such value quoted whole.
_RESERVED_VALUE = re.compile(r"^([ \t]*(?:-[ \t]+|[^\s:#\[\]{},\"'][^:#\n]*:[ \t]+))((?:[@`]|\[[^\]\n]*\]\()[^\n]*)",
                             re.MULTILINE)  # (greedy to the line's end: a lazy value before trailing blanks is quadratic)


_LINKED = re.compile(r"\[([^\[\]\n]*)\]\([^()\s]*\)")


def _quoted(m: re.Match[str]) -> str:
    return m.group(1) + "'" + m.group(2).rstrip(" \t").replace("'", "''") + "'"


def split_front_matter(rel: str, text: str) -> tuple[dict[str, Any], int, list[ParseWarning]]:
    """Return (metadata, body_start, warnings). Malformed YAML keeps the body indexable."""
    found = front_matter_block(text)
    if found is None:
        return {}, 0, []
    kind, m = found
    if kind == "toml":
        return _toml_front_matter(rel, m.group(1) or "", m.end())
    raw = m.group(1) or ""
    body_start = m.end()
    import yaml

    try:
        try:
            meta, key_lines = load_yaml(raw) if raw.strip() else ({}, {})
        except yaml.MarkedYAMLError as exc:
            # read again as its author meant it: tabs before a line's text as spaces, values
            # YAML reserves quoted (``_RESERVED_VALUE``)
            again = _LEADING_TABS.sub(_spaces, raw) if "'\\t'" in str(exc.problem) else raw
            again = _RESERVED_VALUE.sub(_quoted, again)
            if again == raw:
                raise
            try:
                meta, key_lines = load_yaml(again)
            except yaml.YAMLError:
                raise exc from None  # the error of the text as written
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        # a syntax error only: front matter over a bound (size, depth, aliases) keeps its warning
        bound = str(getattr(exc, "problem", "")).startswith(_DEPTH_BOUND)  # (the size and alias bounds are no MarkedYAMLError)
        plain = plain_lines(raw) if isinstance(exc, yaml.MarkedYAMLError) and not bound else None
        if plain is None:
            # the construct that is broken starts at context_mark ("tags: [oops" on line 2);
            # problem_mark is where the parser gave up (often the closing ---)
            mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
            line = mark.line + 2 if mark is not None else 1  # +1 for the opening ---, +1 one-based
            col = mark.column + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            return {}, body_start, [ParseWarning(rel, "yaml", f"malformed YAML front matter ({problem}); body indexed without metadata", line=line, col=col)]
        meta, key_lines = plain  # Svelte's "title: {#if ...}", "title: bind:": lines its site reads as written
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return {}, body_start, [ParseWarning(rel, "front-matter", f"front matter is a {type(meta).__name__}, not a mapping; ignored", line=2)]
    meta, key_lines = _read_keys_lowered(meta, key_lines)
    meta = _written_scalars(meta, raw, key_lines)
    meta, warnings = validate_meta(rel, _jsonable(meta), {k: v + 1 for k, v in key_lines.items()})  # +1: the opening ---
    return meta, body_start, warnings


# the front matter keys orion reads by name (the link graph reads its own, `supersedes`,
# `Superseded-By`…, in any case: graph/extract.front_matter_key)
READ_KEYS = frozenset({"title", "id", "stage", "workstream", "status", "created", "date", "priority", "tags", "lang",
                       "language", "aliases", "alias", "redirect_from", "description", "summary"})


def _read_keys_lowered(meta: dict[str, Any], key_lines: dict[str, int]) -> tuple[dict[str, Any], dict[str, int]]:
    """A key orion reads written in another case, ``Title:``, ``Status:``, ``Created:`` (as
    Cardano's proposals write theirs), read as that key where the note does not also write it
    in lower case; every other key kept as written."""
    if all(not isinstance(k, str) or k.islower() or k.lower() not in READ_KEYS for k in meta):
        return meta, key_lines
    taken = set(meta)
    out: dict[str, Any] = {}
    lines = dict(key_lines)
    for k, v in meta.items():
        low = k.lower() if isinstance(k, str) else k
        if low != k and low in READ_KEYS and low not in taken:
            taken.add(low)
            if k in lines:
                lines[low] = lines.pop(k)
            k = low
        out[k] = v
    return out, lines


# a front matter line "key: value" at the margin, the value any text (plain_lines)
_PLAIN_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*))?")  # (the value stripped after: linear time)


def plain_lines(raw: str) -> tuple[dict[str, Any], dict[str, int]] | None:
    """Front matter YAML rejects, read as its site reads it when every line is ``key: text``
    at the margin (blank lines and ``#`` comments aside), each value its text as written:
    Svelte's docs title pages ``title: {#if ...}`` and ``title: bind:``. None when any line
    is something else (an indented or continued value, a list item), or a value opens a
    collection or a quote it does not close (``tags: [oops``): that is malformed YAML. An
    integer is a number (``priority: 3``); every other value is text."""
    meta: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    for i, line in enumerate(raw.split("\n")):
        if not line.strip() or line.startswith("#"):
            continue
        m = _PLAIN_LINE.fullmatch(line)
        if m is None or m.group(1) in meta:
            return None
        value = (m.group(2) or "").strip(" \t")
        if value[:1] in _OPENERS and (len(value) < 2 or value[-1] != _OPENERS[value[0]]):
            return None  # "tags: [oops": a collection or a quote left open is malformed YAML
        if value[:1] in "\"'" and len(value) >= 2:
            value = value[1:-1]  # "a: b" quoted, as written (closed: checked above)
        meta[m.group(1)] = int(value) if _INTEGER.fullmatch(value) else (value or None)
        key_lines[m.group(1)] = i + 1  # 1-based, as load_yaml gives them
    return (meta, key_lines) if meta else None


_OPENERS = {"[": "]", "{": "}", '"': '"', "'": "'"}
_DEPTH_BOUND = "nested deeper than"  # the depth bound's error (load_yaml): no syntax error
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")  # "priority: 3" is the number, as YAML reads it


def _written_scalars(meta: dict[str, Any], raw: str, key_lines: dict[str, int]) -> dict[str, Any]:
    """A single-value field (``title``…) that YAML read as a collection written on its own
    line, ``title: {let/const ...}``, is the text written there (it was dropped)."""
    lines = None
    for key in _SCALAR_FIELDS:
        value = meta.get(key)
        if isinstance(value, (dict, list)) and key in key_lines:
            lines = lines or raw.split("\n")
            at = key_lines[key] - 1  # 1-based
            m = _PLAIN_LINE.fullmatch(lines[at]) if 0 <= at < len(lines) else None
            text = (m.group(2) or "").strip(" \t") if m and m.group(1) == key else None
            if text and text[0] in "{[" and text[-1] in "}]":
                meta = {**meta, key: text}
    return meta


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


MIN_TIMESTAMP = -62135596800  # 0001-01-01
MAX_TIMESTAMP = 253402300799  # 9999-12-31 23:59:59


_DATE_FORMS = ("%Y-%m-%d", "%Y/%m/%d")  # a date's first ten characters
# ... when what follows them is a time of day (and a zone) as blogs write it — Jekyll's
# "2011-12-31 23:59:59 -0500" — or nothing: "2024-01-01garbage" and "25:99" are no dates
_TIME_TAIL = re.compile(r"(?:[ T]+\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?(?:[ ]*(?:Z|[+-]\d\d:?\d\d|[A-Z]{2,5}))?)?[ ]*")
# a date with its year last, as Aptos's AIPs write theirs (their template: ``<mm/dd/yyyy>``): read
# only when one of the first two numbers is over 12 and so must be the day (``04/14/2026``,
# ``29/01/2024``); ``05/12/2024`` is ambiguous and never read
_YEAR_LAST = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def _year_last(text: str) -> dt.datetime | None:
    """``04/14/2026`` or ``29/01/2024`` as the one date it can be; None when either order
    could be meant, or neither."""
    m = _YEAR_LAST.fullmatch(text)
    if m is None:
        return None
    a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if (a > 12) == (b > 12):
        return None
    day, month = (a, b) if a > 12 else (b, a)
    try:
        return dt.datetime(year, month, day)
    except ValueError:
        return None


# a date with its month named, as proposals and changelogs write them: "29-Oct-2019" (NEAR's
# NEPs), "8 Sep 2021", "29 October 2019", "October 29, 2019", "Oct. 29th 2019" — one date
# whatever the reader's order of day and month
_MONTHS = {m: i for i, names in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"), 1)
    for m in (names, names[:3])} | {"sept": 9}
_DAY_MONTH_YEAR = re.compile(r"(\d{1,2})(?:st|nd|rd|th)?[-\s]+([A-Za-z]+)\.?[-\s,]+(\d{4})")
_MONTH_DAY_YEAR = re.compile(r"([A-Za-z]+)\.?[-\s]+(\d{1,2})(?:st|nd|rd|th)?,?[-\s]+(\d{4})")


def _month_named(text: str) -> dt.datetime | None:
    """``29-Oct-2019``, ``October 29, 2019`` and their like as the date they name; None when the
    word is no month or the day is not in it."""
    m = _DAY_MONTH_YEAR.fullmatch(text)
    if m is not None:
        day, word, year = m.group(1), m.group(2), m.group(3)
    elif (m := _MONTH_DAY_YEAR.fullmatch(text)) is not None:
        word, day, year = m.group(1), m.group(2), m.group(3)
    else:
        return None
    month = _MONTHS.get(word.lower())
    if month is None:
        return None
    try:
        return dt.datetime(int(year), month, int(day))
    except ValueError:
        return None


def _unbracketed(text: str) -> str:
    """``text`` without the angle brackets a template put around its placeholder, when the
    value was filled in inside them (``<10/21/2024>``)."""
    return text[1:-1].strip() if len(text) > 2 and text[0] == "<" and text[-1] == ">" else text


def ambiguous_date(text: str) -> bool:
    """Whether ``text`` is a year-last date either order of whose day and month is real."""
    m = _YEAR_LAST.fullmatch(_unbracketed(text.strip()))
    return m is not None and 1 <= int(m.group(1)) <= 12 and 1 <= int(m.group(2)) <= 12


def _valid_time(tail: str) -> bool:
    """Whether the time of day after a date is one (hours under 24, minutes and seconds under
    60, a zone offset under 24 hours)."""
    m = re.match(r"[ T]+(\d{1,2}):(\d\d)(?::(\d\d))?", tail)
    if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 59 or int(m.group(3) or 0) > 60:
        return False
    zone = re.search(r"[+-](\d\d):?(\d\d)\s*$", tail)
    return zone is None or (int(zone.group(1)) < 24 and int(zone.group(2)) < 60)


def date_value(value: Any) -> Any:
    """The date a front matter ``date`` (or ``created``) field gives: itself, or the
    ``created`` of a mapping — Material for MkDocs' blog posts write ``date: {created:
    2026-02-18, updated: 2026-04-13}``."""
    return value.get("created") if isinstance(value, dict) else value


def parse_date(value: Any) -> int | None:
    """Front matter date (ISO string/date, year first with slashes as react.dev's blog and
    others write it, ``2024/12/05``, year last where only one order is a date, ``04/14/2026``,
    the month named, ``29-Oct-2019`` or ``October 29, 2019``, any of them inside a template's
    ``<…>``, or unix seconds) -> unix timestamp (UTC), or None when it is not a real date
    (``2026-02-30``, ``.inf``, out of range) or could be two (``05/12/2024``)."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or not MIN_TIMESTAMP <= value <= MAX_TIMESTAMP:
            return None
        return int(value)
    if not isinstance(value, (str, dt.date)):
        return None
    text = _unbracketed(str(value).strip())
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        when = _year_last(text) or _month_named(text)
    if when is None:
        tail = _TIME_TAIL.fullmatch(text[10:])
        if tail is None or (tail.group(0).strip() and not _valid_time(tail.group(0))):
            return None
        for form in _DATE_FORMS:
            try:
                when = dt.datetime.strptime(text[:10], form)
                break
            except ValueError:
                continue
        else:
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    try:
        return int(when.timestamp())
    except (OverflowError, ValueError, OSError):
        return None


# a date the file's name begins with, as blogs and dated records name their files: Jekyll's
# ``2025-12-02-release.md``, a daily note's ``2023-11-01.md``, TensorFlow's RFCs'
# ``20181116-saved-model.md`` (written without dashes only before a dash and a word, so a
# number that names a document, ``19950412.md``, is no date)
_NAME_DATE_RE = re.compile(r"((?:19|20)[0-9]{2})(?:-([01][0-9])-([0-3][0-9])(?=$|[-_ .])|([01][0-9])([0-3][0-9])(?=[-_][A-Za-z]))")


def name_date(rel: str) -> int | None:
    """The date ``rel``'s file name begins with (:data:`_NAME_DATE_RE`), as a unix timestamp
    (UTC midnight), or None when it begins with none or with no real day (``2023-02-30``)."""
    m = _NAME_DATE_RE.match(PurePosixPath(rel).stem)
    if m is None:
        return None
    year, month, day = m.group(1), m.group(2) or m.group(4), m.group(3) or m.group(5)
    return parse_date(f"{year}-{month}-{day}")


_SCALAR_FIELDS = ("title", "id", "stage", "workstream", "status")


def validate_meta(rel: str, meta: dict[str, Any], lines: dict[str, int]) -> tuple[dict[str, Any], list[ParseWarning]]:
    """Check every front matter value orion reads; a bad one is dropped with a warning at
    its line. Other fields are kept (filterable with --where) once made JSON-safe."""
    warnings: list[ParseWarning] = []
    out: dict[str, Any] = {}

    def bad(key: str, value: Any, why: str) -> None:
        shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
        if len(shown) > 60:
            shown = shown[:57] + "..."
        warnings.append(ParseWarning(rel, "front-matter", f"{key}: {shown} {why}; field dropped", line=lines.get(key, 2)))

    for key, value in meta.items():
        if key in _SCALAR_FIELDS:
            if value is None:
                continue
            if isinstance(value, (dict, list)) or (isinstance(value, float) and not math.isfinite(value)):
                bad(key, value, "is not a single value")
                continue
            value = str(value)
            if key in ("id", "stage", "workstream", "status") and (len(value) > 200 or "\n" in value):
                bad(key, value, "is not a short one-line value")
                continue
        elif key in ("created", "date"):
            if value is not None and value != "" and parse_date(date_value(value)) is None:
                bad(key, value, "could be either of two dates (day or month first?); write it as YYYY-MM-DD"
                    if ambiguous_date(str(value)) else "is not a valid date (YYYY-MM-DD)")
                continue
        elif key == "priority":
            if value is None:
                continue
            if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 3:
                value = int(value)  # "05", which YAML 1.1 read as octal and orion reads as written
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value != int(value) or not 1 <= value <= 10:
                bad(key, value, "is not an integer from 1 to 10")
                continue
            value = int(value)
        else:
            value = _finite(value)
        out[key] = value
    return out, warnings


def _finite(value: Any) -> Any:
    """JSON-safe: non-finite floats become text (``.inf`` -> "inf"), integers beyond 64 bits too."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -(1 << 63) <= value < (1 << 63):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


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


# folders that name their records' state: C#'s `proposals/rejected/`, .NET's `accepted/2020/`
FOLDER_STATES = frozenset({"accepted", "rejected", "withdrawn", "deprecated", "superseded", "proposed", "implemented",
                           "draft", "obsolete", "abandoned", "deferred", "declined", "retired", "replaced", "discontinued",
                           "defunct"})


# a folder of records kept for history only: "archived" (the Kubernetes community's
# `archive/` of retired groups, Helm's `hips/archives/` of proposals before the current process)
_ARCHIVE_FOLDERS = frozenset({"archive", "archives", "archived"})


def folder_status(rel: str) -> str | None:
    """The state the nearest folder of ``rel`` below its stage folder is named for
    (:data:`FOLDER_STATES`, a plural too: ``drafts/``; ``archive/``: archived), else None."""
    for part in reversed(PurePosixPath(rel).parts[1:-1]):
        name = part.lower()
        if name in _ARCHIVE_FOLDERS:
            return "archived"
        if name in FOLDER_STATES:
            return name
        if name.endswith("s") and name[:-1] in FOLDER_STATES:
            return name[:-1]
    return None


def _near_stage(stage: str) -> str | None:
    """The stage ``stage`` is likely a slip for (``desgin``: design), else None: a value far
    from every stage is the project's own word for something else (Ember's RFCs write their
    state as ``stage: recommended``), kept without a warning on every page."""
    import difflib

    near = difflib.get_close_matches(stage, [*STAGES, *STAGE_ALIASES], n=1, cutoff=0.75)
    return STAGE_ALIASES.get(near[0], near[0]) if near else None


def _deprecated_in_meta(meta: dict[str, Any]) -> bool:
    """Whether the front matter says the page is deprecated without a ``status``: a
    ``deprecated_by`` naming its successor (any case and separator), or ``deprecated: true``."""
    for key, value in meta.items():
        k = str(key).strip().lower().replace("-", "").replace("_", "")
        if k == "deprecatedby" and value not in (None, "", [], False):
            return True
        if k == "deprecated" and (value is True or str(value).strip().lower() in ("true", "yes")):
            return True
    return False


def parse_document(rel: str, data: bytes, text: str, *, mtime: float, git_time: int | None = None) -> tuple[Document, list[ParseWarning]]:
    meta, body_start, warnings = split_front_matter(rel, text)
    if not body_start and (fields := preamble_fields(text, 0, syntax_of(rel))) is not None:
        # a proposal's header block, read as its front matter; a field orion cannot read is
        # left out quietly (the block was written for the site's readers, not as front matter)
        meta, _dropped = validate_meta(rel, *_read_keys_lowered(*fields))
    parts = PurePosixPath(rel).parts
    source_type = TOP_FOLDERS[parts[0]]
    workstream = meta.get("workstream")
    if not workstream and parts[0] == "03_workstreams" and len(parts) > 2:
        workstream = parts[1]
    stage = normalise_stage(meta.get("stage"))
    if stage and stage not in STAGES and (near := _near_stage(stage)) is not None:
        warnings.append(ParseWarning(rel, "stage", f"unknown stage {stage!r}: did you mean {near!r}? (one of {', '.join(STAGES)}); kept as is", line=2))
    title = meta.get("title")
    if not title:
        # the outline's first level-1 heading (``# x`` or ``x`` over ``===``), never a
        # ``# comment`` in a code block; a title that is only an id with the subtitle under
        # it ("NIP-12: Generic Tag Queries")
        heads = read_blocks(text, body_start, syntax_of(rel)).headings
        at = next((i for i, h in enumerate(heads) if h.level == 1), None)
        title = (heads[at].title if at is not None else "") or PurePosixPath(rel).stem
        if at is not None and heads[at].title and (sub := subtitle(text, heads, at)) is not None:
            title = f"{title}: {sub.title}"
    created = parse_date(date_value(meta.get("created")))
    if created is None:  # (1970-01-01 is a date: 0, not missing)
        created = parse_date(date_value(meta.get("date")))
    # a status written as a link is its text: "[Implemented](https://…/commit/cdf01a3)"
    status = _LINKED.sub(r"\1", str(meta["status"])).strip().lower() if meta.get("status") is not None else None
    if status is not None and (gone := replaced_status(status)) is not None:
        status = gone  # "Final/R-33 Replaced by EEP 33": replaced, whatever came first
    if status is None and stage and stage not in STAGES and stage in STATUS_WORDS:
        status = stage  # Ember's RFCs keep their state as `stage: discontinued`
    if status is None and _deprecated_in_meta(meta):
        status = "deprecated"  # TypeScript's old handbook: "deprecated_by: /docs/handbook/2/classes.html"
    stated_refs: tuple[tuple[str, str, int], ...] = ()
    stated_keys = {"supersedes", "superseded_by"} - {front_matter_key(k) for k in meta}
    folder = folder_status(rel) if status is None else None
    if status is None or stated_keys:
        stated = read_stated(text, body_start, syntax_of(rel), status=status or folder, title=meta.get("title"))
        if stated.notice and (status is None or status_word(status) not in GONE):
            status = stated.status  # "This RFC has been discontinued" under a stale `stage: accepted`
        status = status if status is not None else (stated.status or folder)
        stated_refs = tuple(r for r in stated.refs if r[0] in stated_keys)
    if stated_keys:  # a front matter reason or status may name the successor
        stated_refs = (*stated_refs, *(r for r in reason_refs(meta, text[:body_start]) if r[0] in stated_keys))
    if stated_refs:  # each target once, at the first line naming it
        first: dict[tuple[str, str], tuple[str, str, int]] = {}
        for ref in stated_refs:
            first.setdefault(ref[:2], ref)
        stated_refs = tuple(first.values())
    if created is not None:
        created_source = "front-matter"
    elif (named := name_date(rel)) is not None:
        created, created_source = named, "name"
    elif git_time is not None:
        created, created_source = git_time, "git"
    else:
        created, created_source = int(mtime), "mtime"
    tags = tuple(dict.fromkeys(t.lower() for t in as_list(meta.get("tags"))))
    stated_language = _stated_language(rel, meta, warnings)
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
        status=status,
        stated_refs=stated_refs,
        language=stated_language or _language_of(text, body_start, syntax_of(rel)),
    )
    return doc, warnings


LANGUAGE_SAMPLE = 6_000  # characters of a body read for a document's language (~900 words)


def _stated_language(rel: str, meta: dict[str, Any], warnings: list[ParseWarning]) -> str | None:
    """The language the front matter states: ``lang`` is one (a value that is no language
    code is a warning); ``language`` may be one ("fr", "French") or something else a site
    keeps there (a page's programming language, "js"): it counts only as a language orion
    names, and is never warned about. Else the one its path states (``x.fr.md``,
    ``i18n/ja/…``): a translation left untranslated is still the French page of a site."""
    from oriongraph_cli.language import normalise, of_path

    lang = normalise(meta.get("lang"))
    if lang is None and meta.get("lang") is not None:
        warnings.append(ParseWarning(rel, "lang", f"lang {str(meta['lang'])[:40]!r} is no language code (en, pt-BR); read from the path or the text instead", line=2))
    return lang or normalise(meta.get("language"), known=True) or of_path(rel, extensions=False)


def _language_of(text: str, body_start: int, syntax: str) -> str | None:
    """The language of the note's prose: the first ``LANGUAGE_SAMPLE`` characters of its
    body with code blanked out (the link extractor's ``mask_code``, on the outline's cached
    reading)."""
    from oriongraph_cli.language import detect  # its patterns cost ~5 ms to compile: not on a no-change run's path

    return detect(mask_code(text, body_start, syntax, end=body_start + LANGUAGE_SAMPLE))
