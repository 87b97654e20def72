"""OpenDocument text (.odt) and the tables of OpenDocument files, read with odfpy.

An .odt gives its headings and paragraphs in document order (lists and sections
included) and each table row through `qa.tables.table_lines`, its first row naming the
columns. `tables` also serves .ods sheets (`qa.loaders.sheets`). OpenDocument writes a
run of identical rows or cells once with a repeat count (an empty sheet claims a
million rows of 16,384 columns); runs of empty rows are skipped and runs of cells are
cut at MAX_COLUMNS, so a repeat count never turns into memory.
"""

import io
from collections.abc import Iterator

from qa.loaders import zipcheck
from qa.tables import table_lines

MAX_COLUMNS = 1024  # cells read from one row
_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"


def load_odt(data: bytes) -> tuple[str, str, tuple[int, ...]]:
    document = open_document(data, ".odt")
    return title(document), "\n\n".join(_blocks(document.text)), ()


def open_document(data: bytes, kind: str):
    """The parsed document in `data`, after the zip-bomb checks."""
    from odf.opendocument import load

    zipcheck.open_checked(data, kind)
    return load(io.BytesIO(data))


def title(document) -> str:
    from odf import dc, teletype

    titles = document.meta.getElementsByType(dc.Title) if document.meta else []
    return teletype.extractText(titles[0]) if titles else ""


def tables(document) -> Iterator[tuple[str, Iterator[list[str]]]]:
    """Each table of the document: its name and its rows of cell texts, in order."""
    from odf.table import Table

    for table in document.body.getElementsByType(Table):
        yield table.getAttribute("name") or "", _rows(table)


def _blocks(element) -> Iterator[str]:
    """The paragraphs, headings and table rows under `element`, in document order."""
    from odf import teletype

    for child in element.childNodes:
        if child.qname in ((_TEXT, "p"), (_TEXT, "h")):
            text = teletype.extractText(child).strip()
            if text:
                yield text
        elif child.qname == (_TABLE, "table"):
            rows = list(_rows(child))
            if rows:
                yield "\n".join(table_lines(rows[0], rows[1:]))
        elif child.nodeType == child.ELEMENT_NODE:
            yield from _blocks(child)


def _rows(element) -> Iterator[list[str]]:
    """The rows of a table (inside header-row and row groups too); a repeated row is
    given as often as it is repeated unless it is empty."""
    for child in element.childNodes:
        if child.qname == (_TABLE, "table-row"):
            cells = _cells(child)
            if any(cells):
                for _ in range(int(child.getAttribute("numberrowsrepeated") or 1)):
                    yield cells
        elif child.qname[0] == _TABLE and child.qname[1].endswith("rows"):
            yield from _rows(child)


def _cells(row) -> list[str]:
    from odf import teletype

    cells: list[str] = []
    for cell in row.childNodes:
        if cell.qname not in ((_TABLE, "table-cell"), (_TABLE, "covered-table-cell")):
            continue
        text = teletype.extractText(cell).strip()
        repeat = int(cell.getAttribute("numbercolumnsrepeated") or 1)
        cells.extend([text] * min(repeat, MAX_COLUMNS - len(cells)))
        if len(cells) >= MAX_COLUMNS:
            break
    while cells and not cells[-1]:
        cells.pop()
    return cells
