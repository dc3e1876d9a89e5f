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

Scores replicate Whoosh's ``BM25F`` on one field exactly: ``idf = log(N / (df + 1)) + 1``,
``avgfl = total length / N``, the document length decoded from its byte
(``whoosh.util.numeric.byte_to_length``) and ``idf * tf*(K1+1) / (tf + K1*(1-B+B*fl/avgfl))``
summed over the query terms. One difference, on purpose: Whoosh counts deleted documents
in N, df and the total length until a merge rewrites the segment, so its scores drift
after incremental updates; these arrays hold live spans only, so an incrementally updated
generation equals a full rebuild (on a freshly built index the two agree to ~1e-12).

A new generation is derived from the previous one: postings of deleted rows are masked
out, the new spans' postings are merged in (their term ids and (term, row) order found
with ``searchsorted``, no global re-sort), so a one-file re-index costs a few
memory-speed passes over the arrays, not a re-analysis of the corpus.
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
    if meta.get("format") != FORMAT:
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
    of spans indexed."""
    import numpy as np
    old = None
    if previous is not None:
        try:
            old, _meta = load_arrays(previous, mmap=True)
        except (OSError, ValueError, KeyError):
            if all_docs is None:
                raise
            old = None
            add = all_docs()
    acc = add if isinstance(add, Analysed) else Analysed().extend(add)
    rows = np.frombuffer(acc.rows, dtype=np.int64) if len(acc.rows) else np.zeros(0, dtype=np.int64)
    new_rows = rows.copy()
    new_len = np.frombuffer(acc.lengths, dtype=np.int64).copy() if len(acc.lengths) else np.zeros(0, dtype=np.int64)
    local_terms = list(acc.ids)
    if len(np.unique(new_rows)) != len(new_rows):
        raise ValueError("postings: a row is added twice")
    if old is None and (len(new_rows) < 2 or bool(np.all(np.diff(new_rows) > 0))):
        return _build_fresh(directory, acc, new_rows, new_len, local_terms)
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
        dead = np.unique(np.fromiter((int(r) for r in deleted_rows), dtype=np.int64))
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
    _save(directory, arrays, meta)
    return int(len(d_rows))


_CHUNK = 1 << 21  # postings placed per step of a fresh build


def _build_fresh(directory: Path, acc: Analysed, new_rows: np.ndarray, new_len: np.ndarray, local_terms: list[str]) -> int:
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
    _save(directory, arrays, meta)
    return int(len(new_rows))


# ---------------------------------------------------------------------------- search


class Postings:
    """Memory-mapped arrays of one generation, and BM25 over them."""

    def __init__(self, directory: Path, *, k1: float, b: float):
        self.arrays, self.meta = load_arrays(directory, mmap=True)
        self.k1, self.b = k1, b
        self.n_docs = int(self.meta["docs"])
        self._total = int(self.meta["total_length"])
        self._b2l = _byte_to_length()
        a = self.arrays
        self._blob = a["terms"]
        self._off = a["term_off"]
        self._ptr = a["ptr"]
        self._n_terms = int(self.meta["terms"])
        self._max_row = int(a["doc_rows"][-1]) if self.n_docs else -1

    def term_id(self, term: str) -> int:
        """Binary search of the sorted term bytes; -1 if absent."""
        at, ok = _bisect(self._blob, self._off, self._n_terms, term.encode("utf-8"))
        return at if ok else -1

    def idf(self, term: str) -> float:
        """BM25's inverse document frequency of an analysed term (an absent term counts as
        the rarest: ``log(N) + 1``)."""
        t = self.term_id(term)
        df = int(self._ptr[t + 1] - self._ptr[t]) if t >= 0 else 0
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
        a = self.arrays
        found: list[tuple[str, np.ndarray]] = []
        parts_rows, parts_scores = [], []
        for term in terms:
            t = self.term_id(term)
            if t < 0:
                continue
            lo, hi = int(self._ptr[t]), int(self._ptr[t + 1])
            if hi <= lo:
                continue
            rows = a["rows"][lo:hi]
            tf = a["tf"][lo:hi].astype(np.float64)
            fl = self._b2l[a["lb"][lo:hi]]
            idf = math.log(n / ((hi - lo) + 1)) + 1
            # the same operations, in the same order, as whoosh.scoring.bm25
            s = idf * ((tf * (k1 + 1)) / (tf + k1 * ((1 - b) + b * fl / avgfl)))
            found.append((term, rows))
            parts_rows.append(rows)
            parts_scores.append(s)
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
        for term, rows in found:
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

