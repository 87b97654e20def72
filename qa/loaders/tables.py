"""Tables as text a question can find, and as typed cells a computation can read.

A row stored as "Design | 4" answers nothing: a reader (and the scorer) cannot tell what
4 is. Stored as "Team: Design; Floor: 4." it holds the words a question about it uses
("Which team is on floor 4?"), and it stays one sentence, so a quote is the whole row.
Every loader that meets a table (docx, HTML, Markdown, ODF, RTF, spreadsheets, CSV,
slides) writes it through `table_lines`, so a row reads the same whatever file it came
from; `row_fields` reads such a line back, for showing a quoted row as a small table.

`table_lines` also keeps the table as data (`qa.loaders.cells`: its caption, its header
and each row's cells, each parsed once), on the file's `TextBudget`. `located` then finds
each row's line in the file's final text, so a stored `Table` knows each row's span there
(the row's sentence, which a computed answer quotes).
"""

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from itertools import chain
from typing import TypeVar

from qa.loaders.base import TextBudget
from qa.loaders.cells import Cell, Table, TableRow, parse_cell

MAX_NAME = 40  # characters of a column name that `row_fields` reads back
MAX_TITLE_ROWS = 3  # rows of one cell above a sheet's header: its title and notes
TITLE_WORDS = 3  # ... each of this many words at least ("Entry" is a one-column header)
R = TypeVar("R")
_SPACE = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\u00a0": " "})


def cell_text(cell: object) -> str:
    """A cell's text on one line, with runs of whitespace as one space."""
    return " ".join(str(cell if cell is not None else "").translate(_SPACE).split())


def split_header(rows: Iterator[R], cells: Callable[[R], Sequence[object]],
                 ) -> tuple[list[R], R | None, list[R]]:
    """A sheet's title rows, its header, and the rows read past the header (the rows
    under it go on with `rows`), from its non-empty rows (`cells` gives a row's cells).
    Title rows hold one cell of TITLE_WORDS words or more (a title, "All figures in £,
    excluding VAT."), at most MAX_TITLE_ROWS of them, and count only above a row of two
    or more cells, which is then the header; otherwise the first row is."""
    ahead: list[R] = []
    for row in rows:
        ahead.append(row)
        if not _title_like(cells(row)) or len(ahead) > MAX_TITLE_ROWS:
            break
    if ahead and sum(bool(cell_text(cell)) for cell in cells(ahead[-1])) >= 2:
        return ahead[:-1], ahead[-1], []
    return [], ahead[0] if ahead else None, ahead[1:]


def _title_like(row: Sequence[object]) -> bool:
    filled = [text for text in map(cell_text, row) if text]
    return len(filled) == 1 and len(filled[0].split()) >= TITLE_WORDS


def table_lines(header: Sequence[object], rows: Iterable[Sequence[object]],
                caption: str = "", *, budget: TextBudget) -> list[str]:
    """One line per row: "Caption: Team: Design; Floor: 4." with empty cells left out; the
    table itself (its cells parsed) is kept on `budget.tables`, for `located`.

    header: the column names (may be empty, or shorter than a row: such cells go unnamed).
        A cell's own "; " is written ", ", so the cell stays one ("Van; fuel card").
    rows: the rows under it, read one at a time (a repeated row may be given many times).
    caption: the table's caption or the heading before it; it opens every row, so a row
        found alone still says which table it belongs to.
    budget: the file's text budget, charged for each cell's name and value and each
        row's caption as the line is made, and a character for each row, even one that
        says nothing (so a row repeated a billion times cannot run on uncharged).
    Rows with no text are skipped; a cell that repeats its column name says nothing more.
    A table of one row (a header with no rows under it) keeps that row, unnamed.
    """
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        header, rows = [], iter([header])
    else:
        rows = chain([first], rows)
    names = [cell_text(name) for name in header]
    lead = _lead(caption)
    lines, kept = [], []
    for row in rows:
        line, cells = _row_line(names, lead, row, budget)
        if cells:
            lines.append(line)
            kept.append(TableRow(cells))
    if kept:
        budget.tables.append((Table(cell_text(caption), tuple(names), tuple(kept)), lines))
    return lines


def row_line(header: Sequence[object], row: Sequence[object], caption: str, *,
             budget: TextBudget) -> str:
    """One row's line as `table_lines` writes it under `header` ("" if it says nothing),
    the table not kept: to find a row by its line (the viewer)."""
    return _row_line([cell_text(name) for name in header], _lead(caption), row, budget)[0]


def _lead(caption: object) -> str:
    """What opens each row's line: "Caption: ", or "" for a table without one."""
    return f"{cell_text(caption).rstrip(':.')}: " if cell_text(caption) else ""


def _row_line(names: Sequence[str], lead: str, row: Sequence[object],
              budget: TextBudget) -> tuple[str, tuple[tuple[str, Cell], ...]]:
    """A row's line and its named cells, charged to the budget (see `table_lines`)."""
    budget.charge(1)
    cells = []
    for i, cell in enumerate(row):
        value, name = cell_text(cell), names[i] if i < len(names) else ""
        if value and value != name:
            budget.charge(len(name) + 2 + len(value))
            cells.append((name, parse_cell(value)))
    if not cells:
        return "", ()
    budget.charge(len(lead))
    # a cell's own "; " would part it in two (row_fields)
    line = lead + "; ".join(f"{name}: {cell.text.replace('; ', ', ')}" if name
                            else cell.text.replace("; ", ", ") for name, cell in cells)
    return (line if line.endswith((".", "!", "?")) else line + "."), tuple(cells)


def located(text: str, written: Iterable[tuple[Table, list[str]]]) -> tuple[Table, ...]:
    """The tables `table_lines` wrote, each row with the span of its line in `text` (the
    file's final text), in order; a table some row of which is not there as written (a
    loader left it out, or changed it) is left out whole, so no table is ever partial."""
    tables, at = [], 0
    for table, lines in written:
        rows, start = [], at
        for row, line in zip(table.rows, lines, strict=True):
            found = text.find(line, start)
            if found < 0:
                break
            start = found + len(line)
            rows.append(replace(row, start=found, end=start))
        if len(rows) == len(table.rows):
            tables.append(replace(table, rows=tuple(rows)))
            at = start
    return tuple(tables)


def row_fields(line: str) -> tuple[str, list[tuple[str, str]]] | None:
    """A line `table_lines` wrote, read back: its caption ("" if none) and its (column,
    value) pairs; None when `line` is not a row of at least two named cells.

    Reading is a best guess: a caption or value that itself holds ": " or "; " is
    misread, which is why this is used to show a row, never to store it or compute. A
    name or value that opens a bracket it does not close, or closes one it did not open,
    is prose cut at its semicolons ("The forest (Portuguese: Floresta; Spanish: Selva),
    also known as ..."), not a row.
    """
    body = line.strip()
    body = body[:-1] if body.endswith(".") else body
    parts = body.split("; ")
    caption = ""
    if parts[0].count(": ") >= 2:
        caption, _, parts[0] = parts[0].partition(": ")
    fields = [part.partition(": ") for part in parts]
    if len(fields) < 2 or any(not (name and sep and value) or len(name) > MAX_NAME
                              or not _balanced(name) or not _balanced(value)
                              for name, sep, value in fields):
        return None
    return caption, [(name, value) for name, _, value in fields]


def _balanced(text: str) -> bool:
    """Whether every bracket `text` opens it closes, after it."""
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0
