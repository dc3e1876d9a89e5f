"""The data model of the Working Set compiler, as frozen dataclasses.

Stages return new objects (``dataclasses.replace``); every class has ``to_dict()`` so the
``--json`` contract is built from these definitions and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from functools import cached_property
from enum import Enum
from typing import Any

SCHEMA_VERSION = 1  # version of the --json contract, per kind (docs/JSON.md)
COMPILE_SCHEMA_VERSION = 5  # compile: 4 = compact: quotes with their lines and text, details only with --explain; 5 = span ids by their unique prefix (docs/JSON.md)
LEAN_SCHEMA_VERSION = 1  # compile --format json-lean: documents as {"source", "text"}, as the XML (docs/JSON.md)

STAGES = ("requirements", "design", "research", "impl", "eval", "final")
# other words for a stage, in front matter and in --stage
STAGE_ALIASES = {
    "requirement": "requirements",
    "reqs": "requirements",
    "spec": "requirements",
    "implementation": "impl",
    "implement": "impl",
    "evaluation": "eval",
    "evaluate": "eval",
    "decision": "final",
    "done": "final",
}
CHANNELS = ("semantic", "lexical", "structural", "graph")


def normalise_stage(value: Any) -> str | None:
    """A stage as the index stores it: lower case, a synonym read as its stage
    (``STAGE_ALIASES``: "spec" -> "requirements"); None for no value or a blank one."""
    if value is None:
        return None
    text = str(value).strip().lower()
    return STAGE_ALIASES.get(text, text) or None


class SourceType(str, Enum):
    CONTEXT = "Context"
    KNOWLEDGE = "Knowledge"
    WORKSTREAM = "Workstream"
    ARTIFACT = "Artifact"


TOP_FOLDERS: dict[str, SourceType] = {
    "01_context": SourceType.CONTEXT,
    "02_knowledge": SourceType.KNOWLEDGE,
    "03_workstreams": SourceType.WORKSTREAM,
    "04_artifacts": SourceType.ARTIFACT,
}


def _plain(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return value.to_dict() if hasattr(value, "to_dict") else {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return round(value, 6)
    return value


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


# --------------------------------------------------------------------------- index side


def lines_label(start: int, end: int) -> str:
    """``L12-L40`` (``L12`` for one line; empty when not recorded)."""
    if not start:
        return ""
    return f"L{start}" if end == start else f"L{start}-L{end}"



@dataclass(frozen=True)
class SpanRef(_ToDict):
    doc_version_id: str  # sha256 of the document's bytes
    span_id: str  # stable within the version
    char_start: int  # offsets into the document text (decoded, BOM stripped, CRLF -> LF)
    char_end: int
    token_cost: int
    line_start: int = 0  # 1-based lines of the document the span covers (0: not recorded)
    line_end: int = 0

    @property
    def lines(self) -> str:
        return lines_label(self.line_start, self.line_end)


@dataclass(frozen=True)
class SpanMetadata(_ToDict):
    filepath: str  # relative to the project root, POSIX separators
    source_type: SourceType
    workstream: str | None = None
    stage: str | None = None
    section_title: str | None = None  # heading path, e.g. "Design > Storage"
    created_at: int = 0  # unix timestamp (front matter created/date, else git, else mtime)
    recency_score: float = 0.0  # [0,1], computed per compile
    title: str | None = None
    doc_id: str | None = None  # front matter `id`
    tags: tuple[str, ...] = ()
    status: str | None = None
    priority: int | None = None


SUMMARY_KEYS = ("description", "summary")  # front matter fields a page summarises itself in
SUMMARY_MAX_CHARS = 300  # longer is cut at a word: it is read with the first span, not instead of it


def page_summary(meta: Any) -> str:
    """The page's own summary from its front matter (``description``, else ``summary``, any
    case): one line, at most ``SUMMARY_MAX_CHARS`` characters cut at a word; "" when there is
    none or it is not text."""
    if not isinstance(meta, dict):
        return ""
    fields = {str(k).lower(): v for k, v in meta.items()}
    for key in SUMMARY_KEYS:
        value = fields.get(key)
        if isinstance(value, str) and value.strip():
            text = " ".join(value.split())
            if len(text) > SUMMARY_MAX_CHARS:
                text = text[:SUMMARY_MAX_CHARS].rsplit(" ", 1)[0]
            return text
    return ""


@dataclass(frozen=True)
class Document(_ToDict):
    path: str  # relative POSIX path
    doc_version_id: str
    text: str  # normalised text (BOM stripped, LF); offsets index this
    body_start: int  # char offset where the body (after front matter) begins
    meta: dict[str, Any]  # full front matter (unknown fields kept)
    source_type: SourceType
    title: str
    workstream: str | None
    stage: str | None
    created_at: int
    created_source: str  # "front-matter" | "name" (a date the file name begins with) | "git" | "mtime"
    tags: tuple[str, ...]
    size_bytes: int
    status: str | None = None  # front matter ``status`` (lower case), else the one its first lines state
    # supersession its first lines state where the front matter names none: (key, target,
    # line), key ``supersedes`` or ``superseded_by`` (index.stated)
    stated_refs: tuple[tuple[str, str, int], ...] = ()
    # the language it is written in: front matter ``lang`` / ``language``, else the one its
    # path states (``x.fr.md``, ``i18n/ja/…``), else read from its prose
    # (``oriongraph_cli.language``); None when that is not clear
    language: str | None = None

    @cached_property
    def summary(self) -> str:
        """The page's own summary (:func:`page_summary`), read with its first span (made
        once per document: the index asks for it span by span)."""
        return page_summary(self.meta)


@dataclass(frozen=True)
class Span(_ToDict):
    ref: SpanRef
    path: str
    ordinal: int  # position within the document
    heading_path: tuple[str, ...]  # ("Design", "Storage")
    heading_level: int  # level of the innermost heading (0 = before any heading)
    text: str

    @property
    def section_title(self) -> str | None:
        from oriongraph_cli.blocks import heading_labels

        return " > ".join(heading_labels(self.heading_path)) or None


# --------------------------------------------------------------------------- compile side


@dataclass(frozen=True)
class ScoreChannels(_ToDict):
    semantic: float = 0.0
    lexical: float = 0.0
    structural: float = 0.0
    graph: float = 0.0

    def get(self, name: str) -> float:
        return float(getattr(self, name))


@dataclass(frozen=True)
class ScoreWeights(_ToDict):
    """The specification's defaults; tuned values live in config.DEFAULTS (see docs/BENCHMARKS.md)."""

    semantic: float = 0.4
    lexical: float = 0.2
    structural: float = 0.2
    graph: float = 0.1
    recency: float = 0.05
    stage_boost: float = 0.05
    usage: float = 0.0


@dataclass(frozen=True)
class GenHit:
    """One candidate generator's hit: a span row, its raw channel score, and why."""

    row: int
    score: float
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class HardFilters(_ToDict):
    paths: tuple[str, ...] = ()  # glob patterns on the relative path
    stages: tuple[str, ...] = ()
    workstreams: tuple[str, ...] = ()
    source_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    since: int | None = None  # unix timestamp
    where: tuple[tuple[str, str], ...] = ()  # front matter KEY=VALUE

    def is_empty(self) -> bool:
        return not any((self.paths, self.stages, self.workstreams, self.source_types, self.tags, self.since, self.where))


@dataclass(frozen=True)
class SoftPreferences(_ToDict):
    prefer_stages: tuple[str, ...] = ()
    diversity_lambda: float = 0.7
    max_single_source_ratio: float = 0.5


@dataclass(frozen=True)
class StructHints(_ToDict):
    stages: tuple[str, ...] = ()
    workstreams: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()  # ADR-0007, ids named in the intent
    source_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompileRequest(_ToDict):
    intent: str
    budget_tokens: int = 4000
    task_id: str | None = None
    keywords: tuple[str, ...] = ()
    episode_id: str | None = None
    hard_filters: HardFilters = field(default_factory=HardFilters)
    soft_prefs: SoftPreferences = field(default_factory=SoftPreferences)
    weights: ScoreWeights | None = None  # None: configured defaults
    fusion: str | None = None  # "weighted" | "rrf"; None: configured default
    explain: bool = True
    top_k: int = 200  # candidates per generator
    deliver: tuple[str, ...] = ("markdown",)  # formats whose whole rendered output must fit the budget
    compress: bool = True  # shorten spans that do not fit whole instead of dropping them
    timings: bool = False
    expand: bool = False  # bring PREV/NEXT/parent context of selected spans when budget allows
    record_usage: bool = True  # append this compile to the usage log (when the config allows)
    relax: bool = True  # valid filters that match nothing together are relaxed (False: exit 5)


@dataclass(frozen=True)
class DerivedSignals(_ToDict):
    intent: str  # normalised
    keywords: tuple[str, ...]
    struct_hints: StructHints
    episode_context: str | None = None
    # the embedding is kept out of to_dict (large); generators read it from here
    intent_embedding: Any = field(default=None, repr=False, compare=False)
    # the lexical channel's best raw BM25 score, once the generators have run (None before;
    # 0.0 when it found nothing): ``rank.weights.effective_weights`` reads it
    lexical_best: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.pop("intent_embedding", None)
        return d


@dataclass(frozen=True)
class CandidateSpan(_ToDict):
    span_ref: SpanRef
    metadata: SpanMetadata
    raw_scores: ScoreChannels = field(default_factory=ScoreChannels)  # as the generators produced them
    scores: ScoreChannels = field(default_factory=ScoreChannels)  # normalised to [0,1]
    text_preview: str = ""
    base_score: float = 0.0
    mmr_score: float = 0.0
    stage_boost: float = 0.0
    usage_score: float = 0.0
    reasons: tuple[str, ...] = ()  # human-readable, accumulated by every stage
    components: dict[str, float] = field(default_factory=dict)  # usage-score parts
    row: int = -1  # registry rowid (FAISS id); internal
    embedding: Any = field(default=None, repr=False, compare=False)  # normalised np.ndarray
    # a span of the document scoring reads whole (rank/score.py, document evidence): selection
    # leaves that document out of the per-source cap; internal
    read_whole: bool = field(default=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.pop("embedding", None)
        d.pop("row", None)
        d.pop("read_whole", None)
        m = self.metadata
        return {**span_fields(self.span_ref, m.filepath, m.title, m.section_title, m.stage, m.workstream, m.source_type), **d}


class _DeferredReasons:
    """``CandidateSpan.reasons`` of a candidate whose reasons were left unformatted: it holds
    ``(format, args)`` under ``_reasons_of``, and the text is made on the first read and kept.
    Scoring gives ~2,000 candidates per compile their reasons and an output shows a few dozen,
    so the text is made for those only — the same text, whenever it is read. A candidate
    whose ``reasons`` were given (the constructor, ``replace``) never reaches this."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return ()
        d = obj.__dict__
        pending = d.get("_reasons_of")
        value = pending[0](*pending[1]) if pending is not None else ()
        d["reasons"] = value  # frozen: kept where the field lives, as if given
        return value


CandidateSpan.reasons = _DeferredReasons()  # type: ignore[assignment,misc]  # (after @dataclass read the default)


def with_reasons(cand: CandidateSpan, more: tuple[str, ...], **changes: Any) -> CandidateSpan:
    """A copy of ``cand`` with ``changes`` and the reasons ``more`` appended (each once):
    ``replace(cand, reasons=…, **changes)``, except that reasons not made yet stay
    unmade (``_DeferredReasons``) — the same text when read."""
    new = object.__new__(type(cand))
    d = new.__dict__
    d.update(cand.__dict__, **changes)
    if "reasons" in d:
        d["reasons"] = _appended(d["reasons"], more)
    else:
        d["_reasons_of"] = (_appended_to, (d.get("_reasons_of"), more))
    return new


def _appended(existing: tuple[str, ...], more: tuple[str, ...]) -> tuple[str, ...]:
    out = list(existing)
    for r in more:
        if r not in out:
            out.append(r)
    return tuple(out)


def _appended_to(pending, more: tuple[str, ...]) -> tuple[str, ...]:
    return _appended(pending[0](*pending[1]) if pending is not None else (), more)


PRIORITIES = ("critical", "high", "medium", "low")


@dataclass(frozen=True)
class Compression(_ToDict):
    """A span delivered shortened: extractive, deterministic; ``backref`` fetches it whole."""

    level: str  # a name in assemble.compress.COMPRESSORS: sentences | heading | pointer
    tokens_full: int  # the span's whole cost
    tokens: int  # what is delivered
    backref: str  # "orion show <span_id>"


def is_pointer(item: Any) -> bool:
    """Whether ``item`` (a working-set span or a quote: anything with a ``compression``) is
    shortened to a one-line pointer, which quotes none of its text."""
    c = item.compression
    return c is not None and c.level == "pointer"


@dataclass(frozen=True)
class Copy(_ToDict):
    """Another span holding a quoted span's text word for word (a versioned site's copy of
    a page, a shared include): left out of the working set, which names it beside the text
    it repeats instead of quoting the same words twice."""

    path: str
    span_id: str
    line_start: int
    line_end: int


@dataclass(frozen=True)
class WSItem(_ToDict):
    span_ref: SpanRef
    path: str
    section_title: str | None
    text: str  # hydrated after selection (shortened when ``compression`` is set)
    selection_rank: int  # 1-based pick order (the working set is presented in reading order)
    source_weight: float  # base score share (debugging)
    stale: bool = False  # the file changed since it was indexed; text is the indexed version
    expansion_of: str | None = None  # span_id this item expands (--expand)
    compression: Compression | None = None  # None: quoted whole
    # document metadata for grouping by document (hydrate fills them)
    title: str | None = None
    stage: str | None = None
    workstream: str | None = None
    score: float = 0.0  # base score (relevance before diversity)
    priority: str = "medium"  # one of PRIORITIES: how far it may be shortened
    reasons: tuple[str, ...] = ()
    status: str | None = None  # front matter status of its document
    copies: tuple[Copy, ...] = ()  # other documents' spans with this text, word for word (not for a pointer)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        return {**span_fields(self.span_ref, self.path, self.title, self.section_title, self.stage, self.workstream, None), **d}

    def brief_dict(self) -> dict[str, Any]:
        """The span inside a quote of ``--json``: id, lines, cost, score, priority and its
        first two reasons (all of them with ``--explain``); its text, character range and
        section are the quote's. Fields at
        their default (not stale, not an expansion, whole) are left out."""
        ref = self.span_ref
        d: dict[str, Any] = {
            "span_id": ref.span_id, "rank": self.selection_rank, "line_start": ref.line_start, "line_end": ref.line_end,
            "token_cost": ref.token_cost, "score": round(self.score, 4), "priority": self.priority,
            "reasons": list(self.reasons[:BRIEF_REASONS]),
        }
        if self.compression is not None:
            d["compression"] = _plain(self.compression)
        if self.stale:
            d["stale"] = True
        if self.expansion_of:
            d["expansion_of"] = self.expansion_of
        if self.copies:
            d["copies"] = [c.to_dict() for c in self.copies]
        return d


BRIEF_REASONS = 2  # reasons per span in the lean --json (the rationale has them all)


@dataclass(frozen=True)
class Quote(_ToDict):
    """One continuous passage of a document: adjacent or overlapping spans merged, or one
    shortened span. ``elided_before`` names what was skipped since the previous quote."""

    items: tuple[WSItem, ...]  # in document order
    text: str  # what is delivered (links rewritten relative to the project root)
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    section_title: str | None
    elided_before: str | None = None  # "L41-L60: Consequences" (None: nothing skipped or first quote)

    @property
    def lines(self) -> str:
        return lines_label(self.line_start, self.line_end)

    @property
    def compression(self) -> Compression | None:
        return self.items[0].compression if len(self.items) == 1 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "line_start": self.line_start, "line_end": self.line_end, "char_start": self.char_start,
            "char_end": self.char_end, "section_title": self.section_title, "elided_before": self.elided_before,
            "text": self.text, "spans": [i.brief_dict() for i in self.items],
        }


@dataclass(frozen=True)
class WSDocument(_ToDict):
    """A document of the working set with its quotes in reading order."""

    path: str
    title: str | None
    stage: str | None
    workstream: str | None
    status: str | None  # front matter status, e.g. "superseded by ADR-0007"
    best_rank: int  # the pick order of its best span: documents are ordered by it
    quotes: tuple[Quote, ...]

    @property
    def line_start(self) -> int:
        return min((q.line_start for q in self.quotes if q.line_start), default=0)

    @property
    def line_end(self) -> int:
        return max((q.line_end for q in self.quotes), default=0)

    @property
    def lines(self) -> str:
        return lines_label(self.line_start, self.line_end)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "title": self.title, "stage": self.stage, "workstream": self.workstream,
            "status": self.status, "line_start": self.line_start, "line_end": self.line_end,
            "quotes": [q.to_dict() for q in self.quotes],
        }


@dataclass(frozen=True)
class LeftOut(_ToDict):
    """A document that scored well but is not in the working set, and what would let it in."""

    path: str
    score: float  # its best candidate's base score
    span_id: str
    reason: str  # "budget" | "redundancy" | "source_cap" | "floor" | ...
    detail: str  # "needs budget >= 4,180"


def span_fields(ref: SpanRef, path: str, title: str | None, section_title: str | None, stage: str | None,
                workstream: str | None, source_type: Any) -> dict[str, Any]:
    """The fields every span carries under the same names in ``compile``, ``search`` and
    ``show`` JSON (docs/JSON.md): id, where it is, what it costs."""
    out = {
        "span_id": ref.span_id,
        "path": path,
        "line_start": ref.line_start,
        "line_end": ref.line_end,
        "char_start": ref.char_start,
        "char_end": ref.char_end,
        "token_cost": ref.token_cost,
        "doc_version_id": ref.doc_version_id,
        "title": title,
        "section_title": section_title,
        "stage": stage,
        "workstream": workstream,
    }
    if source_type is not None:
        out["source_type"] = getattr(source_type, "value", source_type)
    return out


@dataclass(frozen=True)
class WorkingSet(_ToDict):
    documents: tuple[WSDocument, ...]  # reading order: documents by their best span, quotes in document order
    total_tokens: int  # tokens of quoted text (shortened quotes at their delivered size)

    @property
    def spans(self) -> tuple[WSItem, ...]:
        """Every span, in reading order."""
        return tuple(i for d in self.documents for q in d.quotes for i in q.items)

    @property
    def ranked(self) -> tuple[WSItem, ...]:
        """Every span, in pick order (rank)."""
        return tuple(sorted(self.spans, key=lambda i: i.selection_rank))


@dataclass(frozen=True)
class SpanExplanation(_ToDict):
    span_ref: SpanRef
    path: str
    section_title: str | None
    final_score: float  # MMR score at the moment it was picked
    base_score: float
    diversity_penalty: float  # (1-λ)·max_sim to the spans chosen before it
    raw_scores: ScoreChannels
    scores: ScoreChannels
    weights: ScoreWeights
    recency_score: float
    stage_boost: float
    usage_score: float
    final_rank: int
    reasons: tuple[str, ...]
    components: dict[str, float] = field(default_factory=dict)  # usage-score parts


@dataclass(frozen=True)
class Rejection(_ToDict):
    span_id: str
    path: str
    section_title: str | None
    base_score: float
    token_cost: int
    reason: str  # "budget" | "redundancy" | "duplicate" | "source_cap" | "floor" | "document_floor" | "threshold" | "outranked" | "pruned"
    detail: str  # what would let it in: "needs budget >= 4,180", "lost to span 3f2a… (cos 0.93)"
    related_span_id: str | None = None


@dataclass(frozen=True)
class CompileStats(_ToDict):
    tokens_used: int
    budget: int
    utilization: float
    candidates_seen: dict[str, int]  # per generator
    candidates_total: int
    selected: int
    dropped: int  # candidates that were considered but not selected
    sources: int  # distinct documents in the working set
    fusion: str
    relaxed_filters: tuple[str, ...] = ()  # filters dropped to find candidates
    generator_errors: dict[str, str] = field(default_factory=dict)
    stale_spans: int = 0
    timings_ms: dict[str, float] | None = None  # only with --timings
    delivered: dict[str, int] = field(default_factory=dict)  # format -> tokens of its whole output (<= budget)
    format: str = "markdown"  # the format asked for (its count is ``delivered_tokens``)
    compressed: int = 0  # spans delivered shortened
    stop: str = ""  # why selection stopped short of the budget, when it did

    @property
    def delivered_tokens(self) -> int:
        return self.delivered.get(self.format, max(self.delivered.values(), default=0))


@dataclass(frozen=True)
class CompileResponse(_ToDict):
    request: CompileRequest
    signals: DerivedSignals
    workingset: WorkingSet
    stats: CompileStats
    rationale: tuple[SpanExplanation, ...] | None
    rejected: tuple[Rejection, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)  # effective weights/λ/ratio, for --explain
    index: dict[str, Any] = field(default_factory=dict)  # generation, model, tokenizer
    episode_id: str | None = None  # the usage-log record of this compile (random: only in the --json payload)
    left_out: tuple[LeftOut, ...] = ()  # documents of note not in the working set
    compact: bool = False  # a small budget: no preamble and no left-out list, so spans get the room
    id_length: int | None = None  # the span id prefix that is unique in the index (None: whole ids)

    def short_id(self, span_id: str) -> str:
        """``span_id`` as the outputs quote it: its prefix that no other span of the index
        shares (``orion show`` and the MCP ``get_span`` take it)."""
        return span_id[: self.id_length] if self.id_length else span_id

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.pop("episode_id", None)
        d.pop("id_length", None)
        return {"schema_version": COMPILE_SCHEMA_VERSION, "kind": "compile", **d}
