"""Scale: the product's store, vector index, hybrid search and `ask` at 100k and 1M passages.

Synthetic passages are written into the product's SQLite schema (documents of ten
passages, chunks as their spans, two sentences per chunk with their
vectors, all stored as the product stores them), in an index folder that
`qa.Index` opens as any other (it builds the Tantivy keyword index from the store on
the first search, as for any index that has none):

* vectors: embedding-like 384-d unit vectors (ClusteredSource, calibrated on real
  all-MiniLM-L6-v2 embeddings in benchmarks/ann_choice.py); a sentence's vector is
  its passage's plus noise;
* text: 100 words per passage (two sentences of 50) drawn from a Zipf-Mandelbrot
  distribution (p(r) ~ 1 / (r + 2.7)), as word frequencies in English text follow:
  the top ranks are the most frequent English words, in their order, then 50,000
  made-up words;
* questions: "what is the A of B in C D?", A-D four words drawn at random from the
  made-up words of one sentence of a random passage (so as common as the text's own).

The product's VectorIndex is built from the store exactly as `Index` does when the
FAISS file is missing (exact below APPROX_MIN vectors, IVF above) and saved. Printed per
size:

1. dense half, synthetic query vectors: build time, file size, single-query p50/p95,
   recall@10 against exact search, and a check that removed chunks never come back and
   added ones are found;
2. the index as a user meets it: `Index.open` + loading the vectors (time to open), the
   keyword index built from the store (its time), then
   per question (the real model embeds it; no vector is cached), `index.search(q, k=10)`
   (hybrid), `index.ask(q)` and the stages of `ask` replicated as benchmarks/query.py
   does: p50/p95 each; the index folder's size and that process's peak RSS.

The vector index's build and the questions each run in a process of their own (spawned:
a fresh interpreter), so their peak RSS is a user's (`qa index` building the vector
file; `qa serve` answering from the index), apart from the benchmark's own (the
synthetic vectors and the exact search the recall is measured against), printed beside.

    nice python benchmarks/scale.py --sizes 100000 1000000
"""

import argparse
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from ann_choice import ClusteredSource  # noqa: E402
from query import Stages, timed, with_embedder  # noqa: E402

from qa.backends.sqlite import DATABASE, VECTORS  # noqa: E402
from qa.backends.sqlite.store import (  # noqa: E402
    Store,
    text_blob,
    vector_blob,
)
from qa.backends.sqlite.vectors import APPROX_MIN, VectorIndex  # noqa: E402
from qa.settings import DEFAULT_MODEL  # noqa: E402

CHUNKS_PER_DOCUMENT = 10
# the most frequent words of English text, most frequent first
COMMON = ["the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was",
          "with", "be", "by", "on", "not", "he", "this", "are", "or", "his", "from",
          "at", "which", "but", "have", "an", "they", "you", "were", "her", "she",
          "there", "been", "one", "all", "we", "their", "has", "would", "what", "when",
          "who", "will", "more", "if", "no", "out", "so", "said", "can"]
WORDS_PER_SENTENCE, SENTENCES = 50, 2
MADE_UP_WORDS = 50_000
ZIPF_SHIFT = 2.7
BLOCK = 50_000  # chunks generated and written at a time
SENTENCE_NOISE = 0.5
TARGET_ASK_P50_MS, TARGET_RECALL = 50.0, 0.95


class Text:
    """Zipf-distributed words: the common English words first, then made-up words."""

    def __init__(self, rng: np.random.Generator) -> None:
        syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]
        made_up: set[str] = set()
        while len(made_up) < MADE_UP_WORDS:
            made_up.add("".join(rng.choice(syllables, rng.integers(2, 5))))
        self.words = np.array(COMMON + sorted(made_up - set(COMMON)))
        ranks = np.arange(1, len(self.words) + 1)
        weights = 1 / (ranks + ZIPF_SHIFT)
        self.p = weights / weights.sum()
        self.common = len(COMMON)

    def sentences(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, WORDS_PER_SENTENCE) word numbers."""
        return rng.choice(len(self.words), (n, WORDS_PER_SENTENCE), p=self.p)

    def passage(self, sentences: np.ndarray) -> tuple[str, list[tuple[int, int]]]:
        """The text of a passage's sentences, and their spans."""
        text, spans = "", []
        for numbers in sentences:
            sentence = " ".join(self.words[numbers]).capitalize() + "."
            start = len(text) + (1 if text else 0)
            text = f"{text} {sentence}" if text else sentence
            spans.append((start, len(text)))
        return text, spans

    def question(self, sentence: np.ndarray, rng: np.random.Generator) -> str:
        content = [n for n in sentence if n >= self.common] or list(sentence)
        a, b, c, d = self.words[rng.choice(content, 4)]
        return f"What is the {a} of {b} in {c} {d}?"


def fill_store(store: Store, vectors: np.ndarray, text: Text, rng) -> list[np.ndarray]:
    """Synthetic documents, chunks, keyword index and sentences in the product's schema
    (each document CHUNKS_PER_DOCUMENT passages, one a line; vectors stored as the product
    stores them); returns one sentence (word numbers) of every 1,000th chunk, for
    questions."""
    n, picked = len(vectors), []
    for start in range(0, n, BLOCK):  # BLOCK is a multiple of CHUNKS_PER_DOCUMENT
        words = text.sentences((min(BLOCK, n - start)) * SENTENCES, rng)
        words = words.reshape(-1, SENTENCES, WORDS_PER_SENTENCE)
        picked += [w[0] for w in words[::1000]]
        passages = [text.passage(w) for w in words]
        noise = rng.standard_normal((len(passages) * SENTENCES, vectors.shape[1]))
        sentence_vectors = np.repeat(vectors[start:start + len(passages)], SENTENCES, axis=0)
        sentence_vectors += SENTENCE_NOISE / np.sqrt(vectors.shape[1]) * noise.astype(np.float32)
        sentence_vectors /= np.linalg.norm(sentence_vectors, axis=1, keepdims=True)
        documents, chunks, sentences = [], [], []
        for first in range(0, len(passages), CHUNKS_PER_DOCUMENT):
            document_id = (start + first) // CHUNKS_PER_DOCUMENT + 1
            offset = 0
            for j in range(first, min(first + CHUNKS_PER_DOCUMENT, len(passages))):
                passage, spans = passages[j]
                chunk_id = start + j + 1
                chunks.append((chunk_id, document_id, j - first, offset, offset + len(passage),
                               vector_blob(vectors[start + j])))
                sentences += [(chunk_id, offset + a, offset + b,
                               vector_blob(sentence_vectors[j * SENTENCES + s]))
                              for s, (a, b) in enumerate(spans)]
                offset += len(passage) + 1
            documents.append((document_id, f"/synthetic/{document_id - 1}.txt", text_blob(
                "\n".join(passages[j][0] for j in range(first, min(first + CHUNKS_PER_DOCUMENT,
                                                                   len(passages)))))))
        with store.transaction() as db:
            db.executemany(
                "INSERT INTO documents (id, path, title, sha256, size, mtime, indexed_at, text, "
                "page_starts) VALUES (?, ?, '', '', 0, 0, '', ?, '[]')", documents)
            db.executemany(
                "INSERT INTO chunks (id, document_id, ordinal, start_char, end_char, page, "
                "vector) VALUES (?, ?, ?, ?, ?, NULL, ?)", chunks)
            db.executemany(
                "INSERT INTO sentences (chunk_id, start_char, end_char, vector) "
                "VALUES (?, ?, ?, ?)", sentences)
    store.set_meta({"model": DEFAULT_MODEL, "dim": str(vectors.shape[1])})
    return picked


def exact_top10(vectors: np.ndarray, queries: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """The ids of each query's 10 nearest (as sets: recall ignores their order)."""
    found = []
    for start in range(0, len(queries), 20):  # bounds the score matrix
        scores = queries[start:start + 20] @ vectors.T
        scores[:, ~alive] = -np.inf
        found.append(np.argpartition(-scores, 10, axis=1)[:, :10] + 1)  # ids are rows + 1
    return np.concatenate(found)


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


def percentiles(times: list[float]) -> tuple[float, float]:
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def peak_rss_mb() -> float:
    """This process's peak RSS since it started (VmHWM; ru_maxrss would carry a spawning
    parent's peak over into the child, on Linux)."""
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def in_own_process(function, *args):
    """`function(*args)` run in a fresh interpreter (spawned), its result returned."""
    with multiprocessing.get_context("spawn").Pool(1) as process:
        return process.apply(function, args)


def build_vector_index(folder: Path) -> dict:
    """The product's vector index built from the store and saved, as `Index` does when the
    file is missing."""
    store = Store(folder / DATABASE)
    start = time.perf_counter()
    index = VectorIndex.build(int(store.meta("dim") or 0), store.vectors())
    row = {"kind": type(index._index).__name__, "build_s": time.perf_counter() - start}
    index.save(folder / VECTORS, store.identity, store.generation())
    store.close()
    return {**row, "build_rss_mb": peak_rss_mb()}


def dense(size: int, vectors: np.ndarray, probes: np.ndarray, store: Store, folder: Path,
          source: ClusteredSource, rng) -> dict:
    """The dense half alone: build, save, latency, recall, removals and additions."""
    row = in_own_process(build_vector_index, folder)
    index = (VectorIndex.load(folder / VECTORS, vectors.shape[1], store.identity,
                              store.generation())  # an exact index is not saved: built here
             or VectorIndex.build(vectors.shape[1], store.vectors()))
    alive = np.ones(size, dtype=bool)
    times, found = latencies_ms(index, probes)
    p50, p95 = percentiles(times)
    row.update({"faiss_mb": os.path.getsize(folder / VECTORS) / 1e6, "dense_p50_ms": p50,
                "dense_p95_ms": p95,
                "recall@10": recall(found, exact_top10(vectors, probes, alive))})
    removed = rng.choice(size, size // 100, replace=False)
    index.remove((removed + 1).tolist())
    alive[removed] = False
    fresh = source.sample(1000, rng)
    index.add(np.arange(size + 1, size + 1001), fresh)
    _, after = latencies_ms(index, probes)
    row["removed_returned"] = int(np.isin(after, removed + 1).sum())
    _, own = latencies_ms(index, fresh[:200])
    row["added_found_first"] = float(np.mean(own[:, 0] == np.arange(size + 1, size + 201)))
    return row


def hybrid(folder: Path, questions: list[str]) -> dict:
    """The index as a user meets it: open it, then search and ask each question."""
    from qa.index import Index
    from qa.indexing.embedding import SentenceTransformerEmbedder, load_embedder

    load_embedder().embed(["load the model before the clock starts"])
    start = time.perf_counter()
    index = Index.open(folder)
    index.backend.vectors()
    row = {"open_s": time.perf_counter() - start}
    row["keywords_s"], _ = timed(index.backend.keyword_search, ["warm"], 1)
    row["keywords_s"] /= 1e3
    index = with_embedder(index, SentenceTransformerEmbedder(cache_size=0))  # every question
    index.ask("What is the warm of up in the model?")
    stages = Stages(index)
    times: dict[str, list[float]] = {"search": [], "ask": []}
    for question in questions:
        times["search"].append(timed(index.search, question, k=10)[0])
        times["ask"].append(timed(index.ask, question)[0])
        for name, ms in stages.run(question)[0].items():
            times.setdefault(name, []).append(ms)
    index.close()
    row.update({name: percentiles(values) for name, values in times.items()})
    row["peak_rss_mb"] = peak_rss_mb()
    row["index_mb"] = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6
    return row


def run(size: int, queries: int, questions: int, source: ClusteredSource, rng,
        workdir: Path) -> dict:
    folder = workdir / f"index-{size}"
    folder.mkdir()
    vectors = source.sample(size, rng)
    probes = source.sample(queries, rng)
    store = Store(folder / DATABASE)
    text = Text(rng)
    start = time.perf_counter()
    picked = fill_store(store, vectors, text, rng)
    row = {"size": size, "fill_s": time.perf_counter() - start}
    row.update(dense(size, vectors, probes, store, folder, source, rng))
    store.close()
    del vectors
    row["benchmark_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    asked = [text.question(picked[i % len(picked)], rng) for i in range(questions)]
    row.update(in_own_process(hybrid, folder, asked))
    row["load1"] = os.getloadavg()[0]
    return row


def print_row(row: dict) -> None:
    print(f"\n{row['size']:,} passages ({row['kind']}), load average {row['load1']:.1f}: "
          f"store written in {row['fill_s']:.0f} s, vector index built in "
          f"{row['build_s']:.1f} s ({row['faiss_mb']:.0f} MB), its peak RSS "
          f"{row['build_rss_mb']:,.0f} MB")
    print(f"  dense half: p50 {row['dense_p50_ms']:.2f} ms, p95 {row['dense_p95_ms']:.2f} ms, "
          f"recall@10 {row['recall@10']:.3f} (target >= {TARGET_RECALL}); removed returned "
          f"{row['removed_returned']}, added found first {row['added_found_first']:.3f}")
    print(f"  index folder {row['index_mb']:,.0f} MB; time to open (Index.open + vectors) "
          f"{row['open_s']:.1f} s; keyword index built from the store in "
          f"{row['keywords_s']:.1f} s; peak RSS {row['peak_rss_mb']:,.0f} MB (the "
          f"benchmark's own process: {row['benchmark_rss_mb']:,.0f} MB)")
    print(f"  {'per question':<40}{'p50 ms':>9}{'p95 ms':>9}")
    for name in ("search", "ask", *Stages.NAMES):
        p50, p95 = row[name]
        print(f"  {name:<40}{p50:>9.2f}{p95:>9.2f}")
    ok = row["ask"][0] <= TARGET_ASK_P50_MS
    print(f"  hybrid ask p50 {row['ask'][0]:.1f} ms (target <= {TARGET_ASK_P50_MS:.0f} ms: "
          f"{'ok' if ok else 'MISSED'})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=1000, help="for the dense half")
    parser.add_argument("--questions", type=int, default=200, help="for search and ask")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where the index folders are made (default: the temporary "
                             "folder); removed at the end")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    source = ClusteredSource.create(args.seed)
    print(f"exact search below {APPROX_MIN:,} vectors, IVF above; load "
          f"{os.getloadavg()[0]:.1f}; {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory(dir=args.workdir) as workdir:
        for size in args.sizes:
            print_row(run(size, args.queries, args.questions, source, rng, Path(workdir)))


if __name__ == "__main__":
    main()
