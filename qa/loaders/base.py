"""What every loader shares: the `Reading` of one file, its pages joined, its errors.

A loader takes a file's bytes and the file's `Reading` and returns `Loaded`: (title,
text, page_starts). The `Reading` says whether OCR may be used and bounds what one file
may give (its `TextBudget`, charged while the text is made, and the pages OCR may still
read): `qa.loaders.formats.load` makes one for each file it reads, and a file inside it (an
e-mail's attachment) is read on the same one, through `Reading.read_inner`. A loader
raises `qa.errors.LoadError` with a one-line reason for a file it cannot read; anything
else it raises is turned into one by `qa.loaders.formats.load`. A "page" is whatever a reader
of the format cites: a PDF page, a slide, a sheet, a chapter, a message, a scanned page.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qa.errors import LoadError, Postponed
from qa.loaders.cells import Table

Loaded = tuple[str, str, tuple[int, ...]]  # title, text, where each page starts (or ())
PAGE_BREAK = "\n\n"


class TextBudget:
    """The characters of text one file may give, charged while the text is made.

    A loader makes its text through the budget, a piece at a time (a paragraph, a table
    row, a cell, a page, a chapter), so a file whose text would pass the limit is refused
    the moment it does, before the rest is made: a format that repeats content (a row
    repeated a million times, one part listed as many slides) or copies it (a column's
    name into every row) is charged for each copy. `qa.loaders.formats.load` checks the
    whole text once more at the end, as the separators between pieces are not charged.

    It also keeps what the file gives besides its text: each table as `table_lines`
    wrote it, with its lines (`tables`), which `qa.loaders.formats.load` finds in the
    final text (`qa.loaders.tables.located`).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.tables: list[tuple[Table, list[str]]] = []

    def charge(self, characters: int) -> None:
        """Count `characters` more; LoadError if that passes the limit."""
        self.used += characters
        if self.used > self.limit:
            raise text_too_long(f"the text of this file would exceed {self.limit:,} characters")

    def add(self, text: str) -> str:
        """`text`, charged."""
        self.charge(len(text))
        return text


class RunPages:
    """The pages OCR may still read in one indexing run, shared by every file the run
    reads (`Settings.ocr_pages`): a file that needs more than are left is not read, and
    the next run reads it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def take(self, pages: int) -> None:
        """Reserve `pages` for one file's OCR; `Postponed` if fewer are left."""
        if pages > self.left:
            raise Postponed(f"not read in this run: OCR would read {pages:,} of its pages, "
                            f"and {self.left:,} of the run's {self.limit:,} are left (qa "
                            "index --max-ocr-pages); the next run reads it")
        self.left -= pages


@dataclass(slots=True)
class Reading:
    """One file as it is read.

    budget: what is left of the characters of text the file may give.
    use_ocr: read images, and PDF pages without a text layer, by OCR.
    read_inner: reads a file found inside this one (by its name's extension), on this
        `Reading`; `qa.loaders.formats.load` supplies it.
    ocr_pages: the pages OCR may still read in this file, attachments included.
    run_pages: the pages OCR may still read in the indexing run.
    """

    budget: TextBudget
    use_ocr: bool
    read_inner: Callable[[Path, bytes, "Reading"], Loaded]
    ocr_pages: int
    run_pages: RunPages


def join_pages(pages: Sequence[str]) -> tuple[str, tuple[int, ...]]:
    """The pages' text joined by a blank line, and the offset where each page begins."""
    starts, offset = [], 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + len(PAGE_BREAK)
    return PAGE_BREAK.join(pages), tuple(starts)


def text_too_long(what: str) -> LoadError:
    """The one-line refusal of a file whose text is (or could be) over the limit."""
    return LoadError(f"{what}; the limit is one character of text per byte of max_file_mb "
                     "(qa index --max-file-mb)")


def reason(error: Exception, limit: int = 200) -> str:
    """An exception as a one-line reason (parsers' messages can span lines)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
