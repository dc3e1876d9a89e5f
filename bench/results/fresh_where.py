"""One fresh compile in this process (as the entry point runs it): main-thread CPU per step,
each thread's CPU, the collector's passes; a JSON line on stderr."""
import os, sys, time, threading, json, gc
T = [("start", time.thread_time(), time.process_time())]
def mark(n): T.append((n, time.thread_time(), time.process_time()))
gcs = [0, 0.0, {}]
def _cb(ph, info):
    if ph == "start": gcs[2][threading.get_ident()] = time.thread_time()
    else: gcs[0] += 1; gcs[1] += time.thread_time() - gcs[2].get(threading.get_ident(), time.thread_time())
gc.callbacks.append(_cb)
argv = ["compile", os.environ.get("Q", "vitamin D deficiency and bone fractures"), "--root", os.environ["R"]] + os.environ.get("ARGS", "--json --no-usage-log").split()
from oriongraph_cli import client
if hasattr(client, "_collector_off_for_one_compile"):
    client._collector_off_for_one_compile(argv)
threads = {}
orig_run = threading.Thread.run
def run(self):
    try: orig_run(self)
    finally: threads[self.name.split("_")[0]] = threads.get(self.name.split("_")[0], 0) + time.thread_time()
threading.Thread.run = run
import oriongraph_cli.cli as C
mark("import the CLI (typer, api, models)")
import oriongraph_cli.api as A
orig = A.compile_workingset
def cw(*a, **k):
    mark("parse, settings, request")
    import oriongraph_cli.pipeline as P
    mark("import the compile path")
    ro = P.rank_candidates
    import oriongraph_cli.store.reader as RD
    oi = RD.IndexReader.__init__
    def ri(self, *a, **k):
        t = time.thread_time(); oi(self, *a, **k); T.append(("  of which: open the index", t, None)); T.append(("  of which: open the index", time.thread_time(), None))
    RD.IndexReader.__init__ = ri
    def rc(*a, **k):
        mark("open the index, start tokenizer"); r = ro(*a, **k); mark("rank (main thread)"); return r
    P.rank_candidates = rc
    r = orig(*a, **k); mark("assemble, fit, count"); return r
A.compile_workingset = cw
try: C.run_command(argv)
except SystemExit: pass
sys.stdout.flush()
mark("render and write")
out = {}
prev = T[0]
for n, t, pt in T[1:]:
    if pt is None: continue
    out[n] = round(1000 * (t - prev[1]), 1); prev = (n, t, pt)
opens = [t for n, t, pt in T if pt is None]
if opens: out["  (IndexReader.__init__)"] = round(1000 * (opens[1] - opens[0]), 1)
out["main thread total"] = round(1000 * time.thread_time(), 1)
for k, v in sorted(threads.items()): out[f"thread {k}"] = round(1000 * v, 1)
out["collector passes"] = gcs[0]; out["collector ms"] = round(1000 * gcs[1], 1)
out["process"] = round(1000 * time.process_time(), 1)
print(json.dumps(out), file=sys.stderr)
