"""Decision lifecycle as a generator that follows the others: the live successors of the
superseded decisions among the candidates join them (``rank/lifecycle.py`` plans it); after
fusion, ``adjust`` demotes the replaced decisions and floors their successors above them."""

from __future__ import annotations

from oriongraph_cli.models import CandidateSpan, GenHit
from oriongraph_cli.rank import implicit, lifecycle
from oriongraph_cli.rank.generators.base import GenContext, filter_hits


class LifecycleGen:
    """Brings candidates only (no score channel of its own); one instance per compile,
    which keeps the plan its ``adjust`` applies."""

    name = "lifecycle"
    channel = None
    follows = True
    needs_embedding = False

    def __init__(self) -> None:
        self.plan: lifecycle.LifecyclePlan | None = None

    def wanted(self, ctx: GenContext) -> bool:
        return bool(ctx.cfg is not None and ctx.cfg.lifecycle and ctx.found)

    def generate(self, ctx: GenContext) -> list[GenHit]:
        cfg, reader, cands = ctx.cfg, ctx.reader, ctx.found
        likely = implicit.likely_replaced(reader, cands) if cfg.likely_replaced else None
        prefer = ctx.request.soft_prefs.prefer_stages if ctx.request is not None else ()
        self.plan = lifecycle.plan_lifecycle(
            cands, reader.registry, prefer_stages=prefer,
            intent_doc_ids=ctx.signals.struct_hints.doc_ids, demote=cfg.lifecycle_demote, final_boost=cfg.lifecycle_final_boost,
            likely=likely, likely_demote=cfg.likely_replaced_demote, inactive_demote=cfg.lifecycle_inactive_demote,
            labels=reader.memo("document-labels", lambda: {d["path"]: (d["doc_key"], d["title"], d["status"])
                                                          for d in reader.lookups.document_dicts()}),
            successors_of=reader.memo("document-successors", lambda: lifecycle.successor_map(reader.registry)),
        )
        present = {c.row for c in cands}
        # a successor the hard filters exclude (another stage, path or status) stays out, as
        # any other generator's hit would
        return filter_hits(reader, [h for h in self.plan.extra_hits() if h.row not in present], ctx.filters)

    def adjust(self, scored: list[CandidateSpan]) -> list[CandidateSpan]:
        return scored if self.plan is None else lifecycle.apply_lifecycle(scored, self.plan)
