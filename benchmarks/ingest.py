"""Ingest throughput: the product indexing a BEIR corpus, against the bare model encode.

Writes the corpus as one Markdown file per document (`qa.evaluation.retrieval.write_corpus`,
as `qa eval` does; not timed), then times `Index.create(...).add([corpus])` end
to end into a fresh index. In the same process it reads back the texts the
product embedded (title line + chunk text, rebuilt from the index's own SQLite
tables with the product's rule for the title prefix), checks that they give the
vectors the product stored, and times the bare `model.encode(texts,
batch_size=32, normalize_embeddings=True)` of exactly those texts. The ratio
end-to-end / bare encode is the product's overhead over pure embedding (target
<= 1.15). Then a second `add` of the unchanged corpus is timed (target <= 2% of
the first).

The model is loaded and warmed with one embed call before any timer starts, and
the product's Index uses that same embedder object, so model load time is
excluded from both sides equally. Tokens are counted outside the timed regions
with the model's tokenizer, as the model sees them: [CLS] and [SEP] included,
truncated to max_seq_length.

Where the product's time goes is measured inside the same run: the stages of
`Index.add` (load + chunk, embed, SQLite writes, FAISS, saving) are wrapped in
timers for the run (a few microseconds per document). Padded tokens, what
the model actually computes once `encode` has sorted a call's texts by length
and padded each batch of 32 to its longest, are counted for one call over
all texts (the bare side) and for the product's calls (>= 256 chunks each).
`--batched-encode` also times bare encode on the product's batches (one more
encode pass), separating the cost of those smaller calls from the rest of
`embed_passages` (token vectors, offsets, sentence pooling).

Each figure has wall and process CPU seconds and the 1-minute load average at
its end: on a shared machine read them together.

`--compare-workers R` instead times `Index.add` into fresh indexes R rounds, with one
embedding worker (today's serial embedding: one model call at a time, torch on all
cores) and with `qa.indexing.ingest.EMBED_WORKERS` (groups embedded side by side), alternating
which goes first, and prints per side the median wall and CPU seconds, the cores kept
busy (CPU / wall) and wall / CPU, and whether the stored chunks, vectors and sentence
vectors are the same bit for bit on both sides.

Run:  .venv/bin/python benchmarks/ingest.py /work/shared/datasets/scifact [--limit N]
      .venv/bin/python benchmarks/ingest.py /work/shared/datasets/scifact --limit 300 \
          --compare-workers 3
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TARGET_RATIO = 1.15
TARGET_READD = 0.02
READD_REPEATS = 3
ENCODE_BATCH = 32


def load1() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def rss_mb() -> float:
    """Current resident set size of this process, MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 1e6


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, MB (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


class Timer:
    """Wall time and process CPU time (all threads) of a block, and the load average after.

    CPU time is the steadier figure on a shared machine: waiting for a core does not
    count, though contention still inflates it somewhat (threads spinning at barriers).
    """

    def __enter__(self) -> Timer:
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.start
        self.cpu = time.process_time() - self.cpu_start
        self.load = load1()


# -- attributing the product's time to its stages ------------------------------------


def _stages():
    from qa.backends.sqlite import SQLiteBackend
    from qa.backends.sqlite.store import Store
    from qa.indexing import ingest
    from qa.indexing.embedding import SentenceTransformerEmbedder

    return {  # name: (owner, attribute); "_change" includes "put_document"
        "prepare": (ingest, "prepare"),
        "embed_passages": (SentenceTransformerEmbedder, "embed_passages"),
        "put_document": (Store, "put_document"),
        "_change": (SQLiteBackend, "_change"),
        "save": (SQLiteBackend, "flush"),
    }


@contextmanager
def instrumented() -> Iterator[dict[str, list[float]]]:
    """Accumulate [wall, cpu, calls] per stage of Index.add while the block runs."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    originals = []
    for name, (owner, attribute) in _stages().items():
        original = getattr(owner, attribute)
        originals.append((owner, attribute, original))

        def wrapper(*args, _original=original, _name=name, **kwargs):
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                total = totals[_name]
                total[0] += time.perf_counter() - wall
                total[1] += time.process_time() - cpu
                total[2] += 1

        setattr(owner, attribute, functools.wraps(original)(wrapper))
    try:
        yield totals
    finally:
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)


# -- what the product embedded --------------------------------------------------------


def embedded_inputs(index) -> tuple[list[str], list[int], np.ndarray]:
    """What the product embedded, rebuilt from its SQLite tables, in indexing order.

    Returns the texts (title prefix + chunk text, the prefix by the product's
    own `_prefix_and_budget` rule), the sizes of the product's embedding calls
    (documents accumulate until >= EMBED_BATCH_CHUNKS chunks; a fresh index
    numbers documents and chunks in the order it wrote them) and the passage
    vectors the product stored (int8, unit length again, as read back).
    """
    from qa.indexing.ingest import EMBED_BATCH_CHUNKS, _prefix_and_budget
    from qa.loaders.formats import Document

    store = index.backend.store()
    ids = [i for (i,) in store._query("SELECT id FROM chunks ORDER BY id")]
    order = dict(store._query("SELECT path, id FROM documents"))
    chunks = store.chunks(ids)
    rows = [(order[c.source], c.source, c.title, c.text, c.vector)
            for c in (chunks[i] for i in ids)]
    texts, stored, calls = [], [], []
    pending, last_doc, prefix = 0, None, ""
    for doc_id, path, title, text, vector in rows:
        if doc_id != last_doc:  # the product checks the batch size after each document
            if pending >= EMBED_BATCH_CHUNKS:
                calls.append(pending)
                pending = 0
            prefix = _prefix_and_budget(Document(path, title, text), index.settings,
                                        index._embedder)[0]
            last_doc = doc_id
        texts.append(prefix + text)
        stored.append(vector)
        pending += 1
    if pending:
        calls.append(pending)
    return texts, calls, np.stack(stored) if stored else np.zeros((0, 0), np.float32)


def split(items: list, sizes: list[int]) -> Iterator[list]:
    start = 0
    for size in sizes:
        yield items[start:start + size]
        start += size


def padded_tokens(texts: list[str], lengths: list[int], calls: list[int]) -> int:
    """Token positions the model computes: each call sorts its texts by character length
    (longest first, as sentence-transformers' encode does) and pads each batch of 32 to
    its longest text."""
    total = 0
    for call_texts, call_lengths in zip(split(texts, calls), split(lengths, calls), strict=True):
        order = np.argsort([-len(t) for t in call_texts], kind="stable")
        ordered = np.asarray(call_lengths)[order]
        for start in range(0, len(ordered), ENCODE_BATCH):
            batch = ordered[start:start + ENCODE_BATCH]
            total += int(batch.max()) * len(batch)
    return total


# -- the run ---------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict:
    import faiss  # noqa: F401  imported before the timers, like the model
    import torch

    from qa.evaluation import retrieval
    from qa.index import Index
    from qa.indexing.embedding import load_embedder
    from qa.settings import DEFAULT_MODEL, Settings

    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    result: dict = {"dataset": str(args.dataset), "cpus": os.cpu_count(),
                    "torch_threads": torch.get_num_threads(), "load_at_start": load1()}
    corpus, _, _ = retrieval.load_beir(args.dataset)
    if args.limit:
        corpus = dict(islice(corpus.items(), args.limit))
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="qa-ingest-", dir=args.workdir))
    corpus_dir, index_dir = work / "corpus", work / "index"
    try:
        retrieval.write_corpus(corpus, corpus_dir)  # set-up, as `qa eval` does; not timed

        settings = Settings(precision=args.precision)
        embedder = load_embedder(settings.model or DEFAULT_MODEL, settings.batch_size,
                                 args.precision)
        with Timer() as model_load:
            embedder.embed(["warm up"])  # loads the model: excluded from both timings
        result.update(model=embedder.name, model_load_s=model_load.seconds,
                      rss_after_model_mb=rss_mb())

        with instrumented() as stages, Timer() as first:
            index = Index.create(index_dir, settings)
            report = index.add([corpus_dir])
        result["peak_rss_ingest_mb"] = peak_rss_mb()
        if index._embedder is not embedder:
            raise SystemExit("the index loaded its own embedder: model load would be timed")
        if report.failed or report.added != len(corpus):
            raise SystemExit(f"indexing did not add every document: {report.summary()}")

        texts, calls, stored = embedded_inputs(index)
        if len(texts) != report.chunks_embedded:
            raise SystemExit(f"read back {len(texts)} chunks; the product embedded "
                             f"{report.chunks_embedded}")
        model = embedder.model
        ids = model.tokenizer(texts, truncation=False, verbose=False)["input_ids"]
        lengths = [min(len(i), model.max_seq_length) for i in ids]
        tokens = sum(lengths)

        with Timer() as bare:
            vectors = model.encode(texts, batch_size=ENCODE_BATCH, normalize_embeddings=True,
                                   show_progress_bar=False)
        agreement = np.sum(np.asarray(vectors, dtype=np.float32) * stored, axis=1)

        batched = None
        if args.batched_encode:
            with Timer() as batched:
                for call in split(texts, calls):
                    model.encode(call, batch_size=ENCODE_BATCH, normalize_embeddings=True,
                                 show_progress_bar=False)

        readds = []
        for _ in range(READD_REPEATS):
            with Timer() as again:
                report2 = index.add([corpus_dir])
            if report2.unchanged != len(corpus) or report2.chunks_embedded:
                raise SystemExit(f"the second add changed something: {report2.summary()}")
            readds.append(again)
        index.close()

        n = len(texts)
        result.update(
            documents=report.added, chunks=n, tokens=tokens,
            over_limit=sum(len(i) > model.max_seq_length for i in ids),
            calls=len(calls), padded_tokens_one_call=padded_tokens(texts, lengths, [n]),
            padded_tokens_product_calls=padded_tokens(texts, lengths, calls),
            min_cosine_bare_vs_stored=float(agreement.min()),
            end_to_end=_row(first, report.added, n, tokens),
            stages=_stage_rows(stages, first, n, tokens),
            bare_encode=_row(bare, None, n, tokens),
            bare_encode_product_calls=_row(batched, None, n, tokens) if batched else None,
            second_add=_row(readds[0], report.added, None, None),
            readd_median_s=statistics.median(r.seconds for r in readds),
            ratio=first.seconds / bare.seconds, ratio_cpu=first.cpu / bare.cpu,
            readd_ratio=readds[0].seconds / first.seconds,
            peak_rss_end_mb=peak_rss_mb(),
        )
    finally:
        if args.keep:
            result["workdir"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    result["load_at_end"] = load1()
    return result


def _stage_rows(stages: dict, first: Timer, chunks: int, tokens: int) -> dict:
    wall = {name: v[0] for name, v in stages.items()}
    cpu = {name: v[1] for name, v in stages.items()}
    rows = {}
    for name, key in (("load + chunk files (ingest.prepare)", "prepare"),
                      ("embed (embed_passages)", "embed_passages"),
                      ("SQLite writes (put_document)", "put_document")):
        rows[name] = {"seconds": wall.get(key, 0.0), "cpu": cpu.get(key, 0.0),
                      "calls": stages[key][2] if key in stages else 0}
    rows["FAISS add (rest of Index._change)"] = {
        "seconds": wall.get("_change", 0.0) - wall.get("put_document", 0.0),
        "cpu": cpu.get("_change", 0.0) - cpu.get("put_document", 0.0)}
    rows["save vectors (SQLiteBackend.flush)"] = {"seconds": wall.get("save", 0.0),
                                                  "cpu": cpu.get("save", 0.0)}
    accounted = ("prepare", "embed_passages", "_change", "save")
    rows["other (find files, tqdm, ...; derived)"] = {
        "seconds": first.seconds - sum(wall.get(k, 0.0) for k in accounted),
        "cpu": first.cpu - sum(cpu.get(k, 0.0) for k in accounted)}
    embed = rows["embed (embed_passages)"]
    embed["chunks_per_s"] = chunks / embed["seconds"] if embed["seconds"] else None
    embed["tokens_per_s"] = tokens / embed["seconds"] if embed["seconds"] else None
    return rows


def _row(timer: Timer, docs: int | None, chunks: int | None, tokens: int | None) -> dict:
    s = timer.seconds
    return {
        "seconds": s, "cpu": timer.cpu, "load1": timer.load,
        "docs_per_s": docs / s if docs else None,
        "chunks_per_s": chunks / s if chunks else None,
        "tokens_per_s": tokens / s if tokens else None,
    }


def stored_digest(index_dir: Path) -> str:
    """SHA-256 of every stored chunk (id, document, span, document hash, vector) and its
    sentences' spans and vectors, in id order."""
    import hashlib

    from qa.backends.sqlite import DATABASE

    digest = hashlib.sha256()
    db = sqlite3.connect(f"file:{index_dir / DATABASE}?mode=ro", uri=True)
    try:
        for row in db.execute(
            "SELECT c.id, d.path, c.start_char, c.end_char, d.sha256, c.vector, "
            "(SELECT group_concat(s.start_char || ':' || hex(s.vector)) FROM sentences s "
            "WHERE s.chunk_id = c.id) FROM chunks c JOIN documents d ON d.id = c.document_id "
            "ORDER BY c.id"
        ):
            digest.update(repr(row).encode())
    finally:
        db.close()
    return digest.hexdigest()


def compare_workers(args: argparse.Namespace) -> dict:
    """Index.add with one embedding worker and with EMBED_WORKERS, alternating, R rounds."""
    from qa.evaluation import retrieval
    from qa.index import Index
    from qa.indexing import ingest
    from qa.indexing.embedding import load_embedder
    from qa.settings import DEFAULT_MODEL, Settings

    corpus, _, _ = retrieval.load_beir(args.dataset)
    if args.limit:
        corpus = dict(islice(corpus.items(), args.limit))
    work = Path(tempfile.mkdtemp(prefix="qa-ingest-workers-", dir=args.workdir))
    settings = Settings(precision=args.precision)
    embedder = load_embedder(settings.model or DEFAULT_MODEL, settings.batch_size,
                             args.precision)
    sides = sorted({1, ingest.EMBED_WORKERS})
    for replica in embedder.replicas(max(sides)):  # models loaded before the timers
        replica.embed_passages(["warm up"], [[(0, 7)]])
    runs: dict[int, list[dict]] = {workers: [] for workers in sides}
    try:
        retrieval.write_corpus(corpus, work / "corpus")
        for round_ in range(args.compare_workers):
            for workers in sides if round_ % 2 == 0 else sides[::-1]:
                ingest.EMBED_WORKERS = workers
                folder = work / f"index-{workers}-{round_}"
                with Timer() as timer:
                    report = Index.create(folder, settings).add([work / "corpus"])
                runs[workers].append({"seconds": timer.seconds, "cpu": timer.cpu,
                                      "load1": timer.load, "digest": stored_digest(folder),
                                      "chunks": report.chunks_embedded})
                shutil.rmtree(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"dataset": str(args.dataset), "documents": len(corpus), "cpus": os.cpu_count(),
              "rounds": args.compare_workers, "sides": {}}
    for workers, rows in runs.items():
        wall = statistics.median(r["seconds"] for r in rows)
        cpu = statistics.median(r["cpu"] for r in rows)
        result["sides"][workers] = {"wall_s": wall, "cpu_s": cpu, "cores_busy": cpu / wall,
                                    "wall_over_cpu": wall / cpu, "runs": rows}
    digests = {r["digest"] for rows in runs.values() for r in rows}
    result["identical"] = len(digests) == 1
    return result


def print_workers(r: dict) -> None:
    print(f"{r['dataset']}: {r['documents']} documents, {r['cpus']} cpus, {r['rounds']} rounds "
          f"alternating; medians")
    print(f"{'embedding workers':<20}{'wall s':>9}{'CPU s':>9}{'CPU/wall':>10}{'wall/CPU':>10}"
          f"   load1 per run")
    for workers, side in r["sides"].items():
        loads = " ".join(f"{run['load1']:.1f}" for run in side["runs"])
        print(f"{workers:<20}{side['wall_s']:>9.2f}{side['cpu_s']:>9.2f}"
              f"{side['cores_busy']:>10.2f}{side['wall_over_cpu']:>10.2f}   {loads}")
    print(f"stored chunks, vectors and sentence vectors identical in every run: {r['identical']}")


# -- output ------------------------------------------------------------------------


def print_table(r: dict) -> None:
    print(f"dataset {r['dataset']}: {r['documents']} documents, {r['chunks']} chunks, "
          f"{r['tokens']:,} embedded tokens ([CLS]/[SEP] included; {r['over_limit']} texts "
          f"over the model's limit)")
    print(f"model {r['model']}, cpus {r['cpus']}, torch threads {r['torch_threads']}; "
          f"load average at start {r['load_at_start']:.2f}")
    print(f"model loaded and warmed before the timers ({r['model_load_s']:.1f} s), excluded "
          f"from both sides; the product's Index used that same embedder")
    print(f"same texts on both sides: bare-encode vectors vs the product's stored vectors, "
          f"min cosine {r['min_cosine_bare_vs_stored']:.5f}\n")

    head = (f"{'phase':<46}{'wall s':>9}{'CPU s':>9}{'docs/s':>9}{'chunks/s':>10}"
            f"{'tokens/s':>10}{'load1':>7}")
    print(head)
    print("-" * len(head))

    def cell(value, width, fmt=".1f"):
        return f"{value:>{width}{fmt}}" if value is not None else " " * width

    def line(name: str, row: dict) -> None:
        print(f"{name:<46}{row['seconds']:>9.2f}{cell(row.get('cpu'), 9)}"
              f"{cell(row.get('docs_per_s'), 9)}{cell(row.get('chunks_per_s'), 10)}"
              f"{cell(row.get('tokens_per_s'), 10)}{cell(row.get('load1'), 7, '.2f')}")

    line("product: Index.create + add (end to end)", r["end_to_end"])
    for name, row in r["stages"].items():
        line(f"  {name}", row)
    line("bare model.encode, same texts, one call", r["bare_encode"])
    if r["bare_encode_product_calls"]:
        line("bare model.encode, the product's calls", r["bare_encode_product_calls"])
    line("second add, unchanged corpus", r["second_add"])
    print()

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    print(f"end to end / bare encode:  {r['ratio']:.3f} wall, {r['ratio_cpu']:.3f} CPU  "
          f"(target <= {TARGET_RATIO}: {verdict(r['ratio'] <= TARGET_RATIO)})")
    print(f"second add / first add:    {100 * r['readd_ratio']:.3f}%  (target <= "
          f"{100 * TARGET_READD:.0f}%: {verdict(r['readd_ratio'] <= TARGET_READD)}; "
          f"median of {READD_REPEATS} re-adds {r['readd_median_s']:.3f} s)")
    one, product = r["padded_tokens_one_call"], r["padded_tokens_product_calls"]
    print(f"padded tokens computed: {one:,} in one call, {product:,} in the product's "
          f"{r['calls']} calls (+{100 * (product / one - 1):.1f}%); real tokens {r['tokens']:,}")
    print(f"peak RSS: {r['peak_rss_ingest_mb']:.0f} MB after the product's add "
          f"({r['rss_after_model_mb']:.0f} MB with only the model loaded), "
          f"{r['peak_rss_end_mb']:.0f} MB for the whole run")
    print(f"load average at end {r['load_at_end']:.2f}")


def main() -> None:
    from qa.indexing.embedding import PRECISIONS, fastest_precision

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path,
                        help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv")
    parser.add_argument("--limit", type=int, default=None,
                        help="index only the first N documents (default: all)")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="make the corpus and the index in a new folder inside DIR "
                             "(default: the system's temporary folder); removed at the end")
    parser.add_argument("--keep", action="store_true", help="keep the corpus and the index")
    parser.add_argument("--batched-encode", action="store_true",
                        help="also time bare encode on the product's calls (one more pass)")
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="torch threads for both sides (default: torch's own)")
    parser.add_argument("--compare-workers", type=int, default=0, metavar="ROUNDS",
                        help="time one embedding worker against EMBED_WORKERS instead")
    parser.add_argument("--precision", choices=PRECISIONS, default=fastest_precision(),
                        help="what the product's model computes in (default: qa's default "
                             "here); the bare encode is sentence-transformers' own, float32")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args()
    if args.compare_workers:
        result = compare_workers(args)
        if args.json:
            json.dump(result, sys.stdout, indent=2)
            print()
        else:
            print_workers(result)
        return
    result = run(args)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print_table(result)


if __name__ == "__main__":
    main()
