"""Assembly: shortened forms, packing by value per token, reading order, merged quotes,
named gaps, root-relative links."""

from __future__ import annotations

from dataclasses import replace

from oriongraph_cli.assemble import compress
from oriongraph_cli.assemble.layout import layout, rewrite_links
from oriongraph_cli.assemble.pack import pack, shorten_item
from oriongraph_cli.assemble.select import select
from oriongraph_cli.models import CandidateSpan, SourceType, SpanMetadata, SpanRef, WSItem
from oriongraph_cli.tokens import get_counter

DOC = "# Title\n\nIntro sentence one. Intro two.\n\n## Part A\n\nAlpha first. Alpha second.\n\n## Part B\n\nBeta first. Beta second.\n\n## Part C\n\nGamma.\n"


def item(span_id, start, end, rank, path="02_knowledge/d.md", lines=(1, 1), text=None, **kw) -> WSItem:
    ref = SpanRef("v", span_id, start, end, 10, lines[0], lines[1])
    return WSItem(ref, path, kw.pop("section", None), DOC[start:end] if text is None else text, rank, 0.1, **kw)


# ---------------------------------------------------------------- shortened forms


def test_priority_from_the_score_relative_to_the_best():
    assert compress.priority(0.9, 1.0, first=True) == "critical"
    assert compress.priority(0.2, 1.0, named=True) == "critical"
    assert compress.priority(0.9, 1.0) == "high"
    assert compress.priority(0.7, 1.0) == "medium"
    assert compress.priority(0.3, 1.0) == "low"
    assert compress.ALLOWED["critical"] == () and compress.ALLOWED["low"][-1] == "pointer"


def test_sentences_keep_headings_and_first_sentences_not_code_or_tables():
    text = ("## Retries\n\nThe worker retries three times. It waits in between. More detail follows here.\n\n"
            "```python\nretry()\n```\n\n| a | b |\n|---|---|\n\n- first item\n- second item\n\n" + "Filler sentence here. " * 30)
    short = compress.COMPRESSORS["sentences"].shorten(text, "Design > Retries")
    assert short.startswith("## Retries\n\nThe worker retries three times.")
    assert "It waits" not in short and "retry()" not in short and "| a |" not in short
    assert short.endswith(compress.TRIM_MARK) and len(short) < len(text)


def test_code_a_shortened_span_leaves_out_is_marked_as_skipped():
    focus = compress.Focus.of("respect cancellation", lambda terms: {t: 1.0 for t in terms})
    tail = "It is possible to respect cancellation, as follows:\n\n```swift\nfunc fetch() async {}\n```"
    assert compress.COMPRESSORS["sentences"].shorten(tail, None, focus) == "It is possible to respect cancellation, as follows:" + compress.TRIM_MARK
    head = "```swift\nfunc fetch() async {}\n```\n\nCancellation is cooperative, as you respect it."
    assert compress.COMPRESSORS["sentences"].shorten(head, None, focus) == "[…] Cancellation is cooperative, as you respect it."


KEYS = ("## 1. Create your keys\n\nSigning needs a pair of keys. One of them is private. Keep it secret, like a password. "
        "The other is public and may be shared widely.\n\n1. Open a terminal and enter the following command:\n"
        "```sh\nssh-keygen -t ed25519 -C \"you@example.com\"\n```\n\n" + "Filler sentence about something else entirely. " * 10)


def test_a_short_code_block_that_matches_is_kept_whole_in_its_fence():
    """A short code block is a unit a shortened span may keep, as a sentence: whole, in its
    fence, the mark for skipped text on the line before it (a fence opens its line) and after
    its closing fence on a line of its own; the one-sentence form never takes code."""
    focus = compress.Focus.of("create an ssh key with ssh-keygen", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(KEYS, None, focus)
    assert '```sh\nssh-keygen -t ed25519 -C "you@example.com"\n```' in short
    assert "[…]\n```sh" in short and "[…] ```" not in short
    assert short.endswith("```\n\n[…]") and "Filler" not in short
    assert "ssh-keygen" not in compress.COMPRESSORS["heading"].shorten(KEYS, None, focus)
    # the last of the span, nothing after it: no mark after the fence
    assert compress.COMPRESSORS["sentences"].shorten(KEYS.split("\n\nFiller")[0], None, focus).endswith('"you@example.com"\n```')
    # the share of the span's match the form holds counts the code it keeps
    assert compress.keep("sentences", KEYS, short, focus) > compress.keep("sentences", KEYS, short.split("[…]\n```")[0], focus)


def test_a_wrapped_list_item_is_one_unit_when_shortened():
    """A list item wrapped onto the next lines (as editors hard-wrap Markdown) is one unit:
    kept whole with its continuation lines, never cut into an item and a paragraph."""
    text = ("Here are some of the practices that make it work well for us:\n\n"
            "- **Treat everyone as remote.** There is no such thing as a half-remote team; if\n"
            "  anyone on the team is not co-located, default to remote practices.\n"
            "- **Meet in person.** While we typically work in a remote way, we meet\n"
            "twice a year.\n\n" + "Filler sentence about something else entirely. " * 10)
    focus = compress.Focus.of("remote team practices", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert ("- **Treat everyone as remote.** There is no such thing as a half-remote team; if\n"
            "  anyone on the team is not co-located, default to remote practices.") in short
    assert "\n\nanyone" not in short and "\n\n  anyone" not in short
    assert [b for b in compress._blocks(text) if b[0] == "lines"][1][1].endswith("we meet\ntwice a year.")


def test_a_long_code_block_is_never_kept_by_a_shortened_span():
    """Code past ``CODE_UNIT_CHARS`` stays skipped text, however well it matches; a fence a
    span does not close is no unit either."""
    long = "```sh\n" + "\n".join(f"ssh-keygen --step {i}" for i in range(30)) + "\n```"
    assert len(long) > compress.CODE_UNIT_CHARS
    focus = compress.Focus.of("ssh-keygen", lambda terms: {t: 1.0 for t in terms})
    text = "Create the key with ssh-keygen as below.\n\n" + long + "\n\n" + "Filler words here. " * 30
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert "--step" not in short and short.startswith("Create the key with ssh-keygen as below.")
    open_fence = "Run ssh-keygen now.\n\n```sh\nssh-keygen -t ed25519\n" + "Filler words here. " * 30
    assert "```" not in compress.COMPRESSORS["sentences"].shorten(open_fence, None, focus)


def test_a_part_of_a_code_block_shortens_to_its_best_lines_inside_its_fence():
    code = "```bash\n# step 1\nrun --one\n# step 77\nrun --widget 77\n# step 3\nrun --three\n```"
    focus = compress.Focus.of("widget 77", lambda terms: {t: 1.0 for t in terms})
    assert compress.COMPRESSORS["heading"].shorten(code, "Deploy > Script", focus) == "**Script**\n\n```bash\n[…]\nrun --widget 77\n[…]\n```"
    long = "```\n" + "\n".join(f"line_{i} = {i}" for i in range(40)) + "\n```"
    short = compress.COMPRESSORS["sentences"].shorten(long, None)
    assert short.startswith("```\nline_0 = 0\n") and short.endswith("\n[…]\n```") and len(short) < len(long)


def test_a_part_of_a_code_block_shortens_to_one_run_of_lines_around_its_match():
    """Code is read in context: a shortened part of a code block keeps one run of
    consecutive lines holding the most of the match, from up to two lines before its first
    matching line, never lines picked here and there."""
    body = ["export default defineConfig({", "  server: {", "    proxy: {", "      '/foo': 'http://localhost:4567',",
            "      '/api': {", "        target: 'http://localhost:8080',", "        changeOrigin: true,",
            "        rewrite: (path) => path.replace(/^\\/api/, ''),", "      },", "      '/socket.io': {",
            "        target: 'ws://localhost:5174',", "        ws: true,", "      },", "    },", "  },", "})"]
    code = "```js\n" + "\n".join(body) + "\n```"
    focus = compress.Focus.of("proxy api requests", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(code, None, focus)
    kept = short.split("\n")[1:-1]
    assert kept[-1] == "[…]" and "[…]" not in kept[:-1]
    assert "\n".join(kept[:-1]) in "\n".join(body)  # consecutive lines of the block
    assert kept[:3] == body[:3] and "      '/api': {" in kept  # the match with the lines that open it
    assert len(short) < len(code)
    # further down the block: up to two lines before the first line that matches
    late = "```js\n" + "\n".join([f"const unrelated_{i} = {i}" for i in range(12)] + body[1:]) + "\n```"
    kept = compress.COMPRESSORS["sentences"].shorten(late, None, focus).split("\n")[1:-1]
    assert kept[0] == "[…]" and kept[1:3] == ["const unrelated_11 = 11", "  server: {"] and kept[3] == "    proxy: {"
    # the one-line form keeps the single line that matches best
    assert compress.COMPRESSORS["heading"].shorten(code, "Config > Proxy", focus).endswith("```js\n[…]\n    proxy: {\n[…]\n```")


def test_a_form_that_holds_none_of_the_spans_text_is_no_form():
    """A shortened form made of headings, a bold label and marks alone (the match sat in
    code too long to keep; the span is a table under its heading) says nothing the header
    does not: it is no form of its level, so the packer never spends a quote on it."""
    sig = ("## `resolveConfig`\n\n**Type Signature:**\n\n```ts\nasync function resolveConfig(\n  inlineConfig: InlineConfig,\n"
           "  command: 'build' | 'serve',\n  defaultMode = 'development',\n  defaultNodeEnv = 'development',\n"
           "  isPreview = false,\n): Promise<ResolvedConfig>\n```\n\nThe `command` value is `serve` in dev and preview.")
    focus = compress.Focus.of("proxy requests during development", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(sig, None, focus)  # the match is in code past the form's size
    assert short.strip() != "[…]" and "The `command` value" in short
    ref = SpanRef("v", "s", 0, len(sig), 90, 1, 14)
    assert compress.says_something(short)
    table = "## Scrum Rhythm\n\n| Day | Meeting |\n|---|---|\n| Monday | Planning |\n| Friday | Review |\n"
    assert compress.COMPRESSORS["heading"].shorten(table, "Agreement > Scrum Rhythm") == "## Scrum Rhythm […]"
    assert compress.shortened("heading", table, "Agreement > Scrum Rhythm", "a.md", ref) == ""
    assert compress.shortened("sentences", "**Decision:**\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", None, "a.md", ref) == ""
    assert not compress.says_something("**Scrum Rhythm** […]") and not compress.says_something(" […]")
    assert compress.says_something("**Decision:** we use SQS. […]") and compress.says_something("```sh\nmake\n```")


def test_a_shortened_quote_never_keeps_a_link_reference_definition():
    """``[label]: #anchor`` renders as nothing: it is not a sentence a shortened quote keeps
    (its label matched the intent's "reference"), not text a mark says was skipped, and a
    quote of definitions and code alone shortens as code."""
    text = ("## Reference-level explanation\n[reference-level-explanation]: #reference-level-explanation\n\n"
            "This RFC does not change the borrow checker. The MIR for closures captures less.\n\n"
            "[borrow]: https://example.org/borrow\n[nll]: https://example.org/nll\n\n"
            "A later borrow of a reference ends at its last use. Closures are smaller too.\n")
    focus = compress.Focus.of("where does a borrow of a reference end", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert "]:" not in short and "A later borrow of a reference ends at its last use." in short
    assert "[…] A later borrow" in short  # the first paragraph's sentences were skipped, not the definitions
    assert "]:" not in compress.COMPRESSORS["heading"].shorten(text, "RFC > Reference-level explanation", focus)
    plain = compress.COMPRESSORS["sentences"].shorten(text, None)  # no intent: the first sentences
    assert "]:" not in plain and plain.startswith("## Reference-level explanation\n\nThis RFC does not change")
    both = "Borrows end early.\n\n[x]: #x\n\nBorrows end late."  # nothing a reader sees lies between
    assert compress.COMPRESSORS["sentences"].shorten(both, None, focus) == "Borrows end early.\n\nBorrows end late."
    code = "[run]: #run\n\n```sh\n" + "\n".join(f"step --borrow {i}" for i in range(40)) + "\n```"
    assert compress._code_only(code) and "]:" not in compress.COMPRESSORS["sentences"].shorten(code, None, focus)


def test_a_site_templates_blocks_are_kept_as_written_or_left_out_never_read_as_sentences():
    """A block a template tag opens and closes (Hugo's ``{{< code-toggle >}}`` around TOML,
    Liquid's ``{% alert %}`` … ``{% endalert %}``) is the template's to render: a shortened
    quote keeps it whole with its lines, as a short code block, or leaves it out marked
    ``[…]``; a tag alone on its line (a badge, an include) is not a sentence."""
    toggle = "{{< code-toggle file=hugo >}}\n[permalinks]\nposts = '/:year/:slug/'\n{{< /code-toggle >}}"
    text = ("## Permalinks\n\n{{< new-in v0.153.0 />}}\n\nSet the permalink pattern per section in the project configuration:\n\n"
            + toggle + "\n\n" + " ".join(f"Filler sentence {i} about other settings that say nothing of the subject." for i in range(4)) + "\n")
    focus = compress.Focus.of("permalink pattern for posts", lambda terms: {t: 1.0 for t in terms})
    assert [k for k, _ in compress._blocks(text)] == ["heading", "para", "template", "para"]
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert toggle in short and "new-in" not in short  # the TOML keeps its lines; the badge is no sentence
    assert short.endswith("{{< /code-toggle >}}\n\n[…]")  # the mark on its own line after the closing tag
    plain = compress.COMPRESSORS["sentences"].shorten(text, None)
    assert "{{" not in plain and plain.startswith("## Permalinks\n\nSet the permalink pattern")
    assert "{{" not in compress.COMPRESSORS["heading"].shorten(text, "Configure > Permalinks", focus)
    long = "{% alert %}\n" + "\n".join(f"Step {i} of the permalink setup." for i in range(30)) + "\n{% endalert %}"
    around = "Permalinks come first.\n\n" + long + "\n\nPermalinks end here."
    assert compress.COMPRESSORS["sentences"].shorten(around, None, focus) == "Permalinks come first.\n\n[…] Permalinks end here."
    include = "1. Posts.\n\n{{% include \"p/permalink-pattern-posts.md\" %}}\n"  # "{{%": one tag, not two
    assert compress.COMPRESSORS["sentences"].shorten(include, None, focus) == "1. Posts."
    unclosed = "{{< figure src=a.png >}}\n\nA permalink pattern for posts."
    assert compress.COMPRESSORS["sentences"].shorten(unclosed, None, focus) == "A permalink pattern for posts."
    assert compress._blocks("{{< a >}}{{< /a >}} inline text") == [("para", "{{< a >}}{{< /a >}} inline text")]
    # an expression alone on its line, which the site replaces with what it renders (WezTerm's
    # version badge, mkdocs-macros' ``{{since('…')}}``): no sentence, and nothing skipped
    badge = "# `use_fancy_tab_bar = true`\n\n{{since('20220101-133340-7edc5b5a')}}\n\nWhen set to `true`, the tab bar is native.\n"
    assert [k for k, _ in compress._blocks(badge)] == ["heading", "para"]
    short = compress.COMPRESSORS["sentences"].shorten(badge, None)
    assert short.startswith("# `use_fancy_tab_bar = true`\n\nWhen set to `true`, the tab bar is native.") and "since" not in short
    assert compress._blocks("Read {{ name }} here.") == [("para", "Read {{ name }} here.")]  # in a sentence: text


def test_html_comments_are_not_text_a_shortened_quote_keeps():
    """``<!-- ignore -->`` after a link and a maintainer's note over several lines render as
    nothing: neither is kept as a sentence, and a comment in code stays code; nor is a line
    that only sets an anchor."""
    note = "<!-- manual-regeneration\ncd listings/ch02\ncargo run > output.txt 2>&1\n-->"
    text = ("## Ownership\n\n" + note + "\n\nSee the [moves][moves]<!-- ignore --> section for how a value moves.\n"
            "A value has one owner.<!--\nignore --> The owner drops it.\n\n```html\n<!-- kept -->\n```\n")
    assert [k for k, _ in compress._blocks(text)] == ["heading", "para", "code"]
    focus = compress.Focus.of("how does a value move to a new owner", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert "ignore" not in short and "cargo run" not in short and "section for how a value moves." in short
    plain = compress.COMPRESSORS["sentences"].shorten(text, None)
    assert plain.startswith("## Ownership\n\nSee the [moves][moves] section") and "<!--" not in plain
    assert "<!-- kept -->" in compress._blocks(text)[-1][1]
    anchored = '<a id="using-rc"></a>\n\n### Sharing Data\n\nTwo lists share a third. A value moves to its new owner.\n'
    assert compress.COMPRESSORS["sentences"].shorten(anchored, None).startswith("### Sharing Data\n\nTwo lists share")
    assert "<a id" not in compress.COMPRESSORS["sentences"].shorten(anchored, None, focus)
    listing = ('Ownership moves into the function, as Listing 4-3 shows.\n\n<Listing number="4-3" caption="Functions with ownership">'
               "\n\n```rust\n" + "\n".join(f"let v{i} = take(v{i - 1});" for i in range(1, 30)) + "\n```\n\n</Listing>\n\n"
               "After the move the owner is the function. <span class=\"caption\">A caption a reader sees</span>\n")
    short = compress.COMPRESSORS["sentences"].shorten(listing, None, focus)
    assert "<Listing" not in short and "</Listing>" not in short and "After the move the owner is the function." in short
    assert compress._blocks("<span>A caption</span>")[0][0] == "para"  # text inside a tag is text


def test_a_containers_fence_lines_are_not_sentences():
    """Docusaurus and VitePress frame admonitions with ``:::tip Summary`` … ``:::``: the lines
    are not text a shortened quote keeps (``:::tip […]`` said nothing), and what they frame
    is read as any Markdown."""
    text = ("## Store setup\n\nCreate the store with configureStore.\n\n:::tip What You'll Learn\n\n"
            "Use configureStore to create the store with good defaults.\n\n:::\n\n"
            + " ".join(f"Filler {i} about slices and reducers." for i in range(6)) + "\n")
    assert [k for k, _ in compress._blocks(text)] == ["heading", "para", "para", "para"]
    plain = compress.COMPRESSORS["sentences"].shorten(text, None)
    assert ":::" not in plain and "Use configureStore" in plain
    focus = compress.Focus.of("what you will learn about the store", lambda terms: {t: 1.0 for t in terms})
    assert ":::" not in compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert ":::" not in compress.COMPRESSORS["heading"].shorten(text, "Setup > Store setup", focus)
    assert compress._blocks("a ratio of 3:::4 in text")[0][0] == "para"
    # a frame line ends the list item above it: what it frames is no continuation of the item
    assert compress._blocks("- Item one\n:::tip Title\nUse configureStore.\n:::") == [("lines", "- Item one"), ("para", "Use configureStore.")]
    assert compress._blocks("- Item one\n</details>\nUse configureStore.") == [("lines", "- Item one"), ("para", "Use configureStore.")]


def test_a_block_quote_is_shortened_as_what_it_holds():
    """A block quote (an Obsidian callout, a GitHub alert, a quoted paragraph) is read as what
    it holds: a shortened quote never joins its lines into one that keeps ``>`` mid-line
    (``[…] > [!tip] Best practices > - Always …``), the callout's first line frames it and is
    not text, as a container's fence line is not; a list item and a paragraph inside stay
    apart; a ``> `` in code outside the quote is code, untouched."""
    text = ("## Sync across devices\n\nKeep the vault in a folder the app can read.\n\n"
            "> [!tip] Best practices\n> - Always keep your vault files **Available Offline** on this device.\n"
            "> - Avoid Files On-Demand for the vault folder.\n\n"
            "> [!note]- Offline edits\n> Offline edits sync when the device reconnects. Conflicts make a copy.\n"
            "> > A quote in the quote about offline conflicts.\n\n"
            "```sh\n> obsidian --offline\n```\n\n"
            + " ".join(f"Filler {i} about remote vaults and plans." for i in range(12)) + "\n")
    focus = compress.Focus.of("offline vault device conflicts", lambda terms: {t: 1.0 for t in terms})
    kinds = [k for k, _ in compress._blocks(text)]
    assert kinds == ["heading", "para", "lines", "lines", "para", "code", "para"]
    blocks = dict(enumerate(b for _, b in compress._blocks(text)))
    assert blocks[4] == "Offline edits sync when the device reconnects. Conflicts make a copy.\nA quote in the quote about offline conflicts."
    assert blocks[5] == "```sh\n> obsidian --offline\n```"  # code outside the quote: as written
    for level, title in (("sentences", None), ("heading", "Sync > Sync across devices")):
        for f in (focus, compress.NO_FOCUS):
            short = compress.COMPRESSORS[level].shorten(text, title, f)
            assert "[!" not in short, (level, short)
            assert not any(" > " in line or line.lstrip().startswith(">") for line in short.split("\n") if "obsidian --offline" not in line), (level, short)
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert "- Always keep your vault files **Available Offline** on this device." in short.split("\n")
    assert compress._blocks("> [!tip] Title\n> Text.")[0] == ("para", "Text.")
    assert compress._blocks("[!tip] not in a quote")[0] == ("para", "[!tip] not in a quote")  # only a quote's first line frames
    quoted_fence = "> ```\n> > not a quote: code\n> ```\n\nAfter."
    assert compress._blocks(quoted_fence)[0] == ("code", "```\n> not a quote: code\n```")


def test_a_shortened_quote_reads_a_block_quote_a_list_item_holds():
    """A list item that quotes (``16. > text`` and its ``    > text`` lines, as a survey's
    answers are listed in an RFC) is read as what it quotes, its number kept; an indented
    code block's ``>>>`` under a paragraph, and one indented past a list item's text, stay
    code (CommonMark tells them apart, a line pattern cannot)."""
    text = ("Reasons the survey gave:\n\n"
            "16. > Consistency with existing Rust constructs and familiarity with C and Swift\n    > syntax.\n\n"
            "19. > I chose conjunction because it\n    > seems the only choice consistent with Rust syntax.\n    > > The rest are strange.\n\n"
            "- An item with an example:\n\n      >>> print(1)\n      1\n\n"
            "A doctest:\n\n    >>> print(2)\n    2\n\n"
            + " ".join(f"Filler {i} about closures and loops." for i in range(12)) + "\n")
    blocks = compress._blocks(text)
    assert blocks[1] == ("lines", "16. Consistency with existing Rust constructs and familiarity with C and Swift\n    syntax.")
    assert blocks[2] == ("lines", "19. I chose conjunction because it\n    seems the only choice consistent with Rust syntax.\n    The rest are strange.")
    assert any(">>> print(1)" in b for _, b in blocks) and any(">>> print(2)" in b for _, b in blocks)
    focus = compress.Focus.of("syntax consistency with Rust", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(text, None, focus)
    assert "Swift" in short and not any(ln.lstrip().startswith(">") and ">>>" not in ln or ". >" in ln for ln in short.split("\n")), short


def test_restructuredtext_is_shortened_as_restructuredtext():
    """In a ``.rst`` note a line of backticks is a title's adornment, not a fence: a
    shortened quote keeps its sentences, the title as a heading, never a literal block or a
    directive's line as sentences (``shortened`` reads the path)."""
    text = ("Registering\n```````````\n\nYou can register error handlers for any status code. Use the decorator::\n\n"
            "    @app.errorhandler(404)\n    def page_not_found(e):\n        return 'gone', 404\n\n"
            ".. code-block:: python\n\n    app.register_error_handler(400, handle_bad_request)\n\n"
            "Handlers registered on a blueprint take precedence over the application's. " + "Filler words here. " * 20)
    focus = compress.Focus.of("register an error handler", lambda terms: {t: 1.0 for t in terms})
    ref = SpanRef("v", "s", 0, len(text), 120, 1, 14)
    short = compress.shortened("sentences", text, "Errors > Registering", "02_knowledge/errors.rst", ref, focus)
    assert short.startswith("## Registering\n\nYou can register error handlers for any status code.")
    assert "```" not in short and "def page_not_found" not in short and "code-block" not in short and "register_error_handler" not in short
    assert "[…] Handlers registered on a blueprint" in short
    as_markdown = compress.shortened("sentences", text, "Errors > Registering", "02_knowledge/errors.md", ref, focus)
    assert as_markdown != short  # a Markdown note with the same text reads the backticks as a fence
    # a directive inside a list item (Sphinx's ``  .. seealso:: …``) is no sentence either
    listed = ("Modules\n=======\n\n* A *built-in* module is linked into the interpreter.\n\n"
              "  .. seealso:: :data:`sys.builtin_module_names` --- names of built-in modules.\n\n"
              "* A *shared* module is built as a shared library. " + "Filler words here. " * 20)
    assert not any("seealso" in block for _kind, block in compress._blocks(listed, rst=True))
    focus = compress.Focus.of("names of built-in modules", lambda terms: {t: 1.0 for t in terms})
    short = compress.shortened("sentences", listed, "Modules", "02_knowledge/ext.rst", SpanRef("v", "s", 0, len(listed), 120, 1, 8), focus)
    assert "seealso" not in short and "builtin_module_names" not in short
    assert any("seealso" in block for _kind, block in compress._blocks(listed))  # as Markdown it is text


def test_a_restructuredtext_quotes_titles_are_demoted_headings_not_fences():
    from oriongraph_cli.render.markdown import demote_headings

    quote = "Text before.\n\n=====\nTitle\n=====\n\nRegistering\n```````````\n\nBody.\n\n----\n\nAfter."
    out = demote_headings(quote, rst=True)
    assert out == "Text before.\n\n##### Title\n\n##### Registering\n\nBody.\n\n----\n\nAfter."
    assert "```" in demote_headings(quote)  # as Markdown it stays as written
    # a shortened quote writes the titles it keeps as # and ## lines: they are quoted titles too,
    # never a level-1 or level-2 heading beside the delivered document's own "## path" header
    short = "# Deploying\n\n[…] Run the job.\n\n## Publishing\n\n    # a comment in a literal block\n\n#. an enumerated item"
    assert demote_headings(short, rst=True) == (
        "##### Deploying\n\n[…] Run the job.\n\n##### Publishing\n\n    # a comment in a literal block\n\n#. an enumerated item")


def test_an_underlined_heading_is_kept_as_a_heading_when_shortened():
    text = "Retries\n=======\n\nThe worker retries three times. It waits.\n\nJitter\n------\n\nJitter spreads them. More.\n" + "Filler sentence. " * 30
    short = compress.COMPRESSORS["sentences"].shorten(text, None)
    assert short.startswith("# Retries\n\nThe worker retries three times.\n\n## Jitter\n\nJitter spreads them.")
    assert "=====" not in short and "-----" not in short


SPAN = ("## Retries\n\nThe worker retries three times. It waits in between. The backoff doubles each attempt.\n\n"
        "## Scaling\n\nWorkers scale with the queue depth. Jitter spreads the retries of many workers apart. "
        "Nothing else matters here.\n\n" + "Filler sentence about something else. " * 12)


def test_sentences_keep_what_matches_the_intent_in_document_order_with_elision_marks():
    focus = compress.Focus.of("jitter backoff for retries", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(SPAN, "Design", focus)
    # the matching sentences, not the first ones; each under its heading, in document order
    assert "The backoff doubles each attempt." in short and "Jitter spreads the retries of many workers apart." in short
    assert short.index("## Retries") < short.index("The backoff") < short.index("## Scaling") < short.index("Jitter")
    assert "[…] The backoff doubles" in short and "[…] Jitter spreads" in short  # text skipped before each
    assert "Filler" not in short and short.endswith(compress.TRIM_MARK)


def test_a_shortened_quote_never_cuts_an_inline_code_span():
    """A full stop inside `` `…` `` ends no sentence: the shortened quote keeps the code span
    whole or leaves it out, never "Puppet Server requires … RAM.`" with an unmatched backtick
    (GOV.UK's AWS guide; a renderer reads everything after it as code)."""
    span = ("## Build the Puppet Master\n\n> **Warning:** Try to keep the instance sizes consistent with production. "
            "You may see `Exception in thread main: Not enough RAM. Puppet Server requires at least 10904MB of RAM.` "
            "if you try to use too small an instance. Filler text about something else entirely. More filler here.\n")
    focus = compress.Focus.of("puppet server ram", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(span, "Guide", focus)
    assert "Puppet Server requires" in short and short.count("`") % 2 == 0, short
    assert "`Exception in thread main: Not enough RAM. Puppet Server requires at least 10904MB of RAM.`" in short
    assert compress.first_sentence("Run `a. B` now. Then stop.") == "Run `a. B` now."


def test_a_quotes_lazy_continuation_line_stays_in_its_paragraph():
    """A line without ">" that goes on with a quote's paragraph is the quote's (CommonMark's
    lazy continuation): "…used to communicate with" / "puppet. This relies on…" is one
    paragraph, not two with a blank line between (GOV.UK's AWS guide). A heading, a list item
    or a blank line ends the quote as before."""
    span = ("## Build\n\n> **Warning:** The puppet hostname is used to communicate with\npuppet. This relies on resolv.conf files.\n"
            "- a list item after it\n\nAfter the quote.\n")
    blocks = compress._blocks(span)
    assert ("para", "**Warning:** The puppet hostname is used to communicate with\npuppet. This relies on resolv.conf files.") in blocks
    assert ("para", "After the quote.") in blocks and not any(b == ("para", "puppet. This relies on resolv.conf files.") for b in blocks)


def test_rare_terms_weigh_more_and_no_match_falls_back_to_the_first_sentences():
    rare = compress.Focus.of("worker jitter", lambda terms: {t: (5.0 if t.startswith("jitter") else 0.1) for t in terms})
    assert "Jitter spreads" in compress.COMPRESSORS["heading"].shorten(SPAN, None, rare)
    assert compress.COMPRESSORS["heading"].shorten(SPAN, None, rare).startswith("## Scaling\n\n[…] Jitter")
    none = compress.Focus.of("kubernetes", lambda terms: {t: 1.0 for t in terms})
    assert compress.COMPRESSORS["sentences"].shorten(SPAN, None, none) == compress.COMPRESSORS["sentences"].shorten(SPAN, None)
    assert compress.COMPRESSORS["sentences"].shorten(SPAN, None).startswith("## Retries\n\nThe worker retries three times.")
    assert compress.Focus.of("the of and").weights == {}  # stop words only: nothing to match


def test_heading_form_and_pointer():
    text = "Some text before. And after.\n"
    assert compress.COMPRESSORS["heading"].shorten(text, "Design > Retries") == "**Retries**\n\nSome text before. […]"
    assert compress.COMPRESSORS["pointer"].shorten(text, None) == ""
    line = compress.pointer_text("Design > Retries", "a.md", "L3-L9", 120, "abc")
    assert line == "→ Design > Retries — a.md:L3-L9, 120 tokens not quoted: orion show abc"


def test_shorten_item_records_its_compression_and_backref():
    it = item("s1", 0, len(DOC), 1, lines=(1, 18))
    short = shorten_item(it, "sentences", get_counter("tiktoken").count)
    assert short.compression.level == "sentences" and short.compression.backref == "orion show s1"
    assert short.compression.tokens == get_counter("tiktoken").count(short.text) < 10 + 40
    pointer = shorten_item(it, "pointer", get_counter("tiktoken").count)
    assert pointer.text.endswith("orion show s1") and pointer.compression.level == "pointer"


# ---------------------------------------------------------------- packing


def cand(span_id, base, cost, path):
    return CandidateSpan(span_ref=SpanRef("v", span_id, 0, 10, cost), metadata=SpanMetadata(filepath=path, source_type=SourceType.KNOWLEDGE),
                         base_score=base, row=hash(span_id) % 10_000)


def test_a_span_that_does_not_fit_whole_enters_shortened_with_compression_and_is_dropped_without():
    cands = [cand("A", 1.0, 300, "a.md"), cand("B", 0.9, 300, "b.md")]
    sel = select(cands, 400, 1.0, 1.0)
    assert [p.candidate.span_ref.span_id for p in sel.picked] == ["A"]
    entries = [(p, None) for p in sel.picked]
    by_id = {c.span_ref.span_id: c for c in cands}
    short_cost = lambda c, level: {"sentences": 90, "heading": 30, "pointer": 20}[level]  # noqa: E731
    placed = pack(sel, entries, by_id, 400, 0, short_cost)
    assert [(p.candidate.span_ref.span_id, p.level) for p in placed] == [("A", None), ("B", "sentences")]
    assert placed[1].priority == "high" and any("enters shortened" in r for r in placed[1].candidate.reasons)
    off = pack(sel, entries, by_id, 400, 0, short_cost, enabled=False)
    assert [p.candidate.span_ref.span_id for p in off] == ["A"]


def test_a_weak_whole_span_is_shortened_when_that_lets_a_new_document_in():
    cands = [cand("A", 1.0, 200, "a.md"), cand("A2", 0.55, 200, "a.md"), cand("B", 0.9, 300, "b.md")]
    sel = select(cands, 400, 1.0, 1.0)
    assert [p.candidate.span_ref.span_id for p in sel.picked] == ["A", "A2"]
    by_id = {c.span_ref.span_id: c for c in cands}
    short_cost = lambda c, level: {"sentences": 60, "heading": 25, "pointer": 20}[level]  # noqa: E731
    placed = pack(sel, [(p, None) for p in sel.picked], by_id, 400, 0, short_cost)
    forms = {p.candidate.span_ref.span_id: p.level for p in placed}
    assert forms["A"] is None  # the first pick is critical: never shortened
    assert forms["A2"] == "sentences" and forms["B"] == "sentences"  # 0.9 × 0.6 gained > 0.55 × 0.4 lost
    # the leading document read whole keeps its spans whole: B waits instead
    whole = pack(sel, [(p, None) for p in sel.picked], by_id, 400, 0, short_cost, read_whole=frozenset({"a.md"}))
    assert [(p.candidate.span_ref.span_id, p.level) for p in whole] == [("A", None), ("A2", None)]


def test_the_best_candidate_enters_shortened_in_place_of_weaker_whole_picks_when_it_keeps_more_value():
    # the best span (300 tokens) does not fit in 200; selection took two weaker whole spans
    cands = [cand("A", 1.0, 300, "a.md"), cand("B", 0.5, 100, "b.md"), cand("C", 0.45, 100, "c.md")]
    sel = select(cands, 200, 1.0, 1.0)
    assert [p.candidate.span_ref.span_id for p in sel.picked] == ["B", "C"]
    by_id = {c.span_ref.span_id: c for c in cands}
    short_cost = lambda c, level: {"sentences": 90, "heading": 30, "pointer": 20}[level]  # noqa: E731
    # its shortened form keeps the sentences that answer the intent: 0.9 of its value > C's 0.45
    placed = pack(sel, [(p, None) for p in sel.picked], by_id, 200, 0, short_cost, keep_of=lambda c, level: 0.9)
    assert [(p.candidate.span_ref.span_id, p.level) for p in placed] == [("A", "sentences"), ("B", None)]
    assert placed[0].priority == "critical" and placed[1].priority != "critical"
    # a form that keeps little of it is not worth the whole span it would displace
    placed = pack(sel, [(p, None) for p in sel.picked], by_id, 200, 0, short_cost, keep_of=lambda c, level: 0.3)
    assert [p.candidate.span_ref.span_id for p in placed][:2] == ["B", "C"]


def test_a_strong_documents_passage_enters_shortened_before_a_weak_document_enters_whole():
    # selection stops while the strong document's next passage fits shortened; the packer
    # delivers it shortened, then spends what is left on the weak document in a form that fits
    from oriongraph_cli.assemble.pack import shortened_tokens

    cands = [cand("a1", 0.9, 100, "a.md"), cand("a2", 0.85, 150, "a.md"), cand("b1", 0.5, 80, "b.md")]
    by_id = {c.span_ref.span_id: c for c in cands}
    short_cost = lambda c, level: {"sentences": 60, "heading": 25, "pointer": 20}[level] * c.span_ref.token_cost // 150  # noqa: E731
    sel = select(cands, 200, 1.0, 1.0, doc_floor=0.7, shortened=shortened_tokens(short_cost))
    placed = pack(sel, [(p, None) for p in sel.picked], by_id, 200, 0, short_cost)
    assert [(p.candidate.span_ref.span_id, p.level) for p in placed] == [("a1", None), ("a2", "sentences"), ("b1", "sentences")]
    assert sum(p.cost for p in placed) == 100 + 60 + 32
    # a document the intent names is never shortened: the gate lifts and the weak one enters whole
    named = replace(by_id["a2"], metadata=replace(by_id["a2"].metadata, doc_id="ADR-0002"))
    sel = select([cands[0], named, cands[2]], 200, 1.0, 1.0, doc_floor=0.7,
                 shortened=shortened_tokens(short_cost, frozenset({"ADR-0002"})))
    assert [p.candidate.span_ref.span_id for p in sel.picked] == ["a1", "b1"]


def test_keep_share_follows_the_match_a_shortened_form_holds():
    focus = compress.Focus.of("jitter backoff", lambda terms: {t: 1.0 for t in terms})
    short = compress.COMPRESSORS["sentences"].shorten(SPAN, None, focus)
    assert compress.keep("sentences", SPAN, short, focus) == compress.FOCUS_KEEP  # every matching sentence kept
    assert compress.keep("sentences", SPAN, "Nothing else matters here.", focus) == compress.KEEP["sentences"]
    assert compress.keep("sentences", SPAN, short, compress.NO_FOCUS) == compress.KEEP["sentences"]
    assert compress.keep("pointer", SPAN, "", focus) == compress.KEEP["pointer"]


# ---------------------------------------------------------------- reading order


def test_layout_groups_by_document_in_document_order_and_merges_adjacent_spans():
    a = DOC.index("## Part A")
    b = DOC.index("## Part B")
    c = DOC.index("## Part C")
    items = [
        item("b", b, c, 1, lines=(9, 12)),
        item("other", 0, 5, 2, path="01_context/x.md", lines=(1, 1), text="other"),
        item("a", a, b, 3, lines=(5, 8)),
        item("t", 0, 7, 4, lines=(1, 1)),
    ]
    docs = layout(items, {"02_knowledge/d.md": DOC}, {"02_knowledge/d.md": "accepted"})
    assert [d.path for d in docs] == ["02_knowledge/d.md", "01_context/x.md"]  # by best rank
    d = docs[0]
    assert d.status == "accepted" and d.lines == "L1-L12"
    assert [[i.span_ref.span_id for i in q.items] for q in d.quotes] == [["t"], ["a", "b"]]  # a and b merged
    assert d.quotes[1].text == DOC[a:c] and d.quotes[1].lines == "L5-L12"
    assert d.quotes[1].elided_before == "L2-L4"  # the intro lines were skipped (no heading in them)


def test_gap_names_the_headings_skipped_and_nothing_for_blank_lines():
    a, b, c = DOC.index("## Part A"), DOC.index("## Part B"), DOC.index("## Part C")
    docs = layout([item("t", 0, 7, 1, lines=(1, 1)), item("c", c, len(DOC), 2, lines=(13, 15))], {"02_knowledge/d.md": DOC}, {})
    assert docs[0].quotes[1].elided_before == "L2-L12: Part A, Part B"
    touching = layout([item("a", a, b - 2, 1, lines=(5, 7)), item("b", b, c, 2, lines=(9, 12))], {"02_knowledge/d.md": DOC}, {})
    assert len(touching[0].quotes) == 1  # only a blank line between: one quote


def test_gap_names_the_headings_skipped_as_they_read():
    """A skipped heading is named as it reads rendered: a link or a site's component by its
    text, emphasis and an id written on it dropped, with or without code in the note."""
    doc = ("# Migration\n\nIntro.\n\n## Default Target [<Badge text=\"NRV\" type=\"warning\" />](#migration)\n\nText.\n\n"
           "## **Timeline** {#timeline}\n\nMore.\n\n## Rolldown\n\nLast.\n")
    last = doc.index("## Rolldown")
    for text in (doc, doc + "\n```sh\nmake\n```\n"):
        docs = layout([item("t", 0, doc.index("Intro.") + 6, 1, lines=(1, 3), text=text[: doc.index("Intro.") + 6]),
                       item("r", last, len(doc), 2, lines=(13, 15), text=text[last:])], {"02_knowledge/d.md": text}, {})
        assert docs[0].quotes[1].elided_before == "L4-L12: Default Target, Timeline"


def test_a_long_gap_names_the_headings_the_next_quote_lies_under():
    """Past three headings skipped, the gap names those that frame the next quote — each
    above the next in the outline, the nearest last — and counts the others, instead of
    the first two skipped, which say nothing about what follows."""
    log = "# Changelog\n\n" + "".join(
        f"## Version 1.{v}\n\n### Notable changes\n\nChange {v} in detail.\n\n### Commits\n\n* commit {v}\n\n" for v in range(6))
    first = log.index("Change 0")
    last = log.index("Change 5")
    docs = layout([item("a", first, first + 18, 1, lines=(7, 7)), item("b", last, last + 18, 2, lines=(57, 57))],
                  {"02_knowledge/d.md": log}, {})
    assert docs[0].quotes[1].elided_before == "L8-L56: 13 sections, then Version 1.5 › Notable changes"
    # a quote that begins with its own heading is not framed by the siblings before it
    own = log.index("### Commits", last)
    docs = layout([item("a", first, first + 18, 1, lines=(7, 7)), item("c", own, own + 22, 2, lines=(59, 61))],
                  {"02_knowledge/d.md": log}, {})
    assert docs[0].quotes[1].elided_before == "L8-L58: 14 sections, then Version 1.5"
    # one heading past those that frame the next quote: counted in the singular
    deep = "# Spec\n\nIntro.\n\n## Appendix\n\nA.\n\n## Design\n\n### Hooks\n\n#### Optional hooks\n\nThe hook text.\n"
    start, hook = deep.index("Intro."), deep.index("The hook text.")
    docs = layout([item("a", start, start + 6, 1, lines=(3, 3)), item("h", hook, len(deep), 2, lines=(15, 15))],
                  {"02_knowledge/d.md": deep}, {})
    assert docs[0].quotes[1].elided_before == "L4-L14: 1 section, then Design › Hooks › Optional hooks"
    # three or fewer skipped: all of them, those the next quote lies under after "then" where
    # it begins inside them (its text is not the section's before); with its own heading, all
    two = log.index("Change 1")
    docs = layout([item("a", first, first + 18, 1, lines=(7, 7)), item("d", two, two + 18, 2, lines=(17, 17))],
                  {"02_knowledge/d.md": log}, {})
    assert docs[0].quotes[1].elided_before == "L8-L16: Commits, then Version 1.1 › Notable changes"
    own2 = log.index("### Commits", two)
    docs = layout([item("a", first, first + 18, 1, lines=(7, 7)), item("e", own2, own2 + 22, 2, lines=(19, 21))],
                  {"02_knowledge/d.md": log}, {})
    assert docs[0].quotes[1].elided_before == "L8-L18: Commits, Version 1.1, Notable changes"
    # the states of a handbook: two skipped, the quote inside the third
    states = "# Leave\n\n## California\n\nCA text.\n\n## Colorado\n\nCO text.\n\n## Oregon\n\nIntro.\n\n* Safe leave.\n"
    ca, safe = states.index("CA text."), states.index("* Safe leave.")
    docs = layout([item("a", ca, ca + 8, 1, lines=(5, 5)), item("b", safe, len(states), 2, lines=(15, 15))],
                  {"02_knowledge/d.md": states}, {})
    assert docs[0].quotes[1].elided_before == "L6-L14: Colorado, then Oregon"


CODE_DOC = ("# Deploy\n\nIntro.\n\n```bash\n# step one\nrun --one\n# step two\nrun --two\n# step three\nrun --three\n```\n\n"
            "## Rollback\n\nRerun with the previous tag.\n")


def test_a_quote_from_inside_fenced_code_is_fenced_and_its_comments_stay_code():
    """A span cut out of a long code block carries the fence it lies in (its opening line,
    and the closing fence when it ends inside), so the delivered Markdown reads it as code:
    a ``# comment`` is not made a heading, and the documents after it are not swallowed."""
    from oriongraph_cli.render.markdown import demote_headings

    a, b = CODE_DOC.index("# step two"), CODE_DOC.index("run --two") + len("run --two")
    docs = layout([item("m", a, b, 1, lines=(8, 9), text=CODE_DOC[a:b])], {"02_knowledge/d.md": CODE_DOC}, {})
    quote = docs[0].quotes[0].text
    assert quote == "```bash\n# step two\nrun --two\n```"
    assert demote_headings(quote) == quote
    # the tail of the block: its own closing fence, no second one
    c = CODE_DOC.index("# step three")
    end = CODE_DOC.index("```\n\n## Rollback") + 3
    tail = layout([item("t", c, end, 1, lines=(10, 12), text=CODE_DOC[c:end])], {"02_knowledge/d.md": CODE_DOC}, {})
    assert tail[0].quotes[0].text == "```bash\n# step three\nrun --three\n```"
    # a fence inside a list item or a quote: the fence itself, not the marker it sits behind
    nested = "# N\n\n- step:\n  ```py\n  a = 1\n  b = 2\n  ```\n\n> ```sh\n> echo hi\n> echo ho\n> ```\n"
    for word, fenced in (("b = 2", "```py\nb = 2\n```"), ("echo ho", "```sh\necho ho\n```")):
        i = nested.index(word)
        got = layout([item("n", i, i + len(word), 1, text=word)], {"02_knowledge/d.md": nested}, {})
        assert got[0].quotes[0].text == fenced
    # front matter is not the note's Markdown: a fence line inside a YAML block opens nothing
    fm = "---\ntitle: T\nexample: |\n  ```\n  code\n---\n# T\n\nPlain text of the body.\n"
    p = fm.index("Plain")
    got = layout([item("f", p, p + 23, 1, text=fm[p : p + 23])], {"02_knowledge/d.md": fm}, {})
    assert got[0].quotes[0].text == "Plain text of the body."
    # a gap over the code names the section skipped, never a comment in the code
    r = CODE_DOC.index("Rerun")
    gap = layout([item("i", 0, CODE_DOC.index("Intro.") + 6, 1, lines=(1, 3)), item("r", r, len(CODE_DOC) - 1, 2, lines=(16, 16))],
                 {"02_knowledge/d.md": CODE_DOC}, {})
    assert gap[0].quotes[1].elided_before == "L4-L15: Rollback"


TABS_DOC = ("# Install\n\nPick your shell:\n\n=== \"Bash\"\n\n    ```bash\n    echo one >> ~/.bashrc\n    ```\n\n"
            "=== \"Elvish\"\n\n    ```bash\n    echo two >> ~/.elvish/rc.elv\n    echo three\n    ```\n\nThen restart it.\n")


def test_a_quote_of_an_indented_fence_keeps_its_indentation_and_no_fence_is_left_open():
    """An MkDocs tab's (or admonition's) code is a fence indented four spaces, its closing
    line too. A span that begins at such a fence, after its indentation, is delivered with
    the indentation, and one that begins inside it with the opening line as indented as its
    closing one: a fence opened at the margin would not be closed by it and would swallow
    the documents after it. Whatever the note, a quote never leaves a fence open."""
    from oriongraph_cli.blocks import read_blocks

    def never_open(text):
        shown = text + "\n\n## next/doc.md"
        return not read_blocks(shown, 0, plain=True).in_code(shown.rindex("## next"))

    a = TABS_DOC.index("```bash\n    echo two")
    b = TABS_DOC.index("Then restart it.") + len("Then restart it.")
    quote = layout([item("e", a, b, 1, lines=(12, 17), text=TABS_DOC[a:b])], {"02_knowledge/d.md": TABS_DOC}, {})[0].quotes[0].text
    assert quote == TABS_DOC[a - 4 : b] and never_open(quote)
    c = TABS_DOC.index("echo three")
    inside = layout([item("i", c, b, 1, text=TABS_DOC[c:b])], {"02_knowledge/d.md": TABS_DOC}, {})[0].quotes[0].text
    assert inside.startswith("    ```bash\n    echo three\n    ```") and never_open(inside)
    mid = layout([item("m", c, c + 10, 1, text="echo three")], {"02_knowledge/d.md": TABS_DOC}, {})[0].quotes[0].text
    assert mid == "    ```bash\n    echo three\n    ```" and never_open(mid)
    # code inside a fence at the margin keeps its own indentation, not a list item's
    py = "# F\n\n```py\ndef f():\n    return 1\n```\n\n- step:\n  ```py\n  if x:\n      y()\n  ```\n"
    r, y = py.index("return 1"), py.index("y()")
    assert layout([item("r", r, r + 8, 1, text="return 1")], {"02_knowledge/d.md": py}, {})[0].quotes[0].text == "```py\n    return 1\n```"
    assert layout([item("y", y, y + 3, 1, text="y()")], {"02_knowledge/d.md": py}, {})[0].quotes[0].text == "```py\n    y()\n```"
    # a note whose last fence is never closed: the quote of it closes it
    unclosed = "# Notes\n\nRun this:\n\n```sh\nmake all\n"
    u = unclosed.index("Run")
    got = layout([item("u", u, len(unclosed) - 1, 1, text=unclosed[u:-1])], {"02_knowledge/d.md": unclosed}, {})[0].quotes[0].text
    assert got == "Run this:\n\n```sh\nmake all\n```" and never_open(got)


TABLE_DOC = ("# Inputs\n\nThe module's inputs.\n\n| Name | Description | Default |\n|------|-------------|:-------:|\n"
             + "".join(f"| `input_{i}` | What input {i} sets | `{i}` |\n" for i in range(40)) + "\n## Outputs\n\nNone.\n")


def test_a_quote_from_among_a_tables_rows_gets_its_header():
    """A span cut out of a long table carries the table's header and delimiter rows, so its
    rows read as a table with their columns named; a quote that begins at the header, or
    outside any table, gets nothing; a shortened one is left as it is."""
    from oriongraph_cli.models import Compression

    a = TABLE_DOC.index("| `input_30`")
    b = TABLE_DOC.index("| `input_32`") - 1
    docs = layout([item("r", a, b, 1, lines=(37, 38), text=TABLE_DOC[a:b])], {"02_knowledge/d.md": TABLE_DOC}, {})
    assert docs[0].quotes[0].text == ("| Name | Description | Default |\n|------|-------------|:-------:|\n"
                                      "| `input_30` | What input 30 sets | `30` |\n| `input_31` | What input 31 sets | `31` |")
    assert docs[0].quotes[0].lines == "L37-L38"  # the rows quoted; the header comes with them
    h = TABLE_DOC.index("| Name")
    whole = layout([item("h", h, b, 1, text=TABLE_DOC[h:b])], {"02_knowledge/d.md": TABLE_DOC}, {})
    assert whole[0].quotes[0].text.count("| Name |") == 1
    o = TABLE_DOC.index("None.")
    assert layout([item("o", o, o + 5, 1, text="None.")], {"02_knowledge/d.md": TABLE_DOC}, {})[0].quotes[0].text == "None."
    short = item("s", a, b, 1, compression=Compression("sentences", 30, 10, "orion show s"), text="| `input_30` | … |")
    assert layout([short], {"02_knowledge/d.md": TABLE_DOC}, {})[0].quotes[0].text == "| `input_30` | … |"
    # in a list item, the header as written, behind its indentation
    nested = "# N\n\n- options:\n\n  | k | v |\n  | - | - |\n  | a | 1 |\n  | b | 2 |\n"
    i = nested.index("| b |")
    got = layout([item("n", i, i + 9, 1, text="| b | 2 |")], {"02_knowledge/d.md": nested}, {})
    assert got[0].quotes[0].text == "  | k | v |\n  | - | - |\n| b | 2 |"


def test_shortened_and_stale_spans_are_never_merged():
    a, b, c = DOC.index("## Part A"), DOC.index("## Part B"), DOC.index("## Part C")
    from oriongraph_cli.models import Compression

    short = item("b", b, c, 2, lines=(9, 12), compression=Compression("sentences", 10, 4, "orion show b"), text="Beta first. […]")
    docs = layout([item("a", a, b, 1, lines=(5, 8)), short], {"02_knowledge/d.md": DOC}, {})
    assert len(docs[0].quotes) == 2 and docs[0].quotes[1].compression.level == "sentences"


def test_relative_links_are_rewritten_from_the_project_root():
    text = ("See [ADR](../99_decisions/ADR-0007.md#decision), [web](https://x.org/a.md), [here](#part), "
            "[abs](/etc/passwd), [out](../../../../x.md) and ![img](img/a.png \"t\").\n\n[ref]: ./notes.md\n")
    out = rewrite_links(text, "03_workstreams/ws-a/design/worker.md")
    assert "[ADR](03_workstreams/ws-a/99_decisions/ADR-0007.md#decision)" in out
    assert "[web](https://x.org/a.md)" in out and "[here](#part)" in out and "[abs](/etc/passwd)" in out
    assert "[out](../../../../x.md)" in out  # leaves the root: kept as written
    assert '![img](03_workstreams/ws-a/design/img/a.png "t")' in out
    assert "[ref]: 03_workstreams/ws-a/design/notes.md" in out
    # a target no file could have is no link the index reads: kept as written, not made a path
    out = rewrite_links("A [page bundle](g), [M + K](+) and [the plan](plan) and [notes](notes/).\n", "02_knowledge/hugo/templates/shortcode.md")
    assert "[page bundle](g)" in out and "[M + K](+)" in out and "[the plan](plan)" in out
    assert "[notes](02_knowledge/hugo/templates/notes)" in out  # a separator: joined as before



def test_a_link_the_index_resolved_names_the_document_it_resolved_to():
    """A site URL or a path with ``.md`` implied names the indexed page, anchor kept; a link
    the index could not resolve is joined to the folder as before; anchors stay."""
    text = ("[cache](/manual/purge-cache.html#assets), [again](purge-cache.html), [adr](../99_decisions/ADR-0007), "
            "[gone](../design/gone.md), [here](#part) and [web](https://x.org/a.html).\n\n[ref]: /manual/dns.html\n")
    resolved = {
        "/manual/purge-cache.html#assets": "02_knowledge/ops/purge-cache.md",
        "purge-cache.html": "02_knowledge/ops/purge-cache.md",
        "../99_decisions/ADR-0007": "03_workstreams/ws-a/99_decisions/ADR-0007.md",
        "/manual/dns.html": "02_knowledge/ops/dns.md",
    }
    out = rewrite_links(text, "03_workstreams/ws-a/design/worker.md", resolved)
    assert "[cache](02_knowledge/ops/purge-cache.md#assets)" in out and "[again](02_knowledge/ops/purge-cache.md)" in out
    assert "[adr](03_workstreams/ws-a/99_decisions/ADR-0007.md)" in out
    assert "[gone](03_workstreams/ws-a/design/gone.md)" in out  # not resolved: joined to the folder
    assert "[here](#part)" in out and "[web](https://x.org/a.html)" in out
    assert "[ref]: 02_knowledge/ops/dns.md" in out
    assert rewrite_links(text, "03_workstreams/ws-a/design/worker.md").count("/manual/") == 2  # without the index: as before


def test_a_doxygen_reference_as_a_link_names_the_page_the_index_resolved_in_a_quote():
    """``[ADR 25](@ref adr_0025)`` names the page the index resolved the name to; one the
    index did not resolve, and a bare ``@ref`` in prose, stay as written."""
    adr = "02_knowledge/wb/adr/0025-modules.md"
    text = "Per [ADR 25](@ref adr_0025), [the class](@ref Foo\\Bar) and [gone](@ref nowhere); see @ref adr_0025 too."
    out = rewrite_links(text, "02_knowledge/wb/topics/controllers.md", {"@ref adr_0025": adr})
    assert out == f"Per [ADR 25]({adr}), [the class](@ref Foo\\Bar) and [gone](@ref nowhere); see @ref adr_0025 too."
    assert rewrite_links(text, "02_knowledge/wb/topics/controllers.md") == text


def test_a_sphinx_doc_reference_the_index_resolved_names_the_page_in_a_quote():
    """``:doc:`` and MyST's ``{doc}`` name the page the index resolved them to, a title kept;
    a ``:ref:`` label and a ``:pep:`` number are names and stay (naming the file cost tokens);
    so does a ``:doc:`` the index did not resolve, another project's (intersphinx) and one in code."""
    guide = "02_knowledge/pk/guides/installing.rst"
    resolved = {":doc:`../guides/installing`": guide, ":ref:`venv-label`": guide, ":pep:`8`": "02_knowledge/pk/peps/pep-0008.rst",
                ":doc:`/guides/installing`": guide}  # MyST's {doc} is kept as :doc: is
    text = ("See :doc:`../guides/installing`, :doc:`Installing <../guides/installing>`, "
            ":doc:`~../guides/installing`, :ref:`venv-label`, :ref:`virtual envs <venv-label>`, "
            ":pep:`8`, {doc}`/guides/installing`, :doc:`gone`, :doc:`python:tutorial/venv` and ``:doc:`../guides/installing```.")
    out = rewrite_links(text, "02_knowledge/pk/tutorials/start.rst", resolved)
    assert out == (f"See :doc:`{guide}`, :doc:`Installing <{guide}>`, :doc:`{guide}`, :ref:`venv-label`, "
                   f":ref:`virtual envs <venv-label>`, :pep:`8`, {{doc}}`{guide}`, :doc:`gone`, "
                   ":doc:`python:tutorial/venv` and ``:doc:`../guides/installing```.")
    assert rewrite_links(text, "02_knowledge/pk/tutorials/start.rst") == text

def test_a_site_templates_link_the_index_resolved_names_the_page_in_a_quote():
    """A link written as a site template (any one-argument tag, ``{{ site.baseurl }}``, a
    ``relative_url`` filter, Hugo's ``ref``) names the page the index resolved it to, its
    anchor kept; one the index did not resolve is left as written."""
    text = ('[faq]({% page "/travel/faq/#book-lodging" %}), [again]({{ site.baseurl }}/travel/faq/), '
            "[filter]({{ '/travel/faq/' | relative_url }}), [hugo]({{< ref \"faq.md\" >}}), [bare]({{<ref faq.md>}}), "
            '[gone]({% page "/nowhere/" %}) and [web]({% link "https://x.org" %}).')
    faq = "02_knowledge/handbook/travel/faq.md"
    resolved = {"/travel/faq/#book-lodging": faq, "/travel/faq/": faq, "faq.md": faq}
    out = rewrite_links(text, "02_knowledge/handbook/travel/book.md", resolved)
    assert f"[faq]({faq}#book-lodging)" in out and f"[again]({faq})" in out
    assert f"[filter]({faq})" in out and f"[hugo]({faq})" in out and f"[bare]({faq})" in out
    assert '[gone]({% page "/nowhere/" %})' in out and '[web]({% link "https://x.org" %})' in out
    assert rewrite_links(text, "02_knowledge/handbook/travel/book.md") == text  # without the index: as written


def test_each_priority_allows_its_levels_mildest_first():
    """pack._best_swap passes over a waiting candidate whose mildest allowed level cannot beat
    the best gain: that holds only while KEEP falls along every ALLOWED tuple."""
    for levels in compress.ALLOWED.values():
        keeps = [compress.KEEP[level] for level in levels]
        assert keeps == sorted(keeps, reverse=True)
