"""The Milvus backend: an index in Milvus Lite (one `.db`, in this process) or on a Milvus
server or cluster, through the same pymilvus client.

Six collections, named qa_*: `meta` (model, dim, unfinished writes), `documents`
(one row per file: its current version, hash, size, mtime), `texts` (document text in
pieces, as a VARCHAR holds at most 65,535 bytes), `tables` (the document's tables as
typed cells, `qa.loaders.tables`, JSON in pieces likewise; made when an index of
before them is opened, and a document with no rows there was indexed before them and
has no tables until indexed again: `qa index --rebuild`), `chunks` (text, char span, page, the
passage vector, and a BM25 sparse vector that Milvus computes from a `stems` field)
and `sentences` (span and vector; Milvus has no array of vectors). Milvus needs a
vector field in every collection: the first four carry a 2-d placeholder.

Keyword search stems in Python (Porter, lower case, diacritics removed, as the SQLite
backend's Tantivy index keeps words, `qa.stemming`) and has Milvus's standard tokenizer
split the stems: Milvus accepts the `english` analyzer at creation but fails on
insert, and silently ignores a `stemmer` filter. Its BM25 scores are negative; only
ranks are used (`qa.search` fuses them).

Writes are versioned, with the document row as the commit point: a document's new
text, chunks and sentences are inserted under a new version, then its row is
upserted to point at that version, then the old version's rows are deleted. Readers
only see chunks of a document's current version, so a document is never half
visible. Each write is first recorded in `meta` as unfinished; the next process to
write finishes what a killed writer left (deletes the rows of versions that are not
current), before its own first write.

The hot paths use primary keys only: Milvus Lite answers a lookup by key at once but
scans the collection for a filter on any other field, which grows with the collection
(docs/figures.md). So a document's key is a hash of its path, chunk ids come from a
counter in `meta` (one writer at a time holds the index folder's lock), and sentence n
of chunk c has key c * SENTENCE_SLOTS + n. Only updates and removals delete by filter.
"""

import hashlib
import json
import logging
import re
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from qa.backends.base import (
    MAX_KEYWORDS,
    Chunk,
    ChunkRow,
    DocumentInfo,
    FileState,
    SentenceRow,
    recorded_dim,
)
from qa.errors import QAError
from qa.loaders.cells import Table, tables_from_json, tables_json
from qa.loaders.formats import Document
from qa.stemming import stem, unaccented

log = logging.getLogger(__name__)
PREFIX = "qa_"
TEXT_PIECE = 16_000  # characters: at most 64,000 bytes of UTF-8, under the VARCHAR limit
MAX_VARCHAR = 65_535
MAX_PATH = 4_096
PENDING = "pending:"  # meta keys of unfinished writes
LAYOUT = "2"  # of the collections below; an index of another layout is refused
SENTENCE_SLOTS = 1024  # sentence n of chunk c has id c * 1024 + n (a chunk has <= 200 tokens)
_PLACEHOLDER = [0.0, 0.0]
_WORD = re.compile(r"[^\W_]+")
_ITERATOR_BATCH = 1_000


def _milvus():
    try:
        import pymilvus
    except ImportError as error:
        raise QAError("the Milvus backend needs pymilvus: pip install 'qa[milvus]'") from error
    logging.getLogger("pymilvus").setLevel(logging.CRITICAL)  # errors become QAErrors here
    for noisy in ("grpc._server", "milvus_lite"):  # Milvus Lite's own tracebacks
        logging.getLogger(noisy).setLevel(logging.CRITICAL)
    return pymilvus


def stems(text: str, limit: int | None = None) -> str:
    """The text as lower-case, unaccented Porter stems (`qa.stemming`'s words)."""
    words = _WORD.findall(unaccented(text.lower()))
    if limit is not None:  # a query: each distinct word once
        words = list(dict.fromkeys(words))[:limit]
    return " ".join(stem(word) for word in words)


def _quoted(value: str) -> str:
    """A string literal for a Milvus filter expression."""
    return json.dumps(value, ensure_ascii=False)


def _in(field: str, values: Sequence[str | int]) -> str:
    """A filter: `field` is one of `values` (strings or integers). pymilvus's own `ids=`
    quotes strings with repr(), which Milvus cannot parse when they hold a backslash."""
    literals = (_quoted(v) if isinstance(v, str) else str(int(v)) for v in values)
    return f"{field} in [{', '.join(literals)}]"


def _path_id(path: str) -> int:
    """A document's primary key, from its path (pymilvus pages by a string key with repr())."""
    return int.from_bytes(hashlib.sha256(path.encode("utf-8", "surrogateescape")).digest()[:8]) >> 1


class MilvusBackend:
    """The qa_* collections at `uri` (a Milvus Lite file or a server)."""

    def __init__(self, uri: str, token: str | None = None) -> None:
        self.uri = uri
        self._names = {name: PREFIX + name
                       for name in ("meta", "documents", "texts", "tables", "chunks",
                                   "sentences")}
        pymilvus = _milvus()
        if uri.endswith(".db"):
            _private_folder(Path(uri))
        try:
            self._client = pymilvus.MilvusClient(uri, token=token or "")
        except Exception as error:
            raise QAError(f"cannot open Milvus at {uri}: {_reason(error)}"
                          + (" (Milvus Lite allows one process per file)"
                             if uri.endswith(".db") else "")) from error
        with self._errors():
            self._create_tables()
            self._check_layout()
        self._pending_finished = False  # by this process's first write: see _pending

    # -- schema ----------------------------------------------------------------------

    def _create_tables(self) -> None:
        from pymilvus import DataType

        def table(name: str, fields: list[tuple], auto_id: bool = False) -> None:
            if self._client.has_collection(self._names[name]):
                self._client.load_collection(self._names[name])  # reopened: load it
                return
            schema = self._client.create_schema(auto_id=auto_id)
            for field_name, kind, options in fields:
                schema.add_field(field_name, kind, **options)
            schema.add_field("unused", DataType.FLOAT_VECTOR, dim=len(_PLACEHOLDER))
            index = self._client.prepare_index_params()
            index.add_index("unused", index_type="FLAT", metric_type="L2")
            self._client.create_collection(self._names[name], schema=schema, index_params=index,
                                           consistency_level="Strong")

        text = {"max_length": MAX_VARCHAR}
        path = ("path", DataType.VARCHAR, {"max_length": MAX_PATH})
        version = ("version", DataType.VARCHAR, {"max_length": 32})
        table("meta", [("key", DataType.VARCHAR, {"is_primary": True, "max_length": 256}),
                       ("value", DataType.VARCHAR, text)])
        table("documents", [("id", DataType.INT64, {"is_primary": True}), path, version,
            ("title", DataType.VARCHAR, text), ("sha256", DataType.VARCHAR, {"max_length": 64}),
            ("size", DataType.INT64, {}), ("mtime", DataType.DOUBLE, {}),
            ("indexed_at", DataType.VARCHAR, {"max_length": 32}), ("chunks", DataType.INT64, {}),
        ])
        for pieces in ("texts", "tables"):
            table(pieces, [("id", DataType.INT64, {"is_primary": True}), path, version,
                           ("part", DataType.INT64, {}), ("text", DataType.VARCHAR, text)],
                  auto_id=True)
        dim = self.meta("dim")
        if dim is not None:
            self._create_vector_tables(recorded_dim(dim))

    def _create_vector_tables(self, dim: int) -> None:
        from pymilvus import DataType, Function, FunctionType

        for name in ("chunks", "sentences"):
            if self._client.has_collection(self._names[name]):
                self._client.load_collection(self._names[name])
                continue
            schema = self._client.create_schema(auto_id=False)
            schema.add_field("id", DataType.INT64, is_primary=True)
            schema.add_field("path", DataType.VARCHAR, max_length=MAX_PATH)
            schema.add_field("version", DataType.VARCHAR, max_length=32)
            schema.add_field("start", DataType.INT64)
            schema.add_field("end", DataType.INT64)
            schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
            index = self._client.prepare_index_params()
            index.add_index("vector", index_type="AUTOINDEX", metric_type="IP")
            if name == "chunks":
                schema.add_field("ordinal", DataType.INT64)
                schema.add_field("sentences", DataType.INT64)
                schema.add_field("page", DataType.INT64, nullable=True)
                schema.add_field("title", DataType.VARCHAR, max_length=MAX_VARCHAR)
                schema.add_field("text", DataType.VARCHAR, max_length=MAX_VARCHAR)
                schema.add_field("stems", DataType.VARCHAR, max_length=MAX_VARCHAR,
                                 enable_analyzer=True, analyzer_params={"tokenizer": "standard"})
                schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
                schema.add_function(Function(
                    name="bm25", function_type=FunctionType.BM25,
                    input_field_names=["stems"], output_field_names=["sparse"],
                ))
                index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
            self._client.create_collection(self._names[name], schema=schema, index_params=index,
                                           consistency_level="Strong")

    def _check_layout(self) -> None:
        """Record the collections' layout in a new index; refuse an index of another one."""
        layout = self.meta("layout")
        if layout is None and self.meta("model") is None:
            self.set_meta({"layout": LAYOUT})
        elif layout != LAYOUT:
            raise QAError(f"the Milvus index at {self.uri} was written by another version of "
                          f"qa (layout {layout or 1}, not {LAYOUT}): drop its qa_* collections "
                          "and index again")

    # -- reading ---------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        with self._errors():
            rows = self._client.query(self._names["meta"], filter=_in("key", [key]),
                                      output_fields=["value"])
        return rows[0]["value"] if rows else None

    def file_states(self) -> dict[str, FileState]:
        return {row["path"]: FileState(row["size"], row["mtime"], row["sha256"])
                for row in self._all("documents", ["path", "size", "mtime", "sha256"])}

    def documents(self) -> list[DocumentInfo]:
        rows = self._all("documents", ["path", "title", "chunks", "indexed_at"])
        return sorted((DocumentInfo(r["path"], r["title"], r["chunks"], r["indexed_at"])
                       for r in rows), key=lambda d: d.path)

    def document_text(self, path: str) -> str | None:
        return self._pieces("texts", path)

    def document_tables(self, path: str) -> tuple[Table, ...] | None:
        """None too for a document indexed before tables were stored: it has no pieces."""
        stored = self._pieces("tables", path)
        return tables_from_json(stored) if stored else None

    def _pieces(self, name: str, path: str) -> str | None:
        """The text `_insert_pieces` stored in collection `name` for the document's current
        version ("" if none); None if the document is not indexed."""
        version = self._versions([path]).get(path)
        if version is None:
            return None
        with self._errors():
            rows = self._client.query(
                self._names[name], output_fields=["part", "text"],
                filter=f"path == {_quoted(path)} and version == {_quoted(version)}",
            )
        return "".join(row["text"] for row in sorted(rows, key=lambda row: row["part"]))

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        if not ids or not self._has_vectors():
            return {}
        with self._errors():
            rows = self._client.query(
                self._names["chunks"], ids=[int(i) for i in ids],
                output_fields=["path", "version", "title", "text", "start", "end", "page",
                               "vector"],
            )
        current = self._versions(list({row["path"] for row in rows}))
        return {row["id"]: ChunkRow(row["id"], row["path"], row["title"], row["text"],
                                    row["start"], row["end"], row["page"],
                                    np.asarray(row["vector"], dtype=np.float32))
                for row in rows if current.get(row["path"]) == row["version"]}

    def sentences(self, chunk_ids: Sequence[int]) -> list[SentenceRow]:
        if not chunk_ids or not self._has_vectors():
            return []
        with self._errors():  # by primary key: a filter on another field scans the collection
            counts = self._client.query(self._names["chunks"], filter=_in("id", chunk_ids),
                                        output_fields=["sentences"])
            ids = [row["id"] * SENTENCE_SLOTS + n
                   for row in counts for n in range(row["sentences"])]
            rows = self._client.query(self._names["sentences"], filter=_in("id", ids),
                                      output_fields=["start", "end", "vector"]) if ids else []
        # sorted(), not rows.sort(): sorting pymilvus's result list in place reorders its
        # scalar fields but not its lazily read vectors
        rows = sorted(rows, key=lambda row: (row["id"] // SENTENCE_SLOTS, row["start"]))
        return [SentenceRow(row["id"] // SENTENCE_SLOTS, row["start"], row["end"],
                            np.asarray(row["vector"], dtype=np.float32)) for row in rows]

    def term_frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Milvus exposes no term statistics of its BM25 index (and a filter on `stems`
        would scan the collection), so every term counts as equally rare: answers then
        weigh a question's words by how rare they are among the candidate sentences."""
        return dict.fromkeys(terms, 0), 0

    def dense_search(
        self, query_vectors: np.ndarray, k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        data = [np.asarray(v, dtype=np.float32).tolist() for v in query_vectors]
        return self._search(data, "vector", "IP", k, within)

    def keyword_search(
        self, queries: Sequence[str], k: int, within: Sequence[str] | None = None
    ) -> list[list[int]]:
        query_stems = [stems(query, MAX_KEYWORDS) for query in queries]
        asked = [i for i, s in enumerate(query_stems) if s]
        found = self._search([query_stems[i] for i in asked], "sparse", "BM25", k, within)
        results: list[list[int]] = [[] for _ in queries]
        for i, ranking in zip(asked, found, strict=True):
            results[i] = ranking
        return results

    def _search(self, data: list, field: str, metric: str, k: int,
                within: Sequence[str] | None) -> list[list[int]]:
        if not data or not self._has_vectors() or within == []:
            return [[] for _ in data]
        with self._errors():  # output_fields=[] would return every field, vectors included
            results = self._client.search(
                self._names["chunks"], data=data, anns_field=field, limit=k, output_fields=["id"],
                filter=_in("path", within) if within is not None else "",
                search_params={"metric_type": metric},
            )
        return [[hit["id"] for hit in hits] for hits in results]

    def vector_count(self) -> int:
        """The chunk rows, every version's: a chunk's vector is in its row."""
        if not self._has_vectors():
            return 0
        with self._errors():
            rows = self._client.query(self._names["chunks"], filter="",
                                      output_fields=["count(*)"])
        return int(rows[0]["count(*)"])

    def forget_missing(self, ids: Sequence[int]) -> None:
        """Nothing to repair: a chunk's vector is in its row. An id with no current chunk is
        of an old version, or of a write under way, which the next writer cleans up."""

    def _versions(self, paths: Sequence[str]) -> dict[str, str]:
        """The current version of each indexed document among `paths`."""
        if not paths:
            return {}
        with self._errors():
            rows = self._client.query(self._names["documents"],
                                      filter=_in("id", [_path_id(p) for p in paths]),
                                      output_fields=["path", "version"])
        asked = set(paths)
        return {row["path"]: row["version"] for row in rows if row["path"] in asked}

    def _all(self, name: str, fields: list[str]) -> Iterator[dict]:
        with self._errors():
            rows = self._client.query_iterator(
                self._names[name], batch_size=_ITERATOR_BATCH, filter="id >= 0",
                output_fields=fields,
            )
            try:
                while batch := rows.next():
                    yield from batch
            finally:
                rows.close()

    def _has_vectors(self) -> bool:
        return self._client.has_collection(self._names["chunks"])

    # -- writing ---------------------------------------------------------------------

    def set_meta(self, values: dict[str, str]) -> None:
        with self._errors():
            self._client.upsert(self._names["meta"], [
                {"key": key, "value": value, "unused": _PLACEHOLDER}
                for key, value in values.items()
            ])
            if "dim" in values:
                self._create_vector_tables(int(values["dim"]))

    def put_document(
        self, document: Document, state: FileState, chunks: Sequence[Chunk],
        vectors: np.ndarray, sentence_vectors: Sequence[np.ndarray],
    ) -> None:
        path, version = document.path, uuid.uuid4().hex
        with self._errors(), self._pending([path]):
            previous = self._versions([path]).get(path)
            ids = self._allocate(len(chunks))
            self._insert_pieces("texts", path, version, document.text)
            self._insert_pieces("tables", path, version, tables_json(document.tables))
            self._insert("chunks", [
                {"id": chunk_id, "path": path, "version": version, "ordinal": chunk.ordinal,
                 "sentences": len(chunk.sentences), "start": chunk.start, "end": chunk.end,
                 "page": chunk.page, "title": document.title, "text": chunk.text,
                 "stems": stems(f"{document.title} {chunk.text}"), "vector": vector.tolist()}
                for chunk_id, chunk, vector in zip(ids, chunks, vectors, strict=True)
            ])
            self._insert("sentences", [
                {"id": chunk_id * SENTENCE_SLOTS + n, "path": path, "version": version,
                 "start": a, "end": b, "vector": vector.tolist()}
                for chunk_id, chunk, sentences in zip(ids, chunks, sentence_vectors, strict=True)
                for n, ((a, b), vector) in enumerate(zip(chunk.sentences, sentences, strict=True))
            ])
            self._client.upsert(self._names["documents"], [{  # the commit point
                "id": _path_id(path), "path": path, "version": version, "title": document.title,
                "sha256": state.sha256, "size": state.size, "mtime": state.mtime,
                "indexed_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "chunks": len(chunks), "unused": _PLACEHOLDER,
            }])
            if previous:
                self._delete(f"path == {_quoted(path)} and version == {_quoted(previous)}")

    def touch_document(self, path: str, state: FileState) -> None:
        with self._errors():
            rows = self._client.query(self._names["documents"], filter=_in("id", [_path_id(path)]),
                                      output_fields=["*"])
            rows = [row for row in rows if row["path"] == path]
            if rows:
                row = {key: value for key, value in rows[0].items() if key in _DOCUMENT_FIELDS}
                self._client.upsert(self._names["documents"],
                                    [{**row, "size": state.size, "mtime": state.mtime}])

    def remove_documents(self, paths: Sequence[str]) -> None:
        if paths:
            with self._errors(), self._pending(paths):
                self._client.delete(self._names["documents"],
                                    filter=_in("id", [_path_id(p) for p in paths]))
                self._clean(paths)

    def flush(self) -> None:
        with self._errors():
            for name in self._names.values():
                if self._client.has_collection(name):
                    self._client.flush(name)

    def close(self) -> None:
        self._client.close()
        if self.uri.endswith(".db"):  # Milvus Lite serves a file until released, even moved
            from milvus_lite.server_manager import server_manager_instance

            server_manager_instance.release_server(self.uri)

    def _insert_pieces(self, name: str, path: str, version: str, text: str) -> None:
        """`text` in collection `name`, TEXT_PIECE characters a row."""
        self._insert(name, [
            {"path": path, "version": version, "part": n, "text": text[at:at + TEXT_PIECE],
             "unused": _PLACEHOLDER}
            for n, at in enumerate(range(0, len(text), TEXT_PIECE))
        ])

    def _insert(self, name: str, rows: list[dict]) -> None:
        if rows:
            self._client.insert(self._names[name], rows)

    @contextmanager
    def _pending(self, paths: Sequence[str]) -> Iterator[None]:
        """Record a write to `paths` as unfinished until the block has done and cleaned it up.

        Before its first write, a process finishes the writes a killed one left. Only a
        writer does, under the write lock: a reader opening the index could take a
        running write's new rows for leftovers and delete them.
        """
        if not self._pending_finished:
            self._finish_pending()
            self._pending_finished = True
        key = PENDING + uuid.uuid4().hex
        self.set_meta({key: json.dumps(list(paths))})
        yield
        self._client.delete(self._names["meta"], filter=_in("key", [key]))

    def _allocate(self, n: int) -> list[int]:
        """`n` new chunk ids (one writer at a time: the index folder's write lock)."""
        first = int(self.meta("next_id") or 1)
        self.set_meta({"next_id": str(first + n)})
        return list(range(first, first + n))

    def _delete(self, where: str) -> None:
        """Delete the rows of the document collections that match `where` (a full scan)."""
        for name in ("texts", "tables", "chunks", "sentences"):
            if self._client.has_collection(self._names[name]):
                self._client.delete(self._names[name], filter=where)

    def _clean(self, paths: Sequence[str]) -> None:
        """Delete the rows of `paths` that are not of their documents' current versions."""
        current = self._versions(paths)
        gone = [p for p in paths if p not in current]
        if gone:
            self._delete(_in("path", gone))
        for path, version in current.items():
            self._delete(f"path == {_quoted(path)} and version != {_quoted(version)}")

    def _finish_pending(self) -> None:
        """Finish the writes a killed process left: drop rows of versions not current."""
        rows = self._client.query(self._names["meta"], filter=f'key like "{PENDING}%"',
                                  output_fields=["key", "value"])
        for row in rows:
            log.info("finishing an interrupted write to %s", row["value"])
            self._clean(json.loads(row["value"]))
            self._client.delete(self._names["meta"], filter=_in("key", [row["key"]]))

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn the client's errors into QAErrors that say which Milvus failed."""
        from pymilvus.exceptions import MilvusException

        try:
            yield
        except MilvusException as error:
            raise QAError(f"Milvus at {self.uri} failed: {_reason(error)}") from error


_DOCUMENT_FIELDS = {"id", "path", "version", "title", "sha256", "size", "mtime", "indexed_at",
                    "chunks", "unused"}


def _private_folder(path: Path) -> None:
    """Milvus Lite keeps its files in a folder at the `.db` path, readable by all (0755 and
    0644): a new one is made here first, private (0700), as an index folder is."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise QAError(f"cannot make the Milvus Lite folder {path}: "
                      f"{error.strerror or error}") from error


def _reason(error: Exception) -> str:
    return getattr(error, "message", None) or str(error)
