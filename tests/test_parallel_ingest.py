"""Indexing on several cores (groups of chunks embedded side by side by replicas of the
model) stores what embedding everything in one call stores, bit for bit."""

import sqlite3
from contextlib import closing

from qa import Index
from qa.backends.sqlite import DATABASE
from qa.indexing import ingest

TOWNS = ["Kelso", "Alnwick", "Hexham", "Morpeth", "Rothbury", "Wooler"]


def _stored(index) -> list[tuple]:
    """Every chunk as stored, in the order written: ids, spans, texts, passage and
    sentence vectors."""
    with closing(sqlite3.connect(index / DATABASE)) as db:
        return db.execute(
            "SELECT c.id, d.id, d.path, d.text, c.ordinal, c.start_char, c.end_char, c.vector, "
            "(SELECT group_concat(hex(s.vector)) FROM sentences s WHERE s.chunk_id = c.id) "
            "FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id"
        ).fetchall()


def test_parallel_ingest_stores_what_serial_ingest_stores(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, town in enumerate(TOWNS):
        (docs / f"{town}.md").write_text(
            f"# {town}\n\nThe market at {town} opens at {i + 6} o'clock. "
            f"Its bridge was rebuilt in {1800 + 7 * i}.\n\nThe fair comes every autumn.")
    (docs / "notes.xyz").write_text("not a supported type")

    monkeypatch.setattr(ingest, "EMBED_BATCH_CHUNKS", 10**6)  # one group, in this thread
    serial = Index.build([docs], path=tmp_path / "serial")
    monkeypatch.setattr(ingest, "EMBED_BATCH_CHUNKS", 1)  # a group per file, two at once
    monkeypatch.setattr(ingest, "EMBED_WORKERS", 2)
    parallel = Index.create(tmp_path / "parallel")
    report = parallel.add([docs])

    assert report.summary() == f"{len(TOWNS)} added, 0 updated, 0 unchanged, 0 removed, " \
                               f"0 failed, 1 skipped; {len(TOWNS)} chunks embedded"
    assert _stored(tmp_path / "parallel") == _stored(tmp_path / "serial")
    assert [h.source for h in parallel.search("When was the bridge at Hexham rebuilt?", k=1)] \
        == [h.source for h in serial.search("When was the bridge at Hexham rebuilt?", k=1)] \
        == [str(docs / "Hexham.md")]
