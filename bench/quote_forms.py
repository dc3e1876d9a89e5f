"""What the quotes of compiled working sets hold, over a project's intents at 1,000 and
4,000 tokens with the shipped defaults: quotes, shortened quotes, quotes that hold no text
of their span (headings, a bold label and ``[…]`` marks alone: `` […]``, ``**Title** […]``),
quotes with code, and those whose code keeps lines with a gap between them (lines picked
here and there, not one run); shortened quotes that keep a link reference definition
(``[label]: #anchor``, which renders as nothing) outside code; links whose target was made
a path to nothing, a target no file could have joined to its folder
(``[page bundle](02_knowledge/hugo/templates/g)`` for Hugo's glossary shorthand ``(g)``);
shortened quotes that keep a site template's tag (``{{< … >}}``, ``{% … %}``), and those where
a tag shares its line with other text (a template block read as sentences and joined:
``{{< code-toggle file=hugo >}} [params] x = 1 {{< /code-toggle >}}``); shortened quotes that keep
a container's fence line (``:::tip``, ``:::``: Docusaurus and VitePress admonitions);
HTML comments outside code — shortened quotes that keep one, the tokens of all of them in
what is delivered —, shortened quotes that keep a line that only sets an anchor
(``<a id="x"></a>``), and quotes that end in such a line or a comment (the next section's
anchor, ``<!-- Old headings. … -->``); shortened quotes that keep a line that is one HTML
element's tag alone (``<Listing caption="…">``, ``</Listing>``, ``<div class="x">``);
shortened quotes that keep a block quote's ``>`` on a line outside code (a quote's lines
read as sentences and joined: ``[…] > [!tip] Best practices > - Always …``; "Settings >
General" counts too, alike before and after) and those that keep a callout's marker
(``[!tip]``, ``[!NOTE]``).

    python bench/quote_forms.py ROOT INTENTS.jsonl [--limit 60]
    ORION_BENCH_SRC=CHECKOUT python -P bench/quote_forms.py ROOT INTENTS.jsonl   # another checkout
"""
import argparse
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("ORION_BENCH_SRC", str(Path(__file__).resolve().parent.parent)))
from oriongraph_cli import api  # noqa: E402
from oriongraph_cli.models import CompileRequest  # noqa: E402
from oriongraph_cli.render.json import compile_payload  # noqa: E402

# a quote's text without headings, bold labels and elision marks: what it says
_FRAME = re.compile(r"\[…\]|\*\*[^*]*\*\*|#+ [^\n]*")
# a link reference definition's line (as blocks.LINK_DEFINITION; here for older checkouts too)
_DEFINITION = re.compile(r"[ ]{0,3}\[(?!\^)(?:[^\]\\\n]|\\.)+\]:[ \t]*\S")


_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)")
_WORD = re.compile(r"[A-Za-z0-9_]{2,}")


def shorthand_joined(text: str) -> int:
    """Links in ``text`` whose target is a folder joined to a name no file could have (no
    word of two characters: ``…/templates/g``)."""
    n = 0
    for target in _LINK_TARGET.findall(text):
        base = target.split("#", 1)[0].rstrip("/").rsplit("/", 1)
        n += len(base) == 2 and not _WORD.search(base[1]) and bool(base[1]) and "://" not in target
    return n


_TAG = re.compile(r"\{\{[<%].*?[>%]\}\}|\{%.*?%\}")
_CONTAINER_FENCE = re.compile(r"^ {0,3}:{3,}[ \t]*(?:[\w-][^\n]*)?$", re.MULTILINE)


def template_joined(text: str) -> bool:
    """Whether a line of ``text`` outside code holds a template tag and other text."""
    inside = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
        elif not inside and _TAG.search(line) and _TAG.sub("", line).replace("[…]", "").strip():
            return True
    return False


_COMMENT = re.compile(r"<!--(?:-?>|.*?-->)", re.DOTALL)
_TAG_LINE = re.compile(r"^[ \t]*(?:<(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b)[A-Za-z][\w.:-]*(?:\s[^<>]*)?(?<!/)>|</[A-Za-z][\w.:-]*\s*>)[ \t]*$", re.IGNORECASE)
_UNSEEN_LINE = re.compile(r"""^[ \t]*(?:<a\s+(?:id|name)\s*=\s*(?:"[^"\n]*"|'[^'\n]*')\s*>\s*</a>|<!--.*?-->)[ \t]*$""")


def prose_comments(text: str) -> list[str]:
    """The HTML comments of ``text`` outside fenced blocks and code spans."""
    out, inside, prose = [], False, []
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
            prose.append("")
        else:
            prose.append("" if inside else re.sub(r"`[^`\n]*`", "", line))
    return _COMMENT.findall("\n".join(prose))


def ends_unseen(text: str) -> bool:
    """Whether the last line of ``text`` with anything on it only sets an anchor or is a comment."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    return bool(lines) and bool(_UNSEEN_LINE.match(lines[-1]))


def keeps_definition(text: str) -> bool:
    """Whether ``text`` holds a link reference definition's line outside a fenced block."""
    inside = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
        elif not inside and _DEFINITION.match(line):
            return True
    return False


_QUOTE_MARKER = re.compile(r"(?:^|\s)>(?:\s|$)")
_CALLOUT_MARKER = re.compile(r"\[![A-Za-z-]+\]")


def prose_lines(text: str) -> list[str]:
    """The lines of ``text`` outside fenced code."""
    out, inside = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
        elif not inside:
            out.append(line)
    return out


def scattered_code(text: str) -> bool:
    """Whether a fenced block of ``text`` keeps two lines with a ``[…]`` line between them."""
    inside, seq = False, []
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
            if not inside:
                if "g" in "".join(seq).strip("g"):
                    return True
                seq = []
        elif inside:
            seq.append("g" if line.strip() == "[…]" else "c")
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root")
    ap.add_argument("intents")
    ap.add_argument("--limit", type=int, default=None, help="the first N intents")
    args = ap.parse_args()
    cfg = api.load_config(args.root, usage_log=False)
    reader = api.open_index(cfg)
    from oriongraph_cli.tokens import get_counter

    counter = get_counter()
    qs = [json.loads(line) for line in open(args.intents) if line.strip()][: args.limit]
    out: dict = {"root": args.root, "intents": len(qs)}
    for budget in (1000, 4000):
        c = dict(quotes=0, shortened=0, no_text=0, with_code=0, scattered_code=0, shortened_with_definition=0, shorthand_joined=0,
                 shortened_with_template=0, template_joined=0, shortened_with_container_fence=0, shortened_with_comment=0,
                 shortened_with_anchor_line=0, ends_unseen=0, comment_tokens=0, quoted_tokens=0, shortened_with_tag_line=0,
                 shortened_with_quote_marker=0, shortened_with_callout_marker=0)
        for q in qs:
            resp = api.compile_workingset(CompileRequest(intent=q["text"], budget_tokens=budget), cfg, reader)
            c["quoted_tokens"] += resp.workingset.total_tokens
            for doc in compile_payload(resp)["documents"]:
                for qt in doc["quotes"]:
                    t = qt["text"]
                    c["quotes"] += 1
                    comments = prose_comments(t)
                    c["comment_tokens"] += sum(counter.count(x) for x in comments)
                    c["ends_unseen"] += ends_unseen(t)
                    c["shortened"] += bool(qt.get("shortened"))
                    c["no_text"] += not _FRAME.sub("", t).strip()
                    c["shortened_with_definition"] += bool(qt.get("shortened")) and keeps_definition(t)
                    c["shorthand_joined"] += shorthand_joined(t)
                    if qt.get("shortened"):
                        c["shortened_with_template"] += bool(_TAG.search(t))
                        c["template_joined"] += template_joined(t)
                        c["shortened_with_container_fence"] += bool(_CONTAINER_FENCE.search(t))
                        c["shortened_with_comment"] += bool(comments)
                        c["shortened_with_anchor_line"] += any(_UNSEEN_LINE.match(ln) for ln in t.split("\n"))
                        c["shortened_with_tag_line"] += any(_TAG_LINE.match(ln.replace("[…]", "").strip()) for ln in t.split("\n"))
                        prose = prose_lines(t)
                        c["shortened_with_quote_marker"] += any(_QUOTE_MARKER.search(ln) for ln in prose)
                        c["shortened_with_callout_marker"] += any(_CALLOUT_MARKER.search(ln) for ln in prose)
                    if "```" in t or "~~~" in t:
                        c["with_code"] += 1
                        c["scattered_code"] += scattered_code(t)
        out[str(budget)] = c
    print(json.dumps(out))


if __name__ == "__main__":
    main()
