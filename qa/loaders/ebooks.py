"""E-books (.epub), read with EbookLib: one page per chapter, in reading order (the spine).

Each chapter's XHTML becomes its whole text, a block element a line, as `qa.documents`
reads a page too deeply nested for trafilatura (trafilatura would keep only what it takes
for a web page's main text): a chapter's heading opens its page, and the chapter's
number is the page a citation gives. Chapters with no text (a cover, an empty title
page) are left out, so chapter numbers count chapters with text.
"""

import io

from qa.loaders import join_pages, zipcheck


def load_epub(data: bytes) -> tuple[str, str, tuple[int, ...]]:
    from ebooklib import ITEM_DOCUMENT, epub

    zipcheck.open_checked(data, ".epub")
    book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    chapters = []
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is not None and item.get_type() == ITEM_DOCUMENT:
            chapters.append(_chapter_text(item.get_content()))
    titles = book.get_metadata("DC", "title")
    text, starts = join_pages([c for c in chapters if c])
    return (titles[0][0] if titles else ""), text, starts


def _chapter_text(content: bytes) -> str:
    from qa.documents import _all_text, decode_text

    return _all_text(decode_text(content)).strip()
