"""An index that holds no documents yet says so, wherever a question is asked: the
Python API, the CLI, MCP and the web chat (a real server and browser)."""

import json

import pytest

from qa import Index
from qa.answering.quoted import NO_DOCUMENTS
from qa.cli import main
from tests.helpers import qa_serve
from tests.test_mcp import _payload, mcp_calls
from tests.test_ui import ask, open_page


@pytest.fixture(scope="module")
def empty_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("empty") / "index"
    Index.create(path).close()
    return path


def test_the_python_api_says_no_documents_are_indexed_yet(empty_index):
    index = Index.open(empty_index)
    try:
        answer = index.ask("What is this about?")
    finally:
        index.close()

    assert (answer.found, answer.text, answer.citations) == (False, NO_DOCUMENTS, ())
    assert answer.notice == NO_DOCUMENTS and "qa index FOLDER" in answer.notice


def test_once_documents_are_removed_the_cli_says_so_again(tmp_path, seed_copy, capsys):
    index = str(tmp_path / "index")
    assert main(["--index", index, "index", str(seed_copy)]) == 0
    assert main(["--index", index, "ask", "Who has resigned?"]) == 0
    assert "resigned" in capsys.readouterr().out

    assert main(["--index", index, "remove", str(seed_copy)]) == 0
    capsys.readouterr()
    assert main(["--index", index, "ask", "Who has resigned?", "--json"]) == 0

    answer = json.loads(capsys.readouterr().out)
    assert (answer["found"], answer["answer"], answer["notice"]) == (False, NO_DOCUMENTS,
                                                                      NO_DOCUMENTS)
    assert main(["--index", index, "ask", "Who has resigned?"]) == 0
    assert capsys.readouterr().out.count("No documents are indexed yet") == 1


@pytest.mark.process
def test_an_mcp_client_is_told_no_documents_are_indexed_yet(empty_index):
    _, (answer,) = mcp_calls(empty_index, [("ask", {"question": "Summarize the documents"})])

    assert _payload(answer)["answer"] == NO_DOCUMENTS


@pytest.mark.process
@pytest.mark.browser
def test_the_web_chat_says_no_documents_are_indexed_yet(empty_index, browser, tmp_path):
    with qa_serve(empty_index, tmp_path / "serve.log", timeout=180) as (url, _):
        page = open_page(browser, url)
        try:
            answer = ask(page, "What are these documents about?")
            assert "No documents are indexed yet" in answer.inner_text()
            assert page.locator("#qa-chat .qa-source").count() == 0
        finally:
            page.context.close()
