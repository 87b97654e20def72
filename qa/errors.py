"""The one exception type the library raises for problems a user can fix, and how its
messages (and the CLI's lines) show a name or path: `printable`."""


class QAError(Exception):
    """A clear, user-facing error: bad settings, a missing or mismatched index, bad input."""


class LoadError(QAError):
    """A file that cannot be indexed; the message says why in one line."""


class Postponed(LoadError):
    """A file left for a later indexing run: it needs more of what the run's files share
    (the pages OCR may read in one run) than is left; the message says so in one line."""


def printable(text: str) -> str:
    """A name or path on one line, printable in any terminal: newlines and other control
    characters escaped (\\n), and so are the bytes of a name that are not UTF-8 (\\xe9)."""
    return "".join(c if c.isprintable() else _escaped(c) for c in text)


def _escaped(character: str) -> str:
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, as os.fsdecode holds it
        return f"\\x{code - 0xDC00:02x}"
    return character.encode("unicode_escape").decode("ascii")
