"""Quotes shortened to their best sentences, and those of them that hold a code block, over a
project's intents at 1,000 and 4,000 tokens, compiled with the shipped defaults.

    python bench/code_in_shortened.py ROOT INTENTS.jsonl
    ORION_BENCH_SRC=CHECKOUT python -P bench/code_in_shortened.py ROOT INTENTS.jsonl   # another checkout
"""
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(Path(__file__).resolve().parent.parent)))
from oriongraph_cli import api
from oriongraph_cli.models import CompileRequest
from oriongraph_cli.render.json import compile_payload
root, intents = sys.argv[1], sys.argv[2]
cfg = api.load_config(root, usage_log=False)
reader = api.open_index(cfg)
qs = [json.loads(l) for l in open(intents) if l.strip()]
out = {}
for budget in (1000, 4000):
    n_short = n_code = 0
    for q in qs:
        resp = api.compile_workingset(CompileRequest(intent=q["text"], budget_tokens=budget), cfg, reader)
        for doc in compile_payload(resp)["documents"]:
            for qt in doc["quotes"]:
                if qt.get("shortened") == "sentences":
                    n_short += 1
                    n_code += ("```" in qt["text"] or "~~~" in qt["text"])
    out[budget] = {"shortened": n_short, "with_code": n_code}
print(json.dumps({"root": root, **{str(k): v for k, v in out.items()}}))
