"""Backends: where an index's documents, chunks and vectors live, and how they are searched.

`Index` needs one small thing of storage, the `Backend` protocol (`qa.backends.base`),
whichever engine holds the data: SQLite (the source of truth) with a FAISS index derived
from it, on one machine (`qa.backends.sqlite`); or Milvus (Milvus Lite in one file, or a
Milvus server or cluster) for a corpus that outgrows one (`qa.backends.milvus`). Both keep
every document write atomic for readers (a document is wholly old or wholly new), record
the model the index was built with, and give two rankings, dense and keyword, that
`qa.search` fuses itself, so answers do not depend on the engine.

Each backend is a package that registers itself once, as a `BackendKind` named `KIND`
(how to open it, whether it exists, its files in the index folder, whether its folder can
be swapped); the functions here look it up by the configured kind, so nothing outside
`qa.backends` names a backend's files or settings.
"""

import importlib
from pathlib import Path

from qa.backends.base import (
    KINDS,
    MAX_KEYWORDS,
    Backend,
    BackendConfig,
    BackendKind,
    ChunkRow,
    DocumentInfo,
    FileState,
    Kind,
    SentenceRow,
)

__all__ = [
    "KINDS", "MAX_KEYWORDS", "Backend", "BackendConfig", "BackendKind", "ChunkRow",
    "DocumentInfo", "FileState", "Kind", "SentenceRow", "exists", "in_folder", "kind_of",
    "open_backend", "own_files",
]


def kind_of(config: BackendConfig) -> BackendKind:
    """The registration of the configured kind of backend."""
    return importlib.import_module(f"qa.backends.{config.kind}").KIND


def open_backend(folder: Path, config: BackendConfig) -> Backend:
    """The backend of the index at `folder` (created if missing)."""
    return kind_of(config).open(folder, config)


def exists(folder: Path, config: BackendConfig) -> bool:
    """Whether an index is there to open (without creating one)."""
    return kind_of(config).exists(folder, config)


def in_folder(config: BackendConfig) -> bool:
    """Whether the index lives wholly in its folder (so a rebuild can swap folders)."""
    return kind_of(config).in_folder(config)


def own_files() -> frozenset[str]:
    """Every backend's own entries in an index folder."""
    return frozenset().union(*(kind_of(BackendConfig(kind)).files for kind in KINDS))
