"""The Rust RFCs as an OrionFS project tree, for judging orion on a large body of long
design documents written by many authors over ten years, with amendment series.

    git clone https://github.com/rust-lang/rfcs /tmp/src/rfcs
    git -C /tmp/src/rfcs checkout 354518a8c9025f40be6f730452c1bfe71a12dc22
    python bench/suite/build_rfcs.py /tmp/src/rfcs --out /tmp/suite/rfcs

Source: ``text/NNNN-name.md`` of rust-lang/rfcs at commit
354518a8c9025f40be6f730452c1bfe71a12dc22 (only the top level of ``text/``: the translations
and appendices in sub-folders are left out). Files whose text has under 100 words (a
"moved to ..." stub) are skipped. Each RFC opens with a header list (``- Feature Name:``,
``- Start Date:``, ``- RFC PR:``, ``- Rust Issue:``, with many spelling variants); Feature
Name and Start Date are read from it and the list is kept in the body. A leading title line
(a ``#``/``##`` heading or a bare line before the header list, or a ``title:`` in a YAML
block, which is dropped) gives the title; otherwise the title is the file name with its
dashes turned into spaces. The body is otherwise kept as written (it is Markdown) and starts
with a ``# RFC NNNN: Title`` heading.

Mapping: governance and process RFCs (the RFC process, teams, moderation, leadership,
roadmaps, project goals, editions, release and policy documents; matched on the file name
and title) -> ``01_context/process/`` (stage requirements). Every other RFC ->
``03_workstreams/<workstream>/`` (stage design), where the workstream is the area whose
keywords score highest: a keyword found in the file name, feature name or title counts 3, in
the Summary section 1 (at most 3 per keyword group). Areas: ``lang-types`` (traits,
generics, lifetimes, borrowing, const, async), ``lang-syntax`` (expressions, patterns,
macros, modules, attributes, literals), ``lang-unsafe`` (unsafe code, FFI, ABI, layout,
assembly, SIMD, atomics, memory model), ``libs`` (the standard library), ``cargo`` (Cargo,
crates.io, registries), ``compiler`` (rustc internals, lints, diagnostics, targets,
linking), ``tools`` (rustdoc, rustfmt and the style guide, clippy, IDEs, test harness).
Ties go to the area listed first. File names are ``rfc-NNNN-name.md`` from the original
file name (lower-cased, stem at most 60 characters).

Front matter: title (``RFC 2094: Nll``), id (``RFC-2094``), stage, workstream
(03_workstreams only), status (accepted: the repository holds merged RFCs only), date
(Start Date, when it parses), supersedes (only from sentences where the RFC itself says
"this RFC supersedes / replaces / is intended to supersede RFC NNN"), superseded_by (from
"this RFC has been/was superseded by RFC NNN"), tags ([rfc, <area>, <keyword groups found
in the file name, feature name or title>]). Only RFC numbers present in the tree are kept
in supersedes/superseded_by.

``bench/suite/rfcs.intents.jsonl`` holds 45 graded developer intents for this tree, judged
by reading the documents.
"""

from __future__ import annotations

import argparse
import re
import shutil
from collections import Counter
from datetime import date
from pathlib import Path

COMMIT = "354518a8c9025f40be6f730452c1bfe71a12dc22"
MIN_WORDS = 100
MAX_STEM = 60

# ---------------------------------------------------------------------------- process
# Governance / process RFCs, matched on "<file name> <title>" (lower-cased).
_PROCESS = re.compile(
    r"rfc-process|governance|roadmap|project-goals|project goals|project-groups|leadership|council"
    r"|moderation|north-star|[-\s]teams?\b|\bteams?-|\bt-opsem|\bt-test|license-rfcs|define-rfc-scope"
    r"|rfc-scope|prior-art|future-possibilities|bug-fix-procedure|major-change-process|major change"
    r"|crate-ownership|github-access|release-channels|epochs|edition-20\d\d|maintainer-fund"
    r"|foundation|nursery-deprecation|rust-lang-crates|rust-spec|tier-policy|rfc-template"
)

# ---------------------------------------------------------------------------- areas
# Ties go to the area listed first.
AREAS = ["lang-types", "lang-syntax", "lang-unsafe", "libs", "cargo", "compiler", "tools"]
# Strong file-name keywords: a hit in "<file name> <feature name> <title>" counts STRONG.
STRONG = 6
NAME_KEYS: list[tuple[str, str]] = [
    ("tools", r"rustdoc|rustfmt|clippy|style-guide|style-evolution|style-rfcs|rust-analyzer|libtest|\bide\b"
     r"|bookshelf|debugger|test-frameworks|external-doc|doc-default-urls|browser-support|document.all.features"
     r"|api-documentation|api-comment"),
    ("cargo", r"cargo|cratesio|registr(?:y|ies)|manifest|buildstd|workspace|lockfile|publish"
     r"|\bmsrv|min-rust-version|dependenc|features\b|feature-metadata|feature-unification|authors-field"
     r"|trim-paths|packages-as|build-target|sparse-index|source.replacement|crate-transfer|crate-deletion"
     r"|hyphens"),
    ("lang-unsafe", r"unsafe|\bffi|-ffi|\babi\b|-abi\b|extern|\brepr\b|repr-|unions?\b|intrinsic|asm\b|naked"
     r"|simd|atomic|volatile|unaligned|aligned|repr-align|provenance|transmute|\bpin\b|pinned|allocator|uninit"
     r"|dangling|raw-reference|raw-pointer|unsafe-pointer|ptr-meta|c-void|c_void|variadic|target-feature"
     r"|isa-attribute|struct-layout|unwind|compare-and-swap|compiler-fence"),
    ("compiler", r"lints?\b|-lint-|diagnostic|error-codes|rustc-errors|-to-tier|\btier\d|target-spec|mangling|incremental"
     r"|^mir\b|^hir\b|patchable|mitigation|target-modifiers|export-|dylib|dllimport|crt-static"
     r"|link-modifiers|windows-subsystem|prefer-dynamic|demote-|-to-tier|optimize-attr|inline-semantic"
     r"|\bused\b|crate-attr|do-not-recommend|register-tool|deprecat|nonlocal-definitions|must-not-suspend"),
    ("lang-syntax", r"macro|syntax|pattern|\bpats\b|if-let|while-let|let-else|\bmatch|guard|keyword|literal"
     r"|prefix|idents?\b|identifiers|lexing|lexical|grammar|precedence|label|loop|break|become|ascription"
     r"|attribute|attrs\b|\bcfg|module|\bmod\b|\buse\b|use-|prelude|privacy|priv\b|private|pub-|visibility"
     r"|name-resolution|path-clarity|namespac|field|struct|enum|variant|tuple|destructuring|derive|deriving"
     r"|expr\b|try-expr|try-blocks|range|dotdot|reserved|unreserv|shadowing|tilde|box|placement|frontmatter"
     r"|guarded-strings|question|ques-"),
    ("lang-types", r"trait|\bimpls?\b|impl-|-impl\b|coherence|speciali[sz]|object-safe|object-safety|\bdyn\b|-dyn\b|associated"
     r"|generic|where|bound|lifetime|borrow|outlives|dropck|drop-order|drop-types|generic-drop"
     r"|dynamic-drop|nll|elision|variance|coercion|subtyping"
     r"|inference|fallback|sized|\bdst\b|-dst|bang-type|never|uninhabited|existential|type-alias|const"
     r"|promotion|async|await|future|coroutine|\bgen-|closure|capture|self-types|self-impl|upcasting"
     r"|ufcs|type-id|static|method-calls|return-type|\bfinal\b|refined|temporary|\bop-assign|index-traits"),
    ("libs", r"\bstd\b|std-|libstd|liballoc|\balloc\b|collections?|\bstr\b|str-|string|slice|iter|\bio\b|io-"
     r"|-fs|\bnet|socket|thread|process|os-str|osstring|-os\b|duration|time-|fmt|format|\boption\b|result"
     r"|\berrors?\b(?!-code)"
     r"|\bnum\b|num-|float|f16|int128|nonzero|integer|clamp|euclidean|complex|cell\b|refcell|movecell|\brc\b"
     r"|lazy|once|cursor|linked-list|entry|drain|sort|hash|ascii|unicode|line-endings|open-options|libc"
     r"|regex|panic|assert|dbg|eprintln|black-box|read-|conversion|convert|try-from|clones|ipv6|stdout|exit"
     r"|main-reexport|runtime|needle|splitn|words|split-at|symlink|connect|set-recovery|contains|filter"
     r"|\breplace\b|mem-forget|manually-drop|^discriminant|dyno|tls|cmp|show|debug|\bcopy-clone|try-borrow"
     r"|map-or-default|next-up|is-sorted|cell-methods|spawn-hook|struct-traits"),
]
_NAME_RX = [(area, re.compile(rx, re.IGNORECASE)) for area, rx in NAME_KEYS]
# Keyword groups (area, tag, regex), matched on the name (3 a hit, and giving the tag) and on
# the Summary section (1 a hit, at most 2 per group): code-like words, few plain English ones.
TOPICS: list[tuple[str, str, str]] = [
    ("cargo", "cargo", r"\bcargo\b|crates\.io|crates-io|\bregistr(?:y|ies)\b|cargo\.toml|\bmanifest\b"
     r"|lockfile|cargo\.lock|\bworkspaces?\b|\bpublish(?:ing)?\b"),
    ("cargo", "build", r"build[- ]scripts?|build-std|\bprofiles?\b|dependenc(?:y|ies)|\bmsrv\b|rust-version"),
    ("tools", "rustdoc", r"rustdoc|intra-doc|doc comments?|\bdoc\(|doc_cfg|documentation"),
    ("tools", "style", r"rustfmt|style[- ]guide|formatting style"),
    ("tools", "tooling", r"clippy|rust-analyzer|\bide\b|\brls\b|debugger|libtest|test[- ]frameworks?|rustup"),
    ("compiler", "compiler", r"\bcompiler\b|\brustc\b|\bmir\b|\bhir\b|incremental|codegen|\bllvm\b"
     r"|mangling|debuginfo|sanitiz|mitigation|optimi[sz]"),
    ("compiler", "lints", r"\blints?\b|diagnostics?|error messages?|error codes?|warn-by-default|deny-by-default"
     r"|deprecat|#\[must_use"),
    ("compiler", "targets", r"\btarget triples?\b|\btier[- ]?\d|\btier\b|linker|\blinking\b|\bdylib|cdylib"
     r"|crt-static|\bdll\b|raw-dylib"),
    ("lang-unsafe", "unsafe", r"\bunsafe\b|undefined behaviou?r|\bsoundness\b|transmute|\buninit|maybeuninit"
     r"|dangling|provenance|memory model|\bopsem\b|\bpin\b|\bpinned\b"),
    ("lang-unsafe", "ffi", r"\bffi\b|\bextern\b|\babi\b|c-unwind|unwind|variadic|c_void|\bcstr\b|\bnaked\b"
     r"|\bno_std\b"),
    ("lang-unsafe", "layout", r"#\[repr|\brepr\b|\blayout\b|\balignment\b|\bpacked\b|\bunions?\b|\bvolatile\b"
     r"|\batomics?\b|intrinsics?|\basm!|inline assembly|\bsimd\b|target_feature|raw pointers?|\*const|\*mut"
     r"|allocators?\b"),
    ("lang-types", "traits", r"\btraits?\b|\bimpls?\b|\bcoherence\b|orphan rules?|speciali[sz]ation"
     r"|object[- ]saf|\bdyn\b|trait objects?|impl trait|associated (?:types?|items?|consts?|constants?)"
     r"|supertraits?|auto traits?|marker traits?|\bsized\b|unsized|\bdst\b|upcast"),
    ("lang-types", "generics", r"\bgenerics?\b|where[- ]clauses?|trait bounds?|type param(?:eter)?s?"
     r"|const[- ]generics?|\btype system\b|type inference|\bvariance\b|subtyping|coercions?\b|never type"
     r"|uninhabited|type alias(?:es)?|existential|higher[- ]ranked"),
    ("lang-types", "lifetimes", r"lifetimes?\b|borrow[- ]?check(?:er)?|\bborrowck\b|\boutlives\b|dropck"
     r"|drop[- ]check|\bnll\b|elision|\bregions?\b|implied bounds"),
    ("lang-types", "const", r"\bconst fn\b|\bconst eval|\bconstant evaluation|compile[- ]time evaluation"
     r"|\bconst contexts?\b|\bpromotion\b"),
    ("lang-types", "async", r"\basync\b|\bawait\b|\.await|\bfutures?\b|coroutines?|generators?"),
    ("lang-types", "closures", r"\bclosures?\b|\bfn(?:mut|once)?\b traits?|\bself types?\b"),
    ("lang-syntax", "macros", r"\bmacros?\b|macro_rules|proc[- _]macros?|#\[derive|\bderive\b|\bplugins?\b"),
    ("lang-syntax", "patterns", r"\bpatterns?\b|\bmatch\b|\bif let\b|while let|let[- ]else|\bguards?\b"
     r"|destructur|or-patterns|exhaustive"),
    ("lang-syntax", "syntax", r"\bsyntax\b|\bgrammar\b|\blexer\b|\blexical\b|\bkeywords?\b|\bliterals?\b"
     r"|\bidentifiers?\b|\boperators?\b|\bprecedence\b|\bexpressions?\b|\blabels?\b|\bascription\b"
     r"|struct update|\btuple structs?\b|\benums?\b|\bvariants?\b|\bshadowing\b"),
    ("lang-syntax", "modules", r"\bmodules?\b|\bmod\b|\buse\b declarations?|\bimports?\b|\bpaths?\b"
     r"|\bvisibility\b|\bprivacy\b|\bpub\b|\bprelude\b|name resolution|namespac|\battributes?\b|\bcfg\b"
     r"|feature[- ]gates?|\beditions?\b"),
    ("libs", "std", r"\bstd\b|\blibstd\b|standard library|\blibcore\b|liballoc|\bstd::|core::|alloc::"
     r"|stabiliz|conventions"),
    ("libs", "collections", r"collections?\b|\bvec\b|\bvec<|hashmap|btreemap|\bstrings?\b|\bstr\b|&str"
     r"|\bslices?\b|\biterators?\b|\biter\(|\bascii\b|unicode"),
    ("libs", "io", r"\bio\b|\bio::|\bfs::|\bnet::|sockets?\b|\btcp|\budp|\bipv[46]|process::|\bstdout\b"
     r"|\bstdin\b|\bstderr\b|\benv::|\bos::|osstr|osstring|\bfile(?:system)?\b|\bduration\b|\bthreads?\b"
     r"|thread_local|\bmutex|refcell|\bcell<|\brc<|\barc<"),
    ("libs", "types", r"\boption\b|option<|\bresult\b|result<|\bfmt\b|fmt::|format!|\bdisplay\b|\bdebug\b"
     r"|\bintegers?\b|\bfloats?\b|\bf16\b|\bf128\b|\bi128\b|nonzero|\bclamp\b|\bpartialord\b|\bpartialeq\b"
     r"|\bops::|\btryfrom\b|\binto<|\bfrom<|\bpanic!?|\bpanics\b|assert!|\bassert_|\bdbg!|\beprintln!"
     r"|\bmem::|\berror trait\b"),
]
_TOPIC_RX = [(area, tag, re.compile(rx, re.IGNORECASE)) for area, tag, rx in TOPICS]

_HEADER_ITEM = re.compile(r"^\s*q?[-*]\s*([A-Za-z][A-Za-z #.-]*?)\s*:\s*(.*?)\s*$")
_SECTION_NAMES = {"summary", "motivation", "detailed design", "guide-level explanation", "drawbacks",
                  "alternatives", "unresolved questions", "background", "overview", "introduction"}
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NONE_VALUES = {"", "n/a", "na", "none", "not applicable", "-", "tbd"}
ACRONYMS = {"abi", "api", "asm", "ascii", "cfg", "ffi", "fmt", "fru", "gc", "hir", "ide", "io", "ipv6",
            "isa", "json", "llvm", "mir", "msrv", "nll", "os", "rfc", "rfcs", "simd", "std", "tls", "ufcs",
            "ub", "utf8", "dst", "cli", "ci", "crt", "rtn", "tcp", "udp", "es6"}

# "RFC 1808", "RFC #1859", "[RFC 2052]", "[RFC 192](url)", "[RFC 1974][]": a bracketed reference is
# resolved through its link (an RFC's number in its link wins over the number in its text).
SPECIAL_CASE = {"rfcs": "RFCs", "utf8": "UTF-8"}

_RFC_REF = (r"(?P<open>\[)?(?P<label>RFC[ -]?#?\s*(?P<num>\d{1,4})[^\]\[]{0,60}?)"
            r"(?(open)\](?:\((?P<url>[^)\s]+)\)|\[(?P<ref>[^\]]*)\])?)")
_LINK_DEF = re.compile(r"^\s*\[([^\]]+)\]:\s*(\S+)", re.MULTILINE)
# "this RFC supersedes [RFC 2052]", "It supersedes [RFC 2052]", "This section supersedes [RFC 192]",
# "This updates and supersedes ... [RFC 1522] and [RFC 1951]", "Note: this supersedes [RFC 1977]",
# "Replace [RFC #1859 ...]" (a summary's opening verb), "RFC #1808, which this is intended to supersede".
_SUPERSEDES_SENT = re.compile(
    r"^(?:\W*note:\W*)?(?:this|it)\b(?:\s+(?:rfc|section|proposal|document))?\s+(?:(?:updates|amends)\s+and\s+)?"
    r"(?:supersedes|replaces|obsoletes)\b|^replace\s+\[?rfc",
    re.IGNORECASE,
)
_SUPERSEDES_REL = re.compile(_RFC_REF + r"[^.]{0,40}?,?\s*which\s+this(?:\s+rfc)?\s+is\s+intended\s+to\s+(?:supersede|replace)",
                             re.IGNORECASE)
_SUPERSEDED_BY = re.compile(
    r"\bthis\s+rfc\s+(?:has\s+been|was|is)\s+superseded\s+by\s+" + _RFC_REF, re.IGNORECASE)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def yaml_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def file_stem(stem: str) -> str:
    """``rfc-`` + the original stem, lower-cased, cut at a dash to at most MAX_STEM chars."""
    out = "rfc-" + re.sub(r"[^a-z0-9.]+", "-", stem.lower()).strip("-")
    while len(out) > MAX_STEM and "-" in out[5:]:
        out = out.rsplit("-", 1)[0]
    return out[:MAX_STEM]


def humanize(name: str) -> str:
    words = [w for w in re.split(r"[-_\s]+", name) if w]
    out = [SPECIAL_CASE.get(w.lower(), w.upper()) if w.lower() in ACRONYMS else w for w in words]
    text = " ".join(out)
    return text[:1].upper() + text[1:]


def parse_date(value: str) -> str | None:
    m = re.search(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})", value or "")
    if m:
        y, mo, d = (int(x) for x in m.groups())
    else:
        m = re.search(r"(\d{1,2})-(\d{1,2})-(\d{4})", value or "")
        if not m:
            return None
        d, mo, y = (int(x) for x in m.groups())
    try:
        return date(y, mo, d).isoformat()
    except ValueError:
        return None


def parse_rfc(raw: str) -> tuple[dict[str, str], str, str]:
    """(header fields, leading title or "", body without the YAML block / title line)."""
    text = raw.lstrip("\ufeff").replace("\r\n", "\n")
    title = ""
    lines = text.split("\n")
    # A YAML block at the very top (one RFC has ``title:`` in one): read and drop it.
    if lines and lines[0].strip() == "---":
        for j in range(1, min(len(lines), 30)):
            if lines[j].strip() == "---":
                for ln in lines[1:j]:
                    m = re.match(r"^title:\s*(.*)$", ln.strip())
                    if m:
                        title = m.group(1).strip().strip("'\"")
                lines = lines[j + 1:]
                break
    # The first content line (skipping blank lines and HTML comments) may be a title line.
    i, in_comment = 0, False
    while i < len(lines):
        s = lines[i].strip()
        if in_comment:
            in_comment = "-->" not in s
        elif s.startswith("<!--"):
            in_comment = "-->" not in s
        elif s:
            break
        i += 1
    if i < len(lines):
        s = lines[i].strip()
        h = _HEADING.match(s)
        if h and h.group(2).strip().lower() not in _SECTION_NAMES:
            title = title or h.group(2).strip()
            del lines[i]
        elif not h and not _HEADER_ITEM.match(s) and not s.startswith(("-", "*", "[", "`")) and len(s) < 120:
            nxt = next((ln for ln in lines[i + 1:i + 6] if ln.strip()), "")
            if _HEADER_ITEM.match(nxt):
                title = title or s
                del lines[i]
    # Header list: "- Key: value" lines near the top, before the first section heading.
    headers: dict[str, str] = {}
    for ln in lines[:40]:
        if _HEADING.match(ln.strip()):
            break
        m = _HEADER_ITEM.match(ln)
        if m:
            key = re.sub(r"[^a-z]+", " ", m.group(1).lower()).strip()
            key = {"features name": "feature name", "feature names": "feature name"}.get(key, key)
            headers.setdefault(key, m.group(2).strip())
    title = re.sub(r"^rfc\s*:\s*", "", title, flags=re.IGNORECASE)
    title = re.sub(r"\s+rfc$", "", title, flags=re.IGNORECASE).strip()
    return headers, title, "\n".join(lines).strip("\n") + "\n"


def summary_text(body: str) -> str:
    """The Summary section (up to the next heading), else the first 800 characters."""
    m = re.search(r"^#{1,6}\s*summary\s*$(.*?)(?=^#{1,6}\s)", body, re.IGNORECASE | re.MULTILINE | re.DOTALL)
    text = m.group(1) if m else body[:800]
    return text[:2000]


DECISIVE = ("tools", "cargo", "lang-unsafe", "compiler")


def classify(name_text: str, summary: str) -> tuple[str, list[str]]:
    """(area, tags). The name ("<file name> <feature name> <title>", crates.io/build-std
    folded to one word) decides when it holds a strong keyword of tools, cargo, lang-unsafe
    or compiler (checked in that order); otherwise each area scores STRONG per strong name
    keyword, 3 per keyword-group hit in the name and 1 per hit in the Summary (at most 2 per
    group), and the best score wins."""
    name_text = re.sub(r"crates[-. ]?io", "cratesio", name_text.replace("_", "-"))
    name_text = re.sub(r"build[-_ ]std", "buildstd", name_text)
    scores: Counter[str] = Counter()
    tags: list[str] = []
    decided = ""
    for area, rx in _NAME_RX:
        hits = len(rx.findall(name_text))
        if hits and area in DECISIVE and not decided:
            decided = area
        scores[area] += STRONG * hits
    for area, tag, rx in _TOPIC_RX:
        n_name = len(rx.findall(name_text))
        if n_name:
            tags.append(tag)
        scores[area] += 3 * n_name + min(2, len(rx.findall(summary)))
    best = decided or max(AREAS, key=lambda a: (scores[a], -AREAS.index(a)))
    return best, tags


def _ref_number(m: re.Match[str], defs: dict[str, str]) -> int:
    url = m.group("url")
    if not url and m.group("open"):
        label = (m.group("ref") or m.group("label")).strip().lower()
        url = defs.get(label) or defs.get(m.group("label").strip().lower())
    hit = re.search(r"/(\d{4})-[A-Za-z0-9_.-]+", url or "")
    return int(hit.group(1)) if hit else int(m.group("num"))


def supersession(body: str, number: int) -> tuple[list[int], list[int]]:
    """(supersedes, superseded_by) from sentences in which this RFC says so."""
    defs = {k.strip().lower(): v for k, v in _LINK_DEF.findall(body)}
    sentences = [s for para in re.split(r"\n[ \t]*\n", body)
                 for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*\[])", " ".join(para.split()))]
    sup: list[int] = []
    by: list[int] = []
    for s in sentences:
        m = _SUPERSEDES_SENT.search(s)
        if m:
            sup += [_ref_number(r, defs) for r in re.finditer(_RFC_REF, s[m.start():], re.IGNORECASE)]
        for m in _SUPERSEDES_REL.finditer(s):
            sup.append(_ref_number(m, defs))
        for m in _SUPERSEDED_BY.finditer(s):
            if "partially" not in s[max(0, m.start() - 5):m.end()].lower():
                by.append(_ref_number(m, defs))
    clean = lambda xs: sorted({x for x in xs if x != number})  # noqa: E731
    return clean(sup), clean(by)


def build(src: Path, dest: Path) -> tuple[int, Counter[str]]:
    if dest.exists():
        shutil.rmtree(dest)
    docs = []
    for path in sorted((src / "text").glob("*.md")):
        m = re.match(r"^(\d+)-(.+)$", path.stem)
        if not m or not path.is_file():
            continue
        raw = path.read_text(encoding="utf-8")
        if len(raw.split()) < MIN_WORDS:
            continue
        number, name = int(m.group(1)), m.group(2)
        headers, lead_title, body = parse_rfc(raw)
        feature = headers.get("feature name", "").strip("` ")
        if feature.lower() in _NONE_VALUES or re.match(r"(?:n/?a|none|not applicable)\b", feature.lower()):
            feature = ""
        title = lead_title or humanize(name)
        docs.append((number, path.stem, name, headers, title, feature, body))
    present = {d[0] for d in docs}
    seen: set[str] = set()
    counts: Counter[str] = Counter()
    for number, stem, name, headers, title, feature, body in docs:
        name_text = f"{name} {feature} {title}".lower()
        area, tags = classify(name_text, summary_text(body))
        if _PROCESS.search(f"{name} {title}".lower()):
            folder, stage, workstream = "01_context/process", "requirements", None
            tags = ["process"] + tags
        else:
            folder, stage, workstream = f"03_workstreams/{area}", "design", area
            tags = [area.split("-")[0]] + tags
        rid = f"RFC-{number:04d}"
        while rid in seen:  # two files with one number: keep both, distinguish the later one
            rid += "b"
        seen.add(rid)
        full_title = f"RFC {number}: {title}"
        sup, by = supersession(body, number)
        sup = [n for n in sup if n in present]
        by = [n for n in by if n in present]
        front = ["---", f"title: {yaml_quote(full_title)}", f"id: {rid}", f"stage: {stage}"]
        if workstream:
            front.append(f"workstream: {workstream}")
        front.append("status: accepted")
        d = parse_date(headers.get("start date", ""))
        if d:
            front.append(f"date: {d}")
        if sup:
            front.append(f"supersedes: [{', '.join(f'RFC-{n:04d}' for n in sup)}]")
        if by:
            front.append(f"superseded_by: [{', '.join(f'RFC-{n:04d}' for n in by)}]")
        front.append(f"tags: [{', '.join(dict.fromkeys(['rfc'] + tags))}]")
        front.append("---")
        out = dest / folder / (file_stem(stem) + ".md")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n".join(front) + "\n\n# " + full_title + "\n\n" + body, encoding="utf-8")
        counts[folder] += 1
    return sum(counts.values()), counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help=f"checkout of rust-lang/rfcs (commit {COMMIT})")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    n, counts = build(args.src, args.out)
    print(f"wrote {n} documents in {len(counts)} folders to {args.out}")
    for folder, k in sorted(counts.items()):
        print(f"  {folder}: {k}")


if __name__ == "__main__":
    main()
