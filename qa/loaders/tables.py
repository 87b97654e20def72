"""Tables as text a question can find: one line per row, each cell named by its column.

A row stored as "Design | 4" answers nothing: a reader (and the scorer) cannot tell what
4 is. Stored as "Team: Design; Floor: 4." it holds the words a question about it uses
("Which team is on floor 4?"), and it stays one sentence, so a quote is the whole row.
Every loader that meets a table (docx, HTML, Markdown, PDF, spreadsheets, CSV, slides)
writes it through `table_lines`, so a row reads the same whatever file it came from;
`row_fields` reads such a line back, for showing a quoted row as a small table.
"""

from collections.abc import Iterable, Sequence
from itertools import chain

from qa.loaders.base import TextBudget

MAX_NAME = 40  # characters of a column name that `row_fields` reads back
_SPACE = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\u00a0": " "})


def cell_text(cell: object) -> str:
    """A cell's text on one line, with runs of whitespace as one space."""
    return " ".join(str(cell if cell is not None else "").translate(_SPACE).split())


def table_lines(header: Sequence[object], rows: Iterable[Sequence[object]],
                caption: str = "", *, budget: TextBudget) -> list[str]:
    """One line per row: "Caption: Team: Design; Floor: 4." with empty cells left out.

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
    lead = f"{cell_text(caption).rstrip(':.')}: " if cell_text(caption) else ""
    lines = []
    for row in rows:
        budget.charge(1)
        parts = []
        for i, cell in enumerate(row):
            value = cell_text(cell).replace("; ", ", ")  # "; " parts cells (row_fields)
            name = names[i] if i < len(names) else ""
            if value and value != name:
                budget.charge(len(name) + 2 + len(value))
                parts.append(f"{name}: {value}" if name else value)
        if parts:
            budget.charge(len(lead))
            line = lead + "; ".join(parts)
            lines.append(line if line.endswith((".", "!", "?")) else line + ".")
    return lines


def row_fields(line: str) -> tuple[str, list[tuple[str, str]]] | None:
    """A line `table_lines` wrote, read back: its caption ("" if none) and its (column,
    value) pairs; None when `line` is not a row of at least two named cells.

    Reading is a best guess: a caption or value that itself holds ": " or "; " is
    misread, which is why this is used to show a row, never to store it.
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
