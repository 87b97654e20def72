"""The web chat by keyboard and by eye: contrast computed from the rendered colours (light and
dark), citations and controls reached with Tab and visibly focused, focus after the API
dialog, the phone layout; and the small things: the documents list and its previews, the
file picker, blank questions, example buttons, the server log. A real `qa serve` over
seeds/ and Debian's chromium.
"""

from pathlib import Path

import pytest

from tests.test_ui import (
    PHONE,
    SEED,
    ask,
    document_row,
    open_page,
    screenshot,
)
from ui import uploads

pytestmark = [pytest.mark.process, pytest.mark.browser]

LOW_CONTRAST_JS = (Path(__file__).parent / "low_contrast.js").read_text()
MAX_TABS = 300


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_text_meets_aa_contrast(browser, server, scheme, shots, capsys):
    page = open_page(browser, server["url"], color_scheme=scheme)
    try:
        ask(page, "Who has resigned?")
        page.locator("#qa-chat .qa-context summary").first.click()
        document_row(page, SEED).locator(".qa-doc-open").click()
        page.wait_for_selector("#qa-documents .qa-preview")
        assert page.evaluate(LOW_CONTRAST_JS) == []
        screenshot(page, shots, f"access-{scheme}", capsys)
    finally:
        page.context.close()


def tab_to(page, selector: str) -> None:
    """Press Tab from the top of the page until `selector` has the focus."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    pytest.fail(f"Tab never reached {selector}")


def outline(page) -> tuple[str, float]:
    return tuple(page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
        return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"""))


def test_citations_and_controls_are_reached_by_tab_with_a_visible_focus(browser, server):
    page = open_page(browser, server["url"])
    try:
        ask(page, "Who has resigned?")
        tab_to(page, "#qa-chat .qa-cite")
        style, width = outline(page)
        assert style != "none" and width >= 2
        page.keyboard.press("Enter")
        page.wait_for_selector("#qa-chat .qa-source.qa-flash")
        for control in ("#qa-k input[type=range]", "#qa-model button.label-wrap",
                        "#qa-conv-list .qa-conv-open", "#qa-documents .qa-doc-remove"):
            tab_to(page, control)
            style, width = outline(page)
            assert style != "none" and width >= 2, control
    finally:
        page.context.close()


def test_the_api_dialog_takes_the_focus_and_gives_it_back(browser, server):
    page = open_page(browser, server["url"])
    try:
        tab_to(page, "footer .show-api")
        page.keyboard.press("Enter")
        page.wait_for_function("document.activeElement.closest('.api-docs') !== null")
        assert page.evaluate("document.activeElement.getAttribute('aria-label')") == (
            "Close the API documentation"
        )
        page.keyboard.press("Escape")
        page.wait_for_function("!document.querySelector('.api-docs')")
        page.wait_for_function("document.activeElement.matches('footer .show-api')")
    finally:
        page.context.close()


def test_a_phone_opens_at_the_top_keeps_file_names_whole_and_the_footer_clean(
    browser, server, shots, capsys
):
    phone = open_page(browser, server["url"], viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        phone.wait_for_timeout(1500)  # past the page's own focusing
        assert phone.evaluate("window.scrollY") == 0
        assert phone.locator(".qa-header").bounding_box()["y"] >= 0
        assert "·" not in phone.inner_text("footer")
        phone.locator("#qa-documents-panel .label-wrap").first.click()
        name = document_row(phone, SEED).locator(".qa-doc-file")
        name.wait_for()
        assert name.evaluate("e => e.getClientRects().length") == 1  # on one line
        screenshot(phone, shots, "access-phone", capsys)
    finally:
        phone.context.close()


def test_a_preview_opens_under_its_row_and_closes_and_the_list_is_not_clipped(
    browser, server
):
    page = open_page(browser, server["url"])
    try:
        row = document_row(page, SEED)
        row.locator(".qa-doc-open").click()
        preview = page.locator("#qa-documents li.qa-doc-preview")
        preview.wait_for()
        assert preview.evaluate("p => p.previousElementSibling.innerText").startswith(
            "Los Angeles City Councilmember"
        )
        assert page.evaluate("""() => { const list = document.querySelector('.qa-docs');
                                        return list.scrollHeight <= list.clientHeight; }""")
        preview.locator(".qa-preview-close").click()
        assert preview.count() == 0
        assert page.evaluate("document.activeElement.matches('.qa-doc-open')")
    finally:
        page.context.close()


def test_the_file_picker_offers_only_the_types_that_can_be_indexed(browser, server):
    page = open_page(browser, server["url"])
    try:
        page.wait_for_function(
            "document.querySelector('#qa-upload input[type=file]').accept !== ''"
        )
        accept = page.get_attribute("#qa-upload input[type=file]", "accept").split(",")
        assert sorted(accept) == sorted(uploads.SUPPORTED)
    finally:
        page.context.close()


def test_a_blank_question_makes_no_turn_and_examples_look_like_buttons(
    browser, server
):
    page = open_page(browser, server["url"])
    try:
        page.fill("#qa-question textarea", "   ")
        page.keyboard.press("Enter")
        page.locator("#qa-question .submit-button").click()
        page.wait_for_timeout(1500)
        assert page.locator("#qa-chat .message").count() == 0
        example = page.locator("#qa-chat button.example").first
        border = example.evaluate("e => parseFloat(getComputedStyle(e).borderTopWidth)")
        assert border >= 1 and example.evaluate("e => getComputedStyle(e).cursor") == "pointer"
    finally:
        page.context.close()


def test_the_server_log_says_where_the_chat_is_without_a_share_hint(server):
    log = (server["index"].parent / "serve.log").read_text()
    assert f"qa serve: the chat is at {server['url']}/" in log
    assert "share=True" not in log


def test_skip_to_the_question_is_the_first_tab_stop(browser, server):
    page = open_page(browser, server["url"])
    try:
        page.evaluate("document.activeElement && document.activeElement.blur()")
        page.mouse.click(2, 2)  # the top of the page: where the keyboard starts from
        page.keyboard.press("Tab")
        skip = page.locator(".qa-skip")
        assert page.evaluate("document.activeElement.matches('.qa-skip')")
        assert skip.inner_text() == "Skip to the question" and skip.is_visible()
        page.keyboard.press("Enter")
        page.wait_for_function("document.activeElement.matches('#qa-question textarea')")
    finally:
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_viewer_is_reached_by_keyboard_and_meets_aa_contrast(browser, server, scheme):
    page = open_page(browser, server["url"], color_scheme=scheme)
    try:
        ask(page, "Who has resigned?")
        tab_to(page, "#qa-chat a.qa-open-original")
        page.keyboard.press("Enter")
        page.wait_for_selector("#qa-viewer .qa-view mark.qa-quote")
        page.wait_for_function("document.activeElement.matches('.qa-view-close')")
        style, width = outline(page)
        assert style != "none" and width >= 2
        assert page.evaluate(LOW_CONTRAST_JS) == []
        page.keyboard.press("Escape")
        page.wait_for_selector("#qa-viewer .qa-view", state="hidden")
        assert page.evaluate("document.activeElement.matches('a.qa-open-original')")
    finally:
        page.context.close()
