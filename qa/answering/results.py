"""The results of asking: an `Answer`, the `Citation`s its `[n]` markers point to, and,
for an answer written by a language model, its `Claim`s.

They are plain frozen values, apart from the scorer that makes them
(`qa.answering.quoted`) and the language model's checks (`qa.answering.generated`), so
that what reads an answer (`qa.answering.response`, the CLI, the web app) depends on
neither.
"""

from dataclasses import dataclass

from qa.search import Hit


@dataclass(frozen=True, slots=True)
class Citation:
    """What `[n]` in an answer points to: a passage, and the sentence quoted from it (of a
    table row, the cells asked for).

    start, end: the quote's character offsets in the source document's text (of a table
    row, the whole row's).
    """

    n: int
    hit: Hit
    quote: str
    start: int
    end: int

    def to_dict(self) -> dict:
        hit = self.hit
        return {
            "n": self.n, "source": hit.source, "title": hit.title, "text": hit.text,
            "quote": self.quote, "start": self.start, "end": self.end, "page": hit.page,
            "score": hit.score, "similarity": hit.similarity,
        }


@dataclass(frozen=True, slots=True)
class Answer:
    """A short answer with `[n]` markers; `found` is False when the documents lack it,
    and then `text` says why: NOT_FOUND, or NO_DOCUMENTS when the index holds none.

    mode: "extractive" (quoted sentences) or "llm" (written by a language model,
        its claims checked against the passages they cite).
    claims: for an LLM answer, each sentence with the passages it cites and whether
        they support it.
    notice: why the answer is not the one asked for (e.g. the LLM was unreachable).
    removed_markers: `[n]` markers the LLM wrote that pointed at no passage.
    score: how well the best sentence of the passages answers the question; the
        answer is "not found" when it is below `Settings.min_score`.
    """

    question: str
    text: str
    found: bool
    citations: tuple[Citation, ...]
    mode: str = "extractive"
    claims: tuple["Claim", ...] = ()
    notice: str | None = None
    removed_markers: int = 0
    score: float = 0.0

    def to_dict(self) -> dict:
        return {
            "question": self.question, "answer": self.text, "found": self.found,
            "score": round(self.score, 4),
            "citations": [citation.to_dict() for citation in self.citations],
            "mode": self.mode, "claims": [claim.to_dict() for claim in self.claims],
            "notice": self.notice, "removed_markers": self.removed_markers,
        }


@dataclass(frozen=True, slots=True)
class Claim:
    """A sentence of an LLM answer, the passages it cites, and how well they support it.

    support: the cosine similarity of the sentence to the closest sentence of the
    passages it cites; supported: whether that reaches SUPPORT_THRESHOLD.
    """

    text: str
    cites: tuple[int, ...]
    support: float
    supported: bool

    def to_dict(self) -> dict:
        return {"text": self.text, "citations": list(self.cites),
                "support": round(self.support, 4), "supported": self.supported}
