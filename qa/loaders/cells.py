"""A table as data: its caption, column names and rows of typed cells, each cell read
once (`parse_cell`: a number, an amount with its currency, a percentage, a date, or else
text) by `qa.loaders.tables` as a loader writes the table, and stored beside the chunks
(`tables_json`, `tables_from_json`). Computed answers (`qa.answering.tables`) read these
cells, never the row's sentence.
"""

import json
import re
from collections.abc import Sequence
from dataclasses import astuple, dataclass
from datetime import datetime
from typing import Literal

CellKind = Literal["number", "amount", "percent", "date", "text"]  # what a cell holds
CURRENCIES = frozenset("€$£¥₹") | {"EUR", "USD", "GBP", "CHF", "JPY", "CAD", "AUD", "SEK",
                                   "NOK", "DKK", "Kr", "kr"}
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


def parse_cell(text: str) -> Cell:
    """A cell's text read once: a number ("1,240", "3.5 kg", "-40", "(300)" negative), an
    amount ("€1,240.50", "300 EUR"), a percentage ("12%"), a date ("2026-03-01",
    "3 March 2026"), or else text (a name, "4 to 6", "free")."""
    found = _NUMBER.match(text.strip())
    after = found["after"] if found else ""
    if not found or (after and not _UNIT.fullmatch(after)) or _is_code(found["before"]):
        return Cell(text, "date", day) if (day := _date(text)) else Cell(text)
    digits = found["digits"]
    plain = re.sub(r"[,\u00a0\u202f ]", "", digits)
    sign = -1 if found["sign"] or found["sign2"] else 1
    before, after = found["before"], (" " if after and found["space"] else "") + after
    kind: CellKind = ("percent" if after.strip() == "%" else "amount"
                      if {before, after.strip()} & CURRENCIES else "number")
    return Cell(text, kind, sign * float(plain), before, after, len(plain.partition(".")[2]),
                plain != digits)


def _is_code(before: str) -> bool:
    """Whether letters before the digits make a code ("P-1", "B12") rather than an amount
    ("EUR 300", "kr 40"): a currency's code, or a symbol, may stand there; other letters not."""
    return any(c.isalpha() for c in before) and before.strip() not in CURRENCIES


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
