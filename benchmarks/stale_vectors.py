"""Stale vectors: what `qa ask` costs after a write that never saved the vector file.

An index of the seed article plus N synthetic chunks (random 384-d unit vectors
written straight into the product's SQLite schema, in one transaction that bumps
the generation without saving vectors.faiss: as a `qa index` killed before its
end leaves it). Then a reader process runs several times, one after the other: it
opens the index, gets its vector index (timed: loaded from vectors.faiss, or
rebuilt from SQLite, which it logs) and answers a question, as `qa ask` does.
Before readers saved what they rebuilt, every run rebuilt; below APPROX_MIN vectors
(50,000) nothing is saved, so every run builds the exact index from SQLite.

    python benchmarks/stale_vectors.py --chunks 33000 --runs 3
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from qa import Index
from qa.backends.sqlite.store import Store, text_blob, vector_blob

ROOT = Path(__file__).resolve().parent.parent
READER = """
import logging, sys, time
from qa import Index
logging.basicConfig(level=logging.INFO)
index = Index.open(sys.argv[1])
start = time.perf_counter()
index.backend.vectors()
print(time.perf_counter() - start, index.ask("Who has resigned?").found)
"""
FIRST_ID = 1_000_000  # synthetic rows, clear of the seed article's


def add_synthetic(database: Path, chunks: int, dim: int = 384) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((chunks, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = Store(database)
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO documents (id, path, title, sha256, size, mtime, indexed_at, text, "
            "page_starts) VALUES (?, ?, '', '', 0, 0, '', ?, '[]')",
            [(FIRST_ID + d, f"/synthetic/{d}.txt", text_blob(""))
             for d in range((chunks + 9) // 10)])
        db.executemany(
            "INSERT INTO chunks (id, document_id, ordinal, start_char, end_char, page, vector) "
            "VALUES (?, ?, ?, 0, 0, NULL, ?)",
            ((FIRST_ID + i, FIRST_ID + i // 10, i % 10, vector_blob(vectors[i]))
             for i in range(chunks)))
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=33_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qa-stale-") as folder:
        index = Path(folder) / "index"
        Index.build([ROOT / "seeds"], index).close()
        add_synthetic(index / "index.sqlite3", args.chunks)
        print(f"{args.chunks:,} synthetic chunks + the seed article; vector file stale")
        print(f"{'run':>4}  {'process s':>9}  {'vectors s':>9}  rebuilt from SQLite  answered")
        for run in range(1, args.runs + 1):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", READER, str(index)],
                                  capture_output=True, text=True, check=True)
            seconds = time.perf_counter() - start
            vectors, found = done.stdout.split()
            rebuilt = "rebuilt the vector index from the database" in done.stderr
            print(f"{run:>4}  {seconds:>9.1f}  {float(vectors):>9.2f}  "
                  f"{'yes' if rebuilt else 'no':<19}  {found}")


if __name__ == "__main__":
    main()
