"""The model computes in bfloat16 where the CPU has it natively, giving the vectors float32
gives; an index records its precision, and one built before it recorded any keeps
embedding its questions in float32 rather than mixing the two silently."""

import sqlite3
from contextlib import closing

import numpy as np
import pytest

from qa import Index, QAError, Settings
from qa.indexing.embedding import SentenceTransformerEmbedder, fastest_precision

TEXTS = ["The lantern festival opens at dusk on the second Friday of May.",
         "Refunds are paid within 14 days of the returned item arriving."]


def test_bfloat16_vectors_match_float32_ones():
    exact = SentenceTransformerEmbedder(cache_size=0, precision="float32")
    fast = SentenceTransformerEmbedder(cache_size=0, precision="bfloat16")
    cosines = np.sum(exact.embed(TEXTS) * fast.embed(TEXTS), axis=1)
    assert cosines.min() > 0.999
    spans = [[(0, 30), (31, len(TEXTS[0]))], [(0, len(TEXTS[1]))]]
    passages, sentences = fast.embed_passages(TEXTS, spans)
    assert np.sum(passages * exact.embed_passages(TEXTS, spans)[0], axis=1).min() > 0.999
    assert [s.shape[0] for s in sentences] == [2, 1]


def test_an_index_records_its_precision_and_keeps_it(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "fair.txt").write_text(TEXTS[0] + "\n\n" + TEXTS[1])
    with closing(Index.build([tmp_path / "docs"], tmp_path / "index")) as index:
        assert index.settings.precision == fastest_precision()
        assert index.backend.meta("precision") == fastest_precision()
    other = "float32" if fastest_precision() == "bfloat16" else "bfloat16"
    with pytest.raises(QAError, match=f"rebuild it: .*--precision {other}"):
        Index.open(tmp_path / "index", Settings(precision=other))


def test_an_index_from_before_precisions_keeps_float32(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "fair.txt").write_text(TEXTS[0])
    Index.build([tmp_path / "docs"], tmp_path / "index").close()
    with closing(sqlite3.connect(tmp_path / "index" / "index.sqlite3")) as db, db:
        db.execute("DELETE FROM meta WHERE key = 'precision'")
    with closing(Index.open(tmp_path / "index")) as index:
        assert index.settings.precision == "float32"
        assert "dusk" in index.search("When does the lantern festival open?")[0].text
