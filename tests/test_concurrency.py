"""Concurrency: readers while another process writes, two writers, and the web app under load.

Everything is real: the questions are asked from threads of this process over one
shared `Index` (as the web app does), the writers are `qa index` processes, and
the load is 32 `gradio_client` clients against a `qa serve` process.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import zlib
from contextlib import closing
from pathlib import Path

import pytest

from qa import Index
from qa.backends.sqlite import DATABASE
from tests.helpers import ENV, ROOT, SEED_FILE, QAProcess, copy_index

pytestmark = pytest.mark.process

COLOURS = ["amber", "cobalt", "crimson", "ivory", "jade", "ochre", "scarlet", "teal"]
TOWNS = ["Arbroath", "Brora", "Cromarty", "Dornoch", "Elgin", "Forres", "Girvan", "Huntly",
         "Irvine", "Jedburgh"]
PEOPLE = ["Agnes", "Brodie", "Catriona", "Duncan", "Eilidh", "Fergus", "Greer", "Hamish"]
SEED_QUESTIONS = [
    "Who has resigned over the recording?",
    "What did Martinez say about Bonin's son?",
    "Where did protestors gather?",
    "What is the boiling point of tungsten?",
]


def _fact(i: int) -> tuple[str, str, str]:
    """(file text, question, the answer's key word) of the i-th generated fact."""
    colour, town = COLOURS[i % len(COLOURS)], TOWNS[i // len(COLOURS) % len(TOWNS)]
    person = PEOPLE[(i * 3) % len(PEOPLE)]
    text = (f"The {colour} lantern of {town} was lit by {person} at the winter fair of "
            f"{1900 + i}. Nobody else was allowed to touch the {colour} lantern.")
    return text, f"Who lit the {colour} lantern of {town}?", person


def _write_facts(folder: Path, numbers: range, prefix: str = "fact") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in numbers:
        (folder / f"{prefix}-{i:03d}.txt").write_text(_fact(i)[0])


def _chunk_texts(index_path: Path) -> dict[int, str]:
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        return {chunk_id: zlib.decompress(text).decode()[start:end]  # stored compressed
                for chunk_id, text, start, end in db.execute(
                    "SELECT c.id, d.text, c.start_char, c.end_char "
                    "FROM chunks c JOIN documents d ON d.id = c.document_id")}


def test_sixteen_threads_ask_while_another_process_indexes(tmp_path, seed_index_path):
    index_path = copy_index(seed_index_path, tmp_path / "index")
    facts = tmp_path / "facts"
    _write_facts(facts, range(40))
    questions = SEED_QUESTIONS + [_fact(i)[1] for i in range(0, 40, 3)]
    index = Index.open(index_path)
    index.warm_up()
    errors: list[str] = []
    cited: list[tuple[int, str]] = []  # (chunk id, passage text) of every citation
    during = []  # answers given while the writer was running
    lock = threading.Lock()
    writing = threading.Event()
    done = threading.Event()

    def asker(number: int) -> None:
        asked = 0
        while not done.is_set() or asked < 3:
            question = questions[(number * 7 + asked) % len(questions)]
            asked += 1
            try:
                answer = index.ask(question)
                for citation in answer.citations:
                    text = index.document_text(citation.hit.source)
                    assert text is not None, f"{citation.hit.source} is not indexed"
                    assert text[citation.start:citation.end] == citation.quote
                    assert citation.quote in citation.hit.text
            except Exception as error:  # noqa: BLE001 - every failure is reported below
                with lock:
                    errors.append(f"{question!r}: {error!r}")
                continue
            with lock:
                cited.extend((c.hit.chunk_id, c.hit.text) for c in answer.citations)
                if writing.is_set() and not done.is_set():
                    during.append(answer)

    threads = [threading.Thread(target=asker, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    writer = QAProcess("--index", str(index_path), "index", str(facts))
    writing.set()
    code, out, err = writer.finish()
    done.set()
    for thread in threads:
        thread.join(timeout=300)

    assert code == 0 and out.startswith("40 added"), err
    assert errors == []
    assert len(during) >= 16, "the questions did not overlap the indexing"
    chunks = _chunk_texts(index_path)
    assert all(chunks.get(chunk_id) == text for chunk_id, text in cited)
    # Once the writer is done, readers in this process see its documents.
    text, question, person = _fact(35)
    answer = index.ask(question)
    assert answer.found and person in answer.text
    assert answer.citations[0].hit.source == str(facts / "fact-035.txt")
    index.close()


def test_two_indexing_runs_never_write_the_index_at_once(tmp_path, seed_index_path):
    """A run that finds the index locked waits for it; one that waits too long gives up
    with a clear message, having written nothing."""
    index_path = copy_index(seed_index_path, tmp_path / "index")
    first, second = tmp_path / "first", tmp_path / "second"
    _write_facts(first, range(0, 10), "first")
    _write_facts(second, range(10, 20), "second")

    holder = QAProcess("--index", str(index_path), "index", str(first))
    # It holds the lock from before its progress bar shows; once a file is done, its model
    # is loaded too, so that it finishes soon after it is let go on.
    holder.wait_for(rb"[1-9]\d*/10 \[")
    os.kill(holder.process.pid, signal.SIGSTOP)  # a writer that takes (very) long
    try:
        refused = QAProcess("--index", str(index_path), "index", str(second))
        # The lock bars writers only: while the second run waits, questions are answered.
        reader = Index.open(index_path)
        assert reader.ask("Who has resigned over the recording?").found
        reader.close()
        code, out, err = refused.finish()
    finally:
        os.kill(holder.process.pid, signal.SIGCONT)

    assert code == 2, err
    assert err.strip() == (f"qa: another process is writing the index at {index_path} "
                           "(waited 10 s); try again when it has finished")
    waiting = QAProcess("--index", str(index_path), "index", str(second))
    first_result, second_result = holder.finish(), waiting.finish()

    assert first_result[0] == 0 and first_result[1].startswith("10 added"), first_result
    assert second_result[0] == 0 and second_result[1].startswith("10 added"), second_result
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        order = [Path(path).parent for (path,) in db.execute(
            "SELECT path FROM documents WHERE path != ? ORDER BY id", (str(SEED_FILE),))]
    assert order == [first] * 10 + [second] * 10, "the two runs wrote at the same time"


# -- the web app under load -------------------------------------------------------------

def test_32_clients_asking_10_questions_each_all_succeed(server, capsys):
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "load.py"), "--url", server["url"],
         "--clients", "32", "--questions", "10", "--json"],
        env=ENV, capture_output=True, text=True, timeout=900,
    )
    figures = json.loads(done.stdout)
    with capsys.disabled():
        print(f"\nload: {json.dumps({k: v for k, v in figures.items() if k != 'failures'})}")

    # A failed request's traceback is in the server's log (Gradio answers it with a 500).
    assert figures["failures"] == [] and done.returncode == 0, (
        f"{done.stderr}\nserver log (last 6,000 characters):\n{server['log'].read_text()[-6000:]}")
    assert (figures["requests"], figures["ok"]) == (320, 320)


def test_the_app_still_answers_after_the_load(server):
    from gradio_client import Client

    result = Client(server["url"], verbose=False).predict(
        "Who has resigned over the recording?", 5, api_name="/ask")

    assert result["found"] and "[1]" in result["answer"]


def test_the_benchmark_table_reports_latency_and_throughput(server, capsys):
    """The script's own output (no figure is checked: this is not a timed test)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import load
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    figures = load.run_load(server["url"], clients=2, questions=2, endpoint="search")
    load.print_table(figures)

    table = capsys.readouterr().out
    assert "p50 ms" in table and "p95 ms" in table and "req/s" in table
    assert figures["ok"] == 4 and figures["failed"] == 0


def test_a_rebuild_waits_for_a_running_writer_too(tmp_path, seed_index_path):
    index_path = copy_index(seed_index_path, tmp_path / "index")
    first, second = tmp_path / "first", tmp_path / "second"
    _write_facts(first, range(0, 5), "first")
    _write_facts(second, range(5, 10), "second")

    holder = QAProcess("--index", str(index_path), "index", str(first))
    holder.wait_for(rb"indexing:")  # it holds the lock
    os.kill(holder.process.pid, signal.SIGSTOP)
    try:
        rebuild = QAProcess("--index", str(index_path), "index", "--rebuild", str(second))
        code, out, err = rebuild.finish()
    finally:
        holder.process.kill()  # its part is done: it held the lock
        holder.finish()

    assert code == 2, f"the rebuild replaced the index while another run was writing it: {out}"
    assert "another process is writing the index" in err
