"""Text that is safe to print: no terminal control sequences from files or their names.

File contents and names are data. An ESC, OSC, BEL or C1 byte in them could move the
cursor, retitle the window, or hide text when printed, so everything rendered for a
terminal or a pipe passes through :func:`clean` (tabs and newlines kept for quoted text)
or :func:`clean_line` (one-line fields: names, titles, messages). Control characters
become visible escapes (``\\x1b``). JSON output needs none of this: it escapes them.
"""

from __future__ import annotations

import re
from enum import Enum

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_CONTROL_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CHANGED_BY_CLEAN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")  # what clean() escapes


def _escape(m: re.Match) -> str:
    ch = m.group(0)
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: str) -> str:
    """``text`` with control characters other than tab and newline made visible."""
    if not text:
        return text
    text = _SURROGATE.sub(_escape, text)
    return _CONTROL.sub(_escape, text)


def clean_line(text: str) -> str:
    """One-line ``text``: every control character (tab and newline too) made visible."""
    if not text:
        return text
    text = _SURROGATE.sub(_escape, text)
    return _CONTROL_LINE.sub(_escape, text)


def has_control(text: str) -> bool:
    return bool(_CONTROL_LINE.search(text) or _SURROGATE.search(text))


_INIT_FIELDS: dict[type, tuple[str, ...] | None] = {}  # class -> its init fields (None: not a dataclass)


def _init_fields(cls: type) -> tuple[str, ...] | None:
    names = _INIT_FIELDS.get(cls, False)
    if names is False:
        import dataclasses

        names = tuple(f.name for f in dataclasses.fields(cls) if f.init) if dataclasses.is_dataclass(cls) else None
        _INIT_FIELDS[cls] = names
    return names


def clean_tree(obj):
    """A copy of ``obj`` (dataclasses, dicts, lists, tuples) with every string passed
    through :func:`clean` — applied once to what a text renderer is given, so no field
    from a file or its name can reach the terminal unescaped. Enums are kept as they are."""
    cls = type(obj)
    if cls is str:  # one search; most text (newlines and tabs are kept) has nothing to escape
        return clean(obj) if _CHANGED_BY_CLEAN.search(obj) else obj
    if cls in _ATOMS or isinstance(obj, Enum):
        return obj
    if isinstance(obj, str):
        return clean(obj) if _CHANGED_BY_CLEAN.search(obj) else obj
    names = _init_fields(cls)
    if names is not None:
        changes = {}
        for name in names:
            value = getattr(obj, name)
            if type(value) in _ATOMS:  # numbers and None, most fields: nothing to clean (no call)
                continue
            new = clean_tree(value)
            if new is not value:
                changes[name] = new
        if not changes:
            return obj
        import dataclasses

        return dataclasses.replace(obj, **changes)
    if isinstance(obj, dict):
        pairs = [(clean_tree(k), clean_tree(v)) for k, v in obj.items()]
        same = all(k2 is k and v2 is v for (k2, v2), (k, v) in zip(pairs, obj.items()))
        return obj if same else dict(pairs)
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        items = [clean_tree(v) for v in obj]  # unchanged containers stay the same object
        if all(a is b for a, b in zip(items, obj)):
            return obj
        return items if isinstance(obj, list) else tuple(items)
    return obj


_ATOMS = frozenset({int, float, bool, type(None), bytes})
