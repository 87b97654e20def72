"""qa.originals without a browser: only indexed, unchanged files are read; an image too
large is refused with indexing's own message; a page is drawn at a bounded size."""

import io
import shutil
from pathlib import Path

import pytest

from qa import Index, QAError, originals
from qa.errors import LoadError
from qa.loaders.formats import load
from tests.helpers import SEED_FILE


def png_of(size: tuple[int, int]) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", size).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("size", [(20_000, 20_000), (9_000, 6_000)])
def test_an_image_too_large_is_refused_as_at_indexing(size):
    data = png_of(size)
    with pytest.raises(LoadError) as at_indexing:
        load(Path("big.png"), data)
    with pytest.raises(LoadError) as in_viewer:
        originals.image_page(originals.Original("big.png", "", data), 1, "")
    assert str(in_viewer.value) == str(at_indexing.value)


def test_a_page_is_drawn_at_most_view_side_pixels():
    picture = originals.image_page(originals.Original("wide.png", "", png_of((6_000, 3_000))), 1,
                                    "")
    assert (picture.width, picture.height) == (originals.VIEW_SIDE, originals.VIEW_SIDE // 2)


def test_only_an_indexed_file_unchanged_since_indexing_is_read(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SEED_FILE, docs)
    (tmp_path / "other.txt").write_text("not indexed")
    index = Index.build([docs], path=tmp_path / "index")
    seed = str(docs / SEED_FILE.name)
    try:
        assert originals.read_original(index, seed).data == SEED_FILE.read_bytes()
        for outside in (str(tmp_path / "other.txt"), str(docs / ".." / "other.txt"), "/etc/passwd"):
            with pytest.raises(QAError, match="not in the index"):
                originals.read_original(index, outside)
        (docs / SEED_FILE.name).write_text("something else")
        with pytest.raises(QAError, match="changed since it was indexed"):
            originals.read_original(index, seed)
    finally:
        index.close()


def test_a_scanned_pdf_page_has_its_quoted_line_boxed_as_ocr_reads_it(tmp_path):
    from fpdf import FPDF
    from PIL import Image, ImageDraw, ImageFont

    scan = Image.new("RGB", (1240, 1754), "white")  # an A4 page at 150 dpi
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 40)
    ImageDraw.Draw(scan).text((120, 200), "Invoice from the harbour office", fill="black",
                              font=font)
    ImageDraw.Draw(scan).text((120, 900), "The ferry leaves at dawn on Tuesday", fill="black",
                              font=font)
    pdf = FPDF()
    pdf.add_page()
    pdf.image(scan, x=0, y=0, w=210, h=297)
    data = bytes(pdf.output())
    quote = "The ferry leaves at dawn on Tuesday"
    assert quote in load(Path("scan.pdf"), data).text  # as OCR read it at indexing

    picture = originals.pdf_page(originals.Original("scan.pdf", "", data), 1, quote)

    [(left, top, width, height)] = picture.boxes
    assert 0.45 < top < 0.55 and 0.05 < left < 0.15 and width > 0.4  # the second line
    assert max(picture.width, picture.height) == originals.VIEW_SIDE


def test_a_sheet_under_a_title_row_shows_its_header_and_marks_the_cited_row():
    from openpyxl import Workbook

    book = Workbook()
    prices = book.active
    prices.title = "Prices"
    prices.append(["Price list — effective 1 April. Prices include VAT."])
    prices.append(["Code", "Service", "Price"])
    prices.append(["VAC01", "Dog booster", 58.5])
    prices.append(["VAC02", "Cat booster", 52])
    out = io.BytesIO()
    book.save(out)
    data = out.getvalue()
    quote = next(line for line in load(Path("prices.xlsx"), data).text.splitlines()
                 if "Cat booster" in line)

    shown = originals.sheet(data, ".xlsx", 1, quote)

    assert quote == "Prices: Code: VAC02; Service: Cat booster; Price: 52."
    assert shown.header == ["Code", "Service", "Price"]
    assert shown.marked == {4}


def test_a_sentence_that_runs_on_to_the_next_page_is_marked_where_it_begins(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.multi_cell(0, 6, "Refunds are paid to the card used for the booking.")
    pdf.set_y(-30)
    pdf.multi_cell(0, 6, "If you are unhappy with a refund decision, e-mail us. We aim to")
    pdf.add_page()
    pdf.multi_cell(0, 6, "reply within 15 working days. The forum is independent.")
    data = bytes(pdf.output())
    quote = "We aim to reply within 15 working days."
    assert quote in load(Path("policy.pdf"), data).text

    picture = originals.pdf_page(originals.Original("policy.pdf", "", data), 1, quote)

    [(left, top, width, height)] = picture.boxes
    assert top > 0.85 and width < 0.3  # "We aim to", at the foot of page 1


def test_a_sheet_shows_its_cells_as_indexing_read_them_and_marks_the_cited_row():
    import datetime

    from openpyxl import Workbook

    book = Workbook()
    fees = book.active
    fees.title = "Fees"
    fees.append(["Course", "Rate", "Starts", "Fee"])
    for course, rate, starts, fee in [("Pottery", 0.2, datetime.datetime(2023, 1, 9), 1250),
                                      ("Weaving", 0.15, datetime.datetime(2023, 2, 6), 980)]:
        fees.append([course, rate, starts, fee])
        row = fees.max_row
        fees.cell(row, 2).number_format = "0.0%"
        fees.cell(row, 4).number_format = "#,##0.00"
    out = io.BytesIO()
    book.save(out)
    data = out.getvalue()
    indexed = load(Path("fees.xlsx"), data).text
    quote = next(line for line in indexed.splitlines() if "Weaving" in line)

    shown = originals.sheet(data, ".xlsx", 1, quote)

    assert quote == "Fees: Course: Weaving; Rate: 15.0%; Starts: 2023-02-06; Fee: 980.00."
    assert [cells for _, cells in shown.rows] == [["Pottery", "20.0%", "2023-01-09", "1,250.00"],
                                                   ["Weaving", "15.0%", "2023-02-06", "980.00"]]
    assert shown.marked == {3}
