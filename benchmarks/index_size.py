"""Index size and build cost: where an index folder's bytes go, and what building it costs.

Writes a BEIR corpus as one Markdown file per document (`qa.evaluation.retrieval.write_corpus`, as
`qa eval` does; not timed), builds a fresh index of it with `Index.create(...).add`, and
prints one table: the folder's size by file (the SQLite database, by table and index
from its `dbstat` table, the FAISS file, the Tantivy folder), each also as a multiple
of the text indexed (the Markdown files written) and of the corpus file's lines (as
issue 28 measured SciFact); the build's wall and CPU seconds,
the tokens embedded (title line + chunk, as the model sees them: [CLS] and [SEP]
included, at most max_seq_length) per CPU second, and the process's peak RSS while
building (the loaded model included).

The model is loaded and warmed before the timer starts. With `--workdir DIR` the corpus
and index are kept at DIR/corpus and DIR/index, the layout `qa eval beir --index DIR`
reads, so the same index can then be evaluated without building it again; `--measure`
prints the sizes of such an index without building anything (give the same --limit).

Run:  nice -n 10 .venv/bin/python benchmarks/index_size.py /work/shared/datasets/scifact \
          --limit 1400 --workdir /tmp/size-1400
      nice -n 10 .venv/bin/python benchmarks/index_size.py /work/shared/datasets/scifact \
          --workdir /tmp/size-scifact
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def folder_bytes(path: Path) -> int:
    """Bytes of the files under `path` (or of the file), as allocated on disk (du)."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return sum(p.stat().st_blocks * 512 for p in files)


def table_bytes(database: Path) -> list[tuple[str, int]]:
    """Bytes of each table and index of an SQLite database (its pages), largest first;
    the FTS5 table of an index of schema 3 or older has its shadow tables summed under its
    name."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
    finally:
        db.close()
    totals: dict[str, int] = {}
    for name, size in rows:
        name = name.split("_", 2)[0] + "_fts" if name.startswith("chunks_fts") else name
        totals[name] = totals.get(name, 0) + size
    return sorted(totals.items(), key=lambda item: -item[1])


def corpus_file_bytes(dataset: Path, limit: int | None) -> int:
    """Bytes of the corpus file's lines indexed (issue 28 measured SciFact against its
    corpus.jsonl, 15.5 MB, twice its 7.8 MB of text)."""
    with open(dataset / "corpus.jsonl", "rb") as corpus:
        return sum(len(line) for line in islice(corpus, limit))


def sizes(work: Path) -> dict:
    """The index folder's size by file and by table, and the text it holds."""
    from qa.backends.sqlite import DATABASE, VECTORS
    from qa.backends.sqlite.keywords import FOLDER as KEYWORDS

    index = work / "index"
    files = {name: folder_bytes(index / name) for name in (DATABASE, f"{DATABASE}-wal",
                                                            VECTORS, KEYWORDS)
             if (index / name).exists()}
    return {"text": sum(p.stat().st_size for p in (work / "corpus").iterdir()),
            "folder": folder_bytes(index), "files": files,
            "tables": table_bytes(index / DATABASE)}


def build(dataset: Path, limit: int | None, work: Path, batch_size: int | None = None) -> dict:
    """Build the index and return its cost: wall and CPU seconds, tokens, peak RSS."""
    from ingest import Timer, embedded_inputs, peak_rss_mb

    from qa.evaluation import retrieval
    from qa.index import Index
    from qa.indexing.embedding import load_embedder
    from qa.settings import DEFAULT_MODEL, Settings

    corpus, _, _ = retrieval.load_beir(dataset)
    if limit:
        corpus = dict(islice(corpus.items(), limit))
    retrieval.write_corpus(corpus, work / "corpus")
    settings = Settings(batch_size=batch_size) if batch_size else Settings()
    embedder = load_embedder(settings.model or DEFAULT_MODEL, settings.batch_size)
    embedder.embed(["warm up"])  # loads the model before the timer starts
    with Timer() as timer:
        index = Index.create(work / "index", settings)
        report = index.add([work / "corpus"])
    peak = peak_rss_mb()
    if report.failed or report.added != len(corpus):
        raise SystemExit(f"indexing did not add every document: {report.summary()}")
    texts, _, _ = embedded_inputs(index)
    index.close()
    model = embedder.model
    ids = model.tokenizer(texts, truncation=True, max_length=model.max_seq_length,
                          verbose=False)["input_ids"]
    tokens = sum(len(i) for i in ids)
    return {"documents": report.added, "chunks": len(texts), "tokens": tokens,
            "wall_s": timer.seconds, "cpu_s": timer.cpu, "load": timer.load,
            "tokens_per_cpu_s": tokens / timer.cpu, "peak_rss_mb": peak}


def print_table(result: dict) -> None:
    text = result["text"]

    corpus = result["corpus_file"]

    def line(name: str, size: int) -> None:
        print(f"{name:<42}{size / 1e6:>10.2f} MB{size / text:>8.2f}×{size / corpus:>11.2f}×")

    print(f"{'':<42}{'size':>13}{'× text':>9}{'× corpus':>12}")
    line("text indexed (Markdown files)", text)
    line("corpus file (corpus.jsonl lines)", corpus)
    line("index folder", result["folder"])
    for name, size in result["files"].items():
        line(f"  {name}", size)
    for name, size in result["tables"]:
        line(f"    table {name}", size)
    if "cpu_s" in result:
        print(f"\n{result['documents']:,} documents, {result['chunks']:,} chunks, "
              f"{result['tokens']:,} tokens embedded")
        print(f"build: {result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} CPU-s "
              f"(load {result['load']:.1f}), {result['tokens_per_cpu_s']:,.0f} tokens per "
              f"CPU-s, peak RSS {result['peak_rss_mb']:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a BEIR dataset folder (corpus.jsonl)")
    parser.add_argument("--limit", type=int, default=None, help="the first N documents only")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep the corpus and index here (DIR/corpus, DIR/index)")
    parser.add_argument("--measure", action="store_true",
                        help="only measure the index already in --workdir")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--batch-size", type=int, default=None,
                        help="texts per embedding batch (default: Settings')")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="qa-size-"))
    if not args.measure and (work / "index").exists():
        raise SystemExit(f"{work / 'index'} exists: give a new --workdir, or --measure it")
    started = time.time()
    result = {} if args.measure else build(args.dataset, args.limit, work, args.batch_size)
    result |= sizes(work)
    result["corpus_file"] = corpus_file_bytes(args.dataset, args.limit)
    result["seconds"] = time.time() - started
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    print(f"index kept in {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
