"""Decisions replaced without saying so: a later decision of the same workstream on the
same subject is named as the likely successor (a soft signal with its reason), on a real
index with the real model."""

from __future__ import annotations

import json

import pytest
from conftest import run_orion

from oriongraph_cli.rank.implicit import jaccard, title_words

ADR = """---
title: "{title}"
id: {id}
stage: final
status: {status}
date: {date}
tags: [adr]
---

# {title}

## Context

{context}

## Decision

{decision}
"""

CI_CONTEXT = ("Every service team needs a continuous integration pipeline that builds container images, runs the "
              "test suite on each pull request and deploys to the cluster after merge.")


def _write(root, name, **kw):
    p = root / "03_workstreams" / "ws-platform" / "decisions" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(ADR.format(**kw), encoding="utf-8")


@pytest.fixture(scope="module")
def adr_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("implicit") / "proj"
    _write(root, "ADR-0003-concourse-ci.md", title="ADR-0003: Use Concourse for CI pipelines", id="ADR-0003", status="accepted",
           date="2018-03-01", context=CI_CONTEXT,
           decision="We run Concourse CI for every team's pipelines: build images, run tests, deploy to the cluster.")
    _write(root, "ADR-0040-github-actions.md", title="ADR-0040: Use GitHub Actions for CI pipelines", id="ADR-0040",
           status="accepted", date="2022-06-01", context=CI_CONTEXT,
           decision="Teams run their CI pipelines in GitHub Actions: build images, run tests, deploy to the cluster.")
    _write(root, "ADR-0012-postgres.md", title="ADR-0012: Postgres for the control plane", id="ADR-0012", status="accepted",
           date="2020-01-01", context="The control plane stores tenants, quotas and billing records.",
           decision="Use managed Postgres with point-in-time recovery.")
    proc = run_orion("index", "--root", str(root), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root


def test_title_words_drop_ids_and_filler():
    assert title_words("ADR-0003: Use Concourse for CI pipelines") == {"concourse", "ci", "pipelines"}
    assert title_words("PEP 8 – Style Guide for Python Code") == {"style", "guide", "python", "code"}
    assert jaccard({"ci", "pipelines"}, {"ci", "pipelines", "concourse"}) == pytest.approx(2 / 3)


ON = {"ORION_LIKELY_REPLACED": "true"}


def test_later_decision_on_the_same_subject_ranks_first_with_its_reason(adr_project):
    proc = run_orion("compile", "which CI system builds and deploys our services", "--root", str(adr_project),
                     "--json", "--explain", "--budget", "3000", env=ON)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    order = [d["path"] for d in data["documents"]]
    new, old = (f"03_workstreams/ws-platform/decisions/{n}" for n in ("ADR-0040-github-actions.md", "ADR-0003-concourse-ci.md"))
    assert new in order
    text = json.dumps(data)
    assert "likely replaced by ADR-0040 (same subject, 2022-06 vs 2018-03)" in text
    docs = data["explanation"]["documents"]  # with --explain, each span's rank and reasons
    ranks = {s["span_id"]: s.get("rank") for d in docs for q in d["quotes"] for s in q["spans"]}
    first = {d["path"]: min(ranks[s["span_id"]] for q in d["quotes"] for s in q["spans"]) for d in docs}
    assert old not in first or first[new] < first[old]


def test_the_signal_is_off_by_default(adr_project):
    proc = run_orion("compile", "which CI system builds and deploys our services", "--root", str(adr_project),
                     "--json", "--explain", "--budget", "3000")
    assert proc.returncode == 0, proc.stderr
    assert "likely replaced" not in proc.stdout


def test_unrelated_and_explicitly_linked_decisions_are_left_alone(adr_project):
    proc = run_orion("compile", "where does the control plane keep tenants", "--root", str(adr_project), "--json", "--explain", env=ON)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    pg = [s for d in data["explanation"]["documents"] if d["path"].endswith("ADR-0012-postgres.md") for q in d["quotes"] for s in q["spans"]]
    assert pg and not any("likely" in r for s in pg for r in s.get("reasons", []))
    assert "likely replaced by ADR-0012" not in proc.stdout and "likely replaces ADR-0012" not in proc.stdout


def test_decisions_dated_by_their_file_names_are_dated(tmp_path):
    """A record's date written in its file name (``2022-06-01-github-actions.md``) is the
    author's as much as a front matter date: the pair is found and its reason dated."""
    root = tmp_path / "proj"
    for name, title, date, decision in (
            ("2018-03-01-concourse-ci.md", "Use Concourse for CI pipelines", "2018-03-01",
             "We run Concourse CI for every team's pipelines: build images, run tests, deploy to the cluster."),
            ("2022-06-01-github-actions.md", "Use GitHub Actions for CI pipelines", "2022-06-01",
             "Teams run their CI pipelines in GitHub Actions: build images, run tests, deploy to the cluster.")):
        p = root / "03_workstreams" / "ws-platform" / "decisions" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(ADR.format(title=title, id="x", status="accepted", date=date, context=CI_CONTEXT, decision=decision)
                     .replace(f"date: {date}\n", "").replace("id: x\n", ""), encoding="utf-8")
    proc = run_orion("index", "--root", str(root), "--quiet")
    assert proc.returncode == 0, proc.stderr
    proc = run_orion("compile", "which CI system builds and deploys our services", "--root", str(root),
                     "--json", "--explain", "--budget", "3000", env=ON)
    assert proc.returncode == 0, proc.stderr
    assert "(same subject, 2022-06 vs 2018-03)" in proc.stdout
