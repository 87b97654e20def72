"""The verifier (`qa.answering.verifier`): the shipped weights over the reader, on
hand-written sentences it was never trained on."""

import pytest

from qa.answering import reader, verifier
from qa.errors import QAError

ROSTER = ("Ruth Abernethy is the master of the Corrie Belle, and Ben Galloway is its relief "
          "master.")


def test_a_sentence_that_answers_is_believed_over_the_same_sentence_asked_a_near_miss():
    answers, other_ship, other_role = (
        verifier.verify(question, [ROSTER])[0] for question in (
            "Who is the master of the Corrie Belle?", "Who is the master of the Tern?",
            "Who is the chief engineer of the Corrie Belle?"))

    assert answers > 0
    assert answers > other_ship + 2 and answers > other_role + 2


def test_each_sentence_is_scored_in_order():
    question = "Who is the master of the Corrie Belle?"
    unrelated = "The bakery on Mill Street sells rye bread on Saturdays."

    assert verifier.verify(question, [unrelated, ROSTER]) == pytest.approx(
        [verifier.verify(question, [unrelated])[0], verifier.verify(question, [ROSTER])[0]],
        abs=0.1)
    assert verifier.verify(question, []) == []


def test_only_the_low_rank_change_ships_and_with_the_reader_stays_under_25_mb():
    size = verifier.WEIGHTS_FILE.stat().st_size

    assert size < 1_000_000
    assert size + reader.WEIGHTS_FILE.stat().st_size < 25_000_000


def test_missing_or_foreign_weights_are_refused_in_so_many_words(tmp_path):
    with pytest.raises(QAError, match="verifier's weights are missing"):
        verifier.Verifier.load(reader.shipped(), tmp_path / "nothing.safetensors")
    foreign = tmp_path / "reader.safetensors"
    foreign.write_bytes(reader.WEIGHTS_FILE.read_bytes())
    with pytest.raises(QAError, match="do not fit the reader"):
        verifier.Verifier.load(reader.shipped(), foreign)


def test_the_reader_and_the_verifier_answer_from_many_threads_at_once(monkeypatch):
    """The web app asks from many threads. A fast tokenizer sets its truncation and padding
    in itself before it encodes; here each setting is made to take a millisecond (as when
    a busy machine pauses the thread), so that another thread's call comes between: its
    settings must not be used (passages tokenized unpadded raised a ValueError, a 500)."""
    import threading
    import time

    from transformers import tokenization_utils_tokenizers as fast

    set_up = fast.TokenizersBackend.set_truncation_and_padding

    def slowly(*args, **kwargs):
        found = set_up(*args, **kwargs)
        time.sleep(0.001)
        return found
    monkeypatch.setattr(fast.TokenizersBackend, "set_truncation_and_padding", slowly)
    passages = [ROSTER, "The Corrie Belle sails from Oban at nine. " * 3,
                "Ben Galloway joined the crew in May."]
    errors: list[str] = []

    def ask(number: int) -> None:
        for turn in range(4):
            question = f"Who is the master of ship {number} on voyage {turn}?"
            try:
                assert len(reader.read_passages(question, passages)) == len(passages)
                assert len(verifier.verify(question, [ROSTER, passages[2]])) == 2
            except Exception as error:  # noqa: BLE001 - every failure is reported below
                errors.append(repr(error)[:200])
    threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
