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
Requests asking to rewrite a follow-up get "<previous question> <question>".
GET /requests returns how many chat requests were served, and the max_tokens of the last.
"""

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

served = 0
last_max_tokens = None


def reply_for(model: str, messages: list[dict]) -> str:
    if "Rewrite" in messages[0]["content"]:
        questions = [m["content"] for m in messages if m["role"] == "user"]
        return f"{questions[-2]} {questions[-1]}"
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
        body = {"requests": served, "max_tokens": last_max_tokens}
        self._send(200, "application/json", json.dumps(body).encode())

    def do_POST(self) -> None:
        global served, last_max_tokens
        served += 1
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        last_max_tokens = request.get("max_tokens")
        model = request["model"]
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
        for word in re.findall(r"\S+\s*", reply_for(model, request["messages"])):
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model,
                     "choices": [{"index": 0, "delta": {"content": word},
                                  "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
