"""Read side of the index: one generation, opened once, shared by every query.

``IndexReader`` reads ``CURRENT`` once and opens only that generation, so a concurrent
``orion index`` can never change what a running compile sees. The query embedder starts
loading in a background thread as soon as the reader opens (``oriongraph_cli.store.prefetch``;
onnxruntime releases the GIL), overlapping the model load with opening the other indices
— or earlier, when the CLI already started it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import numpy as np

from oriongraph_cli.blocks import Blocks, heading_label, heading_labels
from oriongraph_cli.config import Config
from oriongraph_cli.errors import NoIndexError, OrionError, index_command
from oriongraph_cli.models import SourceType, SpanMetadata, SpanRef
from oriongraph_cli.store.layout import (
    MANIFEST,
    Layout,
    hold_generation,
    release_generation,
)
from oriongraph_cli.store.manifest import Manifest


@dataclass(frozen=True)
class SpanRow:
    row: int
    ref: SpanRef
    meta: SpanMetadata
    ordinal: int
    heading_path: tuple[str, ...]
    text: str
    front_matter_json: str  # the document's front matter as stored (decoded on first use)

    @cached_property
    def front_matter(self) -> dict[str, Any]:
        """The document's front matter (only ``--where`` filters read it)."""
        return json.loads(self.front_matter_json)


class IndexReader:
    def __init__(self, cfg: Config, *, load_embedder: bool = True):
        from oriongraph_cli.store.registry import Registry

        self.cfg = cfg
        self.layout = Layout(cfg.index_dir)
        if not self.layout.exists():
            raise NoIndexError(f"no index in {cfg.index_dir}", hint=f"run `{index_command(cfg.root)}` first")
        self._hold = None
        for _attempt in range(3):  # a writer may remove an old generation between the two steps
            self.path = self.layout.current_path()
            self._hold = hold_generation(self.path)  # keeps `orion index` cleanup off this generation
            if (self.path / MANIFEST).is_file():
                break
            release_generation(self._hold)
        self.generation = self.path.name
        try:
            # a generation never changes once complete: the manifest read to verify it serves
            self.manifest = self.layout.manifests.get(self.generation) or Manifest.load(self.path)
            self.registry = Registry.open(self.path / "registry.sqlite")
            self.registry.conn.execute("SELECT count(*) FROM documents").fetchone()
        except (OSError, ValueError, sqlite3.Error) as exc:
            release_generation(self._hold)
            raise NoIndexError(
                f"index generation {self.generation} is unreadable ({exc.__class__.__name__}: {exc})",
                hint=f"run `{index_command(cfg.root)}` to repair it",
            ) from None
        self._embedder = None
        self._embedder_error: BaseException | None = None
        self._embedder_lock = threading.Lock()
        self._rows: dict[int, SpanRow] = {}
        self._span_ids: dict[int, str] = {}
        self._memo: dict[str, Any] = {}
        self._memo_lock = threading.Lock()
        # repeated intents (``orion eval --tune`` compiles each intent under many settings):
        # when a dict, intent embeddings and generator hits are kept here by intent and filters
        self.repeat_cache: dict | None = None
        if load_embedder:
            from oriongraph_cli.store import prefetch

            prefetch.start(cfg)  # a no-op when the CLI already started this model's load

    # ------------------------------------------------------------ embedder
    @property
    def embedder(self):
        """The query embedder: the prefetched load (waited for) or, without one, a load now.
        A failure (or a model other than the index's) is raised here, on every use."""
        with self._embedder_lock:
            if self._embedder is None and self._embedder_error is None:
                from oriongraph_cli.store import prefetch
                from oriongraph_cli.store.embed import load_embedder

                try:
                    emb = prefetch.take(self.cfg) or load_embedder(self.cfg, "query")
                    if emb.model_id != self.manifest.model_id:
                        raise OrionError(
                            f"the index was built with {self.manifest.model_id!r} but the configured model is {emb.model_id!r}",
                            hint="run `orion index` to re-embed with the configured model, or restore the previous model setting",
                        )
                    self._embedder = emb
                except BaseException as exc:
                    self._embedder_error = exc
        if self._embedder_error is not None:
            raise self._embedder_error
        return self._embedder

    def embed_query(self, text: str) -> np.ndarray:
        cache = self.repeat_cache
        if cache is not None and ("embed", text) in cache:
            return cache[("embed", text)]
        vec = self.embedder.embed([text])[0]
        if cache is not None:
            cache[("embed", text)] = vec
        return vec

    # ------------------------------------------------------------ indices
    @cached_property
    def lexical(self):
        from oriongraph_cli.store.lexical import LexicalIndex
        from oriongraph_cli.store.postings import DIR

        return LexicalIndex(self.path / "lexical", self.path / DIR)  # numpy BM25 when the arrays exist

    @cached_property
    def vectors(self):
        from oriongraph_cli.store.vectors import VectorIndex

        return VectorIndex(self.path, threads=self.cfg.threads("query"))  # segments, or the one-file layout

    @cached_property
    def documents(self) -> list[dict[str, Any]]:
        """Every document's registry row as a dict, ``tags`` decoded. The front matter
        (``meta``) stays JSON text: nothing on the compile path reads it, and decoding 5k
        of them was ~15 ms of every fresh compile."""
        out = []
        loads = json.loads
        for r in self.registry.documents():
            d = dict(r)
            d["tags"] = loads(d["tags"])
            out.append(d)
        return out

    def paths_with_id(self, doc_id: str) -> list[str]:
        """The paths of the documents whose front matter ``id`` is ``doc_id`` (any case), else
        of those whose file name or title gives it (``adr-040-….md``, "MSC2290: …" in
        ``2290-….md``): the ids the lookup tables list under ``by_key``, as an intent's id hint
        and the link graph read them."""
        key = doc_id.strip().lower()
        look = self.lookups
        rows = set(look.by_key.get(key, ()))
        docs = look.documents
        hits = [(path, (own or "").lower() == key) for row, path, own in zip(docs["id"], docs["path"], docs["doc_key"]) if row in rows]
        return [path for path, own in hits if own] or [path for path, _own in hits]

    @cached_property
    def lookups(self):
        """The generation's lookup tables (``store/lookups.py``): read from the file written
        with the generation, or built from the registry when it has none."""
        from oriongraph_cli.store import lookups

        return lookups.load(self.path) or lookups.build(self.registry)

    @cached_property
    def span_counts(self) -> dict[str, int]:
        """path -> the document's number of spans (document evidence: a short document is
        not penalised for having few places to match)."""
        return self.lookups.span_counts

    @cached_property
    def span_outline(self) -> list[tuple[int, int, int, tuple[str, ...]]]:
        """(row, document id, ordinal, heading path) of every span, for structural matching."""
        parsed: dict[str, tuple[str, ...]] = {}  # spans of a document share heading paths: parse each once
        out = []
        for row, doc, ordinal, raw in self._outline_rows():
            hp = parsed.get(raw)
            if hp is None:
                hp = parsed[raw] = tuple(json.loads(raw))
            out.append((row, doc, ordinal, hp))
        return out

    def _outline_rows(self):
        try:
            return self.registry.outline()
        except sqlite3.OperationalError:  # a generation built before the covering index existed
            return self.registry.conn.execute("SELECT id, doc, ordinal, heading_path FROM spans ORDER BY id")

    @cached_property
    def workstreams(self) -> set[str]:
        return self.lookups.workstreams

    @cached_property
    def tags(self) -> set[str]:
        return self.lookups.tags

    def memo(self, key: str, factory):
        """A value derived from this generation, built once (thread-safe) and kept while
        the reader is open — e.g. a generator's lookup tables."""
        with self._memo_lock:
            if key not in self._memo:
                self._memo[key] = factory()
            return self._memo[key]

    # ------------------------------------------------------------ rows
    def rows(self, rows: list[int]) -> dict[int, SpanRow]:
        missing = [r for r in rows if r not in self._rows]
        for rec in self.registry.iter_span_rows(missing):
            self._rows[rec["id"]] = _span_row(rec)
        return {r: self._rows[r] for r in rows if r in self._rows}

    def span_ids(self, rows: list[int]) -> dict[int, str]:
        """row -> span_id of ``rows`` (the stable, content-derived name that breaks score ties:
        registry rows differ between an updated index and a rebuilt one)."""
        known = self._span_ids
        missing = [r for r in rows if r not in known]
        if missing:
            for r in missing:
                cached = self._rows.get(r)
                if cached is not None:
                    known[r] = cached.ref.span_id
            missing = [r for r in missing if r not in known]
            if missing:
                known.update(self.registry.span_ids_of_rows(missing))
        return {r: known[r] for r in rows if r in known}

    def blocks_of(self, paths) -> dict[str, Blocks]:
        """Path -> the headings, code blocks and tables the index kept for it (notes with
        fenced code or a table; ``Registry.blocks_of``), read once per reader."""
        cache = self.__dict__.setdefault("_blocks", {})
        missing = [p for p in paths if p not in cache]
        if missing:
            found = self.registry.blocks_of(missing)
            cache.update({p: Blocks.from_json(found[p]) if p in found else None for p in missing})
        return {p: cache[p] for p in paths if cache[p] is not None}

    def link_targets(self, paths) -> dict[str, dict[str, str]]:
        """Per document of ``paths``: each resolved link's target as written -> the indexed
        document it names (``GraphStore.link_targets``)."""
        return self.registry.graph.link_targets(paths)

    def info(self) -> dict[str, Any]:
        return {
            "generation": self.generation,
            "model": self.manifest.model_id,
            "tokenizer": self.manifest.tokenizer,
            "documents": self.manifest.counts.documents,
            "spans": self.manifest.counts.spans,
        }

    def close(self) -> None:
        self.registry.close()
        if "lexical" in self.__dict__:
            self.lexical.close()
        release_generation(self._hold)
        self._hold = None


def _span_row(rec) -> SpanRow:
    heading_path = _json_tuple(rec["heading_path"])
    # SpanMetadata(...) and SpanRef(...) without re-running the frozen dataclasses' __init__
    meta = _new(SpanMetadata)
    meta.__dict__.update(
        _META_DEFAULTS,
        filepath=rec["path"],
        source_type=SourceType(rec["source_type"]),
        workstream=rec["workstream"],
        stage=rec["stage"],
        section_title=" > ".join(heading_labels(heading_path)) or None,
        created_at=int(rec["created_at"] or 0),
        title=heading_label(rec["title"]) if rec["title"] else rec["title"],
        doc_id=rec["doc_key"],
        tags=_json_tuple(rec["tags"]),
        status=rec["status"],
        priority=rec["priority"],
    )
    ref = _new(SpanRef)
    ref.__dict__.update(doc_version_id=rec["doc_version_id"], span_id=rec["span_id"], char_start=rec["char_start"],
                        char_end=rec["char_end"], token_cost=rec["token_cost"], line_start=rec["line_start"],
                        line_end=rec["line_end"])
    return SpanRow(rec["id"], ref, meta, rec["ordinal"], heading_path, rec["text"], rec["meta"])


_new = object.__new__
_META_DEFAULTS = {name: f.default for name, f in SpanMetadata.__dataclass_fields__.items()}


@lru_cache(maxsize=1 << 14)
def _json_tuple(raw: str) -> tuple:
    """A stored JSON list (heading path, tags) as a tuple; spans of one document share them."""
    return tuple(json.loads(raw))
