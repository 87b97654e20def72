"""PDF reflow, before and after: PDFs made here with fpdf (a narrow column, paragraphs,
line-end hyphens, a heading and bullets, numbered pages), each loaded without
`qa.loaders.reflow` (pypdf's lines as they come) and with it.

For each PDF: its sentences (syntok, as chunking splits them), how many hold a line
break (the answer step drops a sentence's first lines when they end in no punctuation,
taking them for a heading: the cut "Priya Raman, recommends..."), how many of the
sentences written into the PDF come out whole; then, over an index of all of them, how
many questions quote their expected sentence whole as the first quote. "Whole" reads a
line break as a space: a quote is counted as cut only when words are missing.

    .venv/bin/python benchmarks/pdf_reflow.py
"""

import tempfile
from pathlib import Path
from unittest import mock

from fpdf import FPDF

from qa import Index
from qa.indexing.chunking import split_sentences
from qa.loaders import formats, pdf

SAFETY = ("The safety officer, Priya Raman, recommends replacing the loading dock lights "
          "before winter.")
CANTEEN = ("The canteen on the first floor serves lunch to all staff every weekday between "
           "noon and two o'clock.")
DOORS = "The replacement of the loading-bay doors is scheduled."
DOCK = "The dock opens at six in the morning and closes when the last truck has been unloaded."
SHIPMENT = ("Shipment {n} left the dock on a Monday morning, after the inspection of its crates "
            "by the night shift.")
PDFS = {  # name: (column width in mm, paragraphs set in it, sentences they hold)
    "narrow": (60, ["Warehouse report. The safety officer,\nPriya Raman, recommends replacing "
                    "the loading dock lights before winter. The budget is approved."], [SAFETY]),
    "paragraphs": (80, [CANTEEN, "Visitors sign in at the front desk and wear a badge while "
                        "they are in the building."], [CANTEEN]),
    "hyphens": (80, ["The replace-\nment of the loading-\nbay doors is scheduled. Every\n"
                     "replacement is logged by the\nloading-bay team."], [DOORS]),
    "headings": (90, ["Loading Dock\n" + DOCK + "\nRules\nWear a vest at all times."], [DOCK]),
}
QUESTIONS = [
    ("Who recommends replacing the loading dock lights?", SAFETY),
    ("When does the canteen serve lunch?", CANTEEN),
    ("What is scheduled for the loading-bay doors?", DOORS),
    ("When does the dock open?", DOCK),
    ("When did shipment 2 leave the dock?", SHIPMENT.format(n=2)),
]


class _Numbered(FPDF):
    def footer(self) -> None:
        self.set_y(-15)
        self.cell(0, 10, str(self.page_no()), align="C")


def make_pdfs(folder: Path) -> dict[str, list[str]]:
    """Write the PDFs; return each one's expected sentences."""
    expected = {}
    for name, (width, paragraphs, sentences) in PDFS.items():
        pdf = FPDF()
        pdf.add_page()
        pdf.set_font("Helvetica", size=12)
        for text in paragraphs:
            pdf.multi_cell(width, 6, text)
            pdf.ln(4)
        pdf.output(str(folder / f"{name}.pdf"))
        expected[name] = sentences
    pdf = _Numbered()
    pdf.set_font("Helvetica", size=12)
    for n in (1, 2, 3):
        pdf.add_page()
        pdf.multi_cell(70, 6, SHIPMENT.format(n=n))
    pdf.output(str(folder / "pages.pdf"))
    expected["pages"] = [SHIPMENT.format(n=n) for n in (1, 2, 3)]
    return expected


def sentence_figures(path: Path, expected: list[str]) -> tuple[int, int, int]:
    """(sentences, sentences holding a line break, expected sentences found whole, line
    breaks read as spaces)."""
    document = formats.load(path, path.read_bytes())
    sentences = [document.text[a:b] for a, b in split_sentences(document.text)]
    broken = sum("\n" in sentence for sentence in sentences)
    whole = {_one_line(sentence) for sentence in sentences}
    return len(sentences), broken, sum(sentence in whole for sentence in expected)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def quoted_whole(folder: Path, index_path: Path) -> int:
    """How many QUESTIONS get their expected sentence, whole (line breaks read as spaces),
    as the first quote."""
    index = Index.build([folder], path=index_path)
    try:
        return sum(bool(answer.citations) and _one_line(answer.citations[0].quote) == sentence
                   for answer, sentence in ((index.ask(q), s) for q, s in QUESTIONS))
    finally:
        index.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "pdfs"
        folder.mkdir()
        expected = make_pdfs(folder)
        print(f"{'pdf':<11} {'sentences':>13} {'with a break':>13} {'whole':>9}")
        print(f"{'':<11} {'before after':>13} {'before after':>13} {'of':>9}")
        for name, sentences in expected.items():
            with mock.patch.object(pdf, "reflow", list):
                before = sentence_figures(folder / f"{name}.pdf", sentences)
            after = sentence_figures(folder / f"{name}.pdf", sentences)
            print(f"{name:<11} {before[0]:>6} {after[0]:>6} {before[1]:>6} {after[1]:>6} "
                  f"{before[2]:>2} {after[2]:>2} {len(sentences):>2}")
        with mock.patch.object(pdf, "reflow", list):
            before = quoted_whole(folder, Path(tmp) / "before")
        after = quoted_whole(folder, Path(tmp) / "after")
        print(f"first quote is the expected sentence, whole: before {before}/{len(QUESTIONS)}, "
              f"after {after}/{len(QUESTIONS)}")


if __name__ == "__main__":
    main()
