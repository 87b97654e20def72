"""The time of an overview question ("Summarize the report") on a long document.

Writes a document of `--pages` pages (3,000 characters each: paragraphs of SciFact
abstracts) into the cache folder, indexes it once (reused on later runs), then times
`index.ask` for a few overview questions, `--repeat` times each, and prints the
document's passages and sentences, the median and slowest time per question.

Run:  .venv/bin/python benchmarks/summary.py /work/shared/datasets/scifact /tmp/summary-bench
"""

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from qa import Index

PAGE_CHARS = 3000
QUESTIONS = ("Summarize the report", "What is this document about?",
             "What are the main points of the long report?")


def write_document(dataset: Path, path: Path, pages: int) -> None:
    """Abstracts of the dataset as paragraphs, under a title, up to `pages` pages."""
    parts, size = ["# Long report\n"], 0
    with (dataset / "corpus.jsonl").open(encoding="utf-8") as corpus:
        for line in corpus:
            text = json.loads(line)["text"].strip()
            parts.append(text)
            size += len(text) + 2
            if size >= pages * PAGE_CHARS:
                break
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n\n".join(parts) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a BEIR folder holding corpus.jsonl")
    parser.add_argument("cache", type=Path, help="where the document and its index live")
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    document = args.cache / "corpus" / "long_report.md"
    write_document(args.dataset, document, args.pages)
    index = Index.build([document.parent], path=args.cache / "index")
    index.warm_up()
    info = index.documents()[0]
    sentences = len(index.backend.sentences(list(range(1, info.chunks + 1))))
    print(f"{args.pages} pages ({document.stat().st_size:,} bytes): {info.chunks} passages, "
          f"{sentences:,} sentences; load average {os.getloadavg()[0]:.1f}")
    print(f"{'question':<48}{'quotes':>7}{'ms p50':>9}{'ms max':>9}")
    for question in QUESTIONS:
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            answer = index.ask(question)
            times.append((time.perf_counter() - started) * 1000)
        print(f"{question:<48}{len(answer.citations):>7}{statistics.median(times):>9.1f}"
              f"{max(times):>9.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    index.close()


if __name__ == "__main__":
    main()
