"""The everyday evaluation set's documents: ordinary office files, written here.

`write_documents(folder)` writes them: a Markdown handbook with a table, a .docx with a
table, a PDF set in a narrow column (lines wrap inside sentences), an HTML page with a
table, two news stories, meeting minutes, an IT policy and a plain-text notice; and, for
values computed from tables, lists and pictures, a budget spreadsheet, a CSV of supplier
contracts, the minutes of two board meetings with bulleted lists, and a photographed
cafe receipt (drawn with PIL, read by OCR). Written by code, so the set needs no binary
fixtures and stays reviewable.
"""

from pathlib import Path

HANDBOOK = """# Northwind Office Handbook

This handbook explains how the Northwind office works for new staff: where teams sit,
when the building is open and what to do in an emergency.

## Where teams sit

| Team | Floor | Manager |
|------|-------|---------|
| Design | 4 | Clara Osei |
| Finance | 2 | Tomas Lind |
| Support | 1 | Wen Zhao |

## Opening hours

The building opens at seven and closes at eight on weekdays. It is closed on public
holidays. Visitors sign in at the front desk on the ground floor.

## Emergencies

The fire assembly point is the car park behind the bakery on Dale Street. First aiders
wear a green lanyard. The fire alarm is tested every Wednesday at ten.

## Leave

Staff have twenty-five days of paid leave a year. Leave is booked in the HR portal at
least two weeks ahead.
"""

NEWS_FERRY = (
    "The town council of Kessling voted on Tuesday to close the old ferry terminal by "
    "next spring, ending a service that has run since 1921. Councillors said repairs to "
    "the terminal would cost more than building a new pier. Ferry staff will be offered "
    "jobs at the new pier, the council said. Residents of Orra Island said the vote came "
    "as a surprise. A petition to keep the terminal open has gathered 2,000 signatures.\n\n"
    "Mayor Ilse Brandt said the new pier would open in June. Harbour master Jonah Pike "
    "has not commented on the decision.\n")

NEWS_LIBRARY = (
    "Four volunteers rescued the rare map collection of the Fenwick public library when "
    "a pipe burst on Sunday night: Ada Moreau, Felix Grant, Nora Quist and Sam Otieno "
    "carried 300 maps to the town hall. The library will stay closed until the end of "
    "the month while the basement dries.\n\n"
    "Librarian Paul Venn thanked the volunteers. He said no map was lost. The insurer "
    "will pay for the repairs. Felix Grant has since been made an honorary member of the "
    "library.\n")

MINUTES = (
    "Minutes of the Riverside Garden Club, 3 March\n\n"
    "Present: Helen Shaw, Omar Farouk, Lucy Brennan and Peter Kowalski. Apologies from "
    "Greta Lund.\n\n"
    "The club agreed to buy a new greenhouse for 1,200 pounds. Omar Farouk will collect "
    "three quotes before the next meeting. The spring plant sale will be held on 12 April "
    "in the church hall.\n\n"
    "Lucy Brennan resigned as treasurer; Peter Kowalski was elected treasurer in her "
    "place. The next meeting is on 7 April.\n")

IT_POLICY = """# IT Policy

Passwords must be at least fourteen characters long. They are changed only when there
is a sign that one has leaked.

Laptops are encrypted before they leave the office. Personal USB sticks may not be
plugged into office computers.

The helpdesk answers on extension 4400 from eight until six. Lost devices are reported
to the helpdesk within one hour.
"""

NOTICE = (
    "The car park on Mill Lane will be resurfaced from 2 to 6 June. During the works, "
    "staff may park at the leisure centre on Brook Road, which has 80 spaces. Cyclists "
    "can use the covered bike shed next to the main entrance, which has room for forty "
    "bikes.\n")

CAFETERIA = """<!doctype html>
<html><head><title>Cafeteria menu</title></head>
<body>
<h1>Cafeteria menu</h1>
<p>The cafeteria on the third floor serves lunch from noon until two. Meals cost
four pounds for staff.</p>
<table>
<caption>Lunch this week</caption>
<tr><th>Day</th><th>Dish</th></tr>
<tr><td>Monday</td><td>Lentil soup</td></tr>
<tr><td>Tuesday</td><td>Fish pie</td></tr>
<tr><td>Wednesday</td><td>Mushroom risotto</td></tr>
</table>
<p>Vegan options are marked with a green leaf. The cafeteria is run by Harbour Foods.</p>
</body></html>
"""

DOCK_REPORT = [
    "Loading Dock Safety Review",
    "The safety officer, Priya Raman, recommends replacing the loading dock lights before "
    "winter. Two forklifts failed their brake test in October and were taken out of "
    "service until the vendor repaired them.",
    "The review found that the dock doors close too slowly in strong wind. A new door "
    "motor will be fitted in January at a cost of 3,400 pounds.",
    "Drivers must wear high-visibility vests on the dock at all times.",
]

TEAMS_INTRO = "Team contacts for the Northwind office, as of May."
TEAMS_TABLE = [("Team", "Lead", "Extension"),
               ("Design", "Clara Osei", "4101"),
               ("Finance", "Tomas Lind", "2202"),
               ("Support", "Wen Zhao", "1303")]
TEAMS_OUTRO = "New starters are introduced to their team lead on their first morning."

BUDGET_SHEET = "Budget 2025"
BUDGET = [("Department", "City", "Staff", "Spend 2025"),
          ("Design", "Lyon", 12, 310),
          ("Finance", "Paris", 8, 290),
          ("Support", "Lyon", 15, 330),
          ("Sales", "Nantes", 10, 310)]

SUPPLIERS = """Supplier,Service,Contract per year
Brightclean,Office cleaning,"€12,400"
Quayside Print,Printing,"€3,150"
Northline IT,Laptop support,"€18,900"
Green Leaf,Plants and flowers,€950
"""

BOARD_MINUTES = """Harbour Board minutes

Meeting of 3 March

Present: Ada Moreau, Felix Grant and Nora Quist.

Agreed:
- Repaint the harbour office before Easter
- Buy two new mooring buoys
- Move the board meetings to Thursdays

Actions:
- Felix Grant asks three painters for quotes
- Nora Quist orders the buoys

Meeting of 7 April

Present: Ada Moreau and Sam Otieno.

Agreed:
- Hire a summer harbour assistant
- Close the slipway for repairs in May

The board thanked the volunteers for the harbour clean-up.
"""

RECEIPT = [("HARBOUR CAFE", ""), ("12 Quay Street, Fenwick", ""), ("Flat white", "3.20"),
           ("Cheese scone", "2.80"), ("Tomato soup", "4.50"), ("TOTAL", "10.50"),
           ("Paid by card", ""), ("Thank you for visiting", "")]


def write_documents(folder: Path) -> list[Path]:
    """Write the set into `folder`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    texts = {"handbook.md": HANDBOOK, "ferry_news.txt": NEWS_FERRY,
             "library_news.txt": NEWS_LIBRARY, "garden_club_minutes.txt": MINUTES,
             "it_policy.md": IT_POLICY, "car_park_notice.txt": NOTICE,
             "cafeteria.html": CAFETERIA, "suppliers.csv": SUPPLIERS,
             "board_minutes.txt": BOARD_MINUTES}
    for name, text in texts.items():
        _write_if_changed(folder / name, text.encode("utf-8"))
    _write_docx(folder / "team_contacts.docx")
    _write_pdf(folder / "dock_safety_review.pdf")
    _write_xlsx(folder / "budget.xlsx")
    _write_receipt(folder / "IMG_2231.png")
    return sorted(folder.iterdir())


def _write_if_changed(path: Path, data: bytes) -> None:
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)


def _write_docx(path: Path) -> None:
    import docx

    if path.is_file():  # a .docx holds its creation time: written once
        return
    document = docx.Document()
    document.add_paragraph(TEAMS_INTRO)
    table = document.add_table(rows=0, cols=3)
    for row in TEAMS_TABLE:
        cells = table.add_row().cells
        for cell, text in zip(cells, row, strict=True):
            cell.text = text
    document.add_paragraph(TEAMS_OUTRO)
    document.save(str(path))


def _write_pdf(path: Path) -> None:
    from fpdf import FPDF

    if path.is_file():
        return
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    for paragraph in DOCK_REPORT:
        pdf.multi_cell(70, 6, paragraph)  # a narrow column: lines wrap inside sentences
        pdf.ln(4)
    pdf.output(str(path))


def _write_xlsx(path: Path) -> None:
    import openpyxl

    if path.is_file():  # an .xlsx holds its creation time: written once
        return
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = BUDGET_SHEET
    for row in BUDGET:
        sheet.append(row)
    book.save(path)


def _write_receipt(path: Path) -> None:
    """A receipt as a phone would photograph it, small enough for OCR to read in a second:
    each item on the left, its price at the right."""
    import io

    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=22)
    picture = Image.new("RGB", (480, 40 + 34 * len(RECEIPT)), "white")
    draw = ImageDraw.Draw(picture)
    for i, (item, price) in enumerate(RECEIPT):
        draw.text((20, 20 + 34 * i), item, fill="black", font=font)
        if price:
            draw.text((380, 20 + 34 * i), price, fill="black", font=font)
    data = io.BytesIO()
    picture.save(data, format="PNG")
    _write_if_changed(path, data.getvalue())
