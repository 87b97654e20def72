"""`qa mcp` as an assistant uses it: the MCP client library starts the real command over
stdio, against a real index of the seed article."""

import asyncio
import json
import sys
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
    tools, (search, ask, unknown, empty, no_llm) = asyncio.run(
        asyncio.wait_for(_session(seed_index_path, calls), timeout=240)
    )

    described = {tool.name: tool for tool in tools}
    assert set(described) == {"search", "ask"}
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
    bad = [("search", {"query": "resigned", "k": k}) for k in (1.5, 10**9, -1, 0)]
    bad += [("ask", {"question": "Who has resigned?", "k": 10**8}),
            ("search", {"query": "resigned", "mode": "bogus"})]
    good = [("search", {"query": "resigned", "k": 1000, "mode": "keyword"})]
    _, results = asyncio.run(asyncio.wait_for(_session(seed_index_path, bad + good), 240))

    messages = [result.content[0].text for result in results[:-1]]
    assert all(result.is_error for result in results[:-1])
    assert messages[:-1] == [f"Error executing tool {name}: k must be a whole number from 1 "
                             "to 1000" for name, _ in bad[:-1]]
    assert messages[-1] == ("Error executing tool search: mode must be one of: dense, "
                            "keyword, hybrid")
    hits = results[-1].structured_content["result"]
    assert 1 <= len(hits) <= 5 and all("resign" in hit["text"].lower() for hit in hits)
