"""Where a written path or site address points among a project's files, before any lookup:
a link target made root-relative, the files a path or a site's URL may name (``.md`` implied,
a folder's page, ``x.html`` for ``x.md``), a site generator's page references, the number that
orders a file, and — of several documents a written tail fits — the one it names. Pure: the
resolver (:mod:`graph.resolve`) looks the candidates up in the indexed documents.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote

from oriongraph_cli.docids import NUMBER_PREFIX as _NUMBER_PREFIX, file_number, named_ids  # noqa: F401  (file_number, named_ids: part of addresses' API)
from oriongraph_cli.graph.extract import FOLDER_PAGE_STEMS, MD_SUFFIXES, PATHISH_RE, SCHEME_RE

# an e-mail address written as a link's target without ``mailto:``
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}$")
# the suffixes a Sphinx document may have (a :doc: target is written without one)
SPHINX_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt")
# the suffixes of a static site's page URL
SITE_SUFFIXES = (".html", ".htm")
# CommonMark: a backslash before ASCII punctuation in a link destination stands for the
# character itself, so "[aws](#requirement\\_aws)" (as terraform-docs writes it) names "#requirement_aws"
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")

def folder_candidates(rel: str) -> tuple[str, ...]:
    """The paths a link to ``rel`` may name, in order: the file, with ``.md`` or ``.mdx``
    implied, then a folder's page (``README.md``, ``index.md``, Hugo's ``_index.md``,
    Docusaurus's ``index.mdx``)."""
    return (rel, rel + ".md", rel + ".mdx", rel + "/README.md", rel + "/index.md", rel + "/_index.md", rel + "/index.mdx")


# a page reference a site generator resolves, by kind: how a dangling one is shown (and
# ``tag:<name>``, any other template tag as a link target: ``{% <name> "…" %}``)
SITE_REF_KINDS = {"hugo": '{{{{< ref "{}" >}}}}', "jekyll": "{{% link {} %}}", "site": "{{{{ site.baseurl }}}}{}"}


def is_site_ref(kind: str) -> bool:
    return kind in SITE_REF_KINDS or kind.startswith("tag:")


def site_ref_shown(kind: str, written: str) -> str:
    """A dangling site reference as the page shows it: the tag with its argument; a URL made
    from ``{{ site.baseurl }}`` or a ``relative_url`` filter as ``{{ site.baseurl }}/x/``."""
    if kind.startswith("tag:"):
        return f'{{% {kind[4:]} "{written}" %}}'
    return SITE_REF_KINDS[kind].format(written)


def site_ref_target(kind: str, target: str) -> str:
    """The link target a site generator's page reference stands for: Hugo's ``ref`` as
    written (from the page, or from the root with a leading ``/``); Jekyll's ``link``, a
    ``{{ site.baseurl }}`` URL and any other tag always from the site's root (a full URL
    stays one: ``{% link "https://…" %}`` is external)."""
    if kind == "hugo" or SCHEME_RE.match(target) or target.startswith("//"):
        return target
    return "/" + target.lstrip("/")


def page_url(target: str) -> str:
    """A site generator's page reference as the URL of its page: ``docs/setup.md`` -> ``docs/setup``."""
    base = target[: -len(".md")] if target.lower().endswith(".md") else target
    return base or target


def page_url_dir(src_path: str, target: str) -> str | None:
    """The folder a static site serves ``src_path`` as, for a relative URL written in it
    (``tools/slack.md`` -> ``tools/slack``, the page's own URL ``/tools/slack/``); None for a
    folder's page (served at its folder's URL, which is its file's folder) and for a target
    that is a root path, a Markdown file's path or an anchor alone — written as files are
    named, not as URLs, so read from the file's folder only."""
    t = target.split("#", 1)[0].split("?", 1)[0].strip()
    if not t or t.startswith("/") or t.lower().endswith(MD_SUFFIXES) or SCHEME_RE.match(t):
        return None
    stem = posixpath.splitext(posixpath.basename(src_path))[0]
    if stem.lower() in FOLDER_PAGE_STEMS:
        return None
    return posixpath.join(posixpath.dirname(src_path), stem)


def page_candidates(page_dir: str, target: str) -> tuple[str, ...]:
    """The paths a relative URL names read from the page's own URL (``page_dir``, from
    :func:`page_url_dir`): as a path (``.md`` implied, a folder's page), then as a site URL's
    page (``x.html`` -> ``x.md``)."""
    rel, _why = relative(page_dir, target)
    if rel is None:
        return ()
    site = site_candidates(rel)
    return (*folder_candidates(rel), *(page_files(site[0]) if site else ()))


def page_files(page: str) -> tuple[str, str]:
    """A site URL's page (``x.md``) as a Markdown or an MDX file."""
    return page, page[: -len(".md")] + ".mdx"


def is_attachment(name: str) -> bool:
    """A wiki target naming a file that is not a note: ``diagram.png``, ``spec.pdf``."""
    ext = posixpath.splitext(posixpath.basename(name.strip()))[1].lower()
    return bool(ext) and ext not in MD_SUFFIXES and ext[1:].isalnum()


def md_unescape(target: str) -> str:
    """A Markdown link destination with its backslash escapes undone."""
    return _MD_ESCAPE.sub(r"\1", target) if "\\" in target else target


def site_candidates(rel: str) -> tuple[str, str] | None:
    """(the Markdown path, the lower-cased file stem) a site URL's page may be: for
    ``manual/dns.html`` or ``manual/dns`` (a trailing slash is gone after ``normpath``)
    ``("manual/dns.md", "dns")``; None for a path with any other suffix, and for a name of
    one letter or digit alone (``i``: text) — in a folder it is a page (``tutorial/1-setup/5``)."""
    base = posixpath.basename(rel)
    stem, ext = posixpath.splitext(base)
    if ext.lower() not in SITE_SUFFIXES and (ext or not base or base.startswith(".")):
        return None
    if not PATHISH_RE.search(stem) and not ("/" in rel and PATHISH_RE.search(rel)):
        return None  # "[Ca(2+)](i)" in an abstract is text, not a page; "/tutorial/1-setup/5/" is one
    return posixpath.join(posixpath.dirname(rel), stem + ".md"), stem.lower()


# a record of a numbered series named by its number alone in a front matter link field, with the
# series' name or not: ``supersedes: 0015``, ``supersedes: SIMD-0387``, ``superseded-by: '0118'``
SERIES_NUMBER_RE = re.compile(r"(?:[A-Za-z]{2,10}[- ]?)?0*([0-9]{1,6})")


def unnumbered(stem: str) -> str | None:
    """``stem`` without the number that orders it (``02-testing`` -> ``testing``), or None
    when it has none or is nothing else (``2024``, ``01-``)."""
    m = _NUMBER_PREFIX.match(stem)
    return stem[m.end():] or None if m else None


def by_tail(hits, path: str, rooted: bool = False) -> str | None:
    """Of the documents ``hits`` (they share ``path``'s file name), the one whose path ends
    with the longest tail of ``path`` that any of them ends with — ``docs/visualization/consoles.md``,
    else ``visualization/consoles.md`` — when it is the only one there, or, of several, the
    one nearest the top when the tail holds a folder (a site's root-absolute URL is read from
    its root: Nushell's ``/book/installation.html`` is ``nushell/book/installation.md``, not
    its translations' ``nushell/zh-CN/book/installation.md``); None when none ends so, or two
    do and the tail is the name alone, or two as near the top do
    (a site's URLs carry the folder it serves its pages from, ``/docs/``, which a project that
    keeps the pages need not keep). The file's folder is always part of the tail: the name
    alone does not decide (a moved file stays dangling, and a folder's ``index.md`` is not
    any folder's). Paths are compared without their Markdown suffix: a site's URL names an
    MDX page as it names a Markdown one. ``rooted``: ``path`` is a root-absolute link's
    (``/overview.md``): a name alone then names the one file of that name whose folder holds
    every other's — the site's root, under which the others sit (``helm/overview.md`` against
    ``helm/plugins/overview.md``; two in folders side by side name none)."""
    parts = without_page_suffix(path.lower()).split("/")
    for k in range(max(1, len(parts) - 1)):
        suffix = "/" + "/".join(parts[k:])
        ends = [h for h in hits if without_page_suffix(h.lower()).endswith(suffix)]
        if len(ends) > 1 and len(parts) - k > 1:  # a tail with a folder in it, never a name alone
            top = min(h.count("/") for h in ends)
            ends = [h for h in ends if h.count("/") == top]
        elif len(ends) > 1 and rooted and (top := at_site_root(ends)) is not None:
            ends = [top]
        if ends:
            return ends[0] if len(ends) == 1 else None
    return None


def at_site_root(paths) -> str | None:
    """Of several documents a root-absolute link's name fits, the one whose folder holds every
    other's — the site's root, under which the others sit (``helm/overview.md`` against
    ``helm/plugins/overview.md``); None when two are as near the top or the nearest's folder
    does not hold them all (two sites side by side)."""
    top = min(paths, key=lambda h: h.count("/"))
    folder = posixpath.dirname(top) + "/"
    if sum(h.count("/") == top.count("/") for h in paths) == 1 and all(h == top or h.startswith(folder) for h in paths):
        return top
    return None


def without_page_suffix(path: str) -> str:
    """``path`` without its Markdown suffix (``.md``, ``.mdx``, ``.markdown``): a site serves
    ``select.mdx`` at ``/docs/pg/select`` as it serves ``select.md``."""
    stem, ext = posixpath.splitext(path)
    return stem if ext in MD_SUFFIXES else path


def relative(src_dir: str, target: str) -> tuple[str | None, str]:
    """(root-relative path a link target names, "") or (None, why it names no project
    file: "self" | "external" | "outside-root"). Pure: no lookup, no file system."""
    target = unquote(target.split("?", 1)[0]).strip()
    if not target:
        return None, "self"
    if SCHEME_RE.match(target) or target.startswith("//") or _EMAIL.match(target):
        return None, "external"  # [Reto Lehmann](rlehmann@redhat.com): an address, mailto: left out
    rel = posixpath.normpath(target.lstrip("/") if target.startswith("/") else posixpath.join(src_dir, target))
    if rel == ".." or rel.startswith("../"):
        return None, "outside-root"
    return rel, ""
