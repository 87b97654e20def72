"""Table answers: questions a table answers by its cells, computed rather than quoted.

Rows of sheets, CSV and Word, slide, HTML and Markdown tables are stored one a line,
each cell named by its column, and beside the text as typed cells, parsed once by the
loader: numbers, amounts, percentages, dates, text (`qa.loaders.tables`). The values are
read from those cells, never from the line. A question that asks for a value over
rows ("Which team spent the most?", "How many offices are in Lyon?", "What is the
total spend?", "What is the average cost?", "How much more did Design spend than
Finance?", "Which branch grew the most from 2022 to 2023?") or for the rows themselves
("Which teams are in the office?") is answered from every row of the table, not from the
one row that reads most like the question:

- the table: of the stored tables of the top hits' documents (`tables`), those with a
  row in a hit; the one whose caption, column names and cells share most words with the
  question is chosen, and every row of it is used, each quoted from the passage holding
  its line (`read`, the document's passages);
- the column: the one whose name shares words with the question (their stems), or, for
  the largest, the smallest or a difference, the only column of numbers ("Which team
  spent the most?"); the rows: those with a cell the question names ("in Lyon"), all of
  them when it names none;
- the answer leads with the value, labelled as computed and shown with the cells that
  made it ("Total Spend: 1,240 (computed: 310 + 290 + 330 + 310) [1]"), and every row
  used follows, quoted and cited like any quote, so each figure can be traced;
- a total or a difference of one row over sheets with the same columns (a workbook's
  sheet per site or per year) is computed when the question names the sheets by their
  captions, or says "both" or "across" for a total (`sheets_answer`);
- a column the question names that holds a cell that is not a number ("free"), or
  amounts in different currencies, is not computed: the answer says which cell, and
  quotes the rows.

Everything here is a pure function of the question and the rows; `table_answer` returns
None when the question is no such question or no table fits it, and the question is
then answered by quoting (`qa.answering.quoted`). A document indexed before tables were
stored as cells has none (`tables` gives None): the lines of its passages that read as
rows are quoted under NOT_STORED, never computed, until `qa index --rebuild` reads it
again.
"""

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from qa.answering.question_kinds import content_words, is_list_question, negated, stems
from qa.answering.quoted import quoted
from qa.answering.results import Answer
from qa.backends.base import SentenceRow
from qa.loaders.cells import Cell, Table
from qa.loaders.tables import row_fields
from qa.search import Hit
from qa.stemming import index_term
from qa.words import STOPWORDS, WORD, years_as_one_word

MIN_SHARE = 0.5  # of the question's words that the table it is about must hold
NEGATION_SPAN = 3  # words before a column's name that may negate it
_TOKEN = re.compile(r"[\w']+")
MAX_FLAG_VALUES = 4  # a column of this many values at most, one a no, says yes or no
_NO_CELLS = frozenset(("no", "none", "n", "n/a", "na", "-", "–", "—", "false", "nil",
                       "not required", "not needed"))
MAX_SHOWN = 12  # cells written out in a computation; more are summarised as "N rows"
NOT_STORED = ("This table was indexed before its cells were stored, so nothing is computed "
              "from it; its rows are quoted (qa index --rebuild stores them).")
Reader = Callable[[str], tuple[Sequence[Hit], Sequence[SentenceRow]]]
Tables = Callable[[str], Sequence[Table] | None]  # a document's stored tables

# "top" as in "the top branch", not "on top of the fee" nor "top up"
_LARGEST = re.compile(r"\b(?:largest|biggest|highest|greatest|most|maximum|"
                      r"(?<!on )top(?!\s+(?:of|up)\b)|longest|"
                      r"oldest|heaviest|most expensive|busiest)\b", re.I)
_SMALLEST = re.compile(r"\b(?:smallest|lowest|least|fewest|minimum|shortest|youngest|"
                       r"lightest|cheapest|quietest)\b", re.I)
# a superlative that names what is measured ("heaviest": weight) is no reason to take the
# only column of numbers, which may measure something else (a price)
_MEASURED = re.compile(r"\b(?:longest|oldest|heaviest|expensive|busiest|shortest|youngest|"
                       r"lightest|cheapest|quietest)\b", re.I)
_WHICH = re.compile(r"^\s*(?:which|what|who|whose)\b", re.I)
# what is counted: the words before a verb or preposition, or before any verb that has
# an object ("How many staff hold a forklift licence?")
_COUNT = re.compile(r"^\s*how many\s+(?P<noun>.+?)\s+(?:(?:are|is|were|was|have|has|do|does|"
                    r"did|will|would|can|could|should|in|on|at|with|there)\b|"
                    r"(?=[a-z]+\s+(?:an?|the|their|our|any)\s))", re.I)
# words for the people a list of contacts holds, whom no caption or column names
_PEOPLE = frozenset(("people", "persons", "staff", "employees", "members", "contacts"))
# "Which teams work in Lyon?": rows by a plural noun, whatever the verb (a list question
# of question_kinds wants "are", "were"...)
# "Which teams work...": a plural noun, not a verb ("What was the rate...?")
_WHICH_ROWS = re.compile(r"^\s*(?:which|what)\s+(?!(?:was|has|does)\b)\w+[^s\W]s\s+"
                         r"(?!of\b)\w+", re.I)
_TOTAL = re.compile(r"\b(?:total|sum|altogether|combined|in all)\b", re.I)
_AVERAGE = re.compile(r"\b(?:average|mean)\b", re.I)
_DIFFERENCE = re.compile(r"\bhow (?:much|many) (?:more|less|fewer|higher|lower|bigger|"
                         r"smaller)\b|\bdifference between\b|\bby how (?:much|many)\b", re.I)
_HOW_MUCH = re.compile(r"\bhow (?:much|many)\b", re.I)
# a change from one column to another: "grew the most", "the biggest increase"
_CHANGE = re.compile(r"\b(?:grew|grow[sn]?|growth|rose|rises?|risen|increased?|increases|fell|"
                     r"falls?|fallen|drops?|dropped|decreased?|decreases|declined?|changed?|"
                     r"changes|(?:went|gone|go(?:es)?) (?:up|down))\b", re.I)
_FALL = re.compile(r"\b(?:fell|falls?|fallen|drops?|dropped|decreased?|decreases|declined?|"
                   r"(?:went|gone|go(?:es)?) down)\b", re.I)
_PERCENT = re.compile(r"\b(?:percent|percentage|per cent)\b|%", re.I)
_TOTAL_ROW = re.compile(r"(?:(?:grand|sub-?|year|annual)\s*)?totals?\b.*|sum|all|full[- ]year",
                        re.I)
# columns that total or compare a row's others ("Total", "Full year"; "Change"): not added in
_ROW_TOTAL = re.compile(r"\b(?:totals?|full[- ]year)\b", re.I)
_COMPARED = re.compile(r"\b(?:change|difference|variance|growth)\b", re.I)
_BOTH = re.compile(r"\b(?:both|across|combined|together|altogether)\b", re.I)
_OVER_ROWS = re.compile(r"\b(?:(?:the )?number of|amount of|across|all|both|each|every|"
                        r"together)\b", re.I)
_CODE = re.compile(r"(?!years)[a-z]+\d+[a-z]?")  # "q2", "h1", "b12": no "years2425" (a year)
_BRACKETED = re.compile(r"\([^)]*\)")  # "Q1 (Apr-Jun)" is named "Q1"
# a year's last two digits: "years2425" (2024/25, `years_as_one_word`), "2025"
_YEAR = re.compile(r"\byears(\d\d)\d\d\b|\b(?:19|20)(\d\d)\b")


@dataclass(frozen=True, slots=True)
class Row:
    """A table row as stored: its passage and span in the document, its table's caption
    and its cells (column name: cell, in order), and which of its document's stored
    tables it is of."""

    hit: Hit
    start: int
    end: int
    caption: str
    cells: dict[str, Cell]
    table: int = 0


def the_other(name: str, tables: Iterable[Table]) -> list[tuple[str, str]]:
    """The other of two things, as "the other site" asks: of each column of two values,
    one of which `name` names, that cell and the other ("Kettlebrook Depot", "Alderwick
    Hub"), sorted; none unless the others agree, all opening with the shortest of them
    ("Alderwick Hub" and "Alderwick Hub, 3 Chapel Yard")."""
    pairs = set()
    for table in tables:
        columns: dict[str, set[str]] = {}
        for row in table.rows:
            for column, cell in row.cells:
                text = cell.text.strip()
                if text and not _TOTAL_ROW.fullmatch(text):
                    columns.setdefault(column, set()).add(text)
        for texts in columns.values():
            named = [text for text in texts if _names(name, text) or _named_first(
                _leading(text), {w for other in texts - {text} for w in _leading(other)},
                _words(name))]
            if len(texts) == 2 and len(named) == 1:
                pairs |= {(named[0], other) for other in texts - set(named)}
    shortest = min((other for _, other in pairs), key=len, default="")
    return sorted(pairs) if all(other.startswith(shortest) for _, other in pairs) else []


def question_operation(question: str) -> str | None:
    """What a question asks to be computed over a table's rows: "largest", "smallest",
    "change" (the row that grew or fell the most from one column to another), "count",
    "total", "average", "difference" or "list"; None for any other question."""
    if _DIFFERENCE.search(question) or _HOW_MUCH.search(question) and _CHANGE.search(question):
        return "difference"  # "How much more...?", "By how much...?", "How much did it grow?"
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


def hit_rows(hits: Sequence[Hit], tables: dict[str, Sequence[Table] | None]) -> list[Row]:
    """The stored rows whose line starts in one of the passages, once each, in the hits'
    order (rank, then place in the passage); of a document with no stored tables (None),
    the lines of its passages that read as rows (`unstored_rows`)."""
    seen: set[tuple[str, int]] = set()
    rows = []
    for hit in sorted(hits, key=lambda hit: hit.rank):
        stored = tables.get(hit.source)
        for row in unstored_rows(hit) if stored is None else (
                Row(hit, row.start, min(row.end, hit.end), table.caption, dict(row.cells), n)
                for n, table in enumerate(stored) for row in table.rows
                if hit.start <= row.start < hit.end):
            if (hit.source, row.start) not in seen:
                seen.add((hit.source, row.start))
                rows.append(row)
    return rows


def unstored_rows(hit: Hit) -> list[Row]:
    """The lines of a passage that read as table rows (`row_fields`), of a document indexed
    before its tables' cells were stored: to choose the table and quote its rows, never
    to compute (each cell is text, unparsed)."""
    rows, at = [], hit.start
    for line in hit.text.split("\n"):
        fields = row_fields(line)
        if fields is not None:
            cells = {name: Cell(value) for name, value in fields[1]}
            rows.append(Row(hit, at, at + len(line), fields[0], cells))
        at += len(line) + 1
    return rows


def table_rows(table: Table, n: int, passages: Sequence[Hit]) -> list[Row] | None:
    """Every row of `table` (the `n`th of its document), each with the passage holding its
    line; None if one is in none of `passages` (a document longer than a search reads)."""
    ordered = sorted(passages, key=lambda hit: hit.start)
    starts = [hit.start for hit in ordered]
    rows = []
    for row in table.rows:
        at = bisect_right(starts, row.start) - 1  # the last passage to start by the row
        if at < 0 or ordered[at].end <= row.start:
            return None
        hit = ordered[at]
        rows.append(Row(hit, row.start, min(row.end, hit.end), table.caption, dict(row.cells),
                        n))
    return rows


def choose_table(question: str, rows: Sequence[Row]) -> tuple[str, int] | None:
    """The (document, table number) of the table among `rows` the question is about: the one
    whose caption, column names, cells and document name (its title and file name: "the
    contact list" is contacts.csv) hold the largest share of the question's words
    (the words that ask for the computation left out; the first found on a tie); None when
    none holds MIN_SHARE of its words that are no numbers ("How many days of leave do staff
    have?" is not about a lunch menu's days; "What average daily rate are we targeting for
    2025?" not about a table of revenue with a column "2025 target"), or it lacks a
    number or year the question names ("How many visits did Brackley Vale have in
    2022/23?" of a table of 2023/24 and 2024/25)."""
    wanted = _words(_without_operation(question))
    held: dict[tuple[str, int], set[str]] = {}
    for row in rows:
        words = _words(" ".join([row.caption, *row.cells, *_texts(row)])) | _named(row)
        held.setdefault((row.hit.source, row.table), set()).update(wanted & words)
    best = max(held.items(), key=lambda item: len(item[1]), default=None)
    topic = {word for word in wanted if not _is_number(word)}
    if best is None or len(topic & best[1]) < MIN_SHARE * len(topic) or not topic & best[1] \
            or not wanted - topic <= best[1]:
        return None
    return best[0]


def table_answer(question: str, hits: Sequence[Hit], read: Reader,
                 tables: Tables) -> Answer | None:
    """The computed answer to `question` from a table of the top `hits`, or None (see the
    module docstring).

    read(path): every passage of that document and their sentences.
    tables(path): that document's stored tables; None if it was indexed without them."""
    operation = question_operation(question)
    if operation is None:
        return None
    stored = {source: tables(source) for source in dict.fromkeys(h.source for h in hits)}
    if operation in ("total", "difference"):
        over_sheets = sheets_answer(operation, question, stored, read)
        if over_sheets is not None:
            return over_sheets
    found = hit_rows(hits, stored)
    chosen = choose_table(question, found)
    if chosen is None:
        return None
    source, n = chosen
    table = stored[source]
    if table is None:  # indexed before its cells were stored
        return _answer(question, NOT_STORED, [row for row in found if row.hit.source == source])
    rows = table_rows(table[n], n, read(source)[0])
    computed = compute(operation, question, rows) if rows else None
    return _answer(question, *computed) if computed else None


def sheets_answer(operation: str, question: str, stored: dict[str, Sequence[Table] | None],
                  read: Reader) -> Answer | None:
    """A total or a difference of one row over tables of one document with the same
    columns, as a workbook's sheets of two sites or two years are: the tables the question
    names by their captions (a word that tells each from the others: "at Northgate than at
    Southmoor", "in 2025-26 than in 2024-25"), in that order, or for a total all of
    them when it says "both" or "across"; then `over_sheets`. None when it names no two."""
    for source, tables in stored.items():
        for group in _same_columns(tables or ()):
            sheets = {tables[n].caption: n for n in group} if tables else {}
            named = _named_columns(question, list(sheets))
            if operation == "total" and not named and _BOTH.search(question):
                named = list(sheets)
            if len(named) < 2 or operation == "difference" and len(named) != 2:
                continue
            passages = read(source)[0]
            found = [table_rows(tables[sheets[caption]], sheets[caption], passages)
                     for caption in named] if tables else []
            rows = [sheet for sheet in found if sheet]
            computed = over_sheets(operation, question, rows, _words(" ".join(sheets))) \
                if len(rows) == len(found) else None
            if computed is not None:
                return _answer(question, *computed)
    return None


def _same_columns(tables: Sequence[Table]) -> list[list[int]]:
    """The tables (their numbers) that share their column names, two or more, each with a
    caption of its own."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for n, table in enumerate(tables):
        groups.setdefault(table.header, []).append(n)
    return [group for group in groups.values() if len(group) > 1
            and len({tables[n].caption for n in group}) == len(group)
            and all(tables[n].caption for n in group)]


def over_sheets(operation: str, question: str, sheets: Sequence[Sequence[Row]],
                captions: set[str]) -> tuple[str, list[Row]] | None:
    """The total (or the first minus the second) of one row's cell in each of `sheets`:
    the row the question names in every sheet by the same text (each sheet's total row
    when it names nothing but the sheets, the column and the document), in the column it
    names (else the one that totals each row, or the only column of numbers).
    `captions`: the words of the sheets' captions, which name no row."""
    rows = [row for sheet in sheets for row in sheet]
    columns = list(dict.fromkeys(name for row in rows for name in row.cells))
    numeric = [c for c in columns if _is_numeric(c, rows)]
    column = _named_column(question, numeric) or _total_column(numeric) or (
        numeric[0] if len(numeric) == 1 else None)
    if column is None:
        return None
    labels = [c for c in columns if c not in numeric]
    named = [_rows_named(question, [row for row in sheet if not _is_total_row(row)], labels,
                         captions | _words(column)) for sheet in sheets]
    if not all(named) and not _words(_without_operation(question)) - captions - _words(
            " ".join([column, *_named(rows[0])])):  # names no row: the sheets' totals
        named = [[row for row in sheet if _is_total_row(row)] for sheet in sheets]
    if any(len(found) != 1 for found in named) or \
            len({_texts(found[0])[0] for found in named}) != 1:
        return None
    chosen = [found[0] for found in named]
    if not all(_has_number(row, column) for row in chosen):
        return None
    cells = [row.cells[column] for row in chosen]
    what = f"{column}, {_texts(chosen[0])[0]}"
    if operation == "difference":
        a, b = cells
        return (f"{what}, {chosen[0].caption} minus {chosen[1].caption}: "
                f"{_format(_number(chosen[0], column) - _number(chosen[1], column), cells)} "
                f"(computed: {a.text} − {b.text}).", chosen)
    shown = " + ".join(f"{cell.text} ({row.caption})" for row, cell in zip(chosen, cells,
                                                                            strict=True))
    return f"{_total_or_average(operation, what, cells, shown)}.", chosen


def _answer(question: str, headline: str, rows: Sequence[Row]) -> Answer:
    """The headline, then each row quoted and cited."""
    answer = quoted(question, [(row.hit, row.start, row.end) for row in rows], 1.0)
    markers = "".join(dict.fromkeys(f"[{c.n}]" for c in answer.citations))
    return replace(answer, text=f"{headline} {markers} {answer.text}")


def compute(operation: str, question: str, rows: Sequence[Row]) -> tuple[str, list[Row]] | None:
    """The answer's first sentence and the rows it used, for `operation` (see
    `question_operation`) over a table's `rows` in document order; None when the question
    names no column the operation can use, or no rows are left."""
    if operation == "difference":  # "Q1 than Q3", "from 2023 to 2024": of one row, total too
        between = _between_columns(question, rows)
        if between is not None:
            return between
    rows = [row for row in rows if not _is_total_row(row)]
    if not rows:
        return None
    columns = list(dict.fromkeys(name for row in rows for name in row.cells))
    numeric = [c for c in columns if _is_numeric(c, rows)]
    if operation == "list":  # a column whose cell the question names chooses the rows
        return _listed(question, rows, columns, _label_column(
            question, columns, numeric + _flags(rows, columns) + _named_by(question, rows)))
    label = _label_column(question, columns, numeric + _flags(rows, columns))
    if operation == "count":
        return _counted(question, rows, columns, numeric, label)
    named = _named_column(question, columns)
    refused = _refused(named, rows) if named is not None else None
    if refused is not None:
        return refused
    if operation == "change":
        return _changed(question, rows, columns, numeric, label)
    column = _named_column(question, numeric)
    if column is None and operation in ("largest", "smallest", "difference") and \
            len(numeric) == 1 and not _MEASURED.search(question) and \
            not _names_what_is_measured(question):
        # "Which team spent the most?": the only column of numbers
        column = numeric[0]
        refused = _refused(column, rows)
        if refused is not None:
            return refused
    if operation == "average" and column is not None and _AVERAGE.search(column):
        return None  # "the average days to relet" is a column's name: its cells are quoted
    if column is None and operation == "total":  # "the total budget": of the rows' totals
        column = _total_column(numeric)
    if column is None and operation in ("total", "average"):
        return _across(operation, question, rows, columns, numeric, label)
    if column is None:
        return None
    if operation == "difference":
        return _difference(question, rows, columns, column, label)
    kept = [row for row in _filtered(question, rows, columns, exclude=column)
            if _has_number(row, column)]
    if not kept:
        return None
    where = _where(question, kept, columns, column)
    if operation in ("largest", "smallest"):
        return _extreme(operation, kept, column, label, where)
    if len(kept) < 2:  # one row's value is quoted, not computed
        return None
    return _summed(operation, kept, column, where)


def _names_what_is_measured(question: str) -> bool:
    """Whether the word of most or least is followed by what it measures ("What's the
    minimum term?"), which, if no column is so named, is not the only column of numbers
    (a price); "Which team spent the most?" names nothing after it."""
    found = _LARGEST.search(question) or _SMALLEST.search(question)
    after = WORD.findall(question[found.end():]) if found else []
    return bool(after) and after[0].lower() not in STOPWORDS


def _listed(question: str, rows: Sequence[Row], columns: list[str],
            label: str | None) -> tuple[str, list[Row]] | None:
    """The rows a list question asks for: its column must be named ("Which teams..."), or
    the question names the table's document or a column of yes and no, and the rows ("List
    all contacts in Lyon": contacts.csv, its first column of names; "Who are the first
    aiders in Lyon?": the names whose "First aider" is Yes)."""
    if label is None:
        return None
    kept = _filtered(question, rows, columns, exclude=label)
    filters_by = stems(question) & _named(rows[0]) or any(  # its document or a flag
        _named_column(question, [column]) for column in _flags(rows, columns))
    if not stems(question) & stems(label) and not (filters_by and len(kept) < len(rows)):
        return None
    values = [row.cells[label].text for row in kept if label in row.cells]
    if not values:
        return None
    return f"{label}{_where(question, kept, columns, label)}: {', '.join(values)}.", kept


def _counted(question: str, rows: Sequence[Row], columns: list[str], numeric: list[str],
             label: str | None) -> tuple[str, list[Row]] | None:
    """How many rows a "how many X" question counts: X's first word (what is counted) is
    named by the table (its caption, a column of names, or its document), or
    is people ("How many people ... are based in Lyon?") and the question names the rows
    it counts; X is not a column of numbers ("How many staff..." sums, or quotes). Rows
    are never counted for what they are not ("How many seats will the new buses have?"
    of a list of fuel cards that mentions buses)."""
    noun = _COUNT.match(question)
    assert noun is not None
    first = noun["noun"].split()[0].lower()
    kept = _filtered(question, rows, columns, exclude=None)
    table = _named(rows[0]) | stems(" ".join([rows[0].caption,
                                               *(c for c in columns if c not in numeric)]))
    if _named_column(noun["noun"], numeric) or not (
            stems(first) & table or (first in _PEOPLE and len(kept) < len(rows))):
        return None
    if len(kept) < 2:  # one row is quoted, not counted: it may hold the number asked
        return None
    where = _where(question, kept, columns, None)
    return (f"{noun['noun'].strip().capitalize()}{where}: {len(kept)} (computed: a count "
            f"of the rows below).", kept)


def _difference(question: str, rows: Sequence[Row], columns: list[str], column: str,
                label: str | None) -> tuple[str, list[Row]] | None:
    """A minus B, for the two rows the question names, in the order it names them."""
    named = [row for row in _rows_named(question, rows, [c for c in columns if c != column],
                                        _words(column)) if _has_number(row, column)]
    if len(named) != 2:
        return None
    first, second = sorted(named, key=lambda row: _place(question, row, named))
    a, b = first.cells[column], second.cells[column]
    difference = _number(first, column) - _number(second, column)
    names = [_name(row, label) for row in (first, second)]
    return (f"{column}, {names[0]} minus {names[1]}: {_format(difference, [a, b])} "
            f"(computed: {a.text} − {b.text}).", [first, second])


def _between_columns(question: str, rows: Sequence[Row]) -> tuple[str, list[Row]] | None:
    """A minus B of the one row the question names, for the two columns of numbers it names
    in that order ("more in Q1 than in Q3": Q1 minus Q3), or the later minus the earlier
    when it asks for a change (`_in_time`: "How much has it gone up on last year's
    actual?" is the budget minus the actual); None unless it names exactly one row and two
    such columns; a change asked of a table of two years' columns is of those two ("How
    much did the annual ticket go up?", "... go up for 2025-26?")."""
    columns = list(dict.fromkeys(name for row in rows for name in row.cells))
    numeric = [c for c in columns if _is_numeric(c, rows)]
    named_columns = _named_columns(question, numeric)
    if _CHANGE.search(question) and len(named_columns) < 2 and _of_two_years(numeric):
        named_columns = numeric
    named = _rows_named(question, rows, [c for c in columns if c not in numeric],
                        _words(" ".join(named_columns)))
    if len(named_columns) != 2 or len(named) != 1:
        return None
    row = named[0]
    first, second = _in_time(named_columns, columns)[::-1] if _CHANGE.search(question) \
        else named_columns
    if not (_has_number(row, first) and _has_number(row, second)):
        return None
    a, b = row.cells[first], row.cells[second]
    difference = _number(row, first) - _number(row, second)
    return (f"{_name(row, None)}, {first} minus {second}: {_format(difference, [a, b])} "
            f"(computed: {a.text} − {b.text}).", [row])


def _of_two_years(columns: Sequence[str]) -> bool:
    """Whether there are two columns, each naming a year of its own ("2024-25 price",
    "2025-26 price")."""
    starts = [_start_year(column) for column in columns]
    return len(columns) == 2 and None not in starts and len(set(starts)) == 2


def _in_time(pair: Sequence[str], columns: Sequence[str]) -> list[str]:
    """Two columns, the earlier first: by the years they name ("2024/25 actual" before
    "2025/26 budget"), else as the table orders them."""
    starts = [start for start in map(_start_year, pair) if start is not None]
    if len(set(starts)) == 2:
        return [column for _, column in sorted(zip(starts, pair, strict=True))]
    return sorted(pair, key=list(columns).index)


def _start_year(column: str) -> int | None:
    """The last two digits of the (first) year a column names, or None."""
    found = _YEAR.search(years_as_one_word(column))
    return int(found[1] or found[2]) if found else None


def _changed(question: str, rows: Sequence[Row], columns: list[str], numeric: list[str],
             label: str | None) -> tuple[str, list[Row]] | None:
    """The row that grew (or fell) the most from one column to the other, both named by
    the question in that order ("from 2023 to 2024"), as a difference or, when asked, a
    percentage; None unless it names exactly two columns of numbers."""
    named = _named_columns(question, numeric)
    if len(named) != 2:
        return None
    before, after = named
    kept = [row for row in _filtered(question, rows, columns, exclude=None)
            if before in row.cells and after in row.cells]
    percent = bool(_PERCENT.search(question))
    if len(kept) < 2 or percent and any(_number(r, before) == 0 for r in kept):
        return None

    def change(row: Row) -> float:
        first, last = _number(row, before), _number(row, after)
        return (last - first) / abs(first) * 100 if percent else last - first

    pick = min if _FALL.search(question) else max
    best = pick(kept, key=change)
    value = change(best)
    cells = [best.cells[before], best.cells[after]]
    shown = f"{value:+.1f}%" if percent else ("+" if value > 0 else "") + _format(value, cells)
    how = "fell the most" if pick is min else "grew the most"
    return (f"{_name(best, label)}: {before} {cells[0].text} to {after} {cells[1].text}, "
            f"{shown}; it {how} of {len(kept)} rows (computed).", kept)


def _extreme(operation: str, rows: list[Row], column: str, label: str | None,
             where: str) -> tuple[str, list[Row]]:
    """The row with the largest or smallest value; every row compared is cited."""
    pick = max if operation == "largest" else min
    best = pick(rows, key=lambda row: _number(row, column))
    ties = [row for row in rows if _number(row, column) == _number(best, column)]
    names = " and ".join(_name(row, label) for row in ties)
    return (f"{names}: {column} {best.cells[column].text}, the {operation} of {len(rows)} rows"
            f"{where} (computed).", rows)


def _summed(operation: str, rows: list[Row], column: str,
            where: str) -> tuple[str, list[Row]]:
    cells = [row.cells[column] for row in rows]
    shown = " + ".join(c.text for c in cells) if len(cells) <= MAX_SHOWN else \
        f"the sum of {len(cells)} rows"
    return f"{_total_or_average(operation, column + where, cells, shown)}.", rows


def _across(operation: str, question: str, rows: Sequence[Row], columns: list[str],
            numeric: list[str], label: str | None) -> tuple[str, list[Row]] | None:
    """A total or average of the numbers of the one row the question names, when it names
    no column ("the total energy spend": the row Energy, over its quarters), its columns
    that total or compare the others ("Total", "Change") left out; None when it names no
    row, or several ("What is the total number of teams?" sums no floors)."""
    named = _rows_named(question, rows, [c for c in columns if c not in numeric], set())
    if len(named) != 1:
        return None
    row = named[0]
    cells = [row.cells[c] for c in numeric
             if _has_number(row, c) and not _ROW_TOTAL.search(c) and not _COMPARED.search(c)]
    if len(cells) < 2:
        return None
    what = f"{row.caption.rstrip(':')}, {_name(row, label)}" if row.caption else _name(row, label)
    shown = " + ".join(cell.text for cell in cells)
    return f"{_total_or_average(operation, what, cells, shown)}.", [row]


def _total_or_average(operation: str, what: str, cells: Sequence[Cell], shown: str) -> str:
    """"Total Spend: 1,240 (computed: 310 + ...)", or the average, of the cells' numbers."""
    total = sum(cell.number or 0.0 for cell in cells)
    decimals = max(cell.decimals for cell in cells)
    if operation == "total":
        label = what if _ROW_TOTAL.match(what) else f"Total {what}"  # not "Total Total"
        return f"{label}: {_format(total, cells, decimals)} (computed: {shown})"
    mean = total / len(cells)
    decimals = max(decimals, 0 if mean.is_integer() else 2)
    return (f"Average {what}: {_format(mean, cells, decimals)} (computed: ({shown}) / "
            f"{len(cells)})")


def _format(value: float, inputs: Sequence[Cell], decimals: int | None = None) -> str:
    """A computed number written as its inputs are: with their most decimals (unless
    `decimals` says), grouped if any was, with their currency or unit when they all
    share it."""
    grouped = "," if any(cell.grouped for cell in inputs) else ""
    places = max(cell.decimals for cell in inputs) if decimals is None else decimals
    text = f"{abs(value):{grouped}.{places}f}"
    first = inputs[0]
    if all((c.before, c.after.strip()) == (first.before, first.after.strip()) for c in inputs):
        text = f"{first.before}{text}{first.after}"
    return f"-{text}" if value < 0 else text


def _number(row: Row, column: str) -> float:
    number = row.cells[column].number
    assert number is not None
    return number


def _has_number(row: Row, column: str) -> bool:
    return column in row.cells and row.cells[column].number is not None


def _refused(column: str, rows: Sequence[Row]) -> tuple[str, list[Row]] | None:
    """Why a column of numbers is not computed, and its rows to quote: it holds a cell
    that is not a number (text, a date), or amounts in different currencies; None if it
    is all numbers of one currency, or holds none."""
    cells = [row.cells[column] for row in rows if column in row.cells]
    bad = next((cell for cell in cells if cell.number is None), None)
    units = list(dict.fromkeys(cell.before + cell.after.strip() for cell in cells
                               if cell.kind == "amount"))
    if bad is not None and any(cell.number is not None for cell in cells):
        why = f"has a value that is not a number: “{bad.text}”"
    elif bad is None and len(units) > 1:
        why = f"holds amounts in different currencies: {' and '.join(units)}"
    else:
        return None
    return (f"The column {column} {why}; nothing is computed.",
            [row for row in rows if column in row.cells])


def _is_numeric(column: str, rows: Sequence[Row]) -> bool:
    """Whether the column's cells are numbers (an empty cell is left out when stored)."""
    cells = [row.cells[column] for row in rows if column in row.cells]
    return bool(cells) and all(cell.number is not None for cell in cells)


def _is_total_row(row: Row) -> bool:
    """Whether the row sums the others, by its first cell ("Total", "Grand total", "Year
    total", "Total 2025", "Full year", "All"):
    it is no row to compare or add."""
    return bool(_TOTAL_ROW.fullmatch(next(iter(_texts(row)), "").strip()))


def _named_column(question: str, columns: Sequence[str]) -> str | None:
    """The column whose name shares most words (stems) with the question, the words that
    ask for the computation left out ("total" names no column "Total"); None if none
    does, or if several share as many (the question is ambiguous)."""
    wanted = _words(_without_operation(question))
    scored = sorted(((len(wanted & _words(column)), column) for column in columns),
                    key=lambda pair: -pair[0])
    if not scored or not scored[0][0] or len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


def _total_column(numeric: Sequence[str]) -> str | None:
    """The one column of numbers that totals each row ("Total", "Full year"), if there is
    one: a total over rows is the sum of theirs, and one row's is quoted, not added up."""
    totals = [column for column in numeric if _ROW_TOTAL.search(column)]
    return totals[0] if len(totals) == 1 else None


def _without_operation(question: str) -> str:
    """The question without the words that ask for a computation, or say over how many
    rows ("the number of visits across all sites")."""
    for pattern in (_LARGEST, _SMALLEST, _TOTAL, _AVERAGE, _DIFFERENCE, _OVER_ROWS):
        question = pattern.sub(" ", question)
    return question


def _label_column(question: str, columns: list[str], numeric: list[str]) -> str | None:
    """The column that names a row: the one of names the question names ("Which team"),
    else the first column of names; `numeric`: the columns that name none (numbers, flags)."""
    names = [column for column in columns if column not in numeric]
    return _named_column(question, names) or (names[0] if names else None)


def _named_by(question: str, rows: Sequence[Row]) -> list[str]:
    """The columns with a cell the question names ("List all contacts at the York Site":
    the column "Site")."""
    return list(dict.fromkeys(column for row in rows for column, cell in row.cells.items()
                              if _names(question, cell.text)))


def _filtered(question: str, rows: Sequence[Row], columns: list[str],
              exclude: str | None) -> list[Row]:
    """The rows with a cell the question names ("in Lyon", "on floor 2": a number counts
    when its column is named too), or without it when the question negates it ("not based
    in Lyon"), in each column where it names some rows but not all; all rows when it names
    none."""
    kept, flags = list(rows), _flags(rows, columns)
    cells = _named_cells(question, rows, [  # a number counts where its column is named
        c for c in columns if c != exclude
        and (not _is_numeric(c, rows) or _named_column(question, [c]))],
        _words(exclude) if exclude else set())
    for column, named in cells.items():
        if named and all(_negates(question, row.cells[column].text) for row in named):
            named = [row for row in rows if row not in named]
        if column in flags and _named_column(question, [column]):  # "need a DBS check"
            named = [row for row in rows if _says_no(row, column) == _negates(question, column)]
        if named and len(named) < len(rows):
            kept = [row for row in kept if row in named]
    return kept


def _flags(rows: Sequence[Row], columns: list[str]) -> list[str]:
    """The columns that say of each row yes or no, or what kind if yes ("First aider":
    Yes, No; "DBS check": None, Basic, Enhanced): a few values, one of them a no."""
    flags = []
    for column in columns:
        values = {row.cells[column].text.strip().lower() for row in rows if column in row.cells}
        if values & _NO_CELLS and 1 < len(values) <= MAX_FLAG_VALUES:
            flags.append(column)
    return flags


def _negates(question: str, name: str) -> bool:
    """Whether the question negates a column's name or a cell's words, a negation among
    the NEGATION_SPAN words before them ("which agencies cant issue e-vouchers", "not
    based in Leeds"; the first aiders of "Who are the first aiders not based in Leeds?"
    are not negated)."""
    words = _TOKEN.findall(question.lower())
    named = stems(name)
    return any(index_term(word) in named and negated(" ".join(words[max(0, i - NEGATION_SPAN):i]))
               for i, word in enumerate(words))


def _says_no(row: Row, column: str) -> bool:
    """Whether the row's cell in a flag column is a no (or the row has none)."""
    cell = row.cells.get(column)
    return cell is None or cell.text.strip().lower() in _NO_CELLS


def _where(question: str, kept: Sequence[Row], columns: list[str], column: str | None) -> str:
    """The filter the rows were chosen by, for the headline: ", City Lyon" or ""."""
    parts = []
    for name in columns:
        values = {row.cells[name].text if name in row.cells else None for row in kept}
        value = next(iter(values)) if len(values) == 1 else None
        if name != column and value and _names(question, value):
            parts.append(f"{name} {value}")
    return f" ({', '.join(parts)})" if parts else ""


def _names(question: str, value: str) -> bool:
    """Whether the question names a cell's value: all its words, as words of the question
    (by stem: "staff cost" names "Staff costs")."""
    words = {index_term(word) for word in WORD.findall(value.lower())}
    asked = {index_term(word) for word in WORD.findall(question.lower())}
    return bool(words) and words <= asked


def _rows_named(question: str, rows: Sequence[Row], columns: Sequence[str],
                spent: set[str]) -> list[Row]:
    """The rows with a cell in one of `columns` that the question names (`_named_cells`),
    of those named in the most columns: "the annual town ticket" is the row of Annual and
    Town, not every annual ticket nor every town one."""
    named = Counter(id(row) for found in _named_cells(question, rows, columns, spent).values()
                    for row in found)
    most = max(named.values(), default=0)
    return [row for row in rows if most and named[id(row)] == most]


def _named_cells(question: str, rows: Sequence[Row], columns: Sequence[str],
                 spent: set[str]) -> dict[str, list[Row]]:
    """For each column, the rows whose cell in it the question names: all the cell's words
    (`_names`); or, when it names no cell of these columns so, the cell's first words,
    up to one that tells it from the column's other cells ("Hollins Road" names "Hollins
    Road Pool" beside "Brackley Vale Pool"; "Millrace" names "Millrace House"; "staff" no
    note "Includes staff training"). "List all contacts at Tanner Street Gym" names the
    site, not the role "Gym manager"; the words `spent` naming the column asked name no
    row in part ("the Saltmarsh Road yard's budget" names no cost line "Yard rent")."""
    fully = {column: [row for row in rows if column in row.cells
                      and _names(question, row.cells[column].text)] for column in columns}
    if any(fully.values()):
        return fully
    asked = _words(question) - spent
    told = {}
    for column in columns:
        texts = {row.cells[column].text for row in rows if column in row.cells}
        words = {text: _leading(text) for text in texts}
        named = {text for text in texts if _named_first(words[text], set().union(
            *(set(other) for each, other in words.items() if each != text)), asked)}
        told[column] = [row for row in rows if column in row.cells
                        and row.cells[column].text in named]
    return told


def _leading(text: str) -> list[str]:
    """The stems of a cell's content words, in order."""
    return [index_term(word) for word in content_words(years_as_one_word(text))]


def _named_first(words: list[str], others: set[str], asked: set[str]) -> bool:
    """Whether the question holds the cell's first `words` up to one no other cell holds
    that is no number (a code of letters and digits is a name: "Q2" names "Q2 (July to
    September)")."""
    for word in words:
        if word not in asked:
            return False
        if word not in others and (not _is_number(word) or _CODE.fullmatch(word)):
            return True
    return False


def _named_columns(question: str, columns: Sequence[str]) -> list[str]:
    """The columns the question names by a word that tells each from the others (its
    name without what is bracketed: "Q1 (Apr-Jun)" is "Q1"; a span of years one word:
    "22/23" names "2022/23"), in the order it names them."""
    keys = [_words(_BRACKETED.sub(" ", column)) for column in columns]
    asked = [index_term(word) for word in WORD.findall(years_as_one_word(question).lower())]
    named = []
    for i, column in enumerate(columns):
        telling = keys[i] - set().union(*keys[:i], *keys[i + 1:])
        at = next((n for n, word in enumerate(asked) if word in telling), None)
        if at is not None:
            named.append((at, column))
    return [column for _, column in sorted(named)]


def _place(question: str, row: Row, rows: Sequence[Row]) -> int:
    """Where the question first says a word of the row's cells that the other `rows` lack
    (its number of words if it says none): "Millrace" of "Millrace House"."""
    own = _words(" ".join(_texts(row))) - _words(" ".join(
        text for other in rows if other is not row for text in _texts(other)))
    asked = [index_term(word) for word in WORD.findall(years_as_one_word(question).lower())]
    return next((n for n, word in enumerate(asked) if word in own), len(asked))


def _words(text: str) -> set[str]:
    """The stems of the text's content words, a span of years one word ("2024-25")."""
    return stems(years_as_one_word(text))


def _is_number(word: str) -> bool:
    return any(char.isdigit() for char in word)


def _name(row: Row, label: str | None) -> str:
    return row.cells[label].text if label is not None and label in row.cells else _texts(row)[0]


def _texts(row: Row) -> list[str]:
    """The row's cells' texts, in order."""
    return [cell.text for cell in row.cells.values()]


def _named(row: Row) -> set[str]:
    """The words of the row's document's title and file name ("budget_2026.xlsx": budget,
    2026), which name its tables too."""
    return _words(f"{row.hit.title} {re.sub(r'[_.]+', '-', Path(row.hit.source).stem)}")
