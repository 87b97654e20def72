"""A hostile model server against the one HTTP policy of qa.llm.model_http (issue 26, items 3,
4 and 10): compressed bombs, a reply that drips for ever, SSE keep-alives and no token,
an endless answer, JSON nested 100,000 deep. Over real HTTP (tests/llm_server.py), through
the Python API and `qa ask --llm` in a real process, timed, with peak memory where a bomb
could inflate."""

import json
import subprocess
import sys
import threading
import time

import pytest

from qa.llm.client import LLMConfig, LLMError, stream_text
from qa.llm.model_http import ModelServerError, reachable
from qa.llm.servers import find_models, try_model
from tests.helpers import ROOT, scripted_llm_server

MESSAGES = [{"role": "user", "content": "Reply with the single word: ready."}]


@pytest.fixture(scope="module")
def hostile():
    with scripted_llm_server() as url:
        yield url


def failure_within(seconds: float, call) -> tuple[str, float]:
    """The LLMError message `call()` fails with, and how long it took; the test fails if it
    is still running after `seconds` (the call is left behind in its thread)."""
    outcome: dict = {}

    def run() -> None:
        start = time.monotonic()
        try:
            call()
            outcome["error"] = "it did not fail"
        except LLMError as error:
            outcome["error"] = str(error)
        outcome["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return outcome["error"], outcome["seconds"]


def test_a_brotli_bomb_is_refused_before_it_is_inflated(hostile):
    code = ("import re; from qa.llm.servers import find_models\n"  # VmHWM: this process's
            "try: find_models(%r)\nexcept Exception as e: print(e)\n"  # own peak
            "print(int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read())[1])"
            " // 1024)")
    run = subprocess.run([sys.executable, "-c", code % f"{hostile}/brotli"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    message, peak_mb = run.stdout.splitlines()
    assert message == (f"{hostile}/brotli/v1/models: the server sent a compressed reply "
                       "(Content-Encoding: br), though asked for a plain one")
    assert int(peak_mb) < 300  # the bomb inflates to 1 GB
    error, _ = failure_within(30, lambda: try_model(LLMConfig(f"{hostile}/brotli/v1", "quote")))
    assert error == (f"quote at {hostile}/brotli/v1: the server sent a compressed reply "
                     "(Content-Encoding: br), though asked for a plain one")


def test_a_reply_that_drips_for_ever_is_cut_off_at_the_deadline(hostile):
    error, seconds = failure_within(30, lambda: find_models(f"{hostile}/drip", timeout=2))
    assert error == f"{hostile}/drip/v1/models: no complete reply within 2 s"
    assert seconds < 5  # the deadline, then at most one read wait
    config = LLMConfig(f"{hostile}/drip/v1", "quote", timeout=2, first_token_timeout=5,
                       total_timeout=3)
    error, seconds = failure_within(30, lambda: try_model(config))
    assert error.endswith("no complete reply within 3 s") and seconds < 6


def test_json_nested_100000_deep_is_one_line(hostile):
    error, _ = failure_within(30, lambda: find_models(f"{hostile}/deep"))
    assert error == f"{hostile}/deep/v1/models: the reply nests its JSON too deeply"


def test_keep_alive_comments_do_not_reset_the_first_token_timeout(hostile):
    config = LLMConfig(f"{hostile}/keepalive/v1", "quote", timeout=1, first_token_timeout=2)
    error, seconds = failure_within(30, lambda: list(stream_text(config, MESSAGES)))
    assert error == "no answer began within 2 s" and seconds < 4


def test_an_endless_answer_is_cut_off_at_the_total_timeout(hostile):
    config = LLMConfig(f"{hostile}/endless/v1", "quote", timeout=1, first_token_timeout=1,
                       total_timeout=3)
    error, seconds = failure_within(30, lambda: list(stream_text(config, MESSAGES)))
    assert error == "no complete reply within 3 s" and seconds < 5


@pytest.mark.parametrize(("server", "reason"), [
    ("keepalive", "no answer began within 3 s"),
    ("brotli", "the server sent a compressed reply (Content-Encoding: br)"),
])
def test_qa_ask_llm_falls_back_to_quoting_in_time(seed_index_path, hostile, server, reason):
    start = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "qa", "ask", "Who has resigned?", "--llm", "--json", "--index",
         str(seed_index_path), "--llm-base-url", f"{hostile}/{server}/v1", "--llm-model",
         "quote", "--llm-first-token-timeout", "3", "--llm-timeout", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["mode"] == "extractive" and reason in answer["notice"]
    assert time.monotonic() - start < 60  # the model loads in ~10 s; the server waits for ever


@pytest.mark.parametrize("address", [
    "http://10.0.0.1:11434", "http://172.16.5.4", "https://192.168.1.20/v1",
    "http://169.254.169.254/latest", "http://[fc00::1]:8080", "http://[fe80::1]",
    "http://[::ffff:10.0.0.1]", "http://0.0.0.0:11434"])
def test_a_private_address_is_refused_without_connecting_unless_allowed(address):
    with pytest.raises(ModelServerError, match=r"is .*, not a public address, which this "
                                               r"page may not reach: start qa serve with "
                                               r"--allow-private-model-hosts to allow it$"):
        reachable(address, allow_private=False)
    reachable(address, allow_private=True)


@pytest.mark.parametrize("address", ["http://127.0.0.1:11434", "http://127.8.9.10",
                                     "http://[::1]:11434", "http://localhost:11434",
                                     "https://8.8.8.8/v1"])
def test_loopback_and_public_addresses_are_allowed(address):
    reachable(address, allow_private=False)
