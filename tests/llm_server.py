"""A scripted OpenAI-compatible chat server for the tests: real HTTP, real SSE streaming.

    python tests/llm_server.py PORT

No model can run here, so the reply is scripted; the model name picks the script:
  quote        the first sentence of passage [1], cited [1]
  invent       that, plus a claim citing passage [9], which does not exist
  unsupported  that, plus an invented claim citing [1]
  uncited      a reply with no citation at all
  mostly_unsupported  that, plus two invented claims, one cited and one not
  slow         waits 30 s before answering
  slow_start   waits 3 s, then answers as quote does
  error        HTTP 500
  malformed    a stream whose data is not JSON
Requests asking to rewrite a follow-up get "<previous question> <question>"; a request
without passages (a test of the model) gets "Ready.".
GET /requests returns how many chat requests were served, the max_tokens of the last, and
the Authorization header of the last request for anything else (None if it had none).

GET /v1/models lists the scripts, as an OpenAI-compatible server does. A path prefix makes
the server behave as another kind (the rest of the path is as above):
  /ollama   an Ollama whose models are listed only by GET /api/tags (no /v1/models)
  /private  every request needs the API key KEY ("Authorization: Bearer KEY"), else 401
  /slow     every request waits 3 s before it is answered
and hostile ones:
  /brotli   every reply is a brotli bomb (Content-Encoding: br): 2 KB that inflate to 1 GB
  /drip     every reply sends its headers, then one byte a second, for ever
  /deep     GET /v1/models is 100,000 "[" (JSON nested deeper than Python parses)
  /keepalive  a chat reply is an SSE keep-alive comment every 0.3 s and never a token
  /endless  a chat reply is a token every 0.3 s, for ever
Any other GET gets a web page (HTML), as a server that is not a model server would send.
"""

import functools
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import brotli

served = 0
last_max_tokens = None
last_authorization = None
KEY = "sesame-key-1234"
MODELS = ["quote", "invent", "unsupported", "uncited", "mostly_unsupported", "slow",
          "slow_start", "error", "malformed"]
PREFIXES = ("/ollama", "/private", "/slow", "/brotli", "/drip", "/deep", "/keepalive",
            "/endless")
HOSTILE = ("/brotli", "/drip")  # the same reply to any request


@functools.cache
def brotli_bomb() -> bytes:
    """1 GB of zeros, brotli-compressed (about 2 KB), made in pieces to stay small here."""
    compressor = brotli.Compressor(quality=5)
    zeros = bytes(16 << 20)
    return b"".join([*(compressor.process(zeros) for _ in range(64)), compressor.finish()])


def reply_for(model: str, messages: list[dict]) -> str:
    if "Rewrite" in messages[0]["content"]:
        questions = [m["content"] for m in messages if m["role"] == "user"]
        return f"{questions[-2]} {questions[-1]}"
    if "Passages:" not in messages[-1]["content"]:
        return "Ready."
    passage = re.search(r"\[1\][^\n]*\n(.*?)(?:\n\n\[2\]|\n\nQuestion:)", messages[-1]["content"],
                        re.DOTALL).group(1)
    first = re.split(r"\n|(?<=[.!?])\s", passage.strip())[0]
    return {
        "quote": f"{first} [1]",
        "invent": f"{first} [1] It also rained frogs that day. [9]",
        "unsupported": f"{first} [1] The council banned all bicycles in 1890. [1]",
        "mostly_unsupported": f"{first} [1] The council banned all bicycles in 1890. [1] "
                              "Frogs rained on the city hall for a week.",
        "slow_start": f"{first} [1]",
        "uncited": "I think the answer is probably yes.",
    }[model]


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        kind, path = self._route()
        if kind in ("refused", *HOSTILE):
            return
        if path == "/requests":
            body: dict = {"requests": served, "max_tokens": last_max_tokens,
                          "authorization": last_authorization}
        elif path == "/v1/models" and kind == "/deep":
            self._send(200, "application/json", b"[" * 100_000)
            return
        elif path == "/v1/models" and kind != "/ollama":
            body = {"object": "list", "data": [{"id": m, "object": "model"} for m in MODELS]}
        elif path == "/api/tags" and kind == "/ollama":
            body = {"models": [{"name": f"{m}:latest", "size": 1} for m in MODELS]}
        elif path.startswith(("/v1/", "/api/")):
            self._send(404, "application/json", b'{"error": "not found"}')
            return
        else:
            self._send(200, "text/html", b"<!doctype html><title>A web site</title>")
            return
        self._send(200, "application/json", json.dumps(body).encode())

    def _route(self) -> tuple[str, str]:
        """(the kind of server the path's prefix asks for, the rest of the path); "refused"
        if this request was answered 401 already."""
        global last_authorization
        kind = next((p for p in PREFIXES if self.path.startswith(p + "/")), "")
        if self.path != "/requests":
            last_authorization = self.headers.get("Authorization")
        if kind == "/slow":
            time.sleep(3)
        if kind == "/private" and self.headers.get("Authorization") != f"Bearer {KEY}":
            self._send(401, "application/json", b'{"error": {"message": "Invalid API key"}}')
            return "refused", ""
        if kind == "/brotli":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "br")
            self.send_header("Content-Length", str(len(brotli_bomb())))
            self.end_headers()
            self.wfile.write(brotli_bomb())
        if kind == "/drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            while True:  # until the client hangs up
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(1)
        return kind, self.path.removeprefix(kind)

    def do_POST(self) -> None:
        global served, last_max_tokens
        kind = self._route()[0]
        if kind in ("refused", *HOSTILE):
            return
        served += 1
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        last_max_tokens = request.get("max_tokens")
        model = request["model"].removesuffix(":latest")  # as Ollama names them
        if model == "slow":
            time.sleep(30)
        if model == "slow_start":
            time.sleep(3)
        if model == "error":
            self._send(500, "application/json", b'{"error": {"message": "model crashed"}}')
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        if model == "malformed":
            self.wfile.write(b"data: {this is not json\n\n")
            return
        if kind in ("/keepalive", "/endless"):
            self._stream_for_ever(model, kind)
            return
        for word in re.findall(r"\S+\s*", reply_for(model, request["messages"])):
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model,
                     "choices": [{"index": 0, "delta": {"content": word},
                                  "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")

    def _stream_for_ever(self, model: str, kind: str) -> None:
        """Keep-alive comments or tokens every 0.3 s, until the client hangs up."""
        chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model,
                 "choices": [{"index": 0, "delta": {"content": "more "},
                              "finish_reason": None}]}
        line = b": keep-alive\n\n" if kind == "/keepalive" else \
            f"data: {json.dumps(chunk)}\n\n".encode()
        while True:
            self.wfile.write(line)
            self.wfile.flush()
            time.sleep(0.3)

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up waiting
            super().handle_error(request, client_address)


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
