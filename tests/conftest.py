"""Shared fixtures: the real model loaded once, and an index of the seed article built once."""

import os
import shutil
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SEED_FILE = SEEDS / "000_8763795a8428a42a.txt"


@pytest.fixture(scope="session")
def seed_index_path(tmp_path_factory) -> Path:
    """An index of seeds/, built once per test session; tests must not change it."""
    from qa import Index

    path = tmp_path_factory.mktemp("seed-index") / "index"
    Index.build([SEEDS], path=path).close()
    return path


@pytest.fixture(scope="session")
def seed_index(seed_index_path):
    from qa import Index

    index = Index.open(seed_index_path)
    yield index
    index.close()


@pytest.fixture
def seed_copy(tmp_path) -> Path:
    """A private folder holding a copy of the seed article, free to change."""
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(SEED_FILE, folder)
    return folder
