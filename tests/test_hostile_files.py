"""Files made to hurt the indexer (issue 17): a small PDF whose pages unpack to gigabytes of
text, names that are not UTF-8 or hold a newline, a file swapped for a link after it was
found, a run of letters without a space. Each is a real file on disk, indexed for real."""

import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile
import zlib
from contextlib import closing
from pathlib import Path

import openpyxl
import pytest

from qa import BackendConfig, Index, Settings
from qa.cli import main
from qa.indexing.embedding import load_embedder
from qa.indexing.files import NAME_NOT_UTF8
from qa.indexing.ingest import Outcome, find, prepare
from qa.loaders.formats import LoadError, load
from tests.helpers import ENV, QA, ROOT
from tests.test_bad_files import (
    _qa_index,
    _without_root_file_access,
    baseline_peak_mb,
    docx_with_paragraphs,
)

GOOD_TEXT = "The orchard has forty apple trees and one old pear tree."


def pdf(pages: int, content: bytes, form: bytes = b"") -> bytes:
    """A PDF of `pages` pages that all draw one shared content stream (deflated), in
    Helvetica, with a form XObject /Fm that shows the text `form`."""
    font = b"<< /Font << /F1 99 0 R >> >>"
    return _pdf_of({
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % (5 + n) for n in range(pages)), pages),
        3: _stream(content),
        4: _stream(text_run(form), b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                                  b"/Resources %s " % font),
        **{5 + n: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
                  b"/Resources << /Font << /F1 99 0 R >> /XObject << /Fm 4 0 R >> >> >>"
           for n in range(pages)},
        99: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    })


def _stream(data: bytes, entries: bytes = b"") -> bytes:
    packed = zlib.compress(data, 9)
    return b"<< %s/Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (
        entries, len(packed), packed)


def _pdf_of(objects: dict[int, bytes]) -> bytes:
    """A PDF of these numbered objects (numbered below 100), with its cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number, body in objects.items():
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 100\n" + b"".join(
        b"%010d 00000 n \n" % offsets[n] if n in offsets else b"0000000000 65535 f \n"
        for n in range(100))
    out += b"trailer\n<< /Size 100 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def text_run(text: bytes) -> bytes:
    return b"BT /F1 12 Tf 72 700 Td (" + text + b") Tj ET"


TILED = b"/Pattern cs /P1 scn 0 0 612 792 re f "  # the whole page painted with /P1


def tiled_pdf(*contents: bytes) -> bytes:
    """A PDF of a page per content stream, each with Helvetica as /F1 and a tiling pattern
    /P1 whose cell is 0.01 points a side: PDFium never finishes drawing a page painted
    with it (TILED), as the tester's 807-byte PDF of issue 35."""
    cell = b"0 0 1 1 re f"
    pages = range(len(contents))
    return _pdf_of({
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % (10 + 2 * n) for n in pages), len(contents)),
        3: b"<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 1 1] "
           b"/XStep 0.01 /YStep 0.01 /Resources << >> /Length %d >>\nstream\n%s\nendstream"
           % (len(cell), cell),
        4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        **{10 + 2 * n: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                       b"/Resources << /Font << /F1 4 0 R >> /Pattern << /P1 3 0 R >> >> >>"
                       % (11 + 2 * n) for n in pages},
        **{11 + 2 * n: b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)
           for n, content in zip(pages, contents, strict=True)},
    })


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ok.txt").write_text(GOOD_TEXT)
    return folder


# -- 2. the text one file gives is bounded -------------------------------------------------

@pytest.mark.heavy
def test_the_testers_pdf_is_refused_at_once_and_the_rest_indexed(docs, tmp_path):
    """Issue 17's PDF: 4 pages on one 60 MB stream of text, 60 KB packed, gave 240 M
    characters in 63 s at 1 GB. Its first page alone could give more than the limit."""
    (docs / "bomb.pdf").write_bytes(pdf(4, text_run(b"A" * 60_000_000)))
    assert (docs / "bomb.pdf").stat().st_size < 200_000

    with closing(Index.create(tmp_path / "index")) as index:
        started = time.perf_counter()
        first = index.add([docs])
        seconds = time.perf_counter() - started
        again = index.add([docs])
        indexed = [Path(d.path).name for d in index.documents()]

    assert first.failed == again.failed == [(str(docs / "bomb.pdf"), (
        "the text of this PDF could exceed 25,000,000 characters: its pages draw 60.0 MB of "
        "content (a stream shared by pages, or a form drawn many times, counted each time); "
        "the limit is one character of text per byte of max_file_mb (qa index --max-file-mb)"))]
    assert indexed == ["ok.txt"]
    assert seconds < 20  # the PDF itself takes about a second


@pytest.mark.heavy
def test_a_stream_shared_by_pages_is_counted_for_each_page(tmp_path):
    """400 KB of text, drawn by 4 pages: 1.6 M characters, over a limit of 1 M, though
    the stream itself is under it."""
    path = tmp_path / "shared.pdf"
    path.write_bytes(pdf(4, text_run(b"A" * 400_000)))

    with pytest.raises(LoadError, match=r"^the text of this PDF could exceed 1,000,000 "
                                        r"characters: its pages draw 1\.2 MB of content"):
        load(path, path.read_bytes(), max_chars=1_000_000)
    assert len(load(path, path.read_bytes(), max_chars=2_000_000).text) > 1_600_000


def test_a_form_drawn_many_times_is_counted_each_time_before_the_page_is_read(tmp_path):
    """A page of 16 KB that draws a form of 1,000 characters 2,000 times: 2 M characters,
    and 2,000 drawings (each costing FORM_COST)."""
    path = tmp_path / "forms.pdf"
    path.write_bytes(pdf(1, b"/Fm Do\n" * 2_000, form=b"B" * 1_000))

    with pytest.raises(LoadError, match=r"^the text of this PDF could exceed 1,000,000 "
                                        r"characters: its pages draw 6\.1 MB of content"):
        load(path, path.read_bytes(), max_chars=1_000_000)


def test_nested_forms_are_counted_as_often_as_they_are_drawn(tmp_path):
    """Issue 26, item 7: 6 KB, 20 pages, each drawing a form that draws another 100 times,
    which draws a third 100 times; pypdf took 1.6 to 5 s a page. Refused before the first
    page is read at a limit of 10 MB (each page draws 20 MB)."""
    path = tmp_path / "nested.pdf"
    path.write_bytes(pdf_nested_forms())
    assert path.stat().st_size < 10_000

    with pytest.raises(LoadError, match=r"^the text of this PDF could exceed 10,000,000 "
                                        r"characters: its pages draw 20\.\d MB of content"):
        load(path, path.read_bytes(), max_chars=10_000_000)


def test_any_format_is_held_to_the_limit_as_it_is_read(tmp_path):
    path = tmp_path / "long.docx"
    path.write_bytes(docx_with_paragraphs(["Apples ripen slowly in the autumn sun."] * 5_000))

    assert len(load(path, path.read_bytes()).text) > 100_000
    with pytest.raises(LoadError, match=r"^the text of this file would exceed 100,000 "
                                        r"characters; the limit is one character"):
        load(path, path.read_bytes(), max_chars=100_000)


# -- 2b. formats that repeat or copy their content: the text is charged as it is made ------

def _zip_patched(data: bytes, member: str, change) -> bytes:
    """A zip package with one member's text changed by `change` (the others as they were)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(out, "w") as new:
        for info in old.infolist():
            body = old.read(info)
            if info.filename == member:
                body = change(body.decode()).encode()
            new.writestr(info, body, zipfile.ZIP_STORED if info.filename == "mimetype"
                         else zipfile.ZIP_DEFLATED)
    return out.getvalue()


def ods_repeats() -> bytes:
    """Issue 26's .ods: a row of 1,024 cells of 40 letters (one cell, repeated), repeated
    a billion times: ~40 T characters from a couple of kilobytes."""
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="Log")
    header = TableRow()
    header.addElement(TableCell())
    header.firstChild.addElement(P(text="Entry"))
    table.addElement(header)
    row = TableRow(numberrowsrepeated=1_000_000_000)
    cell = TableCell(numbercolumnsrepeated=1024)
    cell.addElement(P(text="The night porter locked the east gate at ten."))
    row.addElement(cell)
    table.addElement(row)
    document.spreadsheet.addElement(table)
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def odt_spaces() -> bytes:
    """A paragraph holding one run of a billion spaces (<text:s text:c="1000000000"/>)."""
    from odf.opendocument import OpenDocumentText
    from odf.text import P, S

    document = OpenDocumentText()
    paragraph = P(text="Before the gap.")
    paragraph.addElement(S(c=1_000_000_000))
    document.text.addElement(paragraph)
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def csv_long_header() -> bytes:
    """200 columns named by 1,000 letters each over 3,000 short rows: 1.3 MB that names
    every cell, 600 M characters."""
    header = ",".join(f"{n}{'x' * 999}" for n in range(200))
    return (header + "\n" + ("1," * 199 + "1\n") * 3_000).encode()


def xlsx_shared_string() -> bytes:
    """One shared string of 5,000 letters, referenced by 300 rows of 200 cells under a
    header row: 300 M characters."""
    columns = [openpyxl.utils.get_column_letter(n + 1) for n in range(200)]
    rows = "".join(
        f'<row r="{r}">' + "".join(f'<c r="{c}{r}" t="s"><v>{0 if r > 1 else 1}</v></c>'
                                   for c in columns) + "</row>" for r in range(1, 302))
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    relations = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    kind = relations + "/"
    package = "http://schemas.openxmlformats.org/package/2006/"
    office = "application/vnd.openxmlformats-officedocument.spreadsheetml."
    parts = {
        "[Content_Types].xml": (
            f'<Types xmlns="{package}content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{office}sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" '
            f'ContentType="{office}worksheet+xml"/>'
            '<Override PartName="/xl/sharedStrings.xml" '
            f'ContentType="{office}sharedStrings+xml"/></Types>'),
        "_rels/.rels": (
            f'<Relationships xmlns="{package}relationships"><Relationship Id="rId1" '
            f'Type="{kind}officeDocument" Target="xl/workbook.xml"/></Relationships>'),
        "xl/workbook.xml": (
            f'<workbook xmlns="{main}" xmlns:r="{relations}"><sheets>'
            '<sheet name="Tides" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        "xl/_rels/workbook.xml.rels": (
            f'<Relationships xmlns="{package}relationships">'
            f'<Relationship Id="rId1" Type="{kind}worksheet" Target="worksheets/sheet1.xml"/>'
            f'<Relationship Id="rId2" Type="{kind}sharedStrings" Target="sharedStrings.xml"/>'
            '</Relationships>'),
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{main}"><sheetData>{rows}'
                                    '</sheetData></worksheet>',
        "xl/sharedStrings.xml": (
            f'<sst xmlns="{main}"><si><t>{"harbour " * 625}</t></si><si><t>Tide</t></si></sst>'),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package_zip:
        for name, xml in parts.items():
            package_zip.writestr(name, xml)
    return out.getvalue()


def pptx_one_slide_listed_often() -> bytes:
    """A deck whose one slide of 5,000 letters is listed 20,000 times: 100 M characters."""
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Tides"
    slide.placeholders[1].text = "The tide turns twice a day. " * 180
    out = io.BytesIO()
    deck.save(out)

    def listed_often(xml: str) -> str:
        entry = re.search(r'<p:sldId id="\d+" r:id="(rId\d+)"/>', xml)
        assert entry is not None
        many = "".join(f'<p:sldId id="{256 + n}" r:id="{entry.group(1)}"/>'
                       for n in range(20_000))
        return xml.replace(entry.group(0), many)

    return _zip_patched(out.getvalue(), "ppt/presentation.xml", listed_often)


def epub_one_chapter_listed_often() -> bytes:
    """An e-book whose one chapter of 5,000 letters is listed 20,000 times in its spine."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("tides")
    book.set_title("Tides")
    book.set_language("en")
    chapter = epub.EpubHtml(title="Tides", file_name="tides.xhtml")
    chapter.content = "<h1>Tides</h1><p>" + "The tide turns twice a day. " * 180 + "</p>"
    book.add_item(chapter)
    book.toc, book.spine = [chapter], [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    out = io.BytesIO()
    epub.write_epub(out, book)

    def listed_often(opf: str) -> str:
        entry = re.search(r'<itemref idref="[^"]+"/>', opf)
        assert entry is not None
        return opf.replace(entry.group(0), entry.group(0) * 20_000)

    return _zip_patched(out.getvalue(), "EPUB/content.opf", listed_often)


def docx_merged_down() -> bytes:
    """A table whose cell of 50,000 letters is merged down 800 rows, each spanning 100,000
    grid columns: 40 M characters."""
    import docx

    document = docx.Document()
    table = document.add_table(rows=2, cols=1)
    table.cell(0, 0).text = "Note"
    table.cell(1, 0).text = "The ferry leaves at dawn. " * 2_000
    out = io.BytesIO()
    document.save(out)

    def merged_down(xml: str) -> str:
        last_row = xml.rindex("</w:tr>") + len("</w:tr>")
        merged = ('<w:tr><w:tc><w:tcPr><w:gridSpan w:val="100000"/><w:vMerge/></w:tcPr>'
                  '<w:p/></w:tc></w:tr>')
        return xml[:last_row] + merged * 800 + xml[last_row:]

    return _zip_patched(out.getvalue(), "word/document.xml", merged_down)


def pdf_nested_forms(pages: int = 20) -> bytes:
    """Issue 26's PDF of nested forms: each page draws a form that draws another 100
    times, which draws a third (two letters) 100 times: 10,000 drawings a page from
    6 KB (pypdf stops at 5,000 a page, after seconds)."""
    def form(content: bytes, inner: int | None = None) -> bytes:
        names = b"/XObject << /Fm %d 0 R >>" % inner if inner else b""
        return _stream(content, b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                                b"/Resources << /Font << /F1 99 0 R >> %s >> " % names)

    page = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
            b"/Resources << /Font << /F1 99 0 R >> /XObject << /Fm 4 0 R >> >> >>")
    return _pdf_of({
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % (10 + n) for n in range(pages)), pages),
        3: _stream(b"/Fm Do\n"),
        4: form(b"/Fm Do\n" * 100, 5),
        5: form(b"/Fm Do\n" * 100, 6),
        6: form(text_run(b"ab")),
        **{10 + n: page for n in range(pages)},
        99: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    })


TOO_MUCH_TEXT = "the text of this file would exceed 25,000,000 characters"
HOSTILE = {  # name: (the file, how its refusal begins)
    "log.ods": (ods_repeats, TOO_MUCH_TEXT),
    "gap.odt": (odt_spaces, TOO_MUCH_TEXT),
    "wide.csv": (csv_long_header, TOO_MUCH_TEXT),
    "shared.xlsx": (xlsx_shared_string, TOO_MUCH_TEXT),
    "deck.pptx": (pptx_one_slide_listed_often, TOO_MUCH_TEXT),
    "book.epub": (epub_one_chapter_listed_often, TOO_MUCH_TEXT),
    "merged.docx": (docx_merged_down, TOO_MUCH_TEXT),
    "forms.pdf": (pdf_nested_forms, "the text of this PDF could exceed 25,000,000 "
                                    "characters: its pages draw"),
}


@pytest.mark.process
def test_small_files_that_repeat_their_text_are_refused_as_it_grows(docs, tmp_path):
    """Issue 26, items 1 and 2: each file, a few kilobytes to 1.3 MB, would give 40 M to
    40 T characters once its repeats (rows, cells, spaces, slides, chapters, merged cells)
    or its column names are spelt out; `qa index` refuses each with one line, in bounded
    memory, and indexes the rest of the folder."""
    for name, (make, _) in HOSTILE.items():
        (docs / name).write_bytes(make())
        assert (docs / name).stat().st_size < 1_500_000

    code, out, err, peak_mb = _qa_index(tmp_path / "index", docs)
    baseline_mb = baseline_peak_mb(tmp_path, {"ok.txt": GOOD_TEXT.encode()})  # its one good file

    print(f"\npeak RSS of `qa index` over the hostile folder: {peak_mb} MB, "
          f"over its one readable file: {baseline_mb} MB")
    failed = {line.split(": ", 2)[1]: line.split(": ", 2)[2]
              for line in err.splitlines() if line.startswith("failed: ")}
    assert set(failed) == {str(docs / name) for name in HOSTILE}
    for name, (_, reason) in HOSTILE.items():
        assert failed[str(docs / name)].startswith(reason)
        assert failed[str(docs / name)].endswith("; the limit is one character of text per "
                                                 "byte of max_file_mb (qa index --max-file-mb)")
    assert code == 0 and "1 added" in out
    assert peak_mb < baseline_mb + 150  # the hostile files add ~60


# -- 3. drawing is bounded -------------------------------------------------------------------

@pytest.mark.heavy
@pytest.mark.process
def test_a_page_pdfium_never_finishes_drawing_is_left_out_of_ocr_in_bounded_time(docs):
    """Issue 35: a text-less page painted with a tiling pattern of a tiny step; PDFium
    never returned from drawing it for OCR, and `qa index` hung (killed at 90 s). Now
    the page is left out after DRAW_SECONDS, in one line, and the rest is indexed."""
    (docs / "tiled.pdf").write_bytes(tiled_pdf(text_run(b"The barn roof was mended."),
                                               TILED))
    index = docs.parent / "index"

    done = subprocess.run([*QA, "--index", str(index), "index", str(docs)], env=ENV,
                          cwd=ROOT, capture_output=True, text=True, timeout=180)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2 added, 0 updated, 0 unchanged, 0 removed, 0 failed")
    assert ("WARNING: OCR stopped: page 2 could not be drawn in 10 s; this page and the "
            "pages without text after it are left out") in done.stderr
    assert "Traceback" not in done.stderr
    found = subprocess.run([*QA, "--index", str(index), "search", "barn roof", "-k", "1"],
                           env=ENV, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert found.stdout.startswith(f"1. {docs / 'tiled.pdf'}, page 1"), found.stdout


# -- 4. names that are not UTF-8 ------------------------------------------------------------

@pytest.mark.parametrize("backend", ["sqlite", pytest.param("milvus", marks=pytest.mark.milvus)])
def test_names_that_are_not_utf8_are_skipped_and_the_rest_indexed(docs, tmp_path, backend):
    folder = os.fsencode(docs)
    with open(folder + b"/caf\xe9.txt", "wb") as file:
        file.write(b"Coffee is served at nine.")
    os.mkdir(folder + b"/r\xe9sum\xe9s")
    with open(folder + b"/r\xe9sum\xe9s/cv.txt", "wb") as file:
        file.write(b"A resume of twenty years at sea.")

    with closing(Index.create(tmp_path / "index", backend=BackendConfig(backend))) as index:
        first, again = index.add([docs]), index.add([docs])
        indexed = [Path(d.path).name for d in index.documents()]

    assert indexed == ["ok.txt"] and (first.added, again.unchanged) == (1, 1)
    assert first.skipped == again.skipped == [(os.fsdecode(folder + name), NAME_NOT_UTF8)
                       for name in (b"/caf\xe9.txt", b"/r\xe9sum\xe9s")]


def test_qa_prints_each_name_on_one_line_whatever_it_holds(docs, tmp_path, capsys):
    """`qa index` names a file that is not UTF-8 by its bytes (once, though named twice);
    `qa docs` gives a name holding a newline on its one line."""
    cafe = os.fsencode(docs) + b"/caf\xe9.txt"
    with open(cafe, "wb") as file:
        file.write(b"Coffee is served at nine.")
    (docs / "two\nlines.txt").write_text("A name in two lines holds this sentence.")
    index = str(tmp_path / "index")

    assert main(["--index", index, "index", str(docs), os.fsdecode(cafe)]) == 0
    indexing = capsys.readouterr()
    assert main(["--index", index, "docs"]) == 0
    listing = capsys.readouterr().out.splitlines()

    reports = [line for line in indexing.err.splitlines()  # not the progress bar's lines
               if line.startswith(("skipped:", "failed:"))]
    assert reports == [f"skipped: {docs}/caf\\xe9.txt: {NAME_NOT_UTF8}"]
    assert "2 added" in indexing.out
    assert [line.split("\t")[0] for line in listing[:-1]] == [f"{docs}/ok.txt",
                                                              f"{docs}/two\\nlines.txt"]
    assert listing[-1] == "2 documents"


# -- 5. a file is checked and read through one descriptor --------------------------------

@pytest.fixture
def found(docs, tmp_path) -> tuple[Path, Path]:
    """docs/inner/notes.txt, as `find` found it, and a secret file outside docs."""
    (docs / "inner").mkdir()
    (docs / "inner" / "notes.txt").write_text(GOOD_TEXT)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("The safe's combination is 12-34-56.")
    files = [item[0] for item in find([docs]) if not isinstance(item, Outcome)]
    assert docs / "inner" / "notes.txt" in files
    return docs / "inner" / "notes.txt", outside


def _prepare(path: Path) -> Outcome:
    outcome = prepare(path, None, False, Settings(), load_embedder())
    assert isinstance(outcome, Outcome), "the file was read"
    return outcome


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_a_file_swapped_for_a_link_after_it_was_found_is_not_read(found, target):
    file, outside = found
    file.unlink()
    file.symlink_to(outside / "notes.txt" if target == "outside" else target)

    outcome = _prepare(file)

    assert (outcome.status, outcome.reason) == ("failed", (
        "a symbolic link where a file was found (links are not followed here: the path "
        "changed while it was being indexed)"))


def test_a_folder_swapped_for_a_link_after_it_was_found_is_not_read(found):
    file, outside = found
    file.parent.rename(file.parent.with_name("moved"))
    file.parent.symlink_to(outside)

    assert _prepare(file).status == "failed"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to give a folder to another user")
@pytest.mark.process
def test_a_file_in_a_folder_one_may_pass_through_but_not_list_is_read(tmp_path):
    """Folders are opened to pass through (O_PATH), as a path is walked, not to be listed:
    /home/alice at 0711 does not keep Bob from /home/alice/public/notes.txt."""
    home = tmp_path / "alice"
    (home / "public").mkdir(parents=True)
    (home / "public" / "notes.txt").write_text(GOOD_TEXT)
    os.chmod(tmp_path, 0o755)
    os.chown(home, 65534, 65534)
    os.chmod(home, 0o711)
    read = ("from pathlib import Path; from qa.indexing.files import open_regular; "
            f"print(open_regular(Path({str(home / 'public' / 'notes.txt')!r})).read().decode())")

    done = subprocess.run([sys.executable, "-c", read], env={**ENV, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, preexec_fn=_without_root_file_access)

    assert (done.returncode, done.stdout.strip()) == (0, GOOD_TEXT), done.stderr


# -- 11. a run of letters without spaces ----------------------------------------------------

@pytest.mark.heavy
def test_a_run_of_letters_without_spaces_is_cut_into_passages_of_bounded_size(docs, tmp_path,
                                                                            capsys):
    (docs / "run.txt").write_text("x" * 1_000_000)
    index = str(tmp_path / "index")
    assert main(["--index", index, "index", str(docs)]) == 0
    capsys.readouterr()

    assert main(["--index", index, "search", "--json", "-k", "5", "x" * 50]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]

    assert len(hits) == 5 and all(len(hit["text"]) <= 2_000 for hit in hits)
    assert any(Path(hit["source"]).name == "run.txt" for hit in hits)
