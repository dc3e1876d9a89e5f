"""Start loading the query embedder before a compile's heavy imports.

A fresh ``orion compile`` spends most of its time loading the ONNX model (onnxruntime
import + session creation, ~0.5 s). The index reader already loads it in a background
thread, but the reader opens only after ``oriongraph_cli.api`` and its imports (numpy,
Whoosh, FAISS, ~0.25 s). The CLI calls :func:`start` as soon as the configuration is
known, so the model load overlaps those imports too; the reader then :func:`take`s the
result instead of loading a second copy. A load that fails is re-raised by ``take`` —
the same error, at the same moment, as without the prefetch.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_pending: dict[tuple, tuple[threading.Thread, list]] = {}


def _key(cfg) -> tuple:
    return (cfg.model, cfg.model_path, cfg.embed_threads)


def start(cfg) -> None:
    """Begin loading ``cfg``'s query embedder in a daemon thread (once per model)."""
    key = _key(cfg)
    with _lock:
        if key in _pending:
            return
        box: list[Any] = []

        def run() -> None:
            try:
                from oriongraph_cli.store.embed import load_embedder

                box.append(load_embedder(cfg, "query"))
            except BaseException as exc:  # handed to whoever takes it
                box.append(exc)

        thread = threading.Thread(target=run, name="orion-embedder-prefetch", daemon=True)
        _pending[key] = (thread, box)
        thread.start()


def take(cfg):
    """The embedder :func:`start` loaded for ``cfg``'s model (waiting for it), or None when
    nothing was prefetched. Each prefetch is handed out once."""
    with _lock:
        entry = _pending.pop(_key(cfg), None)
    if entry is None:
        return None
    thread, box = entry
    thread.join()
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]
