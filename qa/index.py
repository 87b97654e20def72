"""Index: the one object scripts, the CLI and the web app use: a thin facade.

Each method hands its work to a stage: `qa.ingest` (or `qa.distributed` on Ray)
turns files into stored chunks, the backend (`qa.backends`: SQLite + FAISS, or
Milvus) stores and searches them and keeps its vectors in step, `qa.search` fuses
the rankings and `qa.answer`/`qa.llm` write the answer. Writers hold a lock file in
the index folder, so two indexing runs on this machine never write at once.
"""

import logging
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Literal

import numpy as np

from qa import ingest
from qa.answer import (
    ANSWER_PASSAGES,
    Answer,
    compose_answer,
    question_terms,
)
from qa.backends import MILVUS_LITE_FILE, Backend, BackendConfig, DocumentInfo, exists, open_backend
from qa.backends import sqlite as sqlite_backend
from qa.conversation import standalone_question
from qa.documents import canonical
from qa.embedding import Embedder, load_embedder
from qa.errors import QAError
from qa.ingest import Report
from qa.llm import LLMConfig, llm_answer, rewrite_question
from qa.locking import LOCK, write_lock
from qa.search import MODES, Hit, Mode, check_choice, check_k, search
from qa.settings import DEFAULT_MODEL, Settings

AnswerMode = Literal["extractive", "llm"]
ANSWER_MODES: tuple[AnswerMode, ...] = ("extractive", "llm")
MAX_QUESTION_CHARS = 2000
log = logging.getLogger(__name__)
# The index's own entries in its folder; a rebuild carries every other one over (e.g. the
# web app's uploads), and never deletes one.
_OWN_FILES = frozenset({LOCK, MILVUS_LITE_FILE, *sqlite_backend.FILES})


class Index:
    """An index folder and the backend holding its documents (see `qa.backends`)."""

    def __init__(
        self, path: Path, backend: Backend, embedder: Embedder, settings: Settings
    ) -> None:
        self.path = path
        self.backend = backend
        self.settings = settings
        self._embedder = embedder
        self.llm: LLMConfig | None = LLMConfig.from_env()

    # -- opening -----------------------------------------------------------------

    @classmethod
    def open(
        cls, path: str | Path = ".qa-index", settings: Settings | None = None,
        backend: BackendConfig | None = None,
    ) -> "Index":
        """Open an existing index; QAError if there is none or its model differs."""
        path, backend = Path(path), backend or BackendConfig()
        _finish_swap(path)
        try:
            found = exists(path, backend)
        except OSError as error:
            raise QAError(f"cannot read the index at {path}: {error.strerror}") from error
        if not found:
            raise QAError(f"no index at {path}: create one with `qa index PATHS`")
        return cls._connect(path, settings or Settings(), backend, create=False)

    @classmethod
    def create(
        cls, path: str | Path = ".qa-index", settings: Settings | None = None,
        backend: BackendConfig | None = None,
    ) -> "Index":
        """Open the index at `path`, creating an empty one if there is none."""
        path = Path(path)
        _finish_swap(path)
        if path.exists() and not path.is_dir():
            raise QAError(f"the index path {path} is a file, not a folder: "
                          "give another --index")
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)  # documents can be private
        except OSError as error:
            raise QAError(f"cannot create the index folder {path}: {error.strerror}") from error
        return cls._connect(path, settings or Settings(), backend or BackendConfig(), create=True)

    @classmethod
    def build(
        cls, paths: Iterable[str | Path], path: str | Path = ".qa-index",
        settings: Settings | None = None, backend: BackendConfig | None = None,
    ) -> "Index":
        """Create the index at `path` if needed, then add (or update) `paths` to it."""
        index = cls.create(path, settings, backend)
        index.add(paths)
        return index

    @classmethod
    def _connect(
        cls, path: Path, settings: Settings, config: BackendConfig, create: bool
    ) -> "Index":
        backend = open_backend(path, config)
        recorded = backend.meta("model")
        if not recorded and not create:
            backend.close()
            raise QAError(f"the index at {path} is empty or damaged (it records no model); "
                          "rebuild it with: qa index PATHS")
        if recorded and settings.model and settings.model != recorded:
            backend.close()
            raise QAError(
                f"the index at {path} was built with model {recorded!r}, not "
                f"{settings.model!r}; to switch, rebuild it: "
                f"qa --index {path} index --rebuild --model {settings.model}"
            )
        settings = replace(settings, model=recorded or settings.model or DEFAULT_MODEL)
        embedder = load_embedder(settings.model, settings.batch_size)  # loads on first use
        if not recorded:
            backend.set_meta({"model": settings.model, "dim": str(embedder.dim)})
        return cls(path, backend, embedder, settings)

    @classmethod
    def rebuild(
        cls, paths: Iterable[str | Path], path: str | Path = ".qa-index",
        settings: Settings | None = None, backend: BackendConfig | None = None,
        ray: bool | str = False,
    ) -> Report:
        """Index `paths` afresh (e.g. with another model), then swap it in for the old index.

        The old index stays untouched until the new one is complete. The index must live
        in its folder (SQLite, or Milvus Lite without a URI of its own).
        """
        path, backend = Path(path), backend or BackendConfig()
        if backend.milvus_uri:
            raise QAError(f"--rebuild swaps index folders, and this index lives at "
                          f"{backend.milvus_uri}: remove its documents (qa remove) and index "
                          "them again, or index into a new Milvus URI")
        _finish_swap(path)
        if not path.exists():
            return cls.create(path, settings, backend).add(paths, ray)
        with write_lock(path):
            return cls._rebuild_locked(paths, path, settings, backend, ray)

    @classmethod
    def _rebuild_locked(
        cls, paths: Iterable[str | Path], path: Path, settings: Settings | None,
        backend: BackendConfig, ray: bool | str,
    ) -> Report:
        fresh, old = _sibling(path, "rebuild"), _sibling(path, "old")
        for left in (fresh, old):  # by a rebuild that crashed: what it carried over comes back
            if left.exists():
                _carry_over(left, path)
                _discard(left)
            if left.exists():
                raise QAError(f"{left} holds files that are not the index's (kept by an "
                              "earlier rebuild): move them away, then rebuild again")
        index = cls.create(fresh, settings, backend)
        report = index.add(paths, ray)
        index.close()
        _carry_over(path, fresh)  # what else lives in the folder stays with it
        path.rename(old)  # a crash from here on is finished by _finish_swap
        fresh.rename(path)
        _carry_over(old, path)  # anything added to the old folder meanwhile
        _discard(old)
        return report

    def close(self) -> None:
        self.backend.close()

    def warm_up(self) -> None:
        """Load the model and the vectors now rather than on the first question."""
        self.search("warm up", k=1)

    # -- reading -----------------------------------------------------------------

    def documents(self) -> list[DocumentInfo]:
        return self.backend.documents()

    def document_text(self, path: str) -> str | None:
        return self.backend.document_text(path)

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
        k = check_k(self.settings.k if k is None else k)
        return self._search(queries, k, check_choice("mode", mode, MODES), within)[1]

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
        k = check_k(self.settings.k if k is None else k)
        llm = self._llm_for(mode)
        query = (llm and history and rewrite_question(llm, question, history)
                 or standalone_question(question, history))
        # the sentences of the top ANSWER_PASSAGES passages compete, whatever k asks for
        query_vectors, results = self._search([query], max(k, ANSWER_PASSAGES), "hybrid", within)
        hits = results[0]
        sentences = self.backend.sentences([hit.chunk_id for hit in hits])
        terms = question_terms(query)
        frequencies = self.backend.term_frequencies(terms) if terms else ({}, 0)
        extractive = compose_answer(query, query_vectors[0], hits, sentences,
                                    self.settings.min_score, frequencies)
        extractive = replace(extractive, question=question)
        if llm is None or not extractive.found:  # nothing relevant: no need to ask a model
            yield extractive
            return
        yield from llm_answer(llm, question, hits[:k], extractive, self._embedder, sentences)

    def _llm_for(self, mode: AnswerMode) -> LLMConfig | None:
        if check_choice("answer mode", mode, ANSWER_MODES) == "extractive":
            return None
        if self.llm is None:
            raise QAError("no language model is configured: set QA_LLM_BASE_URL and "
                          "QA_LLM_MODEL (or pass --llm-base-url and --llm-model)")
        return self.llm

    def _search(
        self, queries: list[str], k: int, mode: Mode, within: Sequence[str | Path] | None = None
    ) -> tuple[np.ndarray, list[list[Hit]]]:
        query_vectors = self._embedder.embed(queries)
        paths = None if within is None else [str(canonical(p)) for p in within]
        return query_vectors, search(self.backend, query_vectors, queries, k, mode, paths)

    # -- writing -----------------------------------------------------------------

    def add(
        self, paths: Iterable[str | Path], ray: bool | str = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> Report:
        """Index new and changed files under `paths`; drop indexed files that vanished there.

        Documents indexed from other paths are left as they are. ray: embed on a Ray
        cluster (True: a local one; a string: the address of one), see `qa.distributed`.
        progress: called as progress(passages embedded, passages to embed) while embedding
        in this process.
        """
        paths = [canonical(p) for p in paths]
        with write_lock(self.path):
            if ray is False:
                report = ingest.ingest(self.backend, paths, self.settings, self._embedder,
                                       progress)
            else:
                from qa.distributed import ray_ingest

                address = None if ray is True else ray
                report = ray_ingest(self.backend, paths, self.settings, address)
            self.backend.flush()
        return report

    def remove(self, path: str | Path) -> int:
        """Remove the document at `path`, or all documents under the folder `path`."""
        # as indexed (links and '..' resolved), or as named, for a file indexed so before
        targets = {canonical(path), Path(path).expanduser().absolute()}
        with write_lock(self.path):
            doomed = [p for p in self.backend.file_states()
                      if any(ingest.is_within(Path(p), target) for target in targets)]
            if doomed:
                self.backend.remove_documents(doomed)
                self.backend.flush()
        return len(doomed)


def _sibling(path: Path, suffix: str) -> Path:
    return path.with_name(f"{path.name}.{suffix}")


def _finish_swap(path: Path) -> None:
    """Finish a rebuild's folder swap that a crash interrupted between its two renames:
    the old folder is moved away only once the new one is complete."""
    fresh, old = _sibling(path, "rebuild"), _sibling(path, "old")
    if path.exists() or not old.is_dir() or not fresh.is_dir():
        return
    try:
        with write_lock(old):  # the lock the rebuild held: it is not still running
            if path.exists() or not fresh.is_dir():
                return
            fresh.rename(path)
            _carry_over(old, path)
            _discard(old)
    except QAError:
        if not path.exists():  # else the rebuild finished the swap itself meanwhile
            raise


def _carry_over(source: Path, target: Path, own: frozenset[str] = _OWN_FILES) -> None:
    """Move what is not the index's own from folder `source` into `target`, merging
    folders of the same name; an entry whose name `target` already has stays."""
    for entry in source.iterdir():
        there = target / entry.name
        if entry.name in own:
            continue
        if not there.exists():
            entry.rename(there)
        elif entry.is_dir() and there.is_dir() and not entry.is_symlink():
            _carry_over(entry, there, frozenset())
            with suppress(OSError):
                entry.rmdir()


def _discard(folder: Path) -> None:
    """Delete an index folder's own files, and the folder if nothing else is left in it."""
    for name in _OWN_FILES:
        own = folder / name
        if own.is_dir() and not own.is_symlink():  # Milvus Lite's milvus.db is a folder
            shutil.rmtree(own)
        else:
            own.unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:
        log.warning("kept %s: it holds files that are not the index's", folder)


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
