"""The web chat end to end: a real `qa serve`, a real browser (Debian's chromium), the real model.

One server over a temporary index of seeds/ serves every test in this module.
Screenshots go to a temporary folder whose paths the tests print.
"""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ENV, QA, ROOT, qa_serve

SEED = "000_8763795a8428a42a.txt"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ANSWER_TIMEOUT_MS = 60_000
LIMIT_MB = 2  # the server's upload limit (default 50 MB), small to keep the test quick




@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """URL of `qa serve` over a fresh index of seeds/, on a free port."""
    folder = tmp_path_factory.mktemp("ui-server")
    index = folder / "index"
    subprocess.run(
        [*QA, "--index", str(index), "index", str(ROOT / "seeds")],
        check=True,
        cwd=ROOT,
        env=ENV,
        capture_output=True,
    )
    limit = ("--max-upload-mb", str(LIMIT_MB))
    with qa_serve(index, folder / "serve.log", *limit, timeout=180) as (url, _):
        yield url


@pytest.fixture(scope="module")
def page(server):
    """One browser page on the app, shared by the browser tests in order."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI, but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server)
        page.wait_for_selector("#qa-question textarea")
        yield page
        browser.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("ui-screenshots")


def screenshot(page, folder: Path, name: str, capsys) -> None:
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    with capsys.disabled():
        print(f"\nscreenshot: {path}")


def ask(page, question: str):
    """Type a question, wait for the streamed answer to finish; the answer's chat message."""
    before = page.locator("#qa-chat .qa-answer").count()
    page.fill("#qa-question textarea", question)
    page.keyboard.press("Enter")
    page.wait_for_function(
        """n => document.querySelectorAll('#qa-chat .qa-answer').length > n
               && !document.querySelector('#qa-question textarea').disabled""",
        arg=before,
        timeout=ANSWER_TIMEOUT_MS,
    )
    return page.locator("#qa-chat .message.bot, #qa-chat [data-testid=bot]").last


def upload(page, *paths: Path) -> str:
    """Upload files through the documents panel; the status text once indexing is done."""
    page.set_input_files("#qa-upload input[type=file]", [str(p) for p in paths])
    names = [p.name for p in paths]
    page.wait_for_function(
        "names => names.every(n => document.querySelector('#qa-status').innerText.includes(n))",
        arg=names,
        timeout=ANSWER_TIMEOUT_MS,
    )
    return page.inner_text("#qa-status")


def test_first_load_offers_example_questions_and_lists_the_seed(page, shots, capsys):
    assert page.get_by_text("Who has resigned over the recording?").first.is_visible()
    page.wait_for_selector(f"#qa-documents :text('{SEED}')")
    screenshot(page, shots, "1-first-load", capsys)


def test_answer_streams_in_with_citations_and_sources(page, shots, capsys):
    page.fill("#qa-question textarea", "Who has resigned over the recording?")
    page.keyboard.press("Enter")
    # While the answer streams, its text is shown before the Sources section is added.
    page.wait_for_function(
        """() => { const a = document.querySelector('#qa-chat .qa-answer');
                   return a && !a.parentElement.querySelector('.qa-sources'); }""",
        timeout=ANSWER_TIMEOUT_MS,
        polling=20,
    )
    page.wait_for_selector("#qa-chat .qa-sources", timeout=ANSWER_TIMEOUT_MS)
    answer = page.locator("#qa-chat .qa-answer").last.inner_text()
    assert "[1]" in answer
    sources = page.locator("#qa-chat .qa-sources").last
    assert SEED in sources.locator(".qa-source-file").first.inner_text()
    quoted = page.locator(".qa-passage mark.qa-quote", has_text="resigned")
    card = sources.locator(".qa-source").filter(has=quoted).first
    assert card.count() == 1, sources.locator(".qa-passage mark").all_inner_texts()
    page.locator("#qa-chat .qa-answer").last.evaluate("answer => answer.scrollIntoView()")
    screenshot(page, shots, "2-answer-with-sources", capsys)
    card.locator(".qa-context summary").click()
    context = card.locator(".qa-context-text")
    assert context.is_visible() and context.locator("mark", has_text="resigned").count() == 1
    assert len(context.inner_text()) > len(card.locator(".qa-passage").inner_text())
    screenshot(page, shots, "2-source-in-context", capsys)


def test_follow_up_uses_the_conversation(page):
    ask(page, "Who is Mike Bonin?")
    ask(page, "How old is his son?")
    assert "2-year-old" in page.locator("#qa-chat .qa-answer").last.inner_text()


def test_question_the_documents_cannot_answer_shows_no_sources(page):
    ask(page, "What is the boiling point of tungsten?")
    answer = page.locator("#qa-chat .qa-answer").last
    assert "qa-notfound" in answer.get_attribute("class")
    assert answer.locator("xpath=..").locator(".qa-sources").count() == 0


def test_uploaded_markdown_is_answerable_at_once(page, shots, capsys, tmp_path):
    notes = tmp_path / "zephyr-notes.md"
    notes.write_text("# Zephyr\n\nThe Zephyr telescope mirror was polished by Ingrid Halvorsen.\n")
    rejected = tmp_path / "tool.exe"
    rejected.write_bytes(b"MZ")
    blank = tmp_path / "blank.html"
    blank.write_text("<html><body><script>x()</script></body></html>")
    status = upload(page, notes, rejected, blank)
    assert "zephyr-notes.md is indexed" in status
    assert "tool.exe was not added" in status and "not supported" in status
    assert "blank.html could not be read" in status
    assert "blank.html" not in page.inner_text("#qa-documents")
    assert "zephyr-notes.md" in page.inner_text("#qa-documents")
    ask(page, "Who polished the Zephyr telescope mirror?")
    assert "Halvorsen" in page.locator("#qa-chat .qa-answer").last.inner_text()
    source = page.locator("#qa-chat .qa-sources").last.locator(".qa-source-file").first
    assert source.inner_text() == "zephyr-notes.md"
    screenshot(page, shots, "3-uploaded-document", capsys)


def test_document_payloads_are_shown_not_run(page, shots, capsys, tmp_path):
    payload = tmp_path / "payload.txt"
    payload.write_text(
        "The quokka festival password is <script>window.__qaXss = 1</script> and "
        '<img src=x onerror="window.__qaXss = 2"> is the image.\n'
    )
    upload(page, payload)
    ask(page, "What is the quokka festival password?")
    sources = page.locator("#qa-chat .qa-sources").last
    assert sources.locator(".qa-source-file").first.inner_text() == "payload.txt"
    shown = sources.locator(".qa-passage").first.inner_text()
    assert "<script>window.__qaXss = 1</script>" in shown
    assert '<img src=x onerror="window.__qaXss = 2">' in shown
    assert page.evaluate("window.__qaXss") is None
    assert page.locator("#qa-chat img[src=x], #qa-chat script").count() == 0
    screenshot(page, shots, "4-payload-shown-literally", capsys)


def test_oversized_upload_is_refused_with_a_message(page, tmp_path):
    too_big = tmp_path / "too-big.txt"
    with too_big.open("wb") as out:
        out.truncate((LIMIT_MB + 1) * 2**20)
    page.set_input_files("#qa-upload input[type=file]", str(too_big))
    message = page.get_by_text("exceed the maximum allowed size")
    message.wait_for(timeout=ANSWER_TIMEOUT_MS)
    assert f"{LIMIT_MB}" in message.inner_text() and "too-big.txt" in message.inner_text()
    assert "too-big.txt" not in page.inner_text("#qa-documents")


def test_removed_document_leaves_the_list(page):
    page.click("#qa-remove-choice input")
    page.get_by_role("option", name="payload.txt").click()
    page.click("#qa-remove")
    page.wait_for_function(
        "() => document.querySelector('#qa-status').innerText.includes('payload.txt was removed')"
    )
    assert "payload.txt" not in page.inner_text("#qa-documents")


def test_api_ask_and_search(server):
    from gradio_client import Client

    client = Client(server, verbose=False)
    result = client.predict("Who has resigned over the recording?", api_name="/ask")
    assert result["found"] and "[1]" in result["answer"]
    assert Path(result["citations"][0]["source"]).name == SEED
    assert result["citations"][0]["quote"] in result["citations"][0]["text"]
    hits = client.predict("Mike Bonin", 3, api_name="/search")
    assert 1 <= len(hits) <= 3 and all({"source", "text", "score"} <= hit.keys() for hit in hits)


def test_api_example_script_runs(server):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ui.api_example",
            "Who has resigned over the recording?",
            "--url",
            server,
        ],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "[1]" in done.stdout and SEED in done.stdout
