"""E-books (.epub), read with EbookLib: one page per chapter, in reading order (the spine).

Each chapter's XHTML becomes its whole text, a block element a line, as `qa.loaders.html`
reads a page too deeply nested for trafilatura (trafilatura would keep only what it takes
for a web page's main text): a chapter's heading opens its page, and the chapter's
number is the page a citation gives. Chapters with no text (a cover, an empty title
page) are left out, so chapter numbers count chapters with text.
"""

import io

from qa.loaders.base import Loaded, Reading, join_pages
from qa.loaders.decoding import decode_text
from qa.loaders.html import all_text


def load_epub(data: bytes, reading: Reading) -> Loaded:
    from ebooklib import ITEM_DOCUMENT, epub

    book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    chapters, read = [], dict[str, str]()  # each part's text, read once however often listed
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is not None and item.get_type() == ITEM_DOCUMENT:
            if idref not in read:
                read[idref] = _chapter_text(item.get_content())
            chapters.append(reading.budget.add(read[idref]))
    titles = book.get_metadata("DC", "title")
    text, starts = join_pages([c for c in chapters if c])
    return (titles[0][0] if titles else ""), text, starts


def _chapter_text(content: bytes) -> str:
    return all_text(decode_text(content)).strip()
