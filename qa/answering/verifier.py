"""The verifier: a model trained to read a question and one sentence and score whether the
sentence answers it.

The reader (`qa.answering.reader`) reads whole passages and is weak at saying that none
answers. The verifier reads the one sentence an answer would quote. It is the reader with
a low-rank change to each of its layers' weights (LoRA: the change to a weight matrix W
is LORA_SCALE * B @ A, with A and B of rank 8) and a scoring layer on [CLS],
fitted by `benchmarks/verifier.py` to SQuAD 2.0 (CC BY-SA 4.0): answerable questions with
the sentence holding their answer, against unanswerable ones, other sentences of the
paragraph, and near misses (a question with its rarest word the sentence holds swapped
for another of the article's); and to the same four kinds of pair made from office
folders the project wrote with their questions (`benchmarks/office_pairs.py`: table rows,
short lines and clauses, and near misses such as another branch's or another year's
figure, which SQuAD's prose does not teach). Only A, B and the scoring layer ship, as
`verifier.safetensors` (float16, under 1 MB); nothing is downloaded. They are merged into
a copy of the reader's weights when the verifier loads.
"""

import copy
import threading
from collections.abc import Sequence
from pathlib import Path

from qa.answering.reader import Reader, clipped, loaded_once
from qa.answering.reader import shipped as shipped_reader
from qa.errors import QAError
from qa.indexing.embedding import autocast

WEIGHTS_FILE = Path(__file__).with_name("verifier.safetensors")
MAX_TOKENS = 128  # question and sentence; a longer sentence is cut
LORA_SCALE = 2.0  # the low-rank change is this times B @ A (the weights say which matrices)


class Verifier:
    """A BERT encoder and a scoring layer on its [CLS] output; `score` is safe from
    several threads."""

    def __init__(self, encoder, head, tokenizer, precision: str = "float32") -> None:
        import torch

        self.encoder = encoder
        self.head = head
        self.tokenizer = tokenizer
        self.precision = precision
        self._torch = torch
        self._lock = threading.Lock()
        self._tokenizing = threading.Lock()  # see Reader.tokenizing

    @classmethod
    def load(cls, reader: Reader, weights: Path = WEIGHTS_FILE) -> "Verifier":
        """The reader's encoder with the low-rank changes of `weights` merged in."""
        import torch
        from safetensors.torch import load_file

        if not weights.is_file():
            raise QAError(f"the verifier's weights are missing: {weights}")
        tuned = {key: value.float() for key, value in load_file(weights).items()}
        encoder = copy.deepcopy(reader.model.bert)
        modules = dict(encoder.named_modules())
        head = torch.nn.Linear(encoder.config.hidden_size, 1)
        try:
            with torch.no_grad():
                for name in {key.rsplit(".", 1)[0] for key in tuned if key.startswith("lora.")}:
                    delta = tuned[f"{name}.b"] @ tuned[f"{name}.a"]
                    modules[name.removeprefix("lora.")].weight += LORA_SCALE * delta
                head.load_state_dict({"weight": tuned["head.weight"], "bias": tuned["head.bias"]})
        except (KeyError, RuntimeError) as error:
            raise QAError(f"the verifier's weights do not fit the reader: {weights}") from error
        with reader.tokenizing:  # a tokenizer of its own: each call sets its truncation
            tokenizer = copy.deepcopy(reader.tokenizer)
        return cls(encoder.eval(), head.eval(), tokenizer, reader.precision)

    def encode(self, questions: Sequence[str], sentences: Sequence[str]):
        with self._tokenizing:
            return self.tokenizer([clipped(self.tokenizer, q) for q in questions],
                                  list(sentences), truncation="only_second",
                                  max_length=MAX_TOKENS, padding=True, return_tensors="pt")

    def logits(self, encoded):
        """The scores (above 0: the sentence answers) of `encoded` pairs, with gradients
        when they are trained."""
        with autocast(self.precision):
            states = self.encoder(**encoded).last_hidden_state
            return self.head(states[:, 0]).float().squeeze(-1)

    def score(self, question: str, sentences: Sequence[str]) -> list[float]:
        """How surely each of `sentences` answers `question` (a logit)."""
        if not sentences:
            return []
        encoded = self.encode([question] * len(sentences), sentences)
        with self._lock, self._torch.inference_mode():
            return self.logits(encoded).tolist()


@loaded_once
def shipped() -> Verifier:
    """The verifier of the package's weights over the shipped reader (loads on first use)."""
    return Verifier.load(shipped_reader())


def verify(question: str, sentences: Sequence[str]) -> list[float]:
    """The shipped verifier's score of each sentence for `question`."""
    return shipped().score(question, sentences)
