"""The `qa` command under hostile use: out-of-range flags, and a reader that goes away."""

import signal
import sqlite3
import subprocess
import time
from contextlib import closing

import pytest

from qa.backends.sqlite import DATABASE
from qa.cli import main
from tests.helpers import ENV, QA, ROOT, SEED_FILE


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


NOTES = 1200  # 5 groups of EMBED_BATCH_CHUNKS: an interrupt after the first finds 4 to go


@pytest.mark.process
def test_ctrl_c_during_qa_index_is_one_line_and_the_index_stays_whole(tmp_path):
    docs, index = tmp_path / "docs", tmp_path / "index"
    docs.mkdir()
    for n in range(NOTES):
        (docs / f"note-{n}.txt").write_text(f"Note {n}: the harbour master counted "
                                            f"{n} boats at the quay this morning.")
    process = subprocess.Popen([*QA, "--index", str(index), "index", str(docs)], cwd=ROOT,
                               env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not _documents_stored(index) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # once the first documents are in, with more to come
    stderr = process.communicate(timeout=120)[1].decode()

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


def _documents_stored(index) -> int:
    """How many documents a running `qa index` has committed (0 before its database is)."""
    try:
        with closing(sqlite3.connect(f"file:{index / DATABASE}?mode=ro", uri=True)) as db:
            return db.execute("SELECT count(*) FROM documents").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_name_byte_that_is_not_utf8_is_shown_as_qa_docs_shows_it(seed_index_path, capsys):
    name, path = "caf\udce9", "/nowhere/caf\udce9.txt"  # b"caf\xe9" as the shell passes it
    assert main(["--index", str(seed_index_path), "collections", "add", name,
                 str(SEED_FILE)]) == 2
    assert capsys.readouterr().err.endswith(" (starting with a letter or digit), not "
                                            "'caf\\xe9'\n")
    assert main(["--index", str(seed_index_path), "collections", "add", "Notes", path]) == 2
    assert capsys.readouterr().err == "qa: no indexed document at /nowhere/caf\\xe9.txt\n"
