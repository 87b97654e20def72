"""OpenDocument text (.odt) and the tables of OpenDocument files, read with odfpy.

An .odt gives its headings and paragraphs in document order (lists and sections
included) and each table row through `qa.loaders.tables.table_lines`, its first row naming the
columns. `tables` also serves .ods sheets (`qa.loaders.sheets`). OpenDocument writes a
run of identical rows or cells once with a repeat count (an empty sheet claims a
million rows of 16,384 columns); runs of empty rows are skipped, runs of cells are
cut at MAX_COLUMNS, and each repeated row (and each run of spaces) is charged to the
file's text budget as it is made, so a repeat count never turns into memory.
"""

import io
from collections.abc import Iterator

from qa.loaders.base import Loaded, Reading, TextBudget
from qa.loaders.tables import table_lines

MAX_COLUMNS = 1024  # cells read from one row
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_BREAKS = {(_TEXT, "line-break"): "\n", (_TEXT, "tab"): "\t"}


def load_odt(data: bytes, reading: Reading) -> Loaded:
    document = open_document(data)
    text = "\n\n".join(_blocks(document.text, reading.budget))
    return title(document, reading.budget), text, ()


def open_document(data: bytes):
    """The parsed document in `data`."""
    from odf.opendocument import load

    return load(io.BytesIO(data))


def title(document, budget: TextBudget) -> str:
    from odf import dc

    titles = document.meta.getElementsByType(dc.Title) if document.meta else []
    return _text(titles[0], budget) if titles else ""


def tables(document, budget: TextBudget) -> Iterator[tuple[str, Iterator[list[str]]]]:
    """Each table of the document: its name and its rows of cell texts, in order."""
    from odf.table import Table

    for table in document.body.getElementsByType(Table):
        yield table.getAttribute("name") or "", _rows(table, budget)


def _blocks(element, budget: TextBudget) -> Iterator[str]:
    """The paragraphs, headings and table rows under `element`, in document order."""
    for child in element.childNodes:
        if child.qname in ((_TEXT, "p"), (_TEXT, "h")):
            text = _text(child, budget).strip()
            if text:
                yield budget.add(text)
        elif child.qname == (_TABLE, "table"):
            rows = _rows(child, budget)
            header = next(rows, None)
            if header is not None:
                yield "\n".join(table_lines(header, rows, budget=budget))
        elif child.nodeType == child.ELEMENT_NODE:
            yield from _blocks(child, budget)


def _rows(element, budget: TextBudget) -> Iterator[list[str]]:
    """The rows of a table (inside header-row and row groups too); a repeated row is
    given as often as it is repeated unless it is empty, one copy at a time (each copy
    is charged as `table_lines` writes it)."""
    for child in element.childNodes:
        if child.qname == (_TABLE, "table-row"):
            cells = _cells(child, budget)
            if any(cells):
                for _ in range(int(child.getAttribute("numberrowsrepeated") or 1)):
                    yield cells
        elif child.qname[0] == _TABLE and child.qname[1].endswith("rows"):
            yield from _rows(child, budget)


def _cells(row, budget: TextBudget) -> list[str]:
    cells: list[str] = []
    for cell in row.childNodes:
        if cell.qname not in ((_TABLE, "table-cell"), (_TABLE, "covered-table-cell")):
            continue
        text = _text(cell, budget).strip()
        repeat = int(cell.getAttribute("numbercolumnsrepeated") or 1)
        cells.extend([text] * min(repeat, MAX_COLUMNS - len(cells)))
        if len(cells) >= MAX_COLUMNS:
            break
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _text(element, budget: TextBudget) -> str:
    """An element's text, as odfpy's `teletype.extractText` gives it (a tab, a line break,
    a run of n spaces for <text:s text:c="n"/>), but with each run of spaces charged to
    the budget before it is made: n is the file's to choose."""
    parts = []
    for child in element.childNodes:
        if child.nodeType == child.TEXT_NODE:
            parts.append(child.data)
        elif child.qname == (_TEXT, "s"):
            count = int(child.getAttribute("c") or 1)
            budget.charge(count)
            parts.append(" " * count)
        elif child.qname in _BREAKS:
            parts.append(_BREAKS[child.qname])
        elif child.nodeType == child.ELEMENT_NODE:
            parts.append(_text(child, budget))
    return "".join(parts)
