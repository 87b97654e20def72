"""The cost of reading PDF tables (`qa.loaders.pdf_tables`): PDFs made here with fpdf2, of
pages of three kinds, each loaded as indexing loads it, and the CPU time per page:

  prose         paragraphs only: no rule, so pdfplumber never reads it
  ruled prose   paragraphs between a rule under the header and one over the footer (two
                rules: under MIN_RULES, not read again)
  table         paragraphs and a ruled table of 12 rows: read again by pdfplumber

Each PDF is loaded REPEATS times; the least CPU time is kept. The table pages' cost over
the prose pages' is what finding tables adds; the tables found are counted.

    .venv/bin/python benchmarks/pdf_tables.py [--pages 20]
"""

import argparse
import time
from pathlib import Path

from fpdf import FPDF

from qa.loaders.formats import load

REPEATS = 3
PARAGRAPH = ("The depot opens at six in the morning and closes when the last bus is in. "
             "Drivers sign on at the desk, check their licence and take the day's "
             "defect sheet before they leave the yard. ") * 3


def make(kind: str, pages: int) -> bytes:
    """A PDF of `pages` pages of one kind (see the module docstring)."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for page in range(pages):
        pdf.add_page()
        if kind == "ruled prose":
            pdf.line(10, 20, 200, 20)
            pdf.line(10, 280, 200, 280)
        pdf.multi_cell(0, 6, PARAGRAPH, new_x="LMARGIN", new_y="NEXT")
        if kind == "table":
            pdf.multi_cell(0, 6, f"Fares on route {page}", new_x="LMARGIN", new_y="NEXT")
            with pdf.table() as table:
                for cells in [["Stop", "Single", "Return"]] + [
                        [f"Stop {n}", f"£{n}.20", f"£{2 * n}.10"] for n in range(1, 13)]:
                    row = table.row()
                    for cell in cells:
                        row.cell(cell)
        pdf.multi_cell(0, 6, PARAGRAPH, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def cpu_seconds(data: bytes) -> tuple[float, int]:
    """The least CPU time of REPEATS loads, and the tables the load found."""
    best, tables = float("inf"), 0
    for _ in range(REPEATS):
        start = time.process_time()
        document = load(Path("bench.pdf"), data)
        best = min(best, time.process_time() - start)
        tables = len(document.tables)
    return best, tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    args = parser.parse_args()
    cpu_seconds(make("prose", 1))  # imports and first use, not timed
    print(f"{'pages':<14}{'CPU ms a page':>15}{'tables found':>14}")
    for kind in ("prose", "ruled prose", "table"):
        seconds, tables = cpu_seconds(make(kind, args.pages))
        print(f"{kind:<14}{1000 * seconds / args.pages:>15.1f}{tables:>14}")


if __name__ == "__main__":
    main()
