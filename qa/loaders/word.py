"""Word (.docx), read with python-docx: paragraphs and table rows in document order, each
table row written by `qa.loaders.tables` (named by the table's first row, captioned by a
Caption-styled paragraph before it or else by the last heading).
"""

import io
import zipfile
import zlib
from collections.abc import Iterator

from qa.errors import LoadError
from qa.loaders.base import Loaded, Reading, TextBudget, reason
from qa.loaders.tables import table_lines


def load_docx(data: bytes, reading: Reading) -> Loaded:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import XMLSyntaxError

    try:  # a damaged member fails on decompression or as XML, possibly only when read
        document = docx.Document(io.BytesIO(data))
        paragraphs = _docx_blocks(document, reading.budget)
        title = document.core_properties.title or ""
    except (zipfile.BadZipFile, PackageNotFoundError, KeyError, ValueError, zlib.error,
            XMLSyntaxError) as error:
        raise LoadError(f"not a valid .docx file: {reason(error)}") from error
    text = "\n\n".join(p for p in paragraphs if p.strip())
    return title, text, ()


def _docx_blocks(document, budget: TextBudget) -> list[str]:
    """The paragraphs and table rows of a .docx in document order; each table row is
    written by `table_lines`, named by the table's first row and captioned by the
    paragraph styled Caption just before it, or else by the last heading."""
    styles = word_styles(document)
    blocks: list[str] = []
    heading, caption = "", ""
    for item in document.iter_inner_content():
        if hasattr(item, "rows"):
            title, rows = _docx_title_row(list(word_rows(item)))
            blocks += table_lines(rows[0], rows[1:], title or caption or heading,
                                  budget=budget) if rows else []
            caption = ""
            continue
        style = styles.get(item._p.style or "", "")
        text = item.text
        if style.startswith(("Heading", "Title")) and text.strip():
            heading = text
        caption = text if style == "Caption" else ""
        blocks.append(budget.add(text))
    return blocks


def _docx_title_row(rows: list[list[str]]) -> tuple[str, list[list[str]]]:
    """The table's title and its other rows: a first row that is one cell merged across the
    table titles it; the header is the row after it."""
    if len(rows) > 2 and len(rows[0]) == 1 and max(len(row) for row in rows[1:]) > 1:
        return rows[0][0], rows[1:]
    return "", rows


def word_styles(document) -> dict[str, str]:
    """Style names by style id. A paragraph's style is looked up by its id here:
    python-docx's `Paragraph.style` searches the styles part each time (2.5 ms a
    paragraph, minutes for a long document)."""
    return {style.style_id: style.name or "" for style in document.styles}


def word_rows(table) -> Iterator[list[str]]:
    """Each row's cell texts, a cell merged across columns given once and a cell merged
    down rows given in each row it spans, its text read once.

    The cells are read from the XML, not through python-docx's `row.cells`, which lists
    a cell merged across n columns n times (n is the file's to choose) and finds a cell
    merged down rows by walking up to its first row, from every row it spans.
    """
    from docx.table import _Cell

    above: dict[int, str] = {}  # the text in each column of the row above
    for tr in table._tbl.tr_lst:
        cells, here, column = [], {}, tr.grid_before
        for tc in tr.tc_lst:
            text = above.get(column, "") if tc.vMerge == "continue" else _Cell(tc, table).text
            cells.append(text)
            here[column] = text
            column += tc.grid_span
        above = here
        yield cells
