"""Run compile_outputs.py or `orion search --json` per query with time.time pinned (bench only), so two index copies compare without the clock."""
import json, os, sys, time
time.time = lambda: 1795580000.0
src = os.environ["ORION_BENCH_SRC"]
sys.path.insert(0, src); sys.path.insert(0, src + "/bench")
if os.environ.get("FAST"):
    import synth; synth.install_fast_embedder()
what = sys.argv[1]
if what == "compile":
    sys.argv = ["compile_outputs.py"] + sys.argv[2:]
    import compile_outputs; compile_outputs.main()
else:
    root, qpath, out = sys.argv[2], sys.argv[3], sys.argv[4]
    from oriongraph_cli.cli import app
    with open(out, "w") as fh:
        for line in open(qpath):
            q = json.loads(line)["text"]
            for extra in ([], ["--fusion", "rrf"]):
                sys.argv = ["orion", "search", q, "--root", root, "--json", *extra]
                old = sys.stdout; sys.stdout = fh
                fh.write(f"== {q!r} {extra}\n")
                try:
                    app()
                except SystemExit:
                    pass
                finally:
                    sys.stdout = old
