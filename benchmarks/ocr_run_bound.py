"""Pages one `qa index` run sends to OCR, and its time and peak memory, over a folder of
scans that together pass the run's OCR limit (issue 26: the limit was per file only).

The folder holds --files PDFs of one page of text and --pages pages without text each
(blank, so OCR renders each page but loads no model: the pages, not the reading, are
measured); `qa index` runs in its own process, whose peak resident memory is read from
the kernel as it exits (`os.wait4`):

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/ocr_run_bound.py  # after
    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/ocr_run_bound.py --qa /work/main

--qa: the checkout whose `qa` is measured (default: this one).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.helpers import scan_pdf  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qa", type=Path, default=ROOT)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--pages", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        docs = Path(root, "docs")
        docs.mkdir()
        for n in range(args.files):
            (docs / f"scan-{n}.pdf").write_bytes(scan_pdf(f"Scan {n}", args.pages))
        env = {**os.environ, "PYTHONPATH": str(args.qa), "HF_HUB_OFFLINE": "1"}
        out, err = Path(root, "out"), Path(root, "err")
        started = time.perf_counter()
        with out.open("w") as stdout, err.open("w") as stderr:
            child = subprocess.Popen([sys.executable, "-m", "qa", "--index",
                                      str(Path(root, "index")), "index", str(docs)],
                                     env=env, cwd=args.qa, stdout=stdout, stderr=stderr)
        _, _, usage = os.wait4(child.pid, 0)  # the child's own peak
        seconds = time.perf_counter() - started
        summary = next(line for line in out.read_text().splitlines() if " added, " in line)
        skipped = [line.replace(f"{docs}/", "") for line in err.read_text().splitlines()
                   if line.startswith("skipped: ")]
    added = int(summary.split(" added")[0])  # each file added had all its pages read
    print(f"qa from {args.qa}: {args.files} scans of {args.pages} pages without text")
    print(f"pages sent to OCR: {added * args.pages}; {seconds:.1f} s; "
          f"peak {usage.ru_maxrss // 1024} MB")
    print(summary)
    print("\n".join(skipped))

if __name__ == "__main__":
    main()
