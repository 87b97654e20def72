"""PDF reflow: a paragraph's lines are joined (so a sentence is never cut at a line wrap),
paragraphs and pages stay apart, and a word hyphenated at a line end is made whole."""

from pathlib import Path

from qa.indexing.chunking import split_sentences
from qa.loaders.formats import Document, load
from qa.loaders.reflow import reflow

SAFETY = ("The safety officer, Priya Raman, recommends replacing the loading dock lights "
          "before winter.")


def _pdf(path: Path, width: float, *paragraphs: str, gap: float = 0) -> Document:
    """A PDF of `paragraphs` set in a column `width` mm wide (fpdf wraps the lines), loaded."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    for text in paragraphs:
        pdf.multi_cell(width, 6, text)
        pdf.ln(gap)
    pdf.output(str(path))
    return load(path, path.read_bytes())


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_a_sentence_wrapped_in_a_narrow_column_is_one_sentence(tmp_path):
    text = "Warehouse report. The safety officer,\nPriya Raman, recommends replacing the loading " \
           "dock lights before winter. The budget for the work is approved."

    document = _pdf(tmp_path / "narrow.pdf", 60, text)

    assert _sentences(document.text) == [
        "Warehouse report.", SAFETY, "The budget for the work is approved."]


def test_paragraphs_stay_apart_and_a_heading_does_not_run_into_its_paragraph(tmp_path):
    document = _pdf(tmp_path / "dock.pdf", 80,
                    "Loading Dock\nThe dock opens at six in the morning and closes when the last "
                    "truck has been unloaded.",
                    "Visitors sign in at the front desk and wear a badge while they are in the "
                    "building.", gap=4)

    assert document.text.split("\n\n") == [
        "Loading Dock",
        "The dock opens at six in the morning and closes when the last truck has been unloaded.",
        "Visitors sign in at the front desk and wear a badge while they are in the building."]


def _paged(path: Path, header: str, footer: str, *pages: str) -> Document:
    """A PDF of one page per text of `pages`, each under `header` and over `footer` (with
    "{n}" for the page number), loaded."""
    from fpdf import FPDF

    class Running(FPDF):
        def header(self) -> None:
            self.cell(0, 10, header.format(n=self.page_no()))
            self.ln(12)

        def footer(self) -> None:
            self.set_y(-15)
            self.cell(0, 10, footer.format(n=self.page_no()), align="C")

    pdf = Running()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(70, 6, text)
    pdf.output(str(path))
    return load(path, path.read_bytes())


def test_each_page_keeps_its_text_and_its_running_page_number_is_left_out(tmp_path):
    texts = ["Shipment 1 left the dock on a Monday morning, after the inspection of its crates "
             "by the night shift.", "The second shipment waited for the harbour master's "
             "signature until Tuesday, and sailed at noon."]
    document = _paged(tmp_path / "pages.pdf", "", "{n}", *texts)

    pages = [document.text[start:end] for start, end, _ in document.sections()]
    assert [page.strip() for page in pages] == texts


def test_pages_alike_but_for_their_number_are_kept_whole():
    pages = [f"Shipment {n} left the dock.\n{n}" for n in (1, 2, 3)]

    assert [page.split("\n\n") for page in reflow(pages)] == [
        [f"Shipment {n} left the dock.", str(n)] for n in (1, 2, 3)]


def test_a_number_that_differs_from_page_to_page_in_other_ways_is_kept(tmp_path):
    document = _paged(tmp_path / "slips.pdf", "", "Net pay {n}{n}0.00 GBP",
                      "Payslip for March, paid on the last working day of the month.",
                      "Payslip for April, paid on the last working day of the month.")

    assert "Net pay 110.00 GBP" in document.text and "Net pay 220.00 GBP" in document.text


def test_a_running_footer_is_never_read_into_a_sentence_and_the_header_is_kept_once(tmp_path):
    document = _paged(
        tmp_path / "policy.pdf", "Travel Policy", "HTP-07 Travel Policy - page {n} of 3",
        "Claims are paid within ten working days of a complete form.",
        "Taxis are refunded only after 23:00 or when no bus runs.",
        "Questions go to the finance office on extension 214.")

    sentences = _sentences(document.text)
    assert sentences == ["Travel Policy",
                         "Claims are paid within ten working days of a complete form.",
                         "Taxis are refunded only after 23:00 or when no bus runs.",
                         "Questions go to the finance office on extension 214."]


def test_a_sentence_that_runs_on_to_the_next_page_is_one_sentence_on_the_page_it_began():
    pages = reflow(["Refunds are paid to the card used. If you are unhappy, e-mail us. We aim to",
                    "reply within 15 working days. The forum is independent."])

    assert pages == ["Refunds are paid to the card used. If you are unhappy, e-mail us. We aim to "
                     "reply within 15 working days.", "The forum is independent."]


def test_a_numbered_heading_begins_a_paragraph_after_a_line_that_ends_in_no_full_stop():
    page = ("Policy owner: Aled Pryce, Marine Superintendent of the fleet and its crews\n"
            "1. Check-in\nVehicle check-in closes twenty minutes before departure.")

    assert reflow([page])[0].split("\n\n") == [
        "Policy owner: Aled Pryce, Marine Superintendent of the fleet and its crews",
        "1. Check-in", "Vehicle check-in closes twenty minutes before departure."]


def test_a_word_hyphenated_at_a_line_end_is_whole_and_a_compound_keeps_its_hyphen():
    page = ("The replace-\nment of the loading-\nbay doors is scheduled. Every\n"
            "replacement is logged by the\nloading-bay team.")

    assert reflow([page]) == [
        "The replacement of the loading-bay doors is scheduled. Every replacement is logged "
        "by the loading-bay team."]


def test_a_hyphen_is_kept_when_both_halves_are_words_of_the_document():
    assert reflow(["The work is well-\nknown. It went well, as is known."]) == [
        "The work is well-known. It went well, as is known."]


def test_a_bullet_starts_a_paragraph_and_a_line_ending_in_a_comma_goes_on():
    page = ("Rules for the dock, which apply\nto everyone:\n• Wear a vest at all times.\n"
            "• Keep the doors clear of pallets\nand boxes.")

    assert reflow([page]) == [
        "Rules for the dock, which apply to everyone:\n\n• Wear a vest at all times.\n\n"
        "• Keep the doors clear of pallets and boxes."]


def test_who_recommends_the_lights_quotes_the_whole_sentence(tmp_path):
    from qa import Index

    folder = tmp_path / "docs"
    folder.mkdir()
    _pdf(folder / "warehouse.pdf", 60, "Warehouse report. The safety officer,\nPriya Raman, "
         "recommends replacing the loading dock lights before winter. The budget for the work "
         "is approved.")
    index = Index.build([folder], path=tmp_path / "index")
    try:
        answer = index.ask("Who recommends replacing the loading dock lights?")
    finally:
        index.close()

    assert answer.citations[0].quote == SAFETY


def test_short_lines_after_a_sentence_stay_apart_as_a_table_s_rows():
    page = ("Each team has a floor of its own in the main building.\nTeam Floor\nDesign 4\n"
            "Customer Support 1\nVisitors sign in at the front desk.")

    assert reflow([page])[0].split("\n\n") == [
        "Each team has a floor of its own in the main building.", "Team Floor", "Design 4",
        "Customer Support 1", "Visitors sign in at the front desk."]
