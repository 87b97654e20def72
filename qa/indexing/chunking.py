"""Chunking: split a document into sentence-aligned chunks that fit the embedding model.

Sentences come from syntok (a real segmenter: "L.A.", quotes and titles do not
end a sentence), corrected for table rows (`qa.loaders.tables`), each of which is one sentence:
a named field after a semicolon goes on with it, and a line ending in a full stop
before a line that opens with a named field ends it; and for lines that are items (a
list's bullets, lines of labelled fields, a receipt's or a notice's short lines), each of
which is one sentence.
Chunks are budgeted in the embedding model's own tokens, so the model never silently
truncates one; a sentence longer than the budget is cut at whitespace. A span counts as
at least one token per CHARS_PER_TOKEN characters, so that a chunk is bounded in
characters too: the model reads a run of letters without spaces, however long, as one
unknown token. Neighbouring chunks share up to `overlap_tokens` of whole sentences.
Chunks never cross a page boundary, so each has one page.

Time and memory grow linearly with the text (benchmarks/chunking.py): syntok is
given one block of at most BLOCK_CHARS at a time, each paragraph with offset 0
(its `analyze` pads every paragraph with as many spaces as its offset, which is
quadratic), so a "sentence" of megabytes is cut into blocks before it is cut
into pieces that fit; tokens are counted COUNT_BATCH_CHARS of text at a time.
"""

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate

from syntok.segmenter import preprocess_with_offsets, segment
from syntok.tokenizer import Tokenizer

from qa.backends.base import Chunk
from qa.loaders.formats import Document
from qa.words import STOPWORDS, WORD

Span = tuple[int, int]
TokenCounter = Callable[[Sequence[str]], list[int]]
BLOCK_CHARS = 50_000  # text given to syntok at once; no real sentence is this long
COUNT_BATCH_CHARS = 100_000  # text whose tokens are counted in one tokenizer call
_SPACES = (" ", "\n", "\t", "\r")  # where a too-long span may be cut
SHORT_LINE = 50  # characters of a line that is an item of its own in a run of such lines
CHARS_PER_TOKEN = 10  # prose has 4 to 5 characters a token; a chunk holds at most 10 a token


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The (start, end) offsets in `text` of each sentence of text[start:end].

    Block by block: the last sentence of a block may go on in the next one, so the next
    block starts where it starts, unless it is the block's only sentence (then it is
    longer than any real sentence, and ends with its block).
    """
    end = len(text) if end is None else end
    spans: list[Span] = []
    while start < end:
        stop = _block_end(text, start, end)
        found = _segment(text, start, stop)
        if stop < end and len(found) > 1:
            stop = found.pop()[0]  # the next block begins with this sentence
        spans += found
        start = stop
    return _join_fields(text, [_unbulleted(text, line) for span in spans
                               for piece in _split_rows(text, span)
                               for line in _split_lines(text, piece)])


def _unbulleted(text: str, span: Span) -> Span:
    """A list item's sentence: its words, not its bullet (a number stays: "3) is known
    as ozone" may be a formula's line break)."""
    bullet = _BULLET_MARK.match(text, *span)
    return (bullet.end(), span[1]) if bullet and bullet.end() < span[1] else span


# "Floor: ", "2024-25 (£): ": a named value that follows another on its line
_FIELD = re.compile(r"\w[^\n:;.!?]{0,40}: ")


def _join_fields(text: str, spans: list[Span]) -> list[Span]:
    """Sentences that syntok cut after a semicolon joined again when the next begins with a
    named field on the same line: "Team: Design; Floor: 4." (a table row, see
    `qa.loaders.tables`) is one sentence, which syntok cuts before the capital of "Floor"."""
    joined: list[Span] = []
    for span in spans:
        if joined and _continues_fields(text, joined[-1][1], span[0]):
            joined[-1] = (joined[-1][0], span[1])
        else:
            joined.append(span)
    return joined


_ROW_START = re.compile(r"(?<=[.!?])\n(?=[^\W\d][^\n:;.!?]{0,40}: )")


def _split_rows(text: str, span: Span) -> list[Span]:
    """A sentence cut where a line ends with a full stop and the next line begins with a
    named field: syntok reads "Acme Inc.\nCompany: Beta Ltd." as one sentence, taking
    "Inc." for an abbreviation inside it; as table rows they are two."""
    start, end = span
    cuts = [match.start() for match in _ROW_START.finditer(text, start, end)]
    if not cuts:
        return [span]
    bounds = [start, *cuts, end]
    return [(a if a == start else a + 1, b) for a, b in zip(bounds, bounds[1:], strict=False)]


_BULLET = re.compile(r"[ \t]*(?:[-*•–]|\d{1,2}[.)])[ \t]+\S")
_BULLET_MARK = re.compile(r"[-*•–][ \t]+(?=\S)")
# a line that opens with a label and a colon: "Present: ...", "**Venue:** ..."
_FIELD_LINE = re.compile(r"[ \t]*(?:\*\*|__)?[^\W\d][^\n:;.!?*_]{0,40}:(?:\*\*|__)?[ \t]+\S")
_GOES_ON = re.compile(r"[,\-–(&/]\s*$")  # a line ending so goes on in the next one


def _split_lines(text: str, span: Span) -> list[Span]:
    """A sentence cut at its line ends where its lines are items rather than a sentence
    wrapped: before a bulleted or numbered line, between lines that each open with a
    label ("Date: ...", "Present: ...": a memo's or minutes' fields), and, in a run of
    short lines (a receipt,
    a notice, an address: every line at most SHORT_LINE characters), before each line
    that does not go on from the one before (in lower case, after a comma, or after a
    word such as "by"). syntok
    reads lines without closing punctuation as one sentence ("Flat white 3.20 Cheese
    scone 2.80"), which no question can quote a line of."""
    start, end = span
    if "\n" not in text[start:end]:
        return [span]
    lines = text[start:end].split("\n")
    short = all(len(line.strip()) <= SHORT_LINE for line in lines)
    cuts, offset = [], start
    for line, following in zip(lines, lines[1:], strict=False):
        offset += len(line) + 1
        if _BULLET.match(following) or (is_field_line(line) and is_field_line(
                following)) or (short and following.strip() and not (
                following.lstrip()[:1].islower() or _goes_on(line))):
            cuts.append(offset)
    pieces, first = [], start
    for cut in [*cuts, end]:
        piece = text[first:cut].rstrip()
        if piece.strip():
            pieces.append((first + len(piece) - len(piece.lstrip()), first + len(piece)))
        first = cut
    return pieces


def is_field_line(line: str) -> bool:
    """Whether a line opens with a label and a colon and goes on with its value ("Present:
    Ada Lind, Bo Berg", "**Venue:** Room 2"): a field, whose value may wrap to the next
    line, not a heading."""
    return _FIELD_LINE.match(line) is not None


def _goes_on(line: str) -> bool:
    """Whether a line goes on in the next: it ends in a comma or dash, or in a word such as
    "by" or "the" ("The review was written by / Jonas Eklund")."""
    words = WORD.findall(line.lower())
    return bool(_GOES_ON.search(line)) or bool(words) and words[-1] in STOPWORDS


def _continues_fields(text: str, end: int, start: int) -> bool:
    return (text[end - 1] == ";" and "\n" not in text[end:start]
            and _FIELD.match(text, start) is not None)


def _block_end(text: str, start: int, end: int) -> int:
    """Where the block from `start` ends: at `end`, or at whitespace before BLOCK_CHARS."""
    if end - start <= BLOCK_CHARS:
        return end
    limit = start + BLOCK_CHARS
    space = _last_space(text, start + 1, limit)
    return space if space > start else limit


def _last_space(text: str, start: int, end: int) -> int:
    """The offset of the last whitespace in text[start:end], or -1."""
    return max(text.rfind(space, start, end) for space in _SPACES)


def _first_space(text: str, start: int, end: int) -> int:
    """The offset of the first whitespace in text[start:end], or -1."""
    found = [at for space in _SPACES if (at := text.find(space, start, end)) >= 0]
    return min(found, default=-1)


def _segment(text: str, start: int, end: int) -> list[Span]:
    """The sentences syntok finds in text[start:end], as offsets in `text`."""
    tokenizer = Tokenizer(replace_not_contraction=False)
    spans = []
    for offset, paragraph in preprocess_with_offsets(text[start:end]):
        for sentence in segment(tokenizer.tokenize(paragraph)):
            first, last = sentence[0], sentence[-1]
            base = start + offset
            spans.append((base + first.offset, base + last.offset + len(last.value)))
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
    spans: list[Span] = []
    fitted: list[int] = []
    for span, count in zip(sentences, _counts(_texts(text, sentences), count_tokens),
                           strict=True):
        count = _size(count, span)
        if count <= max_tokens:
            spans.append(span)
            fitted.append(count)
        else:
            for piece, piece_count in _pieces(text, span, count_tokens, max_tokens):
                spans.append(piece)
                fitted.append(piece_count)
    return spans, fitted


def _size(tokens: int, span: Span) -> int:
    """A span's size in the budget: its tokens, and at least one per CHARS_PER_TOKEN chars."""
    return max(tokens, -(-(span[1] - span[0]) // CHARS_PER_TOKEN))


def _texts(text: str, spans: Sequence[Span]) -> Iterator[str]:
    return (text[a:b] for a, b in spans)


def _counts(texts: Iterable[str], count_tokens: TokenCounter) -> Iterator[int]:
    """The token count of each text, counted about COUNT_BATCH_CHARS of text at a time
    (the tokenizer's output for a batch takes ~100 bytes a token)."""
    batch: list[str] = []
    size = 0
    for text in texts:
        batch.append(text)
        size += len(text)
        if size >= COUNT_BATCH_CHARS:
            yield from count_tokens(batch)
            batch, size = [], 0
    if batch:
        yield from count_tokens(batch)


def _pieces(
    text: str, span: Span, count_tokens: TokenCounter, max_tokens: int
) -> list[tuple[Span, int]]:
    """A too-long span cut into pieces that fit, each with its token count.

    The halving counts a piece's tokens as the sum over its words (WordPiece never
    joins words, so the sum is exact), each distinct word counted once; a piece that
    a tokenizer joining words finds too long after all is cut again, counted whole.
    """
    def whole(a: int, b: int) -> int:
        return _size(count_tokens([text[a:b]])[0], (a, b))

    def summed(a: int, b: int) -> int:
        return _size(word_sums(a, b), (a, b))

    word_sums = _word_sums(text, span, count_tokens)
    pieces = _cut(text, span, summed, max_tokens)
    fitted = []
    for piece, count in zip(pieces, _counts(_texts(text, pieces), count_tokens), strict=True):
        count = _size(count, piece)
        if count <= max_tokens:
            fitted.append((piece, count))
        else:
            fitted += [(p, whole(*p)) for p in _cut(text, piece, whole, max_tokens)]
    return fitted


def _word_sums(text: str, span: Span, count_tokens: TokenCounter) -> Callable[[int, int], int]:
    """tokens(a, b): the tokens of the words of text[a:b] (within `span`), summed."""
    start, end = span
    words = list(re.finditer(r"\S+", text[start:end]))
    vocabulary = list(dict.fromkeys(word.group() for word in words))
    tokens = dict(zip(vocabulary, _counts(vocabulary, count_tokens), strict=True))
    firsts = [start + word.start() for word in words]
    sums = [0, *accumulate(tokens[word.group()] for word in words)]
    return lambda a, b: sums[bisect_left(firsts, b)] - sums[bisect_left(firsts, a)]


def _cut(text: str, span: Span, tokens: Callable[[int, int], int], max_tokens: int) -> list[Span]:
    """Halve a too-long span at the whitespace nearest its middle until each piece fits."""
    start, end = span
    if end - start < 2 or tokens(start, end) <= max_tokens:
        return [span]
    middle = (start + end) // 2
    space = _last_space(text, start + 1, middle + 1)
    if space <= start:
        space = _first_space(text, middle, end - 1)
    cut = space if space > start else middle
    left_end, right_start = cut, cut
    while left_end > start + 1 and text[left_end - 1].isspace():  # no piece begins or
        left_end -= 1                                               # ends with a space
    while right_start < end - 1 and text[right_start].isspace():
        right_start += 1
    return _cut(text, (start, left_end), tokens, max_tokens) + _cut(
        text, (right_start, end), tokens, max_tokens
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
