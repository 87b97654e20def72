"""The keyword fallback's cost: a Tantivy index built in RAM from the database.

Where an index folder's own keyword index cannot be used (a read-only folder, or one
damaged while a writer holds the index), the SQLite backend builds one in RAM from the
database's chunks (`KeywordIndex.in_memory`), once per state of the database. This
script opens an index built by `qa eval beir DATASET --index CACHE_DIR` and prints:

* the build: wall and CPU seconds (the process's, all threads) and the RSS it added,
  the first build (words not yet stemmed in this process: a new process's cost) and
  two more (the stems cached), with passages per CPU-second;
* per test query, alternating query by query: the keyword search for 50 candidates
  and the answer's term frequencies (`question_terms`), through the folder's index and
  through the one in RAM: p50 / mean ms, and how many queries got the same 50 ids in
  the same order, and the same term counts, from both.

The database and the folder's keyword index are only read.

Run:  nice -n 10 .venv/bin/python benchmarks/keyword_fallback.py /work/shared/datasets/scifact \
          --index /tmp/size-scifact
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

CANDIDATES = 50  # the keyword candidates a search takes (qa.search.MIN_CANDIDATES)


def build(backend) -> dict:
    """Build the index in RAM once: wall and CPU seconds, MB of RSS added."""
    from ingest import Timer, rss_mb

    from qa.backends.sqlite.keywords import KeywordIndex

    store = backend.store()
    before = rss_mb()
    with Timer() as timer:
        index = KeywordIndex.in_memory(store.chunk_texts(), store.identity, store.generation())
    return {"index": index, "wall_s": timer.seconds, "cpu_s": timer.cpu,
            "rss_mb": rss_mb() - before, "load": timer.load}


def timed(function, *args) -> tuple[float, object]:
    start = time.perf_counter()
    result = function(*args)
    return (time.perf_counter() - start) * 1e3, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a BEIR dataset folder (its test queries)")
    parser.add_argument("--index", type=Path, required=True, metavar="CACHE_DIR",
                        help="the --index folder of `qa eval beir` (its index/ is opened)")
    args = parser.parse_args()

    from qa.answering.quoted import question_terms
    from qa.backends.sqlite import SQLiteBackend
    from qa.evaluation import retrieval

    backend = SQLiteBackend(args.index / "index")
    store = backend.store()
    current = (store.identity, store.generation())
    folder, behind = backend._searchable_keywords(store)
    if behind or folder.stamp != current:
        raise SystemExit("the folder's keyword index is not in step with the database")
    passages = sum(1 for _ in store.chunk_texts())
    builds = [build(backend) for _ in range(3)]
    in_ram = builds[-1]["index"]
    _, queries, qrels = retrieval.load_beir(args.dataset)
    questions = [queries[q] for q in qrels if q in queries]

    ms: dict[str, list[float]] = {name: [] for name in (
        "search, folder", "search, in RAM", "term frequencies, folder",
        "term frequencies, in RAM")}
    same_ids = same_counts = 0
    for n, question in enumerate(questions):
        terms = question_terms(question)
        found, counts = {}, {}
        for where, index in (("folder", folder), ("in RAM", in_ram))[:: 1 if n % 2 else -1]:
            took, found[where] = timed(index.search, question, CANDIDATES)
            ms[f"search, {where}"].append(took)
            took, counts[where] = timed(index.frequencies, terms)
            ms[f"term frequencies, {where}"].append(took)
        same_ids += found["folder"] == found["in RAM"]
        same_counts += counts["folder"] == counts["in RAM"]
    backend.close()

    print(f"{args.index}: {passages:,} passages; load {os.getloadavg()[0]:.1f}\n")
    print(f"{'build in RAM':<34}{'wall s':>9}{'CPU-s':>9}{'passages/CPU-s':>16}{'RSS +MB':>9}")
    for n, row in enumerate(builds):
        name = "first (words not yet stemmed)" if n == 0 else f"again ({n})"
        print(f"{name:<34}{row['wall_s']:>9.2f}{row['cpu_s']:>9.2f}"
              f"{passages / row['cpu_s']:>16,.0f}{row['rss_mb']:>9.1f}")
    print(f"\n{len(questions)} queries, alternating{'':<9}{'p50 ms':>9}{'mean ms':>9}")
    for name, values in ms.items():
        print(f"{name:<34}{np.percentile(values, 50):>9.2f}{np.mean(values):>9.2f}")
    print(f"\nsame {CANDIDATES} ids in the same order from both: {same_ids} of {len(questions)}; "
          f"same term counts: {same_counts} of {len(questions)}")


if __name__ == "__main__":
    main()
