"""Table answers: a question that asks for a value over a table's rows (largest, count,
total, average, difference) or for its rows (a list) is computed from every row of the
table, the value first and labelled as computed, each row used quoted and cited.

The rules are tested on hand-written rows (their cells parsed as a loader parses them)
without the model; the last tests ask a real index of a CSV, a spreadsheet and a Markdown
table."""

from pathlib import Path

import pytest

from qa import Index
from qa.answering.tables import (
    NOT_STORED,
    Row,
    choose_table,
    compute,
    question_operation,
    the_other,
)
from qa.loaders.cells import Table, TableRow, parse_cell
from qa.loaders.tables import row_fields
from qa.search import Hit
from tests.helpers import index_of

BUDGET = [
    "Budget 2025: Team: Design; City: Lyon; Spend: 310.",
    "Budget 2025: Team: Finance; City: Paris; Spend: 290.",
    "Budget 2025: Team: Support; City: Lyon; Spend: 330.",
    "Budget 2025: Team: Sales; City: Nantes; Spend: 310.",
]


def _rows(lines: list[str], source: str = "budget.xlsx", table: int = 0) -> list[Row]:
    """Rows as a loader stores them, from lines written as `table_lines` writes them."""
    text = "\n".join(lines)
    hit = Hit(1, 1, source, "", text, 0, len(text), None, 1.0, 0.5)
    rows, start = [], 0
    for line in lines:
        fields = row_fields(line)
        assert fields is not None
        cells = {name: parse_cell(value) for name, value in fields[1]}
        rows.append(Row(hit, start, start + len(line), fields[0], cells, table))
        start += len(line) + 1
    return rows


@pytest.mark.parametrize(("question", "operation"), [
    ("Which team spent the most?", "largest"),
    ("Which city has the lowest spend?", "smallest"),
    ("How many teams are in Lyon?", "count"),
    ("How many staff hold a forklift licence?", "count"),  # any verb with an object
    ("What is the total spend?", "total"),
    ("What is the average spend per team?", "average"),
    ("How much more did Support spend than Finance?", "difference"),
    ("Which teams are in Lyon?", "list"),
    ("What was the Lyon team's spend in 2024?", None),  # "was" is no plural
    ("Who leads the Design team?", None),
    ("When does the office open?", None),
])
def test_the_operation_a_question_asks_for(question, operation):
    assert question_operation(question) == operation


STAFF = ["Staff: Name: Ada Lind; Site: Leeds; First aider: Yes; DBS check: Enhanced.",
         "Staff: Name: Bo Berg; Site: Leeds; First aider: No; DBS check: None.",
         "Staff: Name: Cy Moss; Site: York; First aider: Yes; DBS check: Basic.",
         "Staff: Name: Di Park; Site: Leeds; First aider: Yes; DBS check: None."]


def test_a_count_of_those_a_yes_or_no_column_says_yes_to():
    headline, used = compute("count", "How many staff hold a DBS check?", _rows(STAFF))

    assert headline.startswith("Staff: 2 (computed")
    assert [row.cells["Name"].text for row in used] == ["Ada Lind", "Cy Moss"]


@pytest.mark.parametrize(("question", "names"), [
    ("who are the first aiders at Leeds?", ["Ada Lind", "Di Park"]),  # Yes, and in Leeds
    ("which staff need a DBS check?", ["Ada Lind", "Cy Moss"]),  # any but None
    ("which staff dont need a DBS check", ["Bo Berg", "Di Park"]),  # typed without "'"
    ("Who are the first aiders who are not managers?", ["Ada Lind", "Cy Moss", "Di Park"]),
    ("Who are the first aiders not based in Leeds?", ["Cy Moss"]),  # a negated cell
])
def test_a_list_keeps_the_rows_a_yes_or_no_column_says_yes_to(question, names):
    headline, used = compute("list", question, _rows(STAFF))

    assert [row.cells["Name"].text for row in used] == names
    assert headline.startswith("Name")


@pytest.mark.parametrize(("cell", "kind", "value", "shown"), [
    ("1,240", "number", 1240.0, ("", "")),
    ("€1,240.50", "amount", 1240.5, ("€", "")),
    ("300 EUR", "amount", 300.0, ("", " EUR")),
    ("12%", "percent", 12.0, ("", "%")),
    ("3.5 kg", "number", 3.5, ("", " kg")),
    ("-40", "number", -40.0, ("", "")),
    ("(300)", "number", -300.0, ("", "")),
    ("$ 2 000", "amount", 2000.0, ("$", "")),
])
def test_a_cell_is_read_as_a_number_with_its_unit_kept(cell, kind, value, shown):
    parsed = parse_cell(cell)

    assert (parsed.kind, parsed.number, (parsed.before, parsed.after)) == (kind, value, shown)


@pytest.mark.parametrize(("cell", "kind"), [
    ("Clara Osei", "text"), ("2025-03-01", "date"), ("4 to 6", "text"), ("", "text"),
    ("Floor 2B", "text"), ("3 March 2026", "date"), ("2025-02-30", "text"),
    ("P-1", "text"), ("Q3", "text"), ("No. 12", "text")])  # codes, not numbers
def test_a_cell_that_is_not_one_number_is_not_read_as_one(cell, kind):
    assert parse_cell(cell).number is None
    assert parse_cell(cell).kind == kind


def test_the_total_is_computed_from_every_row_and_shows_its_cells():
    headline, used = compute("total", "What is the total spend?", _rows(BUDGET))

    assert headline == "Total Spend: 1240 (computed: 310 + 290 + 330 + 310)."
    assert len(used) == 4


def test_a_value_the_question_names_chooses_the_rows():
    rows = _rows(BUDGET)

    headline, used = compute("total", "What is the total spend in Lyon?", rows)

    assert headline == "Total Spend (City Lyon): 640 (computed: 310 + 330)."
    assert [row.cells["Team"].text for row in used] == ["Design", "Support"]


def test_which_is_largest_names_the_row_and_its_value():
    headline, used = compute("largest", "Which team spent the most?", _rows(BUDGET))

    assert headline.startswith("Support: Spend 330, the largest of 4 rows")
    assert "computed" in headline
    assert len(used) == 4  # every row compared is cited


def test_a_superlative_that_names_a_measure_does_not_take_another_column():
    """"Heaviest" asks for a weight, "the minimum term" for a term: the only column of
    numbers, a price, is not it."""
    rows = _rows(["Parcels: Parcel: P-1; Destination: Oslo; Price (€): 14.50.",
                  "Parcels: Parcel: P-2; Destination: Bergen; Price (€): 9.80.",
                  "Parcels: Parcel: P-3; Destination: Tromsø; Price (€): 21.00."])

    assert compute("largest", "Which parcel is the heaviest?", rows) is None
    assert compute("smallest", "What's the minimum term for a parcel?", rows) is None
    assert compute("largest", "Which parcel costs the most?", rows)[0].startswith(
        "P-3: Price (€) 21.00, the largest")


def test_a_tie_names_every_row_that_holds_the_value():
    headline, _ = compute("smallest", "Which team spent the least?",
                          _rows(BUDGET[1:2] + BUDGET[3:] + [BUDGET[1].replace("Finance",
                                                                              "Legal")]))

    assert headline.startswith("Finance and Legal: Spend 290")


def test_how_many_counts_the_rows_the_question_names():
    headline, used = compute("count", "How many teams are in Lyon?", _rows(BUDGET))

    assert headline.startswith("Teams (City Lyon): 2 (computed")
    assert len(used) == 2


@pytest.mark.parametrize("question", [
    "How many seats will the new electric buses have?",  # the rows are fuel cards
    "How many weeks of fuel card cover do the buses get?",
])
def test_rows_are_never_counted_for_what_they_are_not(question):
    cards = _rows(["Fuel cards: Card: WF-1001; Vehicles: Electric buses; Depot: Ashby.",
                   "Fuel cards: Card: WF-1002; Vehicles: Double-deck buses; Depot: Ashby.",
                   "Fuel cards: Card: WF-1003; Vehicles: Coaches; Depot: Holtby."],
                  source="fuel_cards.csv")

    assert compute("count", question, cards) is None
    assert compute("count", "How many cards are at Ashby?", cards)[0].startswith(
        "Cards (Depot Ashby): 2 (computed")


def test_how_many_of_a_column_of_numbers_is_not_a_count():
    rows = _rows(["Offices: Office: North; Staff: 12.", "Offices: Office: South; Staff: 30."])

    assert compute("count", "How many staff are in the North office?", rows) is None


def test_the_difference_is_the_first_named_row_minus_the_second():
    headline, used = compute("difference", "How much more did Support spend than Finance?",
                             _rows(BUDGET))

    assert headline == "Spend, Support minus Finance: 40 (computed: 330 − 290)."
    assert [row.cells["Team"].text for row in used] == ["Support", "Finance"]


def test_the_average_keeps_the_currency_and_thousand_separators():
    rows = _rows(["Costs: Item: Rent; Cost: €1,200.", "Costs: Item: Power; Cost: €2,450.",
                  "Costs: Item: Water; Cost: €950."])

    headline, _ = compute("average", "What is the average cost?", rows)

    assert headline == "Average Cost: €1,533.33 (computed: (€1,200 + €2,450 + €950) / 3)."


def test_a_list_question_gives_the_named_column_of_the_rows_it_names():
    headline, used = compute("list", "Which teams are in Lyon?", _rows(BUDGET))

    assert headline == "Team (City Lyon): Design, Support."
    assert len(used) == 2


def test_a_question_that_names_no_column_of_the_table_is_not_computed():
    rows = _rows(["Staff: Name: Ada; Team: Design; Room: 4.", "Staff: Name: Bo; Team: Sales; "
                  "Room: 2.", "Staff: Name: Cy; Team: Sales; Desk: 7."])

    assert compute("list", "List the places where staff may park.", rows) is None
    assert compute("total", "What is the total?", rows) is None  # two columns of numbers


def test_the_table_chosen_is_the_one_whose_words_the_question_uses():
    rows = _rows(BUDGET) + _rows(["Lunch: Day: Monday; Dish: Soup.",
                                  "Lunch: Day: Friday; Dish: Fish."], "menu.html", 1)

    assert choose_table("Which dish is served on Friday?", rows) == ("menu.html", 1)
    assert choose_table("What is the total spend?", rows) == ("budget.xlsx", 0)
    assert choose_table("Who won the 1998 chess championship?", rows) is None


def test_a_table_that_holds_only_the_questions_numbers_is_not_the_one_asked_about():
    income = _rows(["Income: Line: Donations; 2024-25: 120,400; 2023-24: 98,000.",
                    "Income: Line: Grants; 2024-25: 60,000; 2023-24: 55,000."], "figures.xlsx")

    assert choose_table("How many kids did we feed altogether in 2024/25?", income) is None
    assert choose_table("What were total donations in 2024-25?", income) == ("figures.xlsx", 0)


# -- through a real index -------------------------------------------------------------

OFFICES_CSV = """Office,City,Staff,Spend
North,Lyon,12,"€1,200"
South,Paris,30,"€2,450"
East,Lyon,8,€950
West,Nantes,15,"€1,100"
"""

MEMBERS_CSV = """Branch,2022,2023
Derby,30,27
Hull,12,19
Ely,8,9
"""

PROJECTS_MD = """# Projects

The projects of the year are listed below, with their budgets.

## Project budgets

| Project | Owner | Budget |
|---------|-------|-------:|
| Harbour | Ada Moreau | 4,000 |
| Library | Felix Grant | 2,500 |
| Museum | Nora Quist | 6,250 |

Budgets are reviewed in March.
"""


def _sheet(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Fleet"
    for row in [("Vehicle", "Depot", "Kilometres"), ("Van 1", "Leeds", 12000),
                ("Van 2", "York", 8500), ("Truck", "Leeds", 30250)]:
        sheet.append(row)
    book.save(path)
    return path


@pytest.fixture(scope="module")
def tables_index(tmp_path_factory):
    index = index_of(tmp_path_factory.mktemp("tables"), {
        "offices.csv": OFFICES_CSV, "projects.md": PROJECTS_MD, "members.csv": MEMBERS_CSV,
    }, lambda documents: _sheet(documents / "fleet.xlsx"))
    yield index
    index.close()


def _assert_cited_exactly(answer):
    for citation in answer.citations:
        hit = citation.hit
        assert hit.text[citation.start - hit.start:citation.end - hit.start] == citation.quote


@pytest.mark.parametrize(("question", "first", "source", "rows"), [
    ("What is the total spend?", "Total Spend: €5,700 (computed: €1,200 + €2,450 + €950 + "
     "€1,100).", "offices.csv", 4),
    ("How many offices are in Lyon?", "Offices (City Lyon): 2 (computed", "offices.csv", 2),
    ("Which project has the largest budget?", "Museum: Budget 6,250, the largest of 3 rows",
     "projects.md", 3),
    ("How many more kilometres did the Truck drive than Van 1?",
     "Kilometres, Truck minus Van 1: 18250 (computed: 30250 − 12000).", "fleet.xlsx", 2),
    ("Which branch grew the most from 2022 to 2023?",
     "Hull: 2022 12 to 2023 19, +7; it grew the most of 3 rows (computed).", "members.csv", 3),
])
def test_a_computed_answer_through_the_index_leads_with_the_value_and_cites_each_row(
        tables_index, question, first, source, rows):
    answer = tables_index.ask(question)

    assert answer.found
    assert answer.text.startswith(first)
    assert len(answer.citations) == rows
    assert {Path(c.hit.source).name for c in answer.citations} == {source}
    _assert_cited_exactly(answer)


def test_a_question_about_one_row_is_still_quoted(tables_index):
    answer = tables_index.ask("How many staff does the East office have?")

    assert "computed" not in answer.text
    assert answer.text.startswith("8. Office: East; Staff: 8. [1]")  # the cell, not Lyon's spend
    first = answer.citations[0]
    assert first.quote == "Office: East; Staff: 8."
    whole = first.hit.text[first.start - first.hit.start:first.end - first.hit.start]
    assert whole == "Office: East; City: Lyon; Staff: 8; Spend: €950."  # the viewer marks the row


def test_a_table_that_holds_few_of_the_question_words_is_not_chosen():
    menu = _rows(["Lunch: Day: Monday; Dish: Soup.", "Lunch: Day: Friday; Dish: Fish."])

    assert choose_table("How many days of paid leave do staff have?", menu) is None


def test_a_total_of_no_named_column_is_not_computed_from_the_only_one():
    rows = _rows(["Offices: Team: Design; Floor: 4.", "Offices: Team: Sales; Floor: 2."])

    assert compute("total", "What is the total number of teams?", rows) is None
    assert compute("largest", "Which team is on the top floor?", rows)[0].startswith("Design")


SPEND = [
    "Spend 2026: Category: Energy; Q1: 12,300; Q2: 10,100; Q3: 9,400; Q4: 13,800.",
    "Spend 2026: Category: Clay; Q1: 8,400; Q2: 9,100; Q3: 8,800; Q4: 9,600.",
]
CONTACTS = [
    "Name: Ada Berg; Role: Packer; Site: Leeds.",
    "Name: Bo Chen; Role: Driver; Site: Leeds.",
    "Name: Cy Diaz; Role: Manager; Site: York.",
]


def test_a_total_over_the_one_row_named_sums_its_numbers():
    headline, used = compute("total", "What is the total energy spend for 2026?", _rows(SPEND))

    assert headline == ("Total Spend 2026, Energy: 45,600 "
                        "(computed: 12,300 + 10,100 + 9,400 + 13,800).")
    assert [row.cells["Category"].text for row in used] == ["Energy"]
    assert compute("total", "What is the total spend for 2026?", _rows(SPEND)) is None


def test_the_document_name_names_its_table_and_the_rows_counted_or_listed():
    rows = _rows(CONTACTS, source="/office/contacts.csv")
    question = "How many people in the contact list are based in Leeds?"

    assert choose_table(question, rows) == ("/office/contacts.csv", 0)
    assert compute("count", question, rows)[0].startswith("People (Site Leeds): 2 ")
    assert compute("list", "List all contacts based in Leeds.", rows)[0] == \
        "Name (Site Leeds): Ada Berg, Bo Chen."
    assert question_operation("Which teams work in Leeds?") == "list"
    assert question_operation("What types of clay are there?") is None


def test_a_column_whose_cell_the_question_names_chooses_the_rows_not_what_is_listed():
    rows = _rows([line.replace("Site: Leeds", "Site: Leeds Site").replace(
        "Site: York", "Site: York Site") for line in CONTACTS], source="/office/contacts.csv")

    assert compute("list", "List all contacts at the Leeds Site", rows)[0] == \
        "Name (Site Leeds Site): Ada Berg, Bo Chen."
    assert question_operation("What extras are charged on top of the weekly fee?") != "largest"


def test_a_list_from_a_table_of_a_document_the_question_names_though_others_match_more(
        tmp_path):
    notices = {f"notice_{n}.md": f"# Notice {n}\n\nAll contacts at York: the York desk lists "
               f"contacts at York for week {n}, and York contacts ring it.\n" for n in range(8)}
    index = index_of(tmp_path, {
        "contacts.csv": "Name,Role,Site\nAda Berg,Packer,Leeds\nBo Chen,Driver,York\n"
                        "Cy Diaz,Manager,York\n", **notices})
    answer = index.ask("List all contacts at York")
    counted = index.ask("How many people are on the contacts list at York?")
    index.close()

    assert answer.text.startswith("Name (Site York): Bo Chen, Cy Diaz.")
    assert counted.text.startswith("People (Site York): 2 (computed: a count")


# Tables the rules were not written with: a cell holding "; ", a totals row, a column of
# numbers with a word in it, an operation word that is also a column's name, two columns
# the question names as much, and a filter that leaves one row.

def test_a_cell_holding_a_semicolon_stays_one_cell_and_its_row_is_counted():
    from qa.loaders.base import TextBudget
    from qa.loaders.tables import table_lines

    budget = TextBudget(10_000)
    lines = table_lines(["Item", "Deposit"], [["Tent", "120"], ["Stove; gas", "45"],
                                              ["Kayak", "300"]], "Kit hire", budget=budget)
    [(table, _)] = budget.tables
    hit = Hit(1, 1, "kit.csv", "", "\n".join(lines), 0, 100, None, 1.0, 0.5)
    rows = [Row(hit, 0, 0, table.caption, dict(row.cells)) for row in table.rows]

    assert lines[1] == "Kit hire: Item: Stove, gas; Deposit: 45."
    assert {name: cell.text for name, cell in rows[1].cells.items()} == {
        "Item": "Stove; gas", "Deposit": "45"}
    headline, used = compute("total", "What is the total deposit?", rows)
    assert headline == "Total Deposit: 465 (computed: 120 + 45 + 300)."
    assert len(used) == 3


def test_a_totals_row_is_neither_compared_nor_added():
    rows = _rows(["Crops: Field: North; Tonnes: 40.", "Crops: Field: East; Tonnes: 25.",
                  "Crops: Field: Total; Tonnes: 65."])

    assert compute("largest", "Which field gave the most tonnes?", rows)[0].startswith(
        "North: Tonnes 40, the largest of 2 rows")
    assert compute("total", "What is the total tonnage in tonnes?", rows)[0] == \
        "Total Tonnes: 65 (computed: 40 + 25)."
    rows = _rows(["Crops: Field: North; Tonnes: 40.", "Crops: Field: East; Tonnes: 25.",
                  "Crops: Field: Year total; Tonnes: 65."])
    assert compute("total", "What is the total tonnage in tonnes?", rows)[0] == \
        "Total Tonnes: 65 (computed: 40 + 25)."


def test_a_column_of_numbers_with_a_word_in_it_is_not_computed_without_it():
    rows = _rows(["Fees: Course: Pottery; Fee: 80.", "Fees: Course: Drawing; Fee: free.",
                  "Fees: Course: Weaving; Fee: 95."])

    headline, used = compute("average", "What is the average fee?", rows)

    assert headline == "The column Fee has a value that is not a number: “free”; " \
                       "nothing is computed."
    assert "computed:" not in headline and len(used) == 3


def test_a_word_asking_for_the_computation_names_no_column():
    rows = _rows(["Stock: Shop: Leeds; Total: 12; Sold: 5.",
                  "Stock: Shop: York; Total: 30; Sold: 9."])

    headline, _ = compute("largest", "Which shop sold the most units in total?", rows)

    assert headline.startswith("York: Sold 9, the largest of 2 rows")


def test_two_columns_the_question_names_as_much_are_not_guessed_between():
    rows = _rows(["Rooms: Room: A; Seats standing: 40; Seats seated: 20.",
                  "Rooms: Room: B; Seats standing: 60; Seats seated: 35."])

    assert compute("total", "How many seats are there in total?", rows) is None


def test_a_count_that_leaves_one_row_quotes_it_instead():
    rows = _rows(["Staff: Team: Sales; Year: 2023; Headcount: 14.",
                  "Staff: Team: Sales; Year: 2024; Headcount: 16.",
                  "Staff: Team: Legal; Year: 2023; Headcount: 3."])

    assert compute("count", "How many people were in Legal in 2023?", rows) is None


@pytest.mark.parametrize(("question", "expected"), [
    ("Which branch grew the most from 2022 to 2023?",
     "Hull: 2022 12 to 2023 19, +7; it grew the most of 3 rows (computed)."),
    ("Which branch fell the most between 2022 and 2023?",
     "Derby: 2022 30 to 2023 27, -3; it fell the most of 3 rows (computed)."),
    ("Which branch had the biggest percentage increase from 2022 to 2023?",
     "Hull: 2022 12 to 2023 19, +58.3%; it grew the most of 3 rows (computed)."),
])
def test_a_change_from_one_column_to_another_is_computed_per_row(question, expected):
    rows = _rows(["Members: Branch: Derby; 2022: 30; 2023: 27.",
                  "Members: Branch: Hull; 2022: 12; 2023: 19.",
                  "Members: Branch: Ely; 2022: 8; 2023: 9."])

    assert question_operation(question) == "change"
    headline, used = compute("change", question, rows)
    assert headline == expected
    assert len(used) == 3


def test_a_change_that_names_one_column_is_not_computed():
    rows = _rows(["Members: Branch: Derby; Members: 30.", "Members: Branch: Hull; Members: 12."])

    assert compute("change", "Which branch grew the most?", rows) is None


INCOME = ["Income: Site: Hollins Road Pool; Q1 (Apr-Jun): 212,400; Q3 (Oct-Dec): 187,300; "
          "Total: 399,700; Change: +4%.",
          "Income: Site: Brackley Vale Pool; Q1 (Apr-Jun): 98,000; Q3 (Oct-Dec): 91,500; "
          "Total: 189,500; Change: -2%."]


@pytest.mark.parametrize(("question", "expected"), [
    ("How much more income is budgeted at Hollins Road in Q1 than in Q3?",  # a name in part
     "Hollins Road Pool, Q1 (Apr-Jun) minus Q3 (Oct-Dec): 25,100 (computed: 212,400 − 187,300)."),
    ("By how much did Brackley Vale's income fall from Q1 to Q3?",
     "Brackley Vale Pool, Q3 (Oct-Dec) minus Q1 (Apr-Jun): -6,500 (computed: 91,500 − 98,000)."),
])
def test_a_difference_between_two_columns_of_the_one_row_named(question, expected):
    assert question_operation(question) == "difference"
    headline, used = compute("difference", question, _rows(INCOME))

    assert headline == expected
    assert [row.cells["Site"].text for row in used] == [expected.split(",")[0]]


def test_a_difference_between_rows_named_in_part_is_in_the_order_named():
    rows = _rows(["Budget: Hall: Hawthorn Hall; Maintenance: 280,000.",
                  "Budget: Hall: Millrace House; Maintenance: 310,000.",
                  "Budget: Hall: Quarry Lane Court; Maintenance: 145,000."])

    headline, _ = compute("difference", "How much more maintenance at Millrace than at "
                                        "Hawthorn?", rows)

    assert headline == ("Maintenance, Millrace House minus Hawthorn Hall: 30,000 "
                        "(computed: 310,000 − 280,000).")


def test_a_row_is_named_by_its_code_as_a_quarter_is():
    rows = _rows(["Visitors: Quarter: Q1 (April to June); Corn Exchange: 12,905.",
                  "Visitors: Quarter: Q2 (July to September); Corn Exchange: 17,240.",
                  "Visitors: Quarter: Q4 (January to March); Corn Exchange: 8,715."])
    question = "How many more visitors did the Corn Exchange get in Q2 than in Q4?"

    headline, _ = compute(question_operation(question), question, rows)

    assert headline == ("Corn Exchange, Q2 (July to September) minus Q4 (January to March): "
                        "8,525 (computed: 17,240 − 8,715).")


def test_a_change_of_the_row_named_in_two_columns_over_a_table_of_two_years():
    rows = _rows(["Season tickets: Ticket: Monthly; Zone: Town; 2024-25 price: £54.00; "
                  "2025-26 price: £56.00.",
                  "Season tickets: Ticket: Annual; Zone: Town; 2024-25 price: £540.00; "
                  "2025-26 price: £565.00.",
                  "Season tickets: Ticket: Annual; Zone: All zones; 2024-25 price: £720.00; "
                  "2025-26 price: £750.00."])

    for question in ("How much did the annual town ticket go up?",
                     "By how much does the annual town season ticket go up for 2025-26?"):
        headline, used = compute(question_operation(question), question, rows)

        assert headline == ("Annual, 2025-26 price minus 2024-25 price: £25.00 "
                            "(computed: £565.00 − £540.00).")
        assert used == [rows[1]]  # Annual and Town: not every annual ticket nor every town one


def test_a_change_of_one_row_between_years_written_short():
    rows = _rows(["Fees: Department: Family; 2022/23: £274,000; 2023/24: £318,000.",
                  "Fees: Department: Probate; 2022/23: £190,000; 2023/24: £201,000."])
    question = "how much did family fee income grow from 22/23 to 23/24?"

    headline, _ = compute(question_operation(question), question, rows)

    assert headline == "Family, 2023/24 minus 2022/23: £44,000 (computed: £318,000 − £274,000)."


def test_a_row_with_its_own_total_is_quoted_not_added_up_again():
    rows = _rows(INCOME)

    assert compute("total", "What is Hollins Road's total income?", rows) is None
    headline, used = compute("total", "What is the total income of both pools?", rows)
    assert headline == "Total: 589,200 (computed: 399,700 + 189,500)."
    assert len(used) == 2


def test_an_average_over_a_row_leaves_out_its_total_and_change():
    headline, _ = compute("average", "What is the average income at Hollins Road?",
                          _rows(INCOME))

    assert headline.startswith("Average Income, Hollins Road Pool: 199,850 ")


def test_a_row_is_named_in_part_only_when_no_cell_is_named_whole():
    rows = _rows(["Contacts: Name: Ada Berg; Role: Gym manager; Site: Tanner Street Gym.",
                  "Contacts: Name: Bo Chen; Role: Lifeguard; Site: Tanner Street Gym.",
                  "Contacts: Name: Cy Diaz; Role: Lifeguard; Site: Hollins Road Pool."],
                 source="contacts.csv")

    headline, _ = compute("list", "List all contacts at Tanner Street Gym", rows)
    assert headline == "Name (Site Tanner Street Gym): Ada Berg, Bo Chen."
    headline, _ = compute("list", "List all contacts at Hollins Road", rows)
    assert headline == "Name: Cy Diaz."
    headline, _ = compute("list", "List all contacts at Tanner Street", rows)  # two rows
    assert headline == "Name: Ada Berg, Bo Chen."


def test_the_words_naming_the_column_asked_name_no_row():
    rows = _rows(["Budget: Cost line: Fuel; Tanners Row Yard: 96,000; Saltmarsh Road Yard: 41,000.",
                  "Budget: Cost line: PPE; Tanners Row Yard: 9,800; Saltmarsh Road Yard: 4,100.",
                  "Budget: Cost line: Yard rent; Tanners Row Yard: 48,000; "
                  "Saltmarsh Road Yard: 27,500."])

    headline, _ = compute("total", "What's the total budget for the Saltmarsh Road yard?", rows)

    assert headline == "Total Saltmarsh Road Yard: 72,600 (computed: 41,000 + 4,100 + 27,500)."


def test_an_average_the_table_states_as_a_column_is_not_averaged_again():
    rows = _rows(["Estates: Estate: Millbrook; Average days to relet: 31.",
                  "Estates: Estate: Harrow Fields; Average days to relet: 44."])

    assert compute("average", "What is the average days to relet across all estates?",
                   rows) is None


@pytest.mark.parametrize(("sites", "pairs"), [
    (["Kettlebrook Depot", "Alderwick Hub"], [("Kettlebrook Depot", "Alderwick Hub")]),
    (["Kettlebrook Depot", "Alderwick Hub", "Farm office"], []),  # "the other" of three
    (["Alderwick Hub", "Ashby Lane"], []),  # Kettlebrook is neither
])
def test_the_other_of_two_is_the_other_value_of_a_column_of_two(sites, pairs):
    assert the_other("Kettlebrook", [_sites(sites)]) == pairs


def test_tables_that_name_the_other_at_length_agree_when_each_opens_with_the_shortest():
    longer = _sites(["Alderwick Hub, 3 Chapel Yard", "Kettlebrook"])

    assert the_other("Kettlebrook", [_sites(["Kettlebrook Depot", "Alderwick Hub"]),
                                     longer]) == [("Kettlebrook", "Alderwick Hub, 3 Chapel Yard"),
                                                  ("Kettlebrook Depot", "Alderwick Hub")]
    assert the_other("Kettlebrook", [_sites(["Kettlebrook Depot", "Ashby Lane"]),
                                     longer]) == []  # they disagree


def _sites(sites: list[str]) -> Table:
    return Table("Sites", ("Site", "Phone"), tuple(
        TableRow((("Site", parse_cell(site)), ("Phone", parse_cell(f"0163 {n}"))))
        for n, site in enumerate(sites)))


def test_a_table_lacking_a_year_or_the_thing_asked_is_not_chosen():
    rows = _rows(["Revenue (£000): Department: Rooms; 2023: 1,840; 2025 target: 2,250.",
                  "Revenue (£000): Department: Spa; 2023: 600; 2025 target: 700."])

    assert choose_table("What was the total revenue in 2022?", rows) is None
    assert choose_table("What average daily rate are we targeting for 2025?", rows) is None
    assert choose_table("What was the total revenue across all departments in 2023?",
                        rows) == ("budget.xlsx", 0)


# -- tables the code has never seen, through a real index -------------------------------
# A CSV whose cells hold "; " and quoted commas, a spreadsheet whose cells are formatted
# (a date, a currency, a percentage), and a column of numbers with a word in it.

KIT_CSV = '''Item,Notes,Deposit,Returned
Tent,"Poles, pegs; groundsheet","1,200",2026-03-01
Stove; gas,"Burner, 2 rings",45,2026-03-04
Kayak,"Paddle; spray deck, helmet",300.50,2026-03-09
'''

FEES_CSV = """Course,Tutor,Fee
Pottery,Ines Baro,80
Drawing,Tom Reyes,free
Weaving,Ola Nagy,95
"""


def _accounts(path: Path) -> Path:
    """A workbook whose cells Excel shows formatted: a date, dollars, a percentage."""
    from datetime import date

    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Accounts"
    sheet.append(["Account", "Opened", "Balance", "Rate"])
    for row in [("Savings", date(2024, 1, 15), 1234.5, 0.025),
                ("Checking", date(2023, 6, 1), 310.25, 0.001),
                ("Reserve", date(2025, 2, 3), 5000, 0.0375)]:
        sheet.append(row)
    for n in range(2, 5):
        sheet.cell(n, 3).number_format = '"$"#,##0.00'
        sheet.cell(n, 4).number_format = "0.00%"
    book.save(path)
    return path


@pytest.fixture(scope="module")
def unseen_index(tmp_path_factory):
    index = index_of(tmp_path_factory.mktemp("unseen"), {
        "kit.csv": KIT_CSV, "fees.csv": FEES_CSV,
    }, lambda documents: _accounts(documents / "accounts.xlsx"))
    yield index
    index.close()


@pytest.mark.parametrize(("question", "first", "source", "rows"), [
    ("What is the total deposit for the kit?",
     "Total Deposit: 1,545.50 (computed: 1,200 + 45 + 300.50).", "kit.csv", 3),
    ("How many items are in the kit?", "Items: 3 (computed: a count of the rows below).",
     "kit.csv", 3),
    ("Which item has the largest deposit?", "Tent: Deposit 1,200, the largest of 3 rows",
     "kit.csv", 3),
    ("What is the total balance of the accounts?",
     "Total Balance: $6,544.75 (computed: $1,234.50 + $310.25 + $5,000.00).",
     "accounts.xlsx", 3),
    ("Which account has the highest rate?", "Reserve: Rate 3.75%, the largest of 3 rows",
     "accounts.xlsx", 3),
    ("What is the average fee?",
     "The column Fee has a value that is not a number: “free”; nothing is computed.",
     "fees.csv", 3),
])
def test_tables_never_seen_are_computed_from_their_stored_cells(
        unseen_index, question, first, source, rows):
    answer = unseen_index.ask(question)

    assert answer.found
    assert answer.text.startswith(first), answer.text
    assert len(answer.citations) == rows
    assert {Path(c.hit.source).name for c in answer.citations} == {source}
    _assert_cited_exactly(answer)


def test_a_cell_with_a_semicolon_is_stored_whole_and_its_row_quoted_as_its_sentence(
        unseen_index):
    answer = unseen_index.ask("Which item has the largest deposit?")
    kit = next(d.path for d in unseen_index.documents() if d.path.endswith("kit.csv"))
    [table] = unseen_index.backend.document_tables(kit)

    assert [row.cells[0][1].text for row in table.rows] == ["Tent", "Stove; gas", "Kayak"]
    assert [c.quote for c in answer.citations][1] == (
        "Item: Stove, gas; Notes: Burner, 2 rings; Deposit: 45; Returned: 2026-03-04.")


def test_a_formatted_sheet_stores_dates_amounts_and_percentages_as_such(unseen_index):
    accounts = next(d.path for d in unseen_index.documents() if d.path.endswith(".xlsx"))
    [table] = unseen_index.backend.document_tables(accounts)
    cells = dict(table.rows[0].cells)

    assert table.caption == "Accounts"
    assert (cells["Opened"].kind, cells["Opened"].value) == ("date", "2024-01-15")
    assert (cells["Balance"].kind, cells["Balance"].number, cells["Balance"].before) == (
        "amount", 1234.5, "$")
    assert (cells["Rate"].kind, cells["Rate"].number, cells["Rate"].text) == (
        "percent", 2.5, "2.50%")


def test_amounts_in_two_currencies_are_not_added():
    rows = _rows(["Bills: Supplier: Acme; Amount: €120.", "Bills: Supplier: Bolt; Amount: $80."])

    headline, used = compute("total", "What is the total amount?", rows)

    assert headline == ("The column Amount holds amounts in different currencies: € and $; "
                        "nothing is computed.")
    assert len(used) == 2


def test_an_index_of_schema_4_quotes_its_table_rows_until_rebuilt(tmp_path):
    """Its tables have no stored cells: the upgrade does not guess them from the
    sentences, so a table question quotes the rows under a notice, and once rebuilt is
    computed."""
    import sqlite3
    from contextlib import closing

    from qa.backends.sqlite.backend import DATABASE

    docs, path = tmp_path / "docs", tmp_path / "index"
    docs.mkdir()
    (docs / "kit.csv").write_text(KIT_CSV, encoding="utf-8")
    Index.build([docs], path=path).close()
    with closing(sqlite3.connect(path / DATABASE)) as db:  # as qa of schema 4 left it
        db.execute("ALTER TABLE documents DROP COLUMN tables")
        db.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
        db.commit()
    question = "What is the total deposit for the kit?"

    with closing(Index.open(path)) as index:
        old = index.ask(question)
        stored = index.backend.document_tables(str(docs / "kit.csv"))
    Index.rebuild([docs], path)
    with closing(Index.open(path)) as index:
        rebuilt = index.ask(question)

    assert stored is None
    assert old.text.startswith(NOT_STORED) and "(computed" not in old.text
    assert [c.quote.split(";")[0] for c in old.citations] == [
        "Item: Tent", "Item: Stove, gas", "Item: Kayak"]
    _assert_cited_exactly(old)
    assert rebuilt.text.startswith("Total Deposit: 1,545.50 (computed:")


def test_a_quantity_asked_of_is_looked_up_in_the_row_whose_range_holds_it(tmp_path):
    index = index_of(tmp_path, {"leave.md": (
        "# Annual leave\n\nLeave depends on your length of service.\n\n"
        "| Length of service | Annual leave (days) |\n|---|---|\n"
        "| Less than 2 years | 25 |\n| 2 years to less than 5 years | 27 |\n"
        "| 5 years to less than 10 years | 30 |\n| 10 years or more | 33 |\n")})
    answer = index.ask("how many days annual leave do i get if ive been here six years?")
    index.close()

    assert answer.found and "5 years to less than 10 years" in answer.citations[0].quote
    assert answer.text.startswith("30.")


def test_rows_named_in_the_plural_are_the_rows_asked_about():
    rows = _rows(["Budget: Cost line: Staff costs; Office: York; Q3: 188,500.",
                  "Budget: Cost line: Staff costs; Office: Leeds; Q3: 109,000.",
                  "Budget: Cost line: Training; Office: Both offices; Q3: 5,500.",
                  "Budget: Cost line: Travel; Office: Both offices; Q3: 3,400."])

    headline, used = compute("total", "What is the total Q3 staff cost?", rows)

    assert headline == "Total Q3 (Cost line Staff costs): 297,500 (computed: 188,500 + 109,000)."
    assert compute("total", "What's the combined Q3 staff cost for both offices?", rows) is None


def test_a_rise_is_the_later_column_minus_the_earlier_whichever_the_question_names_first():
    rows = _rows(["Fleet: Cost line: Tyres; 2023/24 actual: 4,100; 2024/25 budget: 4,600.",
                  "Fleet: Cost line: Fuel; 2023/24 actual: 18,900; 2024/25 budget: 19,300."])
    question = "How much has the tyres budget gone up compared with last year's actual?"

    headline, _ = compute(question_operation(question), question, rows)

    assert headline == ("Tyres, 2024/25 budget minus 2023/24 actual: 500 "
                        "(computed: 4,600 − 4,100).")


def _two_sites(path: Path) -> Path:
    """A workbook of two sheets with the same columns, one per site."""
    import openpyxl

    book = openpyxl.Workbook()
    for n, (site, fuel, tyres) in enumerate([("Northgate", 18900, 4100),
                                             ("Southmoor", 7250, 1980)]):
        sheet = book.active if n == 0 else book.create_sheet()
        sheet.title = site
        for row in [("Cost line", "2024/25 actual", "2025/26 budget"),
                    ("Fuel", fuel - 500, fuel), ("Tyres", tyres - 300, tyres),
                    ("Total", fuel + tyres - 800, fuel + tyres)]:
            sheet.append(row)
    book.save(path)
    return path


@pytest.fixture(scope="module")
def sites_index(tmp_path_factory):
    index = index_of(tmp_path_factory.mktemp("sites"), {},
                     lambda documents: _two_sites(documents / "depot_budgets.xlsx"))
    yield index
    index.close()


@pytest.mark.parametrize(("question", "first", "sheets"), [
    ("How much more is budgeted for fuel at Southmoor than at Northgate in 2025/26?",
     "2025/26 budget, Fuel, Southmoor minus Northgate: -11650 (computed: 7250 − 18900).",
     ["Southmoor", "Northgate"]),  # in the order named
    ("What's the total tyres budget across both depots for 2025/26?",
     "Total 2025/26 budget, Tyres: 6080 (computed: 4100 (Northgate) + 1980 (Southmoor)).",
     ["Northgate", "Southmoor"]),
    ("How much more is budgeted at Northgate than at Southmoor in 2025/26?",  # the totals
     "2025/26 budget, Total, Northgate minus Southmoor: 13770 (computed: 23000 − 9230).",
     ["Northgate", "Southmoor"]),
])
def test_one_row_is_added_or_compared_over_sheets_of_the_same_columns(sites_index, question,
                                                                        first, sheets):
    answer = sites_index.ask(question)

    assert answer.text.startswith(first)
    assert [c.quote.split(":")[0] for c in answer.citations] == sheets
    _assert_cited_exactly(answer)


def test_a_row_named_by_words_no_sheet_holds_is_not_replaced_by_the_totals(sites_index):
    answer = sites_index.ask("How much more is budgeted for road tolls at Northgate than at "
                             "Southmoor in 2025/26?")

    assert "computed" not in answer.text
