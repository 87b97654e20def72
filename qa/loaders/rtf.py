"""Rich Text Format (.rtf), read with striprtf: the text, with a table row a line.

striprtf writes a table cell's end as "|" and a row's end as a line break; such rows
(two or more cells) go through `qa.loaders.tables.table_lines`, the first row of each table
naming the columns, as every other loader writes tables.
"""

from qa.errors import LoadError
from qa.loaders.base import Loaded, Reading, TextBudget
from qa.loaders.tables import table_lines


def load_rtf(data: bytes, reading: Reading) -> Loaded:
    from striprtf.striprtf import rtf_to_text

    if not data.lstrip().startswith(b"{\\rtf"):
        raise LoadError("not an RTF file (it does not start with {\\rtf)")
    text = rtf_to_text(data.decode("latin-1"), errors="ignore")
    lines = _with_tables(text.replace("\r\n", "\n").split("\n"), reading.budget)
    return "", "\n".join(lines), ()


def _with_tables(lines: list[str], budget: TextBudget) -> list[str]:
    """The lines, each run of table rows ("a|b|") written by `table_lines`, charged to the
    budget as they are kept."""
    out: list[str] = []
    table: list[list[str]] = []
    for line in [*lines, ""]:
        if line.count("|") >= 2 and line.rstrip().endswith("|"):
            table.append(line.rstrip().rstrip("|").split("|"))
            continue
        if table:
            out.extend(table_lines(table[0], table[1:], budget=budget))
            table = []
        out.append(budget.add(line.strip()))
    while out and not out[-1]:
        out.pop()
    return out
