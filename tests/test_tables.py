"""Tables: every row of a .docx, HTML or Markdown table is stored as a line that names its
columns and its table, in document order, and a question about a row quotes that row."""

from pathlib import Path

import pytest

from qa.loaders.formats import Document, load


def _load(path: Path) -> Document:
    return load(path, path.read_bytes())


def _offices_docx(path: Path) -> Path:
    import docx

    word = docx.Document()
    word.add_heading("Offices", level=1)
    word.add_paragraph("Each team has a floor of its own.")
    table = word.add_table(rows=3, cols=2)
    for cells, values in zip(table.rows, [("Team", "Floor"), ("Design", "4"), ("Sales", "2")],
                             strict=True):
        for cell, value in zip(cells.cells, values, strict=True):
            cell.text = value
    word.add_paragraph("Visitors sign in at the front desk.")
    word.save(path)
    return path


def test_a_docx_table_row_names_its_columns_and_heading_in_document_order(tmp_path):
    text = _load(_offices_docx(tmp_path / "offices.docx")).text

    assert text.split("\n\n") == [
        "Offices",
        "Each team has a floor of its own.",
        "Offices: Team: Design; Floor: 4.",
        "Offices: Team: Sales; Floor: 2.",
        "Visitors sign in at the front desk.",
    ]


def test_a_docx_caption_names_the_table_and_a_merged_cell_is_given_once(tmp_path):
    import docx

    word = docx.Document()
    word.add_heading("Building", level=1)
    word.add_paragraph("Table 1. Rooms", style="Caption")
    table = word.add_table(rows=2, cols=3)
    for cell, value in zip(table.rows[0].cells, ("Team", "Floor", "Room"), strict=True):
        cell.text = value
    table.cell(1, 0).text = "Design"
    table.cell(1, 1).merge(table.cell(1, 2)).text = "4 (whole floor)"
    word.save(tmp_path / "merged.docx")

    text = _load(tmp_path / "merged.docx").text

    assert text.split("\n\n")[2:] == ["Table 1. Rooms: Team: Design; Floor: 4 (whole floor)."]


def test_which_team_is_on_floor_4_quotes_the_design_row(tmp_path):
    from qa import Index

    folder = tmp_path / "docs"
    folder.mkdir()
    _offices_docx(folder / "offices.docx")
    index = Index.build([folder], path=tmp_path / "index")
    try:
        answer = index.ask("Which team is on floor 4?")
    finally:
        index.close()

    assert answer.found
    first = answer.citations[0]
    assert first.quote == "Offices: Team: Design; Floor: 4."
    assert first.hit.text[first.start - first.hit.start:first.end - first.hit.start] == first.quote


def test_a_row_is_one_sentence_though_its_names_are_capitalised_or_it_ends_in_inc():
    from qa.indexing.chunking import split_sentences

    text = ("Offices: Team: Design; Floor: 4.\n\nHe came; She left.\n\n"
            "Suppliers: Name: Acme Inc.\nSuppliers: Name: Beta Ltd.")

    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Offices: Team: Design; Floor: 4.", "He came;", "She left.",
        "Suppliers: Name: Acme Inc.", "Suppliers: Name: Beta Ltd."]


HANDBOOK = """# Handbook

## Offices

Each team has a floor of its own.

| Team | Floor |
|------|------:|
| **Design** | 4 |
| Sales \\| Ops | `2` |

Visitors sign in at the front desk.

```
| a | b |
|---|---|
```
"""


def test_a_markdown_pipe_table_becomes_a_line_per_row_under_its_heading(tmp_path):
    path = tmp_path / "handbook.md"
    path.write_text(HANDBOOK)

    text = _load(path).text

    assert text == HANDBOOK.replace(
        "| Team | Floor |\n|------|------:|\n| **Design** | 4 |\n| Sales \\| Ops | `2` |\n",
        "Offices: Team: Design; Floor: 4.\nOffices: Team: Sales | Ops; Floor: 2.\n")
    assert "| a | b |\n|---|---|" in text  # a table in a code block is code, left alone


OFFICES_PAGE = """<html><head><title>Offices</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Our offices</h1>
<p>Each team has a floor of its own in the main building on Harbour Street.</p>
<h2>Floors</h2>
<table><thead><tr><th>Team</th><th>Floor</th></tr></thead>
<tbody><tr><td>Design</td><td>4</td></tr><tr><td>Sales</td><td>2</td></tr></tbody></table>
<p>Visitors sign in at the front desk before going up to any floor.</p>
<table><caption>Opening hours</caption><tr><th>Day</th><th colspan="2">Hours</th></tr>
<tr><td>Monday</td><td>9:00</td><td>17:00</td></tr></table>
</article><footer>Copyright 2026</footer></body></html>"""


def test_an_html_table_row_names_its_columns_and_caption_in_document_order(tmp_path):
    path = tmp_path / "offices.html"
    path.write_text(OFFICES_PAGE)

    text = _load(path).text

    assert text.split("\n") == [
        "Our offices",
        "Each team has a floor of its own in the main building on Harbour Street.",
        "Floors",
        "Floors: Team: Design; Floor: 4.",
        "Floors: Team: Sales; Floor: 2.",
        "Visitors sign in at the front desk before going up to any floor.",
        "Opening hours: Day: Monday; Hours: 9:00; Hours: 17:00.",
    ]


def test_quoted_rows_show_in_their_source_card_whole_and_as_one_table_of_their_columns():
    import html
    import re

    from qa import Citation, Hit
    from ui import render

    text = "Offices\n\nOffices: Team: Design; Floor: 4.\n\nOffices: Team: <b>Sales</b>; Floor: 2."
    hit = Hit(1, 1, "/docs/offices.docx", "", text, 0, len(text), None, 0.03, 0.61)
    quotes = ["Offices: Team: Design; Floor: 4.", "Offices: Team: <b>Sales</b>; Floor: 2."]
    citations = [Citation(1, hit, q, text.index(q), text.index(q) + len(q)) for q in quotes]

    markup = render.sources_html(citations, lambda source: text)

    marks = re.findall(r'<mark class="qa-quote">(.*?)</mark>', markup)
    assert [html.unescape(mark) for mark in marks[:2]] == quotes
    tables = re.findall(r'<table class="qa-row qa-rows">(.*?)</table>', markup)  # one
    assert [[html.unescape(cell) for cell in re.findall(r">([^<]+)<", table)]
            for table in tables] == [["Offices", "Team", "Floor", "Design", "4",
                                      "<b>Sales</b>", "2"]]
    assert "<b>" not in markup


def test_a_row_is_read_back_as_written_and_prose_is_not_a_row():
    from qa.loaders.base import TextBudget
    from qa.loaders.tables import row_fields, table_lines

    [line] = table_lines(["Team", "Lead"], [["Design", "Ana Ruiz, Jr."]], "Offices",
                         budget=TextBudget(1_000))

    assert row_fields(line) == ("Offices", [("Team", "Design"), ("Lead", "Ana Ruiz, Jr")])
    assert row_fields("He said: yes; she left.") is None
    assert row_fields("Pears; September.") is None
    assert row_fields("The Amazon rainforest (Portuguese: Floresta Amazônica; Spanish: Selva "
                      "Amazónica; Dutch: Amazoneregenwoud), also known as Amazonia.") is None
    assert row_fields("Cost (£): 12; Size (m): 3.") == ("", [("Cost (£)", "12"), ("Size (m)", "3")])


def test_an_html_table_of_properties_names_each_value_by_its_row_header(tmp_path):
    path = tmp_path / "contact.html"
    path.write_text("<html><body><p>Where to reach the facilities team during office hours.</p>"
                    "<h3>Contact</h3><table><tr><th>Name</th><td>Ana Ruiz</td></tr>"
                    "<tr><th>Phone</th><td>555 0100</td></tr></table></body></html>")

    assert _load(path).text.split("\n")[-2:] == [
        "Contact: Name: Ana Ruiz.", "Contact: Phone: 555 0100."]


def test_a_first_row_merged_across_the_table_is_its_title(tmp_path):
    import docx

    word = docx.Document()
    table = word.add_table(rows=3, cols=2)
    table.cell(0, 0).merge(table.cell(0, 1)).text = "Parking"
    for cells, values in zip(table.rows[1:], [("Level", "Spaces"), ("B1", "40")], strict=True):
        for cell, value in zip(cells.cells, values, strict=True):
            cell.text = value
    word.save(tmp_path / "parking.docx")
    (tmp_path / "parking.html").write_text(
        "<html><body><p>Where staff may leave their cars during the working day.</p><table>"
        "<tr><th colspan='2'>Parking</th></tr><tr><th>Level</th><th>Spaces</th></tr>"
        "<tr><td>B1</td><td>40</td></tr></table></body></html>")

    row = "Parking: Level: B1; Spaces: 40."
    assert _load(tmp_path / "parking.docx").text == row
    assert _load(tmp_path / "parking.html").text.split("\n")[-1] == row


def test_an_html_cell_spanning_rows_names_each_of_its_rows(tmp_path):
    path = tmp_path / "campus.html"
    path.write_text(
        "<html><body><p>Where each team sits in the two buildings of the campus.</p><table>"
        "<tr><th>Building</th><th>Team</th><th>Floor</th></tr>"
        "<tr><td rowspan='2'>North</td><td>Design</td><td>4</td></tr>"
        "<tr><td>Sales</td><td>2</td></tr></table></body></html>")

    assert _load(path).text.split("\n")[1:] == [
        "Building: North; Team: Design; Floor: 4.", "Building: North; Team: Sales; Floor: 2."]


ODD_CSV = '''Item,Notes,Deposit
Tent,"Poles, pegs; groundsheet","1,200"
Stove; gas,"Burner, 2 rings",45
Kayak,"Paddle; spray deck, helmet",€300.50
'''


def test_a_csv_table_is_kept_as_typed_cells_each_row_at_its_sentence(tmp_path):
    from qa.indexing.chunking import split_sentences

    path = tmp_path / "kit.csv"
    path.write_text(ODD_CSV)

    document = _load(path)
    [table] = document.tables

    assert table.header == ("Item", "Notes", "Deposit")
    assert [[cell.text for _, cell in row.cells] for row in table.rows] == [
        ["Tent", "Poles, pegs; groundsheet", "1,200"],
        ["Stove; gas", "Burner, 2 rings", "45"],
        ["Kayak", "Paddle; spray deck, helmet", "€300.50"]]
    assert [[cell.kind for _, cell in row.cells] for row in table.rows] == [
        ["text", "text", "number"], ["text", "text", "number"], ["text", "text", "amount"]]
    assert [row.cells[2][1].number for row in table.rows] == [1200.0, 45.0, 300.5]
    spans = [(row.start, row.end) for row in table.rows]
    assert spans == split_sentences(document.text)  # each row is its line, one sentence
    assert document.text[spans[1][0]:spans[1][1]] == \
        "Item: Stove, gas; Notes: Burner, 2 rings; Deposit: 45."


def test_a_sheet_s_title_rows_above_its_header_are_sentences_and_the_header_names_the_cells(
        tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Budget"
    sheet.append(["Harbour Vets — Annual Budget 2024-25"])
    sheet.append(["All figures in £, excluding VAT."])
    sheet.append([])
    sheet.append(["Line", "North", "South"])
    sheet.append(["Premises", 88500, 41200])
    book.save(tmp_path / "budget.xlsx")

    document = _load(tmp_path / "budget.xlsx")
    [table] = document.tables

    assert document.text.splitlines() == [
        "Harbour Vets — Annual Budget 2024-25.", "All figures in £, excluding VAT.",
        "Budget: Line: Premises; North: 88500; South: 41200."]
    assert table.header == ("Line", "North", "South")


@pytest.mark.parametrize(("rows", "titles", "header"), [
    ([["Annual Budget 2024-25"], ["All figures in £."], ["Line", "North"], ["Rent", 5]],
     [["Annual Budget 2024-25"], ["All figures in £."]], ["Line", "North"]),
    ([["Entry"], ["Gate locked", "Night porter"]], [], ["Entry"]),  # a one-column header
    ([["Notes of the day"], ["The gate was locked."], ["The van came at ten."]],
     [], ["Notes of the day"]),  # a list of one column: no table under a title
])
def test_a_sheet_s_header_is_found_under_its_title_rows(rows, titles, header):
    from qa.loaders.tables import split_header

    above, found, read = split_header(iter(rows), lambda row: row)

    assert (above, found) == (titles, header)
    assert [*above, found, *read] == rows[:len(above) + 1 + len(read)]


def test_a_table_whose_rows_a_loader_left_out_of_the_text_is_not_kept():
    from qa.loaders.base import TextBudget
    from qa.loaders.tables import located, table_lines

    budget = TextBudget(1_000)
    kept = table_lines(["Team", "Floor"], [["Design", "4"], ["Sales", "2"]], budget=budget)
    table_lines(["Day", "Dish"], [["Monday", "Soup"], ["Friday", "Fish"]], budget=budget)
    text = "\n".join(kept) + "\nDay: Monday; Dish: Soup."  # the second table's row lost

    [table] = located(text, budget.tables)

    assert table.header == ("Team", "Floor")
    assert [text[row.start:row.end] for row in table.rows] == kept


def test_every_loader_of_tables_keeps_them_as_cells(tmp_path):
    path = tmp_path / "handbook.md"
    path.write_text(HANDBOOK)
    html = tmp_path / "offices.html"
    html.write_text(OFFICES_PAGE)

    for document in (_load(_offices_docx(tmp_path / "offices.docx")), _load(path),
                     _load(html)):
        first = document.tables[0]
        assert (first.caption, first.header) == ("Offices" if document.path.endswith(
            (".docx", ".md")) else "Floors", ("Team", "Floor"))
        assert [(cells[1][1].kind, cells[1][1].number) for cells in (
            row.cells for row in first.rows)] == [("number", 4.0), ("number", 2.0)]
        assert all(document.text[row.start:row.end].startswith(first.caption)
                   for row in first.rows)
