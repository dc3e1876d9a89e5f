"""Whoosh's index contents compared (bench only): stored fields of every document, every
term of every field with its postings (document number, weight) and the field lengths."""
import hashlib, sys
from whoosh import index
def digest(d):
    ix = index.open_dir(d, indexname="spans", readonly=True)
    h = hashlib.sha256()
    with ix.reader() as r:
        for n, f in r.iter_docs():
            h.update(repr((n, sorted(f.items()))).encode())
        for fieldname, text in r.all_terms():
            h.update(repr((fieldname, text, list(r.postings(fieldname, text).items_as("weight")))).encode())
        for n in range(r.doc_count_all()):
            h.update(repr(r.doc_field_length(n, "text")).encode())
    return h.hexdigest()[:16]
print(*[digest(d) for d in sys.argv[1:]])
