"""The multi-project benchmark: every default chosen leave-one-project-out.

Five real projects of different shapes (built by the scripts beside this file, indexed with
`orion index`), each with intents and graded judgements written from its documents before
any system ran on it:

    scifact   5,183 abstracts, 809 train claims       ../shared/datasets/scifact/ (orionfs.tar.gz, queries_train.jsonl)
    django    Django 5.1.4's topic guides and how-tos  bench/realproject.py, bench/realproject_intents.jsonl
    peps      Python Enhancement Proposals (status, Replaces/Superseded-By)   build_peps.py, peps.intents.jsonl
    rfcs      Rust RFCs (long design documents)       build_rfcs.py, rfcs.intents.jsonl
    adr-moj   MoJ Cloud Platform ADRs, runbooks, incident reports            build_adr_moj.py, adr_moj.intents.jsonl

One command (after the trees are built and indexed, see bench/README.md)::

    python bench/suite/run.py all --suite /tmp/suite --out bench/results/suite.json

Phases, each cached per project in ``<suite>/results/<project>.json`` (``--fresh`` ignores
the cache): baselines (bm25, dense, rrf with naive rank-order packing) and the settings in
force before this benchmark ("before"); the ranking space (nDCG@10 only); the selection
space on top of every ranking any fold chose. ``oriongraph_cli.tune`` does the choosing:
for each held-out project, both stages are chosen on the other four (macro average: each
project counts once) and reported on the held-out one. The defaults to ship are the choice
on all five. ``pairs`` measures the decision lifecycle on the projects with pair files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "bench"))

BUDGETS = (1000, 4000)
PROJECTS = {
    "scifact": ("scifact", REPO.parent / "shared" / "datasets" / "scifact" / "queries_train.jsonl"),
    "django": ("django", REPO / "bench" / "realproject_intents.jsonl"),
    "peps": ("peps", HERE / "peps.intents.jsonl"),
    "rfcs": ("rfcs", HERE / "rfcs.intents.jsonl"),
    "adr-moj": ("adr-moj", HERE / "adr_moj.intents.jsonl"),
}
# never part of a choice: built and judged after the defaults were fixed, measured with the
# shipped defaults only (budgets.py --projects govuk,swift,playbook,modplat,fastify,redux,hugo,rustbook,obsidian,handbook,vite,wikibase,packaging,odh,devguide,prometheus,grpc,nodebp,hass,goproposal,tldr,otel,vue,cargo,eips,fastapi,cosmos,reactdev,keep,svelte,dotnetdesigns,pydantic,neps,ember,csharplang,rustcdev,laravel,nushell,libp2p,cspecs,cips,uv,drizzle,simd,argocd,rustref,sips,helm,flask,mkmat,tekton,myst,runbooks,tfrfcs,k8sdocs,basecamp,wezterm,postmortems,discordapi,govukaws,astro,npmrfcs,msc,tofu,k8scomm,stellar,mastodon,nips,fips,bazelprop,vuerfcs,aips,pnpmdocs,eslintdocs,jeps,nixrfcs,ceps,dapr,caddy,gateway,traefik,astroroadmap,argowf,babel,dockercli,crossplane,oteps,deno,ciliumcfps,reactrouter,eeps,ghcprop,dartlang,sveltekit,capi,vitest,webpack,cdkrfcs,swiftbook,nuxt,hono,starlight,rustup); see
# build_govuk.py, build_swift.py, build_playbook.py, build_modplat.py, build_docsite.py
UNSEEN = {
    "govuk": ("govuk", HERE / "govuk.intents.jsonl"),
    "swift": ("swift", HERE / "swift.intents.jsonl"),
    "playbook": ("playbook", HERE / "playbook.intents.jsonl"),
    "modplat": ("modplat", HERE / "modplat.intents.jsonl"),
    "fastify": ("fastify", HERE / "fastify.intents.jsonl"),
    "redux": ("redux", HERE / "redux.intents.jsonl"),
    "hugo": ("hugo", HERE / "hugo.intents.jsonl"),
    "rustbook": ("rustbook", HERE / "rustbook.intents.jsonl"),
    "obsidian": ("obsidian", HERE / "obsidian.intents.jsonl"),
    "handbook": ("handbook", HERE / "handbook.intents.jsonl"),
    "vite": ("vite", HERE / "vite.intents.jsonl"),
    "wikibase": ("wikibase", HERE / "wikibase.intents.jsonl"),
    "packaging": ("packaging", HERE / "packaging.intents.jsonl"),
    "odh": ("odh", HERE / "odh.intents.jsonl"),
    "devguide": ("devguide", HERE / "devguide.intents.jsonl"),
    "prometheus": ("prometheus", HERE / "prometheus.intents.jsonl"),
    "grpc": ("grpc", HERE / "grpc.intents.jsonl"),
    "nodebp": ("nodebp", HERE / "nodebp.intents.jsonl"),
    "hass": ("hass", HERE / "hass.intents.jsonl"),
    "goproposal": ("goproposal", HERE / "goproposal.intents.jsonl"),
    "tldr": ("tldr", HERE / "tldr.intents.jsonl"),
    "otel": ("otel", HERE / "otel.intents.jsonl"),
    "vue": ("vue", HERE / "vue.intents.jsonl"),
    "cargo": ("cargo", HERE / "cargo.intents.jsonl"),
    "eips": ("eips", HERE / "eips.intents.jsonl"),
    "fastapi": ("fastapi", HERE / "fastapi.intents.jsonl"),
    "cosmos": ("cosmos", HERE / "cosmos.intents.jsonl"),
    "reactdev": ("reactdev", HERE / "reactdev.intents.jsonl"),
    "keep": ("keep", HERE / "keep.intents.jsonl"),
    "svelte": ("svelte", HERE / "svelte.intents.jsonl"),
    "dotnetdesigns": ("dotnetdesigns", HERE / "dotnetdesigns.intents.jsonl"),
    "pydantic": ("pydantic", HERE / "pydantic.intents.jsonl"),
    "neps": ("neps", HERE / "neps.intents.jsonl"),
    "ember": ("ember", HERE / "ember.intents.jsonl"),
    "csharplang": ("csharplang", HERE / "csharplang.intents.jsonl"),
    "rustcdev": ("rustcdev", HERE / "rustcdev.intents.jsonl"),
    "laravel": ("laravel", HERE / "laravel.intents.jsonl"),
    "nushell": ("nushell", HERE / "nushell.intents.jsonl"),
    "libp2p": ("libp2p", HERE / "libp2p.intents.jsonl"),
    "cspecs": ("cspecs", HERE / "cspecs.intents.jsonl"),
    "cips": ("cips", HERE / "cips.intents.jsonl"),
    "uv": ("uv", HERE / "uv.intents.jsonl"),
    "drizzle": ("drizzle", HERE / "drizzle.intents.jsonl"),
    "simd": ("simd", HERE / "simd.intents.jsonl"),
    "argocd": ("argocd", HERE / "argocd.intents.jsonl"),
    "rustref": ("rustref", HERE / "rustref.intents.jsonl"),
    "sips": ("sips", HERE / "sips.intents.jsonl"),
    "helm": ("helm", HERE / "helm.intents.jsonl"),
    "flask": ("flask", HERE / "flask.intents.jsonl"),
    "mkmat": ("mkmat", HERE / "mkmat.intents.jsonl"),
    "tekton": ("tekton", HERE / "tekton.intents.jsonl"),
    "myst": ("myst", HERE / "myst.intents.jsonl"),
    "runbooks": ("runbooks", HERE / "runbooks.intents.jsonl"),
    "tfrfcs": ("tfrfcs", HERE / "tfrfcs.intents.jsonl"),
    "k8sdocs": ("k8sdocs", HERE / "k8sdocs.intents.jsonl"),
    "basecamp": ("basecamp", HERE / "basecamp.intents.jsonl"),
    "wezterm": ("wezterm", HERE / "wezterm.intents.jsonl"),
    "postmortems": ("postmortems", HERE / "postmortems.intents.jsonl"),
    "discordapi": ("discordapi", HERE / "discordapi.intents.jsonl"),
    "govukaws": ("govukaws", HERE / "govukaws.intents.jsonl"),
    "astro": ("astro", HERE / "astro.intents.jsonl"),
    "npmrfcs": ("npmrfcs", HERE / "npmrfcs.intents.jsonl"),
    "msc": ("msc", HERE / "msc.intents.jsonl"),
    "tofu": ("tofu", HERE / "tofu.intents.jsonl"),
    "k8scomm": ("k8scomm", HERE / "k8scomm.intents.jsonl"),
    "stellar": ("stellar", HERE / "stellar.intents.jsonl"),
    "mastodon": ("mastodon", HERE / "mastodon.intents.jsonl"),
    "nips": ("nips", HERE / "nips.intents.jsonl"),
    "bazelprop": ("bazelprop", HERE / "bazelprop.intents.jsonl"),
    "fips": ("fips", HERE / "fips.intents.jsonl"),
    "vuerfcs": ("vuerfcs", HERE / "vuerfcs.intents.jsonl"),
    "aips": ("aips", HERE / "aips.intents.jsonl"),
    "pnpmdocs": ("pnpmdocs", HERE / "pnpmdocs.intents.jsonl"),
    "eslintdocs": ("eslintdocs", HERE / "eslintdocs.intents.jsonl"),
    "jeps": ("jeps", HERE / "jeps.intents.jsonl"),
    "nixrfcs": ("nixrfcs", HERE / "nixrfcs.intents.jsonl"),
    "ceps": ("ceps", HERE / "ceps.intents.jsonl"),
    "dapr": ("dapr", HERE / "dapr.intents.jsonl"),
    "caddy": ("caddy", HERE / "caddy.intents.jsonl"),
    "gateway": ("gateway", HERE / "gateway.intents.jsonl"),
    "traefik": ("traefik", HERE / "traefik.intents.jsonl"),
    "astroroadmap": ("astroroadmap", HERE / "astroroadmap.intents.jsonl"),
    "argowf": ("argowf", HERE / "argowf.intents.jsonl"),
    "babel": ("babel", HERE / "babel.intents.jsonl"),
    "dockercli": ("dockercli", HERE / "dockercli.intents.jsonl"),
    "crossplane": ("crossplane", HERE / "crossplane.intents.jsonl"),
    "oteps": ("oteps", HERE / "oteps.intents.jsonl"),
    "deno": ("deno", HERE / "deno.intents.jsonl"),
    "ciliumcfps": ("ciliumcfps", HERE / "ciliumcfps.intents.jsonl"),
    "reactrouter": ("reactrouter", HERE / "reactrouter.intents.jsonl"),
    "eeps": ("eeps", HERE / "eeps.intents.jsonl"),
    "ghcprop": ("ghcprop", HERE / "ghcprop.intents.jsonl"),
    "dartlang": ("dartlang", HERE / "dartlang.intents.jsonl"),
    "sveltekit": ("sveltekit", HERE / "sveltekit.intents.jsonl"),
    "capi": ("capi", HERE / "capi.intents.jsonl"),
    "vitest": ("vitest", HERE / "vitest.intents.jsonl"),
    "webpack": ("webpack", HERE / "webpack.intents.jsonl"),
    "cdkrfcs": ("cdkrfcs", HERE / "cdkrfcs.intents.jsonl"),
    "swiftbook": ("swiftbook", HERE / "swiftbook.intents.jsonl"),
    "nuxt": ("nuxt", HERE / "nuxt.intents.jsonl"),
    "hono": ("hono", HERE / "hono.intents.jsonl"),
    "starlight": ("starlight", HERE / "starlight.intents.jsonl"),
    "rustup": ("rustup", HERE / "rustup.intents.jsonl"),
    "nearneps": ("nearneps", HERE / "nearneps.intents.jsonl"),
    "polkadot": ("polkadot", HERE / "polkadot.intents.jsonl"),
    "cometbft": ("cometbft", HERE / "cometbft.intents.jsonl"),
    "typescript": ("typescript", HERE / "typescript.intents.jsonl"),
    "solid": ("solid", HERE / "solid.intents.jsonl"),
    "biome": ("biome", HERE / "biome.intents.jsonl"),
    "jekyll": ("jekyll", HERE / "jekyll.intents.jsonl"),
    "homebrew": ("homebrew", HERE / "homebrew.intents.jsonl"),
    "rbe": ("rbe", HERE / "rbe.intents.jsonl"),
    "elixir": ("elixir", HERE / "elixir.intents.jsonl"),
    "express": ("express", HERE / "express.intents.jsonl"),
    "tokio": ("tokio", HERE / "tokio.intents.jsonl"),
    "nomicon": ("nomicon", HERE / "nomicon.intents.jsonl"),
    "trpc": ("trpc", HERE / "trpc.intents.jsonl"),
    "fluentd": ("fluentd", HERE / "fluentd.intents.jsonl"),
    "jest": ("jest", HERE / "jest.intents.jsonl"),
    "prettier": ("prettier", HERE / "prettier.intents.jsonl"),
    "rtk": ("rtk", HERE / "rtk.intents.jsonl"),
    "pnpm": ("pnpm", HERE / "pnpm.intents.jsonl"),
    "sequelize": ("sequelize", HERE / "sequelize.intents.jsonl"),
    "mikroorm": ("mikroorm", HERE / "mikroorm.intents.jsonl"),
}
# the same projects with their lifecycle told only in the text (strip_stated.py): measured
# against the trees above, never part of a choice
TEXT_TREES = {
    "adr-moj-text": ("adr-moj-text", HERE / "adr_moj.intents.jsonl"),
    "modplat-text": ("modplat-text", HERE / "modplat.intents.jsonl"),
}
# each project's current-vs-replaced pairs: the ``.pairs.jsonl`` beside its intents, where its
# judge found any (a project whose pages replace none has no such file)
PAIRS = {name: pairs for name, (_tree, intents) in {**PROJECTS, **UNSEEN}.items()
         if ".intents." in intents.name and (pairs := intents.with_name(intents.name.replace(".intents.", ".pairs."))).exists()}


def _open(suite: Path, project: str):
    from oriongraph_cli import api
    from oriongraph_cli.config import load_config

    cfg = load_config(suite / (PROJECTS | UNSEEN | TEXT_TREES)[project][0])
    return cfg, api.open_index(cfg)


def read_trees(path: Path) -> list[tuple[str, str]]:
    """The lines "SUITE PROJECT" of a list of trees (the directory holding an indexed tree, the
    project's name here), as the scripts beside this one take them."""
    return [tuple(line.split()) for line in path.read_text().splitlines() if line.strip()]


def named_settings(items: list[str]) -> dict[str, dict[str, str]]:
    """``NAME=KEY:VALUE,KEY:VALUE`` arguments (an empty list of values: the shipped defaults)
    as {name: {key: value}}, in the order given."""
    out: dict[str, dict[str, str]] = {}
    for item in items:
        name, _, pairs = item.partition("=")
        out[name] = dict(p.split(":", 1) for p in pairs.split(",") if p)
    return out


def _queries(project: str, limit: int | None):
    from oriongraph_cli.evaluate import load_queries

    qs = load_queries((PROJECTS | UNSEEN | TEXT_TREES)[project][1])
    return qs[:limit] if limit else qs


def _cache_path(suite: Path, project: str) -> Path:
    return suite / "results" / f"{project}.json"


def _load_cache(suite: Path, project: str) -> dict:
    p = _cache_path(suite, project)
    return json.loads(p.read_text()) if p.exists() else {}


def _save_cache(suite: Path, project: str, data: dict) -> None:
    p = _cache_path(suite, project)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(p)


def work(suite: str, project: str, jobs: list[tuple[str, str]], limit: int | None) -> str:
    """Measure ``jobs`` on one project: ("baselines", ""), ("before", ""), ("ranking", name),
    ("selection", "ranking name|selection name"). Results go to the project's cache."""
    from oriongraph_cli import tune

    suite_p = Path(suite)
    cfg, reader = _open(suite_p, project)
    reader.repeat_cache = {}
    qs = _queries(project, limit)
    data = _load_cache(suite_p, project)
    before = tune.with_settings(cfg, BEFORE)
    t0 = time.time()
    try:
        for kind, name in jobs:
            key = f"{kind}:{name}"
            if key in data:
                continue
            if kind == "baselines":
                for n, rows in tune.measure_baselines(before, reader, qs, BUDGETS).items():
                    data[f"baseline:{n}"] = rows
                data[key] = True
            elif kind == "before":
                data[key] = tune.measure(before, reader, qs, tune.Variant("before"), BUDGETS)
            elif kind == "ranking":
                v = next(v for v in tune.RANKING_SPACE if v.name == name)
                data[key] = tune.measure(cfg, reader, qs, v, BUDGETS, ranking_only=True)
            elif kind == "selection":
                r, s = name.split("|")
                rv = next(v for v in tune.RANKING_SPACE if v.name == r)
                sv = next(v for v in tune.SELECTION_SPACE if v.name == s)
                data[key] = tune.measure(tune.with_settings(cfg, rv.as_dict()), reader, qs, sv, BUDGETS)
            _save_cache(suite_p, project, data)
    finally:
        reader.close()
    return f"{project}: {len(jobs)} jobs, {time.time() - t0:.0f} s"


# the settings in force before this benchmark (the "before" row)
BEFORE = {"fusion": "weighted", "w_semantic": 0.6, "w_lexical": 0.3, "w_graph": 0.1, "w_structural": 0.2, "top_k": 200,
          "diversity_lambda": 0.85, "relevance_floor": 0.5, "floor_depth": 0.0, "max_source_ratio": 0.5,
          "lifecycle_demote": 0.6, "lifecycle_inactive_demote": 1.0, "doc_evidence": 0.0, "doc_evidence_spread": 0.0, "lead_whole_ratio": 0.0,
          "likely_replaced": False}  # every setting this benchmark changed, pinned: a fresh cache measures the same


def _run(suite: Path, jobs_by_project: dict[str, list], limit_scifact: int | None, workers: int) -> None:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futs = [pool.submit(work, str(suite), p, jobs, limit_scifact if p == "scifact" else None)
                for p, jobs in jobs_by_project.items() if jobs]
        for f in futs:
            print(f.result(), flush=True)


def _suite_projects(args) -> tuple[Path, list[str]]:
    """The suite and the projects named, their cached results dropped first with ``--fresh``."""
    suite = Path(args.suite)
    projects = [p for p in args.projects.split(",") if p]
    if args.fresh:
        for p in projects:
            _cache_path(suite, p).unlink(missing_ok=True)
    return suite, projects


def cmd_all(args) -> None:
    from oriongraph_cli import tune

    suite, projects = _suite_projects(args)
    rank_names = [v.name for v in tune.RANKING_SPACE]
    if args.rankings:
        rank_names = [n for n in rank_names if n in args.rankings.split(";")]
        print(f"rankings ({len(rank_names)}): " + "; ".join(rank_names), flush=True)
    elif args.shortlist:
        rank_names = shortlist(rank_names, Path(args.out), args.shortlist)
        print(f"ranking shortlist ({len(rank_names)}): " + "; ".join(rank_names), flush=True)
    first = [("baselines", ""), ("before", "")] + [("ranking", n) for n in rank_names]
    _run(suite, {p: first for p in projects}, args.scifact_limit, args.workers)
    data = {p: _load_cache(suite, p) for p in projects}
    rank_table = {p: {n: data[p][f"ranking:{n}"] for n in rank_names} for p in projects}
    chosen_r = {p: tune.choose(rank_table, [q for q in projects if q != p], rank_names, tune.ranking_objective) for p in projects}
    chosen_r["*"] = tune.choose(rank_table, projects, rank_names, tune.ranking_objective)
    need = sorted(set(chosen_r.values()))
    sel_space = [s for s in tune.SELECTION_SPACE if not args.selections or s.name in args.selections.split(";")]
    second = [("selection", f"{r}|{s.name}") for r in need for s in sel_space]
    _run(suite, {p: second for p in projects}, args.scifact_limit, args.workers)
    data = {p: _load_cache(suite, p) for p in projects}

    def sel_table(r):
        return {p: {s.name: data[p][f"selection:{r}|{s.name}"] for s in sel_space} for p in projects}

    sel_names = [s.name for s in sel_space]
    obj = lambda row: tune.selection_objective(row, BUDGETS)  # noqa: E731
    baselines = {p: {n: data[p][f"baseline:{n}"] for n in ("bm25", "dense", "rrf")} for p in projects}
    chosen = {}
    for p in [*projects, "*"]:
        train = [q for q in projects if q != p] if p != "*" else projects
        r = chosen_r[p]
        # the targets against the naive packs first, then the objective (tune.choose_selection)
        chosen[p] = (r, tune.choose(sel_table(r), train, sel_names, obj, tune.selection_targets(sel_table(r), baselines, BUDGETS)))
    report = {"budgets": list(BUDGETS), "projects": projects, "scifact_limit": args.scifact_limit,
              "ranking_variants": rank_names,
              "chosen": {p: {"ranking": r, "selection": s} for p, (r, s) in chosen.items()},
              "table": {}, "ranking_space": {}, "selection_space": {}}
    metrics = ["ndcg"] + [f"{m}@{b}" for b in BUDGETS for m in ("ws", "share", "util", "quoted")]
    mean = tune.mean
    for p in projects:
        r, s = chosen[p]
        rows = {"orion (held out)": data[p][f"selection:{r}|{s}"], "orion before": data[p]["before:"]}
        rows["orion (held out)"] = [{**x, "ndcg": y["ndcg"]} for x, y in zip(rows["orion (held out)"], data[p][f"ranking:{r}"])]
        for n in ("bm25", "dense", "rrf"):
            rows[n] = data[p][f"baseline:{n}"]
        # baseline rows cached before "quoted@" was recorded: a naive pack's quoted share is its utilisation
        report["table"][p] = {name: {m: round(mean([x.get(m, x.get("util" + m[6:], 0.0)) for x in rr]), 4) for m in metrics}
                              for name, rr in rows.items()}
        report["table"][p]["_n"] = len(rows["rrf"])
        report["ranking_space"][p] = {v: round(mean([x["ndcg"] for x in rank_table[p][v]]), 4) for v in rank_names}
        report["selection_space"][p] = {s_: {m: round(mean([x[m] for x in data[p][f"selection:{chosen_r['*']}|{s_}"]]), 4)
                                              for m in metrics[1:]} for s_ in sel_names}
    report["selection_variants"] = sel_names
    report["generated"] = time.strftime("%Y-%m-%d %H:%M")
    report["command"] = "python " + " ".join(sys.argv)
    out = Path(args.out)
    out.write_text(json.dumps(report, indent=1))
    print(markdown(report))


def cmd_ranking(args) -> None:
    """The ranking stage alone, leave-one-project-out over any projects (the unseen ones too):
    for each held-out project the variant with the best macro nDCG@10 on the others (each
    project one unit), reported on the held-out one beside the shipped ranking and the three
    baselines; then the mean over projects of held-out − shipped and of held-out − best
    baseline, with 95 % intervals from resampling the projects. Selection is not searched."""
    from oriongraph_cli import tune

    suite, projects = _suite_projects(args)
    names = [v.name for v in tune.RANKING_SPACE]
    if args.rankings:
        wanted = args.rankings.split(";")
        missing = [n for n in wanted if n not in names]
        if missing:
            raise SystemExit(f"run.py ranking: no ranking variant named {missing[0]!r} (tune.RANKING_SPACE)")
        names = [n for n in names if n in wanted]
    shipped = next(v.name for v in tune.RANKING_SPACE if v.as_dict() == tune._CHOSEN)
    if shipped not in names:
        names.insert(0, shipped)
    jobs = [("baselines", "")] + [("ranking", n) for n in names]
    _run(suite, {p: jobs for p in projects}, args.scifact_limit, args.workers)
    data = {p: _load_cache(suite, p) for p in projects}
    table = {p: {n: data[p][f"ranking:{n}"] for n in names} for p in projects}
    mean = tune.mean
    nd = {p: {n: mean([x["ndcg"] for x in table[p][n]]) for n in names} for p in projects}
    base = {p: {b: mean([x["ndcg"] for x in data[p][f"baseline:{b}"]]) for b in ("bm25", "dense", "rrf")} for p in projects}
    chosen = {p: tune.choose(table, [q for q in projects if q != p], names, tune.ranking_objective) for p in projects}
    chosen["*"] = tune.choose(table, projects, names, tune.ranking_objective)
    rows = {p: {"held_out": nd[p][chosen[p]], "shipped": nd[p][shipped], **base[p], "chosen": chosen[p],
                "n": len(table[p][shipped])} for p in projects}
    from pooled import over_projects  # noqa: E402  (the mean over projects, resampling projects)

    def over(deltas: list[float]) -> list[float]:
        return [round(x, 4) for x in over_projects(deltas)]

    summary = {
        "held_out_minus_shipped": over([rows[p]["held_out"] - rows[p]["shipped"] for p in projects]),
        "held_out_minus_best_baseline": over([rows[p]["held_out"] - max(base[p].values()) for p in projects]),
        "shipped_minus_best_baseline": over([rows[p]["shipped"] - max(base[p].values()) for p in projects]),
        "held_out_below_best_baseline": sorted(p for p in projects if rows[p]["held_out"] <= max(base[p].values())),
        "folds_choosing": {n: sum(1 for p in projects if chosen[p] == n) for n in sorted(set(chosen[p] for p in projects))},
    }
    from results_file import header  # noqa: E402  (machine, date, commit, command)

    report = {**header("python bench/suite/run.py " + " ".join(sys.argv[1:])), "src": str(Path(tune.__file__).resolve().parent.parent),
              "projects": projects, "shipped": shipped, "variants": names, "chosen_on_all": chosen["*"],
              "scifact_limit": args.scifact_limit, "rows": {p: {k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}
                                                              for p, r in rows.items()},
              "ranking_space": {p: {n: round(v, 4) for n, v in nd[p].items()} for p in projects},
              "macro": {n: round(mean([nd[p][n] for p in projects]), 4) for n in names}, "summary": summary,
              "generated": time.strftime("%Y-%m-%d %H:%M")}
    Path(args.out).write_text(json.dumps(report, indent=1))
    print("| project | n | chosen on the others | held out | shipped | BM25 | dense | RRF |")
    print("|---|---|---|---|---|---|---|---|")
    for p in projects:
        r = rows[p]
        print(f"| {p} | {r['n']} | {r['chosen']} | {r['held_out']:.4f} | {r['shipped']:.4f} | {r['bm25']:.4f} | {r['dense']:.4f} | {r['rrf']:.4f} |")
    print(f"\nchosen on all: {chosen['*']}\nshipped: {shipped}")
    for k, v in summary.items():
        print(f"{k}: {v}")


def shortlist(names: list[str], previous: Path, n: int) -> list[str]:
    """The ``n`` ranking variants with the best mean nDCG@10 in the previous report, plus
    every variant it did not measure (a re-run after a change that leaves most of the space
    far behind; the report says which variants were re-measured)."""
    old = json.loads(previous.read_text())["ranking_space"] if previous.exists() else {}
    if not old:
        return names
    projects = list(old)
    mean_of = {v: sum(old[p][v] for p in projects) / len(projects) for v in names if all(v in old[p] for p in projects)}
    best = sorted(mean_of, key=lambda v: -mean_of[v])[:n]
    return [v for v in names if v in best or v not in mean_of]


def markdown(rep: dict) -> str:
    lines = []
    lines.append("| project | system | nDCG@10 | WS recall @1k | WS recall @4k | rel. share @4k | utilisation @4k |")
    lines.append("|---|---|---|---|---|---|---|")
    for p in rep["projects"]:
        t = rep["table"][p]
        for name in ("orion (held out)", "orion before", "bm25", "dense", "rrf"):
            r = t[name]
            bold = name == "orion (held out)"
            f = (lambda v: f"**{v:.3f}**") if bold else (lambda v: f"{v:.3f}")
            lines.append(f"| {p} ({t['_n']}) | {name} | {f(r['ndcg'])} | {f(r['ws@1000'])} | {f(r['ws@4000'])} | {f(r['share@4000'])} | {f(r['util@4000'])} |")
    lines.append("")
    lines.append("Chosen (ranking | selection): " + "; ".join(f"{p}: {c['ranking']} | {c['selection']}" for p, c in rep["chosen"].items()))
    lines.append("")
    ps = rep["projects"]
    lines.append("| ranking variant (nDCG@10) | " + " | ".join(ps) + " | mean |")
    lines.append("|---|" + "---|" * (len(ps) + 1))
    names = list(rep["ranking_space"][ps[0]])
    means = {n: sum(rep["ranking_space"][p][n] for p in ps) / len(ps) for n in names}
    for n in sorted(names, key=lambda n: -means[n]):
        lines.append(f"| {n} | " + " | ".join(f"{rep['ranking_space'][p][n]:.3f}" for p in ps) + f" | {means[n]:.3f} |")
    lines.append("| *rrf baseline* | " + " | ".join(f"{rep['table'][p]['rrf']['ndcg']:.3f}" for p in ps)
                 + f" | {sum(rep['table'][p]['rrf']['ndcg'] for p in ps) / len(ps):.3f} |")
    lines.append("")
    lines.append("| selection variant (on the chosen ranking): WS recall @1k / @4k, rel. share @4k | " + " | ".join(ps) + " |")
    lines.append("|---|" + "---|" * len(ps))
    for n in rep["selection_space"][ps[0]]:
        cells = [f"{rep['selection_space'][p][n]['ws@1000']:.3f} / {rep['selection_space'][p][n]['ws@4000']:.3f} / "
                 f"{rep['selection_space'][p][n]['share@4000']:.3f}" for p in ps]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cmd_pairs(args) -> None:
    """Lifecycle pairs: how often the current decision ranks above the one it replaced, in
    the marked tree and with the marks hidden, with the likely-replaced signal on and off."""
    from oriongraph_cli import api, tune
    from oriongraph_cli import pipeline
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import baseline_span_lists, default_request, doc_ranking

    suite = Path(args.suite)
    out = {}
    for project, path in PAIRS.items():
        if args.projects and project not in args.projects.split(","):
            continue
        pairs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        for tree in (project + v for v in args.variants.split(",")):
            root = suite / tree
            if not (root / ".oriongraph" / "CURRENT").exists():
                print(f"{tree}: not indexed yet, skipped", flush=True)
                continue
            cfg = load_config(root)
            reader = api.open_index(cfg)
            reader.repeat_cache = {}
            try:
                for label, settings in (("on", {"likely_replaced": True}), ("off", {"likely_replaced": False})):
                    c = tune.with_settings(cfg, settings)
                    res = {"marked": [0, 0], "unmarked": [0, 0], "rrf_marked": [0, 0], "rrf_unmarked": [0, 0], "reasons": [],
                           "missed": []}
                    for pr in pairs:
                        req = default_request(c, pr["text"], 4000)
                        sig, scored, *_ = pipeline.rank_candidates(req, c, reader)
                        ranked = doc_ranking(x.metadata.filepath for x in scored)
                        kind = "marked" if pr["marked"] else "unmarked"

                        def first(order):
                            a = order.index(pr["current"]) if pr["current"] in order else 10**6
                            b = order.index(pr["superseded"]) if pr["superseded"] in order else 10**6
                            return a < b

                        res[kind][1] += 1
                        res[kind][0] += first(ranked)
                        if not first(ranked):
                            # which pair, where each document ranked (1-based; absent: none) and what
                            # the replaced one was told, for reading a miss without running it again
                            def place(path):
                                return ranked.index(path) + 1 if path in ranked else None

                            told = next((list(x.reasons) for x in scored if x.metadata.filepath == pr["superseded"]), [])
                            res["missed"].append({"id": pr["id"], "marked": pr["marked"], "current": place(pr["current"]),
                                                  "superseded": place(pr["superseded"]), "superseded_reasons": told[:6]})
                        rrf_rows = baseline_span_lists(reader, sig, ["rrf"])["rrf"]
                        meta = reader.rows(rrf_rows)
                        rr = doc_ranking(meta[r].meta.filepath for r in rrf_rows if r in meta)
                        res["rrf_" + kind][1] += 1
                        res["rrf_" + kind][0] += first(rr)
                        for x in scored:
                            if x.metadata.filepath == pr["superseded"]:
                                res["reasons"].extend(r for r in x.reasons if r.startswith("likely replaced"))
                                break
                    res["reasons"] = sorted(set(res["reasons"]))[:10]
                    out[f"{tree}:{label}"] = res
                    print(tree, label, {k: v for k, v in res.items() if k not in ("reasons", "missed")}, flush=True)
            finally:
                reader.close()
    from results_file import header  # noqa: E402  (machine, date, commit, command)

    report = {**header("python bench/suite/run.py pairs " + " ".join(sys.argv[2:])), **out}
    Path(args.out).write_text(json.dumps(report, indent=1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("all")
    a.add_argument("--suite", default="/tmp/suite")
    a.add_argument("--projects", default=",".join(PROJECTS))
    a.add_argument("--scifact-limit", type=int, default=300, help="SciFact claims used in the search (the first N)")
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--fresh", action="store_true")
    a.add_argument("--selections", default="", help="only these selection variants (names separated by ';')")
    a.add_argument("--rankings", default="", help="only these ranking variants (names separated by ';'; overrides --shortlist)")
    a.add_argument("--shortlist", type=int, default=0,
                   help="re-measure only the N best ranking variants of the previous report (--out) and new ones")
    a.add_argument("--out", default=str(REPO / "bench" / "results" / "suite.json"))
    r = sub.add_parser("ranking")
    r.add_argument("--suite", default="/tmp/suite")
    r.add_argument("--projects", default=",".join([*PROJECTS, *UNSEEN]))
    r.add_argument("--scifact-limit", type=int, default=None, help="SciFact claims measured (the first N; default all)")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--fresh", action="store_true")
    r.add_argument("--rankings", default="", help="only these ranking variants and the shipped one (names separated by ';')")
    r.add_argument("--out", default=str(REPO / "bench" / "results" / "suite_ranking_lopo.json"))
    p = sub.add_parser("pairs")
    p.add_argument("--suite", default="/tmp/suite")
    p.add_argument("--projects", default="", help="only these projects' pairs (names separated by ','; all by default)")
    p.add_argument("--variants", default=",-hidden",
                   help="the trees of each project measured, by their suffix (',' between; default: the tree and its -hidden one; "
                        "-text: strip_stated.py's)")
    p.add_argument("--out", default=str(REPO / "bench" / "results" / "suite_pairs.json"))
    args = ap.parse_args()
    os.environ.setdefault("ORION_USAGE_LOG", "false")
    {"all": cmd_all, "ranking": cmd_ranking, "pairs": cmd_pairs}[args.cmd](args)


if __name__ == "__main__":
    main()
