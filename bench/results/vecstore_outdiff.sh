#!/bin/bash
# usage: outdiff.sh CHECKOUT ROOT OUTDIR QUERIES N
CO=$1; ROOT=$2; OUT=$3; Q=$4; N=$5
mkdir -p $OUT; cd /tmp/vecstore
head -n $N $Q | python3 -c "import sys,json; [print(json.loads(l)['text']) for l in sys.stdin]" > $OUT/intents.txt
i=0
while IFS= read -r intent; do
  i=$((i+1))
  for b in 1000 4000; do
    PYTHONPATH=$CO nice -n 5 /work/wt-vecstore/.venv/bin/python -P -m oriongraph_cli compile "$intent" --root $ROOT --no-usage-log --json --budget $b > $OUT/c$i-$b.json 2>$OUT/c$i-$b.err
  done
  PYTHONPATH=$CO nice -n 5 /work/wt-vecstore/.venv/bin/python -P -m oriongraph_cli compile "$intent" --root $ROOT --no-usage-log --format markdown --explain --budget 2000 > $OUT/m$i.md 2>$OUT/m$i.err
  PYTHONPATH=$CO nice -n 5 /work/wt-vecstore/.venv/bin/python -P -m oriongraph_cli search "$intent" --root $ROOT --json > $OUT/s$i.json 2>$OUT/s$i.err
done < $OUT/intents.txt
