"""The viewer end to end: a PDF, a photo of text (OCR) and a spreadsheet are indexed, a
question is asked about each in Chromium, and its citation opened in the page: the page
or photo drawn with the quote's boxes over it, the sheet as a table with the cited row
marked; "Download original" serves an indexed file's bytes and nothing else.
"""

import subprocess
from pathlib import Path

import httpx
import pytest

from tests.helpers import ENV, QA, ROOT, qa_serve
from tests.test_ui import PHONE, ask, document_row, open_page

pytestmark = [pytest.mark.process, pytest.mark.browser]

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
PDF_QUOTE = "The lighthouse keeper retired in March after forty years of service on the island."
PHOTO_LINE = "The boiler was serviced by Acme Heating."


def make_documents(folder: Path) -> None:
    """A two-page PDF (fpdf2), a photo of two lines of text (PIL), a workbook whose
    sheet "Budget" has a header and three rows (openpyxl) and a CSV with a long cell."""
    from fpdf import FPDF
    from openpyxl import Workbook
    from PIL import Image, ImageDraw, ImageFont

    folder.mkdir()
    pdf = FPDF()
    pdf.set_font("Helvetica", size=14)
    pdf.add_page()
    pdf.multi_cell(0, 8, f"The harbour report covers the year's repairs. {PDF_QUOTE}")
    pdf.add_page()
    pdf.multi_cell(0, 8, "The ferry timetable changes in June.")
    pdf.output(str(folder / "harbour.pdf"))
    photo = Image.new("RGB", (1000, 320), "white")
    draw, font = ImageDraw.Draw(photo), ImageFont.truetype(FONT, 38)
    draw.text((40, 60), "Kitchen maintenance record", fill="black", font=font)
    draw.text((40, 180), PHOTO_LINE, fill="black", font=font)
    photo.save(folder / "boiler.png")
    book = Workbook()
    sheet = book.active
    sheet.title = "Budget"
    for row in [["Department", "Amount"], ["Libraries", 1200], ["Parks", 5300], ["Roads", 9100]]:
        sheet.append(row)
    book.save(folder / "spending.xlsx")
    (folder / "orders.csv").write_text(
        "Reference,Amount,Description\nA-17,240,The replacement of the whole north-facing roof "
        "of the community library after the storm damage of that winter with new gutters\n")


@pytest.fixture(scope="module")
def served(tmp_path_factory, browser):
    folder = tmp_path_factory.mktemp("viewer")
    make_documents(folder / "docs")
    (folder / "secret.txt").write_text("not indexed")
    subprocess.run([*QA, "--index", str(folder / "index"), "index", str(folder / "docs")],
                   check=True, cwd=ROOT, env=ENV, capture_output=True)
    with qa_serve(folder / "index", folder / "serve.log", timeout=180) as (url, _):
        page = open_page(browser, url)
        yield {"url": url, "page": page, "docs": folder / "docs", "folder": folder}
        page.context.close()


def open_citation(page, question: str):
    """Ask, open the answer's first citation in the viewer: the dialog."""
    ask(page, question)
    page.locator("#qa-chat .qa-sources").last.locator("a.qa-open-original").first.click()
    dialog = page.locator("#qa-viewer .qa-view:not([hidden])")
    dialog.locator(".qa-view-body").wait_for(timeout=60_000)
    return dialog


def close(dialog) -> None:
    dialog.locator(".qa-view-close").click()
    dialog.wait_for(state="hidden")


def box_over_image(dialog) -> None:
    """The drawn page is visible and at least one highlight box lies inside it."""
    image = dialog.locator("img.qa-view-image")
    assert image.is_visible()
    frame = image.bounding_box()
    boxes = [b.bounding_box() for b in dialog.locator(".qa-view-box").all()]
    assert boxes, "no highlight on the page"
    right, bottom = frame["x"] + frame["width"] + 1, frame["y"] + frame["height"] + 1
    for box in boxes:
        assert frame["x"] <= box["x"] and box["x"] + box["width"] <= right
        assert frame["y"] <= box["y"] and box["y"] + box["height"] <= bottom
        assert box["width"] > 10 and box["height"] > 5


def test_a_pdf_citation_opens_its_page_with_the_quote_highlighted(served):
    page = served["page"]
    dialog = open_citation(page, "When did the lighthouse keeper retire?")

    assert "harbour.pdf · page 1 of 2" in dialog.locator(".qa-view-where").inner_text()
    box_over_image(dialog)
    lines = dialog.locator(".qa-view-box").count()
    assert lines == 2  # the quote runs over two lines of the page

    dialog.get_by_role("button", name="Next page").click()
    page.wait_for_function("() => document.querySelector('.qa-view-where')"
                           ".innerText.includes('page 2 of 2')")
    assert dialog.get_by_role("button", name="Next page").is_disabled()
    assert dialog.locator(".qa-view-box").count() == 0  # the quote is not on page 2
    width = dialog.locator("img.qa-view-image").bounding_box()["width"]
    dialog.get_by_role("button", name="Zoom in").click()
    assert dialog.locator("img.qa-view-image").bounding_box()["width"] > width * 1.2
    close(dialog)


def test_a_photo_citation_opens_the_photo_with_the_read_line_highlighted(served):
    dialog = open_citation(served["page"], "Who serviced the boiler?")

    assert "boiler.png" in dialog.locator(".qa-view-where").inner_text()
    box_over_image(dialog)
    [box] = [b.bounding_box() for b in dialog.locator(".qa-view-box").all()]
    frame = dialog.locator("img.qa-view-image").bounding_box()
    assert box["y"] - frame["y"] > frame["height"] * 0.4  # the second line, not the first
    close(dialog)


def test_a_sheet_citation_opens_the_sheet_with_the_cited_row_marked(served):
    page = served["page"]
    ask(page, "What is the amount for Parks?")
    card = page.locator("#qa-chat .qa-sources").last.locator(".qa-source").first
    assert card.locator(".qa-source-title").inner_text() == "spending.xlsx"  # not its first row
    assert "sheet Budget, row 3" in card.locator(".qa-source-where").inner_text()
    card.locator("a.qa-open-original").click()
    dialog = page.locator("#qa-viewer .qa-view:not([hidden])")
    dialog.locator("table.qa-view-table").wait_for()

    assert dialog.locator("caption").inner_text().startswith("Sheet Budget")
    assert dialog.locator("tr.qa-view-marked").all_inner_texts() == ["3\tParks\t5300"]
    close(dialog)


def test_the_documents_list_opens_a_document_in_the_viewer(served):
    page = served["page"]
    document_row(page, "harbour.pdf").locator(".qa-doc-view").click()
    dialog = page.locator("#qa-viewer .qa-view:not([hidden])")
    dialog.locator("img.qa-view-image").wait_for()
    assert "page 1 of 2" in dialog.locator(".qa-view-where").inner_text()
    close(dialog)


def test_download_original_serves_indexed_files_only(served):
    page = served["page"]
    dialog = open_citation(page, "When did the lighthouse keeper retire?")
    href = dialog.locator("a.qa-view-download").get_attribute("href")
    response = page.request.get(f"{served['url']}/{href}")
    assert response.status == 200
    assert response.body() == (served["docs"] / "harbour.pdf").read_bytes()
    assert "attachment" in response.headers["content-disposition"]
    close(dialog)

    route = f"{served['url']}/qa/original"
    for outside in ("/etc/passwd", str(served["folder"] / "secret.txt"),
                    str(served["docs"] / ".." / "secret.txt"), ""):
        refused = httpx.get(route, params={"path": outside})
        assert refused.status_code == 404, outside
    indexed = str(served["docs"] / "harbour.pdf")
    elsewhere = httpx.get(route, params={"path": indexed},
                          headers={"Sec-Fetch-Site": "cross-site"})
    assert elsewhere.status_code == 403


WORDS_BROKEN_JS = """(cells) => cells.flatMap((cell) => {
  // The words of a cell drawn over more than one line box.
  const text = cell.firstChild && cell.firstChild.nodeType === 3 ? cell.firstChild : null;
  if (!text) return [];
  const broken = [];
  for (const match of text.data.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, match.index);
    range.setEnd(text, match.index + match[0].length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) broken.push(match[0]);
  }
  return broken;
})"""


def test_a_phone_shows_the_question_box_first_and_tables_scroll_instead_of_breaking_words(
    served, browser
):
    phone = open_page(browser, served["url"], viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        phone.wait_for_timeout(1500)  # past the page's own scrolling to the top
        box = phone.locator("#qa-question textarea").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]

        ask(phone, "What was the amount for the replacement of the library roof?")
        card = phone.locator("#qa-chat .qa-sources").last.locator(".qa-source").first
        headers = card.locator("table.qa-row th")
        assert headers.count() >= 2
        assert headers.evaluate_all(WORDS_BROKEN_JS) == []
        card.locator("a.qa-open-original").click()
        table = phone.locator("#qa-viewer .qa-view:not([hidden]) table.qa-view-table")
        table.wait_for()
        assert table.locator("th").evaluate_all(WORDS_BROKEN_JS) == []
    finally:
        phone.context.close()
