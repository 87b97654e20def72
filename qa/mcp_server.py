"""`qa mcp`: the index's search and ask as tools for AI assistants (Model Context Protocol).

The server speaks MCP over stdin/stdout, so an assistant (Claude Desktop, an IDE, any
MCP client) starts it as a command, e.g. `qa --index ~/notes-index mcp`. It only reads
the index: assistants can search and ask, never add or remove documents. A bad
question comes back as a tool error whose text says what is wrong.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from qa.errors import QAError
from qa.index import ANSWER_MODES, Index
from qa.search import MODES, check_choice, check_k

INSTRUCTIONS = (
    "Search and ask the user's own indexed documents. `ask` answers with sentences quoted "
    "from the documents, each followed by [n]; citation n gives the source file, the "
    "passage and the exact quote. `found` is false when the documents hold no answer."
)


def build_server(index: Index) -> MCPServer:
    """An MCP server with the tools `search` and `ask` over `index`."""
    server = MCPServer("qa", instructions=INSTRUCTIONS)

    @server.tool()
    def search(query: str, k: int | float = 5, mode: str = "hybrid") -> list[dict]:
        """The k passages (1 to 1000) of the user's documents that best match the query,
        best first.

        mode: "hybrid" (default) fuses "dense" (meaning) and "keyword" (BM25) search.

        Each hit has: rank, source (file path), title, text (the passage), start and end
        (character offsets in the document), page (PDF page or null), score, similarity.
        """
        with user_errors():
            hits = index.search(query, k=check_k(k), mode=check_choice("mode", mode, MODES))
            return [hit.to_dict() for hit in hits]

    @server.tool()
    def ask(question: str, k: int | float = 5, mode: str = "extractive") -> dict:
        """Answer a question from the user's documents, with [n] citations.

        k: how many passages to search for the answer (1 to 1000).
        mode: "extractive" (default) quotes the documents; "llm" has the configured
        language model write the answer, whose citations are then checked.
        Returns question, answer, found, and citations: [{n, source, title, text, quote,
        start, end, page, score, similarity}], where quote is the cited sentence.
        """
        with user_errors():
            mode = check_choice("answer mode", mode, ANSWER_MODES)
            return index.ask(question, k=check_k(k), mode=mode).to_dict()

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
    build_server(index).run("stdio")
