"""The one HTTP client policy for language model servers: every call qa makes to one
(listing its models and testing one in `qa.llm.servers`, chat answers in `qa.llm.client`) goes
through `client()`, whose transport holds the call to these limits:

- a deadline for the whole call, checked before it is sent and after every piece of the
  reply read: a server that sends one byte every few seconds is cut off at the deadline
  (at most one read wait, the client's read timeout, after it);
- a wait for progress that only the reader can reset: the chat reader calls
  `Call.progressed()` when a token arrives, so SSE keep-alive comments, which arrive as
  bytes but carry no token, do not keep a call waiting past its first-token timeout or
  its longest pause;
- plain replies only: the request asks for `Accept-Encoding: identity` and a reply that
  is compressed anyway is refused before a byte of it is inflated. httpx inflates each
  network chunk whole (brotli has no output limit there: 2 KB became over 1 GB), so a
  count taken after decompression comes too late; refusing is simpler than decoding with
  our own output limits, and a model server's replies are small text that compression
  does not help;
- a cap on the bytes read, which (nothing being compressed) are the bytes the reader
  gets;
- JSON nested deeper than Python's recursion limit is one line (`parse_json`), not a
  RecursionError.

`reachable()` is the rule for addresses the web page may make the server call: public
ones and this machine's loopback, private and link-local ones only when the server was
started to allow them (`qa serve --allow-private-model-hosts`). It is checked on the
addresses the host name resolves to, before any connection, so its refusal says nothing
about what listens there. Redirects are not followed, so a reply cannot send a call on to
another host.
"""

import ipaddress
import json
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx2

from qa.errors import QAError

PLAIN = ("", "identity")


class ModelServerError(QAError):
    """A model server's reply broke the policy, or its address is not allowed: one line."""


class Call:
    """The limits of one call, and how far it has come.

    total: seconds the whole call may take.
    max_bytes: the most reply bytes it may read.
    first_wait: seconds to the first `progressed()` (None: no such limit).
    pause: the longest wait between two `progressed()` calls after the first.
    """

    def __init__(self, total: float, max_bytes: int, first_wait: float | None = None,
                 pause: float | None = None) -> None:
        self.total, self.max_bytes = total, max_bytes
        self.first_wait, self.pause = first_wait, pause
        self.start = time.monotonic()
        self.last: float | None = None  # when the reader last made progress
        self.read = 0

    def progressed(self) -> None:
        self.last = time.monotonic()

    def check(self) -> None:
        """ModelServerError if the call has run out of time."""
        now = time.monotonic()
        if now - self.start > self.total:
            raise ModelServerError(f"no complete reply within {self.total:g} s")
        if self.last is None and self.first_wait and now - self.start > self.first_wait:
            raise ModelServerError(f"no answer began within {self.first_wait:g} s")
        if self.last is not None and self.pause and now - self.last > self.pause:
            raise ModelServerError(f"the model paused for over {self.pause:g} s")

    def count(self, chunk: bytes) -> None:
        self.read += len(chunk)
        if self.read > self.max_bytes:
            raise ModelServerError(f"the reply is over {self.max_bytes:,} bytes")


def client(call: Call, timeout: httpx2.Timeout, headers: dict[str, str] | None = None
           ) -> httpx2.Client:
    """An HTTP client whose every request is held to `call`."""
    return httpx2.Client(transport=_Policed(call), timeout=timeout, follow_redirects=False,
                         headers={**(headers or {}), "Accept-Encoding": "identity"})


def parse_json(body: bytes) -> Any:
    """The JSON in `body`; ValueError if it is not JSON, ModelServerError if it nests
    deeper than Python can parse."""
    try:
        return json.loads(body)  # UTF-8, -16 or -32, as JSON allows
    except RecursionError:
        raise ModelServerError("the reply nests its JSON too deeply") from None


def reachable(address: str, allow_private: bool) -> None:
    """ModelServerError unless every address the host of `address` resolves to is public
    or loopback (or any address, with `allow_private`); it connects to nothing."""
    host = urlsplit(address.strip()).hostname
    if allow_private or not host:
        return
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError):
        raise ModelServerError(f"the host name {host!r} is not known") from None
    for text in sorted(found):
        ip = ipaddress.ip_address(str(text).split("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        if not (ip.is_loopback or ip.is_global):
            raise ModelServerError(
                f"{host} is {ip}, not a public address, which this page may not reach: start "
                "qa serve with --allow-private-model-hosts to allow it")


class _Policed(httpx2.BaseTransport):
    def __init__(self, call: Call) -> None:
        self.call = call
        self.inner = httpx2.HTTPTransport()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.call.check()
        response = self.inner.handle_request(request)
        encoding = response.headers.get("Content-Encoding", "").strip().lower()
        if encoding not in PLAIN:
            response.close()
            raise ModelServerError(f"the server sent a compressed reply (Content-Encoding: "
                                   f"{encoding[:40]}), though asked for a plain one")
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=_Counted(response.stream, self.call),
                               extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()


class _Counted(httpx2.SyncByteStream):
    def __init__(self, stream: Any, call: Call) -> None:
        self.stream, self.call = stream, call

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.stream:
            self.call.count(chunk)
            self.call.check()
            yield chunk

    def close(self) -> None:
        self.stream.close()
