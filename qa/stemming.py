"""Words as the keyword index keeps them: unaccented and Porter-stemmed (Snowball's
"porter"), the one stemmer of questions, the index and the answer's word weights. (SQLite's
FTS5, the keyword index of schemas 1 to 3, read words the same way but for its own Porter
stemmer, which differs on a few: "technology", "is", "as".)

A Snowball stemmer keeps the word it works on in itself, so the one stemmer is used
under a lock; it is pure Python, and the same words recur in every question and
passage, so each word is stemmed once.
"""

import functools
import re
import threading
import unicodedata

import snowballstemmer

from qa.words import NUMBER_WORDS

_STEMMER = snowballstemmer.stemmer("porter")
_LOCK = threading.Lock()
_WORD = re.compile(r"[^\W_]+")  # a run of letters and digits


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    with _LOCK:
        return _STEMMER.stemWord(word)


@functools.lru_cache(maxsize=65536)
def index_term(word: str) -> str:
    """A word as the keyword index keeps it ("León", "Leon" and "leon": "leon"), so that
    its corpus statistics are found and a question typed without accents still matches."""
    return stem(unaccented(word.lower()))


def unaccented(text: str) -> str:
    """The text with its accents removed (decomposed, its combining marks dropped)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def index_terms(text: str) -> list[str]:
    """The text's words as the keyword index keeps them, in order."""
    return [index_term(word) for word in _WORD.findall(text)]


_DIGITS_OF = {index_term(word): str(n) for word, n in NUMBER_WORDS.items()}
_WORD_OF = {digits: term for term, digits in _DIGITS_OF.items()}


def number_twin(term: str) -> str | None:
    """The other way of writing a small number, as an index term: "4" for "four" and
    "four" for "4" (whole numbers to twenty, and the tens), else None."""
    return _DIGITS_OF.get(term) or _WORD_OF.get(term)
