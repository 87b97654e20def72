"""Build memory: where the resident memory of a `qa index` run goes, and what it costs.

Runs `qa index FOLDER` into a fresh index, in a child process of its own, and reads its
/proc status every 0.2 s: the peak of its resident memory (VmHWM), and of the two parts
of it, RssAnon (its own allocations: the model's weights and activations, the text, the
C heap) and RssFile (the library and model files mapped, which a freshly installed venv
maps more of). Prints one table: a row per run, with the CPU seconds (user + system) the
child used. `--env NAME=VALUE` runs it with that variable set (a glibc tunable such as
MALLOC_MMAP_THRESHOLD_, for example); `--runs N` repeats each setting.

Run:  .venv/bin/python benchmarks/build_memory.py DIR_OF_DOCUMENTS --runs 2
      .venv/bin/python benchmarks/build_memory.py DIR --env MALLOC_MMAP_THRESHOLD_=1048576
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QA = [sys.executable, "-m", "qa"]
FIELDS = ("VmHWM", "RssAnon", "RssFile")


def measure(folder: Path, env: dict[str, str]) -> dict[str, float]:
    """One `qa index` of `folder` into a new index: peaks in MB, wall and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as index:
        started = time.perf_counter()
        child = subprocess.Popen([*QA, "--index", index, "index", str(folder)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peaks = dict.fromkeys(FIELDS, 0.0)
        while child.poll() is None:
            try:
                status = Path(f"/proc/{child.pid}/status").read_text()
            except OSError:  # it has just ended
                break
            for name, kb in re.findall(r"(\w+):\s+(\d+) kB", status):
                if name in peaks:
                    peaks[name] = max(peaks[name], int(kb) / 1024)
            time.sleep(0.2)
        if child.wait():
            raise SystemExit(f"qa index failed with exit code {child.returncode}")
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {**peaks, "wall": wall, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the documents to index")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting to compare with none (repeatable: one row each)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each setting")
    args = parser.parse_args()
    settings = [""] + args.env
    base = {**os.environ, "HF_HUB_OFFLINE": "1"}
    print(f"{'setting':<40} {'peak RSS':>9} {'RssAnon':>8} {'RssFile':>8} "
          f"{'wall s':>7} {'CPU-s':>7}  load")
    for _ in range(args.runs):
        for setting in settings:
            name, _, value = setting.partition("=")
            row = measure(args.folder, {**base, name: value} if name else base)
            print(f"{setting or '(as installed)':<40} {row['VmHWM']:>6,.0f} MB "
                  f"{row['RssAnon']:>5,.0f} MB {row['RssFile']:>5,.0f} MB "
                  f"{row['wall']:>7.1f} {row['cpu']:>7.1f}  {os.getloadavg()[0]:.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
