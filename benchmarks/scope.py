"""The `documents` scope: what naming many documents costs a search (issue 26, item 5).

An index of the seed article plus N synthetic documents (one passage each, random 384-d
unit vectors written straight into the product's SQLite schema, as stale_vectors.py does).
Then, timed in this process:

- `Index.search(within=…)` naming M of the documents by path (the library resolves each
  against the indexed ones, `Index.documents_under`);
- the same naming them by file name (as the web chat's `/ask` and `/search` `documents`
  parameter may).

    python benchmarks/scope.py --documents 5000 --named 1000
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from qa import Index
from qa.backends.sqlite.store import Store, text_blob, vector_blob

ROOT = Path(__file__).resolve().parent.parent
FIRST_ID = 1_000_000  # synthetic rows, clear of the seed article's


def add_documents(database: Path, documents: int, dim: int = 384) -> list[str]:
    """`documents` synthetic documents of one passage each: their paths."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((documents, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    paths = [f"/synthetic/{d % 50}/doc-{d}.txt" for d in range(documents)]
    store = Store(database)
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO documents (id, path, title, sha256, size, mtime, indexed_at, text, "
            "page_starts) VALUES (?, ?, '', '', 0, 0, '', ?, '[]')",
            [(FIRST_ID + d, path, text_blob("resigned")) for d, path in enumerate(paths)])
        db.executemany(
            "INSERT INTO chunks (id, document_id, ordinal, start_char, end_char, page, vector) "
            "VALUES (?, ?, 0, 0, 8, NULL, ?)",
            ((FIRST_ID + d, FIRST_ID + d, vector_blob(vectors[d])) for d in range(documents)))
    store.close()
    return paths


def timed(work) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds, result) of work()."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=5_000)
    parser.add_argument("--named", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="qa-scope-") as folder:
        path = Path(folder) / "index"
        Index.build([ROOT / "seeds"], path).close()
        paths = add_documents(path / "index.sqlite3", args.documents)
        index = Index.open(path)
        index.search("resigned", 5)  # the model and the indexes loaded before any timer
        named = paths[:: max(1, len(paths) // args.named)][: args.named]
        print(f"{args.documents:,} synthetic documents + the seed article; "
              f"{len(named):,} named")
        print(f"{'what':<40} {'wall s':>8} {'CPU s':>8}  hits")
        wall, cpu, hits = timed(lambda: index.search("resigned", 5, within=named))
        print(f"{'Index.search(within=paths)':<40} {wall:>8.2f} {cpu:>8.2f}  {len(hits)}")
        names = [Path(p).name for p in named]
        wall, cpu, hits = timed(lambda: index.search("resigned", 5, within=names))
        print(f"{'Index.search(within=file names)':<40} {wall:>8.2f} {cpu:>8.2f}  {len(hits)}")
        print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
