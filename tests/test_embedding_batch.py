"""Questions embedded from many threads at once share batches, yet each gets its own vector;
a repeated question is embedded once, from a cache of bounded size."""

import threading

import numpy as np
import pytest

from qa.embedding import SentenceTransformerEmbedder, load_embedder

QUESTIONS = [f"Who lit lantern number {i} at the fair?" for i in range(24)]


def test_concurrent_embeds_get_the_vectors_they_would_get_alone():
    embedder = SentenceTransformerEmbedder(cache_size=0)  # every call reaches the model
    alone = [embedder.embed([question])[0] for question in QUESTIONS]
    together: dict[int, np.ndarray] = {}
    calls = []
    embed_now = embedder._batcher._embed

    def counting(texts):
        calls.append(len(texts))
        return embed_now(texts)

    embedder._batcher._embed = counting
    start = threading.Barrier(len(QUESTIONS))

    def ask(i: int) -> None:
        start.wait()
        together[i] = embedder.embed([QUESTIONS[i]])[0]

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(QUESTIONS))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        embedder._batcher._embed = embed_now
    for i, vector in enumerate(alone):
        assert np.allclose(together[i], vector, atol=1e-5), QUESTIONS[i]
    assert sum(calls) == len(QUESTIONS) and len(calls) < len(QUESTIONS)  # some were shared


def test_an_error_reaches_every_caller_of_the_batch():
    embedder = load_embedder()
    embed_now = embedder._batcher._embed

    def failing(texts):
        raise RuntimeError("model gone")

    embedder._batcher._embed = failing
    try:
        with pytest.raises(RuntimeError, match="model gone"):
            embedder.embed(["anything"])
    finally:
        embedder._batcher._embed = embed_now
    assert embedder.embed(["still works"]).shape == (1, embedder.dim)


def test_a_repeated_question_is_embedded_once_and_the_cache_is_bounded():
    embedder = SentenceTransformerEmbedder(cache_size=2)
    calls = []
    embed_now = embedder._batcher._embed

    def counting(texts):
        calls.append(list(texts))
        return embed_now(texts)

    embedder._batcher._embed = counting
    first = embedder.embed(["Who lit the lantern?"])
    again = embedder.embed(["Who lit the lantern?", "Who lit the lantern?"])
    assert calls == [["Who lit the lantern?"]]
    assert np.array_equal(again, np.concatenate([first, first]))

    again[0, 0] = 9.0  # a caller's copy, not the cached vector
    assert embedder.embed(["Who lit the lantern?"])[0, 0] == first[0, 0]

    embedder.embed(["Where is the fair?", "When did it open?"])  # the first one drops out
    embedder.embed(["Who lit the lantern?"])
    assert calls[1:] == [["Where is the fair?", "When did it open?"], ["Who lit the lantern?"]]
