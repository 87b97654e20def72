"""Tables as text a question can find: one line per row, each cell named by its column.

A row stored as "Design | 4" answers nothing: a reader (and the scorer) cannot tell what
4 is. Stored as "Team: Design; Floor: 4." it holds the words a question about it uses
("Which team is on floor 4?"), and it stays one sentence, so a quote is the whole row.
Every loader that meets a table (docx, HTML, Markdown, PDF, spreadsheets, CSV, slides)
writes it through `table_lines`, so a row reads the same whatever file it came from.
"""

from collections.abc import Sequence

_SPACE = str.maketrans({"\n": " ", "\r": " ", "\t": " ", "\u00a0": " "})


def cell_text(cell: object) -> str:
    """A cell's text on one line, with runs of whitespace as one space."""
    return " ".join(str(cell if cell is not None else "").translate(_SPACE).split())


def table_lines(header: Sequence[object], rows: Sequence[Sequence[object]],
                caption: str = "") -> list[str]:
    """One line per row: "Caption: Team: Design; Floor: 4." with empty cells left out.

    header: the column names (may be empty, or shorter than a row: such cells go unnamed).
    caption: the table's caption or the heading before it; it opens every row, so a row
        found alone still says which table it belongs to.
    Rows with no text are skipped; a cell that repeats its column name says nothing more.
    A table of one row (a header with no rows under it) keeps that row, unnamed.
    """
    if not rows:
        header, rows = [], [header]
    names = [cell_text(name) for name in header]
    lead = f"{cell_text(caption).rstrip(':.')}: " if cell_text(caption) else ""
    lines = []
    for row in rows:
        parts = []
        for i, cell in enumerate(row):
            value = cell_text(cell)
            name = names[i] if i < len(names) else ""
            if value and value != name:
                parts.append(f"{name}: {value}" if name else value)
        if parts:
            line = lead + "; ".join(parts)
            lines.append(line if line.endswith((".", "!", "?")) else line + ".")
    return lines
