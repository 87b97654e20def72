"""`qa mcp` as an assistant uses it: the MCP client library starts the real command over
stdio, against a real index of the seed article."""

import asyncio
import json
import queue
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers import ENV, ROOT, SEED_FILE

pytestmark = pytest.mark.process


async def _session(index: Path, calls: list[tuple[str, dict]]) -> tuple[list, list]:
    from mcp import Client, StdioServerParameters

    command = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from qa.cli import main; raise SystemExit(main())",
              "--index", str(index), "mcp"],
        env={**ENV, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    async with Client(command) as client:
        tools = (await client.list_tools()).tools
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def mcp_calls(index: Path, calls: list[tuple[str, dict]], timeout: float = 240) -> tuple:
    """`qa mcp` over `index`, sent `calls` by the MCP client library: (its tools, the
    results). In a thread of its own: the session's browser (playwright) holds the event
    loop of the tests' thread."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(
            lambda: asyncio.run(asyncio.wait_for(_session(index, calls), timeout))).result()


def _payload(result) -> object:
    return json.loads(result.content[0].text)


def test_an_mcp_client_lists_the_tools_then_searches_and_asks(seed_index_path):
    calls = [
        ("search", {"query": "protests outside his home", "k": 3}),
        ("ask", {"question": "Who has resigned?"}),
        ("ask", {"question": "What is the boiling point of tungsten?"}),
        ("ask", {"question": ""}),
        ("ask", {"question": "Who resigned?", "mode": "llm"}),
    ]
    tools, (search, ask, unknown, empty, no_llm) = mcp_calls(seed_index_path, calls)

    described = {tool.name: tool for tool in tools}
    assert set(described) == {"search", "ask", "collections"}
    assert "question" in described["ask"].input_schema["properties"]
    assert "[n]" in described["ask"].description

    hits = search.structured_content["result"]
    assert 1 <= len(hits) <= 3 and Path(hits[0]["source"]).name == SEED_FILE.name
    assert "protest" in " ".join(hit["text"] for hit in hits).lower()

    answer = _payload(ask)
    assert answer["found"] and "[1]" in answer["answer"] and "resigned" in answer["answer"]
    assert answer["citations"][0]["quote"] in answer["citations"][0]["text"]

    assert not _payload(unknown)["found"] and _payload(unknown)["citations"] == []
    assert empty.is_error and "empty" in empty.content[0].text
    assert no_llm.is_error and "no language model is configured" in no_llm.content[0].text


def test_the_tools_refuse_a_bad_k_or_mode_with_the_librarys_message(seed_index_path):
    """Only a whole number is a k: not the string "5", nor true (pydantic coerced them)."""
    bad = [("search", {"query": "resigned", "k": k})
           for k in (1.5, 10**9, -1, 0, "5", True, "1e2", [5])]
    bad += [("ask", {"question": "Who has resigned?", "k": 10**8}),
            ("ask", {"question": "Who has resigned?", "k": "3"}),
            ("search", {"query": "resigned", "mode": "bogus"})]
    good = [("search", {"query": "resigned", "k": 1000, "mode": "keyword"})]
    tools, results = mcp_calls(seed_index_path, bad + good)

    messages = [result.content[0].text for result in results[:-1]]
    assert all(result.is_error for result in results[:-1])
    assert messages[:-1] == [f"Error executing tool {name}: k must be a whole number from 1 "
                             "to 1000" for name, _ in bad[:-1]]
    assert messages[-1] == ("Error executing tool search: mode must be one of: dense, "
                            "keyword, hybrid")
    hits = results[-1].structured_content["result"]
    assert 1 <= len(hits) <= 5 and all("resign" in hit["text"].lower() for hit in hits)
    assert all(tool.input_schema["properties"]["k"].items() >= {
        "type": "integer", "minimum": 1, "maximum": 1000, "default": 5}.items()
        for tool in tools if tool.name != "collections")


def test_every_line_gets_an_answer_even_one_that_is_not_a_message(seed_index_path):
    """Raw lines on the real server's stdin: a request holding a lone surrogate (valid JSON
    that pydantic refuses) gets an error with its id, a line that is not JSON gets
    -32700, and the server goes on answering."""
    server = subprocess.Popen(
        [sys.executable, "-c", "from qa.cli import main; raise SystemExit(main())",
         "--index", str(seed_index_path), "mcp"],
        env={**ENV, "PYTHONPATH": str(ROOT)}, cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "\udc00 resigned"}}},
        '{"jsonrpc": "2.0", "id": 3, "method": tools/call',
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "search", "arguments": {"query": "resigned", "k": 1}}},
    ]
    raw = b"".join((line if isinstance(line, str) else json.dumps(line)).encode() + b"\n"
                   for line in lines)  # json.dumps writes the surrogate as \udc00
    try:
        server.stdin.write(raw)
        server.stdin.flush()  # and kept open: the server stops at its end, answered or not
        lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in server.stdout],
                         daemon=True).start()
        replies = [json.loads(lines.get(timeout=240)) for _ in range(4)]
    finally:
        server.kill()

    assert [reply["id"] for reply in replies] == [1, 2, None, 4]
    assert replies[1]["error"]["code"] == -32600
    assert replies[2]["error"] == {"code": -32700, "message": "Parse error: the line is not JSON"}
    assert "resign" in replies[3]["result"]["structuredContent"]["result"][0]["text"]



def test_the_tools_list_collections_and_answer_within_them_or_within_folders(tmp_path, seed_copy):
    from qa import Index

    (tmp_path / "farm").mkdir()
    (tmp_path / "farm" / "orchard.txt").write_text(
        "The orchard at Kelso grows forty varieties of apples, picked in October.")
    with closing(Index.create(tmp_path / "index")) as index:
        index.add([seed_copy], collection="News")
        index.add([tmp_path / "farm"], collection="Farm")
    calls = [("collections", {}),
             ("ask", {"question": "Who has resigned?", "collections": ["Farm"]}),
             ("search", {"query": "apples", "collections": ["News"]}),
             ("ask", {"question": "How many varieties of apples?", "collections": ["Nope"]}),
             ("search", {"query": "apples", "within": [str(tmp_path / "farm")]}),
             ("ask", {"question": "Who has resigned?", "within": [str(tmp_path / "farm")]})]
    _, (listed, elsewhere, news, unknown, in_farm, not_in_farm) = mcp_calls(
        tmp_path / "index", calls)

    assert _payload(listed) == {"Farm": 1, "News": 1}
    assert "resigned" not in _payload(elsewhere)["answer"]
    assert {Path(hit["source"]).name for hit in news.structured_content["result"]} == {
        SEED_FILE.name}
    assert unknown.is_error and "there is no collection named 'Nope'" in unknown.content[0].text
    assert {Path(hit["source"]).name for hit in in_farm.structured_content["result"]} == {
        "orchard.txt"}
    assert "resigned" not in _payload(not_in_farm)["answer"]
