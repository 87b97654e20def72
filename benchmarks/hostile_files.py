"""Peak memory and time of `qa index` on each small file that repeats or copies its text
(issue 26, items 1, 2 and 7; the files are those of tests/test_hostile_files.py).

Each file is indexed beside one good text file (the first row: that file alone, the
cost of `qa index` itself, model included), by `qa index` in its own process, whose
peak resident memory is read from the kernel as it exits (`os.wait4`). A run past
--kill-mb or --timeout is killed (its figures then read "> ..."), so a checkout without
the text budget can be measured on a small machine too:

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/hostile_files.py
    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/hostile_files.py --qa /work/main

--qa: the checkout whose `qa` is measured (default: this one); --files: only these.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_hostile_files import HOSTILE  # noqa: E402

QA = [sys.executable, "-c", "from qa.cli import main; raise SystemExit(main())"]


def rss_mb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((x for x in status.splitlines() if x.startswith("VmRSS:")), "VmRSS: 0 kB")
    return int(line.split()[1]) // 1024


def measure(qa: Path, name: str, data: bytes, kill_mb: int, timeout: float) -> tuple:
    """(peak MB, seconds, what happened) of `qa index` over `name` and one good file."""
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root, "docs")
        folder.mkdir()
        (folder / "ok.txt").write_text("The orchard has forty apple trees.")
        if data:
            (folder / name).write_bytes(data)
        env = {**os.environ, "PYTHONPATH": str(qa), "HF_HUB_OFFLINE": "1"}
        started = time.perf_counter()
        stderr = Path(root, "stderr")
        with stderr.open("w") as errors_file:
            child = subprocess.Popen([*QA, "--index", str(Path(root, "index")), "index",
                                      str(folder)], env=env, stdout=subprocess.DEVNULL,
                                     stderr=errors_file, cwd=root)  # not this checkout
        killed = ""
        while True:
            done, status, usage = os.wait4(child.pid, os.WNOHANG)  # the child's own peak
            if done:
                child.returncode = os.waitstatus_to_exitcode(status)
                break
            seconds = time.perf_counter() - started
            if not killed and (rss_mb(child.pid) > kill_mb or seconds > timeout):
                killed = f"killed at {rss_mb(child.pid)} MB, {seconds:.0f} s"
                child.send_signal(signal.SIGKILL)
            time.sleep(0.1)
        seconds = time.perf_counter() - started
        errors = stderr.read_text()
    failed = next((line for line in errors.splitlines() if line.startswith("failed: ")), "")
    outcome = killed or (failed.split(": ", 2)[-1][:70] if failed else "indexed")
    return usage.ru_maxrss // 1024, seconds, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qa", type=Path, default=ROOT)
    parser.add_argument("--kill-mb", type=int, default=1500)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--files", nargs="*", default=list(HOSTILE), choices=list(HOSTILE),
                        metavar="NAME", help="measure only these (default: all)")
    args = parser.parse_args()
    print(f"qa from {args.qa}; a run is killed past {args.kill_mb} MB or {args.timeout:.0f} s")
    print(f"{'file':<13} {'bytes':>9} {'peak MB':>8} {'seconds':>8}  outcome")
    peak, seconds, outcome = measure(args.qa, "", b"", args.kill_mb, args.timeout)
    print(f"{'(ok.txt only)':<13} {0:>9,} {peak:>8} {seconds:>8.1f}  {outcome}")
    for name in args.files:
        data = HOSTILE[name][0]()
        peak, seconds, outcome = measure(args.qa, name, data, args.kill_mb, args.timeout)
        print(f"{name:<13} {len(data):>9,} {peak:>8} {seconds:>8.1f}  {outcome}")


if __name__ == "__main__":
    main()
