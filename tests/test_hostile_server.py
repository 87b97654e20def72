"""The web server under hostile clients, over raw HTTP against a real `qa serve` (no --auth):
a huge chat history, requests from other web sites and rebinding host names, uploads
that would fill the disk, bodies over the limit, and questions that are not text.

One server over a copy of the seed index serves the module; the upload rate-limit test
runs last, as it uses up this client's uploads for a minute.
"""

import json
import socket
import sqlite3
import threading
import time
import uuid
from contextlib import closing
from pathlib import Path

import httpx
import pytest

from qa.backends.sqlite import DATABASE
from tests.helpers import qa_serve
from tests.test_hostile_uploads import page_event
from tests.test_ui import _event_index
from ui import guard

pytestmark = pytest.mark.process

ALLOWED = "qa.example.test"  # a name the server is told it has, as behind a proxy
LIMIT_MB = 1  # --max-upload-mb: an upload request holds 10 MiB, the cache 20 MiB
FAST = 5.0  # seconds: a search takes well under 1 s on an idle server


@pytest.fixture(scope="module")
def served(tmp_path_factory, seed_index_path):
    folder = tmp_path_factory.mktemp("hostile-server")
    index = folder / "index"
    index.mkdir(mode=0o700)
    with closing(sqlite3.connect(seed_index_path / DATABASE)) as db:
        db.execute("VACUUM INTO ?", (str(index / DATABASE),))
    log, cache = folder / "serve.log", folder / "cache"
    options = ("--max-upload-mb", str(LIMIT_MB), "--allowed-hosts", ALLOWED)
    with qa_serve(index, log, *options, env={"GRADIO_TEMP_DIR": str(cache)}) as (url, _):
        yield {"url": url, "port": int(url.rsplit(":", 1)[1]), "log": log, "cache": cache}


def search(url: str, query: str = "resigned", **options) -> httpx.Response:
    return httpx.post(f"{url}/gradio_api/run/search", json={"data": [query, 3]}, timeout=120,
                      **options)


def seed_document(url: str) -> str:
    """The path of the indexed seed article, as /search gives it."""
    return search(url).json()["data"][0][0]["source"]


def cached_files(served) -> list[Path]:
    return [path for path in served["cache"].rglob("*") if path.is_file()]


def raw_request(port: int, head: str) -> str:
    """Send a request's head only (no body) over a socket: the response's status line."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n\r\n")
        return sock.recv(65536).decode(errors="replace").split("\r\n", 1)[0]


# -- 1: a client's chat history --------------------------------------------------------

def queue_call(url: str, session: str, fn_index: int, data: list) -> tuple[float, dict]:
    """Run an event through the queue in a session: (seconds, its completion message)."""
    start = time.monotonic()
    body = {"data": data, "fn_index": fn_index, "session_hash": session}
    httpx.post(f"{url}/gradio_api/queue/join", json=body, timeout=120).raise_for_status()
    with httpx.stream("GET", f"{url}/gradio_api/queue/data", params={"session_hash": session},
                      timeout=120) as stream:
        done = next(line for line in stream.iter_lines() if "process_completed" in line)
    return time.monotonic() - start, json.loads(done.removeprefix("data:"))


def chat_events(url: str) -> tuple[int, int]:
    """The event that copies the chatbot's value into the history state, and /chat."""
    config = httpx.get(f"{url}/config").json()
    kinds = {c["id"]: c["type"] for c in config["components"]}
    deps = config["dependencies"]
    copy = next(i for i, d in enumerate(deps)
                if [kinds[t] for t in d["inputs"]] == ["chatbot"]
                and d["outputs"] and kinds[d["outputs"][0]] == "state")
    return copy, next(i for i, d in enumerate(deps) if d.get("api_name") == "chat")


@pytest.mark.parametrize("unit", ['<div class="qa-answer">', "<"])
def test_a_500_kb_hostile_history_does_not_stall_the_server(served, unit):
    url = served["url"]
    copy, chat = chat_events(url)
    session = uuid.uuid4().hex
    text = unit * (500_000 // len(unit))
    history = [{"role": "user", "content": [{"type": "text", "text": "Who resigned?"}]},
               {"role": "assistant", "content": [{"type": "text", "text": text}]}]
    _, copied = queue_call(url, session, copy, [history])
    assert copied["success"], copied
    answered = {}
    question = ["Who has resigned? What did he say?", None, 5, "extractive", "", [], []]
    asking = threading.Thread(target=lambda: answered.update(
        result=queue_call(url, session, chat, question)))

    asking.start()
    time.sleep(0.2)
    start = time.monotonic()
    hits = search(url).json()["data"][0]
    searched = time.monotonic() - start
    asking.join(timeout=120)

    assert hits and searched < FAST, f"a search took {searched:.1f} s during the chat"
    seconds, done = answered["result"]
    assert seconds < FAST and "Martinez" in done["output"]["data"][0], done


# -- 3: remove and upload only from the app's own page ---------------------------------

def test_another_site_sending_a_matching_forwarded_host_cannot_remove(served):
    url, document = served["url"], seed_document(served["url"])
    forged = {"origin": "http://evil.example", "x-forwarded-host": "evil.example"}
    status = page_event(url, "qa-documents", "click", [],
                        {"action": "remove", "document": document}, headers=forged)

    assert status.strip().startswith("Refused: documents can only be added or removed")
    assert seed_document(url) == document


def test_a_dns_rebinding_host_name_is_refused_and_removes_nothing(served):
    url, port, document = served["url"], served["port"], seed_document(served["url"])
    rebound = {"host": f"rebind.evil.example:{port}", "origin": f"http://rebind.evil.example:{port}"}
    body = {"data": [], "fn_index": _event_index(url, "qa-documents", "click"),
            "session_hash": uuid.uuid4().hex,
            "event_data": {"action": "remove", "document": document}}

    joined = httpx.post(f"{url}/gradio_api/queue/join", json=body, headers=rebound)
    page = httpx.get(url, headers=rebound)

    assert joined.status_code == page.status_code == 421
    assert "--allowed-hosts" in page.text and "Martinez" not in page.text
    assert search(url, headers=rebound).status_code == 421
    assert seed_document(url) == document


def test_a_host_name_given_with_allowed_hosts_is_served(served):
    response = httpx.get(served["url"], headers={"host": f"{ALLOWED}:{served['port']}"})

    assert response.status_code == 200 and "<gradio-app" in response.text


# -- 6: uploads -------------------------------------------------------------------------

def upload(url: str, origin: str | None, count: int, size: int, fill: bytes = b"a"
           ) -> httpx.Response:
    """POST `count` files of `size` bytes to Gradio's upload route, as multipart data."""
    headers = {"origin": origin} if origin else {}
    files = [("files", (f"part-{i}.txt", fill * size)) for i in range(count)]
    return httpx.post(f"{url}/gradio_api/upload", files=files, headers=headers, timeout=120)


@pytest.mark.parametrize("origin", ["http://evil.example", None])
def test_another_site_or_a_script_cannot_store_files_in_the_upload_cache(served, origin):
    refused = upload(served["url"], origin, 10, 900_000)

    assert refused.status_code == 403
    assert refused.text == "Refused: files can only be uploaded from this app's own page."
    assert cached_files(served) == []


def test_an_upload_request_over_its_limit_is_refused_before_its_body_is_read(served):
    head = (f"POST /gradio_api/upload HTTP/1.1\nHost: 127.0.0.1:{served['port']}\n"
            f"Origin: {served['url']}\nContent-Type: multipart/form-data; boundary=x\n"
            f"Content-Length: {10 * LIMIT_MB * 2**20 + 1}")

    assert raw_request(served["port"], head) == "HTTP/1.1 413 Request Entity Too Large"
    assert cached_files(served) == []


def test_uploads_stop_when_the_upload_cache_is_full(served):
    url = served["url"]
    # 8 MB each, each different (Gradio stores equal files once); room for 20 MiB
    stored = [upload(url, url, 8, 1_000_000, fill) for fill in (b"a", b"b", b"c")]

    assert [r.status_code for r in stored] == [200, 200, 507]
    assert stored[2].text.startswith("Refused: the upload space is full")
    time.sleep(1)  # Gradio moves the files into place after it answers
    assert sum(path.stat().st_size for path in cached_files(served)) == 16_000_000
    for path in cached_files(served):  # as indexing the uploads would
        path.unlink()


# -- bodies -----------------------------------------------------------------------------

def test_a_body_over_the_limit_or_of_unknown_length_is_refused(served):
    port = served["port"]
    start = f"POST /gradio_api/run/search HTTP/1.1\nHost: 127.0.0.1:{port}\n"
    json_type = "Content-Type: application/json\n"
    too_big = f"{start}{json_type}Content-Length: {guard.MAX_BODY_BYTES + 1}"
    chunked = f"{start}{json_type}Transfer-Encoding: chunked"

    assert raw_request(port, too_big) == "HTTP/1.1 413 Request Entity Too Large"
    assert raw_request(port, chunked) == "HTTP/1.1 411 Length Required"
    assert search(served["url"]).status_code == 200


# -- 9 and 11: questions that are not text, and user errors in the log -----------------

@pytest.mark.parametrize(("endpoint", "data"), [
    ("ask", [12345, 5, "extractive"]), ("search", [12345, 5]), ("ask", [["a"], 5, "extractive"]),
    ("search", [{"q": 1}, 5]), ("search", [None, 5]), ("ask", ["   ", 5, "extractive"]),
])
def test_a_question_that_is_not_text_gets_a_clear_error_and_no_traceback(served, endpoint, data):
    response = httpx.post(f"{served['url']}/gradio_api/run/{endpoint}", json={"data": data},
                          timeout=60)

    expected = "The question is empty." if data[0] == "   " else "The question must be text."
    assert response.json()["error"] == expected
    log = served["log"].read_text()
    assert f"qa serve: /{endpoint} refused: {expected}" in log
    assert "Traceback" not in log


@pytest.mark.parametrize(("endpoint", "data", "expected"), [
    ("run/ask", [], "An event handler (ask) didn't receive enough input values "
                    "(needed: 5, got: 0)."),
    ("call/chat", ["Who resigned?", None, "abc", "extractive", "", [], []],
     "Could not preprocess input component at index 2 (a `slider` component)"),
    ("call/chat", ["Who resigned?", None, 5, 7, "", [], []],
     "Value: 7 (type: <class 'int'>) is not in"),
])
def test_a_malformed_request_gets_gradios_message_and_no_traceback(served, endpoint, data,
                                                                   expected):
    url = served["url"]
    response = httpx.post(f"{url}/gradio_api/{endpoint}", json={"data": data}, timeout=60)
    if endpoint.startswith("call/"):
        event = response.json()["event_id"]
        events = httpx.get(f"{url}/gradio_api/{endpoint}/{event}", timeout=60).text
        error = json.loads(events.split("data:", 1)[1])["error"]
    else:
        error = response.json()["error"]

    assert expected in error
    log = served["log"].read_text()
    assert f"refused: {error}" in log and "Traceback" not in log


# -- last: the upload rate limit ---------------------------------------------------------

def test_uploads_from_one_client_are_limited_per_minute(served):
    url = served["url"]
    statuses = [upload(url, url, 1, 10).status_code for _ in range(25)]

    allowed = guard.UPLOADS_PER_MINUTE.amount
    assert statuses.count(200) <= allowed and statuses[-1] == 429
    assert upload(url, url, 1, 10).text == (
        "Too many uploads from this address: try again in a minute.")
    assert search(url).status_code == 200  # the rest of the server is not limited
