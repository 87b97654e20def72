"""Ruled tables in a PDF, read as data.

pypdf gives a table's cells as runs of words on a line ("Routine repairs completed
within 20 79.5% 88.0% 85%", "working days" on the next), so a question cannot tell which
figure is whose, and nothing can be computed from it. A page whose content draws ruled
lines (MIN_RULES rectangles or lines at least, a table's cell borders, and MAX_RULES at
most, so that no page costs more than a fraction of a second) is read again
with pdfplumber, whose table finder follows those lines to each cell. Such a page's text
becomes: the text above each table, the table's rows written by
`qa.loaders.tables.table_lines` (named by its first row and captioned by the nearest
title above it on the page, with a sentence at most between), and the text below, each
a paragraph of its own; a table that goes on from the page before, under its header
again and with nothing above it, is one table with the one before. The tables are then
stored as cells, as every other loader's are. Tables are only found by their rules:
columns of words aligned by spaces alone read as prose, as before (pdfplumber's finder
by alignment cuts prose into columns).
"""

import io
import re
from collections.abc import Sequence
from dataclasses import replace

from qa.loaders.base import TextBudget
from qa.loaders.tables import cell_text, table_lines

MIN_RULES = 4  # rectangles or lines a page must draw to be searched for tables
# ... and at most: pdfplumber's finder grows faster than the rules (2,000: 0.4 CPU-s a
# page here; 8,000: 2.7 s), and a table has hundreds; a page of more keeps pypdf's text
MAX_RULES = 2_000
MAX_CAPTION_WORDS = 8  # a longer line above a table is prose, no caption
_CAPTION = re.compile(r"[A-Z0-9].*[^.!?;,]$")
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*$")
# "x y w h re" (a rectangle) and "x y l" (a line to), the PDF operators of a rule
_RULE = re.compile(rb"(?:-?[\d.]+\s+){4}re\b|(?:-?[\d.]+\s+){2}l\b")


def draws_rules(page) -> bool:
    """Whether a pypdf page's content draws MIN_RULES to MAX_RULES rectangles or lines
    (cheap: no text is laid out)."""
    contents = page.get_contents()
    return contents is not None and \
        MIN_RULES <= len(_RULE.findall(contents.get_data())) <= MAX_RULES


def with_tables(data: bytes, pages: Sequence[str], ruled: Sequence[int],
                budget: TextBudget) -> list[str]:
    """`pages` (each page's text) with the pages numbered in `ruled` written again with
    their ruled tables as rows (see the module docstring); a page where no table of two
    rows and two columns is found keeps its text, and so does every page when pdfplumber
    cannot read the file (pypdf could: its text stands)."""
    import pdfplumber
    from pdfminer.pdfexceptions import PDFException, PSException
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        return _written(pdfplumber.open(io.BytesIO(data)), pages, ruled, budget)
    except (PdfminerException, PDFException, PSException, ValueError, KeyError, TypeError):
        return list(pages)


def _written(pdf, pages: Sequence[str], ruled: Sequence[int], budget: TextBudget) -> list[str]:
    texts, caption, header = list(pages), "", None
    with pdf:
        for n in ruled:
            page = pdf.pages[n]
            tables = sorted(((table.bbox, rows) for table in page.find_tables()
                             if _is_table(rows := [[cell_text(c) for c in row]
                                                   for row in table.extract()])),
                            key=lambda found: found[0][1])
            blocks, top = [], 0.0
            for (_, table_top, _, bottom), rows in tables:
                above = _text_between(page, top, table_top)
                goes_on = not above.strip() and rows[0] == header  # its header again
                caption = caption if goes_on else _caption(above)
                header = rows[0]
                blocks += [above, *table_lines(rows[0], rows[1:], caption, budget=budget)]
                if goes_on:
                    _join_last_two(budget)
                top = bottom
            if tables:
                blocks.append(_text_between(page, top, page.height))
                texts[n] = "\n\n".join(block for block in blocks if block.strip())
    return texts


def _is_table(rows: list[list[str]]) -> bool:
    return len(rows) >= 2 and max(len(row) for row in rows) >= 2


def _join_last_two(budget: TextBudget) -> None:
    """The last table written goes on the one before it: they are kept as one."""
    (table, lines), (more, more_lines) = budget.tables[-2:]
    budget.tables[-2:] = [(replace(table, rows=table.rows + more.rows), lines + more_lines)]


def _text_between(page, top: float, bottom: float) -> str:
    """The page's text from `top` down to `bottom` (points from the page's top)."""
    top, bottom = max(top, 0.0), min(bottom, float(page.height))
    if bottom <= top:
        return ""
    return page.crop((0, top, page.width, bottom)).extract_text() or ""


def _caption(above: str) -> str:
    """The table's caption: the nearest line above it on its page that reads as a title
    or a lead-in ("Visitors by quarter, 2024-25:", "3. Routine tests and checks"): at
    most MAX_CAPTION_WORDS words, opening with a capital or a digit and ending in no
    sentence's stop, with one sentence at most between it and the table ("The table
    below lists the tests."); "" when there is none (a title above more prose titles
    that prose, not the table)."""
    sentences = 0
    for line in reversed([line.strip() for line in above.splitlines() if line.strip()]):
        if _CAPTION.match(line) and len(line.split()) <= MAX_CAPTION_WORDS:
            return line
        sentences += bool(_SENTENCE_END.search(line))
        if sentences > 1:
            break
    return ""
