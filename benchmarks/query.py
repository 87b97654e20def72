"""Query latency: `index.search` and `index.ask`, one question at a time, against the bare cost.

Opens an index built by `qa eval beir DIR --index CACHE_DIR` (CACHE_DIR/index; it
is only read, and the script checks its files are unchanged at the end), runs
the dataset's test queries once to warm up, then once more timed, one query at
a time. For every query it times, in turn:

* bare: embedding the query with the index's own embedder plus an exact FAISS
  search for the top 50 on the index's own vectors: the floor any dense search
  pays (the product takes 50 dense candidates too);
* `index.search(q, k=10)` (hybrid: dense + FTS5 BM25, fused);
* `index.ask(q)` (search with the default k, then the extractive answer);
* the stages of `ask` one by one, replicated with the product's own functions
  (embed, FAISS, keyword query, fusion, fetching the hits, fetching the
  sentences, composing the answer), to show where the time goes.

It prints p50 / p95 / mean in ms and each operation's ratio to the bare cost.
Target: ask p50 <= 50 ms. `--profile` then runs `ask` over every query again
under cProfile and prints the functions that take the time.

Run:  .venv/bin/python benchmarks/query.py /work/shared/datasets/scifact --index /tmp/scifact-cache
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET_ASK_P50_MS = 50.0
DENSE_CANDIDATES = 50  # qa.search.MIN_CANDIDATES: what search and ask take from FAISS


def load1() -> float:
    return os.getloadavg()[0]


def fingerprint(folder: Path) -> dict[str, tuple[int, int, str]]:
    """(size, mtime_ns, sha256) of the index's database and vector files."""
    prints = {}
    for name in ("index.sqlite3", "vectors.faiss"):
        path = folder / name
        if path.exists():
            digest = hashlib.sha256()
            with path.open("rb") as f:
                for block in iter(lambda f=f: f.read(1 << 20), b""):
                    digest.update(block)
            stat = path.stat()
            prints[name] = (stat.st_size, stat.st_mtime_ns, digest.hexdigest())
    return prints


def timed(function: Callable, *args, **kwargs) -> tuple[float, object]:
    """(milliseconds, result) of one call."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return (time.perf_counter() - start) * 1e3, result


class Stages:
    """The steps of `Index.ask`, replicated with the product's own functions and timed."""

    NAMES = ("embed", "generation check", "FAISS top-50", "keyword (FTS5)", "fusion",
             "fetch hits (chunks)", "fetch sentences", "term frequencies", "compose answer")

    def __init__(self, index) -> None:
        self.index = index

    def run(self, question: str) -> tuple[dict[str, float], list[int]]:
        from qa.answer import (
            ANSWER_PASSAGES,
            compose_answer,
            question_terms,
        )
        from qa.search import _hits, reciprocal_rank_fusion

        index, backend = self.index, self.index.backend
        k = max(index.settings.k, ANSWER_PASSAGES)
        ms = {}
        ms["embed"], query_vectors = timed(index._embedder.embed, [question])
        ms["generation check"], vectors = timed(backend.vectors)
        ms["FAISS top-50"], (_, ids) = timed(vectors.search, query_vectors, DENSE_CANDIDATES)
        dense = [int(i) for i in ids[0] if i >= 0]
        ms["keyword (FTS5)"], [keyword] = timed(backend.keyword_search, [question],
                                                DENSE_CANDIDATES)
        ms["fusion"], fused = timed(lambda: reciprocal_rank_fusion([dense, keyword])[:k])
        ms["fetch hits (chunks)"], hits = timed(_hits, backend, fused, query_vectors[0])
        ms["fetch sentences"], sentences = timed(backend.sentences, [hit.chunk_id for hit in hits])
        ms["term frequencies"], frequencies = timed(backend.term_frequencies,
                                                    question_terms(question))
        ms["compose answer"], _ = timed(compose_answer, question, query_vectors[0], hits,
                                        sentences, index.settings.min_score, frequencies)
        return ms, [hit.chunk_id for hit in hits]


def measure(index, questions: list[str], k: int) -> dict[str, list[float]]:
    """One pass: per question, bare, search, ask and the stages, each timed."""
    embedder = index._embedder
    stages = Stages(index)
    times: dict[str, list[float]] = {name: [] for name in ("bare", "search", "ask")}
    times.update({name: [] for name in Stages.NAMES})
    mismatches = 0
    for question in questions:
        vectors = index.backend.vectors()
        start = time.perf_counter()
        vectors.search(embedder.embed([question]), DENSE_CANDIDATES)
        times["bare"].append((time.perf_counter() - start) * 1e3)
        ms, _ = timed(index.search, question, k=k)
        times["search"].append(ms)
        ms, answer = timed(index.ask, question)
        times["ask"].append(ms)
        stage_ms, chunk_ids = stages.run(question)
        for name, value in stage_ms.items():
            times[name].append(value)
        cited = {c.hit.chunk_id for c in answer.citations}
        mismatches += not cited <= set(chunk_ids)  # the replica must see what ask saw
    times["_mismatches"] = [mismatches]
    return times


def summarise(values: list[float], bare: dict | None) -> dict:
    a = np.asarray(values)
    row = {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)),
           "mean": float(a.mean()), "max": float(a.max())}
    if bare:
        row["p50_ratio"] = row["p50"] / bare["p50"]
        row["mean_ratio"] = row["mean"] / bare["mean"]
    return row


def profile(index, questions: list[str], top: int) -> list[dict]:
    """cProfile of `ask` over every question: the functions with the most own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for question in questions:
        index.ask(question)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=io.StringIO())
    rows = []
    for (file, line, name), (_, calls, own, cumulative, _) in stats.stats.items():
        rows.append({"function": f"{_short(file)}:{line}({name})", "calls": calls,
                     "own_ms_per_query": own * 1e3 / len(questions),
                     "cumulative_ms_per_query": cumulative * 1e3 / len(questions)})
    rows.sort(key=lambda r: -r["own_ms_per_query"])
    return rows[:top]


def _short(file: str) -> str:
    for marker in ("site-packages/", "/work/main/"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


def run(args: argparse.Namespace) -> dict:
    import faiss
    import torch

    from qa import evaluate
    from qa.index import Index

    if args.threads:
        torch.set_num_threads(args.threads)
        faiss.omp_set_num_threads(args.threads)
    folder = args.index / "index"
    before = fingerprint(folder)
    _, queries, _ = evaluate.load_beir(args.dataset)
    questions = list(queries.values())[: args.limit or None]
    index = Index.open(folder)
    index.warm_up()
    vectors = index.backend.vectors()
    result = {
        "dataset": str(args.dataset), "index": str(folder), "queries": len(questions),
        "chunks": len(vectors), "model": index._embedder.name, "k_search": args.k,
        "k_ask": index.settings.k, "cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(), "faiss_threads": faiss.omp_get_max_threads(),
        "load_at_start": load1(),
    }
    measure(index, questions, args.k)  # warm-up pass
    result["load_after_warm_up"] = load1()
    times = measure(index, questions, args.k)
    result["load_after_timed_pass"] = load1()
    result["replica_mismatches"] = times.pop("_mismatches")[0]
    bare = summarise(times["bare"], None)
    result["bare"] = bare
    result["search"] = summarise(times["search"], bare)
    result["ask"] = summarise(times["ask"], bare)
    result["stages"] = {name: summarise(times[name], None) for name in Stages.NAMES}
    result["stages_sum_mean"] = sum(result["stages"][n]["mean"] for n in Stages.NAMES)
    if args.profile:
        result["profile"] = profile(index, questions, args.profile_top)
        result["load_after_profile"] = load1()
    index.close()
    result["index_unchanged"] = fingerprint(folder) == before
    return result


def print_table(r: dict) -> None:
    print(f"{r['queries']} queries of {r['dataset']} on {r['index']} ({r['chunks']} chunks), "
          f"model {r['model']}")
    print(f"cpus {r['cpus']}, torch threads {r['torch_threads']}, FAISS threads "
          f"{r['faiss_threads']}; load average at start {r['load_at_start']:.2f}, after the "
          f"warm-up pass {r['load_after_warm_up']:.2f}, after the timed pass "
          f"{r['load_after_timed_pass']:.2f}")
    print("one warm-up pass over all queries first; then one timed pass, one query at a time\n")
    head = f"{'operation':<44}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}{'p50/bare':>10}" \
           f"{'mean/bare':>11}"
    print(head)
    print("-" * len(head))

    def line(name: str, row: dict) -> None:
        ratios = (f"{row['p50_ratio']:>10.2f}{row['mean_ratio']:>11.2f}"
                  if "p50_ratio" in row else "")
        print(f"{name:<44}{row['p50']:>9.2f}{row['p95']:>9.2f}{row['mean']:>9.2f}{ratios}")

    line(f"bare: embed + FAISS top-{DENSE_CANDIDATES}", r["bare"])
    line(f"index.search(q, k={r['k_search']})", r["search"])
    line(f"index.ask(q)  (k={r['k_ask']})", r["ask"])
    print(f"stages of ask, replicated (sum of means {r['stages_sum_mean']:.2f} ms):")
    for name, row in r["stages"].items():
        line(f"  {name}", row)
    print()
    ok = r["ask"]["p50"] <= TARGET_ASK_P50_MS
    print(f"ask p50 {r['ask']['p50']:.1f} ms (target <= {TARGET_ASK_P50_MS:.0f} ms: "
          f"{'ok' if ok else 'MISSED'})")
    print(f"replica cited-passage mismatches: {r['replica_mismatches']}; index files unchanged: "
          f"{r['index_unchanged']}")
    if "profile" in r:
        print(f"\ncProfile of ask over all queries (load after {r['load_after_profile']:.2f}); "
              f"top functions by own time, ms per query (profiler overhead included):")
        print(f"{'own':>8}{'cumul.':>9}{'calls':>9}  function")
        for row in r["profile"]:
            print(f"{row['own_ms_per_query']:>8.2f}{row['cumulative_ms_per_query']:>9.2f}"
                  f"{row['calls']:>9}  {row['function']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path,
                        help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv")
    parser.add_argument("--index", type=Path, required=True, metavar="CACHE_DIR",
                        help="the --index folder of `qa eval beir` (its index/ is opened)")
    parser.add_argument("-k", type=int, default=10, help="k of index.search (default: 10)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N queries")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch and FAISS threads (default: their own, one per core)")
    parser.add_argument("--profile", action="store_true",
                        help="then profile ask with cProfile and print the top functions")
    parser.add_argument("--profile-top", type=int, default=20, help="functions to list")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args()
    result = run(args)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print_table(result)


if __name__ == "__main__":
    main()
