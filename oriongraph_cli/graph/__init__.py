"""The link graph: references extracted from documents (``extract``), resolved against the
indexed documents (``resolve``), stored and rebuilt as edges (``edges``), walked (``traverse``,
``expand``) and reported (``report``)."""

# the version of the link resolution rules (``resolve.LinkResolver``), kept in each
# generation's manifest: an index whose edges were resolved by other rules has every stored
# reference resolved again by its next `orion index` (1: paths, ids, names and anchors;
# 2: a site URL — ``/manual/dns.html``, ``/manual/dns/`` — names the page built from it;
# 3: a link's backslash escapes undone, ``#requirement\_aws`` as ``#requirement_aws``; an
# anchor set in HTML — ``<a name="x">``, ``id="x"`` — is a place a link may name; a heading's
# anchor is made from its text as rendered, ``## [Embodied Carbon](https://…)`` ``#embodied-carbon``;
# of several pages a site URL's name fits, the one whose path ends as the URL does; Obsidian's
# block ids ``#^x``, front matter ``aliases`` as names, and files embedded by name, ``![[x.png]]``;
# a folder's ``_index.md``, Hugo's section page, as its README.md or index.md; 4: a code span
# in a heading is its text as written, ``## `fs.read(fd[, options])` `` ``#fsreadfd-options``;
# 5: a site URL names the page whose front matter says it was moved from there —
# ``redirect_from``, Hugo's ``aliases`` written as paths — and, under a stage folder, the one
# folder page whose path ends as the URL does, ``/docs/guide/`` ``…/docs/guide/index.md``; a
# site template's full URL, ``{% link "https://…" %}``, is external; 6: a root-absolute
# Markdown path, ``/config/server-options.md`` as VitePress and Docusaurus write them, names
# the one document under a stage folder whose path ends as the link's does; 7: an anchor no
# heading or HTML sets names a definition list's term, ``#publishdir`` the line ```publishDir```
# above ``: (string) …``, numbered with the headings as Hugo's goldmark numbers them; 8: as
# Obsidian writes links: ``[[Note\|shown]]`` in a table cell names ``Note``, a heading chain
# ``[[Note#Setup#Linux]]`` the section ``Linux`` under ``Setup``, a block id may follow an
# embed directly, ``![[chart.png]]^fig``, and an image named alone, ``![](chart.png)``, is
# found anywhere in the stage folders; 9: a relative URL that names no file from the page's
# folder is read from the page's own URL, as a static site serves ``tools/slack.md`` at
# ``/tools/slack/``: ``records/`` there names ``tools/slack/records.md``, after every path
# from the file's folder and before any page found by its name alone; an id written on a
# heading in braces holds any characters but spaces, braces and quotes, as markdown-it-attrs
# (Eleventy) reads it, ``{#delivery-(tlc)}``, ``{##help-wanted}``; 10: Doxygen's ``@ref name``
# and ``@subpage name`` name the heading whose id is ``{#name}``, else the one page whose path,
# ``/`` read as ``_``, ends as the name does: ``@ref docs_storage_terms`` ``…/storage/terms.md``;
# Sphinx's ``:doc:`path``` names the document at that path without its suffix, from the page's
# folder or, with a leading ``/``, the one whose path ends so; ``:ref:`label``` the section after
# a label's line, ``.. _label:`` or MyST's ``(label)=``; an e-mail address as a link's target,
# ``[Reto Lehmann](rlehmann@redhat.com)``, is external, as ``mailto:`` would be; 11: of several
# pages a site URL's name fits, the one whose path ends with the longest part of the URL any of
# them ends with, so the folder a site serves its pages from need not be kept —
# ``/docs/visualization/consoles/`` names ``…/prometheus/visualization/consoles.md`` beside
# ``…/practices/consoles.md`` —, and a root-absolute Markdown path by its file and at least its
# folder, ``/docs/config/server-options.md`` ``…/vite/config/server-options.md``; 12: an anchor
# names a heading inside a list item or a block quote, by the id written on it or its slug,
# ``/api/general#function-signature`` the ``  ### Function Signature {#function-signature}``
# under a ``- **Details**`` item; 13: an id written on a heading as an MDX comment names it,
# as MDX pages must write it: react.dev's ``## Adding event handlers {/*adding-event-handlers*/}``,
# Docusaurus's ``{/* #heading-ids */}`` — each link to such a heading was a dangling anchor;
# 14: a site URL names a page by its file name without the number that orders it, as
# Docusaurus and Svelte's site serve ``07-misc/02-testing.md`` at ``/docs/svelte/testing``,
# where no page has the name itself; 15: an id set by an attribute list alone on its line, as
# MkDocs' attr_list gives it to the block above, ``{#field-after-validator}`` under a list
# item, or by mkdocs-autorefs' ``[](){#pattern-constraint-note}``, names that place; 16: a
# heading inside a list item that begins a long section's part, its indentation left out of
# the part's text, names that part, as rule 12 meant — Vue's ``#note-on-webpack-treeshaking``;
# 17: a heading's trailing list of classes, Laravel's ``{.collection-method}``, is not its
# words: an anchor read from the heading's text leaves it out, as the site renders it; 18: of
# several pages whose paths end as a root-absolute URL or path does, the one nearest the top —
# Nushell's ``/book/installation.html`` is its English page, not a translation's beside it;
# 19: a full web address that exactly one page's front matter gives as its own, outside the
# link keys, names that page — Ember's RFCs link each other by pull request,
# ``https://github.com/emberjs/rfcs/pull/1071``, and RFC 1071 says ``prs: {accepted: …/pull/1071}``;
# 20: a name no id, stem or title gives names the one folder's own page of that name
# (``README.md``, ``index.md``, ``_index.md``) — libp2p's deprecated mplex says "prefer QUIC or
# Yamux", and QUIC is ``quic/README.md``, titled "QUIC in libp2p"; 21: a repository's address
# of a file or folder in front matter (``…/blob/…``, ``…/tree/…``) is not the page's own
# address — a translation's ``Source:`` and a problem statement's ``Proposed Solutions:`` took
# the links to the pages they name —, and ``[[17]]``, a numbered citation, that names no note
# is no dangling link; 22: a site URL names an MDX page as it names a Markdown one — Drizzle's
# docs link ``/docs/pg/select``, which is ``pg/select.mdx`` beside five dialects' copies, and
# 718 of their links dangled; 23: a front matter link field naming a record by its number alone or
# after the series' name (``supersedes: 0015``, ``supersedes: SIMD-0387``) names the one file
# of the same folder whose name begins with that number — every supersession of Solana's
# improvement documents dangled; 24: a Markdown link naming a rule id instead of a file
# (``[dereference]: expr.deref``) lands on the span holding the rule's line, ``r[expr.deref]``,
# as mdBook's spec preprocessor marks each rule — 343 of the Rust Reference's links dangled;
# 25: a root-absolute link naming a file alone (``/overview.md``) names the one of that name
# whose folder holds every other's, the site's root — Helm's docs link their Helm 4 overview so
# beside ``plugins/overview.md``, and each such link dangled; 26: Sphinx's ``:doc:`` from the
# documentation's root (``:doc:`/gevent```) names, of several pages that end so, the one at
# that root — Flask's docs have ``gevent.rst`` and ``deploying/gevent.rst``; 27: attr_list's
# key form of a heading's id, ``{ id=navigation-path }``, and the anchor Python-Markdown's
# ``toc`` makes (a run of spaces and hyphens one hyphen: "Caret, Mark & Tilde" is
# ``caret-mark-tilde``, GitHub's ``caret-mark--tilde``) — Material for MkDocs' own manual;
# 28: an anchor of a heading whose section holds no text but a comment, under no span, read
# from the note's outline and numbered over all its headings as GitHub numbers them — 277 of
# Tekton's enhancement proposals' table-of-contents links dangled; 29: an anchor no heading
# names is a label's, MyST's ``(label)=`` or ``.. _label:``, on the page the link names — or on
# any page from a link to its own page, as MyST resolves ``[](#label)`` across a project; 30: a
# MyST directive's ``:label: x`` option is a label too (``{figure}``, ``{table}``), for anchors
# and ``{ref}`` alike; 31: a link's text may run on over a line break, as a paragraph's words
# do — OpenShift's runbooks wrap ``[Alert\nhierarchy](./hierarchy/alerts-hierarchy.svg)``, and
# 304 such links in 25 of 62 projects were no links at all; 32: a site URL whose last segment
# is one digit or letter names a page when a folder comes before it (Astro's tutorial links its
# units as ``/en/tutorial/1-setup/5/``); a name alone, ``(i)``, is still text. 33: a title
# opening with a series id of capitals and digits that carries its file's number ("MSC2290: …"
# in ``2290-….md``) gives the document that id, and such a token in the text (MSC2290) is a
# mention of it, as ADR-0007 is (the token read by parse rules 43) — the Matrix spec proposals
# cite each other so. 34: a front matter link or a name a record's state gives its successor,
# a series' name and number ("in favor of SEP-6"), names the file of its own folder whose stem
# is that name and number with any zeros (``sep-0006.md``), as a bare number names the file
# it begins (Stellar's proposals). 35: a successor a record's state or text names by a site URL
# (``/geps/gep-713/``) is the page that URL is, as the link names it — the Gateway API's
# declined GEPs, "merged back into [GEP-713](/geps/gep-713/)". 36: a number written alone in
# such a field names the record of the linking record's own series ("Replaces: 9" in
# ``eep-0035.md`` names ``eep-0009.md``: Erlang's EEPs). 37: a name a record's state or text
# gives its successor names the one page whose file name is that name after the number that
# orders it, as the site serves it ("in favour of [$app/env]($app-env)" names
# ``19-$app-env.md``: SvelteKit's docs). 38: a page answers at the address its front matter's
# ``permalink`` gives, as at a ``redirect_from`` one (Jekyll, Eleventy, Gatsby: TypeScript's
# handbook links "/docs/handbook/2/classes.html", the permalink of ``handbook-v2/Classes.md``).
# Here, not in ``resolve``, so a run that finds nothing changed can check it without
# importing the resolver.
LINK_RULES = 38
