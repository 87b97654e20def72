"""Files made to hurt the indexer (issue 17): a small PDF whose pages unpack to gigabytes of
text, names that are not UTF-8 or hold a newline, a file swapped for a link after it was
found, a run of letters without a space. Each is a real file on disk, indexed for real."""

import json
import os
import subprocess
import sys
import time
import zlib
from contextlib import closing
from pathlib import Path

import pytest

from qa import BackendConfig, Index, Settings
from qa.cli import main
from qa.documents import NAME_NOT_UTF8, LoadError, load
from qa.embedding import load_embedder
from qa.ingest import Outcome, find, prepare
from tests.helpers import ENV, ROOT
from tests.test_bad_files import _without_root_file_access, docx_with_paragraphs

GOOD_TEXT = "The orchard has forty apple trees and one old pear tree."


def pdf(pages: int, content: bytes, form: bytes = b"") -> bytes:
    """A PDF of `pages` pages that all draw one shared content stream (deflated), in
    Helvetica, with a form XObject /Fm that shows the text `form`."""
    def stream(data: bytes, entries: bytes = b"") -> bytes:
        packed = zlib.compress(data, 9)
        return b"<< %s/Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (
            entries, len(packed), packed)

    font = b"<< /Font << /F1 99 0 R >> >>"
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % (5 + n) for n in range(pages)), pages),
        3: stream(content),
        4: stream(text_run(form), b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] "
                                  b"/Resources %s " % font),
        **{5 + n: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
                  b"/Resources << /Font << /F1 99 0 R >> /XObject << /Fm 4 0 R >> >> >>"
           for n in range(pages)},
        99: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
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
        "the text of this PDF could exceed 25,000,000 characters: its pages hold 60.0 MB of "
        "content (a stream shared by pages counted for each); the limit is one character of "
        "text per byte of max_file_mb (qa index --max-file-mb)"))]
    assert indexed == ["ok.txt"]
    assert seconds < 20  # the PDF itself takes about a second


@pytest.mark.heavy
def test_a_stream_shared_by_pages_is_counted_for_each_page(tmp_path):
    """400 KB of text, drawn by 4 pages: 1.6 M characters, over a limit of 1 M, though
    the stream itself is under it."""
    path = tmp_path / "shared.pdf"
    path.write_bytes(pdf(4, text_run(b"A" * 400_000)))

    with pytest.raises(LoadError, match=r"^the text of this PDF could exceed 1,000,000 "
                                        r"characters: its pages hold 1\.2 MB of content"):
        load(path, path.read_bytes(), max_chars=1_000_000)
    assert len(load(path, path.read_bytes(), max_chars=2_000_000).text) > 1_600_000


@pytest.mark.heavy
def test_text_drawn_many_times_from_a_small_stream_is_counted_as_it_comes(tmp_path):
    """A page of 16 KB that draws a form of 1,000 characters 2,000 times: 2 M characters."""
    path = tmp_path / "forms.pdf"
    path.write_bytes(pdf(1, b"/Fm Do\n" * 2_000, form=b"B" * 1_000))

    with pytest.raises(LoadError, match=r"^the text of this PDF would exceed 1,000,000 "
                                        r"characters; the limit is one character"):
        load(path, path.read_bytes(), max_chars=1_000_000)


def test_any_format_is_held_to_the_limit_after_loading(tmp_path):
    path = tmp_path / "long.docx"
    path.write_bytes(docx_with_paragraphs(["Apples ripen slowly in the autumn sun."] * 5_000))

    characters = len(load(path, path.read_bytes()).text)

    with pytest.raises(LoadError, match=rf"^the text of this file is {characters:,} characters, "
                                        r"over 100,000; the limit is one character"):
        load(path, path.read_bytes(), max_chars=100_000)


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
    read = ("from pathlib import Path; from qa.documents import open_regular; "
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
