"""Ingest with Ray against ingest in one process, and the Milvus backend against SQLite,
in the same run, on the same files.

Writes the first --limit documents of a BEIR corpus as files
(`qa.evaluation.retrieval.write_corpus`, not timed), then indexes them into fresh
indexes, one per row: in this process or with `--ray` (a local Ray of 2 CPUs: two
embedding actors of 0.75 CPU), into SQLite or Milvus Lite. Each time is end to end, as
`qa index` runs it: the model load (and Ray's start and its actors' model loads) included,
which is what a user waits for; the model is loaded once per process, so the first row pays
the driver's model load and later rows do not. Each row also has the CPU seconds of the
whole process tree (this process and every process descended from it, as Ray's raylet and
actors are; read from /proc every 0.2 s, so a process's last fifth of a second may be
missed) and wall / CPU: below 0.75, both cores were kept busy. Prints the 1-minute load
average beside each row: on a shared 2-core machine, read them together.

Run:  .venv/bin/python benchmarks/distributed.py /work/shared/datasets/scifact --limit 500
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

CONFIGS = [("sqlite", False), ("sqlite", True), ("milvus", False), ("milvus", True)]


class TreeCPU:
    """CPU seconds spent by the processes descended from this one while it runs, each
    process's last reading kept (they exit before the end)."""

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self) -> None:
        self.seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> "TreeCPU":
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            self.seen.update(descendants_cpu(os.getpid(), self.TICK))

    def seconds(self) -> float:
        return sum(self.seen.values())


def descendants_cpu(root: int, tick: int) -> dict[int, float]:
    """{pid: user + system CPU seconds} of every process descended from `root`."""
    parents, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # it exited meanwhile
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    tree, grew = {root}, True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree, grew = tree | found, bool(found)
    return {pid: cpu[pid] for pid in tree - {root}}


def run(corpus: Path, folder: Path, backend: str, ray: bool) -> dict:
    from qa import BackendConfig, Index

    wall, cpu = time.perf_counter(), time.process_time()
    with TreeCPU() as children:
        index = Index.create(folder, backend=BackendConfig(backend))
        report = index.add([corpus], ray=ray)
        chunks = sum(d.chunks for d in index.documents())
        index.close()
    seconds, driver = time.perf_counter() - wall, time.process_time() - cpu
    tree = driver + children.seconds()
    return {"backend": backend, "ray": ray, "documents": report.added, "chunks": chunks,
            "seconds": round(seconds, 1), "driver_cpu_s": round(driver, 1),
            "cpu_s": round(tree, 1), "wall_over_cpu": round(seconds / tree, 2),
            "docs_per_s": round(report.added / seconds, 2),
            "chunks_per_s": round(chunks / seconds, 2), "load_at_end": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=500, help="documents (default: 500)")
    parser.add_argument("--only", choices=["sqlite", "milvus"], help="one backend only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from qa.evaluation import retrieval

    corpus, _, _ = retrieval.load_beir(args.dataset)
    work = Path(tempfile.mkdtemp(prefix="qa-distributed-"))
    try:
        retrieval.write_corpus(dict(list(corpus.items())[: args.limit]), work / "corpus")
        rows = []
        for n, (backend, ray) in enumerate(CONFIGS):
            if args.only and backend != args.only:
                continue
            rows.append(run(work / "corpus", work / f"index-{n}", backend, ray))
            print(json.dumps(rows[-1]), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'backend':<8}{'ingest':<10}{'docs':>6}{'chunks':>8}{'seconds':>9}{'CPU s':>8}"
          f"{'wall/CPU':>10}{'docs/s':>8}{'chunks/s':>10}{'load':>6}")
    for r in rows:
        print(f"{r['backend']:<8}{'ray' if r['ray'] else 'process':<10}{r['documents']:>6}"
              f"{r['chunks']:>8}{r['seconds']:>9.1f}{r['cpu_s']:>8.1f}{r['wall_over_cpu']:>10.2f}"
              f"{r['docs_per_s']:>8.2f}{r['chunks_per_s']:>10.2f}{r['load_at_end']:>6.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
