"""Ingest: files into an index, as pure stages: find → prepare (load, chunk) → embed → write.

`prepare` and `embed` read only the file and the model, so any worker process can
run them (`qa.indexing.distributed` runs them on Ray); `write` is the one stage that changes
the index, one document per backend write. `ingest` chains the stages in this
process, embedding chunks of several files together (EMBED_BATCH_CHUNKS) since the
model runs faster on full batches, and several such groups at once, one per core (up
to EMBED_WORKERS), while the next files are prepared: one model call at a time kept
about one core busy, whatever torch's threads. Groups are written in order, so what is
stored does not depend on the number of workers. Files whose size and mtime are
unchanged are not read; files whose content hash is unchanged are not embedded again.
"""

import hashlib
import logging
import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Literal

import numpy as np
from tqdm import tqdm

from qa.backends import Backend, FileState
from qa.backends.base import Chunk
from qa.errors import Postponed
from qa.indexing.chunking import chunk_document
from qa.indexing.embedding import Embedder, threads_shared
from qa.indexing.files import canonical, find_files, is_within, open_regular
from qa.loaders.base import RunPages
from qa.loaders.formats import Document, LoadError, is_supported, load
from qa.settings import Settings

log = logging.getLogger(__name__)
EMBED_BATCH_CHUNKS = 256  # chunks embedded and written together while indexing
EMBED_WORKERS = min(os.cpu_count() or 1, 4)  # groups of chunks embedded at once
PROGRESS_MIN_FILES = 5  # fewer files than this are indexed without a progress bar


@dataclass(frozen=True, slots=True)
class Prepared:
    """A loaded and chunked file waiting to be embedded."""

    document: Document
    state: FileState
    prefix: str  # the title line embedded before each chunk
    chunks: list[Chunk]
    is_update: bool


@dataclass(frozen=True, slots=True)
class Embedded:
    """A document ready to be written: its chunks with their passage and sentence vectors."""

    document: Document
    state: FileState
    chunks: list[Chunk]
    vectors: np.ndarray
    sentence_vectors: list[np.ndarray]
    is_update: bool


@dataclass(frozen=True, slots=True)
class Outcome:
    """A file that is not (re)indexed, and why. `touch`: its content is unchanged but its
    size or mtime is new, to be recorded."""

    path: str
    status: Literal["unchanged", "skipped", "failed"]
    reason: str = ""
    touch: FileState | None = None



def counted(number: int, noun: str) -> str:
    """"1 chunk", "3 chunks" (for the nouns the messages use, which all take an s)."""
    return f"{number:,} {noun}" + ("" if number == 1 else "s")

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
            f"{counted(self.chunks_embedded, 'chunk')} embedded"
        )

    def record(self, item: "Embedded | Outcome") -> None:
        if isinstance(item, Embedded):
            self.chunks_embedded += len(item.chunks)
            if item.is_update:
                self.updated += 1
            else:
                self.added += 1
        elif item.status == "unchanged":
            self.unchanged += 1
        else:
            (self.failed if item.status == "failed" else self.skipped).append(
                (item.path, item.reason))


# -- the stages ------------------------------------------------------------------------

def find(paths: list[Path]) -> Iterator[tuple[Path, bool] | Outcome]:
    """The files under `paths`, each with whether it was named itself; an Outcome for
    each one passed over (see `qa.indexing.files.find_files`)."""
    for found in find_files(paths):
        if found.skip:
            yield Outcome(str(found.path), "skipped", found.skip)
        else:
            yield found.path, found.named


def prepare(
    file: Path, known: FileState | None, named: bool, settings: Settings, embedder: Embedder,
    run_pages: RunPages | None = None,
) -> Prepared | Outcome:
    """Load and chunk a new or changed file; an Outcome if it is unchanged, skipped (also
    when OCR has too few of the run's pages left: `run_pages`) or failed."""
    if named and not os.path.lexists(file):
        return Outcome(str(file), "failed", "no such file or folder")
    if not is_supported(file):
        reason = f"unsupported file type {file.suffix or '(none)'!r}"
        return Outcome(str(file), "failed" if named else "skipped", reason)
    try:
        with open_regular(file) as opened:  # checked and read through one descriptor
            stat = os.fstat(opened.fileno())
            if known and (known.size, known.mtime) == (stat.st_size, stat.st_mtime):
                return Outcome(str(file), "unchanged")
            _check_size(stat.st_size, settings)
            data = opened.read(int(settings.max_file_mb * 1e6) + 1)  # it may have grown
        _check_size(len(data), settings)
        state = FileState(stat.st_size, stat.st_mtime, hashlib.sha256(data).hexdigest())
        if known and known.sha256 == state.sha256:
            return Outcome(str(file), "unchanged", touch=state)
        document = load(file, data, settings.ocr, settings.max_chars, run_pages)
    except Postponed as postponed:
        log.info("skipped: %s: %s", file, postponed)
        return Outcome(str(file), "skipped", str(postponed))
    except (OSError, LoadError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        log.info("failed: %s: %s", file, why)
        return Outcome(str(file), "failed", why)
    prefix, budget = _prefix_and_budget(document, settings, embedder)
    chunks = chunk_document(document, embedder.count_tokens, budget, settings.overlap_tokens)
    return Prepared(document, state, prefix, chunks, known is not None)


def _check_size(size: int, settings: Settings) -> None:
    if size > settings.max_file_mb * 1e6:
        raise LoadError(f"the file is {size / 1e6:.1f} MB; the limit is "
                        f"{settings.max_file_mb:g} MB (max_file_mb, qa index --max-file-mb)")


Progress = Callable[[int, int], None]  # called as progress(passages embedded, to embed)


class _Counter:
    """Passages planned and embedded in a run, reported as they change, from any thread."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._lock = threading.Lock()
        self.done = self.total = 0

    def planned(self, n: int) -> None:
        with self._lock:
            self.total += n
            self._progress(self.done, self.total)

    def embedded(self, n: int) -> None:
        with self._lock:
            self.done += n
            self._progress(self.done, self.total)


def embed(batch: list[Prepared], embedder: Embedder, counter: _Counter | None = None
          ) -> list[Embedded]:
    """Embed the chunks of the prepared documents together (passage and sentence vectors),
    telling `counter` after each model batch."""
    chunks = [(p, c) for p in batch for c in p.chunks]
    if not chunks:
        return [Embedded(p.document, p.state, [], np.zeros((0, 0), np.float32), [], p.is_update)
                for p in batch]
    texts, spans = zip(*(_embedding_input(p.prefix, c) for p, c in chunks), strict=True)
    vectors, sentence_vectors = embedder.embed_passages(
        texts, spans, counter.embedded if counter else None)
    embedded, offset = [], 0
    for p in batch:
        n = len(p.chunks)
        embedded.append(Embedded(p.document, p.state, p.chunks, vectors[offset:offset + n],
                                 sentence_vectors[offset:offset + n], p.is_update))
        offset += n
    return embedded


def write(backend: Backend, items: Iterable[Embedded | Outcome], report: Report) -> None:
    """Store each embedded document (one atomic write each) and record every item."""
    for item in items:
        if isinstance(item, Embedded):
            backend.put_document(item.document, item.state, item.chunks, item.vectors,
                                 item.sentence_vectors)
        elif item.touch:
            backend.touch_document(item.path, item.touch)
        report.record(item)


def remove_vanished(backend: Backend, known: dict[str, FileState], roots: list[Path],
                    report: Report) -> None:
    """Drop indexed files under the folders (or at the paths) given that are no longer
    there, or are there under another path than their own (through a link or '..', as
    an index made before paths were canonical may hold them): each is indexed once."""
    vanished = [p for p in known if any(is_within(Path(p), r) for r in roots)
                and not (Path(p).exists() and canonical(p) == Path(p))]
    if vanished:
        backend.remove_documents(vanished)
        report.removed = len(vanished)


# -- the stages chained in this process ----------------------------------------------------

def ingest(
    backend: Backend, paths: list[Path], settings: Settings, embedder: Embedder,
    progress: Progress | None = None,
) -> Report:
    """Index new and changed files under `paths` (`canonical`); drop vanished ones there.

    progress: called as progress(passages embedded, passages to embed) while embedding.
    """
    report = Report()
    known = backend.file_states()
    files = list(find(paths))
    few_files = len(files) < PROGRESS_MIN_FILES  # then show embedding batches instead
    # the bars close on the way out, so an interrupt's message is the last line printed
    with (_passage_counter(progress, few_files) as counter,
          tqdm(files, unit="file", desc="indexing", disable=few_files) as bar):
        groups = _prepared(bar, backend, known, settings, embedder, report, counter)
        write(backend, _embedded(groups, embedder, counter), report)
    remove_vanished(backend, known, paths, report)
    return report


def _prepared(
    files: Iterable[tuple[Path, bool] | Outcome], backend: Backend, known: dict[str, FileState],
    settings: Settings, embedder: Embedder, report: Report, counter: _Counter | None,
) -> Iterator[list[Prepared]]:
    """The files prepared, in groups of at least EMBED_BATCH_CHUNKS chunks (the last may
    have fewer); those not to embed are written (recorded) as they are met. The files
    share the run's OCR pages (Settings.ocr_pages)."""
    run_pages = RunPages(settings.ocr_pages)
    pending: list[Prepared] = []
    for found in files:
        if isinstance(found, Outcome):
            item: Prepared | Outcome = found
        else:
            file, named = found
            item = prepare(file, known.get(str(file)), named, settings, embedder, run_pages)
        if isinstance(item, Outcome):
            write(backend, [item], report)
            continue
        pending.append(item)
        if counter:
            counter.planned(len(item.chunks))
        if sum(len(p.chunks) for p in pending) >= EMBED_BATCH_CHUNKS:
            yield pending
            pending = []
    if pending:
        yield pending


def _embedded(groups: Iterator[list[Prepared]], embedder: Embedder,
              counter: _Counter | None) -> Iterator[Embedded]:
    """The groups embedded, in order. From the second group on, up to EMBED_WORKERS groups
    are embedded at once, each in a thread by a replica of the model with a share of the
    cores, while the next files are prepared and the finished ones written."""
    first = next(groups, None)
    second = next(groups, None)
    if first is None or second is None:
        yield from embed(first, embedder, counter) if first else []
        return
    workers = embedder.replicas(EMBED_WORKERS)
    free: queue.SimpleQueue[Embedder] = queue.SimpleQueue()
    for worker in workers:
        free.put(worker)

    def run(group: list[Prepared]) -> list[Embedded]:
        worker = free.get()
        try:
            return embed(group, worker, counter)
        finally:
            free.put(worker)

    with ThreadPoolExecutor(len(workers)) as pool, threads_shared(len(workers)):
        running: deque[Future[list[Embedded]]] = deque()
        for group in chain([first, second], groups):
            running.append(pool.submit(run, group))
            if len(running) > len(workers):  # no more than that waits in memory
                yield from running.popleft().result()
        while running:
            yield from running.popleft().result()


@contextmanager
def _passage_counter(progress: Progress | None, show: bool) -> Iterator[_Counter | None]:
    """A counter of the run's passages reporting to `progress` and, if `show`, a bar."""
    if progress is None and not show:
        yield None
        return
    with tqdm(total=0, unit="passage", desc="embedding", disable=not show) as bar:
        def report(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)
            if progress:
                progress(done, total)

        yield _Counter(report)


def _prefix_and_budget(
    document: Document, settings: Settings, embedder: Embedder
) -> tuple[str, int]:
    """The title line put before each chunk when embedding, and the tokens left for text.

    A title gives every chunk its document's context; one longer than a
    quarter of the budget is left out rather than crowd the text.
    """
    budget = min(settings.chunk_tokens, embedder.max_tokens)
    prefix = f"{document.title}\n" if document.title else ""
    prefix_tokens = embedder.count_tokens([prefix])[0] if prefix else 0
    if prefix_tokens > budget // 4:
        return "", budget
    return prefix, budget - prefix_tokens


def _embedding_input(prefix: str, chunk: Chunk) -> tuple[str, list[tuple[int, int]]]:
    """The text embedded for a chunk, and its sentences' spans within that text."""
    shift = len(prefix) - chunk.start
    return prefix + chunk.text, [(a + shift, b + shift) for a, b in chunk.sentences]

