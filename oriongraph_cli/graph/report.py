"""`orion links`: what links in and out of a document or span, and dangling links."""

from __future__ import annotations

from typing import Any

from oriongraph_cli.config import Config
from oriongraph_cli.errors import ExitStatus, NotFoundError, OrionError
from oriongraph_cli.store.reader import IndexReader


def _resolve(reader, target: str) -> str:
    """A document path, a document id (ADR-0007) or a span id / unique prefix -> the key
    the edges table uses (path or full span id)."""
    docs = reader.documents
    by_path = {d["path"] for d in docs}
    clean = target.strip().lstrip("./")
    if clean in by_path:
        return clean
    by_id = reader.paths_with_id(clean)
    if len(by_id) == 1:
        return by_id[0]
    found = reader.registry.span_by_id(clean)
    if isinstance(found, list):
        raise NotFoundError(f"span id prefix {target!r} is ambiguous", hint="give more characters of the id")
    if found is not None:
        return found["span_id"]
    raise NotFoundError(
        f"{target!r} is neither an indexed document path, a document id nor a span id",
        hint="paths are relative to the project root, e.g. 03_workstreams/ws-ingestion/design/worker.md",
    )


def links_of(cfg: Config, target: str | None, *, dangling: bool = False, structural: bool = False) -> dict[str, Any]:
    from oriongraph_cli.graph import edges

    reader = IndexReader(cfg, load_embedder=False)
    try:
        registry = reader.registry
        if not edges.has_tables(registry):
            raise OrionError("this index has no link graph (built by an older orion)", hint="run `orion index --full`")
        if dangling:
            items = edges.dangling(registry, _resolve(reader, target) if target else None)
            return {"schema_version": 1, "kind": "dangling-links", "generation": reader.generation, "dangling": [d.to_dict() for d in items]}
        if not target:
            raise OrionError("name a document path, document id or span id — or pass --dangling", hint="e.g. orion links ADR-0007",
                             exit_code=ExitStatus.USAGE)
        report = edges.links_report(registry, _resolve(reader, target), include_structural=structural)
        report["generation"] = reader.generation
        return report
    finally:
        reader.close()
