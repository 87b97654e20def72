"""Build cost, disk and peak memory of qa beside txtai and Haystack (issue 28).

Builds the index of the first `--limit` documents of a BEIR corpus with each system,
each build in a child process of its own (`benchmarks/peer_build.py`): qa with this
interpreter (the project's venv), txtai (hybrid, content stored, saved to a folder) and
Haystack (InMemoryDocumentStore, sentence-transformers vectors + BM25, saved as JSON)
with `--peer-python`, a venv of their own beside the project's (docs/figures.md says how
it is made). The order of the three alternates over `--rounds`. Every child loads the
model and embeds one text before its timer starts, and times the build and the save.

Prints one table, each cell one figure per round: build wall and CPU seconds (the child's
rusage, user + sys), the tokens embedded (counted with the MiniLM tokenizer at the length
each system truncates to, [CLS] and [SEP] included; qa's as index_size.py counts them)
and tokens per CPU-second, peak RSS (the child's ru_maxrss: imports, model and build),
the index on disk (du) also as a multiple of the text (title + "\n" + text of each
document) and of the corpus file's lines, and the median warm hybrid search (k=10) over
the dataset's queries. Read it with the load average beside it (benchmarks/README.md).

Run:  PEERS=/work/peers-venv/bin/python
      nice -n 10 .venv/bin/python benchmarks/peers.py /work/shared/datasets/scifact \
          --limit 1400 --rounds 2 --peer-python $PEERS
      nice -n 10 .venv/bin/python benchmarks/peers.py /work/shared/datasets/scifact \
          --peer-python $PEERS
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from index_size import corpus_file_bytes, folder_bytes
from peer_build import documents

HERE = Path(__file__).parent
SYSTEMS = ("qa", "txtai", "haystack")


def build(system: str, python: str, dataset: Path, limit: int | None, work: Path,
          threads: int | None = None) -> dict:
    """Run one system's build in a child process; its figures and its index's size."""
    command = [python, str(HERE / "peer_build.py"), system, str(dataset), str(work)]
    command += ["--limit", str(limit)] if limit else []
    env = os.environ | {"HF_HUB_OFFLINE": "1", "HAYSTACK_TELEMETRY_ENABLED": "False"}
    env |= {"OMP_NUM_THREADS": str(threads)} if threads else {}
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True, env=env)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result | {"disk": folder_bytes(Path(result["index"]))}


def print_table(runs: dict[str, list[dict]], text: int, corpus: int) -> None:
    def cells(name: str, show) -> None:
        print(f"{name:<34}" + "".join(f"{' / '.join(show(r) for r in runs[s]):>34}"
                                      for s in SYSTEMS))

    print(f"{'':<34}" + "".join(f"{s:>34}" for s in SYSTEMS))
    cells("build wall / CPU s", lambda r: f"{r['wall_s']:.0f}/{r['cpu_s']:.0f}")
    cells("load average after the build", lambda r: f"{r['load']:.1f}")
    cells("texts embedded", lambda r: f"{r['chunks']:,}")
    cells("tokens embedded", lambda r: f"{r['tokens']:,}")
    cells("  truncated at", lambda r: f"{r['max_length']}")
    cells("tokens per CPU-second", lambda r: f"{r['tokens'] / r['cpu_s']:,.0f}")
    cells("peak RSS MB", lambda r: f"{r['peak_rss_mb']:,.0f}")
    cells("index on disk MB", lambda r: f"{r['disk'] / 1e6:.2f}")
    cells("  × text / × corpus file", lambda r: f"{r['disk'] / text:.2f}/{r['disk'] / corpus:.2f}")
    cells("hybrid search p50 ms (k=10)", lambda r: f"{r['search_p50_ms']:.1f}")
    print(f"\ntext {text / 1e6:.2f} MB (title + text), corpus file {corpus / 1e6:.2f} MB; "
          f"one figure per round, separated by /")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="a BEIR dataset folder (corpus.jsonl)")
    parser.add_argument("--limit", type=int, default=None, help="the first N documents only")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--peer-python", required=True,
                        help="the interpreter of the venv with txtai and Haystack")
    parser.add_argument("--peer-threads", type=int, default=None,
                        help="torch threads of the peers' builds (default: theirs, one a core)")
    parser.add_argument("--keep", action="store_true", help="keep the indexes built")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="qa-peers-"))
    runs: dict[str, list[dict]] = {system: [] for system in SYSTEMS}
    for round_ in range(args.rounds):
        for system in SYSTEMS if round_ % 2 == 0 else reversed(SYSTEMS):
            python, threads = ((sys.executable, None) if system == "qa"
                               else (args.peer_python, args.peer_threads))
            result = build(system, python, args.dataset, args.limit, work / f"{system}{round_}",
                           threads)
            runs[system].append(result)
            print(f"round {round_ + 1}: {system} built, {result['cpu_s']:.0f} CPU-s, "
                  f"load {result['load']:.1f}", file=sys.stderr, flush=True)
    text = sum(len(doc.encode()) for _, doc in documents(args.dataset, args.limit))
    print_table(runs, text, corpus_file_bytes(args.dataset, args.limit))
    if args.keep:
        print(f"indexes kept in {work}", file=sys.stderr)
    else:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
