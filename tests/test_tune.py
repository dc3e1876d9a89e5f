"""`orion eval --tune`: cross-validated choice of ranking and selection settings, the
held-out figures, and writing the choice into the project's settings file."""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO
from typer.testing import CliRunner

from oriongraph_cli import tune
from oriongraph_cli.config import DEFAULTS, load_config
from oriongraph_cli.errors import ConfigError

FIXTURE_QUERIES = REPO / "bench" / "fixture_queries.jsonl"


def test_folds_are_balanced_and_repeatable():
    f = tune.folds_of(23, 5)
    assert f == tune.folds_of(23, 5)
    sizes = [f.count(k) for k in range(5)]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 23


def test_choice_is_a_macro_average_so_one_large_group_cannot_decide():
    # variant "a" wins the large group by a little, "b" wins the two small ones by a lot
    table = {
        "big": {"a": [{"ndcg": 0.80}] * 100, "b": [{"ndcg": 0.78}] * 100},
        "s1": {"a": [{"ndcg": 0.50}] * 5, "b": [{"ndcg": 0.70}] * 5},
        "s2": {"a": [{"ndcg": 0.50}] * 5, "b": [{"ndcg": 0.70}] * 5},
    }
    assert tune.choose(table, ["big", "s1", "s2"], ["a", "b"], tune.ranking_objective) == "b"
    assert tune.choose(table, ["big"], ["a", "b"], tune.ranking_objective) == "a"
    # ties go to the earlier variant (the more conservative one is listed first)
    even = {"g": {"a": [{"ndcg": 0.5}], "b": [{"ndcg": 0.5}]}}
    assert tune.choose(even, ["g"], ["a", "b"], tune.ranking_objective) == "a"


def _sel(ws1, ws4, share4):
    return {"ws@1000": ws1, "ws@4000": ws4, "share@1000": share4, "share@4000": share4}


def test_selection_that_meets_the_naive_targets_wins_over_a_higher_objective():
    # "wide" has the higher objective (more recall) but a relevant share below RRF's on g2;
    # "deep" beats every naive pack on both groups, so it is chosen
    base = {"bm25": [_sel(0.6, 0.8, 0.5)], "dense": [_sel(0.62, 0.82, 0.52)], "rrf": [_sel(0.61, 0.83, 0.57)]}
    table = {
        "g1": {"wide": [_sel(0.80, 0.92, 0.60)], "deep": [_sel(0.70, 0.86, 0.62)]},
        "g2": {"wide": [_sel(0.74, 0.90, 0.55)], "deep": [_sel(0.64, 0.84, 0.58)]},
    }
    baselines = {"g1": base, "g2": base}
    targets = tune.selection_targets(table, baselines)
    assert targets("g1", "wide") and not targets("g2", "wide")
    assert targets("g1", "deep") and targets("g2", "deep")
    obj = lambda row: tune.selection_objective(row)  # noqa: E731
    assert tune.choose(table, ["g1", "g2"], ["wide", "deep"], obj) == "wide"
    assert tune.choose(table, ["g1", "g2"], ["wide", "deep"], obj, targets) == "deep"
    # recall below the best naive pack at either budget misses the targets too
    low = {"g": {"v": [_sel(0.61, 0.90, 0.60)]}}
    assert not tune.selection_targets(low, {"g": base})("g", "v")
    # on as many groups, the objective decides
    assert tune.choose(table, ["g1"], ["wide", "deep"], obj, targets) == "wide"


def test_bootstrap_interval_brackets_the_mean():
    d = [0.1, -0.05, 0.2, 0.0, 0.05, 0.15, -0.1, 0.3]
    lo, hi = tune.bootstrap_interval(d)
    assert lo < sum(d) / len(d) < hi
    assert tune.bootstrap_interval([0.0] * 10) == (0.0, 0.0)


def test_every_variant_of_the_search_space_is_a_valid_setting():
    for v in (*tune.RANKING_SPACE, *tune.SELECTION_SPACE):
        tune.with_settings(DEFAULTS, v.as_dict())
    with pytest.raises(ConfigError):
        tune.with_settings(DEFAULTS, {"fusion": "borda"})
    with pytest.raises(ConfigError):
        tune.with_settings(DEFAULTS, {"relevance_floor": 3})


def test_write_creates_orion_toml_that_load_config_reads(tmp_path):
    path = tune.write_settings(tmp_path, {"fusion": "rrf", "w_semantic": 0.5, "floor_depth": 1.5})
    assert path == tmp_path / ".orion.toml"
    assert "orion eval --tune --write" in path.read_text()
    cfg = load_config(tmp_path)
    assert (cfg.fusion, cfg.w_semantic, cfg.floor_depth) == ("rrf", 0.5, 1.5)


def test_write_keeps_comments_tables_and_other_settings(tmp_path):
    (tmp_path / ".orion.toml").write_text(
        "# our settings\nbudget = 3000  # for the CI brief\n\n[weights]\nsemantic = 0.7\nlexical = 0.2\n", encoding="utf-8")
    tune.write_settings(tmp_path, {"w_semantic": 0.5, "fusion": "zscore"})
    text = (tmp_path / ".orion.toml").read_text()
    assert "# our settings" in text and "# for the CI brief" in text
    cfg = load_config(tmp_path)
    assert (cfg.budget, cfg.w_semantic, cfg.w_lexical, cfg.fusion) == (3000, 0.5, 0.2, "zscore")
    assert text.count("semantic") == 1  # updated inside [weights], not written twice


def test_write_goes_to_pyproject_when_the_project_keeps_settings_there(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.oriongraph]\nbudget = 2000\n', encoding="utf-8")
    path = tune.write_settings(tmp_path, {"fusion": "percentile"})
    assert path.name == "pyproject.toml" and not (tmp_path / ".orion.toml").exists()
    cfg = load_config(tmp_path)
    assert (cfg.budget, cfg.fusion) == (2000, "percentile")


@pytest.fixture
def small_space(monkeypatch):
    monkeypatch.setattr(tune, "RANKING_SPACE", (tune.RANKING_SPACE[0], tune.RANKING_SPACE[3]))
    monkeypatch.setattr(tune, "SELECTION_SPACE", (tune.SELECTION_SPACE[0], tune.SELECTION_SPACE[2]))


def test_tune_on_the_real_sample_index(sample_index, small_space):
    from oriongraph_cli.evaluate import load_queries

    cfg = load_config(sample_index)
    rep = tune.tune(cfg, load_queries(FIXTURE_QUERIES)[:15], folds=3, budgets=(1500,))
    names = [v.name for v in tune.RANKING_SPACE] + [v.name for v in tune.SELECTION_SPACE]
    assert [v["name"] for v in rep.variants] == names
    assert rep.chosen_names[0] in names and rep.chosen_names[1] in names
    assert len(rep.fold_choices) == 3
    for m in ("ndcg", "ws@1500", "share@1500"):
        h = rep.held_out[m]
        assert h["interval"][0] <= h["gain"] <= h["interval"][1]
        assert 0.0 <= h["current"] <= 1.0 and 0.0 <= h["tuned"] <= 1.0
    picked = [v for v in (*tune.RANKING_SPACE, *tune.SELECTION_SPACE) if v.name in rep.chosen_names]
    assert len(picked) == 2 and rep.chosen == {k: val for v in picked for k, val in v.as_dict().items()}


def test_cli_tune_writes_only_with_write(sample_index, small_space, tmp_path):
    import shutil

    from oriongraph_cli.cli import app

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    runner = CliRunner()
    res = runner.invoke(app, ["eval", str(FIXTURE_QUERIES), "--root", str(root), "--tune", "--folds", "2", "--budget", "1500", "--limit", "12", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["kind"] == "tune" and data["written"] is None and not (root / ".orion.toml").exists()
    res = runner.invoke(app, ["eval", str(FIXTURE_QUERIES), "--root", str(root), "--tune", "--folds", "2", "--budget", "1500", "--limit", "12", "--write"])
    assert res.exit_code == 0, res.output
    assert "written to" in res.stderr and (root / ".orion.toml").exists()
    cfg = load_config(root)
    assert all(getattr(cfg, k) == v for k, v in data["chosen"].items())
    # on a pipe: three blocks of tab-separated lines, each under a header naming its columns
    variants, held_out, chosen = (block.splitlines() for block in res.stdout.strip().split("\n\n"))
    assert variants[0].split("\t") == ["stage", "variant", "ndcg@10", "ws_recall@1500", "relevant_share@1500", "chosen"]
    assert len(variants) == 1 + len(data["variants"]) and all(len(x.split("\t")) == 6 for x in variants)
    assert sum(x.endswith("\t*") for x in variants) == 2 and not any(c in res.stdout for c in "│─━")
    assert held_out[0] == "metric\tcurrent\ttuned\tgain\tinterval_low\tinterval_high"
    ndcg = next(x.split("\t") for x in held_out if x.startswith("ndcg@10\t"))
    assert {x.split("\t")[0] for x in held_out[1:]} == {"ndcg@10", "ws_recall@1500", "relevant_share@1500"}
    assert float(ndcg[2]) == pytest.approx(data["held_out"]["ndcg"]["tuned"], abs=1e-4)
    assert chosen[0] == "setting\tvalue" and {x.split("\t")[0] for x in chosen[1:]} == set(data["chosen"])


@pytest.mark.parametrize("args, message", [
    (["--write"], "--write, --folds and --jobs go with --tune"),
    (["--jobs", "2"], "--write, --folds and --jobs go with --tune"),
    (["--tune", "--jobs", "-1"], "--jobs must be 0 (one per core) or more"),
    (["--tune", "--folds", "1"], "--folds must be 2 or more"),
    (["--tune", "--limit", "5"], "--tune needs at least 10 judged intents"),
])
def test_cli_tune_usage_errors(sample_index, args, message):
    from oriongraph_cli.cli import app

    res = CliRunner().invoke(app, ["eval", str(FIXTURE_QUERIES), "--root", str(sample_index), *args])
    assert res.exit_code == 2
    assert message in res.output
    assert "Traceback" not in res.output


def test_tune_writes_only_the_settings_it_searches():
    """A setting no variant names (doc_evidence_peer) is neither pinned while measuring nor
    among the settings --write stores, so a user's own value survives a tune."""
    from oriongraph_cli.config import load_config

    cfg = load_config(".", doc_evidence_peer=0.85)
    keys = set(tune.current_settings(cfg))
    assert "doc_evidence_peer" not in keys and {"document_floor", "doc_evidence_spread"} <= keys
    for v in (*tune.RANKING_SPACE, *tune.SELECTION_SPACE):
        assert "doc_evidence_peer" not in v.as_dict()
        assert tune.with_settings(cfg, v.as_dict()).doc_evidence_peer == 0.85


def test_eval_and_tune_write_progress_lines_off_a_terminal(sample_index, small_space, tmp_path, monkeypatch):
    """A long `orion eval` or `--tune` in CI or a script says how far it is on stderr (a line
    every 10 s, here every step); stdout keeps only the report; --json and -q stay silent."""
    import shutil

    from oriongraph_cli.cli import app
    from oriongraph_cli.cli.progress import LineProgress

    root = tmp_path / "p"
    shutil.copytree(sample_index, root)
    monkeypatch.setattr(LineProgress, "EVERY", 0.0)
    runner = CliRunner()
    res = runner.invoke(app, ["eval", str(FIXTURE_QUERIES), "--root", str(root), "--limit", "4", "--compare", "none"])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("orion eval: ")]
    assert "orion eval: evaluating 4/4 intents (100 %)" in "\n".join(lines) and all("elapsed" in ln for ln in lines)
    assert "orion eval:" not in res.stdout and "\x1b" not in res.stderr
    res = runner.invoke(app, ["eval", str(FIXTURE_QUERIES), "--root", str(root), "--tune", "--folds", "2", "--budget", "1500", "--limit", "12"])
    assert res.exit_code == 0, res.output
    # each stage counts every intent under every setting it measures: two rankings, the
    # naive packs and the current settings, then two selections on each ranking chosen
    assert "orion eval --tune: measuring 2 rankings 48/48 runs (100 %)" in res.stderr, res.stderr
    assert re.search(r"orion eval --tune: measuring 2 selections on ([12]) rankings? (24|48)/\2 runs \(100 %\)", res.stderr), res.stderr
    for quiet in (["--json"], ["-q"]):
        res = runner.invoke(app, ["eval", str(FIXTURE_QUERIES), "--root", str(root), "--limit", "4", "--compare", "none", *quiet])
        assert res.exit_code == 0 and "orion eval:" not in res.stderr


def test_tune_in_worker_processes_chooses_and_reports_what_one_process_does(sample_index, small_space):
    """--jobs 2 measures the settings in two processes, each holding the index open: the
    report is the one a single process makes, and progress counts every run of each stage."""
    from oriongraph_cli.evaluate import load_queries

    cfg = load_config(sample_index)
    qs = load_queries(FIXTURE_QUERIES)[:15]
    seen: dict[int, list] = {1: [], 2: []}
    reports = {jobs: tune.tune(cfg, qs, folds=3, budgets=(1500,), jobs=jobs, progress=lambda *a, j=jobs: seen[j].append(a)).to_dict()
               for jobs in (1, 2)}
    assert reports[1] == reports[2]
    for jobs in (1, 2):
        last = {}
        for stage, done, total in seen[jobs]:
            assert 0 < done <= total and done >= last.get(stage, 0)
            last[stage] = done
        assert last["measuring 2 rankings"] == 4 * 15  # two rankings, the naive packs, the current settings
        (sel,) = [k for k in last if k.startswith("measuring 2 selections on")]
        assert last[sel] == 2 * 15 * int(sel.split(" on ")[1].split()[0])


def test_the_ranking_space_tries_the_meaning_channels_share_from_0_3_to_0_9():
    """A project whose users' words are far from its pages' wants more of the meaning channel,
    one searched by identifiers less: the ranking stage tries shares 0.3 … 0.9 on the shipped
    ranking (the lexical channel taking the rest), each otherwise the shipped settings."""
    from oriongraph_cli import tune

    shipped = {k: v for k, v in tune._FUSED.items() if k not in ("w_semantic", "w_lexical")}
    shares = {}
    for v in tune.RANKING_SPACE:
        d = v.as_dict()
        if all(d.get(k) == val for k, val in shipped.items()) and "rrf_k" not in d:
            shares[d["w_semantic"]] = d["w_lexical"]
    assert shares == {0.3: 0.7, 0.4: 0.6, 0.5: 0.5, 0.6: 0.4, 0.7: 0.3, 0.8: 0.2, 0.9: 0.1}


def test_the_ranking_space_holds_the_shipped_ranking_as_configured():
    """The variant the suite reports as shipped (``tune._CHOSEN``) is one of the ranking space's
    and names the configuration's own defaults — the weak-lexical rule among them — so what the
    suite and ``--tune`` measure as "shipped" is what a compile runs; the variants measured
    before that rule name it off."""
    from oriongraph_cli import tune
    from oriongraph_cli.config import Config

    (shipped,) = [v for v in tune.RANKING_SPACE if v.as_dict() == tune._CHOSEN]
    assert "weak lexical" in shipped.name
    assert all(getattr(Config(), k) == v for k, v in tune._CHOSEN.items())
    assert all(v.as_dict()["weak_lexical_score"] == 0.0 for v in tune.RANKING_SPACE if v is not shipped)


def test_write_never_writes_through_a_link(tmp_path):
    """The settings are written through a temp file of their own in the project: a link
    planted at a fixed temp name, or as the settings file, leads nothing out of it."""
    from oriongraph_cli.errors import ConfigError

    root, outside = tmp_path / "p", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("precious\n")
    (root / ".orion.toml.tmp").symlink_to(outside)
    tune.write_settings(root, {"fusion": "rrf"})
    assert outside.read_text() == "precious\n" and not (root / ".orion.toml").is_symlink()
    (root / ".orion.toml").unlink()
    (root / ".orion.toml").symlink_to(outside)
    with pytest.raises(ConfigError):
        tune.write_settings(root, {"fusion": "rrf"})
    assert outside.read_text() == "precious\n"
