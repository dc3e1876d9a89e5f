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

A release rewrites more than it copies: one page in two releases
(``docs/en/4x/guide/routing.md`` and ``5x/…``, or ``versioned_docs/version-6.6/a.md`` beside
the site's own ``docs/a.md``: ``versions.page_of``) says much the same in other words, and
the older wording can match an intent better. The releases' best spans swap scores the same
way, newest first — unless the newest scores under ``NEWEST_AT_LEAST`` of the best (that
release rewrote or moved what is asked), or the intent names an older one's release ("in
Express 4.x": it asks for that text).
"""

from __future__ import annotations

from oriongraph_cli.models import CandidateSpan, with_reasons
from oriongraph_cli.rank.score import sort_key
from oriongraph_cli.versions import named_releases, newest_first, page_of, version_of

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
        others = len(members) - 1
        why = f"the same text as {others} other cop{'y' if others == 1 else 'ies'}: ranked newest version first"
        moved |= _newest_first(head, out, sorted(members, key=lambda j: (key[j], j)), why)
    return sorted(out, key=sort_key) if moved else scored


def _newest_first(head: list[CandidateSpan], out: list[CandidateSpan], order: list[int], why: str) -> bool:
    """Give ``order``'s candidates (indices into ``head``, newest first) their scores sorted
    best first, in ``out``, each one moved saying ``why``; whether any moved."""
    moved = False
    for j, s in zip(order, sorted((head[j].base_score for j in order), reverse=True)):
        if s != head[j].base_score:
            out[j] = with_reasons(head[j], (why,), base_score=s)
            moved = True
    return moved


# the newest release's page rises only when its best span scores at least this share of the
# best of the page's releases: below it the release rewrote or moved what the intent asks
# (0.8 chosen on five versioned sites over 0 and 0.9; docs/BENCHMARKS.md, "One page in
# several releases")
NEWEST_AT_LEAST = 0.8


def newest_version_ranked(scored: list[CandidateSpan], intent: str) -> list[CandidateSpan]:
    """``scored`` (in base-score order) with the releases of one page reordered newest first
    in its head, each by its best span (module doc); the same list when nothing moves. Reads
    paths only."""
    head = scored[:HEAD]
    pages = [page_of(c.metadata.filepath) for c in head]
    if not any(pages):
        return scored
    groups: dict[tuple[str, str], list[int]] = {}
    for j, page in enumerate(pages):
        if page is not None:
            groups.setdefault(page, []).append(j)
    by_tail: dict[str, tuple[str, str]] = {}
    for key in groups:
        by_tail.setdefault(key[1], key)
    for j, page in enumerate(pages):  # the site's own line: the same path after a folder
        if page is None:
            parts = head[j].metadata.filepath.split("/")
            key = next((k for i in range(1, len(parts)) if (k := by_tail.get("/".join(parts[i:])))), None)
            # only where the releases sit in a folder apart, as Docusaurus keeps them
            # (``versioned_docs/version-6.6/a.md`` beside ``docs/a.md``): a folder of drafts
            # (``working/a.md`` beside ``accepted/3.6/a.md``), or a page beside its own
            # ``v1/`` (either may be the newer), is not the newest line
            if key is not None and "versioned" in key[0].rsplit("/", 1)[-1].lower():
                groups[key].append(j)
    named = named_releases(intent) if any(ch.isdigit() for ch in intent) else frozenset()
    out = list(scored)
    moved = False
    for members in groups.values():
        docs = {head[j].metadata.filepath for j in members}
        if len(docs) < 2:
            continue
        key = {j: newest_first(head[j].metadata.filepath) for j in members}
        newest = min(key.values())
        if len(set(key.values())) < 2 or any(k != newest and k[1] and -k[1][0] in named for k in key.values()):
            continue
        seen: set[str] = set()  # each document's best span (the head is in score order)
        members = [j for j in members if not (head[j].metadata.filepath in seen or seen.add(head[j].metadata.filepath))]
        order = sorted(members, key=lambda j: (key[j], j))
        if head[order[0]].base_score < NEWEST_AT_LEAST * max(head[j].base_score for j in order):
            continue
        others = len(docs) - 1
        why = f"the same page in {others} other release{'' if others == 1 else 's'}: ranked newest version first"
        moved |= _newest_first(head, out, order, why)
    return sorted(out, key=sort_key) if moved else scored
