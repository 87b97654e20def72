"""Indexing: documents become searchable passages.

`files` finds the documents under the given paths, `chunking` cuts each loaded document
into passages, `embedding` turns passages into vectors, and `ingest` writes them into a
store (`qa.backends`); `rebuild` remakes an index from its database, `distributed` spreads
the embedding over a Ray cluster, `locking` keeps one writer at a time and `collections`
names several indexes.
"""
