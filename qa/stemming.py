"""Porter stems, as SQLite FTS5's porter tokenizer makes them (Snowball's "porter").

A Snowball stemmer keeps the word it works on in itself, so the one stemmer is used
under a lock; it is pure Python, and the same words recur in every question and
passage, so each word is stemmed once.
"""

import functools
import threading

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("porter")
_LOCK = threading.Lock()


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    with _LOCK:
        return _STEMMER.stemWord(word)
