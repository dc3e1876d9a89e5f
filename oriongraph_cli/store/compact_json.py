"""The index writer's large JSON files (``manifest.json``, ``lookups.json``): compact, keys
sorted, encoded by orjson.

Python's own encoder took ~20 ms of every generation a one-file change writes on SciFact's
5,183 notes (1.7 MB of lookup tables and a 1 MB manifest); orjson takes ~2.5 ms. It is
imported here only, by a run that writes a generation (1.1–1.4 ms of imports in the index
process, which has what it needs already; ~15 ms alone), never by a compile or a run that
changes nothing.
Non-ASCII text is written as UTF-8 rather than ``\\u`` escapes; every reader parses JSON, so
any version reads either. What orjson refuses — an integer past 64 bits, a string holding
a lone surrogate (a file name that is not UTF-8, as ``os.fsdecode`` gives it) — is written
by Python's encoder as before.
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
