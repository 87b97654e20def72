"""Loaders: each format on a small file made here, and the files that must be skipped."""

from pathlib import Path

import pytest

from qa.documents import Document, LoadError, find_files, load


def _load(path: Path) -> Document:
    return load(path, path.read_bytes())


def test_pdf_pages_are_recorded(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in ("The first page is about apples.", "The second page is about pears."):
        pdf.add_page()
        pdf.multi_cell(0, 10, text)
    path = tmp_path / "fruit.pdf"
    pdf.output(str(path))

    document = _load(path)

    assert [page for _, _, page in document.sections()] == [1, 2]
    second = document.sections()[1]
    assert "pears" in document.text[second[0]:second[1]]
    assert "pears" not in document.text[: document.sections()[0][1]]


def test_docx_paragraphs_and_tables(tmp_path):
    import docx

    word = docx.Document()
    word.core_properties.title = "Orchard report"
    word.add_paragraph("Apples ripen in autumn.")
    table = word.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Pears"
    table.rows[0].cells[1].text = "September"
    path = tmp_path / "report.docx"
    word.save(path)

    document = _load(path)

    assert document.title == "Orchard report"
    assert "Apples ripen in autumn." in document.text
    assert "Pears | September" in document.text


def test_html_main_text_without_navigation_or_scripts(tmp_path):
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Harbour news</title><script>var tracker = 'SCRIPTNOISE';</script>"
        "</head><body><nav><a href='/'>Home</a> <a href='/x'>NAVNOISE menu</a></nav>"
        "<article><h1>Harbour news</h1><p>The harbour reopened on Monday after the storm "
        "damaged two of its piers. Fishing boats returned the same afternoon, and the "
        "harbour master said repairs would take a month.</p><p>Ferries to the islands "
        "will run on a reduced timetable until the piers are rebuilt.</p></article>"
        "<footer>FOOTERNOISE copyright</footer></body></html>",
        encoding="utf-8",
    )

    document = _load(path)

    assert document.title == "Harbour news"
    assert "harbour reopened on Monday" in document.text
    for noise in ("SCRIPTNOISE", "NAVNOISE", "tracker"):
        assert noise not in document.text


def test_latin1_text_is_decoded_not_garbled(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes("Le café de la gare ouvre à sept heures. Crème brûlée.".encode("latin-1"))

    assert "café de la gare ouvre à sept heures" in _load(path).text


def test_utf16_with_bom_is_decoded(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes("Zürich hat einen See.".encode("utf-16"))

    assert _load(path).text == "Zürich hat einen See."


def test_markdown_title_is_its_first_heading(tmp_path):
    path = tmp_path / "guide.md"
    path.write_text("Intro line.\n\n# Garden guide\n\nWater the roses weekly.\n")

    assert _load(path).title == "Garden guide"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.txt", b"", "no text"),
        ("blank.txt", b"  \n\t\n", "no text"),
        ("image.png", b"\x89PNG\r\n", "unsupported file type"),
        ("broken.docx", b"this is not a zip file", "not a valid .docx"),
        ("binary.txt", bytes(range(256)) * 4, "binary"),
    ],
)
def test_files_that_cannot_be_indexed_say_why(tmp_path, name, data, reason):
    path = tmp_path / name
    path.write_bytes(data)

    with pytest.raises(LoadError, match=reason):
        _load(path)


def test_find_files_recurses_and_skips_hidden(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()
    for name in ("a/one.txt", "a/b/two.md", ".hidden/three.txt", "a/.secret.txt"):
        (tmp_path / name).write_text("text")

    found = {p.relative_to(tmp_path).as_posix() for p in find_files([tmp_path])}

    assert found == {"a/one.txt", "a/b/two.md"}
