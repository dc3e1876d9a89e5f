"""The numpy BM25 postings (store/postings.py) against Whoosh, the lexical index of record:
same analysis, same scores and rankings, incremental updates equal to a full rebuild,
and a Whoosh fallback when the arrays are absent."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from conftest import SAMPLE

from oriongraph_cli.config import load_config
from oriongraph_cli.index.indexer import index_project
from oriongraph_cli.store import postings
from oriongraph_cli.store.layout import Layout
from oriongraph_cli.store.lexical import LexicalIndex, _quote
from oriongraph_cli.store.reader import IndexReader

WORKER = "03_workstreams/ws-ingestion/design/worker.md"
QUERIES = [
    ["retry", "backoff", "jitter"],
    ["ingestion", "worker", "queue", "design"],
    ["decision", "adr", "storage"],
    ["cells", "cell", "running", "b-cell", "pd-1"],
    ["the", "a"],  # stop words only
    ["zzznotaword"],
    ["latency", "budget", "token", "compile", "index", "search", "error", "test"],
    ["x"],
]


def _gen(root):
    return Layout(load_config(root).index_dir).current_path()


def _pairs(index: LexicalIndex, kws, limit=50, whoosh=False):
    if whoosh:
        return index.search_whoosh(" ".join(_quote(k) for k in kws), limit)
    return index.search(kws, limit)


def _assert_same(np_hits, wh_hits):
    """Same scores (1e-9); same ranking except the order within exact ties (and which
    tied hits fill the last places)."""
    assert len(np_hits) == len(wh_hits)
    if not np_hits:
        return
    ws = {r: (s, m) for r, s, m in wh_hits}
    cut = min(s for _r, s, _m in wh_hits)
    for (r1, s1, m1), (r2, s2, _m2) in zip(np_hits, wh_hits):
        assert s1 == pytest.approx(s2, rel=1e-9, abs=1e-9)
        if s1 > cut + 1e-9:
            assert r1 in ws and ws[r1][1] == m1


def test_analyser_matches_whoosh():
    from whoosh.analysis import StemmingAnalyzer

    ana = StemmingAnalyzer()
    texts = [
        "The Running cells of B-cell PD-1 3.5mg HIV-1 ADR-0007 café naïve e.g. U.S.A. x2 a I",
        "full jitter; exponential backoff — retries (with caps) for the ingestion worker_queue",
        " ".join((p.read_text() for p in SAMPLE.rglob("*.md"))),
    ]
    for t in texts:
        assert postings.analyzer().terms(t) == [tok.text for tok in ana(t, mode="index")]


def test_pinned_analyser_configuration_is_whoosh_s():
    from whoosh.analysis import StemmingAnalyzer
    from whoosh.lang.porter import stem

    tok, _lower, stop, stemmer = StemmingAnalyzer().items
    assert tok.expression.pattern == postings.WHOOSH_TOKEN_PATTERN and not tok.gaps
    assert stop.stops == postings.WHOOSH_STOP_WORDS and stop.min == postings.WHOOSH_MIN_SIZE and stop.max is None
    assert stemmer.stemfn is stem and not stemmer.ignore


def test_numpy_search_does_not_import_whoosh_s_heavy_modules(project, fake_embedder):
    import subprocess
    import sys

    from oriongraph_cli import api
    from oriongraph_cli.config import load_config

    api.index_project(load_config(project))
    code = (
        "import sys\n"
        "from oriongraph_cli import api\n"
        "from oriongraph_cli.config import load_config\n"
        f"r = api.open_index(load_config({str(project)!r}), load_embedder=False)\n"
        "assert r.lexical.search(['retry', 'worker'], 10)\n"
        "print(sorted(m for m in sys.modules if m.startswith('whoosh')))\n"
        "print('urllib.request' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "['whoosh', 'whoosh.lang', 'whoosh.lang.porter']" and out[1] == "False"


def test_length_byte_matches_whoosh():
    from whoosh.util.numeric import byte_to_length, length_to_byte

    lengths = np.array(list(range(0, 3000)) + [5000, 10**5, 106373, 106374, 10**6], dtype=np.int64)
    got = postings._length_to_byte(lengths)
    assert [int(b) for b in got] == [length_to_byte(int(n)) for n in lengths]
    assert postings._byte_to_length().tolist() == [byte_to_length(i) for i in range(256)]


def test_numpy_bm25_matches_whoosh(project, fake_embedder):
    index_project(load_config(project))
    gen = _gen(project)
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    assert lex.backend == "numpy"
    lex._open_whoosh()
    assert lex.doc_count() == lex._searcher.doc_count()
    for kws in QUERIES:
        _assert_same(_pairs(lex, kws), _pairs(lex, kws, whoosh=True))
    lex.close()


def test_query_terms_match_whoosh_parser(project, fake_embedder):
    from whoosh import query as wq

    index_project(load_config(project))
    gen = _gen(project)
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    lex._open_whoosh()
    for kws in QUERIES:
        qtext = " ".join(_quote(k) for k in kws)
        q = lex._parser.parse(qtext)
        if isinstance(q, wq.Term):
            expect = {q.text}
        elif isinstance(q, wq.Or):
            assert all(isinstance(s, wq.Term) for s in q.subqueries)
            expect = {s.text for s in q.subqueries}
        else:
            expect = set()
        assert set(postings.query_terms(qtext)) == expect
    assert postings.query_terms(_quote("full jitter")) is None  # a phrase: Whoosh answers it
    assert postings.query_terms("retry AND backoff") is None
    lex.close()


def test_phrase_query_falls_back_to_whoosh(project, fake_embedder):
    index_project(load_config(project))
    gen = _gen(project)
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    kws = ["exponential backoff", "retry"]
    assert lex.search(kws, 20) == _pairs(lex, kws, 20, whoosh=True)
    lex.close()


def _arrays(gen):
    arr, meta = postings.logical_arrays(gen / postings.DIR)
    return {k: v.tolist() for k, v in arr.items()}, meta


def test_incremental_update_equals_full_rebuild(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    # change one document, delete one, add one
    worker = project / WORKER
    worker.write_text(worker.read_text() + "\n\n## Zebra crossing\n\nA brand new section about zebras and quokkas.\n")
    victim = sorted(p for p in (project / "02_knowledge").rglob("*.md"))[0]
    victim.unlink()
    (project / "02_knowledge" / "new_note.md").write_text("---\ntitle: Quokka notes\ntags: [fauna]\n---\n# Quokka notes\n\nQuokkas smile. Retries too.\n")
    r = index_project(cfg)
    assert r.updated_documents == 1 and r.removed_documents == 1 and r.added_documents == 1
    inc, inc_meta = _arrays(_gen(project))
    r = index_project(cfg, full=True)
    assert r.rebuild_reason == "--full"
    full, full_meta = _arrays(_gen(project))
    assert inc_meta["docs"] == full_meta["docs"] and inc_meta["total_length"] == full_meta["total_length"]
    assert inc_meta["terms"] == full_meta["terms"] and inc_meta["postings"] == full_meta["postings"]
    assert inc["terms"] == full["terms"] and inc["term_off"] == full["term_off"] and inc["ptr"] == full["ptr"]


def test_incremental_rows_map_to_same_spans(project, fake_embedder):
    """The incremental arrays hold, per span id, exactly the postings a rebuild computes."""
    cfg = load_config(project)
    index_project(cfg)
    worker = project / WORKER
    worker.write_text(worker.read_text() + "\n\nMore words: quokka zebra retry.\n")
    index_project(cfg)

    def by_span(root):
        gen = _gen(root)
        reader = IndexReader(load_config(root), load_embedder=False)
        sid = dict(reader.registry.conn.execute("SELECT id, span_id FROM spans"))
        reader.close()
        arr, _meta = postings.logical_arrays(gen / postings.DIR)
        vocab = postings._vocab_terms(arr)
        out = set()
        for t, term in enumerate(vocab):
            for i in range(arr["ptr"][t], arr["ptr"][t + 1]):
                out.add((term, sid[int(arr["rows"][i])], int(arr["tf"][i]), int(arr["lb"][i])))
        lens = {sid[int(r)]: int(n) for r, n in zip(arr["doc_rows"], arr["doc_len"])}
        return out, lens

    inc = by_span(project)
    index_project(cfg, full=True)
    assert by_span(project) == inc


def test_missing_arrays_fall_back_then_rebuilt(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    gen = _gen(project)
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    expect = {kw[0]: lex.search(kw, 30) for kw in QUERIES}
    lex.close()
    shutil.rmtree(gen / postings.DIR)  # a generation built before the arrays existed ...
    _forget_checksums(gen)  # ... and before checksums were recorded
    reader = IndexReader(cfg, load_embedder=False)
    assert reader.lexical.backend == "whoosh"
    for kw in QUERIES:
        _assert_same(expect[kw[0]], reader.lexical.search(kw, 30))
    reader.close()
    # the next `orion index` adds them without re-embedding or re-parsing
    calls = fake_embedder.calls
    r = index_project(cfg)
    assert not r.nothing_changed and r.embedded_spans == 0 and r.rebuild_reason is None
    assert fake_embedder.calls == calls
    reader = IndexReader(cfg, load_embedder=False)
    assert reader.lexical.backend == "numpy"
    for kw in QUERIES:
        assert reader.lexical.search(kw, 30) == expect[kw[0]]
    reader.close()
    assert index_project(cfg).nothing_changed


def test_damaged_arrays_fall_back(project, fake_embedder):
    cfg = load_config(project)
    index_project(cfg)
    gen = _gen(project)
    (gen / postings.DIR / "rows.npy").write_bytes(b"garbage")
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    assert lex.backend == "whoosh" and lex.search(["retry"], 5)
    lex.close()


def _forget_checksums(gen):
    """Make ``gen`` look like a generation written before manifests carried checksums."""
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest.pop("checksums", None)
    (gen / "manifest.json").write_text(json.dumps(manifest))


def _corpus_arrays(tmp_path, name, docs):
    postings.build(tmp_path / name, None, [], docs)
    arr, meta = postings.load_arrays(tmp_path / name, mmap=False)
    return {k: (v.dtype.str, v.tolist()) for k, v in arr.items()}, meta


def test_fresh_build_in_chunks_equals_the_general_merge(project, fake_embedder, tmp_path, monkeypatch):
    """A build from empty in ascending row order is placed by the chunked counting sort; the
    same spans given out of row order take the general merge: the arrays must be the same,
    whatever the chunk size."""
    index_project(load_config(project))
    reg = IndexReader(load_config(project), load_embedder=False).registry
    from oriongraph_cli.store.generation import all_lexical_texts

    docs = sorted(all_lexical_texts(reg))
    assert len(docs) > 100
    shuffled = docs[1::2] + docs[::2]
    general, gmeta = _corpus_arrays(tmp_path, "general", shuffled)
    for chunk in (7, 1000, 1 << 21):
        monkeypatch.setattr(postings, "_CHUNK", chunk)
        fresh, fmeta = _corpus_arrays(tmp_path, f"fresh{chunk}", docs)
        assert fmeta == gmeta
        assert fresh == general
    # and from a generator, analysed as it is read
    fresh, fmeta = _corpus_arrays(tmp_path, "gen", (d for d in docs))
    assert fresh == general and fmeta == gmeta


def test_analysed_postings_match_the_text_lists(tmp_path):
    docs = [(3, "Retry the retry queue"), (5, "the the a"), (9, "Backoff with jitter, retry")]
    acc = postings.Analysed().extend(docs)
    assert len(acc) == 3 and list(acc.rows) == [3, 5, 9]
    assert list(acc.lengths) == [len(postings.analyzer().terms(t)) for _r, t in docs]
    assert list(acc.n_terms) == [2, 0, 3]
    assert _corpus_arrays(tmp_path, "a", docs) == _corpus_arrays(tmp_path, "b", acc)


def test_a_frequency_past_16_bits_widens_the_analysed_postings(tmp_path):
    docs = [(1, "retry " * 70_000 + "queue"), (2, "retry queue")]
    assert postings.Analysed().extend(docs[1:]).p_tf.typecode == "H"  # 16 bits while they fit
    acc = postings.Analysed().extend(docs[:1])
    assert acc.p_tf.typecode == "i" and max(acc.p_tf) == 70_000
    arr, _meta = _corpus_arrays(tmp_path, "wide", docs)
    assert arr["tf"][0] == "<i4" and 70_000 in arr["tf"][1]


def test_an_update_of_few_postings_placed_term_by_term_equals_the_general_merge(project, fake_embedder, tmp_path, monkeypatch):
    """An update that adds few postings beside many places each in its term's block of the
    kept ones instead of sorting whole-corpus keys: the arrays must be those of the general
    merge, with rows deleted, terms new to the vocabulary, terms left without postings, a
    frequency past 16 bits, and nothing added at all."""
    index_project(load_config(project))
    reg = IndexReader(load_config(project), load_embedder=False).registry
    from oriongraph_cli.store.generation import all_lexical_texts

    docs = sorted(all_lexical_texts(reg))
    assert len(docs) > 100
    postings.build(tmp_path / "base", None, [], docs)
    top = docs[-1][0]
    gone = [docs[3][0], docs[40][0], docs[41][0]]  # their rare terms leave the vocabulary
    updates = {
        "edit": (gone, [(gone[0], docs[3][1] + " zygote quokka"), (top + 1, "A brand new aardvark note about retries")]),
        "wide": ([], [(top + 2, "retry " * 70_000 + "queue")]),
        "remove only": (gone, []),
        "add only": ([], [(top + 3, "zzz yyy retry backoff"), (top + 5, "aaa retry")]),
    }
    few_share, merge_share = postings.FEW_SHARE, postings.MERGE_SHARE
    for name, (deleted, added) in updates.items():
        got = {}
        # merged into new main arrays: placed term by term, then by the general merge; and
        # written as a delta segment beside the base's main arrays, read as one set
        for how, few, merge in (("few", few_share, 10**9), ("general", 10**9, 10**9), ("delta", few_share, merge_share)):
            monkeypatch.setattr(postings, "FEW_SHARE", few)
            monkeypatch.setattr(postings, "MERGE_SHARE", merge)
            out = tmp_path / f"{name}-{how}"
            postings.build(out, tmp_path / "base", deleted, added)
            assert (out / postings.DELTA).is_dir() == (how == "delta"), (name, how)
            arr, meta = postings.logical_arrays(out)
            got[how] = ({k: (v.dtype.str, v.tolist()) for k, v in arr.items()}, meta)
        assert got["few"] == got["general"] == got["delta"], name


QUOKKA = "\n\n## Zebra crossing\n\nA brand new section about zebras, quokkas and retry queues.\n"


def _searches_alike(gen, tmp_path):
    """The generation's postings (main arrays and delta segment) answer every query exactly
    as the one set of arrays a build of the same live spans writes: same rows, same scores
    to the last bit, same matched terms, same idf and counts."""
    merged = tmp_path / "merged"
    shutil.rmtree(merged, ignore_errors=True)
    postings._save(merged, *postings.logical_arrays(gen / postings.DIR))
    seg = postings.Postings(gen / postings.DIR, k1=1.2, b=0.75)
    one = postings.Postings(merged, k1=1.2, b=0.75)
    assert seg.n_docs == one.n_docs and seg._total == one._total
    for kws in QUERIES + [["quokka", "zebra", "retri", "queue"], ["worker", "quokka"]]:
        terms = postings.query_terms(" ".join(_quote(k) for k in kws))
        assert seg.search_terms(terms, 40) == one.search_terms(terms, 40), kws
        assert [seg.idf(t) for t in terms] == [one.idf(t) for t in terms]


def test_a_small_change_writes_a_delta_beside_the_base_main_arrays(project, fake_embedder, tmp_path):
    cfg = load_config(project)
    index_project(cfg)
    base = _gen(project)
    worker = project / WORKER
    worker.write_text(worker.read_text() + QUOKKA)
    index_project(cfg)
    gen = _gen(project)
    assert (gen / postings.DIR / postings.DELTA / "meta.json").is_file()
    for name in [f"{n}.npy" for n in postings._FILES]:  # the same files, not copies
        assert (gen / postings.DIR / name).stat().st_ino == (base / postings.DIR / name).stat().st_ino
    # a version that reads the main arrays alone refuses them (and scores with Whoosh)
    assert json.loads((gen / postings.DIR / "meta.json").read_text())["format"] == postings.SEGMENTED != postings.FORMAT
    manifest = json.loads((gen / "manifest.json").read_text())
    assert manifest["checksums"]["postings/rows.npy"] == json.loads((base / "manifest.json").read_text())["checksums"]["postings/rows.npy"]
    assert "postings/delta/dead.npy" in manifest["checksums"]
    _searches_alike(gen, tmp_path)
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    assert lex.backend == "numpy"
    lex._open_whoosh()
    assert lex.doc_count() == lex._searcher.doc_count()  # live spans only, as Whoosh counts them
    lex.close()


def test_deltas_in_a_row_and_then_a_merge_equal_a_rebuild(project, fake_embedder, tmp_path, monkeypatch):
    """Changes written as deltas one on another (a delta's own rows edited again, a main
    row removed, a row id reused), and a change past the delta's share merged into new
    main arrays: each generation reads as a rebuild of the same files does."""
    cfg = load_config(project)
    index_project(cfg)
    worker = project / WORKER
    notes = sorted((project / "02_knowledge").rglob("*.md"))
    steps = [
        lambda: worker.write_text(worker.read_text() + QUOKKA),
        lambda: worker.write_text(worker.read_text().replace("quokkas", "wombats")),  # the delta's rows again
        lambda: notes[0].unlink(),  # rows of the main arrays
        lambda: (project / "02_knowledge" / "new_note.md").write_text("# Quokka notes\n\nQuokkas smile. Retries too.\n"),
    ]
    for i, step in enumerate(steps):
        step()
        index_project(cfg)
        gen = _gen(project)
        assert (gen / postings.DIR / postings.DELTA).is_dir(), i
        _searches_alike(gen, tmp_path)
    monkeypatch.setattr(postings, "MERGE_SHARE", 10**9)  # any change is past the share
    worker.write_text(worker.read_text() + "\n\nOne more line about aardvarks.\n")
    index_project(cfg)
    merged_gen = _gen(project)
    assert not (merged_gen / postings.DIR / postings.DELTA).exists()
    assert (merged_gen / postings.DIR / "rows.npy").stat().st_ino != (gen / postings.DIR / "rows.npy").stat().st_ino
    inc, inc_meta = _arrays(merged_gen)
    index_project(cfg, full=True)
    full, full_meta = _arrays(_gen(project))
    assert {k: inc_meta[k] for k in ("docs", "total_length", "terms", "postings")} == \
        {k: full_meta[k] for k in ("docs", "total_length", "terms", "postings")}
    assert inc["terms"] == full["terms"] and inc["term_off"] == full["term_off"] and inc["ptr"] == full["ptr"]


@pytest.mark.parametrize("damage", ["one more", "not a main row", "past every row", "length", "unsorted", "live twice"])
def test_a_damaged_delta_is_not_read_as_postings(project, fake_embedder, damage):
    """A delta whose dead rows disagree with its meta or with the main arrays is refused
    when opened (the lexical channel then scores with Whoosh) and when built on (the next
    run writes the postings from every span): never a wrong count, never a traceback."""
    cfg = load_config(project)
    index_project(cfg)
    worker = project / WORKER
    worker.write_text(worker.read_text() + QUOKKA)
    index_project(cfg)
    gen = _gen(project)
    delta = gen / postings.DIR / postings.DELTA
    meta = json.loads((delta / "meta.json").read_text())
    dead = np.load(delta / postings.DEAD)
    assert len(dead) >= 1
    main_rows = np.load(gen / postings.DIR / "doc_rows.npy")
    if damage == "one more":
        dead = np.arange(len(dead) + 1, dtype=np.int64)
    elif damage == "not a main row":
        dead = np.array(sorted(set(range(1, 10**6)) - set(main_rows.tolist()))[: len(dead)], dtype=np.int64)
    elif damage == "past every row":
        dead = np.concatenate([dead[:-1], [int(main_rows[-1]) + 10]]).astype(np.int64)
    elif damage == "length":
        meta["dead_length"] += 1
        (delta / "meta.json").write_text(json.dumps(meta))
    elif damage == "unsorted":
        dead = main_rows[: len(dead) + 1][::-1].copy()
        meta["dead"] = len(dead)
        (delta / "meta.json").write_text(json.dumps(meta))
    else:  # the delta's rows left live in the main arrays too
        delta_rows = np.load(delta / "doc_rows.npy")
        np.save(delta / "doc_rows.npy", np.sort(np.concatenate([delta_rows[:-1], main_rows[~np.isin(main_rows, dead)][:1]])))
    np.save(delta / postings.DEAD, dead)
    with pytest.raises(ValueError):
        postings.Postings(gen / postings.DIR, k1=1.2, b=0.75)
    lex = LexicalIndex(gen / "lexical", gen / postings.DIR)
    assert lex.backend == "whoosh" and lex.search(["retry"], 5)
    lex.close()
    out = project / "rebuilt"
    n = postings.build(out, gen / postings.DIR, [], [], all_docs=lambda: sorted(_lexical_texts(project)))
    assert n == len(_lexical_texts(project)) and not (out / postings.DELTA).exists()


def _lexical_texts(root):
    from oriongraph_cli.store.generation import all_lexical_texts

    reader = IndexReader(load_config(root), load_embedder=False)
    try:
        return all_lexical_texts(reader.registry)
    finally:
        reader.close()
