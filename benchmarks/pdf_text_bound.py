"""What a PDF whose pages share one huge content stream costs to load (issue 17).

Each row builds a PDF of 4 pages drawing one deflated stream of N MB of text, then loads
it with `qa.loaders.formats.load` in a fresh process, at the default limit (25,000,000
characters): seconds, peak RSS and the outcome.

    PYTHONPATH=. .venv/bin/python benchmarks/pdf_text_bound.py 20 60
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.test_hostile_files import pdf, text_run

MEASURE = """
import resource, sys, time
from pathlib import Path
from qa.loaders.formats import LoadError, load
path = Path(sys.argv[1])
data = path.read_bytes()
start = time.perf_counter()
try:
    outcome = f"{len(load(path, data).text):,} characters"
except LoadError as error:
    outcome = "refused: " + str(error)[:70] + "..."
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{time.perf_counter() - start:.2f} s\\t{peak:.0f} MB\\t{outcome}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("megabytes", type=int, nargs="+", help="sizes of the shared stream")
    args = parser.parse_args()
    print("stream\tfile\ttime\tpeak RSS\toutcome")
    with tempfile.TemporaryDirectory() as folder:
        for megabytes in args.megabytes:
            path = Path(folder, f"{megabytes}.pdf")
            path.write_bytes(pdf(4, text_run(b"A" * megabytes * 1_000_000)))
            row = subprocess.run([sys.executable, "-c", MEASURE, str(path)], check=True,
                                 capture_output=True, text=True).stdout.strip()
            print(f"{megabytes} MB\t{path.stat().st_size / 1e3:.0f} KB\t{row}")


if __name__ == "__main__":
    main()
