"""Vectors: the FAISS index derived from the vectors stored in SQLite.

Vectors are L2-normalised, so inner product (METRIC_INNER_PRODUCT) is cosine
similarity. FAISS ids are the chunks' row ids in SQLite. The index is saved as
one file holding the store generation it reflects; a file that is missing,
unreadable or of another generation is rebuilt from SQLite, never by
re-embedding.
"""

import logging
import os
import struct
import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from qa.errors import QAError

log = logging.getLogger(__name__)
_MAGIC = b"QAVECS1\n"
_HEADER = struct.Struct("<8sq")  # magic, store generation


def _faiss():
    try:
        import faiss
    except ImportError as error:
        raise QAError("FAISS is missing: pip install faiss-cpu") from error
    return faiss


class VectorIndex:
    """Exact inner-product search over (id, vector) pairs, with add and remove.

    Safe to share between threads: FAISS does not allow a search during an add.
    """

    def __init__(self, dim: int, index=None) -> None:
        faiss = _faiss()
        self.dim = dim
        self._lock = threading.Lock()
        self._index = index if index is not None else faiss.IndexIDMap2(faiss.IndexFlatIP(dim))

    @classmethod
    def build(cls, dim: int, batches: Iterable[tuple[np.ndarray, np.ndarray]]) -> "VectorIndex":
        index = cls(dim)
        for ids, vectors in batches:
            index.add(ids, vectors)
        return index

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids):
            vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
            with self._lock:
                self._index.add_with_ids(vectors, np.asarray(ids, dtype=np.int64))

    def remove(self, ids: Iterable[int]) -> None:
        ids = np.fromiter(ids, dtype=np.int64)
        if len(ids):
            with self._lock:
                self._index.remove_ids(ids)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, ids), each (n_queries, k), best first; id -1 pads when fewer exist."""
        queries = np.ascontiguousarray(queries, dtype=np.float32).reshape(-1, self.dim)
        if len(self) == 0:
            shape = (len(queries), k)
            return np.zeros(shape, dtype=np.float32), np.full(shape, -1, dtype=np.int64)
        with self._lock:
            return self._index.search(queries, k)

    def save(self, path: Path, generation: int) -> None:
        """Write atomically: a crash leaves the old file, which is then seen as stale."""
        with self._lock:
            data = _faiss().serialize_index(self._index)
        temporary = path.with_suffix(".tmp")
        with open(os.open(temporary, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600), "wb") as file:
            file.write(_HEADER.pack(_MAGIC, generation))
            file.write(data.tobytes())
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: Path, dim: int, generation: int) -> "VectorIndex | None":
        """The saved index if it is readable and reflects `generation`, else None."""
        try:
            raw = path.read_bytes()
            magic, saved = _HEADER.unpack_from(raw)
            if magic != _MAGIC or saved != generation:
                log.info("vector index %s is stale; rebuilding it from the database", path)
                return None
            index = _faiss().deserialize_index(np.frombuffer(raw, np.uint8, offset=_HEADER.size))
        except FileNotFoundError:
            return None
        except (OSError, RuntimeError, struct.error) as error:
            log.warning("vector index %s is unreadable (%s); rebuilding it from the database",
                        path, error)
            return None
        return cls(dim, index) if index.d == dim else None
