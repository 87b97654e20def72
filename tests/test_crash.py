"""Crashes: `qa index` SIGKILLed at many moments, and damaged index files.

The kill test runs one indexing job as a chain of real `qa index` processes: each
is killed at a chosen moment, the index is then checked (it opens, it answers,
every document is wholly old or wholly new, FAISS holds exactly the chunks SQLite
holds), and the next process takes the job up. The last one completes it.

Kill points: while the model loads; while the first batch of chunks is embedded;
between the per-document commits of a batch; while a later batch is embedded
(after some commits); and in the final write, right after the last document commit
(the removal of deleted files, the keyword index's commit). Where a run is is seen
from outside: its Python stack, which the process dumps (faulthandler) when sent
SIGUSR1, and the database (read while the run writes it). No code of `qa` is changed
or stubbed for the test.

The corpus: 540 generated text files (most one chunk, some several: about 580
chunks, so three batches), of which 72 update documents indexed before (v1 -> v2),
450 are new, and 18 indexed files have been deleted (their documents must leave).
The index also holds 8,000 chunks written through the Store with random unit
vectors, so that the final write takes long enough for a kill to land in it. (An
index this size keeps no vector file: below APPROX_MIN vectors the exact index is
built from the database on open, so no kill can leave one stale; the damaged-file
tests below cover an approximate index's file.)
"""

import contextlib
import hashlib
import itertools
import logging
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from qa import Index, QAError
from qa.backends.base import Chunk
from qa.backends.sqlite import DATABASE, VECTORS, vectors
from qa.backends.sqlite.store import FileState, Store, _vector
from qa.cli import main
from qa.loaders.formats import Document
from tests.helpers import ENV, QA, QAProcess, copy_index, faiss_ids

# `qa` that writes its threads' Python stacks to the file $QA_STACKS when sent SIGUSR1
# (it writes "ready" there first: SIGUSR1 before that would end it)
QA_TRACEABLE = [sys.executable, "-c", (
    "import faulthandler, os, signal\n"
    "stacks = open(os.environ['QA_STACKS'], 'w')\n"
    "faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True)\n"
    "stacks.write('ready\\n')\n"
    "stacks.flush()\n"
    "from qa.cli import main\n"
    "raise SystemExit(main())"
)]
FILES = 540
UPDATED = range(0, FILES, 6)  # indexed as v1 before the job; v2 in the job
VANISHED = set(UPDATED[::5])  # indexed before, deleted before the job
LONG_EVERY = 45  # every 45th file has several chunks
BULK_DOCUMENTS, BULK_CHUNKS = 8, 1000
WORDS = [
    "harbour", "ferry", "storm", "pier", "lighthouse", "keeper", "orchard", "apple", "valley",
    "river", "bridge", "council", "mayor", "budget", "school", "library", "museum", "painter",
    "garden", "winter", "summer", "market", "baker", "train", "station", "mountain", "glacier",
    "village", "festival", "choir", "engineer", "doctor", "nurse", "farmer", "fisherman",
    "island", "cliff", "meadow", "forest", "castle", "tower", "canal", "mill",
]
POLL = 0.005


# -- the corpus ---------------------------------------------------------------------------

def _text(i: int, version: str) -> str:
    rng = random.Random(f"{i}-{version}")
    count = 45 if i % LONG_EVERY == 0 else 1
    sentences = (
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."
        for _ in range(count)
    )
    return f"Record {i} ({version}). " + " ".join(sentences)


def _name(i: int) -> str:
    return f"record-{i:03d}.txt"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _bulk(store: Store, root: Path, documents: int = BULK_DOCUMENTS) -> None:
    """Large documents with random unit vectors, written through the Store (no embedding)."""
    rng = np.random.default_rng(0)
    for d in range(documents):
        sentences = [f"Bulk passage {d}-{j} about nothing." for j in range(BULK_CHUNKS)]
        text = " ".join(sentences)
        chunks, start = [], 0
        for j, sentence in enumerate(sentences):
            chunks.append(Chunk(j, sentence, start, start + len(sentence), None,
                                ((start, start + len(sentence)),)))
            start += len(sentence) + 1
        vectors = rng.standard_normal((BULK_CHUNKS, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        document = Document(str(root / f"bulk-{d}.txt"), "", text)
        store.put_document(document, FileState(len(text), 0.0, _sha(text)), chunks, vectors,
                           [v[None, :] for v in vectors])


# -- observing a run ----------------------------------------------------------------------

class Run(QAProcess):
    """A `qa index` process whose stderr is read as it comes, and whose Python stack can be
    sampled."""

    def __init__(self, index: Path, folder: Path) -> None:
        self.stacks = index.parent / "stacks.txt"
        self.stacks.write_text("")
        super().__init__("--index", str(index), "index", str(folder), command=QA_TRACEABLE,
                         env={**ENV, "QA_STACKS": str(self.stacks)})

    def stack(self) -> str:
        """The process's Python stacks now ("" until it has set up the dump)."""
        size = self.stacks.stat().st_size
        if size == 0:
            return ""
        try:
            os.kill(self.process.pid, signal.SIGUSR1)
        except ProcessLookupError:
            return ""
        deadline, last = time.monotonic() + 2, -1
        while time.monotonic() < deadline:  # the dump is written at once, in a few writes
            time.sleep(0.02)
            now = self.stacks.stat().st_size
            if now == last and now > size:
                break
            last = now
        with self.stacks.open() as file:
            file.seek(size)
            return file.read()

    def running(self, function: str) -> bool:
        """Whether `function` of qa is on the process's stack now."""
        return any(line.strip().startswith('File "') and "/qa/" in line
                   and line.rstrip().endswith(f" in {function}")
                   for line in self.stack().splitlines())

    def kill(self) -> bool:
        """SIGKILL the run; False if it had died of something else first."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        return self.process.returncode == -signal.SIGKILL


class Probe:
    """Reads the database while a run writes it (WAL lets a reader in at any time)."""

    def __init__(self, database: Path, new_shas: set[str]) -> None:
        self.database = database
        self.new_shas = new_shas

    def new_documents(self) -> int:
        """How many documents are in their new state."""
        with closing(sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)) as db:
            return sum(sha in self.new_shas for (sha,) in db.execute(
                "SELECT sha256 FROM documents"))


class Missed(Exception):
    """The run finished before the moment it was to be killed at."""


def _wait(run: Run, ready, what: str, poll: float = POLL, timeout: float = 600) -> None:
    """Return once `ready()`; `poll` 0 spins, for moments that last milliseconds."""
    deadline = time.monotonic() + timeout
    while not ready():
        if run.process.poll() is not None:
            code, out, err = run.finish()  # all of its output, not what was read so far
            raise Missed(f"`qa index` finished (exit {code}) before {what}:\n"
                         f"{out[-1000:]}\n{err[-2000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        if poll:
            time.sleep(poll)


# -- checking the index -------------------------------------------------------------------

def _check(index_path: Path, old: dict[str, str | None], new: dict[str, str | None],
           texts: dict[str, str]) -> dict:
    """Assert the index is whole after a kill; return what state it is in."""
    database = index_path / DATABASE
    with closing(sqlite3.connect(database)) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        generation = int(db.execute(
            "SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])
        documents = {path: (doc_id, sha, zlib.decompress(text).decode())  # stored compressed
                     for doc_id, path, sha, text in db.execute(
                         "SELECT id, path, sha256, text FROM documents")}
        chunks = db.execute(
            "SELECT id, document_id, ordinal, start_char, end_char FROM chunks").fetchall()
        chunk_ids = {row[0] for row in chunks}
        with_sentences = {row[0] for row in db.execute("SELECT DISTINCT chunk_id FROM sentences")}
    assert with_sentences == chunk_ids, "sentences without a chunk, or a chunk without any"

    by_document: dict[int, list[tuple]] = {}
    for row in chunks:
        by_document.setdefault(row[1], []).append(row)
    assert set(by_document) == {doc_id for doc_id, _, _ in documents.values()}
    states = {"old": 0, "new": 0, "absent": 0}
    for path in old.keys() | new.keys():
        if path not in documents:
            assert None in (old[path], new[path]), f"{path} was lost"
            states["absent"] += 1
            continue
        doc_id, sha, text = documents[path]
        assert sha in (old[path], new[path]), f"{path} is in neither its old nor its new state"
        assert text == texts[sha], path
        states["old" if sha == old[path] else "new"] += 1
        rows = sorted(by_document[doc_id], key=lambda row: row[2])
        assert [row[2] for row in rows] == list(range(len(rows))), f"{path} is half indexed"
        assert rows[0][3] == 0 and rows[-1][4] == len(text.rstrip()), f"{path} is half indexed"
    bulk = [path for path in documents if Path(path).name.startswith("bulk-")]
    assert len(bulk) == BULK_DOCUMENTS

    assert not (index_path / VECTORS).exists(), "an exact vector index is never saved"
    index = Index.open(index_path)
    try:
        for mode in ("hybrid", "keyword"):
            hits = index.search("harbour ferry lighthouse keeper", k=5, mode=mode)
            assert len(hits) == 5 and {hit.chunk_id for hit in hits} <= chunk_ids, mode
        assert faiss_ids(index) == chunk_ids, "orphan or missing vectors"
        answer = index.ask("Which record mentions the glacier and the choir?")
        assert all(c.hit.chunk_id in chunk_ids for c in answer.citations)
    finally:
        index.close()
    return {**states, "generation": generation}


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    """An index holding v1 of some records and the bulk documents; the folder set for v2."""
    root = tmp_path_factory.mktemp("crash")
    folder, index_path = root / "records", root / "index"
    folder.mkdir()
    index = Index.create(index_path)
    store = Store(index_path / DATABASE)
    _bulk(store, root / "elsewhere")
    store.close()
    for i in UPDATED:
        (folder / _name(i)).write_text(_text(i, "v1"))
    before = index.add([folder])
    index.close()
    assert before.added == len(UPDATED)

    old, new, texts = {}, {}, {}
    for i in range(FILES):
        path = str(folder / _name(i))
        old[path] = _sha(_text(i, "v1")) if i in UPDATED else None
        new[path] = None if i in VANISHED else _sha(_text(i, "v2"))
        for version in ("v1", "v2"):
            texts[_sha(_text(i, version))] = _text(i, version)
        if i in VANISHED:
            (folder / _name(i)).unlink()
        else:
            (folder / _name(i)).write_text(_text(i, "v2"))
    return {"folder": folder, "index": index_path, "old": old, "new": new, "texts": texts}


@pytest.mark.process
def test_indexing_survives_sigkill_at_any_moment(job, capsys):
    folder, index_path = job["folder"], job["index"]
    new_shas = {sha for sha in job["new"].values() if sha}
    probe = Probe(index_path / DATABASE, new_shas)
    to_write = len(new_shas)
    killed: list[tuple[str, dict]] = []

    missed: list[str] = []

    def kill_when(what: str, *stages, attempts: int = 3) -> None:
        """Start `qa index`, kill it once each `stage(run)` condition has held in turn (a
        stage is a condition maker, or (maker, poll interval)), then check the index.

        A run that ends before the moment is tried again, from the index as it was before
        it (a run that finished its work leaves nothing for the next one, or for the next
        moment, to do): one that finished first, or (seen once in CI, under load) one that
        died with no output while its stack was being sampled: faulthandler walks the
        thread states of a process that may be starting threads just then. One that died
        of a fault between the dump and the kill (seen once, SIGSEGV) must leave the index
        whole too, and the moment is tried again."""
        before = index_path.with_name("index-before-run")
        shutil.rmtree(before, ignore_errors=True)
        shutil.copytree(index_path, before)
        for attempt in range(1, attempts + 1):
            started = time.monotonic()
            run = Run(index_path, folder)
            try:
                for stage in stages:
                    maker, poll = stage if isinstance(stage, tuple) else (stage, POLL)
                    _wait(run, maker(run), what, poll)
            except Missed as miss:
                missed.append(str(miss).splitlines()[0])
                shutil.rmtree(index_path)
                shutil.copytree(before, index_path)
                if attempt == attempts:
                    raise
                continue
            if not run.kill():  # it died first (seen once, of SIGSEGV, just after a dump)
                _check(index_path, job["old"], job["new"], job["texts"])  # whole even so
                missed.append(f"`qa index` died (exit {run.process.returncode}) at {what}")
                if attempt == attempts:
                    pytest.fail(missed[-1])
                shutil.rmtree(index_path)
                shutil.copytree(before, index_path)
                continue
            state = {"run seconds": round(time.monotonic() - started, 1)}
            checked = time.monotonic()
            state.update(_check(index_path, job["old"], job["new"], job["texts"]))
            state["check seconds"] = round(time.monotonic() - checked, 1)
            killed.append((what, state))
            return

    def first_commit(run):
        base = probe.new_documents()
        return lambda: probe.new_documents() > base

    def embedding_after_commits(run):
        base = probe.new_documents()
        return lambda: probe.new_documents() > base and run.running("embed_passages")

    # 1. At start-up: chunking the first file loads the model.
    kill_when("while the model loads", lambda run: lambda: run.running("_load"))
    # 2. Embedding the first batch: nothing is written yet.
    kill_when("while embedding the first batch",
              lambda run: lambda: run.running("embed_passages"))
    # 3. Between the document commits of a batch: right after its first one.
    kill_when("between the document commits of a batch", first_commit)
    # 4. Embedding a later batch, after this run has written documents (a short window
    #    now that groups are embedded side by side: a quiet machine can finish first).
    #    When every attempt finishes first, the moment did not exist in this run; the
    #    other four moments are still required.
    with contextlib.suppress(Missed):
        kill_when("while embedding a later batch", embedding_after_commits, attempts=8)
    # 5. In the final write: right after the last document commit (spinning, as what is
    #    left takes milliseconds); a run that finishes first, by then with nothing left
    #    to embed, is tried again.
    kill_when("in the final write, after the last commit",
              (lambda run: lambda: probe.new_documents() == to_write, 0))

    last = Run(index_path, folder)
    code, out, err = last.finish()
    assert code == 0, err
    assert "0 added, 0 updated" in out and "0 failed" in out, out
    final = _check(index_path, job["old"], job["new"], job["texts"])
    with capsys.disabled():
        print()
        for what, state in killed:
            print(f"killed {what}: {state}")
        print(f"then `qa index` completed: {out.strip()}; {final}")
        for miss in missed:
            print(f"tried again: {miss}")
    assert (final["new"], final["old"]) == (to_write, 0)
    assert final["absent"] == len(VANISHED)
    # The kills landed where they were meant to: before, during, and after the writing.
    # (the later-batch kill is optional, so its figure sits between the two that hold).
    written = [state["new"] for _, state in killed]
    assert written[0] == written[1] == 0 < written[2], written
    assert all(a < b for a, b in itertools.pairwise(written[2:])), written
    assert written[-1] == to_write, written


# -- damaged vector files -----------------------------------------------------------------

@pytest.fixture
def copy(tmp_path, seed_index_path, monkeypatch) -> Path:
    """A private copy of the seed index with 2,000 chunks of random vectors more, so that
    its vector index is approximate (from 1,000 vectors on, in this test) and saved."""
    monkeypatch.setattr(vectors, "APPROX_MIN", 1_000)
    path = copy_index(seed_index_path, tmp_path / "index")
    store = Store(path / DATABASE)
    _bulk(store, tmp_path / "elsewhere", documents=2)
    store.close()
    index = Index.open(path)
    assert index.backend.vectors().approximate  # rebuilt, and saved for the next process
    index.close()
    assert (path / VECTORS).exists()
    return path


def _stored_vectors(path: Path) -> dict[int, np.ndarray]:
    with closing(sqlite3.connect(path / DATABASE)) as db:
        return {i: _vector(blob).astype(np.float16)  # as the IVF index's float16 codes hold it
                for i, blob in db.execute("SELECT id, vector FROM chunks")}


def _held_vectors(vectors) -> dict[int, np.ndarray]:
    """The vectors an approximate (IVF, float16 codes) vector index holds, by chunk id."""
    import faiss

    lists, held = vectors._index.invlists, {}
    for number in range(lists.nlist):
        if size := lists.list_size(number):
            ids = faiss.rev_swig_ptr(lists.get_ids(number), size)
            codes = faiss.rev_swig_ptr(lists.get_codes(number), size * lists.code_size)
            held.update(zip(ids.tolist(), np.frombuffer(codes.tobytes(), np.float16).reshape(
                size, -1), strict=True))
    return held


def _damage(raw: bytes, how: str) -> bytes:
    return {
        "missing": b"",
        "empty": b"",
        "garbage": bytes(random.Random(0).randbytes(len(raw))),
        "truncated": raw[: len(raw) // 2],
        "not ours": b"NOTQAVEC" + raw[8:],
    }[how]


@pytest.mark.parametrize("how", ["missing", "empty", "garbage", "truncated", "not ours"])
def test_a_missing_or_damaged_vector_file_is_rebuilt_from_sqlite(copy, how, caplog):
    file = copy / VECTORS
    if how == "missing":
        file.unlink()
    else:
        file.write_bytes(_damage(file.read_bytes(), how))
    caplog.set_level(logging.INFO, logger="qa")

    index = Index.open(copy)
    hits = index.search("Who has resigned over the recording?", mode="dense")
    vectors = index.backend.vectors()

    assert "Martinez and Herrera" in " ".join(hit.text for hit in hits[:3])
    stored, held = _stored_vectors(copy), _held_vectors(vectors)
    assert held.keys() == stored.keys()
    for chunk_id, vector in stored.items():  # the stored vectors (to float16's last bit):
        assert np.allclose(held[chunk_id], vector, rtol=0, atol=1e-3)  # not re-embedded
    assert any("rebuilt the vector index from the database" in record.getMessage()
               for record in caplog.records)
    index.close()


def test_a_vector_file_with_damaged_vectors_is_rebuilt(copy, caplog):
    file = copy / VECTORS
    raw = bytearray(file.read_bytes())
    middle = len(raw) // 2
    raw[middle:middle + 400] = bytes(b ^ 0x5A for b in raw[middle:middle + 400])
    file.write_bytes(bytes(raw))

    index = Index.open(copy)
    held = _held_vectors(index.backend.vectors())
    stored = _stored_vectors(copy)
    index.close()

    assert held.keys() == stored.keys()
    assert all(np.allclose(held[i], v, rtol=0, atol=1e-3) for i, v in stored.items())


# -- a damaged database -------------------------------------------------------------------

def _corrupt(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    rng = random.Random(0)
    page = 4096
    if how == "garbage":
        data = bytearray(rng.randbytes(len(data)))
    elif how == "zeroed header":
        data[:100] = bytes(100)
    elif how == "truncated":
        data = data[: len(data) // 2]
    elif how == "damaged pages":  # the schema page intact, the pages holding the data not
        data[2 * page:] = rng.randbytes(len(data) - 2 * page)
    path.write_bytes(bytes(data))


COMMANDS = [["docs"], ["search", "resigned"], ["ask", "Who resigned?"], ["index", "nothing"]]


@pytest.mark.parametrize("how", ["garbage", "zeroed header", "truncated",
                                 "damaged pages"])
def test_a_corrupted_database_fails_with_a_clear_message(copy, how, capsys, monkeypatch):
    _corrupt(copy / DATABASE, how)
    (copy.parent / "nothing").mkdir()
    monkeypatch.chdir(copy.parent)

    for command in COMMANDS:
        code = main(["--index", str(copy), *command])
        err = capsys.readouterr().err
        assert code == 2, (command, err)
        assert err.startswith(f"qa: the index database {copy / DATABASE} is unreadable ("), err
        assert "move the index folder away" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(QAError, match="is unreadable"):
        Index.open(copy).search("resigned")


def test_an_emptied_database_is_not_taken_for_an_empty_index(copy):
    (copy / DATABASE).write_bytes(b"")

    with pytest.raises(QAError):
        Index.open(copy)


@pytest.mark.process
def test_a_corrupted_database_is_reported_by_the_process_without_a_traceback(copy):
    _corrupt(copy / DATABASE, "garbage")

    done = subprocess.run([*QA, "--index", str(copy), "ask", "Who resigned?"], env=ENV,
                          capture_output=True, text=True, timeout=300)

    assert done.returncode == 2
    assert done.stderr.startswith("qa: the index database") and "Traceback" not in done.stderr


@pytest.mark.parametrize("dim", ["abc", "-5", "1000000000", "0", "", "383"])
def test_a_damaged_vector_dimension_is_one_line_and_a_rebuild_mends_it(
        tmp_path, seed_index_path, capsys, dim):
    """The dimension the database records (meta `dim`) damaged: int() of it, FAISS's
    assert, or a reshape raised, a traceback in `qa ask` and `qa search` (issue 35)."""
    path = copy_index(seed_index_path, tmp_path / "index")
    with closing(sqlite3.connect(path / DATABASE)) as db, db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'dim'", (dim,))

    for command in (["ask", "Who resigned?"], ["search", "resigned"]):
        assert main(["--index", str(path), *command]) == 2, command
        err = capsys.readouterr().err
        assert err.startswith("qa: the index is damaged: it records "), err
        assert err.endswith("; rebuild it with: qa index --rebuild\n")
        assert len(err.splitlines()) == 1
    assert main(["--index", str(path), "index", "--rebuild"]) == 0
    assert main(["--index", str(path), "ask", "Who resigned?"]) == 0
    assert "Martinez and Herrera" in capsys.readouterr().out
