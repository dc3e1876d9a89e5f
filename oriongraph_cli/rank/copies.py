"""Copies of one text in several documents, ranked newest first.

A site that keeps each release's copy of its pages (``docs/`` beside
``versioned_docs/version-30.4/`` and ``version-29.7/``) gives every copy of a passage the
same words, so the channels score them alike and what orders them is noise (a link more,
a date). Among the ranking's head, spans of different documents with the same words
(whitespace aside, as selection compares them) whose folders name different versions
(``versions.newest_first``: a path naming none, the site's own folder, then the highest
release) swap scores so the newest copy holds the best of them, the next the second, and
so on: the scores the copies hold and every other candidate's place are unchanged. A
project whose candidates name no version folder is not read at all.
"""

from __future__ import annotations

from oriongraph_cli.models import CandidateSpan, with_reasons
from oriongraph_cli.rank.score import sort_key
from oriongraph_cli.versions import newest_first, version_of

HEAD = 300  # candidates looked at: where the ranking orders documents (nDCG@10, selection's pool)


def words(text: str) -> str:
    """A text's words, whitespace aside: what two spans must share to say the same (here and
    in selection, ``assemble/select.py``)."""
    return " ".join(text.split())


def newest_first_ranked(scored: list[CandidateSpan], reader) -> list[CandidateSpan]:
    """``scored`` (in base-score order) with each group of copies in its head reordered
    newest first (module doc); the same list when nothing moves."""
    head = scored[:HEAD]
    if not any(version_of(c.metadata.filepath) is not None for c in head):
        return scored
    by_cost: dict[int, list[int]] = {}
    for j, c in enumerate(head):
        by_cost.setdefault(c.span_ref.token_cost, []).append(j)
    maybe = [j for group in by_cost.values() if len(group) > 1 for j in group]
    rows = reader.rows([head[j].row for j in maybe])
    groups: dict[tuple[int, str], list[int]] = {}
    for j in maybe:
        row = rows.get(head[j].row)
        if row is not None:
            groups.setdefault((head[j].span_ref.token_cost, words(row.text)), []).append(j)
    out = list(scored)
    moved = False
    for (_cost, said), members in groups.items():
        if not said or len({head[j].metadata.filepath for j in members}) < 2:
            continue
        key = {j: newest_first(head[j].metadata.filepath) for j in members}
        if len(set(key.values())) < 2:
            continue
        order = sorted(members, key=lambda j: (key[j], j))
        scores = sorted((head[j].base_score for j in members), reverse=True)
        others = len(members) - 1
        why = f"the same text as {others} other cop{'y' if others == 1 else 'ies'}: ranked newest version first"
        for j, s in zip(order, scores):
            if s != head[j].base_score:
                out[j] = with_reasons(head[j], (why,), base_score=s)
                moved = True
    return sorted(out, key=sort_key) if moved else scored
