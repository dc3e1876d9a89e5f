"""Whoosh's index contents compared (bench only): ``store.lexical.contents_digest`` (stored
fields, every term's postings, field lengths) of each directory given, first 16 hex digits."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
from oriongraph_cli.store.lexical import contents_digest  # noqa: E402

print(*[contents_digest(Path(d))[:16] for d in sys.argv[1:]])
