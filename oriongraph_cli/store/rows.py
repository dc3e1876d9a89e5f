"""Sets of registry rows as sorted int64 arrays, made without ``numpy.unique``.

``numpy.unique`` (and ``union1d`` / ``setdiff1d``, which call it) asks ``numpy.ma`` whether
its input is masked, and the first ask imports the masked-array module: 10-18 ms of every
index run that deletes or adds a row in a process of its own (a pre-commit hook's
one-file run), for arrays that are never masked.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np


def distinct(rows: Iterable[int] | np.ndarray) -> np.ndarray:
    """``rows`` sorted, each once, as int64."""
    a = np.sort(np.fromiter((int(r) for r in rows), dtype=np.int64) if not isinstance(rows, np.ndarray)
                else rows.astype(np.int64, copy=True))
    if len(a) < 2:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]
