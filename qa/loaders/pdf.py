"""PDF, read with pypdf: each page's text, its ruled tables as rows of cells
(`qa.loaders.pdf_tables`), its lines joined back into paragraphs by `qa.loaders.reflow`,
and pages without a text layer read by OCR (`qa.loaders.ocr`) unless it is turned off. A
PDF is refused as soon as its text could pass the limit.
"""

import io
import re

from qa.errors import LoadError
from qa.loaders import ocr
from qa.loaders.base import Loaded, Reading, TextBudget, join_pages, reason, text_too_long
from qa.loaders.pdf_tables import draws_rules, with_tables
from qa.loaders.reflow import reflow

FORM_COST = 2_000  # bytes of content one drawing of a form counts beyond its own content
MAX_FORM_DEPTH = 50  # forms drawing forms, this deep at most
_DRAWS = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do\b")  # "/Name Do": draw an XObject


def load_pdf(data: bytes, reading: Reading) -> Loaded:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError("encrypted PDF (a password is needed to read it)")
        pages = _page_texts(reader, reading.budget)
        ruled = [n for n, page in enumerate(reader.pages) if pages[n].strip() and draws_rules(page)]
        pages = with_tables(data, pages, ruled, reading.budget) if ruled else pages
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
    text is extracted, the content it draws (`_drawn_size`) is added to a running total
    (a stream shared by pages counted for each, a form counted each time it is drawn),
    which must stay within the budget's limit: a character of text takes at least a byte
    of content, and the total bounds the time extraction takes. The characters extracted
    are charged to the budget as they come too (a font can map one byte to many
    characters).
    """
    max_chars, content, forms = budget.limit, 0, dict[int, int]()
    pages = []
    for page in reader.pages:
        content += _drawn_size(_streams(page.get("/Contents")), page.get("/Resources"), forms)
        if content > max_chars:
            raise text_too_long(
                f"the text of this PDF could exceed {max_chars:,} characters: its pages draw "
                f"{content / 1e6:.1f} MB of content (a stream shared by pages, or a form drawn "
                "many times, counted each time)")
        pages.append(page.extract_text(visitor_text=lambda text, *_: budget.charge(len(text)))
                     or "")
    return pages


def _drawn_size(streams: list, resources, forms: dict[int, int], depth: int = 0) -> int:
    """The bytes of content that drawing `streams` reads: their decoded size, and for each
    form XObject they draw (`/Name Do`), FORM_COST and the form's own drawn size, each
    time it is drawn, nested forms included. pypdf parses a form's content anew each
    time it is drawn, so a form that draws another 100 times, which draws another 100
    times, costs 10,000 drawings from a few bytes. `forms` keeps each form's drawn size
    (by its object's id), so each is measured once; pypdf keeps what it decoded."""
    size = 0
    for stream in streams:
        data = stream.get_data()
        size += len(data)
        named = _xobjects(resources)
        for name in _DRAWS.findall(data):
            form = named.get("/" + name.decode("latin-1"))
            if form is not None:
                size += FORM_COST + _form_size(form, resources, forms, depth)
    return size


def _form_size(form, resources, forms: dict[int, int], depth: int) -> int:
    """A form's drawn size, measured once; it draws with its own resources, or else with
    those of what draws it."""
    if id(form) not in forms:
        if depth >= MAX_FORM_DEPTH:
            raise LoadError(f"forms in this PDF are nested more than {MAX_FORM_DEPTH} deep")
        forms[id(form)] = 0  # a form that draws itself counts its own drawing once
        inner = form.get("/Resources", resources)
        forms[id(form)] = _drawn_size([form], inner, forms, depth + 1)
    return forms[id(form)]


def _xobjects(resources) -> dict:
    """The form XObjects that `resources` names, by name."""
    from pypdf.generic import DictionaryObject, StreamObject

    resources = resources.get_object() if resources is not None else None
    named = resources.get("/XObject") if isinstance(resources, DictionaryObject) else None
    named = named.get_object() if named is not None else None
    if not isinstance(named, DictionaryObject):
        return {}
    objects = {name: value.get_object() for name, value in named.items()}
    return {name: value for name, value in objects.items()
            if isinstance(value, StreamObject) and value.get("/Subtype") == "/Form"}


def _streams(contents) -> list:
    """The content streams of a page's /Contents (one stream or an array of them)."""
    from pypdf.generic import ArrayObject, StreamObject

    contents = contents.get_object() if contents is not None else ArrayObject()
    streams = [s.get_object() for s in (contents if isinstance(contents, ArrayObject)
                                        else [contents])]
    return [s for s in streams if isinstance(s, StreamObject)]
