"""Spreadsheets (.xlsx, .xlsm with openpyxl; .ods with odfpy) and delimited text (.csv,
.tsv with the standard library's csv): one line per row, each cell named by its column.

Every row goes through `qa.loaders.tables.table_lines`, with the sheet's first non-empty row of
two or more cells as the header (`split_header`: the rows of one cell above it, a title
and notes, are lines of their own) and the sheet name as the caption, so a row found
alone says which sheet and which columns it belongs to ("Prices: Product: Kettle; Price:
24.50."). Each sheet is a
page; the page a citation gives is the sheet's number, and its name opens each row.
openpyxl is opened read-only (rows stream from the XML) with cached formula values
(data_only), so a formula gives the value Excel last computed. Empty rows and cells are
left out. A file with more than MAX_ROWS rows is refused with one line: such a table is
data to query, not text to ask about, and embedding it would take hours.
"""

import contextlib
import csv
import io
import re
from collections.abc import Iterable, Iterator
from datetime import datetime, time
from itertools import chain

from qa.errors import LoadError
from qa.loaders import opendocument
from qa.loaders.base import Loaded, Reading, TextBudget, join_pages
from qa.loaders.decoding import decode_text
from qa.loaders.tables import cell_text, split_header, table_lines

_DECIMALS = re.compile(r"0\.(0+)")  # the decimals of a number format, as in "#,##0.00"
# a number format's currency or unit: [$€-407], a quoted "EUR" or " kg", a bare $ € £ ¥
_SYMBOL = re.compile(r'\[\$([^\]-]*)[^\]]*\]|"([^"]*)"|([€$£¥])')
MAX_ROWS = 100_000  # non-empty rows in one file, all sheets together
_SNIFF_BYTES = 64_000


def load_xlsx(data: bytes, reading: Reading) -> Loaded:
    with workbook_sheets(data) as (title, sheets):
        text, starts = _sheets_text(sheets, reading.budget)
        return title, text, starts


@contextlib.contextmanager
def workbook_sheets(data: bytes) -> Iterator[tuple[str, list[tuple[str, Iterator[list[object]]]]]]:
    """An .xlsx or .xlsm workbook's title, and each sheet's name and rows, each cell as
    Excel shows it (`_shown`), each row read when it is asked for (indexing and the
    viewer read them alike)."""
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheets: list[tuple[str, Iterator[list[object]]]] = []
        for sheet in book.worksheets:
            sheet.reset_dimensions()  # rows as stored, not padded to a claimed width
            sheets.append((sheet.title, ([_shown(cell) for cell in row]
                                         for row in sheet.iter_rows())))
        yield str(book.properties.title or ""), sheets
    finally:
        book.close()


def load_ods(data: bytes, reading: Reading) -> Loaded:
    document = opendocument.open_document(data)
    text, starts = _sheets_text(opendocument.tables(document, reading.budget), reading.budget)
    return opendocument.title(document, reading.budget), text, starts


def load_csv(data: bytes, reading: Reading) -> Loaded:
    return "", "\n".join(_delimited_lines(data, None, reading.budget)), ()


def load_tsv(data: bytes, reading: Reading) -> Loaded:
    return "", "\n".join(_delimited_lines(data, "\t", reading.budget)), ()


def _shown(cell) -> object:
    """A cell's value as Excel shows it, for the number formats a question quotes: a
    percentage (0.125 as 12.5%), fixed decimals (24.5 as 24.50), thousands (1,234,567),
    a currency or unit the format writes ("$"#,##0.00 as $1,234.50, #,##0.00 [$€-1] as
    1,234.50 €); otherwise 310 for 310.0 and a date without its midnight time. Colours
    are left out."""
    value = getattr(cell, "value", None)
    shape = (getattr(cell, "number_format", None) or "General").split(";")[0]
    if isinstance(value, datetime) and value.time() == time():
        return value.date()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    found = _DECIMALS.search(shape)
    decimals = len(found.group(1)) if found else 0
    if "%" in shape:
        return f"{value * 100:.{decimals}f}%"
    if found or "#,##0" in shape:
        return _with_symbol(f"{value:{',' if '#,##0' in shape else ''}.{decimals}f}", shape)
    return _with_symbol(int(value) if isinstance(value, float) and value.is_integer() else value,
                        shape)


def _with_symbol(shown: object, shape: str) -> object:
    """A number as shown with the currency or unit its format writes, before the digits
    or after them as the format puts it ("$1,234.50", "1,234.50 €"); as it is without one."""
    found = _SYMBOL.search(shape)
    symbol = next((group for group in found.groups() if group), "").strip() if found else ""
    if not symbol:
        return shown
    digits = re.search(r"[0#]", shape)
    if digits and found and found.start() < digits.start():
        return f"{symbol}{' ' if symbol[-1].isalpha() else ''}{shown}"
    return f"{shown} {symbol}"


def _delimited_lines(data: bytes, delimiter: str | None, budget: TextBudget) -> list[str]:
    """The rows of a CSV or TSV file as lines; the delimiter is detected when None."""
    return _table(_RowCount().bounded(delimited_rows(data, delimiter), "this file"), "", budget)


def delimited_rows(data: bytes, delimiter: str | None) -> Iterator[list[str]]:
    """The rows of a CSV or TSV file, read as they are asked for; the delimiter is
    detected when None (indexing and the viewer read them alike)."""
    text = decode_text(data)
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:_SNIFF_BYTES], ",;\t|").delimiter
        except csv.Error:
            delimiter = ","  # one column, or too irregular to tell: the standard comma
    return csv.reader(io.StringIO(text), delimiter=delimiter)


def _sheets_text(sheets: Iterable[tuple[str, Iterable[Iterable[object]]]],
                 budget: TextBudget) -> tuple[str, tuple[int, ...]]:
    """Each sheet's rows as a page of lines, the first non-empty row naming the columns;
    the rows are read one at a time, as they are written."""
    pages, count = [], _RowCount()
    for name, rows in sheets:
        pages.append("\n".join(_table(count.bounded(rows, f"sheet {name!r}"), name, budget)))
    return join_pages(pages)


def _table(rows: Iterator[list[object]], caption: str, budget: TextBudget) -> list[str]:
    """A sheet's non-empty rows as lines: its title rows, then its table (`split_header`)."""
    above, header, read = split_header(rows, lambda row: row)
    if header is None:
        return []
    titles = [_sentence(" ".join(cell_text(cell) for cell in row if cell_text(cell)))
              for row in above]
    budget.charge(sum(len(title) + 1 for title in titles))
    return titles + table_lines(header, chain(read, rows), caption, budget=budget)


def _sentence(title: str) -> str:
    """A title row as a sentence of its own, as each row's line is one."""
    return title if title.endswith((".", "!", "?", ":")) else f"{title}."


class _RowCount:
    """The non-empty rows read from one file so far, all sheets together."""

    def __init__(self) -> None:
        self.rows = 0

    def bounded(self, rows: Iterable[Iterable[object]], where: str) -> Iterator[list[object]]:
        """The non-empty rows, with LoadError once more than MAX_ROWS have come."""
        for row in rows:
            cells = list(row)
            if not any(cell is not None and str(cell).strip() for cell in cells):
                continue
            self.rows += 1
            if self.rows > MAX_ROWS:
                raise LoadError(f"{where} has more than {MAX_ROWS:,} rows, the limit for one "
                                "file; split it, or keep only the rows to ask about")
            yield cells
