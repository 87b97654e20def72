"""Chunking cost per MB: load + chunk (no embedding) of texts of 1 to 20 MB.

Three kinds of text, each made here from the seed article (seeds/):
  line   one long line: the article's words in random order, no full stop, no newline
         (one "sentence" of megabytes, which must be cut into pieces that fit)
  lines  many short lines ("log line 123456 ok"), no blank line, no full stop
  prose  the article repeated: paragraphs of ordinary sentences

Each case runs in its own process (`--case KIND MB`), which loads the model's
tokenizer, makes the text, then times `qa.loaders.formats.load` +
`qa.indexing.chunking.chunk_document` with the product's budget (Settings: 200 tokens,
40 of overlap). Peak memory is the process's peak RSS (ru_maxrss) minus its RSS just
before loading, so the model and the text itself are not counted. Linear cost shows as flat
s/MB and peak/MB columns.

    .venv/bin/python benchmarks/chunking.py                    # 1, 2, 5, 10, 20 MB
    .venv/bin/python benchmarks/chunking.py --sizes 1 2 --kinds prose
"""

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

SEED = Path(__file__).resolve().parent.parent / "seeds" / "000_8763795a8428a42a.txt"
KINDS = ("line", "lines", "prose")


def make_text(kind: str, size: int) -> str:
    article = SEED.read_text(encoding="utf-8")
    if kind == "line":
        words = re.findall(r"\w+", article)
        text = " ".join(random.Random(0).choices(words, k=size // 5))
    elif kind == "lines":
        text = "".join(f"log line {i} ok\n" for i in range(size // 15 + 1))
    else:
        text = "\n\n".join([article] * (size // len(article) + 1))
    return text[:size]


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_case(kind: str, megabytes: float) -> None:
    """In a child: time one case and print `seconds peak_mb chunks`."""
    from qa.indexing.chunking import chunk_document
    from qa.indexing.embedding import load_embedder
    from qa.loaders.formats import load
    from qa.settings import Settings

    settings = Settings()
    embedder = load_embedder()
    embedder.count_tokens(["warm up"])
    data = make_text(kind, int(megabytes * 1e6)).encode()
    before = _rss_mb()
    start = time.perf_counter()
    document = load(Path(f"{kind}.txt"), data)
    chunks = chunk_document(document, embedder.count_tokens, settings.chunk_tokens,
                            settings.overlap_tokens)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
    print(f"{seconds:.3f} {max(peak, 0):.1f} {len(chunks)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 2, 5, 10, 20])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--case", nargs=2, metavar=("KIND", "MB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        run_case(args.case[0], float(args.case[1]))
        return
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    print(f"{'text':6} {'MB':>5} {'seconds':>8} {'s/MB':>6} {'peak MB':>8} {'peak/MB':>8} "
          f"{'chunks':>7} {'load':>5}")
    for kind in args.kinds:
        for size in args.sizes:
            out = subprocess.run([sys.executable, __file__, "--case", kind, str(size)],
                                 env=env, capture_output=True, text=True, check=True).stdout
            seconds, peak, chunks = out.split()
            print(f"{kind:6} {size:5g} {float(seconds):8.1f} {float(seconds) / size:6.2f} "
                  f"{float(peak):8.0f} {float(peak) / size:8.1f} {chunks:>7} "
                  f"{os.getloadavg()[0]:5.1f}", flush=True)


if __name__ == "__main__":
    main()
