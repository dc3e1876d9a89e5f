#!/bin/bash
# paired one-file re-index: before (452e1ae) on scifact-C, after on scifact-D, in turn
cd /tmp/vecstore
F=02_knowledge/scifact
files=$(ls scifact-C/$F | head -400 | tail -5)
i=0
for f in $files; do
  i=$((i+1))
  for side in C D; do
    if [ $side = C ]; then CO=/tmp/vecstore-base; else CO=/work/wt-vecstore; fi
    printf "\nEdited for the paired re-index %d: the trial was repeated.\n" $i >> scifact-$side/$F/$f
    PYTHONPATH=$CO nice -n 5 /usr/bin/time -f "$side $i %U %S %M" /work/wt-vecstore/.venv/bin/python -P -m oriongraph_cli index --root scifact-$side --quiet 2>> reindex_pairs.log >/dev/null
    PYTHONPATH=$CO nice -n 5 /usr/bin/time -f "$side-nochange $i %U %S %M" /work/wt-vecstore/.venv/bin/python -P -m oriongraph_cli index --root scifact-$side --quiet 2>> reindex_pairs.log >/dev/null
  done
done
echo done >> reindex_pairs.log
