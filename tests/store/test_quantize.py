"""The default model int8 at run time: built once per index from the packaged file, reused,
verified before use (a damaged or missing file is rebuilt, byte for byte the same), named
in the model id (a change re-embeds), kept across an upgrade of onnxruntime while intact,
and the vectors it gives."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import run_orion

from oriongraph_cli.config import DEFAULT_MODEL, load_config
from oriongraph_cli.errors import OrionError
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store import embed, quantize

# where the model is built by default, under each project's index: the run's shared
# ORION_MODEL_CACHE unset (conftest.py), but for the tests of that folder itself
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_model_cache")]
TEXTS = ["retry logic for the ingestion worker", "short", "long text " * 300]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One build of the int8 model into a fresh models directory: (models_dir, key, bytes)."""
    models = tmp_path_factory.mktemp("idx") / quantize.MODELS
    key = quantize.model_key(embed._default_onnx(), models)
    data = quantize.ensure(embed._default_onnx(), models, key)
    return models, key, data


def test_built_once_then_reused(built, monkeypatch):
    models, key, data = built
    meta = json.loads((models / f"{key}.json").read_text())
    assert meta["sha256"] == hashlib.sha256(data).hexdigest() == hashlib.sha256((models / f"{key}.onnx").read_bytes()).hexdigest()
    assert meta["recipe"] == quantize.RECIPE
    # the source's hash is remembered by its stat: the key no longer needs the 23 MB read
    memo = json.loads((models / "source.json").read_text())
    assert memo["sha256"] == meta["source_sha256"] == hashlib.sha256(embed._default_onnx().read_bytes()).hexdigest()

    def no_build(*_a, **_k):
        raise AssertionError("rebuilt a model that was cached")

    monkeypatch.setattr(quantize, "build", no_build)
    assert quantize.ensure(embed._default_onnx(), models, key) == data
    assert quantize.model_key(embed._default_onnx(), models) == key


def test_the_built_graph_runs_int8_matmuls(built):
    import onnx

    _models, _key, data = built
    graph = onnx.load_from_string(data).graph
    weights = {t.name for t in graph.initializer}
    assert sum(n.op_type == "MatMulInteger" for n in graph.node) == 36  # 6 layers x (Q, K, V, out, 2 feed-forward)
    # what stays float: the attention products of two activations, never a weight product
    assert not [n.name for n in graph.node if n.op_type == "MatMul" and weights & set(n.input)]


def test_damaged_or_missing_file_is_rebuilt_identically(built, tmp_path):
    models, key, data = built
    copy = tmp_path / "models"
    shutil.copytree(models, copy)
    onnx_file = copy / f"{key}.onnx"
    raw = bytearray(onnx_file.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # one flipped byte in the weights: still loads, different vectors
    onnx_file.write_bytes(bytes(raw))
    assert quantize.ensure(embed._default_onnx(), copy, key) == data  # verified, rebuilt: the same bytes
    assert onnx_file.read_bytes() == data
    (copy / f"{key}.json").write_text("{not json")
    onnx_file.unlink()
    assert quantize.ensure(embed._default_onnx(), copy, key) == data
    assert not list(copy.glob(".build-*")) and not list(copy.glob("*.tmp"))


def test_the_quantiser_writes_its_temporary_copy_inside_the_models_directory(tmp_path, monkeypatch):
    """onnxruntime's quantiser saves a ~70 MB copy of the model in a temporary directory of
    its own (the system's by default): a build killed midway left it behind, outside the
    project. Every temporary directory or file the build makes is under the models
    directory, and the system's temporary directory is the default again afterwards."""
    import tempfile

    made = []
    for name in ("mkdtemp", "mkstemp"):
        real = getattr(tempfile, name)

        def spy(*a, _real=real, **k):
            out = _real(*a, **k)
            made.append(out if isinstance(out, str) else out[1])
            return out

        monkeypatch.setattr(tempfile, name, spy)
    models = tmp_path / "idx" / quantize.MODELS
    models.mkdir(parents=True)
    before = tempfile.tempdir
    quantize.build(embed._default_onnx(), models)
    assert len(made) >= 2  # ours, and the quantiser's
    assert all(Path(p).resolve().is_relative_to(models.resolve()) for p in made), made
    assert tempfile.tempdir == before
    assert not list(models.iterdir())  # and nothing is left


def test_unwritable_models_dir_is_one_line_error(tmp_path, monkeypatch):
    def refuse(path, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(quantize, "_atomic_write", refuse)
    monkeypatch.setattr(quantize, "build", lambda source, models_dir: b"model")
    models = tmp_path / "models"
    with pytest.raises(OrionError) as err:
        quantize.ensure(embed._default_onnx(), models, quantize.model_key(embed._default_onnx(), models))
    assert "Permission denied" in err.value.message and "writable" in err.value.hint


def test_a_linked_models_directory_is_refused(tmp_path):
    from oriongraph_cli.errors import UnsafeStateError

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.onnx").write_bytes(b"not ours")
    index = tmp_path / "proj" / ".oriongraph"
    index.mkdir(parents=True)
    (index / "models").symlink_to(outside)
    with pytest.raises(UnsafeStateError) as err:
        quantize.ensure(embed._default_onnx(), index / "models", "0123456789abcdef")
    assert "symlink" in err.value.message and "rm " in err.value.hint
    assert [p.name for p in outside.iterdir()] == ["keep.onnx"]


def test_no_index_directory_is_created_for_a_model(project):
    """A compile in a project never indexed must not leave a .oriongraph/ behind (its
    model prefetch starts before the reader finds there is no index)."""
    r = run_orion("compile", "retry logic", "--root", str(project), "--no-usage-log")
    assert r.returncode == 4 and "orion index" in r.stderr
    assert not (project / ".oriongraph").exists()
    from oriongraph_cli.errors import NoIndexError

    with pytest.raises(NoIndexError):
        quantize.ensure(embed._default_onnx(), project / ".oriongraph" / "models", "0123456789abcdef")


def test_unreadable_source_is_one_line_error(tmp_path):
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a model")
    models = tmp_path / "models"  # tmp_path: the index directory
    with pytest.raises(OrionError) as err:
        quantize.ensure(bad, models, quantize.model_key(bad, models))
    assert "cannot build the int8 embedding model" in err.value.message and "reinstall" in err.value.hint
    assert not list((tmp_path / "models").glob("*.onnx"))


def test_int8_vectors_are_deterministic_and_close_to_the_float_model(built, tmp_path):
    models, key, _data = built
    spec = embed.ModelSpec(f"{DEFAULT_MODEL}:int8-dynamic-{key}", DEFAULT_MODEL, None, key, models)
    a = embed.OnnxEmbedder(spec).embed(TEXTS)
    b = embed.OnnxEmbedder(spec, threads=2).embed(TEXTS)
    float_vecs = embed.OnnxEmbedder(embed.ModelSpec("packaged", DEFAULT_MODEL, None)).embed(TEXTS)
    assert a.shape == (3, 384) and np.array_equal(a, embed.OnnxEmbedder(spec).embed(TEXTS))
    assert np.allclose(a, b, atol=1e-6)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    cos = (a * float_vecs).sum(axis=1)
    assert (cos > 0.97).all() and not np.allclose(a, float_vecs, atol=1e-4)  # the int8 model, not the float one


def test_a_text_s_vector_does_not_depend_on_what_it_is_embedded_with(built):
    """The int8 model quantises activations per run: embedded beside a longer text in one
    padded batch, a text's vector moved (cosine 0.989); one text per run keeps it exact, so
    an incremental index and a rebuild hold the same vectors."""
    models, key, _data = built
    emb = embed.OnnxEmbedder(embed.ModelSpec("int8", DEFAULT_MODEL, None, key, models))
    text = TEXTS[0]
    alone = emb.embed([text])[0]
    longer = "a much longer companion about queue semantics and dead letter handling " * 8
    assert np.array_equal(alone, emb.embed([longer, text, "short"])[1])
    assert np.array_equal(alone, emb.embed([text] + TEXTS[1:])[0])
    assert np.array_equal(embed.embed_batched(emb, [longer, text], 8)[1], embed.embed_batched(emb, [text], 1)[0])


def test_model_id_names_source_recipe_and_quantiser(tmp_path, monkeypatch):
    cfg = load_config(tmp_path)
    spec = embed.resolve_model(cfg)
    assert spec.model_id == f"{DEFAULT_MODEL}:int8-dynamic-{spec.int8_key}-{embed.RUN}"
    assert spec.models_dir == cfg.index_dir / "models"
    monkeypatch.setattr(quantize, "RECIPE", quantize.RECIPE + "+other")
    assert embed.resolve_model(cfg).model_id != spec.model_id
    monkeypatch.undo()
    monkeypatch.delenv("ORION_MODEL_CACHE", raising=False)  # undone with the rest (conftest.py)
    monkeypatch.setattr(quantize, "_ort_version", lambda: "0.0.0")
    assert embed.resolve_model(cfg).model_id != spec.model_id


def test_a_new_recipe_re_embeds_the_index(project, fake_embedder, monkeypatch):
    cfg = load_config(project)
    r1 = index_project(cfg)
    assert index_project(cfg).embedded_spans == 0
    monkeypatch.setattr(quantize, "RECIPE", quantize.RECIPE + "+other")
    r2 = index_project(load_config(project))
    assert r2.rebuild_reason.startswith("embedding model changed")
    assert r2.embedded_spans == r1.spans


def test_compile_rebuilds_a_missing_model_and_answers_the_same(sample_index, shared_model_cache, tmp_path):
    """The documented behaviour: a compile whose cached int8 file is gone (or damaged)
    builds it again from the packaged file and gives the same working set."""
    root = tmp_path / "proj"
    shutil.copytree(sample_index, root, symlinks=True)
    shutil.copytree(shared_model_cache, root / ".oriongraph" / "models")  # the index's own, as without the run's cache
    args = ["compile", "add retry logic to the ingestion worker", "--budget", "1500", "--json", "--no-usage-log"]
    before = run_orion(*args, "--root", str(root))
    assert before.returncode == 0, before.stderr
    models = root / ".oriongraph" / "models"
    (onnx_file,) = models.glob("*.onnx")
    onnx_file.unlink()
    after = run_orion(*args, "--root", str(root))
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and onnx_file.is_file()
    assert "Traceback" not in after.stderr


def test_a_verified_file_is_loaded_by_path_until_it_changes(built, tmp_path, monkeypatch):
    """Once its bytes matched their recorded sha256, the built file is remembered by its
    stat and loaded by its path (no 23 MB read and hash per process); a file changed since
    is read, checked and rebuilt as before, and both loads give the same vectors."""
    models, key, data = built
    copy = tmp_path / "models"
    shutil.copytree(models, copy)
    assert quantize.trusted(copy, key) is None  # a copy: another inode, not yet verified
    assert quantize.ensure(embed._default_onnx(), copy, key) == data  # read and hashed: remembered
    assert quantize.trusted(copy, key) == copy / f"{key}.onnx"
    spec = embed.ModelSpec("int8", DEFAULT_MODEL, None, key, copy)

    def no_read(*_a, **_k):
        raise AssertionError("read the bytes of a trusted file")

    with monkeypatch.context() as m:
        m.setattr(quantize, "ensure", no_read)
        by_path = embed.OnnxEmbedder(spec).embed(TEXTS)
    onnx_file = copy / f"{key}.onnx"
    raw = bytearray(onnx_file.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # changed in place: another mtime, no longer trusted
    onnx_file.write_bytes(bytes(raw))
    assert quantize.trusted(copy, key) is None
    assert np.array_equal(embed.OnnxEmbedder(spec).embed(TEXTS), by_path)  # verified, rebuilt, the same model
    assert onnx_file.read_bytes() == data and quantize.trusted(copy, key) == onnx_file


def test_the_model_key_is_remembered_by_stat(built, tmp_path, monkeypatch):
    """The source's hash and onnxruntime's version are computed once and then read from
    ``source.json`` while neither file changes; a models directory is never created for it."""
    models, key, _data = built
    copy = tmp_path / "models"
    shutil.copytree(models, copy)
    (copy / "source.json").unlink()
    assert quantize.model_key(embed._default_onnx(), copy) == key  # computed, then remembered
    memo = json.loads((copy / "source.json").read_text())
    assert memo["onnxruntime"]["version"] == quantize._ort_version()

    def recomputed(*_a, **_k):
        raise AssertionError("recomputed what source.json remembers")

    with monkeypatch.context() as m:
        m.setattr(quantize, "_ort_version", recomputed)
        m.setattr(quantize, "_sha256_file", recomputed)
        assert quantize.model_key(embed._default_onnx(), copy) == key
    memo["onnxruntime"]["stat"][1] += 1  # onnxruntime reinstalled: its version is read again
    memo["stat"][1] += 1  # the packaged file replaced: hashed again
    (copy / "source.json").write_text(json.dumps(memo))
    monkeypatch.setattr(quantize, "_ort_version", lambda: "0.0.0")
    assert quantize.model_key(embed._default_onnx(), copy) == key  # the file built is intact: kept
    assert json.loads((copy / "source.json").read_text())["onnxruntime"]["version"] == "0.0.0"
    assert quantize.model_key(embed._default_onnx(), tmp_path / "empty" / "models") != key  # none built: this one's
    missing = tmp_path / "none" / "models"
    quantize.model_key(embed._default_onnx(), missing)
    assert not missing.exists() and not missing.parent.exists()


@pytest.mark.parametrize("verified, source", [("[1,2", '{"path": 3, "onnxruntime": "x"}'),
                                              ('{"../../x.onnx": {"stat": 1}, "k.onnx": []}', "[]")])
def test_damaged_memos_are_ignored_and_rewritten(built, tmp_path, verified, source):
    models, key, data = built
    copy = tmp_path / "models"
    shutil.copytree(models, copy)
    (copy / "verified.json").write_text(verified)
    (copy / "source.json").write_text(source)
    assert quantize.trusted(copy, key) is None
    assert quantize.model_key(embed._default_onnx(), copy) == key
    assert quantize.ensure(embed._default_onnx(), copy, key) == data
    assert quantize.trusted(copy, key) == copy / f"{key}.onnx"
    assert list(json.loads((copy / "verified.json").read_text())) == [f"{key}.onnx"]


def test_an_upgraded_onnxruntime_keeps_the_model_the_index_was_embedded_with(built, tmp_path, monkeypatch):
    """Another onnxruntime's quantiser builds a slightly different file, and so another model
    id and a re-embedding of every span: while the file an index holds is intact it is kept
    (the same key, no build); a missing or damaged one is never rebuilt under its name by
    this onnxruntime (its key then names this onnxruntime's build)."""
    models, key, data = built
    cfg = load_config(tmp_path)
    copy = cfg.index_dir / quantize.MODELS
    shutil.copytree(models, copy)
    (copy / "verified.json").unlink()  # a copied file is checked once, by its bytes
    monkeypatch.setattr(quantize, "_ort_memo", lambda memo: ("99.0.0", {}))

    def no_build(*_a, **_k):
        raise AssertionError("built again")

    monkeypatch.setattr(quantize, "build", no_build)
    assert quantize.model_key(embed._default_onnx(), copy) == key
    assert quantize.trusted(copy, key) is not None  # the check by its bytes remembered
    assert quantize.ensure(embed._default_onnx(), copy, key) == data
    assert embed.resolve_model(cfg).int8_key == key
    other = json.loads((copy / f"{key}.json").read_text())
    (copy / f"{key}.json").write_text(json.dumps({**other, "recipe": "another"}))  # not this recipe's: not kept
    assert quantize.model_key(embed._default_onnx(), copy) != key
    (copy / f"{key}.json").write_text(json.dumps(other))
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF
    (copy / f"{key}.onnx").write_bytes(bytes(damaged))
    with pytest.raises(OrionError) as err:
        quantize.ensure(embed._default_onnx(), copy, key)
    assert "99.0.0" in err.value.message and "orion index" in err.value.hint
    assert (copy / f"{key}.onnx").read_bytes() == bytes(damaged)  # not rebuilt under its name
    assert quantize.model_key(embed._default_onnx(), copy) != key  # damaged: this onnxruntime's own


def test_after_an_onnxruntime_upgrade_orion_index_changes_nothing_and_compiles_answer_the_same(sample_index, tmp_path):
    """End to end, onnxruntime's version as the processes read it (``models/source.json``
    remembers it by the stat of onnxruntime's ``__init__.py``; an upgrade rewrites that
    file): an indexed project keeps its model and its vectors — `orion index` finds
    nothing changed, `orion status --check` passes — and a compile answers as before."""
    root = tmp_path / "proj"
    shutil.copytree(sample_index, root, symlinks=True)
    args = ["compile", "add retry logic to the ingestion worker", "--budget", "1500", "--json", "--no-usage-log"]
    before = run_orion(*args, "--root", str(root))
    assert before.returncode == 0, before.stderr
    memo_file = root / ".oriongraph" / "models" / "source.json"
    memo = json.loads(memo_file.read_text())
    memo["onnxruntime"]["version"] = "99.0.0"
    memo_file.write_text(json.dumps(memo))
    indexed = run_orion("index", "--root", str(root))
    assert indexed.returncode == 0, indexed.stderr
    assert "nothing changed" in (indexed.stdout + indexed.stderr).lower(), indexed.stdout + indexed.stderr
    assert json.loads(memo_file.read_text())["onnxruntime"]["version"] == "99.0.0"  # the upgrade as they read it
    assert run_orion("status", "--check", "--root", str(root)).returncode == 0
    after = run_orion(*args, "--root", str(root))
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout and "Traceback" not in after.stderr


def test_a_model_cache_builds_the_model_once_for_every_project(built, tmp_path, monkeypatch):
    """ORION_MODEL_CACHE: the int8 file built there once and used by every project's index
    and compile, none of them building or keeping a copy under its own index; the model id
    is the one a project's own build gives, so nothing is re-embedded by moving it."""
    models, key, data = built
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copytree(models, cache / "models")  # built before: the same bytes a build here writes
    (cache / "models" / "verified.json").unlink()
    monkeypatch.setenv("ORION_MODEL_CACHE", str(cache))
    monkeypatch.setattr(quantize, "build", lambda *_a: pytest.fail("built again"))
    own_id = f"{DEFAULT_MODEL}:int8-dynamic-{key}-{embed.RUN}"
    outputs = []
    for name in ("one", "two"):
        root = tmp_path / name
        (root / "02_knowledge").mkdir(parents=True)
        (root / "02_knowledge" / "retry.md").write_text("# Retry\n\nRetry the ingestion worker with backoff and jitter.\n")
        spec = embed.resolve_model(load_config(root))
        assert spec.models_dir == cache / "models" and spec.models_shared and spec.model_id == own_id
        proc = run_orion("index", "--root", str(root), "--quiet")
        assert proc.returncode == 0, proc.stderr
        proc = run_orion("compile", "retry backoff", "--root", str(root), "--json", "--no-usage-log")
        assert proc.returncode == 0, proc.stderr
        outputs.append(json.loads(proc.stdout)["documents"])
        assert not (root / ".oriongraph" / "models").exists()
        assert json.loads(next((root / ".oriongraph" / "gen").glob("*/manifest.json")).read_text())["model_id"] == own_id
    assert outputs[0] == outputs[1]
    assert (cache / "models" / f"{key}.onnx").read_bytes() == data
    # a cache that cannot be made: one line naming it, exit 1, and the index as it was
    root = tmp_path / "one"
    current = (root / ".oriongraph" / "CURRENT").read_text()
    (root / "02_knowledge" / "retry.md").write_text("# Retry\n\nRetry with capped exponential backoff.\n")
    proc = run_orion("index", "--root", str(root), env={"ORION_MODEL_CACHE": str(tmp_path / "gone" / "cache")})
    assert proc.returncode == 1 and "ORION_MODEL_CACHE=" in proc.stderr and "parent folder does not exist" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 2  # the message and its hint
    assert (root / ".oriongraph" / "CURRENT").read_text() == current and not (tmp_path / "gone").exists()


def test_a_model_cache_is_made_when_missing_and_refused_when_relative_or_without_a_parent(built, tmp_path, monkeypatch):
    """The folder the variable names is made when missing, never its parents; orion writes
    and prunes in its `models` folder only, so a user's own files beside it are left alone."""
    models, key, data = built
    monkeypatch.setattr(quantize, "build", lambda *_a: data)  # the build's bytes (tested above), not its 6 s
    root = tmp_path / "proj"
    (root / ".oriongraph").mkdir(parents=True)
    (root / "02_knowledge").mkdir()
    monkeypatch.setenv("ORION_MODEL_CACHE", str(tmp_path / "made"))
    spec = embed.resolve_model(load_config(root))
    assert quantize.ensure(embed._default_onnx(), spec.models_dir, spec.int8_key, spec.models_shared) == data
    assert (tmp_path / "made" / "models" / f"{spec.int8_key}.onnx").read_bytes() == data
    assert not (root / ".oriongraph" / "models").exists()
    # a folder of the user's own, holding other models and a build folder of another tool,
    # reached by a link: the link followed, and nothing of theirs touched by a build or a prune
    own = tmp_path / "mine"
    (own / ".build-theirs").mkdir(parents=True)
    for name in ("a.onnx", "b.onnx", "c.onnx"):
        (own / name).write_bytes(b"the user's model")
    (tmp_path / "linked").symlink_to(own)
    monkeypatch.setenv("ORION_MODEL_CACHE", str(tmp_path / "linked"))
    spec = embed.resolve_model(load_config(root))
    assert spec.models_dir == own.resolve() / "models"
    assert quantize.ensure(embed._default_onnx(), spec.models_dir, spec.int8_key, spec.models_shared) == data
    assert sorted(p.name for p in own.iterdir()) == [".build-theirs", "a.onnx", "b.onnx", "c.onnx", "models"]
    monkeypatch.setenv("ORION_MODEL_CACHE", str(tmp_path / "no" / "such" / "models"))
    spec = embed.resolve_model(load_config(root))
    with pytest.raises(OrionError) as err:
        quantize.ensure(embed._default_onnx(), spec.models_dir, spec.int8_key, spec.models_shared)
    assert "ORION_MODEL_CACHE" in err.value.message and "parent folder does not exist" in err.value.message
    assert str(tmp_path / "no" / "such") in err.value.hint
    assert not (tmp_path / "no").exists()
    for relative in ("models", "./cache", "user/models"):
        monkeypatch.setenv("ORION_MODEL_CACHE", relative)
        proc = run_orion("index", "--root", str(root), env={"ORION_MODEL_CACHE": relative})
        assert proc.returncode == 2 and "ORION_MODEL_CACHE" in proc.stderr and "absolute" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and not (root / relative).exists()


def test_a_projects_settings_file_cannot_choose_the_model_cache(tmp_path):
    """A settings file travels with a cloned project; where orion writes the model outside
    it is the user's environment's choice only."""
    root = tmp_path / "proj"
    (root / "02_knowledge").mkdir(parents=True)
    for setting in ("model_cache", "models_dir"):
        (root / ".orion.toml").write_text(f'{setting} = "{tmp_path / "elsewhere"}"\n')
        proc = run_orion("index", "--root", str(root))
        assert proc.returncode == 2 and f"unknown setting {setting!r}" in proc.stderr, proc.stderr
    assert not (tmp_path / "elsewhere").exists() and not (root / ".oriongraph").exists()
