"""What several test modules share that is not a fixture: the seed files, the `qa` command
and its environment, a free port, `qa serve` until it answers, the scripted language model
server (tests/llm_server.py), a `qa` process whose stderr is read as it comes, a private
copy of an index, and the ids the FAISS index holds.

Fixtures live in conftest.py; this module is imported by it and by the tests.
"""

import importlib
import io
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from types import ModuleType

import pytest

from qa import Index
from qa.backends.sqlite import DATABASE, VECTORS

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SEED_FILE = SEEDS / "000_8763795a8428a42a.txt"
ENV = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
QA = [sys.executable, "-c", "from qa.cli import main; raise SystemExit(main())"]
# `qa` with the web chat's commands (`qa serve`), whether or not the installed package
# metadata already holds the `qa.commands` entry point that adds them
QA_UI = [sys.executable, "-m", "ui"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def copy_index(source: Path, target: Path) -> Path:
    """A private copy of an index, free to change: its database in one file (no WAL)."""
    target.mkdir(mode=0o700, parents=True)
    with closing(sqlite3.connect(source / DATABASE)) as db:
        db.execute("VACUUM INTO ?", (str(target / DATABASE),))
    if (source / VECTORS).exists():  # only an approximate vector index is saved
        shutil.copy(source / VECTORS, target / VECTORS)
    return target


def bulk_chunks(index_path: Path, documents: int, chunks: int) -> None:
    """Documents of random unit vectors written through the Store (nothing to embed)."""
    import numpy as np

    from qa.backends import FileState
    from qa.backends.base import Chunk
    from qa.backends.sqlite.store import Store
    from qa.loaders.formats import Document

    store = Store(index_path / DATABASE)
    rng = np.random.default_rng(0)
    for d in range(documents):
        text = " ".join(f"Bulk passage {d}-{j}." for j in range(chunks))
        spans, start = [], 0
        for j in range(chunks):
            end = start + len(f"Bulk passage {d}-{j}.")
            spans.append(Chunk(j, text[start:end], start, end, None, ((start, end),)))
            start = end + 1
        vectors = rng.standard_normal((chunks, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.put_document(Document(f"/elsewhere/bulk-{d}.txt", "", text),
                           FileState(len(text), 0.0, str(d)), spans, vectors,
                           [v[None, :] for v in vectors])
    store.close()


def faiss_ids(index) -> set[int]:
    """The chunk ids the FAISS index (exact or IVF) of an open SQLite-backed `Index` holds."""
    import faiss

    vectors = index.backend.vectors()
    if not vectors.approximate:
        return set(faiss.vector_to_array(vectors._index.id_map).tolist())
    lists = vectors._index.invlists
    return {int(i) for n in range(lists.nlist) if (size := lists.list_size(n))
            for i in faiss.rev_swig_ptr(lists.get_ids(n), size)}


class QAProcess:
    """A `qa` process (or `command`) whose stderr is read as it comes."""

    def __init__(self, *args: str, command: list[str] = QA, env: dict = ENV) -> None:
        self.process = subprocess.Popen([*command, *args], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.err = b""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        while chunk := os.read(self.process.stderr.fileno(), 65536):
            self.err += chunk

    def wait_for(self, pattern: bytes, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.err):
            assert self.process.poll() is None, self.err.decode()
            assert time.monotonic() < deadline, f"no {pattern!r} within {timeout} s"
            time.sleep(0.01)

    def finish(self, timeout: float = 600) -> tuple[int, str, str]:
        """Wait for the end: (exit code, all of stdout, all of stderr)."""
        assert self.process.stdout is not None
        out = self.process.stdout.read().decode()
        self.process.wait(timeout=timeout)
        self._reader.join(timeout=10)
        return self.process.returncode, out, self.err.decode(errors="replace")


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


@contextmanager
def scripted_llm_server() -> Iterator[str]:
    """tests/llm_server.py running on a free port: yields its address (http://127.0.0.1:PORT)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "llm_server.py"),
                                str(port)])
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{url}/requests", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait()


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


def zip_of(members: dict[str, bytes]) -> bytes:
    """A zip archive (deflated) holding `members`, name: content."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def benchmark_scripts(folder: str) -> tuple[ModuleType, ModuleType]:
    """The `documents` and `run` modules of benchmarks/FOLDER: both benchmark sets name
    their scripts so, and each imports its own `documents`, so each pair is imported
    apart, leaving sys.modules as it was."""
    names = ("documents", "run")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path.insert(0, str(ROOT / "benchmarks" / folder))
    try:
        documents, run = (importlib.import_module(name) for name in names)
    finally:
        sys.path.pop(0)
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return documents, run


def scan_pdf(title: str, blank_pages: int) -> bytes:
    """A PDF of one page of text and `blank_pages` pages without text (sent to OCR; blank,
    so no model is loaded to read them)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 10, f"{title}. The boiler was serviced in March.")
    for _ in range(blank_pages):
        pdf.add_page()
    return bytes(pdf.output())


def index_of(folder: Path, texts: dict[str, str], *writers: Callable[[Path], object]) -> Index:
    """An index, at folder/index, of the files named in `texts` (name: text) and of those
    each of `writers` writes into the documents' folder (folder/docs) it is given."""
    documents = folder / "docs"
    documents.mkdir()
    for name, text in texts.items():
        (documents / name).write_text(text, encoding="utf-8")
    for write in writers:
        write(documents)
    return Index.build([documents], path=folder / "index")
