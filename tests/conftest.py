"""Shared fixtures: the real model loaded once, an index of the seed article built once,
`qa serve` over a copy of it (one per configuration, shared by the modules that ask for the
same one) and Debian's chromium, started once per session. Helpers that are not fixtures
are in tests/helpers.py."""

import os
import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.helpers import SEED_FILE, SEEDS, copy_index, qa_serve

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
# The Ray and Milvus tests load gRPC into a test worker whose later tests start children
# with a preexec_fn (a fork, not a spawn): gRPC's fork handlers then restart its poller in
# the child, which logs "epoll_wait error: Bad file descriptor" into the child's stderr
# before its exec (grpc/grpc#43055), and a test reading that stderr fails.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "0"


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


def serve_configuration(module) -> tuple:
    """The `qa serve` a module's tests ask for: its module-level `SERVE_OPTIONS` (a tuple)
    and `SERVE_ENV` (a dict)."""
    options = tuple(getattr(module, "SERVE_OPTIONS", ()))
    return options, tuple(sorted(getattr(module, "SERVE_ENV", {}).items()))


def pytest_collection_finish(session) -> None:
    """Count, per configuration, the modules whose tests use the `server` fixture."""
    modules = {item.module for item in session.items  # (test_llm.py has a `server` of its own)
               if "server" in item.fixturenames and not hasattr(item.module, "server")}
    SERVER_USERS.clear()
    SERVER_USERS.update(serve_configuration(module) for module in modules)


SERVER_USERS: Counter = Counter()  # per configuration, the modules yet to use its server


@contextmanager
def seed_server(folder: Path, seed_index: Path, options: tuple, env: tuple) -> Iterator[dict]:
    """`qa serve` over a copy of the seed index in `folder`: its url, port, pid, index folder,
    Gradio cache folder (GRADIO_TEMP_DIR) and log."""
    index, cache = copy_index(seed_index, folder / "index"), folder / "gradio-cache"
    environment = {"GRADIO_TEMP_DIR": str(cache), **dict(env)}
    log = folder / "serve.log"
    with qa_serve(index, log, *options, env=environment) as (url, process):
        yield {"url": url, "port": int(url.rsplit(":", 1)[1]), "pid": process.pid,
               "index": index, "cache": cache, "log": log}


@pytest.fixture(scope="session")
def servers() -> Iterator[dict]:
    """The running `qa serve` processes, one per configuration (see `server`)."""
    running: dict[tuple, tuple[dict, ExitStack]] = {}
    yield running
    for _, stack in running.values():
        stack.close()


@pytest.fixture(scope="module")
def server(request, servers, tmp_path_factory, seed_index_path) -> Iterator[dict]:
    """`qa serve` over a private copy of the seed index, one per configuration: the modules
    that ask for the same one share it (their changes, such as uploads, are seen by those
    after them), and it stops after the last of them.

    A module gives the server's options and environment as its module-level
    `SERVE_OPTIONS` (a tuple) and `SERVE_ENV` (a dict). Yields what `seed_server` does."""
    configuration = serve_configuration(request.module)
    if configuration not in servers:
        stack = ExitStack()
        folder = tmp_path_factory.mktemp("server")
        started = stack.enter_context(seed_server(folder, seed_index_path, *configuration))
        servers[configuration] = (started, stack)
    yield servers[configuration][0]
    SERVER_USERS[configuration] -= 1
    if SERVER_USERS[configuration] <= 0:
        servers.pop(configuration)[1].close()


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium through playwright, one for the whole session (each test or module
    opens its own context: its own cookies, storage and viewport)."""
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI, but {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    """The folder the browser tests' screenshots go to (their paths are printed)."""
    return tmp_path_factory.mktemp("ui-screenshots")
