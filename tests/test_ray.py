"""Ray ingest: `qa index --ray` on a local Ray (2 CPUs) stores what indexing in this process
stores, bit for bit, and reports the same."""

import sqlite3
from contextlib import closing

import pytest

from qa.backends.sqlite import DATABASE
from qa.cli import main

pytestmark = pytest.mark.ray

TEXTS = {
    "council.txt": "The mayor resigned after the recording was leaked. The council met on Monday.",
    "harbour.md": "# Harbour\n\nFerries left the harbour at dawn. The keeper counted every boat.",
    "notes.xyz": "not a supported type",
}


def _stored(index) -> list[tuple]:
    with closing(sqlite3.connect(index / DATABASE)) as db:
        return db.execute(
            "SELECT d.path, d.sha256, d.text, c.ordinal, c.start_char, c.end_char, c.vector, "
            "(SELECT group_concat(hex(s.vector)) FROM sentences s WHERE s.chunk_id = c.id) "
            "FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.ordinal"
        ).fetchall()


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ray") / "docs"
    folder.mkdir()
    for name, text in TEXTS.items():
        (folder / name).write_text(text)
    return folder


def test_ray_ingest_stores_what_local_ingest_stores(docs, tmp_path, capsys):
    assert main(["--index", str(tmp_path / "local"), "index", str(docs)]) == 0
    local = capsys.readouterr().out
    assert main(["--index", str(tmp_path / "ray"), "index", "--ray", str(docs)]) == 0
    out, err = capsys.readouterr()
    assert out == local == "2 added, 0 updated, 0 unchanged, 0 removed, 0 failed, 1 skipped; " \
                           "2 chunks embedded\n"
    assert "indexing (ray): 100%" in err and "skipped: " in err and "notes.xyz" in err
    assert _stored(tmp_path / "ray") == _stored(tmp_path / "local")

    (docs / "council.txt").write_text("The council chose a new mayor on Tuesday.")
    (docs / "harbour.md").unlink()
    assert main(["--index", str(tmp_path / "ray"), "index", str(docs), "--ray"]) == 0
    assert capsys.readouterr().out.startswith("0 added, 1 updated, 0 unchanged, 1 removed")
    assert main(["--index", str(tmp_path / "ray"), "ask", "Who chose a new mayor?"]) == 0
    assert "The council chose a new mayor on Tuesday. [1]" in capsys.readouterr().out
