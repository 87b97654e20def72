"""Store: the SQLite database that is the index's source of truth.

It holds documents (path, content hash, size, mtime, extracted text and its tables as
typed cells (`qa.loaders.tables`), both zlib-compressed), their chunks (char span, page,
vector: a chunk's text is read from its document's, never copied) and each chunk's
sentences (span, vector); no keyword index: the derived Tantivy index (`keywords`) is
the only one, and gives the term statistics too. Vectors are stored small, as no search
needs more: a chunk's and a sentence's alike as int8 scaled to its largest component,
unit length again when read. Chunk ids are never given twice, so an id in a derived
index that is behind names that chunk or none. Every change is one transaction, so a
crash leaves the previous state, and each bumps `generation`, which the derived vector
and keyword indexes compare with their own to know whether they are stale. WAL mode lets
readers search while a writer indexes. A database of an earlier schema (1: float32
vectors, two more copies of the text, the chunks' and FTS5's; 2: the text uncompressed;
3: chunk vectors as float16 and an FTS5 table; 4: no tables) is upgraded in place when
first opened where it can be written, without re-embedding. Its documents' tables are
not made up from their text: they have none (NULL) until indexed again (`qa index
--rebuild`), and their table questions are answered by quoting rows.
"""

import functools
import json
import logging
import os
import shutil
import sqlite3
import threading
import uuid
import zlib
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import numpy as np

from qa.backends.base import Chunk, ChunkRow, DocumentInfo, FileState, SentenceRow
from qa.errors import QAError
from qa.loaders.cells import Table, tables_from_json, tables_json
from qa.loaders.formats import Document

log = logging.getLogger(__name__)
SCHEMA_VERSION = 5  # of the tables below; a newer database is refused, never written
SHM_BYTES = 32 << 10  # the shared memory of a WAL (-shm) a connection that may write maps
# documents.text is UTF-8, zlib-compressed (text_blob), and so is documents.tables, JSON
# (tables_json), NULL for a document indexed before schema 5; no comment in the SQL
# below, which SQLite keeps and rewrites on ALTER TABLE
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime REAL NOT NULL,
    indexed_at TEXT NOT NULL,
    text BLOB NOT NULL,
    page_starts TEXT NOT NULL,
    tables BLOB
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    start_char INTEGER NOT NULL,
    end_char INTEGER NOT NULL,
    page INTEGER,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_document ON chunks(document_id);
CREATE TABLE IF NOT EXISTS sentences (
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    start_char INTEGER NOT NULL,
    end_char INTEGER NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS sentences_by_chunk ON sentences(chunk_id);
"""
_CHUNKS_1 = ["id", "document_id", "ordinal", "start_char", "end_char", "page", "text", "vector"]
_FTS_COLUMNS = ["title", "text"]  # of the FTS5 table chunks_fts, schemas 1 to 3


class Store:
    """A connection to one index database, safe to share between threads.

    A database in a folder this process cannot write is opened read-only (and, if
    no writer has it open, as immutable: SQLite then needs no lock files beside it), and
    so is one on a disk too full for the shared memory of its WAL (`_no_room_for_shm`):
    a search writes nothing, and a write says that the disk is full.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.readonly = not os.access(path.parent, os.W_OK) or (
                path.exists() and not os.access(path, os.W_OK)) or _no_room_for_shm(path)
            if not path.exists() and not self.readonly:
                # private from the start; SQLite gives its -wal file the same mode
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
            self._db = _connect(path, self.readonly)
        except OSError as error:
            raise QAError(f"cannot open the index database {path}: "
                          f"{error.strerror or error}") from error
        except sqlite3.DatabaseError as error:
            raise _database_error(path, error) from error
        try:
            self.identity = _prepare(self._db, path, self.readonly)
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise _database_error(path, error) from error
        except QAError:
            self._db.close()
            raise
        self._lock = threading.RLock()
        self._closed = False

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._closed = True

    @contextmanager
    def transaction(self, changes_chunks: bool = True) -> Iterator[sqlite3.Connection]:
        """One atomic write; one that changes chunks also bumps the generation."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as error:
                raise _database_error(self.path, error) from error
            try:
                yield self._db
                if changes_chunks:
                    self._db.execute(
                        "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT(key) "
                        "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                    )
                self._db.execute("COMMIT")
            except BaseException as error:
                if self._db.in_transaction:  # SQLite rolls back itself on some errors (disk full)
                    self._db.execute("ROLLBACK")
                if isinstance(error, sqlite3.DatabaseError):
                    raise _database_error(self.path, error) from error
                raise

    def _query(self, sql: str, params: Sequence = ()) -> list[tuple]:
        with self._lock:
            if self._closed:  # a rebuild swapped the database between a call's queries
                raise QAError(f"the index at {self.path.parent} was rebuilt just then: "
                              "try again")
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as error:
                raise _database_error(self.path, error) from error

    def meta(self, key: str) -> str | None:
        rows = self._query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, values: dict[str, str]) -> None:
        with self.transaction(changes_chunks=False) as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    def generation(self) -> int:
        return int(self.meta("generation") or 0)

    def file_states(self) -> dict[str, FileState]:
        rows = self._query("SELECT path, size, mtime, sha256 FROM documents")
        return {path: FileState(size, mtime, sha) for path, size, mtime, sha in rows}

    def put_document(
        self,
        document: Document,
        state: FileState,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        sentence_vectors: Sequence[np.ndarray],
    ) -> tuple[list[int], list[int]]:
        """Replace the document at its path; return (removed chunk ids, new chunk ids)."""
        with self.transaction() as db:
            removed = _delete_documents(db, [document.path])
            cursor = db.execute(
                "INSERT INTO documents (path, title, sha256, size, mtime, indexed_at, text, "
                "page_starts, tables) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (document.path, document.title, state.sha256, state.size, state.mtime,
                 datetime.now(UTC).isoformat(timespec="seconds"), text_blob(document.text),
                 json.dumps(document.page_starts), text_blob(tables_json(document.tables))),
            )
            first = _next_chunk_id(db)
            added = [
                _insert_chunk(db, first + n, _row_id(cursor), chunk, vector, sentences)
                for n, (chunk, vector, sentences) in enumerate(
                    zip(chunks, vectors, sentence_vectors, strict=True))
            ]
            if added:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('last_chunk_id', ?)",
                           (str(added[-1]),))
        return removed, added

    def touch_document(self, path: str, state: FileState) -> None:
        """Record a new size and mtime for a file whose content did not change."""
        with self.transaction(changes_chunks=False) as db:
            db.execute(
                "UPDATE documents SET size = ?, mtime = ? WHERE path = ?",
                (state.size, state.mtime, path),
            )

    def remove_documents(self, paths: Sequence[str]) -> list[int]:
        """Delete documents by path; return the ids of their chunks."""
        with self.transaction() as db:
            return _delete_documents(db, paths)

    def documents(self) -> list[DocumentInfo]:
        rows = self._query(
            "SELECT d.path, d.title, COUNT(c.id), d.indexed_at FROM documents d "
            "LEFT JOIN chunks c ON c.document_id = d.id GROUP BY d.id ORDER BY d.path"
        )
        return [DocumentInfo(*row) for row in rows]

    def document_text(self, path: str) -> str | None:
        rows = self._query("SELECT text FROM documents WHERE path = ?", (path,))
        return _text(rows[0][0]) if rows else None

    def document_tables(self, path: str) -> tuple[Table, ...] | None:
        """The document's tables; None if it is not indexed, or was before schema 5."""
        rows = self._query("SELECT tables FROM documents WHERE path = ?", (path,))
        return tables_from_json(_text(rows[0][0])) if rows and rows[0][0] is not None else None

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        rows = self._query(
            "SELECT c.id, c.document_id, d.path, d.title, c.start_char, c.end_char, c.page, "
            "c.vector FROM chunks c JOIN documents d ON d.id = c.document_id "
            f"WHERE c.id IN ({_marks(ids)})",
            list(ids),
        )
        documents = list({row[1] for row in rows})  # each document's text read once
        texts = dict(self._query(
            f"SELECT id, text FROM documents WHERE id IN ({_marks(documents)})", documents))
        texts = {document_id: _text(blob) for document_id, blob in texts.items()}
        return {
            chunk_id: ChunkRow(chunk_id, source, title, texts[document_id][start:end], start,
                               end, page, _vector(blob))
            for chunk_id, document_id, source, title, start, end, page, blob in rows
        }

    def sentences(self, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        rows = self._query(
            "SELECT chunk_id, start_char, end_char, vector FROM sentences "
            f"WHERE chunk_id IN ({_marks(chunk_ids)}) ORDER BY chunk_id, start_char",
            list(chunk_ids),
        )
        return [SentenceRow(chunk_id, start, end, _vector(blob))
                for chunk_id, start, end, blob in rows]

    def present(self, ids: Sequence[int], batch: int = 10_000) -> set[int]:
        """Those of the chunk ids `ids` that have a chunk now (asked `batch` at a time:
        SQLite takes at most 32,766 parameters)."""
        found: set[int] = set()
        for start in range(0, len(ids), batch):
            part = list(ids[start:start + batch])
            found |= {row[0] for row in self._query(
                f"SELECT id FROM chunks WHERE id IN ({_marks(part)})", part)}
        return found

    def chunk_ids(self, paths: Sequence[str]) -> list[int]:
        """The ids of the chunks of the documents at `paths`."""
        rows = self._query(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
            f"WHERE d.path IN ({_marks(paths)})", list(paths))
        return [row[0] for row in rows]

    def chunk_texts(self, batch: int = 4096) -> Iterator[tuple[int, str, str]]:
        """Every chunk's (id, document title, text), for building the keyword index, in
        batches of `batch` chunks; each document's text is read once a batch. A document
        that a writer deletes meanwhile leaves out its chunks of the batches after."""
        last = 0
        while rows := self._query(
            "SELECT c.id, c.document_id, d.title, c.start_char, c.end_char FROM chunks c "
            "JOIN documents d ON d.id = c.document_id WHERE c.id > ? ORDER BY c.id LIMIT ?",
            (last, batch)
        ):
            last = rows[-1][0]
            documents = list({row[1] for row in rows})
            texts = {document_id: _text(blob) for document_id, blob in self._query(
                f"SELECT id, text FROM documents WHERE id IN ({_marks(documents)})", documents)}
            for chunk_id, document_id, title, start, end in rows:
                if document_id in texts:
                    yield chunk_id, title, texts[document_id][start:end]

    def document_vectors(self, paths: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The (chunk ids, vectors) of the documents at `paths`."""
        rows = self._query(
            "SELECT c.id, c.vector FROM chunks c JOIN documents d ON d.id = c.document_id "
            f"WHERE d.path IN ({_marks(paths)}) ORDER BY c.id",
            list(paths),
        )
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids, _vectors([r[1] for r in rows]) if rows else np.zeros((0, 0))

    def vectors(self, batch: int = 65536) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """All chunk (ids, vectors), in batches, for building the vector index."""
        last = 0
        while True:
            rows = self._query(
                "SELECT id, vector FROM chunks WHERE id > ? ORDER BY id LIMIT ?", (last, batch)
            )
            if not rows:
                return
            last = rows[-1][0]
            yield (
                np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
                _vectors([r[1] for r in rows]),
            )


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    if readonly:
        wal = path.with_name(path.name + "-wal").exists()  # a writer may have it open
        uri = f"file:{quote(str(path))}?mode=ro" + ("" if wal else "&immutable=1")
        db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    else:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    return db


def _prepare(db: sqlite3.Connection, path: Path, readonly: bool) -> str:
    """Check the database's schema version (creating, stamping or upgrading it if writable);
    return the database's identity (a random id recorded once, "" if it has none yet)."""
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    meta = dict(db.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
    version = int(meta.get("schema", 0))
    if version > SCHEMA_VERSION:
        raise QAError(f"the index database {path} has schema version {version}, newer than "
                      f"this qa reads ({SCHEMA_VERSION}): upgrade qa to use it")
    if tables and not version and _layout(db) not in _known_layouts():
        raise QAError(f"the index database {path} was written by an older qa in another "
                      "layout; move the index folder away and rebuild it with: qa index PATHS")
    older = bool(tables) and version < SCHEMA_VERSION  # or unversioned, of a known layout
    if readonly:
        if older:
            raise QAError(f"the index database {path} was written by an older qa (schema "
                          f"{version or 1}); open it once where it can be written to upgrade "
                          "it, or rebuild it with: qa index --rebuild")
        return meta.get("identity", "")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    if older:
        _upgrade(db, path)
    db.executescript(_SCHEMA)
    if version != SCHEMA_VERSION:
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
    if "identity" not in meta:  # two processes may stamp at once: the first one's stays
        db.execute("INSERT OR IGNORE INTO meta VALUES ('identity', ?)", (uuid.uuid4().hex,))
    return db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()[0]


def _upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Bring a database of schema 1 to 4 to this one, in one transaction: vectors stored
    as int8 (a float32 or float16 blob is known by its length, so a row already converted,
    or a database of this schema that lost its stamp, is left as it is), the FTS5 table
    dropped (the keyword index and the term statistics are Tantivy's), the documents'
    column of tables added (NULL: not read yet), from schema 2 also the documents' text
    compressed, and from schema 1 also the chunks' copy of their text dropped. Nothing is
    embedded again. Then VACUUM gives the space back."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if version is not None and int(version[0]) >= SCHEMA_VERSION:  # another process did it
            db.execute("ROLLBACK")
            return
        log.warning("upgrading the index database %s to schema %d (once; nothing is "
                    "embedded again)", path, SCHEMA_VERSION)
        dim = int((db.execute("SELECT value FROM meta WHERE key = 'dim'").fetchone()
                   or ("0",))[0])
        for table in ("chunks", "sentences"):
            for kind in (np.float32, np.float16):
                rows = db.execute(f"SELECT rowid, vector FROM {table} WHERE length(vector) = ?",
                                  (np.dtype(kind).itemsize * dim,)).fetchall()
                db.executemany(f"UPDATE {table} SET vector = ? WHERE rowid = ?",
                               [(vector_blob(np.frombuffer(old, kind)), rowid)
                                for rowid, old in rows])
        rows = db.execute("SELECT id, text FROM documents WHERE typeof(text) = 'text'").fetchall()
        db.executemany("UPDATE documents SET text = ? WHERE id = ?",
                       [(text_blob(text), document_id) for document_id, text in rows])
        db.execute("DROP TABLE IF EXISTS chunks_fts")
        if "text" in [row[1] for row in db.execute("PRAGMA table_info(chunks)")]:
            db.execute("ALTER TABLE chunks DROP COLUMN text")
        if "tables" not in [row[1] for row in db.execute("PRAGMA table_info(documents)")]:
            db.execute("ALTER TABLE documents ADD COLUMN tables BLOB")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    try:
        db.execute("VACUUM")
    except sqlite3.OperationalError as error:  # another process has it open: space kept
        log.info("could not VACUUM %s after the upgrade (%s)", path, error)


@functools.cache
def _current_layout() -> dict[str, list[str]]:
    with closing(sqlite3.connect(":memory:")) as db:
        db.executescript(_SCHEMA)
        return _layout(db)


def _known_layouts() -> list[dict[str, list[str]]]:
    """The layouts an unversioned database is upgraded from: this schema's, schema 4's
    (without the documents' tables), 2's and 3's (4's with an FTS5 table) and 1's."""
    current = _current_layout()
    four = {**current, "documents": [name for name in current["documents"] if name != "tables"]}
    with_fts = {**four, "chunks_fts": _FTS_COLUMNS}
    return [current, four, with_fts, {**with_fts, "chunks": _CHUNKS_1}]


def _layout(db: sqlite3.Connection) -> dict[str, list[str]]:
    """The columns of each of the schemas' tables (none for a missing table)."""
    names = ("meta", "documents", "chunks", "sentences", "chunks_fts")
    return {name: [row[1] for row in db.execute(f"PRAGMA table_info({name})")] for name in names}


def _database_error(path: Path, error: sqlite3.DatabaseError) -> QAError:
    """A clear message for a database that cannot be used; advice to rebuild only if damaged."""
    name = getattr(error, "sqlite_errorname", "")
    if name == "SQLITE_FULL" or (  # or opened read-only as the disk was full
            name.startswith(("SQLITE_IOERR", "SQLITE_READONLY")) and _disk_full(path)):
        return QAError(f"the disk holding the index database {path} is full: nothing of this "
                       "write was saved (what was indexed before is intact); free some space "
                       "and try again")
    if name.startswith("SQLITE_READONLY") or name == "SQLITE_CANTOPEN":
        return QAError(f"the index database {path} cannot be written or opened here "
                       f"({error}): check the permissions of its folder and files")
    if isinstance(error, sqlite3.OperationalError):
        return QAError(f"the index database {path} cannot be used: {error}")
    return QAError(f"the index database {path} is unreadable ({error}); move the index folder "
                   "away and rebuild it with: qa index PATHS")


def _no_room_for_shm(path: Path) -> bool:
    """Whether the disk holding the database is too full for the shared memory of its WAL
    (the -shm file, SHM_BYTES) that a connection which may write makes if it is not there
    yet: it would fail to open, leaving an -shm too short for a read-only one too."""
    try:
        made = path.with_name(path.name + "-shm").stat().st_size >= SHM_BYTES
    except OSError:  # none yet
        made = False
    return not made and path.exists() and _free(path) < 2 * SHM_BYTES


def _disk_full(path: Path) -> bool:
    """Whether the disk holding `path` has less than 1 MiB free: SQLite reports a disk too
    full for its WAL's shared memory (-shm) to grow as an I/O error, not SQLITE_FULL."""
    return _free(path) < 1 << 20


def _free(path: Path) -> int:
    """The bytes free on the disk holding `path` (as many as a disk can hold if unknown)."""
    try:
        return shutil.disk_usage(path.parent).free
    except OSError:
        return 1 << 62


def _next_chunk_id(db: sqlite3.Connection) -> int:
    """An id above every chunk's, now and before: SQLite would give the ids of the last
    chunks deleted again (max(id) + 1), and a derived index not yet in step with a delete
    must never name a newer chunk by an old id. ('last_chunk_id' keeps the highest given.)"""
    return db.execute(
        "SELECT max(coalesce((SELECT max(id) FROM chunks), 0), coalesce((SELECT CAST(value "
        "AS INTEGER) FROM meta WHERE key = 'last_chunk_id'), 0)) + 1").fetchone()[0]


def _insert_chunk(
    db: sqlite3.Connection, chunk_id: int, document_id: int, chunk: Chunk,
    vector: np.ndarray, sentence_vectors: np.ndarray,
) -> int:
    db.execute(
        "INSERT INTO chunks (id, document_id, ordinal, start_char, end_char, page, vector) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (chunk_id, document_id, chunk.ordinal, chunk.start, chunk.end, chunk.page,
         vector_blob(vector)),
    )
    db.executemany(
        "INSERT INTO sentences (chunk_id, start_char, end_char, vector) VALUES (?, ?, ?, ?)",
        [(chunk_id, a, b, vector_blob(v)) for (a, b), v in
         zip(chunk.sentences, sentence_vectors, strict=True)],
    )
    return chunk_id


def _row_id(cursor: sqlite3.Cursor) -> int:
    """The id of the row that the cursor's INSERT wrote."""
    assert cursor.lastrowid is not None, "no row was inserted"
    return cursor.lastrowid


def _delete_documents(db: sqlite3.Connection, paths: Sequence[str]) -> list[int]:
    marks = _marks(paths)
    removed = [row[0] for row in db.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
        f"WHERE d.path IN ({marks})", list(paths))]
    db.execute(f"DELETE FROM documents WHERE path IN ({marks})", list(paths))
    return removed


def _marks(values: Sequence) -> str:
    return ", ".join("?" * len(values))


def text_blob(text: str) -> bytes:
    """A document's text as stored: UTF-8, zlib-compressed (about half the bytes)."""
    return zlib.compress(text.encode("utf-8"))


def _text(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8")


def vector_blob(vector: np.ndarray) -> bytes:
    """A unit vector (a chunk's or a sentence's) as int8, its largest component 127: 1 byte
    a dimension. Against float16, SciFact's nDCG@10 moved by at most 0.0009 and no SQuAD
    figure moved; 4 bits for sentences moved SQuAD answers (quote@1 0.896 to 0.893),
    docs/figures.md."""
    vector = np.asarray(vector, dtype=np.float32)
    largest = float(np.abs(vector).max(initial=0.0))
    scaled = vector * (127 / largest) if largest else vector
    return np.rint(scaled).astype(np.int8).tobytes()


def _vector(blob: bytes) -> np.ndarray:
    """The vector, unit length again (its scale does not matter)."""
    return _vectors([blob])[0]


def _vectors(blobs: list[bytes]) -> np.ndarray:
    """Vectors (n, dim), read in one go, each unit length again."""
    vectors = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), -1).astype(
        np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
