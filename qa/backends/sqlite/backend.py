"""The SQLite + FAISS + Tantivy backend: an index as files in one folder, on one machine.

SQLite (`store`) is the source of truth, Tantivy (`keywords`) gives the keyword
ranking, and FAISS (`vectors`) the dense one. Both are derived: every store
transaction bumps a generation number, and each index records the database's
identity and the generation it reflects.

The in-memory FAISS index is kept in step with each write (under one lock, so no
search sees one without the other) and, if approximate (from APPROX_MIN vectors on),
saved beside the database; an exact one is not saved (it is built from the database in
under a second and a half) and an older file of it is deleted. Readers in other
processes see a newer generation and reload or rebuild it from the stored vectors,
never by re-embedding; a reader that rebuilt an approximate one saves it for the next
one, if no writer holds the index's lock at that moment.

The Tantivy index (the folder `keywords`) gets each write's changes too, and
commits them, with the generation they bring it to, at `flush` (the end of an
`Index.add` or `remove`). It gives the keyword ranking and the answer's term statistics.
A search that finds it behind the database reloads it (another process committed), or
rebuilds it from the stored chunks if no writer holds the index's lock. While a writer
holds it (its changes not yet committed, in this process or another), the last commit
is searched and the chunks deleted since are left out of what it finds: no search
returns a chunk deleted before it began, and the writer's new chunks are found by the
dense search until it commits. Where the folder's index cannot be used at all (a
read-only folder, one that cannot be opened, or damaged while a writer holds the
index), an index built in RAM from the database's chunks answers, kept until the
database changes. A keyword index found damaged (`KeywordsDamaged`: a checksum, or
Tantivy failing) is dropped, and made anew from the database as soon as no writer holds
the index.

`qa index --rebuild` swaps the whole folder for a new one: before each use the
backend checks that its database file is still the one in the folder, and if not
opens the new one (and drops its vectors), so a long-running process (the web
app) reads and writes the new index, never the deleted one.
"""

import logging
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from qa.backends.base import Chunk, ChunkRow, DocumentInfo, FileState, SentenceRow, recorded_dim
from qa.backends.locking import try_write_lock
from qa.backends.sqlite.keywords import FOLDER as KEYWORDS
from qa.backends.sqlite.keywords import KeywordIndex, KeywordsDamaged
from qa.backends.sqlite.store import Store
from qa.backends.sqlite.vectors import VectorIndex
from qa.loaders.cells import Table
from qa.loaders.formats import Document

log = logging.getLogger(__name__)
DATABASE = "index.sqlite3"
VECTORS = "vectors.faiss"
FILES = (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", VECTORS, "vectors.tmp", KEYWORDS)


class SQLiteBackend:
    """The database, the FAISS file and the Tantivy folder in `folder`; safe to share
    between threads."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.RLock()
        self._store = Store(folder / DATABASE)
        self._store_file = _file_id(folder / DATABASE)
        self._vectors: VectorIndex | None = None
        self._vectors_of: tuple[str, int] = ("", -1)  # (database identity, generation)
        self._keywords: KeywordIndex | None = None
        # what the keyword index holds, its changes not yet committed included
        self._keywords_of: tuple[str, int] | None = None
        # the database state at which the keyword index could not be opened or rebuilt:
        # searches use one in RAM, without trying again, until the database changes
        self._no_keywords_at: tuple[str, int] | None = None
        self._in_ram: KeywordIndex | None = None  # that one, of the state in its stamp
        self._in_ram_lock = threading.Lock()

    # -- reading -------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        return self.store().meta(key)

    def file_states(self) -> dict[str, FileState]:
        return self.store().file_states()

    def documents(self) -> list[DocumentInfo]:
        return self.store().documents()

    def document_text(self, path: str) -> str | None:
        return self.store().document_text(path)

    def document_tables(self, path: str) -> tuple[Table, ...] | None:
        return self.store().document_tables(path)

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        return self.store().chunks(ids)

    def sentences(self, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        return self.store().sentences(chunk_ids)

    def term_frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Counted in the keyword index a search would read now (see `keyword_search`)."""
        store = self.store()
        try:
            return self._searchable_keywords(store)[0].frequencies(terms)
        except KeywordsDamaged as error:
            self._discard_keywords(store, error)
        return self._keywords_in_ram(store).frequencies(terms)

    def dense_search(
        self, query_vectors: np.ndarray, k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        if within is None:
            vectors = self.vectors()
        else:  # a small exact index of just those documents' chunks
            vectors = VectorIndex.build(_dim(self.store()),
                                        [self.store().document_vectors(within)])
        _, ids = vectors.search(query_vectors, k)
        return [[int(i) for i in row if i >= 0] for row in ids]

    def keyword_search(
        self, queries: Sequence[str], k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        store = self.store()
        only = None if within is None else store.chunk_ids(within)
        try:
            keywords, behind = self._searchable_keywords(store)
            if behind:
                return [_search_present(keywords, store, query, k, only) for query in queries]
            return [keywords.search(query, k, only) for query in queries]
        except KeywordsDamaged as error:
            self._discard_keywords(store, error)
        in_ram = self._keywords_in_ram(store)
        return [in_ram.search(query, k, only) for query in queries]

    def vector_count(self) -> int:
        return len(self.vectors())

    def forget_missing(self, ids: Sequence[int]) -> None:
        """Drop `ids` from the vector index (chunk ids are never given twice, so an id with
        no chunk never gets one), and save it for readers, who then load it repaired. An
        id removed since the search ran is gone already: that changes nothing."""
        with self._lock:
            vectors, store = self.vectors(), self._store
            before = len(vectors)
            vectors.remove(ids)
            if len(vectors) < before:
                log.warning("dropped %d stale vector(s) with no chunk from the vector index in "
                            "%s", before - len(vectors), self.folder)
                self._save_for_readers(vectors, store, self._vectors_of)

    def store(self) -> Store:
        """The database now in the folder: reopened if a rebuild swapped the folder."""
        try:
            now = _file_id(self.folder / DATABASE)
        except FileNotFoundError:  # in the middle of a swap: the old one a moment longer
            return self._store
        if now != self._store_file:
            with self._lock:
                if now != self._store_file:
                    log.info("the index at %s was rebuilt; reading the new one", self.folder)
                    old, self._store = self._store, Store(self.folder / DATABASE)
                    self._store_file, self._vectors = now, None
                    old.close()  # else the deleted database stays on disk while it is open
                    self._close_keywords()  # its writer's changes were the old database's
        return self._store

    def vectors(self) -> VectorIndex:
        """The FAISS index for the store's current generation, loaded or rebuilt if stale."""
        with self._lock:
            store = self.store()
            current = (store.identity, store.generation())
            if self._vectors is None or self._vectors_of != current:
                dim = _dim(store)
                self._vectors = VectorIndex.load(self.folder / VECTORS, dim, *current)
                if self._vectors is None:
                    self._vectors = VectorIndex.build(dim, store.vectors())
                    log.info("rebuilt the vector index from the database: %d vectors",
                             len(self._vectors))
                    self._save_for_readers(self._vectors, store, current)
                self._vectors_of = current
            return self._vectors

    def _save_for_readers(
        self, vectors: VectorIndex, store: Store, current: tuple[str, int]
    ) -> None:
        """Save vectors just rebuilt, so the next process need not: only if no writer holds
        the index now (never waiting for one), and the database is still as they reflect."""
        if store.readonly or (lock := try_write_lock(self.folder)) is None:
            return
        try:
            if (store.identity, store.generation()) == current:
                self._save(vectors, current)
        except OSError as error:
            log.info("could not save the vector index (%s)", error.strerror or error)
        finally:
            lock.release()

    def _save(self, vectors: VectorIndex, current: tuple[str, int]) -> None:
        """Save an approximate index (the caller holds the index's lock); delete the file of
        an exact one, which would be older than the database and is no longer needed."""
        if vectors.approximate:
            vectors.save(self.folder / VECTORS, *current)
        else:
            (self.folder / VECTORS).unlink(missing_ok=True)

    def _searchable_keywords(self, store: Store) -> tuple[KeywordIndex, bool]:
        """The keyword index a search reads now, and whether it is behind the database: the
        folder's if it shows the database as it is (reloaded, or rebuilt if no writer holds
        the index); its last commit if that is of this database, behind a writer's changes
        (what it finds may have been deleted since); else one built in RAM."""
        current = (store.identity, store.generation())
        keywords = self._keywords
        if (keywords is None or keywords.stamp != current) and self._no_keywords_at != current:
            keywords = self._reloaded_keywords(store, current)
        if keywords is not None and keywords.stamp == current:
            with self._in_ram_lock:
                self._in_ram = None  # not needed any more
            return keywords, False
        if keywords is not None and self._no_keywords_at != current and _behind(
                keywords.stamp, current):
            return keywords, True
        return self._keywords_in_ram(store), False

    def _reloaded_keywords(self, store: Store, current: tuple[str, int]) -> KeywordIndex | None:
        """The folder's keyword index with the last commit, of this process or another; or
        rebuilt, if behind the database and no writer holds the index; None if it cannot
        be opened. This process's own changes not yet committed are left in its writer."""
        with self._lock:
            keywords = self._open_keywords(store)
            if keywords is None:
                self._no_keywords_at = current
                return None
            if self._keywords_of == keywords.stamp:  # no changes of this process's pending
                keywords.reload()
                if keywords.stamp != current:
                    self._rebuild_keywords_for_readers(keywords, store)
                self._keywords_of = keywords.stamp
            return keywords

    def _keywords_in_ram(self, store: Store) -> KeywordIndex:
        """A keyword index in RAM of the database's chunks, built when first needed at each
        state of the database (one changed while it is built is built again next time)."""
        with self._in_ram_lock:
            current = (store.identity, store.generation())
            in_ram = self._in_ram
            if in_ram is None or in_ram.stamp != current:
                self._in_ram = in_ram = None  # its memory freed before the next is built
                self._in_ram = in_ram = KeywordIndex.in_memory(store.chunk_texts(), *current)
                log.info("built a keyword index in memory from the database in %s",
                         self.folder)
            return in_ram

    def _open_keywords(self, store: Store) -> KeywordIndex | None:
        if self._keywords is None:
            self._keywords = KeywordIndex.open(self.folder / KEYWORDS, not store.readonly)
            self._keywords_of = None if self._keywords is None else self._keywords.stamp
        return self._keywords

    def _rebuild_keywords_for_readers(self, keywords: KeywordIndex, store: Store) -> None:
        """Rebuild the keyword index from the database, if no writer holds the index now
        (never waiting for one)."""
        if store.readonly or (lock := try_write_lock(self.folder)) is None:
            return
        try:
            keywords.reload()  # a writer may have committed since
            if keywords.stamp != (store.identity, store.generation()):
                self._rebuild_keywords(keywords, store)
        finally:
            lock.release()

    def _rebuild_keywords(self, keywords: KeywordIndex, store: Store) -> None:
        """Make the keyword index hold the database's chunks (a failure is only logged:
        searches use one built in RAM meanwhile)."""
        try:
            keywords.replace_all(store.chunk_texts(), store.identity, store.generation())
            log.info("rebuilt the keyword index from the database")
        except (OSError, ValueError) as error:
            keywords.close()
            self._no_keywords_at = (store.identity, store.generation())
            log.warning("could not rebuild the keyword index in %s (%s); keyword searches use "
                        "one built in memory meanwhile", self.folder / KEYWORDS, error)

    def _discard_keywords(self, store: Store, error: KeywordsDamaged) -> None:
        """Drop a keyword index found damaged, and delete it if no writer holds the index
        (never waiting for one): the next search makes it anew from the database. While a
        writer holds it, searches use one built in RAM until the database changes."""
        log.warning("the keyword index in %s is damaged (%s); keyword searches use one built "
                    "in memory until it is rebuilt", self.folder / KEYWORDS, error)
        with self._lock:
            self._close_keywords()
            if store.readonly or (lock := try_write_lock(self.folder)) is None:
                self._no_keywords_at = (store.identity, store.generation())
                return
            try:
                shutil.rmtree(self.folder / KEYWORDS, ignore_errors=True)
            finally:
                lock.release()

    def _close_keywords(self) -> None:
        if self._keywords is not None:
            self._keywords.close()
        self._keywords, self._keywords_of = None, None

    # -- writing -------------------------------------------------------------------

    def set_meta(self, values: dict[str, str]) -> None:
        self.store().set_meta(values)

    def put_document(
        self, document: Document, state: FileState, chunks: Sequence[Chunk],
        vectors: np.ndarray, sentence_vectors: Sequence[np.ndarray],
    ) -> None:
        def put(store: Store) -> tuple[list[int], list[int]]:
            return store.put_document(document, state, chunks, vectors, sentence_vectors)

        self._change(put, vectors, [(document.title, chunk.text) for chunk in chunks])

    def touch_document(self, path: str, state: FileState) -> None:
        self.store().touch_document(path, state)

    def remove_documents(self, paths: Sequence[str]) -> None:
        self._change(lambda store: (store.remove_documents(paths), []))

    def flush(self) -> None:
        """Save the vector index and commit the keyword index's changes; a failure (a full
        disk) is only logged: the database holds everything, and the next reader rebuilds
        either from it."""
        with self._lock:
            vectors = self.vectors()
            try:
                self._save(vectors, self._vectors_of)
            except OSError as error:
                log.warning("could not save the vector index %s (%s); it is rebuilt from the "
                            "database when next needed", self.folder / VECTORS,
                            error.strerror or error)
            keywords, holds = self._keywords, self._keywords_of
            if keywords is not None and holds is not None and keywords.stamp != holds:
                try:
                    keywords.commit(*holds)
                except (OSError, ValueError) as error:
                    self._close_keywords()
                    log.warning("could not commit the keyword index %s (%s); it is rebuilt "
                                "from the database when next needed", self.folder / KEYWORDS,
                                error)

    def close(self) -> None:
        with self._lock:
            self._close_keywords()  # its changes not committed are dropped
            self._store.close()

    def _change(
        self, write: Callable[[Store], tuple[list[int], list[int]]],
        added_vectors: np.ndarray | None = None, added_texts: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Run one store transaction, which returns (removed, added) chunk ids, and mirror it
        in the in-memory vector index, with no search in between to see one without the
        other, and in the keyword index's writer (`added_texts`: (title, text) per chunk).
        """
        with self._lock:
            vectors = self.vectors()
            store = self._store  # the one `vectors` reflect
            keywords = self._keywords_to_write(store)
            removed, added = write(store)
            vectors.remove(removed)
            if added:
                assert added_vectors is not None, "chunks added without their vectors"
                vectors.add(np.asarray(added, dtype=np.int64), added_vectors)
            self._vectors_of = (store.identity, store.generation())
            if keywords is not None:
                self._mirror_in_keywords(keywords, removed, list(zip(added, added_texts,
                                                                         strict=True)))

    def _mirror_in_keywords(self, keywords: KeywordIndex, removed: list[int],
                            added: list[tuple[int, tuple[str, str]]]) -> None:
        """Give the keyword index's writer a write's changes; a failure is only logged (the
        changes are dropped, and the index rebuilt from the database when next searched)."""
        try:
            keywords.apply(removed, [(chunk_id, title, text) for chunk_id, (title, text) in added])
            self._keywords_of = self._vectors_of
        except (OSError, ValueError) as error:
            keywords.close()
            self._keywords_of = keywords.stamp
            log.warning("could not update the keyword index %s (%s); it is rebuilt from the "
                        "database when next searched", self.folder / KEYWORDS, error)

    def _keywords_to_write(self, store: Store) -> KeywordIndex | None:
        """The keyword index, in step with the database before a write (the caller holds the
        index's lock): rebuilt from it if behind. None if it cannot be opened."""
        keywords = self._open_keywords(store)
        current = (store.identity, store.generation())
        if keywords is not None and self._keywords_of != current:
            keywords.close()  # changes that no longer match the database
            try:
                keywords.reload()
            except KeywordsDamaged as error:
                log.warning("the keyword index in %s is damaged (%s); making it anew",
                            self.folder / KEYWORDS, error)
                self._close_keywords()
                shutil.rmtree(self.folder / KEYWORDS, ignore_errors=True)
                keywords = self._open_keywords(store)
                if keywords is None:
                    return None
            if keywords.stamp != current:
                self._rebuild_keywords(keywords, store)
            self._keywords_of = keywords.stamp
        return keywords if keywords is not None and self._keywords_of == current else None


def _behind(stamp: tuple[str, int] | None, current: tuple[str, int]) -> bool:
    """Whether a keyword index of `stamp` shows an earlier state of the database now at
    `current` (not another database's, nor one it cannot place)."""
    return stamp is not None and stamp[0] == current[0] and stamp[1] < current[1]


def _search_present(keywords: KeywordIndex, store: Store, query: str, k: int,
                    only: Sequence[int] | None) -> list[int]:
    """The best `k` of the keyword index's hits that still have a chunk (it is behind the
    database: a writer may have deleted some since), searching deeper while too few do."""
    wanted = k
    while True:
        found = keywords.search(query, wanted, only)
        present = store.present(found)
        hits = [chunk_id for chunk_id in found if chunk_id in present]
        if len(hits) >= k or len(found) < wanted:
            return hits[:k]
        wanted *= 2


def _file_id(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_dev, stat.st_ino


def _dim(store: Store) -> int:
    """The vectors' dimension, which an index records when it is created."""
    return recorded_dim(store.meta("dim"))
