"""Vectors: the FAISS index derived from the vectors stored in SQLite.

Vectors are L2-normalised, so inner product (METRIC_INNER_PRODUCT) is cosine
similarity. FAISS ids are the chunks' row ids in SQLite. The index holds each vector as
float16 (a scalar quantizer of FAISS's): SQLite's int8 vectors, unit length again, to
float16's precision (a score within 1e-3 of theirs), at half the memory of float32.

Only an approximate (IVF) index is saved: below APPROX_MIN vectors the exact index is
built from SQLite whenever a process needs it (under a second and a half at 49,000
vectors, about 1 s more than reading a file of it: benchmarks/stale_vectors.py), so the
folder keeps no second copy of the vectors. The IVF index is saved as one file holding
the identity of its database (a random id the database records once) and the store
generation it reflects; a file that is missing, unreadable, of another database or of
another generation is rebuilt from SQLite, never by re-embedding.
"""

import logging
import math
import os
import struct
import threading
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from qa.backends.base import REBUILD
from qa.errors import QAError

log = logging.getLogger(__name__)
APPROX_MIN = 50_000  # from this many vectors on, search is approximate (IVF)
NPROBE = 64
TRAINING_PER_LIST = 40
_MAGIC = b"QAVECS4\n"  # QAVECS3: float32 vectors, rebuilt when met
_HEADER = struct.Struct("<8s32sqI")  # magic, database identity, generation, CRC-32 of the data


def _faiss():
    try:
        import faiss
    except ImportError as error:
        raise QAError("FAISS is missing: pip install faiss-cpu") from error
    # One thread: a single query on a busy 2-core machine ran 4-90x slower with
    # OpenMP's two threads than with one (benchmarks/scale.py).
    faiss.omp_set_num_threads(1)
    return faiss


def _trained_ivf(dim: int, batches: list[tuple[np.ndarray, np.ndarray]], total: int):
    """An empty IVF index (float16 vectors, not residuals) trained on an even sample of the
    vectors."""
    faiss = _faiss()
    lists = int(4 * math.sqrt(total))
    step, parts, offset = max(1, total // (TRAINING_PER_LIST * lists)), [], 0
    for _, vectors in batches:  # every step-th vector, without joining them all first
        parts.append(vectors[-offset % step::step])
        offset += len(vectors)
    sample = np.concatenate(parts).astype(np.float32)
    index = faiss.IndexIVFScalarQuantizer(
        faiss.IndexFlatIP(dim), dim, lists, faiss.ScalarQuantizer.QT_fp16,
        faiss.METRIC_INNER_PRODUCT, False)  # the vectors themselves, not residuals
    index.train(np.ascontiguousarray(sample))
    index.nprobe = NPROBE
    return index


class VectorIndex:
    """Inner-product search over (id, vector) pairs, with add and remove.

    Built from fewer than APPROX_MIN vectors it is exact (a flat index); from more,
    approximate: IVF with 4·sqrt(n) lists, NPROBE of them searched. On this
    machine exact single-query search passes 5 ms near 50,000 vectors; at 1M, IVF
    keeps recall@10 0.98 at about 2 ms (benchmarks/scale.py). Both remove ids for
    real. The kind is chosen whenever the index is built from the database.

    Safe to share between threads: FAISS does not allow a search during an add.
    """

    def __init__(self, dim: int, index=None) -> None:
        faiss = _faiss()
        self.dim = dim
        self._lock = threading.Lock()
        self._index = index if index is not None else faiss.IndexIDMap2(
            faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_fp16,
                                       faiss.METRIC_INNER_PRODUCT))

    @classmethod
    def build(cls, dim: int, batches: Iterable[tuple[np.ndarray, np.ndarray]]) -> "VectorIndex":
        """An index of all the (ids, vectors) batches: exact or IVF by their number. The
        batches are held (an IVF index is trained before anything is added) as float16,
        the values the index keeps: half the memory of float32 (0.8 GB at 1M vectors)."""
        batches = [(ids, vectors.astype(np.float16)) for ids, vectors in batches if len(ids)]
        total = sum(len(ids) for ids, _ in batches)
        index = cls(dim) if total < APPROX_MIN else cls(dim, _trained_ivf(dim, batches, total))
        for ids, vectors in batches:
            index.add(ids, vectors.astype(np.float32))
        return index

    def __len__(self) -> int:
        return int(self._index.ntotal)

    @property
    def approximate(self) -> bool:
        """Whether this is an IVF index, the kind worth saving."""
        return not isinstance(self._index, _faiss().IndexIDMap2)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids):
            vectors = self._rows(vectors)
            with self._lock:
                self._index.add_with_ids(vectors, np.asarray(ids, dtype=np.int64))

    def _rows(self, vectors: np.ndarray) -> np.ndarray:
        """`vectors` as rows of float32; QAError if they are not of this index's dimension
        (the one the database records, which may be damaged)."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dim:
            raise QAError(f"the index is damaged: it records vectors of {self.dim} dimensions, "
                          f"and holds or is asked with some of {vectors.shape[-1]}; {REBUILD}")
        return vectors

    def remove(self, ids: Iterable[int]) -> None:
        ids = np.fromiter(ids, dtype=np.int64)
        if len(ids):
            with self._lock:
                self._index.remove_ids(ids)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, ids), each (n_queries, k), best first; id -1 pads when fewer exist."""
        queries = self._rows(queries)
        if len(self) == 0:
            shape = (len(queries), k)
            return np.zeros(shape, dtype=np.float32), np.full(shape, -1, dtype=np.int64)
        with self._lock:
            return self._index.search(queries, k)

    def save(self, path: Path, identity: str, generation: int) -> None:
        """Write atomically: a crash leaves the old file, which is then seen as stale; a
        failed write (a full disk) leaves the old file and no temporary one, and raises."""
        with self._lock:
            data = _faiss().serialize_index(self._index)
        temporary = path.with_suffix(".tmp")
        try:
            with open(os.open(temporary, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600),
                      "wb") as file:
                payload = data.tobytes()
                file.write(_HEADER.pack(_MAGIC, identity.encode(), generation,
                                        zlib.crc32(payload)))
                file.write(payload)
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)
            raise

    @classmethod
    def load(
        cls, path: Path, dim: int, identity: str, generation: int
    ) -> "VectorIndex | None":
        """The saved index if it is readable, approximate and reflects `generation` of the
        database `identity`, else None (an exact index's file, which an earlier qa saved,
        is as fast to build again, and then deleted)."""
        try:
            raw = path.read_bytes()
            magic, saved_identity, saved, checksum = _HEADER.unpack_from(raw)
            payload = memoryview(raw)[_HEADER.size:]
            if magic != _MAGIC and magic.startswith(_MAGIC[:6]):
                log.info("vector index %s is of an older format; rebuilding it", path)
                return None
            if magic != _MAGIC or zlib.crc32(payload) != checksum:
                raise RuntimeError("not a qa vector file, or damaged")
            if saved_identity.rstrip(b"\0").decode(errors="replace") != identity:
                log.info("vector index %s belongs to another database; rebuilding it", path)
                return None
            if saved != generation:
                log.info("vector index %s is stale; rebuilding it from the database", path)
                return None
            index = _faiss().deserialize_index(np.frombuffer(payload, np.uint8))
        except FileNotFoundError:
            return None
        except (OSError, RuntimeError, struct.error) as error:
            log.warning("vector index %s is unreadable (%s); rebuilding it from the database",
                        path, error)
            return None
        loaded = cls(dim, index)
        return loaded if index.d == dim and loaded.approximate else None
