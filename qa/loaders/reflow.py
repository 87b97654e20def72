"""PDF text reflow: the lines of a PDF page joined back into its paragraphs.

pypdf gives a page's text a line per printed line, so a sentence wrapped in a narrow
column carries a newline at each wrap, and a word hyphenated at a line end stays cut in
two. Here the lines of a paragraph are joined with a space and paragraphs are set apart
by a blank line, which the sentence splitter (syntok) takes as a boundary, so a heading
does not run into the sentence after it.

pypdf's text has no positions, so the cues are the lines' own: a line ends its paragraph
when the next line is blank or a bullet, or when it ends a sentence and either the next
line's first word would have fitted after it (the line was ended, not wrapped; the
column width is a long line of the page, in characters) or the next line is a label (a
short line ending in no punctuation). A label that opens a paragraph and is followed by
a capital is a paragraph of its own (a heading, a table's row); so is a line that is
only a page number ("3", "Page 3 of 9"), and a numbered heading ("2. Fees") begins one.
So a paragraph is only ever ended where a sentence ends, or at a heading, a bullet or a
blank line: a sentence is not cut at a line wrap.

A word cut by a hyphen at a line end is one word, joined without its hyphen, when the
joined word appears elsewhere in the document; it keeps its hyphen when the hyphenated
word appears elsewhere, or when both halves are words the document uses on their own
("loading-bay", "well-known"); otherwise it is joined, as line-end hyphens are mostly
the typesetter's ("replace-ment"). A soft hyphen is always the typesetter's.

A line that recurs, digits aside, among the first or last EDGE_LINES lines of at least
half the pages (two at least) is a running header or footer ("LWF-POL-07 Refund Policy —
page 2"): it would cut a sentence that runs on to the next page, and be quoted inside it.
It is kept once, where it first opens a page, and dropped everywhere else; a page of
nothing but such lines (pages alike but for their number) is kept whole. A sentence
that runs on to the next page then ends on the page where it began, so it is one sentence.
"""

import re
from collections.abc import Sequence

from qa.words import SECTION_NUMBER

EDGE_LINES = 3  # the lines at a page's top and bottom where a running header or footer is
HEADING_WIDTH = 0.6  # of the column width: a heading line is shorter than this
_SENTENCE_END = re.compile(r"[.!?:][\"'”’)\]]*$")
_GOES_ON = re.compile(r"[,;(–—-]$")  # a line ending so is continued by the next
_BULLET = re.compile(r"[•◦▪‣●■▸○]\s")
_PAGE_NUMBER = re.compile(r"(?i)(page\s+)?\d{1,4}(\s*(/|of)\s*\d{1,4})?")
_HYPHENS = "-\u2010\u00ad"
_HYPHENATED = re.compile(rf"(\w+)([{_HYPHENS}])$")
_LEADING_WORD = re.compile(r"[^\W\d_]+")
_WORDS = re.compile(r"\w+(?:[-\u2010]\w+)*")
_CUT_WORD = re.compile(r"(?<!\w)\w+[-\u2010\u00ad]\n\w+")  # from a word start: linear
_DIGITS = re.compile(r"\d+")
_RUN_ON_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s|$)")  # where a sentence run on to a page ends


def reflow(pages: Sequence[str]) -> list[str]:
    """Each page's text with the lines of a paragraph joined and paragraphs a blank line
    apart, running headers and footers left out."""
    pages = _without_running_lines(pages)
    vocabulary = _vocabulary("\n".join(pages))
    return _whole_sentences([_reflow_page(page, vocabulary) for page in pages])


def _whole_sentences(pages: list[str]) -> list[str]:
    """The pages with a sentence that runs on to the next page (the page ends in no
    sentence end, the next begins in lower case) ended on the page where it began."""
    for i in range(len(pages) - 1):
        tail, head = pages[i].rstrip(), pages[i + 1].lstrip()
        if not tail or not head or _SENTENCE_END.search(tail) or not head[0].islower():
            continue
        paragraph = head.split("\n\n", 1)[0]
        end = _RUN_ON_END.search(paragraph)
        cut = end.end() if end else len(paragraph)
        pages[i], pages[i + 1] = f"{tail} {head[:cut]}", head[cut:].lstrip()
    return pages


def _without_running_lines(pages: Sequence[str]) -> list[str]:
    """The pages without their running headers and footers (see the module's docstring)."""
    lines = [[" ".join(line.split()) for line in page.split("\n")] for page in pages]
    edges = [_edges(page) for page in lines]
    running = _running(lines, edges)
    if not running:
        return list(pages)
    kept: set[str] = set()
    result = []
    for page, edge in zip(lines, edges, strict=True):
        dropped = set()
        if any(line and edge.get(i) not in running for i, line in enumerate(page)):
            for i, key in edge.items():  # (a page of nothing else is kept whole)
                if key in running:
                    if key in kept or i > _top_end(edge):
                        dropped.add(i)
                    kept.add(key)
        result.append("\n".join(line for i, line in enumerate(page) if i not in dropped))
    return result


def _edges(lines: list[str]) -> dict[int, str]:
    """A page's first and last EDGE_LINES non-blank lines, by index: each line with its
    digits as "#", lower-cased (the key that finds it on other pages)."""
    filled = [i for i, line in enumerate(lines) if line]
    return {i: _DIGITS.sub("#", lines[i].lower())
            for i in sorted({*filled[:EDGE_LINES], *filled[-EDGE_LINES:]})}


def _top_end(edge: dict[int, str]) -> int:
    """The index of the last of the page's top lines."""
    return sorted(edge)[min(EDGE_LINES, len(edge)) - 1]


def _running(lines: list[list[str]], edges: list[dict[int, str]]) -> set[str]:
    """The keys of the lines at the edges of at least half the pages (two at least) whose
    every number is the same on each page or counts the pages ("page 2 of 9")."""
    found: dict[str, dict[int, str]] = {}
    for page, (text, edge) in enumerate(zip(lines, edges, strict=True)):
        for i, key in edge.items():
            found.setdefault(key, {}).setdefault(page, text[i])
    return {key for key, on in found.items()
            if len(on) >= max(2, len(lines) / 2) and _counts_pages(on)}


def _counts_pages(lines: dict[int, str]) -> bool:
    """Whether each number of a line found on several pages (by page) is the same on each,
    or is the page's number (its place plus one offset)."""
    numbers = [[int(digits) for digits in _DIGITS.findall(line)] for line in lines.values()]
    for values in zip(*numbers, strict=True):
        offsets = {value - page for value, page in zip(values, lines, strict=True)}
        if len(set(values)) > 1 and len(offsets) > 1:
            return False
    return True


def _vocabulary(text: str) -> frozenset[str]:
    """The document's words, lower-cased, hyphenated words whole and as their parts;
    words cut at a line end are left out (their halves are not words)."""
    words = set(_WORDS.findall(_CUT_WORD.sub(" ", text).lower()))
    for word in [word for word in words if not word.isalnum()]:
        words.update(re.split(r"[-\u2010]", word))
    return frozenset(words)


def _reflow_page(page: str, vocabulary: frozenset[str]) -> str:
    lines = [" ".join(line.split()) for line in page.split("\n")]
    width = _column_width(lines)
    paragraphs: list[str] = []
    current: list[str] = []  # the lines of the paragraph so far, a cut word made whole
    for line, following in zip(lines, [*lines[1:], ""], strict=True):
        if line:
            opens = not current
            _add_line(current, line, vocabulary)
            if not _ends_paragraph(line, following, width, opens):
                continue
        if current:
            paragraphs.append(" ".join(current))
            current = []
    return "\n\n".join(paragraphs)


def _column_width(lines: list[str]) -> int:
    """The length of a long line of the page (the 90th percentile, so one overlong line
    does not count), in characters."""
    lengths = sorted(len(line) for line in lines if line)
    return lengths[int(0.9 * (len(lengths) - 1))] if lengths else 0


def _ends_paragraph(line: str, following: str, width: int, opens: bool) -> bool:
    """Whether `line` ends its paragraph, given the line after it (blank: "")."""
    if not following or _BULLET.match(following) or _is_page_number(following):
        return True
    if SECTION_NUMBER.match(following) and _is_label(following, width):
        return True  # a numbered heading
    if _is_page_number(line):
        return True
    fits = len(line) + 1 + len(following.split()[0]) <= width  # the line was not wrapped
    if _SENTENCE_END.search(line):
        return fits or _is_label(following, width)
    return opens and fits and _is_label(line, width) and following[0].isupper()


def _is_label(line: str, width: int) -> bool:
    """A short line ending in no punctuation: a heading, a label or a table's row."""
    return (len(line) < HEADING_WIDTH * width and not _SENTENCE_END.search(line)
            and not _GOES_ON.search(line))


def _is_page_number(line: str) -> bool:
    return _PAGE_NUMBER.fullmatch(line) is not None


def _add_line(lines: list[str], line: str, vocabulary: frozenset[str]) -> None:
    """Add `line` to a paragraph's lines: as a line of its own (to be joined by a space),
    or to the last line when that ends in a word cut at a line-end hyphen."""
    cut = _HYPHENATED.search(lines[-1]) if lines and lines[-1][-1] in _HYPHENS else None
    tail = _LEADING_WORD.match(line)
    if cut and tail and line[0].islower():
        whole = cut.group(2) == "\u00ad" or _one_word(cut.group(1), tail.group(), vocabulary)
        lines[-1] = (lines[-1][: cut.start(2)] if whole else lines[-1]) + line
    else:
        lines.append(line)


def _one_word(head: str, tail: str, vocabulary: frozenset[str]) -> bool:
    """Whether a word cut as "head-" / "tail" is one word rather than a hyphenated one."""
    head, tail = head.lower(), tail.lower()
    if head + tail in vocabulary:
        return True
    return f"{head}-{tail}" not in vocabulary and not (head in vocabulary and tail in vocabulary)
