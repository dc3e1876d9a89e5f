"""The semantic index: FAISS inner-product search over L2-normalised vectors.

Exact search (``IndexFlatIP`` inside ``IndexIDMap2``; ids are registry span rows) — at the
scales measured in docs/BENCHMARKS.md exact search costs a few milliseconds and keeps
results deterministic. FAISS writes the index into a temp file that is then fsynced and
renamed (``atomic_write_with``), never onto a live path; readers memory-map it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from oriongraph_cli.store.layout import atomic_write_with

FILE = "vectors.faiss"


def build(path: Path, ids: np.ndarray, vectors: np.ndarray, dim: int) -> int:
    import faiss

    index = faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
    if len(ids):
        index.add_with_ids(np.ascontiguousarray(vectors, dtype="float32"), np.ascontiguousarray(ids, dtype="int64"))
    # written by FAISS straight into a temp file: serialize_index + tobytes held two more
    # copies of every vector in memory and took 1.2 s of a 100k-span re-index
    atomic_write_with(path, lambda tmp: faiss.write_index(index, str(tmp)))
    return int(index.ntotal)


def _read(path: Path):
    """Memory-map the vectors where FAISS can (``IO_FLAG_MMAP_IFC``, flat indexes): opening
    costs no read of the file, and pages come from the OS cache as a search touches them.
    At 100k spans (154 MB) reading and deserialising took 1.0-1.7 s in every fresh
    ``orion compile``; the map takes ~10 ms. A finished generation's file is never written
    again (new generations write new files), so the map stays valid while the reader lives."""
    import faiss

    flag = getattr(faiss, "IO_FLAG_MMAP_IFC", None)
    if flag is not None:
        try:
            return faiss.read_index(str(path), flag)
        except RuntimeError:
            pass  # an older FAISS, or an index type it cannot map: read it whole
    return faiss.deserialize_index(np.fromfile(path, dtype="uint8"))


class VectorIndex:
    """``threads``: OpenMP threads of one search (``query_threads``; 0 leaves FAISS's own
    setting). A one-query flat search on two threads cost 4-7x the CPU of one and more wall
    time as well, from 13k to 400k vectors (docs/BENCHMARKS.md, "Threads that don't
    spin"), so orion searches on one. The count is set for the searching thread only (OpenMP keeps it per
    thread) and put back after the search, so a caller's own FAISS use is left alone."""

    def __init__(self, path: Path, threads: int = 1):
        import faiss

        self._faiss = faiss
        self._index = _read(path)
        self.threads = threads

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self.ntotal == 0:
            return []
        k = min(k, self.ntotal)
        q = np.ascontiguousarray(query.reshape(1, -1), dtype="float32")
        faiss = self._faiss
        before = faiss.omp_get_max_threads()
        if not self.threads or self.threads == before:
            scores, ids = self._index.search(q, k)
        else:
            faiss.omp_set_num_threads(self.threads)
            try:
                scores, ids = self._index.search(q, k)
            finally:
                faiss.omp_set_num_threads(before)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]

    def vectors(self, rows: list[int]) -> np.ndarray:
        """The stored vectors of ``rows`` (for MMR similarity)."""
        if not rows:
            return np.zeros((0, self._index.d), dtype="float32")
        # one call, not one per row: 461 rows took 58 ms with reconstruct() and 0.8 ms here
        return np.asarray(self._index.reconstruct_batch(np.asarray(rows, dtype="int64")), dtype="float32")
