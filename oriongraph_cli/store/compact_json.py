"""The index's large JSON files (``manifest.json``, ``lookups.json``): compact, keys sorted,
encoded and read by orjson.

Python's own encoder took ~20 ms of every generation a one-file change writes on SciFact's
5,183 notes (1.7 MB of lookup tables and a 1 MB manifest); orjson takes ~2.5 ms. Reading
the lookup tables, which every fresh compile does, Python's decoder takes ~38 ms and
orjson ~20 ms. It is imported here only, by a run that writes a generation or a compile
that reads its lookup tables (~1 ms of imports in either process, which has what orjson
needs already; ~28 ms alone), never by a run that changes nothing (it reads the manifest,
~7 ms by Python's decoder, ~3.5 by orjson: not worth orjson's imports there).
Non-ASCII text is written as UTF-8 rather than ``\\u`` escapes; every reader parses JSON, so
any version reads either. What orjson refuses — an integer past 64 bits, a string holding
a lone surrogate (a file name that is not UTF-8, as ``os.fsdecode`` gives it) — is written
and read by Python's own encoder and decoder as before.
"""

from __future__ import annotations

from typing import Any


def dumps(value: Any) -> bytes:
    """``value`` as compact JSON with its keys sorted (non-string keys as strings)."""
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        import json

        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def loads(data: bytes | str) -> Any:
    """The value ``data`` holds, as ``json.loads`` gives it for the index's own files, whose
    integers are SQLite's 64-bit ones or counts (orjson reads an integer past 64 bits as a
    float); invalid JSON raises ``ValueError`` as ``json.loads`` does."""
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:  # a lone surrogate, or not JSON: Python's decoder reads
        import json                 # the first and names the fault of the second

        return json.loads(data)
