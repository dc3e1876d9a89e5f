"""What every candidate generator shares: the protocol, the context it is given, and the
hard filters its hits must obey."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from oriongraph_cli.models import CandidateSpan, CompileRequest, DerivedSignals, GenHit, HardFilters, ScoreWeights
from oriongraph_cli.rank.languages import LANGUAGE_KEYS, languages_of
from oriongraph_cli.store.reader import IndexReader, SpanRow

if TYPE_CHECKING:
    from oriongraph_cli.config import Config


@dataclass(frozen=True)
class GenContext:
    """What a generator may look at. The generators that run on the intent alone use the
    first four; those that ``follow`` the others also get the candidates found so far
    (``found``), their base scores on demand (``base()``, in ``found`` order) and the
    compile's request, settings and weights."""

    reader: IndexReader
    signals: DerivedSignals
    filters: HardFilters
    top_k: int
    request: CompileRequest | None = None
    cfg: "Config | None" = None
    weights: ScoreWeights | None = None
    found: Sequence[CandidateSpan] = ()
    base: Callable[[], list[float]] = field(default=lambda: [])


class Generator(Protocol):
    """A source of candidate spans. ``channel`` is the ``ScoreChannels`` field its scores
    fill (None: it only brings candidates, scored by the other channels); ``follows``:
    it runs after the generators that do not, on their candidates (registry order), else
    concurrently with them on the intent; ``needs_embedding``: it waits for the intent
    embedding. ``wanted(ctx)`` says whether it runs in this compile, and ``adjust``
    (optional) changes the fused scores afterwards."""

    name: str
    channel: str | None
    follows: bool
    needs_embedding: bool

    def wanted(self, ctx: GenContext) -> bool: ...

    def generate(self, ctx: GenContext) -> list[GenHit]: ...


class FromIntent:
    """Defaults of a generator that works from the intent alone, in every compile."""

    follows = False
    needs_embedding = False

    def wanted(self, ctx: GenContext) -> bool:
        return True


def allowed(row: SpanRow, f: HardFilters, in_language: Callable[[str, str], bool] | None = None) -> bool:
    """Whether ``row`` passes the hard filters. ``--where status=…`` also reads the status a
    note's first lines state, and ``--where lang=…`` (or ``language``) the language the
    index read for the document (``in_language(path, value)``, :func:`filter_hits`'s)."""
    m = row.meta
    if f.paths and not any(fnmatch.fnmatch(m.filepath, p) or m.filepath.startswith(p.rstrip("/") + "/") for p in f.paths):
        return False
    if f.stages and (m.stage or "") not in f.stages and not ("final" in f.stages and _accepted_decision(row)):
        return False
    if f.workstreams and (m.workstream or "") not in f.workstreams:
        return False
    if f.source_types and m.source_type.value.lower() not in {s.lower() for s in f.source_types}:
        return False
    if f.tags and not set(t.lower() for t in f.tags) <= set(m.tags):
        return False
    if f.since is not None and m.created_at < f.since:
        return False
    for key, value in f.where:
        have = row.front_matter.get(key)
        if have is None:  # a key written in another case, `--where Category=wallets`
            have = next((v for k, v in row.front_matter.items() if str(k).lower() == key.lower()), None)
        if have is None and key.lower() == "status":
            have = m.status  # stated in the note's first lines ("## Status" / "Accepted")
        values = [str(v).lower() for v in have] if isinstance(have, list) else [str(have).lower()] if have is not None else []
        if value.lower() in values:
            continue
        if key.lower() in LANGUAGE_KEYS and in_language is not None and in_language(m.filepath, value):
            continue
        return False
    return True


def _accepted_decision(row: SpanRow) -> bool:
    """An accepted ADR is a final decision whatever its `stage` says (`--stage final`)."""
    from oriongraph_cli.rank.lifecycle import is_decision

    m = row.meta
    return (m.status or "").lower() == "accepted" and is_decision(m.filepath, m.doc_id, m.tags)


TIE_DEPTH = 8  # hits fetched past the k-th, to see whether equal scores continue past the cut


def ranked(reader: IndexReader, hits: Sequence[GenHit], k: int | None = None) -> list[GenHit]:
    """``hits`` best first — score descending, equal scores by span id — and at most ``k``.

    Registry rows number spans differently in an updated index and in a rebuild of the same
    files, so neither the order of a tie nor which side of the ``k``-th place it falls on
    may follow rows: the whole group of hits scoring the ``k``-th score is ordered by span
    id before the cut. Span ids are looked up only for hits that share a score."""
    out = sorted(hits, key=lambda h: -h.score)
    if k is not None and len(out) > k:
        kth = out[k - 1].score
        out = [h for h in out if h.score >= kth]
    seen: dict[float, int] = {}
    for h in out:
        seen[h.score] = seen.get(h.score, 0) + 1
    tied = [h.row for h in out if seen[h.score] > 1]
    if tied:
        sid = reader.span_ids(tied)
        out.sort(key=lambda h: (-h.score, sid.get(h.row, "")))
    return out if k is None else out[:k]


def ranked_rows(reader: IndexReader, scores: dict[int, float], k: int) -> list[int]:
    """The rows :func:`ranked` keeps of hits scoring ``scores`` (row -> score), in its
    order — for a generator that scores many more rows than it keeps and makes its hits
    for those only."""
    out = sorted(scores, key=scores.__getitem__, reverse=True)  # equal scores: ordered by span id below
    if len(out) > k:
        kth = scores[out[k - 1]]
        out = [r for r in out if scores[r] >= kth]
    seen: dict[float, int] = {}
    for r in out:
        sc = scores[r]
        seen[sc] = seen.get(sc, 0) + 1
    tied = [r for r in out if seen[scores[r]] > 1]
    if tied:
        sid = reader.span_ids(tied)
        out.sort(key=lambda r: (-scores[r], sid.get(r, "")))
    return out[:k]


def search_ranked(search: Callable[[int], list], k: int) -> list:
    """The results of ``search(n)`` (best first, at most ``n``, score second in each) deep
    enough that every result scoring the ``k``-th score is among them: fetched ``k +
    TIE_DEPTH`` deep, and deeper while the last one fetched still ties the ``k``-th. Pass
    them, as hits, to :func:`ranked` with the same ``k``."""
    n = k + TIE_DEPTH
    while True:
        found = search(n)
        if len(found) < n or len(found) <= k or found[-1][1] != found[k - 1][1]:
            return found
        n *= 2


def filter_hits(reader: IndexReader, hits: list[GenHit], f: HardFilters) -> list[GenHit]:
    if f.is_empty():
        return hits
    rows = reader.rows([h.row for h in hits])
    in_language = None
    asked = [value for key, value in f.where if key.lower() in LANGUAGE_KEYS]
    if asked:
        # the language the index read for a document (its front matter's, path's or
        # text's), compared as codes: lang=pt-BR keeps the pages read as Portuguese
        from oriongraph_cli.language import normalise

        of = languages_of(reader).of
        want = {value: normalise(value) or value.lower() for value in asked}
        in_language = lambda path, value: of.get(path) == want[value]  # noqa: E731
    return [h for h in hits if h.row in rows and allowed(rows[h.row], f, in_language)]
