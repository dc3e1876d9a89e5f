import sys, statistics, collections
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip(): continue
    label, i, u, s, m = line.split()
    runs[label][int(i)] = (float(u) + float(s), float(u), float(s), int(m) / 1024)
def med(label, k=0): return statistics.median(v[k] for v in runs[label].values())
for label in runs:
    print(f"{label:16s} cpu {med(label):.3f} (user {med(label,1):.3f} sys {med(label,2):.3f}) peak {med(label,3):.0f} MiB  all: {' '.join(f'{v[0]:.2f}' for _, v in sorted(runs[label].items()))}")
def ratio(a, b):
    rs = [runs[a][i][0] / runs[b][i][0] for i in runs[a] if i in runs[b]]
    return f"{a}/{b}: median {statistics.median(rs):.3f}  pairs {' '.join(f'{r:.2f}' for r in rs)}"
for a, b in (("json-after", "floor-after"), ("json-base", "floor-base"), ("json-after", "json-base"), ("markdown-after", "markdown-base"), ("terminal-after", "terminal-base")):
    if a in runs and b in runs: print(ratio(a, b))
