"""The semantic index: FAISS inner-product search over L2-normalised vectors.

Exact search (``IndexFlatIP`` inside ``IndexIDMap2``; ids are registry span rows) — at the
scales measured in docs/BENCHMARKS.md exact search costs a few milliseconds and keeps
results deterministic. The index is serialised to bytes and written through a temp file
(``atomic_write``), never onto a live path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from oriongraph_cli.store.layout import atomic_write

FILE = "vectors.faiss"


def build(path: Path, ids: np.ndarray, vectors: np.ndarray, dim: int) -> int:
    import faiss

    index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
    if len(ids):
        index.add_with_ids(np.ascontiguousarray(vectors, dtype="float32"), np.ascontiguousarray(ids, dtype="int64"))
    atomic_write(path, faiss.serialize_index(index).tobytes())
    return int(index.ntotal)


class VectorIndex:
    def __init__(self, path: Path):
        import faiss

        self._faiss = faiss
        data = np.fromfile(path, dtype="uint8")
        self._index = faiss.deserialize_index(data)

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self.ntotal == 0:
            return []
        k = min(k, self.ntotal)
        scores, ids = self._index.search(np.ascontiguousarray(query.reshape(1, -1), dtype="float32"), k)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]

    def vectors(self, rows: list[int]) -> np.ndarray:
        """The stored vectors of ``rows`` (for MMR similarity)."""
        if not rows:
            return np.zeros((0, self._index.d), dtype="float32")
        return np.vstack([self._index.reconstruct(int(r)) for r in rows]).astype("float32")
