"""A language model's answer: the model writes it, and every citation it makes is checked.

Any OpenAI-compatible chat endpoint works (Ollama, llama.cpp's server, vLLM,
OpenAI), through the `openai` client. The model sees the numbered passages and
is asked to cite them as [n]. What it writes is then checked, never trusted:

- a marker that points at no passage is removed, and counted;
- each sentence is compared with the sentences of the passages it cites, or, when
  it cites none, of all the passages it was given (cosine similarity of
  embeddings); below SUPPORT_THRESHOLD it is marked unsupported. When most of
  the answer's sentences are unsupported, the answer is not shown as the model's;
- the reply is capped at `max_tokens` (a small local model otherwise writes on
  until its context is full);
  The threshold was set on SciFact, where it passes nearly every claim against its
  gold evidence sentence and almost none against a random other abstract
  (docs/figures.md);
- when the endpoint is down, slow (no first token within `first_token_timeout`, a
  pause of over `timeout` after it, or no complete answer within `total_timeout`;
  keep-alive comments do not count as tokens), breaks the HTTP policy of
  `qa.llm.model_http` (a compressed or oversized reply), answers with an error, writes nothing that
  cites a passage or mostly unsupported claims, the caller gets the extractive
  answer with a short notice instead.
"""

import os
import re
from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from qa.answering.conversation import recent_turns
from qa.answering.results import Answer, Citation, Claim
from qa.backends.base import SentenceRow
from qa.indexing.chunking import split_sentences
from qa.indexing.embedding import Embedder
from qa.llm.client import LLMConfig, LLMError, stream_text
from qa.search import Hit

if TYPE_CHECKING:  # openai is an optional extra: its types only for the checker
    from openai.types.chat import ChatCompletionMessageParam as Message

SUPPORT_THRESHOLD = 0.4
MIN_CLAIM_WORDS = 3  # shorter pieces ("In short:") are not claims to check
_WORD = re.compile(r"\w+")
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_LEADING_MARKERS = re.compile(r"(?:\s*\[\d+(?:\s*,\s*\d+)*\])+")
_ANSWER_PROMPT = (
    "You answer questions using only the numbered passages you are given. Write a short "
    "answer. After every sentence, cite the passage(s) it comes from as [1], [2], etc. If "
    "the passages do not contain the answer, say that they do not. Do not use outside "
    "knowledge."
)
_REWRITE_PROMPT = (
    "Rewrite the user's last question so that it can be understood without the "
    "conversation: replace pronouns with what they refer to. Reply with the question only."
)



def rewrite_question(
    config: LLMConfig, question: str, history: Sequence[tuple[str, str]]
) -> str | None:
    """The question made standalone by the model, or None if it could not."""
    messages: list[Message] = [{"role": "system", "content": _REWRITE_PROMPT}]
    for earlier, answer in recent_turns(history):
        messages += [{"role": "user", "content": earlier},
                     {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": question})
    try:
        rewritten = "".join(stream_text(config, messages)).strip()
    except LLMError:
        return None
    return rewritten or None


def answer_messages(question: str, hits: Sequence[Hit]) -> list["Message"]:
    passages = "\n\n".join(
        f"[{n}] {hit.title or os.path.basename(hit.source)}\n{hit.text}"
        for n, hit in enumerate(hits, 1)
    )
    return [{"role": "system", "content": _ANSWER_PROMPT},
            {"role": "user", "content": f"Passages:\n\n{passages}\n\nQuestion: {question}"}]


def llm_answer(
    config: LLMConfig, question: str, hits: Sequence[Hit], fallback: Answer,
    embedder: Embedder, sentences: Sequence[SentenceRow],
) -> Generator[str, None, Answer]:
    """Stream the model's answer, then return it checked; on failure return `fallback`."""
    parts = []
    try:
        for piece in stream_text(config, answer_messages(question, hits)):
            parts.append(piece)
            yield piece
        checked = check_answer(question, "".join(parts), hits, embedder, sentences)
        return replace(checked, score=fallback.score)
    except LLMError as error:
        return replace(fallback, notice=f"The language model gave no usable answer ({error}); "
                                       "this answer quotes the documents instead.")


def check_answer(
    question: str, text: str, hits: Sequence[Hit], embedder: Embedder,
    sentences: Sequence[SentenceRow],
) -> Answer:
    """The model's text with invalid markers removed and every claim checked: a cited one
    against the passages it cites, an uncited one against all of them. LLMError if it cites
    nothing or most of its claims are unsupported."""
    text, removed = _drop_invalid_markers(text.strip(), len(hits))
    claims = [(text[a:b], _cited(text[a:b])) for a, b in _claim_spans(text)]
    claims = [(sentence, cites) for sentence, cites in claims
              if len(_WORD.findall(_MARKER.sub("", sentence))) >= MIN_CLAIM_WORDS]
    if not any(cites for _, cites in claims):
        raise LLMError("its answer cites none of the passages")
    vectors = embedder.embed([_MARKER.sub("", sentence).strip() for sentence, _ in claims])
    checked, citations = [], {}
    for (sentence, cites), vector in zip(claims, vectors, strict=True):
        sources = [hits[n - 1] for n in cites] if cites else list(hits)
        support, evidence = _best_evidence(vector, sources, sentences)
        checked.append(Claim(sentence, cites, support, support >= SUPPORT_THRESHOLD))
        for n in cites:
            if n not in citations and evidence.get(n):
                citations[n] = _citation(n, hits[n - 1], evidence[n])
    unsupported = sum(not claim.supported for claim in checked)
    if unsupported > len(checked) / 2:
        raise LLMError(f"{unsupported} of its {len(checked)} sentences are not supported by "
                       "the passages")
    return Answer(question, text, True, tuple(citations[n] for n in sorted(citations)),
                  mode="llm", claims=tuple(checked), removed_markers=removed)


def _drop_invalid_markers(text: str, passages: int) -> tuple[str, int]:
    removed = 0

    def keep_valid(match: re.Match) -> str:
        nonlocal removed
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        valid = [n for n in numbers if 1 <= n <= passages]
        removed += len(numbers) - len(valid)
        return "".join(f"[{n}]" for n in valid)

    cleaned = _MARKER.sub(keep_valid, text)
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", cleaned)), removed


def _claim_spans(text: str) -> list[tuple[int, int]]:
    """Sentences of the answer, each with the markers that follow it ("... said. [1]"),
    which a sentence splitter puts at the start of the next sentence."""
    spans: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        leading = _LEADING_MARKERS.match(text, start, end)
        if leading and spans:
            spans[-1] = (spans[-1][0], leading.end())
            start = leading.end()
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            spans.append((start, end))
    return spans


def _cited(sentence: str) -> tuple[int, ...]:
    return tuple(dict.fromkeys(int(n) for m in _MARKER.findall(sentence)
                               for n in re.findall(r"\d+", m)))


def _best_evidence(
    vector: np.ndarray, cited_hits: list[Hit], sentences: Sequence[SentenceRow]
) -> tuple[float, dict[int, SentenceRow]]:
    """The claim's support (best similarity over the cited passages' sentences), and the
    closest sentence in each cited passage, by passage rank."""
    best, evidence = 0.0, {}
    for hit in cited_hits:
        own = [s for s in sentences if s.chunk_id == hit.chunk_id]
        if not own:
            continue
        scores = np.stack([s.vector for s in own]) @ vector
        evidence[hit.rank] = own[int(scores.argmax())]
        best = max(best, float(scores.max()))
    return best, evidence


def _citation(n: int, hit: Hit, sentence: SentenceRow) -> Citation:
    quote = hit.text[sentence.start - hit.start: sentence.end - hit.start]
    return Citation(n, hit, quote, sentence.start, sentence.end)
