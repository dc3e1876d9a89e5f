"""Writing one generation into its staging directory: the registry (started as a copy of
the generation it builds on), the lexical indices (Whoosh and the numpy BM25 postings),
the vector store (segments linked from the generation it builds on, plus one new segment)
and, last, the manifest with the checksums every reader verifies.
``Layout.promote`` then makes it current. Reads of an earlier generation the indexer
needs (cached vectors, recorded dangling links) are here too.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from oriongraph_cli.errors import OrionError
from oriongraph_cli.models import page_summary
from oriongraph_cli.store import lexical, lookups, postings, vectors
from oriongraph_cli.store.layout import atomic_write, file_checksums
from oriongraph_cli.store.manifest import MANIFEST, Manifest
from oriongraph_cli.store.registry import Registry

REGISTRY = "registry.sqlite"


class VectorCache:
    """The vectors an earlier generation holds, by embed-text hash: looked up in its vector
    store by the rows its registry names (or, in an index of the one-file layout, read from
    the registry's ``vector`` column). Open for a run; :meth:`get` is asked chunk by chunk."""

    def __init__(self, gen_path: Path):
        self.registry = Registry.open(gen_path / REGISTRY)
        self.store = vectors.VectorIndex(gen_path, threads=0) if vectors.has_segments(gen_path) else None

    def get(self, hashes: Iterable[str]) -> dict[str, bytes]:
        if self.store is None:
            return self.registry.vectors_by_hash(hashes)
        rows = self.registry.rows_by_hash(hashes)
        if not rows:
            return {}
        found = self.store.vectors(list(rows.values()))
        return {h: found[i].tobytes() for i, h in enumerate(rows)}

    def close(self) -> None:
        self.registry.close()


def held_hashes(gen_path: Path, hashes: Iterable[str]) -> set[str]:
    """Which of these embed-text hashes generation ``gen_path`` holds a vector for, asked
    of its registry alone (every span row of a segmented index has its vector), without
    reading a vector."""
    reg = Registry.open(gen_path / REGISTRY)
    try:
        if vectors.has_segments(gen_path):
            return set(reg.rows_by_hash(hashes))
        return set(reg.vectors_by_hash(hashes))  # an index of the one-file layout
    finally:
        reg.close()


def stored_dangling(gen_path: Path) -> list[tuple]:
    """(path, line, target, kind) of the dangling links generation ``gen_path`` recorded
    ([] for one built before the link graph existed)."""
    reg = Registry.open(gen_path / REGISTRY)
    try:
        return reg.graph.dangling() if reg.graph.has_tables() else []
    finally:
        reg.close()


def lexical_doc(row, hp, text, path, title, tags, stage, ws, st, span_id, ordinal, meta) -> lexical.LexicalDoc:
    return lexical.LexicalDoc(
        row=row, span_id=span_id, path=path, title=title, headings=" / ".join(json.loads(hp)), body=text,
        tags=tuple(json.loads(tags)), stage=stage, workstream=ws, source_type=st,
        summary=page_summary(json.loads(meta)) if ordinal == 0 else "",
    )


def all_lexical_texts(registry: Registry) -> list[tuple[int, str]]:
    """(row, lexical text) of every span in ``registry``, as the lexical indices take them."""
    return [(r[0], lexical.lexical_text(lexical_doc(*r))) for r in registry.lexical_rows()]


class GenerationWriter:
    """One generation being built in ``staging`` on top of ``base`` (None: from empty).
    The caller fills ``registry`` (documents, spans, graph) and commits it, then calls
    :meth:`write_lexical`, :meth:`write_vectors`, :meth:`write_lookups`, :meth:`close` and
    :meth:`write_manifest`."""

    def __init__(self, staging: Path, base: Path | None, vector_index: str = "auto", base_manifest: Manifest | None = None):
        self.staging = staging
        self.base = base
        self.base_manifest = base_manifest  # ``base``'s manifest when the caller has read it
        if base is not None and not vectors.has_segments(base):
            # not reached: an index of the one-file layout has an older schema, so it is rebuilt
            raise OrionError(f"{base} holds no vector segments to build on", hint="run `orion index --full` to rebuild the index")
        self.registry = Registry.create(staging / REGISTRY, copy_from=base / REGISTRY if base else None)
        self.registry.graph.create_tables()
        # the base's vector segments are hard-linked, not copied; this generation's new
        # vectors stream into one new segment named after it
        self.vectors = vectors.SegmentWriter(staging, base, staging.name.split(".")[0], vector_index)
        self._lexical = self._postings = -1

    def all_lexical_texts(self) -> list[tuple[int, str]]:
        return all_lexical_texts(self.registry)

    def write_lexical(self, docs: Callable[[], Iterable[lexical.LexicalDoc]], gone_paths: list[str], deleted_rows: list[int]) -> None:
        """Whoosh and the BM25 postings: the base generation's, without ``gone_paths`` /
        ``deleted_rows``, plus the spans ``docs()`` yields — read twice, one index at a
        time: the postings analysed into compact arrays, built, written and let go before
        Whoosh starts, so a build holds one index's working memory, not both (a whole build
        of 1M spans peaked at 3.1 GB when Whoosh's pool and the postings' arrays were held
        together)."""
        added = postings.Analysed().extend((d.row, lexical.lexical_text(d)) for d in docs())
        self._postings = postings.build(
            self.staging / postings.DIR, self.base / postings.DIR if self.base else None, deleted_rows,
            added, all_docs=self.all_lexical_texts,
        )
        adding = len(added)
        del added
        self._lexical = lexical.build(self.staging / "lexical", self.base / "lexical" if self.base else None, gone_paths, docs(), adding)

    def write_vectors(self, dim: int) -> dict[str, int]:
        """Finish the vector store (new segment, deletion list, merges, IVF indexes);
        returns the registry's counts after checking that every index holds every span."""
        vec_count = self.vectors.finish(dim)
        counts = self.registry.counts()
        if not (counts["spans"] == self._lexical == vec_count == self._postings):
            raise OrionError(
                f"index build inconsistent: registry {counts['spans']} spans, lexical {self._lexical}, "
                f"bm25 postings {self._postings}, vectors {vec_count}",
                hint="run `orion index --full`; please report this",
            )
        return counts

    def write_lookups(self, changed_paths: list[str] | None = None, *, keep: bool = False) -> None:
        """The lookup tables readers load at open (``store/lookups.py``) of the committed
        registry: the base generation's updated for the documents at ``changed_paths``
        (changed or removed) when it has them, else built from the whole registry. Call
        before :meth:`write_manifest`, whose checksums then cover them. ``keep``: this
        process indexes again: the tables written are kept for its next run
        (``lookups.keep_written``), and the base's taken from the last run's when they are
        its bytes."""
        tables = None
        if self.base is not None and changed_paths is not None:
            old = lookups.load(self.base, take_kept=keep)
            if old is not None:
                base = Registry.open(self.base / REGISTRY)
                try:
                    old_headings = base.subsection_spans_at(changed_paths)
                finally:
                    base.close()
                tables = lookups.update(old, self.registry, changed_paths, old_headings)
        if tables is None:
            tables = lookups.build(self.registry)
        data = tables.to_bytes()
        atomic_write(self.staging / lookups.FILE, data)
        if keep:
            lookups.keep_written(data, tables)

    def close(self) -> None:
        self.vectors.abort()
        self.registry.close()

    def write_manifest(self, manifest: Manifest) -> Manifest:
        """The manifest, with the checksums of every file written (call after :meth:`close`).
        Files linked from the base generation (its Whoosh and vector segments, verified byte
        for byte before this build started) keep its checksums instead of being read again:
        hashing them again made every generation O(every vector)."""
        base_checksums = self.base_manifest.checksums if self.base_manifest is not None else None
        if self.base is not None and base_checksums is None:
            try:
                base_checksums = Manifest.load(self.base).checksums
            except (OSError, ValueError):
                base_checksums = None
        checksums = file_checksums(self.staging, self.base, base_checksums)
        manifest = replace(manifest, checksums=checksums)  # verified by every reader (Layout.problem)
        data = manifest.to_bytes()
        atomic_write(self.staging / MANIFEST, data)
        manifest.written_as(data)
        return manifest
