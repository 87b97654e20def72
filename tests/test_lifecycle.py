"""An index's life on a hostile machine: rebuilt under a running server, killed mid-rebuild,
a full disk, another user's folder, a database from a newer `qa`, stale vectors.

Every test does the bad thing for real: real `qa` processes, a real `--rebuild`, a real
tmpfs that fills up, real permissions (a process without the capabilities that let root
ignore them), real SQLite files.
"""

import ctypes
import logging
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import zlib
from contextlib import closing, contextmanager, suppress
from pathlib import Path

import numpy as np
import pytest

from qa import Index, QAError
from qa.backends.locking import write_lock
from qa.backends.sqlite import DATABASE, VECTORS, vectors
from qa.backends.sqlite.store import SCHEMA_VERSION, Store, _vector
from tests.helpers import ENV, QA, SEED_FILE, bulk_chunks, copy_index, faiss_ids

HARBOUR = "The harbour of Port Ellen reopened after the storm of 1998 damaged its piers."
ORCHARD = "The orchard at Kelso grows forty varieties of heritage apples."
RESIGNED = "Who has resigned?"
# `qa`, SIGKILLed just before it renames a path to one ending in $QA_KILL_AT_RENAME (the
# audit hook sees each os.rename before it happens; nothing of qa is changed)
QA_KILLED_AT_RENAME = [sys.executable, "-c", (
    "import os, signal, sys\n"
    "end = os.environ['QA_KILL_AT_RENAME']\n"
    "def hook(event, args):\n"
    "    if event == 'os.rename' and os.fspath(args[1]).endswith(end):\n"
    "        os.kill(os.getpid(), signal.SIGKILL)\n"
    "sys.addaudithook(hook)\n"
    "from qa.cli import main\n"
    "raise SystemExit(main())"
)]


def _qa(*args: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([*QA, *args], env=ENV, capture_output=True, text=True, timeout=300,
                          **options)


def _identity(index_path: Path) -> str:
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        return db.execute("SELECT value FROM meta WHERE key = 'identity'").fetchone()[0]


def _chunk_ids(index_path: Path) -> set[int]:
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        return {i for (i,) in db.execute("SELECT id FROM chunks")}


def _saved_vectors(index_path: Path) -> tuple[str, int]:
    """(database identity, generation) that the saved vector file says it reflects."""
    _, identity, generation = struct.unpack_from("<8s32sq", (index_path / VECTORS).read_bytes())
    return identity.decode(), generation


def _generation(index_path: Path) -> int:
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        return int(db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()[0])


def _one_line_error(done: subprocess.CompletedProcess, start: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"qa: {start}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


# -- 1. a rebuild while a server runs -------------------------------------------------------

@pytest.mark.process
def test_a_rebuild_under_a_running_server_is_what_the_server_then_reads_and_writes(
    tmp_path, seed_index_path
):
    """One long-lived Index stands in for `qa serve`; `qa index --rebuild` runs beside it.
    Both databases have had one write (generation 1), so only the identity tells the
    server's old vectors from the new database's."""
    index_path = copy_index(seed_index_path, tmp_path / "index")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "harbour.txt").write_text(HARBOUR)
    server = Index.open(index_path)
    assert server.ask(RESIGNED).found

    done = _qa("--index", str(index_path), "index", "--rebuild", str(docs))
    assert done.returncode == 0, done.stderr
    assert _generation(index_path) == server.backend.store().generation() == 1

    hits = server.search("Port Ellen harbour storm", mode="dense")
    assert [hit.source for hit in hits] == [str(docs / "harbour.txt")]
    hits = server.search("Port Ellen harbour storm", mode="keyword")  # the new keyword index
    assert [hit.source for hit in hits] == [str(docs / "harbour.txt")]
    assert _deleted_files_open(index_path) == [], "the old database is still held open"
    assert not server.ask(RESIGNED).found  # the seed article is no longer indexed
    server.backend.flush()  # an exact index is not saved: nor the old database's vectors
    assert not (index_path / VECTORS).exists()

    upload = index_path / "uploads" / "orchard.txt"  # a web upload after the swap
    upload.parent.mkdir()
    upload.write_text(ORCHARD)
    assert server.add([upload]).added == 1
    server.close()

    reader = Index.open(index_path)
    assert {d.path for d in reader.documents()} == {str(docs / "harbour.txt"), str(upload)}
    assert faiss_ids(reader) == _chunk_ids(index_path)
    assert reader.search("heritage apples", k=1, mode="dense")[0].source == str(upload)
    reader.close()


def test_a_call_the_swap_catches_between_its_queries_says_to_try_again(tmp_path,
                                                                       seed_index_path):
    index_path = copy_index(seed_index_path, tmp_path / "index")
    store = Store(index_path / DATABASE)
    store.close()  # as the backend closes the old database once it sees the new one

    with pytest.raises(QAError, match=r"^the index at .* was rebuilt just then: try again$"):
        store.generation()


def test_a_vector_file_of_another_database_is_never_used(tmp_path, monkeypatch):
    """A vector file of another index, saved at the same generation, is rebuilt."""
    index_path = tmp_path / "index"
    Index.build([_write(tmp_path / "docs" / "harbour.txt", HARBOUR)], index_path).close()
    monkeypatch.setattr(vectors, "APPROX_MIN", 1_000)  # only an approximate index is saved
    rng = np.random.default_rng(0)
    other = rng.standard_normal((2_000, 384)).astype(np.float32)
    other /= np.linalg.norm(other, axis=1, keepdims=True)
    saved = vectors.VectorIndex.build(384, [(np.arange(1, 2_001), other)])
    saved.save(index_path / VECTORS, "another database", _generation(index_path))

    index = Index.open(index_path)
    hits = index.search("Who has resigned over the recording?", mode="dense")

    assert [hit.source for hit in hits] == [str(tmp_path / "docs" / "harbour.txt")]
    assert faiss_ids(index) == _chunk_ids(index_path)
    index.close()


def _deleted_files_open(folder: Path) -> list[str]:
    """The files in `folder` this process holds open or mapped (Tantivy maps its segments)
    that have been deleted."""
    targets = []
    for fd in Path("/proc/self/fd").iterdir():
        with suppress(OSError):  # the listing's own descriptor is gone by now
            targets.append(os.readlink(fd))
    targets += [line.split(maxsplit=5)[-1] for line in
                Path("/proc/self/maps").read_text().splitlines() if line.count(" ") >= 5]
    return [target for target in targets
            if target.startswith(str(folder)) and target.endswith(" (deleted)")]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# -- 9. a rebuild killed in its folder swap -------------------------------------------------

@pytest.mark.process
@pytest.mark.parametrize("killed_before", ["index.old", "index"])
def test_a_rebuild_killed_in_its_swap_loses_no_upload(tmp_path, seed_copy, killed_before):
    """Killed just before the old folder is moved away (the uploads are already in the new
    one), or between the two renames (no index folder at all for a moment)."""
    index_path = tmp_path / "index"
    upload = _write(index_path / "uploads" / "orchard.txt", ORCHARD)
    assert _qa("--index", str(index_path), "index", str(seed_copy), str(upload)).returncode == 0

    killed = subprocess.run(
        [*QA_KILLED_AT_RENAME, "--index", str(index_path), "index", "--rebuild"],
        env={**ENV, "QA_KILL_AT_RENAME": f"/{killed_before}"}, capture_output=True, text=True,
        timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not upload.exists()  # it was carried into index.rebuild

    if killed_before == "index":  # the next command finishes the swap
        done = _qa("--index", str(index_path), "docs")
        assert done.returncode == 0, done.stderr
    done = _qa("--index", str(index_path), "index", "--rebuild")
    assert done.returncode == 0, done.stderr

    assert upload.read_text() == ORCHARD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "index"]
    index = Index.open(index_path)
    assert {d.path for d in index.documents()} == {str(seed_copy / SEED_FILE.name),
                                                   str(upload)}
    assert index.search("heritage apples", k=1)[0].source == str(upload)
    index.close()


# -- 4. a full disk ---------------------------------------------------------------------

@contextmanager
def _small_disk(folder: Path, megabytes: int):
    """A tmpfs of this size mounted at `folder` (the tests run as root in a container)."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=0700",
                              "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def _fill(disk: Path, leave: int) -> Path:
    """Fill the disk but for about `leave` bytes."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as file:  # unbuffered: nothing left to flush at close
        try:
            while True:
                file.write(bytes(1 << 16))  # the last one may be written in part
        except OSError:
            pass
    size = filler.stat().st_size
    os.truncate(filler, max(0, size - leave))
    return filler


@pytest.mark.process
def test_a_full_disk_is_one_line_and_loses_nothing(tmp_path, seed_index_path, monkeypatch):
    big = _write(tmp_path / "more" / "long.txt",
                 " ".join(f"Line {i} of the long report on the lighthouse keepers." for i in
                          range(300)))  # its sentences' vectors: 0.5 MB
    with _small_disk(tmp_path / "disk", 16) as disk:
        index_path = copy_index(seed_index_path, disk / "index")
        bulk_chunks(index_path, documents=2, chunks=600)  # a 1.1 MB vector file, once
        monkeypatch.setattr(vectors, "APPROX_MIN", 1_000)  # approximate: only that is saved
        Index.open(index_path).backend.flush()
        before = _qa("--index", str(index_path), "docs").stdout
        filler = _fill(disk, leave=64 << 10)

        # Indexing: the document's commit does not fit.
        done = _qa("--index", str(index_path), "index", str(big.parent))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith(  # after the progress bar
            f"qa: the disk holding the index database {index_path / DATABASE} is full")
        assert _qa("--index", str(index_path), "docs").stdout == before

        # Removing a small document: its commit fits, the vector file does not.
        os.truncate(filler, max(0, filler.stat().st_size - (640 << 10)))
        done = _qa("--index", str(index_path), "remove", str(SEED_FILE))
        assert done.returncode == 0 and done.stdout.startswith("removed 1 document"), done
        assert done.stderr.startswith("WARNING: could not save the vector index"), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        assert [p.name for p in index_path.iterdir() if p.name.startswith("vectors")] == [VECTORS]

        filler.unlink()
        with closing(sqlite3.connect(index_path / DATABASE)) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        index = Index.open(index_path)
        assert {d.path for d in index.documents()} == {"/elsewhere/bulk-0.txt",
                                                       "/elsewhere/bulk-1.txt"}
        assert faiss_ids(index) == _chunk_ids(index_path)
        index.close()


@pytest.mark.process
def test_a_disk_full_to_the_last_byte_is_the_same_one_line(tmp_path, seed_index_path):
    """With no byte left, SQLite cannot even grow its WAL's shared memory and says "disk I/O
    error" (SQLITE_IOERR_SHMSIZE): `qa index` still says the disk is full."""
    more = _write(tmp_path / "more" / "report.txt", "The lighthouse keepers' report.")
    with _small_disk(tmp_path / "disk", 16) as disk:
        index_path = copy_index(seed_index_path, disk / "index")
        filler = _fill(disk, leave=0)

        done = _qa("--index", str(index_path), "index", str(more.parent))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith(
            f"qa: the disk holding the index database {index_path / DATABASE} is full")

        filler.unlink()
        assert [d.path for d in Index.open(index_path).documents()] == [str(SEED_FILE)]



@pytest.mark.process
def test_search_and_ask_answer_on_a_disk_full_to_the_last_byte(tmp_path, seed_index_path):
    """A search writes nothing the user asked for, yet `qa search` and `qa ask` exited 2
    with "the disk … is full": opening the database for writing makes its WAL's shared
    memory (-shm), which did not fit (issue 35). A write still gets that line."""
    more = _write(tmp_path / "more" / "report.txt", "The lighthouse keepers' report.")
    with _small_disk(tmp_path / "disk", 16) as disk:
        index_path = copy_index(seed_index_path, disk / "index")
        Index.open(index_path).close()  # as `qa` leaves it: WAL mode, its keyword index
        filler = _fill(disk, leave=0)

        found = _qa("--index", str(index_path), "search", "resigned", "-k", "1")
        assert found.returncode == 0 and found.stderr == "", found.stderr
        assert found.stdout.startswith(f"1. {SEED_FILE}")
        asked = _qa("--index", str(index_path), "ask", RESIGNED)
        assert asked.returncode == 0 and "Martinez and Herrera" in asked.stdout, asked.stderr
        done = _qa("--index", str(index_path), "index", str(more.parent))
        assert done.returncode == 2 and done.stderr.strip().splitlines()[-1].startswith(
            f"qa: the disk holding the index database {index_path / DATABASE} is full")

        filler.unlink()
        assert _qa("--index", str(index_path), "index", str(more.parent)).returncode == 0
        assert len(Index.open(index_path).documents()) == 2

# -- 8. permissions ------------------------------------------------------------------------

def _without_root_powers() -> None:
    """In the child: drop the capabilities that let root ignore file permissions, so it is
    treated as any user who does not own the files (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
    CAP_FOWNER)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):
        if libc.prctl(24, capability, 0, 0, 0):  # PR_CAPBSET_DROP, then exec
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.fixture
def others_index(tmp_path, seed_index_path) -> Path:
    """A copy of the seed index owned by another user: readable by all, writable by them."""
    index_path = copy_index(seed_index_path, tmp_path / "others")
    Index.open(index_path).close()  # as `qa` leaves it: WAL mode, stamped
    for path in (index_path, *index_path.iterdir()):
        os.chown(path, 65534, 65534)
        path.chmod(0o755 if path.is_dir() else 0o644)
    return index_path


@pytest.mark.process
@pytest.mark.parametrize("owner", ["at rest", "while its owner has it open"])
def test_an_index_of_another_user_can_be_read_but_not_written(others_index, seed_copy, owner):
    before = (others_index / DATABASE).read_bytes()
    holder = Index.open(others_index) if owner != "at rest" else None
    try:
        if holder:
            holder.search("resigned")
            for path in others_index.iterdir():  # its -wal and -shm, as the owner made them
                os.chown(path, 65534, 65534)
                path.chmod(0o644)

        def qa(*args):
            return _qa("--index", str(others_index), *args, preexec_fn=_without_root_powers)

        assert qa("docs").stdout.endswith("1 document\n")
        asked = qa("ask", RESIGNED)
        assert asked.returncode == 0 and "Martinez and Herrera" in asked.stdout, asked.stderr
        _one_line_error(qa("index", str(seed_copy)), f"cannot write the index at {others_index}")
        _one_line_error(qa("remove", str(SEED_FILE)), f"cannot write the index at {others_index}")
    finally:
        if holder:
            holder.close()
    assert holder or (others_index / DATABASE).read_bytes() == before


@pytest.mark.process
def test_an_index_folder_closed_to_this_user_is_one_line(others_index):
    others_index.chmod(0o700)

    for command in (["docs"], ["ask", RESIGNED], ["index", str(SEED_FILE)]):
        done = _qa("--index", str(others_index), *command, preexec_fn=_without_root_powers)
        _one_line_error(done, "cannot ")
        assert "Permission denied" in done.stderr


# -- 10. an index path that is a file -----------------------------------------------------

@pytest.mark.process
def test_an_index_path_that_is_a_file_is_one_line(tmp_path, seed_copy):
    file = _write(tmp_path / "notes.txt", "not an index")

    with pytest.raises(QAError, match="is a file, not a folder"):
        Index.create(file)
    _one_line_error(_qa("--index", str(file), "index", str(seed_copy)),
                    f"the index path {file} is a file, not a folder")
    assert file.read_text() == "not an index"


# -- 11. schema versions -------------------------------------------------------------------

def _meta(index_path: Path) -> dict[str, str]:
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        return dict(db.execute("SELECT key, value FROM meta"))


def test_a_new_index_records_its_schema_version(seed_index_path):
    meta = _meta(seed_index_path)

    assert meta["schema"] == str(SCHEMA_VERSION) and len(meta["identity"]) == 32


@pytest.mark.process
def test_an_index_of_a_newer_schema_is_refused_and_not_written(tmp_path, seed_index_path,
                                                               seed_copy):
    index_path = copy_index(seed_index_path, tmp_path / "index")
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION + 1),))
        db.commit()
    before = (index_path / DATABASE).read_bytes()

    for command in (["docs"], ["ask", RESIGNED], ["index", str(seed_copy)]):
        _one_line_error(_qa("--index", str(index_path), *command),
                        f"the index database {index_path / DATABASE} has schema version "
                        f"{SCHEMA_VERSION + 1}, newer than this qa reads ({SCHEMA_VERSION}): "
                        "upgrade qa")

    assert (index_path / DATABASE).read_bytes() == before
    assert not (index_path / f"{DATABASE}-wal").exists()


def test_an_unversioned_index_of_this_layout_is_stamped_and_another_is_refused(
    tmp_path, seed_index_path
):
    index_path = copy_index(seed_index_path, tmp_path / "index")
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        db.execute("DELETE FROM meta WHERE key IN ('schema', 'identity')")
        db.commit()
    index = Index.open(index_path)
    assert index.ask(RESIGNED).found
    index.close()
    assert _meta(index_path)["schema"] == str(SCHEMA_VERSION)

    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        db.execute("DELETE FROM meta WHERE key = 'schema'")
        db.execute("ALTER TABLE documents DROP COLUMN page_starts")  # an older layout
        db.commit()
    with pytest.raises(QAError, match="written by an older qa in another layout.*rebuild"):
        Index.open(index_path)


OLD_INDEXES = {  # the same two documents, indexed by the qa of each earlier schema
    1: Path(__file__).parent / "data" / "schema1-index",  # built by qa at 83bfaf7
    2: Path(__file__).parent / "data" / "schema2-index",  # built by qa at 5a32e8d
    3: Path(__file__).parent / "data" / "schema3-index",  # built by qa at 1bcfbff
}


def _old_copy(schema: int, target: Path) -> Path:
    """A copy of an index an earlier qa built (schema 1: float32 vectors, an FTS5 table
    holding its own copy of the text; schema 2: the text uncompressed, the vector file of
    each one's format too; schema 3: a contentless FTS5 table, no vector file). None has
    its keyword folder: it is rebuilt from the database."""
    shutil.copytree(OLD_INDEXES[schema], target)
    target.chmod(0o700)
    return target


@pytest.mark.parametrize("schema", sorted(OLD_INDEXES))
def test_an_index_of_an_earlier_schema_is_upgraded_in_place_and_answers(
    tmp_path, caplog, schema
):
    index_path = _old_copy(schema, tmp_path / "old")
    old_kind = {1: np.float32, 2: np.float16, 3: np.float16}[schema]
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        old = {i: np.frombuffer(blob, old_kind)
               for i, blob in db.execute("SELECT id, vector FROM chunks")}
        texts = dict(db.execute("SELECT path, text FROM documents"))
        texts = {path: zlib.decompress(text).decode() if schema == 3 else text
                 for path, text in texts.items()}
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'chunks_fts'"
                          ).fetchone() == (1,)
    caplog.set_level(logging.INFO, logger="qa")

    index = Index.open(index_path)
    answer = index.ask("When did the storm damage the piers of Port Ellen?")
    apples = index.search("heritage apples", mode="keyword")
    near = index.search("a tree planted two centuries ago", mode="dense")
    kept = {path: index.backend.document_text(path) for path in texts}
    index.close()

    assert answer.found and "1998" in answer.text
    assert apples[0].title == near[0].title == "Kelso orchard"
    assert kept == texts
    upgrades = [r for r in caplog.records if "upgrading the index database" in r.getMessage()]
    assert len(upgrades) == 1
    assert _meta(index_path)["schema"] == str(SCHEMA_VERSION)
    with closing(sqlite3.connect(index_path / DATABASE)) as db:
        new = dict(db.execute("SELECT id, vector FROM chunks"))
        sentences = {len(blob) for (blob,) in db.execute("SELECT vector FROM sentences")}
        stored = dict(db.execute("SELECT path, length(text) FROM documents"))
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert new.keys() == old.keys() and sentences == {384}
    assert {len(blob) for blob in new.values()} == {384}  # int8
    assert all(stored[path] < len(text) for path, text in texts.items())  # compressed
    assert not {name for name in tables if name.startswith("chunks_fts")}, tables
    for chunk_id, blob in new.items():  # the same vectors, stored small: not re-embedded
        assert np.dot(_vector(blob), old[chunk_id]) > 0.9999
    assert not (index_path / VECTORS).exists()  # an exact index is built, not saved
    caplog.clear()
    Index.open(index_path).close()
    assert not any("upgrading" in r.getMessage() for r in caplog.records)


def _read_only_old_copy(schema: int, target: Path) -> Path:
    """A copy of an earlier schema's index in a folder of another user's, read-only."""
    index_path = _old_copy(schema, target)
    for path in (index_path, *index_path.iterdir()):
        os.chown(path, 65534, 65534)
        path.chmod(0o755 if path.is_dir() else 0o644)
    return index_path


@pytest.mark.process
@pytest.mark.parametrize("schema", [2, 3])
def test_an_index_of_an_earlier_schema_that_cannot_be_written_is_one_line(tmp_path, schema):
    """Never misread: schema 3's chunk vectors are float16, this one's int8."""
    index_path = _read_only_old_copy(schema, tmp_path / "old")
    before = (index_path / DATABASE).read_bytes()

    done = _qa("--index", str(index_path), "ask", "Which apples grow at Kelso?",
               preexec_fn=_without_root_powers)

    _one_line_error(done, f"the index database {index_path / DATABASE} was written by an "
                          f"older qa (schema {schema}); open it once where it can be written")
    assert (index_path / DATABASE).read_bytes() == before


# -- 6. readers save the vectors they rebuilt ----------------------------------------------

def _stale_vectors(index_path: Path) -> None:
    """A write whose process died before it saved the vector file (generation + 1)."""
    store = Store(index_path / DATABASE)
    store.remove_documents(["/nowhere/at-all.txt"])
    store.close()


@pytest.fixture
def approximate_copy(tmp_path, seed_index_path, monkeypatch) -> Path:
    """A copy of the seed index with 1,200 chunks more, its vector index approximate (from
    1,000 vectors on, in these tests) and saved, then made stale by a write."""
    monkeypatch.setattr(vectors, "APPROX_MIN", 1_000)
    index_path = copy_index(seed_index_path, tmp_path / "index")
    bulk_chunks(index_path, documents=2, chunks=600)
    Index.open(index_path).backend.flush()
    assert (index_path / VECTORS).exists()
    _stale_vectors(index_path)
    return index_path


def _asked(index_path: Path, caplog) -> tuple[bool, bool]:
    """(whether a reader, opening the index, rebuilt its vector index; found an answer)."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="qa"):
        index = Index.open(index_path)
        found = "Martinez and Herrera" in index.ask(RESIGNED).text
        index.close()
    return any("rebuilt the vector index" in r.getMessage() for r in caplog.records), found


def test_a_reader_saves_the_vectors_it_rebuilt_so_the_next_one_need_not(
    approximate_copy, caplog
):
    first, second = _asked(approximate_copy, caplog), _asked(approximate_copy, caplog)

    assert first == (True, True)
    assert _saved_vectors(approximate_copy) == (_identity(approximate_copy),
                                                _generation(approximate_copy))
    assert second == (False, True)


def test_a_reader_does_not_save_vectors_while_a_writer_holds_the_index(
    approximate_copy, caplog
):
    before = (approximate_copy / VECTORS).read_bytes()

    with write_lock(approximate_copy):  # a writer, in this process
        asked = _asked(approximate_copy, caplog)

    assert asked == (True, True)
    assert (approximate_copy / VECTORS).read_bytes() == before


def test_an_exact_vector_index_is_never_saved_but_built_by_each_reader(
    tmp_path, seed_index_path, caplog
):
    index_path = copy_index(seed_index_path, tmp_path / "index")
    assert not (index_path / VECTORS).exists()  # as the seed index was built

    first, second = _asked(index_path, caplog), _asked(index_path, caplog)

    assert first == second == (True, True)
    assert not (index_path / VECTORS).exists()
