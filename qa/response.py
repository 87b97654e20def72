"""Response: an answer on its way, in the manner of simonw/llm's `Response`.

Iterate it for the pieces of text as they are written (a language model's answer streams
in; a quoted answer has no pieces, it is found whole), then call `answer()` for the
finished, checked `Answer`. Callers never sort events by type: the text and the result
come from two calls. `answer()` alone runs the whole pipeline, so `Index.ask` is
`Index.ask_stream(...).answer()`.
"""

from collections.abc import Generator, Iterator

from qa.results import Answer

Pieces = Generator[str, None, Answer]  # yields text as it is written, returns the Answer


class Response:
    """The pieces of an answer's text, then the answer itself (see the module docstring)."""

    def __init__(self, pieces: Pieces) -> None:
        self._pieces = pieces
        self._answer: Answer | None = None

    @classmethod
    def of(cls, answer: Answer) -> "Response":
        """A response whose answer is already found (no text is streamed)."""
        return cls(_no_pieces(answer))

    def __iter__(self) -> Iterator[str]:
        if self._answer is None:
            self._answer = yield from self._pieces

    def answer(self) -> Answer:
        """The finished answer, reading what has not been read of the text first."""
        for _ in self:
            pass
        assert self._answer is not None
        return self._answer


def _no_pieces(answer: Answer) -> Pieces:
    return answer
    yield  # a generator that yields nothing
