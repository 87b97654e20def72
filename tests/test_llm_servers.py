"""Setting a language model up while the app runs: finding a server's models, trying one,
switching the index's model under a question in progress, and the settings kept in the
index folder. Against the scripted server (tests/llm_server.py) over real HTTP."""

import json
import stat
import threading
import time

import pytest

from qa import QAError
from qa.llm.client import LLMConfig, LLMError
from qa.llm.saved import SAVED_LLM, choose_llm, save_llm, with_server
from qa.llm.servers import api_base, find_models, try_model
from tests.helpers import free_port, scripted_llm_server
from tests.llm_server import KEY, MODELS


@pytest.fixture(scope="module")
def scripted():
    with scripted_llm_server() as url:
        yield url


@pytest.mark.parametrize("typed", ["{url}", "{url}/", "{url}/v1", " {url}/v1/ "])
def test_an_openai_compatible_server_lists_its_models(scripted, typed):
    found = find_models(typed.format(url=scripted))

    assert found.base_url == f"{scripted}/v1" and found.kind == "OpenAI-compatible"
    assert found.names == tuple(sorted(MODELS))


@pytest.mark.parametrize("typed", ["{url}/ollama", "{url}/ollama/v1"])
def test_an_ollama_is_asked_for_its_tags(scripted, typed):
    found = find_models(typed.format(url=scripted))

    assert found.base_url == f"{scripted}/ollama/v1" and found.kind == "Ollama"
    assert "quote:latest" in found.names
    assert try_model(LLMConfig(found.base_url, "quote:latest")).reply == "Ready."


def test_the_key_is_sent_and_a_wrong_or_missing_one_is_named_as_such(scripted):
    assert "quote" in find_models(f"{scripted}/private", KEY).names
    for key in (None, "wrong-key"):
        with pytest.raises(LLMError) as refused:
            find_models(f"{scripted}/private", key)
        assert str(refused.value) == (f"{scripted}/private/v1/models refused the API key "
                                      "(HTTP 401): check the key")


def test_a_server_that_is_not_there_slow_or_not_a_model_server_gets_one_clear_line(scripted):
    nothing = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(LLMError, match=r"^nothing answers at .*/v1/models \(connection "
                                       r"refused\): is the server running\?$"):
        find_models(nothing)
    start = time.monotonic()
    with pytest.raises(LLMError, match=r"^.*/slow/v1/models did not answer within 0.5 s$"):
        find_models(f"{scripted}/slow", timeout=0.5)
    assert time.monotonic() - start < 2.5
    with pytest.raises(LLMError, match=r"is not a list of models: is .*/site the address of a "
                                       r"language model server\?$"):
        find_models(f"{scripted}/site")
    for typed in ("127.0.0.1:11434", "ftp://x", "", "http://"):
        with pytest.raises(LLMError, match="starts with http:// or https://"):
            api_base(typed)


def test_trying_a_model_reports_its_reply_or_why_it_gave_none(scripted):
    tried = try_model(LLMConfig(f"{scripted}/v1", "quote", timeout=2))
    assert tried.reply == "Ready." and tried.seconds < 2
    assert try_model(LLMConfig(f"{scripted}/private/v1", "quote", KEY)).reply == "Ready."

    failures = {
        LLMConfig(f"{scripted}/private/v1", "quote", "wrong-key"):
            f"{scripted}/private/v1 refused the API key (HTTP 401): check the key",
        LLMConfig(f"{scripted}/v1", "error"):
            f"{scripted}/v1 answered with an error (HTTP 500)",
        LLMConfig(f"{scripted}/v1", "slow", timeout=0.5, first_token_timeout=0.5):
            f"{scripted}/v1 did not answer within 0.5 s",
        LLMConfig(f"http://127.0.0.1:{free_port()}/v1", "quote"):
            "connection refused",
    }
    for config, expected in failures.items():
        with pytest.raises(LLMError) as failed:
            try_model(config)
        assert expected in str(failed.value) and KEY not in str(failed.value)


def test_switching_the_model_leaves_a_question_in_progress_with_its_own(seed_index, scripted):
    slow = LLMConfig(f"{scripted}/v1", "slow_start", timeout=5, first_token_timeout=10)
    seed_index.use_llm(slow)
    answers = {}
    asking = threading.Thread(target=lambda: answers.update(
        first=seed_index.ask("Who has resigned?", mode="llm")))
    try:
        asking.start()
        time.sleep(1)  # the model takes 3 s to start answering
        seed_index.use_llm(None)
        with pytest.raises(QAError, match="no language model is configured: choose one"):
            seed_index.ask("Who has resigned?", mode="llm")
        asking.join(timeout=30)
    finally:
        seed_index.use_llm(None)

    assert answers["first"].mode == "llm" and answers["first"].notice is None


def test_saved_settings_win_over_the_start_and_keep_its_timeouts(tmp_path):
    start = LLMConfig("http://start/v1", "start-model", timeout=7, max_tokens=64)
    assert choose_llm(tmp_path, start).config == start
    assert not choose_llm(tmp_path, start).saved

    chosen = with_server(start, "http://page/v1", " page-model ", KEY)
    save_llm(tmp_path, chosen)
    kept = choose_llm(tmp_path, start)
    assert kept.saved and kept.config == LLMConfig("http://page/v1", "page-model", KEY,
                                                   timeout=7, max_tokens=64)
    assert stat.S_IMODE((tmp_path / SAVED_LLM).stat().st_mode) == 0o600
    assert KEY not in kept.describe() and "wins over QA_LLM_*" in kept.describe()

    save_llm(tmp_path, None)  # "no model" is a choice too: the start's is not used
    assert choose_llm(tmp_path, start) == type(kept)(None, saved=True)
    assert [p.name for p in tmp_path.iterdir()] == [SAVED_LLM]  # no temporary file left


def test_a_damaged_settings_file_gets_a_clear_error(tmp_path):
    for content in ("{not json", json.dumps(["a"]), json.dumps({"model": 3})):
        (tmp_path / SAVED_LLM).write_text(content)
        with pytest.raises(QAError, match="saved language model settings"):
            choose_llm(tmp_path, None)
