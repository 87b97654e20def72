"""LLM answers against a real OpenAI-compatible server on loopback (tests/llm_server.py)."""

import json
import urllib.request
from dataclasses import replace

import pytest

from qa import QAError
from qa.answering.response import Pieces, Response
from qa.cli import main
from qa.llm.client import LLMConfig
from tests.helpers import free_port, scripted_llm_server


@pytest.fixture(scope="module")
def server():
    with scripted_llm_server() as url:
        yield f"{url}/v1"


def _requests_served(base_url: str) -> int:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/requests") as response:
        return json.load(response)["requests"]


@pytest.fixture
def llm_index(seed_index, server):
    seed_index.llm = LLMConfig(server, "quote", timeout=2, first_token_timeout=2)
    yield seed_index
    seed_index.llm = None


def test_the_answer_streams_and_its_citation_is_checked(llm_index):
    response = llm_index.ask_stream("Who has resigned?", mode="llm")

    pieces = list(response)
    answer = response.answer()
    assert len(pieces) > 3 and all(isinstance(p, str) for p in pieces)
    assert answer.mode == "llm" and answer.found and answer.notice is None
    assert "".join(pieces).strip() == answer.text
    assert [claim.supported for claim in answer.claims] == [True]
    citation = answer.citations[0]
    assert citation.n == 1
    assert llm_index.document_text(citation.hit.source)[citation.start:citation.end] == \
        citation.quote


def test_a_response_iterated_twice_gives_the_same_pieces_from_one_request(llm_index, server):
    before = _requests_served(server)
    response = llm_index.ask_stream("Who has resigned?", mode="llm")

    first, second = list(response), list(response)

    assert len(first) > 3 and second == first
    assert "".join(first).strip() == response.answer().text
    assert _requests_served(server) == before + 1  # the second loop replays, asks nothing


def test_a_response_stopped_after_its_first_piece_is_finished_by_answer(llm_index):
    response = llm_index.ask_stream("Who has resigned?", mode="llm")

    first = next(iter(response))  # a caller that has seen enough (a timeout, the first N)
    answer = response.answer()

    assert response.done and answer.mode == "llm" and answer.notice is None
    pieces = list(response)
    assert pieces[0] == first and len(pieces) > 3
    assert "".join(pieces).strip() == answer.text
    assert [claim.supported for claim in answer.claims] == [True]


def test_a_response_answered_before_it_is_iterated_still_gives_its_pieces(llm_index):
    response = llm_index.ask_stream("Who has resigned?", mode="llm")

    answer = response.answer()

    assert answer.mode == "llm" and answer.found
    pieces = list(response)
    assert len(pieces) > 3 and "".join(pieces).strip() == answer.text
    assert response.answer() is answer


def test_what_the_pipeline_raised_is_raised_again_not_an_empty_answer():
    def failing() -> Pieces:
        yield "The first words"
        raise QAError("the pipeline broke")

    response = Response(failing())

    with pytest.raises(QAError, match="broke"):
        list(response)
    with pytest.raises(QAError, match="broke"):
        response.answer()
    assert not response.done


def test_invented_markers_are_removed_and_counted(llm_index):
    llm_index.llm = replace(llm_index.llm, model="invent")

    answer = llm_index.ask("Who has resigned?", mode="llm")

    assert "[9]" not in answer.text and answer.removed_markers == 1
    assert {c.n for c in answer.citations} == {1}


def test_an_unsupported_claim_is_flagged(llm_index):
    llm_index.llm = replace(llm_index.llm, model="unsupported")

    answer = llm_index.ask("Who has resigned?", mode="llm")

    supported = {claim.text: claim.supported for claim in answer.claims}
    assert supported["The council banned all bicycles in 1890. [1]"] is False
    assert list(supported.values())[0] is True
    assert answer.to_dict()["claims"][1]["supported"] is False


@pytest.mark.parametrize("model", ["slow", "error", "malformed", "uncited",
                                   "mostly_unsupported", "slow_start"])
def test_a_failing_model_falls_back_to_the_quoted_answer(llm_index, model):
    llm_index.llm = replace(llm_index.llm, model=model, timeout=1, first_token_timeout=1)

    answer = llm_index.ask("Who has resigned?", mode="llm")

    assert answer.mode == "extractive" and "Martinez and Herrera" in answer.text
    assert answer.notice.startswith("The language model gave no usable answer")


def test_the_answer_length_is_capped(llm_index, server):
    llm_index.llm = replace(llm_index.llm, max_tokens=64)

    llm_index.ask("Who has resigned?", mode="llm")

    with urllib.request.urlopen(server.removesuffix("/v1") + "/requests") as response:
        assert json.load(response)["max_tokens"] == 64


def test_a_slow_start_is_waited_for_up_to_the_first_token_timeout(llm_index):
    llm_index.llm = replace(llm_index.llm, model="slow_start", first_token_timeout=10)

    answer = llm_index.ask("Who has resigned?", mode="llm")

    assert answer.mode == "llm" and answer.notice is None


def test_an_uncited_sentence_is_checked_too(llm_index):
    llm_index.llm = replace(llm_index.llm, model="mostly_unsupported")
    checked = llm_index.ask("Who has resigned?", mode="llm")

    assert checked.mode == "extractive"
    assert "2 of its 3 sentences are not supported" in checked.notice


def test_llm_settings_are_validated():
    with pytest.raises(QAError, match="max_tokens must be at least 16"):
        LLMConfig("http://x/v1", "m", max_tokens=0)
    with pytest.raises(QAError, match="QA_LLM_MAX_TOKENS|not a number"):
        LLMConfig.from_env({"QA_LLM_BASE_URL": "http://x/v1", "QA_LLM_MODEL": "m",
                            "QA_LLM_MAX_TOKENS": "many"})


def test_connection_refused_falls_back(seed_index):
    seed_index.llm = LLMConfig(f"http://127.0.0.1:{free_port()}/v1", "quote", timeout=1)
    try:
        answer = seed_index.ask("Who has resigned?", mode="llm")
    finally:
        seed_index.llm = None

    assert answer.found and answer.notice and "APIConnectionError" in answer.notice


def test_nothing_relevant_is_refused_without_calling_the_model(llm_index, server):
    before = _requests_served(server)

    answer = llm_index.ask("What is the capital of France?", mode="llm")

    assert not answer.found and answer.citations == ()
    assert _requests_served(server) == before


def test_a_follow_up_is_rewritten_by_the_model(llm_index, server):
    before = _requests_served(server)

    answer = llm_index.ask("How old is his son?", mode="llm",
                           history=[("Who is Mike Bonin?", "A councilman.")])

    assert _requests_served(server) == before + 2  # the rewrite, then the answer
    assert answer.found and "2-year-old son" in answer.citations[0].hit.text


def test_llm_mode_without_a_model_says_how_to_configure_one(seed_index):
    with pytest.raises(QAError, match="QA_LLM_BASE_URL"):
        seed_index.ask("Who has resigned?", mode="llm")


def test_cli_streams_the_llm_answer(seed_index_path, server, capsys):
    assert main(["ask", "Who has resigned?", "--llm", "--index",
                 str(seed_index_path), "--llm-base-url", server, "--llm-model", "unsupported",
                 "--json"]) == 0

    result = json.loads(capsys.readouterr().out)
    assert result["mode"] == "llm"
    assert [claim["supported"] for claim in result["claims"]] == [True, False]

    assert main(["ask", "Who has resigned?", "--llm", "--index",
                 str(seed_index_path), "--llm-base-url", server, "--llm-model", "quote"]) == 0
    assert "[1]" in capsys.readouterr().out


def test_the_chat_streams_the_llm_answer_and_flags_unsupported_claims(seed_index_path, server):
    from ui.app import ChatApp

    app = ChatApp(str(seed_index_path), 50, LLMConfig(server, "unsupported", timeout=2))

    frames = list(app.respond("Who has resigned?", [], 5, "llm"))

    assert len(frames) > 5  # the answer grows as the model writes it
    assert "qa-sources" not in frames[2] and "qa-sources" in frames[-1]
    assert "Not supported by the cited passage: The council banned all bicycles" in frames[-1]
