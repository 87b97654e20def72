"""OCR: the text of images (.png, .jpg, .jpeg, .tif, .tiff, .webp) and of PDF pages that
have no text layer, read offline with RapidOCR.

RapidOCR runs PaddleOCR's text detection and recognition models on ONNX Runtime;
the models ship inside the `rapidocr` wheel and are loaded from there by path, so
nothing is downloaded at run time, and it pulls OpenCV's headless build (no libGL).
PDF pages are drawn by pypdfium2 in a child process, each within a deadline
(`qa.loaders.drawing`). OCR runs only on pages without text, reports its progress a page at a
time, and is bounded: an image over MAX_PIXELS is refused with one line, at most
MAX_PAGES pages of one file are read (the rest are left out, with a logged line saying
so), and a page PDFium cannot draw in time is left out with the pages after it (a
logged line). `qa index --no-ocr` (Settings.ocr) turns it off.
"""

import functools
import io
import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from tqdm import tqdm

from qa.errors import LoadError
from qa.loaders import drawing
from qa.loaders.base import Loaded, Reading, join_pages

log = logging.getLogger(__name__)
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")
MAX_PIXELS = 50_000_000  # an A4 page scanned at 600 dpi is 35 megapixels
MAX_PAGES = 100  # pages of one file read by OCR
RENDER_DPI = 200  # PDF pages are rendered at this resolution for OCR
MAX_SIDE = 2500  # ... but no side longer than this many pixels (a poster, a map)
MIN_TITLE_LETTERS = 3  # a line with fewer ("12/03", "#4") names nothing
MAX_TITLE = 80
OCR_OFF = "images and scanned pages are read by OCR, which is turned off (--no-ocr)"


def load_image(data: bytes, reading: Reading) -> Loaded:
    """An image's text, a line per line of the picture, and its title: its first line
    that reads as words (a receipt's shop, a notice's heading); each frame of a multi-page
    TIFF is a page."""
    if not reading.use_ocr:
        raise LoadError(OCR_OFF)
    image = open_image(data)
    pages = read_pages(_frames(image), getattr(image, "n_frames", 1), reading)
    text, starts = (pages[0], ()) if len(pages) == 1 else join_pages(pages)
    return content_title(text), text, starts


def content_title(text: str) -> str:
    """The first line of `text` with MIN_TITLE_LETTERS letters, at most MAX_TITLE
    characters of it; "" when none has."""
    for line in text.splitlines():
        if sum(c.isalpha() for c in line) >= MIN_TITLE_LETTERS:
            return line.strip()[:MAX_TITLE]
    return ""


def read_blank_pages(data: bytes, pages: list[str], reading: Reading) -> list[str]:
    """The PDF's page texts, those without text (scans) read by OCR from the drawn page; a
    PDF that pypdf reads but PDFium cannot open keeps the text it has (logged), and so
    do the pages from one PDFium cannot draw within its deadline on (`qa.loaders.drawing`)."""
    blank = [n for n, page in enumerate(pages) if not page.strip()]
    if not blank:
        return pages
    try:
        pdf = drawing.DrawnPdf(data)
    except drawing.NotDrawn as error:
        log.warning("OCR skipped: PDFium cannot open this PDF (%s)", error)
        return pages
    with pdf:
        texts = read_pages(_drawn(pdf, blank), len(blank), reading)
    read = dict(zip(blank, texts, strict=False))
    return [read.get(n, page) for n, page in enumerate(pages)]


def _drawn(pdf: "drawing.DrawnPdf", indexes: list[int]) -> Iterator:
    """The pages at `indexes` drawn for OCR (`draw_for_ocr`), until one cannot be."""
    for n in indexes:
        try:
            yield draw_for_ocr(pdf, n)
        except drawing.NotDrawn as error:
            log.warning("OCR stopped: %s; this page and the pages without text after it "
                        "are left out", error)
            return


def draw_for_ocr(pdf: "drawing.DrawnPdf", index: int):
    """Page `index` as OCR reads it: at RENDER_DPI, but no side over MAX_SIDE pixels."""
    return pdf.draw(index, MAX_SIDE, RENDER_DPI)


def read_pages(images: Iterable, count: int, reading: Reading) -> list[str]:
    """The text of each of `count` images (PIL images, possibly a lazy iterable), as many
    as the file's OCR pages left (`Reading.ocr_pages`, MAX_PAGES for a file and all its
    attachments together), with a progress bar when there are several; the text read is
    charged to the file's text budget. `Postponed` if the run has fewer pages left
    (`Reading.run_pages`)."""
    allowed = min(count, reading.ocr_pages)
    reading.run_pages.take(allowed)
    if count > allowed:
        log.warning("OCR reads %d of the %d pages without text in this file (MAX_PAGES, %d "
                    "for a file and its attachments together, or the run's limit)",
                    allowed, count, MAX_PAGES)
    bar = tqdm(total=allowed, desc="OCR", unit="page", leave=False, disable=count < 2)
    texts = []
    with bar:
        for _, image in zip(range(allowed), images, strict=False):  # no page past it
            reading.ocr_pages -= 1
            texts.append(reading.budget.add(_read(image)))
            bar.update()
    return texts


def open_image(data: bytes):
    """The image in `data`, opened (its header read, nothing decoded yet)."""
    from PIL import Image, UnidentifiedImageError

    try:
        return Image.open(io.BytesIO(data))
    except UnidentifiedImageError as error:
        raise LoadError("not a readable image (damaged, or not of the type its name "
                        "says)") from error
    except OSError as error:  # damaged: "Truncated File Read"
        raise LoadError(f"not a readable image: {error}") from error
    except Image.DecompressionBombError as error:  # refused by PIL from the header alone
        pixels = re.search(r"\((\d+) pixels\)", str(error))  # "Image size (N pixels) ..."
        size = (f"{int(pixels.group(1)) / 1e6:,.0f} megapixels" if pixels
                else "over Pillow's decompression-bomb limit")
        raise LoadError(f"the image is too large to read: {size}; the limit is "
                        f"{MAX_PIXELS / 1e6:.0f} megapixels") from error


def _frames(image) -> Iterator:
    """The frames of an image (one, or a TIFF's pages), each decoded only when it is
    asked for (`decoded`)."""
    from PIL import ImageSequence

    try:
        for frame in ImageSequence.Iterator(image):
            yield decoded(frame)
    except OSError as error:  # a damaged TIFF's next frame cannot be found
        raise LoadError(f"not a readable image: {error}") from error


def decoded(frame):
    """The frame an image is at, decoded in RGB once its pixel count is checked;
    LoadError if it is too large or damaged."""
    width, height = frame.size
    if width * height > MAX_PIXELS:
        raise LoadError(f"the image is {width:,} × {height:,} pixels "
                        f"({width * height / 1e6:.0f} megapixels); the limit is "
                        f"{MAX_PIXELS / 1e6:.0f} megapixels")
    try:
        return frame.convert("RGB")
    except OSError as error:  # a damaged or truncated image is read only here
        raise LoadError(f"not a readable image: {error}") from error


def _read(image) -> str:
    """The lines of text RapidOCR finds in one image, top to bottom, a line each; "" for
    an image of one colour (a blank page), without loading the models."""
    import numpy as np

    if all(low == high for low, high in image.getextrema()):
        return ""
    result = engine()(np.asarray(image))
    if result.boxes is None or not result.txts:
        return ""
    return "\n".join(lines(zip(result.boxes.tolist(), result.txts, strict=True)))


def lines(boxes: Iterable[tuple[Sequence[Sequence[float]], str]]) -> list[str]:
    """The lines of a picture from RapidOCR's boxes (corner points, text): the boxes
    that share a line (each one's middle within the line's height) joined left to right,
    top to bottom. RapidOCR finds a text box per run of words, so a receipt's "Flat
    white" and its price at the far right are two boxes of one line."""
    rows: list[tuple[float, float, list[tuple[float, str]]]] = []  # top, bottom, boxes
    for corners, text in sorted(boxes, key=lambda box: min(y for _, y in box[0])):
        if not text.strip():
            continue
        ys = [y for _, y in corners]
        top, bottom, left = min(ys), max(ys), min(x for x, _ in corners)
        middle = (top + bottom) / 2
        if rows and rows[-1][0] <= middle <= rows[-1][1]:
            rows[-1][2].append((left, text.strip()))
        else:
            rows.append((top, bottom, [(left, text.strip())]))
    return [" ".join(text for _, text in sorted(row)) for _, _, row in rows]


@functools.cache
def engine():
    """One RapidOCR instance, with the models inside its package named by path. Its
    orientation model is left out: on upright scans it turned some lines upside down
    (read as noise), and scans are upright far more often than not."""
    try:
        import onnxruntime  # noqa: F401 - RapidOCR's engine, not a dependency of its own
        import rapidocr
    except ImportError as error:
        raise LoadError("OCR needs the rapidocr and onnxruntime packages: "
                        "pip install 'qa[ocr]' (or index with --no-ocr)") from error
    models = Path(rapidocr.__file__).parent / "models"
    return rapidocr.RapidOCR(params={
        "Global.log_level": "error",
        "Global.use_cls": False,
        "Det.model_path": str(models / "PP-OCRv6_det_small.onnx"),
        "Rec.model_path": str(models / "PP-OCRv6_rec_small.onnx"),
    })
