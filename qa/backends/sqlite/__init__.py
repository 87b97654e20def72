"""The SQLite + FAISS + Tantivy backend: an index as files in one folder, on one machine.

`store` is the SQLite database (the source of truth), `vectors` the FAISS index and
`keywords` the Tantivy keyword index derived from it (which also gives the term
statistics, and is built in RAM where the folder's cannot be used), and `backend` the
`Backend` that keeps them in step.
"""

from qa.backends.base import BackendKind
from qa.backends.sqlite.backend import DATABASE, FILES, VECTORS, SQLiteBackend

__all__ = ["DATABASE", "FILES", "KIND", "VECTORS", "SQLiteBackend"]

KIND = BackendKind(
    open=lambda folder, config: SQLiteBackend(folder),
    exists=lambda folder, config: (folder / DATABASE).is_file(),
    files=frozenset(FILES),
    in_folder=lambda config: True,
)
