"""The semantic index: inner-product search over L2-normalised vectors, kept in segments.

A generation's vectors live in ``vectors/``: immutable **segments** (``<name>.f32``, the
float32 rows; ``<name>.ids``, their registry span rows as int64, ascending) that later
generations hard-link instead of rewriting, a per-generation **deletion list**
(``deleted.i64``: pairs of segment number and row) for rows of changed or removed
documents, and ``segments.json`` naming them. A one-file change therefore writes a
segment of that file's vectors and a small deletion list; the big segments carry over as
links. Small segments (under ``SMALL_ROWS`` rows, no graph) are merged once there are more
than ``MAX_SMALL_SEGMENTS``; all segments are merged into one when more than
``MERGE_DELETED_SHARE`` of the stored rows are deleted. Merges stream chunk by chunk: no matrix of every vector is ever held.

Search per segment, then merge:

* **flat** (exact): FAISS's ``knn_inner_product`` over the memory-mapped rows — the kernel
  ``IndexFlatIP`` runs, so scores and tie order (equal scores: higher row first) are
  bit-identical to the single ``IndexIDMap2(IndexFlatIP)`` file this replaced (results of
  several segments are merged in FAISS's own order); deleted rows
  are excluded by an ``IDSelector``.
* **HNSW** (approximate, ``<name>.hnsw`` beside a segment): a FAISS HNSW graph over 8-bit
  quantised rows proposes twice the rows asked for, which are scored exactly on the
  segment's float rows. Chosen (``vector_index = "auto"``) for a segment of at least
  ``ANN_MIN_SPANS`` rows, where flat search costs several times the graph's
  (docs/BENCHMARKS.md, "A vector store that scales"); the graph is built on one thread and
  searched with fixed parameters, so one index always gives the same results.

An index written before segments (one ``vectors.faiss``) is still read; the next
``orion index`` rebuilds it into segments (the index schema changed), reusing its vectors.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from oriongraph_cli.errors import OrionError
from oriongraph_cli.store.clone import link_or_clone
from oriongraph_cli.store.layout import atomic_write, atomic_write_with
from oriongraph_cli.store.rows import distinct

DIR = "vectors"
TABLE = "segments.json"
DELETED = "deleted.i64"
LEGACY_FILE = "vectors.faiss"  # the one-file layout (index schema 5 and earlier)
FILE = LEGACY_FILE  # kept for callers that name the old file
FORMAT = 1

MODES = ("auto", "flat", "hnsw")  # config.VECTOR_INDEXES
# "auto": a segment of at least this many rows gets an HNSW graph. Measured on real MiniLM
# vectors (docs/BENCHMARKS.md, "A vector store that scales"): below it a flat search is a
# few milliseconds and exact.
ANN_MIN_SPANS = 200_000
MAX_SMALL_SEGMENTS = 8  # more small segments than this are merged into one
SMALL_ROWS = 65_536  # a segment of fewer rows, without a graph, is small
MERGE_DELETED_SHARE = 0.25  # more deleted rows than this share of the stored ones: merge all
_CHUNK = 16_384  # rows per read/write when streaming segments
_HINT = "run `orion index --full` to rebuild the index"


def _damaged(what: str) -> OrionError:
    return OrionError(f"the vector store is damaged: {what}", hint=_HINT)


# ================================================================ HNSW

HNSW_M = 32  # graph links per node
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 1536  # recall@100 0.995 on 67k real vectors, 0.990 at 1M (docs/BENCHMARKS.md)
RERANK = 2  # the graph proposes RERANK × k rows; their exact scores choose the k


class HNSW:
    """An HNSW graph over one segment's rows (FAISS ``IndexHNSWSQ``: links plus 8-bit
    scalar-quantised rows, ~650 bytes a row at M=32, so building it holds no float copy of
    the segment). A search walks the graph for ``RERANK × k`` positions and scores them
    exactly on the segment's own float rows, so the scores are those a flat search gives."""

    def __init__(self, index, rows: np.ndarray | None = None, ef_search: int = HNSW_EF_SEARCH):
        self.index = index
        self.rows = rows
        self.ef_search = ef_search

    @classmethod
    def load(cls, path: Path, rows: np.ndarray) -> "HNSW":
        import faiss

        flag = getattr(faiss, "IO_FLAG_MMAP_IFC", 0)
        try:
            index = faiss.read_index(str(path), flag)
        except RuntimeError:
            index = faiss.read_index(str(path))
        if index.ntotal != len(rows) or index.d != rows.shape[1]:
            raise ValueError(f"{path.name} does not match its segment")
        return cls(index, rows)

    def save(self, path: Path) -> None:
        import faiss

        atomic_write_with(path, lambda tmp: faiss.write_index(self.index, str(tmp)))

    def search_positions(self, q: np.ndarray, k: int, *, ef_search: int | None = None, dead: np.ndarray | None = None):
        """(positions, exact scores) of the best ``k`` rows the graph finds, best first
        (equal scores: higher position first, as FAISS orders them)."""
        import faiss

        q = np.ascontiguousarray(np.asarray(q, dtype="float32").reshape(1, -1))
        params = faiss.SearchParametersHNSW()
        kk = min(self.index.ntotal, RERANK * k)
        params.efSearch = max(ef_search or self.ef_search, kk)
        if dead is not None:
            params.sel = faiss.IDSelectorNot(faiss.IDSelectorBatch(np.flatnonzero(dead).astype("int64")))
        _d, found = self.index.search(q, kk, params=params)
        pos = np.sort(found[0][found[0] >= 0])
        if not len(pos):
            return pos.astype("int64"), np.zeros(0, dtype="float32")
        # exact scores with the kernel flat search uses (the same bits), best first
        return _flat_top(q, np.ascontiguousarray(self.rows[pos], dtype="float32"), min(k, len(pos)), pos)


def _flat_top(q: np.ndarray, rows: np.ndarray, k: int, labels: np.ndarray | None = None, sel=None) -> tuple[np.ndarray, np.ndarray]:
    """(labels, scores) of the best ``k`` of ``rows`` for one query, in FAISS's flat order
    (``knn_inner_product``: the kernel and heap ``IndexFlatIP`` uses). ``labels``: what
    to return for each row (default its position); ``sel``: a FAISS IDSelector of positions."""
    import faiss

    D = np.empty((1, k), dtype="float32")
    I = np.empty((1, k), dtype="int64")
    args = [faiss.swig_ptr(q), faiss.swig_ptr(rows), rows.shape[1], 1, len(rows), k, faiss.swig_ptr(D), faiss.swig_ptr(I)]
    if sel is not None:
        args.append(sel)
    faiss.knn_inner_product(*args)
    ok = I[0] >= 0
    found = I[0][ok]
    return (found if labels is None else labels[found]).astype("int64"), D[0][ok]


def build_ann(rows: np.ndarray, dead: np.ndarray | None = None) -> HNSW:
    """An HNSW graph over ``rows`` (any array-like of float32 rows, read in chunks). Built on
    one thread: the same rows give the same graph, so one index always gives the same results."""
    import faiss

    n, dim = rows.shape
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        index = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        rng = np.random.default_rng(1234)
        sample = np.sort(rng.choice(n, size=min(n, 65_536), replace=False))
        index.train(np.ascontiguousarray(rows[sample], dtype="float32"))  # the quantiser's range per dimension
        for s in range(0, n, _CHUNK):
            index.add(np.ascontiguousarray(rows[s:s + _CHUNK], dtype="float32"))
    finally:
        faiss.omp_set_num_threads(before)
    return HNSW(index, rows)


# ================================================================ reading


@dataclass
class _Segment:
    name: str
    ids: np.ndarray  # int64, ascending
    rows: np.ndarray  # float32 (n × dim), memory-mapped
    deleted: np.ndarray  # int64 rows deleted from this segment, ascending
    ann: HNSW | None = None
    _dead: np.ndarray | None = None

    @property
    def live(self) -> int:
        return len(self.ids) - len(self.deleted)

    def dead_mask(self) -> np.ndarray | None:
        """bool per position: deleted (None when nothing is)."""
        if not len(self.deleted):
            return None
        if self._dead is None:
            mask = np.zeros(len(self.ids), dtype=bool)
            mask[np.searchsorted(self.ids, self.deleted)] = True
            self._dead = mask
        return self._dead

    def dead_positions(self) -> np.ndarray:
        return np.searchsorted(self.ids, self.deleted).astype("int64")


def _table(path: Path) -> dict:
    try:
        table = json.loads((path / TABLE).read_text())
        if table.get("format") != FORMAT or not isinstance(table.get("segments"), list):
            raise ValueError("unknown format")
        return table
    except FileNotFoundError:
        raise _damaged(f"{path / TABLE} is missing") from None
    except (OSError, ValueError, AttributeError) as exc:
        raise _damaged(f"{path / TABLE} is unreadable ({exc.__class__.__name__})") from None


def _read_deleted(path: Path, nseg: int) -> list[np.ndarray]:
    """Per segment number, the rows deleted from it (ascending)."""
    f = path / DELETED
    pairs = np.fromfile(f, dtype="<i8").reshape(-1, 2) if f.exists() else np.zeros((0, 2), dtype="int64")
    if len(pairs) and (pairs[:, 0].min() < 0 or pairs[:, 0].max() >= nseg):
        raise ValueError("deletion list names a segment that does not exist")
    return [np.sort(pairs[pairs[:, 0] == i, 1]) for i in range(nseg)]


def _open_segments(path: Path, table: dict) -> list[_Segment]:
    dim = int(table["dim"])
    segs = []
    deleted = _read_deleted(path, len(table["segments"]))
    for i, entry in enumerate(table["segments"]):
        name, count = entry["name"], int(entry["count"])
        ids = np.fromfile(path / f"{name}.ids", dtype="<i8")
        if len(ids) != count or os.path.getsize(path / f"{name}.f32") != count * dim * 4:
            raise ValueError(f"segment {name} holds a different number of rows than {TABLE} records")
        rows = np.memmap(path / f"{name}.f32", dtype="<f4", mode="r", shape=(count, dim)) if count else np.zeros((0, dim), "float32")
        seg = _Segment(name, ids, rows, deleted[i])
        if entry.get("ann"):
            seg.ann = HNSW.load(path / entry["ann"], rows)
        segs.append(seg)
    return segs


class VectorIndex:
    """The vectors of one generation, for search and for their rows' vectors.

    ``threads``: OpenMP threads of one search (``query_threads``; 0 leaves FAISS's own
    setting). A one-query flat search on two threads cost 4-7x the CPU of one and more wall
    time as well, from 13k to 400k vectors (docs/BENCHMARKS.md, "Threads that don't
    spin"), so orion searches on one. The count is set for the searching thread only (OpenMP keeps it per
    thread) and put back after the search, so a caller's own FAISS use is left alone."""

    @property
    def _faiss(self):
        """FAISS, imported when a search or an index file needs it: an index run that only
        reads and appends flat segments does without it (~30 ms of imports)."""
        import faiss

        return faiss

    def __init__(self, gen_path: Path, threads: int = 1):
        self.threads = threads
        self._legacy = None
        self._segments: list[_Segment] = []
        vdir = gen_path / DIR
        if not vdir.is_dir() and (gen_path / LEGACY_FILE).exists():
            self._legacy = _read_legacy(gen_path / LEGACY_FILE)
            self.dim = int(self._legacy.d)
            return
        table = _table(vdir)
        try:
            self._segments = _open_segments(vdir, table)
        except FileNotFoundError as exc:
            raise _damaged(f"{exc.filename} is missing") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise _damaged(f"{vdir}: {exc}") from None
        self.dim = int(table["dim"])

    @property
    def ntotal(self) -> int:
        if self._legacy is not None:
            return int(self._legacy.ntotal)
        return sum(s.live for s in self._segments)

    @property
    def kinds(self) -> list[str]:
        """"flat" or "hnsw" per segment."""
        return ["hnsw" if s.ann is not None else "flat" for s in self._segments]

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self.ntotal == 0:
            return []
        k = min(k, self.ntotal)
        q = np.ascontiguousarray(query.reshape(1, -1), dtype="float32")
        faiss = self._faiss
        before = faiss.omp_get_max_threads()
        if not self.threads or self.threads == before:
            return self._search(q, k)
        faiss.omp_set_num_threads(self.threads)
        try:
            return self._search(q, k)
        finally:
            faiss.omp_set_num_threads(before)

    def _search(self, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        if self._legacy is not None:
            scores, ids = self._legacy.search(q, k)
            return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]
        found: list[tuple[np.ndarray, np.ndarray]] = []
        for seg in self._segments:
            kk = min(k, seg.live)
            if kk <= 0:
                continue
            if seg.ann is not None:
                pos, scores = seg.ann.search_positions(q[0], kk, dead=seg.dead_mask())
            else:
                pos, scores = self._flat(seg, q, kk)
            found.append((seg.ids[pos], scores))
        if len(found) == 1:
            ids, scores = found[0]
        else:
            ids = np.concatenate([f[0] for f in found])
            scores = np.concatenate([f[1] for f in found])
            # FAISS's order: score, then among equal scores the higher row first (its heap)
            # — except for k = 1, where it keeps the first best (the lower row)
            best = np.lexsort((ids if k == 1 else -ids, -scores))[:k]
            ids, scores = ids[best], scores[best]
        return [(int(i), float(s)) for i, s in zip(ids, scores)]

    def _flat(self, seg: _Segment, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        faiss = self._faiss
        sel = faiss.IDSelectorNot(faiss.IDSelectorBatch(seg.dead_positions())) if len(seg.deleted) else None
        return _flat_top(q, seg.rows, k, sel=sel)

    def vectors(self, rows: list[int]) -> np.ndarray:
        """The stored vectors of ``rows`` (for MMR similarity)."""
        if not rows:
            return np.zeros((0, self.dim), dtype="float32")
        want = np.asarray(rows, dtype="int64")
        if self._legacy is not None:
            # one call, not one per row: 461 rows took 58 ms with reconstruct() and 0.8 ms here
            return np.asarray(self._legacy.reconstruct_batch(want), dtype="float32")
        out = np.zeros((len(want), self.dim), dtype="float32")
        todo = np.ones(len(want), dtype=bool)
        for seg in reversed(self._segments):  # a row lives in at most one segment
            if not len(seg.ids):
                continue
            pos = np.minimum(np.searchsorted(seg.ids, want), len(seg.ids) - 1)
            hit = todo & (seg.ids[pos] == want)
            if len(seg.deleted) and hit.any():
                hit &= ~seg.dead_mask()[pos]
            if hit.any():
                out[hit] = seg.rows[np.sort(pos[hit])][np.argsort(np.argsort(pos[hit]))]
                todo &= ~hit
        if todo.any():
            raise KeyError(f"rows without a vector: {want[todo][:5].tolist()}")
        return out


def _read_legacy(path: Path):
    """Memory-map the one-file layout where FAISS can (``IO_FLAG_MMAP_IFC``)."""
    import faiss

    flag = getattr(faiss, "IO_FLAG_MMAP_IFC", None)
    if flag is not None:
        try:
            return faiss.read_index(str(path), flag)
        except RuntimeError:
            pass
    return faiss.deserialize_index(np.fromfile(path, dtype="uint8"))


def has_segments(gen_path: Path) -> bool:
    return (gen_path / DIR / TABLE).is_file()


def vectors_of_rows(gen_path: Path, rows: list[int]) -> np.ndarray:
    """The vectors of registry ``rows`` in generation ``gen_path`` (the embedding cache)."""
    return VectorIndex(gen_path, threads=0).vectors(rows)


def read_all(gen_path: Path) -> np.ndarray:
    """Every live vector of a generation (either layout), in row order — for benchmarks."""
    index = VectorIndex(gen_path, threads=0)
    if index._legacy is not None:
        import faiss

        inner = faiss.downcast_index(index._legacy.index)  # IndexIDMap2's flat index, rows in insertion (row) order
        return np.asarray(inner.reconstruct_n(0, index.ntotal), dtype="float32")
    parts = []
    for seg in index._segments:
        mask = seg.dead_mask()
        parts.append(np.asarray(seg.rows if mask is None else seg.rows[~mask], dtype="float32"))
    return np.concatenate(parts) if parts else np.zeros((0, index.dim), dtype="float32")


# ================================================================ writing


class FileRows:
    """float32 rows of a raw file read with plain reads, not a memory map: what a build
    reads then does not stay resident in the process (a mapped 1M-row segment would add
    its 1.5 GB to the indexer's peak memory)."""

    def __init__(self, path: Path, n: int, dim: int):
        self.path, self.shape = path, (int(n), int(dim))

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key) -> np.ndarray:
        n, dim = self.shape
        if isinstance(key, slice):
            start, stop, _ = key.indices(n)
            with open(self.path, "rb") as fh:
                fh.seek(start * dim * 4)
                return np.fromfile(fh, dtype="<f4", count=max(0, stop - start) * dim).reshape(-1, dim)
        idx = np.asarray(key, dtype="int64")
        out = np.empty((len(idx), dim), dtype="float32")
        order = np.argsort(idx, kind="stable")
        with open(self.path, "rb") as fh:
            fd = fh.fileno()
            for j in order:
                out[j] = np.frombuffer(os.pread(fd, dim * 4, int(idx[j]) * dim * 4), dtype="<f4")
        return out


class VectorSpool:
    """The vectors of one index run by slot, in a temp file (``out[slots] = rows`` writes,
    :meth:`read` reads): embedding writes here and the registry writer reads a document's
    rows back, so a run never holds every vector in memory (1.5 GB at 1M spans)."""

    def __init__(self, path: Path, n: int, dim: int):
        self.path, self.dim = path, int(dim)
        self._fh = open(path, "w+b")
        self._fh.truncate(int(n) * self.dim * 4)

    def __setitem__(self, slots, rows) -> None:
        rows = np.ascontiguousarray(rows, dtype="<f4").reshape(-1, self.dim)
        fd = self._fh.fileno()
        for slot, row in zip(np.atleast_1d(np.asarray(slots, dtype="int64")), rows):
            os.pwrite(fd, row.tobytes(), int(slot) * self.dim * 4)

    def read(self, slots) -> np.ndarray:
        slots = np.asarray(slots, dtype="int64")
        out = np.empty((len(slots), self.dim), dtype="float32")
        fd = self._fh.fileno()
        for j, slot in enumerate(slots):
            out[j] = np.frombuffer(os.pread(fd, self.dim * 4, int(slot) * self.dim * 4), dtype="<f4")
        return out

    def close(self) -> None:
        self._fh.close()
        self.path.unlink(missing_ok=True)


class SegmentWriter:
    """The vector store of a generation being built in ``staging/vectors`` on top of
    ``base`` (a generation directory, or None): the base's segments are hard-linked (a copy
    where links are not possible), rows are deleted from them (:meth:`delete`), new rows
    streamed into one new segment (:meth:`add`), and :meth:`finish` merges and builds graphs."""

    def __init__(self, staging: Path, base: Path | None, name: str, mode: str = "auto"):
        self.dir = staging / DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.mode = mode
        self.segments: list[dict] = []  # {"name", "count", "ann"?} of the base, then ours
        self.deleted: list[list[np.ndarray]] = []
        self._ids: list[np.ndarray] = []
        self._count = 0
        self._fh = None
        self.dim: int | None = None
        if base is not None and has_segments(base):
            self._link_base(base)

    def _link_base(self, base: Path) -> None:
        bdir = base / DIR
        table = _table(bdir)
        self.dim = int(table["dim"])
        try:
            deleted = _read_deleted(bdir, len(table["segments"]))
        except (OSError, ValueError) as exc:
            raise _damaged(f"{bdir}: {exc}") from None
        for entry, dels in zip(table["segments"], deleted):
            files = [f"{entry['name']}.ids", f"{entry['name']}.f32"] + ([entry["ann"]] if entry.get("ann") else [])
            for f in files:
                _link(bdir / f, self.dir / f)
            self.segments.append(dict(entry))
            self.deleted.append([dels])

    # ------------------------------------------------------------ rows
    def delete(self, rows) -> None:
        """Mark ``rows`` deleted from the base segments that hold them live."""
        rows = distinct(rows)
        if not len(rows) or not self.segments:
            return
        for i, entry in enumerate(self.segments):
            ids = np.fromfile(self.dir / f"{entry['name']}.ids", dtype="<i8")
            if not len(ids):
                continue
            pos = np.minimum(np.searchsorted(ids, rows), len(ids) - 1)
            hit = rows[ids[pos] == rows]
            if len(hit):
                done = np.concatenate(self.deleted[i])
                self.deleted[i].append(hit[~np.isin(hit, done)])

    def add(self, ids, mat: np.ndarray) -> None:
        """Append rows (``ids`` ascending and above every row added before)."""
        ids = np.asarray(ids, dtype="int64")
        if not len(ids):
            return
        mat = np.ascontiguousarray(mat, dtype="<f4")
        if self.dim is None:
            self.dim = int(mat.shape[1])
        if mat.shape != (len(ids), self.dim):
            raise ValueError(f"vectors of {mat.shape[1:]} dimensions added to a store of {self.dim}")
        if self._fh is None:
            self._fh = open(self.dir / f"{self.name}.f32", "wb")
        self._fh.write(mat.tobytes())
        self._ids.append(ids)
        self._count += len(ids)

    # ------------------------------------------------------------ finishing
    def finish(self, dim: int) -> int:
        """Close the new segment, merge where the policy says, build the HNSW graphs the
        mode asks for, write the deletion list and the table. Returns the live rows."""
        if self.dim is None:
            self.dim = int(dim)
        if self._fh is not None:
            self._fh.close()
            self._fh = None
            ids = np.concatenate(self._ids)
            self._ids = []
            if np.any(np.diff(ids) <= 0):
                self._sort_new(ids)
            else:
                ids.astype("<i8").tofile(self.dir / f"{self.name}.ids")
            self.segments.append({"name": self.name, "count": int(len(ids))})
            self.deleted.append([])
        dels = [np.sort(np.concatenate(d)).astype("int64") if d else np.zeros(0, "int64") for d in self.deleted]
        self._merge(dels)
        self._index_segments()
        pairs = [np.stack([np.full(len(d), i, dtype="int64"), d], axis=1) for i, d in enumerate(self.deleted_rows) if len(d)]
        if pairs:
            atomic_write(self.dir / DELETED, np.concatenate(pairs).astype("<i8").tobytes())
        atomic_write(self.dir / TABLE, json.dumps({"format": FORMAT, "dim": self.dim, "segments": self.segments}, indent=1, sort_keys=True).encode())
        return int(sum(e["count"] for e in self.segments) - sum(len(d) for d in self.deleted_rows))

    def _sort_new(self, ids: np.ndarray) -> None:
        """Rows added out of order (not expected from the registry): sort the new segment."""
        path = self.dir / f"{self.name}.f32"
        mat = np.fromfile(path, dtype="<f4").reshape(-1, self.dim)
        order = np.argsort(ids, kind="stable")
        mat[order].tofile(path)
        ids[order].astype("<i8").tofile(self.dir / f"{self.name}.ids")

    def _merge(self, dels: list[np.ndarray]) -> None:
        stored = sum(e["count"] for e in self.segments)
        small = [i for i, e in enumerate(self.segments) if not e.get("ann") and e["count"] < SMALL_ROWS]
        if stored and sum(len(d) for d in dels) > MERGE_DELETED_SHARE * stored and len(self.segments) > 0:
            pick = list(range(len(self.segments)))
        elif len(small) > MAX_SMALL_SEGMENTS:
            pick = small
        else:
            self.deleted_rows = dels
            return
        merged = self._write_merged([self.segments[i] for i in pick], [dels[i] for i in pick])
        keep = [i for i in range(len(self.segments)) if i not in pick]
        for i in pick:
            self._drop(self.segments[i])
        first = pick[0]
        self.segments = [self.segments[i] for i in keep if i < first] + ([merged] if merged["count"] else []) + [self.segments[i] for i in keep if i > first]
        self.deleted_rows = [dels[i] for i in keep if i < first] + ([np.zeros(0, "int64")] if merged["count"] else []) + [dels[i] for i in keep if i > first]

    def _write_merged(self, entries: list[dict], dels: list[np.ndarray]) -> dict:
        """One segment of the live rows of ``entries``, streamed in chunks."""
        name = f"{self.name}m"
        live_ids = []
        for e, d in zip(entries, dels):
            ids = np.fromfile(self.dir / f"{e['name']}.ids", dtype="<i8")
            live_ids.append(ids[~np.isin(ids, d)] if len(d) else ids)
        all_ids = np.concatenate(live_ids) if live_ids else np.zeros(0, "int64")
        ascending = not np.any(np.diff(all_ids) <= 0)
        with open(self.dir / f"{name}.f32", "wb") as out:
            if ascending:  # the usual case: later segments hold higher rows
                for e, d in zip(entries, dels):
                    ids = np.fromfile(self.dir / f"{e['name']}.ids", dtype="<i8")
                    keep = ~np.isin(ids, d) if len(d) else None
                    with open(self.dir / f"{e['name']}.f32", "rb") as src:
                        for s in range(0, len(ids), _CHUNK):
                            chunk = np.fromfile(src, dtype="<f4", count=min(_CHUNK, len(ids) - s) * self.dim).reshape(-1, self.dim)
                            out.write((chunk if keep is None else chunk[keep[s:s + len(chunk)]]).tobytes())
            else:
                rows = np.concatenate([np.asarray(self._rows_of(e))[~np.isin(np.fromfile(self.dir / f"{e['name']}.ids", dtype="<i8"), d)]
                                       for e, d in zip(entries, dels)])
                order = np.argsort(all_ids, kind="stable")
                out.write(np.ascontiguousarray(rows[order], dtype="<f4").tobytes())
                all_ids = all_ids[order]
        all_ids.astype("<i8").tofile(self.dir / f"{name}.ids")
        return {"name": name, "count": int(len(all_ids))}

    def _rows_of(self, entry: dict) -> np.ndarray:
        n = int(entry["count"])
        if not n:
            return np.zeros((0, self.dim), dtype="float32")
        return np.memmap(self.dir / f"{entry['name']}.f32", dtype="<f4", mode="r", shape=(n, self.dim))

    def _drop(self, entry: dict) -> None:
        for f in [f"{entry['name']}.ids", f"{entry['name']}.f32"] + ([entry["ann"]] if entry.get("ann") else []):
            (self.dir / f).unlink(missing_ok=True)

    def _index_segments(self) -> None:
        """An HNSW graph beside every segment the mode asks one for; none beside the others."""
        for entry in self.segments:
            want = self.mode == "hnsw" or (self.mode == "auto" and entry["count"] >= ANN_MIN_SPANS)
            want = want and entry["count"] >= 2
            if want and not entry.get("ann"):
                f = f"{entry['name']}.hnsw"
                build_ann(FileRows(self.dir / f"{entry['name']}.f32", entry["count"], self.dim)).save(self.dir / f)
                entry["ann"] = f
            elif not want and entry.get("ann"):
                (self.dir / entry["ann"]).unlink(missing_ok=True)
                del entry["ann"]

    def abort(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def build(gen_path: Path, ids, mat: np.ndarray, dim: int, mode: str = "auto") -> int:
    """A vector store of one segment holding ``mat`` under rows ``ids`` in ``gen_path``
    (tests and benchmarks; the indexer streams through :class:`SegmentWriter`)."""
    writer = SegmentWriter(gen_path, None, "000001", mode)
    order = np.argsort(np.asarray(ids, dtype="int64"), kind="stable")
    writer.add(np.asarray(ids, dtype="int64")[order], np.asarray(mat, dtype="float32").reshape(-1, dim)[order])
    return writer.finish(dim)


def _link(src: Path, dst: Path) -> None:
    """``dst`` as a hard link of the immutable ``src`` (a clone or copy where links are not
    possible: ``store.clone``)."""
    try:
        link_or_clone(src, dst)
    except FileNotFoundError:
        raise _damaged(f"{src} is missing") from None
