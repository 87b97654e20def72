"""Shared fixtures: the real model loaded once, an index of the seed article built once, and
`qa serve` over a private copy of it. Helpers that are not fixtures are in tests/helpers.py."""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import SEED_FILE, SEEDS, copy_index, qa_serve

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"


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


@pytest.fixture(scope="module")
def server(request, tmp_path_factory, seed_index_path) -> Iterator[dict]:
    """`qa serve` over a private copy of the seed index, one per test module, free to change.

    A module gives the server's options and environment as its module-level
    `SERVE_OPTIONS` (a tuple) and `SERVE_ENV` (a dict). Yields its url, port, pid, index
    folder and Gradio cache folder (GRADIO_TEMP_DIR)."""
    folder = tmp_path_factory.mktemp("server")
    index, cache = copy_index(seed_index_path, folder / "index"), folder / "gradio-cache"
    options = getattr(request.module, "SERVE_OPTIONS", ())
    env = {"GRADIO_TEMP_DIR": str(cache), **getattr(request.module, "SERVE_ENV", {})}
    with qa_serve(index, folder / "serve.log", *options, env=env) as (url, process):
        yield {"url": url, "port": int(url.rsplit(":", 1)[1]), "pid": process.pid,
               "index": index, "cache": cache}
