"""Whether the next ``orion index`` rebuilds the index instead of updating it: the one
decision the indexer acts on and ``orion status`` reports. Light on purpose — status reads
it without importing the indexer or numpy."""

from __future__ import annotations

from oriongraph_cli import graph
from oriongraph_cli.config import Config
from oriongraph_cli.errors import OrionError
from oriongraph_cli.index import parse
from oriongraph_cli.store.manifest import INDEX_SCHEMA_VERSION, Manifest
from oriongraph_cli.tokens import expected_name


def rebuild_reason(manifest: Manifest | None, cfg: Config, model_id: str, tokenizer: str, full: bool) -> str | None:
    """Why an index run with these settings rebuilds (``--full``, no index yet, or the index
    schema, model, tokenizer, span sizes or the rules files are parsed by changed since
    ``manifest``), or None."""
    if full:
        return "--full"
    if manifest is None:
        return "first index"
    checks = [
        ("index_schema_version", manifest.index_schema_version, INDEX_SCHEMA_VERSION, "index schema changed"),
        ("model_id", manifest.model_id, model_id, "embedding model changed"),
        ("tokenizer", manifest.tokenizer, tokenizer, "tokenizer changed"),
        ("span_params", manifest.span_params, [cfg.span_target_tokens, cfg.span_max_tokens, cfg.span_min_tokens], "span sizes changed"),
        ("parse_rules", manifest.parse_rules or 1, parse.PARSE_RULES, "parse rules changed"),
    ]
    for _key, had, value, reason in checks:
        if had != value:
            return f"{reason} ({had!r} -> {value!r})"
    return None


def pending_rebuild(cfg: Config, manifest: Manifest) -> str | None:
    """Why the next ``orion index`` rebuilds this index rather than updating it (its schema,
    the model, the tokenizer or the span sizes changed), or None. A model setting that cannot
    be resolved is left to the index run to report."""
    from oriongraph_cli.store.model import resolve_model

    try:
        model_id = resolve_model(cfg).model_id
    except OrionError:
        model_id = manifest.model_id
    return rebuild_reason(manifest, cfg, model_id, expected_name(cfg.tokenizer) or manifest.tokenizer, False)


def relink_reason(manifest: Manifest | None, repository: list[str] | None = None) -> str | None:
    """Why the next ``orion index`` resolves every stored link again: the index's links were
    resolved by other rules than this orion's (``graph.LINK_RULES``; an index written before
    the rules were versioned has version 1), or against other repositories than the project's
    now (``repository``: ``OwnRepository.state()``), or None. A rebuild resolves them anyway."""
    if manifest is None:
        return None
    if manifest.link_rules != graph.LINK_RULES:
        return f"link rules changed ({manifest.link_rules or 1} -> {graph.LINK_RULES})"
    if manifest.repository != repository:
        now = [k for k in repository or () if not k.startswith("prefix:")]
        return f"the project's repositories changed (now {', '.join(now) or 'none'})"
    return None


def other_files_changed(manifest: Manifest | None, digest: str) -> bool:
    """Whether files other than notes (images, PDFs, code) were added to or removed from the
    stage folders since the index recorded their paths (``digest``: ``walk.OtherFiles``);
    False for an index that did not record them. The links that asked the file system are
    then looked up again by the next ``orion index``."""
    return manifest is not None and manifest.other_files is not None and manifest.other_files != digest
