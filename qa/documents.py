"""Documents: find supported files and turn each into plain text with its pages.

Each format is read by a well-kept library: pypdf (pages, their lines joined back into
paragraphs by `qa.reflow`), python-docx (after a check of the unpacked sizes, against
zip bombs), trafilatura (the main text of an HTML page, without navigation or scripts,
from lxml's tree; a page nested past lxml's 2048 levels gives all its text through
html.parser instead), markdown-it (Markdown's pipe tables) and charset-normalizer (text
in encodings other than UTF-8); the other formats (slides, spreadsheets, CSV, e-books,
OpenDocument, RTF, e-mail, images) by the loaders in `qa.loaders`, and PDF pages without
a text layer by OCR (`qa.loaders.ocr`) unless it is turned off. Table rows are written by
`qa.tables`, in place. Character offsets everywhere else in `qa` refer to `Document.text`
as returned here.
"""

import errno
import io
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html import parser as html_parser
from pathlib import Path
from stat import S_ISREG
from typing import Any, BinaryIO

from qa.errors import LoadError
from qa.loaders import ebooks, email, ocr, opendocument, rtf, sheets, slides, zipcheck
from qa.reflow import reflow
from qa.settings import Settings
from qa.tables import table_lines

SUPPORTED_EXTENSIONS = frozenset({
    ".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx", ".pptx", ".xlsx", ".xlsm",
    ".ods", ".csv", ".tsv", ".epub", ".odt", ".rtf", ".eml", ".mbox", *ocr.IMAGE_EXTENSIONS})
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_PAGE_BREAK = "\n\n"
LINK_OUTSIDE = "links outside the folders given"
NAME_NOT_UTF8 = "the name is not valid UTF-8 (rename it to index it)"


@dataclass(frozen=True, slots=True)
class Document:
    """A file's extracted text.

    title: the title the content itself gives (metadata, first heading), or "".
    page_starts: for paged formats, the offset in `text` where each page begins
        (page 1 first); empty for formats without pages.
    """

    path: str
    title: str
    text: str
    page_starts: tuple[int, ...] = ()

    def sections(self) -> list[tuple[int, int, int | None]]:
        """(start, end, page) of each page, or of the whole text when there are no pages."""
        if not self.page_starts:
            return [(0, len(self.text), None)]
        ends = [*self.page_starts[1:], len(self.text)]
        return [(s, e, n) for n, (s, e) in enumerate(zip(self.page_starts, ends, strict=True), 1)]


@dataclass(frozen=True, slots=True)
class Found:
    """A file found to index: its canonical path, whether it was named itself (not found
    in a folder named), and why it is passed over, if it is."""

    path: Path
    named: bool
    skip: str = ""


def canonical(path: str | os.PathLike) -> Path:
    """The absolute path with symlinks, '.' and '..' resolved; a broken link (dangling, or
    a loop) resolves only its folder, so that reading it reports why it is broken."""
    path = Path(path).expanduser().absolute()
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):
        return path.parent.resolve() / path.name


def find_files(paths: Iterable[str | os.PathLike]) -> Iterator[Found]:
    """The files named, and the files inside the folders named, recursively, each once.

    Each file is found at its canonical path (`canonical`), so a file reached twice (as
    `docs` and `docs/../docs`, or through a link) is found once. A path named is always
    taken. Inside a folder named, a symbolic link whose target is inside one of the
    folders named is that target (a linked folder's files are found at their own
    paths); a link leading elsewhere is passed over, with the reason LINK_OUTSIDE.
    Hidden files and folders (such as an index folder or .git) are passed over
    silently; files of unsupported types are found too, so the caller can report them.
    A file or folder whose name is not valid UTF-8 is passed over with NAME_NOT_UTF8
    (an index stores paths as UTF-8 text), once for a whole folder.
    """
    roots = [canonical(p) for p in paths]
    seen: set[Path] = set()
    for root in roots:
        if not is_utf8(root):
            found_here: Iterable[Found] = [Found(root, True, NAME_NOT_UTF8)]
        else:
            found_here = _walk(root, roots) if root.is_dir() else [Found(root, True)]
        for found in found_here:
            if found.path not in seen:
                seen.add(found.path)
                yield Found(found.path, found.path in roots, found.skip)


def _walk(folder: Path, roots: list[Path]) -> Iterator[Found]:
    """The files in `folder`, and its links (to files or folders) with what they lead to."""
    for place, dirs, files in os.walk(folder):  # does not descend into linked folders
        for name in sorted(n for n in dirs + files if not (n.startswith(".") or is_utf8(n))):
            yield Found(Path(place, name), False, NAME_NOT_UTF8)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and is_utf8(d))
        files = [f for f in files if is_utf8(f)]
        linked = [d for d in dirs if os.path.islink(os.path.join(place, d))]
        for name in sorted(n for n in files + linked if not n.startswith(".")):
            path = Path(place, name)
            if not path.is_symlink():
                yield Found(path, False)
                continue
            target = canonical(path)
            if not target.exists():
                yield Found(path, False)  # broken: reading it says why
            elif not any(is_within(target, root) for root in roots):
                yield Found(path, False, LINK_OUTSIDE)
            elif not target.is_dir():
                yield Found(target, False)


# a folder opened to pass through, not to list: O_PATH needs no read permission on it
_FOLDER = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW


def open_regular(path: Path) -> BinaryIO:
    """The regular file at `path` (absolute and canonical, as `find_files` gives it), opened
    for reading without following a symbolic link anywhere along the path.

    Whatever is checked next is checked through the open file, so the file cannot be
    swapped between the check and the read: a file replaced by a link (to /dev/zero, to
    a file outside the folders) after it was found is refused, not read. OSError for a
    broken link (its own reason) or any other file that cannot be opened; LoadError for
    a link that works, or anything else that is not a regular file (a pipe, a device).
    """
    folder = os.open(path.anchor, _FOLDER)
    try:
        for part in path.parts[1:-1]:
            inner = os.open(part, _FOLDER, dir_fd=folder)
            os.close(folder)
            folder = inner
        # O_NONBLOCK: opening a named pipe does not wait for a writer
        fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.ENOTDIR):  # a link, as a file or folder
            raise
        os.stat(path)  # a broken link raises its own reason (no such file, a loop)
        raise LoadError("a symbolic link where a file was found (links are not followed "
                        "here: the path changed while it was being indexed)") from error
    finally:
        os.close(folder)
    if not S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LoadError("not a regular file")
    return os.fdopen(fd, "rb")


def is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def is_utf8(path: str | os.PathLike) -> bool:
    """Whether the path's bytes are valid UTF-8 (else Python holds the others as lone
    surrogates, which no UTF-8 text, SQLite's or Milvus's, can store)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_EXTENSIONS


def load(
    path: Path, data: bytes, use_ocr: bool = True, max_chars: int = Settings().max_chars
) -> Document:
    """Extract the text of `data`, the bytes of the file at `path`; LoadError if it has none
    or more than `max_chars` characters (a PDF is refused as soon as it could have more).

    use_ocr: read images, and PDF pages without a text layer, by OCR."""
    suffix = path.suffix.lower()
    loader = _LOADERS.get(suffix)
    if loader is None:
        raise LoadError(f"unsupported file type {path.suffix or '(none)'!r}")
    try:
        options: dict[str, Any] = {}
        if suffix in _TAKE_OCR:
            options["use_ocr"] = use_ocr
        if suffix in _BOUNDED:
            options["max_chars"] = max_chars
        if options:
            title, text, page_starts = loader(data, **options)
        else:
            title, text, page_starts = loader(data)
    except LoadError:
        raise
    except Exception as error:
        # pypdf, python-docx (lxml, zlib) and trafilatura raise many kinds of error on
        # damaged input (NotImplementedError for an unknown PDF filter, a DependencyError
        # for an AES-encrypted PDF without `cryptography`...): one bad file must be
        # reported, never stop the whole run.
        kind = path.suffix.lower().lstrip(".")
        raise LoadError(f"unreadable {kind} file: {_reason(error)}") from error
    if not text.strip():
        raise LoadError("no text to index (the file is empty or has no text layer)")
    if len(text) > max_chars:
        raise _text_too_long(f"the text of this file is {len(text):,} characters, over "
                            f"{max_chars:,}")
    return Document(str(path), title.strip(), text, page_starts)


def _text_too_long(what: str) -> LoadError:
    return LoadError(f"{what}; the limit is one character of text per byte of max_file_mb "
                     "(qa index --max-file-mb)")


def decode_text(data: bytes) -> str:
    """Decode text in any common encoding, with newlines normalised to \\n."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _normalise_newlines(data.decode(encoding, errors="replace"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        mostly = _mostly_utf8(data)
        text = mostly if mostly is not None else str(_detect_encoding(data))
    if "\x00" in text:
        raise LoadError("binary data, not text")
    return _normalise_newlines(text)


def _mostly_utf8(data: bytes) -> str | None:
    """UTF-8 text with a few invalid bytes (a damaged or concatenated file), decoded with
    U+FFFD for each invalid sequence; None if the bytes do not look like UTF-8.

    Without this, one stray byte in a UTF-8 file sends it to charset detection, which
    either rejects it as binary or garbles every accented letter (ü read as Ã¼). The
    file counts as UTF-8 when its valid multi-byte characters clearly outnumber its
    invalid sequences, which is never so for Latin-1 or Windows-1252 text (each
    accented letter there is an invalid sequence) nor for binary data.
    """
    text = data.decode("utf-8", errors="replace")
    replaced = text.count("\ufffd")
    invalid = replaced - data.count("\ufffd".encode())
    multibyte = len(text) - len(text.encode("ascii", errors="ignore")) - replaced
    return text if multibyte > 2 * invalid else None


def _detect_encoding(data: bytes):
    """charset-normalizer's best guess; on a tie, Windows-1252, the commonest legacy
    encoding (the WHATWG default), which short Western European texts otherwise lose
    to look-alikes such as Windows-1250 (é right, à read as ŕ)."""
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        raise LoadError("binary data or an unknown text encoding")
    western = next((m for m in matches if m.encoding == "cp1252" and m.chaos <= best.chaos), None)
    return western or best


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _load_text(data: bytes) -> tuple[str, str, tuple[int, ...]]:
    return "", decode_text(data), ()


def _load_markdown(data: bytes) -> tuple[str, str, tuple[int, ...]]:
    text = _markdown_tables(decode_text(data))
    heading = re.search(r"^#[ \t]+(.+)$", text, flags=re.MULTILINE)
    return (heading.group(1) if heading else ""), text, ()


# a table's delimiter row ("|---|:--:|"): only text with one is parsed for tables
_TABLE_RULE = re.compile(r"^[ \t>]*(?=[^\n]*\|)[ \t|:-]*-[ \t|:-]*$", flags=re.MULTILINE)


def _markdown_tables(text: str) -> str:
    """Markdown with each GitHub pipe table (found by markdown-it, so not one inside a code
    block) written as one line per row by `table_lines`, named by its header row and
    captioned by the heading before it; the rest of the text is left as it is."""
    if not _TABLE_RULE.search(text):
        return text
    from markdown_it import MarkdownIt

    lines = text.split("\n")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    for (first, last), rows, caption in reversed(list(_pipe_tables(tokens))):
        lines[first:last] = table_lines(rows[0], rows[1:], caption)
    return "\n".join(lines)


def _pipe_tables(tokens) -> Iterator[tuple[list[int], list[list[str]], str]]:
    """(the table's [first, last) lines, its rows of cell texts, the heading before it)."""
    heading, lines = "", [0, 0]
    rows: list[list[str]] = []
    for token, following in zip(tokens, [*tokens[1:], None], strict=True):
        if token.type == "heading_open":
            heading = _inline_text(following)
        elif token.type == "table_open":
            rows, lines = [], token.map
        elif token.type == "tr_open":
            rows.append([])
        elif token.type in ("th_open", "td_open"):
            rows[-1].append(_inline_text(following))
        elif token.type == "table_close":
            yield lines, rows, heading


def _inline_text(token) -> str:
    """The text of an inline Markdown token, without its emphasis or link syntax."""
    parts = (token.children or []) if token is not None else []
    return "".join(part.content if part.type in ("text", "code_inline") else " "
                   for part in parts if part.type in ("text", "code_inline", "softbreak"))


def _load_html(data: bytes) -> tuple[str, str, tuple[int, ...]]:
    import trafilatura
    from lxml.html import HTMLParser, document_fromstring

    html = decode_text(data)
    if not html.strip():
        return "", "", ()
    # huge_tree: without it libxml2 drops everything nested deeper than 256 levels; with
    # it, deeper than 2048 (then the page's text is taken without trafilatura's help)
    parser = HTMLParser(encoding="utf-8", huge_tree=True, collect_ids=False,
                        default_doctype=False, remove_comments=True, remove_pis=True)
    tree = document_fromstring(html.encode(), parser=parser)
    metadata = trafilatura.extract_metadata(tree)
    title = metadata.title if metadata and metadata.title else ""
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        return title, _all_text(html), ()
    _html_tables_as_rows(tree)
    text = trafilatura.extract(tree, include_comments=False, include_tables=True,
                               favor_recall=True)
    return title, text or "", ()


_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _html_tables_as_rows(tree) -> None:
    """Replace each table holding no other table by a paragraph per row, written by
    `table_lines`, so that trafilatura keeps every row, in place, with its column names
    and the table's <caption> or the heading before it. A table of tables lays out a
    page; its inner tables hold the data."""
    for table, heading in list(_tables_with_headings(tree)):
        caption = table.xpath("string(./caption)").strip() or heading
        block = table.makeelement("div", {})
        for line in _html_table_lines(table, caption):
            paragraph = block.makeelement("p", {})
            paragraph.text = line
            block.append(paragraph)
        block.tail = table.tail
        table.getparent().replace(table, block)


def _html_table_lines(table, caption: str) -> list[str]:
    """A table's rows as `table_lines` writes them; in a table whose rows each open with a
    <th> and that has no header row (a list of properties), each row is named by its <th>."""
    trs = table.xpath("./tr|./*/tr")
    first = trs[0].xpath("./th|./td") if len(trs) > 2 else []
    if len(first) == 1 and _span(first[0], "colspan") > 1:  # one cell across the table: its title
        caption, trs = first[0].text_content(), trs[1:]
    rows = _html_grid(trs)
    header, body = _html_header(trs, rows)
    if header or not all(tr.xpath("./*[1][self::th]") for tr in trs):
        return table_lines(header, body, caption)
    return [line for row in rows for line in table_lines(row[:1], [row[1:]], caption)]


def _tables_with_headings(tree) -> Iterator[tuple[Any, str]]:
    """Each table that holds no other table, with the text of the last heading before it."""
    heading = ""
    for element in tree.iter():
        if element.tag in _HEADINGS:
            heading = element.text_content()
        elif element.tag == "table" and element.find(".//table") is None:
            yield element, heading


def _html_grid(trs: list) -> list[list[str]]:
    """The rows' cell texts, column by column: a cell spanning columns is followed by empty
    cells, and a cell spanning rows is repeated in each (each row names its own value)."""
    above: dict[int, tuple[int, str]] = {}  # column: (rows it still spans, its text)
    grid = []
    for tr in trs:
        cells, row = list(tr.xpath("./th|./td")), list[str]()
        while cells or len(row) in above:
            column = len(row)
            if column in above:
                left, text = above.pop(column)
                above.update({column: (left - 1, text)} if left > 1 else {})
                row.append(text)
                continue
            cell = cells.pop(0)
            span = _span(cell, "rowspan")
            if span > 1:
                above[column] = (span - 1, cell.text_content())
            row += [cell.text_content(), *[""] * (_span(cell, "colspan") - 1)]
        grid.append(row)
    return grid


def _html_header(trs: list, rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """The column names and the rows under them: the header row is the first row when it
    is in <thead>, when all its cells are <th>, or when the table has no <th> at all."""
    if len(rows) < 2:
        return [], rows
    first = trs[0]
    named = (first.getparent().tag == "thead" or not first.xpath("./td")
             or not any(tr.xpath("./th") for tr in trs))
    return (_spread(first), rows[1:]) if named else ([], rows)


def _spread(tr) -> list[str]:
    """A header row's names, a name spanning columns given to each of them."""
    names: list[str] = []
    for cell in tr.xpath("./th|./td"):
        names += [cell.text_content()] * _span(cell, "colspan")
    return names


def _span(cell, attribute: str) -> int:
    """The columns (colspan) or rows (rowspan) a cell spans: 1 unless it says otherwise,
    at most 100."""
    span = cell.get(attribute, "1").strip()
    return min(int(span), 100) if span.isdigit() and int(span) > 0 else 1


class _TextCollector(html_parser.HTMLParser):
    """The text of an HTML page, without scripts and styles, a block element a line.
    html.parser builds no tree, so no nesting is too deep for it."""

    _BLOCKS = frozenset({"address", "article", "aside", "blockquote", "br", "dd", "div", "dl",
                         "dt", "figcaption", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
                         "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
                         "table", "td", "th", "tr", "ul"})
    _HIDDEN = frozenset({"script", "style", "template", "noscript", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in self._HIDDEN:
            self.hidden += 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._HIDDEN and self.hidden:
            self.hidden -= 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def _all_text(html: str) -> str:
    collector = _TextCollector()
    collector.feed(html)
    collector.close()
    lines = (" ".join(line.split()) for line in "".join(collector.parts).split("\n"))
    return "\n".join(line for line in lines if line)


def _load_pdf(data: bytes, use_ocr: bool, max_chars: int) -> tuple[str, str, tuple[int, ...]]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError("encrypted PDF (a password is needed to read it)")
        pages = _page_texts(reader, max_chars)
        pages = reflow(ocr.read_blank_pages(data, pages) if use_ocr else pages)
        title = (reader.metadata.title if reader.metadata else None) or ""
    except (PdfReadError, ValueError, KeyError, TypeError) as error:
        raise LoadError(f"unreadable PDF: {_reason(error)}") from error
    starts, offset = [], 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + len(_PAGE_BREAK)
    return title, _PAGE_BREAK.join(pages), tuple(starts)


def _page_texts(reader, max_chars: int) -> list[str]:
    """The text of each page, refusing the PDF as soon as it could pass `max_chars`.

    Pages can share one content stream, and a stream that packs to kilobytes can unpack
    to tens of megabytes, so the file's size says nothing of its text. Before a page's
    text is extracted, the decoded size of its content streams is added to a running
    total (a stream shared by pages counted for each), which must stay within
    `max_chars`: a character of text takes at least a byte of content. The characters
    extracted are counted as they come too (a font can map one byte to many characters,
    a page can draw a form many times).
    """
    content = chars = 0

    def count(text: str, *_) -> None:
        nonlocal chars
        chars += len(text)
        if chars > max_chars:
            raise _text_too_long(f"the text of this PDF would exceed {max_chars:,} characters")

    pages = []
    for page in reader.pages:
        content += _content_size(page)
        if content > max_chars:
            raise _text_too_long(
                f"the text of this PDF could exceed {max_chars:,} characters: its pages hold "
                f"{content / 1e6:.1f} MB of content (a stream shared by pages counted for each)")
        pages.append(page.extract_text(visitor_text=count) or "")
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


def _load_docx(data: bytes) -> tuple[str, str, tuple[int, ...]]:
    import zipfile
    import zlib

    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import XMLSyntaxError

    try:  # a damaged member fails on decompression or as XML, possibly only when read
        zipcheck.open_checked(data, ".docx")
        document = docx.Document(io.BytesIO(data))
        paragraphs = _docx_blocks(document)
        title = document.core_properties.title or ""
    except (zipfile.BadZipFile, PackageNotFoundError, KeyError, ValueError, zlib.error,
            XMLSyntaxError) as error:
        raise LoadError(f"not a valid .docx file: {_reason(error)}") from error
    text = "\n\n".join(p for p in paragraphs if p.strip())
    return title, text, ()


def _docx_blocks(document) -> list[str]:
    """The paragraphs and table rows of a .docx in document order; each table row is
    written by `table_lines`, named by the table's first row and captioned by the
    paragraph styled Caption just before it, or else by the last heading."""
    styles = _docx_style_names(document)
    blocks: list[str] = []
    heading, caption = "", ""
    for item in document.iter_inner_content():
        if hasattr(item, "rows"):
            title, rows = _docx_title_row([_docx_row(row) for row in item.rows])
            blocks += table_lines(rows[0], rows[1:], title or caption or heading) if rows else []
            caption = ""
            continue
        style = styles.get(item._p.style or "", "")
        text = item.text
        if style.startswith(("Heading", "Title")) and text.strip():
            heading = text
        caption = text if style == "Caption" else ""
        blocks.append(text)
    return blocks


def _docx_title_row(rows: list[list[str]]) -> tuple[str, list[list[str]]]:
    """The table's title and its other rows: a first row that is one cell merged across the
    table titles it; the header is the row after it."""
    if len(rows) > 2 and len(rows[0]) == 1 and max(len(row) for row in rows[1:]) > 1:
        return rows[0][0], rows[1:]
    return "", rows


def _docx_style_names(document) -> dict[str, str]:
    """Style names by style id. A paragraph's style is looked up by its id here:
    python-docx's `Paragraph.style` searches the styles part each time (2.5 ms a
    paragraph, minutes for a long document)."""
    return {style.style_id: style.name or "" for style in document.styles}


def _docx_row(row) -> list[str]:
    """A table row's cell texts; a cell merged across columns is given once."""
    cells: list[str] = []
    last = None
    for cell in row.cells:
        if last is None or cell._tc is not last._tc:
            cells.append(cell.text)
        last = cell
    return cells




def _reason(error: Exception, limit: int = 200) -> str:
    """An exception as a one-line reason (parsers' messages can span lines)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


_LOADERS: dict[str, Callable[..., tuple[str, str, tuple[int, ...]]]] = {
    ".txt": _load_text,
    ".md": _load_markdown,
    ".markdown": _load_markdown,
    ".html": _load_html,
    ".htm": _load_html,
    ".pdf": _load_pdf,
    ".docx": _load_docx,
    ".pptx": slides.load_pptx,
    ".xlsx": sheets.load_xlsx,
    ".xlsm": sheets.load_xlsx,
    ".ods": sheets.load_ods,
    ".csv": sheets.load_csv,
    ".tsv": sheets.load_tsv,
    ".epub": ebooks.load_epub,
    ".odt": opendocument.load_odt,
    ".rtf": rtf.load_rtf,
    ".eml": email.load_eml,
    ".mbox": email.load_mbox,
    **dict.fromkeys(ocr.IMAGE_EXTENSIONS, ocr.load_image),
}
_TAKE_OCR = frozenset({".pdf", ".eml", ".mbox", *ocr.IMAGE_EXTENSIONS})  # loader(use_ocr=)
_BOUNDED = frozenset({".pdf"})  # loader(max_chars=): stops before its text passes it
