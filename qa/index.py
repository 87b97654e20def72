"""Index: the one object scripts, the CLI and the web app use: a thin facade.

Each method hands its work to a stage: `qa.indexing.ingest` (or `qa.indexing.distributed`
on Ray) turns files into stored chunks, the backend (`qa.backends`: SQLite + FAISS, or
Milvus) stores and searches them and keeps its vectors in step, and
`qa.answering.asking` (the ask pipeline: search, then `qa.answering.quoted` or
`qa.answering.generated`) answers. Writers hold a lock
file in the index folder, so two indexing runs on this machine never write at once.
"""

from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Literal

from qa.answering.asking import Asker
from qa.answering.reader import read_passages
from qa.answering.response import Response
from qa.answering.results import Answer
from qa.answering.verifier import verify
from qa.backends import (
    Backend,
    BackendConfig,
    DocumentInfo,
    exists,
    in_folder,
    open_backend,
)
from qa.backends.locking import write_lock
from qa.errors import QAError
from qa.indexing import ingest
from qa.indexing.collections import Collections, check_name
from qa.indexing.embedding import Embedder, fastest_precision, load_embedder
from qa.indexing.files import canonical
from qa.indexing.ingest import Report
from qa.indexing.rebuild import finish_swap, swap_in
from qa.llm.client import LLMConfig
from qa.search import MODES, Hit, Mode, check_choice, check_k
from qa.settings import DEFAULT_MODEL, Settings

AnswerMode = Literal["extractive", "llm"]
ANSWER_MODES: tuple[AnswerMode, ...] = ("extractive", "llm")
MAX_QUESTION_CHARS = 2000
MAX_NAMES = 1000  # paths, or collections, one question may be asked within


class Index:
    """An index folder and the backend holding its documents (see `qa.backends`)."""

    def __init__(
        self, path: Path, backend: Backend, embedder: Embedder, settings: Settings,
        llm: LLMConfig | None = None,
    ) -> None:
        self.path = path
        self.backend = backend
        self.settings = settings
        self._embedder = embedder
        self.collections = Collections(path)
        self._asker = Asker(backend, embedder, settings.min_score, settings.answer_threshold,
                            read_passages, verify)
        self.llm = llm  # the language model of mode="llm" answers, if any

    # -- opening -----------------------------------------------------------------

    @classmethod
    def open(
        cls, path: str | Path = ".qa-index", settings: Settings | None = None,
        backend: BackendConfig | None = None, llm: LLMConfig | None = None,
    ) -> "Index":
        """Open an existing index; QAError if there is none or its model differs.

        llm: the language model that writes mode="llm" answers (None: quoted answers only).
        """
        path, backend = Path(path), backend or BackendConfig()
        finish_swap(path)
        try:
            found = exists(path, backend)
        except OSError as error:
            raise QAError(f"cannot read the index at {path}: {error.strerror}") from error
        if not found:
            raise QAError(f"no index at {path}: create one with `qa index PATHS`")
        return cls._connect(path, settings or Settings(), backend, create=False, llm=llm)

    @classmethod
    def create(
        cls, path: str | Path = ".qa-index", settings: Settings | None = None,
        backend: BackendConfig | None = None, llm: LLMConfig | None = None,
    ) -> "Index":
        """Open the index at `path`, creating an empty one if there is none."""
        path = Path(path)
        finish_swap(path)
        if path.exists() and not path.is_dir():
            raise QAError(f"the index path {path} is a file, not a folder: "
                          "give another --index")
        try:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)  # documents can be private
        except OSError as error:
            raise QAError(f"cannot create the index folder {path}: {error.strerror}") from error
        return cls._connect(path, settings or Settings(), backend or BackendConfig(), create=True,
                            llm=llm)

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
        cls, path: Path, settings: Settings, config: BackendConfig, create: bool,
        llm: LLMConfig | None = None,
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
        precision = (backend.meta("precision") or "float32") if recorded else None
        if precision and settings.precision and settings.precision != precision:
            backend.close()
            raise QAError(
                f"the index at {path} was embedded in {precision}, not {settings.precision}; "
                f"to switch, rebuild it: qa --index {path} index --rebuild "
                f"--precision {settings.precision}")
        model = recorded or settings.model or DEFAULT_MODEL
        precision = precision or settings.precision or fastest_precision()
        settings = replace(settings, model=model, precision=precision)
        embedder = load_embedder(model, settings.batch_size, precision)  # loads on first use
        if not recorded:
            backend.set_meta({"model": model, "dim": str(embedder.dim), "precision": precision})
        return cls(path, backend, embedder, settings, llm)

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
        if not in_folder(backend):
            raise QAError(f"--rebuild swaps index folders, and this index lives outside "
                          f"{path}: remove its documents (qa remove) and index them again, "
                          "or index into a new one")
        finish_swap(path)
        if not path.exists():
            return cls.create(path, settings, backend).add(paths, ray)
        with write_lock(path):
            return swap_in(path, lambda fresh: cls._fill(fresh, paths, settings, backend, ray))

    @classmethod
    def _fill(
        cls, folder: Path, paths: Iterable[str | Path], settings: Settings | None,
        backend: BackendConfig, ray: bool | str,
    ) -> Report:
        """Index `paths` into a new index at `folder`, and close it."""
        with closing(cls.create(folder, settings, backend)) as index:
            return index.add(paths, ray)

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

    def counts(self) -> dict[str, int]:
        """How many documents, chunks and chunk vectors the index holds, and how many of
        the vectors are stale: they have no chunk (a search that finds one warns and has
        the backend drop it, see `qa.search`)."""
        documents = self.documents()
        chunks = sum(document.chunks for document in documents)
        vectors = self.backend.vector_count()
        return {"documents": len(documents), "chunks": chunks, "vectors": vectors,
                "stale_vectors": max(vectors - chunks, 0)}

    def search(
        self, question: str, k: int | None = None, mode: Mode = "hybrid",
        within: Sequence[str | Path] | None = None, collections: Sequence[str] | None = None,
    ) -> list[Hit]:
        """The passages that best match `question`, best first.

        within: search only the documents at these paths (or under these folders);
        collections: only the documents of these collections (with `within`: of either).
        """
        return self.search_many([question], k, mode, within, collections)[0]

    def search_many(
        self, questions: Sequence[str], k: int | None = None, mode: Mode = "hybrid",
        within: Sequence[str | Path] | None = None, collections: Sequence[str] | None = None,
    ) -> list[list[Hit]]:
        queries = [clean_question(question) for question in questions]
        k = check_k(self.settings.k if k is None else k)
        scope = self._scope(within, collections)
        return self._asker.search(queries, k, check_choice("mode", mode, MODES), scope)[1]

    def ask(
        self, question: str, history: Sequence[tuple[str, str]] = (), k: int | None = None,
        within: Sequence[str | Path] | None = None, mode: AnswerMode = "extractive",
        collections: Sequence[str] | None = None,
    ) -> Answer:
        """A short answer to `question` from the documents, with `[n]` citations.

        history: earlier (question, answer) turns, oldest first, for follow-ups.
        within: answer only from the documents at these paths (or under these folders);
        collections: only from the documents of these collections (with `within`: of either).
        mode: "extractive" quotes the documents; "llm" has the configured language model
            (`self.llm`) write the answer, and checks it (see `qa.answering.generated`).
        """
        return self.ask_stream(question, history, k, within, mode, collections).answer()

    def ask_stream(
        self, question: str, history: Sequence[tuple[str, str]] = (), k: int | None = None,
        within: Sequence[str | Path] | None = None, mode: AnswerMode = "extractive",
        collections: Sequence[str] | None = None,
    ) -> Response:
        """Like `ask`, for showing the answer as it is written: iterate the Response for the
        pieces of a language model's text as they arrive (none in extractive mode), then
        call its `answer()` for the final, checked Answer."""
        question = clean_question(question)
        k = check_k(self.settings.k if k is None else k)
        llm = self._llm_for(mode)
        return self._asker.ask(question, history, k, self._scope(within, collections), llm,
                               scope_name(within, collections))

    def use_llm(self, config: LLMConfig | None) -> None:
        """Have `config`'s model write mode="llm" answers from now on (None: none may).

        Safe while questions are being answered: each takes the model once, as it
        starts, and finishes with that one."""
        self.llm = config

    def _llm_for(self, mode: AnswerMode) -> LLMConfig | None:
        if check_choice("answer mode", mode, ANSWER_MODES) == "extractive":
            return None
        llm = self.llm  # read once: use_llm may change it meanwhile
        if llm is None:
            raise QAError("no language model is configured: choose one under Language model "
                          "in the web chat, or set QA_LLM_BASE_URL and QA_LLM_MODEL (or pass "
                          "--llm-base-url and --llm-model)")
        return llm

    def _scope(
        self, within: Sequence[str | Path] | None, collections: Sequence[str] | None
    ) -> list[str] | None:
        """The documents a search is limited to (None: every document): those at, or under
        the folders at, the paths of `within` (or with a file name there given, if one
        document has it), and those of the collections named. The one check of a scope
        for every caller (the web chat passes what a page or a script sends): QAError for
        a value that is not a list of names, or a name that is none of these."""
        places = _names("documents (or folders)", within)
        names = _names("collections", collections)
        if within is None and not names:
            return None
        indexed = list(self.backend.file_states()) if places else []
        paths = _documents_at(indexed, places)
        paths += self.collections.paths(names) if names else []
        return list(dict.fromkeys(paths))

    # -- writing -----------------------------------------------------------------

    def add(
        self, paths: Iterable[str | Path], ray: bool | str = False,
        progress: Callable[[int, int], None] | None = None, collection: str | None = None,
    ) -> Report:
        """Index new and changed files under `paths`; drop indexed files that vanished there.

        Documents indexed from other paths are left as they are. ray: embed on a Ray
        cluster (True: a local one; a string: the address of one), see `qa.indexing.distributed`.
        progress: called as progress(passages embedded, passages to embed) while embedding
        in this process. collection: put the documents under `paths` in this collection
        (created if needed).
        """
        roots = [canonical(p) for p in paths]
        if collection is not None:
            collection = check_name(collection)
        with write_lock(self.path):
            if ray is False:
                report = ingest.ingest(self.backend, roots, self.settings, self._embedder,
                                       progress)
            else:
                from qa.indexing.distributed import ray_ingest

                address = None if ray is True else ray
                report = ray_ingest(self.backend, roots, self.settings, address)
            self.backend.flush()
            if collection is not None:
                self.collections.add(collection, self._paths_under(roots))
        return report

    def documents_under(self, paths: Iterable[str | Path]) -> list[str]:
        """The indexed documents at, or under the folders at, `paths`."""
        return self._paths_under([canonical(p) for p in paths])

    def _paths_under(self, roots: Sequence[Path]) -> list[str]:
        """The indexed documents at or under `roots`."""
        return _under(list(self.backend.file_states()), roots)

    def remove(self, path: str | Path) -> int:
        """Remove the document at `path`, or all documents under the folder `path`."""
        # as indexed (links and '..' resolved), or as named, for a file indexed so before
        targets = {canonical(path), Path(path).expanduser().absolute()}
        with write_lock(self.path):
            doomed = self._paths_under(list(targets))
            if doomed:
                self.backend.remove_documents(doomed)
                self.backend.flush()
                self.collections.forget(doomed)
        return len(doomed)


def _under(indexed: Sequence[str], roots: Sequence[Path]) -> list[str]:
    """The indexed documents at or under `roots`: each document's path and its folders are
    looked up among them, so the cost grows with documents + roots, not their product
    (1,000 roots and 5,000 documents took 40 CPU-s compared pairwise)."""
    wanted = set(roots)
    return [p for p in indexed if not wanted.isdisjoint((path := Path(p), *path.parents))]


def _names(what: str, value: object) -> list[str]:
    """The names (paths, or collections) a caller gave, a list of them or one alone, but
    blank ones."""
    if value is None:
        return []
    values = [value] if isinstance(value, str | Path) else value
    if not isinstance(values, list | tuple) or not all(isinstance(v, str | Path) for v in values):
        raise QAError(f"the {what} to ask within must be a list of names")
    if len(values) > MAX_NAMES:
        raise QAError(f"{len(values):,} {what} are named; the limit is {MAX_NAMES:,}")
    return [str(v) for v in values if str(v).strip()]


def _documents_at(indexed: Sequence[str], places: Sequence[str]) -> list[str]:
    """The indexed documents at or under each path of `places`, or else the one whose file
    name it is; QAError for a place with none, or with more than one of that name. Linear
    in documents + places: each document's path and folders are looked up among them."""
    roots = {canonical(place): place for place in places}
    found: dict[str, list[str]] = {place: [] for place in places}
    named: dict[str, list[str]] = {}
    for path in indexed:
        document = Path(path)
        named.setdefault(document.name, []).append(path)
        for folder in (document, *document.parents):
            if folder in roots:
                found[roots[folder]].append(path)
    paths = []
    for place in places:
        if not found.get(place):
            found[place] = named.get(place, [])
            if len(found[place]) > 1:
                raise QAError(f"{len(found[place])} documents are named {place!r}: give the "
                              "path of the one you mean")
            if not found[place]:
                raise QAError(f"no indexed document is at, under or named {place!r}")
        paths += found[place]
    return paths


def clean_question(question: str) -> str:
    """The question with invalid code points (lone surrogates) replaced; QAError if unusable."""
    if not question or not question.strip():
        raise QAError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise QAError(
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,}"
        )
    return question.encode("utf-8", errors="replace").decode("utf-8")


def scope_name(within: Sequence[str | Path] | None, collections: Sequence[str] | None) -> str:
    """A scope in words, for an answer to say where it looked: "the collection Finance",
    "the collections Finance and HR", "march.txt", "the collection Finance or notes/"."""
    def listed(names: list[str]) -> str:
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"

    parts = []
    if collections:
        names = list(dict.fromkeys(collections))
        parts.append(f"the collection{'s' if len(names) > 1 else ''} {listed(names)}")
    if within:
        parts.append(listed([Path(p).name or str(p) for p in within]))
    return " or ".join(parts) or "the documents chosen"
