"""LLM answers: a language model writes the answer, and every citation it makes is checked.

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
  `qa.model_http` (a compressed or oversized reply), answers with an error, writes nothing that
  cites a passage or mostly unsupported claims, the caller gets the extractive
  answer with a short notice instead.
"""

import os
import re
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from qa import model_http
from qa.backends.base import SentenceRow
from qa.chunking import split_sentences
from qa.conversation import recent_turns
from qa.embedding import Embedder
from qa.errors import QAError
from qa.results import Answer, Citation, Claim
from qa.search import Hit

if TYPE_CHECKING:  # openai is an optional extra: its types only for the checker
    from openai.types.chat import ChatCompletionMessageParam as Message

SUPPORT_THRESHOLD = 0.4
DEFAULT_TIMEOUT = 20.0
DEFAULT_FIRST_TOKEN_TIMEOUT = 120.0  # a small local model on a CPU reads the passages slowly
DEFAULT_TOTAL_TIMEOUT = 600.0  # the first token, then 512 tokens at a slow CPU's 2 a second
MAX_REPLY_BYTES = 10_000_000  # of a streamed answer (512 tokens stream as ~150 KB)
DEFAULT_MAX_TOKENS = 512
NO_KEY = "not-needed"  # the API key sent to a server that needs none (the client wants one)
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


class LLMError(QAError):
    """The language model could not give a usable answer; the message says why."""


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """Where the OpenAI-compatible endpoint is and which model to ask.

    timeout: seconds to wait for the connection, and between two parts of the answer.
    first_token_timeout: seconds to wait for the first part of the answer, which a
        local model writes only once it has read the passages.
    total_timeout: seconds the whole answer may take.
    max_tokens: the longest answer the model may write, in its tokens.
    """

    base_url: str
    model: str
    api_key: str = NO_KEY
    timeout: float = DEFAULT_TIMEOUT
    first_token_timeout: float = DEFAULT_FIRST_TOKEN_TIMEOUT
    max_tokens: int = DEFAULT_MAX_TOKENS
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT

    def __post_init__(self) -> None:
        if min(self.timeout, self.first_token_timeout, self.total_timeout) <= 0:
            raise QAError("the language model's timeouts must be positive")
        if self.max_tokens < 16:
            raise QAError(f"max_tokens must be at least 16, got {self.max_tokens}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "LLMConfig | None":
        """From QA_LLM_BASE_URL, QA_LLM_MODEL, QA_LLM_API_KEY, QA_LLM_TIMEOUT,
        QA_LLM_FIRST_TOKEN_TIMEOUT, QA_LLM_MAX_TOKENS, QA_LLM_TOTAL_TIMEOUT; None if the first
        two are unset."""
        base_url, model = environ.get("QA_LLM_BASE_URL"), environ.get("QA_LLM_MODEL")
        if not base_url or not model:
            return None
        try:
            return cls(base_url, model, environ.get("QA_LLM_API_KEY") or NO_KEY,
                       float(environ.get("QA_LLM_TIMEOUT") or DEFAULT_TIMEOUT),
                       float(environ.get("QA_LLM_FIRST_TOKEN_TIMEOUT")
                             or DEFAULT_FIRST_TOKEN_TIMEOUT),
                       int(environ.get("QA_LLM_MAX_TOKENS") or DEFAULT_MAX_TOKENS),
                       float(environ.get("QA_LLM_TOTAL_TIMEOUT") or DEFAULT_TOTAL_TIMEOUT))
        except ValueError as error:
            raise QAError(f"a QA_LLM_* setting is not a number: {error}") from error


def stream_text(config: LLMConfig, messages: list["Message"]) -> Iterator[str]:
    """The model's reply, piece by piece as it streams; LLMError on any failure."""
    from httpx2 import Timeout
    from openai import OpenAI

    call = model_http.Call(config.total_timeout, MAX_REPLY_BYTES,
                           first_wait=config.first_token_timeout, pause=config.timeout)
    waits = Timeout(config.timeout, read=max(config.first_token_timeout, config.timeout))
    try:
        with model_http.client(call, waits) as http:
            client = OpenAI(base_url=config.base_url, api_key=config.api_key, timeout=waits,
                            max_retries=0, http_client=http)
            stream = client.chat.completions.create(
                model=config.model, messages=messages, stream=True, temperature=0,
                max_tokens=config.max_tokens,
            )
            for chunk in stream:
                text = chunk.choices[0].delta.content if chunk.choices else None
                if text:
                    call.progressed()
                    yield text
    except Exception as error:  # whatever the endpoint does wrong, the caller falls back
        stopped = _stopped_by_policy(error)
        if stopped:
            raise LLMError(str(stopped)) from stopped
        raise LLMError(f"{config.base_url} failed: {type(error).__name__}: {error}") from error


def _stopped_by_policy(error: BaseException) -> model_http.ModelServerError | None:
    """The policy's reason, if it stopped the call (the openai client may have wrapped
    it); a RecursionError from parsing a reply is one too."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, model_http.ModelServerError):
            return cause
        if isinstance(cause, RecursionError):
            return model_http.ModelServerError("the reply nests its JSON too deeply")
        cause = cause.__cause__ or cause.__context__
    return None


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
