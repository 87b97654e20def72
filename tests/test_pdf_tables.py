"""Ruled tables in a PDF are read as data: each row a line that names its columns and its
caption, its cells typed and stored, so a question computes from them, and the viewer
marks a quoted row on the page."""

import io
from pathlib import Path

from qa import originals
from qa.loaders.formats import load
from tests.helpers import index_of

QUARTERS = [["Quarter", "Corn Exchange", "Reading room"],
            ["Q1 (April to June)", "12,905", "268"],
            ["Q2 (July to September)", "17,240", "231"],
            ["Q3 (October to December)", "9,870", "247"],
            ["Q4 (January to March)", "8,715", "300"]]
ABOVE = "The Corn Exchange welcomed 48,730 visitors in 2024-25, up from 45,120 the year before."
BELOW = "We taught 6,214 pupils from 93 schools over the year."


def _review_pdf(rows: list[list[str]] = QUARTERS) -> bytes:
    """An annual review: a paragraph, a caption, a ruled table (fpdf2 draws each cell's
    borders, and its header again atop a page it runs on to), a paragraph."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(0, 6, ABOVE)
    pdf.ln(4)
    pdf.multi_cell(0, 6, "Visitors by quarter, 2024-25:")
    with pdf.table() as table:
        for cells in rows:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(4)
    pdf.multi_cell(0, 6, BELOW)
    return bytes(pdf.output())


def test_a_ruled_pdf_table_is_rows_of_typed_cells_under_its_caption():
    document = load(Path("review.pdf"), _review_pdf())
    [table] = document.tables

    assert (table.caption, table.header) == ("Visitors by quarter, 2024-25:",
                                             ("Quarter", "Corn Exchange", "Reading room"))
    assert [(cells[1][1].kind, cells[1][1].number) for cells in (r.cells for r in table.rows)] \
        == [("number", 12905.0), ("number", 17240.0), ("number", 9870.0), ("number", 8715.0)]
    assert document.text[table.rows[1].start:table.rows[1].end] == (
        "Visitors by quarter, 2024-25: Quarter: Q2 (July to September); "
        "Corn Exchange: 17,240; Reading room: 231.")
    assert document.text.index(ABOVE) < table.rows[0].start < table.rows[-1].end \
        < document.text.index(BELOW)  # the prose around it is kept, in order


def test_a_table_going_on_to_the_next_page_under_its_header_again_is_one_table():
    many = [QUARTERS[0]] + [[f"Week {n}", f"{100 + n}", f"{n}"] for n in range(1, 61)]

    document = load(Path("weeks.pdf"), _review_pdf(many))

    assert len(document.page_starts) == 2
    [table] = document.tables
    assert [cells[0][1].text for cells in (r.cells for r in table.rows)] == \
        [f"Week {n}" for n in range(1, 61)]
    assert "Quarter: Quarter" not in document.text  # the repeated header is no row


def test_how_many_more_in_q2_than_in_q4_is_computed_from_the_pdf_s_table(tmp_path):
    index = index_of(tmp_path, {}, lambda folder: (folder / "review.pdf").write_bytes(
        _review_pdf()))

    answer = index.ask("How many more visitors did the Corn Exchange get in Q2 than in Q4?")

    assert answer.text.startswith("Corn Exchange, Q2 (July to September) minus Q4 (January "
                                  "to March): 8,525 (computed: 17,240 − 8,715).")
    assert [c.quote for c in answer.citations][-2:] == [
        "Visitors by quarter, 2024-25: Quarter: Q2 (July to September); Corn Exchange: "
        "17,240; Reading room: 231.",
        "Visitors by quarter, 2024-25: Quarter: Q4 (January to March); Corn Exchange: 8,715; "
        "Reading room: 300."]


def test_a_quoted_row_is_marked_on_the_page_where_its_cells_are():
    data = _review_pdf()
    document = load(Path("review.pdf"), data)
    row = document.tables[0].rows[1]  # Q2, under the header and Q1

    def marked(quote: str) -> list[float]:
        boxes = originals.pdf_page(originals.Original("review.pdf", "", data), 1, quote).boxes
        return sorted(top for _, top, _, _ in boxes)

    tops = marked(document.text[row.start:row.end])
    assert tops and tops[-1] - tops[0] < 0.01  # one line of the page
    assert marked("Visitors by quarter")[0] + 0.02 < tops[0]  # two rows below the caption
    assert marked("Q3 (October to December)")[0] > tops[0]


def test_a_page_drawing_more_rules_than_any_table_is_not_read_again():
    """pdfplumber's finder grows faster than the rules a page draws (8,000 cost 2.7 CPU-s
    a page here): a page of thousands (a hostile file, a drawing) keeps pypdf's text; a
    table's page is read again."""
    from fpdf import FPDF
    from pypdf import PdfReader

    from qa.loaders.pdf_tables import draws_rules

    pdf = FPDF()
    pdf.add_page()
    for n in range(5_000):  # a drawing's hatching; a table of 20 rows and 10 columns: 230
        pdf.line(10 + n % 190, 250, 10 + n % 190, 260)
    [grid] = PdfReader(io.BytesIO(bytes(pdf.output()))).pages
    review = PdfReader(io.BytesIO(_review_pdf())).pages[0]

    assert not draws_rules(grid)
    assert draws_rules(review)
