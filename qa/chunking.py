"""Chunking: split a document into sentence-aligned chunks that fit the embedding model.

Sentences come from syntok (a real segmenter: "L.A.", quotes and titles do not
end a sentence). Chunks are budgeted in the embedding model's own tokens, so the
model never silently truncates one; a sentence longer than the budget is cut at
whitespace. Neighbouring chunks share up to `overlap_tokens` of whole sentences.
Chunks never cross a page boundary, so each has one page.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import syntok.segmenter

from qa.documents import Document

Span = tuple[int, int]
TokenCounter = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document: its text, its char span there, its page and its sentences."""

    ordinal: int
    text: str
    start: int
    end: int
    page: int | None
    sentences: tuple[Span, ...]


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The (start, end) offsets in `text` of each sentence of text[start:end]."""
    section = text[start:end]
    spans = []
    for paragraph in syntok.segmenter.analyze(section):
        for sentence in paragraph:
            tokens = list(sentence)
            if tokens:
                last = tokens[-1]
                spans.append((start + tokens[0].offset, start + last.offset + len(last.value)))
    return spans


def chunk_document(
    document: Document, count_tokens: TokenCounter, max_tokens: int, overlap_tokens: int
) -> list[Chunk]:
    """Chunks of at most `max_tokens` tokens covering the whole document, in order."""
    chunks: list[Chunk] = []
    for start, end, page in document.sections():
        sentences = split_sentences(document.text, start, end)
        sentences, counts = _fit_sentences(document.text, sentences, count_tokens, max_tokens)
        for group in _group(counts, max_tokens, overlap_tokens):
            spans = tuple(sentences[i] for i in group)
            first, last = spans[0][0], spans[-1][1]
            chunks.append(
                Chunk(len(chunks), document.text[first:last], first, last, page, spans)
            )
    return chunks


def _fit_sentences(
    text: str, sentences: list[Span], count_tokens: TokenCounter, max_tokens: int
) -> tuple[list[Span], list[int]]:
    """Cut sentences longer than the budget into pieces; return spans and their token counts."""
    counts = count_tokens([text[a:b] for a, b in sentences])
    spans: list[Span] = []
    fitted: list[int] = []
    for span, count in zip(sentences, counts, strict=True):
        if count <= max_tokens:
            spans.append(span)
            fitted.append(count)
        else:
            pieces = _cut(text, span, count_tokens, max_tokens)
            spans.extend(pieces)
            fitted.extend(count_tokens([text[a:b] for a, b in pieces]))
    return spans, fitted


def _cut(text: str, span: Span, count_tokens: TokenCounter, max_tokens: int) -> list[Span]:
    """Halve a too-long span at the whitespace nearest its middle until each piece fits."""
    start, end = span
    if end - start < 2 or count_tokens([text[start:end]])[0] <= max_tokens:
        return [span]
    middle = (start + end) // 2
    space = text.rfind(" ", start + 1, middle + 1)
    if space <= start:
        space = text.find(" ", middle, end - 1)
    cut = space if space > start else middle
    left_end = cut
    right_start = cut + 1 if text[cut] == " " else cut
    return _cut(text, (start, left_end), count_tokens, max_tokens) + _cut(
        text, (right_start, end), count_tokens, max_tokens
    )


def _group(counts: list[int], max_tokens: int, overlap_tokens: int) -> list[list[int]]:
    """Greedy groups of sentence indexes within the budget, each repeating the previous tail."""
    groups: list[list[int]] = []
    current: list[int] = []
    used = 0
    for i, count in enumerate(counts):
        if current and used + count > max_tokens:
            groups.append(current)
            current = _tail(current, counts, overlap_tokens, max_tokens - count)
            used = sum(counts[j] for j in current)
        current.append(i)
        used += count
    if current:
        groups.append(current)
    return groups


def _tail(group: list[int], counts: list[int], overlap_tokens: int, room: int) -> list[int]:
    """The last sentences of `group` that fit in both the overlap and the room left."""
    tail: list[int] = []
    used = 0
    for i in reversed(group):
        if used + counts[i] > min(overlap_tokens, room):
            break
        tail.insert(0, i)
        used += counts[i]
    return tail
