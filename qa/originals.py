"""Originals: an indexed file as it looks, for a viewer to show beside the text it gave.

What a citation points into, drawn from the file itself: a PDF page as a PNG with the
boxes of the quoted characters (PDFium's text page: character positions), an image (or
a frame of a TIFF, or a scanned PDF page) with the boxes of the OCR lines the quote was
read from (RapidOCR again, on that one image, at view time: indexing keeps no boxes),
a sheet or CSV as rows with the cited ones marked, a slide as its title, text and notes, a
Word document as its headings, paragraphs and tables (the cited table rows marked).

Only a file that is in the index and unchanged since it was indexed is read, and it is
read as indexing reads one (`read_original`): a file edited since could be anything, and
indexing it again applies the checks of indexing to it. Drawing is bounded: one page at
a time, at most VIEW_SIDE pixels on its longest side (a PDF page by a child process,
within its deadline: `qa.loaders.drawing`), an image checked against the limits OCR applies at
indexing (with the same messages), a TIFF's frame sought directly, at most SHOWN_ROWS
rows of a sheet around the cited one, SHOWN_COLUMNS columns and SHOWN_CHARS characters a
cell, and rows read no further than those shown; at most SHOWN_BLOCKS headings,
paragraphs and tables of a Word document around the first holding the quote. Boxes are
fractions of the page (left, top, width, height), so a viewer scales them with the
picture.
"""

import contextlib
import hashlib
import io
import os
import re
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from qa.errors import LoadError, QAError
from qa.index import Index
from qa.indexing.files import open_regular
from qa.loaders import drawing, ocr, opendocument, sheets, zipcheck
from qa.loaders.base import TextBudget
from qa.loaders.tables import cell_text, row_fields, row_line, split_header
from qa.loaders.word import word_rows, word_styles
from qa.settings import Settings

VIEW_SIDE = 1400  # pixels on the longest side of a drawn page or image
SHOWN_ROWS = 200  # rows of a sheet shown around the cited one
SHOWN_BLOCKS = 400  # headings, paragraphs and tables of a Word document shown
SHOWN_COLUMNS = 50  # columns of a sheet shown
SHOWN_CHARS = 500  # characters shown of a cell
MIN_MARKED_WORDS = 3  # a quote not whole on its page has its first words marked, 3 at least
_IGNORED = re.compile(r"[\s\-\u00ad]+")  # what line breaks and reflow change in a quote
CHANGED = "the file has changed since it was indexed: index it again to view it"

OCR_CACHED = 16  # pages whose OCR lines are kept: a page looked at again is not read again
Box = tuple[float, float, float, float]  # left, top, width, height: fractions of the page
Lines = tuple[tuple[str, Box], ...]  # what OCR read on a page: each line and its box
_ocr_cache: OrderedDict[tuple[str, str, int], Lines] = OrderedDict()  # least recent first
_ocr_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Picture:
    """A page or image drawn as PNG (at most VIEW_SIDE pixels a side), the quote's boxes
    on it, and how many pages the file has."""

    png: bytes
    width: int
    height: int
    boxes: list[Box]
    pages: int


@dataclass(frozen=True, slots=True)
class Sheet:
    """A sheet (or a CSV file) as rows: its name ("" for CSV), its header row, and the
    shown rows as (row number in the file, cells), `marked` holding the cited rows'
    numbers. The rows shown are the non-empty ones of SHOWN_ROWS rows of the file from a
    little before the first cited row, and no more is read: `total` (the non-empty rows
    under the header) is None when the sheet goes on past them. At most SHOWN_COLUMNS
    columns are shown of the `columns` of the widest row read, and SHOWN_CHARS characters
    of a cell; `sheets`: how many the file has."""

    name: str
    header: list[str]
    rows: list[tuple[int, list[str]]]
    marked: set[int] = field(default_factory=set)
    total: int | None = 0
    columns: int = 0
    sheets: int = 1


@dataclass(frozen=True, slots=True)
class Slide:
    """A slide's title, the text of its other shapes (a paragraph each) and its notes."""

    title: str
    texts: list[str]
    notes: str
    pages: int


@dataclass(frozen=True, slots=True)
class Block:
    """A part of a Word document as it has it: a "heading" (`level` 1 for the title, 2
    for Heading 1, …), a "paragraph" (`text`), or a "table" (`rows` of cell texts, the
    first its header; `marked`: the indexes of the rows a quote is)."""

    kind: str
    text: str = ""
    level: int = 0
    rows: list[list[str]] = field(default_factory=list)
    marked: set[int] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Original:
    """An indexed file as read for a viewer (`read_original`): its bytes, and the path and
    SHA-256 that name them (what is cached of it is kept by these, not by its bytes)."""

    path: str
    sha256: str
    data: bytes


def read_original(index: Index, path: str) -> Original:
    """An indexed file, if it is unchanged since it was indexed, read as indexing reads a
    file (`qa.indexing.files.open_regular`: a regular file, no symbolic link followed, through one
    descriptor): its size checked against the indexed one before reading, at most that
    size and one byte more read, then its SHA-256 checked. QAError if it is not in the
    index, is gone, or has changed (a pipe, a device or a link in its place, another
    size, other bytes)."""
    state = index.backend.file_states().get(path)
    if state is None:
        raise QAError("that file is not in the index")
    try:
        with open_regular(Path(path)) as opened:
            if os.fstat(opened.fileno()).st_size != state.size:
                raise QAError(CHANGED)
            data = opened.read(state.size + 1)  # it may grow while it is read
    except LoadError as error:  # not a regular file now
        raise QAError(CHANGED) from error
    except OSError as error:
        raise QAError(f"the file can no longer be read ({error.strerror})") from error
    if len(data) != state.size or hashlib.sha256(data).hexdigest() != state.sha256:
        raise QAError(CHANGED)
    return Original(path, state.sha256, data)


def pdf_page(original: Original, page: int, quote: str) -> Picture:
    """PDF page `page` (from 1) drawn (by a child process, within its deadline:
    `qa.loaders.drawing`), with the boxes of the characters of `quote` on it."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(original.data)
    except pypdfium2.PdfiumError as error:
        raise LoadError(f"unreadable PDF: {error}") from error
    try:
        count = len(document)
        index = _page_index(page, count)
        with drawing.DrawnPdf(original.data) as pdf:
            image = pdf.draw(index, VIEW_SIDE)
            text_page = document[index].get_textpage()
            if text_page.count_chars():
                width, height = document[index].get_size()
                boxes = _pdf_boxes(text_page, quote, width, height)
            else:  # a scan, read by OCR at indexing: its lines are found so again
                boxes = _read_boxes(original, page, quote, lambda: ocr.draw_for_ocr(pdf, index))
        return Picture(_png(image), image.width, image.height, boxes, count)
    finally:
        document.close()


def _pdf_boxes(text_page, quote: str, width: float, height: float) -> list[Box]:
    """The rectangles PDFium gives for the run of characters that reads as `quote`, or as
    its longest opening words on the page (a sentence that runs on to the next page). A
    table's row, as indexing writes it (`qa.loaders.pdf_tables`), reads on the page as its
    cells' values."""
    row = row_fields(quote)
    if row is not None:
        quote = " ".join(value for _, value in row[1])
    units = [(ch, i) for i, ch in enumerate(text_page.get_text_range())]
    found, words = _locate(units, quote), quote.split()
    while not found and len(words) > MIN_MARKED_WORDS:
        words.pop()
        found = _locate(units, " ".join(words), last=True)
    if not found:
        return []
    first, last = min(found), max(found)
    boxes = []
    for n in range(text_page.count_rects(first, last - first + 1)):
        left, bottom, right, top = text_page.get_rect(n)
        boxes.append((left / width, (height - top) / height, (right - left) / width,
                      (top - bottom) / height))
    return boxes


def image_page(original: Original, page: int, quote: str) -> Picture:
    """Frame `page` (from 1; a TIFF has several) of an image drawn, with the boxes of the
    OCR lines that hold `quote`; the image is refused as at indexing if it is too large."""
    frame, count = _frame(original.data, page)
    boxes = _read_boxes(original, page, quote, lambda: frame)
    frame.thumbnail((VIEW_SIDE, VIEW_SIDE))
    return Picture(_png(frame), frame.width, frame.height, boxes, count)


def _read_boxes(original: Original, page: int, quote: str, draw: Callable[[], Any]
                ) -> list[Box]:
    """The boxes of the OCR lines that hold `quote` in the picture of the page `draw`
    gives (no OCR without a quote)."""
    if not quote.strip():
        return []
    lines = _ocr_lines(original, page, draw)
    found = _locate([(ch, n) for n, (text, _) in enumerate(lines) for ch in text], quote)
    return [lines[n][1] for n in sorted(found)]


def _frame(data: bytes, page: int):
    """Frame `page` of an image, sought directly (no frame before it decoded) and decoded
    after the checks OCR makes at indexing (PIL's decompression-bomb limit,
    ocr.MAX_PIXELS, with their messages); and how many frames are shown: at most
    ocr.MAX_PAGES, the frames indexing reads."""
    image = ocr.open_image(data)
    count = _frame_count(image)
    if page > count == ocr.MAX_PAGES:
        raise QAError(f"there is no page {page} to show: the viewer shows the first "
                      f"{count} pages of an image, those indexing reads")
    image.seek(_page_index(page, count))
    return ocr.decoded(image), count


def _frame_count(image) -> int:
    """An image's frames, counted up to ocr.MAX_PAGES (a TIFF's by the header of each;
    Pillow's n_frames reads every one's, 3 s for 23,000)."""
    count = 1
    with contextlib.suppress(EOFError):
        while count < ocr.MAX_PAGES:
            image.seek(count)
            count += 1
    return count


def _ocr_lines(original: Original, page: int, draw: Callable[[], Any]) -> Lines:
    """The lines RapidOCR reads in the picture `draw` gives (an image's frame, or a PDF
    page drawn as OCR draws it at indexing), each with its box as fractions of the
    page. OCR takes seconds, so the last OCR_CACHED pages' lines are kept, by the file's
    path, SHA-256 and page: never its bytes."""
    key = (original.path, original.sha256, page)
    with _ocr_lock:
        if key in _ocr_cache:
            _ocr_cache.move_to_end(key)
            return _ocr_cache[key]
    lines = _read_lines(draw())
    with _ocr_lock:
        _ocr_cache[key] = lines
        if len(_ocr_cache) > OCR_CACHED:
            _ocr_cache.popitem(last=False)
    return lines


def _read_lines(picture) -> Lines:
    """Each line RapidOCR reads in `picture`, with its box as fractions of it."""
    import numpy as np

    result = ocr.engine()(np.asarray(picture))
    lines = []
    boxes = result.boxes if result.boxes is not None else ()
    for text, points in zip(result.txts or (), boxes, strict=False):
        xs, ys = [float(p[0]) for p in points], [float(p[1]) for p in points]
        lines.append((str(text), (min(xs) / picture.width, min(ys) / picture.height,
                                  (max(xs) - min(xs)) / picture.width,
                                  (max(ys) - min(ys)) / picture.height)))
    return tuple(lines)


def _locate(units: Sequence[tuple[str, int]], quote: str, last: bool = False) -> set[int]:
    """The ids of the units (characters, each with the id of what holds it) that spell
    `quote` (its `last` place), compared without whitespace, hyphens or case; empty if it
    is not there."""
    wanted = _IGNORED.sub("", quote).lower()
    kept = [(ch.lower()[:1], unit) for ch, unit in units if not _IGNORED.fullmatch(ch)]
    text = "".join(ch for ch, _ in kept)
    start = (text.rfind(wanted) if last else text.find(wanted)) if wanted else -1
    return {unit for _, unit in kept[start : start + len(wanted)]} if start >= 0 else set()


def sheet(data: bytes, suffix: str, page: int | None, quote: str) -> Sheet:
    """Sheet `page` (from 1; a CSV or TSV file is one) as the rows shown (`Sheet`), the
    rows `quote` is made of marked (a row is marked when its line, as indexing writes it,
    is in the quote); its rows are read as they come, and no further than those shown."""
    with _sheets(data, suffix.lower()) as books:
        name, rows = books[_page_index(page or 1, len(books))]
        return _shown(name, rows, quote, len(books))


def _shown(name: str, rows: Iterable[Iterable[object]], quote: str, sheets: int) -> Sheet:
    """What `sheet` shows of a sheet's rows, read until the last row shown."""
    numbered: Iterator[tuple[int, list[str]]] = (
        (n, [cell_text(c) for c in row]) for n, row in enumerate(rows, 1))
    _, found, read = split_header(  # title rows above the header are not shown
        ((n, cells) for n, cells in numbered if any(cells)), lambda item: item[1])
    top, header = found or (0, [])
    numbered = chain(read, numbered)  # on from the header: empty rows count again
    wanted = _IGNORED.sub("", quote).lower()
    budget = TextBudget(Settings().max_chars)
    opening, recent = [], deque[tuple[int, list[str]]]()  # the first rows, the last ones
    window: list[tuple[int, list[str]]] | None = None  # the rows from before the cited one
    marked: set[int] = set()
    widest, total, end = len(header), 0, 0
    for n, cells in numbered:
        if window is not None and n >= end:  # empty rows count: they are read too
            return Sheet(name, _capped(header), window, marked, None, widest, sheets)
        if not any(cells):
            continue
        total, widest = total + 1, max(widest, len(cells))
        if _row_in(row_line(header, cells, name, budget=budget), wanted):
            marked.add(n)
            if window is None:  # the first row cited
                window = [row for row in recent if row[0] >= n - SHOWN_ROWS // 4]
                end = (window[0][0] if window else n) + SHOWN_ROWS
        row = (n, _capped(cells))
        if window is not None:
            window.append(row)
            continue
        if n < top + SHOWN_ROWS:
            opening.append(row)
        recent.append(row)
        if recent[0][0] < n - SHOWN_ROWS // 4:
            recent.popleft()
    return Sheet(name, _capped(header), opening if window is None else window, marked, total,
                 widest, sheets)


def _capped(cells: list[str]) -> list[str]:
    """The cells shown of a row: SHOWN_COLUMNS, each at most SHOWN_CHARS characters."""
    return [cell if len(cell) <= SHOWN_CHARS else cell[:SHOWN_CHARS] + "…"
            for cell in cells[:SHOWN_COLUMNS]]


def _row_in(line: str, wanted: str) -> bool:
    line = _IGNORED.sub("", line).lower()
    return bool(line and wanted) and (line in wanted or wanted in line)


@contextlib.contextmanager
def _sheets(data: bytes, suffix: str) -> Iterator[Sequence[tuple[str, Iterable[Iterable]]]]:
    """Each sheet of a file (a CSV or TSV file is one): its name and its rows, each read
    when it is asked for, as indexing reads them (`qa.loaders.sheets`)."""
    if suffix in (".csv", ".tsv"):
        yield [("", sheets.delimited_rows(data, "\t" if suffix == ".tsv" else None))]
    elif suffix == ".ods":
        zipcheck.open_checked(data, ".ods")
        document = opendocument.open_document(data)
        budget = TextBudget(Settings().max_chars)  # repeated rows are charged as they come
        yield list(opendocument.tables(document, budget))
    else:
        zipcheck.open_checked(data, suffix)
        with sheets.workbook_sheets(data) as (_, books):
            yield books


def slide(data: bytes, page: int) -> Slide:
    """Slide `page` (from 1) of a .pptx: title, the text of its shapes, its notes."""
    from pptx import Presentation

    zipcheck.open_checked(data, ".pptx")
    slides = Presentation(io.BytesIO(data)).slides
    shown = slides[_page_index(page, len(slides))]
    heading = shown.shapes.title
    title = heading.text_frame.text if heading is not None else ""
    texts = [shape.text_frame.text for shape in _shapes(shown.shapes)
             if shape.has_text_frame and (heading is None or shape.shape_id != heading.shape_id)
             and shape.text_frame.text.strip()]
    notes = (shown.notes_slide.notes_text_frame.text
             if shown.has_notes_slide and shown.notes_slide.notes_text_frame is not None else "")
    return Slide(title, texts, notes, len(slides))


def word(data: bytes, quote: str) -> list[Block]:
    """A .docx's headings, paragraphs and tables in document order, the table rows `quote`
    is marked: at most SHOWN_BLOCKS, around the first block holding the quote."""
    import docx

    zipcheck.open_checked(data, ".docx")
    document = docx.Document(io.BytesIO(data))
    styles = word_styles(document)
    blocks = []
    for item in document.iter_inner_content():
        if hasattr(item, "rows"):
            rows = list(word_rows(item))
            marked = {n for n, row in enumerate(rows) if n and _cells_in(row, quote)}
            blocks.append(Block("table", rows=rows, marked=marked))
        elif item.text.strip():
            level = _heading_level(styles.get(item._p.style or "", ""))
            blocks.append(Block("heading" if level else "paragraph", item.text, level))
    wanted = " ".join(quote.split())
    held = next((n for n, block in enumerate(blocks) if block.marked or (
        wanted and wanted in " ".join(block.text.split()))), 0)
    start = max(0, min(held - SHOWN_BLOCKS // 2, len(blocks) - SHOWN_BLOCKS))
    return blocks[start:start + SHOWN_BLOCKS]


def _cells_in(cells: list[str], quote: str) -> bool:
    """Whether a quote holds each of a table row's cells (and the row has one)."""
    said = _IGNORED.sub("", quote).lower()
    held = [_IGNORED.sub("", cell).lower() for cell in cells]
    return bool(said) and any(held) and all(cell in said for cell in held)


def _heading_level(style: str) -> int:
    """1 for the Title style, n + 1 for "Heading n", 0 for any other."""
    if style == "Title":
        return 1
    number = style.removeprefix("Heading ")
    return int(number) + 1 if number != style and number.isdigit() else 0


def _shapes(shapes: Iterable) -> Iterable:
    for shape in shapes:
        if shape.shape_type == 6:  # a group: its shapes, in order
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _page_index(page: int, count: int) -> int:
    """A page number (from 1) as an index, QAError when the file has no such page."""
    if not 1 <= page <= count:
        raise QAError(f"there is no page {page}: the file has {count}")
    return page - 1


def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()
