"""Start loading the query embedder before a compile's heavy imports.

A fresh ``orion compile`` spends most of its time loading the ONNX model (onnxruntime
import + session creation, ~0.5 s). The index reader :func:`start`s the load in a
background thread when it opens and :func:`take`s it on first use; the CLI calls
:func:`start` earlier still, as soon as the configuration is known, so the load also
overlaps ``oriongraph_cli.api``'s imports (numpy, FAISS, ~0.25 s), and the reader's own
``start`` is then a no-op. A load that fails is re-raised by ``take``.
"""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_pending: dict[tuple, tuple[threading.Thread, list]] = {}


def _key(cfg) -> tuple:
    # the index directory too: the default model's int8 file is built under each index
    return (cfg.model, cfg.model_path, cfg.threads("query"), str(cfg.index_dir))


def start(cfg) -> None:
    """Begin loading ``cfg``'s query embedder in a background thread (once per model)."""
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

        # not a daemon: a library script that ends while onnxruntime is still creating the
        # session (an early usage error) would abort in the interpreter's shutdown ("terminate
        # called without an active exception", exit 134); the interpreter waits for the load
        # instead (the CLI leaves with os._exit and never waits)
        thread = threading.Thread(target=run, name="orion-embedder-prefetch", daemon=False)
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
