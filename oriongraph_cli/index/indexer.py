"""`orion index`: walk -> parse -> span -> registry, lexical and semantic indices, as a new generation.

Incremental by content hash: a document whose bytes did not change is carried over
(rows, Whoosh postings, vectors); a changed document is re-split and only spans whose
embedding text is new are embedded (vectors are cached by a hash of model id + text, so
renames and unchanged sections cost nothing).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from oriongraph_cli import __version__
from oriongraph_cli.config import Config
from oriongraph_cli.errors import OrionError, StrictError
from oriongraph_cli.index.parse import ParseWarning, decode, parse_document
from oriongraph_cli.index.span import embed_text, split_document
from oriongraph_cli.index.walk import FoundFile, WalkWarning, check_project, walk
from oriongraph_cli.models import Document, Span
from oriongraph_cli.safeio import UnsafeFile, read_project_file, stat_key, unchanged_since
from oriongraph_cli.store.layout import MANIFEST, Layout, atomic_write, file_checksums
from oriongraph_cli.tokens import expected_name, get_counter

INDEX_SCHEMA_VERSION = 5  # on-disk layout; a change forces a rebuild (2: graph tables, 3: one lexical field,
# 4: span ids include the path, file checksums and stat keys in the manifest, 5: span line numbers)


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


def load_manifest(gen_path: Path) -> dict[str, Any]:
    return json.loads((gen_path / MANIFEST).read_text())


def git_times(root: Path) -> dict[str, int]:
    """Last commit time per file (one `git log` pass); {} outside a git work tree."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "log", "--format=%x00%ct", "--name-only", "--no-renames", "--relative"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    times: dict[str, int] = {}
    stamp = 0
    for line in out.splitlines():
        if line.startswith("\x00"):
            stamp = int(line[1:] or 0)
        elif line.strip() and line not in times:
            times[line.strip()] = stamp
    return times


def _rebuild_reason(manifest: dict[str, Any] | None, cfg: Config, model_id: str, tokenizer: str, full: bool) -> str | None:
    if full:
        return "--full"
    if manifest is None:
        return "first index"
    checks = [
        ("index_schema_version", INDEX_SCHEMA_VERSION, "index schema changed"),
        ("model_id", model_id, "embedding model changed"),
        ("tokenizer", tokenizer, "tokenizer changed"),
        ("span_params", [cfg.span_target_tokens, cfg.span_max_tokens, cfg.span_min_tokens], "span sizes changed"),
    ]
    for key, value, reason in checks:
        if manifest.get(key) != value:
            return f"{reason} ({manifest.get(key)!r} -> {value!r})"
    return None


def embed_hash(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\x00{text}".encode()).hexdigest()


def index_project(cfg: Config, *, full: bool = False, strict: bool = False, progress: Progress | None = None, on_wait=None) -> IndexResult:
    """``on_wait(pid or None)``: called once when another writer holds the lock."""
    from oriongraph_cli.store.embed import resolve_model

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
        return _index_locked(cfg, layout, spec, loader, counter_future, full, strict, progress, started, on_wait)
    finally:
        loader.shutdown(wait=False, cancel_futures=True)


def _index_locked(cfg, layout, spec, loader, counter_future, full, strict, progress, started, on_wait=None) -> IndexResult:
    root = cfg.root
    with layout.writer_lock(cfg.lock_timeout, on_wait=on_wait):
        # walk only once the lock is held: a writer that waited must index the files as
        # they are now, not the list it saw before waiting
        files, walk_warnings = walk(root)
        warnings: list[ParseWarning | WalkWarning] = list(walk_warnings)
        layout.cleanup(cfg.keep_generations)
        # every byte of the generation we build on is checked: a damaged one is rebuilt
        # from the newest generation that verifies (or from the files), without --full
        current = layout.current(full=True, warn=False)
        damaged = list(layout.damaged)
        cur_path = layout.gen_dir / current if current else None
        manifest = load_manifest(cur_path) if cur_path else None
        result = IndexResult(root=str(root), generation=current, previous_generation=current, model=spec.model_id)
        if damaged:
            bad, why = damaged[0]
            result.repaired = f"generation {bad} was damaged ({why}); " + (
                f"rebuilt from generation {current}" if current else "rebuilt from the files"
            )

        # -------- decide what changed: content hashes, read only where the stat changed
        prev_files: dict[str, str] = (manifest or {}).get("files", {})
        prev_stats: dict[str, list[int]] = (manifest or {}).get("stats", {})
        # git's racy-file rules (safeio.unchanged_since): size, mtime, ctime and inode must
        # all match the previous run's, and a file touched in the second that index was
        # written is always re-hashed
        indexed_at = int((manifest or {}).get("created_at", 0))
        progress.phase("reading", len(files))
        contents: dict[str, tuple[FoundFile, bytes, str, float]] = {}
        versions: dict[str, str] = {}
        stats: dict[str, list[int]] = {}
        unread: list[FoundFile] = []
        embedder_future = None
        if counter_future is None and (manifest is None or damaged):  # a (re)build from the files
            counter_future = loader.submit(get_counter, cfg.tokenizer)

        def read(f: FoundFile) -> None:
            try:
                got = read_project_file(root, f.rel, cfg.max_file_bytes, expect=f.identity)
            except UnsafeFile as exc:
                warnings.append(ParseWarning(f.rel, exc.kind, exc.reason, skipped=True))
                return
            text, warn = decode(f.rel, got.data, cfg.max_file_bytes)
            if warn is not None:
                warnings.append(warn)
                return
            contents[f.rel] = (f, got.data, text, got.mtime)
            versions[f.rel] = hashlib.sha256(got.data).hexdigest()
            stats[f.rel] = got.stat_key

        for f in files:
            progress.advance()
            try:
                st = f.abs.stat()
            except OSError:
                st = None
            if st is not None and not full and f.rel in prev_files and unchanged_since(st, prev_stats.get(f.rel), indexed_at):
                versions[f.rel], stats[f.rel] = prev_files[f.rel], stat_key(st)
                unread.append(f)
                continue
            read(f)
            if embedder_future is None and f.rel in versions and prev_files.get(f.rel) != versions[f.rel]:
                embedder_future = loader.submit(_load_index_embedder, cfg)  # something changed: load the model now
                if counter_future is None:
                    counter_future = loader.submit(get_counter, cfg.tokenizer)
        # the tokenizer is loaded only when something will be counted: a run with nothing
        # changed spent a third of its CPU loading tiktoken it never used. Its name (which
        # the index records: a change rebuilds) is known without loading it while the index
        # recorded that same name.
        counter = None
        tokenizer = expected_name(cfg.tokenizer)
        if (counter_future is not None or tokenizer is None or tokenizer != (manifest or {}).get("tokenizer")
                or _rebuild_reason(manifest, cfg, spec.model_id, tokenizer, full)):
            counter = counter_future.result() if counter_future else get_counter(cfg.tokenizer)
            tokenizer = counter.name
            if counter.warning:
                warnings.append(ParseWarning("(tokenizer)", "tokenizer", counter.warning))
        result.tokenizer = tokenizer
        reason = _rebuild_reason(manifest, cfg, spec.model_id, tokenizer, full)
        if damaged and reason == "first index":
            reason = "damaged index"
        if reason:  # a rebuild parses everything
            for f in unread:
                read(f)
        # a file that became unreadable keeps its previous version (nothing indexed is lost)
        bad_but_indexed = {w.path for w in warnings if w.skipped and w.path in prev_files}
        # --full on an index that is otherwise compatible re-reads and re-embeds every
        # readable file but starts from the current registry, so what cannot be read now
        # keeps its indexed version; any other rebuild (model, schema, spans) cannot
        carry_kept = bool(
            reason == "--full" and bad_but_indexed and manifest is not None
            and _rebuild_reason(manifest, cfg, spec.model_id, tokenizer, False) is None
        )
        if reason:
            changed = sorted(contents)
            removed = sorted(set(prev_files) - set(versions) - bad_but_indexed) if carry_kept else []
        else:
            changed = sorted(rel for rel, v in versions.items() if prev_files.get(rel) != v)
            removed = sorted(set(prev_files) - set(versions) - bad_but_indexed)
        if reason and not carry_kept:
            bad_but_indexed = set()  # a rebuild from empty cannot carry a version it can no longer read
        result.kept_previous = len(bad_but_indexed)
        warnings = [
            replace(w, message=w.message + " (previous indexed version kept)") if w.skipped and w.path in bad_but_indexed else w
            for w in warnings
        ]
        result.skipped_files = sum(1 for w in warnings if w.skipped)

        # -------- parse and split what changed
        if changed and embedder_future is None:
            embedder_future = loader.submit(_load_index_embedder, cfg)
        if changed and counter is None:  # not reached: a changed file or a rebuild loaded it above
            counter = get_counter(cfg.tokenizer)
        git = git_times(root) if changed else {}
        parsed: list[tuple[Document, list[Span]]] = []
        # what parsing said about each indexed file, kept in the manifest so that --strict
        # judges the whole index, not only the files this run re-read
        prev_file_warnings: dict[str, list] = {} if reason else (manifest or {}).get("file_warnings", {})
        file_warnings = {rel: ws for rel, ws in prev_file_warnings.items() if rel in versions and rel not in changed}
        progress.phase("parsing", len(changed))
        for rel in changed:
            progress.advance()
            f, data, text, mtime = contents[rel]  # type: ignore[misc]
            doc, doc_warnings = parse_document(rel, data, text, mtime=mtime, git_time=git.get(rel))
            warnings.extend(doc_warnings)
            if doc_warnings:
                file_warnings[rel] = [w.to_dict() for w in doc_warnings]
            spans = split_document(doc, counter, target_tokens=cfg.span_target_tokens, max_tokens=cfg.span_max_tokens, min_tokens=cfg.span_min_tokens)
            parsed.append((doc, spans))
        result.warnings = [w.to_dict() for w in warnings]
        if strict:
            # the whole index: this run's warnings, what parsing said about unchanged files
            # earlier, and the dangling links the index holds when the graph is not rebuilt
            earlier = [w for rel in sorted(file_warnings) if rel not in changed for w in file_warnings[rel]]
            dangling = _stored_dangling(cur_path) if cur_path and not changed and not removed and not reason else []
            every = result.warnings + earlier + dangling
            if every:
                err = StrictError(
                    f"{len(every)} warning(s) in the index and --strict is set; the index was not changed",
                    hint="fix the files named above, or run without --strict",
                )
                err.warnings = every
                raise err
        if cfg.usage_log or layout.usage_log.exists():
            from oriongraph_cli.store.usage_log import write_snapshot

            write_snapshot(layout.dir)
        from oriongraph_cli.store import postings

        # a generation built before the BM25 arrays existed gets them (and nothing else
        # changes: no re-parse, no re-embedding) on the next run
        if not reason and not changed and not removed and not damaged and postings.present(cur_path):
            result.nothing_changed = True
            _fill_counts(result, manifest)
            result.unchanged_documents = len(prev_files)
            result.elapsed_ms = (time.perf_counter() - started) * 1000
            return result

        result.rebuild_reason = reason
        gen = layout.next_generation()
        staging = layout.new_staging(gen)
        plan = _Plan(
            cfg=cfg, spec=spec, gen=gen, staging=staging, base_path=None if reason and not carry_kept else cur_path, cache_path=cur_path,
            parsed=parsed, changed=changed, removed=removed, prev_files=prev_files, versions=versions,
            kept=bad_but_indexed, tokenizer=tokenizer, strict=strict, embedder=embedder_future, stats=stats,
            file_warnings=file_warnings,
        )
        try:
            _build_generation(plan, result, progress)
            layout.promote(staging, gen)
        except BaseException:
            import shutil

            shutil.rmtree(staging, ignore_errors=True)
            raise
        result.generation = gen
        layout.cleanup(cfg.keep_generations)
    result.elapsed_ms = (time.perf_counter() - started) * 1000
    return result


def _all_lexical_texts(registry) -> list[tuple[int, str]]:
    """(row, lexical text) of every span in ``registry``, as the indexer builds them."""
    from oriongraph_cli.store import lexical

    out = []
    for row, hp, text, path, title, tags, stage, ws, st, span_id in registry.lexical_rows():
        d = lexical.LexicalDoc(
            row=row, span_id=span_id, path=path, title=title, headings=" / ".join(json.loads(hp)), body=text,
            tags=tuple(json.loads(tags)), stage=stage, workstream=ws, source_type=st,
        )
        out.append((row, lexical.lexical_text(d)))
    return out


def _stored_dangling(gen_path: Path) -> list[dict[str, Any]]:
    """The dangling links generation ``gen_path`` recorded, as warnings."""
    from oriongraph_cli.graph import edges
    from oriongraph_cli.store.registry import Registry

    reg = Registry.open(gen_path / "registry.sqlite")
    try:
        if not edges.has_tables(reg):
            return []
        return [
            {"path": d.path, "kind": "dangling-link", "message": f"dangling {d.kind} → {d.target}", "line": d.line, "col": None, "skipped": False}
            for d in edges.dangling(reg)
        ]
    finally:
        reg.close()


def _fill_counts(result: IndexResult, manifest: dict[str, Any] | None) -> None:
    counts = (manifest or {}).get("counts", {})
    result.documents = counts.get("documents", 0)
    result.spans = counts.get("spans", 0)
    result.tokens = counts.get("tokens", 0)
    result.edges = counts.get("edges", 0)


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
    parsed: list  # [(Document, [Span])] of changed documents
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


def _build_generation(plan: _Plan, result: IndexResult, progress: Progress) -> None:
    cfg, spec, staging, base_path, cache_path = plan.cfg, plan.spec, plan.staging, plan.base_path, plan.cache_path
    parsed, changed, removed, prev_files = plan.parsed, plan.changed, plan.removed, plan.prev_files
    from oriongraph_cli.graph import edges
    from oriongraph_cli.store import lexical, postings, vectors
    from oriongraph_cli.store.registry import Registry

    registry = Registry.create(staging / "registry.sqlite", copy_from=base_path / "registry.sqlite" if base_path else None)
    edges.create_tables(registry)
    try:
        # vectors we already have (by hash of model id + embedding text)
        all_texts: list[tuple[int, int, str, str]] = []  # (doc idx, span idx, text, hash)
        for di, (doc, spans) in enumerate(parsed):
            for si, span in enumerate(spans):
                t = embed_text(span, doc.title)
                all_texts.append((di, si, t, embed_hash(spec.model_id, t)))
        cache: dict[str, bytes] = {}
        if cache_path is not None and result.rebuild_reason != "--full":
            old = Registry.open(cache_path / "registry.sqlite")
            try:
                cache = old.vectors_by_hash(h for *_x, h in all_texts)
            finally:
                old.close()
        missing = sorted({h: t for *_x, t, h in all_texts if h not in cache}.items())
        dim = None
        if missing:
            from oriongraph_cli.store.embed import embed_batched

            progress.phase("loading model", None)
            embedder = plan.embedder.result() if plan.embedder is not None else _load_index_embedder(cfg)
            dim = embedder.dim
            progress.phase("embedding", len(missing))
            mat = embed_batched(embedder, [t for _h, t in missing], cfg.embed_batch_size, progress.advance)
            for (h, _t), row in zip(missing, mat):
                cache[h] = row.astype("float32").tobytes()
        result.embedded_spans = len(missing)
        result.reused_vectors = len(all_texts) - len(missing)
        if dim is None:
            dim = (load_manifest(cache_path).get("dim") if cache_path else None) or (
                len(next(iter(cache.values()))) // 4 if cache else 384
            )

        # -------- registry
        progress.phase("writing registry", len(parsed))
        prev_paths = set(prev_files)
        gone = sorted(set(changed) | set(removed))
        # rows whose postings leave the BM25 arrays (row ids can be reused by new spans)
        deleted_rows = registry.rows_of_paths(gone) if base_path else []
        for rel in gone:
            registry.remove_document(rel)
        by_doc: dict[int, list[tuple[str, bytes]]] = {}
        for di, si, _t, h in all_texts:
            by_doc.setdefault(di, []).append((h, cache[h]))
        lex_docs: list[lexical.LexicalDoc] = []
        for di, (doc, spans) in enumerate(parsed):
            progress.advance()
            pairs = by_doc.get(di, [])
            registry.add_document(doc, spans, [h for h, _v in pairs], [v for _h, v in pairs])
            edges.store_document(registry, doc, spans)
            if doc.path in prev_paths:
                result.updated_documents += 1
            else:
                result.added_documents += 1
        result.removed_documents = len(removed)
        result.unchanged_documents = len(prev_files) - result.updated_documents - len(removed) if base_path else 0
        # -------- graph: resolve every reference against the new document set (phase 2)
        progress.phase("graph", None)
        graph = edges.rebuild_edges(registry, cfg.root, defines=cfg.graph_defines)
        for d in graph.dangling:
            result.warnings.append(
                {"path": d.path, "kind": "dangling-link", "message": f"dangling {d.kind} → {d.target}", "line": d.line, "col": None, "skipped": False}
            )
        result.edges = graph.edges
        result.graph_ms = round(graph.elapsed_ms, 1)
        if plan.strict and graph.dangling:
            err = StrictError(
                f"{len(graph.dangling)} dangling link(s) and --strict is set; the index was not changed",
                hint="fix the links named above (`orion links --dangling` lists them), or run without --strict",
            )
            err.warnings = result.warnings
            raise err
        registry.set_info("generation", plan.gen)
        registry.commit()
        rows = registry.span_rows_of([d.path for d, _ in parsed])
        for doc, spans in parsed:
            for span in spans:
                lex_docs.append(
                    lexical.LexicalDoc(
                        row=rows[span.ref.span_id],
                        span_id=span.ref.span_id,
                        path=doc.path,
                        title=doc.title,
                        headings=" / ".join(span.heading_path),
                        body=span.text,
                        tags=doc.tags,
                        stage=doc.stage,
                        workstream=doc.workstream,
                        source_type=doc.source_type.value,
                    )
                )

        # -------- lexical and semantic indices
        progress.phase("lexical index", None)
        lex_count = lexical.build(
            staging / "lexical", base_path / "lexical" if base_path else None, sorted(set(changed) | set(removed)), lex_docs
        )
        post_count = postings.build(
            staging / postings.DIR, base_path / postings.DIR if base_path else None, deleted_rows,
            [(d.row, lexical.lexical_text(d)) for d in lex_docs], all_docs=lambda: _all_lexical_texts(registry),
        )
        progress.phase("vector index", None)
        ids, mat = registry.all_vectors(dim)
        vec_count = vectors.build(staging / vectors.FILE, ids, mat, dim)
        counts = registry.counts()
        if not (counts["spans"] == lex_count == vec_count == post_count):
            raise OrionError(
                f"index build inconsistent: registry {counts['spans']} spans, lexical {lex_count}, "
                f"bm25 postings {post_count}, vectors {vec_count}",
                hint="run `orion index --full`; please report this",
            )
        files = dict(plan.versions)
        for rel in plan.kept:
            files[rel] = prev_files[rel]
        result.documents, result.spans, result.tokens = counts["documents"], counts["spans"], counts["tokens"]
        manifest = {
            "generation": plan.gen,
            "complete": True,
            "index_schema_version": INDEX_SCHEMA_VERSION,
            "tool_version": __version__,
            "model_id": spec.model_id,
            "dim": int(dim),
            "tokenizer": plan.tokenizer,
            "span_params": [cfg.span_target_tokens, cfg.span_max_tokens, cfg.span_min_tokens],
            "created_at": int(time.time()),
            "counts": {**counts, "edges": graph.edges},
            "files": dict(sorted(files.items())),
            "stats": {rel: plan.stats[rel] for rel in sorted(files) if rel in plan.stats},
            "file_warnings": {rel: plan.file_warnings[rel] for rel in sorted(plan.file_warnings) if rel in files},
        }
    finally:
        registry.close()
    manifest["checksums"] = file_checksums(staging)  # verified by every reader (layout.Layout.problem)
    atomic_write(staging / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())
