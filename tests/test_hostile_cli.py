"""The `qa` command under hostile use: out-of-range flags, and a reader that goes away."""

import subprocess

import pytest

from qa.cli import main
from tests.helpers import ENV, QA, ROOT


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
