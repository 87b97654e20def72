"""Scale: the product's own store and vector index at 100k and 1M chunks.

Synthetic, embedding-like 384-d unit vectors (ClusteredSource, calibrated on
real all-MiniLM-L6-v2 embeddings in benchmarks/ann_choice.py; no model runs)
are written into the product's SQLite schema as chunks of synthetic documents,
then the product's VectorIndex is built from the store exactly as `Index` does
when the FAISS file is missing (exact below APPROX_MIN vectors, IVF above).
Printed per size: build time, RSS, saved file size, single-query p50/p95, recall@10
against exact search, and a check that removed chunks never come back and added
ones are found.

    python benchmarks/scale.py --sizes 100000 1000000
"""

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from ann_choice import ClusteredSource  # noqa: E402

from qa.backends.sqlite.store import Store  # noqa: E402
from qa.backends.sqlite.vectors import APPROX_MIN, VectorIndex  # noqa: E402

CHUNKS_PER_DOCUMENT = 10


def fill_store(store: Store, vectors: np.ndarray) -> None:
    """Synthetic documents and chunks in the product's schema, in large transactions."""
    n = len(vectors)
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO documents (id, path, title, sha256, size, mtime, indexed_at, text, "
            "page_starts) VALUES (?, ?, '', '', 0, 0, '', '', '[]')",
            [(d + 1, f"/synthetic/{d}.txt") for d in range((n + 9) // CHUNKS_PER_DOCUMENT)],
        )
        db.executemany(
            "INSERT INTO chunks (id, document_id, ordinal, start_char, end_char, page, text, "
            "vector) VALUES (?, ?, ?, 0, 0, NULL, '', ?)",
            ((i + 1, i // CHUNKS_PER_DOCUMENT + 1, i % CHUNKS_PER_DOCUMENT, vectors[i].tobytes())
             for i in range(n)),
        )


def exact_top10(vectors: np.ndarray, queries: np.ndarray, alive: np.ndarray) -> np.ndarray:
    scores = queries @ vectors.T
    scores[:, ~alive] = -np.inf
    return np.argsort(-scores, axis=1)[:, :10] + 1  # chunk ids are row numbers + 1


def latencies_ms(index: VectorIndex, queries: np.ndarray) -> tuple[list[float], np.ndarray]:
    found, times = [], []
    for query in queries:
        start = time.perf_counter()
        _, ids = index.search(query[None], 10)
        times.append((time.perf_counter() - start) * 1000)
        found.append(ids[0])
    return times, np.array(found)


def recall(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean([len(set(f) & set(t)) / 10 for f, t in zip(found, truth, strict=True)]))


def run(size: int, queries: int, source: ClusteredSource, rng, workdir: Path) -> dict:
    vectors = source.sample(size, rng)
    probes = source.sample(queries, rng)
    store = Store(workdir / f"scale-{size}.sqlite3")
    fill_store(store, vectors)
    start = time.perf_counter()
    index = VectorIndex.build(vectors.shape[1], store.vectors())
    build_s = time.perf_counter() - start
    index.save(workdir / f"scale-{size}.faiss", store.identity, store.generation())
    alive = np.ones(size, dtype=bool)
    times, found = latencies_ms(index, probes)
    row = {
        "size": size, "kind": type(index._index).__name__, "build_s": build_s,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "file_mb": os.path.getsize(workdir / f"scale-{size}.faiss") / 1e6,
        "p50_ms": float(np.percentile(times, 50)), "p95_ms": float(np.percentile(times, 95)),
        "recall@10": recall(found, exact_top10(vectors, probes, alive)),
    }
    removed = rng.choice(size, size // 100, replace=False)
    index.remove((removed + 1).tolist())
    alive[removed] = False
    fresh = source.sample(1000, rng)
    index.add(np.arange(size + 1, size + 1001), fresh)
    _, after = latencies_ms(index, probes)
    row["removed_returned"] = int(np.isin(after, removed + 1).sum())
    _, own = latencies_ms(index, fresh[:200])
    row["added_found_first"] = float(np.mean(own[:, 0] == np.arange(size + 1, size + 201)))
    store.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    source = ClusteredSource.create(args.seed)
    columns = ["size", "kind", "build_s", "rss_mb", "file_mb", "p50_ms", "p95_ms", "recall@10",
               "removed_returned", "added_found_first"]
    print(f"exact search below {APPROX_MIN:,} vectors, IVF above; load {os.getloadavg()[0]:.1f}")
    print("".join(f"{c:>18}" for c in columns))
    with tempfile.TemporaryDirectory() as workdir:
        for size in args.sizes:
            row = run(size, args.queries, source, rng, Path(workdir))
            print("".join(f"{row[c]:>18.3f}" if isinstance(row[c], float) else f"{row[c]:>18}"
                          for c in columns), flush=True)


if __name__ == "__main__":
    main()
