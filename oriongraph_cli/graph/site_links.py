"""Link targets a site generator's templates write — Hugo's ``ref``, Jekyll's ``link`` and
any other one-argument tag, ``{{ site.baseurl }}`` URLs and the ``relative_url`` filters —
found by the link extractor (``graph.extract``) and rewritten in quotes (``assemble.layout``).
Each pattern matches from a link's ``](`` to its ``)``."""

from __future__ import annotations

import re

# a Hugo page reference as a link target: [text]({{< ref "docs/setup.md#install" >}}), relref,
# {{% %}}; its argument quoted or not, as Hugo reads a shortcode's ({{< ref service_invocation_api.md >}},
# {{<ref getting-started>}}: Dapr's docs write 1,631 of their 2,420 so)
HUGO_REF_RE = re.compile(r"\]\(\s*\{\{[<%]\s*(?:rel)?ref\s+(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s\"'<>%{}()]+))\s*[>%]\}\}\s*\)")
# a template tag as a link target, after an optional {{ site.baseurl }}: Jekyll's page
# reference [text]({% link docs/setup.md %}), or any tag with one argument that makes a URL from
# the site's root, quoted or not — {% page "/docs/setup/" %}, {% link "docs/setup.md" %}, {%- x y -%}
TAG_LINK_RE = re.compile(
    r"\]\(\s*(?:\{\{\s*site\.baseurl\s*\}\})?\{%-?\s*([A-Za-z_]\w*)\s+"
    r"(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s%\"']+))\s*-?%\}\s*\)"
)
# a URL a template makes from the site's root as a link target: {{ site.baseurl }}/docs/setup/
# (after an optional {{ site.url }}), {{ '/docs/setup/' | relative_url }}, {{ "/docs/" | url }}
SITE_URL_RE = re.compile(
    r"\]\(\s*(?:(?:\{\{\s*site\.url\s*\}\})?\{\{\s*site\.baseurl\s*\}\}([^\s)]*)"
    r"|\{\{-?\s*(['\"])([^'\"\n]+)\2\s*\|\s*(?:relative_url|absolute_url|url)\s*-?\}\})\s*\)"
)

TEMPLATE_LINKS = (HUGO_REF_RE, TAG_LINK_RE, SITE_URL_RE)


def written(m: re.Match) -> str:
    """The page a template link's match names, as written (path and anchor): the key its
    resolved edge is stored under."""
    if m.re is HUGO_REF_RE:
        return (m.group(1) or m.group(2) or m.group(3)).strip()
    if m.re is TAG_LINK_RE:
        return (m.group(2) or m.group(3) or m.group(4)).strip()
    return (m.group(1) if m.group(1) is not None else m.group(3)).strip()
