"""The SQLite + FAISS backend: an index as files in one folder, on one machine.

SQLite (`qa.store`) is the source of truth, FTS5 gives the keyword ranking, and
FAISS (`qa.vectors`) the dense one. The FAISS index is derived: every store
transaction bumps a generation number, the in-memory FAISS index is kept in step
with each write (under one lock, so no search sees one without the other), and
it is saved beside the database with the generation it reflects. Readers in other
processes see a newer generation and reload or rebuild it from the stored vectors,
never by re-embedding.
"""

import functools
import logging
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from qa.backends import ChunkRow, DocumentInfo, FileState, SentenceRow
from qa.chunking import Chunk
from qa.documents import Document
from qa.store import Store
from qa.vectors import VectorIndex

log = logging.getLogger(__name__)
DATABASE = "index.sqlite3"
VECTORS = "vectors.faiss"
FILES = (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", VECTORS, "vectors.tmp")
MAX_KEYWORDS = 64
_WORD = re.compile(r"\w+")


def keyword_query(text: str) -> str | None:
    """An FTS5 MATCH expression: any of the text's words, each quoted; None if it has none.

    Quoting every word means no user text can be read as FTS5 syntax.
    """
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_KEYWORDS]
    return " OR ".join(f'"{word}"' for word in words) or None


class SQLiteBackend:
    """The database and the FAISS file in `folder`; safe to share between threads."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._store = Store(folder / DATABASE)
        self._lock = threading.RLock()
        self._vectors: VectorIndex | None = None
        self._vectors_generation = -1

    # -- reading -------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        return self._store.meta(key)

    def file_states(self) -> dict[str, FileState]:
        return self._store.file_states()

    def documents(self) -> list[DocumentInfo]:
        return self._store.documents()

    def document_text(self, path: str) -> str | None:
        return self._store.document_text(path)

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        return self._store.chunks(ids)

    def sentences(self, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        return self._store.sentences(chunk_ids)

    def term_frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        return self._store.term_frequencies(terms)

    def dense_search(
        self, query_vectors: np.ndarray, k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        if within is None:
            vectors = self.vectors()
        else:  # a small exact index of just those documents' chunks
            vectors = VectorIndex.build(int(self.meta("dim")),
                                        [self._store.document_vectors(within)])
        _, ids = vectors.search(query_vectors, k)
        return [[int(i) for i in row if i >= 0] for row in ids]

    def keyword_search(
        self, queries: Sequence[str], k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        matches = [keyword_query(query) for query in queries]
        return [self._store.keyword_search(match, k, within) if match else [] for match in matches]

    def vectors(self) -> VectorIndex:
        """The FAISS index for the store's current generation, loaded or rebuilt if stale."""
        with self._lock:
            generation = self._store.generation()
            if self._vectors is None or self._vectors_generation != generation:
                dim = int(self.meta("dim"))
                self._vectors = (VectorIndex.load(self.folder / VECTORS, dim, generation)
                                 or self._rebuild_vectors(dim))
                self._vectors_generation = generation
            return self._vectors

    def _rebuild_vectors(self, dim: int) -> VectorIndex:
        vectors = VectorIndex.build(dim, self._store.vectors())
        log.info("rebuilt the vector index from the database: %d vectors", len(vectors))
        return vectors

    # -- writing -------------------------------------------------------------------

    def set_meta(self, values: dict[str, str]) -> None:
        self._store.set_meta(values)

    def put_document(
        self, document: Document, state: FileState, chunks: Sequence[Chunk],
        vectors: np.ndarray, sentence_vectors: Sequence[np.ndarray],
    ) -> None:
        put = functools.partial(self._store.put_document, document, state, chunks, vectors,
                                sentence_vectors)
        self._change(put, vectors)

    def touch_document(self, path: str, state: FileState) -> None:
        self._store.touch_document(path, state)

    def remove_documents(self, paths: Sequence[str]) -> None:
        self._change(lambda: (self._store.remove_documents(paths), []))

    def flush(self) -> None:
        with self._lock:
            self.vectors().save(self.folder / VECTORS, self._vectors_generation)

    def close(self) -> None:
        self._store.close()

    def _change(
        self, write: Callable[[], tuple[list[int], list[int]]],
        added_vectors: np.ndarray | None = None,
    ) -> None:
        """Run one store transaction, which returns (removed, added) chunk ids, and mirror it
        in the in-memory vector index, with no search in between to see one without the other.
        """
        with self._lock:
            vectors = self.vectors()
            removed, added = write()
            vectors.remove(removed)
            if added:
                vectors.add(np.asarray(added, dtype=np.int64), added_vectors)
            self._vectors_generation = self._store.generation()
