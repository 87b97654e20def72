"""Tables as text a question can find, and as typed cells a computation can read.

A row stored as "Design | 4" answers nothing: a reader (and the scorer) cannot tell what
4 is. Stored as "Team: Design; Floor: 4." it holds the words a question about it uses
("Which team is on floor 4?"), and it stays one sentence, so a quote is the whole row.
Every loader that meets a table (docx, HTML, Markdown, ODF, RTF, spreadsheets, CSV,
slides) writes it through `table_lines`, so a row reads the same whatever file it came
from; `row_fields` reads such a line back, for showing a quoted row as a small table.

`table_lines` also keeps the table as data: its caption, its header and each row's
cells, each parsed once here (`parse_cell`: a number, an amount with its currency, a
percentage, a date, or else text), on the file's `TextBudget`. `located` then finds each
row's line in the file's final text, so a stored `Table` knows each row's span there
(the row's sentence, which a computed answer quotes); the index stores the tables beside
the chunks (`tables_json`, `tables_from_json`), and computed answers read those cells,
never the sentence.
"""

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import astuple, dataclass, replace
from datetime import datetime
from itertools import chain
from typing import Literal

from qa.loaders.base import TextBudget

MAX_NAME = 40  # characters of a column name that `row_fields` reads back
CellKind = Literal["number", "amount", "percent", "date", "text"]  # what a cell holds
CURRENCIES = frozenset("€$£¥₹") | {"EUR", "USD", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK",
                                   "NOK", "DKK", "Kr", "kr"}
_SPACE = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\u00a0": " "})
_UNIT = re.compile(r"[^\W\d]+\.?|%|[^\w\s]")  # after a number: "kg", "pounds", "%", "€"
_NUMBER = re.compile(
    r"^(?P<sign>[-−–(])?\s*(?P<before>[^\d\s()-]{0,3})\s*(?P<sign2>[-−])?"
    r"(?P<digits>\d{1,3}(?:[,\u00a0\u202f ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<space>\s*)(?P<after>[^\d()]{0,12}?)\s*\)?$")
_DATE_FORMATS = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y")


@dataclass(frozen=True, slots=True)
class Cell:
    """A table cell: its text as written, and what it holds (`kind`).

    value: the number (of a number, an amount or a percentage: 12.5 for "12.5%"), a
        date as ISO text ("2026-03-01"), or None for text.
    before, after: what the number is written with, kept for showing a computed one as
        its cells are: "€" before, " kg" or "%" after.
    decimals: the number's decimals as written; grouped: written with thousand separators.
    """

    text: str
    kind: CellKind = "text"
    value: float | str | None = None
    before: str = ""
    after: str = ""
    decimals: int = 0
    grouped: bool = False

    @property
    def number(self) -> float | None:
        """The value of a number, an amount or a percentage; None for a date or text."""
        return self.value if isinstance(self.value, float) else None


@dataclass(frozen=True, slots=True)
class TableRow:
    """A row: its (column name, cell) pairs as its line names them ("" for a cell past the
    header), and the span of that line in the document text."""

    cells: tuple[tuple[str, Cell], ...]
    start: int = 0
    end: int = 0


@dataclass(frozen=True, slots=True)
class Table:
    """A table as its loader read it: caption ("" if none), column names, rows in order."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[TableRow, ...]


def cell_text(cell: object) -> str:
    """A cell's text on one line, with runs of whitespace as one space."""
    return " ".join(str(cell if cell is not None else "").translate(_SPACE).split())


def parse_cell(text: str) -> Cell:
    """A cell's text read once: a number ("1,240", "3.5 kg", "-40", "(300)" negative), an
    amount ("€1,240.50", "300 EUR"), a percentage ("12%"), a date ("2026-03-01",
    "3 March 2026"), or else text (a name, "4 to 6", "free")."""
    found = _NUMBER.match(text.strip())
    after = found["after"] if found else ""
    if not found or (after and not _UNIT.fullmatch(after)):
        return Cell(text, "date", day) if (day := _date(text)) else Cell(text)
    digits = found["digits"]
    plain = re.sub(r"[,\u00a0\u202f ]", "", digits)
    sign = -1 if found["sign"] or found["sign2"] else 1
    before, after = found["before"], (" " if after and found["space"] else "") + after
    kind: CellKind = ("percent" if after.strip() == "%" else "amount"
                      if {before, after.strip()} & CURRENCIES else "number")
    return Cell(text, kind, sign * float(plain), before, after, len(plain.partition(".")[2]),
                plain != digits)


def _date(text: str) -> str | None:
    """The ISO date a cell writes ("2026-03-01", "2026-03-01 09:30:00", "3 March 2026")."""
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d\d-\d\d(?:[ T][\d:.]+)?", text):
        try:
            return datetime.fromisoformat(text).date().isoformat()
        except ValueError:
            return None
    for shape in _DATE_FORMATS:
        try:
            return datetime.strptime(text, shape).date().isoformat()
        except ValueError:
            continue
    return None


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


def tables_json(tables: Sequence[Table]) -> str:
    """The tables as the index stores them (compact JSON)."""
    return json.dumps([[t.caption, t.header, [[r.start, r.end, [[name, astuple(cell)]
                                                                for name, cell in r.cells]]
                                              for r in t.rows]] for t in tables],
                      ensure_ascii=False, separators=(",", ":"))


def tables_from_json(stored: str) -> tuple[Table, ...]:
    """The tables `tables_json` stored."""
    return tuple(Table(caption, tuple(header), tuple(
        TableRow(tuple((name, Cell(*cell)) for name, cell in cells), start, end)
        for start, end, cells in rows)) for caption, header, rows in json.loads(stored))


def row_fields(line: str) -> tuple[str, list[tuple[str, str]]] | None:
    """A line `table_lines` wrote, read back: its caption ("" if none) and its (column,
    value) pairs; None when `line` is not a row of at least two named cells.

    Reading is a best guess: a caption or value that itself holds ": " or "; " is
    misread, which is why this is used to show a row, never to store it or compute.
    """
    body = line.strip()
    body = body[:-1] if body.endswith(".") else body
    parts = body.split("; ")
    caption = ""
    if parts[0].count(": ") >= 2:
        caption, _, parts[0] = parts[0].partition(": ")
    fields = [part.partition(": ") for part in parts]
    if len(fields) < 2 or any(not (name and sep and value) or len(name) > MAX_NAME
                              for name, sep, value in fields):
        return None
    return caption, [(name, value) for name, _, value in fields]
