"""The cost of a large k: `index.search` with k from 10 to the largest allowed (1,000),
and the refusal of a k beyond it.

Opens an existing index (only read), warms it up, then for each k times `--repeat`
searches of one question and prints the hits, the median time per search and the
process's peak memory so far; last, how long refusing k = 10**8 takes (before the
check, that search took 33 s and 4 GB on a 5-passage index).

Run:  .venv/bin/python benchmarks/search_k.py /tmp/scifact-cache/index
"""

import argparse
import os
import resource
import statistics
import time

from qa import Index, QAError
from qa.search import MAX_K

QUESTION = "protein folding in cells"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index", help="an index folder")
    parser.add_argument("--repeat", type=int, default=20, help="searches per k (default 20)")
    args = parser.parse_args()
    index = Index.open(args.index)
    index.search("warm up", k=10)
    passages = sum(document.chunks for document in index.documents())
    print(f"{passages:,} passages; load average {os.getloadavg()[0]:.1f}")
    print(f"{'k':>8} {'hits':>6} {'ms p50':>8} {'peak MB':>8}")
    for k in (10, 100, MAX_K):
        times, hits = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            hits = index.search(QUESTION, k=k)
            times.append((time.perf_counter() - start) * 1000)
        print(f"{k:>8} {len(hits):>6} {statistics.median(times):>8.1f} {peak_mb():>8.0f}")
    start = time.perf_counter()
    try:
        index.search(QUESTION, k=10**8)
    except QAError as error:
        print(f"k=10**8 refused in {(time.perf_counter() - start) * 1000:.2f} ms: {error}")


if __name__ == "__main__":
    main()
