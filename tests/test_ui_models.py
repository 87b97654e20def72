"""The Language model section of the web chat: a real `qa serve` (restarted on the same
port), a real browser, the scripted model server (tests/llm_server.py) over real HTTP;
and the same section's events sent by another site or a script, which must change nothing.
"""

import html
import time

import httpx
import pytest
from playwright.sync_api import expect

from qa.llm.saved import SAVED_LLM
from tests.helpers import copy_index, free_port, qa_serve, scripted_llm_server
from tests.llm_server import KEY
from tests.test_hostile_uploads import page_event
from tests.test_ui import ask, open_page
from tests.test_ui_access import LOW_CONTRAST_JS, outline, tab_to

pytestmark = pytest.mark.process

INVENTED = "The council banned all bicycles in 1890."  # the "unsupported" script's claim


@pytest.fixture(scope="module")
def scripted():
    with scripted_llm_server() as url:
        yield url


def chat_requests(scripted: str) -> int:
    return httpx.get(f"{scripted}/requests").json()["requests"]


def open_section(page) -> None:
    page.locator("#qa-model").get_by_text("Language model").click()
    page.wait_for_selector("#qa-model-find", state="visible")


def status(page, expected: str) -> str:
    page.locator("#qa-model-status", has_text=expected).wait_for(timeout=30_000)
    return page.inner_text("#qa-model-status")


def never_shows_the_key(page, url: str) -> None:
    assert KEY not in page.content()
    assert KEY not in httpx.get(f"{url}/config").text
    assert page.input_value("#qa-model-key input") == ""


@pytest.mark.browser
def test_a_model_is_found_tested_saved_used_and_kept_across_a_restart(
    browser, scripted, seed_index_path, tmp_path
):
    index, port = copy_index(seed_index_path, tmp_path / "index"), free_port()
    logs = [tmp_path / "serve.log", tmp_path / "serve-again.log"]
    with qa_serve(index, logs[0], port=port) as (url, _):
        page = open_page(browser, url)
        assert page.locator("#qa-mode").is_hidden()  # no model: nothing to choose
        assert "Answers are quoted from your documents" in page.inner_text("#qa-mode-hint")
        open_section(page)
        page.locator("#qa-model-ollama").click()
        # the button's event fills the address on the server's reply: wait for it
        expect(page.locator("#qa-model-address textarea")).to_have_value("http://127.0.0.1:11434")

        page.fill("#qa-model-address textarea", f"{scripted}/private")
        page.locator("#qa-model-find").click()
        assert "refused the API key (HTTP 401)" in status(page, "refused")
        page.fill("#qa-model-key input", KEY)
        page.locator("#qa-model-find").click()
        assert "Found 9 models" in status(page, "Found")
        page.locator("#qa-model-name input").click()
        page.get_by_role("option", name="unsupported", exact=True).click()
        page.locator("#qa-model-test").click()
        assert "It works: unsupported answered “Ready.”" in status(page, "It works")
        page.locator("#qa-model-save").click()
        status(page, "Saved")

        assert page.locator("#qa-mode input[value=llm]").is_checked()
        assert "Written by unsupported" in page.inner_text("#qa-mode")
        assert page.locator("#qa-mode-hint").is_hidden()
        assert page.evaluate(LOW_CONTRAST_JS) == []  # the open section, in light colours
        tab_to(page, "#qa-mode input[type=radio]")
        style, width = outline(page)
        assert style != "none" and width >= 2
        before = chat_requests(scripted)
        answer = ask(page, "Who has resigned?")
        assert INVENTED in answer.inner_text()
        assert chat_requests(scripted) == before + 1
        never_shows_the_key(page, url)

    with qa_serve(index, logs[1], port=port) as (url, _):
        page.reload()
        page.wait_for_selector("#qa-mode", state="visible")
        open_section(page)
        page.wait_for_function("document.querySelector('#qa-model-address textarea').value")
        assert page.input_value("#qa-model-address textarea") == f"{scripted}/private/v1"
        assert page.input_value("#qa-model-name input") == "unsupported"
        assert "A key is saved" in page.get_attribute("#qa-model-key input", "placeholder")
        assert "In use: unsupported" in page.inner_text("#qa-model-in-use")
        never_shows_the_key(page, url)
        page.locator("#qa-mode label", has_text="Written by unsupported").click()
        assert INVENTED in ask(page, "Who has resigned?").inner_text()  # the kept key works

        page.locator("#qa-model-stop").click()
        status(page, "No language model")
        page.wait_for_selector("#qa-mode", state="hidden")
        page.context.close()
    assert all(KEY not in log.read_text() for log in logs)
    assert "as saved from the page" in logs[1].read_text()
    assert (index / SAVED_LLM).stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("origin", [None, "http://evil.example"])
def test_another_site_or_a_script_cannot_set_find_or_test_a_model(server, scripted, origin):
    url, headers = server["url"], {"origin": origin} if origin else {"x-no-origin": "1"}
    before = chat_requests(scripted)
    form = [f"{scripted}/v1", "", False, "quote"]

    saved = page_event(url, "qa-model-save", "click", form, headers=headers)
    tested = page_event(url, "qa-model-test", "click", form, headers=headers)

    assert saved.strip().startswith("Refused: the language model can only be set up from")
    assert tested.strip().startswith("Refused")
    assert chat_requests(scripted) == before  # the server was not made to connect
    assert not (server["index"] / SAVED_LLM).exists()
    ask_llm = httpx.post(f"{url}/gradio_api/run/ask", json={"data": ["Who?", 5, "llm"]})
    assert ask_llm.json()["error"].startswith("No language model is configured")


def test_a_saved_key_is_only_ever_sent_to_the_server_it_was_saved_for(scripted, tmp_path):
    from qa.llm.client import LLMConfig
    from ui.app import ChatApp

    panel = ChatApp(str(tmp_path / "index"), 5,
                    LLMConfig(f"{scripted}/private/v1", "quote", KEY)).model

    def sent(address: str, typed: str = "", forget: bool = False) -> tuple[str, str | None]:
        _, note = panel.find_models(address, typed, forget)
        return note, httpx.get(f"{scripted}/requests").json()["authorization"]

    note, key = sent(f"{scripted}/private")  # the same server: the saved key goes along
    assert "Found 9 models" in note and key == f"Bearer {KEY}"
    note, key = sent(f"{scripted}/ollama")  # another: it does not
    assert "Found 9 models" in note and key is None
    note, key = sent(f"{scripted}/private", forget=True)
    assert "refused the API key" in note and key is None
    note, key = sent(f"{scripted}/ollama", "typed-key")
    assert key == "Bearer typed-key" and KEY not in note


def test_chat_takes_model_answers_from_a_script_and_says_when_no_model_is_set(server):
    url = server["url"]
    event = httpx.post(f"{url}/gradio_api/call/chat",
                       json={"data": ["Who has resigned?", None, 5, "llm", "", [], []]}).json()
    stream = httpx.get(f"{url}/gradio_api/call/chat/{event['event_id']}", timeout=60).text

    assert "No language model is configured: choose one under Language model" in html.unescape(
        stream)


PRIVATE = ("http://10.0.0.1:11434", "http://192.168.1.20", "http://[fe80::1]:11434",
           "http://169.254.169.254/latest")


def test_the_page_reaches_no_private_address_unless_the_server_allows_it(server, scripted,
                                                                          tmp_path):
    url, port = server["url"], scripted.rsplit(":", 1)[1]
    # 0.0.0.0 reaches this machine's listening ports, but is not loopback: refused too
    for address in (f"http://0.0.0.0:{port}", *PRIVATE):  # a broken check fails on loopback
        start = time.monotonic()
        found = page_event(url, "qa-model-find", "click", [address, "", False], output=1)
        tested = page_event(url, "qa-model-test", "click", [address, "", False, "quote"])
        for note in (found, tested):  # refused before connecting: no port open or closed
            assert "not a public address, which this page may not reach: start qa serve " \
                   "with --allow-private-model-hosts to allow it" in note
        assert time.monotonic() - start < 4  # connecting to 10.0.0.1 would wait 5 s
    found = page_event(url, "qa-model-find", "click", [scripted, "", False], output=1)
    assert "Found 9 models" in found  # loopback, where Ollama lives, stays allowed

    from ui.app import ChatApp
    panel = ChatApp(str(tmp_path / "index"), 5, allow_private_model_hosts=True).model
    assert "Found 9 models" in panel.find_models(f"http://0.0.0.0:{port}", "", False)[1]
