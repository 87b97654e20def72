"""Starting real servers for the tests: a free port, and `qa serve` until it answers."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
QA = [sys.executable, "-c", "from qa.cli import main; raise SystemExit(main())"]
# `qa` with the web chat's commands (`qa serve`), whether or not the installed package
# metadata already holds the `qa.commands` entry point that adds them
QA_UI = [sys.executable, "-m", "ui"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def qa_serve(
    index: Path, log: Path, *options: str, env: dict | None = None, timeout: float = 300,
    port: int | None = None,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """A running `qa serve --index INDEX` on `port` (a free one if None): yields (url, process)."""
    port = port or free_port()
    with log.open("w") as out:
        process = subprocess.Popen(
            [*QA_UI, "serve", "--index", str(index), "--port", str(port), *options],
            cwd=ROOT, env={**ENV, **(env or {})}, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log, timeout)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"qa serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError as error:
            if error.code == 401:  # up, and asking for a login
                return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(f"qa serve did not answer at {url} within {timeout} s:\n{log.read_text()}")
