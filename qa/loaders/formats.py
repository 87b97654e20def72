"""Documents: the registry of the formats `qa` reads, and `load`, which reads a file's bytes
into a `Document` by its format.

`FORMATS` is the one list of formats: each format's extensions, its loader (a module of
`qa.loaders`, one per format) and whether it is a zip package (checked for zip bombs by
`qa.loaders.zipcheck` before its loader sees it). The supported extensions, the web
chat's upload picker and the table in docs/formats.md all come from it. Each format is
read by a well-kept library (the loader's module says which). Character offsets
everywhere else in `qa` refer to `Document.text` as returned here; so do the spans of
the rows of its `tables`, found there once the text is made (`qa.loaders.tables`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from qa.errors import LoadError
from qa.loaders import (
    ebooks,
    email,
    html,
    markdown,
    ocr,
    opendocument,
    pdf,
    rtf,
    sheets,
    slides,
    text,
    word,
    zipcheck,
)
from qa.loaders.base import Loaded, Reading, RunPages, TextBudget, reason, text_too_long
from qa.loaders.cells import Table
from qa.loaders.tables import located
from qa.settings import Settings


@dataclass(frozen=True, slots=True)
class Document:
    """A file's extracted text.

    title: the title the content itself gives (metadata, first heading), or "".
    page_starts: for paged formats, the offset in `text` where each page begins
        (page 1 first); empty for formats without pages.
    tables: its tables as typed cells, each row with its line's span in `text`.
    """

    path: str
    title: str
    text: str
    page_starts: tuple[int, ...] = ()
    tables: tuple[Table, ...] = ()

    def sections(self) -> list[tuple[int, int, int | None]]:
        """(start, end, page) of each page, or of the whole text when there are no pages."""
        if not self.page_starts:
            return [(0, len(self.text), None)]
        ends = [*self.page_starts[1:], len(self.text)]
        return [(s, e, n) for n, (s, e) in enumerate(zip(self.page_starts, ends, strict=True), 1)]


@dataclass(frozen=True, slots=True)
class Format:
    """A format `qa` reads: its extensions (lower case, with the dot), its loader, whether
    it is a zip package, whose unpacked sizes are checked before it is read, and its kind,
    which says how the original is shown and a place in it named (KINDS)."""

    extensions: tuple[str, ...]
    load: Callable[[bytes, Reading], Loaded]
    zipped: bool = False
    kind: str = "text"


FORMATS = (
    Format((".txt",), text.load_text),
    Format((".md", ".markdown"), markdown.load_markdown),
    Format((".html", ".htm"), html.load_html),
    Format((".pdf",), pdf.load_pdf, kind="pdf"),
    Format((".docx",), word.load_docx, zipped=True, kind="word"),
    Format((".pptx",), slides.load_pptx, zipped=True, kind="slides"),
    Format((".xlsx", ".xlsm"), sheets.load_xlsx, zipped=True, kind="sheet"),
    Format((".ods",), sheets.load_ods, zipped=True, kind="sheet"),
    Format((".csv",), sheets.load_csv, kind="sheet"),
    Format((".tsv",), sheets.load_tsv, kind="sheet"),
    Format((".epub",), ebooks.load_epub, zipped=True),
    Format((".odt",), opendocument.load_odt, zipped=True),
    Format((".rtf",), rtf.load_rtf),
    Format((".eml",), email.load_eml),
    Format((".mbox",), email.load_mbox),
    Format(ocr.IMAGE_EXTENSIONS, ocr.load_image, kind="image"),
)
# how an original is shown: its text; a PDF's or an image's page drawn; a sheet's rows; a
# slide's title, text and notes; a Word file's blocks
KINDS = ("text", "pdf", "image", "sheet", "slides", "word")
_BY_EXTENSION = {extension: f for f in FORMATS for extension in f.extensions}
SUPPORTED_EXTENSIONS = frozenset(_BY_EXTENSION)


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_EXTENSIONS


def kind_of(path: str | Path) -> str:
    """The kind of the file at `path` (KINDS), by its extension; "text" for one `qa` does
    not read."""
    found = _BY_EXTENSION.get(Path(path).suffix.lower())
    return found.kind if found else "text"


def load(
    path: Path, data: bytes, use_ocr: bool = True, max_chars: int = Settings().max_chars,
    run_pages: RunPages | None = None,
) -> Document:
    """Extract the text of `data`, the bytes of the file at `path`; LoadError if it has none
    or more than `max_chars` characters (charged while it is made, so a file is refused
    the moment its text passes the limit; a PDF as soon as it could).

    use_ocr: read images, and PDF pages without a text layer, by OCR.
    run_pages: the pages OCR may still read in the indexing run this file is read in
        (`Postponed` if it needs more); None: this file alone, up to ocr.MAX_PAGES."""
    run_pages = run_pages or RunPages(ocr.MAX_PAGES)
    reading = Reading(TextBudget(max_chars), use_ocr, _read,
                      min(ocr.MAX_PAGES, run_pages.limit), run_pages)
    title, text, page_starts = _read(path, data, reading)
    if not text.strip():
        raise LoadError("no text to index (the file is empty or has no text layer)")
    if len(text) > max_chars:
        raise text_too_long(f"the text of this file is {len(text):,} characters, over "
                            f"{max_chars:,}")
    return Document(str(path), title.strip(), text, page_starts,
                    located(text, reading.budget.tables))


def _read(path: Path, data: bytes, reading: Reading) -> Loaded:
    """The file's text by its format's loader, any error it raises as a LoadError."""
    suffix = path.suffix.lower()
    found = _BY_EXTENSION.get(suffix)
    if found is None:
        raise LoadError(f"unsupported file type {path.suffix or '(none)'!r}")
    try:
        if found.zipped:
            zipcheck.open_checked(data, suffix)
        return found.load(data, reading)
    except LoadError:
        raise
    except Exception as error:
        # pypdf, python-docx (lxml, zlib) and trafilatura raise many kinds of error on
        # damaged input (NotImplementedError for an unknown PDF filter, a DependencyError
        # for an AES-encrypted PDF without `cryptography`...): one bad file must be
        # reported, never stop the whole run.
        raise LoadError(f"unreadable {suffix.lstrip('.')} file: {reason(error)}") from error
