"""Decision lifecycle in ranking: front matter ``status`` and ``supersedes`` /
``superseded_by`` shape the base score.

- A superseded or deprecated document among the candidates is demoted (``base × demote``)
  and says why ("ADR-0003 superseded by ADR-0007 (demoted ×0.60)").
- Its live successor (the end of the supersession chain: a successor that is itself
  superseded is followed, cycles and long chains are cut) is pulled in: its spans already
  among the candidates, or — if none is — up to ``max_successor_spans`` of its spans added
  as extra candidates (the span with the same section title as the superseded span first,
  then its first span). The successor's best span is raised to at least the superseded
  document's best base score *before* demotion (``floor``), so the successor ranks above
  the decision it replaced; its other spans keep their scores (raising them all would tie
  a long successor's every span at the top). Both carry the reason "ADR-0003 superseded
  by ADR-0007".
- With the stage ``final`` preferred (``--stage final`` or a final-stage task), accepted
  decisions (ADRs) relevant to the intent get ``base × final_boost`` (policy:
  "enforce inclusion of ADRs for final tasks"). Relevant means some channel found the span
  (lexical, structural or graph score > 0, or cosine ≥ ``min_semantic``) or the intent
  names its id.

Pure functions: :func:`plan_lifecycle` reads only the registry it is given (documents,
spans and the stored edges); :func:`apply_lifecycle` is arithmetic on the
candidates.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from oriongraph_cli.graph.extract import short_name
from oriongraph_cli.rank.score import sort_key
from oriongraph_cli.models import CHANNELS, CandidateSpan, GenHit, with_reasons

if TYPE_CHECKING:
    from oriongraph_cli.store.registry import Registry

DEMOTE = 0.85
FINAL_BOOST = 1.25
SUCCESSOR_FLOOR = 1.0
# a decision likely replaced by a later one (rank/implicit.py): its base × this, and the later one
# raised to at least its base before demotion × LIKELY_FLOOR, or × the demotion where milder
LIKELY_DEMOTE = 0.85
LIKELY_FLOOR = 0.9
MIN_SEMANTIC = 0.25
MAX_SUCCESSOR_SPANS = 2
MAX_CHAIN = 8
DEMOTED_STATUSES = ("superseded", "deprecated", "unrecommended")  # "unrecommended": Nostr's NIPs' word for deprecated
# in force: the words decision records (accepted), PEPs (final, active) and RFCs use
ACCEPTED_STATUSES = ("accepted", "approved", "adopted", "decided", "final", "active")
# not in force: with a recorded successor such a document counts as replaced by it; without
# one it is demoted by ``lifecycle_inactive_demote`` (a decision rejected, withdrawn, or
# undone later: "Reverted by [discussion #1197](…)")
INACTIVE_STATUSES = ("withdrawn", "rejected", "obsolete", "replaced", "declined", "abandoned", "dropped", "retired",
                     "reverted", "revoked", "rescinded", "retracted", "cancelled", "canceled", "discontinued", "inactive",
                     "removed", "archived", "defunct")
_ADR_RE = re.compile(r"^ADR-\d+", re.IGNORECASE)


@dataclass(frozen=True)
class Adjustment:
    multiplier: float = 1.0
    reasons: tuple[str, ...] = ()
    floor_from: tuple[int, ...] = ()  # rows whose base score before demotion, × floor_factor, is a lower bound
    floor_factor: float = SUCCESSOR_FLOOR


@dataclass(frozen=True)
class LifecyclePlan:
    adjust: dict[int, Adjustment] = field(default_factory=dict)  # rows among the candidates
    extra: dict[int, Adjustment] = field(default_factory=dict)  # successor rows to add as candidates

    def extra_hits(self) -> list[GenHit]:
        """The extra rows as generator hits (score 0) carrying their reasons, to add to the
        hits before candidates are built (``hits["lifecycle"] = plan.extra_hits()``)."""
        return [GenHit(row, 0.0, adj.reasons) for row, adj in sorted(self.extra.items())]

    def is_empty(self) -> bool:
        return not self.adjust and not self.extra


@dataclass(frozen=True)
class _Doc:
    path: str
    doc_key: str | None
    title: str
    status: str

    @property
    def label(self) -> str:
        if self.doc_key:
            return self.doc_key
        m = _ADR_RE.match(posixpath.basename(self.path))
        return m.group(0).upper() if m else short_name(self.path)


# the folders decision records are kept in: OrionFS's, adr-tools' ``doc/adr``, and others' names
DECISION_FOLDERS = ("/99_decisions/", "/decisions/", "/adr/", "/adrs/", "/decision-records/",
                    "/architecture-decision-record/", "/architecture-decision-records/")
_PREFIXED_ADR_RE = re.compile(r"^[A-Za-z]+-ADR-\d+", re.IGNORECASE)  # a team's prefix: ODH-ADR-0001-…


def is_decision(path: str, doc_id: str | None, tags: Iterable[str] = ()) -> bool:
    """An ADR: id or file name ``ADR-…`` (or ``ODH-ADR-…``), a decision records folder
    (:data:`DECISION_FOLDERS`), or the tag ``adr``."""
    name = posixpath.basename(path)
    folder = f"/{path.lower()}"
    return bool(
        (doc_id and (_ADR_RE.match(doc_id) or _PREFIXED_ADR_RE.match(doc_id)))
        or _ADR_RE.match(name) or _PREFIXED_ADR_RE.match(name)
        or any(f in folder for f in DECISION_FOLDERS)
        or "adr" in {t.lower() for t in tags}
    )


def _status(value: str | None) -> str:
    return (value or "").strip().lower()


def _is_demoted_status(status: str, demoted: Sequence[str]) -> bool:
    return _status_in(status, tuple(demoted))


@functools.lru_cache(maxsize=1024)
def _status_in(status: str, demoted: tuple[str, ...]) -> bool:
    """Whether ``status`` is one of ``demoted`` or starts with one and a space (asked for
    every candidate document; the statuses an index holds are few)."""
    return any(status == s or status.startswith(s + " ") for s in demoted)


def _docs(reg: Registry, paths: Iterable[str]) -> dict[str, _Doc]:
    return {r[0]: _Doc(r[0], r[1], r[2], _status(r[3])) for r in reg.document_labels(sorted(set(paths)))}


def successors(reg: Registry, path: str) -> list[str]:
    """Direct successors of a document: its ``superseded_by`` targets and the documents whose
    ``supersedes`` names it (sorted, without itself)."""
    if not reg.graph.has_tables():
        return []
    return sorted(reg.graph.successors(path) - {path})


def status_notes(reg: Registry, statuses: dict[str, str | None], demoted: Sequence[str] = DEMOTED_STATUSES) -> dict[str, str | None]:
    """Each document's status as a reader should see it: a superseded or deprecated one
    names its direct successors ("superseded by ADR-0007") unless its status already does."""
    out = dict(statuses)
    stale = [p for p, st in statuses.items() if _is_demoted_status(_status(st), demoted) and " by " not in _status(st)]
    succ = successors_many(reg, stale)
    labels = _docs(reg, [d for p in stale for d in succ.get(p, [])])
    for p in stale:
        names = [labels[d].label if d in labels else short_name(d) for d in succ.get(p, [])]
        if names:
            out[p] = f"{statuses[p]} by {', '.join(names)}"
    return out


def successors_many(reg: Registry, paths: Iterable[str]) -> dict[str, list[str]]:
    """:func:`successors` of many documents in one query per few hundred paths (a compile
    asks for every candidate document: one query each cost ~6 ms per compile). Paths
    without successors are absent."""
    paths = sorted(set(paths))
    out: dict[str, set[str]] = {}
    if not paths or not reg.graph.has_tables():
        return {}
    for src, dst in reg.graph.successor_pairs(paths):
        if src != dst:
            out.setdefault(src, set()).add(dst)
    return {p: sorted(v) for p, v in out.items()}


def successor_map(reg: Registry) -> dict[str, list[str]]:
    """Every document's direct successors, as :func:`successors` gives them, read in one
    query: what a reader keeps while it is open (the graph of a generation never changes),
    so a compile asks no query per candidate document or per link of a chain."""
    if not reg.graph.has_tables():
        return {}
    out: dict[str, set[str]] = {}
    for src, dst in reg.graph.all_successor_pairs():
        if src != dst:
            out.setdefault(src, set()).add(dst)
    return {p: sorted(v) for p, v in out.items()}


def live_successors(reg: Registry, path: str, demoted: Sequence[str] = DEMOTED_STATUSES, max_chain: int = MAX_CHAIN) -> list[tuple[str, tuple[str, ...]]]:
    """The ends of the supersession chains starting at ``path``: (successor, chain of paths
    from ``path``'s direct successor to it). A successor that is itself superseded (has
    successors of its own, or a demoted status with successors) is followed; cycles and
    chains longer than ``max_chain`` stop the walk."""
    return _live_successors(lambda p: successors(reg, p), path, max_chain)


def _live_successors(successors_of, path: str, max_chain: int) -> list[tuple[str, tuple[str, ...]]]:
    """:func:`live_successors` with ``successors_of(path)`` giving a document's direct successors."""
    out: dict[str, tuple[str, ...]] = {}
    visited = {path}
    frontier: list[tuple[str, tuple[str, ...]]] = [(s, (s,)) for s in successors_of(path)]
    while frontier:
        nxt: list[tuple[str, tuple[str, ...]]] = []
        for node, chain in frontier:
            if node in visited:
                continue
            visited.add(node)
            further = [s for s in successors_of(node) if s not in visited]
            if further and len(chain) < max_chain:
                nxt.extend((s, chain + (s,)) for s in further)
            else:
                out.setdefault(node, chain)
        frontier = nxt
    return sorted(out.items())


def plan_lifecycle(
    cands: Sequence[CandidateSpan],
    reg: Registry,
    *,
    prefer_stages: Iterable[str] = (),
    intent_doc_ids: Iterable[str] = (),
    demote: float = DEMOTE,
    final_boost: float = FINAL_BOOST,
    successor_floor: float = SUCCESSOR_FLOOR,
    min_semantic: float = MIN_SEMANTIC,
    max_successor_spans: int = MAX_SUCCESSOR_SPANS,
    demoted_statuses: Sequence[str] = DEMOTED_STATUSES,
    accepted_statuses: Sequence[str] = ACCEPTED_STATUSES,
    likely: dict | None = None,
    likely_demote: float = LIKELY_DEMOTE,
    likely_floor: float = LIKELY_FLOOR,
    inactive_demote: float = 1.0,
    labels: Mapping[str, tuple[str | None, str, str | None]] | None = None,
    successors_of: Mapping[str, Sequence[str]] | None = None,
) -> LifecyclePlan:
    """Work out the lifecycle adjustments for ``cands`` (rows -> Adjustment) and the
    successor rows to add. Needs only candidate metadata and raw scores, so it can run
    before scoring; the floors are resolved by :func:`apply_lifecycle` after scoring.

    ``labels`` (path -> (doc_key, title, status) of every document) and ``successors_of``
    (:func:`successor_map`), when given, are read instead of the registry's tables."""
    by_path: dict[str, list[CandidateSpan]] = {}
    for c in cands:
        if c.row >= 0:
            by_path.setdefault(c.metadata.filepath, []).append(c)
    adjust: dict[int, dict] = {}
    extra: dict[int, dict] = {}

    def note(table: dict[int, dict], row: int, *, mult: float = 1.0, reason: str | None = None, floor: Iterable[int] = (),
             factor: float = successor_floor) -> None:
        entry = table.setdefault(row, {"mult": 1.0, "reasons": [], "floor": set(), "factor": 0.0})
        entry["mult"] *= mult
        if reason and reason not in entry["reasons"]:
            entry["reasons"].append(reason)
        floor = set(floor)
        entry["floor"].update(floor)
        if floor:
            entry["factor"] = max(entry["factor"], factor)

    if labels is None:
        docs_of = functools.partial(_docs, reg)
    else:  # path -> (doc_key, title, status) of every document, read once per open index
        def docs_of(paths: Iterable[str]) -> dict[str, _Doc]:
            return {p: _Doc(p, labels[p][0], labels[p][1], _status(labels[p][2])) for p in sorted(set(paths)) if p in labels}
    if successors_of is None:
        direct_of = successors_many(reg, by_path)
        chains_of = functools.partial(live_successors, reg)
    else:
        direct_of = {p: list(successors_of[p]) for p in by_path if p in successors_of}
        chains_of = lambda path, _demoted: _live_successors(lambda p: successors_of.get(p, []), path, MAX_CHAIN)  # noqa: E731
    paths = sorted(by_path)
    if labels is not None:
        # a document without a status, a recorded successor or a likely one is left as it
        # is (the loop below would pass over it): only the others are looked at
        paths = [p for p in paths if p in direct_of or (likely and p in likely) or (p in labels and _status(labels[p][2]))]
    docs = docs_of(paths)
    for path in paths:
        doc = docs.get(path)
        if doc is None:
            continue
        direct = direct_of.get(path, [])
        direct_docs = docs_of(direct) if direct else {}
        # a successor counts once it is in force, or as soon as it has come as far as the
        # document it replaces: of two proposals under review, the one replacing the other;
        # of two records with no state at all, the one saying it replaces the other (Astro's
        # RFC 0016, "intended to supercede [RFC0008](…)")
        live_successor = any(d.status in accepted_statuses or d.status == doc.status for d in direct_docs.values())
        superseded = (doc.status.startswith("superseded") or live_successor
                      or (bool(direct) and _is_demoted_status(doc.status, INACTIVE_STATUSES)))
        deprecated = _is_demoted_status(doc.status, demoted_statuses) and not superseded
        if not (superseded or deprecated):
            if inactive_demote < 1.0 and _is_demoted_status(doc.status, INACTIVE_STATUSES):
                for c in by_path[path]:  # rejected or withdrawn, nothing recorded in its place
                    note(adjust, c.row, mult=inactive_demote, reason=f"{doc.label} {doc.status.split()[0]} (demoted ×{inactive_demote:.2f})")
                continue
            guess = (likely or {}).get(path)
            if guess is not None and doc.status not in ("rejected", "withdrawn"):
                rows = [c.row for c in by_path[path]]
                # the later one is raised to at least the earlier's score before demotion ×
                # this: never below the demoted earlier one, however mild the demotion
                raised = max(likely_floor, likely_demote)
                for row in rows:
                    note(adjust, row, mult=likely_demote, reason=f"{guess.reason} (demoted ×{likely_demote:.2f})")
                present = by_path.get(guess.successor, [])
                if present:
                    for c in present:
                        note(adjust, c.row, reason=f"likely replaces {doc.label}", floor=rows, factor=raised)
                else:
                    for row in _successor_rows(reg, guess.successor, set(), 1):
                        note(extra, row, reason=f"likely replaces {doc.label}", floor=rows, factor=raised)
            continue
        rows = [c.row for c in by_path[path]]
        chains = chains_of(path, demoted_statuses) if superseded else []
        if not superseded and direct:  # deprecated but with a recorded successor: still point to it
            chains = chains_of(path, demoted_statuses)
        succ_docs = docs_of([s for s, _chain in chains])
        if chains:
            for succ, chain in chains:
                sdoc = succ_docs.get(succ)
                if sdoc is None:
                    continue
                names = " → ".join(((docs_of([p]).get(p) or _Doc(p, None, p, "")).label for p in chain))
                reason = f"{doc.label} superseded by {names}"
                for row in rows:
                    note(adjust, row, reason=f"{reason} (demoted ×{demote:.2f})")
                present = by_path.get(succ, [])
                if present:
                    for c in present:
                        note(adjust, c.row, reason=reason, floor=rows)
                else:
                    sections = {c.metadata.section_title.split(" > ")[-1].lower() for c in by_path[path] if c.metadata.section_title}
                    for row in _successor_rows(reg, succ, sections, max_successor_spans):
                        note(extra, row, reason=reason, floor=rows)
            for row in rows:
                adjust[row]["mult"] = demote  # once, however many successors
        else:
            state = "superseded" if superseded else doc.status.split()[0]
            for row in rows:
                note(adjust, row, mult=demote, reason=f"{doc.label} {state} (demoted ×{demote:.2f})")

    if "final" in {s.lower() for s in prefer_stages}:
        named = {i.lower() for i in intent_doc_ids}
        for c in cands:
            if c.row < 0 or c.row in adjust and adjust[c.row]["mult"] < 1.0:
                continue
            m = c.metadata
            if not is_decision(m.filepath, m.doc_id, m.tags) or _status(m.status) not in accepted_statuses:
                continue
            raw = c.raw_scores
            relevant = any(raw.get(ch) > 0 for ch in CHANNELS if ch != "semantic") or raw.semantic >= min_semantic or (m.doc_id or "").lower() in named
            if relevant:
                note(adjust, c.row, mult=final_boost, reason=f"accepted decision, preferred for a final-stage task (×{final_boost:.2f})")
        extra_paths = _paths_of_rows(reg, extra)
        extra_docs = docs_of(extra_paths.values())
        for row, path in extra_paths.items():
            d = extra_docs.get(path)
            if d is not None and d.status in accepted_statuses:
                note(extra, row, mult=final_boost, reason=f"accepted decision, preferred for a final-stage task (×{final_boost:.2f})")

    def freeze(table: dict[int, dict]) -> dict[int, Adjustment]:
        return {
            row: Adjustment(e["mult"], tuple(e["reasons"]), tuple(sorted(e["floor"])), e["factor"] or successor_floor)
            for row, e in sorted(table.items())
        }

    extra = {row: e for row, e in extra.items() if row not in adjust}
    return LifecyclePlan(freeze(adjust), freeze(extra))


def _paths_of_rows(reg: Registry, rows: Iterable[int]) -> dict[int, str]:
    return reg.paths_of_rows(sorted(rows))


def _successor_rows(reg: Registry, path: str, sections: set[str], limit: int) -> list[int]:
    """Rows of ``path`` to pull in: spans whose innermost heading matches one of the
    superseded spans' sections, then the first span; at most ``limit``."""
    spans = reg.heading_paths(path)
    picked: list[int] = []
    for row, hp in spans:
        heads = json.loads(hp)
        if heads and heads[-1].lower() in sections and row not in picked:
            picked.append(row)
            break
    if spans and spans[0][0] not in picked:
        picked.insert(0, spans[0][0])
    return picked[: max(limit, 0)]


def apply_lifecycle(cands: Sequence[CandidateSpan], plan: LifecyclePlan) -> list[CandidateSpan]:
    """Apply ``plan`` to scored candidates: ``base × multiplier``, append the reasons, and
    raise the best span of each successor document to its floor (``max(base before demotion
    of floor_from rows) × floor_factor``). Only that one span is lifted: the document then
    ranks above the decision it replaced, while its other spans keep their own scores — were
    every span of a long successor raised to the same floor, they would tie at the top and
    one document would take the whole budget. Extra rows must already be among ``cands``
    (added as hits before scoring); their adjustments are applied the same way. Returns
    candidates sorted by (base desc, span_id)."""
    if plan.is_empty():
        return list(cands)
    before = {c.row: c.base_score for c in cands}
    table = {**plan.extra, **plan.adjust}
    adjusted: list[tuple[CandidateSpan, float, float]] = []  # (candidate, base after multiplier, floor)
    for c in cands:
        adj = table.get(c.row)
        if adj is None:
            adjusted.append((c, c.base_score, float("-inf")))
            continue
        floors = [before[r] for r in adj.floor_from if r in before]
        floor = max(floors) * adj.floor_factor + 1e-6 if floors else float("-inf")
        adjusted.append((c, c.base_score * adj.multiplier, floor))
    best: dict[str, tuple[tuple[float, str], int]] = {}  # path -> (order key, index) of its best floored span
    for i, (c, base, floor) in enumerate(adjusted):
        if floor == float("-inf"):
            continue
        key, current = (-base, c.span_ref.span_id), best.get(c.metadata.filepath)
        if current is None or key < current[0]:
            best[c.metadata.filepath] = (key, i)
    lifted = {i for _key, i in best.values()}
    out: list[CandidateSpan] = []
    for i, (c, base, floor) in enumerate(adjusted):
        adj = table.get(c.row)
        if adj is None:
            out.append(c)
            continue
        if i in lifted:
            base = max(base, floor)
        out.append(with_reasons(c, adj.reasons, base_score=base))
    out.sort(key=sort_key)
    return out


__all__ = [
    "DEMOTE", "FINAL_BOOST", "SUCCESSOR_FLOOR", "Adjustment", "LifecyclePlan", "is_decision", "successors",
    "live_successors", "plan_lifecycle", "apply_lifecycle",
]
