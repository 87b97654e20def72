"""What every backend shares: the rows it returns, the `Backend` protocol `Index` calls,
the `BackendConfig` that names one, and the `BackendKind` each backend registers.

Row types live here, apart from any engine, so that answers and the language-model
check (which read `SentenceRow`s) and both backends import them without importing
each other.
"""

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, cast

import numpy as np

from qa.errors import QAError
from qa.loaders.cells import Table
from qa.loaders.formats import Document

Kind = Literal["sqlite", "milvus"]
KINDS: tuple[Kind, ...] = ("sqlite", "milvus")
MAX_KEYWORDS = 64  # distinct words of a question that a keyword search uses
MAX_DIM = 65_536  # the widest vectors an index may record (models give 384 to 4,096)
REBUILD = "rebuild it with: qa index --rebuild"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document: its text, its char span there, its page and its sentences."""

    ordinal: int
    text: str
    start: int
    end: int
    page: int | None
    sentences: tuple[tuple[int, int], ...]  # each sentence's span


def recorded_dim(value: str | None) -> int:
    """The vectors' dimension an index records (its meta `dim`); QAError in one line when
    it is damaged: not a whole number from 1 to MAX_DIM."""
    if value is not None and value.isascii() and value.isdigit() and len(value) <= 5 and (
            1 <= int(value) <= MAX_DIM):
        return int(value)
    raise QAError(f"the index is damaged: it records its vectors' dimension as {value!r}, not "
                  f"a whole number from 1 to {MAX_DIM:,}; {REBUILD}")


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """An indexed document as listed to users."""

    path: str
    title: str
    chunks: int
    indexed_at: str


@dataclass(frozen=True, slots=True)
class FileState:
    """What the index knows of a file, to tell whether it changed."""

    size: int
    mtime: float
    sha256: str


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A stored chunk with what a search hit shows of it."""

    id: int
    source: str
    title: str
    text: str
    start: int
    end: int
    page: int | None
    vector: np.ndarray


@dataclass(frozen=True, slots=True)
class SentenceRow:
    """A stored sentence: its span in the document and its vector."""

    chunk_id: int
    start: int
    end: int
    vector: np.ndarray


class Backend(Protocol):
    """What `Index` needs of storage and search. Chunk ids are integers chosen by the backend.

    `within` (paths) limits a search to those documents; `None` searches them all.
    """

    def meta(self, key: str) -> str | None: ...

    def set_meta(self, values: dict[str, str]) -> None: ...

    def file_states(self) -> dict[str, FileState]: ...

    def put_document(
        self, document: Document, state: FileState, chunks: Sequence[Chunk],
        vectors: np.ndarray, sentence_vectors: Sequence[np.ndarray],
    ) -> None:
        """Replace the document at its path, atomically for readers."""

    def touch_document(self, path: str, state: FileState) -> None:
        """Record a new size and mtime for a file whose content did not change."""

    def remove_documents(self, paths: Sequence[str]) -> None: ...

    def documents(self) -> list[DocumentInfo]: ...

    def document_text(self, path: str) -> str | None: ...

    def document_tables(self, path: str) -> Sequence[Table] | None:
        """The document's tables as typed cells (`qa.loaders.tables`); None if it is not
        indexed, or was indexed before tables were stored (`qa index --rebuild`)."""

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]: ...

    def sentences(self, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        """The sentences of the chunks, by chunk id then position."""

    def term_frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each of `terms` (Porter stems), and how many chunks there
        are: the corpus statistics for weighing a question's words in an answer, as of the
        writes flushed (or later ones)."""

    def dense_search(
        self, query_vectors: np.ndarray, k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        """Per query vector, the ids of the `k` chunks of highest inner product, best first."""

    def keyword_search(
        self, queries: Sequence[str], k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        """Per query, the ids of the `k` best BM25 matches of any of its (stemmed) words.
        Every write is seen once flushed (by some backends at once); none returns a chunk
        removed before it began."""

    def vector_count(self) -> int:
        """How many chunk vectors the dense search holds: one per chunk, unless some are
        stale (left by a removal that did not reach them)."""

    def forget_missing(self, ids: Sequence[int]) -> None:
        """Repair what a search found stale: of `ids`, found by a search but with no chunk,
        drop those that still have none from what the searches read (a no-op where a
        chunk and its vector go together)."""

    def flush(self) -> None:
        """Make the writes so far durable, seen by the keyword search, and quick to reopen
        (at the end of a run)."""

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class BackendConfig:
    """Which backend holds an index.

    kind: "sqlite" (files in the index folder) or "milvus".
    milvus_uri: a path ending in `.db` is Milvus Lite, embedded in this process;
        `http(s)://host:19530` is a Milvus server or cluster. Default: Milvus Lite
        in `<index folder>/milvus.db`.
    milvus_token: "user:password" or an API key, for a server that asks for one.
    """

    kind: Kind = "sqlite"
    milvus_uri: str | None = None
    milvus_token: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise QAError(f"the backend must be one of {', '.join(KINDS)}, not {self.kind!r}")
        uri = self.milvus_uri
        if uri is not None and not (uri.endswith(".db") or uri.startswith(("http://", "https://"))):
            raise QAError(f"the Milvus URI must be a file ending in .db (Milvus Lite) or "
                          f"http(s)://host:port (a Milvus server), not {uri!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "BackendConfig":
        """From QA_BACKEND, QA_MILVUS_URI and QA_MILVUS_TOKEN."""
        kind = cast(Kind, environ.get("QA_BACKEND") or "sqlite")  # checked on construction
        return cls(kind, environ.get("QA_MILVUS_URI") or None,
                   environ.get("QA_MILVUS_TOKEN") or None)


@dataclass(frozen=True, slots=True)
class BackendKind:
    """One kind of backend, as its package registers it (`KIND` in `qa.backends.<kind>`).

    open: the backend of the index at a folder, created if missing (its libraries load here).
    exists: whether an index is there to open, without creating one.
    files: its own entries in the index folder; a rebuild carries every other one over.
    in_folder: whether an index of this configuration lives wholly in its folder, so that
        a rebuild can build a new folder and swap it in.
    """

    open: Callable[[Path, BackendConfig], Backend]
    exists: Callable[[Path, BackendConfig], bool]
    files: frozenset[str]
    in_folder: Callable[[BackendConfig], bool]
