"""Language model servers: which models a server offers, and whether one of them answers.

Used to set a model up while the app runs (the web chat's Language model section).
A server address is taken as the user types it: a local Ollama's
`http://127.0.0.1:11434`, or an OpenAI-compatible API's base such as
`https://api.openai.com/v1`. Its API base is the address with `/v1` added unless it
already ends so; the models are listed by `GET <base>/models` (with the key, as OpenAI
asks), and, where that is missing (an Ollama older than its OpenAI-compatible list),
by Ollama's own `GET <address without /v1>/api/tags`. Every failure is one line saying
what happened (nothing answers, no answer in time, not a model server, the key was
refused), never the key itself. Every request is held to the policy of
`qa.llm.model_http`: each list within FIND_TIMEOUT in all, at most MAX_LIST_BYTES, plain.
"""

import time
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

import httpx2

from qa.llm import model_http
from qa.llm.client import NO_KEY, LLMConfig, LLMError, stream_text

FIND_TIMEOUT = 5.0  # seconds for each list of models, connecting included
MAX_LIST_BYTES = 2_000_000  # of a list of models (OpenRouter's, with descriptions: ~1 MB)
TRY_MESSAGE = "Reply with the single word: ready."
TRY_TOKENS = 16  # the fewest LLMConfig allows


@dataclass(frozen=True, slots=True)
class Models:
    """The models a server offers, and the API base its chat is reached at."""

    base_url: str
    names: tuple[str, ...]
    kind: str  # "Ollama" or "OpenAI-compatible"


@dataclass(frozen=True, slots=True)
class Tried:
    """A model's reply to a one-line request, and how long it took."""

    reply: str
    seconds: float


def api_base(address: str) -> str:
    """The OpenAI-compatible API base of a server address; LLMError if it is not an
    http(s) address."""
    address = address.strip().rstrip("/")
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LLMError(f"a server address starts with http:// or https:// and names a host, "
                       f"as http://127.0.0.1:11434; {address or 'nothing'!r} does not")
    return address if address.endswith("/v1") else f"{address}/v1"


def has_key(api_key: str | None) -> bool:
    return bool(api_key) and api_key != NO_KEY


def find_models(address: str, api_key: str | None = None,
                timeout: float = FIND_TIMEOUT) -> Models:
    """The models the server at `address` offers; LLMError saying why if it cannot tell."""
    base = api_base(address)
    listed = _get_json(f"{base}/models", api_key, timeout)
    if isinstance(listed, dict) and isinstance(listed.get("data"), list):
        names = [m.get("id") for m in listed["data"] if isinstance(m, dict)]
        return _models(base, names, "OpenAI-compatible")
    tags = _get_json(f"{base.removesuffix('/v1')}/api/tags", api_key, timeout)
    if isinstance(tags, dict) and isinstance(tags.get("models"), list):
        names = [m.get("name") for m in tags["models"] if isinstance(m, dict)]
        return _models(base, names, "Ollama")
    raise LLMError(f"{base}/models is not a list of models: is {address.strip()} the "
                   "address of a language model server?")


def _models(base: str, names: list[Any], kind: str) -> Models:
    found = tuple(sorted({n for n in names if isinstance(n, str) and n.strip()}))
    if not found:
        hint = " (add one with: ollama pull llama3.2)" if kind == "Ollama" else ""
        raise LLMError(f"the server at {base} offers no models{hint}")
    return Models(base, found, kind)


def _get_json(url: str, api_key: str | None, timeout: float) -> Any:
    """The JSON at `url`; None if the server has no such page or it is not JSON (another
    kind of server may still answer elsewhere); LLMError if the server cannot be asked."""
    headers = {"Authorization": f"Bearer {api_key}"} if has_key(api_key) else {}
    call = model_http.Call(timeout, MAX_LIST_BYTES)
    try:
        with model_http.client(call, httpx2.Timeout(timeout), headers) as client:
            response = client.get(url)
        if response.status_code in (404, 405):
            return None
        if response.status_code >= 400:
            raise LLMError(_status(url, response.status_code))
        return model_http.parse_json(response.content)
    except httpx2.HTTPError as error:
        raise LLMError(_hide(_http_failure(url, error, timeout), api_key)) from error
    except model_http.ModelServerError as error:
        raise LLMError(f"{url}: {error}") from error
    except ValueError:  # not JSON, or not text
        return None


def try_model(config: LLMConfig) -> Tried:
    """Ask the model a one-line question through the path answers take (`qa.llm.client`): its
    reply and how long it took; LLMError saying why it did not answer."""
    start = time.monotonic()
    messages: Any = [{"role": "user", "content": TRY_MESSAGE}]
    try:
        reply = "".join(stream_text(replace(config, max_tokens=TRY_TOKENS), messages)).strip()
    except LLMError as error:
        raise LLMError(_hide(_model_failure(config, error), config.api_key)) from error
    if not reply:
        raise LLMError(f"{config.model} at {config.base_url} answered with no text")
    return Tried(reply, time.monotonic() - start)


def _model_failure(config: LLMConfig, error: LLMError) -> str:
    """Why the openai client's request failed, in one line (its errors wrap those of its
    own copy of httpx)."""
    from openai import APIConnectionError, APIStatusError, APITimeoutError

    url, cause = config.base_url, error.__cause__
    if isinstance(cause, APIStatusError):
        return _status(url, cause.status_code, config.model)
    if isinstance(cause, APITimeoutError):
        waited = max(config.timeout, config.first_token_timeout)
        return f"{url} did not answer within {waited:g} s"
    if isinstance(cause, APIConnectionError) and "refused" in str(cause.__cause__).lower():
        return _refused(url)
    if isinstance(cause, model_http.ModelServerError):  # it answered, not as it should
        return f"{config.model} at {url}: {error}"
    return str(error)


def _http_failure(url: str, error: httpx2.HTTPError, timeout: float) -> str:
    """Why an httpx request failed, in one line."""
    if isinstance(error, httpx2.ConnectTimeout):
        return f"could not connect to {url} within {timeout:g} s: is the address right?"
    if isinstance(error, httpx2.TimeoutException):
        return f"{url} did not answer within {timeout:g} s"
    if isinstance(error, httpx2.ConnectError) and "refused" in str(error).lower():
        return _refused(url)
    return f"{url} failed: {type(error).__name__}: {error}"


def _refused(url: str) -> str:
    return f"nothing answers at {url} (connection refused): is the server running?"


def _status(url: str, status: int, model: str | None = None) -> str:
    if status in (401, 403):
        return f"{url} refused the API key (HTTP {status}): check the key"
    if status == 404 and model:
        return f"{url} has no model named {model!r} (HTTP 404)"
    return f"{url} answered with an error (HTTP {status})"


def _hide(text: str, api_key: str | None) -> str:
    """`text` without the key, should a server have put it in its error."""
    return text.replace(api_key, "…") if api_key and has_key(api_key) else text
