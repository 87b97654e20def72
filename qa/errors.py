"""The one exception type the library raises for problems a user can fix."""


class QAError(Exception):
    """A clear, user-facing error: bad settings, a missing or mismatched index, bad input."""


class LoadError(QAError):
    """A file that cannot be indexed; the message says why in one line."""
