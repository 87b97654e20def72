"""Uploads that cannot be indexed are set aside (issue 26): a restarted `qa serve` does not
read them again, whether indexing them failed or stopped the server; one that waits for
another run's OCR pages is kept, and the next start reads it."""

from pathlib import Path

import pytest

from tests.helpers import qa_serve, scan_pdf

pytestmark = pytest.mark.process


def test_a_failed_upload_and_one_that_stopped_the_server_are_set_aside_once(tmp_path):
    uploads = tmp_path / "index" / "uploads"
    uploads.mkdir(mode=0o700, parents=True)
    (uploads / "binary.txt").write_bytes(b"\x00\x01\x02")  # fails: binary data, not text
    (uploads / "stopper.ods").write_text("as if it had brought the server down")
    (uploads / ".indexing-1a2b").write_text("stopper.ods\n")  # the marker qa serve left
    failed = uploads / "failed"

    first, second = two_starts(tmp_path / "index", tmp_path)
    assert (f"qa serve: stopper.ods was being indexed when qa serve stopped: set aside in "
            f"{failed}, not indexed again") in first
    assert f"qa serve: binary.txt could not be indexed: set aside in {failed}" in first
    assert sorted(p.name for p in failed.iterdir()) == ["binary.txt", "stopper.ods"]
    assert sorted(p.name for p in uploads.iterdir()) == ["failed"]  # no marker left
    assert "binary.txt" not in second and "stopper.ods" not in second


@pytest.mark.heavy
def test_a_restarts_reindex_of_uploads_sends_at_most_one_runs_ocr_pages(tmp_path):
    """Issue 26: the uploads a start of `qa serve` indexes share one run's OCR pages
    (Settings.ocr_pages, 500): the scan past them is said to wait, is not set aside, and
    the next start reads it."""
    from qa import Settings

    uploads = tmp_path / "index" / "uploads"
    uploads.mkdir(mode=0o700, parents=True)
    pages = 100  # a file's most
    files = Settings().ocr_pages // pages + 1
    for n in range(files):
        (uploads / f"scan-{n}.pdf").write_bytes(scan_pdf(f"Scan {n}", pages))
    last = f"scan-{files - 1}.pdf"

    first, second = two_starts(tmp_path / "index", tmp_path)
    assert (f"qa serve: {last} is stored, not indexed yet: Not read in this run: OCR would "
            f"read {pages} of its pages, and 0 of the run's {Settings().ocr_pages} are left "
            "(qa index --max-ocr-pages); the next run reads it.") in first
    assert "set aside" not in first
    assert f"qa serve: {last} is indexed (1 passage), ready for questions." in second
    assert not (uploads / "failed").exists()


def two_starts(index: Path, folder: Path) -> tuple[str, str]:
    """The logs of two starts of `qa serve` over `index`, one after the other."""
    logs = folder / "first.log", folder / "second.log"
    for log in logs:
        with qa_serve(index, log):
            pass
    return logs[0].read_text(), logs[1].read_text()
