"""The index over time: incremental updates, removal, the model guard, and derived vectors."""

import json
import shutil
import sqlite3
from contextlib import closing

import pytest

from qa import Index, QAError, Settings
from qa.answering.quoted import question_terms
from qa.backends.sqlite import vectors
from qa.cli import main
from tests.helpers import SEED_FILE, bulk_chunks

HARBOUR = "The harbour of Port Ellen reopened after the storm of 1998 damaged its piers."
ORCHARD = "The orchard at Kelso grows forty varieties of heritage apples."


def _sources(hits) -> set[str]:
    return {hit.source for hit in hits}


def test_reindexing_embeds_only_what_changed(tmp_path, seed_copy):
    (seed_copy / "harbour.txt").write_text(HARBOUR)
    index = Index.create(tmp_path / "index")

    first = index.add([seed_copy])
    again = index.add([seed_copy])
    (seed_copy / "harbour.txt").write_text(HARBOUR + " Ferries run twice a day.")
    changed = index.add([seed_copy])

    assert (first.added, first.chunks_embedded > 1) == (2, True)
    assert (again.unchanged, again.chunks_embedded) == (2, 0)
    assert (changed.updated, changed.unchanged, changed.chunks_embedded) == (1, 1, 1)


def test_a_file_deleted_from_the_folder_leaves_the_index(tmp_path, seed_copy):
    harbour = seed_copy / "harbour.txt"
    harbour.write_text(HARBOUR)
    index = Index.create(tmp_path / "index")
    index.add([seed_copy])
    assert str(harbour) in _sources(index.search("Port Ellen harbour storm piers"))

    harbour.unlink()
    report = index.add([seed_copy])

    assert report.removed == 1
    assert str(harbour) not in _sources(index.search("Port Ellen harbour storm piers", k=20))
    reopened = Index.open(tmp_path / "index")
    assert str(harbour) not in _sources(reopened.search("Port Ellen harbour storm piers", k=20))


def test_indexing_another_folder_adds_to_the_index(tmp_path, seed_copy):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "orchard.md").write_text(ORCHARD)
    index = Index.create(tmp_path / "index")
    index.add([seed_copy])

    index.add([notes])

    assert {doc.path for doc in index.documents()} == {
        str(seed_copy / SEED_FILE.name), str(notes / "orchard.md")
    }


def test_remove_really_removes_the_vectors(tmp_path, seed_copy):
    (seed_copy / "orchard.md").write_text(ORCHARD)
    index = Index.create(tmp_path / "index")
    index.add([seed_copy])
    before = index.counts()

    assert index.remove(seed_copy / ".." / seed_copy.name / "orchard.md") == 1

    # counted, not searched: a search drops a vector whose chunk is gone (see the next test)
    after = index.counts()
    assert after["vectors"] == after["chunks"] == before["chunks"] - 1
    index.close()
    with closing(Index.open(tmp_path / "index")) as reopened:  # the saved vector file
        assert reopened.counts() == after
        hits = reopened.search("heritage apples orchard Kelso", k=20, mode="dense")
        assert str(seed_copy / "orchard.md") not in _sources(hits)
        assert reopened.remove(seed_copy / "orchard.md") == 0


def test_a_vector_whose_chunk_is_gone_is_warned_about_counted_and_dropped(
        tmp_path, seed_copy, caplog, capsys, monkeypatch):
    # only an approximate vector index is saved, and so can hold a vector whose chunk is gone
    monkeypatch.setattr(vectors, "APPROX_MIN", 1_000)
    (seed_copy / "orchard.md").write_text(ORCHARD)
    Index.build([seed_copy], tmp_path / "index").close()
    bulk_chunks(tmp_path / "index", documents=2, chunks=600)
    Index.open(tmp_path / "index").backend.flush()
    with closing(sqlite3.connect(tmp_path / "index" / "index.sqlite3")) as db, db:
        db.execute("PRAGMA foreign_keys = ON")  # a removal behind the vector index's back
        db.execute("DELETE FROM documents WHERE path = ?", (str(seed_copy / "orchard.md"),))
    assert main(["docs", "--stats", "--index", str(tmp_path / "index")]) == 0
    assert "vectors (1 stale: with no chunk)" in capsys.readouterr().out

    with closing(Index.open(tmp_path / "index")) as index:
        hits = index.search("heritage apples orchard Kelso", k=20, mode="dense")

        assert hits and str(seed_copy / "orchard.md") not in _sources(hits)
        assert "1 passage(s) found by the search are not stored" in caplog.text
        assert index.counts()["stale_vectors"] == 0
    assert main(["docs", "--stats", "--json", "--index", str(tmp_path / "index")]) == 0
    assert json.loads(capsys.readouterr().out)["stale_vectors"] == 0  # the repair was saved


def test_the_passage_count_behind_word_rarity_follows_the_index(tmp_path, seed_copy):
    index = Index.create(tmp_path / "index")
    index.add([seed_copy])
    _, before = index.backend.term_frequencies(["resign"])
    (seed_copy / "orchard.md").write_text(ORCHARD)
    index.add([seed_copy])

    frequencies, after = index.backend.term_frequencies(["resign", "orchard"])

    assert before == 5 and after == sum(d.chunks for d in index.documents()) > before
    assert frequencies["orchard"] >= 1
    index.remove(seed_copy / "orchard.md")
    assert index.backend.term_frequencies(["resign"])[1] == before


def test_a_question_word_has_the_index_own_rarity_with_or_without_its_accents(seed_index):
    # the keyword index keeps "León" as "leon": a question's word must be looked up so,
    # or it counts as a word no passage holds, the rarest there is
    accented = question_terms("What did de León say?")
    assert accented == question_terms("What did de Leon say?")

    frequencies, passages = seed_index.backend.term_frequencies(accented)

    assert frequencies["leon"] == passages == 5  # every chunk of the seed names him


def test_a_bad_file_is_reported_and_the_rest_indexed(tmp_path, seed_copy):
    (seed_copy / "broken.docx").write_bytes(b"not a zip")
    (seed_copy / "song.mp3").write_bytes(b"ID3")
    index = Index.create(tmp_path / "index")

    report = index.add([seed_copy])

    assert report.added == 1
    assert [reason for _, reason in report.failed] == [
        "not a valid .docx file: File is not a zip file"
    ]
    assert [path for path, _ in report.skipped] == [str(seed_copy / "song.mp3")]


def test_opening_with_another_model_says_how_to_rebuild(seed_index_path):
    with pytest.raises(QAError, match=r"built with model .*all-MiniLM-L6-v2.*index --rebuild"):
        Index.open(seed_index_path, Settings(model="intfloat/e5-small-v2"))


def test_the_rebuild_that_message_advises_switches_the_model(tmp_path, seed_index_path, capsys):
    copy = tmp_path / "index"
    shutil.copytree(seed_index_path, copy)
    other = "all-MiniLM-L6-v2"  # the bundled model under its short name: another name

    assert main(["--index", str(copy), "index", "--rebuild", "--model", other]) == 0

    assert "1 added" in capsys.readouterr().out
    index = Index.open(copy)
    assert index.settings.model == other
    assert index.ask("Who has resigned?").found


def test_opening_a_missing_index_says_how_to_create_one(tmp_path):
    with pytest.raises(QAError, match="no index at .*qa index"):
        Index.open(tmp_path / "nothing")


def test_cli_index_ask_search_docs_remove(tmp_path, seed_copy, capsys):
    index = ["--index", str(tmp_path / "index")]

    assert main([*index, "index", str(seed_copy)]) == 0
    assert "1 added" in capsys.readouterr().out
    assert main([*index, "index", str(seed_copy)]) == 0
    assert "nothing to embed" in capsys.readouterr().out

    assert main(["ask", "Who has resigned?", "--json", *index]) == 0
    asked = json.loads(capsys.readouterr().out)
    assert asked["found"] and "Martinez and Herrera" in asked["answer"]
    assert asked["citations"][0]["source"] == str(seed_copy / SEED_FILE.name)

    assert main(["search", "protests outside his home", "-k", "3", "--json", *index]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [hit["rank"] for hit in hits] == [1, 2, 3]
    assert "Eagle Rock home" in hits[0]["text"]

    assert main(["docs", *index]) == 0
    assert SEED_FILE.name in capsys.readouterr().out
    assert main(["remove", str(seed_copy / SEED_FILE.name), *index]) == 0
    assert main(["remove", str(seed_copy / SEED_FILE.name), *index]) == 1
    assert "not in the index" in capsys.readouterr().err


def test_cli_reports_errors_without_a_traceback(tmp_path, capsys):
    assert main(["--index", str(tmp_path / "none"), "ask", "anything"]) == 2
    assert capsys.readouterr().err.startswith("qa: no index at")


def test_a_file_over_the_size_limit_is_skipped_with_its_own_message(tmp_path, seed_copy):
    (seed_copy / "big.txt").write_text("Enormous notes. " * 100_000)  # 1.6 MB
    index = Index.create(tmp_path / "index", Settings(max_file_mb=1))

    report = index.add([seed_copy])

    assert report.added == 1
    assert report.failed == [
        (str(seed_copy / "big.txt"), "the file is 1.6 MB; the limit is 1 MB "
         "(max_file_mb, qa index --max-file-mb)")
    ]


def test_the_index_folder_is_private(tmp_path, seed_copy):
    path = tmp_path / "index"
    Index.build([seed_copy], path=path).close()

    assert path.stat().st_mode & 0o777 == 0o700
    for file in path.iterdir():
        assert file.stat().st_mode & 0o077 == 0, file.name


def test_a_large_vector_index_is_approximate_and_still_adds_and_removes(monkeypatch):
    import numpy as np

    from qa.backends.sqlite import vectors

    monkeypatch.setattr(vectors, "APPROX_MIN", 2_000)
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(50, 32))
    data = centres[rng.integers(0, 50, 4_000)] + 0.3 * rng.normal(size=(4_000, 32))
    data = (data / np.linalg.norm(data, axis=1, keepdims=True)).astype(np.float32)
    ids = np.arange(1, 4_001, dtype=np.int64)

    index = vectors.VectorIndex.build(32, [(ids[:3_000], data[:3_000])])
    index.add(ids[3_000:], data[3_000:])
    index.remove(range(1, 501))

    assert type(index._index).__name__ == "IndexIVFScalarQuantizer"  # float16 vectors
    _, found = index.search(data[:1_000], 10)
    assert not set(found.ravel().tolist()) & set(range(1, 501))
    assert (found[500:, 0] == ids[500:1_000]).mean() > 0.95  # each finds itself
    assert (index.search(data[3_500:3_600], 1)[1].ravel() == ids[3_500:3_600]).mean() > 0.95
