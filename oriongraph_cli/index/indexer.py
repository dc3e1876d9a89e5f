"""`orion index`: walk -> parse -> span -> registry, lexical and semantic indices, as a new generation.

Incremental by content hash: a document whose bytes did not change is carried over
(rows, Whoosh postings, vectors); a changed document is re-split and only spans whose
embedding text is new are embedded (vectors are cached by a hash of model id + text, so
renames and unchanged sections cost nothing).
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Iterator, Protocol

from oriongraph_cli import __version__
from oriongraph_cli.config import Config
from oriongraph_cli.errors import StrictError
from oriongraph_cli import graph
from oriongraph_cli.repository import OwnRepository
from oriongraph_cli.blocks import has_fence_before, has_table_before, read_blocks, syntax_of
from oriongraph_cli.index import parse as doc_parse
from oriongraph_cli.index.history import git_times
from oriongraph_cli.index.parse import ParseWarning, parse_document, read_note
from oriongraph_cli.index.rebuild import other_files_changed, rebuild_reason, relink_reason
from oriongraph_cli.index.remotes import own_repository
from oriongraph_cli.index.span import embed_text, split_document
from oriongraph_cli.index.spool import ParsedSpool, TextSpool
from oriongraph_cli.index.walk import FoundFile, OtherFiles, check_project, walk
from oriongraph_cli.safeio import stat_key, unchanged_since
from oriongraph_cli.store.layout import Layout
from oriongraph_cli.store.manifest import INDEX_SCHEMA_VERSION, Counts, Manifest
from oriongraph_cli.store.registry import ID_LENGTH_MIN
from oriongraph_cli.tokens import expected_name, get_counter

__all__ = ["INDEX_SCHEMA_VERSION", "IndexResult", "Progress", "index_project", "git_times", "embed_hash"]


class Progress(Protocol):
    def phase(self, name: str, total: int | None) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class _NoProgress:
    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass


@dataclass
class IndexResult:
    root: str
    generation: str | None
    previous_generation: str | None
    documents: int = 0
    spans: int = 0
    tokens: int = 0
    embedded_spans: int = 0
    reused_vectors: int = 0
    added_documents: int = 0
    updated_documents: int = 0
    removed_documents: int = 0
    unchanged_documents: int = 0
    skipped_files: int = 0
    kept_previous: int = 0
    edges: int = 0
    graph_ms: float = 0.0
    nothing_changed: bool = False
    rebuild_reason: str | None = None
    repaired: str | None = None  # a damaged generation was found and rebuilt
    relinked: str | None = None  # why every stored reference was resolved again (the link rules changed)
    other_files_changed: bool = False  # files other than notes were added or removed: the links to files looked up again
    dangling_links: int = 0  # the index's dangling links after this run; warned: those new or in a file it indexed
    model: str = ""
    tokenizer: str = ""
    warnings: list[dict[str, Any]] = field(default_factory=list)
    elapsed_ms: float = 0.0

    def warning_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for w in self.warnings:
            counts[w["kind"]] = counts.get(w["kind"], 0) + 1
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict[str, Any]:
        from oriongraph_cli.models import SCHEMA_VERSION

        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["warning_counts"] = self.warning_counts()
        d["elapsed_ms"] = round(self.elapsed_ms, 1)
        return {"schema_version": SCHEMA_VERSION, "kind": "index", "index_schema_version": INDEX_SCHEMA_VERSION, **d}


def load_manifest(gen_path: Path) -> Manifest:
    return Manifest.load(gen_path)


def embed_hash(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\x00{text}".encode()).hexdigest()


def index_project(cfg: Config, *, full: bool = False, strict: bool = False, progress: Progress | None = None, on_wait=None,
                  embedder_source=None, admit=None) -> IndexResult:
    """``on_wait(pid or None)``: called once when another writer holds the lock.
    ``embedder_source(cfg)``: the index model (default: loaded for this run; a process that
    indexes many times passes a ``store.embed.KeptEmbedder``). ``admit(Planned)``: called
    once the run knows what it will do, before it parses, embeds or writes anything; an
    exception raised there ends the run with the index as it was."""
    from oriongraph_cli.store.model import resolve_model  # not store.embed: a run that embeds nothing imports no numpy

    started = time.perf_counter()
    progress = progress or _NoProgress()
    root = cfg.root
    layout = Layout(cfg.index_dir)
    check_project(root)
    # once something changed (or --full), the tokenizer (~0.2 s) and the model (~0.3 s) load
    # in the background while files are hashed and parsed; a run that changes nothing
    # loads neither
    loader = ThreadPoolExecutor(max_workers=2, thread_name_prefix="orion-load")
    counter_future = loader.submit(get_counter, cfg.tokenizer) if full else None
    spec = resolve_model(cfg)

    try:
        return _index_locked(cfg, layout, spec, loader, counter_future, full, strict, progress, started, on_wait,
                             embedder_source or _load_index_embedder, admit)
    finally:
        loader.shutdown(wait=False, cancel_futures=True)


@dataclass
class _Scan:
    """What reading the project found: the content of every file read, the version
    (sha256) and stat key of every readable file, and what was left unread because its
    stat matched the previous run."""

    manifest: Manifest | None
    contents: dict[str, tuple[FoundFile, bytes, str, float]] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    stats: dict[str, list[int]] = field(default_factory=dict)
    unread: list[FoundFile] = field(default_factory=list)
    warnings: list = field(default_factory=list)
    embedder_future: Any = None
    counter_future: Any = None
    embedder_source: Any = None  # cfg -> the index model (index_project's embedder_source)

    @property
    def prev_files(self) -> dict[str, str]:
        return self.manifest.files if self.manifest else {}


@dataclass
class _Changes:
    """What this run rebuilds or re-indexes, decided from a scan."""

    reason: str | None  # why everything is rebuilt (None: incremental)
    changed: list[str]
    removed: list[str]
    kept: set[str]  # unreadable now, previous version kept
    carry_kept: bool  # a --full rebuild that still starts from the current registry


@dataclass(frozen=True)
class Planned:
    """What an index run is about to do, as ``index_project``'s ``admit`` is told it."""

    rebuild: str | None  # why every document is parsed and embedded again (None: incremental)
    repair: bool  # a damaged generation was found
    files: int  # notes to parse again (every readable one in a rebuild)
    removed: int  # notes gone since the last run


def _index_locked(cfg, layout, spec, loader, counter_future, full, strict, progress, started, on_wait=None,
                  embedder_source=None, admit=None) -> IndexResult:
    with layout.writer_lock(cfg.lock_timeout, on_wait=on_wait):
        # walk only once the lock is held: a writer that waited must index the files as
        # they are now, not the list it saw before waiting
        repository_future = loader.submit(own_repository, cfg.root, cfg.repository)  # git, beside the walk
        others = OtherFiles()
        files, walk_warnings = walk(cfg.root, others)
        other_files = others.digest()
        # every byte of the generation we build on is checked — but for files this index
        # verified or wrote before and that have not changed since (Layout.remember): a
        # damaged one is rebuilt from the newest generation that verifies (or from the
        # files), without --full
        current = layout.current(full=True, warn=False, remembered=True)
        layout.cleanup(cfg.keep_generations, current=current)  # it keeps the one just verified
        if current is not None:
            layout.remember(current)
        damaged = list(layout.damaged)
        cur_path = layout.gen_dir / current if current else None
        manifest = (layout.manifests.get(current) or load_manifest(cur_path)) if cur_path else None  # read once: verifying it read it
        result = IndexResult(root=str(cfg.root), generation=current, previous_generation=current, model=spec.model_id)
        if damaged:
            bad, why = damaged[0]
            result.repaired = f"generation {bad} was damaged ({why}); " + (
                f"rebuilt from generation {current}" if current else "rebuilt from the files"
            )
        scan = _Scan(manifest, warnings=list(walk_warnings), counter_future=counter_future,
                     embedder_source=embedder_source or _load_index_embedder)
        early = admit is not None and (manifest is None or full)  # a build from the files: said before they are read
        if early:
            admit(Planned("--full" if manifest is not None else "damaged index" if damaged else "first index",
                          bool(damaged), len(files), 0))
        if scan.counter_future is None and (manifest is None or damaged):  # a (re)build from the files
            scan.counter_future = loader.submit(get_counter, cfg.tokenizer)
        _read_project(cfg, files, scan, full, loader, progress)
        counter, tokenizer = _tokenizer(cfg, spec, scan, full)
        result.tokenizer = tokenizer
        changes = _decide_changes(cfg, spec, scan, tokenizer, full, damaged, None if early else admit)
        result.kept_previous = len(changes.kept)
        parsed, file_warnings = _parse_changed(cfg, scan, changes, counter, loader, progress, spec, cur_path)
        result.skipped_files = sum(1 for w in scan.warnings if w.skipped)  # a file gone before it was parsed too
        try:
            result.warnings = [w.to_dict() for w in scan.warnings]
            if strict:
                _check_strict(result, file_warnings, changes, cur_path)
            if cfg.usage_log or layout.usage_log.exists():
                from oriongraph_cli.store.usage_log import write_snapshot

                write_snapshot(layout.dir)
            from oriongraph_cli.store import postings

            # a generation built before the BM25 arrays existed gets them (and nothing else
            # changes: no re-parse, no re-embedding) on the next run
            # and one whose links were resolved by other rules has them resolved again
            repository = repository_future.result()
            relink = relink_reason(scan.manifest, repository.state()) if not changes.reason else None
            result.other_files_changed = others_moved = other_files_changed(scan.manifest, other_files) and not changes.reason and not relink
            if (not changes.reason and not changes.changed and not changes.removed and not damaged and postings.present(cur_path)
                    and not relink and not others_moved):
                result.nothing_changed = True
                _fill_counts(result, manifest)
                result.unchanged_documents = len(scan.prev_files)
                result.elapsed_ms = (time.perf_counter() - started) * 1000
                return result

            result.rebuild_reason = changes.reason
            result.relinked = relink
            gen = layout.next_generation()
            layout.ensure()  # a state directory that is a link is refused before anything is built or removed
            staging = layout.staging_path(gen)
            base = None if changes.reason and not changes.carry_kept else cur_path
            # from the moment the build directory exists, an interrupt (Ctrl-C, SIGTERM)
            # wherever it lands removes it: the directory is created inside the try
            try:
                layout.new_staging(gen)
                plan = _Plan(
                    cfg=cfg, spec=spec, gen=gen, staging=staging, base_path=base, cache_path=cur_path,
                    parsed=parsed, changed=changes.changed, removed=changes.removed, prev_files=scan.prev_files,
                    versions=scan.versions, kept=changes.kept, tokenizer=tokenizer, strict=strict, embedder=scan.embedder_future,
                    embedder_source=scan.embedder_source,
                    stats=scan.stats, file_warnings=file_warnings,
                    base_id_length=scan.manifest.id_length if base and scan.manifest else None,
                    cache_manifest=scan.manifest if cur_path else None, other_files=other_files, repository=repository,
                )
                written = _build_generation(plan, result, progress)
                layout.promote(staging, gen)
                layout.manifests[gen] = written  # what layout.remember reads
            except BaseException:
                import shutil

                shutil.rmtree(staging, ignore_errors=True)
                raise
            layout.remember(gen)  # every byte of it was hashed as it was written (or linked from `current`)
        finally:
            parsed.close()
        result.generation = gen
        layout.cleanup(cfg.keep_generations, current=gen)  # just written and made current
    result.elapsed_ms = (time.perf_counter() - started) * 1000
    return result


def _read_file(cfg: Config, f: FoundFile, scan: _Scan, keep: bool = True) -> None:
    """Read one file into ``scan`` (or record why it cannot be read). ``keep`` False: a
    build from the files, which parses every file; its content is read again when parsed
    (``_content``) instead of every file's bytes and text being held until then."""
    got, text, warn = read_note(cfg.root, f, cfg.max_file_bytes)
    if warn is not None:
        scan.warnings.append(warn)
        return
    scan.contents[f.rel] = (f, got.data, text, got.mtime) if keep else (f, None, None, got.mtime)
    scan.versions[f.rel] = hashlib.sha256(got.data).hexdigest()
    scan.stats[f.rel] = got.stat_key


def _read_project(cfg: Config, files: list[FoundFile], scan: _Scan, full: bool, loader, progress: Progress) -> None:
    """Content hashes of every file, read only where the stat changed. The first changed
    file starts loading the tokenizer in the background (and the model, for a build from
    the files; an incremental run decides once it has parsed, ``_parse_changed``)."""
    prev_files = scan.prev_files
    prev_stats = scan.manifest.stats if scan.manifest else {}
    # git's racy-file rules (safeio.unchanged_since): size, mtime, ctime and inode must
    # all match the previous run's, and a file touched in the second that index was
    # written is always re-hashed
    indexed_at = scan.manifest.created_at if scan.manifest else 0
    keep = not (full or scan.manifest is None)
    progress.phase("reading", len(files))
    for f in files:
        progress.advance()
        st = f.st  # the walk's, taken under the writer lock a moment ago: one stat a file, not two
        if st is None:
            try:
                st = f.abs.stat()
            except OSError:
                st = None
        if st is not None and not full and f.rel in prev_files and unchanged_since(st, prev_stats.get(f.rel), indexed_at):
            scan.versions[f.rel], scan.stats[f.rel] = prev_files[f.rel], stat_key(st)
            scan.unread.append(f)
            continue
        _read_file(cfg, f, scan, keep)
        if f.rel in scan.versions and prev_files.get(f.rel) != scan.versions[f.rel]:  # something changed
            if scan.counter_future is None:
                scan.counter_future = loader.submit(get_counter, cfg.tokenizer)  # it will be counted
            if scan.embedder_future is None and (full or scan.manifest is None):
                scan.embedder_future = loader.submit(scan.embedder_source, cfg)  # a build from the files embeds: load now


def _tokenizer(cfg: Config, spec, scan: _Scan, full: bool):
    """(counter or None, tokenizer name). The tokenizer is loaded only when something will
    be counted: a run with nothing changed spent a third of its CPU loading tiktoken it
    never used. Its name (which the index records: a change rebuilds) is known without
    loading it while the index recorded that same name."""
    manifest = scan.manifest
    counter = None
    tokenizer = expected_name(cfg.tokenizer)
    if (scan.counter_future is not None or tokenizer is None or tokenizer != (manifest.tokenizer if manifest else None)
            or rebuild_reason(manifest, cfg, spec.model_id, tokenizer, full)):
        counter = scan.counter_future.result() if scan.counter_future else get_counter(cfg.tokenizer)
        tokenizer = counter.name
        if counter.warning:
            scan.warnings.append(ParseWarning("(tokenizer)", "tokenizer", counter.warning))
    return counter, tokenizer


def _decide_changes(cfg: Config, spec, scan: _Scan, tokenizer: str, full: bool, damaged: list, admit=None) -> _Changes:
    """What is rebuilt, re-indexed, removed and kept; a rebuild reads the unread files too.
    ``admit`` is told the plan: a rebuild's before any file is read for it, an incremental
    run's once its changed and removed files are known (nothing is read in between)."""
    manifest, prev_files, versions = scan.manifest, scan.prev_files, scan.versions
    reason = rebuild_reason(manifest, cfg, spec.model_id, tokenizer, full)
    if damaged and reason == "first index":
        reason = "damaged index"
    if admit is not None and reason:
        admit(Planned(reason, bool(damaged), len(versions) + len(scan.unread), 0))
    if reason:  # a rebuild parses everything
        for f in scan.unread:
            _read_file(cfg, f, scan, keep=False)
    # a file that became unreadable keeps its previous version (nothing indexed is lost)
    bad_but_indexed = {w.path for w in scan.warnings if w.skipped and w.path in prev_files}
    # --full on an index that is otherwise compatible re-reads and re-embeds every
    # readable file but starts from the current registry, so what cannot be read now
    # keeps its indexed version; any other rebuild (model, schema, spans) cannot
    carry_kept = bool(
        reason == "--full" and bad_but_indexed and manifest is not None
        and rebuild_reason(manifest, cfg, spec.model_id, tokenizer, False) is None
    )
    if reason:
        changed = sorted(scan.contents)
        removed = sorted(set(prev_files) - set(versions) - bad_but_indexed) if carry_kept else []
    else:
        changed = sorted(rel for rel, v in versions.items() if prev_files.get(rel) != v)
        removed = sorted(set(prev_files) - set(versions) - bad_but_indexed)
        if admit is not None:
            admit(Planned(None, bool(damaged), len(changed), len(removed)))
    if reason and not carry_kept:
        bad_but_indexed = set()  # a rebuild from empty cannot carry a version it can no longer read
    scan.warnings = [
        replace(w, message=w.message + " (previous indexed version kept)") if w.skipped and w.path in bad_but_indexed else w
        for w in scan.warnings
    ]
    return _Changes(reason, changed, removed, bad_but_indexed, carry_kept)


def _parse_changed(cfg: Config, scan: _Scan, changes: _Changes, counter, loader, progress: Progress, spec=None, cur_path: Path | None = None):
    """([(Document, [Span])] of the changed files, parse warnings of every indexed file).
    A rebuild starts loading the model at once; an incremental run only once a parsed span
    has embedding text the generation it builds on has no vector for (an edit of front
    matter, a rename or a moved section embeds nothing and never loads the model)."""
    changed = changes.changed
    if changed and scan.embedder_future is None and (changes.reason or cur_path is None or spec is None):
        scan.embedder_future = loader.submit(scan.embedder_source, cfg)
    if changed and counter is None:  # not reached: a changed file or a rebuild loaded it above
        counter = get_counter(cfg.tokenizer)
    git = git_times(cfg.root, changed) if changed else {}  # when git last committed each (a creation time)
    parsed = ParsedSpool(cfg.index_dir)
    # what parsing said about each indexed file, kept in the manifest so that --strict
    # judges the whole index, not only the files this run re-read
    prev_file_warnings: dict[str, list] = {} if changes.reason else (scan.manifest.file_warnings if scan.manifest else {})
    file_warnings = {rel: ws for rel, ws in prev_file_warnings.items() if rel in scan.versions and rel not in changed}
    progress.phase("parsing", len(changed))
    for rel in changed:
        progress.advance()
        got = _content(cfg, scan, rel)
        if got is None:
            continue
        f, data, text, mtime = got
        doc, doc_warnings = parse_document(rel, data, text, mtime=mtime, git_time=git.get(rel))
        scan.warnings.extend(doc_warnings)
        if doc_warnings:
            file_warnings[rel] = [w.to_dict() for w in doc_warnings]
        spans = split_document(doc, counter, target_tokens=cfg.span_target_tokens, max_tokens=cfg.span_max_tokens, min_tokens=cfg.span_min_tokens)
        parsed.append(doc, spans)
    if parsed and scan.embedder_future is None and _needs_embedding(parsed, spec, cur_path):
        scan.embedder_future = loader.submit(scan.embedder_source, cfg)  # loads while the generation is written
    return parsed, file_warnings


def _content(cfg: Config, scan: _Scan, rel: str):
    """(FoundFile, bytes, text, mtime) of a changed file, taken out of ``scan``; read again
    when the scan did not keep it. A file that changed since it was hashed is indexed as it
    is now (its version and stat recorded anew); one that can no longer be read is left
    out, with a warning, and not recorded as indexed (None)."""
    f, data, text, mtime = scan.contents.pop(rel)
    if data is not None:
        return f, data, text, mtime
    _read_file(cfg, f, scan)
    got = scan.contents.pop(rel, None)
    if got is None:  # _read_file recorded why
        scan.versions.pop(rel, None)
        scan.stats.pop(rel, None)
    return got


def _needs_embedding(parsed, spec, cur_path: Path) -> bool:
    """Whether a span of ``parsed`` has embedding text generation ``cur_path`` holds no
    vector for (by hash of model id + text, as ``_embed`` looks them up)."""
    from oriongraph_cli.store.generation import held_hashes

    hashes = {embed_hash(spec.model_id, embed_text(span, doc.title, doc.summary)) for doc, spans in parsed for span in spans}
    return bool(hashes - held_hashes(cur_path, hashes))


def _check_strict(result: IndexResult, file_warnings: dict[str, list], changes: _Changes, cur_path: Path | None) -> None:
    """--strict judges the whole index: this run's warnings, what parsing said about
    unchanged files earlier, and the dangling links the index holds when the graph is not
    rebuilt."""
    earlier = [w for rel in sorted(file_warnings) if rel not in changes.changed for w in file_warnings[rel]]
    dangling = _stored_dangling(cur_path) if cur_path and not changes.changed and not changes.removed and not changes.reason else []
    every = result.warnings + earlier + dangling
    if every:
        err = StrictError(
            f"{len(every)} warning(s) in the index and --strict is set; the index was not changed",
            hint="fix the files named above, or run without --strict",
        )
        err.warnings = every
        raise err


def _dangling_warning(path: str, line: int | None, target: str, kind: str) -> dict[str, Any]:
    return {"path": path, "kind": "dangling-link", "message": f"dangling {kind} → {target}", "line": line, "col": None, "skipped": False}


def _stored_dangling(gen_path: Path) -> list[dict[str, Any]]:
    """The dangling links generation ``gen_path`` recorded, as warnings."""
    from oriongraph_cli.store.generation import stored_dangling

    return [_dangling_warning(*d) for d in stored_dangling(gen_path)]


def _all_lexical_texts(registry) -> list[tuple[int, str]]:
    """(row, lexical text) of every span in ``registry`` (bench/bench_lexical.py compares with it)."""
    from oriongraph_cli.store.generation import all_lexical_texts

    return all_lexical_texts(registry)


def _fill_counts(result: IndexResult, manifest: Manifest | None) -> None:
    counts = manifest.counts if manifest else Counts()
    result.documents = counts.documents
    result.spans = counts.spans
    result.tokens = counts.tokens
    result.edges = counts.edges


def _load_index_embedder(cfg: Config):
    from oriongraph_cli.store.embed import load_embedder

    return load_embedder(cfg, "index")


@dataclass(frozen=True)
class _Plan:
    """What one index run builds: the new generation's inputs."""

    cfg: Config
    spec: Any  # embed.ModelSpec
    gen: str
    staging: Path
    base_path: Path | None  # generation to start from (None: rebuild from empty)
    cache_path: Path | None  # generation whose vectors may be reused
    parsed: Any  # ParsedSpool: (Document, [Span]) of the changed documents
    changed: list[str]
    removed: list[str]
    prev_files: dict[str, str]
    versions: dict[str, str]  # path -> sha256 of every readable file
    kept: set[str]  # unreadable now, previous version kept
    tokenizer: str
    strict: bool
    embedder: Any  # Future of the loaded embedder, or None
    stats: dict[str, list[int]]  # path -> [size, mtime_ns, ctime_ns, inode] (fast path of the next run)
    file_warnings: dict[str, list] = field(default_factory=dict)  # path -> parse warnings (for --strict)
    base_id_length: int | None = None  # the base generation's span id prefix length (None: count it afresh)
    cache_manifest: Manifest | None = None  # the manifest of cache_path, as the run read it
    other_files: str | None = None  # digest of the other files' paths in the stage folders (walk.OtherFiles)
    repository: OwnRepository = field(default_factory=OwnRepository)  # the repositories the project's files belong to
    embedder_source: Any = None  # cfg -> the index model, when ``embedder`` is None (default: loaded for this run)

    def base_checksum(self, name: str) -> Any:
        """The checksum the base generation's manifest records for its file ``name`` (None:
        no base, or a base this run did not read the manifest of)."""
        if self.base_path is None or self.base_path != self.cache_path or self.cache_manifest is None:
            return None
        return (self.cache_manifest.checksums or {}).get(name)

    @property
    def keeps(self) -> bool:
        """This process indexes again (a kept model: ``orion serve``, ``orion watch``): what
        a run reads of the generation it writes is kept for the next run."""
        return getattr(self.embedder_source, "keeps_between_runs", False)


def _build_generation(plan: _Plan, result: IndexResult, progress: Progress) -> Manifest:
    """The new generation, step by step, through the store's generation writer; returns
    the manifest written."""
    from oriongraph_cli.store.generation import GenerationWriter

    base_manifest = plan.cache_manifest if plan.base_path is not None and plan.base_path == plan.cache_path else None
    writer = GenerationWriter(plan.staging, plan.base_path, plan.cfg.vector_index, base_manifest)
    try:
        vecs = _embed(plan, result, progress)
        graph_change = None if result.rebuild_reason or result.relinked else _graph_change(writer.registry, plan)
        try:
            deleted_rows = _write_documents(writer, plan, result, progress, vecs)
        finally:
            vecs.close()  # the spool leaves the staging directory before anything is checksummed
        dim = vecs.dim
        edges = _rebuild_graph(writer.registry, plan, result, progress, graph_change)
        writer.registry.set_info("generation", plan.gen)
        writer.registry.commit()
        progress.phase("lexical index", None)
        gone = sorted(set(plan.changed) | set(plan.removed))
        writer.write_lexical(partial(_lexical_docs, writer.registry, plan.parsed), gone, deleted_rows)
        progress.phase("vector index", None)
        counts = writer.write_vectors(dim)
        writer.write_lookups(gone, keep=plan.keeps)
        result.documents, result.spans, result.tokens = counts["documents"], counts["spans"], counts["tokens"]
        added = None if plan.base_id_length is None else (s.ref.span_id for _, spans in plan.parsed for s in spans)
        manifest = _manifest(plan, counts, edges, dim, writer.registry.id_length(plan.base_id_length or ID_LENGTH_MIN, added))
    finally:
        writer.close()
    written = writer.write_manifest(manifest)
    if plan.keeps:  # what the graph phase kept is of this registry
        from oriongraph_cli.graph import edges
        from oriongraph_cli.store.generation import REGISTRY

        edges.kept_registry_written((written.checksums or {}).get(REGISTRY))
    return written


class _EmbedTexts:
    """The embedding texts at these slots of a :class:`TextSpool`, read when asked for: a
    run does not hold every span's embedding text in memory."""

    def __init__(self, texts: TextSpool, slots: list[int]):
        self.texts, self.slots = texts, slots

    def __len__(self) -> int:
        return len(self.slots)

    def __getitem__(self, i: int) -> str:
        return self.texts[self.slots[i]]


class _SlotSink:
    """``out[indices] = rows`` of ``embed_batched``, written to the spool's slots."""

    def __init__(self, spool, slots: list[int]):
        self.spool, self.slots = spool, slots

    def __setitem__(self, idx, rows) -> None:
        self.spool[[self.slots[i] for i in idx]] = rows


@dataclass
class _Vectors:
    """The vector of every distinct embedding text of a run: its slot in a spool file in
    the staging directory (never every vector in memory: 1.5 GB at 1M spans). Spans are
    numbered in the order the run parsed them; ``start[d]`` is the first span of the
    ``d``-th changed document, ``slots[s]`` span ``s``'s slot, ``digests[slot]`` the
    slot's embed-text hash (sha256 digest)."""

    start: Any  # array("q"), one more than the changed documents
    slots: Any  # array("q"), one per span
    digests: list[bytes]
    spool: Any  # store.vectors.VectorSpool, or None when there are no spans
    dim: int

    def hashes(self, d: int) -> list[str]:
        """The embed-text hashes (hex) of the ``d``-th changed document's spans."""
        return [self.digests[k].hex() for k in self.slots[self.start[d] : self.start[d + 1]]]

    def vectors(self, d: int):
        return self.spool.read(list(self.slots[self.start[d] : self.start[d + 1]]))

    def close(self) -> None:
        if self.spool is not None:
            self.spool.close()


_CACHE_CHUNK = 16_384  # embed-text hashes looked up in the previous generation at a time


def _embed(plan: _Plan, result: IndexResult, progress: Progress) -> _Vectors:
    """The embed-text hash of every span of every changed document and a vector for each
    distinct hash (reused from the previous generation by hash of model id + embedding
    text, else embedded now), spooled to the staging directory."""
    from array import array

    import numpy as np

    from oriongraph_cli.store.vectors import VectorSpool

    cfg, spec, cache_path = plan.cfg, plan.spec, plan.cache_path
    start, slots = array("q", [0]), array("q")
    slot_of: dict[bytes, int] = {}
    digests: list[bytes] = []
    texts = TextSpool(cfg.index_dir)  # each distinct text once, at its slot
    try:
        for doc, spans in plan.parsed:
            for span in spans:
                text = embed_text(span, doc.title, doc.summary)
                h = _embed_digest(spec.model_id, text)
                k = slot_of.get(h)
                if k is None:
                    k = slot_of[h] = len(digests)
                    digests.append(h)
                    texts.append(text)
                slots.append(k)
            start.append(len(slots))
        total = len(slots)
        dim = ((plan.cache_manifest or load_manifest(cache_path)).dim if cache_path else None)
        spool = None
        path = plan.staging / "vectors.spool"
        found: set[bytes] = set()
        if cache_path is not None and result.rebuild_reason != "--full" and slot_of:
            from oriongraph_cli.store.generation import VectorCache

            keys = [h.hex() for h in digests]
            cache = VectorCache(cache_path)
            try:
                for at in range(0, len(keys), _CACHE_CHUNK):
                    got = cache.get(keys[at:at + _CACHE_CHUNK])
                    if not got:
                        continue
                    if spool is None:
                        dim = dim or len(next(iter(got.values()))) // 4
                        spool = VectorSpool(path, len(slot_of), dim)
                    spool[[slot_of[bytes.fromhex(h)] for h in got]] = np.frombuffer(b"".join(got.values()), dtype="float32")
                    found.update(bytes.fromhex(h) for h in got)
            finally:
                cache.close()
        # in hash order (hex order is byte order), as the embedder has always been given them
        missing = sorted(h for h in slot_of if h not in found)
        if missing:
            from oriongraph_cli.store.embed import embed_batched

            progress.phase("loading model", None)
            embedder = plan.embedder.result() if plan.embedder is not None else (plan.embedder_source or _load_index_embedder)(cfg)
            dim = embedder.dim
            if spool is None:
                spool = VectorSpool(path, len(slot_of), dim)
            progress.phase("embedding", len(missing))
            at = [slot_of[h] for h in missing]
            embed_batched(embedder, _EmbedTexts(texts, at), cfg.embed_batch_size, progress.advance, out=_SlotSink(spool, at))
    finally:
        texts.close()
    result.embedded_spans = len(missing)
    result.reused_vectors = total - len(missing)
    return _Vectors(start, slots, digests, spool, int(dim or 384))


def _embed_digest(model_id: str, text: str) -> bytes:
    """``embed_hash`` as its 32 bytes."""
    return hashlib.sha256(f"{model_id}\x00{text}".encode()).digest()


def _write_documents(writer, plan: _Plan, result: IndexResult, progress: Progress, vecs: _Vectors) -> list[int]:
    """Remove the changed and removed documents from the registry (and their vectors from
    the vector store), add the changed ones with their vectors and stored references (graph
    phase 1). Returns the rows whose postings leave the BM25 arrays (row ids can be reused
    by new spans)."""
    from oriongraph_cli.graph import edges

    registry = writer.registry
    progress.phase("writing registry", len(plan.parsed))
    prev_paths = set(plan.prev_files)
    gone = sorted(set(plan.changed) | set(plan.removed))
    deleted_rows = registry.rows_of_paths(gone) if plan.base_path else []
    writer.vectors.delete(deleted_rows)
    for rel in gone:
        registry.remove_document(rel)
    for di, (doc, spans) in enumerate(plan.parsed):
        progress.advance()
        rows = registry.add_document(doc, spans, vecs.hashes(di), blocks=_kept_blocks(doc))
        if rows:
            writer.vectors.add(rows, vecs.vectors(di))
        edges.store_document(registry, doc, spans)
        if doc.path in prev_paths:
            result.updated_documents += 1
        else:
            result.added_documents += 1
    result.removed_documents = len(plan.removed)
    result.unchanged_documents = len(plan.prev_files) - result.updated_documents - len(plan.removed) if plan.base_path else 0
    return deleted_rows


def _kept_blocks(doc) -> str | None:
    """The note's headings, code blocks and tables as its spans were cut from them, for a
    note with fenced code or a table: a compile quoting it reads them instead of parsing the
    note again (a 262 KB manual page: ~70 ms of a fresh compile). None for the others,
    which a compile never parses."""
    if not has_fence_before(doc.text, len(doc.text)) and not has_table_before(doc.text, len(doc.text)):
        return None  # (a reStructuredText note with such lines is kept too: a compile reads it as one)
    return read_blocks(doc.text, doc.body_start, syntax_of(doc.path)).to_json()


def _graph_change(registry, plan: _Plan):
    """What this run changes, as the graph's phase 2 needs it (None: a build from empty).
    Call before the registry (a copy of the base generation's) is changed."""
    from oriongraph_cli.graph import edges

    if plan.base_path is None:
        return None
    paths = frozenset(plan.changed) | frozenset(plan.removed)
    return edges.GraphChange(paths, edges.documents_before(registry, paths), frozenset(registry.span_rows_of(paths)))


def _rebuild_graph(registry, plan: _Plan, result: IndexResult, progress: Progress, change=None) -> int:
    """Graph phase 2: the references that can resolve differently (all of them without
    ``change``) resolved against the new document set. Dangling links become warnings —
    those in the files this run indexed and those this run left dangling that were not
    before (a page removed or renamed), not again every one a file it did not touch holds
    (``result.dangling_links`` counts them all) — and all of them fail --strict. Returns
    the number of edges."""
    from oriongraph_cli.graph import edges
    from oriongraph_cli.store.generation import REGISTRY

    progress.phase("graph", None)
    key = lambda d: (d.path, d.line, d.target, d.kind)  # noqa: E731
    before = {key(d) for d in edges.dangling(registry)} if edges.has_tables(registry) else set()
    built = edges.rebuild_edges(registry, plan.cfg.root, defines=plan.cfg.graph_defines, change=change, generation=plan.gen,
                                keep=plan.keeps, base_registry=plan.base_checksum(REGISTRY), repository=plan.repository)
    indexed = frozenset(plan.changed)
    told = [d for d in built.dangling if d.path in indexed or key(d) not in before]
    for d in told:
        result.warnings.append(_dangling_warning(d.path, d.line, d.target, d.kind))
    result.dangling_links = len(built.dangling)
    result.edges = built.edges
    result.graph_ms = round(built.elapsed_ms, 1)
    if plan.strict and built.dangling:
        err = StrictError(
            f"{len(built.dangling)} dangling link(s) and --strict is set; the index was not changed",
            hint="fix the links named above (`orion links --dangling` lists them), or run without --strict",
        )
        told_keys = {key(d) for d in told}
        err.warnings = result.warnings + [_dangling_warning(*key(d)) for d in built.dangling if key(d) not in told_keys]
        raise err
    return built.edges


_LEXICAL_BATCH = 512  # documents whose span rows are looked up at once


def _lexical_docs(registry, parsed) -> Iterator:
    """What the lexical indices take for every span of the changed documents, in the order
    they were parsed, made as they are read."""
    from oriongraph_cli.store import lexical

    def batch(docs):
        rows = registry.span_rows_of([d.path for d, _ in docs])
        for doc, spans in docs:
            for span in spans:
                yield lexical.LexicalDoc(
                    row=rows[span.ref.span_id], span_id=span.ref.span_id, path=doc.path, title=doc.title,
                    headings=" / ".join(span.heading_path), body=span.text, tags=doc.tags, stage=doc.stage,
                    workstream=doc.workstream, source_type=doc.source_type.value,
                    summary=doc.summary if span.ordinal == 0 else "",
                )

    docs: list = []
    for item in parsed:
        docs.append(item)
        if len(docs) == _LEXICAL_BATCH:
            yield from batch(docs)
            docs = []
    yield from batch(docs)


def _manifest(plan: _Plan, counts: dict[str, int], edges: int, dim: int, id_length: int) -> Manifest:
    cfg = plan.cfg
    files = dict(plan.versions)
    for rel in plan.kept:
        files[rel] = plan.prev_files[rel]
    return Manifest(
        generation=plan.gen,
        complete=True,
        index_schema_version=INDEX_SCHEMA_VERSION,
        tool_version=__version__,
        model_id=plan.spec.model_id,
        dim=int(dim),
        tokenizer=plan.tokenizer,
        span_params=[cfg.span_target_tokens, cfg.span_max_tokens, cfg.span_min_tokens],
        created_at=int(time.time()),
        counts=Counts(documents=counts["documents"], spans=counts["spans"], tokens=counts["tokens"], edges=edges),
        files=dict(sorted(files.items())),
        stats={rel: plan.stats[rel] for rel in sorted(files) if rel in plan.stats},
        file_warnings={rel: plan.file_warnings[rel] for rel in sorted(plan.file_warnings) if rel in files},
        id_length=id_length,
        link_rules=graph.LINK_RULES,
        parse_rules=doc_parse.PARSE_RULES,
        other_files=plan.other_files,
        repository=plan.repository.state(),
    )
