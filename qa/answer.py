"""Answer: a short extractive answer whose every sentence cites the passage it is from.

No language model is needed. The sentences of the top passages are ranked twice:
by the cosine similarity of their vectors (embedded in their passage's context at
indexing time, so this is a handful of dot products) and by BM25 over those
sentences (words and their Snowball stems, so "resigned" matches "resigned"
best and "resignation" too); the two rankings are fused by reciprocal rank, as
passages are. On SciFact's gold evidence this picks an evidence sentence more
often than either ranking alone. When even the most similar sentence is not
similar enough, the answer says plainly that the documents do not contain it and
cites nothing.
"""

import functools
import math
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import snowballstemmer

from qa.search import Hit, reciprocal_rank_fusion
from qa.store import SentenceRow

ANSWER_PASSAGES = 3  # the sentences of this many top passages compete to be quoted
MAX_SENTENCES = 2
MIN_QUOTE_WORDS = 3
CLOSE_FUSED = 0.98  # a further sentence is quoted if its fused score is this close to the best
BM25_K1, BM25_B = 1.2, 0.75
NOT_FOUND = "The documents do not contain an answer to this question."
_WORD = re.compile(r"\w+")
_STEMMER = snowballstemmer.stemmer("english")
_STEMMER_LOCK = threading.Lock()  # a Snowball stemmer keeps the word it works on in itself


@dataclass(frozen=True, slots=True)
class Citation:
    """What `[n]` in an answer points to: a passage, and the sentence quoted from it.

    start, end: the quote's character offsets in the source document's text.
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
    """A short answer with `[n]` markers; `found` is False when the documents lack it.

    mode: "extractive" (quoted sentences) or "llm" (written by a language model,
        its claims checked against the passages they cite).
    claims: for an LLM answer, each sentence with the passages it cites and whether
        they support it.
    notice: why the answer is not the one asked for (e.g. the LLM was unreachable).
    removed_markers: `[n]` markers the LLM wrote that pointed at no passage.
    """

    question: str
    text: str
    found: bool
    citations: tuple[Citation, ...]
    mode: str = "extractive"
    claims: tuple["Claim", ...] = ()
    notice: str | None = None
    removed_markers: int = 0

    def to_dict(self) -> dict:
        return {
            "question": self.question, "answer": self.text, "found": self.found,
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


def compose_answer(
    question: str, query_vector: np.ndarray, hits: Sequence[Hit],
    sentences: Sequence[SentenceRow], min_score: float,
) -> Answer:
    """Quote the sentences of the top hits that best match the question, or say none does."""
    by_chunk = {hit.chunk_id: hit for hit in hits[:ANSWER_PASSAGES]}
    sentences = _candidates(sentences, by_chunk)
    if not sentences:
        return Answer(question, NOT_FOUND, False, ())
    similarities = np.stack([s.vector for s in sentences]) @ query_vector
    if similarities.max() < min_score:
        return Answer(question, NOT_FOUND, False, ())
    quotes = [_quote(by_chunk[s.chunk_id], s) for s in sentences]
    numbers: dict[int, int] = {}
    citations, parts = [], []
    for i in _choose(similarities, bm25_scores(question, quotes)):
        sentence, hit = sentences[i], by_chunk[sentences[i].chunk_id]
        n = numbers.setdefault(hit.chunk_id, len(numbers) + 1)
        citations.append(Citation(n, hit, quotes[i], sentence.start, sentence.end))
        parts.append(f"{' '.join(quotes[i].split())} [{n}]")
    return Answer(question, " ".join(parts), True, tuple(citations))


def bm25_scores(query: str, texts: Sequence[str]) -> np.ndarray:
    """BM25 of each text for the query, the texts themselves being the collection."""
    query_terms = set(_terms(query))
    documents = [Counter(_terms(text)) for text in texts]
    average = sum(sum(d.values()) for d in documents) / max(len(documents), 1) or 1.0
    frequency = Counter(term for d in documents for term in query_terms & d.keys())
    scores = np.zeros(len(documents))
    for i, counts in enumerate(documents):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * sum(counts.values()) / average)
        for term in query_terms & counts.keys():
            idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            scores[i] += idf * counts[term] * (BM25_K1 + 1) / (counts[term] + norm)
    return scores


def _terms(text: str) -> list[str]:
    """Lower-cased words and, marked apart, their stems: an exact match counts for both."""
    words = _WORD.findall(text.lower())
    return words + ["~" + _stem(word) for word in words]


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """Snowball is pure Python: the same words recur in every answer, so stem each once."""
    with _STEMMER_LOCK:
        return _STEMMER.stemWord(word)


def _choose(similarities: np.ndarray, lexical: np.ndarray) -> list[int]:
    """Indexes of the best sentence and of those close behind it, best first."""
    rankings = [list(np.argsort(-scores, kind="stable")) for scores in (similarities, lexical)]
    fused = reciprocal_rank_fusion(rankings)
    best = fused[0][1]
    return [int(i) for i, score in fused[:MAX_SENTENCES] if score >= CLOSE_FUSED * best]


def _candidates(sentences: Sequence[SentenceRow], by_chunk: dict[int, Hit]) -> list[SentenceRow]:
    """The quotable sentences, once each (overlapping chunks repeat some), in retrieval order."""
    seen: set[tuple[str, int, int]] = set()
    unique = []
    ours = [s for s in sentences if s.chunk_id in by_chunk]
    for sentence in sorted(ours, key=lambda s: by_chunk[s.chunk_id].rank):
        place = (by_chunk[sentence.chunk_id].source, sentence.start, sentence.end)
        if place not in seen and _quotable(_quote(by_chunk[sentence.chunk_id], sentence)):
            seen.add(place)
            unique.append(sentence)
    return unique


def _quotable(text: str) -> bool:
    """A statement worth quoting: not a Markdown heading, not a label of a word or two."""
    return not text.lstrip().startswith("#") and len(_WORD.findall(text)) >= MIN_QUOTE_WORDS


def _quote(hit: Hit, sentence: SentenceRow) -> str:
    return hit.text[sentence.start - hit.start: sentence.end - hit.start]
