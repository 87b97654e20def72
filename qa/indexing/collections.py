"""Collections: named groups of an index's documents, to ask and search within.

A collection is a tag on documents, not an index of its own: the index keeps one copy of
each document and one set of vectors, a document may be in several collections, and
asking within collections is the `within` filter every backend already applies to its
searches. So a collection costs a row per member here and nothing in the backend, and
moving a document between collections re-embeds nothing. The price: a question within
collections searches a path filter (a backend filters as it ranks, so no passage is lost
to it, but a filter of many thousands of paths is slower than one index per collection).

Tags live in `collections.sqlite3` in the index folder (0600), beside the backend's own
files, the same for every backend; for an index on a Milvus server they belong to the
machine whose folder holds them.
"""

import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from qa.errors import QAError, printable

FILE = "collections.sqlite3"
MAX_NAME = 64
_NAME = re.compile(r"[^\W_][\w .'&()+-]*", re.UNICODE)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS members (
    collection TEXT NOT NULL REFERENCES collections(name) ON UPDATE CASCADE ON DELETE CASCADE,
    path TEXT NOT NULL,
    PRIMARY KEY (collection, path)
);
"""


def check_name(name: object) -> str:
    """A collection's name, stripped; QAError saying why if it cannot be one."""
    if not isinstance(name, str) or not name.strip():
        raise QAError("a collection needs a name")
    name = " ".join(name.split())
    if len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise QAError(f"a collection name is 1 to {MAX_NAME} letters, digits, spaces and "
                      f". ' & ( ) + - _ (starting with a letter or digit), not "
                      f"'{printable(name)}'")
    return name


class Collections:
    """The collections of the index in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE

    def counts(self) -> dict[str, int]:
        """Each collection's name and how many documents it holds, by name."""
        with self._db() as db:
            rows = db.execute("SELECT c.name, count(m.path) FROM collections c LEFT JOIN "
                              "members m ON m.collection = c.name GROUP BY c.name "
                              "ORDER BY c.name COLLATE NOCASE").fetchall()
        return dict(rows)

    def create(self, name: str) -> str:
        name = check_name(name)
        with self._db() as db:
            if db.execute("SELECT 1 FROM collections WHERE name = ?", (name,)).fetchone():
                raise QAError(f"there is already a collection named {name!r}")
            db.execute("INSERT INTO collections VALUES (?)", (name,))
        return name

    def rename(self, old: str, new: str) -> str:
        new = check_name(new)
        with self._db() as db:
            self._require(db, old)
            if old != new and db.execute("SELECT 1 FROM collections WHERE name = ?",
                                         (new,)).fetchone():
                raise QAError(f"there is already a collection named {new!r}")
            db.execute("UPDATE collections SET name = ? WHERE name = ?", (new, old))
        return new

    def delete(self, name: str) -> None:
        """Delete the collection; its documents stay in the index."""
        with self._db() as db:
            self._require(db, name)
            db.execute("DELETE FROM collections WHERE name = ?", (name,))

    def add(self, name: str, paths: Iterable[str]) -> None:
        """Put the documents at `paths` in the collection, creating it if needed."""
        name = check_name(name)
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO collections VALUES (?)", (name,))
            db.executemany("INSERT OR IGNORE INTO members VALUES (?, ?)",
                           ((name, path) for path in paths))

    def discard(self, name: str, paths: Iterable[str]) -> None:
        """Take the documents at `paths` out of the collection (they stay in the index)."""
        with self._db() as db:
            self._require(db, name)
            db.executemany("DELETE FROM members WHERE collection = ? AND path = ?",
                           ((name, path) for path in paths))

    def forget(self, paths: Sequence[str]) -> None:
        """Drop documents removed from the index from every collection."""
        if self.path.exists():
            with self._db() as db:
                db.executemany("DELETE FROM members WHERE path = ?", ((p,) for p in paths))

    def of(self, path: str) -> list[str]:
        """The collections holding the document at `path`."""
        with self._db() as db:
            rows = db.execute("SELECT collection FROM members WHERE path = ? ORDER BY "
                              "collection COLLATE NOCASE", (path,)).fetchall()
        return [row[0] for row in rows]

    def memberships(self) -> dict[str, list[str]]:
        """Each document in some collection, and the collections holding it (by name)."""
        held: dict[str, list[str]] = {}
        with self._db() as db:
            for path, name in db.execute("SELECT path, collection FROM members ORDER BY "
                                         "collection COLLATE NOCASE"):
                held.setdefault(path, []).append(name)
        return held

    def paths(self, names: Sequence[str]) -> list[str]:
        """The documents of the collections named; QAError for a name there is none of."""
        with self._db() as db:
            for name in names:
                self._require(db, name)
            rows = db.execute(
                f"SELECT DISTINCT path FROM members WHERE collection IN "
                f"({','.join('?' * len(names))}) ORDER BY path", list(names)).fetchall()
        return [row[0] for row in rows]

    @staticmethod
    def _require(db: sqlite3.Connection, name: object) -> None:
        if not isinstance(name, str) or not db.execute(
                "SELECT 1 FROM collections WHERE name = ?", (name,)).fetchone():
            raise QAError(f"there is no collection named {name!r}")

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        """A connection in one transaction (committed on success), foreign keys on."""
        if not self.path.exists():
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))  # documents' names
        with closing(sqlite3.connect(self.path, timeout=30)) as db:
            db.execute("PRAGMA foreign_keys = ON")
            db.executescript(_SCHEMA)
            with db:
                yield db
