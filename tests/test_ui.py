"""The web chat end to end: a real `qa serve`, a real browser (Debian's chromium), the real model.

One server over a private copy of the seed index serves every test in this module; its
language model endpoint is configured but down, as when Ollama is not running.
The browser tests share one page and run in order. Screenshots (light, dark, phone)
go to a temporary folder whose paths the tests print.
"""

import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from benchmarks import load
from tests.helpers import ENV, ROOT, free_port

pytestmark = pytest.mark.process

SEED = "000_8763795a8428a42a.txt"
SEED_LABEL = "Los Angeles City Councilmember Kevin de León told CBS Los Angeles on…"
ANSWER_TIMEOUT_MS = 60_000
LIMIT_MB = 2  # the server's upload limit (default 50 MB), small to keep the test quick
PHONE = {"width": 390, "height": 844}
# the `server` fixture's options: its language model is configured but down
SERVE_OPTIONS = ("--max-upload-mb", str(LIMIT_MB))
SERVE_ENV = {"QA_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",
             "QA_LLM_MODEL": "down-model", "QA_LLM_TIMEOUT": "5"}


def open_page(browser, url: str, **options):
    context = browser.new_context(**{"viewport": {"width": 1400, "height": 1000},
                                     "permissions": ["clipboard-read", "clipboard-write"],
                                     **options})
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#qa-question textarea")
    page.wait_for_selector("#qa-documents .qa-doc, #qa-documents .qa-docs-empty",
                           state="attached")
    return page


@pytest.fixture(scope="module")
def page(browser, server):
    """One browser page on the app, shared by the browser tests in order."""
    page = open_page(browser, server["url"])
    yield page
    page.context.close()


def screenshot(page, folder: Path, name: str, capsys) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    with capsys.disabled():
        print(f"\nscreenshot: {path}")


def ask(page, question: str):
    """Type a question, wait for the answer to finish; the last answer's element."""
    before = page.locator("#qa-chat .qa-answer").count()
    page.fill("#qa-question textarea", question)
    page.keyboard.press("Enter")
    page.wait_for_function(
        """n => document.querySelectorAll('#qa-chat .qa-answer').length > n
               && !document.querySelector('#qa-question textarea').disabled""",
        arg=before,
        timeout=ANSWER_TIMEOUT_MS,
    )
    return page.locator("#qa-chat .qa-answer").last


def upload(page, *paths: Path) -> str:
    """Upload files through the documents panel; the status text once indexing is done."""
    page.set_input_files("#qa-upload input[type=file]", [str(p) for p in paths])
    return indexed(page, *paths)


def indexed(page, *paths: Path) -> str:
    """The status text, once it tells the fate of every one of the files."""
    page.wait_for_function(
        "names => names.every(n => document.querySelector('#qa-status').innerText.includes(n))",
        arg=[p.name for p in paths],
        timeout=ANSWER_TIMEOUT_MS * 2,
    )
    return page.inner_text("#qa-status")


def document_row(page, name: str):
    return page.locator("#qa-documents .qa-doc", has_text=name)


@pytest.mark.browser
def test_first_load_lists_documents_by_title_and_folder_and_offers_questions_about_them(
    page, shots, capsys
):
    row = document_row(page, SEED)
    assert row.locator(".qa-doc-title").inner_text() == SEED_LABEL
    assert str(ROOT / "seeds") in row.locator(".qa-doc-where").inner_text()
    assert "5 passages" in row.inner_text()
    assert page.get_by_text(f"What is “{SEED_LABEL}” about?").is_visible()
    assert "Written by down-model" in page.inner_text("#qa-mode")
    screenshot(page, shots, "1-first-load-light", capsys)


@pytest.mark.browser
def test_answer_arrives_whole_with_sources_copy_button_and_focus_back(page, shots, capsys):
    page.evaluate(
        """() => { window.__qaFirstAnswer = null;
            new MutationObserver(() => { const a = document.querySelector('#qa-chat .qa-answer');
              if (a && !window.__qaFirstAnswer) window.__qaFirstAnswer = a.parentElement.innerHTML;
            }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"""
    )
    answer = ask(page, "Who has resigned?")
    # No word-by-word typing: the first time the answer shows, it is whole, sources and all.
    assert "qa-sources" in page.evaluate("window.__qaFirstAnswer")
    assert "[1]" in answer.inner_text()
    page.wait_for_function("document.activeElement.matches('#qa-question textarea')")
    page.keyboard.type("typed straight after the answer")
    assert page.input_value("#qa-question textarea") == "typed straight after the answer"
    page.fill("#qa-question textarea", "")
    page.locator("#qa-chat .qa-copy").last.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(answer.inner_text()) and "<" not in copied
    assert re.search(rf"\nSources:\n\[1\] {SEED}: \S", copied), copied

    sources = page.locator("#qa-chat .qa-sources").last
    quoted = page.locator(".qa-passage mark.qa-quote", has_text="resigned")
    card = sources.locator(".qa-source").filter(has=quoted).first
    assert SEED in card.locator(".qa-source-file").inner_text()
    assert card.locator(".qa-source-title").inner_text() == SEED_LABEL  # a title, not a file
    assert "relevance" not in sources.inner_text()
    card.locator(".qa-context summary").click()
    assert card.locator(".qa-context-text mark", has_text="resigned").count() == 1
    screenshot(page, shots, "2-answer-with-sources-light", capsys)


@pytest.mark.browser
def test_a_citation_marker_leads_to_its_source_card(page):
    ask(page, "Where were protestors gathered?")
    page.locator("#qa-chat .qa-answer").last.evaluate("a => a.scrollIntoView(true)")
    # the opening clause and the quote after it both cite [1]: the first leads there too
    page.locator("#qa-chat .qa-answer").last.locator(".qa-cite", has_text="[1]").first.click()
    card = page.locator("#qa-chat .qa-sources").last.locator(".qa-source").nth(0)
    page.wait_for_function(
        """card => { const box = card.getBoundingClientRect();
                     return card.classList.contains('qa-flash')
                        && box.top >= 0 && box.bottom <= window.innerHeight; }""",
        arg=card.element_handle(),
    )


@pytest.mark.browser
def test_follow_up_uses_the_conversation_and_clear_never_covers_a_message(page):
    ask(page, "Who is Mike Bonin?")
    assert "2-year-old" in ask(page, "How old is his son?").inner_text()
    page.locator("#qa-chat .bubble-wrap").evaluate("wrap => wrap.scrollTo(0, 1e9)")
    clear = page.locator("#qa-chat button[aria-label=Clear]").bounding_box()
    for message in page.locator("#qa-chat .message").all():
        box = message.bounding_box()
        overlap = (box["x"] < clear["x"] + clear["width"] and clear["x"] < box["x"] + box["width"]
                   and box["y"] < clear["y"] + clear["height"]
                   and clear["y"] < box["y"] + box["height"])
        assert not overlap, (box, clear)


@pytest.mark.browser
def test_question_the_documents_cannot_answer_shows_no_sources(page):
    answer = ask(page, "What is the boiling point of tungsten?")
    assert "qa-notfound" in answer.get_attribute("class")
    assert answer.locator("xpath=..").locator(".qa-sources").count() == 0


@pytest.mark.browser
def test_llm_down_gives_a_readable_notice_and_the_quoted_answer(page):
    page.locator("#qa-mode label", has_text="Written by").click()
    ask(page, "Who has resigned?")
    message = page.locator("#qa-chat .qa-answer").last.locator("xpath=..")
    notice = message.locator(".qa-notice")
    assert notice.inner_text().startswith(
        "The language model could not answer, so this answer quotes the documents."
    )
    assert "APIConnectionError" not in notice.inner_text()  # folded away until asked for
    notice.locator("summary").click()
    assert "APIConnectionError" in notice.inner_text()
    assert message.locator(".qa-sources").count() == 1
    page.locator("#qa-mode label", has_text="Quoted").click()


@pytest.mark.browser
def test_the_chat_survives_a_reload(page):
    page.reload()
    page.wait_for_selector("#qa-chat .qa-sources")  # reopened without a click
    assert page.locator("#qa-chat .qa-answer").count() >= 4


@pytest.mark.browser
def test_upload_shows_embedding_progress_then_is_answerable_and_leaves_no_cached_copy(
    page, server, shots, capsys, tmp_path
):
    notes = tmp_path / "zephyr-notes.md"
    filler = " ".join(f"The survey of ridge {i} found granite and some quartz." for i in range(900))
    notes.write_text(
        "# Zephyr\n\nThe Zephyr telescope mirror was polished by Ingrid Halvorsen.\n\n" + filler
    )
    rejected = tmp_path / "tool.exe"
    rejected.write_bytes(b"MZ")
    blank = tmp_path / "blank.html"
    blank.write_text("<html><body><script>x()</script></body></html>")
    page.set_input_files("#qa-upload input[type=file]", [str(notes), str(rejected), str(blank)])
    page.wait_for_function(  # passages embedded out of the total, while it happens
        r"""() => { const shown = document.querySelector('#qa-upload').innerText;
                    return shown.includes('Embedding passages')
                        && /\b[1-9]\d*\/\d{2,} passages/.test(shown); }""",
        timeout=ANSWER_TIMEOUT_MS,
        polling=50,
    )
    status = indexed(page, notes, rejected, blank)
    assert re.search(r"zephyr-notes\.md is indexed \(\d{2,} passages\)", status)
    assert "tool.exe was not added" in status and "not supported" in status
    assert "blank.html could not be read" in status
    assert "Zephyr" in page.inner_text("#qa-documents")
    assert "blank.html" not in page.inner_text("#qa-documents")
    cached = [p.name for p in server["cache"].rglob("*") if p.is_file()]
    assert not {"zephyr-notes.md", "tool.exe", "blank.html"} & set(cached), cached
    answer = ask(page, "Who polished the Zephyr telescope mirror?")
    assert "Halvorsen" in answer.inner_text()
    card = page.locator("#qa-chat .qa-sources").last.locator(".qa-source").first
    assert card.locator(".qa-source-file").inner_text() == "zephyr-notes.md"
    assert card.locator(".qa-source-title").inner_text() == "Zephyr"  # its first heading
    card.locator(".qa-context summary").click()
    assert "#" not in card.inner_text()  # Markdown is shown as formatting, not symbols
    screenshot(page, shots, "3-uploaded-document-light", capsys)


@pytest.mark.browser
def test_a_new_upload_clears_the_last_status_and_payloads_are_shown_not_run(
    page, shots, capsys, tmp_path
):
    payload = tmp_path / "payload.txt"
    payload.write_text(
        "The quokka festival password is <script>window.__qaXss = 1</script> and "
        '<img src=x onerror="window.__qaXss = 2"> is the image.\n'
    )
    status = upload(page, payload)
    assert "zephyr-notes.md" not in status and "tool.exe" not in status
    ask(page, "What is the quokka festival password?")
    sources = page.locator("#qa-chat .qa-sources").last
    assert sources.locator(".qa-source-file").first.inner_text() == "payload.txt"
    shown = sources.locator(".qa-passage").first.inner_text()
    assert "<script>window.__qaXss = 1</script>" in shown
    assert '<img src=x onerror="window.__qaXss = 2">' in shown
    assert page.evaluate("window.__qaXss") is None
    assert page.locator("#qa-chat img[src=x], #qa-chat script").count() == 0


@pytest.mark.browser
def test_oversized_upload_is_refused_with_a_message(page, tmp_path):
    too_big = tmp_path / "too-big.txt"
    with too_big.open("wb") as out:
        out.truncate((LIMIT_MB + 1) * 2**20)
    page.set_input_files("#qa-upload input[type=file]", str(too_big))
    message = page.get_by_text("exceed the maximum allowed size")
    message.wait_for(timeout=ANSWER_TIMEOUT_MS)
    assert f"{LIMIT_MB}" in message.inner_text() and "too-big.txt" in message.inner_text()
    assert "too-big.txt" not in page.inner_text("#qa-documents")


@pytest.mark.browser
def test_a_document_previews_and_is_removed_only_once_confirmed(page, server):
    row = document_row(page, "payload.txt")
    row.locator(".qa-doc-open").click()
    page.wait_for_function(
        "() => document.querySelector('#qa-documents .qa-preview')?.innerText"
        ".includes('quokka festival')"
    )
    assert "payload.txt" in page.inner_text("#qa-documents .qa-preview .qa-doc-where")

    page.once("dialog", lambda dialog: dialog.dismiss())
    row.locator(".qa-doc-remove").click()
    page.wait_for_timeout(1000)
    assert document_row(page, "payload.txt").count() == 1

    page.once("dialog", lambda dialog: dialog.accept())
    row.locator(".qa-doc-remove").click()
    page.wait_for_function(
        "() => document.querySelector('#qa-status').innerText.includes('payload.txt was removed')"
    )
    assert document_row(page, "payload.txt").count() == 0
    assert not (server["index"] / "uploads" / "payload.txt").exists()
    assert (server["index"] / "uploads" / "zephyr-notes.md").exists()


@pytest.mark.browser
def test_a_new_page_offers_questions_about_the_latest_documents(browser, server):
    fresh = open_page(browser, server["url"])
    try:
        fresh.get_by_text("What is “Zephyr” about?").wait_for()
    finally:
        fresh.context.close()


def _event_index(url: str, elem_id: str, trigger: str, http: Any = httpx) -> int:
    """The index of the page's event on `trigger` of the element `elem_id` (`http`: a
    logged-in httpx.Client, if the server asks for a login)."""
    config = http.get(f"{url}/config").json()
    ids = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    return next(i for i, d in enumerate(config["dependencies"]) if d["backend_fn"]
                and [elem_id, trigger] in ([ids.get(t), k] for t, k in d["targets"]))


@pytest.mark.browser  # no browser of its own: it tries to remove what a browser test uploaded
@pytest.mark.parametrize("origin", [None, "http://evil.example"])
def test_scripts_and_other_sites_cannot_remove_or_add_documents(server, origin, tmp_path):
    url, stored = server["url"], server["index"] / "uploads" / "zephyr-notes.md"
    headers = {"origin": origin} if origin else {}

    def trigger(elem_id: str, trigger: str, data: list, event_data=None) -> str:
        session = uuid.uuid4().hex
        body = {"data": data, "fn_index": _event_index(url, elem_id, trigger),
                "session_hash": session, "event_data": event_data}
        httpx.post(f"{url}/gradio_api/queue/join", json=body,
                   headers=headers).raise_for_status()
        with httpx.stream("GET", f"{url}/gradio_api/queue/data", headers=headers,
                          params={"session_hash": session}, timeout=120) as stream:
            return next(line for line in stream.iter_lines() if "process_completed" in line)

    removal = trigger("qa-documents", "click", [], {"action": "remove", "document": str(stored)})
    assert "Refused" in removal
    assert stored.exists() and "zephyr-notes.md" in _listed(url)

    sneaky = tmp_path / "sneaky.txt"
    sneaky.write_text("The sneaky file says the vault code is 4321.")
    with sneaky.open("rb") as file:
        direct = httpx.post(f"{url}/gradio_api/upload", files={"files": file}, headers=headers)
    assert direct.status_code == 403  # not stored at all
    with sneaky.open("rb") as file:  # stored as though the page had uploaded it
        uploaded = httpx.post(f"{url}/gradio_api/upload", files={"files": file},
                              headers={"origin": url}).json()[0]
    file_data = {"path": uploaded, "meta": {"_type": "gradio.FileData"}, "orig_name": "sneaky.txt"}
    no_collection, keep_both = "", False
    assert "Refused" in trigger("qa-upload", "upload", [[file_data], no_collection, keep_both])
    assert "sneaky.txt" not in _listed(url)
    assert not Path(uploaded).exists()  # nor is it left in Gradio's cache


def _listed(url: str) -> list[str]:
    hits = load.HttpAsker(url, None).ask("search", "zephyr sneaky vault code granite",
                                        "direct")[0]
    return [Path(hit["source"]).name for hit in hits]


@pytest.mark.browser
def test_dark_mode_keeps_quotes_and_status_lines_readable(browser, server, shots, capsys,
                                                         tmp_path):
    dark = open_page(browser, server["url"], color_scheme="dark")
    try:
        ask(dark, "Who has resigned?")
        assert dark.evaluate(CONTRAST_JS, "#qa-chat mark.qa-quote") >= 4.5
        note, wrong = tmp_path / "night-note.txt", tmp_path / "night.exe"
        note.write_text("The night ferry leaves at midnight.")
        wrong.write_bytes(b"MZ")
        upload(dark, note, wrong)
        for line in ("#qa-status li.qa-ok", "#qa-status li.qa-problem"):
            contrast = dark.evaluate(CONTRAST_JS, line)
            background = dark.evaluate(LIGHTNESS_JS, line)
            assert contrast >= 4.5 and background < 0.2, (line, contrast, background)
        screenshot(dark, shots, "4-answer-dark", capsys)
    finally:
        dark.context.close()


CONTRAST_JS = """selector => {
  const rgb = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const el = document.querySelector(selector), style = getComputedStyle(el);
  let bg = style.backgroundColor, node = el;
  while (/rgba\\(.*, 0\\)|transparent/.test(bg) && node.parentElement) {
    node = node.parentElement; bg = getComputedStyle(node).backgroundColor; }
  const [a, b] = [lum(style.color), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}"""


LIGHTNESS_JS = """selector => {
  const [r, g, b] = getComputedStyle(document.querySelector(selector)).backgroundColor
    .match(/[\\d.]+/g).slice(0, 3).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}"""


@pytest.mark.browser
def test_on_a_phone_the_chat_comes_first_and_the_panels_are_folded(browser, server, shots,
                                                                   capsys):
    phone = open_page(browser, server["url"], viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        chat = phone.locator("#qa-chat").bounding_box()
        panel = phone.locator("#qa-documents-panel").bounding_box()
        assert chat["y"] + chat["height"] <= panel["y"]
        assert not phone.locator("#qa-documents").is_visible()
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        ask(phone, "Who has resigned?")
        screenshot(phone, shots, "5-answer-phone", capsys)
        phone.locator("#qa-documents-panel .label-wrap").first.click()
        document_row(phone, SEED).wait_for()
    finally:
        phone.context.close()


def test_api_ask_takes_the_mode_and_describes_its_parameters(server):
    from gradio_client import Client

    client = Client(server["url"], verbose=False)
    result = client.predict("Who has resigned?", api_name="/ask")
    assert result["found"] and "[1]" in result["answer"]
    assert Path(result["citations"][0]["source"]).name == SEED
    assert result["citations"][0]["quote"] in result["citations"][0]["text"]
    fallback = client.predict("Who has resigned?", 5, "llm", api_name="/ask")
    assert fallback["found"] and "language model" in fallback["notice"]
    hits = client.predict("Mike Bonin", 3, api_name="/search")
    assert 1 <= len(hits) <= 3 and all({"source", "text", "score"} <= hit.keys() for hit in hits)

    info = httpx.get(f"{server['url']}/gradio_api/info").json()["named_endpoints"]
    parameters = {p["parameter_name"]: p for p in info["/ask"]["parameters"]}
    assert list(parameters) == ["question", "k", "mode", "collections", "documents", "history"]
    assert parameters["question"]["label"] == "question"
    assert "[question, answer] pairs" in parameters["history"]["python_type"]["description"]
    assert "plain words" in parameters["question"]["python_type"]["description"]
    assert "extractive" in parameters["mode"]["python_type"]["description"]
    assert "best first" in info["/search"]["description"]


def test_fifty_chats_at_once_all_get_their_answer(server):
    figures = load.run_load(server["url"], clients=50, questions=1, endpoint="chat")
    assert figures["failed"] == 0, figures["failures"]


def test_api_example_script_runs(server):
    done = subprocess.run(
        [sys.executable, "-m", "ui.api_example", "Who has resigned?",
         "--url", server["url"]],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120, check=True,
    )
    assert "[1]" in done.stdout and SEED in done.stdout
