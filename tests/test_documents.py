"""Loaders: each format on a small file made here, and the files that must be skipped."""

import functools
import io
import random
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from qa.indexing.files import find_files
from qa.loaders.formats import Document, LoadError, load
from tests.helpers import zip_of
from tests.test_bad_files import docx_bomb, docx_with_paragraphs


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
    assert "Pears; September." in document.text  # a table of one row: no header to name it


def _load_traced(path: Path) -> tuple[Exception, float]:
    """The error loading `path` raises, and the peak MB allocated while loading it."""
    data = path.read_bytes()
    tracemalloc.start()
    try:
        with pytest.raises(LoadError) as error:
            load(path, data)
        return error.value, tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_a_docx_zip_bomb_is_refused_before_it_is_unpacked(tmp_path):
    path = tmp_path / "bomb.docx"
    path.write_bytes(docx_bomb())
    assert path.stat().st_size < 300_000

    error, peak_mb = _load_traced(path)

    assert str(error).startswith("word/document.xml in this .docx unpacks to 29")
    assert str(error).endswith("(50.0 MB), a zip bomb; the limit is 100 times")
    assert peak_mb < 5, f"loading allocated {peak_mb:.0f} MB"


@functools.cache
def _long_docx() -> bytes:
    noise = random.Random(0).randbytes(15_000_000).hex()  # 30 MB of text that packs 2:1
    return docx_with_paragraphs([noise[i:i + 1000] for i in range(0, len(noise), 1000)])


def _renamed(docx: bytes, old: str, new: str) -> bytes:
    """The .docx with its part `old` under the name `new`, as its manifest and
    relationships say (python-docx finds parts through them, not by extension)."""
    archive = zipfile.ZipFile(io.BytesIO(docx))
    members = {name: archive.read(name) for name in archive.namelist()}
    members[new] = members.pop(old)
    for name in ("[Content_Types].xml", "_rels/.rels"):
        members[name] = members[name].replace(Path(old).name.encode(), Path(new).name.encode())
    return zip_of(members)


@pytest.mark.heavy
@pytest.mark.parametrize("document", ["word/document.xml", "word/document.dat"])
def test_a_docx_with_too_much_xml_is_refused_even_when_it_packs_normally(tmp_path, document):
    path = tmp_path / "long.docx"
    path.write_bytes(_renamed(_long_docx(), "word/document.xml", document))
    assert path.stat().st_size > 10_000_000  # no zip bomb

    error, peak_mb = _load_traced(path)

    assert str(error) == "the XML in this .docx unpacks to 31.8 MB; the limit is 25 MB"
    assert peak_mb < 5, f"loading allocated {peak_mb:.0f} MB"


def test_a_docx_whose_document_part_is_renamed_still_loads(tmp_path):
    """Why the limit counts more than the names ending in .xml."""
    path = tmp_path / "renamed.docx"
    path.write_bytes(_renamed(docx_with_paragraphs(["Pears ripen in September."]),
                              "word/document.xml", "word/document.dat"))

    assert "Pears ripen in September." in _load(path).text


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


@pytest.mark.parametrize("depth", [300, 3000])  # past libxml2's 256 levels, and its 2048
def test_html_nested_too_deep_for_the_parser_keeps_its_text(tmp_path, depth):
    path = tmp_path / "deep.html"
    path.write_text(
        "<html><head><title>Deep page</title><style>p { color: red }</style></head><body>"
        + "<div>" * depth + "<script>var SCRIPTNOISE = 1;</script>"
        "<p>The harbour of Port Ellen reopened after the storm of 1998 damaged its piers.</p>"
        + "</div>" * depth + "<p>Ferries run again.</p></body></html>"
    )

    document = _load(path)

    assert document.title == "Deep page"
    assert "The harbour of Port Ellen reopened after the storm of 1998" in document.text
    assert "SCRIPTNOISE" not in document.text and "color" not in document.text


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
        ("song.mp3", b"ID3\x04\x00", "unsupported file type"),
        ("image.png", b"\x89PNG\r\n", "not a readable image"),
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

    found = {f.path.relative_to(tmp_path).as_posix() for f in find_files([tmp_path])}

    assert found == {"a/one.txt", "a/b/two.md"}
