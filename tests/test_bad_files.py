"""Bad files: one folder of every kind of file that can go wrong, indexed by a real `qa index`.

The folder holds good files with awkward names and encodings (each must be indexed
with its text right) and files that cannot be indexed (each must be reported on
one line naming it, with its own reason). The index already holds documents
before the run, and they must come out of it exactly as they went in.

As root, `chmod 000` hides nothing, so the run drops the capabilities that let
root read any file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) before it starts.
"""

import ctypes
import io
import os
import random
import sqlite3
import subprocess
import sys
import threading
import tracemalloc
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from qa import Index, Settings
from qa.backends.sqlite import SQLiteBackend
from tests.helpers import ENV, zip_of

# `qa` as its own process, reporting its peak resident memory as it exits (VmHWM: the
# peak of its own memory; ru_maxrss would count the pytest process it was forked from)
QA_MEASURED = [sys.executable, "-c", (
    "import re, sys\n"
    "from qa.cli import main\n"
    "code = main()\n"
    "peak = re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1]\n"
    "print(f'peak-rss-kb: {peak}', file=sys.stderr)\n"
    "raise SystemExit(code)"
)]
NO_TEXT = "no text to index (the file is empty or has no text layer)"
HUGE_BYTES = 50_000_000
ORCHARD = "# Orchard\n\nThe orchard at Kelso grows forty varieties of heritage apples.\n"

# Good files: name -> (bytes, the text the index must hold, a question that finds it).
GERMAN = "Die Brücke über den Fluß in Zürich ist schön. Straßenbahnen fahren über sie. "
GOOD = {
    "harbour notes.txt": (
        b"The harbour of Port Ellen reopened after the storm of 1998 damaged its piers.\n",
        "The harbour of Port Ellen reopened after the storm of 1998 damaged its piers.\n",
        "Port Ellen harbour storm piers",
    ),
    "café ☕ 日本.md": (
        "# Kaffee\n\nThe café in Kyoto roasts its beans over cherry wood.\n".encode(),
        "# Kaffee\n\nThe café in Kyoto roasts its beans over cherry wood.\n",
        "cafe Kyoto beans cherry wood",
    ),
    "new\nline.txt": (
        b"The lighthouse keeper on Skerryvore logged every passing ship.\n",
        "The lighthouse keeper on Skerryvore logged every passing ship.\n",
        "Skerryvore lighthouse keeper ships",
    ),
    "latin-1.txt": (
        "Le café de la gare ouvre à sept heures. La crème brûlée est célèbre.".encode("latin-1"),
        "Le café de la gare ouvre à sept heures. La crème brûlée est célèbre.",
        "café de la gare crème brûlée",
    ),
    "utf-16.txt": (
        "Zürich hat einen See, und die Fähre fährt stündlich nach Küsnacht.".encode("utf-16"),
        "Zürich hat einen See, und die Fähre fährt stündlich nach Küsnacht.",
        "Fähre Küsnacht stündlich",
    ),
    "stray byte.txt": (  # UTF-8 with one invalid byte: indexed, the byte replaced
        GERMAN.encode() * 3 + b"\xff" + "Die Brücke wurde 1911 gebaut.".encode(),
        GERMAN * 3 + "\ufffd" + "Die Brücke wurde 1911 gebaut.",
        "Brücke gebaut 1911",
    ),
}


def _pdf(text: str | None) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    if text is None:  # a scan: a picture of a page, no text layer
        pdf.rect(20, 20, 120, 80, style="F")
    else:
        pdf.set_font("Helvetica", size=12)
        pdf.multi_cell(0, 10, text)
    return bytes(pdf.output())


def _encrypted_pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=io.BytesIO(_pdf("The vault code is 4471.")))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _docx(text: str) -> bytes:
    import docx

    document = docx.Document()
    document.add_paragraph(text)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _damaged_docx() -> bytes:
    """A well-formed zip whose word/document.xml is cut short: bad XML, not a bad zip."""
    good = zipfile.ZipFile(io.BytesIO(_docx("Cut short. " * 40)))
    members = {name: good.read(name) for name in good.namelist()}
    members["word/document.xml"] = members["word/document.xml"][:700]
    return zip_of(members)


def docx_with_paragraphs(paragraphs: list[str]) -> bytes:
    """A real .docx (Word's XML, zipped with DEFLATE) holding these paragraphs."""
    good = zipfile.ZipFile(io.BytesIO(_docx("seed")))
    members = {name: good.read(name) for name in good.namelist()}
    body = "".join(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>" for p in paragraphs)
    members["word/document.xml"] = members["word/document.xml"].replace(
        b"<w:body>", b"<w:body>" + body.encode(), 1)
    return zip_of(members)


def docx_bomb() -> bytes:
    """The tester's zip bomb: a ~180 KB .docx whose document.xml is 50 MB of paragraphs."""
    return docx_with_paragraphs(["All work and no play makes Jack a dull boy."] * 658_000)


REPORT_DOCX = "report.docx"  # indexed before the run, then truncated: its old text must stay
# Bad files: name -> (bytes or a maker, the exact reason or a pattern for it).
BAD = {
    "empty.txt": (b"", NO_TEXT),
    "whitespace.txt": (b"  \n\t \r\n   \n", NO_TEXT),
    "binary.txt": (random.Random(0).randbytes(20_000), "binary data or an unknown text encoding"),
    "huge.txt": (None, "the file is 50.0 MB; the limit is 25 MB (max_file_mb, qa index "
                       "--max-file-mb)"),
    "encrypted.pdf": (_encrypted_pdf, "encrypted PDF (a password is needed to read it)"),
    "scanned.pdf": (lambda: _pdf(None), NO_TEXT),
    "unknown filter.pdf": (
        lambda: _pdf("Hidden behind a filter.").replace(b"/FlateDecode", b"/FlateDecodX"),
        "unreadable pdf file: Unsupported filter /FlateDecodX",
    ),
    "truncated.docx": (lambda: _docx("Truncated. " * 200)[:3000],
                       "not a valid .docx file: File is not a zip file"),
    "really a zip.docx": (
        lambda: zip_of({"notes.txt": b"not a word document"}),
        "not a valid .docx file: \"There is no item named '[Content_Types].xml' in the archive\"",
    ),
    "damaged.docx": (_damaged_docx, "not a valid .docx file: "),  # then lxml's own words
    "zip bomb.docx": (docx_bomb, "word/document.xml in this .docx unpacks to 293 times its "
                                 "packed size (50.0 MB), a zip bomb; the limit is 100 times"),
    "loop.txt": (None, "Too many levels of symbolic links"),
    "dangling.txt": (None, "No such file or directory"),
    "locked.txt": (b"The combination is 12-34-56.", "Permission denied"),
    REPORT_DOCX: (None, "not a valid .docx file: File is not a zip file"),
    "empty\nname.txt": (b"", NO_TEXT),  # one line per file, even for this name (see below)
}


def _make_folder(folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    for name, (data, _, _) in GOOD.items():
        (folder / name).write_bytes(data)
    for name, (data, _) in BAD.items():
        if callable(data):
            data = data()
        if isinstance(data, bytes):
            (folder / name).write_bytes(data)
    with (folder / "huge.txt").open("w") as out:  # 50 MB of real text
        line = "Enormous notes about nothing in particular, repeated at length.\n"
        out.write(line * (HUGE_BYTES // len(line)))
        out.write("x" * (HUGE_BYTES % len(line)))
    (folder / "loop.txt").symlink_to("loop.txt")
    (folder / "dangling.txt").symlink_to(folder / "gone" / "nowhere.txt")
    (folder / "locked.txt").chmod(0)
    report = folder / REPORT_DOCX
    report.write_bytes(report.read_bytes()[:2000])


def _without_root_file_access() -> None:
    """In the child, before exec: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the
    bounding set, so that root is refused a chmod 000 file like anyone else."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def _qa_index(index: Path, folder: Path, *options: str) -> tuple[int, str, str, int]:
    """Run `qa index` as its own process; (exit code, stdout, stderr, peak RSS in MB)."""
    done = subprocess.run(
        [*QA_MEASURED, "--index", str(index), "index", str(folder), *options],
        env=ENV, capture_output=True, text=True, timeout=300,
        preexec_fn=_without_root_file_access,
    )
    err, _, peak = done.stderr.rpartition("peak-rss-kb: ")
    return done.returncode, done.stdout, err, int(peak) // 1024


def baseline_peak_mb(tmp_path: Path, files: dict[str, bytes]) -> int:
    """The peak RSS of `qa index` over a folder of just these files: what the model and
    the libraries take (600-750 MB, by how their files sit in the page cache: a fresh venv
    maps ~100 MB more of them, RssFile, not RssAnon), against which a run is bounded."""
    folder = tmp_path / "baseline-files"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    *_, peak_mb = _qa_index(tmp_path / "baseline-index", folder)
    return peak_mb


def _rows(database: Path, paths: list[str]) -> dict:
    """Everything the database holds for the documents at `paths`, and the passages the
    keyword search finds among them for each one's own words (as sets: the ranking moves
    with the other documents indexed)."""
    with sqlite3.connect(database) as db:
        marks = ", ".join("?" * len(paths))
        documents = db.execute(
            f"SELECT * FROM documents WHERE path IN ({marks}) ORDER BY path", paths
        ).fetchall()
        ids = [row[0] for row in documents]
        id_marks = ", ".join("?" * len(ids))
        chunks = db.execute(
            f"SELECT * FROM chunks WHERE document_id IN ({id_marks}) ORDER BY id", ids
        ).fetchall()
        chunk_ids = [row[0] for row in chunks]
        chunk_marks = ", ".join("?" * len(chunk_ids))
        sentences = db.execute(
            f"SELECT * FROM sentences WHERE chunk_id IN ({chunk_marks}) "
            "ORDER BY chunk_id, start_char", chunk_ids
        ).fetchall()
    backend = SQLiteBackend(database.parent)
    try:
        keywords = [sorted(found) for found in backend.keyword_search(
            ["Kelso heritage apples", "quarterly ferry profit"], 10, paths)]
    finally:
        backend.close()
    return {"documents": documents, "chunks": chunks, "sentences": sentences,
            "keywords": keywords}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The index before, the folder, and the outcome of `qa index` on it, then `--strict`."""
    root = tmp_path_factory.mktemp("bad-files")
    index, kept, folder = root / "index", root / "kept", root / "bad"
    kept.mkdir()
    (kept / "orchard.md").write_text(ORCHARD)
    folder.mkdir()
    (folder / REPORT_DOCX).write_bytes(_docx("The quarterly report shows the ferry made a profit."))
    Index.build([kept, folder], path=index).close()
    before_paths = [str(kept / "orchard.md"), str(folder / REPORT_DOCX)]
    before = _rows(index / "index.sqlite3", before_paths)

    _make_folder(folder)
    lenient = _qa_index(index, folder)
    strict = _qa_index(index, folder, "--strict")
    yield {"index": index, "folder": folder, "before": before, "before_paths": before_paths,
           "lenient": lenient, "strict": strict}
    (folder / "huge.txt").unlink()


def _failure_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("failed: ")]


@pytest.mark.process
def test_every_bad_file_is_reported_on_one_line_with_its_reason(run):
    code, out, err, _ = run["lenient"]
    folder = run["folder"]

    assert code == 0, err
    lines = _failure_lines(err)
    for name, (_, reason) in BAD.items():
        if "\n" in name:
            continue  # test_a_file_name_with_a_newline_does_not_break_its_line
        prefix = f"failed: {folder / name}: "
        mine = [line for line in lines if line.startswith(prefix)]
        assert len(mine) == 1, (name, err)
        assert mine[0][len(prefix):].startswith(reason), (name, mine[0])
    assert "Traceback" not in err
    assert out.strip() == (
        f"{len(GOOD)} added, 0 updated, 0 unchanged, 0 removed, {len(BAD)} failed, 0 skipped; "
        + out.split("; ")[1].strip()
    )


@pytest.mark.process
def test_a_file_name_with_a_newline_does_not_break_its_line(run):
    _, _, err, _ = run["lenient"]

    lines = _failure_lines(err)
    assert len(lines) == len(BAD)
    assert any("empty\\nname.txt" in line and line.endswith(NO_TEXT) for line in lines)


@pytest.mark.process
def test_strict_makes_failures_exit_1_and_the_summary_counts_them(run):
    code, out, err, _ = run["strict"]

    assert code == 1, err
    assert out.startswith(
        f"0 added, 0 updated, {len(GOOD)} unchanged, 0 removed, {len(BAD)} failed, 0 skipped"
    )
    assert "Traceback" not in err


@pytest.mark.process
def test_good_files_are_indexed_with_their_text_right(run):
    index = Index.open(run["index"])
    try:
        for name, (_, text, question) in GOOD.items():
            path = str(run["folder"] / name)
            assert index.document_text(path) == text, name
            assert path in {hit.source for hit in index.search(question, k=3)}, name
        indexed = {Path(d.path).name for d in index.documents()}
        assert indexed == {*GOOD, "orchard.md", REPORT_DOCX}
    finally:
        index.close()


@pytest.mark.process
def test_what_was_indexed_before_is_neither_lost_nor_changed(run):
    after = _rows(run["index"] / "index.sqlite3", run["before_paths"])

    assert len(after["documents"]) == 2 and after["chunks"]
    assert after == run["before"]
    index = Index.open(run["index"])
    try:
        hits = index.search("quarterly report ferry profit", k=1)
        assert hits[0].source == str(run["folder"] / REPORT_DOCX)
    finally:
        index.close()


def test_the_50_mb_file_is_refused_before_it_is_read(tmp_path, seed_index_path):
    """Memory stays bounded: the size limit is checked on the file's size, not its bytes."""
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as out:
        out.write(b"Enormous notes. " * (HUGE_BYTES // 16))
    index = Index.create(tmp_path / "index", Settings())
    index.warm_up()  # the model's own memory is not what is measured

    tracemalloc.start()
    try:
        report = index.add([huge])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        index.close()

    assert report.failed == [(str(huge), BAD["huge.txt"][1])]
    assert peak < 5_000_000, f"indexing allocated {peak / 1e6:.1f} MB at its peak"


@pytest.mark.process
def test_the_whole_run_stays_small_in_memory(run, tmp_path):
    """The peak resident memory of the `qa index` process over the bad folder stays within
    150 MB of the same run over one good file and the scan: the model and the OCR models
    (scanned.pdf is read by OCR, which finds no text in it) are in both."""
    *_, peak_mb = run["lenient"]
    baseline_mb = baseline_peak_mb(tmp_path, {"orchard.md": ORCHARD.encode(),
                                              "scanned.pdf": _pdf(None)})
    print(f"\npeak RSS of `qa index` over the bad folder: {peak_mb} MB, "
          f"over one good file and the scan: {baseline_mb} MB")
    assert peak_mb < baseline_mb + 150


def test_a_named_pipe_is_skipped_not_waited_on(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    os.mkfifo(folder / "a pipe.txt")
    (folder / "notes.txt").write_text(ORCHARD)
    index = Index.create(tmp_path / "index")
    reports = []
    worker = threading.Thread(target=lambda: reports.append(index.add([folder])), daemon=True)

    worker.start()
    worker.join(timeout=3)
    blocked = worker.is_alive()
    if blocked:  # unblock the reader: a writer opens the pipe and closes it (end of file)
        os.close(os.open(folder / "a pipe.txt", os.O_WRONLY))
        worker.join(timeout=30)
    index.close()

    assert not blocked, "indexing waited on the named pipe"
    assert reports[0].added == 1
    assert [path for path, _ in reports[0].failed] == [str(folder / "a pipe.txt")]


def test_each_file_is_indexed_once_and_links_outside_the_folders_are_skipped(
    tmp_path, monkeypatch, capsys
):
    """`docs`, `docs/../docs`, a linked copy of a file and a linked folder are one folder;
    links that lead out of the folders given are reported, not followed."""
    from qa.cli import main

    docs, outside = tmp_path / "docs", tmp_path / "outside"
    (docs / "sub").mkdir(parents=True)
    outside.mkdir()
    (docs / "orchard.md").write_text(ORCHARD)
    (docs / "sub" / "ferry.txt").write_text("The ferry to Arran leaves at nine every morning.\n")
    (outside / "secret.txt").write_text("The vault code is 4471.\n")
    (outside / "named.txt").write_text("The keeper logged every passing ship.\n")
    (docs / "orchard alias.md").symlink_to(docs / "orchard.md")
    (docs / "sub alias").symlink_to(docs / "sub")
    (docs / "passwd.txt").symlink_to(outside / "secret.txt")
    (docs / "elsewhere").symlink_to(outside)
    (tmp_path / "named.txt").symlink_to(outside / "named.txt")
    monkeypatch.chdir(tmp_path)
    index = ["--index", str(tmp_path / "index")]

    code = main([*index, "index", "docs", "docs/../docs", "nosuchdir", "named.txt"])

    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.startswith("3 added, 0 updated, 0 unchanged, 0 removed, 1 failed, "
                                   "2 skipped")
    assert sorted(line for line in captured.err.splitlines()
                  if line.startswith(("failed: ", "skipped: "))) == [
        f"failed: {tmp_path / 'nosuchdir'}: no such file or folder",
        f"skipped: {docs / 'elsewhere'}: links outside the folders given",
        f"skipped: {docs / 'passwd.txt'}: links outside the folders given",
    ]
    opened = Index.open(tmp_path / "index")
    try:
        indexed = sorted(d.path for d in opened.documents())
        hits = opened.search("orchard Kelso heritage apples", k=5)
    finally:
        opened.close()
    assert indexed == sorted(str(p) for p in (docs / "orchard.md", docs / "sub" / "ferry.txt",
                                              outside / "named.txt"))
    assert len({hit.source for hit in hits}) == len(hits)


@pytest.mark.process
def test_a_file_indexed_under_a_second_path_is_dropped_on_the_next_run(tmp_path):
    """An index made before paths were canonical holds a file once per path that reached it
    (here through a link): indexing the folder again keeps it once, at its own path."""
    from qa.indexing.ingest import Report, embed, prepare, write

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orchard.md").write_text(ORCHARD)
    (docs / "alias.md").symlink_to(docs / "orchard.md")
    index = Index.create(tmp_path / "index")
    try:
        embedder = index._embedder
        # as an old qa did, which read the link by name: prepare now opens no link
        own = prepare(docs / "orchard.md", None, False, index.settings, embedder)
        alias = replace(own, document=replace(own.document, path=str(docs / "alias.md")))
        write(index.backend, embed([alias], embedder), Report())
        before = sorted(d.path for d in index.documents())
        report = index.add([docs])
        after = sorted(d.path for d in index.documents())
    finally:
        index.close()

    assert before == [str(docs / "alias.md")]
    assert (report.added, report.removed) == (1, 1)
    assert after == [str(docs / "orchard.md")]
