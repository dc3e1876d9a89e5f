"""Decisions that are likely replaced without saying so: a later decision of the same
workstream on the same subject.

Front matter ``supersedes`` / ``superseded_by`` (and a ``superseded`` status) are the
decision lifecycle's hard evidence (:mod:`lifecycle`). Teams often forget them: a later
record chooses another logging stack and never names the one it replaces. This module
finds such pairs as a *soft* signal: the earlier decision is demoted a little and the later
one is raised just above it, each with its reason ("likely replaced by ADR-0031 (same
subject, 2024-05 vs 2021-02)").

A candidate document D is *likely replaced* by a document S when

- both are decisions in force: an accepted-like status (accepted, final, active, ...), not
  marked superseded, rejected or withdrawn, and neither links the other by supersession;
- they belong to the same workstream and S was created at least ``MIN_DAYS_APART`` days
  after D (both dated by their authors: front matter, or a file name that begins with the
  date);
- they share a subject: the cosine of their document centroids (mean span embedding) is at
  least ``SUBJECT_COS``, and either their titles share content words (Jaccard at least
  ``TITLE_JACCARD``) or S refers to D (a link or a mention of its id), or the cosine is at
  least ``SUBJECT_COS_ALONE``.

Of several such S the most similar is named. Centroids are computed once per open index,
only for dated decision documents.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from oriongraph_cli.models import CandidateSpan

IN_FORCE = ("accepted", "approved", "adopted", "decided", "final", "active")
MIN_DAYS_APART = 30
SUBJECT_COS = 0.80
SUBJECT_COS_ALONE = 0.92
TITLE_JACCARD = 0.25
_WORD = re.compile(r"[a-z][a-z0-9]+")
_TITLE_STOP = frozenset(
    "a an and are as at be by for from how in into is it of on or the to use using we what when why with our new".split()
)
_ID_PREFIX = re.compile(r"^[a-z]+-?\d+[a-z]?\s*[:\-–]?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class LikelyReplaced:
    successor: str  # path of the later decision
    label: str  # how to name it ("ADR-0031")
    cos: float
    reason: str  # "likely replaced by ADR-0031 (same subject, 2024-05 vs 2021-02)"


def title_words(title: str) -> set[str]:
    """Content words of a title, without a leading id ("ADR-0007: ...", "PEP 8 – ...")."""
    t = _ID_PREFIX.sub("", (title or "").strip().lower())
    t = re.sub(r"^(pep|rfc|adr)\s*\d+\s*[:\-–]?\s*", "", t)
    return {w for w in _WORD.findall(t) if w not in _TITLE_STOP and not w.isdigit()}


# the date sources an author wrote (not git's or the file system's times)
STATED_DATES = ("front-matter", "name")


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _in_force(status: str | None) -> bool:
    s = (status or "").strip().lower()
    return any(s == x or s.startswith(x + " ") for x in IN_FORCE)


class _Decisions:
    """Dated decisions in force of one index, with their centroids (built once per reader)."""

    def __init__(self, reader):
        docs = [d for d in reader.lookups.document_dicts() if _in_force(d.get("status")) and int(d.get("created_at") or 0) > 0
                and d.get("created_source") in STATED_DATES]
        self.by_path = {d["path"]: d for d in docs}
        ids = {d["id"]: d["path"] for d in docs}
        rows_of: dict[str, list[int]] = {}
        for row, doc, _ordinal in reader.registry.spans_of_documents(sorted(ids)):  # in row order
            rows_of.setdefault(ids[doc], []).append(row)
        self.paths = sorted(rows_of)
        self.index = {p: i for i, p in enumerate(self.paths)}
        dim = reader.vectors.vectors([]).shape[1]
        C = np.zeros((len(self.paths), dim), dtype=np.float32)
        for i, p in enumerate(self.paths):
            v = reader.vectors.vectors(rows_of[p]).mean(axis=0)
            n = float(np.linalg.norm(v))
            C[i] = v / n if n > 0 else v
        self.C = C
        self.words = {p: title_words(self.by_path[p]["title"]) for p in self.paths}


def _linked(registry, pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    """(later, earlier) pairs where the later document refers to the earlier one by any edge."""
    try:
        return registry.graph.links_between(pairs)
    except Exception:  # an index without an edges table: no link evidence
        return set()


def _month(ts: int) -> str:
    return time.strftime("%Y-%m", time.gmtime(ts))


def likely_replaced(reader, cands: Iterable[CandidateSpan]) -> dict[str, LikelyReplaced]:
    """Candidate document path -> the later decision that likely replaces it (module doc);
    documents whose supersession is already recorded are left alone."""
    from oriongraph_cli.rank.lifecycle import successors_many

    paths = {c.metadata.filepath for c in cands}
    dec: _Decisions = reader.memo("implicit-decisions", lambda: _Decisions(reader))
    mine = sorted(p for p in paths if p in dec.index)
    if not mine or len(dec.paths) < 2:
        return {}
    registry = reader.registry
    recorded = successors_many(registry, mine)
    proposals: dict[str, list[tuple[str, float]]] = {}
    for p in mine:
        if recorded.get(p):
            continue
        d = dec.by_path[p]
        sims = dec.C @ dec.C[dec.index[p]]
        for j in np.flatnonzero(sims >= SUBJECT_COS).tolist():
            s = dec.paths[j]
            sd = dec.by_path[s]
            if s == p or sd.get("workstream") != d.get("workstream"):
                continue
            if int(sd["created_at"]) - int(d["created_at"]) < MIN_DAYS_APART * 86_400:
                continue
            proposals.setdefault(p, []).append((s, float(sims[j])))
    if not proposals:
        return {}
    check = [(s, p) for p, ss in proposals.items() for s, _c in ss]
    links = _linked(registry, check)
    succ_recorded = successors_many(registry, [s for s, _p in check])
    out: dict[str, LikelyReplaced] = {}
    for p, ss in sorted(proposals.items()):
        best = None
        for s, cos in ss:
            if succ_recorded.get(s) and p in succ_recorded[s]:
                continue
            same_words = jaccard(dec.words[p], dec.words[s]) >= TITLE_JACCARD
            if not (same_words or (s, p) in links or cos >= SUBJECT_COS_ALONE):
                continue
            if best is None or cos > best[1]:
                best = (s, cos)
        if best is None:
            continue
        s, cos = best
        sd, d = dec.by_path[s], dec.by_path[p]
        label = sd.get("doc_key") or sd["title"]
        reason = f"likely replaced by {label} (same subject, {_month(int(sd['created_at']))} vs {_month(int(d['created_at']))})"
        out[p] = LikelyReplaced(s, label, cos, reason)
    return out


__all__ = ["LikelyReplaced", "likely_replaced", "title_words", "jaccard"]
