"""`orion status`: what is indexed, whether it is intact, and what has changed on disk since."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from typing import Any

from oriongraph_cli.config import Config
from oriongraph_cli.errors import NoIndexError, index_command
from oriongraph_cli.index.rebuild import other_files_changed, pending_rebuild, relink_reason
from oriongraph_cli.index.remotes import own_repository
from oriongraph_cli.index.walk import OtherFiles, walk
from oriongraph_cli.models import SCHEMA_VERSION
from oriongraph_cli.safeio import UnsafeFile, read_project_file, unchanged_since
from oriongraph_cli.store.layout import Layout
from oriongraph_cli.store.manifest import Manifest


def _skipped(cfg: Config, f):
    """Why ``orion index`` skips the file ``f`` (a ParseWarning: empty, binary, not UTF-8,
    too large, unsafe), or None when it would index it."""
    from oriongraph_cli.index.parse import read_note  # only for a file the index does not hold

    return read_note(cfg.root, f, cfg.max_file_bytes)[2]


def project_status(cfg: Config) -> dict[str, Any]:
    layout = Layout(cfg.index_dir)
    others = OtherFiles()
    files, _warnings = walk(cfg.root, others)
    # every byte of the current generation is checked against its manifest
    gen = layout.current(full=True, warn=False) if layout.exists() else None
    damaged = [{"generation": g, "problem": why} for g, why in getattr(layout, "damaged", [])]
    if gen is None:
        if damaged:
            raise NoIndexError(
                f"the index in {cfg.index_dir} is damaged (generation {damaged[0]['generation']}: {damaged[0]['problem']})",
                hint=f"run `{index_command(cfg.root)}` to rebuild it",
            )
        raise NoIndexError(f"no index in {cfg.index_dir}", hint=f"run `{index_command(cfg.root)}` first")
    manifest = Manifest.load(layout.gen_dir / gen)
    indexed = manifest.files
    stats = manifest.stats
    modified, new, skipped = [], [], []
    for f in files:
        if f.rel not in indexed:
            why = _skipped(cfg, f)
            if why is None:
                new.append(f.rel)
            else:  # `orion index` reads it and skips it again: nothing to run it for
                skipped.append({"path": f.rel, "kind": why.kind, "message": why.message})
            continue
        try:  # an unchanged stat (git's rules, as `orion index` applies them) needs no read
            st = os.stat(f.abs_path)
        except OSError:
            continue
        if unchanged_since(st, stats.get(f.rel), manifest.created_at):
            continue
        try:
            got = read_project_file(cfg.root, f.rel, cfg.max_file_bytes, expect=f.identity)
        except UnsafeFile as exc:
            if exc.kind == "too-large":  # `orion index` skips it and keeps the version it indexed
                skipped.append({"path": f.rel, "kind": exc.kind, "message": f"{exc.reason} (its indexed version kept)"})
            continue
        if indexed[f.rel] != hashlib.sha256(got.data).hexdigest():
            why = _skipped(cfg, f)  # emptied, made binary or not UTF-8: skipped, its indexed version kept
            if why is None:
                modified.append(f.rel)
            else:
                skipped.append({"path": f.rel, "kind": why.kind, "message": f"{why.message} (its indexed version kept)"})
    on_disk = {f.rel for f in files}
    deleted = sorted(p for p in indexed if p not in on_disk)
    counts = manifest.counts
    created = manifest.created_at
    rebuild = pending_rebuild(cfg, manifest)
    repository = own_repository(cfg.root, cfg.repository)
    relink = None if rebuild else relink_reason(manifest, repository.state())
    other_files = not (rebuild or relink) and other_files_changed(manifest, others.digest())
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "status",
        "root": str(cfg.root),
        "generation": gen,
        "generations": layout.generations(),
        "indexed_at": created,
        "indexed_at_iso": dt.datetime.fromtimestamp(created, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "documents": counts.documents,
        "spans": counts.spans,
        "tokens": counts.tokens,
        "model": manifest.model_id,
        "dim": manifest.dim,
        "tokenizer": manifest.tokenizer,
        "index_schema_version": manifest.index_schema_version,
        "tool_version": manifest.tool_version,
        "stale": {"modified": sorted(modified), "new": sorted(new), "deleted": deleted},
        "skipped": sorted(skipped, key=lambda s: s["path"]),
        "damaged": damaged,
        "rebuild": rebuild,
        "relink": relink,
        "repositories": sorted(repository.keys),
        "other_files_changed": other_files,
        "up_to_date": not (modified or new or deleted or damaged or rebuild or relink or other_files),
    }
