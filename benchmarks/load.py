"""Web app under load: concurrent clients asking a running `qa serve`.

Each of --clients threads makes its own client (as separate users' scripts would),
waits until every client is connected, then asks --questions questions one after
another through the public `/ask` endpoint (or `/search` with --endpoint search,
or the chat page's own streaming `/chat` with --endpoint chat). The default client
speaks plain HTTP with httpx: `/ask` and `/search` through the direct route the
README's curl uses (POST /gradio_api/run/NAME, the answer in the response), or with
`--route queue` through the queue and its event stream (POST /gradio_api/call/NAME,
then GET its events), as the chat always goes, as the page does; `--client gradio`
uses `gradio_client` (whose polling threads cost CPU on this machine too). A
request succeeds when it returns without error and its result has the right
shape (an answer, with `[n]` and citations when found; for search, a list of
hits; for chat, an answer block). The script prints one table: requests,
failures, wall time, throughput (requests/s over the asking phase), and latency
p50 / p95 / max in ms (for chat, also the first word: the first streamed update
that shows answer text), with the 1-minute load average at the start and the end
(read every figure beside it: the machine may be shared), and the CPU time per
request of the server process (from /proc/PID/stat before and after the asking
phase: its own, with --url only if --server-pid gives it) and of this client
process (all its threads), since a client on the same cores costs CPU too. It
exits 1 if any request failed.

    .venv/bin/python benchmarks/load.py                       # serves seeds/ itself
    .venv/bin/python benchmarks/load.py --url http://127.0.0.1:7860 [--auth USER:PASS]
    .venv/bin/python benchmarks/load.py --clients 32 --questions 10 --json
    .venv/bin/python benchmarks/load.py --endpoint chat --clients 50 --questions 1
    .venv/bin/python benchmarks/load.py --route queue --clients 4 --questions 20

Without --url it indexes seeds/ into a temporary folder, starts `qa serve` on a
free port, and stops it at the end. This is a measurement, not a test: no figure
is checked (tests/test_concurrency.py runs it and checks that every request
succeeded).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QA = [sys.executable, "-c", "from qa.cli import main; raise SystemExit(main())"]
QUESTIONS = [
    "Who has resigned over the recording?",
    "Does Kevin de León plan to resign?",
    "What did Martinez say about Bonin's son?",
    "Who has called for everyone involved to resign?",
    "Where did protestors gather?",
    "How old is Mike Bonin's son?",
    "What was said about Oaxacan immigrants?",
    "Who released a statement after the recording leaked?",
    "What is the boiling point of tungsten?",  # not in the documents: a plain refusal
    "When was the conversation recorded?",
]


def percentile(values: list[float], fraction: float) -> float:
    """The value at `fraction` of the sorted values (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def check(endpoint: str, result) -> str | None:
    """Why a result is wrong, or None if it has the shape the API promises."""
    if endpoint == "chat":
        answer = result[0] if isinstance(result, list | tuple) else result
        return None if 'class="qa-answer' in str(answer) else f"not an answer: {answer!r:.200}"
    if endpoint == "search":
        if not isinstance(result, list) or not all("text" in hit for hit in result):
            return f"not a list of hits: {str(result)[:200]}"
        return None
    if not isinstance(result, dict) or not {"answer", "found", "citations"} <= result.keys():
        return f"not an answer: {str(result)[:200]}"
    if result["found"] and ("[1]" not in result["answer"] or not result["citations"]):
        return f"found but uncited: {result['answer'][:200]}"
    return None


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, all threads) of process `pid` so far, from /proc."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_load(url: str, clients: int, questions: int, endpoint: str = "ask",
             auth: tuple[str, str] | None = None, client: str = "http",
             route: str = "direct", server_pid: int | None = None) -> dict:
    """Ask `questions` questions from each of `clients` concurrent clients; the figures."""
    latencies: list[float] = []
    first_words: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    ready = threading.Barrier(clients + 1)
    connect_seconds: list[float] = []
    connect = HttpAsker if client == "http" else GradioAsker

    def client_thread(number: int) -> None:
        try:
            started = time.perf_counter()
            asker = connect(url, auth)
            with lock:
                connect_seconds.append(time.perf_counter() - started)
        except Exception as error:  # noqa: BLE001 - counted and reported, not raised
            with lock:
                failures.append(f"client {number} could not connect: {error!r}")
            ready.wait()
            return
        ready.wait()
        for i in range(questions):
            question = QUESTIONS[(number + i) % len(QUESTIONS)]
            started = time.perf_counter()
            try:
                result, first = asker.ask(endpoint, question, route)
                problem = check(endpoint, result)
            except Exception as error:  # noqa: BLE001
                problem, first = repr(error), None
            elapsed = time.perf_counter() - started
            with lock:
                if problem:
                    failures.append(f"client {number}, question {i}: {problem}")
                else:
                    latencies.append(elapsed)
                    first_words.append(first - started if first else elapsed)

    threads = [threading.Thread(target=client_thread, args=(n,)) for n in range(clients)]
    load_before = os.getloadavg()[0]
    for thread in threads:
        thread.start()
    ready.wait()  # every client connected (or failed to): the asking starts now
    started, client_cpu = time.perf_counter(), time.process_time()
    server_cpu = cpu_seconds(server_pid) if server_pid else None
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    client_cpu = time.process_time() - client_cpu
    if server_pid:
        server_cpu = cpu_seconds(server_pid) - server_cpu
    per_request = 1000 / max(1, clients * questions)
    ms = [1000 * value for value in latencies]
    first_ms = [1000 * value for value in first_words]
    return {
        "url": url, "endpoint": endpoint, "client": client, "clients": clients,
        "route": "queue" if endpoint == "chat" else route,
        "questions_per_client": questions,
        "requests": clients * questions, "ok": len(latencies),
        "failed": clients * questions - len(latencies), "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 2) if wall else 0.0,
        "p50_ms": round(percentile(ms, 0.50), 1) if ms else None,
        "p95_ms": round(percentile(ms, 0.95), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
        "mean_ms": round(statistics.fmean(ms), 1) if ms else None,
        "first_word_p50_ms": round(percentile(first_ms, 0.50), 1) if first_ms else None,
        "first_word_max_ms": round(max(first_ms), 1) if first_ms else None,
        "connect_p50_ms": round(1000 * statistics.median(connect_seconds), 1)
        if connect_seconds else None,
        "server_cpu_ms_per_request": round(server_cpu * per_request, 1)
        if server_cpu is not None else None,
        "client_cpu_ms_per_request": round(client_cpu * per_request, 1),
        "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2),
        "failures": failures[:20],
    }


class HttpAsker:
    """A client of the app's REST API (POST /gradio_api/run/NAME; for the chat, POST
    /gradio_api/call/chat, then read its event stream): one keep-alive connection, no
    polling, and one session for all its calls,
    as a browser page or a `gradio_client.Client` has (a call without a session_hash
    makes the server set up a new session, which costs more than the answer)."""

    def __init__(self, url: str, auth: tuple[str, str] | None) -> None:
        import uuid

        import httpx

        self.base = url.rstrip("/")
        self.session = uuid.uuid4().hex
        self.http = httpx.Client(timeout=120)
        if auth:
            self.http.post(f"{self.base}/login", data={"username": auth[0], "password": auth[1]})

    def ask(self, endpoint: str, question: str, route: str) -> tuple[object, float | None]:
        """The endpoint's final result, and when its first output arrived."""
        data = {"ask": [question, 5, "extractive"], "search": [question, 5],
                # no history, not kept, from every document (no collections or documents)
                "chat": [question, None, 5, "extractive", "", [], []]}[endpoint]
        body = {"data": data, "session_hash": self.session}
        if endpoint != "chat" and route == "direct":  # one request, past the queue
            response = self.http.post(f"{self.base}/gradio_api/run/{endpoint}", json=body)
            response.raise_for_status()
            return response.json()["data"][0], None
        call = f"{self.base}/gradio_api/call/{endpoint}"
        response = self.http.post(call, json=body)
        response.raise_for_status()
        first, event = None, None
        with self.http.stream("GET", f"{call}/{response.json()['event_id']}") as stream:
            for line in stream.iter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and event in ("generating", "complete"):
                    first = first or time.perf_counter()
                    if event == "complete":
                        return json.loads(line[5:])[0], first
                elif line.startswith("data:") and event == "error":
                    raise RuntimeError(f"the app reported an error: {line[5:].strip()}")
        raise RuntimeError("the event stream ended without a result")


class GradioAsker:
    """A `gradio_client.Client`, as a Python script would use it."""

    def __init__(self, url: str, auth: tuple[str, str] | None) -> None:
        from gradio_client import Client

        self.client = Client(url, auth=auth, verbose=False, download_files=False)

    def ask(self, endpoint: str, question: str, route: str) -> tuple[object, float | None]:
        if endpoint != "chat":  # gradio_client always goes through the queue
            return self.client.predict(question, 5, api_name=f"/{endpoint}"), None
        first = None
        # k, mode, and every document (no collections, no documents chosen)
        job = self.client.submit(question, 5, "extractive", [], [], api_name="/chat")
        for _ in job:  # streamed updates: the first one shows the first words
            first = first or time.perf_counter()
        return job.result(), first


def print_table(figures: dict) -> None:
    columns = ["clients", "questions_per_client", "requests", "ok", "failed", "wall_s",
               "throughput_rps", "p50_ms", "p95_ms", "max_ms", "first_word_p50_ms",
               "first_word_max_ms", "connect_p50_ms", "server_cpu_ms_per_request",
               "client_cpu_ms_per_request"]
    heads = ["clients", "q/client", "requests", "ok", "failed", "wall s", "req/s",
             "p50 ms", "p95 ms", "max ms", "first word p50", "first word max", "connect ms",
             "server CPU ms/req", "client CPU ms/req"]
    widths = [max(len(head), len(str(figures[col]))) for head, col in zip(heads, columns,
                                                                          strict=True)]
    print(f"/{figures['endpoint']} at {figures['url']}, {figures['client']} clients, "
          f"{figures['route']} route")
    print("  ".join(head.rjust(width) for head, width in zip(heads, widths, strict=True)))
    print("  ".join(str(figures[col]).rjust(width) for col, width in zip(columns, widths,
                                                                        strict=True)))
    print(f"load average (1 min): {figures['load_before']} before, {figures['load_after']} "
          f"after, on {os.cpu_count()} cores")
    for failure in figures["failures"]:
        print(f"FAILED: {failure}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def own_server() -> Iterator[tuple[str, int]]:
    """`qa serve` over a fresh index of seeds/, on a free port, for the length of the run:
    its URL and process id."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    with tempfile.TemporaryDirectory(prefix="qa-load-") as folder:
        index = Path(folder) / "index"
        subprocess.run([*QA, "--index", str(index), "index", str(ROOT / "seeds")],
                       check=True, env=env, capture_output=True)
        port = free_port()
        log = (Path(folder) / "serve.log").open("w")
        server = subprocess.Popen([*QA, "serve", "--index", str(index), "--port", str(port)],
                                  env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 300
            while True:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"qa serve did not start:\n{Path(log.name).read_text()}")
                try:
                    with urllib.request.urlopen(url, timeout=2):
                        break
                except OSError:
                    time.sleep(0.5)
            yield url, server.pid
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running `qa serve` (default: start one over seeds/)")
    parser.add_argument("--auth", default=os.environ.get("QA_AUTH"), metavar="USER:PASS")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--questions", type=int, default=10, help="per client")
    parser.add_argument("--endpoint", choices=["ask", "search", "chat"], default="ask")
    parser.add_argument("--client", choices=["http", "gradio"], default="http",
                        help="http: the REST API with httpx (default); gradio: gradio_client, "
                             "whose polling threads cost more CPU than the server here")
    parser.add_argument("--route", choices=["direct", "queue"], default="direct",
                        help="for /ask and /search with the http client: direct (POST "
                             "/gradio_api/run/NAME, default) or through the queue (POST "
                             "/gradio_api/call/NAME, then its event stream)")
    parser.add_argument("--server-pid", type=int, default=None,
                        help="with --url: the server's process id, to report its CPU time")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    auth = tuple(args.auth.split(":", 1)) if args.auth else None
    if args.url:
        figures = run_load(args.url, args.clients, args.questions, args.endpoint, auth,
                           args.client, args.route, args.server_pid)
    else:
        with own_server() as (url, pid):
            figures = run_load(url, args.clients, args.questions, args.endpoint, auth,
                               args.client, args.route, pid)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures)
    return 1 if figures["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
