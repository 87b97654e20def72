"""Index: the one object scripts, the CLI and the web app use.

It ties the stages together: files are loaded, chunked, embedded and written
to the store (SQLite, the source of truth) one document per transaction; the
vector index is kept in step in memory and saved beside the database; questions
are answered from hybrid search. Writers hold a lock file, so two indexing runs
never write the same index at once; readers in other processes notice a newer
generation in the database and refresh their vector index.
"""

import functools
import hashlib
import logging
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from stat import S_ISREG
from typing import Literal

import numpy as np
from filelock import FileLock, Timeout
from tqdm import tqdm

from qa.answer import Answer, compose_answer
from qa.chunking import Chunk, chunk_document
from qa.conversation import standalone_question
from qa.documents import Document, LoadError, find_files, is_supported, load
from qa.embedding import Embedder, load_embedder
from qa.errors import QAError
from qa.llm import LLMConfig, llm_answer, rewrite_question
from qa.search import Hit, Mode, search
from qa.settings import DEFAULT_MODEL, Settings
from qa.store import DocumentInfo, FileState, Store
from qa.vectors import VectorIndex

log = logging.getLogger(__name__)
AnswerMode = Literal["extractive", "llm"]
DATABASE = "index.sqlite3"
VECTORS = "vectors.faiss"
LOCK = "write.lock"
UPLOADS = "uploads"  # files added through the web app are kept here
LOCK_WAIT_SECONDS = 10
EMBED_BATCH_CHUNKS = 256  # chunks embedded and committed together while indexing
PROGRESS_MIN_FILES = 5  # fewer files than this are indexed without a progress bar
MAX_QUESTION_CHARS = 2000


@dataclass(slots=True)
class Report:
    """What one indexing run did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    chunks_embedded: int = 0

    def summary(self) -> str:
        return (
            f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.removed} removed, {len(self.failed)} failed, {len(self.skipped)} skipped; "
            f"{self.chunks_embedded} chunks embedded"
        )


@dataclass(frozen=True, slots=True)
class _Pending:
    """A loaded and chunked file waiting to be embedded and stored."""

    document: Document
    state: FileState
    prefix: str
    chunks: list[Chunk]
    is_update: bool


class Index:
    """A folder holding one index: the SQLite database and the FAISS file derived from it."""

    def __init__(
        self, path: Path, store: Store, embedder: Embedder, dim: int, settings: Settings
    ) -> None:
        self.path = path
        self.settings = settings
        self._store = store
        self._embedder = embedder
        self._dim = dim
        self._vectors_lock = threading.RLock()
        self.llm: LLMConfig | None = LLMConfig.from_env()
        self._vectors: VectorIndex | None = None
        self._vectors_generation = -1

    # -- opening -----------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path = ".qa-index", settings: Settings | None = None) -> "Index":
        """Open an existing index; QAError if there is none or its model differs."""
        path = Path(path)
        if not (path / DATABASE).is_file():
            raise QAError(f"no index at {path}: create one with `qa index PATHS`")
        return cls._connect(path, settings or Settings(), create=False)

    @classmethod
    def create(cls, path: str | Path = ".qa-index", settings: Settings | None = None) -> "Index":
        """Open the index at `path`, creating an empty one if there is none."""
        path = Path(path)
        path.mkdir(mode=0o700, parents=True, exist_ok=True)  # documents can be private
        return cls._connect(path, settings or Settings(), create=True)

    @classmethod
    def build(
        cls, paths: Iterable[str | Path], path: str | Path = ".qa-index",
        settings: Settings | None = None,
    ) -> "Index":
        """Create the index at `path` if needed, then add (or update) `paths` to it."""
        index = cls.create(path, settings)
        index.add(paths)
        return index

    @classmethod
    def _connect(cls, path: Path, settings: Settings, create: bool) -> "Index":
        store = Store(path / DATABASE)
        recorded = store.meta("model")
        if not recorded and not create:
            store.close()
            raise QAError(f"the index at {path} is empty or damaged (it records no model); "
                          "rebuild it with: qa index PATHS")
        if recorded and settings.model and settings.model != recorded:
            store.close()
            raise QAError(
                f"the index at {path} was built with model {recorded!r}, not "
                f"{settings.model!r}; to switch, rebuild it: "
                f"qa --index {path} index --rebuild --model {settings.model}"
            )
        settings = replace(settings, model=recorded or settings.model or DEFAULT_MODEL)
        embedder = load_embedder(settings.model, settings.batch_size)  # loads on first use
        if not recorded:
            store.set_meta({"model": settings.model, "dim": str(embedder.dim)})
        return cls(path, store, embedder, int(store.meta("dim")), settings)

    @classmethod
    def rebuild(
        cls, paths: Iterable[str | Path], path: str | Path = ".qa-index",
        settings: Settings | None = None,
    ) -> Report:
        """Index `paths` afresh (e.g. with another model), then swap it in for the old index.

        The old index stays untouched until the new one is complete.
        """
        path = Path(path)
        if not path.exists():
            return cls.create(path, settings).add(paths)
        with _write_lock(path):
            return cls._rebuild_locked(paths, path, settings)

    @classmethod
    def _rebuild_locked(
        cls, paths: Iterable[str | Path], path: Path, settings: Settings | None
    ) -> Report:
        fresh = path.with_name(path.name + ".rebuild")
        shutil.rmtree(fresh, ignore_errors=True)
        index = cls.create(fresh, settings)
        report = index.add(paths)
        index.close()
        old = path.with_name(path.name + ".old")
        if (path / UPLOADS).is_dir():  # uploaded files live in the index folder: keep them
            (path / UPLOADS).rename(fresh / UPLOADS)
        path.rename(old)
        fresh.rename(path)
        shutil.rmtree(old, ignore_errors=True)
        return report

    def close(self) -> None:
        self._store.close()

    def warm_up(self) -> None:
        """Load the model and the vector index now rather than on the first question."""
        self._embedder.embed(["warm up"])
        self._current_vectors()

    # -- reading -----------------------------------------------------------------

    def documents(self) -> list[DocumentInfo]:
        return self._store.documents()

    def document_text(self, path: str) -> str | None:
        return self._store.document_text(path)

    def search(
        self, question: str, k: int | None = None, mode: Mode = "hybrid",
        within: Sequence[str | Path] | None = None,
    ) -> list[Hit]:
        """The passages that best match `question`, best first.

        within: search only the documents at these paths.
        """
        return self.search_many([question], k, mode, within)[0]

    def search_many(
        self, questions: Sequence[str], k: int | None = None, mode: Mode = "hybrid",
        within: Sequence[str | Path] | None = None,
    ) -> list[list[Hit]]:
        queries = [_clean_question(question) for question in questions]
        return self._search(queries, k or self.settings.k, mode, within)[1]

    def ask(
        self, question: str, history: Sequence[tuple[str, str]] = (), k: int | None = None,
        within: Sequence[str | Path] | None = None, mode: AnswerMode = "extractive",
    ) -> Answer:
        """A short answer to `question` from the documents, with `[n]` citations.

        history: earlier (question, answer) turns, oldest first, for follow-ups.
        within: answer only from the documents at these paths.
        mode: "extractive" quotes the documents; "llm" has the configured language model
            (`self.llm`) write the answer, and checks it (see `qa.llm`).
        """
        *_, answer = self.ask_stream(question, history, k, within, mode)
        return answer

    def ask_stream(
        self, question: str, history: Sequence[tuple[str, str]] = (), k: int | None = None,
        within: Sequence[str | Path] | None = None, mode: AnswerMode = "extractive",
    ) -> Iterator[str | Answer]:
        """Like `ask`, for showing the answer as it is written: yields pieces of an LLM's
        text as they arrive (none in extractive mode), then the final, checked Answer."""
        question = _clean_question(question)
        llm = self._llm_for(mode)
        query = (llm and history and rewrite_question(llm, question, history)
                 or standalone_question(question, history))
        query_vectors, results = self._search([query], k or self.settings.k, "hybrid", within)
        hits = results[0]
        sentences = self._store.sentences([hit.chunk_id for hit in hits])
        extractive = compose_answer(question, query_vectors[0], hits, sentences,
                                    self.settings.min_score)
        if llm is None or not extractive.found:  # nothing relevant: no need to ask a model
            yield extractive
            return
        yield from llm_answer(llm, question, hits, extractive, self._embedder, sentences)

    def _llm_for(self, mode: AnswerMode) -> LLMConfig | None:
        if mode == "extractive":
            return None
        if mode != "llm":
            raise QAError(f"answer mode must be 'extractive' or 'llm', not {mode!r}")
        if self.llm is None:
            raise QAError("no language model is configured: set QA_LLM_BASE_URL and "
                          "QA_LLM_MODEL (or pass --llm-base-url and --llm-model)")
        return self.llm

    def _search(
        self, queries: list[str], k: int, mode: Mode, within: Sequence[str | Path] | None = None
    ) -> tuple[np.ndarray, list[list[Hit]]]:
        query_vectors = self._embedder.embed(queries)
        paths = None if within is None else [str(Path(p).absolute()) for p in within]
        return query_vectors, search(self._store, self._current_vectors(), query_vectors,
                                     queries, k, mode, paths)

    def _current_vectors(self) -> VectorIndex:
        """The vector index for the store's current generation, loaded or rebuilt if stale."""
        with self._vectors_lock:
            generation = self._store.generation()
            if self._vectors is None or self._vectors_generation != generation:
                self._vectors = VectorIndex.load(
                    self.path / VECTORS, self._dim, generation
                ) or self._rebuild_vectors()
                self._vectors_generation = generation
            return self._vectors

    def _rebuild_vectors(self) -> VectorIndex:
        vectors = VectorIndex.build(self._dim, self._store.vectors())
        log.info("rebuilt the vector index from the database: %d vectors", len(vectors))
        return vectors

    # -- writing -----------------------------------------------------------------

    def add(
        self, paths: Iterable[str | Path], progress: Callable[[int, int], None] | None = None
    ) -> Report:
        """Index new and changed files under `paths`; drop indexed files that vanished there.

        Documents indexed from other paths are left as they are.
        progress: called as progress(passages embedded, passages to embed) while embedding.
        """
        paths = [Path(p).expanduser().absolute() for p in paths]
        report = Report()
        with _write_lock(self.path):
            known = self._store.file_states()
            files = list(find_files(paths))
            pending: list[_Pending] = []
            few_files = len(files) < PROGRESS_MIN_FILES  # then show embedding batches instead
            for file in tqdm(files, unit="file", desc="indexing", disable=few_files):
                item = self._prepare(file, known.get(str(file)), file in paths, report)
                if item:
                    pending.append(item)
                if sum(len(p.chunks) for p in pending) >= EMBED_BATCH_CHUNKS:
                    self._write(pending, report, few_files, progress)
                    pending = []
            self._write(pending, report, few_files, progress)
            vanished = _vanished(known, paths)
            if vanished:
                self._change(lambda: (self._store.remove_documents(vanished), []))
                report.removed = len(vanished)
            self._save()
        return report

    def remove(self, path: str | Path) -> int:
        """Remove the document at `path`, or all documents under the folder `path`."""
        target = Path(path).expanduser().absolute()
        with _write_lock(self.path):
            doomed = [p for p in self._store.file_states() if _is_within(Path(p), target)]
            if doomed:
                self._change(lambda: (self._store.remove_documents(doomed), []))
                self._save()
        return len(doomed)

    def _prepare(
        self, file: Path, known: FileState | None, named: bool, report: Report
    ) -> _Pending | None:
        """Load and chunk a new or changed file; None if unchanged, skipped or failed."""
        if not is_supported(file):
            target = report.failed if named else report.skipped
            target.append((str(file), f"unsupported file type {file.suffix or '(none)'!r}"))
            return None
        try:
            stat = file.stat()
            if not S_ISREG(stat.st_mode):
                raise LoadError("not a regular file")
            if known and (known.size, known.mtime) == (stat.st_size, stat.st_mtime):
                report.unchanged += 1
                return None
            if stat.st_size > self.settings.max_file_mb * 1e6:
                raise LoadError(
                    f"the file is {stat.st_size / 1e6:.1f} MB; the limit is "
                    f"{self.settings.max_file_mb:g} MB (max_file_mb, qa index --max-file-mb)"
                )
            data = file.read_bytes()
            state = FileState(stat.st_size, stat.st_mtime, hashlib.sha256(data).hexdigest())
            if known and known.sha256 == state.sha256:
                self._store.touch_document(str(file), state)
                report.unchanged += 1
                return None
            document = load(file, data)
        except (OSError, LoadError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            report.failed.append((str(file), str(reason)))
            log.info("failed: %s: %s", file, reason)
            return None
        prefix, budget = self._prefix_and_budget(document)
        chunks = chunk_document(document, self._embedder.count_tokens, budget,
                                self.settings.overlap_tokens)
        return _Pending(document, state, prefix, chunks, known is not None)

    def _prefix_and_budget(self, document: Document) -> tuple[str, int]:
        """The title line put before each chunk when embedding, and the tokens left for text.

        A title gives every chunk its document's context; one longer than a
        quarter of the budget is left out rather than crowd the text.
        """
        budget = min(self.settings.chunk_tokens, self._embedder.max_tokens)
        prefix = f"{document.title}\n" if document.title else ""
        prefix_tokens = self._embedder.count_tokens([prefix])[0] if prefix else 0
        if prefix_tokens > budget // 4:
            return "", budget
        return prefix, budget - prefix_tokens

    def _write(
        self, pending: list[_Pending], report: Report, show_batches: bool,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Embed the pending documents' chunks together, then store each document atomically."""
        chunks = [(p, c) for p in pending for c in p.chunks]
        if not chunks:
            return
        texts, spans = zip(*(_embedding_input(p.prefix, c) for p, c in chunks), strict=True)
        if progress:
            passage_vectors, sentence_vectors = self._embed_reporting(
                texts, spans, progress, report.chunks_embedded
            )
        else:
            passage_vectors, sentence_vectors = self._embedder.embed_passages(
                texts, spans, progress=show_batches and len(texts) > 2 * self.settings.batch_size
            )
        offset = 0
        for item in pending:
            n = len(item.chunks)
            vectors = passage_vectors[offset:offset + n]
            put = functools.partial(
                self._store.put_document, item.document, item.state, item.chunks, vectors,
                sentence_vectors[offset:offset + n],
            )
            self._change(put, vectors)
            offset += n
            report.chunks_embedded += n
            if item.is_update:
                report.updated += 1
            else:
                report.added += 1

    def _embed_reporting(
        self, texts: Sequence[str], spans: Sequence, progress: Callable[[int, int], None],
        done: int,
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Embed one batch at a time, calling progress(embedded, total) after each."""
        total, step = done + len(texts), self.settings.batch_size
        passages: list[np.ndarray] = []
        sentences: list[np.ndarray] = []
        progress(done, total)
        for start in range(0, len(texts), step):
            vectors, pooled = self._embedder.embed_passages(
                texts[start:start + step], spans[start:start + step]
            )
            passages.append(vectors)
            sentences += pooled
            progress(done + start + len(vectors), total)
        return np.concatenate(passages), sentences

    def _change(
        self, write: Callable[[], tuple[list[int], list[int]]],
        added_vectors: np.ndarray | None = None,
    ) -> None:
        """Run one store transaction, which returns (removed, added) chunk ids, and mirror it
        in the in-memory vector index, with no search in between to see one without the other.
        """
        with self._vectors_lock:
            vectors = self._current_vectors()
            removed, added = write()
            vectors.remove(removed)
            if added:
                vectors.add(np.asarray(added, dtype=np.int64), added_vectors)
            self._vectors_generation = self._store.generation()

    def _save(self) -> None:
        with self._vectors_lock:
            self._current_vectors().save(self.path / VECTORS, self._vectors_generation)


@contextmanager
def _write_lock(path: Path) -> Iterator[None]:
    """Hold the index's lock file, so that no other process writes at the same time."""
    lock = FileLock(path / LOCK, timeout=LOCK_WAIT_SECONDS, mode=0o600)
    try:
        lock.acquire()
    except Timeout as error:
        raise QAError(
            f"another process is writing the index at {path} (waited "
            f"{LOCK_WAIT_SECONDS} s); try again when it has finished"
        ) from error
    try:
        yield
    finally:
        lock.release()


def _clean_question(question: str) -> str:
    """The question with invalid code points (lone surrogates) replaced; QAError if unusable."""
    if not question or not question.strip():
        raise QAError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise QAError(
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,}"
        )
    return question.encode("utf-8", errors="replace").decode("utf-8")


def _embedding_input(prefix: str, chunk: Chunk) -> tuple[str, list[tuple[int, int]]]:
    """The text embedded for a chunk, and its sentences' spans within that text."""
    shift = len(prefix) - chunk.start
    return prefix + chunk.text, [(a + shift, b + shift) for a, b in chunk.sentences]


def _vanished(known: dict[str, FileState], roots: list[Path]) -> list[str]:
    """Indexed files under the folders (or at the paths) given that are no longer there."""
    return [p for p in known if any(_is_within(Path(p), r) for r in roots) and not Path(p).exists()]


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
