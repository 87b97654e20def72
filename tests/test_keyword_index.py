"""The SQLite backend's Tantivy keyword index: derived from the database, never ahead of it.

Real SQLite and Tantivy in a temporary index folder, small inline texts with fixed
vectors (the documents of tests/test_backend_contract.py). Writes are committed to
Tantivy at `flush`, as `Index.add` and `remove` end; until then keyword search reads the
last commit, less the chunks deleted since, and wherever the folder's Tantivy index
cannot be used, an index built in RAM from the database answers. `in_step` tells
whether the folder's index answered.
"""

import ctypes
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from qa.backends.locking import write_lock
from qa.backends.sqlite import SQLiteBackend
from qa.backends.sqlite.keywords import FOLDER, FOOTER_MAGIC
from tests.helpers import ENV, QA, ROOT, copy_index
from tests.test_backend_contract import COUNCIL, DIM, HARBOUR, ORCHARD, ids_along, put

# A process that opens the backend at argv[1], adds orchard.txt and commits
ANOTHER_WRITER = """
import sys
from pathlib import Path
from qa.backends.sqlite import SQLiteBackend
from tests.test_backend_contract import ORCHARD, put

backend = SQLiteBackend(Path(sys.argv[1]))
put(backend, "/docs/orchard.txt", ORCHARD, 2)
backend.flush()
backend.close()
"""
# A reader of the index at argv[1]: prints its keyword search for argv[2], whether the
# folder's Tantivy index answered it, and the term frequency of its first word; with a third
# argument, again for each line read from stdin
READER = """
import itertools, json, sys
from pathlib import Path
from qa.backends.sqlite import SQLiteBackend
from qa.stemming import index_terms
from tests.test_keyword_index import in_step
backend = SQLiteBackend(Path(sys.argv[1]))
term = index_terms(sys.argv[2])[0]
for _ in itertools.chain([""], sys.stdin if sys.argv[3:] else []):
    found = backend.keyword_search([sys.argv[2]], 10)[0]
    answered_by_folder = in_step(backend)
    counts, passages = backend.term_frequencies([term])
    print(json.dumps([sorted(found), answered_by_folder, [counts[term], passages]]), flush=True)
"""


@pytest.fixture
def folder(tmp_path) -> Path:
    path = tmp_path / "index"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def backend(folder):
    backend = SQLiteBackend(folder)
    backend.set_meta({"model": "fixed-vectors", "dim": str(DIM)})
    yield backend
    backend.close()


def in_step(backend: SQLiteBackend) -> bool:
    """Whether the folder's Tantivy index shows the database as it is (so it answered the
    last keyword search: neither its last commit behind a writer nor an index in RAM)."""
    store = backend.store()
    return backend._keywords is not None and backend._keywords.stamp == (
        store.identity, store.generation())


def lighthouse(backend: SQLiteBackend) -> list[int]:
    return backend.keyword_search(["lighthouse"], 10)[0]


def test_keyword_search_answers_from_tantivy_once_flushed(backend, folder):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    put(backend, "/docs/council.txt", COUNCIL, 1)
    harbour = ids_along(backend, 0)
    # not committed yet: the last commit (of nothing) answers; the dense search finds them
    assert backend.keyword_search(["harbour"], 5) == [[]] and not in_step(backend)
    backend.flush()

    found = backend.keyword_search(["lighthouses counting", "harbour"], 5)

    assert len(found[0]) == 1 and found[0][0] in harbour
    assert set(found[1]) == {i for i, row in backend.chunks(list(harbour)).items()
                             if "harbour" in row.text}
    assert (folder / FOLDER).is_dir() and in_step(backend)


def test_tantivy_ranks_as_fts5_does(backend, folder):
    """The question's one rare word outranks three words that many passages hold, as in
    FTS5's bm25(); Tantivy's own IDF (Lucene's) weighs such words about twice as much
    and would put the passage holding all three first."""
    put(backend, "/docs/lantern.txt", ["A lantern hung by the door."], 0)
    put(backend, "/docs/crossings.txt", [f"The river, stone and bridge {word}."
                                         for word in ("today", "again", "anew", "below")], 1)
    put(backend, "/docs/harbour.txt", HARBOUR + COUNCIL, 2)  # neither
    backend.flush()

    found = backend.keyword_search(["lantern river stone bridge"], 10)[0]

    assert found[0] in ids_along(backend, 0) and set(found[1:]) == ids_along(backend, 1)


def test_a_misspelt_word_or_a_number_written_otherwise_still_finds_its_passage(backend):
    """A word no passage holds matches the indexed words an edit or two from it, and a
    small number matches it written in words or digits; a known word is not read fuzzily
    (the keeper's passage is no match for "keepers" written right)."""
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    put(backend, "/docs/leave.txt", ["Staff may carry over 4 days of leave.",
                                     "Send it to the adress on the form.",
                                     "The refurbishment starts in March."], 1)
    backend.flush()
    lighthouse_ = [i for i, row in backend.chunks(list(ids_along(backend, 0))).items()
                   if "lighthouse" in row.text]
    leave = {i: row.text for i, row in backend.chunks(list(ids_along(backend, 1))).items()}

    assert backend.keyword_search(["the lighthuose keepr"], 5)[0] == lighthouse_
    assert [leave[i] for i in backend.keyword_search(["four days"], 5)[0]] == [
        "Staff may carry over 4 days of leave."]
    assert [leave[i] for i in backend.keyword_search(["which address"], 5)[0]] == [
        "Send it to the adress on the form."]
    assert [leave[i] for i in backend.keyword_search(["refurb"], 5)[0]] == [
        "The refurbishment starts in March."]  # a word cut short: the words it begins
    assert backend.keyword_search(["storms"], 5)[0] != []  # stemmed, as before
    assert backend.keyword_search(["dawns ferry"], 5)[0] != []


def test_a_removed_documents_passages_never_come_back(backend, folder):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    put(backend, "/docs/council.txt", COUNCIL, 1)
    backend.flush()
    reader = SQLiteBackend(folder)  # as another process: its own Tantivy snapshot
    try:
        assert lighthouse(reader)
        with write_lock(folder):  # as `qa remove` holds it: removed, not yet committed
            backend.remove_documents(["/docs/harbour.txt"])
            assert lighthouse(reader) == [] and lighthouse(backend) == []
            backend.flush()
        assert lighthouse(reader) == [] and lighthouse(backend) == []
        put(backend, "/docs/harbour.txt", ORCHARD, 2)  # new passages at the old place
        backend.flush()
        assert lighthouse(reader) == [] and lighthouse(backend) == []
        assert reader.keyword_search(["apple"], 5)[0] == list(ids_along(backend, 2))
    finally:
        reader.close()


INLINE = {  # one passage a sentence
    "/docs/leon.txt": ["De León's café served crème brûlée.", "Leon Martinez resigned on 12 March.",
                       "The technology museum's assembly hall reopened."],
    "/docs/ferry.txt": ["Ferries, ferry-boats and a ferryman: the FERRY ran daily.",
                        "Is it us, or is the harbour as busy as ever?"],
    "/docs/report.txt": ["Report_2024 shows 3.5% growth in e-mail use.", "Résumé writing classes"],
}
# How many of those 7 passages hold each stem, as FTS5 (schema 3, commit 1bcfbff) counted
# them; "field" and "note" are of the title every passage is indexed with
FTS5_COUNTED = {"leon": 2, "cafe": 1, "creme": 1, "martinez": 1, "resign": 1, "march": 1,
                "12": 1, "ferri": 1, "boat": 1, "ferryman": 1, "harbour": 1, "busi": 1,
                "report": 1, "2024": 1, "5": 1, "growth": 1, "mail": 1, "resum": 1,
                "write": 1, "class": 1, "museum": 1, "field": 7, "note": 7}


def test_term_frequencies_are_those_fts5_counted_for_the_stems_it_kept(backend):
    """The answer asks with Snowball's Porter stems. FTS5's Porter stemmer differs on a few
    words ("technology": "technolog", not "technologi"; it leaves "is", "us", "as" alone),
    so FTS5 counted 0 for those stems, as if no passage held them: now they are found."""
    for axis, (path, sentences) in enumerate(INLINE.items()):
        put(backend, path, sentences, axis)
    backend.flush()

    counts, passages = backend.term_frequencies(
        [*FTS5_COUNTED, "technologi", "assembli", "i", "u", "a"])

    assert passages == 7
    assert {term: counts[term] for term in FTS5_COUNTED} == FTS5_COUNTED
    assert [counts[term] for term in ("technologi", "assembli", "i", "u", "a")] == [
        1, 1, 1, 1, 2]  # FTS5: 0, 0, 0, 0, 1 ("a" but not "as")


def test_chunk_ids_are_never_given_twice(backend):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    first = ids_along(backend, 0)
    put(backend, "/docs/harbour.txt", ORCHARD, 2)  # its chunks were the last ones written
    second = ids_along(backend, 2)
    backend.remove_documents(["/docs/harbour.txt"])
    put(backend, "/docs/council.txt", COUNCIL, 1)

    assert min(second) > max(first) and min(ids_along(backend, 1)) > max(second)


@pytest.mark.parametrize("damage", ["missing", "stale", "unreadable"])
def test_a_missing_stale_or_unreadable_keyword_index_is_rebuilt(backend, folder, tmp_path,
                                                                 damage):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    backend.flush()
    shutil.copytree(folder / FOLDER, tmp_path / "at-harbour")
    backend.remove_documents(["/docs/harbour.txt"])
    put(backend, "/docs/council.txt", COUNCIL, 1)
    backend.flush()
    backend.close()
    shutil.rmtree(folder / FOLDER)
    if damage == "stale":  # it still holds harbour, of an earlier generation
        shutil.copytree(tmp_path / "at-harbour", folder / FOLDER)
    elif damage == "unreadable":
        (folder / FOLDER).mkdir()
        (folder / FOLDER / "meta.json").write_text("{not json")

    reopened = SQLiteBackend(folder)
    try:
        assert lighthouse(reopened) == [] and in_step(reopened)  # rebuilt, in the folder
        assert set(reopened.keyword_search(["mayor"], 5)[0]) <= ids_along(reopened, 1)
        assert reopened.keyword_search(["mayor"], 5)[0]
    finally:
        reopened.close()


@pytest.mark.process
def test_another_processs_committed_write_is_seen(backend, folder):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    backend.flush()
    assert backend.keyword_search(["apple"], 5) == [[]]

    done = subprocess.run([sys.executable, "-c", ANOTHER_WRITER, str(folder)], cwd=ROOT,
                          env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    found = backend.keyword_search(["apple"], 5)[0]
    assert found and set(found) == ids_along(backend, 2) and in_step(backend)
    assert lighthouse(backend)


@pytest.mark.process
@pytest.mark.parametrize("keywords", ["committed", "missing"])
def test_a_read_only_index_folder_still_answers(backend, folder, keywords):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    put(backend, "/docs/council.txt", COUNCIL, 1)
    backend.flush()
    expected = sorted(lighthouse(backend))
    counts = backend.term_frequencies(["lighthous"])
    backend.close()
    if keywords == "missing":
        shutil.rmtree(folder / FOLDER)
    for path in (folder, *folder.rglob("*")):
        os.chown(path, 65534, 65534)
        path.chmod(0o755 if path.is_dir() else 0o644)
    before = sorted(folder.rglob("*"))

    done = subprocess.run([sys.executable, "-c", READER, str(folder), "lighthouse"], cwd=ROOT,
                          env=ENV, capture_output=True, text=True, timeout=120,
                          preexec_fn=_without_root_powers)  # the folder is another user's

    assert done.returncode == 0, done.stderr
    # Tantivy opens no index it cannot lock: one built in RAM from the database answers
    assert json.loads(done.stdout) == [expected, False, [counts[0]["lighthous"], counts[1]]]
    assert sorted(folder.rglob("*")) == before


def _without_root_powers() -> None:
    """In the child, before exec: drop the capabilities that let root write any file
    (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):
        if libc.prctl(24, capability, 0, 0, 0):  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_query_syntax_in_a_question_is_read_as_words(backend, folder):
    put(backend, "/docs/harbour.txt", HARBOUR, 0)
    put(backend, "/docs/council.txt", COUNCIL, 1)
    backend.flush()
    keeper = [i for i, row in backend.chunks(list(ids_along(backend, 0))).items()
              if "keeper" in row.text]

    found = backend.keyword_search(
        ['keeper:"boat" AND (x OR y)* NEAR(', 'title:mayor^2 -council', "?!* () :"], 5)

    assert found[0][:1] == keeper
    assert set(found[1]) == ids_along(backend, 1)  # mayor and council, by their words
    assert found[2] == []


# -- a damaged keyword index that still carries a valid stamp (issue 26, item 8) ----------

QUESTION = "Martinez resigned recording"


def keyword_search_cli(index: Path) -> tuple[list[int], str]:
    """`qa search --mode keyword` in its own process: the chunk ids found, and its stderr;
    the test fails on a nonzero exit or a traceback (a Rust panic caught still prints its
    message)."""
    run = subprocess.run([*QA, "search", QUESTION, "--index", str(index), "--mode", "keyword",
                          "--json", "-k", "5"], capture_output=True, text=True, env=ENV,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    return [hit["chunk_id"] for hit in json.loads(run.stdout)["hits"]], run.stderr


@pytest.fixture(scope="module")
def keyword_answers(seed_index_path, tmp_path_factory) -> tuple[Path, list[int]]:
    """A copy of the seed index whose keyword index a first search built, and its hits."""
    pristine = copy_index(seed_index_path, tmp_path_factory.mktemp("keywords") / "index")
    found, _ = keyword_search_cli(pristine)
    assert found and (pristine / FOLDER / "meta.json").exists()
    return pristine, found


def damage(path: Path, how: str) -> None:
    """Flip one bit in the middle of a segment file, cut it in half, or flip one and write
    the checksum to match, as a damage the checksum cannot see would look."""
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(data[: len(data) // 2])
        return
    data[len(data) // 2] ^= 0x04
    if how == "flip, checksum matching":
        length = struct.unpack("<I", data[-8:-4])[0]
        footer = json.loads(data[-8 - length:-8])
        payload = bytes(data[:-8 - length])
        footer["crc"] = zlib.crc32(payload)
        text = json.dumps(footer, separators=(",", ":")).encode()
        data = bytearray(payload + text + struct.pack("<II", len(text), FOOTER_MAGIC))
    path.write_bytes(data)


@pytest.mark.process
@pytest.mark.parametrize(("kind", "how"), [
    *((kind, "flip") for kind in ("term", "idx", "pos", "store", "fast", "fieldnorm")),
    ("idx", "truncate"), ("term", "truncate"), ("idx", "flip, checksum matching"),
])
def test_a_damaged_segment_file_falls_back_to_an_index_in_ram_and_is_rebuilt(
        keyword_answers, tmp_path, kind, how):
    pristine, expected = keyword_answers
    index = tmp_path / "index"
    shutil.copytree(pristine, index)
    damage(next((index / FOLDER).glob(f"*.{kind}")), how)

    found, log = keyword_search_cli(index)
    assert found == expected
    assert "damaged" in log or "does not match its checksum" in log or "cut short" in log, log
    found, log = keyword_search_cli(index)  # rebuilt: Tantivy answers again, quietly
    assert found == expected and "WARNING" not in log, log


@pytest.mark.process
def test_a_reader_survives_segment_files_cut_short_under_it(keyword_answers, tmp_path):
    """Tantivy maps its segment files: one cut short under a running reader killed it with
    SIGBUS at its next search. The sizes are checked first: an index built in RAM
    answers, and the folder's is rebuilt, as for any damage."""
    pristine, _ = keyword_answers
    index = tmp_path / "index"
    shutil.copytree(pristine, index)
    reader = subprocess.Popen([sys.executable, "-c", READER, str(index), QUESTION, "loop"],
                              cwd=ROOT, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    def search() -> list:
        reader.stdin.write("\n")
        reader.stdin.flush()
        line = reader.stdout.readline()
        assert line, f"the reader died ({reader.wait(timeout=60)}): {reader.stderr.read()}"
        return json.loads(line)

    found, tantivy, counts = json.loads(reader.stdout.readline())  # its first search: all mapped
    assert found and tantivy
    for path in (index / FOLDER).iterdir():
        if not path.name.startswith(".") and path.suffix != ".json":  # a segment file
            os.truncate(path, 0)

    assert search() == [found, False, counts]  # an index in RAM answers
    assert search() == [found, True, counts]  # rebuilt: the folder's answers again
    reader.stdin.close()
    assert reader.wait(timeout=60) == 0
    assert "changed size" in reader.stderr.read()
