"""The backend contract: every backend (SQLite + FAISS; Milvus Lite, in a temporary folder)
must pass these tests, run through `Index` with the real model on small inline texts."""

import numpy as np
import pytest

from qa import BackendConfig, Index, QAError, Settings
from qa.backends import FileState, open_backend
from qa.backends.base import Chunk
from qa.cli import main
from qa.loaders.formats import Document, load

TEXTS = {
    "council.txt": "The mayor resigned after the recording was leaked. The council met on Monday "
                   "to choose who would lead the city until the election.",
    "harbour.txt": "Ferries left the harbour at dawn. The lighthouse keeper counted every boat "
                   "that came back through the storm.",
    # a name that needs quoting in any query language
    'it\'s "odd" \\ name.txt': "Orchards in the valley gave a record apple harvest this year.",
}


@pytest.fixture(params=["sqlite", pytest.param("milvus", marks=pytest.mark.milvus)])
def config(request) -> BackendConfig:
    return BackendConfig(request.param)


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture
def index(tmp_path, docs, config):
    index = Index.build([docs], tmp_path / "index", backend=config)
    yield index
    index.close()


def test_documents_text_and_spans_are_kept(index, docs):
    listed = {d.path: d for d in index.documents()}
    assert sorted(listed) == sorted(str(docs / name) for name in TEXTS)
    assert all(d.chunks == 1 and d.title == "" for d in listed.values())
    for name, text in TEXTS.items():
        assert index.document_text(str(docs / name)) == text
    hits = index.search("Who resigned after the recording?", k=3)
    assert hits[0].source == str(docs / "council.txt")
    assert TEXTS["council.txt"][hits[0].start:hits[0].end] == hits[0].text
    assert 0.3 < hits[0].similarity <= 1.0


def test_the_answer_quotes_the_right_sentence_with_its_span(index, docs):
    answer = index.ask("Who resigned after the recording was leaked?")
    citation = answer.citations[0]
    assert citation.quote == "The mayor resigned after the recording was leaked."
    assert TEXTS["council.txt"][citation.start:citation.end] == citation.quote


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_each_ranking_finds_the_document(index, docs, mode):
    hits = index.search("lighthouse keeper storm", k=3, mode=mode)
    assert hits[0].source == str(docs / "harbour.txt")


def test_keyword_search_is_stemmed_and_ignores_query_syntax(index, docs):
    hits = index.search("resignations", k=3, mode="keyword")  # "resigned" stems the same
    assert [h.source for h in hits] == [str(docs / "council.txt")]
    odd = index.search('harvests OR "apple" AND path == "x" [1] \\', k=3, mode="keyword")
    assert odd[0].source == str(docs / 'it\'s "odd" \\ name.txt')


def test_within_limits_every_ranking_to_those_documents(index, docs):
    odd = docs / 'it\'s "odd" \\ name.txt'
    for mode in ("dense", "keyword", "hybrid"):
        hits = index.search("lighthouse apple harvest", k=5, mode=mode, within=[odd])
        assert {h.source for h in hits} == {str(odd)}, mode
    assert index.search("lighthouse", within=[]) == []


def test_a_changed_document_is_replaced_whole(index, docs):
    old = _chunk_ids(index, docs, "harbour")
    (docs / "harbour.txt").write_text("The glacier above the village grew again this winter.")
    report = index.add([docs])
    assert (report.updated, report.unchanged) == (1, 2)
    assert index.document_text(str(docs / "harbour.txt")).startswith("The glacier")
    assert "Ferries" not in " ".join(row.text for row in index.backend.chunks(old).values())
    for mode in ("dense", "keyword", "hybrid"):
        hits = index.search("ferries harbour lighthouse glacier", k=5, mode=mode)
        assert not any("Ferries" in hit.text for hit in hits), mode
    assert index.search("glacier village", k=1)[0].source == str(docs / "harbour.txt")


def test_removed_and_vanished_documents_leave_everything(index, docs):
    assert index.remove(docs / "council.txt") == 1
    (docs / "council.txt").unlink()
    (docs / "harbour.txt").unlink()
    assert index.add([docs]).removed == 1
    assert [d.path for d in index.documents()] == [str(docs / 'it\'s "odd" \\ name.txt')]
    assert index.document_text(str(docs / "council.txt")) is None
    dense = index.search("mayor lighthouse", k=5, mode="dense")
    assert [h.source for h in dense] == [str(docs / 'it\'s "odd" \\ name.txt')]
    assert index.search("mayor lighthouse", k=5, mode="keyword") == []


def test_an_index_reopens_with_its_data_and_model(tmp_path, docs, config):
    Index.build([docs], tmp_path / "index", backend=config).close()
    index = Index.open(tmp_path / "index", backend=config)
    assert len(index.documents()) == 3
    assert index.search("harvest", k=1)[0].source.endswith("name.txt")
    assert index.add([docs]).unchanged == 3
    index.close()
    with pytest.raises(QAError, match="was built with model 'sentence-transformers/all-MiniLM"):
        Index.open(tmp_path / "index", Settings(model="other-model"), backend=config)


def test_a_write_that_fails_midway_leaves_the_old_document(tmp_path, docs, config):
    index = Index.build([docs], tmp_path / "index", backend=config)
    path = docs / "council.txt"
    document = load(path, b"Zebras crossed the square. Nobody resigned.")
    chunks = index.backend.chunks(_chunk_ids(index, docs, "council"))
    vector = next(iter(chunks.values())).vector
    chunk = Chunk(0, document.text, 0, len(document.text), None, ((0, 25), (26, 43)))
    state = index.backend.file_states()[str(path)]
    with pytest.raises(ValueError):  # one sentence vector for two sentences
        index.backend.put_document(document, state, [chunk], vector[None, :],
                                   [vector[None, :]])
    index.close()
    index = Index.open(tmp_path / "index", backend=config)  # reopening finishes the write
    assert index.document_text(str(path)) == TEXTS["council.txt"]
    assert index.search("zebras", k=5, mode="keyword") == []
    assert len(index.search("mayor resigned", k=5)) == 3
    index.close()


def test_meta_and_vectors_round_trip(tmp_path, config):
    """Vectors come back as given, up to the precision a backend stores them at (SQLite:
    int8, scaled to the largest component)."""
    backend = open_backend(tmp_path, config)
    try:
        assert backend.meta("model") is None
        backend.set_meta({"model": "m", "dim": "4"})
        assert (backend.meta("model"), backend.meta("dim")) == ("m", "4")
        text = "One sentence here. Another one there."
        chunks = [Chunk(n, text, 0, len(text), None, ((0, 18), (19, 37))) for n in range(6)]
        rng = np.random.default_rng(0)
        vectors = rng.standard_normal((6, 4)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # each its own best match
        sentence_vectors = [rng.standard_normal((2, 4)).astype(np.float32) for _ in range(6)]
        sentence_vectors = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in sentence_vectors]
        path = str(tmp_path / "a.txt")
        backend.put_document(Document(path, "A", text), FileState(1, 2.0, "s"), chunks, vectors,
                             sentence_vectors)
        ids = [backend.dense_search(v[None, :], 1)[0][0] for v in vectors]
        stored = backend.chunks(ids)
        assert all(np.allclose(stored[i].vector, v, atol=5e-3)
                   for i, v in zip(ids, vectors, strict=True))
        rows = backend.sentences(ids)
        assert [(r.chunk_id, r.start) for r in rows] == sorted(
            (i, start) for i in ids for start in (0, 19))
        by_place = {(r.chunk_id, r.start): r.vector for r in rows}
        for i, pair in zip(ids, sentence_vectors, strict=True):
            assert np.allclose(by_place[i, 0], pair[0], atol=5e-3)
            assert np.allclose(by_place[i, 19], pair[1], atol=5e-3)
        backend.flush()  # the keyword search sees writes once flushed
        assert sorted(backend.keyword_search(["sentences"], 10)[0]) == sorted(ids)
        assert backend.file_states() == {path: FileState(1, 2.0, "s")}
    finally:
        backend.close()


def _chunk_ids(index: Index, docs, stem: str) -> list[int]:
    hits = index.search(TEXTS[f"{stem}.txt"], k=10, mode="dense")
    return [h.chunk_id for h in hits if h.source == str(docs / f"{stem}.txt")]


def test_a_rebuild_swaps_in_a_fresh_index_and_keeps_the_rest_of_the_folder(
    tmp_path, docs, config
):
    Index.build([docs / "council.txt"], tmp_path / "index", backend=config).close()
    (tmp_path / "index" / "uploads").mkdir()
    (tmp_path / "index" / "uploads" / "kept.txt").write_text("an upload")
    report = Index.rebuild([docs / "harbour.txt"], tmp_path / "index", backend=config)
    assert report.added == 1
    index = Index.open(tmp_path / "index", backend=config)
    assert [d.path for d in index.documents()] == [str(docs / "harbour.txt")]
    index.close()
    assert (tmp_path / "index" / "uploads" / "kept.txt").read_text() == "an upload"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "index"]


@pytest.mark.milvus
def test_the_cli_takes_the_backend_from_flags_or_the_environment(tmp_path, docs, capsys,
                                                                  monkeypatch):
    lite = tmp_path / "elsewhere" / "qa.db"
    flags = ["--index", str(tmp_path / "index"), "--backend", "milvus", "--milvus-uri", str(lite)]
    assert main([*flags, "index", str(docs)]) == 0
    assert capsys.readouterr().out.startswith("3 added")
    assert lite.exists() and not (tmp_path / "index" / "index.sqlite3").exists()
    monkeypatch.setenv("QA_BACKEND", "milvus")
    monkeypatch.setenv("QA_MILVUS_URI", str(lite))
    assert main(["--index", str(tmp_path / "index"), "search", "lighthouse", "-k", "1"]) == 0
    assert "harbour.txt" in capsys.readouterr().out
    assert main([*flags[:4], "--milvus-uri", "milvus.example:19530", "docs"]) == 2
    assert capsys.readouterr().err == (
        "qa: the Milvus URI must be a file ending in .db (Milvus Lite) or http(s)://host:port "
        "(a Milvus server), not 'milvus.example:19530'\n")


@pytest.mark.milvus
def test_milvus_leftovers_of_a_write_are_finished_by_the_next_writer_not_a_reader(tmp_path,
                                                                                 docs):
    """A reader that opens the index while a write is in flight (here: the record a
    writer keeps until its write is done) must leave it alone; a writer finishes what a
    killed one left."""
    config = BackendConfig("milvus", str(tmp_path / "lite.db"))
    writer = Index.build([docs / "harbour.txt"], tmp_path / "index", backend=config)
    in_flight = "pending:in-flight"
    writer.backend.set_meta({in_flight: f'["{docs / "council.txt"}"]'})

    reader = open_backend(tmp_path / "index", config)
    assert reader.meta(in_flight) is not None
    reader.close()

    writer.close()  # killed before its write ended: the next writer finishes it
    Index.build([docs / "council.txt"], tmp_path / "index", backend=config).close()
    reader = open_backend(tmp_path / "index", config)
    assert reader.meta(in_flight) is None
    reader.close()
