"""Plain text (.txt), in any common encoding (`qa.loaders.decoding`)."""

from qa.loaders.base import Loaded, Reading
from qa.loaders.decoding import decode_text


def load_text(data: bytes, reading: Reading) -> Loaded:
    return "", reading.budget.add(decode_text(data)), ()
