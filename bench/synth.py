"""Seeded synthetic OrionFS projects and the scale curve (issue 5, "Scale").

    python bench/synth.py generate DIR --spans 10000 [--seed 7]     # just write a project
    python bench/synth.py curve [--sizes 1000,10000,100000] [--workdir /tmp/orion-synth]
    python bench/synth.py curve --sizes 1000000 --workdir W --reuse --keep --steps index,compile
        # one size alone, on a project generated earlier: generate W/synth-1000000 --spans 1000000

The generator writes a realistic OrionFS tree: the four stage folders, workstreams with
requirements / design / research / impl / eval notes and ``99_decisions/ADR-NNNN-*.md``,
YAML front matter (title, id, stage, status, tags, date, owner, priority, supersedes,
related), ``#``/``##``/``###`` headings, relative Markdown links between documents and
to ADRs. Text is drawn from a seeded topic vocabulary so lexical and semantic search have
real structure to find. The same seed always gives byte-identical files.

``curve`` measures, per size: full index wall time (per phase, with RSS after each phase),
index size on disk, peak RSS of the indexer; re-index time with nothing changed, one file
edited and 1% of the files edited (what a pre-commit hook feels); open-index time (registry,
Whoosh, FAISS), compile latency (in-process p50/p95 over 50 intents, per stage), the first
compile in a process, a fresh ``orion compile`` process and peak RSS of the compiling process.
Raw figures go to ``--out`` after every size and step (default ``bench/results/scale.json``);
with ``ORION_SYNTH_PHASE_LOG=FILE`` the indexing child appends one JSON line per finished
phase (wall, CPU, RSS, peak RSS), so a run stopped half-way still says where it got to.

**Embedding replaced; figures exclude model time.** Embedding 100k spans with the real
model takes about 2 h on this machine (18 spans/s), so the curve runs with a bench-only
fast embedder (random projection of hashed words, 384 dims, L2-normalised) injected by
monkeypatching ``oriongraph_cli.store.embed.load_embedder`` inside the bench processes —
never in product code. The synthetic project's ``.orion.toml`` names the model
``bench/random-projection`` so the manifest says what built the vectors. Real-model
embedding throughput is measured separately (bench/bench_index.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FAST_MODEL = "bench/random-projection"

# ============================================================================ vocabulary

_TOPICS = {
    "ingestion": "queue worker retry backoff jitter message batch throughput consumer producer ack visibility timeout dlq poison idempotency dedupe offset partition",
    "storage": "bucket object parquet compaction partition lifecycle retention tier replication checksum manifest snapshot vacuum encryption kms prefix",
    "search": "ranking bm25 embedding vector index recall precision rerank query tokenizer analyzer shard replica latency cursor pagination hybrid",
    "platform": "auth token jwt session tenant quota rate limit gateway tls certificate rotation secret vault audit rbac sso",
    "billing": "invoice meter usage plan tier discount proration credit ledger reconciliation tax currency refund subscription charge",
    "observability": "metric trace span log exporter collector sampling dashboard alert slo error budget cardinality histogram percentile otel",
    "deploy": "release canary rollout rollback pipeline artifact container image registry cluster node autoscale helm terraform drift",
    "data": "schema migration table column foreign key constraint transaction isolation deadlock vacuum replica failover backup restore postgres",
    "mobile": "app screen offline sync push notification crash build signing store review gesture layout accessibility localization",
    "ml": "model training feature label drift evaluation inference batch gpu quantization checkpoint dataset split baseline threshold calibration",
}
_COMMON = (
    "the a of to and in for on with by we our this that is are be it as at from when after before which should must can "
    "will not only each every per new current previous team service system design decision option trade-off risk cost "
    "performance reliability requirement constraint approach result measured observed expected proposal plan"
).split()
_WORKSTREAMS = list(_TOPICS)
_STAGE_DIRS = ("design", "research", "impl", "eval")
_STATUSES = ("draft", "proposed", "accepted", "superseded", "done")
_OWNERS = ("alice", "bob", "chen", "dana", "eve", "farid", "gita", "hugo")
_SECTION_NAMES = ("Context", "Goals", "Design", "Details", "Alternatives considered", "Risks", "Results", "Open questions",
                  "Consequences", "Rollout", "Measurements", "Background", "Implementation notes", "Decision")


def _sentence(rng: random.Random, topic_words: list[str], other_words: list[str], n: int) -> str:
    words = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            words.append(rng.choice(topic_words))
        elif r < 0.42:
            words.append(rng.choice(other_words))
        elif r < 0.45:
            words.append(str(rng.randint(2, 999)))
        else:
            words.append(rng.choice(_COMMON))
    s = " ".join(words)
    return s[0].upper() + s[1:] + "."


def _paragraph(rng: random.Random, topic: str, approx_tokens: int) -> str:
    tw = _TOPICS[topic].split()
    other = _TOPICS[rng.choice(_WORKSTREAMS)].split()
    out, tokens = [], 0
    while tokens < approx_tokens:
        n = rng.randint(8, 22)
        out.append(_sentence(rng, tw, other, n))
        tokens += int(n * 1.3)
    return " ".join(out)


def _slug(words: list[str]) -> str:
    return "-".join(words).lower()


# ============================================================================ generator


def generate(root: Path, spans: int, seed: int = 7) -> dict:
    """Write a synthetic project of about ``spans`` spans under ``root``; returns a summary.

    Each document has 2-8 ``##`` sections of 90-170 tokens (one span each at the default
    span size), so the span count is close to the number of sections written.
    """
    rng = random.Random(seed)
    if root.exists():
        shutil.rmtree(root)
    for top in ("01_context", "02_knowledge", "03_workstreams", "04_artifacts"):
        (root / top).mkdir(parents=True)
    (root / ".orion.toml").write_text(f'model = "{FAST_MODEL}"\n')
    docs: list[tuple[Path, str, str]] = []  # (path, title, workstream)
    adr_no = 0
    sections_written = 0
    n_docs = 0
    year0 = 2023
    while sections_written < spans:
        topic = rng.choice(_WORKSTREAMS)
        tw = _TOPICS[topic].split()
        kind = rng.random()
        title_words = rng.sample(tw, 3)
        date = f"{year0 + rng.randint(0, 2)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        meta: dict = {"tags": sorted(set(rng.sample(tw, 3) + [topic]))}
        if kind < 0.55:
            stage = rng.choice(_STAGE_DIRS)
            rel = Path("03_workstreams") / f"ws-{topic}" / stage / f"{_slug(title_words)}-{n_docs}.md"
            title = f"{' '.join(title_words).capitalize()} ({stage})"
            meta.update(stage=stage, status=rng.choice(_STATUSES), owner=rng.choice(_OWNERS))
        elif kind < 0.70:
            adr_no += 1
            rel = Path("03_workstreams") / f"ws-{topic}" / "99_decisions" / f"ADR-{adr_no:04d}-{_slug(title_words)}.md"
            title = f"ADR-{adr_no:04d}: {' '.join(title_words).capitalize()}"
            meta.update(id=f"ADR-{adr_no:04d}", stage="final", status=rng.choice(("accepted", "superseded", "proposed")),
                        priority=rng.randint(1, 10))
            if adr_no > 1 and rng.random() < 0.2:
                meta["supersedes"] = f"ADR-{rng.randint(1, adr_no - 1):04d}"
        elif kind < 0.88:
            sub = rng.choice(("research", "howto", "notes"))
            rel = Path("02_knowledge") / sub / f"{_slug(title_words)}-{n_docs}.md"
            title = " ".join(title_words).capitalize()
        elif kind < 0.95:
            rel = Path("04_artifacts") / f"{rng.choice(('report', 'postmortem', 'spec'))}-{_slug(title_words)}-{n_docs}.md"
            title = f"{' '.join(title_words).capitalize()} report"
        else:
            rel = Path("01_context") / f"{_slug(title_words)}-{n_docs}.md"
            title = f"{' '.join(title_words).capitalize()} context"
        related = [docs[rng.randrange(len(docs))][0] for _ in range(rng.randint(0, 3))] if docs else []
        if related:
            meta["related"] = [os.path.relpath(p, rel.parent) for p in related]
        fm = [f'title: "{title}"', f"date: {date}"]
        for k, v in meta.items():
            if isinstance(v, list):
                fm.append(f"{k}: [{', '.join(str(x) for x in v)}]")
            else:
                fm.append(f"{k}: {v}")
        n_sec = rng.randint(2, 8)
        body = [f"# {title}", "", _paragraph(rng, topic, rng.randint(30, 50))]
        sections_written += 1  # the preamble under the title is a span of its own
        for s in range(n_sec):
            name = rng.choice(_SECTION_NAMES)
            body += ["", f"## {name}", ""]
            para = _paragraph(rng, topic, rng.randint(90, 170))
            if related and rng.random() < 0.3:
                target = rng.choice(related)
                para += f" See [{target.stem}]({os.path.relpath(target, rel.parent)})."
            body.append(para)
            if rng.random() < 0.15:
                body += ["", f"### {rng.choice(_SECTION_NAMES)}", "", _paragraph(rng, topic, rng.randint(40, 90))]
                sections_written += 1
            sections_written += 1
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("---\n" + "\n".join(fm) + "\n---\n\n" + "\n".join(body) + "\n", encoding="utf-8")
        docs.append((rel, title, topic))
        n_docs += 1
    return {"documents": n_docs, "sections": sections_written, "adrs": adr_no, "seed": seed}


# ============================================================================ fast embedder (bench only)


class RandomProjectionEmbedder:
    """Bench-only stand-in for the model: each word hashes to a fixed Gaussian vector;
    a text is the L2-normalised sum. Texts sharing words are similar, like a bag of words."""

    dim = 384
    BUCKETS = 1 << 15

    def __init__(self, model_id: str):
        import numpy as np

        self.model_id = model_id
        self._np = np
        self._proj = np.random.default_rng(0).standard_normal((self.BUCKETS, self.dim)).astype("float32")
        self._cache: dict[str, int] = {}

    def _bucket(self, w: str) -> int:
        b = self._cache.get(w)
        if b is None:
            b = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little") % self.BUCKETS
            self._cache[w] = b
        return b

    def embed(self, texts):
        import re

        np = self._np
        out = np.zeros((len(texts), self.dim), dtype="float32")
        for i, t in enumerate(texts):
            idx = [self._bucket(w) for w in re.findall(r"[a-z0-9]+", t.lower())]
            if idx:
                out[i] = self._proj[idx].sum(axis=0)
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.clip(n, 1e-12, None)


def install_fast_embedder() -> None:
    """Monkeypatch the model loader in *this* process (bench only)."""
    from oriongraph_cli.store import embed

    def load(cfg, kind="index"):
        return RandomProjectionEmbedder(embed.resolve_model(cfg).model_id)

    embed.load_embedder = load


# ============================================================================ measurement (child processes)


def _rss_now_mib() -> float:
    try:
        return round(int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError):
        return 0.0


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class PhaseTimer:
    """A Progress that records how long each indexing phase took, its CPU and the RSS at
    its end (bench only). With ``log``, one JSON line per finished phase is appended to
    that file as the run goes, so a run stopped half-way still says where it got to."""

    def __init__(self, log: Path | None = None) -> None:
        self.t0 = self.t = time.perf_counter()
        self.c = time.process_time()
        self.name = "walk"
        self.phases: dict[str, float] = {}
        self.cpu: dict[str, float] = {}  # CPU seconds (user + sys) of each phase
        self.rss: dict[str, float] = {}  # resident MiB at the end of each phase
        self.log = log

    def phase(self, name: str, total: int | None) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        self.phases[self.name] = round(self.phases.get(self.name, 0) + (now - self.t) * 1000, 1)
        self.cpu[self.name] = round(self.cpu.get(self.name, 0) + cpu - self.c, 2)
        self.rss[self.name] = _rss_now_mib()
        if self.log is not None:
            with self.log.open("a") as fh:
                fh.write(json.dumps({"phase": self.name, "wall_ms": round((now - self.t) * 1000, 1), "cpu_s": round(cpu - self.c, 2),
                                     "rss_mib": self.rss[self.name], "peak_rss_mib": round(_peak_rss_mib(), 1),
                                     "next": name, "next_total": total, "at": time.strftime("%H:%M:%S")}) + "\n")
        self.name, self.t, self.c = name, now, cpu

    def advance(self, n: int = 1) -> None:
        pass

    def done(self) -> dict[str, float]:
        self.phase("", None)
        return {k: v for k, v in self.phases.items() if k}


def _child_index(root: Path) -> dict:
    install_fast_embedder()
    from oriongraph_cli.api import index_project
    from oriongraph_cli.config import load_config

    t, c = time.perf_counter(), time.process_time()
    log = os.environ.get("ORION_SYNTH_PHASE_LOG")
    timer = PhaseTimer(Path(log) if log else None)
    res = index_project(load_config(root), full=True, progress=timer)
    wall = time.perf_counter() - t
    return {"index_s": round(wall, 2), "index_cpu_s": round(time.process_time() - c, 2), "documents": res.documents, "spans": res.spans,
            "index_peak_rss_mib": round(_peak_rss_mib(), 1),
            "index_phases_ms": timer.done(), "index_phases_cpu_s": {k: v for k, v in timer.cpu.items() if k},
            "index_rss_after_phase_mib": {k: v for k, v in timer.rss.items() if k}}


def edit_files(root: Path, share: float | None = None) -> list[str]:
    """Append a sentence to one document in the middle of the sorted tree (a typical small
    commit), or to every n-th document so that ``share`` of them change (a branch switch)."""
    files = sorted(p for p in root.rglob("*.md") if ".oriongraph" not in p.parts)
    targets = [files[len(files) // 2]] if share is None else files[:: max(1, round(1 / share))]
    for target in targets:
        with target.open("a", encoding="utf-8") as fh:
            fh.write(f"\nEdited at {time.time_ns()}: the retry budget moved to the worker.\n")
    return [str(t.relative_to(root)) for t in targets]


def edit_one_file(root: Path) -> str:
    return edit_files(root)[0]


REINDEX_MODES = {"nochange": "nothing changed", "edit": "one file edited", "edit1pct": "1% of the files edited"}


def _child_reindex(root: Path, mode: str) -> dict:
    """One `orion index` as a pre-commit hook runs it: nothing changed, or one file edited.
    Timed in-process (index_project) and, by the parent, as a whole process."""
    install_fast_embedder()
    from oriongraph_cli.api import index_project
    from oriongraph_cli.config import load_config

    cfg = load_config(root)
    edited = {"nochange": None, "edit": lambda: edit_files(root), "edit1pct": lambda: edit_files(root, 0.01)}[mode]
    edited = edited() if edited else None
    t, c = time.perf_counter(), time.process_time()
    timer = PhaseTimer()
    res = index_project(cfg, progress=timer)
    wall = time.perf_counter() - t
    return {f"reindex_{mode}_s": round(wall, 3), f"reindex_{mode}_cpu_s": round(time.process_time() - c, 3), f"reindex_{mode}_phases_ms": timer.done(), f"reindex_{mode}_embedded": res.embedded_spans,
            f"reindex_{mode}_nothing_changed": res.nothing_changed, f"reindex_{mode}_peak_rss_mib": round(_peak_rss_mib(), 1),
            **({f"reindex_{mode}_files": len(edited)} if edited else {})}


INTENTS = [
    "retry backoff for the queue worker", "rotate jwt tokens for tenant sessions", "bm25 ranking recall",
    "parquet compaction retention", "invoice proration and refunds", "trace sampling and slo alerts",
    "canary rollout and rollback", "postgres failover and backup restore", "offline sync push notification",
    "model drift evaluation threshold", "why did we choose hybrid ranking", "ADR-0003", "rate limit per tenant quota",
    "dashboard cardinality histogram percentile", "terraform drift in the cluster", "dedupe messages idempotency",
    "schema migration deadlock", "gpu quantization for inference", "audit rbac sso", "cursor pagination latency",
]


def _child_compile(root: Path, n: int) -> dict:
    install_fast_embedder()
    import statistics

    from oriongraph_cli import api
    from oriongraph_cli.config import load_config
    from oriongraph_cli.models import CompileRequest

    cfg = load_config(root)
    t = time.perf_counter()
    reader = api.open_index(cfg)
    reader.lexical, reader.vectors  # what every compile opens (the embedder loads beside them)
    open_ms = (time.perf_counter() - t) * 1000
    reader.embedder  # wait for the (fast) embedder: its random projection is bench cost, not orion's
    embedder_ms = (time.perf_counter() - t) * 1000 - open_ms
    lat, cpu, stages = [], [], {}
    intents = [INTENTS[i % len(INTENTS)] for i in range(n)]
    first = None
    for i, intent in enumerate(intents):
        t, c = time.perf_counter(), time.process_time()
        resp = api.compile_workingset(CompileRequest(intent, budget_tokens=4000, explain=True, timings=True), cfg, reader)
        dt = (time.perf_counter() - t) * 1000
        if i == 0:
            first = dt  # first compile builds lazy caches (documents, span outline)
            continue
        lat.append(dt)
        cpu.append((time.process_time() - c) * 1000)
        for k, v in (resp.stats.timings_ms or {}).items():
            stages.setdefault(k, []).append(v)
    lat.sort()
    cpu.sort()
    kinds = getattr(reader.vectors, "kinds", None)  # segment kinds (None: an index of the one-file layout)
    reader.close()
    return {
        "open_index_ms": round(open_ms, 1),
        "bench_embedder_wait_ms": round(embedder_ms, 1),
        "first_compile_ms": round(first or 0, 1),
        "compile_p50_ms": round(statistics.median(lat), 1),
        "compile_p95_ms": round(lat[int(0.95 * (len(lat) - 1))], 1),
        # CPU (user + sys of this process) per compile: the figure to trust on a shared machine
        "compile_cpu_p50_ms": round(statistics.median(cpu), 1),
        "compile_cpu_p95_ms": round(cpu[int(0.95 * (len(cpu) - 1))], 1),
        "vector_segments": kinds,
        "stage_p50_ms": {k: round(statistics.median(v), 1) for k, v in sorted(stages.items())},
        "compile_peak_rss_mib": round(_peak_rss_mib(), 1),
    }


def _child_fresh(root: Path) -> dict:
    """One `orion compile` as a fresh process would run it (with the fast embedder)."""
    t = time.perf_counter()
    install_fast_embedder()
    from oriongraph_cli.cli import app

    sys.argv = ["orion", "compile", "retry backoff for the queue worker", "--root", str(root), "--json"]
    devnull = open(os.devnull, "w")
    old = sys.stdout
    sys.stdout = devnull
    try:
        app()
    except SystemExit:
        pass
    finally:
        sys.stdout = old
    return {"fresh_compile_in_child_s": round(time.perf_counter() - t, 3)}


def _run_child(what: str, root: Path, *extra: str) -> dict:
    proc = subprocess.run([sys.executable, str(Path(__file__)), "_child", what, str(root), *extra], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"child {what} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _disk_mib(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


STEPS = ("index", "reindex", "compile")


def curve(sizes: list[int], workdir: Path, seed: int, n_compiles: int, save=None, steps=STEPS, reuse: bool = False) -> list[dict]:
    """``reuse``: index a project already generated in ``workdir`` (``synth-N``, by
    ``generate`` with the same seed) instead of writing it again (1M spans take ~30 min)."""
    rows = []
    for n in sizes:
        root = workdir / f"synth-{n}"
        t = time.perf_counter()
        summary_file = root / ".synth.json"
        if reuse and summary_file.is_file():
            summary = json.loads(summary_file.read_text())
        else:
            summary = generate(root, n, seed)
            summary_file.write_text(json.dumps(summary) + "\n")
        gen_s = time.perf_counter() - t
        row = {"target_spans": n, **summary, "generate_s": round(gen_s, 1), "corpus_mib": _disk_mib(root)}
        sys.stderr.write(f"[synth] {n}: generated {summary['documents']} documents in {gen_s:.1f}s; indexing...\n")
        row.update(_run_child("index", root))
        row["index_disk_mib"] = _disk_mib(root / ".oriongraph")
        row["index_spans_per_s"] = round(row["spans"] / row["index_s"], 1)
        sys.stderr.write(f"[synth] {n}: indexed {row['spans']} spans in {row['index_s']}s; compiling...\n")
        if save is not None:
            save(rows + [row])
        for mode in (REINDEX_MODES if "reindex" in steps else ()):
            t = time.perf_counter()
            row.update(_run_child("reindex", root, mode))
            row[f"reindex_{mode}_process_s"] = round(time.perf_counter() - t, 3)
        if "reindex" in steps:
            row["index_disk_after_edit_mib"] = _disk_mib(root / ".oriongraph")
            sys.stderr.write(f"[synth] {n}: re-index " + ", ".join(f"{v} {row[f'reindex_{k}_s']}s" for k, v in REINDEX_MODES.items()) + "\n")
            if save is not None:
                save(rows + [row])
        if "compile" in steps:
            row.update(_run_child("compile", root, str(n_compiles)))
            t = time.perf_counter()
            row.update(_run_child("fresh", root))
            row["fresh_process_s"] = round(time.perf_counter() - t, 3)
        rows.append(row)
        if save is not None:
            save(rows)
        sys.stderr.write(f"[synth] {n}: {json.dumps(row)}\n")
    return rows


def markdown(rows: list[dict]) -> str:
    cols = [
        ("spans", lambda r: f"{r['spans']:,}"),
        ("documents", lambda r: f"{r['documents']:,}"),
        ("full index (s)", lambda r: r["index_s"]),
        ("full index CPU (s)", lambda r: r.get("index_cpu_s", "—")),
        ("indexer peak RSS (MiB)", lambda r: r["index_peak_rss_mib"]),
        ("on disk (MiB)", lambda r: r["index_disk_mib"]),
        ("re-index: nothing / 1 file / 1% of files changed (s)",
         lambda r: f"{r['reindex_nochange_s']} / {r['reindex_edit_s']} / {r['reindex_edit1pct_s']}"),
        ("open index (ms)", lambda r: r["open_index_ms"]),
        ("compile p50 / p95 (ms)", lambda r: f"{r['compile_p50_ms']} / {r['compile_p95_ms']}"),
        ("compile CPU p50 / p95 (ms)", lambda r: f"{r.get('compile_cpu_p50_ms', '—')} / {r.get('compile_cpu_p95_ms', '—')}"),
        ("lexical p50 (ms)", lambda r: r["stage_p50_ms"].get("generate.lexical", "—")),
        ("first compile in a process (ms)", lambda r: r["first_compile_ms"]),
        ("fresh `orion compile` process (s)", lambda r: r["fresh_process_s"]),
        ("compile peak RSS (MiB)", lambda r: r["compile_peak_rss_mib"]),
    ]
    lines = ["| " + " | ".join(c for c, _f in cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(f(r)) for _c, f in cols) + " |")
    return "\n".join(lines)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        what, root = sys.argv[2], Path(sys.argv[3])
        sys.path.insert(0, str(REPO))
        if what == "index":
            out = _child_index(root)
        elif what == "reindex":
            out = _child_reindex(root, sys.argv[4])
        elif what == "compile":
            out = _child_compile(root, int(sys.argv[4]))
        else:
            out = _child_fresh(root)
        sys.stdout.write(json.dumps(out) + "\n")
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="write a synthetic OrionFS project")
    g.add_argument("dir", type=Path)
    g.add_argument("--spans", type=int, default=10_000)
    g.add_argument("--seed", type=int, default=7)
    c = sub.add_parser("curve", help="scale curve at several sizes (fast embedder; see module doc)")
    c.add_argument("--sizes", default="1000,10000,100000")
    c.add_argument("--workdir", type=Path, default=Path("/tmp/orion-synth"))
    c.add_argument("--seed", type=int, default=7)
    c.add_argument("--compiles", type=int, default=51)
    c.add_argument("--keep", action="store_true", help="keep the generated projects")
    c.add_argument("--reuse", action="store_true", help="index the projects a previous --keep run left in --workdir instead of generating them again")
    c.add_argument("--steps", default=",".join(STEPS), help="what to measure per size: index, reindex, compile (comma-separated)")
    c.add_argument("--out", type=Path, default=HERE / "results" / "scale.json", help="where the raw figures go")
    args = ap.parse_args()
    if args.cmd == "generate":
        summary = generate(args.dir, args.spans, args.seed)
        (args.dir / ".synth.json").write_text(json.dumps(summary) + "\n")  # what `curve --reuse` reads
        print(json.dumps(summary))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "oriongraph_cli"], capture_output=True, text=True).stdout.strip()
    head = {
        "machine": f"{os.cpu_count()} cores", "date": time.strftime("%Y-%m-%d"), "commit": commit + ("+uncommitted" if dirty else ""),
        "command": "python bench/synth.py " + " ".join(sys.argv[1:]),
        "embedding": "replaced by a random-projection bench embedder; figures exclude model time",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save(rows: list[dict]) -> None:  # after every size, so a long run keeps what it measured
        args.out.write_text(json.dumps({**head, "rows": rows}, indent=2) + "\n")

    steps = tuple(s for s in args.steps.split(",") if s)
    rows = curve(sizes, args.workdir, args.seed, args.compiles, save, steps=steps, reuse=args.reuse)
    print(markdown(rows) if set(steps) == set(STEPS) else json.dumps(rows, indent=2))
    if not args.keep:
        shutil.rmtree(args.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
