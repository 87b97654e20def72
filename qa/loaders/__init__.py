"""Loaders for the formats beyond plain text, HTML, PDF and .docx, one module per family.

Each loader takes a file's bytes and returns (title, text, page_starts), as the loaders
in `qa.documents` do, and `qa.documents` registers it by extension. A loader raises
`qa.errors.LoadError` with a one-line reason for a file it cannot read; anything else it
raises is turned into one by `qa.documents.load`. A "page" is whatever a reader of the
format cites: a slide, a sheet, a chapter, a message, a scanned page.
"""

from collections.abc import Sequence

PAGE_BREAK = "\n\n"


def join_pages(pages: Sequence[str]) -> tuple[str, tuple[int, ...]]:
    """The pages' text joined by a blank line, and the offset where each page begins."""
    starts, offset = [], 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + len(PAGE_BREAK)
    return PAGE_BREAK.join(pages), tuple(starts)
