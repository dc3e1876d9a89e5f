"""Hard filter values checked against what the index holds.

A misspelt filter (``--stage designn``, ``--workstream ws-ingestoin``) is a usage error
with a suggestion, never silently relaxed to the whole project; relaxation is kept for
valid values that match nothing together (``relax_steps``, used by ``rank.candidates``).
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Iterable

from oriongraph_cli.errors import ExitStatus, OrionError
from oriongraph_cli.models import STAGES, HardFilters, SourceType, normalise_stage


def _unknown(flag: str, value: str, known: Iterable[str], what: str) -> OrionError:
    known = sorted(set(known))
    close = difflib.get_close_matches(value, known, n=3, cutoff=0.6)
    if close:
        hint = "did you mean " + " or ".join(close) + "?"
    elif known:
        shown = ", ".join(known[:12]) + (", …" if len(known) > 12 else "")
        hint = f"the index holds {what}: {shown}"
    else:
        hint = f"no indexed document has any {what}"
    return OrionError(f"{flag} {value!r}: no indexed document has this {what}", hint=hint, exit_code=ExitStatus.USAGE)


def check_filters(filters: HardFilters, documents: list[dict]) -> HardFilters:
    """``filters`` with stage aliases and source-type case normalised; an unknown value
    raises a usage error (exit 2) with "did you mean …?"."""
    stages_known = set(STAGES) | {d["stage"] for d in documents if d.get("stage")}
    stages = []
    for s in filters.stages:
        n = normalise_stage(s) or ""
        if n not in stages_known:
            raise _unknown("--stage", s, stages_known, "stage")
        stages.append(n)
    ws_known = {d["workstream"] for d in documents if d.get("workstream")}
    for w in filters.workstreams:
        if w not in ws_known:
            raise _unknown("--workstream", w, ws_known, "workstream")
    by_lower = {t.value.lower(): t.value for t in SourceType}
    sources = []
    for s in filters.source_types:
        if s.lower() not in by_lower:
            raise _unknown("--source-type", s, by_lower.values(), "source type")
        sources.append(by_lower[s.lower()])
    tags_known = {t for d in documents for t in d.get("tags", ())}
    for t in filters.tags:
        if t not in tags_known:
            raise _unknown("--tag", t, tags_known, "tag")
    return replace(filters, stages=tuple(stages), source_types=tuple(sources))


# kinds of filter dropped, one at a time, when valid filters together match nothing
RELAX_ORDER = ("since", "where", "tags", "paths", "stages", "workstreams", "source_types")


_FLAGS = (("paths", "--path"), ("stages", "--stage"), ("workstreams", "--workstream"), ("source_types", "--source-type"),
          ("tags", "--tag"), ("since", "--since"), ("where", "--where"))


def filters_flags(filters: HardFilters) -> str:
    """The filters as the flags that set them: ``--stage research --tag retry``."""
    out = []
    for name, flag in _FLAGS:
        value = getattr(filters, name)
        if name == "since" and value:
            import datetime as _dt

            out.append(f"{flag} {_dt.datetime.fromtimestamp(value, _dt.timezone.utc).date().isoformat()}")
        elif name == "where":
            out += [f"{flag} {k}={v}" for k, v in value]
        elif value:
            out += [f"{flag} {v}" for v in value]
    return " ".join(out)


def filters_text(filters: HardFilters) -> str:
    return ", ".join(f"{k}={v}" for k, v in filters.to_dict().items() if v not in (None, [], ()))


def relax_steps(filters: HardFilters) -> list[tuple[str, HardFilters]]:
    """Successively weaker filter sets: drop one kind of filter at a time, in RELAX_ORDER."""
    steps = []
    current = filters
    dropped: list[str] = []
    for name in RELAX_ORDER:
        value = getattr(current, name)
        if value:
            current = replace(current, **{name: None if name == "since" else ()})
            dropped.append(name)
            steps.append((", ".join(dropped), current))
    return steps
