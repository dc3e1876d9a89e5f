"""Retrieval evaluation (``orion eval``): how well does the compiler find what a project's
own judgements say is relevant, compared with single-channel baselines on the same index?

Input: a JSONL file, one query a line::

    {"id": "q1", "text": "add retry logic to the worker", "relevant": {"03_workstreams/ws/design.md": 2}}

``relevant`` maps paths relative to the project root to a graded judgement (> 0 relevant;
0 judged not relevant). Blank lines are skipped.

Metrics, per query and averaged (document level — a document's score is its best span's):

- **nDCG@10**: ``DCG = sum_{i<10} grade(d_i) / log2(i + 2)`` over the ranked documents,
  divided by the DCG of the ideal order of the judgements (linear gain, as trec_eval and
  BEIR compute it, so figures compare with published ones).
- **Recall@100**: share of relevant documents (grade > 0) among the first 100 documents.
- **Working-set recall**: share of relevant documents with at least one span in the
  working set compiled at ``budget`` tokens.
- **Utilisation**: tokens in the working set / budget.
- **Latency**: wall time of one in-process compile (``pipeline.compile_workingset`` with the
  index already open), p50 and p95 over the queries. Orion's default pipeline only.

Baselines (``compare``), run in the same process on the same index, same intent keywords
and the same intent embedding:

- ``bm25``  — the Whoosh lexical channel alone (BM25F over the intent keywords);
- ``dense`` — FAISS cosine over the span embeddings alone;
- ``rrf``   — reciprocal rank fusion of the two span lists, ``1/(60 + rank)`` summed.

A baseline ranks documents by its best span and builds its working set the way a naive
does: spans packed greedily in rank order, skipping any span that does not fit.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from oriongraph_cli.config import Config
from oriongraph_cli.errors import ExitStatus, OrionError

EVAL_SCHEMA_VERSION = 1
BASELINES = ("bm25", "dense", "rrf")
DEFAULT_SYSTEM = "orion"
NDCG_K = 10
RECALL_K = 100
BASELINE_DEPTH = 1000  # spans each baseline retrieves (enough for 100 documents)
RRF_K = 60

ProgressFn = Callable[[int, int], None]


# ============================================================================ queries


@dataclass(frozen=True)
class EvalQuery:
    id: str
    text: str
    relevant: dict[str, float]  # path relative to the root -> grade (> 0 relevant)
    line: int  # 1-based line in the file

    @property
    def positives(self) -> dict[str, float]:
        return {p: g for p, g in self.relevant.items() if g > 0}


_FORMAT_HINT = 'each line must be a JSON object {"id": "...", "text": "...", "relevant": {"<path relative to the root>": 1}}'


def _bad(path: Path, line: int, message: str, hint: str = _FORMAT_HINT) -> OrionError:
    return OrionError(f"{path}:{line}: {message}", hint=hint, exit_code=ExitStatus.USAGE)


def _norm_path(p: str) -> str:
    p = p.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def parse_queries(lines: Iterable[str], source: Path) -> list[EvalQuery]:
    """Parse JSONL query lines (see module doc); every problem names ``source:line`` and the fix."""
    out: list[EvalQuery] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _bad(source, n, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:  # "[[[[…" a hundred thousand deep
            raise _bad(source, n, "not valid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise _bad(source, n, f"expected a JSON object, got {type(obj).__name__}")
        missing = [k for k in ("id", "text", "relevant") if k not in obj]
        if missing:
            raise _bad(source, n, "missing " + ", ".join(f'"{k}"' for k in missing))
        qid = obj["id"]
        if isinstance(qid, bool) or not isinstance(qid, (str, int)) or str(qid).strip() == "":
            raise _bad(source, n, f'"id" must be a non-empty string or integer, got {qid!r}')
        qid = str(qid)
        if qid in seen:
            raise _bad(source, n, f"duplicate id {qid!r} (first on line {seen[qid]})", hint="give every query a unique id")
        seen[qid] = n
        text = obj["text"]
        if not isinstance(text, str) or not any(ch.isprintable() and not ch.isspace() for ch in text):
            raise _bad(source, n, f'"text" must be a non-empty string (query {qid!r})')
        if not text.isascii():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                raise _bad(source, n, f'"text" is not UTF-8 text: a lone surrogate escape (query {qid!r})') from None
        rel = obj["relevant"]
        if not isinstance(rel, dict):
            raise _bad(source, n, f'"relevant" must be an object mapping paths to grades (query {qid!r}), got {type(rel).__name__}')
        relevant: dict[str, float] = {}
        for p, g in rel.items():
            if isinstance(g, bool) or not isinstance(g, (int, float)) or not math.isfinite(g) or g < 0:
                raise _bad(source, n, f"grade of {p!r} must be a number >= 0 (query {qid!r}), got {g!r}",
                           hint="use 1 for relevant, 2 for highly relevant, 0 for judged not relevant")
            np_ = _norm_path(p)
            if not np_ or np_.startswith("/") or np_.split("/")[0] == ".." or (len(np_) > 1 and np_[1] == ":"):
                raise _bad(source, n, f"relevant path {p!r} is not relative to the project root (query {qid!r})",
                           hint="name documents by their path relative to the root, e.g. 02_knowledge/notes/x.md")
            relevant[np_] = float(g)
        if not any(g > 0 for g in relevant.values()):
            raise _bad(source, n, f"query {qid!r} names no relevant document (grade > 0)",
                       hint="add at least one path with a grade > 0, or drop the query")
        out.append(EvalQuery(qid, text, relevant, n))
    if not out:
        raise OrionError(f"{source}: no queries", hint=_FORMAT_HINT, exit_code=ExitStatus.USAGE)
    return out


def load_queries(path: Path | str) -> list[EvalQuery]:
    """Read and validate a JSONL queries file (raises ``OrionError`` naming file:line)."""
    from oriongraph_cli.safeio import UnsafeFile, read_regular

    path = Path(path)
    try:
        data = read_regular(path, 256 * 1024 * 1024, follow=True)
    except FileNotFoundError:
        raise OrionError(f"{path}: no such file", hint="pass a JSONL file of queries; " + _FORMAT_HINT, exit_code=ExitStatus.USAGE) from None
    except UnsafeFile as exc:
        raise OrionError(f"{path}: {exc.reason}", hint="pass a JSONL file of queries; " + _FORMAT_HINT, exit_code=ExitStatus.USAGE) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _bad(path, line, "not UTF-8", hint="save the file as UTF-8") from None
    return parse_queries(text.splitlines(), path)


def unknown_paths(queries: Sequence[EvalQuery], known: set[str]) -> list[str]:
    """One warning per relevant path that is not in the index (it can never be retrieved)."""
    out = []
    for q in queries:
        for p in q.relevant:
            if p not in known:
                out.append(f"query {q.id!r} (line {q.line}): relevant path {p!r} is not in the index")
    return out


def parse_compare(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"bm25,dense,rrf"`` -> ("bm25", "dense", "rrf"); ``""``/``"none"`` -> ()."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [s.strip().lower() for s in items if s.strip()]
    if names == ["none"]:
        return ()
    bad = [n for n in names if n not in BASELINES]
    if bad:
        raise OrionError(
            f"--compare: unknown baseline {', '.join(repr(b) for b in bad)}",
            hint="baselines: " + ", ".join(BASELINES) + " (comma-separated), or none",
            exit_code=ExitStatus.USAGE,
        )
    return tuple(dict.fromkeys(names))


# ============================================================================ metrics


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = NDCG_K) -> float:
    """Graded nDCG@k with linear gain and a log2(rank + 1) discount (trec_eval / BEIR).

    ``ranked`` is the document order (duplicates after the first are ignored); the ideal
    DCG sorts the judgements' grades. 0.0 when nothing is relevant.
    """
    ideal = dcg(sorted((g for g in relevant.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    seen: set[str] = set()
    gains = []
    for d in ranked:
        if d in seen:
            continue
        seen.add(d)
        gains.append(max(0.0, float(relevant.get(d, 0.0))))
        if len(gains) == k:
            break
    return dcg(gains) / ideal


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = RECALL_K) -> float:
    """Share of relevant documents (grade > 0) among the first ``k`` distinct documents."""
    pos = {d for d, g in relevant.items() if g > 0}
    if not pos:
        return 0.0
    top = list(dict.fromkeys(ranked))[:k]
    return len(pos.intersection(top)) / len(pos)


def set_recall(docs: Iterable[str], relevant: Mapping[str, float]) -> float:
    """Share of relevant documents (grade > 0) present in ``docs``."""
    pos = {d for d, g in relevant.items() if g > 0}
    return len(pos.intersection(docs)) / len(pos) if pos else 0.0


def doc_ranking(span_paths: Iterable[str]) -> list[str]:
    """Spans in score order -> documents in order of their best span."""
    return list(dict.fromkeys(span_paths))


def pack_rank_order(costs: Sequence[int], budget: int) -> list[int]:
    """Naive packing: indices of spans taken in rank order; a span that does not fit is
    skipped (never reordered to exploit slack)."""
    out, used = [], 0
    for i, c in enumerate(costs):
        if used + c <= budget:
            out.append(i)
            used += c
    return out


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# ============================================================================ report


@dataclass(frozen=True)
class SystemResult:
    """One system's figures for one query."""

    ndcg_at_10: float
    recall_at_100: float
    ws_recall: float
    utilisation: float
    first_relevant_rank: int | None = None  # 1-based document rank of the first relevant document
    relevant_share: float = 0.0  # share of the working set's quoted tokens from relevant documents

    def to_dict(self) -> dict[str, Any]:
        return {
            "ndcg_at_10": round(self.ndcg_at_10, 6),
            "recall_at_100": round(self.recall_at_100, 6),
            "ws_recall": round(self.ws_recall, 6),
            "relevant_share": round(self.relevant_share, 6),
            "utilisation": round(self.utilisation, 6),
            "first_relevant_rank": self.first_relevant_rank,
        }


@dataclass(frozen=True)
class QueryRow:
    id: str
    text: str
    relevant: int  # number of relevant documents (grade > 0)
    systems: dict[str, SystemResult]
    latency_ms: float  # in-process compile of orion's default pipeline

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "relevant": self.relevant,
            "latency_ms": round(self.latency_ms, 3),
            "systems": {k: v.to_dict() for k, v in self.systems.items()},
        }


@dataclass(frozen=True)
class SystemSummary:
    name: str
    ndcg_at_10: float
    recall_at_100: float
    ws_recall: float
    utilisation: float
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    relevant_share: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        r = lambda v, n=4: None if v is None else round(v, n)  # noqa: E731
        return {
            "name": self.name,
            "ndcg_at_10": r(self.ndcg_at_10),
            "recall_at_100": r(self.recall_at_100),
            "ws_recall": r(self.ws_recall),
            "relevant_share": r(self.relevant_share),
            "utilisation": r(self.utilisation),
            "latency_p50_ms": r(self.latency_p50_ms, 2),
            "latency_p95_ms": r(self.latency_p95_ms, 2),
        }


@dataclass(frozen=True)
class EvalReport:
    queries_file: str
    budget: int
    systems: tuple[str, ...]  # "orion" first, then the baselines in the order asked
    summaries: dict[str, SystemSummary]
    queries: tuple[QueryRow, ...]
    warnings: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)  # effective defaults of orion's pipeline
    index: dict[str, Any] = field(default_factory=dict)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": EVAL_SCHEMA_VERSION,
            "kind": "eval",
            "queries_file": self.queries_file,
            "budget": self.budget,
            "n_queries": self.n_queries,
            "metrics": {"ndcg": f"nDCG@{NDCG_K} (linear gain, log2 discount, document level)",
                        "recall": f"Recall@{RECALL_K} (document level)",
                        "ws_recall": "share of relevant documents with a span in the working set (a pointer alone does not count)",
                        "relevant_share": "share of the working set's quoted tokens that come from relevant documents",
                        "latency": "in-process compile, index open (orion only)"},
            "systems": list(self.systems),
            "summary": {k: self.summaries[k].to_dict() for k in self.systems},
            "settings": self.settings,
            "index": self.index,
            "warnings": list(self.warnings),
            "queries": [q.to_dict() for q in self.queries],
        }


def summarise(name: str, rows: Sequence[QueryRow], latencies: Sequence[float] | None = None) -> SystemSummary:
    res = [r.systems[name] for r in rows]
    n = len(res) or 1
    return SystemSummary(
        name=name,
        ndcg_at_10=sum(r.ndcg_at_10 for r in res) / n,
        recall_at_100=sum(r.recall_at_100 for r in res) / n,
        ws_recall=sum(r.ws_recall for r in res) / n,
        relevant_share=sum(r.relevant_share for r in res) / n,
        utilisation=sum(r.utilisation for r in res) / n,
        latency_p50_ms=percentile(latencies, 50) if latencies else None,
        latency_p95_ms=percentile(latencies, 95) if latencies else None,
    )


# ============================================================================ systems


def _first_rank(ranked: Sequence[str], relevant: Mapping[str, float]) -> int | None:
    for i, d in enumerate(ranked, start=1):
        if relevant.get(d, 0) > 0:
            return i
    return None


def relevant_share(tokens_by_doc: Mapping[str, int], relevant: Mapping[str, float]) -> float:
    """Share of the working set's tokens that come from relevant documents (0 when empty)."""
    total = sum(tokens_by_doc.values())
    return sum(n for d, n in tokens_by_doc.items() if relevant.get(d, 0) > 0) / total if total else 0.0


def system_result(ranked_docs: Sequence[str], ws_docs: Iterable[str], tokens: int, budget: int, relevant: Mapping[str, float],
                  tokens_by_doc: Mapping[str, int] | None = None) -> SystemResult:
    return SystemResult(
        ndcg_at_10=ndcg_at_k(ranked_docs, relevant, NDCG_K),
        recall_at_100=recall_at_k(ranked_docs, relevant, RECALL_K),
        ws_recall=set_recall(ws_docs, relevant),
        utilisation=tokens / budget if budget > 0 else 0.0,
        first_relevant_rank=_first_rank(ranked_docs, relevant),
        relevant_share=relevant_share(tokens_by_doc or {}, relevant),
    )


def baseline_span_lists(reader, signals, names: Sequence[str], depth: int = BASELINE_DEPTH) -> dict[str, list[int]]:
    """Ranked span rows for each baseline (see module doc), from the same signals orion used."""
    want = set(names)
    lists: dict[str, list[int]] = {}
    if want & {"bm25", "rrf"}:
        found = reader.lexical.search(list(signals.keywords), depth)
        lists["bm25"] = [row for row, _s, _m in sorted(found, key=lambda t: (-t[1], t[0]))]
    if want & {"dense", "rrf"}:
        found = reader.vectors.search(signals.intent_embedding, depth) if signals.intent_embedding is not None else []
        lists["dense"] = [row for row, _s in sorted(found, key=lambda t: (-t[1], t[0]))]
    if "rrf" in want:
        lists["rrf"] = rrf_fuse([lists["bm25"], lists["dense"]], RRF_K)
    return {k: v for k, v in lists.items() if k in want}


def rrf_fuse(lists: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal rank fusion: ``score(d) = sum_lists 1 / (k + rank)``; ties by id."""
    score: dict[int, float] = {}
    for ranked in lists:
        for r, item in enumerate(ranked, start=1):
            score[item] = score.get(item, 0.0) + 1.0 / (k + r)
    return sorted(score, key=lambda i: (-score[i], i))


def naive_pack(reader, rows: Sequence[int]) -> tuple[list[str], Callable[[int], dict[str, int]]]:
    """A baseline's ranked span ``rows`` as (document paths in rank order, ``pack(budget)``:
    the tokens each document holds in the chunks packed greedily in rank order)."""
    meta = reader.rows(list(rows))
    rows = [r for r in rows if r in meta]
    paths = [meta[r].meta.filepath for r in rows]
    costs = [meta[r].ref.token_cost for r in rows]

    def pack(budget: int) -> dict[str, int]:
        by_doc: dict[str, int] = {}
        for i in pack_rank_order(costs, budget):
            by_doc[paths[i]] = by_doc.get(paths[i], 0) + costs[i]
        return by_doc

    return paths, pack


def baseline_result(reader, rows: Sequence[int], budget: int, relevant: Mapping[str, float]) -> SystemResult:
    paths, pack = naive_pack(reader, rows)
    by_doc = pack(budget)
    return system_result(doc_ranking(paths), set(by_doc), sum(by_doc.values()), budget, relevant, by_doc)


# ============================================================================ driver


def working_set_tokens(resp) -> dict[str, int]:
    """Quoted tokens per document of a compiled working set (shortened spans at their size)."""
    out: dict[str, int] = {}
    for i in resp.workingset.spans:
        n = i.compression.tokens if i.compression is not None else i.span_ref.token_cost
        out[i.path] = out.get(i.path, 0) + n
    return out


def delivered_docs(resp) -> set[str]:
    """Documents with text in the working set (a one-line pointer does not count), and the
    documents it names beside a quoted span as holding that span's text word for word
    (``WSItem.copies``: their text is delivered, once)."""
    return quoted_docs(resp) | {c.path for i in _quoting(resp) for c in i.copies}


def quoted_docs(resp) -> set[str]:
    """Documents with text of their own quoted in the working set (``delivered_docs``
    without the copies named beside a quote)."""
    return {i.path for i in _quoting(resp)}


def _quoting(resp):
    """The working set's spans that quote text (a one-line pointer quotes none)."""
    from oriongraph_cli.models import is_pointer

    return [i for i in resp.workingset.spans if not is_pointer(i)]


def default_request(cfg: Config, text: str, budget: int):
    """The request `orion compile TEXT --budget N` builds with no other flags — except that
    evaluation never writes the project's usage log (809 eval compiles would otherwise
    become "usage" that biases the user's future compiles)."""
    from oriongraph_cli.request import build_request

    return build_request(cfg, text, budget=budget, explain=False, record_usage=False)


def evaluate(
    cfg: Config,
    queries: Sequence[EvalQuery],
    *,
    budget: int | None = None,
    compare: Sequence[str] = BASELINES,
    limit: int | None = None,
    reader=None,
    progress: ProgressFn | None = None,
    queries_file: str = "",
) -> EvalReport:
    """Evaluate orion's default pipeline (and ``compare`` baselines) on ``queries``.

    Opens the index once (or uses ``reader``); ``progress(done, total)`` is called after
    each query. Raises ``OrionError`` for a bad budget, an unknown baseline or a missing index.
    """
    from oriongraph_cli.assemble import explain
    from oriongraph_cli import pipeline
    from oriongraph_cli.errors import NoCandidatesError
    from oriongraph_cli.store.reader import IndexReader

    budget = cfg.budget if budget is None else int(budget)
    if budget <= 0:
        raise OrionError(f"--budget must be positive, got {budget}", hint="e.g. --budget 4000", exit_code=ExitStatus.USAGE)
    compare = parse_compare(list(compare))
    if limit is not None:
        if limit <= 0:
            raise OrionError(f"--limit must be positive, got {limit}", exit_code=ExitStatus.USAGE)
        queries = list(queries)[:limit]
    own = reader is None
    reader = reader or IndexReader(cfg)
    try:
        warnings = unknown_paths(queries, {d["path"] for d in reader.documents})
        rows: list[QueryRow] = []
        latencies: list[float] = []
        total = len(queries)
        for i, q in enumerate(queries):
            request = default_request(cfg, q.text, budget)
            relevant = q.positives
            systems: dict[str, SystemResult] = {}
            # ranking: the candidates `orion compile` scores, in base-score order; then the
            # working set compiled on that ranking — timed together, as one in-process compile
            t = time.perf_counter()
            ranked = pipeline.rank_candidates(request, cfg, reader)
            try:
                resp = pipeline.compile_workingset(request, cfg, reader, ranked=ranked)
                by_doc = working_set_tokens(resp)
                ws_docs = delivered_docs(resp)
                tokens = resp.workingset.total_tokens
            except NoCandidatesError:
                ws_docs, tokens, by_doc = set(), 0, {}
            latencies.append((time.perf_counter() - t) * 1000)
            signals, scored = ranked[0], ranked[1]
            ranked_docs = doc_ranking(c.metadata.filepath for c in scored)
            systems[DEFAULT_SYSTEM] = system_result(ranked_docs, ws_docs, tokens, budget, relevant, by_doc)
            if compare:
                for name, span_rows in baseline_span_lists(reader, signals, compare).items():
                    systems[name] = baseline_result(reader, span_rows, budget, relevant)
            rows.append(QueryRow(q.id, q.text, len(relevant), {k: systems[k] for k in (DEFAULT_SYSTEM, *compare)}, latencies[-1]))
            if progress is not None:
                progress(i + 1, total)
        names = (DEFAULT_SYSTEM, *compare)
        summaries = {n: summarise(n, rows, latencies if n == DEFAULT_SYSTEM else None) for n in names}
        return EvalReport(
            queries_file=queries_file,
            budget=budget,
            systems=names,
            summaries=summaries,
            queries=tuple(rows),
            warnings=tuple(warnings),
            settings=explain.effective_defaults(cfg, default_request(cfg, "-", budget)),
            index=reader.info(),
        )
    finally:
        if own:
            reader.close()


def evaluate_file(cfg: Config, path: Path | str, **kw: Any) -> EvalReport:
    """``load_queries`` + ``evaluate`` (the CLI's entry point)."""
    queries = load_queries(path)
    return evaluate(cfg, queries, queries_file=str(path), **kw)


__all__ = [
    "BASELINES",
    "EvalQuery",
    "EvalReport",
    "QueryRow",
    "SystemResult",
    "SystemSummary",
    "evaluate",
    "evaluate_file",
    "load_queries",
    "ndcg_at_k",
    "naive_pack",
    "pack_rank_order",
    "parse_compare",
    "parse_queries",
    "recall_at_k",
    "rrf_fuse",
]
