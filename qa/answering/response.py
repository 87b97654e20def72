"""Response: an answer on its way, in the manner of simonw/llm's `Response`.

Iterate it for the pieces of text as they are written (a language model's answer streams
in; a quoted answer has no pieces, it is found whole), then call `answer()` for the
finished, checked `Answer`. Callers never sort events by type: the text and the result
come from two calls. `answer()` alone runs the whole pipeline, so `Index.ask` is
`Index.ask_stream(...).answer()`.

As simonw/llm's does, a Response keeps the pieces it has read and whether it is done: it
can be iterated again (the pieces read so far come first, then reading goes on where it
stopped), a loop over it may stop early (a timeout, "the first N pieces") without losing
anything, and `answer()` then finishes the work. The pipeline is read with `next()`, never
`yield from`, so that stopping a loop early closes only that loop, not the pipeline.
"""

from collections.abc import Generator, Iterator

from qa.answering.results import Answer

Pieces = Generator[str, None, Answer]  # yields text as it is written, returns the Answer


class Response:
    """The pieces of an answer's text, then the answer itself (see the module docstring)."""

    def __init__(self, pieces: Pieces) -> None:
        self._pieces = pieces
        self._read: list[str] = []  # the pieces read so far, for the next loop
        self._answer: Answer | None = None  # set when the pipeline is done
        self._failure: Exception | None = None  # what the pipeline raised, raised again

    @classmethod
    def of(cls, answer: Answer) -> "Response":
        """A response whose answer is already found (no text is streamed)."""
        return cls(_no_pieces(answer))

    @property
    def done(self) -> bool:
        """Whether the whole pipeline has run (every piece read, the answer found)."""
        return self._answer is not None

    def __iter__(self) -> Iterator[str]:
        """Every piece of the text: those already read, then the rest as they are written."""
        n = 0
        while n < len(self._read) or self._read_one():
            yield self._read[n]
            n += 1

    def answer(self) -> Answer:
        """The finished answer, reading what has not been read of the text first."""
        while self._read_one():
            pass
        assert self._answer is not None  # _read_one is False only once it is set
        return self._answer

    def _read_one(self) -> bool:
        """Read the pipeline's next piece into `_read`: False once it is done. What the
        pipeline raised is raised again by every later read, as a finished generator
        would otherwise end with no answer."""
        if self._answer is not None:
            return False
        if self._failure is not None:
            raise self._failure
        try:
            self._read.append(next(self._pieces))
            return True
        except StopIteration as finished:
            self._answer = finished.value
            return False
        except Exception as failure:
            self._failure = failure
            raise


def _no_pieces(answer: Answer) -> Pieces:
    return answer
    yield  # a generator that yields nothing
