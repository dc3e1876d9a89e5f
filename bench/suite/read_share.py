"""Where a working set's tokens go, intent by intent: each delivered span in pick order as
``R<doc>`` (a judged document) or ``x<doc>`` (unjudged), its tokens (``c``: shortened) and
its base score, with the intent's relevant share — for reading why the relevant share of a
project is what it is.

    python bench/suite/read_share.py /tmp/suite8/peps bench/suite/peps.intents.jsonl --budget 4000
"""

from __future__ import annotations

import argparse


def main() -> None:
    from oriongraph_cli import api, pipeline
    from oriongraph_cli.config import load_config
    from oriongraph_cli.evaluate import default_request, delivered_docs, load_queries, relevant_share, set_recall, working_set_tokens

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("queries")
    ap.add_argument("--budget", type=int, default=4000)
    a = ap.parse_args()
    cfg = load_config(a.root)
    reader = api.open_index(cfg)
    reader.repeat_cache = {}
    shares, recalls = [], []
    try:
        for q in load_queries(a.queries):
            resp = pipeline.compile_workingset(default_request(cfg, q.text, a.budget), cfg, reader)
            share = relevant_share(working_set_tokens(resp), q.positives)
            shares.append(share)
            recalls.append(set_recall(delivered_docs(resp), q.positives))
            docs: dict[str, int] = {}
            cells = []
            for i in sorted(resp.workingset.spans, key=lambda i: i.selection_rank):
                n = i.compression.tokens if i.compression is not None else i.span_ref.token_cost
                d = docs.setdefault(i.path, len(docs))
                cells.append(f"{'R' if q.positives.get(i.path) else 'x'}{d}:{n}{'c' if i.compression else ''}@{i.score:.2f}")
            print(q.id, f"share={share:.2f}", " ".join(cells))
    finally:
        reader.close()
    print(f"mean relevant share {sum(shares) / len(shares):.4f}, working-set recall {sum(recalls) / len(recalls):.4f}")


if __name__ == "__main__":
    main()
