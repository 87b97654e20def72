"""Query latency: `index.search` and `index.ask`, one question at a time, against the bare cost.

Opens an index built by `qa eval beir DIR --index CACHE_DIR` (CACHE_DIR/index; its
database and vectors are only read, and the script checks they are unchanged at the
end; a missing or stale Tantivy keyword index is built in it, so run it on a copy of a
shared cache), runs
the dataset's test queries once to warm up, then once more timed, one query at
a time. The index's embedder keeps no question vectors for these timings (every
question is embedded, as a new question is); a repeated question, whose vector
is cached, is timed on its own. For every query it times, in turn:

* bare encode: embedding the query with the index's own model, nothing else;
* bare: that plus an exact FAISS search for the top 50 on the index's own
  vectors: the floor any dense search pays (the product takes 50 dense
  candidates too);
* `index.search(q, k=10)` (hybrid: dense + Tantivy BM25, fused);
* `index.ask(q)` (search with the default k, then the extractive answer);
* `index.ask(q)` with the keyword half (and the term frequencies) answered by a Tantivy
  index built in RAM from the database (as where the folder's cannot be used: a read-only
  folder, or one damaged while a writer holds it), alternating with the one above;
* `index.ask(q)` again with the question's vector cached (a repeated question);
* the stages of `ask` one by one, replicated with the product's own functions
  (embed, FAISS, keyword query, fusion, fetching the hits, fetching the
  sentences, composing the answer), to show where the time goes; the keyword query
  through the index in RAM, and embed and keyword query side by side in two threads
  against one after the other, for comparison (the product runs them one after the
  other: side by side saved nothing on 2 cores, where torch's own threads already take
  both).

It prints p50 / p95 / mean in ms and each operation's ratio to the bare cost
and to the bare encode. Targets: ask p50 <= 50 ms, <= 1.35x the bare encode;
keyword stage p50 <= 6 ms. `--profile` then runs `ask` over every query again
under cProfile and prints the functions that take the time.

Run:  cp -a /tmp/scifact-cache /tmp/my-scifact
      .venv/bin/python benchmarks/query.py /work/shared/datasets/scifact --index /tmp/my-scifact
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import hashlib
import io
import json
import os
import pstats
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET_ASK_P50_MS = 50.0
TARGET_ASK_OVER_ENCODE = 1.35
TARGET_KEYWORD_P50_MS = 6.0
SIDE_THREAD = ThreadPoolExecutor(1)  # the keyword query beside the embedding, for comparison
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

    NAMES = ("embed", "generation check", "FAISS top-50", "keyword (Tantivy)", "fusion",
             "fetch hits (chunks)", "fetch sentences", "term frequencies", "compose answer")
    COMPARED = ("keyword (index in RAM)", "embed, then keyword",
                "embed beside keyword (2 threads)")

    def __init__(self, index) -> None:
        self.index = index

    def run(self, question: str) -> tuple[dict[str, float], list[int]]:
        from qa.answering.quoted import (
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
        ms["keyword (Tantivy)"], [keyword] = timed(backend.keyword_search, [question],
                                                   DENSE_CANDIDATES)
        ms["fusion"], fused = timed(lambda: reciprocal_rank_fusion([dense, keyword])[:k])
        ms["fetch hits (chunks)"], hits = timed(_hits, backend, fused, query_vectors[0])
        ms["fetch sentences"], sentences = timed(backend.sentences, [hit.chunk_id for hit in hits])
        ms["term frequencies"], frequencies = timed(backend.term_frequencies,
                                                    question_terms(question))
        ms["compose answer"], _ = timed(compose_answer, question, query_vectors[0], hits,
                                        sentences, frequencies, index.settings.min_score)
        ms.update(self.compared(question))
        return ms, [hit.chunk_id for hit in hits]

    def compared(self, question: str) -> dict[str, float]:
        """The keyword query through the index in RAM, and embed and keyword query in turn /
        side by side."""
        backend, embed = self.index.backend, self.index._embedder.embed
        ms = {}
        with keywords_in_ram(backend):
            ms[self.COMPARED[0]], _ = timed(backend.keyword_search, [question], DENSE_CANDIDATES)

        def in_turn():
            embed([question])
            backend.keyword_search([question], DENSE_CANDIDATES)

        def side_by_side():
            keyword = SIDE_THREAD.submit(backend.keyword_search, [question], DENSE_CANDIDATES)
            embed([question])
            keyword.result()

        ms[self.COMPARED[1]], _ = timed(in_turn)
        ms[self.COMPARED[2]], _ = timed(side_by_side)
        return ms


@functools.cache
def in_ram_index(backend):
    """A keyword index in RAM of the backend's database, built once: the backend's own
    would be dropped each time its folder's index answered, as the timings alternate."""
    from qa.backends.sqlite.keywords import KeywordIndex

    store = backend.store()
    return KeywordIndex.in_memory(store.chunk_texts(), store.identity, store.generation())


@contextmanager
def keywords_in_ram(backend):
    """The SQLite backend's keyword search and term frequencies answered by an index in
    RAM for the block, as where the folder's cannot be used."""
    in_ram = in_ram_index(backend)
    backend._searchable_keywords = lambda store: (in_ram, False)
    try:
        yield
    finally:
        del backend._searchable_keywords


def measure(index, questions: list[str], k: int) -> dict[str, list[float]]:
    """One pass: per question, bare, search, ask and the stages, each timed."""
    embedder = index._embedder
    stages = Stages(index)
    times: dict[str, list[float]] = {name: [] for name in OPERATIONS}
    times.update({name: [] for name in Stages.NAMES + Stages.COMPARED})
    mismatches = 0
    cached = with_embedder(index, load_embedder_of(index))  # keeps question vectors
    for n, question in enumerate(questions):
        vectors = index.backend.vectors()
        ms, _ = timed(embedder.embed, [question])
        times["bare encode"].append(ms)
        start = time.perf_counter()
        vectors.search(embedder.embed([question]), DENSE_CANDIDATES)
        times["bare"].append((time.perf_counter() - start) * 1e3)
        ms, _ = timed(index.search, question, k=k)
        times["search"].append(ms)
        for rule in (("ask", "ask, in RAM") if n % 2 else ("ask, in RAM", "ask")):
            if rule == "ask":
                ms, answer = timed(index.ask, question)
            else:
                with keywords_in_ram(index.backend):
                    ms, _ = timed(index.ask, question)
            times[rule].append(ms)
        cached.ask(question)
        ms, _ = timed(cached.ask, question)
        times["ask, repeated (cached vector)"].append(ms)
        stage_ms, chunk_ids = stages.run(question)
        for name, value in stage_ms.items():
            times[name].append(value)
        cited = {c.hit.chunk_id for c in answer.citations}
        mismatches += not cited <= set(chunk_ids)  # the replica must see what ask saw
    times["_mismatches"] = [mismatches]
    return times


OPERATIONS = ("bare encode", "bare", "search", "ask", "ask, in RAM",
              "ask, repeated (cached vector)")


def with_embedder(index, embedder):
    """The same index (backend, settings) asked through `embedder`: its search and ask embed
    questions with it (replacing `index._embedder` alone would not reach them)."""
    from qa.index import Index

    return Index(index.path, index.backend, embedder, index.settings)


def load_embedder_of(index):
    from qa.indexing.embedding import load_embedder

    return load_embedder(index.settings.model, index.settings.batch_size)


def summarise(values: list[float], bare: dict | None, encode: dict | None = None) -> dict:
    a = np.asarray(values)
    row = {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)),
           "mean": float(a.mean()), "max": float(a.max())}
    if bare:
        row["p50_ratio"] = row["p50"] / bare["p50"]
        row["mean_ratio"] = row["mean"] / bare["mean"]
    if encode:
        row["p50_over_encode"] = row["p50"] / encode["p50"]
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

    from qa.evaluation import retrieval
    from qa.index import Index
    from qa.indexing.embedding import SentenceTransformerEmbedder

    if args.threads:
        torch.set_num_threads(args.threads)
        faiss.omp_set_num_threads(args.threads)
    folder = args.index / "index"
    before = fingerprint(folder)
    _, queries, _ = retrieval.load_beir(args.dataset)
    questions = list(queries.values())[: args.limit or None]
    # every timed question is embedded, as a new one is (a second copy of the model)
    opened = Index.open(folder)
    index = with_embedder(opened, SentenceTransformerEmbedder(
        opened.settings.model, opened.settings.batch_size, cache_size=0))
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
    bare, encode = summarise(times["bare"], None), summarise(times["bare encode"], None)
    result["operations"] = {name: summarise(times[name], bare, encode) for name in OPERATIONS}
    result["stages"] = {name: summarise(times[name], None)
                        for name in Stages.NAMES + Stages.COMPARED}
    result["stages_sum_mean"] = sum(result["stages"][n]["mean"] for n in Stages.NAMES)
    result["ask"] = result["operations"]["ask"]
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
           f"{'mean/bare':>11}{'p50/encode':>12}"
    print(head)
    print("-" * len(head))

    def line(name: str, row: dict) -> None:
        ratios = (f"{row['p50_ratio']:>10.2f}{row['mean_ratio']:>11.2f}"
                  f"{row['p50_over_encode']:>12.2f}" if "p50_ratio" in row else "")
        print(f"{name:<44}{row['p50']:>9.2f}{row['p95']:>9.2f}{row['mean']:>9.2f}{ratios}")

    labels = {"bare encode": "bare encode of the question",
              "bare": f"bare: embed + FAISS top-{DENSE_CANDIDATES}",
              "search": f"index.search(q, k={r['k_search']})",
              "ask": f"index.ask(q)  (k={r['k_ask']})",
              "ask, in RAM": "index.ask(q), keywords from an index in RAM",
              "ask, repeated (cached vector)": "index.ask(q), repeated (cached vector)"}
    for name, row in r["operations"].items():
        line(labels[name], row)
    print(f"stages of ask, replicated (sum of means {r['stages_sum_mean']:.2f} ms):")
    for name in Stages.NAMES:
        line(f"  {name}", r["stages"][name])
    print("compared:")
    for name in Stages.COMPARED:
        line(f"  {name}", r["stages"][name])
    print()

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    ask, keyword = r["ask"], r["stages"]["keyword (Tantivy)"]
    print(f"ask p50 {ask['p50']:.1f} ms (target <= {TARGET_ASK_P50_MS:.0f} ms: "
          f"{verdict(ask['p50'] <= TARGET_ASK_P50_MS)}); {ask['p50_over_encode']:.2f}x the bare "
          f"encode (target <= {TARGET_ASK_OVER_ENCODE}: "
          f"{verdict(ask['p50_over_encode'] <= TARGET_ASK_OVER_ENCODE)})")
    print(f"keyword stage p50 {keyword['p50']:.2f} ms (target <= {TARGET_KEYWORD_P50_MS:.0f} ms: "
          f"{verdict(keyword['p50'] <= TARGET_KEYWORD_P50_MS)})")
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
