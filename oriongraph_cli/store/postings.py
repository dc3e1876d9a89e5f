"""Term-major BM25 postings as numpy arrays: the lexical channel's fast search path.

Whoosh stays the lexical index of record (its analyser defines the terms, it stores the
documents, and it answers what the arrays cannot: phrase queries, operator words, or a
generation built before the arrays existed). Whoosh scores in pure Python, one posting
at a time (~60-110 ms a query at 13k spans, ~400 ms at 100k); here the same BM25F is a
handful of vectorised numpy operations over memory-mapped arrays.

Files in ``gen/<id>/postings/`` (written into the staging build, fsynced and promoted
with the rest of the generation, so a crash never leaves a half-written set visible):

``terms.npy``     uint8, the UTF-8 bytes of every term, concatenated in sorted byte order
``term_off.npy``  int64 [V+1], term ``t`` is ``terms[term_off[t]:term_off[t+1]]``
``ptr.npy``       int64 [V+1], postings of term ``t`` are ``ptr[t]:ptr[t+1]``
``rows.npy``      int32 [P], registry row of each posting (ascending within a term)
``tf.npy``        uint16/int32 [P], term frequency
``lb.npy``        uint8 [P], the span's field length as Whoosh's one-byte code
``doc_rows.npy``  int64 [N], every indexed row, ascending
``doc_len.npy``   int32 [N], its exact field length (the average uses exact lengths)
``meta.json``     format version, N, total length, postings and terms counts (written last)
``delta/``        only after a small change: the same eight arrays and ``meta.json`` for the
                  spans added since the main arrays were written, ``dead.npy`` (int64, the
                  main arrays' rows no longer live) and, in its ``meta.json``, their number
                  and total length; the main ``meta.json`` then says ``format`` 2

Scores replicate Whoosh's ``BM25F`` on one field exactly: ``idf = log(N / (df + 1)) + 1``,
``avgfl = total length / N``, the document length decoded from its byte
(``whoosh.util.numeric.byte_to_length``) and ``idf * tf*(K1+1) / (tf + K1*(1-B+B*fl/avgfl))``
summed over the query terms. One difference, on purpose: Whoosh counts deleted documents
in N, df and the total length until a merge rewrites the segment, so its scores drift
after incremental updates; these arrays hold live spans only, so an incrementally updated
generation equals a full rebuild (on a freshly built index the two agree to ~1e-12).

A new generation is derived from the previous one. A change small beside the main arrays
(its delta, with the previous delta's, under ``1 / MERGE_SHARE`` of their postings and
rows) leaves them as they are — hard links, whose checksums the manifest carries over —
and writes only the delta segment: the previous delta without the deleted rows, plus the
new spans, and the dead rows. A search reads both (a row is live in one of them) with the
counts of the live spans, so its scores are those of one set of arrays to the last bit.
A larger change merges: postings of deleted rows are masked out, the delta's and the new
spans' postings are merged in (their term ids and (term, row) order found with
``searchsorted``, no global re-sort), a few memory-speed passes over the arrays, not a
re-analysis of the corpus.
"""

from __future__ import annotations

import json
import math
import re
from array import array
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

if TYPE_CHECKING:  # imported where used: a run that changes nothing asks only `present` (numpy ~40 ms)
    import numpy as np

DIR = "postings"
FORMAT = 1
# the main arrays' meta.json of a set with a delta segment: a version that reads the main
# arrays alone (FORMAT only) refuses it and scores with Whoosh instead of reading dead rows
SEGMENTED = 2
DELTA = "delta"  # the delta segment's directory inside DIR
DEAD = "dead.npy"  # in DELTA: the main arrays' rows no longer live
MERGE_SHARE = 8  # the delta is merged into new main arrays once it holds more than 1/8 of their postings or rows
_FILES = ("terms", "term_off", "ptr", "rows", "tf", "lb", "doc_rows", "doc_len")
FEW_SHARE = 4  # an update adding this many times fewer postings than it keeps places each in its term's block
OPERATOR_WORDS = frozenset({"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"})  # Whoosh's query parser reads these


# Whoosh's StemmingAnalyzer() configuration, pinned here so a compile does not import
# whoosh.analysis (whoosh.compat pulls in urllib.request, http.client, ssl and email: ~70 ms of
# a fresh `orion compile`). tests/test_postings.py asserts these equal Whoosh's own values.
WHOOSH_TOKEN_PATTERN = r"[\w\*]+(\.?[\w\*]+)*"
WHOOSH_STOP_WORDS = frozenset(
    "a an and are as at be by can for from have if in is it may not of on or tbd that the this to us we when "
    "will with yet you your".split()
)
WHOOSH_MIN_SIZE = 2


class _Analyzer:
    """Whoosh's ``StemmingAnalyzer`` (regex tokenizer | lowercase | stop words | Porter
    stemmer) without its Token-object pipeline: same configuration (pinned above, checked
    against a real StemmingAnalyzer by the tests), same terms, ~3x faster."""

    def __init__(self) -> None:
        from whoosh.lang.porter import (
            stem,  # imports only whoosh.lang (no whoosh.compat)
        )

        # the same matches, without capturing groups, so findall returns whole tokens
        self._findall = re.compile(_uncapture(WHOOSH_TOKEN_PATTERN), re.UNICODE).findall
        self.stemfn = stem
        self.memo: dict[str, str | bool] = {}  # token as matched -> term (False when dropped)

    def _term(self, token: str) -> str | bool:
        # StemmingAnalyzer's defaults have no maximum size and no ignore list (pinned by the tests)
        w = token.lower()
        if len(w) < WHOOSH_MIN_SIZE or w in WHOOSH_STOP_WORDS:
            return False
        return self.stemfn(w)

    def terms(self, text: str) -> list[str]:
        memo = self.memo
        out = []
        for tok in self._findall(text):
            t = memo.get(tok)
            if t is None:
                if len(memo) > 200_000:  # bounded (~25 MB); distinct raw tokens at 100k spans fit
                    memo.clear()
                t = memo[tok] = self._term(tok)
            if t is not False:
                out.append(t)
        return out


def _uncapture(pattern: str) -> str:
    """``pattern`` with its plain groups made non-capturing (Whoosh's default tokenizer
    pattern is ``\\w+(\\.?\\w+)*``)."""
    out = re.sub(r"(?<!\\)\((?!\?)", "(?:", pattern)
    return out


_ANALYZER: _Analyzer | None = None


def analyzer() -> _Analyzer:
    global _ANALYZER
    if _ANALYZER is None:
        _ANALYZER = _Analyzer()
    return _ANALYZER


def _byte_to_length() -> np.ndarray:
    """Whoosh's one-byte field-length table (``whoosh.util.numeric._length_byte_cache``),
    which is ``round((1.033**n - 1) * 27)``; computed here rather than imported, for the
    same reason as the analyser constants (the tests compare it with Whoosh's)."""
    import numpy as np
    return np.array([int(round((pow(1.033, n) - 1) * 27)) for n in range(256)], dtype=np.float64)


def _length_to_byte(lengths: np.ndarray) -> np.ndarray:
    # whoosh.util.numeric.length_to_byte: bisect_left over byte_to_length's table, 255 from 106374 up
    import numpy as np
    out = np.searchsorted(_byte_to_length(), lengths, side="left")
    out[lengths >= 106374] = 255
    return out.astype(np.uint8)


# ---------------------------------------------------------------------------- build


class Analysed:
    """The postings of spans as they are added, kept compact (no per-posting Python
    object): per span its row, field length and number of distinct terms; per posting a
    term id (in first-seen order, into ``terms``) and its frequency. About 6 bytes a
    posting where lists of ints took ~24, so a whole-corpus build at 1M spans stays
    bounded."""

    def __init__(self) -> None:
        self._ana = analyzer()
        self.rows = array("q")
        self.lengths = array("q")
        self.n_terms = array("i")  # distinct terms of each span (its postings)
        self.ids: dict[str, int] = {}
        self.p_tid = array("i")
        self.p_tf = array("H")  # widened to "i" by the first frequency past 65,535

    def add(self, row: int, text: str) -> None:
        toks = self._ana.terms(text)
        counts = Counter(toks)
        ids = self.ids
        self.rows.append(row)
        self.lengths.append(len(toks))
        self.n_terms.append(len(counts))
        tids = []
        for t in counts:
            i = ids.get(t)
            if i is None:
                i = ids[t] = len(ids)
            tids.append(i)
        self.p_tid.extend(tids)
        if self.p_tf.typecode == "H" and max(counts.values(), default=0) > 0xFFFF:
            self.p_tf = array("i", self.p_tf)
        self.p_tf.extend(counts.values())

    def extend(self, docs: Iterable[tuple[int, str]]) -> "Analysed":
        for row, text in docs:
            self.add(row, text)
        return self

    def __len__(self) -> int:
        return len(self.rows)

    def absorb(self, other: "Analysed") -> "Analysed":
        """``other``'s spans added after these (its term ids mapped to these); returns self."""
        import numpy as np
        ids = self.ids
        remap = np.fromiter((ids.setdefault(t, len(ids)) for t in other.ids), dtype=np.int32, count=len(other.ids))
        self.rows.extend(other.rows)
        self.lengths.extend(other.lengths)
        self.n_terms.extend(other.n_terms)
        if len(other.p_tid):
            self.p_tid.frombytes(remap[np.frombuffer(other.p_tid, dtype=np.int32)].astype(np.int32).tobytes())
        if other.p_tf.typecode != self.p_tf.typecode:
            self.p_tf = array("i", self.p_tf)
        self.p_tf.extend(other.p_tf if other.p_tf.typecode == self.p_tf.typecode else array("i", other.p_tf))
        return self

    @property
    def tf_dtype(self):
        import numpy as np
        return np.uint16 if self.p_tf.typecode == "H" else np.int32


def _vocab(terms: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np
    blob = b"".join(terms)
    off = np.zeros(len(terms) + 1, dtype=np.int64)
    if terms:
        np.cumsum([len(t) for t in terms], out=off[1:])
    return np.frombuffer(blob, dtype=np.uint8).copy(), off


def _bisect(blob: np.ndarray, off: np.ndarray, n: int, key: bytes) -> tuple[int, bool]:
    """Position of ``key`` in the sorted term list (found) or where it would go."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        t = blob[int(off[mid]) : int(off[mid + 1])].tobytes()
        if t < key:
            lo = mid + 1
        elif t > key:
            hi = mid
        else:
            return mid, True
    return lo, False


def _vocab_terms(arrays: dict[str, np.ndarray]) -> list[str]:
    import numpy as np
    raw, off = np.asarray(arrays["terms"]).tobytes(), np.asarray(arrays["term_off"]).tolist()
    return [raw[off[i] : off[i + 1]].decode("utf-8") for i in range(len(off) - 1)]


def _save(directory: Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    import numpy as np
    directory.mkdir(parents=True, exist_ok=True)
    for name in _FILES:
        np.save(directory / f"{name}.npy", arrays[name], allow_pickle=False)
    # meta.json last: its presence (and counts) marks a complete set
    (directory / "meta.json").write_text(json.dumps(meta, sort_keys=True))


def load_arrays(directory: Path, mmap: bool = True) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and meta of ``directory``; raises (OSError/ValueError/KeyError) if
    missing, of another format or inconsistent."""
    import numpy as np
    meta = json.loads((directory / "meta.json").read_text())
    if meta.get("format") not in (FORMAT, SEGMENTED):
        raise ValueError(f"postings format {meta.get('format')!r}")
    arr = {name: np.load(directory / f"{name}.npy", mmap_mode="r" if mmap else None, allow_pickle=False) for name in _FILES}
    v, p, n = meta["terms"], meta["postings"], meta["docs"]
    if not (
        len(arr["term_off"]) == v + 1 and len(arr["ptr"]) == v + 1 and len(arr["rows"]) == p and len(arr["tf"]) == p
        and len(arr["lb"]) == p and len(arr["doc_rows"]) == n and len(arr["doc_len"]) == n
        and int(arr["ptr"][-1]) == p and int(arr["term_off"][-1]) == len(arr["terms"])
    ):
        raise ValueError("postings arrays disagree with meta.json")
    return arr, meta


class _Segments:
    """A generation's postings as written: the main arrays and, when a change was written
    as one, the delta segment and the main arrays' rows it declares dead."""

    def __init__(self, main, meta, delta=None, delta_meta=None, dead=None):
        import numpy as np
        self.main, self.meta, self.delta, self.delta_meta = main, meta, delta, delta_meta
        self.dead = np.asarray(dead, dtype=np.int64) if dead is not None else np.zeros(0, dtype=np.int64)

    @classmethod
    def load(cls, directory: Path, mmap: bool = True) -> "_Segments":
        """Raises (OSError/ValueError/KeyError) as :func:`load_arrays` does."""
        import numpy as np
        main, meta = load_arrays(directory, mmap)
        if meta["format"] == FORMAT:
            return cls(main, meta)
        delta, d_meta = load_arrays(directory / DELTA, mmap)
        if d_meta["format"] != FORMAT:
            raise ValueError(f"postings delta format {d_meta['format']!r}")
        dead = np.load(directory / DELTA / DEAD, allow_pickle=False)
        if dead.dtype != np.int64 or dead.ndim != 1 or len(dead) != d_meta["dead"] or len(dead) > meta["docs"]:
            raise ValueError("postings: the dead rows disagree with delta/meta.json")
        rows = np.asarray(main["doc_rows"])
        at = np.minimum(np.searchsorted(rows, dead), max(len(rows) - 1, 0))
        if len(dead) and (not np.all(np.diff(dead) > 0) or not np.array_equal(rows[at], dead)):
            raise ValueError("postings: a dead row is not a row of the main arrays")
        if _dead_length(main, dead) != d_meta["dead_length"]:
            raise ValueError("postings: the dead rows' length disagrees with delta/meta.json")
        d_rows = np.asarray(delta["doc_rows"])
        if len(d_rows) and (np.isin(d_rows, rows) & ~np.isin(d_rows, dead)).any():
            raise ValueError("postings: a row is live in both the main arrays and the delta")
        return cls(main, meta, delta, d_meta, dead)


def _dead_length(main: dict, dead: "np.ndarray") -> int:
    """The total field length of the ``dead`` rows (sorted rows of ``main``, or past its
    last row: then the last row's length counts, and the caller's checks refuse them)."""
    import numpy as np
    if not len(dead):
        return 0
    rows = np.asarray(main["doc_rows"])
    at = np.minimum(np.searchsorted(rows, dead), len(rows) - 1)
    return int(np.asarray(main["doc_len"], dtype=np.int64)[at].sum())


def _analysed_of(arrays: dict, drop: "np.ndarray | None" = None) -> Analysed:
    """The postings of ``arrays`` (but those of the rows in ``drop``) as an :class:`Analysed`
    of their spans, in row order."""
    import numpy as np
    acc = Analysed()
    terms = _vocab_terms(arrays)
    ptr = np.asarray(arrays["ptr"], dtype=np.int64)
    rows = np.asarray(arrays["rows"], dtype=np.int64)
    tid = np.repeat(np.arange(len(terms), dtype=np.int32), np.diff(ptr))
    tf = np.asarray(arrays["tf"])
    doc_rows = np.asarray(arrays["doc_rows"], dtype=np.int64)
    doc_len = np.asarray(arrays["doc_len"], dtype=np.int64)
    if drop is not None and len(drop):
        keep = ~np.isin(rows, drop)
        rows, tid, tf = rows[keep], tid[keep], tf[keep]
        dkeep = ~np.isin(doc_rows, drop)
        doc_rows, doc_len = doc_rows[dkeep], doc_len[dkeep]
    order = np.lexsort((tid, rows))  # by row, then term
    rows, tid, tf = rows[order], tid[order], tf[order]
    n_per = np.searchsorted(rows, doc_rows, side="right") - np.searchsorted(rows, doc_rows, side="left")
    acc.ids = {t: i for i, t in enumerate(terms)}
    acc.rows.frombytes(doc_rows.tobytes())
    acc.lengths.frombytes(doc_len.tobytes())
    acc.n_terms.frombytes(n_per.astype(np.int32).tobytes())
    acc.p_tid.frombytes(tid.astype(np.int32).tobytes())
    if tf.dtype != np.uint16:
        acc.p_tf = array("i")
        tf = tf.astype(np.int32)
    acc.p_tf.frombytes(tf.tobytes())
    return acc


def logical_arrays(directory: Path) -> tuple[dict, dict]:
    """The arrays (and meta) a build from empty of the live postings in ``directory`` would
    write: the main arrays as read when there is no delta, else main and delta merged in
    memory. What the tests compare an updated generation with a rebuilt one by."""
    seg = _Segments.load(directory, mmap=False)
    if seg.delta is None:
        return seg.main, seg.meta
    return _merged(seg.main, seg.dead, _analysed_of(seg.delta))


def present(gen_path: Path | None) -> bool:
    return gen_path is not None and (gen_path / DIR / "meta.json").is_file()


def build(
    directory: Path,
    previous: Path | None,
    deleted_rows: Iterable[int],
    add: "Iterable[tuple[int, str]] | Analysed",
    all_docs: Callable[[], Iterable[tuple[int, str]]] | None = None,
) -> int:
    """Write the postings of a new generation into ``directory``: ``previous``'s minus
    ``deleted_rows`` plus ``add`` ((row, lexical text) of new spans, or an :class:`Analysed`
    of them). If ``previous`` is
    given but has no readable arrays (a generation built before they existed),
    ``all_docs()`` supplies every span of the new generation instead. Returns the number
    of spans indexed.

    A change that is small beside ``previous``'s main arrays leaves them as they are (hard
    links) and writes only the delta segment (:data:`DELTA`): the postings added since the
    main arrays were written and the rows of theirs no longer live. Once the delta holds
    more than ``1 / MERGE_SHARE`` of the main arrays' postings or rows, it is merged into
    new main arrays (what a build from empty of the same spans writes)."""
    import numpy as np

    from oriongraph_cli.store.rows import distinct
    old = None
    if previous is not None:
        try:
            old = _Segments.load(previous)
        except (OSError, ValueError, KeyError):
            if all_docs is None:
                raise
            old = None
            add = all_docs()
    acc = add if isinstance(add, Analysed) else Analysed().extend(add)
    if old is None:
        arrays, meta = _merged(None, (), acc)
        _save(directory, arrays, meta)
        return meta["docs"]
    main_rows = np.asarray(old.main["doc_rows"], dtype=np.int64)
    deleted = distinct(deleted_rows)
    d_rows = np.asarray(old.delta["doc_rows"], dtype=np.int64) if old.delta is not None else np.zeros(0, dtype=np.int64)
    in_delta = np.isin(deleted, d_rows)
    from_delta = deleted[in_delta]
    dead = distinct(np.concatenate([old.dead, deleted[np.isin(deleted, main_rows) & ~in_delta]]))
    new_rows = np.frombuffer(acc.rows, dtype=np.int64) if len(acc.rows) else np.zeros(0, dtype=np.int64)
    if (np.isin(new_rows, main_rows) & ~np.isin(new_rows, dead)).any():
        raise ValueError("postings: a row is indexed twice")
    kept_delta = int(old.delta_meta["postings"]) if old.delta is not None else 0  # an over-estimate by the deleted rows' postings
    if (kept_delta + len(acc.p_tid)) * MERGE_SHARE > int(old.meta["postings"]) or len(dead) * MERGE_SHARE > len(main_rows):
        # the delta grew past its share: everything live in one set of main arrays again
        if old.delta is not None:
            acc = _analysed_of(old.delta, drop=from_delta).absorb(acc)
        arrays, meta = _merged(old.main, dead, acc)
        _save(directory, arrays, meta)
        return meta["docs"]
    from oriongraph_cli.store.clone import link_or_clone

    directory.mkdir(parents=True, exist_ok=True)
    for name in _FILES:
        link_or_clone(previous / f"{name}.npy", directory / f"{name}.npy")
    d_arrays, d_meta = _merged(old.delta, from_delta, acc)
    (directory / DELTA).mkdir()
    np.save(directory / DELTA / DEAD, dead, allow_pickle=False)
    _save(directory / DELTA, d_arrays, {**d_meta, "dead": int(len(dead)), "dead_length": _dead_length(old.main, dead)})
    # last: the main arrays' meta marks the set complete, and says a delta goes with them
    (directory / "meta.json").write_text(json.dumps({**old.meta, "format": SEGMENTED}, sort_keys=True))
    return int(old.meta["docs"]) - int(len(dead)) + int(d_meta["docs"])


def _merged(old: "dict[str, np.ndarray] | None", deleted_rows: "Iterable[int]", acc: Analysed) -> tuple[dict, dict]:
    """The arrays (and meta) of ``old``'s postings minus ``deleted_rows`` plus ``acc``'s."""
    import numpy as np

    from oriongraph_cli.store.rows import distinct
    rows = np.frombuffer(acc.rows, dtype=np.int64) if len(acc.rows) else np.zeros(0, dtype=np.int64)
    new_rows = rows.copy()
    new_len = np.frombuffer(acc.lengths, dtype=np.int64).copy() if len(acc.lengths) else np.zeros(0, dtype=np.int64)
    local_terms = list(acc.ids)
    if len(distinct(new_rows)) != len(new_rows):
        raise ValueError("postings: a row is added twice")
    if old is None and (len(new_rows) < 2 or bool(np.all(np.diff(new_rows) > 0))):
        return _build_fresh(acc, new_rows, new_len, local_terms)
    p_tid = np.frombuffer(acc.p_tid, dtype=np.int32).astype(np.int64) if len(acc.p_tid) else []
    p_tf = np.frombuffer(acc.p_tf, dtype=acc.tf_dtype).astype(np.int64) if len(acc.p_tf) else []
    p_rows = np.repeat(new_rows, np.frombuffer(acc.n_terms, dtype=np.int32)) if len(acc.n_terms) else []
    del acc
    # UTF-8 byte order is code point order: sort the str terms, encode each once
    local_bytes = [t.encode("utf-8") for t in local_terms]
    uniq_new = sorted(local_bytes)

    few = False  # the new postings are few beside the old: each is placed in its term's block (no whole-corpus keys)
    if old is None:
        blob, off = _vocab(uniq_new)
        n_terms = len(uniq_new)
        pos_of = {t: i for i, t in enumerate(uniq_new)}
        o_tid = o_rows = o_tf = d_rows = d_len = np.zeros(0, dtype=np.int64)
        o_lb = np.zeros(0, dtype=np.uint8)
    else:
        dead = distinct(deleted_rows)
        d_rows = np.asarray(old["doc_rows"], dtype=np.int64)
        dkeep = ~np.isin(d_rows, dead) if len(dead) else slice(None)
        o_blob, o_off = np.asarray(old["terms"]), np.asarray(old["term_off"])
        o_n = len(o_off) - 1
        o_ptr = np.asarray(old["ptr"], dtype=np.int64)
        few = len(p_tid) * FEW_SHARE <= int(o_ptr[-1])
        if few:
            raw = np.asarray(old["rows"])
            keep = ~np.isin(raw, dead) if len(dead) else None
            # (np.insert copies into new arrays: the mapped ones need no copy of their own)
            o_rows = raw[keep] if keep is not None else raw
            o_tf = np.asarray(old["tf"])[keep] if keep is not None else np.asarray(old["tf"])
            o_lb = np.asarray(old["lb"])[keep] if keep is not None else np.asarray(old["lb"])
            if keep is not None:
                kept = np.zeros(len(keep) + 1, dtype=np.int64)
                np.cumsum(keep, out=kept[1:])
                o_ptr = kept[o_ptr]
            o_tid = None
        else:
            o_rows = np.asarray(old["rows"], dtype=np.int64)
            keep = ~np.isin(o_rows, dead) if len(dead) else slice(None)
            o_tid = np.repeat(np.arange(o_n, dtype=np.int64), np.diff(o_ptr))[keep]
            o_rows = o_rows[keep]
            o_tf = np.asarray(old["tf"], dtype=np.int64)[keep]
            o_lb = np.asarray(old["lb"])[keep]
        d_rows, d_len = d_rows[dkeep], np.asarray(old["doc_len"], dtype=np.int64)[dkeep]
        if len(new_rows) and np.isin(new_rows, d_rows).any():
            raise ValueError("postings: a row is indexed twice")
        # place the new terms in the old sorted vocabulary
        found_at: dict[bytes, int] = {}
        fresh: list[tuple[int, bytes]] = []  # (insertion point in old vocab, term), sorted
        for t in uniq_new:
            at, ok = _bisect(o_blob, o_off, o_n, t)
            if ok:
                found_at[t] = at
            else:
                fresh.append((at, t))
        if fresh:
            ins = np.array([a for a, _t in fresh], dtype=np.int64)
            # merged id of old term i: i + new terms inserted at or before it
            o_remap = np.arange(o_n, dtype=np.int64) + np.searchsorted(ins, np.arange(o_n), side="right")
            if few:  # a new term's block starts where the old term it precedes starts, empty
                m_ptr = np.insert(o_ptr, ins, o_ptr[ins])
            else:
                o_tid = o_remap[o_tid]
            pos_of = {t: int(o_remap[a]) for t, a in found_at.items()}
            for j, (a, t) in enumerate(fresh):
                pos_of[t] = a + j
            o_lens = np.diff(o_off)
            lens = np.insert(o_lens, ins, [len(t) for _a, t in fresh])
            # the blob: old bytes with the new terms' bytes inserted at their byte offsets
            pieces, prev = [], 0
            for a, t in fresh:
                cut = int(o_off[a])
                pieces.append(o_blob[prev:cut])
                pieces.append(np.frombuffer(t, dtype=np.uint8))
                prev = cut
            pieces.append(o_blob[prev:])
            blob = np.concatenate(pieces)
            off = np.zeros(len(lens) + 1, dtype=np.int64)
            np.cumsum(lens, out=off[1:])
            n_terms = o_n + len(fresh)
        else:
            pos_of = found_at
            blob, off, n_terms = o_blob, o_off, o_n
            m_ptr = o_ptr

    local_to_id = np.fromiter((pos_of[b] for b in local_bytes), dtype=np.int64, count=len(local_bytes))
    n_tid = local_to_id[np.asarray(p_tid, dtype=np.int64)] if len(p_tid) else np.zeros(0, dtype=np.int64)
    n_prow = np.asarray(p_rows, dtype=np.int64)
    n_tf = np.asarray(p_tf, dtype=np.int64)
    if len(new_rows):
        by_row = np.argsort(new_rows, kind="stable")
        n_lb = _length_to_byte(new_len[by_row])[np.searchsorted(new_rows[by_row], n_prow)]
    else:
        n_lb = np.zeros(0, dtype=np.uint8)

    # merge the (term, row)-sorted old postings with the sorted new ones
    width = np.int64(max(int(o_rows.max(initial=-1)), int(n_prow.max(initial=-1))) + 1)
    n_key = n_tid * width + n_prow
    n_order = np.argsort(n_key, kind="stable")
    n_key, n_tid, n_prow, n_tf, n_lb = n_key[n_order], n_tid[n_order], n_prow[n_order], n_tf[n_order], n_lb[n_order]
    if few:
        # each new posting placed by a search in its own term's block of the old ones
        pos = np.empty(len(n_tid), dtype=np.int64)
        bounds = (np.flatnonzero(np.diff(n_tid)) + 1).tolist()
        for a, b in zip([0] + bounds, bounds + [len(n_tid)]) if len(n_tid) else ():
            t = int(n_tid[a])
            lo, hi = int(m_ptr[t]), int(m_ptr[t + 1])
            pos[a:b] = lo + np.searchsorted(o_rows[lo:hi], n_prow[a:b])
        prow = np.insert(o_rows, pos, n_prow.astype(o_rows.dtype))
        tf = np.insert(o_tf.astype(np.int32) if int(n_tf.max(initial=0)) > 0xFFFF and o_tf.dtype != np.int32 else o_tf,
                       pos, n_tf)
        lb = np.insert(o_lb, pos, n_lb.astype(np.uint8))
        counts = np.diff(m_ptr) + np.bincount(n_tid, minlength=n_terms)
        tid = None
    elif len(o_tid):
        at = np.searchsorted(o_tid * width + o_rows, n_key, side="left")
        tid = np.insert(o_tid, at, n_tid)
        prow = np.insert(o_rows, at, n_prow)
        tf = np.insert(o_tf, at, n_tf)
        lb = np.insert(o_lb, at, n_lb)
    else:
        tid, prow, tf, lb = n_tid, n_prow, n_tf, n_lb

    # prune terms left without postings, then ptr
    if tid is not None:
        counts = np.bincount(tid, minlength=n_terms)
    live = counts > 0
    if not live.all():
        lens = np.diff(off)
        blob = blob[np.repeat(live, lens)]
        lens = lens[live]
        off = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(lens, out=off[1:])
        counts = counts[live]
        n_terms = int(live.sum())
    ptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])

    d_rows = np.concatenate([d_rows, new_rows])
    d_len = np.concatenate([d_len, new_len])
    d_order = np.argsort(d_rows, kind="stable")
    d_rows, d_len = d_rows[d_order], d_len[d_order]
    tf_dtype = np.uint16 if int(tf.max(initial=0)) < 65535 else np.int32
    arrays = {
        "terms": np.ascontiguousarray(blob, dtype=np.uint8),
        "term_off": off,
        "ptr": ptr,
        "rows": prow.astype(np.int32),
        "tf": tf.astype(tf_dtype),
        "lb": np.asarray(lb, dtype=np.uint8),
        "doc_rows": d_rows,
        "doc_len": d_len.astype(np.int32),
    }
    meta = {"format": FORMAT, "docs": int(len(d_rows)), "total_length": int(d_len.sum()), "terms": n_terms, "postings": int(len(prow))}
    return arrays, meta


_CHUNK = 1 << 21  # postings placed per step of a fresh build


def _build_fresh(acc: Analysed, new_rows: np.ndarray, new_len: np.ndarray, local_terms: list[str]) -> tuple[dict, dict]:
    """``build`` from empty for spans added in ascending row order: the same arrays as the
    general merge, placed by a counting sort on term id (within a term, input order is row
    order), a few million postings at a time, so the build holds the compact postings and
    the output arrays but no whole-corpus int64 keys or permutations."""
    import numpy as np
    local_bytes = [t.encode("utf-8") for t in local_terms]
    del local_terms
    order = sorted(range(len(local_bytes)), key=local_bytes.__getitem__)
    blob, off = _vocab([local_bytes[i] for i in order])
    n_terms = len(local_bytes)
    del local_bytes
    local_to_id = np.empty(n_terms, dtype=np.int32)
    local_to_id[np.asarray(order, dtype=np.int64)] = np.arange(n_terms, dtype=np.int32)
    del order
    p_tid = np.frombuffer(acc.p_tid, dtype=np.int32) if len(acc.p_tid) else np.zeros(0, dtype=np.int32)
    p_tf = np.frombuffer(acc.p_tf, dtype=acc.tf_dtype) if len(acc.p_tf) else np.zeros(0, dtype=np.int32)
    n_per = np.frombuffer(acc.n_terms, dtype=np.int32) if len(acc.n_terms) else np.zeros(0, dtype=np.int32)
    n_post = len(p_tid)
    counts = np.zeros(n_terms, dtype=np.int64)
    for a in range(0, n_post, _CHUNK):
        counts += np.bincount(local_to_id[p_tid[a : a + _CHUNK]], minlength=n_terms)
    ptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    tf_dtype = np.uint16 if int(p_tf.max(initial=0)) < 65535 else np.int32
    out_rows = np.empty(n_post, dtype=np.int32)
    out_tf = np.empty(n_post, dtype=tf_dtype)
    out_lb = np.empty(n_post, dtype=np.uint8)
    doc_lb = _length_to_byte(new_len)
    doc_end = np.cumsum(n_per, dtype=np.int64)  # postings of span i end at doc_end[i]
    cursor = ptr[:-1].copy()
    d0, a = 0, 0
    while a < n_post:
        # whole spans, about _CHUNK postings
        d1 = max(int(np.searchsorted(doc_end, a + _CHUNK, side="right")), d0 + 1)
        b = int(doc_end[d1 - 1])
        t = local_to_id[p_tid[a:b]]
        by_t = np.argsort(t, kind="stable")
        ts = t[by_t]
        dest = cursor[ts] + (np.arange(len(ts), dtype=np.int64) - np.searchsorted(ts, ts, side="left"))
        out_rows[dest] = np.repeat(new_rows[d0:d1], n_per[d0:d1])[by_t]
        out_tf[dest] = p_tf[a:b][by_t]
        out_lb[dest] = np.repeat(doc_lb[d0:d1], n_per[d0:d1])[by_t]
        cursor += np.bincount(t, minlength=n_terms)
        d0, a = d1, b
    arrays = {
        "terms": np.ascontiguousarray(blob, dtype=np.uint8),
        "term_off": off,
        "ptr": ptr,
        "rows": out_rows,
        "tf": out_tf,
        "lb": out_lb,
        "doc_rows": new_rows,
        "doc_len": new_len.astype(np.int32),
    }
    meta = {"format": FORMAT, "docs": int(len(new_rows)), "total_length": int(new_len.sum()), "terms": n_terms, "postings": int(n_post)}
    return arrays, meta


# ---------------------------------------------------------------------------- search


class _Part:
    """One segment's arrays as the search reads them, and the rows of it no longer live."""

    def __init__(self, arrays: dict, meta: dict, dead):
        self.blob, self.off, self.ptr = arrays["terms"], arrays["term_off"], arrays["ptr"]
        self.rows, self.tf, self.lb = arrays["rows"], arrays["tf"], arrays["lb"]
        self.n_terms = int(meta["terms"])
        self.max_row = int(arrays["doc_rows"][-1]) if int(meta["docs"]) else -1
        self.dead = dead if dead is not None and len(dead) else None

    def postings(self, term: bytes):
        """(rows, tf, lb) of ``term``'s live postings here, or None."""
        import numpy as np
        at, ok = _bisect(self.blob, self.off, self.n_terms, term)
        if not ok:
            return None
        lo, hi = int(self.ptr[at]), int(self.ptr[at + 1])
        if hi <= lo:
            return None
        rows, tf, lb = self.rows[lo:hi], self.tf[lo:hi], self.lb[lo:hi]
        if self.dead is not None:
            live = ~np.isin(rows, self.dead)
            if not live.all():
                rows, tf, lb = rows[live], tf[live], lb[live]
        return (rows, tf, lb) if len(rows) else None


class Postings:
    """Memory-mapped arrays of one generation (the main arrays and, when written, the delta
    segment), and BM25 over their live postings."""

    def __init__(self, directory: Path, *, k1: float, b: float):
        seg = _Segments.load(directory, mmap=True)
        self.k1, self.b = k1, b
        self._parts = [_Part(seg.main, seg.meta, seg.dead)]
        self.n_docs = int(seg.meta["docs"])
        self._total = int(seg.meta["total_length"])
        if seg.delta is not None:
            self._parts.append(_Part(seg.delta, seg.delta_meta, None))
            self.n_docs += int(seg.delta_meta["docs"]) - int(seg.delta_meta["dead"])
            self._total += int(seg.delta_meta["total_length"]) - int(seg.delta_meta["dead_length"])
        self._b2l = _byte_to_length()
        self._max_row = max(p.max_row for p in self._parts)

    def _found(self, term: str) -> list:
        key = term.encode("utf-8")
        return [f for f in (p.postings(key) for p in self._parts) if f is not None]

    def idf(self, term: str) -> float:
        """BM25's inverse document frequency of an analysed term (an absent term counts as
        the rarest: ``log(N) + 1``)."""
        df = sum(len(rows) for rows, _tf, _lb in self._found(term))
        return math.log(max(self.n_docs, 1) / (df + 1)) + 1

    def search_terms(self, terms: list[str], limit: int) -> list[tuple[int, float, tuple[str, ...]]]:
        """BM25 of the OR of ``terms`` (analysed, distinct); top ``limit`` as
        (row, score, matched terms), by score desc then row asc."""
        import numpy as np
        if not terms or self.n_docs == 0 or limit <= 0:
            return []
        n = self.n_docs
        avgfl = (self._total / n) or 1
        k1, b = self.k1, self.b
        found: list[tuple[str, list]] = []
        parts_rows, parts_scores = [], []
        for term in terms:
            parts = self._found(term)
            if not parts:
                continue
            idf = math.log(n / (sum(len(rows) for rows, _tf, _lb in parts) + 1)) + 1
            for rows, tf, lb in parts:  # a row is live in one part only: its sum keeps the terms' order
                tf = tf.astype(np.float64)
                fl = self._b2l[lb]
                # the same operations, in the same order, as whoosh.scoring.bm25
                parts_scores.append(idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl))))
                parts_rows.append(rows)
            found.append((term, [rows for rows, _tf, _lb in parts]))
        if not found:
            return []
        all_rows = np.concatenate(parts_rows) if len(parts_rows) > 1 else np.asarray(parts_rows[0])
        acc = np.bincount(all_rows, weights=np.concatenate(parts_scores), minlength=self._max_row + 1)
        cand = np.flatnonzero(acc)
        sc = acc[cand]
        if len(cand) > limit:
            kth = np.partition(sc, len(cand) - limit)[len(cand) - limit]
            keep = sc >= kth
            cand, sc = cand[keep], sc[keep]
        order = np.lexsort((cand, -sc))[:limit]
        top, top_sc = cand[order], sc[order]
        matched: list[list[str]] = [[] for _ in range(len(top))]
        for term, row_parts in found:
            for rows in row_parts:
                pos = np.searchsorted(rows, top)
                ok = pos < len(rows)
                ok[ok] = rows[pos[ok]] == top[ok]
                for i in np.flatnonzero(ok).tolist():
                    matched[i].append(term)
        return [(int(r), float(s), tuple(sorted(m))) for r, s, m in zip(top.tolist(), top_sc.tolist(), matched)]


def query_terms(qtext: str) -> list[str] | None:
    """The distinct analysed terms of a query string built by ``lexical._quote``, as
    Whoosh's QueryParser with OrGroup reads it, or None when numpy cannot answer it
    exactly (a phrase, an operator word)."""
    if '"' in qtext:
        return None
    words = qtext.split()
    if any(w in OPERATOR_WORDS for w in words):
        return None
    ana = analyzer()
    out: dict[str, None] = {}
    for w in words:
        for t in ana.terms(w):
            out[t] = None
    return list(out)

