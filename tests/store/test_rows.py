"""Sets of registry rows made without numpy.unique (store/rows.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from oriongraph_cli.store.rows import distinct


@given(st.lists(st.integers(min_value=-(2**62), max_value=2**62), max_size=60))
def test_distinct_is_sorted_set_of_the_rows(values):
    want = sorted(set(values))
    assert distinct(values).tolist() == want
    assert distinct(np.asarray(values, dtype=np.int64)).tolist() == want
    assert distinct(iter(values)).dtype == np.int64


def test_an_array_given_is_not_changed():
    a = np.array([5, 1, 5, 3], dtype=np.int32)
    assert distinct(a).tolist() == [1, 3, 5] and a.tolist() == [5, 1, 5, 3]
