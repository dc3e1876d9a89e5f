"""What a document says about itself in its first lines when its front matter does not: its
status, and the documents it supersedes or is superseded by.

Decision records are mostly written without front matter, their state in the text as their
tools write it:

- a section headed "Status" (Nygard's records, adr-tools): its first line, "Accepted",
  "**rejected**", "⌛️ Superseded by [36. Multi-cluster](0036-multi-cluster.md)", "Reverted
  by [discussion #1197](https://…)";
- a "Status: value" line, as a list item or in bold (MADR's "* Status: accepted",
  "**Status:** Draft", Log4brains' "- Status: accepted", a PEP's "Status: Final" header,
  reStructuredText's ":Status: Final" field), maybe with more after a bar ("**Status:**
  Accepted | **Date:** 2025-02-25");
- a table row, "| Status | Approved |", or the cell under a table's "Status" column ("| Lifecycle
  Stage | Maturity | Status |" over "| 3A | Recommendation | Active |": libp2p's specs);
- "Supersedes", "Superseded by", "Replaced by" and "Replaces" the same ways (a line, a row, or
  within the status: "Superseded by [ADR-0007](0007-x.md)"; adr-tools spells it
  "Superceded by"), and as lines or rows the IETF's "Obsoletes" / "Obsoleted by" and
  "Deprecated by" (the gRPC proposals'), naming the other records by their links (Markdown
  links, or Sphinx cross-references: NumPy's NEPs write ":Replaced-By: :ref:`NEP56`"), else by
  their ids (``ADR-0007``); "N/A" names none.

Where the head states no state in those forms, or one still in force (a template's "| 3A |
Recommendation | Active |"), a notice in its lead (the text before its first section, or
before the second heading when the first is its title) may say the record is gone: a sentence
saying so of itself, "> This command has been superseded by `pamscale`." (tldr pages), ">
[!IMPORTANT] This RFC has been discontinued, …" (Ember's RFCs), "**Note:** This tool has been
deprecated." — "This" or "The", one word for the record, then "has been", "is" or "was" and a
word of :data:`NOTICE_STATES`, at a sentence's start —; or a sentence sending its reader to
another record for good, "> This is the original specification, please refer to
[gossipsub-v1.0](gossipsub-v1.0.md) from now on" (superseded; with "instead" only in a
sentence saying the record is old, "outdated, see [x](x.md) instead").

A record whose state says it is gone may name its successor in a sentence of its head:
"superseded by", "replaced by", "in favor of", or a verb telling its reader what to use
instead ("Users should **prefer QUIC or Yamux**", "Use `pamscale` instead"), naming the
records by links, else ids, else names (`code`, or one to three capitalised words), which the
link resolver looks up as it looks up a wiki link's.

Only the head is read (:data:`HEAD_LINES` lines of the body; its sentences naming a successor
or sending the reader elsewhere in its first :data:`SENTENCE_SCAN` characters), outside code
blocks and HTML comments, its headings as the splitter reads them (ATX, setext, reStructuredText's titles).
A status is kept when its value starts with a word records use for a state
(:data:`STATUS_WORDS`: "Accepted (documenting an existing thing)" is accepted) or is one
word ("TBD"); a sentence under a "Status" heading ("This project is in beta…") is none.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Sequence

from oriongraph_cli.blocks import Heading, read_blocks, unseen_ranges
from oriongraph_cli.docids import id_only_title
from oriongraph_cli.graph.extract import ID_TOKEN_RE, MD_LINK_RE, REF_DEF_RE, SPHINX_ROLE_RE, front_matter_line, line_starts
from oriongraph_cli.index.preamble import preamble_range

HEAD_LINES = 60
# the words decision records, PEPs and RFCs use for a state (lower case); two-word ones too
STATUS_WORDS = frozenset({
    "proposed", "draft", "accepted", "approved", "adopted", "decided", "agreed", "final", "active",
    "superseded", "deprecated", "rejected", "withdrawn", "obsolete", "replaced", "amended", "implemented",
    "provisional", "deferred", "pending", "review", "reviewed", "discussion", "open", "closed", "abandoned",
    "retired", "experimental", "stable", "completed", "done", "planned", "postponed", "declined", "dropped",
    "wip", "tbd", "reverted", "revoked", "rescinded", "retracted", "cancelled", "canceled",
    "discontinued", "released", "recommended",  # Ember's RFCs' stages
    "inactive",  # Cardano's proposals: "Inactive (superseded by CIP-0121 and CIP-0122)"
    "unrecommended",  # Nostr's NIPs: "> __Warning__ `unrecommended`: deprecated in favor of [NIP-17](17.md)"
    "removed",  # ESLint's removed rules: "This rule was removed in ESLint v1.0.0 and replaced by the [strict](strict) rule."
    "archived",  # a record kept for history only: the Kubernetes community's `archive/` folders
    "defunct",  # Crossplane's retired designs: "* Status: Defunct", kept in `design/defunct/`
})
STATUS_PHRASES = ("in progress", "in review", "under review", "under discussion", "on hold")
_SPELLINGS = {"superceded": "superseded", "obsoleted": "obsolete"}  # the IETF's "Obsoleted by" as a state
_KEYS = {
    "status": "status",
    "supersedes": "supersedes", "supercedes": "supersedes", "replaces": "supersedes", "obsoletes": "supersedes",
    "superseded by": "superseded_by", "superceded by": "superseded_by", "replaced by": "superseded_by",
    "superseded-by": "superseded_by", "superceded-by": "superseded_by", "replaced-by": "superseded_by",
    "obsoleted by": "superseded_by", "obsoleted-by": "superseded_by", "deprecated by": "superseded_by",
    "deprecated-by": "superseded_by",
}
_KEY = r"(status|super[sc]edes|replaces|obsoletes|super[sc]eded[- ]by|replaced[- ]by|obsoleted[- ]by|deprecated[- ]by)"
_EMPH = r"(?:\*\*|__|\*|_)?"
# "Status: x", "* Status: x", "- **Status:** x", "**Status**: x", ":Status: x"
_LINE_RE = re.compile(rf"^ {{0,3}}(?:[-*+] +)?:?{_EMPH}{_KEY}{_EMPH}[ \t]*:{_EMPH}[ \t]*(.*)$", re.IGNORECASE)
# "| Status | Approved |", "| **Superseded by:** | [ADR-7](7.md) |", "| Status | Draft" (a row's
# closing bar may be missing)
_ROW_RE = re.compile(rf"^ {{0,3}}\|?[ \t]*{_EMPH}{_KEY}{_EMPH}[ \t]*:?{_EMPH}[ \t]*\|[ \t]*([^|]*?)[ \t]*(?:\||$)", re.IGNORECASE)
_BLANK_RE = re.compile(r"[^\n]")
_ADORNMENT_RE = re.compile(r"^[ \t]*([=\-~^\"'`#*+:._])\1+[ \t]*$")
_BY_RE = re.compile(r"\b(?:super[sc]eded|replaced)\s+(?:by|with)\b|\b(?:obsoleted|(?:made|rendered)\s+obsolete)\s+by\b"
                    r"|\bmoved\s+to\b(?=\s+\[)|\bmerged\s+(?:back\s+)?into\b(?=\s+\[)"
                    # "It is now included in [@babel/standalone](standalone.md)."
                    r"|\b(?:is|are|has\s+been|have\s+been)\s+now\s+(?:included|bundled|built)\s+in(?:to)?\b(?=\s+\[)"
                    r"|\b(?:is|are)\s+now\s+part\s+of\b(?=\s+\[)", re.IGNORECASE)
_SUPERSEDES_RE = re.compile(r"\b(?:super[sc]edes|replaces)\b", re.IGNORECASE)
_FAVOUR_RE = re.compile(r"\bin\s+favou?r\s+of\b", re.IGNORECASE)
# a record saying in a sentence of its head that it replaces a linked one: "This ADR in part
# supersedes [0003](0003-aws-networking-outline.md)", "This RFC replaces [RFC 12](…)"
_SELF_SUPERSEDES_RE = re.compile(
    r"(?:^[ \t>]*|[.!?][ \t]+)[*_]*this(?:[ \t]+[a-z][\w-]*){1,3}?[ \t]+"
    r"(?:[a-z]+(?:[ \t]+[a-z]+)?[ \t]+and[ \t]+)?"  # "This proposal builds on and supersedes [FIP-0047](…)"
    r"(?:(?:in[ \t]+part|partly|partially|fully|hereby)[ \t]+)?(?:super[sc]edes|replaces|obsoletes"
    r"|(?:is|are)[ \t]+(?:intended|meant|designed)[ \t]+to[ \t]+(?:super[sc]ede|replace|obsolete))[ \t]+(?=\[)",  # Astro's RFCs:
    re.IGNORECASE | re.MULTILINE)  # "This RFC is intended to supercede [RFC0008](…)"
# a state said to hold in part: "Partly superseded", "Partially replaced", "In part deprecated"
_PART_RE = re.compile(r"^(?:partly|partially|in part)\s+(?=[a-z])")
# the states whose record may say in a sentence what took its place (:func:`_sentence_successors`)
GONE = frozenset({"superseded", "replaced", "withdrawn", "rejected", "deprecated", "obsolete", "abandoned", "discontinued",
                  "inactive", "unrecommended", "removed", "archived", "defunct",
                  # the other states not in force (``lifecycle.INACTIVE_STATUSES``): a Gateway API
                  # proposal "Declined" says "This GEP has been merged back into [GEP-713](…)"
                  "declined", "dropped", "retired", "reverted", "revoked", "rescinded", "retracted", "cancelled", "canceled"})
# the states a notice in a record's lead may say it is in (:func:`_notice_status`)
NOTICE_STATES = frozenset({"superseded", "superceded", "replaced", "deprecated", "obsolete", "withdrawn", "discontinued",
                           "abandoned", "retired", "rejected", "unrecommended", "removed", "defunct"})
# "This RFC has been discontinued", "> Note: This command is deprecated", "**Note: this PEP was
# superseded by** …", "This action is considered to be deprecated". Where a notice begins — a line's start (after a quote's marks, a heading's, an alert label or a
# "Note:") or a sentence's — and what it says after its subject: "has been", "is" or "was", then
# maybe "considered to be", "now", "officially", "made"/"rendered" (obsolete), and the state's word
# — maybe after an emoji ("🚨") and a clause saying since when: "🚨 As of Babel 7.4.0, this
# package has been deprecated", "Since v2, this flag is deprecated"
_SINCE = r"(?:(?:as[ \t]+of|since|starting[ \t]+(?:with|in|from))[ \t]+[^,\n]{1,40}?,[ \t]+)?"
_NOTICE_LEAD = (r"(?:^[ \t>]*(?:\#{1,6}[ \t]+)?(?:\[![a-z]+\][ \t]*)?(?:[^\x00-\x7f]{1,2}[ \t]*)?"
                r"(?:[*_]*(?:note|warning|important|caution|disclaimer|deprecated|notice)[*_]*[ \t]*:?[*_]*[ \t]+)?|[.!?][ \t]+)"
                + _SINCE + r"[*_]*")
_NOTICE_IS = (r"[ \t]+(?:(?:has|had)[ \t]+(?:now[ \t]+)?been|is(?:[ \t]+now)?|was)[ \t]+"
              r"(?:considered[ \t]+(?:to[ \t]+be[ \t]+)?)?(?:now[ \t]+|officially[ \t]+|formally[ \t]+)?"
              r"(?:(?:made|rendered)[ \t]+(?=obsolete\b))?([a-z]+)\b")
_NOTICE_RE = re.compile(_NOTICE_LEAD + r"(?:this(?:[ \t]+[a-z][a-z-]*){1,3}|the[ \t]+[a-z][a-z-]*)" + _NOTICE_IS,
                        re.IGNORECASE | re.MULTILINE)
# "removed" is said of many things ("This restriction was removed in ECMAScript 5.", "The token
# is removed from …"): a notice only as a page says it of itself, "This rule was removed in
# ESLint v1.0.0 and replaced by …", "This error has been removed": "this", past, at a line's start
_REMOVAL_RE = re.compile(r"[ \t>]*(?:[^.!?\n]*?[ \t])?this[ \t][^.!?\n]*?\b(?:was|has[ \t]+been|had[ \t]+been)[ \t]+removed\b",
                         re.IGNORECASE)
# the same said of the page's subject by its name in code, "The `tofu env` command is
# deprecated." — a notice only when the title names it too ("Command: env"), so a command
# page saying one of its flags is deprecated ("The `-refresh` flag is deprecated") is none
_WORD_RE = re.compile(r"[\w-]+")
_CODE_NOTICE_RE = re.compile(_NOTICE_LEAD + r"(?:the[ \t]+)?`([^`\n]{1,60})`(?:[ \t]+[a-z][a-z-]*)?" + _NOTICE_IS,
                             re.IGNORECASE | re.MULTILINE)
# the same said of the page's subject by its title's words, plain: "**NOTE:** Flexvolume is
# deprecated." under "# Flexvolume" — a notice only when the subject is the title, whole
_TITLE_NOTICE_RE = re.compile(_NOTICE_LEAD + r"([A-Za-z][\w.+-]*(?:[ \t]+[\w.+-]+){0,3}?)" + _NOTICE_IS,
                              re.IGNORECASE | re.MULTILINE)
# the same said of a kind of page the page is one of, the kind's last word in its title: "As of
# Babel v6, all the yearly presets have been deprecated." on "@babel/preset-es2015" (not on
# an overview titled otherwise, which may say what its kinds became)
_CLASS_NOTICE_RE = re.compile(_NOTICE_LEAD + r"all[ \t]+(?:of[ \t]+)?the((?:[ \t]+[a-z][\w-]*){1,3}?)[ \t]+"
                              r"(?:have[ \t]+(?:now[ \t]+)?been|are(?:[ \t]+now)?|were)[ \t]+(?:now[ \t]+|officially[ \t]+)?([a-z]+)\b",
                              re.IGNORECASE | re.MULTILINE)
_TITLE_PART_RE = re.compile(r"[a-z0-9]+")
_ALL_THE_RE = re.compile(r"\ball[ \t]+(?:of[ \t]+)?the[ \t]", re.IGNORECASE)  # the cheap test before it
# an admonition opening in the lead whose title is a state, as documentation sites mark a page:
# Docusaurus' and VitePress' ":::warning Sunsetting on July 20, 2026", ":::danger Archived",
# ":::info No longer recommended", MkDocs' '!!! warning "Deprecated"' — the state's word first,
# alone or before a date or version ("Removed in v11.0.0"); not "Future Deprecation", not
# "Deprecated Options" (some of the page's options), not "Deploy Classic sunsetting …"
_ADMONITION_STATE_RE = re.compile(
    r"^[ \t>]*(?::{3,}[ \t]*[a-z]+|!{3}[ \t]*[a-z]+|\?{3}\+?[ \t]*[a-z]+)[ \t]+[\"']?[*_]*"
    r"(deprecated|archived|removed|obsolete|discontinued|retired|superseded|defunct|sunset(?:ting|ted)?"
    r"|no[ \t]+longer[ \t]+(?:recommended|supported|maintained))"
    r"(?:[ \t]+(?:on|in|since|as[ \t]+of|from|after|starting)\b[^\n]*?)?[*_]*[\"']?[ \t]*$",
    re.IGNORECASE | re.MULTILINE)
# a paragraph of the lead that opens with the word, as reference pages mark an option or a
# call: "*Deprecated starting in version 2021…; … Use [x](x.md) instead*", "**Deprecated:** use
# …", "Deprecated since 1.4.", the word alone and emphasised on its line, "*DEPRECATED*" (not
# "Deprecated features are listed below")
_DEPRECATED_LEAD_RE = re.compile(
    r"(?:\A|\n[ \t>]*\n)[ \t>]*(?:\[![a-z]+\][ \t]*\n[ \t>]*)?[*_]{0,2}(deprecated)[*_]{0,2}"
    r"(?=[ \t]+(?:since|starting|as[ \t]+of|in[ \t]+(?:version|v?[0-9]|favou?r))\b|[*_]{0,2}[ \t]*[:.;,—–(]|(?<=[*_])[ \t]*(?:\n|$))",
    re.IGNORECASE)
# a paragraph of the lead that opens with a state's word as its label, after an alert's label
# maybe: "> __Warning__  `unrecommended`: deprecated in favor of [NIP-17](17.md)", "**Obsolete:**
# see …", "> [!WARNING]" over "`Deprecated`: …" — the word plain, emphasised or in code, then a
# colon or a dash (the word alone as a paragraph's first, "Deprecated since …", is the rule above)
_LABELLED_STATE_RE = re.compile(
    r"(?:\A|\n[ \t>]*\n)[ \t>]*(?:\[![a-z]+\][ \t]*\n[ \t>]*)?"
    r"(?:[*_]{1,2}(?:note|warning|important|caution|notice)[ \t]*:?[*_]{1,2}[ \t]*:?[ \t]+)?"
    r"(?:`|[*_]{0,2})([a-z]+)(?:`|[*_]{0,2})[ \t]*(?::|—|–|[*_]{1,2}:)",
    re.IGNORECASE)
# a lead saying the record now lives elsewhere, the place linked: "This function has moved to
# [wezterm.color.gradient](…)", "This alert has been moved to [x](…)", "This page moved to [x](…)",
# and a paragraph saying so without its subject: "Moved to [NIP-01](01.md).", 'Renamed to
# "Addressable events" and moved to [NIP-01](01.md).'
# the same with the link on the verb: "This document [has moved]." over "[has moved]:
# https://…/accepted/future-releases/records/feature-specification.md" (the Dart language's
# working proposals, each a stub once its feature was accepted), "This page [moved here](x.md)";
# the verb's helpers before the link, over a line break maybe, and "renamed" too: "The feature
# specification has been\n[moved](../../accepted/…/feature-specification.md)", "This feature
# has been [renamed](../augmentations/feature-specification.md)."
_MOVED_LINK_RE = re.compile(
    r"(?:^[ \t>]*|[.!?][ \t]+)[*_]*(?:this|the)(?:[ \t]+[a-z][\w-]*){1,3}\s+"
    r"(?:(?:has|had)[ \t]+been\s+|was\s+)?"
    r"\[((?:has[ \t]+(?:been[ \t]+)?|was[ \t]+)?(?:moved|renamed)(?:[ \t]+(?:to|here)\b[^\]\n]*)?)\]"
    r"(?:\(([^()\s]{1,500})\)|\[([^\]\n]{1,200})\])?"
    r"(?=[ \t]*(?:[.!;:]|\n|$)|\s+(?:to|into)\b)",  # the sentence's end, or where to: not "[renamed](r.md) in the example"
    re.IGNORECASE | re.MULTILINE)
_MOVED_RE = re.compile(
    r"(?:^[ \t>]*|[.!?][ \t]+)[*_]*(?:(?:this|the)(?:[ \t]+[a-z][\w-]*){1,3}[ \t]+(?:(?:has|had)[ \t]+(?:been[ \t]+)?|was[ \t]+)?"
    r"|(?-i:R)enamed[ \t]+to[ \t]+[^\n.!?]{1,80}?[ \t]+and[ \t]+|(?-i:(?=M)))(moved)[ \t]+to\s+(?=\[)",
    re.IGNORECASE | re.MULTILINE)
# a sentence of a record no longer in force saying what to use or read in its place: "Users
# should **prefer QUIC or Yamux**", "Use `pamscale` instead.", "please refer to
# [gossipsub-v1.0](gossipsub-v1.0.md) from now on" — "prefer", "switch to", "migrate to"…
# after "should", "must" or "please"; "use" or "see" after "please", or before "instead" (not
# "instead of": "users should use `==` instead of `elementsEqual`" compares two things) or
# "from now on" later in its sentence. "should use" alone is a specification's wording
_INSTEAD = r"(?:instead(?![ \t]+of\b)|from[ \t]+now[ \t]+on)\b"
# a sentence naming what to use before saying so: "[The `tofu workspace` command](workspace/index.mdx)
# should be used instead."
_USED_INSTEAD_RE = re.compile(r"\b(?:should|must|can|is|are)[ \t]+(?:now[ \t]+)?(?:be[ \t]+)?used[ \t]+instead\b(?![ \t]+of\b)",
                              re.IGNORECASE)
_PREFER_RE = re.compile(
    r"\b(?:should|must|please)\s+(?:[*_]{1,2})?(?:prefer|switch\s+to|migrate\s+to|move\s+to|refer\s+to)\b"
    r"|\bplease[ \t]+(?:use|see)\b|\bconsider[ \t]+(?:using|switching[ \t]+to|migrating[ \t]+to)\b(?=\s+\[)"
    r"|\brecommend[ \t]+(?:migrating|switching|moving)[ \t]+to\b(?=\s+\[)"
    r"|\bfor[ \t]+(?:the[ \t]+)?(?:current|latest|newest|up[ -]to[ -]date)\b[^.!?\n\[]{0,60}?[ \t]+(?:see|refer[ \t]+to|read)\b(?=\s+\[)"
    r"|\b(?:use|using|see|try|refer[ \t]+to)\b(?=(?:[^.!?\n]|[.!?](?!\s)){0,200}?\b" + _INSTEAD + r")",
    re.IGNORECASE)
# a record no longer in force recommending another in its place: "For most use cases, we actually
# recommend the workflow specified in [SEP-0024](sep-0024.md) instead of SEP-0003" — what it
# names between "recommend" and "instead of" (a link or an id only: :func:`_sentence_successors`)
_RECOMMEND_RE = re.compile(r"\brecommend(?:s|ed)?\b(?=(?:[^.!?\n]|\n(?![ \t]*\n)|[.!?](?!\s)){0,200}?\binstead[ \t]+of\b)",
                           re.IGNORECASE)
_INSTEAD_OF_RE = re.compile(r"\binstead[ \t]+of\b", re.IGNORECASE)
# what a recommendation is made instead of, up to its sentence's end: the page itself when it
# is "this" and a word or two, or the title's words whole — "For new projects, Cloudflare now
# recommends using [Cloudflare Workers](…) instead of Cloudflare Pages." on "Cloudflare Pages"
_INSTEAD_OF_WHAT_RE = re.compile(r"[ \t]*(?:the[ \t]+|using[ \t]+)?([^.!?\n]{1,80}?)[ \t]*(?:[.!?:;,(]|$)", re.MULTILINE)
_THIS_RE = re.compile(r"this(?:[ \t]+[a-z][\w-]*){1,2}", re.IGNORECASE)
# a lead naming a linked page as its successor: "If you are starting a new full-stack
# application, see [Cloudflare Workers + Vite](/docs/…), which is the successor to this Pages
# setup." — the last link before the words, in their sentence
_SUCCESSOR_LINK_RE = re.compile(
    r"\[[^\[\]\n]{1,200}\]\(([^()\s]{1,500})\)[^.!?\n\[]{0,80}?\b(?:is|was|as)?[ \t]*(?:the|its)[ \t]+"
    r"(?:official[ \t]+|recommended[ \t]+)?successor[ \t]+(?:to|of)[ \t]+this\b", re.IGNORECASE)
# a notice in the lead pointing elsewhere for good: "This is the original specification, please
# refer to [gossipsub-v1.0](gossipsub-v1.0.md) from now on" — a link read "from now on", or
# "instead" in a sentence saying the record is old
_REFER_NOTICE_RE = re.compile(
    r"\b(?:refer[ \t]+to|see|use|read)[ \t]+\[[^\[\]\n]{1,200}\]\([^()\s]{1,500}\)[^.!?\n]{0,40}?\b(?:from[ \t]+now[ \t]+on|henceforth|(instead(?![ \t]+of\b)))\b"
    # "For current types, see [CRD API Reference (v1beta2)](crd-api-reference.md)." after
    # "This page documents **deprecated** API packages.": read only where a sentence of its
    # paragraph says the page is old (a README's "For the latest release notes, see [x]" is none)
    r"|\bfor[ \t]+(?:the[ \t]+)?(?:current|latest|newest|up[ -]to[ -]date)\b[^.!?\n\[]{0,60}?[ \t]+(?:see|refer[ \t]+to|read)"
    r"[ \t]+(?=\[[^\[\]\n]{1,200}\]\([^()\s]{1,500}\))(?P<current>)",
    re.IGNORECASE)
_OLD_RE = re.compile(r"\b(?:original|old|older|outdated|out[ \t]+of[ \t]+date|obsolete|legacy|no[ \t]+longer|deprecated|archived|historical)\b",
                     re.IGNORECASE)
# a successor named in a sentence without a link or an id: `code`, or one to three words each
# starting with a capital or a digit ("QUIC", "Yamux", "Cache V2"); the words that end the names
_NAME_RE = re.compile(r"`([^`\n]{1,60})`|([A-Z0-9][\w.+-]*(?:[ \t]+[A-Z0-9][\w.+-]*){0,2})")
_NAMES_END_RE = re.compile(r"\b(?:instead|from[ \t]+now|for|in|when|if|because|which|that|to|as|where|unless)\b|[(:;]",
                           re.IGNORECASE)
_NAMES_SPLIT_RE = re.compile(r",|/|\b(?:or|and)\b", re.IGNORECASE)
# the characters of a head read for those sentences: a real record says it in its first few
# thousand (a head is 60 lines, but a line may be megabytes long)
SENTENCE_SCAN = 32_768
# a sentence's end: a full stop, question or exclamation mark before a space, or a blank line
_SENTENCE_END_RE = re.compile(r"[.!?](?=\s)|\n[ \t]*\n")
_PARAGRAPH_END_RE = re.compile(r"\n[ \t>]*\n")
# a front matter field giving a reason for the record's state (EIPs' ``withdrawal-reason``)
_REASON_KEY_RE = re.compile(r"reason", re.IGNORECASE)
# what such a reason says of a record no longer in force that names where to go instead
_REASON_PREFER_RE = re.compile(
    r"\bprefers?\b|\bmoved[ \t]+to\b|\bbetter[ \t]+(?:implemented|served|handled|done|addressed|solved)[ \t]+(?:with|by|in)\b",
    re.IGNORECASE)
_CHOICES_RE = re.compile(r"^\s*(?:\{([^{}]*)\}|\[([^\[\]]*)\]|\(([^()]*)\))\s*$")
_NONE_RE = re.compile(r"^\W*(?:n/?a|none|nothing|-+|—|tbd)?\W*$", re.IGNORECASE)
# a line that may hold one of the forms: anything else skips the head's line-by-line read
# (a table whose header row has a Status cell anywhere in it too)
_CUE_RE = re.compile(r"^[ \t>*_#|:+-]*(?:status|super[sc]ede|replace|obsolete|deprecated[- ]by)|^[ \t]*\|.*\|[ \t*_]*status[ \t*_:]*\|",
                     re.IGNORECASE | re.MULTILINE)
_DELIMITER_ROW_RE = re.compile(r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


@dataclass(frozen=True)
class Stated:
    """What a document's head says about it: ``status`` (lower case, the state's word or
    phrase, or None) at ``status_line``, and ``refs``: (key, target, line) with key
    ``supersedes`` or ``superseded_by`` and target a link's destination or an id. Lines are
    1-based in the document's text. ``notice``: the status is a notice's in the lead, saying
    the record is gone."""

    status: str | None = None
    status_line: int | None = None
    refs: tuple[tuple[str, str, int], ...] = ()
    notice: bool = False  # the status is a notice's (the module's last form), which outranks a front matter state in force

    def __bool__(self) -> bool:
        return self.status is not None or bool(self.refs)


NOTHING = Stated()


def read_stated(text: str, body_start: int = 0, syntax: str = "markdown", status: str | None = None,
                title: str | None = None) -> Stated:
    """:class:`Stated` from the head of ``text[body_start:]`` (the module's forms), its
    outline and code read as the splitter reads them (``blocks.read_blocks``: the same call,
    so its cached reading; ``syntax``: ``blocks.syntax_of`` the note's path — a
    reStructuredText note's section titles are its outline, an MDX page has no indented code). ``status``: the state known otherwise (front matter, the folder), which a
    state the head writes overrides; when either says the record is gone, a sentence of the
    head may name its successor (:func:`_sentence_successors`). ``title``: the record's title
    from its front matter, the one a notice naming its subject in code must name when the
    body opens without a title heading."""
    head_end = body_start
    for _ in range(HEAD_LINES):
        nl = text.find("\n", head_end)
        if nl < 0:
            head_end = len(text)
            break
        head_end = nl + 1
    # a no-break space is space here ("| Status\xa0\xa0 | Accepted\xa0 |"), as a table's
    # cells read: one character for one, so offsets and lines stay
    head = text[body_start:head_end].replace("\xa0", " ")
    given = status_word(status) if status else None
    given_title = title  # (the name is taken by the outline's loop below)
    if (not _CUE_RE.search(head) and not (given in GONE and _successor_cue(head))
            and not _notice_cue(head) and not _SELF_SUPERSEDES_RE.search(head[:SENTENCE_SCAN])):
        return NOTHING
    blocks = read_blocks(text, body_start, syntax)
    pre = preamble_range(text, body_start, syntax)  # a record's fields in a code block are no code here
    hidden = sorted([(max(a - body_start, 0), b - body_start) for a, b in blocks.code if a < head_end and (a, b) != pre]
                    + unseen_ranges(head))
    if hidden:  # code and comments blanked, lines kept: in one pass (a line may hold many comments)
        parts, pos = [], 0
        for a, b in hidden:
            a = max(a, pos)
            if a < b:
                parts.append(head[pos:a])
                parts.append(_BLANK_RE.sub(" ", head[a:b]))
                pos = b
        head = "".join(parts) + head[pos:]
    lines = head.split("\n")
    starts = line_starts(head)
    line_of = lambda offset: bisect.bisect_right(starts, offset) - 1  # noqa: E731  (0-based line)
    # each heading of the head: its first line -> (title, first line after it, line of the next heading)
    heads = [(line_of(h.start - body_start), line_of(h.content_start - body_start), h.title)
             for h in blocks.headings if h.start < head_end]
    sections = {first: (title, after, heads[n + 1][0] if n + 1 < len(heads) else len(lines))
                for n, (first, after, title) in enumerate(heads)}
    first_line = text.count("\n", 0, body_start) + 1
    status: tuple[str, int] | None = None
    refs: list[tuple[str, str, int]] = []
    keys_seen: set[str] = set()
    i = 0
    while i < len(lines):
        found: tuple[str, str, int] | None = None  # (key, value, index of the value's line)
        section_refs: list[tuple[str, str, int]] = []  # named under a "Status" heading after its first line
        if i in sections:
            title, after, end = sections[i]
            plain = _plain(title).rstrip(":").strip()
            if plain == "status":
                j = after
                while j < end and (not lines[j].strip() or _ADORNMENT_RE.match(lines[j])):
                    j += 1  # blank lines and a reStructuredText title's underline
                if j < end:
                    found = ("status", re.sub(r"^ {0,3}(?:[-*+]|\d+[.)]) +", "", lines[j]), j)
                    # the section's later lines may name what it replaced, as adr-tools writes
                    # it ("Accepted", a blank line, "Supercedes [1. Record …](0001-record.md)")
                    for k in range(j + 1, end):
                        if _BY_RE.search(lines[k]) or _SUPERSEDES_RE.search(lines[k]):
                            section_refs.extend((name, t, first_line + k) for name, t in _status_refs(lines[k]))
            elif plain.startswith("status:"):  # "## Status: Accepted"
                found = ("status", title.split(":", 1)[1], i)
            i = max(after, i + 1) - 1  # a heading's own lines hold no other form
        elif (col := _status_column(lines, i)) is not None and not _status_row(lines[i]):  # "| Stage | Status |", "|---|---|", "| 3A | Active |"
            row = _cells(lines[i + 2])
            found = ("status", row[col] if col < len(row) else "", i + 2)
            i += 2
        elif (r := _ROW_RE.match(lines[i])) is not None and _table_row(lines, i):
            found = (_KEYS[_norm(r.group(1))], r.group(2), i)
        elif (kv := _LINE_RE.match(lines[i])) is not None:
            found = (_KEYS[_norm(kv.group(1))], kv.group(2), i)
        if found is not None:
            key, value, at = found
            line_no = first_line + at
            if key == "status":
                if status is None:
                    word = replaced_status(value) or status_word(value)
                    if word is not None:
                        status = (word, line_no)
                        refs.extend((name, t, line_no) for name, t in _status_refs(value, word))
                        refs.extend(section_refs)
            elif key not in keys_seen:
                keys_seen.add(key)
                refs.extend((key, t, line_no) for t in _targets(value))
        i += 1
    notice = False
    if status is None or status[0] not in GONE:  # a notice in the lead may say the record is gone,
        lead_end = heads[0][0] if heads else len(lines)  # over a state line still in force (a
        if heads and not "".join(lines[:lead_end]).strip():  # template's "| 3A | … | Active |"):
            # the first heading is the title, with the subtitle under it when it is an id
            n = 2 if subtitle(text, blocks.headings) is not None else 1
            lead_end = heads[n][0] if len(heads) > n else len(lines)
        # and the heading that ends it, which may be the notice itself: "## Note: This MSC has
        # been made obsolete by MSC2290."
        title = heads[0][2] if heads and not "".join(lines[:heads[0][0]]).strip() else given_title
        gone = _notice_status("\n".join(lines[:lead_end + 1]), first_line, title)
        if gone is not None:
            status, notice = gone, True
    if (status[0] if status else given) in GONE and not any(key == "superseded_by" for key, _t, _l in refs):
        refs.extend(_moved_link(head, first_line)
                    or (_linked_successor(head, first_line) + _sentence_successors(head, first_line)))
    if "supersedes" not in keys_seen:
        refs.extend(_self_supersedes(head, first_line))
    out_refs = tuple(dict.fromkeys(refs))
    if status is None and not out_refs:
        return NOTHING
    return Stated(status[0] if status else None, status[1] if status else None, out_refs, notice)


def subtitle(text: str, headings: Sequence[Heading], i: int = 0) -> Heading | None:
    """The heading completing the title ``headings[i]`` when that title is only a series' id
    (:func:`docids.id_only_title`): "NIP-12" over "Generic Tag Queries", the next heading, a
    level deeper, with nothing but blank lines between. None for any other outline."""
    if i + 1 >= len(headings):
        return None
    first, second = headings[i], headings[i + 1]
    if second.level > first.level and id_only_title(first.title) and not text[first.content_start:second.start].strip():
        return second
    return None


def _self_supersedes(head: str, first_line: int) -> list[tuple[str, str, int]]:
    """The records a sentence of ``head`` says this one replaces (:data:`_SELF_SUPERSEDES_RE`):
    the links in the rest of that sentence."""
    out: list[tuple[str, str, int]] = []
    for m in _SELF_SUPERSEDES_RE.finditer(head):
        end = _SENTENCE_END_RE.search(head, m.end())
        line = first_line + head.count("\n", 0, m.end())
        out.extend(("supersedes", t, line) for t in _links(head[m.end(): end.start() if end else len(head)]))
    return out


def _notice_cue(head: str) -> bool:
    """Whether ``head`` may hold a notice :func:`_notice_status` reads (the cheap test first)."""
    return (any(m.group(1).lower() in NOTICE_STATES for m in _NOTICE_RE.finditer(head))
            or any(m.group(2).lower() in NOTICE_STATES for m in _CODE_NOTICE_RE.finditer(head))
            or any(m.group(2).lower() in NOTICE_STATES for m in _TITLE_NOTICE_RE.finditer(head)) or _refer_notice(head) is not None
            or (_ALL_THE_RE.search(head) is not None
                and any(m.group(2).lower() in NOTICE_STATES for m in _CLASS_NOTICE_RE.finditer(head)))
            or _DEPRECATED_LEAD_RE.search(head) is not None or _MOVED_RE.search(head) is not None
            or _ADMONITION_STATE_RE.search(head) is not None or _MOVED_LINK_RE.search(head) is not None
            or _labelled_state(head) is not None
            or ("recommend" in head.lower() and _RECOMMEND_RE.search(head) is not None)  # the word first: cheaper over a long head
            or _SUCCESSOR_LINK_RE.search(head[:SENTENCE_SCAN]) is not None)


def _labelled_state(lead: str) -> re.Match[str] | None:
    """The first paragraph of ``lead`` opening with a state's word as its label
    (``_LABELLED_STATE_RE``) when the word is one a notice may say (:data:`NOTICE_STATES`)."""
    return next((m for m in _LABELLED_STATE_RE.finditer(lead[:SENTENCE_SCAN])
                 if _SPELLINGS.get(m.group(1).lower(), m.group(1).lower()) in NOTICE_STATES), None)


def _successor_cue(head: str) -> bool:
    """Whether ``head`` may hold a sentence :func:`_sentence_successors` reads."""
    return bool(_successor_cues(head[:SENTENCE_SCAN]))


def _successor_cues(head: str) -> list[re.Match[str]]:
    """The first "superseded by", "in favor of" and use-instead cue of ``head``, in order."""
    return sorted((m for m in (_BY_RE.search(head), _FAVOUR_RE.search(head), _PREFER_RE.search(head), _USED_INSTEAD_RE.search(head),
                               _RECOMMEND_RE.search(head))
                   if m is not None), key=lambda m: m.start())


def _refer_notice(lead: str) -> re.Match[str] | None:
    """The first sentence of ``lead`` sending its reader to a linked record for good (the
    module's last form): "please refer to [x](x.md) from now on"; with "instead", only in a
    sentence saying the record is old ("This page is outdated, see [x](x.md) instead")."""
    lead = lead[:SENTENCE_SCAN]
    for m in _REFER_NOTICE_RE.finditer(lead):
        if m.group("current") is not None:  # "For current types, see [x]": its paragraph says the page is old
            lo = max(0, m.start() - 300)
            start = max((e.end() for e in _PARAGRAPH_END_RE.finditer(lead, lo, m.start())), default=lo)
            if _OLD_RE.search(lead, start, m.start()):
                return m
            continue
        if m.group(1) is None:
            return m
        lo = max(0, m.start() - 300)  # the sentence's start, looked for near the verb only
        start = max((e.end() for e in _SENTENCE_END_RE.finditer(lead, lo, m.start())), default=lo)
        if _OLD_RE.search(lead, start, m.end()):
            return m
    return None


def _notice_status(lead: str, first_line: int, title: str | None = None) -> tuple[str, int] | None:
    """(state, line) of the first notice in ``lead`` saying the record is gone (the module's
    last form), None when it holds none; a notice sending its reader elsewhere for good
    (:func:`_refer_notice`) or saying the record has moved to a linked place (``_MOVED_RE``)
    says it is superseded, a paragraph opening with "Deprecated" (``_DEPRECATED_LEAD_RE``)
    that it is deprecated. ``title``: the record's title, which a notice naming its subject in
    code (``_CODE_NOTICE_RE``, "The `tofu env` command is deprecated") must name too, and a
    notice naming it in words must name whole ("Flexvolume is deprecated.": ``_TITLE_NOTICE_RE``)."""
    words = ((m.start(1), _SPELLINGS.get(m.group(1).lower(), m.group(1).lower())) for m in _NOTICE_RE.finditer(lead)
             if m.group(1).lower() != "removed" or _REMOVAL_RE.match(m.group(0)))
    found = [next(((at, w) for at, w in words if w in NOTICE_STATES and w in STATUS_WORDS), None)]
    words = _WORD_RE.findall(title.lower()) if title else []
    title_words = set(words)
    # the page's subject named in code, its last word the title's, or a name of joined words
    # holding every word of a title of two or more ("`adapter-cloudflare-workers` has been
    # deprecated" on "Cloudflare Workers"); or by the title's words whole
    found.append(_first_notice(_CODE_NOTICE_RE, lead, lambda named: bool(named) and (
        named[-1] in title_words or (len(title_words) > 1 and title_words <= set(re.split(r"[-_.]", named[-1]))))))
    if words:
        found.append(_first_notice(_TITLE_NOTICE_RE, lead, lambda named: named == words))
        parts = set(_TITLE_PART_RE.findall(title.lower()))
        if _ALL_THE_RE.search(lead) is not None:
            found.append(_first_notice(_CLASS_NOTICE_RE, lead, lambda named: bool(named) and len(named[-1]) > 3
                                       and named[-1].endswith("s") and (named[-1] in parts or named[-1][:-1] in parts)))
    refer = _refer_notice(lead)
    if refer is not None:
        found.append((refer.start(), "superseded"))
    # a label over a thing named in code is that thing's state, not the record's unless the
    # title names it too: "Deprecated: `kind:30024` was used for long-form drafts" in NIP-23
    if (m := _DEPRECATED_LEAD_RE.search(lead)) is not None and not _labels_other(lead, m.end(), title_words):
        found.append((m.start(1), "deprecated"))
    if (m := _MOVED_RE.search(lead)) is not None:
        found.append((m.start(1), "superseded"))  # its successor: the place linked (_BY_RE)
    if (m := _MOVED_LINK_RE.search(lead)) is not None:
        found.append((m.start(1), "superseded"))  # its successor: the verb's link (_moved_link)
    # (over a thing named in code the title does not name, as a label is: ":::warning Deprecated"
    # over "`pnpm env` is deprecated." on another command's page)
    if (m := _ADMONITION_STATE_RE.search(lead)) is not None and not _labels_other(lead, _next_text(lead, m.end()), title_words):
        word = m.group(1).lower()  # a sunset, or no longer recommended: still there, on its way out
        found.append((m.start(1), "deprecated" if word.startswith(("sunset", "no")) else word))
    if (m := _labelled_state(lead)) is not None and not _labels_other(lead, m.end(), title_words):
        found.append((m.start(1), _SPELLINGS.get(m.group(1).lower(), m.group(1).lower())))
    if (at := _recommended_instead(lead, words)) is not None:
        found.append((at, "deprecated"))  # still there, recommended against: its successor the link
    if (m := _SUCCESSOR_LINK_RE.search(lead[:SENTENCE_SCAN])) is not None:
        found.append((m.start(), "superseded"))  # its successor: that link (_linked_successor)
    hits = [hit for hit in found if hit is not None]
    if not hits:
        return None
    at, word = min(hits)
    return word, first_line + lead.count("\n", 0, at)


def _recommended_instead(lead: str, title_words: list[str]) -> int | None:
    """The offset of the first sentence of ``lead`` recommending a linked page "instead of"
    the page itself — "this page", "this plugin", or its title's words whole ("…recommends
    using [Cloudflare Workers](…) instead of Cloudflare Pages." on "Cloudflare Pages"); None
    when none does."""
    lead = lead[:SENTENCE_SCAN]
    for m in _RECOMMEND_RE.finditer(lead):
        instead = _INSTEAD_OF_RE.search(lead, m.end(), m.end() + 400)  # within the cue's reach (200 characters)
        if instead is None or not _links(lead[m.end(): instead.start()]):
            continue
        what = _INSTEAD_OF_WHAT_RE.match(lead, instead.end())
        if what is None:
            continue
        named = re.sub(r"[*_`]", "", what.group(1)).strip()
        if _THIS_RE.fullmatch(named) or (title_words and _WORD_RE.findall(named.lower()) == title_words):
            return m.start()
    return None


def _first_notice(notice_re: re.Pattern[str], lead: str, names_subject) -> tuple[int, str] | None:
    """(offset, state) of the first match of ``notice_re`` (subject in group 1, state's word in
    group 2) in ``lead`` that says a state a notice may say, of the subject ``names_subject``
    accepts (called with the subject's words, lower case)."""
    for m in notice_re.finditer(lead):
        state = _SPELLINGS.get(m.group(2).lower(), m.group(2).lower())
        if state in NOTICE_STATES and state in STATUS_WORDS and names_subject(_WORD_RE.findall(m.group(1).lower())):
            return m.start(2), state
    return None


def _next_text(text: str, at: int) -> int:
    """The offset of the first character of ``text`` from ``at`` that is not white space."""
    return len(text) - len(text[at:].lstrip())


# what a state's label is followed by when it labels a thing named in code
_LABELLED_CODE_RE = re.compile(r"[*_]*[ \t]*[:—–]?[*_]*[ \t]*`([^`\n]{1,60})`")


def _labels_other(lead: str, at: int, title_words: set[str]) -> bool:
    """Whether the state's label ending at ``at`` is followed by a thing named in code that
    the title does not name (its last word not among ``title_words``)."""
    m = _LABELLED_CODE_RE.match(lead, at)
    if m is None:
        return False
    named = _WORD_RE.findall(m.group(1).lower())
    return not (named and named[-1] in title_words)


def _sentence_successors(head: str, first_line: int) -> list[tuple[str, str, int]]:
    """("superseded_by", target, line) for the records the head's first sentence saying so
    names: "This NEP has been withdrawn in favor of the protocol based approach described in
    :doc:`nep-0022-…`", "This decision was superseded by [ADR-9](0009-x.md).", "Users should
    prefer QUIC or Yamux." — the links (else ids, else names: :func:`_names`) after
    "superseded by", "replaced by", "in favor of", or a verb telling the reader what to use
    or read instead (``_PREFER_RE``), up to the sentence's end; what a record recommends
    "instead of" itself, a link or an id (``_RECOMMEND_RE``). Read only for a record whose
    stated status says it is no longer in force."""
    head = head[:SENTENCE_SCAN]
    for m in _successor_cues(head):
        if _USED_INSTEAD_RE.fullmatch(m.group(0)):  # the successor before the cue, in its sentence
            start = max((e.end() for e in _SENTENCE_END_RE.finditer(head, max(0, m.start() - 400), m.start())),
                        default=max(0, m.start() - 400))
            value = head[start: m.start()]
            targets = _targets(value)
        elif m.re is _RECOMMEND_RE:  # what it recommends, not what it recommends it over
            instead = _INSTEAD_OF_RE.search(head, m.end())
            targets = _targets(head[m.end(): instead.start()]) if instead else []
        else:
            end = _SENTENCE_END_RE.search(head, m.end())
            value = head[m.end(): end.start() if end else len(head)]
            targets = _targets(value) or _names(value)
        if targets:
            line = first_line + head.count("\n", 0, m.start())
            return [("superseded_by", t, line) for t in targets]
    return []


def _moved_link(head: str, first_line: int) -> list[tuple[str, str, int]]:
    """("superseded_by", target, line) for the link a notice puts on its verb (``_MOVED_LINK_RE``):
    "[has moved](x.md)", or "[has moved]" / "[has moved][id]" and the head's definition of it."""
    m = _MOVED_LINK_RE.search(head[:SENTENCE_SCAN])
    if m is None:
        return []
    target = m.group(2)
    if target is None:
        label = (m.group(3) or m.group(1)).strip().lower()
        target = next((d.group(2) for d in REF_DEF_RE.finditer(head) if d.group(1).strip().lower() == label), None)
    return [("superseded_by", target, first_line + head.count("\n", 0, m.start(1)))] if target else []


def _linked_successor(head: str, first_line: int) -> list[tuple[str, str, int]]:
    """("superseded_by", target, line) for the link a lead names as the page's successor
    (``_SUCCESSOR_LINK_RE``): "see [x](…), which is the successor to this Pages setup"."""
    m = _SUCCESSOR_LINK_RE.search(head[:SENTENCE_SCAN])
    return [("superseded_by", m.group(1), first_line + head.count("\n", 0, m.start()))] if m else []


def _names(value: str) -> list[str]:
    """The records a successor sentence names without a link or an id, as the resolver looks
    names up (id, file stem, title, the folder of an index page): ``value`` up to a word
    ending the names (``_NAMES_END_RE``), split at commas, "or" and "and", each part `code`
    or one to three capitalised words, without emphasis or a leading article. "**prefer QUIC
    or Yamux**" names QUIC and Yamux; "the EOF proposals" names nothing."""
    codes: list[str] = []

    def code(m: re.Match[str]) -> str:  # a code span is one part, whatever it holds
        codes.append(m.group(0))
        return f"\0{len(codes) - 1}\0"

    value = re.sub(r"`[^`\n]*`", code, value)
    value = re.sub(r"(?<![\w])[*_]{1,2}|[*_]{1,2}(?![\w])", "", value)
    cut = _NAMES_END_RE.search(value)
    out = []
    for part in _NAMES_SPLIT_RE.split(value[: cut.start()] if cut else value):
        part = re.sub(r"^(?:the|a|an)[ \t]+", "", part.strip(), flags=re.IGNORECASE).rstrip(".,!?")
        part = re.sub(r"\0(\d+)\0", lambda m: codes[int(m.group(1))], part)
        m = _NAME_RE.fullmatch(part)
        if m is not None:
            out.append((m.group(1) or m.group(2)).strip())
    return list(dict.fromkeys(n for n in out if any(c.isalnum() for c in n)))


def _cells(row: str) -> list[str]:
    """A pipe table row's cells, stripped (the outer bars optional)."""
    row = row.strip()
    return [c.strip() for c in row.removeprefix("|").removesuffix("|").split("|")]


def _table_row(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` is a pipe table's row: it opens with a bar, or — written without
    its outer bars, as GitHub still renders it ("Status | Accepted" over ":--- | :---") — a
    delimiter row is under it or above it in the same table."""
    if lines[i].lstrip().startswith("|"):
        return True
    if i + 1 < len(lines) and _delimiter_row(lines[i + 1]):
        return True
    j = i - 1
    while j >= 0 and "|" in lines[j]:
        if _delimiter_row(lines[j]):
            return True
        j -= 1
    return False


def _delimiter_row(line: str) -> bool:
    """A pipe table's delimiter row (``|---|:--:|``, ``:--- | :---``): a bar in it, so a
    thematic break or a setext underline is not one."""
    return "|" in line and _DELIMITER_ROW_RE.match(line) is not None


def _status_row(line: str) -> bool:
    """Whether ``line`` is a "Status | state" row naming a known state (a key-value table's
    first row is its header: "| Status | Accepted |" over a delimiter and the author's row)."""
    r = _ROW_RE.match(line)
    if r is None or _norm(r.group(1)) != "status":
        return False
    word = status_word(r.group(2))  # a known state: "| Status | Date |" heads a column
    return word is not None and (word in STATUS_WORDS or word in STATUS_PHRASES)


def _status_column(lines: list[str], i: int) -> int | None:
    """The column of a "Status" header cell when ``lines[i]`` is a table's header row (a
    delimiter row under it and one row under that): libp2p's specs open with "| Lifecycle Stage
    | Maturity | Status | Latest Revision |" over "| 3A | Recommendation | Active | r2 |". A
    table of several rows lists other records' states (an index of proposals), not its own."""
    if i + 2 >= len(lines) or not lines[i].lstrip().startswith("|") or not _DELIMITER_ROW_RE.match(lines[i + 1]):
        return None
    if i + 3 < len(lines) and lines[i + 3].lstrip().startswith("|"):
        return None
    heads = [_plain(c).rstrip(":").strip() for c in _cells(lines[i])]
    return heads.index("status") if "status" in heads else None


def reason_successors(value: str, gone: bool = False) -> list[str]:
    """The records a reason for a record's state names as taking its place: "Superseded by
    EIP-8141", "Replaced by EIP-3860.", "Withdrawn in favor of [EIP-2681](./eip-2681.md)"
    (their links, else their ids); for a record no longer in force (``gone``) also the one its
    authors prefer or its text went to ("The authors prefer [EIP-2200](./eip-2200.md)",
    "material moved to EIP-2315", "better implemented with EIP-7702": ``_REASON_PREFER_RE``);
    none for a reason naming no successor ("Very out of date", "superseded by the EOF
    proposals")."""
    m = _BY_RE.search(value) or _FAVOUR_RE.search(value) or (_REASON_PREFER_RE.search(value) if gone else None)
    return _targets(value[m.end():]) if m is not None else []


def reason_refs(meta: dict, head: str) -> list[tuple[str, str, int]]:
    """("superseded_by", target, line) for each successor a front matter reason for the
    record's state names (``withdrawal-reason: Superseded by EIP-7702``: :func:`reason_successors`),
    or its status does (``Status: Inactive (superseded by CIP-0121 and CIP-0122)``, read as a
    status line is: :func:`_status_refs`), at its field's line in ``head``, the front matter
    as written."""
    lines = head.split("\n")
    status = meta.get("status")
    word = status_word(status) if isinstance(status, str) else None
    by_status = _status_refs(status, word) if isinstance(status, str) else []
    gone = word in GONE
    return [("superseded_by", t, front_matter_line(lines, key, t) or 1)
            for key, value in meta.items() if isinstance(value, str) and _REASON_KEY_RE.search(key)
            for t in reason_successors(value, gone)] + [
            (key, t, front_matter_line(lines, "status", t) or 1)
            for key, t in by_status]


def _norm(key: str) -> str:
    return re.sub(r"[ \t]+", " ", key.lower())


def _plain(value: str) -> str:
    """``value`` as read: links as their text, emphasis and code marks gone, from its first
    letter or digit, lower case, one space between words."""
    value = MD_LINK_RE.sub(lambda m: m.group(2), value)
    value = re.sub(r"[*_`~]+", " ", value)
    value = re.sub(r"^[^\w]+", "", value)
    return " ".join(value.split()).lower()


def status_word(value: str) -> str | None:
    """The state ``value`` names: a phrase or word of :data:`STATUS_WORDS` it starts with,
    else the value if it is one word; None for a sentence or nothing, and for a template's
    choices left as they were (``_choices``)."""
    choices = _choices(value)
    if choices is not None:
        if len(choices) != 1:
            return None
        value = choices[0]
    plain = _plain(value)
    if not plain:
        return None
    plain = _PART_RE.sub("", plain)  # "Partly superseded" is superseded: a later record holds in its place
    for phrase in STATUS_PHRASES:
        if plain == phrase or plain.startswith(phrase + " "):
            return phrase
    first = re.match(r"[a-z][a-z-]*", plain)
    if first is None:
        return None
    word = _SPELLINGS.get(first.group(0), first.group(0))
    if word in STATUS_WORDS:
        return word
    if plain == first.group(0) and len(word) <= 20:
        return word
    return None


def replaced_status(value: str) -> str | None:
    """The state not in force a status value says after a first word still in force (or none
    known): "Final/R-33 Replaced by EEP 33" (Erlang's EEPs) is replaced, "Accepted, superseded by
    [ADR-9](…)" superseded; None when it says no successor took its place (``_BY_RE``)."""
    if _choices(value) is not None or "|" in value or status_word(value) in GONE:  # a template's choices say nothing
        return None
    m = _BY_RE.search(value)
    if m is None:
        return None
    cue = m.group(0).lower()
    return "replaced" if cue.startswith("replaced") else "obsolete" if cue.startswith(("obsoleted", "made", "rendered")) else "superseded"


def _choices(value: str) -> list[str] | None:
    """The choices of a value wrapped whole in braces or brackets, as a template offers them
    — the gRPC proposals' "{Draft, In Review, Ready for Implementation, Implemented}",
    MADR's "[proposed | rejected | accepted | … | superseded by [ADR-0005](0005-example.md)]",
    TensorFlow's "(Proposed / Accepted / Implemented / Obsolete)" — or one kept of them ("{In Review}"); None for any other value (a link, "[Accepted](x.md)",
    is its text). Left unfilled, a template names no state: read as its first choice, an
    unfilled "{Rejected, Accepted}" would demote the record, and MADR's a supersession."""
    m = _CHOICES_RE.match(MD_LINK_RE.sub(lambda m: m.group(2), value))
    if m is None:
        return None
    inner = next(g for g in m.groups() if g is not None)
    return [c for c in (c.strip() for c in re.split(r"[,|/]", inner)) if c and c not in ("…", "...")]


def _targets(value: str) -> list[str]:
    """The records ``value`` names: its links' destinations, else its id-shaped tokens."""
    if _NONE_RE.match(_plain(value) or ""):
        return []
    links = _links(value)
    if links:
        return list(dict.fromkeys(links))
    return list(dict.fromkeys(m.group(1) for m in ID_TOKEN_RE.finditer(value)))


def _links(value: str) -> list[str]:
    """The destinations of ``value``'s Markdown links (not images) and its Sphinx
    cross-references as written (``:ref:`NEP56```, ``:doc:`nep-0022-…```: the resolver reads
    the role, as in the body), each once, in the order written."""
    found = [(m.start(), m.group(3)) for m in MD_LINK_RE.finditer(value) if not m.group(1)]
    if "`" in value:
        found += [(m.start(), m.group(0)) for m in SPHINX_ROLE_RE.finditer(value)]
    return list(dict.fromkeys(t for _at, t in sorted(found)))


def _status_refs(value: str, word: str | None = None) -> list[tuple[str, str]]:
    """Supersession named within a status, "Superseded by [x](x.md)", "Accepted, supersedes
    ADR-3"; with ``word`` (the status) superseded or replaced, a link alone names the successor,
    "⌛️ Superseded [0019](0019-x.md)"."""
    out: list[tuple[str, str]] = []
    by = _BY_RE.search(value)
    sup = _SUPERSEDES_RE.search(value)
    if by is None and sup is None:
        if word in ("superseded", "replaced"):
            return [("superseded_by", t) for t in _links(value)]
        return []
    cuts = sorted((m.start(), m.end(), key) for m, key in ((by, "superseded_by"), (sup, "supersedes")) if m is not None)
    for n, (_a, end, key) in enumerate(cuts):
        stop = cuts[n + 1][0] if n + 1 < len(cuts) else len(value)
        out.extend((key, t) for t in _targets(value[end:stop]))
    return out
