"""Table answers: questions a table answers by its cells, computed rather than quoted.

Rows of sheets, CSV and Word, slide, HTML and Markdown tables are stored one a line,
each cell named by its column (`qa.loaders.tables`). A question that asks for a value over
rows ("Which team spent the most?", "How many offices are in Lyon?", "What is the
total spend?", "What is the average cost?", "How much more did Design spend than
Finance?", "Which branch grew the most from 2022 to 2023?") or for the rows themselves
("Which teams are in the office?") is answered from every row of the table, not from the
one row that reads most like the question:

- the table: the rows among the top hits' passages are grouped by document and caption;
  the one whose caption, column names and cells share most words with the question is
  chosen, and every row of it is read from its document (`read`, the document's passages);
- the column: the one whose name shares words with the question (their stems), or, for
  the largest, the smallest or a difference, the only column of numbers ("Which team
  spent the most?"); the rows: those with a cell the question names ("in Lyon"), all of
  them when it names none;
- the answer leads with the value, labelled as computed and shown with the cells that
  made it ("Total Spend: 1,240 (computed: 310 + 290 + 330 + 310) [1]"), and every row
  used follows, quoted and cited like any quote, so each figure can be traced.

Everything here is a pure function of the question and the rows; `table_answer` returns
None when the question is no such question or no table fits it, and the question is
then answered by quoting (`qa.answering.quoted`).
"""

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from qa.answering.question_kinds import content_words, is_list_question
from qa.answering.quoted import quoted
from qa.answering.results import Answer
from qa.backends.base import SentenceRow
from qa.loaders.tables import row_fields
from qa.search import Hit
from qa.stemming import index_term
from qa.words import WORD

MIN_SHARE = 0.5  # of the question's words that the table it is about must hold
MAX_SHOWN = 12  # cells written out in a computation; more are summarised as "N rows"
Reader = Callable[[str], tuple[Sequence[Hit], Sequence[SentenceRow]]]

_LARGEST = re.compile(r"\b(?:largest|biggest|highest|greatest|most|maximum|top|longest|"
                      r"oldest|heaviest|most expensive|busiest)\b", re.I)
_SMALLEST = re.compile(r"\b(?:smallest|lowest|least|fewest|minimum|shortest|youngest|"
                       r"lightest|cheapest|quietest)\b", re.I)
_WHICH = re.compile(r"^\s*(?:which|what|who|whose)\b", re.I)
_COUNT = re.compile(r"^\s*how many\s+(?P<noun>.+?)\s+(?:are|is|were|was|have|has|do|does|"
                    r"did|in|on|at|with|there)\b", re.I)
# "Which teams work in Lyon?": rows by a plural noun, whatever the verb (a list question
# of question_kinds wants "are", "were"...)
_WHICH_ROWS = re.compile(r"^\s*(?:which|what)\s+\w+[^s\W]s\s+(?!of\b)\w+", re.I)
_TOTAL = re.compile(r"\b(?:total|sum|altogether|combined|in all)\b", re.I)
_AVERAGE = re.compile(r"\b(?:average|mean)\b", re.I)
_DIFFERENCE = re.compile(r"\bhow (?:much|many) (?:more|less|fewer|higher|lower|bigger|"
                         r"smaller)\b|\bdifference between\b", re.I)
# a change from one column to another: "grew the most", "the biggest increase"
_CHANGE = re.compile(r"\b(?:grew|grow[sn]?|growth|rose|risen|increased?|increases|fell|fallen|"
                     r"dropped|decreased?|decreases|declined?|changed?|changes)\b", re.I)
_FALL = re.compile(r"\b(?:fell|fallen|dropped|decreased?|decreases|declined?)\b", re.I)
_PERCENT = re.compile(r"\b(?:percent|percentage|per cent)\b|%", re.I)
_TOTAL_ROW = re.compile(r"(?:grand |sub-?)?totals?|sum|all", re.I)
_UNIT = re.compile(r"[^\W\d]+\.?|%|[^\w\s]")  # after a number: "kg", "pounds", "%", "€"
_NUMBER = re.compile(
    r"^(?P<sign>[-−–(])?\s*(?P<before>[^\d\s()-]{0,3})\s*(?P<sign2>[-−])?"
    r"(?P<digits>\d{1,3}(?:[,\u00a0\u202f ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<space>\s*)(?P<after>[^\d()]{0,12}?)\s*\)?$")


@dataclass(frozen=True, slots=True)
class Row:
    """A table row as stored: its passage and span in the document, its table's caption
    and its cells (column name: value, in order)."""

    hit: Hit
    start: int
    end: int
    caption: str
    cells: dict[str, str]


@dataclass(frozen=True, slots=True)
class Number:
    """A cell read as a number: its value, its decimals, and the text around it kept for
    display ("€", "%", " kg"); `grouped` when it was written with thousand separators."""

    value: float
    decimals: int
    before: str
    after: str
    grouped: bool


def question_operation(question: str) -> str | None:
    """What a question asks to be computed over a table's rows: "largest", "smallest",
    "change" (the row that grew or fell the most from one column to another), "count",
    "total", "average", "difference" or "list"; None for any other question."""
    if _DIFFERENCE.search(question):
        return "difference"
    if _AVERAGE.search(question):
        return "average"
    if _TOTAL.search(question):
        return "total"
    if _COUNT.match(question):
        return "count"
    if _WHICH.match(question) and _CHANGE.search(question) and (
            _LARGEST.search(question) or _SMALLEST.search(question)):
        return "change"
    if _WHICH.match(question) and _SMALLEST.search(question):
        return "smallest"
    if _WHICH.match(question) and _LARGEST.search(question):
        return "largest"
    if is_list_question(question) or _WHICH_ROWS.match(question):
        return "list"
    return None


def parse_number(text: str) -> Number | None:
    """A cell's number: "1,240", "€1,240.50", "12%", "3.5 kg", "-40", "(300)" (negative);
    None for a cell that is not one number (a name, a date, "4 to 6")."""
    found = _NUMBER.match(text.strip())
    after = found["after"] if found else ""
    if not found or (after and not _UNIT.fullmatch(after)):
        return None
    digits = found["digits"]
    plain = re.sub(r"[,\u00a0\u202f ]", "", digits)
    sign = -1 if found["sign"] or found["sign2"] else 1
    return Number(sign * float(plain), len(plain.partition(".")[2]), found["before"],
                  (" " if after and found["space"] else "") + after, plain != digits)


def table_rows(hits: Sequence[Hit], sentences: Sequence[SentenceRow]) -> list[Row]:
    """The table rows among the passages' sentences, once each, in the hits' order (rank,
    then place in the passage)."""
    by_chunk = {hit.chunk_id: hit for hit in hits}
    seen: set[tuple[str, int]] = set()
    rows = []
    for sentence in sorted((s for s in sentences if s.chunk_id in by_chunk),
                           key=lambda s: (by_chunk[s.chunk_id].rank, s.start)):
        hit = by_chunk[sentence.chunk_id]
        text = hit.text[sentence.start - hit.start:sentence.end - hit.start]
        fields = row_fields(text)
        if fields is None or (hit.source, sentence.start) in seen:
            continue
        seen.add((hit.source, sentence.start))
        rows.append(Row(hit, sentence.start, sentence.end, fields[0], dict(fields[1])))
    return rows


def choose_table(question: str, rows: Sequence[Row]) -> tuple[str, str] | None:
    """The (document, caption) of the table among `rows` the question is about: the one
    whose caption, column names, cells and document name (its title and file name: "the
    contact list" is contacts.csv) hold the largest share of the question's words
    (the words that ask for the computation left out; the first found on a tie); None when
    none holds MIN_SHARE of them ("How many days of leave do staff have?" is not about a
    lunch menu's days)."""
    wanted = _stems(_without_operation(question))
    held: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        words = _stems(" ".join([row.caption, *row.cells, *row.cells.values()])) | _named(row)
        held.setdefault((row.hit.source, row.caption), set()).update(wanted & words)
    best = max(held.items(), key=lambda item: len(item[1]), default=None)
    if best is None or not wanted or len(best[1]) < MIN_SHARE * len(wanted):
        return None
    return best[0]


def table_answer(question: str, hits: Sequence[Hit], sentences: Sequence[SentenceRow],
                 read: Reader) -> Answer | None:
    """The computed answer to `question` from a table of the top `hits` (whose
    `sentences` are given), or None (see the module docstring).

    read(path): every passage of that document and their sentences."""
    operation = question_operation(question)
    if operation is None:
        return None
    table = choose_table(question, table_rows(hits, sentences))
    if table is None:
        return None
    source, caption = table
    rows = [row for row in table_rows(*_in_document_order(*read(source)))
            if row.hit.source == source and row.caption == caption]
    found = compute(operation, question, rows)
    if found is None:
        return None
    headline, used = found
    answer = quoted(question, [(row.hit, row.start, row.end) for row in used], 1.0)
    markers = "".join(dict.fromkeys(f"[{c.n}]" for c in answer.citations))
    return replace(answer, text=f"{headline} {markers} {answer.text}")


def compute(operation: str, question: str, rows: Sequence[Row]) -> tuple[str, list[Row]] | None:
    """The answer's first sentence and the rows it used, for `operation` (see
    `question_operation`) over a table's `rows` in document order; None when the question
    names no column the operation can use, or no rows are left."""
    rows = [row for row in rows if not _is_total_row(row)]
    if not rows:
        return None
    columns = list(dict.fromkeys(name for row in rows for name in row.cells))
    numeric = [c for c in columns if _is_numeric(c, rows)]
    label = _label_column(question, columns, numeric)
    if operation == "list":
        return _listed(question, rows, columns, label)
    if operation == "count":
        return _counted(question, rows, columns, numeric, label)
    named = _named_column(question, columns)
    if named is not None and named not in numeric and _is_partly_numeric(named, rows):
        bad = next(row for row in rows if parse_number(row.cells.get(named, "0")) is None)
        return (f"The column {named} has a value that is not a number: "
                f"“{bad.cells[named]}”; nothing is computed.",
                [row for row in rows if named in row.cells])
    if operation == "change":
        return _changed(question, rows, columns, numeric, label)
    column = _named_column(question, numeric)
    if column is None and operation in ("largest", "smallest", "difference") and \
            len(numeric) == 1:  # "Which team spent the most?": the only column of numbers
        column = numeric[0]
    if column is None and operation in ("total", "average"):
        return _across(operation, question, rows, columns, numeric, label)
    if column is None:
        return None
    if operation == "difference":
        return _difference(question, rows, columns, column, label)
    kept = [row for row in _filtered(question, rows, columns, exclude=column)
            if parse_number(row.cells.get(column, "")) is not None]
    if not kept:
        return None
    where = _where(question, kept, columns, column)
    if operation in ("largest", "smallest"):
        return _extreme(operation, kept, column, label, where)
    if len(kept) < 2:  # one row's value is quoted, not computed
        return None
    return _summed(operation, kept, column, where)


def _listed(question: str, rows: Sequence[Row], columns: list[str],
            label: str | None) -> tuple[str, list[Row]] | None:
    """The rows a list question asks for: its column must be named ("Which teams..."), or
    the question names the table's document and the rows ("List all contacts in Lyon":
    contacts.csv, its first column of names)."""
    if label is None:
        return None
    kept = _filtered(question, rows, columns, exclude=label)
    if not _stems(question) & _stems(label) and not (
            _stems(question) & _named(rows[0]) and len(kept) < len(rows)):
        return None
    values = [row.cells[label] for row in kept if label in row.cells]
    if not values:
        return None
    return f"{label}{_where(question, kept, columns, label)}: {', '.join(values)}.", kept


def _counted(question: str, rows: Sequence[Row], columns: list[str], numeric: list[str],
             label: str | None) -> tuple[str, list[Row]] | None:
    """How many rows a "how many X" question counts: X names the table (its caption, a
    column of names or its document), or the question names the rows it counts ("... are
    based in Lyon"); X is not a column of numbers ("How many staff..." sums, or quotes)."""
    noun = _COUNT.match(question)
    assert noun is not None
    asked = _stems(noun["noun"])
    kept = _filtered(question, rows, columns, exclude=None)
    if _named_column(noun["noun"], numeric) or not (asked & (_named(rows[0]) | _stems(
            " ".join([rows[0].caption, *(c for c in columns if c not in numeric)])))
            or len(kept) < len(rows)):  # "How many people ... are based in Lyon?"
        return None
    if len(kept) < 2:  # one row is quoted, not counted: it may hold the number asked
        return None
    where = _where(question, kept, columns, None)
    return (f"{noun['noun'].strip().capitalize()}{where}: {len(kept)} (computed: a count "
            f"of the rows below).", kept)


def _difference(question: str, rows: Sequence[Row], columns: list[str], column: str,
                label: str | None) -> tuple[str, list[Row]] | None:
    """A minus B, for the two rows the question names, in the order it names them."""
    lower = question.lower()
    named = []
    for row in rows:
        places = [lower.find(row.cells[c].lower()) for c in columns
                  if c != column and c in row.cells and _names(question, row.cells[c])]
        if places and parse_number(row.cells.get(column, "")) is not None:
            named.append((min(places), row))
    if len(named) != 2:
        return None
    (_, first), (_, second) = sorted(named, key=lambda pair: pair[0])
    a, b = (_number(row, column) for row in (first, second))
    difference = replace(a, value=a.value - b.value, decimals=max(a.decimals, b.decimals))
    names = [_name(row, label) for row in (first, second)]
    return (f"{column}, {names[0]} minus {names[1]}: {_format(difference, [a, b])} "
            f"(computed: {first.cells[column]} − {second.cells[column]}).", [first, second])


def _changed(question: str, rows: Sequence[Row], columns: list[str], numeric: list[str],
             label: str | None) -> tuple[str, list[Row]] | None:
    """The row that grew (or fell) the most from one column to the other, both named by
    the question in that order ("from 2023 to 2024"), as a difference or, when asked, a
    percentage; None unless it names exactly two columns of numbers."""
    lower = question.lower()
    named = sorted((min(lower.find(word) % (len(lower) + 1) for word in content_words(column)),
                    column) for column in numeric
                   if _stems(column) and _stems(column) <= _stems(question))
    if len(named) != 2:
        return None
    before, after = (column for _, column in named)
    kept = [row for row in _filtered(question, rows, columns, exclude=None)
            if before in row.cells and after in row.cells]
    percent = bool(_PERCENT.search(question))
    if len(kept) < 2 or percent and any(_number(r, before).value == 0 for r in kept):
        return None

    def change(row: Row) -> float:
        first, last = _number(row, before).value, _number(row, after).value
        return (last - first) / abs(first) * 100 if percent else last - first

    pick = min if _FALL.search(question) else max
    best = pick(kept, key=change)
    numbers = [_number(best, before), _number(best, after)]
    value = change(best)
    shown = (f"{value:+.1f}%" if percent else ("+" if value > 0 else "") + _format(
        replace(numbers[0], value=value, decimals=max(n.decimals for n in numbers)), numbers))
    how = "fell the most" if pick is min else "grew the most"
    return (f"{_name(best, label)}: {before} {best.cells[before]} to {after} "
            f"{best.cells[after]}, {shown}; it {how} of {len(kept)} rows (computed).", kept)


def _extreme(operation: str, rows: list[Row], column: str, label: str | None,
             where: str) -> tuple[str, list[Row]]:
    """The row with the largest or smallest value; every row compared is cited."""
    pick = max if operation == "largest" else min
    best = pick(rows, key=lambda row: _number(row, column).value)
    ties = [row for row in rows if _number(row, column).value == _number(best, column).value]
    names = " and ".join(_name(row, label) for row in ties)
    return (f"{names}: {column} {best.cells[column]}, the {operation} of {len(rows)} rows"
            f"{where} (computed).", rows)


def _summed(operation: str, rows: list[Row], column: str,
            where: str) -> tuple[str, list[Row]]:
    numbers = [_number(row, column) for row in rows]
    total = sum(n.value for n in numbers)
    cells = [row.cells[column] for row in rows]
    shown = " + ".join(cells) if len(cells) <= MAX_SHOWN else f"the sum of {len(cells)} rows"
    if operation == "total":
        result = replace(numbers[0], value=total, decimals=max(n.decimals for n in numbers))
        return f"Total {column}{where}: {_format(result, numbers)} (computed: {shown}).", rows
    mean = total / len(numbers)
    decimals = max(max(n.decimals for n in numbers), 0 if mean.is_integer() else 2)
    result = replace(numbers[0], value=mean, decimals=decimals)
    return (f"Average {column}{where}: {_format(result, numbers)} (computed: "
            f"({shown}) / {len(numbers)}).", rows)


def _across(operation: str, question: str, rows: Sequence[Row], columns: list[str],
            numeric: list[str], label: str | None) -> tuple[str, list[Row]] | None:
    """A total or average of the numbers of the one row the question names, when it names
    no column ("the total energy spend": the row Energy, over its quarters); None when it
    names no row, or several ("What is the total number of teams?" sums no floors)."""
    named = [row for row in rows if any(_names(question, row.cells[c]) for c in columns
                                        if c not in numeric and c in row.cells)]
    if len(named) != 1:
        return None
    row = named[0]
    cells = [c for c in numeric if parse_number(row.cells.get(c, "")) is not None]
    if len(cells) < 2:
        return None
    numbers = [_number(row, c) for c in cells]
    total = sum(n.value for n in numbers)
    shown = " + ".join(row.cells[c] for c in cells)
    what = f"{row.caption.rstrip(':')}, {_name(row, label)}" if row.caption else _name(row, label)
    if operation == "total":
        result = replace(numbers[0], value=total, decimals=max(n.decimals for n in numbers))
        return f"Total {what}: {_format(result, numbers)} (computed: {shown}).", [row]
    mean = total / len(numbers)
    result = replace(numbers[0], value=mean, decimals=max(
        max(n.decimals for n in numbers), 0 if mean.is_integer() else 2))
    return (f"Average {what}: {_format(result, numbers)} (computed: ({shown}) / "
            f"{len(numbers)}).", [row])


def _format(result: Number, inputs: Sequence[Number]) -> str:
    """A computed number written as its inputs are: grouped if any was, with their
    currency or unit when they all share it."""
    grouped = "," if any(n.grouped for n in inputs) else ""
    text = f"{abs(result.value):{grouped}.{result.decimals}f}"
    same = all((n.before, n.after.strip()) == (inputs[0].before, inputs[0].after.strip())
               for n in inputs)
    if same:
        text = f"{inputs[0].before}{text}{inputs[0].after}"
    return f"-{text}" if result.value < 0 else text


def _number(row: Row, column: str) -> Number:
    number = parse_number(row.cells[column])
    assert number is not None
    return number


def _is_numeric(column: str, rows: Sequence[Row]) -> bool:
    """Whether the column's cells are numbers (an empty cell is left out when stored)."""
    values = [row.cells[column] for row in rows if column in row.cells]
    return bool(values) and all(parse_number(value) is not None for value in values)


def _is_partly_numeric(column: str, rows: Sequence[Row]) -> bool:
    """Whether some of the column's cells are numbers, but not all."""
    values = [parse_number(row.cells[column]) for row in rows if column in row.cells]
    return any(value is not None for value in values) and None in values


def _is_total_row(row: Row) -> bool:
    """Whether the row sums the others, by its first cell ("Total", "Grand total", "All"):
    it is no row to compare or add."""
    return bool(_TOTAL_ROW.fullmatch(next(iter(row.cells.values()), "").strip()))


def _named_column(question: str, columns: Sequence[str]) -> str | None:
    """The column whose name shares most words (stems) with the question, the words that
    ask for the computation left out ("total" names no column "Total"); None if none
    does, or if several share as many (the question is ambiguous)."""
    wanted = _stems(_without_operation(question))
    scored = sorted(((len(wanted & _stems(column)), column) for column in columns),
                    key=lambda pair: -pair[0])
    if not scored or not scored[0][0] or len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


def _without_operation(question: str) -> str:
    """The question without the words that ask for a computation."""
    for pattern in (_LARGEST, _SMALLEST, _TOTAL, _AVERAGE, _DIFFERENCE):
        question = pattern.sub(" ", question)
    return question


def _label_column(question: str, columns: list[str], numeric: list[str]) -> str | None:
    """The column that names a row: the one of names the question names ("Which team"),
    else the first column of names."""
    names = [column for column in columns if column not in numeric]
    return _named_column(question, names) or (names[0] if names else None)


def _filtered(question: str, rows: Sequence[Row], columns: list[str],
              exclude: str | None) -> list[Row]:
    """The rows with a cell the question names ("in Lyon", "on floor 2": a number counts
    when its column is named too), in each column where it names some rows but not all;
    all rows when it names none."""
    kept = list(rows)
    for column in columns:
        if column == exclude:
            continue
        named = [row for row in rows if column in row.cells and _names(question, row.cells[
            column]) and (not _is_numeric(column, rows) or _named_column(question, [column]))]
        if named and len(named) < len(rows):
            kept = [row for row in kept if row in named]
    return kept


def _where(question: str, kept: Sequence[Row], columns: list[str], column: str | None) -> str:
    """The filter the rows were chosen by, for the headline: ", City Lyon" or ""."""
    parts = []
    for name in columns:
        values = {row.cells.get(name) for row in kept}
        value = next(iter(values)) if len(values) == 1 else None
        if name != column and value and _names(question, value):
            parts.append(f"{name} {value}")
    return f" ({', '.join(parts)})" if parts else ""


def _names(question: str, value: str) -> bool:
    """Whether the question names a cell's value: all its words, as words of the question."""
    words = WORD.findall(value.lower())
    asked = set(WORD.findall(question.lower()))
    return bool(words) and all(word in asked for word in words)


def _name(row: Row, label: str | None) -> str:
    return row.cells.get(label or "", "") or next(iter(row.cells.values()))


def _named(row: Row) -> set[str]:
    """The words of the row's document's title and file name ("budget_2026.xlsx": budget,
    2026), which name its tables too."""
    return _stems(f"{row.hit.title} {re.sub(r'[_.-]+', ' ', Path(row.hit.source).stem)}")


def _stems(text: str) -> set[str]:
    return {index_term(word) for word in content_words(text)}


def _in_document_order(hits: Sequence[Hit], sentences: Sequence[SentenceRow]
                       ) -> tuple[list[Hit], Sequence[SentenceRow]]:
    """The hits ranked by their place in the document, so rows are read in its order."""
    ordered = sorted(hits, key=lambda hit: (hit.source, hit.start))
    return [replace(hit, rank=rank) for rank, hit in enumerate(ordered, 1)], sentences
