"""Intent -> DerivedSignals: normalised intent, keywords and structural hints (the intent
as a query object, built heuristically — no LLM call). The embedding is added by the
caller, which owns the model."""

from __future__ import annotations

import re
import unicodedata

from oriongraph_cli.docids import SERIES_TOKEN_RE
from oriongraph_cli.models import STAGES, CompileRequest, DerivedSignals, StructHints

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her here hers
    how i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these they this those through
    to too under until up very was we were what when where which while who whom why will with would you your yours
    add make use using need needs want get show tell find give write should must let lets please also like""".split()
)
TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*|\d+(?:\.\d+)?")
DOC_ID_RE = re.compile(r"\b([A-Z]{2,}[A-Z0-9]*-\d[\w-]*)\b")
QUOTED_RE = re.compile(r"\"([^\"]{2,80})\"")
STAGE_WORDS = {
    "requirement": "requirements", "requirements": "requirements", "spec": "requirements", "specification": "requirements",
    "design": "design", "architecture": "design",
    "research": "research", "investigate": "research", "investigation": "research",
    "implement": "impl", "implementation": "impl", "impl": "impl",
    "eval": "eval", "evaluation": "eval", "evaluate": "eval", "benchmark": "eval", "benchmarks": "eval",
    "final": "final", "decision": "final", "decisions": "final", "adr": "final", "adrs": "final", "decided": "final",
}
SOURCE_WORDS = {"context": "Context", "knowledge": "Knowledge", "workstream": "Workstream", "artifact": "Artifact", "artifacts": "Artifact"}


def normalise_intent(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return " ".join(text.split())


def keywords(text: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Content words in order of appearance, deduplicated; quoted phrases and ids kept whole."""
    out: list[str] = []
    for phrase in QUOTED_RE.findall(text):
        out.append(phrase.lower())
    for m in DOC_ID_RE.finditer(text):
        out.append(m.group(1))
    for tok in TOKEN_RE.findall(text):
        low = tok.lower()
        if low in STOPWORDS or (len(low) < 2 and not low.isdigit()):
            continue
        out.append(low)
    out.extend(k.strip().lower() for k in extra if k.strip())
    return tuple(dict.fromkeys(out))


def id_forms(ident: str) -> set[str]:
    """Lower-case keys an id in an intent may name: itself and its first two dash parts
    ("ADR-0007-backoff" names ADR-0007)."""
    low = ident.lower()
    parts = low.split("-", 2)
    return {low, "-".join(parts[:2])} if len(parts) >= 2 else {low}


def derive(
    request: CompileRequest,
    *,
    workstreams: set[str] = frozenset(),
    tags: set[str] = frozenset(),
    doc_keys: set[str] | None = None,
) -> DerivedSignals:
    """``doc_keys`` (the lower-case ids of the indexed documents: front matter ``id``s and
    those a file name or title gives, ``lookups.by_key``) grounds the id hints: "PD-1" or
    "HIV-1" in an intent looks like an id but names no document, and must not switch the
    structural channel on (with ``None`` every id-shaped word with a dash counts; one
    without, MSC2290, counts only where a document is known by it)."""
    intent = normalise_intent(request.intent)
    kws = keywords(intent, request.keywords)
    words = {k.lower() for k in kws}
    stages = tuple(dict.fromkeys(STAGE_WORDS[w] for w in kws if w in STAGE_WORDS))
    ws_hits = []
    for ws in sorted(workstreams):
        short = ws.lower().removeprefix("ws-").removeprefix("ws_")
        if ws.lower() in words or short in words:
            ws_hits.append(ws)
    tag_hits = sorted(t for t in tags if t.lower() in words)
    doc_ids = tuple(dict.fromkeys(m.group(1) for m in DOC_ID_RE.finditer(intent)))
    if doc_keys is not None:
        series = (m.group(1) for m in SERIES_TOKEN_RE.finditer(intent))  # MSC2290: an id only where a document has it
        doc_ids = tuple(dict.fromkeys(i for i in (*doc_ids, *series) if id_forms(i) & doc_keys))
    sources = tuple(dict.fromkeys(SOURCE_WORDS[w] for w in kws if w in SOURCE_WORDS))
    hints = StructHints(stages=tuple(s for s in stages if s in STAGES), workstreams=tuple(ws_hits), tags=tuple(tag_hits), doc_ids=doc_ids, source_types=sources)
    return DerivedSignals(intent=intent, keywords=kws, struct_hints=hints, episode_context=request.episode_id)


def from_index(request: CompileRequest, reader) -> DerivedSignals:
    """Keywords and structural hints of ``request``, grounded in what the index holds
    (workstreams, tags, document ids); the intent embedding is added by the pipeline."""
    return derive(request, workstreams=reader.workstreams, tags=reader.tags, doc_keys=reader.memo("doc-keys", lambda: reader.lookups.doc_keys))
