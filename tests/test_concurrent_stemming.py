"""Words stemmed in many threads at once (as the web app answers and searches, on either
backend) are stemmed correctly."""

import sys
import threading

import snowballstemmer

from qa import stemming

WORDS = [f"{i}{stem}{suffix}" for i in range(300) for stem in ("resign", "protest")
         for suffix in ("ations", "ing", "ed")]  # distinct, so none is answered from the cache


def test_words_stemmed_from_many_threads_at_once_are_stemmed_right():
    alone = snowballstemmer.stemmer("porter")  # as qa.stemming's
    expected = {word: alone.stemWord(word) for word in WORDS}
    assert all(expected[word] != word for word in WORDS)  # every word has a suffix to strip
    stemming.stem.cache_clear()
    got: dict[str, str] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def stem(offset: int) -> None:
        start.wait()
        try:
            for word in WORDS[offset::8]:
                got[word] = stemming.stem(word)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=stem, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == [] and got == expected
