"""The office-folder benchmark's documents: the files of a small fictional company,
Bramblecote Ceramics (a pottery with a workshop in Wrenfold, a showroom in Esk Harbour
and a warehouse in Marrow Heath), of the kinds issue 24's tester brought.

`write_documents(folder)` writes them: a staff handbook (.docx, two tables), a board
deck (.pptx, a table and speaker notes), a budget (.xlsx, two sheets of numbers), a
contact list (.csv), a policy and a report (PDF, the report with a header, a date line
and a table), a photographed notice and a photographed receipt (PNG: drawn text, paper
noise, a slight tilt, for OCR), an e-mail with a .docx attachment (.eml), a firing guide
(Markdown), the showroom's web page (HTML, a table) and the notes of two team meetings
(.txt). Everything is invented here. The files are the same bytes on every run (the
zip members and the PDF carry a fixed date, the noise is seeded), so an index kept with
`run.py --cache` is not rebuilt.
"""

import csv
import io
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

FIXED_TIME = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)  # the files' creation time
SEED = 24

# -- the handbook (.docx) --------------------------------------------------------------

HANDBOOK: list[tuple[str, object]] = [
    ("title", "Bramblecote Ceramics Staff Handbook"),
    ("text", "This handbook tells new staff how Bramblecote Ceramics works from day to day: "
             "who does what, when the sites are open, how to book leave and how to stay "
             "safe around the kilns."),
    ("heading", "Teams"),
    ("text", "The table below lists our teams, where they work and who leads them."),
    ("table", [("Team", "Site", "Lead", "Staff"),
               ("Throwing", "Wrenfold", "Petra Lowe", "6"),
               ("Glazing", "Wrenfold", "Odile Marchetti", "4"),
               ("Showroom", "Esk Harbour", "Callum Reyes", "3"),
               ("Dispatch", "Marrow Heath", "Bartosz Nowak", "5"),
               ("Finance", "Wrenfold", "Ines Varga", "2")]),
    ("text", "Every team lead holds a short stand-up meeting on Monday mornings at nine."),
    ("heading", "Opening hours"),
    ("text", "The Wrenfold workshop opens at half past seven and closes at six on weekdays. "
             "On Saturdays only the Esk Harbour showroom is open, from ten until four. All "
             "sites are closed on Sundays."),
    ("heading", "Kiln safety"),
    ("text", "Only staff who have passed the kiln course may load or unload a kiln. Nobody "
             "opens a kiln door while the kiln is above 200 degrees. Heat-proof gloves hang "
             "on the rack beside each kiln."),
    ("heading", "Visitors"),
    ("text", "Visitors to the workshop wear a yellow badge and stay with their host for the "
             "whole visit."),
    ("heading", "Leave"),
    ("text", "Staff have 27 days of paid leave a year, plus public holidays. Leave is "
             "requested from your team lead at least ten working days ahead."),
    ("heading", "Expenses"),
    ("text", "Expenses are claimed within 30 days of the purchase, with the receipt "
             "attached. A claim over 250 pounds needs the approval of the finance lead, "
             "Ines Varga."),
    ("heading", "Equipment on loan"),
    ("text", "Deposits for equipment on loan are listed in the table below."),
    ("table", [("Item", "Deposit", "Return within"),
               ("Workshop key", "40 pounds", "2 days"),
               ("Laptop", "300 pounds", "5 days"),
               ("Van fuel card", "25 pounds", "1 day"),
               ("Kiln logbook tablet", "120 pounds", "3 days")]),
    ("text", "Deposits are taken from the next wages and paid back when the item is "
             "returned in good order."),
]

# -- the board deck (.pptx): (title, body lines or a table, speaker notes) -------------

DECK: list[tuple[str, list[str] | list[tuple[str, ...]], str]] = [
    ("Bramblecote Ceramics: board review, October 2026", ["Prepared by Ines Varga"],
     "Welcome the board. Harriet Quinn sends her apologies; she is at the Ambrose trade "
     "fair."),
    ("Sales by channel, 2026",
     [("Channel", "Q1", "Q2", "Q3"),
      ("Showroom", "41,200", "38,900", "44,600"),
      ("Online", "27,500", "31,800", "35,100"),
      ("Wholesale", "52,000", "49,300", "50,700")],
     "Online sales grew for the third quarter running; the new product photography is "
     "the most likely reason."),
    ("Plans for 2027",
     ["Open a second kiln room in Wrenfold", "Take on two apprentices",
      "Launch a stoneware range for restaurants"],
     "The second kiln room will cost about 85,000 pounds. The board approved it on "
     "condition that a regional grant covers a third of the cost."),
    ("Risks", ["Gas prices for the kilns", "Losing the Marlow Stores wholesale account"],
     "Marlow Stores accounts for a fifth of our wholesale revenue, and its contract ends "
     "in March 2027."),
]

# -- the budget (.xlsx): sheet name -> rows --------------------------------------------

BUDGET: dict[str, list[tuple[str | int, ...]]] = {
    "Spend 2026": [("Category", "Q1", "Q2", "Q3", "Q4"),
                   ("Clay and glaze", 8400, 9100, 8800, 9600),
                   ("Energy", 12300, 10100, 9400, 13800),
                   ("Packaging", 2600, 2450, 2900, 3700),
                   ("Marketing", 3200, 4100, 2900, 5300),
                   ("Travel", 1100, 800, 1400, 900)],
    "Capital 2026": [("Project", "Budget", "Spent", "Owner"),
                     ("Second kiln room", 85000, 12500, "Petra Lowe"),
                     ("Pug mill", 14000, 14000, "Odile Marchetti"),
                     ("Delivery van", 32000, 0, "Bartosz Nowak"),
                     ("Website rebuild", 9000, 6300, "Callum Reyes")],
}

# -- the contact list (.csv) -----------------------------------------------------------

CONTACT_COLUMNS = ("Name", "Role", "Site", "Phone", "Email")
CONTACTS = [  # the e-mail address is made from the name
    ("Petra Lowe", "Head of throwing", "Wrenfold", "01632 960114"),
    ("Odile Marchetti", "Glaze chemist", "Wrenfold", "01632 960127"),
    ("Ines Varga", "Finance lead", "Wrenfold", "01632 960105"),
    ("Sunniva Berg", "Apprentice potter", "Wrenfold", "01632 960131"),
    ("Callum Reyes", "Showroom manager", "Esk Harbour", "01632 960331"),
    ("Amara Diallo", "Sales assistant", "Esk Harbour", "01632 960332"),
    ("Tobias Fenn", "Sales assistant", "Esk Harbour", "01632 960333"),
    ("Bartosz Nowak", "Dispatch lead", "Marrow Heath", "01632 960418"),
    ("Keira Holm", "Packer", "Marrow Heath", "01632 960419"),
    ("Ruben Okafor", "Van driver", "Marrow Heath", "01632 960420"),
]

# -- the PDFs --------------------------------------------------------------------------

POLICY = [
    ("title", "Data and Devices Policy"),
    ("text", "This policy applies to everyone who works for Bramblecote Ceramics, including "
             "apprentices and temporary staff."),
    ("text", "Laptops lock themselves after five minutes without use. Staff never share a "
             "password, not even with a colleague who is covering for them."),
    ("text", "Customer card numbers are never written down, photographed or stored on shared "
             "drives; they are only ever typed into the card terminal."),
    ("text", "The alarm code for the Wrenfold workshop is changed every quarter and given to "
             "keyholders in person."),
    ("text", "Personal phones may be used for work e-mail only once the Bramblecote mail app "
             "is installed on them."),
    ("text", "A lost laptop or phone is reported to Ines Varga on the day it goes missing."),
]

REPORT_HEADER = "Bramblecote Ceramics - Sustainability Report 2026"
REPORT = [
    ("title", "Sustainability Report 2026"),
    ("text", "Published 15 January 2027"),
    ("text", "In 2026 Bramblecote fired 1,840 kiln loads, 6 per cent fewer than in 2025, "
             "because the throwing team packed each load more tightly."),
    ("text", "Energy per kiln load fell from 41 kWh to 37 kWh after the kiln lids were "
             "relined in March."),
    ("text", "The solar panels on the Marrow Heath warehouse roof produced 18,600 kWh, about "
             "a quarter of the electricity we used."),
    ("text", "The table below shows where our waste went."),
    ("table", [("Waste", "Tonnes", "Destination"),
               ("Clay scraps", "3.2", "Reclaimed in the workshop"),
               ("Broken ware", "1.1", "Crushed for road base"),
               ("Cardboard", "2.4", "Recycled by the council")]),
    ("text", "No waste clay went to landfill: every scrap was soaked, dried and wedged into "
             "new clay in the workshop's reclaim tank."),
    ("text", "Next year we aim to cut energy per load to 34 kWh and to replace the diesel "
             "van with an electric one."),
]

# -- the photographs (PNG, read by OCR) ------------------------------------------------

NOTICE = ["NOTICE", "The Wrenfold car park is closed", "on Thursday 12 November",
          "for line painting.", "Please park on Ropewalk Lane.",
          "Deliveries use the rear gate.", "Facilities team"]

RECEIPT = ["MOSSWAY HARDWARE", "14 Quay Street, Esk Harbour", "03/11/2026 10:42",
           "2 x Shelf bracket      15.00", "Kiln shelf wash        18.90",
           "Sandpaper pack          4.25", "Masking tape            3.20",
           "TOTAL                  41.35", "Card payment           41.35",
           "Thank you for shopping with us"]

# -- the e-mail (.eml) and its attachment ----------------------------------------------

EMAIL_HEADERS = {
    "From": "Ines Varga <ines.varga@bramblecote.example>",
    "To": "All staff <staff@bramblecote.example>",
    "Date": "Mon, 16 Nov 2026 09:12:00 +0000",
    "Subject": "New expenses process from 1 December",
}
EMAIL_BODY = """Hello everyone,

From 1 December, expense claims go through the Ledgerly app instead of paper forms. Paper
forms handed in after 15 December will be returned unpaid.

The attached guide explains how to make a claim. Training sessions take place on 24 and
26 November at two o'clock in the Wrenfold meeting room; each lasts forty minutes.

Claims approved by the 20th of a month are paid with that month's wages.

Best wishes,
Ines
"""
GUIDE = [
    ("title", "How to claim expenses in Ledgerly"),
    ("text", "Open the app and tap New claim."),
    ("text", "Photograph the receipt flat on a table, in good light, so that the total can "
             "be read."),
    ("text", "Choose the cost code of your team: Throwing TH1, Glazing GL2, Showroom SH3, "
             "Dispatch DS4, Finance FN5."),
    ("text", "Submit the claim; your team lead approves it within three working days."),
]

# -- Markdown, HTML and the meeting notes ----------------------------------------------

FIRING_GUIDE = """# Kiln firing guide

Bisque firings go to 1,000 degrees and take about nine hours. Glaze firings go to
1,260 degrees.

A kiln cools for at least 36 hours before it is opened, whatever its thermometer shows.

Each firing is written in the kiln logbook: the date, the kiln, the programme and the
name of whoever loaded it.

Kiln 1 is the large gas kiln; Kiln 2 and Kiln 3 are electric. The vent plug stays out
for the first 600 degrees of every firing.
"""

SHOWROOM = """<!doctype html>
<html><head><title>The Esk Harbour showroom</title></head>
<body>
<nav><a href="/">Home</a> | <a href="/shop">Shop</a></nav>
<main>
<h1>The Esk Harbour showroom</h1>
<p>Our showroom at 3 Lantern Wharf, Esk Harbour, sells everything we make in Wrenfold.
Seconds are sold at half price on the first Saturday of each month.</p>
<h2>Clay classes</h2>
<p>Classes take place in the room behind the shop; clay, glazes and one firing are
included.</p>
<table>
<caption>Classes this autumn</caption>
<tr><th>Class</th><th>Day</th><th>Price</th><th>Places</th></tr>
<tr><td>Beginner wheel</td><td>Tuesday</td><td>45 pounds</td><td>8</td></tr>
<tr><td>Glazing basics</td><td>Thursday</td><td>35 pounds</td><td>10</td></tr>
<tr><td>Family clay morning</td><td>Saturday</td><td>20 pounds</td><td>12</td></tr>
</table>
<p>Pieces are ready to collect three weeks after the class.</p>
</main>
</body></html>
"""

MEETING_NOTES = """Bramblecote Ceramics: team meeting notes

Meeting of 2 October 2026
Present: Petra Lowe, Odile Marchetti, Callum Reyes, Bartosz Nowak, Ines Varga.
1. The old pug mill will be sold; Odile Marchetti will list it online.
2. Dispatch will switch to recycled paper packing from November.
3. Callum Reyes will price a new display cabinet for the showroom.
4. The Christmas party will be held at the Anchor Inn on 18 December.
5. Petra Lowe will draft a timetable for the two apprentices.

Meeting of 6 November 2026
Present: Petra Lowe, Odile Marchetti, Bartosz Nowak, Ines Varga. Apologies from Callum Reyes.
1. The display cabinet quote of 1,150 pounds was approved.
2. Kiln 2 needs a new thermocouple; Petra Lowe will order one this week.
3. Ledgerly replaces the paper expense forms from 1 December.
4. Online orders over 60 pounds will ship free from 20 November.
5. The Marrow Heath van will be serviced on 14 November.
6. The two apprentices start on 11 January.
"""


def write_documents(folder: Path) -> list[Path]:
    """Write the office folder into `folder` (files already there and the same are left
    alone); the paths of its files."""
    folder.mkdir(parents=True, exist_ok=True)
    writers: dict[str, Callable[[], bytes]] = {
        "staff_handbook.docx": lambda: _docx(HANDBOOK),
        "board_review_2026.pptx": _pptx,
        "budget_2026.xlsx": _xlsx,
        "contacts.csv": _csv,
        "data_and_devices_policy.pdf": lambda: _pdf(POLICY),
        "sustainability_report_2026.pdf": lambda: _pdf(REPORT, REPORT_HEADER),
        "car_park_notice.png": lambda: _photo(NOTICE, width=620, tilt=1.4, seed=SEED),
        "hardware_receipt.png": lambda: _photo(RECEIPT, width=620, tilt=-1.8, seed=SEED + 1),
        "expenses_email.eml": _eml,
        "kiln_firing_guide.md": lambda: FIRING_GUIDE.encode(),
        "showroom.html": lambda: SHOWROOM.encode(),
        "meeting_notes.txt": lambda: MEETING_NOTES.encode(),
    }
    for name, write in writers.items():
        data = write()
        path = folder / name
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
    return [folder / name for name in writers]


def _fixed_zip(data: bytes) -> bytes:
    """An Office file (a zip) with every member dated FIXED_TIME, so the bytes repeat."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            fixed = zipfile.ZipInfo(item.filename, FIXED_TIME.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, source.read(item))
    return out.getvalue()


def _docx(blocks: list[tuple[str, object]]) -> bytes:
    import docx

    document = docx.Document()
    document.core_properties.created = document.core_properties.modified = FIXED_TIME
    for kind, content in blocks:
        if kind == "title":
            document.add_heading(str(content), level=1)
        elif kind == "heading":
            document.add_heading(str(content), level=2)
        elif kind == "text":
            document.add_paragraph(str(content))
        else:
            rows = list(content)  # type: ignore[call-overload]
            table = document.add_table(rows=0, cols=len(rows[0]))
            table.style = "Table Grid"
            for row in rows:
                for cell, text in zip(table.add_row().cells, row, strict=True):
                    cell.text = text
    out = io.BytesIO()
    document.save(out)
    return _fixed_zip(out.getvalue())


def _pptx() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    deck.core_properties.created = deck.core_properties.modified = FIXED_TIME
    for number, (title, body, notes) in enumerate(DECK):
        layout = deck.slide_layouts[0 if number == 0 else 5 if isinstance(body[0], tuple)
                                    else 1]
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        if isinstance(body[0], tuple):
            shape = slide.shapes.add_table(len(body), len(body[0]), Inches(0.5),
                                           Inches(1.8), Inches(9), Inches(2.5))
            for r, row in enumerate(body):
                for c, text in enumerate(row):
                    shape.table.cell(r, c).text = str(text)
        else:
            slide.placeholders[1].text_frame.text = "\n".join(str(line) for line in body)
        slide.notes_slide.notes_text_frame.text = notes
    out = io.BytesIO()
    deck.save(out)
    return _fixed_zip(out.getvalue())


def _xlsx() -> bytes:
    import openpyxl
    from openpyxl.writer.excel import ExcelWriter

    book = openpyxl.Workbook()
    book.properties.created = book.properties.modified = FIXED_TIME.replace(tzinfo=None)
    book.remove(book.active)
    for name, rows in BUDGET.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
        for cells in sheet.iter_rows(min_row=2, min_col=2):
            for cell in cells:
                if isinstance(cell.value, int):
                    cell.number_format = "#,##0"
    out = io.BytesIO()  # ExcelWriter, as book.save would, but keeping the modified time
    ExcelWriter(book, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED)).save()
    return _fixed_zip(out.getvalue())


def _csv() -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CONTACT_COLUMNS)
    for name, role, site, phone in CONTACTS:
        email = name.lower().replace(" ", ".") + "@bramblecote.example"
        writer.writerow((name, role, site, phone, email))
    return out.getvalue().encode()


def _pdf(blocks: list[tuple[str, object]], header: str | None = None) -> bytes:
    from fpdf import FPDF

    class Document(FPDF):
        def header(self) -> None:
            if header:
                self.set_font("Helvetica", size=8)
                self.cell(0, 6, header, align="R")
                self.ln(10)

    pdf = Document()
    pdf.set_creation_date(FIXED_TIME)
    pdf.add_page()
    for kind, content in blocks:
        if kind == "title":
            pdf.set_font("Helvetica", "B", 16)
            pdf.multi_cell(0, 10, str(content))
            pdf.ln(3)
        elif kind == "text":
            pdf.set_font("Helvetica", size=11)
            pdf.multi_cell(0, 6, str(content))
            pdf.ln(3)
        else:
            pdf.set_font("Helvetica", size=10)
            with pdf.table() as table:
                for row in content:  # type: ignore[attr-defined]
                    table.row(row)
            pdf.ln(3)
    return bytes(pdf.output())


def _photo(lines: list[str], width: int, tilt: float, seed: int) -> bytes:
    """A phone photograph of a printed page: dark text on off-white paper, with seeded
    noise and uneven light, turned by `tilt` degrees. A line's part after two spaces
    (a receipt's price) is right-aligned."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    size, gap = 30, 18
    font = ImageFont.load_default(size=size)
    height = 80 + len(lines) * (size + gap)
    page = Image.new("L", (width, height), 236)
    draw = ImageDraw.Draw(page)
    for number, line in enumerate(lines):
        top = 40 + number * (size + gap)
        label, _, amount = (part.strip() for part in line.partition("  "))
        left = 40 if number else (width - draw.textlength(label, font=font)) / 2  # a title
        draw.text((left, top), label, fill=35, font=font)
        if amount:  # a receipt's price, right-aligned in its column
            draw.text((width - 50 - draw.textlength(amount, font=font), top), amount,
                      fill=35, font=font)
    rng = np.random.default_rng(seed)
    pixels = np.asarray(page, dtype=np.float32)
    light = np.linspace(0, -22, width, dtype=np.float32)[None, :]  # darker to the right
    pixels = pixels + light + rng.normal(0, 9, pixels.shape).astype(np.float32)
    photo = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    photo = photo.rotate(tilt, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=120)
    out = io.BytesIO()
    photo.save(out, format="PNG")
    return out.getvalue()


def _eml() -> bytes:
    message = EmailMessage()
    for name, value in EMAIL_HEADERS.items():
        message[name] = value
    message.set_content(EMAIL_BODY)
    message.add_attachment(
        _docx(GUIDE), maintype="application",
        subtype="vnd.openxmlformats-officedocument.wordprocessingml.document",
        filename="expenses_guide.docx")
    message.set_boundary("bramblecote-boundary-24")
    return message.as_bytes()
