"""The checks every request meets before Gradio reads it.

Gradio's routes take whatever a client sends; a page on any web site, or any local
process, is such a client. This middleware refuses, with one plain-text line:
- a `Host` name the server was not told it has (a DNS-rebinding page sends its own
  name with the server's address): IP addresses and localhost are always served;
- a body over MAX_BODY_BYTES, or one that does not declare its length, so that no
  route parses more than that; or one of more than MAX_CONTAINERS lists and objects,
  counted as its brackets (a chat history of 300,000 one-letter parts is 9.3 MB, and
  Gradio validates each part before any of qa's code runs, holding every route);
- an upload that is not from the app's own page (a multipart POST from another site
  needs no CORS preflight), over its size, past UPLOADS_PER_MINUTE from one client or
  one login name, or that Gradio's upload cache has no room for;
- a login from a client, or for a login name, that failed LOGIN_FAILURES_PER_MINUTE
  times in the last minute.
A client is counted by its address (`client_key`), with all of loopback as one address:
a local process can send from any of 127.0.0.0/8; and by its login name, with --auth.
"""

import contextlib
import ipaddress
import os
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import PlainTextResponse

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable, Callable], Awaitable[None]]

MAX_BODY_BYTES = 10_000_000  # of any request but an upload: a long conversation fits
MAX_CONTAINERS = 10_000  # `{` and `[` in a request body: a chat of 1,000 messages fits
TOO_MANY_CONTAINERS = (f"Refused: a request may hold at most {MAX_CONTAINERS:,} lists and "
                       "objects (“{” and “[”): a chat history of about 1,000 messages.")
UPLOAD_FILES = 10  # an upload request holds at most this many files of the largest size
CACHE_REQUESTS = 2  # Gradio's upload cache holds at most this many such requests' bytes
UPLOADS_PER_MINUTE = RateLimitItemPerMinute(20)  # upload requests per address, and per name
LOGIN_FAILURES_PER_MINUTE = RateLimitItemPerMinute(5)  # per client address, and per name
ADDRESS, NAME = "from this address", "for this login name"  # what a rate limit counts by
MAX_LOGIN_BYTES = 65_536  # of a login request's body: a name and a password
UPLOAD_ROUTE = "/gradio_api/upload"
LOGIN_ROUTES = ("/login", "/login/")
WRONG_LOGIN = 400  # Gradio's status for wrong credentials


def from_own_page(headers: Headers | MutableMapping[str, str], allowed_hosts: Collection[str]
                  ) -> bool:
    """Whether a request was sent by this app's page: browsers send the page's Origin with
    its requests (the Host it was loaded from, or a name the server was told it has, as
    behind a proxy); scripts send none, other sites' pages their own. X-Forwarded-Host is
    not trusted: any page can send it."""
    origin = urlsplit(headers.get("origin") or "")
    if not origin.netloc:
        return False
    return (origin.netloc.lower() == (headers.get("host") or "").lower()
            or (origin.hostname or "") in allowed_hosts)


def sent_from_elsewhere(headers: Headers | MutableMapping[str, str],
                        allowed_hosts: Collection[str]) -> bool:
    """Whether a request for a file was sent by another site's page: a link followed, or
    an image loaded, carries no Origin, but browsers say where it came from in
    Sec-Fetch-Site; an Origin, when sent, must be this app's. Scripts send neither."""
    if (headers.get("sec-fetch-site") or "none") not in ("same-origin", "none"):
        return True
    return bool(headers.get("origin")) and not from_own_page(headers, allowed_hosts)


def known_host(host: str | None, allowed_hosts: Collection[str]) -> bool:
    """Whether a Host header names this server: an IP address, localhost, or an allowed
    name (a rebinding page can only send a name, its own)."""
    if host is None:  # HTTP/1.0 without Host: not a browser
        return True
    try:
        name = (urlsplit(f"//{host}").hostname or "").lower()
    except ValueError:  # malformed, as "[::1"
        return False
    with contextlib.suppress(ValueError):
        return bool(ipaddress.ip_address(name))
    return name == "localhost" or name in allowed_hosts


def client_key(address: str) -> str:
    """What a rate limit counts a client by: its address, but all of loopback as one (a
    local process may send from any of 127.0.0.0/8) and an IPv6 address by its /64 (which
    one host is given)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:  # not an address: a Unix socket, or none ("-")
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def folder_bytes(folder: Path) -> int:
    """The bytes of the files under a folder (0 if it does not exist)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):  # removed meanwhile
                total += os.lstat(os.path.join(root, name)).st_size
    return total


class Guard:
    """ASGI middleware around the Gradio app: see the module's docstring."""

    def __init__(self, app: ASGIApp, allowed_hosts: Collection[str], max_file_bytes: int,
                 upload_folder: Path) -> None:
        self.app = app
        self.allowed_hosts = frozenset(name.lower() for name in allowed_hosts)
        self.max_upload_bytes = UPLOAD_FILES * max_file_bytes
        self.max_cache_bytes = CACHE_REQUESTS * self.max_upload_bytes
        self.upload_folder = upload_folder
        self.uploading = 0  # bytes of the uploads under way, not all on disk yet
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    async def __call__(self, scope: Scope, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers, path = Headers(scope=scope), scope["path"]
        client = client_key(scope["client"][0] if scope.get("client") else "-")
        length = int(headers.get("content-length") or 0)
        refusal = self.refusal(headers, scope["method"], path, client, login_name(scope))
        if refusal:
            status, message = refusal
            await PlainTextResponse(message, status_code=status)(scope, receive, send)
        elif path == UPLOAD_ROUTE and scope["method"] == "POST":
            await self.upload(scope, receive, send, length)
        elif path in LOGIN_ROUTES and scope["method"] == "POST":
            await self.login(scope, receive, send, client)
        elif length:
            await self.counted(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def refusal(self, headers: Headers, method: str, path: str, client: str, name: str
                ) -> tuple[int, str] | None:
        """(status, message) if the request is refused before Gradio sees it."""
        if not known_host(headers.get("host"), self.allowed_hosts):
            return 421, ("Refused: this server does not serve that host name (start qa serve "
                         "with --allowed-hosts NAME to serve it by NAME).")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return 411, "Refused: a request body must declare its length (Content-Length)."
        length = int(headers.get("content-length") or 0)
        if path == UPLOAD_ROUTE and method == "POST":
            return self.upload_refusal(headers, length, {ADDRESS: client, NAME: name})
        if path in LOGIN_ROUTES and method == "POST":
            spent = self.spent(LOGIN_FAILURES_PER_MINUTE, "failed logins", {ADDRESS: client})
            if spent:
                return 429, spent
            if length > MAX_LOGIN_BYTES:
                return 413, f"Refused: a login is limited to {MAX_LOGIN_BYTES:,} bytes."
        if length > MAX_BODY_BYTES:
            return 413, f"Refused: a request body is limited to {MAX_BODY_BYTES:,} bytes."
        return None

    def upload_refusal(self, headers: Headers, length: int, keys: dict[str, str]
                       ) -> tuple[int, str] | None:
        if not from_own_page(headers, self.allowed_hosts):
            return 403, "Refused: files can only be uploaded from this app's own page."
        if length > self.max_upload_bytes:
            return 413, (f"Refused: an upload is limited to {self.max_upload_bytes:,} bytes "
                         f"({UPLOAD_FILES} files of the largest size).")
        spent = self.spent(UPLOADS_PER_MINUTE, "uploads", keys)
        if spent:
            return 429, spent
        self.count(UPLOADS_PER_MINUTE, "uploads", keys)
        if folder_bytes(self.upload_folder) + self.uploading + length > self.max_cache_bytes:
            return 507, ("Refused: the upload space is full; try again once the uploads "
                         "under way are indexed.")
        return None

    def spent(self, limit: RateLimitItem, what: str, keys: dict[str, str]) -> str | None:
        """Why a request is refused if one of `keys` (its client's address, its login
        name: an empty one is not counted) used up `limit` of `what` in the last minute."""
        for kind, key in keys.items():
            if key and not self.limiter.test(limit, what, kind, key):
                return f"Too many {what} {kind}: try again in a minute."
        return None

    def count(self, limit: RateLimitItem, what: str, keys: dict[str, str]) -> None:
        """Count one of `what` against each of `keys` (as `spent` reads them)."""
        for kind, key in keys.items():
            if key:
                self.limiter.hit(limit, what, kind, key)

    async def upload(self, scope: Scope, receive: Callable, send: Callable, length: int
                     ) -> None:
        """Let an upload through, counting its bytes as taken until it is on disk."""
        self.uploading += length
        try:
            await self.app(scope, receive, send)
        finally:
            self.uploading -= length

    async def login(self, scope: Scope, receive: Callable, send: Callable, client: str
                    ) -> None:
        """Let a login through unless its name failed too often, counting it against the
        client and the name if its credentials are wrong. Its body (small: see `refusal`)
        is read here for the name, then given to Gradio as sent."""
        body = await read_body(receive)
        form = await Request(scope, replaying(body, receive)).form()
        keys = {ADDRESS: client, NAME: str(form.get("username") or "")}
        spent = self.spent(LOGIN_FAILURES_PER_MINUTE, "failed logins", {NAME: keys[NAME]})
        if spent:
            await PlainTextResponse(spent, status_code=429)(scope, receive, send)
            return

        async def counting_send(message: dict) -> None:
            if message["type"] == "http.response.start" and message["status"] == WRONG_LOGIN:
                self.count(LOGIN_FAILURES_PER_MINUTE, "failed logins", keys)
            await send(message)

        await self.app(scope, replaying(body, receive), counting_send)

    async def counted(self, scope: Scope, receive: Callable, send: Callable) -> None:
        """Let a request through unless its body (of at most MAX_BODY_BYTES: see
        `refusal`) holds more than MAX_CONTAINERS lists and objects, counted as its
        `{` and `[` in one quick pass (those in its text count too)."""
        body = await read_body(receive)
        if body.count(b"{") + body.count(b"[") > MAX_CONTAINERS:
            await PlainTextResponse(TOO_MANY_CONTAINERS, status_code=413)(scope, receive, send)
            return
        await self.app(scope, replaying(body, receive), send)


def login_name(scope: Scope) -> str:
    """The name a request is logged in as (its Gradio login cookie's), or "" (none, or
    no --auth)."""
    app = scope.get("app")
    tokens, cookie_id = getattr(app, "tokens", {}), getattr(app, "cookie_id", "")
    cookies = Request(scope).cookies
    token = (cookies.get(f"access-token-{cookie_id}")
             or cookies.get(f"access-token-unsecure-{cookie_id}"))
    return str(tokens.get(token) or "")


async def read_body(receive: Callable) -> bytes:
    """A request's whole body (its length is bounded before this is called)."""
    body = bytearray()
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return bytes(body)


def replaying(body: bytes, receive: Callable) -> Callable[[], Awaitable[dict]]:
    """An ASGI receive that gives `body`, read already, then whatever `receive` gives (a
    disconnect)."""
    given = False

    async def replay() -> dict:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
