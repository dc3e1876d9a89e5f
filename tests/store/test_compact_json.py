"""The index writer's compact JSON (store/compact_json.py): what any JSON reader reads back,
keys sorted, no spaces."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from oriongraph_cli.store.compact_json import dumps

_SCALARS = st.none() | st.booleans() | st.integers() | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                       max_leaves=25)


@given(_VALUES)
def test_read_back_as_written(value):
    assert json.loads(dumps(value)) == value


@given(st.dictionaries(st.text(), st.integers(min_value=-(2**63), max_value=2**63 - 1), max_size=8))
def test_keys_sorted_and_compact(value):
    data = dumps(value)
    assert list(json.loads(data)) == sorted(value)
    assert data == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_non_string_keys_and_tuples_as_python_writes_them():
    assert json.loads(dumps({3: (1, 2), "a": [None]})) == {"3": [1, 2], "a": [None]}


def test_what_orjson_refuses_is_written_by_pythons_encoder():
    """A file name that is not UTF-8 (a lone surrogate, as os.fsdecode gives it) and an
    integer past 64 bits still make a file every reader reads back."""
    import os

    name = os.fsdecode(b"notes/caf\xe9.md")
    value = {"files": {name: [2**70, -(2**65)]}}
    assert json.loads(dumps(value)) == value


_INDEX_SCALARS = st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text()
_INDEX_VALUES = st.recursive(_INDEX_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                             max_leaves=25)


@given(_INDEX_VALUES)
def test_loads_reads_what_dumps_wrote(value):
    """What the index's files hold: SQLite's 64-bit integers, text, lists and tables."""
    from oriongraph_cli.store.compact_json import loads

    assert loads(dumps(value)) == value == loads(dumps(value).decode())


def test_loads_reads_what_orjson_refuses_as_pythons_decoder_does():
    """A lone surrogate (a file name that is not UTF-8) is read by Python's decoder; what is
    not JSON raises ValueError, as json.loads does."""
    import os

    import pytest

    from oriongraph_cli.store.compact_json import loads

    value = {"files": {os.fsdecode(b"notes/caf\xe9.md"): [2**63 - 1, -(2**63)]}}
    assert loads(dumps(value)) == value
    for bad in (b"", b"{", b"[1,]", "{\"a\": nan}".encode(), b"\xff"):
        with pytest.raises(ValueError):
            loads(bad)
