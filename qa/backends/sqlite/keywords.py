"""Keywords: the Tantivy index, derived from the chunks stored in SQLite, that ranks by BM25.

One Tantivy document per chunk: its id, and one field holding the document's title and
the chunk's text as the keyword index's terms (`qa.stemming.index_terms`, which
Tantivy's whitespace tokenizer splits), so BM25 weighs a passage as one bag of words, as
FTS5's bm25() did, with the product's one stemmer. A question becomes the same terms,
each a term query: no user text is ever parsed, so none is read as query syntax. Terms
that half the passages or more hold are left out (all kept if every one is that common):
BM25 gives them almost no weight, yet each would make every passage a match to score.
Searches never count matches, which would visit them all.

The same index also answers how many passages hold each of a question's terms, the
statistics the answer weighs words by (counted among the passages alive, so those a
write deleted, which Tantivy's own document frequency still counts until a merge, are
not). `KeywordIndex.in_memory` builds one in RAM from the database, for the backend's
fallback when the folder's index cannot be read, written or trusted.

Every commit also rewrites a marker document (chunk id 0, which SQLite never gives)
holding the database identity and generation the index reflects, so a searcher knows in
one snapshot which state of the database it shows. Tantivy allows one writer per folder
across processes: the backend opens one only while it holds the index's write lock.

A damaged index is found, not trusted: before the index is opened or reloaded, every file
of the segments its meta.json lists is checked against the CRC32 Tantivy writes in its
footer (a file already checked, of the same size and time, is not read again: segment
files never change), and a panic or error from Tantivy in a search or reload is raised as
`KeywordsDamaged`, on which the backend searches an index built in RAM and rebuilds
this one. One flipped
bit made Tantivy panic, or silently drop hits, before. Tantivy maps the segment files
into memory, so one cut short under a process that has it open kills that process with
SIGBUS when a search reads past its new end (Python cannot catch it); Tantivy itself never
changes a segment file once written, so before each search the sizes of the files it
reads are compared with those checked (a stat each, microseconds), and one changed is
`KeywordsDamaged` too. What this leaves: a file cut short in the microseconds between
that check and the search's reading of it.
"""

import contextlib
import functools
import json
import logging
import math
import os
import shutil
import struct
import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import tantivy

from qa.backends.base import MAX_KEYWORDS
from qa.stemming import index_terms, number_twin

log = logging.getLogger(__name__)
FOLDER = "keywords"
LAYOUT = "1"  # of the fields below: a marker of another layout means the index is rebuilt
WRITER_HEAP = 50_000_000  # bytes the writer buffers before it writes a segment
_MARKER = 0
MIN_FUZZY_LETTERS, TWO_EDITS_LETTERS = 4, 8  # a term unknown to the index is read fuzzily
FOOTER_MAGIC = 1337  # Tantivy's: a file ends with its footer (JSON), its length, this
ChunkText = tuple[int, str, str]  # (chunk id, document title, chunk text)
Checked = tuple[str, int, int]  # a file's name, size and modification time (ns)
Sizes = dict[Path, int]  # the segment files of a commit, each with its size
T = TypeVar("T")


class KeywordsDamaged(ValueError):
    """The keyword index's files do not match their checksums, or Tantivy failed on them."""


def _guarded(method: Callable[..., T]) -> Callable[..., T]:
    """`method`, with a panic or error of Tantivy's raised as KeywordsDamaged (a Rust panic
    is pyo3's PanicException, a BaseException that `except Exception` lets through)."""

    @functools.wraps(method)
    def guarded(*args: Any, **kwargs: Any) -> T:
        try:
            return method(*args, **kwargs)
        except KeywordsDamaged:
            raise
        except ValueError as error:
            raise KeywordsDamaged(str(error)) from error
        except BaseException as error:
            if type(error).__name__ != "PanicException":
                raise
            raise KeywordsDamaged(f"Tantivy panicked: {error}") from None

    return guarded


def check_files(folder: Path, checked: set[Checked]) -> Sizes:
    """KeywordsDamaged unless each file of the segments meta.json lists ends with Tantivy's
    footer and its CRC32; the files checked are added to `checked`, and those in it already
    are skipped. A file a merge removed meanwhile is looked for again in the new meta.json.
    Returns the size of each file."""
    for _ in range(3):
        try:
            segments = json.loads((folder / "meta.json").read_bytes())["segments"]
            prefixes = tuple(s["segment_id"].replace("-", "") + "." for s in segments)
            sizes = {}
            for path in sorted(folder.iterdir()):
                if path.name.startswith(prefixes):
                    status = path.stat()
                    key = (path.name, status.st_size, status.st_mtime_ns)
                    if key not in checked:
                        _check_file(path)
                        checked.add(key)
                    sizes[path] = status.st_size
            return sizes
        except FileNotFoundError:
            continue
        except (KeyError, TypeError, AttributeError) as error:
            raise KeywordsDamaged(f"meta.json is not Tantivy's: {error!r}") from None
    raise KeywordsDamaged("its files kept vanishing while they were checked")


def check_sizes(sizes: Sizes) -> None:
    """KeywordsDamaged if a file of `sizes` is not of its size now (cut short under a
    process that maps it). A file deleted is no damage: another process's merge deletes
    the files it merged, and a deleted file stays whole while it is mapped."""
    for path, size in sizes.items():
        try:
            now = os.stat(path).st_size
        except FileNotFoundError:
            continue
        if now != size:
            raise KeywordsDamaged(f"{path.name} changed size ({size:,} to {now:,} bytes) "
                                  "while it was open")


def _check_file(path: Path) -> None:
    with path.open("rb") as file:
        size = file.seek(0, 2)
        if size < 8:
            raise KeywordsDamaged(f"{path.name} is cut short")
        file.seek(size - 8)
        length, magic = struct.unpack("<II", file.read(8))
        if magic != FOOTER_MAGIC or length > size - 8:
            raise KeywordsDamaged(f"{path.name} has no footer: it is cut short or damaged")
        file.seek(size - 8 - length)
        try:
            expected = json.loads(file.read(length))["crc"]
        except (ValueError, KeyError, TypeError):
            raise KeywordsDamaged(f"{path.name} has a damaged footer") from None
        file.seek(0)
        crc, left = 0, size - 8 - length
        while left:
            block = file.read(min(left, 1 << 20))
            crc, left = zlib.crc32(block, crc), left - len(block)
    if crc != expected:
        raise KeywordsDamaged(f"{path.name} does not match its checksum")


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("chunk_id", indexed=True, fast=True)
    builder.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
    builder.add_text_field("stamp", stored=True, tokenizer_name="raw")  # the marker's
    return builder.build()


def _as_fts5(held: int, passages: int) -> float:
    """The boost that turns Tantivy's BM25 weight of a term into FTS5's: the same BM25
    but for the IDF, ln(1 + (N - n + 0.5) / (n + 0.5)) in Tantivy (Lucene's), against
    FTS5's ln((N - n + 0.5) / (n + 0.5)), at least 1e-6. Lucene's gives words that many
    passages hold visibly more weight, which changed answers; with the boost the ranking
    is FTS5's (but for Tantivy's coarser passage lengths past ~40 words), and Tantivy's
    block-max pruning still applies, as a boosted term query is still a term scorer.
    (Tantivy's N also counts deleted passages until their segment is merged.)"""
    odds = (max(passages - held, 0) + 0.5) / (held + 0.5)
    return max(math.log(odds), 1e-6) / math.log1p(odds)


class KeywordIndex:
    """The Tantivy index in one folder (or in RAM: no folder), searched from its last
    commit that was reloaded.

    A search reads a snapshot (a searcher), so one running while the index reloads is
    unaffected. The writer exists only from a write to its commit (or `close`).
    """

    @_guarded
    def __init__(self, folder: Path | None, reuse: bool = False) -> None:
        self._checked: set[Checked] = set()
        self._sizes: Sizes = {}  # of the files the searcher reads
        if folder is None:
            self._index = tantivy.Index(_schema())
        else:
            if reuse and (folder / "meta.json").exists():
                self._sizes = check_files(folder, self._checked)
            self._index = tantivy.Index(_schema(), path=str(folder), reuse=reuse)
        # no reader thread of Tantivy's own reloads behind the checks: `reload` does, after them
        self._index.config_reader(reload_policy="manual")
        self._folder = folder
        self._schema = self._index.schema
        self._writer: tantivy.IndexWriter | None = None
        self._searcher = self._index.searcher()
        self.stamp = self._stamp(self._searcher)

    @classmethod
    def open(cls, folder: Path, writable: bool) -> "KeywordIndex | None":
        """The index in `folder`; created (or, if unreadable or damaged, made anew) when
        `writable`; None if there is none that can be read."""
        try:
            if writable:
                folder.mkdir(mode=0o700, exist_ok=True)
            index = cls(folder, reuse=True)
            if writable:
                index._private()
            return index
        except (OSError, ValueError) as error:
            if not writable:
                return None
            log.warning("keyword index %s is unreadable (%s); making it anew", folder, error)
        try:
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(mode=0o700)
            index = cls(folder, reuse=False)
            index._private()
            return index
        except (OSError, ValueError) as error:
            log.warning("cannot make the keyword index %s (%s)", folder, error)
            return None

    @classmethod
    def in_memory(cls, chunks: Iterable[ChunkText], identity: str,
                  generation: int) -> "KeywordIndex":
        """An index in RAM holding `chunks`, the database's at `generation`."""
        index = cls(None)
        index.replace_all(chunks, identity, generation)
        return index

    @_guarded
    def reload(self) -> None:
        """See the last commit, of this process or another, once its files are checked."""
        sizes = {} if self._folder is None else check_files(self._folder, self._checked)
        self._index.reload()
        searcher = self._index.searcher()
        self._searcher, self.stamp, self._sizes = searcher, self._stamp(searcher), sizes

    @_guarded
    def search(self, text: str, k: int, only: Sequence[int] | None = None) -> list[int]:
        """Chunk ids, best BM25 first, of the passages holding any of the text's terms (but
        the common ones); only among the chunks `only`, if given."""
        searcher = self._searcher
        check_sizes(self._sizes)
        terms = [term for term in dict.fromkeys(index_terms(text)) if term][:MAX_KEYWORDS]
        terms += [twin for twin in map(number_twin, terms) if twin and twin not in terms]
        passages = searcher.num_docs - 1  # the marker is no passage
        held = {term: searcher.doc_freq("body", term) for term in terms}
        terms = [term for term in terms if held[term] < passages / 2] or terms
        if not terms or only == []:
            return []
        query = tantivy.Query.boolean_query([(tantivy.Occur.Should, self._term_query(
            term, held[term], passages)) for term in terms])
        if only is not None:
            query = tantivy.Query.boolean_query([
                (tantivy.Occur.Must, query),
                (tantivy.Occur.Must, tantivy.Query.term_set_query(
                    self._schema, "chunk_id", list(only))),
            ])
        hits = searcher.search(query, k, count=False).hits
        ids = searcher.fast_field_values("chunk_id", [address for _, address in hits])
        return [int(chunk_id) for chunk_id in ids if chunk_id is not None]

    def _term_query(self, term: str, held: int, passages: int) -> tantivy.Query:
        """The query for one term, weighted as FTS5 would (`_as_fts5`); a word of letters
        that no passage holds matches the words one or two edits from it instead
        ("recieve": "receive", "adress": "address"), and those it begins, as a short form
        does ("refurb": "refurbishment"), weighted as a word one passage holds."""
        if held or not term.isalpha() or len(term) < MIN_FUZZY_LETTERS:
            query = tantivy.Query.term_query(self._schema, "body", term, index_option="freq")
            return tantivy.Query.boost_query(query, _as_fts5(held, passages))
        edits = 1 if len(term) < TWO_EDITS_LETTERS else 2
        query = tantivy.Query.boolean_query([
            (tantivy.Occur.Should, tantivy.Query.fuzzy_term_query(
                self._schema, "body", term, distance=edits)),
            (tantivy.Occur.Should, tantivy.Query.fuzzy_term_query(
                self._schema, "body", term, distance=0, prefix=True))])
        return tantivy.Query.boost_query(query, math.log1p((passages + 0.5) / 1.5))

    @_guarded
    def frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many passages hold each of `terms`, and how many passages there are."""
        searcher = self._searcher
        check_sizes(self._sizes)
        held = {}
        for term in terms:
            query = tantivy.Query.term_query(self._schema, "body", term, index_option="basic")
            found = searcher.search(query, 1, count=True)
            held[term] = found.count  # type: ignore[attr-defined]  # not in tantivy's stub
        return held, max(searcher.num_docs - 1, 0)  # the marker is no passage

    def apply(self, removed: Sequence[int], added: Iterable[ChunkText]) -> None:
        """Delete the chunks `removed` and add `added`, seen by searches after `commit`."""
        writer = self._writing()
        if removed:  # by query: a term of a Python int is an i64, which no u64 id equals
            writer.delete_documents_by_query(
                tantivy.Query.term_set_query(self._schema, "chunk_id", list(removed)))
        for chunk_id, title, text in added:
            document = tantivy.Document()
            document.add_unsigned("chunk_id", chunk_id)  # Document(chunk_id=) makes an i64
            document.add_text("body", " ".join(index_terms(f"{title}\n{text}")))
            writer.add_document(document)

    def replace_all(self, chunks: Iterable[ChunkText], identity: str, generation: int) -> None:
        """Make the index hold exactly `chunks`, the database's at `generation`."""
        self._writing().delete_all_documents()
        self.apply([], chunks)
        self.commit(identity, generation)

    def commit(self, identity: str, generation: int) -> None:
        """Make the changes so far, and the database state they bring the index to, seen
        by every search from now on (in this process and, on reload, in others)."""
        writer = self._writing()
        writer.delete_documents_by_query(
            tantivy.Query.term_set_query(self._schema, "chunk_id", [_MARKER]))
        marker = tantivy.Document()
        marker.add_unsigned("chunk_id", _MARKER)
        marker.add_text("stamp", f"{LAYOUT} {identity} {generation}")
        writer.add_document(marker)
        writer.commit()
        self.close()
        self._private()
        self.reload()

    def close(self) -> None:
        """Drop the writer, and with it the changes not committed, its memory and its lock."""
        if self._writer is not None:
            self._writer.rollback()
            self._writer.wait_merging_threads()  # consumes the writer; the lock goes with it
            self._writer = None

    def _private(self) -> None:
        """Make the index's files its owner's only, as every other file of the index is:
        Tantivy creates them as the umask allows (the folder, 0700, already keeps others
        out). Run once the writer is gone, when no merge can be making new files. Never
        fails: another process's writer may be adding and deleting files meanwhile."""
        if self._folder is None:
            return
        try:
            paths = list(self._folder.iterdir())
        except OSError:
            return
        for path in paths:
            with contextlib.suppress(OSError):
                if path.is_file() and path.stat().st_mode & 0o077:
                    path.chmod(0o600)

    def _writing(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self._index.writer(heap_size=WRITER_HEAP, num_threads=1)
        return self._writer

    def _stamp(self, searcher: tantivy.Searcher) -> tuple[str, int] | None:
        """(database identity, generation) that the searcher's snapshot reflects, if any."""
        query = tantivy.Query.term_set_query(self._schema, "chunk_id", [_MARKER])
        hits = searcher.search(query, 1, count=False).hits
        if not hits:
            return None
        parts = searcher.doc(hits[0][1]).to_dict()["stamp"][0].split(" ")
        if len(parts) != 3 or parts[0] != LAYOUT:
            return None
        return parts[1], int(parts[2])
