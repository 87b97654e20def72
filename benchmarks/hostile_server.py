"""What one hostile chat history costs a running `qa serve` (issue 26): how long it holds
every route, and the server's peak memory.

Each history is sent by curl (in its own process, so this one only times) to the queue
route the page sends its chat to, while a search is sent every 50 ms and timed; the
server's peak resident memory (VmHWM) is read from /proc before and after. The index is
of seeds/, built by the measured checkout's `qa index`:

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/hostile_server.py
    PYTHONPATH=$PWD nice -n 10 .venv/bin/python benchmarks/hostile_server.py --qa /work/main

--qa: the checkout whose `qa serve` is measured (default: this one).
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
HISTORIES = {  # name: a chat history under the 10 MB body limit
    "300,000 parts": [{"role": "user", "content": [{"type": "text", "text": "a"}] * 300_000}],
    "250,000 messages": [{"role": "user", "content": "a"}] * 250_000,
    "500 KB of text": [{"role": "user", "content": [{"type": "text", "text": "<" * 500_000}]}],
}


def peak_mb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1]) // 1024


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(qa: Path, root: Path) -> tuple[subprocess.Popen, str]:
    """`qa serve` of `qa` over an index of seeds/, once it answers: (process, url)."""
    env = {**os.environ, "PYTHONPATH": str(qa), "HF_HUB_OFFLINE": "1",
           "GRADIO_ANALYTICS_ENABLED": "False"}
    index = root / "index"
    subprocess.run([sys.executable, "-m", "qa", "--index", str(index), "index",
                    str(ROOT / "seeds")], env=env, cwd=qa, check=True, capture_output=True)
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "ui", "serve", "--index", str(index),
                                "--port", str(port)], env=env, cwd=qa,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            httpx.get(url, timeout=2)
            return process, url
        except httpx.TransportError:
            assert process.poll() is None, "qa serve exited"
            time.sleep(0.5)


def copy_event(url: str) -> int:
    """The event that copies the chatbot's value (the history) into the page's state."""
    config = httpx.get(f"{url}/config").json()
    kinds = {c["id"]: c["type"] for c in config["components"]}
    return next(i for i, d in enumerate(config["dependencies"])
                if [kinds[t] for t in d["inputs"]] == ["chatbot"]
                and d["outputs"] and kinds[d["outputs"][0]] == "state")


def measure(url: str, event: int, history: list, folder: Path) -> tuple[str, float, float]:
    """(curl's status, its seconds, the longest search meanwhile) for one history."""
    body = folder / "body.json"
    body.write_text(json.dumps({"data": [history], "fn_index": event,
                                "session_hash": uuid.uuid4().hex}))
    longest, sending = 0.0, True

    def probe() -> None:
        nonlocal longest
        while sending:
            start = time.monotonic()
            httpx.post(f"{url}/gradio_api/run/search", json={"data": ["resigned", 3]},
                       timeout=120).raise_for_status()
            longest = max(longest, time.monotonic() - start)
            time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    time.sleep(0.5)
    sent = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}",
                           "-H", "content-type: application/json", "--data-binary",
                           f"@{body}", f"{url}/gradio_api/queue/join"],
                          capture_output=True, text=True, check=True).stdout.split()
    time.sleep(8)  # a history let through is validated after the reply
    sending = False
    prober.join()
    return sent[0], float(sent[1]), longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qa", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        process, url = serve(args.qa.resolve(), Path(root))
        try:
            event = copy_event(url)
            httpx.post(f"{url}/gradio_api/run/search", json={"data": ["resigned", 3]},
                       timeout=120).raise_for_status()  # the first loads what search uses
            print(f"qa serve from {args.qa}: peak {peak_mb(process.pid)} MB once started")
            print(f"{'history':<18} {'bytes':>10} {'status':>6} {'reply s':>8} "
                  f"{'longest search s':>17} {'peak MB':>8}")
            for name, history in HISTORIES.items():
                size = len(json.dumps(history))
                status, seconds, longest = measure(url, event, history, Path(root))
                print(f"{name:<18} {size:>10,} {status:>6} {seconds:>8.2f} {longest:>17.2f} "
                      f"{peak_mb(process.pid):>8}")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
