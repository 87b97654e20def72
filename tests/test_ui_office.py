"""The page over an office folder of one's own, as issue 36's tester used it: a Word file of
minutes (headings, paragraphs, a table), a workbook and a note uploaded, edited and uploaded
again. A real `qa serve` over its own index, Chromium at desktop and phone sizes, the
keyboard; the tests share one page and run in order.
"""

import subprocess
from pathlib import Path

import pytest

from tests.helpers import ENV, QA, ROOT, qa_serve
from tests.test_ui import PHONE, ask, document_row, open_page, upload

pytestmark = [pytest.mark.process, pytest.mark.browser]

DESKTOP = {"width": 1440, "height": 900}
MINUTES_TITLE = "Board Meeting Q3 2024"
PURPOSE = ("These minutes record the third-quarter meeting of the Bramblecote board, held to "
           "review the quarter and to decide on the Lisbon office.")
MINUTES = [  # (style, text) in order; a table as its rows
    ("Title", MINUTES_TITLE),
    ("Normal", PURPOSE),
    ("Heading 1", "Welcome"),
    ("Normal", "The chair welcomed the board and noted apologies from Ines Varga."),
    ("Heading 1", "Forecast"),
    ("Normal", "Revenue for the quarter was 412,000 pounds, 6% above the plan."),
    ("Normal", "Do not share the forecast outside the board."),
    ("Heading 1", "Lisbon office"),
    ("Normal", "The board approved the Lisbon office, which opens in March 2025."),
    ("Normal", "The Lisbon office would start with 8 people."),
    ("Heading 1", "Leave"),
    ("table", [("Leave type", "Days"), ("Annual", "27"), ("Sick", "10")]),
]

BUDGET = [("Libraries", 1200), ("Parks", 5300), ("Roads", 9100), ("Schools", 8700),
          ("Housing", 7600), ("Museums", 2100), ("Transport", 6400), ("Waste", 3900),
          ("Lighting", 1800), ("Harbour", 4200), ("Markets", 900), ("Cemeteries", 1100)]


def write_documents(folder: Path) -> None:
    """The minutes (.docx, python-docx) and a workbook whose sheet "Budget" has a header and
    a row for each of BUDGET (openpyxl)."""
    import docx
    from openpyxl import Workbook

    folder.mkdir()
    minutes = docx.Document()
    minutes.core_properties.title = MINUTES_TITLE
    for style, content in MINUTES:
        if style == "table":
            table = minutes.add_table(rows=0, cols=2)
            for row in content:
                cells = table.add_row().cells
                for cell, text in zip(cells, row, strict=True):
                    cell.text = text
        else:
            minutes.add_paragraph(content, style=style)
    minutes.save(folder / "board_minutes.docx")
    book = Workbook()
    sheet = book.active
    sheet.title = "Budget"
    for row in [["Department", "Amount"], *BUDGET]:
        sheet.append(row)
    book.save(folder / "spending.xlsx")


@pytest.fixture(scope="module")
def served(tmp_path_factory, browser):
    folder = tmp_path_factory.mktemp("office-page")
    write_documents(folder / "docs")
    subprocess.run([*QA, "--index", str(folder / "index"), "index", str(folder / "docs")],
                   check=True, cwd=ROOT, env=ENV, capture_output=True)
    with qa_serve(folder / "index", folder / "serve.log", timeout=180) as (url, _):
        page = open_page(browser, url, viewport=DESKTOP)
        yield {"url": url, "page": page, "folder": folder}
        page.context.close()


@pytest.fixture
def page(served):
    return served["page"]


def test_the_wrong_answer_button_draws_its_icon_without_an_emoji_font(page):
    ask(page, "Who sent apologies?")
    flag = page.locator("#qa-chat .qa-flag").last
    assert flag.inner_text().strip() == "Wrong answer"  # no emoji to draw as an empty box
    icon = flag.evaluate("""b => { const s = getComputedStyle(b, '::before');
        return [s.maskImage || s.webkitMaskImage, parseFloat(s.width), parseFloat(s.height)]; }""")
    assert icon[0].startswith('url("data:image/svg+xml') and icon[1] >= 12 and icon[2] >= 12


def test_an_edited_file_uploaded_again_replaces_the_old_one_unless_both_are_kept(
    page, tmp_path
):
    notes = tmp_path / "meeting_notes.md"
    notes.write_text("# Meeting notes\n\nOn Fridays the dress code is formal.\n")
    upload(page, notes)
    notes.write_text("# Meeting notes\n\nOn Fridays the dress code is casual.\n")
    assert "meeting_notes.md replaced the earlier meeting_notes.md" in upload_status(page, notes)
    assert document_row(page, "meeting_notes").count() == 1
    message = ask(page, "What is the dress code on Fridays?").locator("xpath=..")
    assert "casual" in message.inner_text() and "formal" not in message.inner_text()

    page.get_by_label("Keep both when a file of the same name is uploaded").check()
    notes.write_text("# Meeting notes\n\nOn Fridays the dress code is smart.\n")
    assert "stored as meeting_notes (2).md" in upload_status(page, notes)
    assert document_row(page, "meeting_notes").count() == 2
    page.get_by_label("Keep both when a file of the same name is uploaded").uncheck()


def upload_status(page, path: Path) -> str:
    """Upload a file again: the new status, once it tells the file's fate."""
    before = page.inner_text("#qa-status")
    page.set_input_files("#qa-upload input[type=file]", str(path))
    page.wait_for_function(
        """([before, name]) => { const now = document.querySelector('#qa-status').innerText;
                                 return now !== before && now.includes(name); }""",
        arg=[before, path.name], timeout=120_000)
    return page.inner_text("#qa-status")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_answer_stays_in_view_at_its_first_line_and_table_rows_go_to_the_cards(
    browser, served, viewport
):
    phone = viewport == PHONE
    page = open_page(browser, served["url"], viewport=viewport, is_mobile=phone,
                     has_touch=phone)
    try:
        for question in ("Who sent apologies?", "Which department has the largest amount?",
                         "Which department has the smallest amount?"):
            answer = ask(page, question)
            page.wait_for_timeout(1000)  # past any scrolling after the answer
            top, bottom = page.locator("#qa-chat .bubble-wrap").evaluate(
                "w => { const r = w.getBoundingClientRect(); return [r.top, r.bottom]; }")
            first_line = answer.evaluate("a => a.getBoundingClientRect().top")
            assert max(top, 0) - 1 <= first_line <= min(bottom, viewport["height"]) - 40, (
                question, first_line, top, bottom)
        said = answer.inner_text()
        assert said.startswith("Markets") and "computed" in said
        assert not any(name in said for name, _ in BUDGET if name != "Markets")  # not a row
        rows = answer.locator("xpath=..").locator(".qa-source table.qa-rows tbody tr")
        assert rows.count() == len(BUDGET)
    finally:
        page.context.close()


def test_a_refusal_shows_the_nearest_passage_as_no_answer_and_offers_to_ask_within_it(
    browser, served
):
    page = open_page(browser, served["url"], viewport=DESKTOP)  # its own conversation
    try:
        # the minutes say "The chair welcomed the board...", never who the chair was
        message = ask(page, "Who chaired the meeting?").locator("xpath=..")
        assert "do not contain an answer" in message.locator(".qa-answer").inner_text()
        nearest = message.locator(".qa-nearest")
        assert nearest.locator(".qa-nearest-title").inner_text().startswith("Not an answer")
        assert "apologies from Ines Varga" in nearest.inner_text()
        assert message.locator(".qa-sources").count() == 0  # it cites nothing
        nearest.get_by_role("link", name="Ask within board_minutes.docx").click()
        page.wait_for_function("document.querySelector('#qa-scope').innerText"
                               ".includes('Ask within: board_minutes.docx')")
        page.wait_for_function("document.activeElement.matches('#qa-question textarea')")
        assert page.input_value("#qa-question textarea") == "Who chaired the meeting?"
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelectorAll('#qa-chat .qa-scope').length == 1",
                               timeout=60_000)
        assert "board_minutes.docx" in page.inner_text("#qa-chat .qa-scope")
    finally:
        page.context.close()


def test_a_wrong_answer_mark_is_shown_again_after_a_reload(page):
    ask(page, "How many days of sick leave?")
    page.locator("#qa-chat .qa-flag").last.click()
    form = page.locator("#qa-feedback form.qa-feedback")
    form.locator("textarea").fill("12")
    form.get_by_role("button", name="Mark as wrong").click()
    page.locator("#qa-feedback .qa-feedback-note").get_by_text("Marked as wrong").wait_for()
    page.reload()
    page.wait_for_selector("#qa-chat .qa-answer")
    flags = page.locator("#qa-chat .qa-flag").all_inner_texts()
    assert flags[-1] == "Marked wrong" and "Marked wrong" not in flags[:-1]


def test_the_keyboard_goes_from_the_question_to_the_answer_and_stays_in_the_viewer(page):
    ask(page, "How many days of annual leave?")
    box = page.get_by_role("textbox", name="Your question")  # named after a question too
    assert box.get_attribute("placeholder") == "Ask about your documents…"
    assert page.locator("#qa-question").get_by_role("button", name="Send the question").count()
    box.focus()
    for _ in range(3):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('a.qa-to-answer')"):
            break
    skip = page.locator("a.qa-to-answer")
    assert skip.evaluate("a => a === document.activeElement") and skip.is_visible()
    assert skip.inner_text() == "Go to the answer’s first source [1]"
    page.keyboard.press("Enter")
    first = page.locator("#qa-chat .qa-answer").last.locator(".qa-cite").first
    assert first.evaluate("c => c === document.activeElement") and first.inner_text() == "[1]"

    original = page.locator("#qa-chat .qa-sources").last.locator("a.qa-open-original").first
    original.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.matches('.qa-view-close')")
    for key in ["Tab"] * 8 + ["Shift+Tab"] * 8:
        page.keyboard.press(key)
        assert page.evaluate("!!document.activeElement.closest('#qa-viewer .qa-view')"), key
    page.keyboard.press("Escape")
    page.wait_for_function("document.activeElement.matches('a.qa-open-original')")


def test_a_word_file_is_viewed_as_its_headings_paragraphs_and_tables_with_no_page(page):
    ask(page, "How many days of sick leave?")
    page.locator("#qa-chat .qa-sources").last.locator("a.qa-open-original").first.click()
    dialog = page.locator("#qa-viewer .qa-view:not([hidden])")
    dialog.locator(".qa-view-body").wait_for()
    assert "page" not in dialog.locator(".qa-view-where").inner_text()
    body = dialog.locator(".qa-view-body")
    assert body.get_by_role("heading", name="Lisbon office").count() == 1
    assert body.locator("p", has_text="Do not share the forecast").count() == 1
    table = body.locator("table")
    assert table.locator("th").all_inner_texts() == ["Leave type", "Days"]
    assert table.locator("tr[aria-current=true]").inner_text().split() == ["Sick", "10"]
    assert "Leave type:" not in body.inner_text()  # no flattened "name: value" lines
    dialog.locator(".qa-view-close").click()


def test_a_conversation_is_renamed_in_place_and_its_markdown_names_a_sheet_row(page):
    ask(page, "How much is budgeted for Parks?")
    prompts = []
    page.on("dialog", lambda dialog: (prompts.append(dialog.message), dialog.dismiss()))
    row = page.locator("#qa-conv-list .qa-conv.qa-conv-current")
    row.locator(".qa-conv-rename").click()
    title = row.get_by_role("textbox", name="New title for this conversation")
    title.fill("Board and budget")
    title.press("Enter")
    page.locator("#qa-conv-list .qa-conv-title", has_text="Board and budget").wait_for()
    assert prompts == []
    with page.expect_download() as download:
        page.locator("#qa-conv-list .qa-conv-current .qa-conv-md").click()
    markdown = Path(download.value.path()).read_text()
    assert "spending.xlsx, sheet Budget, row 3: “Budget: Department: Parks" in markdown
    assert "spending.xlsx, page" not in markdown


def test_an_overview_says_what_the_document_is_then_its_main_points_in_order(page):
    lines = ask(page, f"What is “{MINUTES_TITLE}” about?").inner_text().split("\n")
    assert lines[0] == f"“{MINUTES_TITLE}” is a Word document: {PURPOSE} [1]"
    assert [line.split(":")[0] for line in lines[1:]] == ["Welcome", "Forecast",
                                                         "Lisbon office"]
    assert "412,000 pounds" in lines[2]  # a figure
    assert "The board approved the Lisbon office" in lines[3]  # a decision
    assert all(line.endswith("[1]") for line in lines)  # each cited
