"""The language a text is written in, read from its letters and its commonest words.

A docs folder often keeps its pages' translations beside them (``x.md``, ``x.fr.md``,
``x.korean.md``; ``docs/ja/…``), and a translation shares its page's code, links and
technical terms: for an intent in English it ranks near the English page and fills a
working set with copies. Knowing each document's language lets ranking prefer the ones
written in the intent's.

No model: the writing system decides for the scripts one language or a few use (Hangul is
Korean, kana Japanese, Han without kana Chinese, Cyrillic Russian or Ukrainian, …), and for
Latin script the share of each language's function words ("the", "of", "and"; "le", "les",
"est"; "der", "und", "ist") among the words. The answer is None whenever that is not
clear — too few words, no language's words standing out — so a page of code, a table or a
list of names is in no language, never in a wrong one. A packaged identifier
(py3langid) took 1.45 s to load its model, more than a whole compile.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

# fewest words of prose for a Latin-script text to be read, and the share of them that
# must be one language's function words, at least RATIO times the next language's share
MIN_WORDS = 12
MIN_SHARE = 0.08
RATIO = 2.0
# an intent is short: a few function words are enough when no other language has any
INTENT_MIN_WORDS = 4
PER_WORD = 3  # a function word's occurrences counted at most
DISTINCT = 4  # distinct function words a document's language needs

# function words that are frequent in one language and rare as words of another (no
# "a", "de", "en", "in", "la", "e": shared by several; none that is also an English word,
# "per", "non", "van", "to", "do", a single letter)
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("the of and to is that for it with as on be this are by not or from you your can if an "
                    "will when which should was have has do does how what use using into than then there "
                    "their they its would could about after before while".split()),
    "fr": frozenset("le les des est une du et pour dans que qui sur avec pas par sont ce cette vous nous "
                    "il elle au aux ou mais être avoir fait plus peut lorsque comme votre vos leur".split()),
    "es": frozenset("el los las del y es una por con para que se su sus al como pero más está son este "
                    "esta puede cuando usted también muy sin sobre entre".split()),
    "pt": frozenset("os das dos um uma não é com para que se seu sua ao como mas mais está são este esta "
                    "pode quando você também muito sem sobre entre pelo pela isso".split()),
    "de": frozenset("der die das und ist nicht mit für von zu den dem ein eine auf sich auch es wird "
                    "werden sie wir oder bei wenn als noch nur kann können".split()),
    "it": frozenset("il di che è una con sono gli della del alla anche come più questo questa "
                    "quando può essere ma nel nella".split()),
    "nl": frozenset("het een dat niet met voor zijn op te aan ook worden wordt er bij als maar "
                    "kan deze dit wij jij".split()),
    "pl": frozenset("na się nie że jest jak przez dla od po tak są lub oraz może gdy "
                    "jeśli ten ta które który aby".split()),
    "eu": frozenset("eta da ez du dira bat edo baina ere izan behar dute zure honek hori bezala "
                    "egiten dago gabe batean".split()),
    "id": frozenset("yang dan di ini itu untuk dengan tidak dari dalam akan pada adalah anda kita "
                    "bisa atau juga karena oleh".split()),
    "tr": frozenset("ve bir bu için ile da de değil olan olarak gibi daha çok ama veya ise kadar".split()),
}
NAMES = {
    "en": "English", "fr": "French", "es": "Spanish", "pt": "Portuguese", "de": "German", "it": "Italian",
    "nl": "Dutch", "pl": "Polish", "eu": "Basque", "id": "Indonesian", "tr": "Turkish", "ru": "Russian",
    "uk": "Ukrainian", "el": "Greek", "he": "Hebrew", "ar": "Arabic", "fa": "Persian", "hi": "Hindi",
    "th": "Thai", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
}

_BY_NAME = {v.lower(): k for k, v in NAMES.items()}
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"(?:https?|ftp)://\S+|\]\([^)\s]*\)?|<[^>\n]{1,200}>")
_PERSIAN = frozenset("پچژگ")
_UKRAINIAN = frozenset("іїєґ")


def name(code: str) -> str:
    """The language's English name (the code itself when unknown)."""
    return NAMES.get(code, code)


def normalise(value: object, known: bool = False) -> str | None:
    """A front matter ``lang`` / ``language`` value as a primary language code: "fr",
    "pt-BR" → "pt", "en_US" → "en", "French" → "fr"; None for anything else, and with
    ``known`` for a code this module has no name for ("js")."""
    if not isinstance(value, str):
        return None
    if value.strip().lower() in _BY_NAME:
        return _BY_NAME[value.strip().lower()]
    m = re.fullmatch(r"\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{2,8})*\s*", value)
    if m is None or (known and m.group(1).lower() not in NAMES):
        return None
    return m.group(1).lower()


# folders under which a site keeps a translation per language (Docusaurus' ``i18n/fr/…``)
_LOCALE_FOLDERS = frozenset({"i18n", "l10n", "locale", "locales", "translations", "lang", "langs", "languages"})
# codes that are also source files' extensions: ``backup.pl.md`` documents a Perl script,
# ``init.el.md`` an Emacs Lisp file, ``driver.ko.md`` a kernel module
EXTENSION_CODES = frozenset({"pl", "el", "ko", "ar", "tr"})


def _named(part: str) -> str | None:
    """A file name's part as a language: a code orion names ("fr", "pt-BR", "zh_CN") or a
    language's English name, alone or last in a compound ("french", "brazilian-portuguese")."""
    code = normalise(part, known=True)
    if code is not None:
        return code
    last = re.split(r"[-_]", part.lower())[-1]
    return _BY_NAME.get(last)


def of_path(rel: str, extensions: bool = True) -> str | None:
    """The language a document's path states, as sites that keep translations beside a page
    name them: a suffix before the extension (``x.fr.md``, ``x.pt-BR.md``, ``x.korean.md``)
    or a folder under a locale folder (``i18n/ja/…``, ``locales/pt-br/…``). A folder named
    like a code elsewhere (``it/``, ``uk/``, ``id/``) is a topic, not a language: not read.
    Without ``extensions``, a suffix that is also a source file's extension
    (:data:`EXTENSION_CODES`: ``backup.pl.md``) states none: the text decides (a page of
    ``x.pl.md`` in Polish is Polish), and a language's name leaves no doubt (``x.polish.md``)."""
    parts = rel.replace("\\", "/").split("/")
    stem = posixpath.splitext(parts[-1])[0]  # without the markup's suffix, whichever the walker admitted
    if "." in stem.strip("."):
        suffix = stem.rsplit(".", 1)[1]
        found = _named(suffix)
        if found is not None and (extensions or suffix.lower() not in EXTENSION_CODES):
            return found
    for parent, folder in zip(parts, parts[1:-1]):
        if parent.lower() in _LOCALE_FOLDERS:
            found = normalise(folder, known=True)
            if found is not None:
                return found
    return None


_ASCII_LETTER = re.compile(r"[A-Za-z]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# the scripts ``detect`` tells apart: (first, end) code points; a letter outside them counts for none
_RANGES = (
    (0x00C0, 0x0250, "latin"), (0x1E00, 0x1F00, "latin"), (0x0370, 0x0400, "el"), (0x0400, 0x0530, "cyrillic"),
    (0x0590, 0x0600, "he"), (0x0600, 0x0700, "arabic"), (0x0750, 0x0780, "arabic"), (0x0900, 0x0980, "hi"),
    (0x0E00, 0x0E80, "th"), (0x3040, 0x3100, "kana"), (0x3400, 0x4DC0, "han"), (0x4E00, 0xA000, "han"),
    (0xAC00, 0xD7B0, "ko"), (0x1100, 0x1200, "ko"),
)


def _scripts(text: str) -> dict[str, int]:
    """Letters of ``text`` per script: ASCII letters by one pattern, the few others one by one."""
    counts = {"latin": len(_ASCII_LETTER.findall(text))}
    for ch in _NON_ASCII.findall(text):
        if ch.isalpha():
            o = ord(ch)
            for lo, hi, script in _RANGES:
                if lo <= o < hi:
                    counts[script] = counts.get(script, 0) + 1
                    break
    return {s: n for s, n in counts.items() if n}


def detect(text: str, *, intent: bool = False) -> str | None:
    """The language ``text`` is written in, or None when that is not clear (module doc).
    ``intent``: a short text, read with fewer words."""
    text = _URL.sub(" ", _CODE_SPAN.sub(" ", text))
    counts = _scripts(text)
    letters = sum(counts.values())
    if not letters:
        return None
    cjk = counts.get("han", 0) + counts.get("kana", 0) + counts.get("ko", 0)
    # a CJK character is a word's worth of text: compared with Latin letters, count it as ~4
    other = {s: n * (4 if s in ("han", "kana", "ko") else 1) for s, n in counts.items() if s != "latin"}
    weight = sum(other.values()) + counts.get("latin", 0)
    top = max(other, key=other.get) if other else None
    if top is not None and other[top] >= 0.3 * weight and (cjk >= 2 or other[top] >= 8):
        if top in ("han", "kana", "ko"):
            if counts.get("ko", 0) >= max(counts.get("han", 0), counts.get("kana", 0)):
                return "ko"
            return "ja" if counts.get("kana", 0) >= 0.05 * (counts.get("han", 0) + counts.get("kana", 0)) else "zh"
        if top == "cyrillic":
            return "uk" if any(c in _UKRAINIAN for c in text.lower()) else "ru"
        if top == "arabic":
            return "fa" if any(c in _PERSIAN for c in text) else "ar"
        return top
    if counts.get("latin", 0) < 0.5 * letters:
        return None
    words = [w.lower() for w in _WORD.findall(unicodedata.normalize("NFC", text))]
    if len(words) < (INTENT_MIN_WORDS if intent else MIN_WORDS):
        return None
    counted: dict[str, int] = {}
    for w in words:
        counted[w] = counted.get(w, 0) + 1
    # each function word counted at most PER_WORD times, and a language needs DISTINCT of
    # them: a table repeating "bu" (a business unit) or "de" (a language code) is no Turkish
    hits, distinct = {}, {}
    for lang, fw in FUNCTION_WORDS.items():
        found = [min(n, PER_WORD) for w, n in counted.items() if w in fw]
        hits[lang], distinct[lang] = sum(found), len(found)
    ranked = sorted(hits.items(), key=lambda kv: -kv[1])
    (best, n1), (_second, n2) = ranked[0], ranked[1]
    if intent:  # two function words of one language and as many more as the next has
        return best if distinct[best] >= 2 and n1 >= RATIO * n2 else None
    if distinct[best] < DISTINCT or n1 < MIN_SHARE * min(len(words), PER_WORD * 40) or n1 < RATIO * n2:
        return None
    return best


__all__ = ["detect", "name", "normalise", "of_path", "NAMES", "FUNCTION_WORDS"]
