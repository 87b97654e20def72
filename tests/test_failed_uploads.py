"""Uploads that cannot be indexed are set aside (issue 26): a restarted `qa serve` does not
read them again, whether indexing them failed or stopped the server."""

from pathlib import Path

import pytest

from tests.helpers import qa_serve

pytestmark = pytest.mark.process


def test_a_failed_upload_and_one_that_stopped_the_server_are_set_aside_once(tmp_path):
    uploads = tmp_path / "index" / "uploads"
    uploads.mkdir(mode=0o700, parents=True)
    (uploads / "binary.txt").write_bytes(b"\x00\x01\x02")  # fails: binary data, not text
    (uploads / "stopper.ods").write_text("as if it had brought the server down")
    (uploads / ".indexing-1a2b").write_text("stopper.ods\n")  # the marker qa serve left
    failed = uploads / "failed"

    with qa_serve(tmp_path / "index", tmp_path / "first.log"):
        pass
    with qa_serve(tmp_path / "index", tmp_path / "second.log"):
        pass

    first, second = (Path(tmp_path / log).read_text() for log in ("first.log", "second.log"))
    assert (f"qa serve: stopper.ods was being indexed when qa serve stopped: set aside in "
            f"{failed}, not indexed again") in first
    assert f"qa serve: binary.txt could not be indexed: set aside in {failed}" in first
    assert sorted(p.name for p in failed.iterdir()) == ["binary.txt", "stopper.ods"]
    assert sorted(p.name for p in uploads.iterdir()) == ["failed"]  # no marker left
    assert "binary.txt" not in second and "stopper.ods" not in second
