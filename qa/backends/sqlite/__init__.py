"""The SQLite + FAISS backend: an index as files in one folder, on one machine.

`store` is the SQLite database (the source of truth, with FTS5 for keyword search),
`vectors` the FAISS index derived from it, and `backend` the `Backend` that keeps the
two in step.
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
