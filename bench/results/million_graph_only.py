"""The link graph's rebuild alone on a copy of a 1M-span registry (bench only):
python graph_only.py CHECKOUT REGISTRY ROOT --clear (empties the DEFINES match tables, as a
build from the files finds them), then python graph_only.py CHECKOUT REGISTRY ROOT runs graph.edges.rebuild_edges as `orion index`
does, printing CPU and peak RSS."""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from oriongraph_cli.store.registry import Registry
from oriongraph_cli.graph import edges
reg = Registry.create(Path(sys.argv[2]))  # opened for writing, as the generation writer does
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
t, c = time.perf_counter(), time.process_time()
if "--clear" in sys.argv[4:]:  # a process of its own: SQLite's delete of ~9M rows is not what is measured
    reg.conn.execute("DELETE FROM defines_hits"); reg.conn.execute("DELETE FROM defines_cache"); reg.commit()
    print(json.dumps({"clear_cpu_s": round(time.process_time() - c, 1), "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
    sys.exit(0)
clear_cpu = 0.0
start_rss, start_peak = rss(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
c = time.process_time()
g = edges.rebuild_edges(reg, Path(sys.argv[3]), defines=True, generation="000001")
reg.commit()
print(json.dumps({"clear_cpu_s": round(clear_cpu, 1), "rss_before_mib": round(start_rss, 1), "peak_before_mib": round(start_peak, 1),
                  "graph_cpu_s": round(time.process_time() - c, 1), "graph_edges": g.edges,
                  "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "rss_after_mib": round(rss(), 1)}))
