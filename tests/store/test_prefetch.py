"""The query-model prefetch: one load, handed to the reader; errors surface unchanged."""

from __future__ import annotations

import json

import pytest

from conftest import ws_spans
from typer.testing import CliRunner

from oriongraph_cli.cli import app
from oriongraph_cli.config import load_config
from oriongraph_cli.errors import OrionError
from oriongraph_cli.store import prefetch


def test_take_without_start_is_none(tmp_path):
    assert prefetch.take(load_config(tmp_path)) is None


def test_start_then_take_hands_out_one_load(tmp_path, counting_loader, fake_embedder):
    cfg = load_config(tmp_path)
    prefetch.start(cfg)
    prefetch.start(cfg)  # idempotent while pending
    assert prefetch.take(cfg) is fake_embedder
    assert counting_loader == ["query"]
    assert prefetch.take(cfg) is None  # handed out once


def test_a_failed_load_is_raised_by_take(tmp_path, monkeypatch):
    from oriongraph_cli.store import embed

    def broken(cfg, kind="index"):
        raise OrionError("cannot load embedding model 'x'", hint="set ORION_MODEL_PATH")

    monkeypatch.setattr(embed, "load_embedder", broken)
    cfg = load_config(tmp_path)
    prefetch.start(cfg)
    with pytest.raises(OrionError, match="cannot load embedding model"):
        prefetch.take(cfg)


def test_compile_loads_the_model_once(project, counting_loader):
    runner = CliRunner()
    r = runner.invoke(app, ["index", "--root", str(project), "--quiet"], catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
    counting_loader.clear()
    r = runner.invoke(app, ["compile", "retry policy", "--root", str(project), "--json", "--no-usage-log"], catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
    assert ws_spans(json.loads(r.stdout))
    assert counting_loader == ["query"]  # the prefetched load, not a second one by the reader


def test_a_model_other_than_the_index_s_is_refused_on_every_use(project, fake_embedder):
    from dataclasses import replace

    from oriongraph_cli import api

    cfg = load_config(project)
    api.index_project(cfg)
    reader = api.open_index(replace(cfg, model="some/other-model"))
    try:
        for _ in range(2):
            with pytest.raises(OrionError, match="was built with"):
                reader.embed_query("retry policy")
    finally:
        reader.close()
