"""The SQLite + FAISS + Tantivy backend: an index as files in one folder, on one machine.

`store` is the SQLite database (the source of truth, with an FTS5 table for term
statistics and as the keyword search to fall back on), `vectors` the FAISS index and
`keywords` the Tantivy keyword index derived from it, and `backend` the `Backend` that
keeps them in step.
"""

from qa.backends.base import BackendKind
from qa.backends.sqlite.backend import DATABASE, FILES, VECTORS, SQLiteBackend, keyword_query

__all__ = ["DATABASE", "FILES", "KIND", "VECTORS", "SQLiteBackend", "keyword_query"]

KIND = BackendKind(
    open=lambda folder, config: SQLiteBackend(folder),
    exists=lambda folder, config: (folder / DATABASE).is_file(),
    files=frozenset(FILES),
    in_folder=lambda config: True,
)
