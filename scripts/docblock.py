"""Writes a generated block between <!-- sol:BEGIN name --> and <!-- sol:END name --> of a docs page (the
markers must exist: the prose around them is hand-written, the block is not)."""
import sys


def replace_block(doc_path, name, block):
    doc = open(doc_path).read()
    b, e = f"<!-- sol:BEGIN {name} -->", f"<!-- sol:END {name} -->"
    if b not in doc or e not in doc:
        sys.exit(f"{doc_path}: the markers {b} … {e} are missing")
    doc = doc[:doc.index(b) + len(b)] + "\n" + block + doc[doc.index(e):]
    open(doc_path, "w").write(doc)
