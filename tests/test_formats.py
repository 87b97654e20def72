"""The formats beyond text, HTML, PDF and .docx: files made here, indexed with the real
model, asked about, and the answer's quote checked in the stored text and the source card.

One index holds a slide deck, a workbook, a CSV file, an e-book, an e-mail, an
OpenDocument text, an RTF file and a PDF whose second page is a scan (read by OCR, the
one slow step: a single small picture). Bad files of the zip formats end in one line.
"""

import io
import re
import struct
import zipfile
import zlib
from email.message import EmailMessage
from pathlib import Path

import openpyxl
import pytest

from qa import Index
from qa.loaders.base import Reading, RunPages, TextBudget
from qa.loaders.formats import FORMATS, SUPPORTED_EXTENSIONS, LoadError, load
from tests import test_hostile_uploads
from tests.helpers import ROOT, zip_of
from ui import uploads
from ui.render import escape, sources_html

SCAN_LINE = "The boiler room key is kept in drawer seven."
served = test_hostile_uploads.served  # a `qa serve` over a new index (a fixture)


def _pptx() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Welcome to the plant"
    first.placeholders[1].text = "Safety shoes are worn in every hall."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Opening hours"
    box = second.shapes.add_textbox(Inches(1), Inches(2), Inches(6), Inches(1))
    box.text_frame.text = "The canteen opens at half past eleven."
    second.notes_slide.notes_text_frame.text = "Thank the cooks from Lyon."
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _xlsx() -> bytes:
    book = openpyxl.Workbook()
    staff = book.active
    staff.title = "Staff"
    staff.append(["Name", "Role"])
    staff.append(["Ada Brenner", "Night porter"])
    prices = book.create_sheet("Prices")
    prices.append(["Product", "Price", None, "In stock", "Margin"])  # an empty column
    prices.append([None])  # an empty row
    prices.append(["Copper kettle", 24.5, None, 310, 0.125])
    prices.append(["Bread toaster", 31, None, 12, "=E3*2"])  # no cached value: never opened
    for row in (3, 4):  # as Excel shows them: 24.50 and 12.5%
        prices.cell(row, 2).number_format = "0.00"
        prices.cell(row, 5).number_format = "0.0%"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _epub() -> bytes:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("sea-tales")
    book.set_title("Sea Tales")
    book.set_language("en")
    chapters = []
    for number, (heading, body) in enumerate([
        ("The Harbour", "The harbour froze over in the March of that year."),
        ("The Storm", "A storm sank the whaler Pequod off the coast of Nantucket."),
    ], 1):
        chapter = epub.EpubHtml(title=heading, file_name=f"chapter{number}.xhtml")
        chapter.content = f"<h1>{heading}</h1><p>{body}</p>"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc, book.spine = chapters, chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


def _eml() -> bytes:
    message = EmailMessage()
    message["Subject"] = "Chimney sweep visit"
    message["From"] = "Ann Weber <ann@example.org>"
    message["To"] = "caretaker@example.org"
    message["Date"] = "Tue, 03 Dec 2024 10:00:00 +0000"
    message.set_content("The chimney sweep comes on Thursday morning.\n\nRegards, Ann")
    message.add_attachment(b"The spare cellar key hangs in the red cupboard.",
                           maintype="text", subtype="plain", filename="keys.txt")
    message.add_attachment(b"\x00\x01", maintype="application", subtype="octet-stream",
                           filename="blob.bin")
    return bytes(message)


def _odt() -> bytes:
    from odf.opendocument import OpenDocumentText
    from odf.text import H, P

    document = OpenDocumentText()
    document.text.addElement(H(outlinelevel=1, text="Board minutes"))
    document.text.addElement(P(text="The roof of the east wing is repaired in June."))
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def _scanned_pdf() -> bytes:
    """Page 1 has a text layer; page 2 is a picture of a typed line, as a scanner makes."""
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFont

    picture = Image.new("L", (1100, 120), "white")
    ImageDraw.Draw(picture).text((30, 35), SCAN_LINE, fill="black",
                                 font=ImageFont.load_default(size=40))
    image = io.BytesIO()
    picture.save(image, "PNG")
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 10, "Building handbook. Rules for tenants follow on the next page.")
    pdf.add_page()
    pdf.image(image, x=10, y=20, w=180)
    return bytes(pdf.output())


FILES = {
    "plant.pptx": _pptx,
    "stock.xlsx": _xlsx,
    "paints.csv": lambda: ("Colour;Price;Shop\nOchre;12,50;Nord\nTeal;9,90;Süd\n"
                           "Moosgrün;7,20;Café Müller\nSchwarz;5,00;Kühne & Söhne\n"
                           ).encode("cp1252"),  # ; and Windows-1252
    "sea.epub": _epub,
    "sweep.eml": _eml,
    "minutes.odt": _odt,
    "garden.rtf": lambda: (rb"{\rtf1\ansi\pard The greenhouse is heated from October.\par"
                           rb"\trowd\cellx1000\cellx2000 Plant\cell Bed\cell\row"
                           rb"\trowd\cellx1000\cellx2000 Fig tree\cell 9\cell\row}"),
    "handbook.pdf": _scanned_pdf,
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("formats")
    for name, make in FILES.items():
        (folder / name).write_bytes(make())
    index = Index.build([folder], path=folder.parent / "index")
    yield index
    index.close()


@pytest.mark.parametrize(("question", "file", "page", "line"), [
    ("When does the canteen open?", "plant.pptx", 2, "The canteen opens at half past eleven."),
    ("What does the copper kettle cost?", "stock.xlsx", 2,
     "Prices: Product: Copper kettle; Price: 24.50; In stock: 310; Margin: 12.5%."),
    ("What does teal paint cost?", "paints.csv", None, "Colour: Teal; Price: 9,90; Shop: Süd."),
    ("Which whaler did the storm sink?", "sea.epub", 2,
     "A storm sank the whaler Pequod off the coast of Nantucket."),
    ("When does the chimney sweep come?", "sweep.eml", None,
     "The chimney sweep comes on Thursday morning."),
    ("Where does the spare cellar key hang?", "sweep.eml", None,
     "The spare cellar key hangs in the red cupboard."),
    ("When is the roof of the east wing repaired?", "minutes.odt", None,
     "The roof of the east wing is repaired in June."),
    ("In which bed is the fig tree?", "garden.rtf", None, "Plant: Fig tree; Bed: 9."),
    ("Where is the boiler room key kept?", "handbook.pdf", 2, SCAN_LINE),
])
def test_a_question_gets_the_right_cited_quote(index, question, file, page, line):
    """The quote is taken from the line (the sentence, the table row) that answers; the
    sentence segmenter may still cut a row at "; " before a capital (then the quote is
    part of the row), which the docs branch is changing."""
    answer = index.ask(question)

    assert answer.found, question
    citation = answer.citations[0]
    assert Path(citation.hit.source).name == file
    assert citation.hit.page == page
    text = index.document_text(citation.hit.source)
    assert text[citation.start:citation.end] == citation.quote
    at = text.index(line)
    assert at <= citation.start and citation.end <= at + len(line), citation.quote
    card = sources_html([citation], index.document_text)
    assert f'<mark class="qa-quote">{escape(citation.quote)}</mark>' in card


def test_what_each_file_holds_is_stored_as_read(index):
    texts = {Path(d.path).name: index.document_text(d.path) for d in index.documents()}

    assert set(texts) == set(FILES)
    assert "Thank the cooks from Lyon." in texts["plant.pptx"]  # speaker notes
    assert texts["stock.xlsx"].split("\n\n") == [
        "Staff: Name: Ada Brenner; Role: Night porter.",
        "Prices: Product: Copper kettle; Price: 24.50; In stock: 310; Margin: 12.5%.\n"
        "Prices: Product: Bread toaster; Price: 31.00; In stock: 12."]
    assert "Subject: Chimney sweep visit\nFrom: Ann Weber <ann@example.org>" in texts["sweep.eml"]
    assert "Attachment: keys.txt" in texts["sweep.eml"] and "blob.bin" not in texts["sweep.eml"]
    assert texts["sea.epub"].startswith("The Harbour\nThe harbour froze")
    assert texts["handbook.pdf"].endswith(SCAN_LINE)


@pytest.mark.parametrize("name", ["bomb.pptx", "bomb.xlsx", "bomb.ods", "bomb.odt",
                                  "bomb.epub"])
def test_a_zip_bomb_is_refused_before_it_is_unpacked(name):
    bomb = zip_of({"content.xml": b"<a>" + b" " * 20_000_000 + b"</a>"})

    with pytest.raises(LoadError, match=r"^content.xml in this \.\w+ unpacks to \d+ times"):
        load(Path(name), bomb)


def _png_header(width: int, height: int) -> bytes:
    """A PNG that is only its header, claiming `width` × `height` pixels (issue 26: a
    2,500-megapixel one was reported as "over 179 megapixels")."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("secret.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600,
     "password-protected .xlsx file"),
    ("cut.pptx", _pptx()[:3000], "not a valid .pptx file: File is not a zip file"),
    ("cut.epub", _epub()[:800], "not a valid .epub file"),
    ("note.rtf", b"just text", "not an RTF file"),
    ("huge.png", (20_000, 20_000), "^the image is too large to read: 400 megapixels; "
                                   "the limit is 50 megapixels$"),
    ("vast.png", _png_header(50_000, 50_000), "^the image is too large to read: 2,500 megapixels; "
                                   "the limit is 50 megapixels$"),
    ("large.png", (9_000, 6_000), "^the image is 9,000 × 6,000 pixels \\(54 megapixels\\); "
                                  "the limit is 50 megapixels$"),
    ("photo.png", b"\x89PNG\r\n\x1a\n garbage", "not a readable image"),
])
def test_a_file_that_cannot_be_read_says_why_in_one_line(name, data, reason):
    if isinstance(data, tuple):  # a picture of this size, in a small PNG
        from PIL import Image

        out = io.BytesIO()
        Image.new("1", data).save(out, "PNG")
        data = out.getvalue()

    with pytest.raises(LoadError, match=reason) as error:
        load(Path(name), data)
    assert "\n" not in str(error.value)


@pytest.mark.heavy
def test_a_million_rows_end_in_one_line_without_reading_them_all(tmp_path):
    csv = b"Tick;Note\n" + b"".join(b"%d;ok\n" % n for n in range(1_000_000))
    with pytest.raises(LoadError, match="^this file has more than 100,000 rows"):
        load(tmp_path / "ticks.csv", csv)

    book = io.BytesIO()
    openpyxl.Workbook().save(book)
    members = {m.filename: zipfile.ZipFile(book).read(m) for m in zipfile.ZipFile(book).infolist()}
    rows = "".join(f'<row r="{n}"><c r="A{n}"><v>{n}</v></c></row>' for n in range(1, 1_000_001))
    members["xl/worksheets/sheet1.xml"] = members["xl/worksheets/sheet1.xml"].replace(
        b"<sheetData></sheetData>", f"<sheetData>{rows}</sheetData>".encode())
    with pytest.raises(LoadError, match=r"^the XML in this \.xlsx unpacks to \d+\.\d MB; the "
                                        "limit is 25 MB$"):
        load(tmp_path / "ticks.xlsx", zip_of(members))


def test_with_ocr_off_a_picture_is_refused_and_a_scan_keeps_only_its_text(tmp_path, capsys):
    from qa.cli import main

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "handbook.pdf").write_bytes(_scanned_pdf())
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    assert main(["--index", str(tmp_path / "index"), "index", "--no-ocr", str(folder)]) == 0

    assert capsys.readouterr().err.splitlines()[-1] == (
        f"failed: {folder / 'photo.png'}: images and scanned pages are read by OCR, which is "
        "turned off (--no-ocr)")
    index = Index.open(tmp_path / "index")
    try:
        text = index.document_text(str(folder / "handbook.pdf"))
    finally:
        index.close()
    assert text.startswith("Building handbook.") and SCAN_LINE not in text


def test_ocr_without_its_extra_says_what_to_install(tmp_path):
    from PIL import Image, ImageDraw

    from tests.test_packaging import _run

    picture = Image.new("RGB", (300, 80), "white")
    ImageDraw.Draw(picture).text((10, 30), "Room 12", fill="black")
    picture.save(tmp_path / "scan.png")
    code = ("from pathlib import Path\nfrom qa.loaders.formats import LoadError, load\n"
            f"path = Path({str(tmp_path / 'scan.png')!r})\n"
            "try:\n    load(path, path.read_bytes())\n"
            "except LoadError as error:\n    print(error)\n")

    result = _run(code, {"rapidocr", "onnxruntime"})

    assert result.stdout == ("OCR needs the rapidocr and onnxruntime packages: "
                             "pip install 'qa[ocr]' (or index with --no-ocr)\n"), result.stderr


def test_a_500_page_scan_is_read_only_to_the_page_limit(caplog):
    """Pages are rendered one at a time as OCR asks for them, so the pages past
    MAX_PAGES are never rendered, and a logged line says how many were read."""
    from PIL import Image

    from qa.loaders import ocr

    rendered = []

    def pages():
        for n in range(500):
            rendered.append(n)
            yield Image.new("RGB", (850, 1100), "white")  # blank: no model needed

    reading = Reading(TextBudget(10_000), True, lambda *_: ("", "", ()), ocr.MAX_PAGES,
                      RunPages(ocr.MAX_PAGES))
    texts = ocr.read_pages(pages(), 500, reading)

    assert len(texts) == len(rendered) == ocr.MAX_PAGES
    assert f"OCR reads {ocr.MAX_PAGES} of the 500 pages without text" in caplog.text


@pytest.mark.process
def test_the_web_upload_takes_the_new_formats(served):
    files = [("plant.pptx", _pptx()), ("sea.epub", _epub()), ("paints.csv", FILES["paints.csv"]())]
    status = test_hostile_uploads.upload(served["url"], *files)

    for name in ("plant.pptx", "sea.epub", "paints.csv"):
        assert re.search(rf"{re.escape(name)} is indexed \(\d+ passages?\)", status), status


def test_an_ods_sheet_claiming_a_million_empty_rows_reads_its_rows_only(tmp_path):
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="Fleet")
    for values in (["Ship", "Crew"], ["Aurora", "12"]):
        row = TableRow()
        for value in values:
            cell = TableCell()
            cell.addElement(P(text=value))
            row.addElement(cell)
        table.addElement(row)
    empty = TableRow(numberrowsrepeated=1_048_574)  # as LibreOffice writes a sheet's rest
    empty.addElement(TableCell(numbercolumnsrepeated=16_384))
    table.addElement(empty)
    document.spreadsheet.addElement(table)
    out = io.BytesIO()
    document.write(out)

    assert load(tmp_path / "fleet.ods", out.getvalue()).text == "Fleet: Ship: Aurora; Crew: 12."


def test_a_mailbox_gives_a_page_per_message(tmp_path, caplog):
    mbox = (b"From ann@example.org Tue Dec  3 10:00:00 2024\n" + _eml()
            + b"\nFrom bob@example.org Tue Dec  3 11:00:00 2024\nSubject: Lunch\n"
            b"From: bob@example.org\n\nLunch is at noon in the yard.\n")

    document = load(tmp_path / "inbox.mbox", mbox)

    assert [page for _, _, page in document.sections()] == [1, 2]
    second = document.text[document.page_starts[1]:]
    assert second == "Subject: Lunch\nFrom: bob@example.org\n\nLunch is at noon in the yard."
    assert ("attachment blob.bin of the e-mail 'Chimney sweep visit' skipped: unsupported file "
            "type '.bin'") in caplog.text


def test_the_formats_table_in_the_docs_lists_exactly_the_registry():
    """docs/formats.md's table and the web chat's upload picker name each registered
    extension, and no other."""
    table = (ROOT / "docs" / "formats.md").read_text().partition("## Supported formats")[2]
    documented = re.findall(r"`(\.\w+)`", "\n".join(
        line.split(" | ")[0] for line in table.splitlines() if line.startswith("| `.")))
    registered = [e for f in FORMATS for e in f.extensions]
    assert sorted(documented) == sorted(registered)
    assert len(set(registered)) == len(registered)  # no extension registered twice
    assert set(uploads.SUPPORTED) == SUPPORTED_EXTENSIONS == set(registered)


def test_the_ocr_page_limit_holds_for_a_file_and_its_attachments_together(caplog):
    """Issue 26, item 6: an e-mail with two 60-page scans (blank, so no model is needed)
    sends 100 pages to OCR in all, not 120: the second scan gets the 40 left."""
    from fpdf import FPDF

    scan = FPDF()
    for _ in range(60):
        scan.add_page()  # no text layer: each page goes to OCR
    message = EmailMessage()
    message["Subject"] = "Two scans"
    message.set_content("Both scans are attached.")
    for name in ("first.pdf", "second.pdf"):
        message.add_attachment(bytes(scan.output()), maintype="application", subtype="pdf",
                               filename=name)

    with caplog.at_level("WARNING"):
        document = load(Path("scans.eml"), bytes(message))

    assert document.text.startswith("Subject: Two scans")
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("OCR reads")] == [
        "OCR reads 40 of the 60 pages without text in this file (MAX_PAGES, 100 for a file and "
        "its attachments together, or the run's limit)"]
