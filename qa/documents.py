"""Documents: find supported files and turn each into plain text with its pages.

Each format is read by a well-kept library: pypdf (pages), python-docx (after a
check of the unpacked sizes, against zip bombs), trafilatura (the main text of an
HTML page, without navigation or scripts, from lxml's tree; a page nested past
lxml's 2048 levels gives all its text through html.parser instead) and
charset-normalizer (text in encodings other than UTF-8). Character offsets
everywhere else in `qa` refer to `Document.text` as returned here.
"""

import errno
import io
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html import parser as html_parser
from pathlib import Path
from stat import S_ISREG
from typing import BinaryIO

from qa.errors import QAError
from qa.settings import Settings

SUPPORTED_EXTENSIONS = frozenset({".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"})
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_PAGE_BREAK = "\n\n"
LINK_OUTSIDE = "links outside the folders given"
NAME_NOT_UTF8 = "the name is not valid UTF-8 (rename it to index it)"
DOCX_MAX_XML_MB = 25  # unpacked XML of a .docx; python-docx parses ~1.3 MB/s into ~10x RAM
DOCX_MAX_RATIO = 100  # unpacked / packed size of one member; Word's own XML packs ~5-40x
_DOCX_RATIO_FROM = 1_000_000  # members smaller than this unpack to little whatever the ratio


class LoadError(QAError):
    """A file that cannot be indexed; the message says why in one line."""


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


def load(path: Path, data: bytes, max_chars: int = Settings().max_chars) -> Document:
    """Extract the text of `data`, the bytes of the file at `path`; LoadError if it has none
    or more than `max_chars` characters (a PDF is refused as soon as it could have more)."""
    suffix = path.suffix.lower()
    loader = _LOADERS.get(suffix)
    if loader is None:
        raise LoadError(f"unsupported file type {path.suffix or '(none)'!r}")
    try:
        if suffix in _BOUNDED:
            title, text, page_starts = loader(data, max_chars)
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
        text = _mostly_utf8(data)
        if text is None:
            text = str(_detect_encoding(data))
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
    text = decode_text(data)
    heading = re.search(r"^#[ \t]+(.+)$", text, flags=re.MULTILINE)
    return (heading.group(1) if heading else ""), text, ()


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
    text = trafilatura.extract(tree, include_comments=False, include_tables=True,
                               favor_recall=True)
    return title, text or "", ()


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


def _load_pdf(data: bytes, max_chars: int) -> tuple[str, str, tuple[int, ...]]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoadError("encrypted PDF (a password is needed to read it)")
        pages = _page_texts(reader, max_chars)
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
        _check_unpacked_sizes(zipfile.ZipFile(io.BytesIO(data)))
        document = docx.Document(io.BytesIO(data))
        paragraphs = [p.text for p in document.paragraphs]
        for table in document.tables:
            paragraphs.extend(" | ".join(cell.text for cell in row.cells) for row in table.rows)
        title = document.core_properties.title or ""
    except (zipfile.BadZipFile, PackageNotFoundError, KeyError, ValueError, zlib.error,
            XMLSyntaxError) as error:
        raise LoadError(f"not a valid .docx file: {_reason(error)}") from error
    text = "\n\n".join(p for p in paragraphs if p.strip())
    return title, text, ()


def _check_unpacked_sizes(archive) -> None:
    """Refuse a zip bomb before anything is unpacked: a .docx whose XML would unpack past
    DOCX_MAX_XML_MB, or one of whose members unpacks more than DOCX_MAX_RATIO times its
    packed size. zipfile never unpacks more than a member's declared size (and checks its
    CRC), so the declared sizes can be trusted."""
    members = archive.infolist()
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _DOCX_RATIO_FROM and ratio > DOCX_MAX_RATIO:
            raise LoadError(
                f"{member.filename} in this .docx unpacks to {ratio:.0f} times its packed "
                f"size ({member.file_size / 1e6:.1f} MB), a zip bomb; the limit is "
                f"{DOCX_MAX_RATIO} times")
    # python-docx finds parts through the manifest, whatever their names: count what is
    # named XML and whatever packs as text does (compressed images pack by a few percent)
    xml = sum(m.file_size for m in members if m.filename.endswith((".xml", ".rels"))
              or m.file_size > 1.25 * m.compress_size)
    if xml > DOCX_MAX_XML_MB * 1e6:
        raise LoadError(f"the XML in this .docx unpacks to {xml / 1e6:.1f} MB; the limit is "
                        f"{DOCX_MAX_XML_MB} MB")


def _reason(error: Exception, limit: int = 200) -> str:
    """An exception as a one-line reason (parsers' messages can span lines)."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


_LOADERS = {
    ".txt": _load_text,
    ".md": _load_markdown,
    ".markdown": _load_markdown,
    ".html": _load_html,
    ".htm": _load_html,
    ".pdf": _load_pdf,
    ".docx": _load_docx,
}
_BOUNDED = frozenset({".pdf"})  # loader(data, max_chars): stops before its text passes it
