"""Whoosh's index contents compared (bench only): stored fields of every document, every
term of every field with its postings (document number, weight) and the field lengths —
``bench/lexical_memory.py``'s digest of each directory given."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lexical_memory import digest  # noqa: E402

print(*[digest(Path(d), "spans") for d in sys.argv[1:]])
