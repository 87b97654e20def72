"""`qa mcp`: the index's search and ask as tools for AI assistants (Model Context Protocol).

The server speaks MCP over stdin/stdout, so an assistant (Claude Desktop, an IDE, any
MCP client) starts it as a command, e.g. `qa --index ~/notes-index mcp`. It only reads
the index: assistants can search and ask, never add or remove documents. A bad
question or argument comes back as a tool error whose text says what is wrong, in the
library's own words (k, the mode and the scope are checked by `Index`, as for every
caller: they are passed through as the client sent them, not coerced on the way in);
a line that is not a JSON-RPC message gets a JSON-RPC error, never silence.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, cast

import anyio
import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError, WithJsonSchema

from qa.errors import QAError
from qa.index import AnswerMode, Index
from qa.search import MAX_K, Mode

INSTRUCTIONS = (
    "Search and ask the user's own indexed documents. `ask` answers with sentences quoted "
    "from the documents, each followed by [n]; citation n gives the source file, the "
    "passage and the exact quote. `found` is false when the documents hold no answer."
)


# k as the client sent it, for Index (qa.search.check_k) to refuse "5", true or "1e2"
# (pydantic would coerce them) with the same message as everywhere else
K = Annotated[Any, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_K})]


def build_server(index: Index) -> MCPServer:
    """An MCP server with the tools `search` and `ask` over `index`."""
    server = MCPServer("qa", instructions=INSTRUCTIONS)

    @server.tool()
    def search(query: str, k: K = 5, mode: str = "hybrid",
               collections: list[str] | None = None,
               within: list[str] | None = None) -> list[dict]:
        """The k passages (1 to 1000) of the user's documents that best match the query,
        best first.

        mode: "hybrid" (default) fuses "dense" (meaning) and "keyword" (BM25) search.
        collections: search only the documents of these collections (see the tool
        `collections`); none: all documents.
        within: search only the documents at these paths (a hit's `source`) or under
        these folders; with collections: the documents of either.

        Each hit has: rank, source (file path), title, text (the passage), start and end
        (character offsets in the document), page (PDF page or null), score, similarity.
        """
        with user_errors():
            hits = index.search(query, k=k, mode=cast(Mode, mode), within=within,
                                collections=collections)
            return [hit.to_dict() for hit in hits]

    @server.tool()
    def ask(question: str, k: K = 5, mode: str = "extractive",
            collections: list[str] | None = None, within: list[str] | None = None) -> dict:
        """Answer a question from the user's documents, with [n] citations.

        k: how many passages to search for the answer (1 to 1000).
        collections: answer only from the documents of these collections; none: all.
        within: answer only from the documents at these paths (a citation's `source`) or
        under these folders; with collections: the documents of either.
        mode: "extractive" (default) quotes the documents; "llm" has the configured
        language model write the answer, whose citations are then checked.
        Returns question, answer, found, and citations: [{n, source, title, text, quote,
        start, end, page, score, similarity}], where quote is the cited sentence.
        """
        with user_errors():
            return index.ask(question, k=k, mode=cast(AnswerMode, mode), within=within,
                             collections=collections).to_dict()

    @server.tool()
    def collections() -> dict[str, int]:
        """The user's collections (named groups of documents), each with how many
        documents it holds."""
        return index.collections.counts()

    return server


@contextmanager
def user_errors() -> Iterator[None]:
    """Pass the library's user-facing errors on to the assistant as tool errors, whose
    text it sees (other exceptions are crashes, reported without their text)."""
    try:
        yield
    except QAError as error:
        raise ToolError(str(error)) from error


def serve(index: Index) -> None:
    """Answer MCP requests on stdin/stdout until the client closes them."""
    index.warm_up()
    anyio.run(_serve_stdio, build_server(index))


async def _serve_stdio(server: MCPServer) -> None:
    """`server.run("stdio")`, but a line the SDK cannot take as a JSON-RPC message (not
    JSON, or holding a lone surrogate such as "\\udc00", which pydantic refuses) is
    answered with an error: the SDK only logs it, and the client waits forever."""
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async runs
    async with stdio_server() as (read_stream, write_stream):
        messages, received = anyio.create_memory_object_stream[SessionMessage](0)

        async def relay() -> None:
            async with messages:
                async for item in read_stream:
                    if isinstance(item, SessionMessage):
                        await messages.send(item)
                    else:
                        await write_stream.send(SessionMessage(_error_reply(item)))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(relay)
            await lowlevel.run(received, write_stream, lowlevel.create_initialization_options())


def _error_reply(error: Exception) -> mcp_types.JSONRPCError:
    """The JSON-RPC error for a line that could not be read as a message: -32700 (parse
    error, id null) if it is not JSON; else -32600 (invalid request) with the request's
    id, if it has one, so that the client's request ends."""
    line = _input(error)
    try:
        request = json.loads(line) if line is not None else None  # lone surrogates pass
    except (ValueError, RecursionError):
        return _error(None, mcp_types.PARSE_ERROR, "Parse error: the line is not JSON")
    request_id = request.get("id") if isinstance(request, dict) else None
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        request_id = None
    return _error(request_id, mcp_types.INVALID_REQUEST, "Invalid request: not a JSON-RPC "
                  "message, or text that is not valid Unicode (a lone surrogate)")


def _input(error: Exception) -> str | bytes | None:
    """The line a validation error was raised on."""
    if isinstance(error, ValidationError) and error.errors():
        line = error.errors()[0].get("input")
        return line if isinstance(line, str | bytes) else None
    return None


def _error(request_id: int | str | None, code: int, message: str) -> mcp_types.JSONRPCError:
    return mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                  error=mcp_types.ErrorData(code=code, message=message))
