"""The `qa` command under hostile use: out-of-range flags, and a reader that goes away."""

import json
import re
import signal
import sqlite3
import subprocess
import threading
import time
from contextlib import closing
from email.message import EmailMessage

import pytest

from qa.backends.sqlite import DATABASE
from qa.cli import main
from tests.helpers import ENV, QA, ROOT, SEED_FILE, scan_pdf


@pytest.mark.parametrize("command", ["search", "ask"])
@pytest.mark.parametrize("k", ["0", "-1", "1.5", "1001", "100000000", "nan"])
def test_a_bad_k_flag_gets_the_librarys_one_line_error(seed_index_path, capsys, command, k):
    assert main(["--index", str(seed_index_path), command, "Who has resigned?", f"-k={k}"]) == 2
    assert capsys.readouterr().err == "qa: k must be a whole number from 1 to 1000\n"


def test_an_unknown_mode_flag_gets_the_librarys_one_line_error(seed_index_path, capsys):
    assert main(["--index", str(seed_index_path), "search", "resigned", "--mode", "bogus"]) == 2
    assert capsys.readouterr().err == "qa: mode must be one of: dense, keyword, hybrid\n"


def test_the_largest_k_flag_lists_every_passage(seed_index_path, capsys):
    assert main(["--index", str(seed_index_path), "search", "resigned", "-k", "1000"]) == 0
    assert capsys.readouterr().out.count("(similarity ") == 5  # the seed article's passages


@pytest.mark.process
@pytest.mark.parametrize("command", [["search", "resigned", "--json"], ["docs"]])
def test_a_reader_that_closes_the_pipe_early_ends_qa_quietly(seed_index_path, command):
    """As `qa search ... | head -1` does once it has its line: no traceback, exit 141."""
    process = subprocess.Popen([*QA, "--index", str(seed_index_path), *command], cwd=ROOT,
                               env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # before qa writes a byte: its first write finds no reader
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141, stderr
    assert stderr == ""


NOTES, LINES = 4, 400  # few files, so `qa index` shows its embedding batches (about 20)


@pytest.mark.process
def test_ctrl_c_during_qa_index_is_one_line_and_the_index_stays_whole(tmp_path):
    docs, index = tmp_path / "docs", tmp_path / "index"
    docs.mkdir()
    for n in range(NOTES):
        (docs / f"note-{n}.txt").write_text("".join(
            f"Note {n}.{line}: the harbour master counted {line} boats at the quay.\n"
            for line in range(LINES)))
    process = subprocess.Popen([*QA, "--index", str(index), "index", str(docs)], cwd=ROOT,
                               env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=_interruptible)
    printed: list[bytes] = []  # stderr as it comes
    reader = threading.Thread(target=lambda: printed.extend(
        iter(lambda: process.stderr.read1(4096), b"")))  # type: ignore[union-attr]
    reader.start()
    deadline = time.monotonic() + 120
    while not EMBEDDED.search(b"".join(printed)) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # after the first batch is embedded, the rest to come
    process.wait(timeout=120)
    reader.join(timeout=60)
    stderr = b"".join(printed).decode()

    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert stderr.strip().splitlines()[-1] == (
        "qa: interrupted; what was indexed before is intact (run qa index again to finish)")
    with closing(sqlite3.connect(index / DATABASE)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    again = subprocess.run([*QA, "--index", str(index), "index", str(docs)], cwd=ROOT, env=ENV,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    listed = subprocess.run([*QA, "--index", str(index), "docs"], cwd=ROOT, env=ENV,
                            capture_output=True, text=True, timeout=120)
    assert listed.stdout.count("note-") == NOTES


def _interruptible() -> None:
    """In the child: Ctrl-C as at a terminal (a pytest-xdist worker ignores SIGINT, and an
    ignored signal stays ignored in the processes it starts)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


EMBEDDED = re.compile(rb"embedding:.*?\| *[1-9]\d*/\d+")  # the bar past its first batch


def test_a_name_byte_that_is_not_utf8_is_shown_as_qa_docs_shows_it(seed_index_path, capsys):
    name, path = "caf\udce9", "/nowhere/caf\udce9.txt"  # b"caf\xe9" as the shell passes it
    assert main(["--index", str(seed_index_path), "collections", "add", name,
                 str(SEED_FILE)]) == 2
    assert capsys.readouterr().err.endswith(" (starting with a letter or digit), not "
                                            "'caf\\xe9'\n")
    assert main(["--index", str(seed_index_path), "collections", "add", "Notes", path]) == 2
    assert capsys.readouterr().err == "qa: no indexed document at /nowhere/caf\\xe9.txt\n"


@pytest.mark.heavy
def test_one_qa_index_run_sends_at_most_max_ocr_pages_to_ocr(tmp_path, capsys):
    """Issue 26: OCR's pages are bounded per run, not only per file; the files that would
    pass the bound are skipped with a line saying why, and the next run reads them. An
    e-mail waits whole, not indexed without its scan."""
    docs, index = tmp_path / "docs", tmp_path / "index"
    docs.mkdir()
    (docs / "a.pdf").write_bytes(scan_pdf("Scan A", 10))
    (docs / "b.pdf").write_bytes(scan_pdf("Scan B", 10))
    message = EmailMessage()
    message["Subject"] = "Scan C"
    message.set_content("The scan is attached.")
    message.add_attachment(scan_pdf("Scan C", 10), maintype="application", subtype="pdf",
                           filename="c.pdf")
    (docs / "c.eml").write_bytes(bytes(message))
    command = ["--index", str(index), "index", str(docs), "--max-ocr-pages", "15"]

    def run() -> str:
        assert main(command) == 0
        out, err = capsys.readouterr()
        return out + err

    def skipped(name: str, left: int) -> str:
        return (f"skipped: {docs / name}: not read in this run: OCR would read 10 of its "
                f"pages, and {left} of the run's 15 are left (qa index --max-ocr-pages); "
                "the next run reads it")

    first, second, third = run(), run(), run()

    assert skipped("b.pdf", 5) in first and skipped("c.eml", 5) in first
    assert "1 added, 0 updated, 0 unchanged, 0 removed, 0 failed, 2 skipped" in first
    assert skipped("c.eml", 5) in second and "b.pdf" not in second
    assert "1 added, 0 updated, 1 unchanged, 0 removed, 0 failed, 1 skipped" in second
    assert "1 added, 0 updated, 2 unchanged, 0 removed, 0 failed, 0 skipped" in third
    assert main(["--index", str(index), "docs"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("a.pdf", "b.pdf", "c.eml"))
    assert main(["--index", str(index), "search", "Scan C boiler"]) == 0
    assert "Attachment: c.pdf" in capsys.readouterr().out


def _marked(question: str) -> dict:
    """A turn of a conversation export whose answer was marked wrong."""
    return {"question": question, "answer": {"answer": "Nobody.", "found": True},
            "feedback": {"correct": "Martinez", "should_refuse": False}}


@pytest.mark.process
def test_qa_eval_feedback_passes_over_a_question_no_question_may_be(seed_index_path, tmp_path):
    """An empty or over-long question stopped the whole run (`qa: the question is empty`),
    and a lone surrogate, asked as any question is, stopped the report with a traceback
    (UnicodeEncodeError) (issue 35)."""
    export = tmp_path / "conversation.json"
    export.write_text(json.dumps({"turns": [_marked("   "), _marked("a" * 3000),
                                            _marked("\udc00 Who resigned?"),
                                            _marked("Who has resigned?")]}))

    done = subprocess.run([*QA, "eval", "feedback", "--index", str(seed_index_path),
                           str(export)], cwd=ROOT, env=ENV, capture_output=True, text=True)

    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["SKIPPED\t   ", "  not asked again: the question is empty"]
    assert lines[2] == f"SKIPPED\t{'a' * 200}…"
    assert lines[3] == ("  not asked again: the question is 3,000 characters long; the limit "
                        "is 2,000")
    assert "DIFFERS\t\\udc00 Who resigned?" in lines
    assert "DIFFERS\tWho has resigned?" in lines
    assert lines[-1] == "4 marked wrong: 2 now differ, 0 the same, 2 not asked again"


@pytest.mark.process
def test_qa_eval_feedback_of_json_nested_100000_deep_is_one_line(seed_index_path, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"turns": ' + "[" * 100_000 + "]" * 100_000 + "}")

    done = subprocess.run([*QA, "eval", "feedback", "--index", str(seed_index_path), str(deep)],
                          cwd=ROOT, env=ENV, capture_output=True, text=True)

    assert done.returncode == 2
    assert done.stderr.startswith(f"qa: {deep}: not a conversation exported as JSON from the "
                                  "web chat (RecursionError: ")
    assert len(done.stderr.splitlines()) == 1
