"""What `ask` costs beside one pass of the reader over what it reads (issue 33).

The reader (`qa.answering.reader`) reads the question with each of the top five passages; that one
pass is the least an answer read by a model can cost. For each question of a SQuAD file
(indexed as `qa eval squad` does), this times `Index.ask` whole (search, the reader,
choosing the quote) and then the reader's pass alone over the same passages, and prints
the medians of each, in CPU time (the process's, every thread) and wall time, and the
ratio of the medians.

Run:  .venv/bin/python benchmarks/ask_cost.py FILE [--questions 200] [--cache DIR]
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from qa import Index
from qa.answering.quoted import READ_PASSAGES
from qa.answering.reader import read_passages
from qa.evaluation import squad


def timed(call) -> tuple[float, float]:
    """The CPU and wall seconds `call()` takes."""
    cpu, wall = time.process_time(), time.perf_counter()
    call()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, help="a SQuAD-format JSON file")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--cache", type=Path, help="keep the corpus and index here")
    args = parser.parse_args()
    articles = squad.load_squad(args.file)
    questions = [q.text for a in articles for q in a.questions][:args.questions]
    with tempfile.TemporaryDirectory() as temporary:
        cache = args.cache or Path(temporary)
        squad.write_corpus(articles, cache / "corpus")
        index = Index.build([cache / "corpus"], path=cache / "index")
        index.ask(questions[0])  # the models load
        asks, passes = [], []
        for question in questions:
            asks.append(timed(lambda q=question: index.ask(q)))
            passages = [hit.text for hit in index.search(question, k=READ_PASSAGES)]
            passes.append(timed(lambda q=question, p=passages: read_passages(q, p)))
        index.close()
    print(f"{len(questions)} questions of {args.file.name}, medians:")
    print(f"{'':<34}{'CPU ms':>10}{'wall ms':>10}")
    for label, times in (("ask, whole", asks), ("the reader's pass alone", passes)):
        print(f"{label:<34}{statistics.median(t[0] for t in times) * 1000:>10.1f}"
              f"{statistics.median(t[1] for t in times) * 1000:>10.1f}")
    ratio_cpu = statistics.median(t[0] for t in asks) / statistics.median(t[0] for t in passes)
    ratio_wall = statistics.median(t[1] for t in asks) / statistics.median(t[1] for t in passes)
    print(f"{'ask / one pass':<34}{ratio_cpu:>10.2f}{ratio_wall:>10.2f}")


if __name__ == "__main__":
    main()
