"""`orion status`: what is indexed and what has changed on disk since."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any

from oriongraph_cli.config import Config
from oriongraph_cli.errors import NoIndexError
from oriongraph_cli.models import SCHEMA_VERSION
from oriongraph_cli.store.layout import MANIFEST, Layout
from oriongraph_cli.walk import walk


def project_status(cfg: Config) -> dict[str, Any]:
    layout = Layout(cfg.index_dir)
    files, _warnings = walk(cfg.root)
    gen = layout.current() if layout.exists() else None
    if gen is None:
        raise NoIndexError(f"no index in {cfg.index_dir}", hint=f"run `orion index --root {cfg.root}` first")
    manifest = json.loads((layout.gen_dir / gen / MANIFEST).read_text())
    indexed: dict[str, str] = manifest.get("files", {})
    modified, new = [], []
    for f in files:
        try:
            digest = hashlib.sha256(f.abs.read_bytes()).hexdigest()
        except OSError:
            continue
        if f.rel not in indexed:
            new.append(f.rel)
        elif indexed[f.rel] != digest:
            modified.append(f.rel)
    on_disk = {f.rel for f in files}
    deleted = sorted(p for p in indexed if p not in on_disk)
    counts = manifest.get("counts", {})
    created = int(manifest.get("created_at", 0))
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "status",
        "root": str(cfg.root),
        "generation": gen,
        "generations": layout.generations(),
        "indexed_at": created,
        "indexed_at_iso": dt.datetime.fromtimestamp(created, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ"),
        "documents": counts.get("documents", 0),
        "spans": counts.get("spans", 0),
        "tokens": counts.get("tokens", 0),
        "model": manifest.get("model_id"),
        "dim": manifest.get("dim"),
        "tokenizer": manifest.get("tokenizer"),
        "index_schema_version": manifest.get("index_schema_version"),
        "tool_version": manifest.get("tool_version"),
        "stale": {"modified": sorted(modified), "new": sorted(new), "deleted": deleted},
        "up_to_date": not (modified or new or deleted),
    }
