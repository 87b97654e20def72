"""Collections in the web chat and its API: a real `qa serve` over a copy of the seed index,
a real browser (Debian's chromium) and real HTTP clients.

The browser tests share one page and run in order: create a collection, upload into it,
ask within it, rename it, delete it. The API tests make their own collections.
"""

import json
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from gradio_client import Client
from playwright.sync_api import expect

from qa.indexing.collections import Collections
from tests.helpers import ENV, ROOT
from tests.test_ui import (
    SEED,
    _event_index,
    ask,
    document_row,
    open_page,
    screenshot,
)
from tests.test_ui_access import LOW_CONTRAST_JS

pytestmark = pytest.mark.process

HARBOUR = "The harbour of Port Ellen reopened in 1999 after the storm damaged its piers."
NAME = "Port & Harbour's"  # user text: shown as typed, never as markup


@pytest.fixture(scope="module")
def page(browser, server):
    page = open_page(browser, server["url"])
    page.click("#qa-collections-panel .label-wrap")
    yield page
    page.context.close()


def coll_status(page, text: str) -> str:
    page.wait_for_function(
        "text => document.querySelector('#qa-coll-status').innerText.includes(text)", arg=text)
    return page.inner_text("#qa-coll-status")


def choose(page, elem_id: str, option: str) -> None:
    """Pick an option of a Gradio dropdown by its shown text."""
    page.click(f"#{elem_id} input")
    page.locator(f"#{elem_id} [role=option]", has_text=option).first.click()
    page.keyboard.press("Escape")


@pytest.mark.browser
def test_create_a_collection_and_refuse_a_duplicate_or_empty_name(page):
    page.fill("#qa-coll-name input, #qa-coll-name textarea", NAME)
    page.click("#qa-coll-create")
    assert f"Created the collection “{NAME}”." in coll_status(page, "Created")
    assert page.locator("#qa-collections .qa-coll-name").inner_text() == NAME
    assert "0 documents" in page.inner_text("#qa-collections")

    page.fill("#qa-coll-name input, #qa-coll-name textarea", NAME)
    page.click("#qa-coll-create")
    assert f"There is already a collection named {NAME!r}." in coll_status(page, "already")
    page.fill("#qa-coll-name input, #qa-coll-name textarea", "   ")
    page.click("#qa-coll-create")
    assert "A collection needs a name." in coll_status(page, "needs a name")
    assert page.locator("#qa-collections .qa-coll").count() == 1


@pytest.mark.browser
def test_upload_into_the_collection_and_the_list_shows_it(page, tmp_path):
    harbour = tmp_path / "harbour.txt"
    harbour.write_text(HARBOUR)
    choose(page, "qa-upload-into", NAME)
    page.set_input_files("#qa-upload input[type=file]", str(harbour))
    page.wait_for_function(
        "() => document.querySelector('#qa-status').innerText.includes('Put in the collection')",
        timeout=60_000)
    expect(document_row(page, "harbour.txt").locator(".qa-doc-collection")).to_have_text(NAME)
    assert document_row(page, SEED).locator(".qa-doc-collection").count() == 0
    expect(page.locator("#qa-collections")).to_contain_text("1 document")


@pytest.mark.browser
def test_put_a_document_in_the_collection_and_take_it_out(page):
    choose(page, "qa-coll-documents", SEED)
    choose(page, "qa-coll-target", NAME)
    page.click("#qa-coll-put")
    assert f"1 document put in “{NAME}”." in coll_status(page, "put in")
    seed = document_row(page, SEED).locator(".qa-doc-collection")
    expect(seed).to_have_text(NAME)
    expect(page.locator("#qa-collections")).to_contain_text("2 documents")

    page.click("#qa-coll-take")
    assert f"1 document taken out of “{NAME}”." in coll_status(page, "taken out")
    seed.wait_for(state="detached")
    assert document_row(page, "harbour.txt").locator(".qa-doc-collection").count() == 1


@pytest.mark.browser
def test_ask_within_the_collection_cites_only_its_documents(page):
    page.click("#qa-scope .label-wrap")
    choose(page, "qa-scope-collections", NAME)
    page.wait_for_function(
        "name => document.querySelector('#qa-scope').innerText.includes('Ask within: ' + name)",
        arg=NAME)

    answer = ask(page, "When did the harbour reopen?")
    assert "1999" in answer.inner_text()
    message = answer.locator("xpath=..")
    assert message.locator(".qa-scope").inner_text() == (
        f"Asked only within the collection “{NAME}”.")
    files = message.locator(".qa-source-file").all_inner_texts()
    assert files and set(files) == {"harbour.txt"}

    outside = ask(page, "Who has resigned?")  # the seed article answers this, outside it
    sources = outside.locator("xpath=..").locator(".qa-source-file").all_inner_texts()
    assert SEED not in sources


@pytest.mark.browser
def test_rename_keeps_the_question_scope_and_delete_asks_first(page):
    page.locator("#qa-collections .qa-coll-rename").click()
    renamed = page.get_by_role("textbox", name=f"New name for the collection “{NAME}”")
    renamed.fill("Harbour")
    renamed.press("Enter")
    assert f"Renamed “{NAME}” to “Harbour”." in coll_status(page, "Renamed")
    expect(page.locator("#qa-collections .qa-coll-name")).to_have_text("Harbour")
    expect(document_row(page, "harbour.txt").locator(".qa-doc-collection")).to_have_text(
        "Harbour")
    expect(page.locator("#qa-scope .label-wrap")).to_contain_text("Ask within: Harbour")
    assert "1999" in ask(page, "When did the harbour reopen?").inner_text()

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.locator("#qa-collections .qa-coll-delete").click()
    page.wait_for_timeout(1000)
    assert page.locator("#qa-collections .qa-coll").count() == 1

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#qa-collections .qa-coll-delete").click()
    assert "Deleted the collection “Harbour”" in coll_status(page, "Deleted")
    expect(page.locator("#qa-collections .qa-coll")).to_have_count(0)
    document_row(page, "harbour.txt").wait_for()  # the document stays
    expect(page.locator("#qa-scope .label-wrap")).to_contain_text("Ask within: all documents")


@pytest.mark.browser
def test_ask_within_chosen_documents(page, shots, capsys):
    choose(page, "qa-scope-documents", "harbour.txt")
    answer = ask(page, "Who has resigned?")
    message = answer.locator("xpath=..")
    assert message.locator(".qa-scope").inner_text() == (
        "Asked only within the document harbour.txt.")
    assert SEED not in message.locator(".qa-source-file").all_inner_texts()
    assert page.evaluate(LOW_CONTRAST_JS) == []  # the folds are open: their texts count
    screenshot(page, shots, "collections-light", capsys)


def test_a_foreign_page_cannot_create_a_collection(server):
    url, session = server["url"], uuid.uuid4().hex
    values = ["Stolen", "", [], None, [], []]
    body = {"data": values, "fn_index": _event_index(url, "qa-coll-create", "click"),
            "session_hash": session}
    headers = {"origin": "http://evil.example"}
    httpx.post(f"{url}/gradio_api/queue/join", json=body, headers=headers).raise_for_status()
    with httpx.stream("GET", f"{url}/gradio_api/queue/data", headers=headers,
                      params={"session_hash": session}, timeout=120) as stream:
        done = next(line for line in stream.iter_lines() if "process_completed" in line)
    assert "Refused" in done
    assert "Stolen" not in Collections(server["index"]).counts()


def test_api_ask_and_search_within_collections_and_documents(server):
    collections = Collections(server["index"])
    seed = next(p for p in _indexed(server) if p.endswith(SEED))
    collections.add("Council", [seed])
    collections.create("Empty")
    client = Client(server["url"], verbose=False)

    within = client.predict("Who has resigned?", collections=["Council"], api_name="/ask")
    assert within["found"] and {Path(c["source"]).name for c in within["citations"]} == {SEED}
    empty = client.predict("Who has resigned?", 5, "extractive", ["Empty"], api_name="/ask")
    assert not empty["found"] and not empty["citations"]
    with pytest.raises(Exception, match="There is no collection named 'Nope'"):
        client.predict("Who has resigned?", collections=["Nope"], api_name="/ask")

    script = subprocess.run(
        [sys.executable, "-m", "ui.api_example", "Who has resigned?", "--collection", "Empty",
         "--url", server["url"]], cwd=ROOT, env=ENV, capture_output=True, text=True,
        timeout=120, check=True)
    assert "[1]" not in script.stdout and "Nothing in the collection Empty answers" in script.stdout

    hits = client.predict("harbour resigned", 10, documents=[SEED], api_name="/search")
    assert hits and {Path(h["source"]).name for h in hits} == {SEED}
    with pytest.raises(Exception, match="No indexed document is at, under or named 'nope.txt'"):
        client.predict("harbour", documents=["nope.txt"], api_name="/search")

    info = httpx.get(f"{server['url']}/gradio_api/info").json()["named_endpoints"]
    for endpoint in ("/ask", "/search"):
        described = {p["parameter_name"]: p["python_type"]["description"]
                     for p in info[endpoint]["parameters"]}
        assert "collections" in described["collections"]
        assert "file name" in described["documents"]


def test_scripts_that_name_no_collection_keep_working(server):
    client = Client(server["url"], verbose=False)
    assert client.predict("Who has resigned?", 5, "extractive", api_name="/ask")["found"]
    assert client.predict("Mike Bonin", 3, api_name="/search")
    for endpoint, data in (("ask", ["Who has resigned?", 5, "extractive"]),
                           ("ask", ["Who has resigned?"]), ("search", ["Mike Bonin", 3])):
        response = httpx.post(f"{server['url']}/gradio_api/call/{endpoint}",
                              json={"data": data}, timeout=60)
        events = httpx.get(f"{server['url']}/gradio_api/call/{endpoint}/"
                           f"{response.json()['event_id']}", timeout=60).text
        assert "event: complete" in events, events
        result = json.loads(events.split("data:", 1)[1])[0]
        assert result["found"] if endpoint == "ask" else result


def _indexed(server) -> list[str]:
    hits = Client(server["url"], verbose=False).predict("resigned", 20, api_name="/search")
    return [hit["source"] for hit in hits]


@pytest.mark.browser
def test_the_collection_controls_are_readable_in_dark_mode(browser, server, shots,
                                                           capsys):
    dark = open_page(browser, server["url"], color_scheme="dark")
    try:
        dark.click("#qa-collections-panel .label-wrap")
        dark.click("#qa-scope .label-wrap")
        dark.locator("#qa-scope-collections").wait_for()
        assert dark.evaluate(LOW_CONTRAST_JS) == []
        screenshot(dark, shots, "collections-dark", capsys)
    finally:
        dark.context.close()
