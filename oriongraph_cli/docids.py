"""The ids a document is known by besides its path: its front matter ``id`` (read where the
front matter is), and those its file name or title give — ``ADR-0007`` from
``ADR-0007-backoff.md`` or a title "ADR-0007: …", ``MSC2290`` from a title "MSC2290: …" that
carries the number ``2290-….md`` begins with. The link graph resolves mentions by them,
``orion show`` finds a document by them, and an intent naming one is a structural hint; here,
below all three, so each reads the same ids.
"""

from __future__ import annotations

import posixpath
import re

ADR_RE = re.compile(r"^(ADR-\d+)", re.IGNORECASE)
# a series id written as capitals and digits, without a dash: the Matrix spec proposals cite
# each other as MSC2290 and title themselves "MSC2290: …" in ``2290-….md``
SERIES_TOKEN_RE = re.compile(r"(?<![\w/.-])([A-Z]{2,10}[0-9]{1,6})(?![\w-])")
_TITLE_SERIES_RE = re.compile(r"\s*([A-Z]{2,10}[0-9]{1,6})(?=[\s:.,;)\]–—-]|$)")
# the number a site orders its pages by, which it leaves out of their URLs (Docusaurus's
# "number prefixes": 01-intro.md, 02_setup.md, 3. Usage.md)
NUMBER_PREFIX = re.compile(r"[0-9]+\s*[-_.]+\s*")


# a series' record by its name and number, zero padding aside: "SEP-6" for ``sep-0006.md``
_PREFIXED_RE = re.compile(r"([A-Za-z]{2,10})[- ]?0*([0-9]{1,6})")


def prefixed_number(name: str) -> str | None:
    """``sep-6`` for a name or file stem that is a series' name and a number (``SEP-6``,
    ``SEP-0006``, ``sep-0006``), else None: the key a record is found by whatever zeros its
    file name or the text naming it pads the number with."""
    m = _PREFIXED_RE.fullmatch(name.strip())
    return f"{m.group(1).lower()}-{int(m.group(2))}" if m else None


def own_series(path: str, number: str) -> str | None:
    """``eep-9`` for the number ``9`` written alone in ``eep-0035.md``: a record of the same
    series as the one at ``path`` (its file stem a series' name and a number), else None."""
    mine = prefixed_number(posixpath.splitext(posixpath.basename(path))[0])
    if mine is None or not number.strip().isdigit():
        return None
    return f"{mine.rsplit('-', 1)[0]}-{int(number.strip())}"


# a title that is only a series' id: "NIP-12", "NIP-B7", "RFC 1234", "PEP 8"
_ID_ONLY_RE = re.compile(r"[A-Z]{2,10}(?:-[0-9A-Z]{1,8}|[ ]?[0-9]{1,6})")


def id_only_title(title: str) -> bool:
    """Whether ``title`` is a series' id and nothing more ("NIP-12", "RFC 1234"): a title
    that names its record without saying what it is about."""
    return _ID_ONLY_RE.fullmatch(title.strip()) is not None


def file_number(path: str) -> str | None:
    """``dir/N`` for a file whose name begins with the number N that orders it
    (``proposals/0015-partitioned-rewards.md`` -> ``proposals/15``), else None."""
    m = NUMBER_PREFIX.match(posixpath.basename(path))
    return f"{posixpath.dirname(path)}/{int(m.group().rstrip(' -_.'))}" if m else None


def title_series_id(title: str, number: str | None) -> str | None:
    """The series id a title opens with ("MSC2290: Separate endpoints…") when it carries the
    number the file's name begins with (``number``: :func:`file_number`'s ``dir/N``), else
    None — so "MSC4" in "MSC4 support" under ``0017-….md`` names nothing."""
    m = _TITLE_SERIES_RE.match(title)
    if m is None or number is None:
        return None
    digits = m.group(1).lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return m.group(1) if int(digits) == int(number.rsplit("/", 1)[1]) else None


def named_ids(path: str, title: str) -> list[str]:
    """The ids a document is known by without a front matter ``id``: ``ADR-0007`` from its
    file name or title, ``MSC2290`` from a title that carries its file's number."""
    out = [m.group(1) for source in (posixpath.basename(path), title) if (m := ADR_RE.match(source.strip()))]
    if (series := title_series_id(title, file_number(path))) is not None:
        out.append(series)
    return out
