"""The language model's client: any OpenAI-compatible chat endpoint (Ollama, llama.cpp's
server, vLLM, OpenAI), reached through the `openai` client over `qa.llm.model_http`.

`LLMConfig` says where the endpoint is, which model to ask and how long to wait;
`stream_text` streams a reply and raises `LLMError` when the endpoint is down, slow (no
first token within `first_token_timeout`, a pause of over `timeout` after it, or no
complete answer within `total_timeout`; keep-alive comments do not count as tokens),
breaks the HTTP policy of `qa.llm.model_http` (a compressed or oversized reply) or
answers with an error. The reply is capped at `max_tokens` (a small local model otherwise
writes on until its context is full). What the reply says is checked in
`qa.answering.generated`.
"""

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qa.errors import QAError
from qa.llm import model_http

if TYPE_CHECKING:  # openai is an optional extra: its types only for the checker
    from openai.types.chat import ChatCompletionMessageParam as Message

DEFAULT_TIMEOUT = 20.0
DEFAULT_FIRST_TOKEN_TIMEOUT = 120.0  # a small local model on a CPU reads the passages slowly
DEFAULT_TOTAL_TIMEOUT = 600.0  # the first token, then 512 tokens at a slow CPU's 2 a second
MAX_REPLY_BYTES = 10_000_000  # of a streamed answer (512 tokens stream as ~150 KB)
DEFAULT_MAX_TOKENS = 512
NO_KEY = "not-needed"  # the API key sent to a server that needs none (the client wants one)
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
