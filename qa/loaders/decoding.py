"""Text in any common encoding, decoded: what every loader of text-like bytes shares
(plain text, Markdown, HTML, CSV, an e-book's chapters).

A byte-order mark names its encoding; UTF-8 is tried next, then UTF-8 with a few invalid
bytes, then charset-normalizer's guess. Newlines come out as \\n.
"""

from qa.errors import LoadError

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


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
