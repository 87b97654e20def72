"""PDF, read with pypdf: each page's text, its lines joined back into paragraphs by
`qa.reflow`, and pages without a text layer read by OCR (`qa.loaders.ocr`) unless it is
turned off. A PDF is refused as soon as its text could pass the limit.
"""

import io

from qa.errors import LoadError
from qa.loaders import ocr
from qa.loaders.base import Loaded, Reading, TextBudget, join_pages, reason, text_too_long
from qa.reflow import reflow


def load_pdf(data: bytes, reading: Reading) -> Loaded:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError("encrypted PDF (a password is needed to read it)")
        pages = _page_texts(reader, reading.budget)
        pages = reflow(ocr.read_blank_pages(data, pages, reading) if reading.use_ocr else pages)
        title = (reader.metadata.title if reader.metadata else None) or ""
    except (PdfReadError, ValueError, KeyError, TypeError) as error:
        raise LoadError(f"unreadable PDF: {reason(error)}") from error
    text, starts = join_pages(pages)
    return title, text, starts


def _page_texts(reader, budget: TextBudget) -> list[str]:
    """The text of each page, refusing the PDF as soon as it could pass the budget.

    Pages can share one content stream, and a stream that packs to kilobytes can unpack
    to tens of megabytes, so the file's size says nothing of its text. Before a page's
    text is extracted, the decoded size of its content streams is added to a running
    total (a stream shared by pages counted for each), which must stay within the
    budget's limit: a character of text takes at least a byte of content. The characters
    extracted are charged to the budget as they come too (a font can map one byte to many
    characters, a page can draw a form many times).
    """
    max_chars, content = budget.limit, 0
    pages = []
    for page in reader.pages:
        content += _content_size(page)
        if content > max_chars:
            raise text_too_long(
                f"the text of this PDF could exceed {max_chars:,} characters: its pages hold "
                f"{content / 1e6:.1f} MB of content (a stream shared by pages counted for each)")
        pages.append(page.extract_text(visitor_text=lambda text, *_: budget.charge(len(text)))
                     or "")
    return pages


def _content_size(page) -> int:
    """The decoded size in bytes of a page's content streams (pypdf keeps what it decoded
    for the text extraction that follows)."""
    from pypdf.generic import ArrayObject, StreamObject

    contents = page.get("/Contents")
    contents = contents.get_object() if contents is not None else ArrayObject()
    streams = [s.get_object() for s in (contents if isinstance(contents, ArrayObject)
                                        else [contents])]
    return sum(len(s.get_data()) for s in streams if isinstance(s, StreamObject))
