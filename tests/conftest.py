"""Shared fixtures.

- ``fake_embedder``: a deterministic hashed bag-of-words embedder for unit tests (no model).
- ``sample_index``: the sample fixture copied to a temp dir and indexed once per session
  with the real offline model; end-to-end tests compile against it.
- ``shared_model_cache`` (every test): ``ORION_MODEL_CACHE`` set to one folder for the
  whole run, so the int8 model is built once, not once per project a test indexes (~6 s
  of CPU each, about a third of the suite's). Tests of where the model is built by default
  unset it (``no_model_cache``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent

# a reference time set by the caller's environment (some CI systems export one) would move
# every recency score; the tests that pin it pass their own
os.environ.pop("SOURCE_DATE_EPOCH", None)
# copies of the fixture never carry an index a user built in place (README quick start)
_NO_STATE = shutil.ignore_patterns(".oriongraph")
SAMPLE = REPO / "fixtures" / "orionfs_sample"
WORD = re.compile(r"[a-z0-9]+")


class FakeEmbedder:
    """Hashed bag of words (384 dims), L2-normalised: texts sharing words are similar."""

    dim = 384

    def __init__(self, model_id: str = "fake-bow"):
        self.model_id = model_id
        self.calls = 0
        self.texts: list[str] = []

    def embed(self, texts):
        self.calls += 1
        self.texts.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype="float32")
        for i, t in enumerate(texts):
            for w in WORD.findall(t.lower()):
                h = int.from_bytes(hashlib.blake2b(w.encode(), digest_size=4).digest(), "little")
                out[i, h % self.dim] += 1.0
            n = np.linalg.norm(out[i])
            out[i] = out[i] / n if n else out[i]
        return out


@pytest.fixture(scope="session", autouse=True)
def shared_model_cache(tmp_path_factory):
    """One folder for the built int8 model, shared by the run's workers (pytest-xdist gives
    each worker its own base folder under one parent); the model's build lock lets one
    worker build it while the other waits."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "orion-models"
    before = os.environ.get("ORION_MODEL_CACHE")
    os.environ["ORION_MODEL_CACHE"] = str(folder)
    yield folder / "models"  # where the built files are
    if before is None:
        os.environ.pop("ORION_MODEL_CACHE", None)
    else:
        os.environ["ORION_MODEL_CACHE"] = before


@pytest.fixture
def no_model_cache(monkeypatch):
    """The model built where it is by default, under the project's index."""
    monkeypatch.delenv("ORION_MODEL_CACHE", raising=False)


@pytest.fixture
def fake_embedder(monkeypatch):
    """Patch the embedding model with FakeEmbedder; returns the instance (inspect .texts)."""
    from oriongraph_cli.store import embed

    emb = FakeEmbedder()

    def load(cfg, kind="index"):
        emb.model_id = embed.resolve_model(cfg).model_id
        return emb

    monkeypatch.setattr(embed, "load_embedder", load)
    yield emb
    # a reader opened under the fake may have started a model prefetch nobody took: drop
    # it, or the next real reader of the same model would be handed the fake embedder
    from oriongraph_cli.store import prefetch

    with prefetch._lock:
        pending = list(prefetch._pending.values())
        prefetch._pending.clear()
    for thread, _box in pending:
        thread.join()


@pytest.fixture
def counting_loader(monkeypatch, fake_embedder):
    """Wrap the fake embedder's loader to count loads (a list of the kinds loaded)."""
    from oriongraph_cli.store import embed

    loads = []
    inner = embed.load_embedder

    def load(cfg, kind="index"):
        loads.append(kind)
        return inner(cfg, kind)

    monkeypatch.setattr(embed, "load_embedder", load)
    return loads


PINNED_MTIME = 1_767_225_600  # 2026-01-01: undated notes take their date from the file's mtime


def _copy_sample(root: Path) -> None:
    """The sample fixture copied with every file's mtime pinned, so recency (and with it the
    order of near-ties) does not depend on when the checkout was made."""
    shutil.copytree(SAMPLE, root, ignore=_NO_STATE)
    for f in root.rglob("*"):
        os.utime(f, (PINNED_MTIME, PINNED_MTIME))


@pytest.fixture
def project(tmp_path):
    """A copy of the sample fixture in a temp dir (no index yet)."""
    root = tmp_path / "proj"
    _copy_sample(root)
    return root


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory):
    """The sample fixture indexed with the real model, once per test session (read-only!)."""
    root = tmp_path_factory.mktemp("sample") / "orionfs_sample"
    _copy_sample(root)
    proc = subprocess.run([sys.executable, "-m", "oriongraph_cli", "index", "--root", str(root), "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return root


@contextlib.contextmanager
def flock_held(path):
    """Hold an exclusive ``flock`` on ``path`` as another process would (a running `orion
    index` holds the writer lock so), with the kernel's call, not orion's code."""
    import fcntl

    fd = os.open(str(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def run_orion(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "oriongraph_cli", *args], capture_output=True, text=True, cwd=cwd, env=full_env, timeout=timeout)


def run_on_tty(args, env: dict | None = None, rows: int | None = None, columns: int | None = None) -> tuple[int, str]:
    """orion with stdout on a pseudo-terminal (``rows`` × ``columns`` when given); its exit
    code and what it printed there."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    if rows is not None:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns or 120, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "oriongraph_cli", *args], stdout=slave, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode("utf-8", "replace")


def ws_spans(data: dict) -> list[dict]:
    """What a ``compile --json`` document delivers, in reading order. With ``--explain``,
    each span (its id, lines, score ... from ``explanation``) with its document's ``path``
    and its quote's text and shortening; without, each quote (``path``, ``line_start``,
    ``line_end``, ``quote_text``, ``shortened``): the compact JSON names quotes by their
    lines, not by span ids."""
    if "explanation" in data:
        return [
            {**s, "path": d["path"], "quote_text": q["text"], **({"shortened": s["compression"]["level"]} if s.get("compression") else {})}
            for d in data["explanation"]["documents"] for q in d["quotes"] for s in q["spans"]
        ]
    return [
        {"path": d["path"], "line_start": q["lines"][0], "line_end": q["lines"][1], "quote_text": q["text"],
         **({"shortened": q["shortened"]} if "shortened" in q else {})}
        for d in data["documents"] for q in d["quotes"]
    ]
