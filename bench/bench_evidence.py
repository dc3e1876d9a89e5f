"""The answer per token: does the delivered text contain the sentences that answer the claim?

    python bench/bench_evidence.py --root /tmp/suite/scifact --out evidence_train.json
    python bench/bench_evidence.py --root /tmp/suite/scifact --split dev --systems orion --settings '{"relevance_floor": 0.3}'
    ORION_BENCH_SRC=/tmp/base python bench/bench_evidence.py ...   # the orion of another checkout (git archive)

SciFact train claims with annotated evidence sentences (``../shared/datasets/scifact``:
``evidence_train.jsonl.gz``, ``evidence_docs_train.jsonl.gz``; 505 claims, 564 claim-document
pairs, 1,025 evidence sentences). For each system and budget, each claim gets one delivered
text, charged its WHOLE size with the index's tokenizer (tiktoken cl100k_base, the same counter
for every system); every delivered text is at most the budget.

Systems (the same index, opened once; the same intent keywords and intent embedding):

- ``orion`` — ``orion compile CLAIM --budget N --format markdown`` as shipped, in process: the
  request from ``api.build_request`` with the project's config (as the CLI builds it, usage log
  left alone), the text ``render_text(resp, "markdown")`` — what the CLI prints to stdout;
- ``orion-nc`` — the same with ``--no-compress``;
- ``orion-xml``, ``orion-json``, ``orion-lean`` — the same in ``--format xml``, ``json`` and
  ``json-lean``, charged the whole rendered output and matched on the text a reader of that
  format reads (the XML's character data, the JSON's quote texts, unescaped);
- ``rrf`` / ``dense`` / ``bm25`` — naive top-k chunks (the index's spans, ranked as
  ``orion eval``'s baselines rank them), each preceded by one line with its path, packed
  greedily in rank order, skipping a chunk that does not fit;
- ``doc`` — whole documents ranked by RRF (a document by its best span), each delivered as
  its file text (front matter included, as ``cat`` gives it) under a path line, packed greedily.

Matching: whitespace collapsed to single spaces in both the delivered text and each evidence
sentence; a sentence counts when it is a substring of the delivered text. Evidence recall of a
claim = present sentences / its evidence sentences (all its evidence documents); reported as the
mean over claims (macro) and over sentences (micro), with ``set`` = share of claims with at
least one complete annotated evidence set (rationale) delivered. Each missed sentence is
classed as a ranking miss (its document delivered no text) or a within-document miss.
``loose`` counts sentences found only after dropping case, punctuation and spaces (0 means
no sentence was found only thanks to that). Orion's Markdown quotes text verbatim (no escaping,
no wrapping; ``#`` headings are demoted to ``####``, which touches titles, never sentences),
except that it rewrites link-like text relative to the project root: ``[Ca(2+)](i)`` is
delivered as ``[Ca(2+)](02_knowledge/scifact/i)``. Every whole quote is compared with the
file's own text (``whole_quotes_verbatim_check``); no SciFact evidence sentence holds ``](``,
so no score is affected and no normalisation is applied for it.

Split: ``dev`` = claims with an even id, ``held`` = odd; every run reports both and all.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(REPO)))  # another checkout's orion, as bench_delivery.py
DATA = REPO.parent / "shared" / "datasets" / "scifact"

SYSTEMS = {  # id -> label
    "orion": "orion",
    "orion-nc": "orion --no-compress",
    "orion-xml": "orion --format xml",
    "orion-json": "orion --json",
    "orion-lean": "orion --format json-lean",
    "rrf": "RRF chunks",
    "dense": "dense chunks",
    "bm25": "BM25 chunks",
    "doc": "RRF whole docs",
}
DOC_PREFIX = "02_knowledge/scifact/"


FORMATS = {"orion": "markdown", "orion-nc": "markdown", "orion-xml": "xml", "orion-json": "json", "orion-lean": "json-lean"}


def readable(fmt: str, rendered: str) -> str:
    """What a reader of ``fmt`` reads of ``rendered``: the text its parser gives back."""
    if fmt == "markdown":
        return rendered
    if fmt == "xml":
        import xml.etree.ElementTree as ET

        return "\n".join(ET.fromstring(rendered).itertext())
    data = json.loads(rendered)
    if fmt == "json":
        return "\n".join(q["text"] for d in data["documents"] for q in d["quotes"])
    return "\n".join(d["text"] for d in data["documents"])


def norm(text: str) -> str:
    return " ".join(text.split())


_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def loose(text: str) -> str:
    return _NON_ALNUM.sub("", text.lower())


# ============================================================================ data


@dataclass
class Claim:
    id: str
    text: str
    sentences: dict[tuple[str, int], str] = field(default_factory=dict)  # (doc path, index) -> normalised text
    sets: list[tuple[tuple[str, int], ...]] = field(default_factory=list)  # annotated evidence sets

    @property
    def split(self) -> str:
        return "dev" if int(self.id) % 2 == 0 else "held"

    @property
    def docs(self) -> set[str]:
        return {d for d, _ in self.sentences}


def load_claims(data: Path) -> list[Claim]:
    docs = {}
    with gzip.open(data / "evidence_docs_train.jsonl.gz", "rt") as f:
        for line in f:
            d = json.loads(line)
            docs[d["doc_id"]] = d["sentences"]
    claims: dict[str, Claim] = {}
    with gzip.open(data / "evidence_train.jsonl.gz", "rt") as f:
        for line in f:
            e = json.loads(line)
            c = claims.setdefault(e["claim_id"], Claim(e["claim_id"], e["claim"]))
            path = f"{DOC_PREFIX}{e['doc_id']}.md"
            keys = []
            for i in e["sentences"]:
                c.sentences[(path, i)] = norm(docs[e["doc_id"]][i])
                keys.append((path, i))
            c.sets.append(tuple(keys))
    return sorted(claims.values(), key=lambda c: int(c.id))


# ============================================================================ systems


@dataclass
class Delivery:
    text: str
    tokens: int  # the whole text
    quoted: int  # tokens of the quoted / chunk / document text alone
    docs: set[str]  # documents with text in it
    empty_reason: str | None = None


class Bench:
    def __init__(self, root: Path, settings: dict):
        from oriongraph_cli.api import open_index
        from oriongraph_cli.config import load_config
        from oriongraph_cli.tokens import get_counter

        self.base = replace(load_config(root=root), usage_log=False)  # never write the usage log
        known = {f.name for f in fields(self.base)} - {"root"}
        bad = sorted(set(settings) - known)
        if bad:
            sys.exit(f"--settings: unknown setting(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")
        self.cfg = replace(self.base, **settings)
        self.reader = open_index(self.base)
        self.index_info = self.reader.info()
        self.counter = get_counter(str(self.reader.manifest.tokenizer or self.base.tokenizer))
        self.count = self.counter.count
        self.files: dict[str, str] = {}
        self.piece_cost: dict[object, int] = {}
        self.over_budget_fixes = 0
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.verbatim = {"quotes": 0, "not_verbatim": 0, "examples": []}

    def close(self) -> None:
        self.reader.close()

    def file_text(self, path: str) -> str:
        if path not in self.files:
            self.files[path] = (self.base.root / path).read_text(encoding="utf-8")
        return self.files[path]

    # ------------------------------------------------------------------ orion
    def orion(self, claim: Claim, budget: int, compress: bool, sid: str, fmt: str = "markdown") -> Delivery:
        from oriongraph_cli.api import build_request, compile_workingset
        from oriongraph_cli.errors import NoCandidatesError, OrionError
        from oriongraph_cli.render import render_text

        # as `orion compile CLAIM --budget N --format markdown [--no-compress]` builds it (the CLI
        # asks explain=True for the rationale it renders only with --explain: same markdown)
        request = build_request(self.cfg, claim.text, budget=budget, explain=False, record_usage=False,
                                deliver=(fmt,), compress=compress)
        t = time.perf_counter()
        try:
            resp = compile_workingset(request, self.cfg, self.reader)
        except NoCandidatesError as exc:
            self.latencies[sid].append(time.perf_counter() - t)
            return Delivery("", 0, 0, set(), f"no candidates: {str(exc)[:80]}")
        except OrionError as exc:  # e.g. a budget under the format's own title and summary
            self.latencies[sid].append(time.perf_counter() - t)
            return Delivery("", 0, 0, set(), f"error: {str(exc)[:80]}")
        text = render_text(resp, fmt)  # what the CLI writes to stdout
        self.latencies[sid].append(time.perf_counter() - t)
        quoted, docs = 0, set()
        for d in resp.workingset.documents:
            for q in d.quotes:
                c = q.compression
                if c is not None and c.level == "pointer":
                    continue
                docs.add(d.path)
                quoted += self.count(q.text)
                if c is None:  # a whole quote: is it the file's own text?
                    self.verbatim["quotes"] += 1
                    src = self.file_text(d.path)[q.char_start : q.char_end]
                    if norm(src) != norm(q.text):
                        self.verbatim["not_verbatim"] += 1
                        if len(self.verbatim["examples"]) < 3:
                            diff = next(((a, b) for a, b in zip(src.splitlines(), q.text.splitlines()) if a != b), (src, q.text))
                            self.verbatim["examples"].append({"path": d.path, "file": diff[0][:400], "quote": diff[1][:400]})
        return Delivery(readable(fmt, text), self.count(text), quoted, docs)

    # ------------------------------------------------------------------ baselines
    def rankings(self, claim: Claim, names: set[str]) -> dict[str, list[int]]:
        """Span rows ranked by each baseline, once per claim (budget-independent): the intent
        keywords and embedding orion derives (as ``orion eval`` does), then its baseline lists."""
        from oriongraph_cli.api import build_request
        from oriongraph_cli.rank import candidates
        from oriongraph_cli.rank import signals
        from oriongraph_cli.evaluate import baseline_span_lists

        request = build_request(self.base, claim.text, record_usage=False)
        sig = signals.from_index(request, self.reader)
        sig = replace(sig, intent_embedding=candidates.IntentEmbedding(self.reader, sig.intent)())
        want = {"rrf" if n == "doc" else n for n in names}
        return baseline_span_lists(self.reader, sig, sorted(want))

    def _pack(self, pieces: list[tuple[str, str]], keys: list[object], budget: int) -> Delivery:
        """Greedy packing in rank order (a piece that does not fit is skipped), then the whole
        text counted; pieces are dropped from the end in the rare case joining them costs more."""
        from oriongraph_cli.evaluate import pack_rank_order

        costs = []
        for key, (path, body) in zip(keys, pieces):
            if key not in self.piece_cost:
                self.piece_cost[key] = self.count(_piece(path, body))
            costs.append(self.piece_cost[key])
        picked = pack_rank_order(costs, budget)
        while True:
            text = "".join(_piece(*pieces[i]) for i in picked)
            n = self.count(text)
            if n <= budget:
                break
            self.over_budget_fixes += 1
            picked = picked[:-1]
        quoted = sum(self.count(pieces[i][1]) for i in picked)
        return Delivery(text, n, quoted, {pieces[i][0] for i in picked}, None if picked else "nothing fits")

    def chunks(self, rows: list[int], budget: int) -> Delivery:
        meta = self.reader.rows(list(rows))
        rows = [r for r in rows if r in meta]
        pieces = [(meta[r].meta.filepath, meta[r].text) for r in rows]
        return self._pack(pieces, [("span", r) for r in rows], budget)

    def documents(self, rows: list[int], budget: int) -> Delivery:
        meta = self.reader.rows(list(rows))
        paths = list(dict.fromkeys(meta[r].meta.filepath for r in rows if r in meta))
        pieces = [(p, self.file_text(p)) for p in paths]
        return self._pack(pieces, [("doc", p) for p in paths], budget)


def _piece(path: str, body: str) -> str:
    return f"{path}\n{body.strip()}\n\n"


# ============================================================================ scoring


def score(claim: Claim, d: Delivery) -> dict:
    text = norm(d.text)
    loose_text = loose(text) if d.text else ""
    present = {k for k, s in claim.sentences.items() if s in text}
    loose_only = sum(1 for k, s in claim.sentences.items() if k not in present and loose(s) in loose_text)
    n = len(claim.sentences)
    in_doc = sum(1 for (p, _i) in claim.sentences if p in d.docs)
    return {
        "tokens": d.tokens, "quoted": d.quoted, "n": n, "present": len(present),
        "in_delivered_doc": in_doc,  # evidence sentences whose document delivered text
        "present_in_doc": sum(1 for (p, i) in present if p in d.docs),
        "set": any(all(k in present for k in s) for s in claim.sets),
        "docs_delivered": len(claim.docs & d.docs), "docs": len(claim.docs),
        "loose_only": loose_only, "empty": d.empty_reason,
    }


def aggregate(rows: list[dict]) -> dict:
    n = len(rows)
    if not n:
        return {"claims": 0}
    sents = sum(r["n"] for r in rows)
    tokens = sum(r["tokens"] for r in rows)
    delivered = [r for r in rows if r["tokens"]]
    return {
        "claims": n,
        "sentences": sents,
        "recall_macro": sum(r["present"] / r["n"] for r in rows) / n,
        "recall_micro": sum(r["present"] for r in rows) / sents,
        "set_recall": sum(r["set"] for r in rows) / n,
        # each evidence sentence: its document delivered no text (ranking miss), delivered
        # but without it (within-document miss), or present
        "doc_delivered_micro": sum(r["in_delivered_doc"] for r in rows) / sents,
        "ranking_miss_micro": sum(r["n"] - r["in_delivered_doc"] for r in rows) / sents,
        "within_doc_miss_micro": sum(r["in_delivered_doc"] - r["present_in_doc"] for r in rows) / sents,
        "evidence_docs_delivered": sum(r["docs_delivered"] for r in rows) / sum(r["docs"] for r in rows),
        "mean_tokens": tokens / n,
        "text_share": sum(r["quoted"] for r in rows) / tokens if tokens else 0.0,
        "framing_share": 1 - sum(r["quoted"] for r in rows) / tokens if tokens else 0.0,
        "empty": n - len(delivered),
        "loose_only_sentences": sum(r["loose_only"] for r in rows),
        "present_per_1k_tokens": 1000 * sum(r["present"] for r in rows) / tokens if tokens else 0.0,
    }


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


# ============================================================================ driver


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--root", type=Path, default=Path("/tmp/suite/scifact"), help="indexed SciFact OrionFS project (read only)")
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding evidence_train.jsonl.gz and evidence_docs_train.jsonl.gz")
    ap.add_argument("--budgets", default="150,300,600,1000,2000")
    ap.add_argument("--limit", type=int, default=None, help="first N claims (by id) of the split")
    ap.add_argument("--split", choices=("dev", "held", "all"), default="all", help="dev = even claim ids, held = odd")
    ap.add_argument("--systems", default="orion,orion-nc,rrf,dense,bm25,doc", help="comma-separated: " + ", ".join(SYSTEMS))
    ap.add_argument("--settings", default="{}", help="orion settings overrides as JSON, e.g. '{\"compress\": false}' (orion systems only)")
    ap.add_argument("--out", default=None, help="JSON file name under bench/results/")
    ap.add_argument("--no-claims", action="store_true", help="leave the per-claim figures out of --out")
    args = ap.parse_args()

    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    bad = [s for s in systems if s not in SYSTEMS]
    if bad:
        sys.exit(f"--systems: unknown {', '.join(bad)}; known: {', '.join(SYSTEMS)}")
    settings = json.loads(args.settings)
    claims = load_claims(args.data)
    if args.split != "all":
        claims = [c for c in claims if c.split == args.split]
    claims = claims[: args.limit]

    started = time.perf_counter()
    bench = Bench(args.root, settings)
    results: dict[str, dict[str, dict[int, dict]]] = {}  # claim -> system -> budget -> row
    empty_reasons: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    try:
        missing = [p for c in claims for p in c.docs if not (bench.base.root / p).is_file()]
        if missing:
            sys.exit(f"{len(missing)} evidence documents are not in {args.root} (e.g. {missing[0]})")
        base_names = {s for s in systems if s in ("rrf", "dense", "bm25", "doc")}
        for k, c in enumerate(claims, start=1):
            per: dict[str, dict[int, dict]] = {}
            lists = bench.rankings(c, base_names) if base_names else {}
            for s in systems:
                per[s] = {}
                for b in budgets:
                    if s in FORMATS:
                        d = bench.orion(c, b, compress=(s != "orion-nc"), sid=s, fmt=FORMATS[s])
                    elif s == "doc":
                        d = bench.documents(lists["rrf"], b)
                    else:
                        d = bench.chunks(lists[s], b)
                    assert d.tokens <= b, (s, b, c.id, d.tokens)
                    if d.empty_reason:
                        empty_reasons[f"{s}@{b}"][d.empty_reason.split(":")[0]] += 1
                    per[s][b] = score(c, d)
            results[c.id] = per
            if k % 25 == 0 or k == len(claims):
                el = time.perf_counter() - started
                print(f"{k}/{len(claims)} claims, {el:.0f} s elapsed, about {el / k * (len(claims) - k):.0f} s left", file=sys.stderr)
    finally:
        bench.close()
    elapsed = time.perf_counter() - started

    splits = {"dev": [c for c in claims if c.split == "dev"], "held": [c for c in claims if c.split == "held"], "all": claims}
    summary = {}
    for name, cs in splits.items():
        if not cs:
            continue
        summary[name] = {s: {str(b): aggregate([results[c.id][s][b] for c in cs]) for b in budgets} for s in systems}

    # ------------------------------------------------------------------ stdout
    print(f"Evidence recall (macro, % of each claim's evidence sentences in the delivered text), "
          f"each system charged its whole text ({bench.counter.name}); settings {json.dumps(settings)}")
    for name, table in summary.items():
        n = table[systems[0]][str(budgets[0])]["claims"]
        sents = table[systems[0]][str(budgets[0])]["sentences"]
        print(f"\n{name}: {n} claims, {sents} evidence sentences — macro recall % (micro %)")
        print("| system | " + " | ".join(str(b) for b in budgets) + " |")
        print("|---|" + "---:|" * len(budgets))
        for s in systems:
            cells = [f"{pct(table[s][str(b)]['recall_macro'])} ({pct(table[s][str(b)]['recall_micro'])})" for b in budgets]
            print(f"| {SYSTEMS[s]} | " + " | ".join(cells) + " |")
    if "all" in summary:
        t = summary["all"]
        print("\nall claims — per system and budget: mean tokens delivered · text share % · empty · "
              "evidence docs delivered % · ranking miss % / within-doc miss % (of sentences) · complete set % · loose-only")
        for s in systems:
            for b in budgets:
                a = t[s][str(b)]
                print(f"  {SYSTEMS[s]:20s} {b:5d}: {a['mean_tokens']:7.1f} tok · text {pct(a['text_share'])} % · empty {a['empty']}"
                      f" · docs {pct(a['evidence_docs_delivered'])} % · miss rank {pct(a['ranking_miss_micro'])} / in-doc "
                      f"{pct(a['within_doc_miss_micro'])} · set {pct(a['set_recall'])} · loose {a['loose_only_sentences']}")
    lat = {s: sorted(v) for s, v in bench.latencies.items()}
    lat_s = {s: {"p50_ms": round(1000 * v[len(v) // 2], 1), "p95_ms": round(1000 * v[int(len(v) * 0.95)], 1), "n": len(v)}
             for s, v in lat.items() if v}
    print(f"\n{len(claims)} claims × {len(budgets)} budgets × {len(systems)} systems in {elapsed:.0f} s; "
          f"orion compile latency {json.dumps(lat_s)}; whole quotes not verbatim: {bench.verbatim['not_verbatim']} "
          f"of {bench.verbatim['quotes']}; baseline texts trimmed after joining: {bench.over_budget_fixes}", file=sys.stderr)

    if args.out:
        import oriongraph_cli

        payload = {
            "code": str(Path(oriongraph_cli.__file__).resolve().parent),  # the orion that ran
            "what": "share of SciFact train evidence sentences present (whitespace-normalised substring) in each system's "
                    "delivered text, the whole text charged with the index's tokenizer",
            "tokenizer": bench.counter.name,
            "index": {"root": str(args.root), **bench.index_info},
            "settings_overrides": settings,
            "budgets": budgets,
            "systems": {s: SYSTEMS[s] for s in systems},
            "split_rule": "dev = even claim_id, held = odd",
            "seconds": round(elapsed, 1),
            "orion_latency": lat_s,
            "whole_quotes_verbatim_check": bench.verbatim,
            "baseline_texts_trimmed_after_joining": bench.over_budget_fixes,
            "empty_reasons": {k: dict(v) for k, v in empty_reasons.items()},
            "summary": summary,
        }
        claims_out = None
        if not args.no_claims:
            payload["claims_columns"] = "per claim: n (evidence sentences), then per system one row per budget: " + ", ".join(CLAIM_COLUMNS)
            claims_out = {cid: {"n": next(iter(next(iter(per.values())).values()))["n"],
                                **{s: [[int(per[s][b][k]) for k in CLAIM_COLUMNS] for b in budgets] for s in per}}
                          for cid, per in results.items()}
        write_results(args.out, payload, claims_out)


CLAIM_COLUMNS = ("tokens", "present", "in_delivered_doc", "set")


def write_results(name: str, payload: dict, claims: dict | None) -> None:
    """``bench/results/NAME``: the header and ``payload`` indented, then the per-claim figures
    one claim a line (indented, they would take 60,000 lines)."""
    from results_file import header

    text = json.dumps({**header(), **payload}, indent=2)
    if claims:
        rows = ",\n".join(f"    {json.dumps(cid)}: {json.dumps(v, separators=(',', ':'))}" for cid, v in claims.items())
        text = text[: text.rindex("}")].rstrip() + ',\n  "claims": {\n' + rows + "\n  }\n}"
    (HERE / "results" / name).write_text(text + "\n")


if __name__ == "__main__":
    main()
