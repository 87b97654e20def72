"""Access: where `qa serve` listens, its login, hostile questions through its API, and
private index files.

One real `qa serve` with a login (given as QA_AUTH, not --auth, and no --host)
serves the tests of this module. Upload names are checked in test_ui_render.py.
"""

import json
import os
import socket
import stat
from pathlib import Path

import httpx
import pytest

from qa.backends.sqlite import DATABASE
from qa.cli import main
from qa.llm.saved import SAVED_LLM
from tests.helpers import SEED_FILE, free_port
from tests.test_search import HOSTILE
from tests.test_ui import _event_index
from ui.cli import register

pytestmark = pytest.mark.process

USER, PASSWORD = "alice", "correct horse battery staple"
LOOPBACK_HEX = "0100007F"  # 127.0.0.1 as /proc/net/tcp writes it
TOO_LONG = "The question is 100,000 characters long; the limit is 2,000."
EMPTY = "The question is empty."
# gradio_client cannot send a lone surrogate (it encodes JSON as UTF-8): those go as raw JSON.
SENDABLE = [t for t in HOSTILE if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)]
SERVE_ENV = {"QA_AUTH": f"{USER}:{PASSWORD}"}  # the `server` fixture's login, not --auth


@pytest.fixture(scope="module")
def client(server):
    from gradio_client import Client

    return Client(server["url"], auth=(USER, PASSWORD), verbose=False)


# -- where it listens -------------------------------------------------------------------

def _listening_addresses(port: int) -> list[str]:
    """The local addresses of the sockets listening on `port`, as /proc/net writes them."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                address, hex_port = fields[1].rsplit(":", 1)
                if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                    found.append(address)
    return found


def _other_address() -> str | None:
    """An address of this machine that is not a loopback one, if it has any."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            address = sock.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_serve_listens_on_127_0_0_1_only_by_default(server):
    assert _listening_addresses(server["port"]) == [LOOPBACK_HEX]
    other = _other_address()
    if other:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((other, server["port"]), timeout=5).close()


# -- login ------------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path", "body"), [
    ("GET", "/config", None),
    ("GET", "/gradio_api/info", None),
    ("POST", "/gradio_api/call/ask", {"data": ["Who has resigned?", 5]}),
    ("POST", "/gradio_api/call/search", {"data": ["resigned", 5]}),
    ("POST", "/gradio_api/run/ask", {"data": ["Who has resigned?", 5, "extractive"]}),
    ("POST", "/gradio_api/queue/join", {"data": ["resigned", 5], "fn_index": 0,
                                        "session_hash": "x"}),
    ("GET", f"/qa/original?path={SEED_FILE}", None),  # Download original
])
def test_without_a_login_the_api_is_refused(server, method, path, body):
    response = httpx.request(method, server["url"] + path, json=body, timeout=30)

    assert response.status_code == 401, response.text
    assert "Martinez" not in response.text


def test_with_the_login_an_original_is_downloaded(server):
    with httpx.Client(base_url=server["url"], timeout=30) as http:
        http.post("/login", data={"username": USER, "password": PASSWORD})
        response = http.get("/qa/original", params={"path": str(SEED_FILE)})
    assert response.status_code == 200 and response.content == SEED_FILE.read_bytes()


def test_a_wrong_password_is_refused(server):
    from gradio_client import Client

    with httpx.Client(base_url=server["url"], timeout=30) as http:
        login = http.post("/login", data={"username": USER, "password": "wrong"})
        assert login.status_code == 400
        assert http.get("/gradio_api/info").status_code == 401
    with pytest.raises(Exception, match="(?i)credentials|login|401"):
        Client(server["url"], auth=(USER, "wrong"), verbose=False)
    with pytest.raises(Exception, match="(?i)credentials|login|401"):
        Client(server["url"], verbose=False)


def test_without_a_login_no_page_can_set_the_language_model(server):
    url, saved = server["url"], server["index"] / SAVED_LLM
    form = [f"http://127.0.0.1:{free_port()}/v1", "", False, "m"]
    with httpx.Client(base_url=url, timeout=30, headers={"origin": url}) as logged_in:
        logged_in.post("/login", data={"username": USER, "password": PASSWORD})
        event = {"data": form, "fn_index": _event_index(url, "qa-model-save", "click", logged_in),
                 "session_hash": "no-login"}

        refused = httpx.post(f"{url}/gradio_api/queue/join", json=event,
                             headers={"origin": url})
        assert refused.status_code == 401 and not saved.exists()

        joined = logged_in.post("/gradio_api/queue/join", json=event)  # the same, logged in
        assert joined.is_success and _completed(logged_in, "no-login")
        assert json.loads(saved.read_text())["model"] == "m"
        stop = {"data": [], "fn_index": _event_index(url, "qa-model-stop", "click", logged_in),
                "session_hash": "stop"}
        assert logged_in.post("/gradio_api/queue/join", json=stop).is_success
        assert _completed(logged_in, "stop") and json.loads(saved.read_text())["model"] is None
        saved.unlink()


def _completed(http: httpx.Client, session: str) -> bool:
    with http.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}) as events:
        return any("process_completed" in line for line in events.iter_lines())


def test_with_the_login_the_api_answers(server, client):
    with httpx.Client(base_url=server["url"], timeout=30) as http:
        assert http.post("/login", data={"username": USER, "password": PASSWORD}).is_success
        assert http.get("/gradio_api/info").status_code == 200
        direct = http.post("/gradio_api/run/ask",  # the README's curl
                           json={"data": ["Who has resigned?", 5, "extractive"]})
        assert "Martinez and Herrera" in direct.json()["data"][0]["answer"]

    result = client.predict("Who has resigned?", 5, api_name="/ask")

    assert result["found"] and "Martinez and Herrera" in result["answer"]
    assert Path(result["citations"][0]["source"]).name == SEED_FILE.name


def test_auth_must_be_user_colon_password(capsys):
    assert main(["serve", "--auth", "alice"], {"serve": register}) == 2
    assert capsys.readouterr().err == "qa: --auth (or QA_AUTH) must be USER:PASSWORD\n"


# -- hostile questions through the API --------------------------------------------------

@pytest.mark.parametrize("text", [*SENDABLE, "", " \t\n", "x" * 100_000],
                         ids=lambda text: repr(text[:20]))
@pytest.mark.parametrize("endpoint", ["ask", "search"])
def test_hostile_questions_get_an_answer_or_a_clear_message(client, endpoint, text):
    from gradio_client.exceptions import AppError

    try:
        result = client.predict(text, 3, api_name=f"/{endpoint}")
    except AppError as error:
        assert str(error) == (TOO_LONG if len(text) > 2000 else EMPTY)
        assert len(text) > 2000 or not text.strip()
        return
    if endpoint == "ask":
        assert result["found"] or result["citations"] == []
    else:
        assert len(result) <= 3 and all(hit["text"] for hit in result)


@pytest.mark.parametrize("escaped", ["\\ud800", "\\udfff\\ud800 resign", "resign \\udc80"])
@pytest.mark.parametrize("endpoint", ["ask", "search"])
def test_lone_surrogates_sent_as_raw_json_are_handled(server, endpoint, escaped):
    with httpx.Client(base_url=server["url"], timeout=60) as http:
        http.post("/login", data={"username": USER, "password": PASSWORD})
        mode = ', "extractive"' if endpoint == "ask" else ""  # /ask takes the answer mode
        body = f'{{"data": ["{escaped}", 3{mode}]}}'.encode()
        call = http.post(f"/gradio_api/call/{endpoint}", content=body,
                         headers={"Content-Type": "application/json"})
        assert call.status_code == 200, call.text
        events = http.get(f"/gradio_api/call/{endpoint}/{call.json()['event_id']}").text

    assert "event: complete" in events, events
    data = json.loads(events.split("data:", 1)[1].strip())[0]
    assert isinstance(data, list if endpoint == "search" else dict)


@pytest.mark.parametrize("k", [0, -1, 1.5, 1001, 10**8, 10**9, "5"], ids=repr)
@pytest.mark.parametrize("endpoint", ["ask", "search"])
def test_a_bad_k_through_the_api_gets_the_librarys_message(client, endpoint, k):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as raised:
        client.predict("Who has resigned?", k, api_name=f"/{endpoint}")
    assert str(raised.value) == "K must be a whole number from 1 to 1000."


def test_a_bad_answer_mode_through_the_api_is_refused_and_the_largest_k_served(client):
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError, match=r"^Answer mode must be one of: extractive, llm\.$"):
        client.predict("Who has resigned?", 5, "bogus", api_name="/ask")
    hits = client.predict("resigned", 1000, api_name="/search")
    assert len(hits) == 5  # every passage of the seed article
    assert client.predict("Who has resigned?", 1000, api_name="/ask")["found"]


def test_the_server_still_answers_after_the_hostile_questions(client):
    result = client.predict("Who has resigned?", 5, api_name="/ask")

    assert result["found"]


# -- private files ----------------------------------------------------------------------

def test_every_index_file_is_private_even_with_an_open_umask(tmp_path, seed_copy):
    """Under umask 000, whatever `qa index`, `--rebuild`, questions and uploads create in
    the index folder is for its owner only: folders 0700, files 0600."""
    from ui.app import ChatApp

    index = tmp_path / "index"
    upload = tmp_path / "incoming.md"
    upload.write_text("# Zephyr\n\nThe Zephyr telescope mirror was polished by Ingrid.\n")
    previous = os.umask(0)
    try:
        assert main(["--index", str(index), "index", str(seed_copy)]) == 0
        assert main(["--index", str(index), "ask", "Who has resigned?"]) == 0
        assert main(["--index", str(index), "index", "--rebuild"]) == 0
        app = ChatApp(str(index), max_upload_mb=5)
        app.add_files([str(upload)])
        assert app.index.ask("Who polished the Zephyr telescope mirror?").found
        app.index.close()
    finally:
        os.umask(previous)

    created = [index, *index.rglob("*")]
    assert {p.name for p in created} >= {"index", DATABASE, "write.lock", "uploads",
                                         "incoming.md"}
    for path in created:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_dir():
            assert mode == 0o700, f"{path} is {oct(mode)}"
        else:
            assert mode & 0o077 == 0, f"{path} is {oct(mode)}"


# -- last: they lock loopback, and the login name, out of uploads and logins for a minute --

def upload_from(url: str, address: str, cookies: httpx.Cookies) -> httpx.Response:
    """An upload of one small file from the page, sent from `address` with `cookies`."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=url, timeout=30, transport=transport, cookies=cookies) as http:
        return http.post("/gradio_api/upload", headers={"origin": url},
                         files=[("files", ("note.txt", b"A short note."))])


def test_uploads_are_limited_per_minute_per_address_and_per_login_name(server):
    from ui.guard import UPLOADS_PER_MINUTE

    url = server["url"]
    with httpx.Client(base_url=url, timeout=30) as http:
        assert http.post("/login", data={"username": USER, "password": PASSWORD}
                         ).status_code == 200
        cookies = http.cookies
    # from loopback addresses, which are all this machine: counted as one
    statuses = [upload_from(url, f"127.0.0.{2 + n}", cookies).status_code for n in range(25)]
    refused = upload_from(url, "127.0.0.1", cookies)

    assert statuses.count(200) == UPLOADS_PER_MINUTE.amount and statuses[-1] == 429
    assert refused.status_code == 429
    assert refused.text == "Too many uploads from this address: try again in a minute."

    other = _other_address()
    if other is None:
        pytest.skip("this machine has no address but loopback to upload from")
    # another address, the same login: refused still
    refused = upload_from(url, other, cookies)
    assert refused.status_code == 429
    assert refused.text == "Too many uploads for this login name: try again in a minute."


def login_from(url: str, address: str, name: str, password: str) -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=url, timeout=30, transport=transport) as http:
        return http.post("/login", data={"username": name, "password": password})


def test_wrong_passwords_are_limited_per_minute_then_even_the_right_one_waits(server):
    from ui.guard import LOGIN_FAILURES_PER_MINUTE

    # from 20 loopback addresses, which are all this machine: counted as one
    tries = [login_from(server["url"], f"127.0.0.{2 + n}", USER, f"guess {n}")
             for n in range(20)]
    right = login_from(server["url"], "127.0.0.1", USER, PASSWORD)

    statuses = [response.status_code for response in tries]
    assert set(statuses) == {400, 429}
    assert statuses.count(400) <= LOGIN_FAILURES_PER_MINUTE.amount
    assert statuses.index(429) == statuses.count(400)  # refused from then on
    assert right.status_code == 429
    assert right.text == "Too many failed logins from this address: try again in a minute."

    other = _other_address()
    if other is None:
        pytest.skip("this machine has no address but loopback to log in from")
    # another address: the name that failed is refused still, even with its password
    right = login_from(server["url"], other, USER, PASSWORD)
    assert right.status_code == 429
    assert right.text == "Too many failed logins for this login name: try again in a minute."
    assert login_from(server["url"], other, "someone-else", "guess").status_code == 400
