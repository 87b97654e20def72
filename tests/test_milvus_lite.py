"""Milvus Lite at a place of the user's choosing (--milvus-uri): its files are private, as an
index folder is, and a second process refused while one writes says so in one line."""

import os
import stat
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from qa import BackendConfig, Index
from tests.helpers import ENV, ROOT

pytestmark = [pytest.mark.milvus, pytest.mark.process]


def test_milvus_lite_files_at_a_custom_uri_are_private(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "note.txt").write_text("The ferry leaves at dawn.")
    with tempfile.TemporaryDirectory() as shared:  # a folder others may read, as a home is
        os.chmod(shared, 0o755)
        uri = Path(shared, "store.db")
        config = BackendConfig("milvus", str(uri))
        with closing(Index.create(tmp_path / "index", backend=config)) as index:
            index.add([tmp_path / "docs"])

        files = [Path(place, name) for place, _, names in os.walk(uri) for name in names]
        assert stat.S_IMODE(uri.stat().st_mode) == 0o700
        if os.geteuid() == 0:  # root can be another user, who must read none of the files
            assert files and _read_by_nobody(files) == ["Permission denied"] * len(files)


def _read_by_nobody(files: list[Path]) -> list[str]:
    reads = [subprocess.run(["head", "-c", "1", str(file)], user=65534, group=65534,
                            extra_groups=[], capture_output=True, text=True) for file in files]
    return ["Permission denied" if "Permission denied" in read.stderr else
            f"read: {read.stdout!r} {read.stderr!r}" for read in reads]


def test_a_reader_refused_during_a_write_says_so_in_one_line(tmp_path):
    uri = str(tmp_path / "store.db")
    config = BackendConfig("milvus", uri)
    with closing(Index.create(tmp_path / "index", backend=config)):  # holds Milvus Lite's lock
        reader = subprocess.run(
            [sys.executable, "-c", "from qa.cli import main; raise SystemExit(main())",
             "--index", str(tmp_path / "index"), "--backend", "milvus", "--milvus-uri", uri,
             "docs"],
            env={**ENV, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)

    assert reader.returncode == 2
    assert reader.stderr.splitlines() == [
        f"qa: cannot open Milvus at {uri}: Open local milvus failed (Milvus Lite allows one "
        "process per file)"]
