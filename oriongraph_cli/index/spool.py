"""What an index run parsed, kept on disk instead of in memory.

A build from the files parses every document; holding each parsed document and its
spans until the registry, the lexical indices and the embedder had read them grew the
indexer by ~2 KB a span (2 GB at 1M spans). The run writes them, in order, to an
anonymous temporary file in the index directory (gone when closed, or when the process
dies: nothing to clean up after a crash) and reads them back in the same order for each
step; the embedding texts, which the embedder reads in length order, go to a second one
and are read back by position.
"""

from __future__ import annotations

import pickle
import tempfile
from array import array
from pathlib import Path
from typing import Iterator

from oriongraph_cli.models import Document, Span


class ParsedSpool:
    """The (Document, [Span]) of the changed documents, in the order they were parsed."""

    def __init__(self, directory: Path):
        self._file = tempfile.TemporaryFile(dir=directory, prefix="parsed-")
        self._offsets = array("q", [0])

    def append(self, doc: Document, spans: list[Span]) -> None:
        self._file.seek(self._offsets[-1])
        self._file.write(pickle.dumps((doc, spans), protocol=pickle.HIGHEST_PROTOCOL))
        self._offsets.append(self._file.tell())

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[tuple[Document, list[Span]]]:
        f, offsets = self._file, self._offsets
        for i in range(len(self)):
            f.seek(offsets[i])
            yield pickle.loads(f.read(offsets[i + 1] - offsets[i]))

    def paths(self) -> list[str]:
        return [doc.path for doc, _spans in self]

    def close(self) -> None:
        self._file.close()


class TextSpool:
    """Strings written once and read back by position (UTF-8, one offset each)."""

    def __init__(self, directory: Path):
        self._file = tempfile.TemporaryFile(dir=directory, prefix="texts-")
        self._offsets = array("q", [0])

    def append(self, text: str) -> int:
        self._file.seek(self._offsets[-1])
        self._file.write(text.encode("utf-8"))
        self._offsets.append(self._file.tell())
        return len(self._offsets) - 2

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i: int) -> str:
        lo, hi = self._offsets[i], self._offsets[i + 1]
        self._file.seek(lo)
        return self._file.read(hi - lo).decode("utf-8")

    def close(self) -> None:
        self._file.close()
