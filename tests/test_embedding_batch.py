"""Questions embedded from many threads at once share batches, yet each gets its own vector;
a repeated question is embedded once, from a cache of bounded size. Passages are embedded
a model batch at a time, each given back its own vectors."""

import threading

import numpy as np
import pytest

from qa.indexing.embedding import SentenceTransformerEmbedder, load_embedder

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


def test_passages_embedded_a_batch_at_a_time_get_the_vectors_of_one_call():
    """Indexing embeds a group of passages one model batch at a time (only that batch's
    token vectors are held), longest first, telling progress after each: each passage
    gets the vector `encode` gives it among them all, in the order given."""
    embedder = load_embedder()
    texts = [" ".join(["Lantern number {i} was lit at the fair."] * n).format(i=i)
             for i, n in enumerate((1, 9, 3, 14, 2, 7, 11, 5, 4, 13, 6, 8))]
    done: list[int] = []
    passages, sentences = embedder.embed_passages(
        texts, [[(0, 10), (11, len(text))] for text in texts], done.append)
    whole = embedder.model.encode(texts, batch_size=embedder.batch_size,
                                  normalize_embeddings=True)
    assert done == [8, 4]
    np.testing.assert_allclose(passages, whole, atol=1e-6)
    assert [s.shape for s in sentences] == [(2, embedder.dim)] * len(texts)
