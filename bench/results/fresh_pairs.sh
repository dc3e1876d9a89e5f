#!/bin/bash
# Paired fresh-process CPU for "A fresh compile at most 1.15x the floor" (docs/BENCHMARKS.md):
# each pair runs A then B, in turn, under /usr/bin/time; one line per run:
#   <label> <pair> <user s> <sys s> <max RSS KiB>
# BASE: a checkout of ccf94fa (git worktree add BASE ccf94fa), AFTER: this branch, both
# byte-compiled (python -m compileall -q CHECKOUT/oriongraph_cli); ROOT: a copy of the
# SciFact project indexed with the int8 model. Run from a directory holding no oriongraph_cli.
#   bench/results/fresh_pairs.sh BASE AFTER ROOT PAIRS >> bench/results/fresh_pairs.txt
BASE=$1; AFTER=$2; ROOT=$3; N=${4:-3}
PY=${PYTHON:-python}
Q="vitamin D deficiency and bone fractures"
t() { label=$1; co=$2; shift 2; PYTHONPATH=$co /usr/bin/time -f "$label $i %U %S %M" $PY -P "$@" 2>&1 >/dev/null | tail -1; }
tty() { label=$1; co=$2; shift 2; PYTHONPATH=$co /usr/bin/time -f "$label $i %U %S %M" script -qec "$PY -P $*" /dev/null 2>&1 >/dev/null | tail -1; }
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); base $(git -C $BASE rev-parse --short HEAD), after $(git -C $AFTER rev-parse --short HEAD)"
for i in $(seq 1 $N); do
  t floor-after $AFTER $AFTER/bench/floor.py --root $ROOT "$Q"
  t json-after $AFTER -m oriongraph_cli compile "$Q" --root $ROOT --json --no-usage-log
  t floor-base $BASE $BASE/bench/floor.py --root $ROOT "$Q"
  t json-base $BASE -m oriongraph_cli compile "$Q" --root $ROOT --json --no-usage-log
done
for i in $(seq 1 $N); do
  t markdown-after $AFTER -m oriongraph_cli compile "$Q" --root $ROOT --format markdown --explain --no-usage-log
  t markdown-base $BASE -m oriongraph_cli compile "$Q" --root $ROOT --format markdown --explain --no-usage-log
  tty terminal-after $AFTER -m oriongraph_cli --no-pager compile "\"$Q\"" --root $ROOT --no-usage-log
  tty terminal-base $BASE -m oriongraph_cli --no-pager compile "\"$Q\"" --root $ROOT --no-usage-log
done
