"""The reader (`qa.answering.reader`): the shipped weights over the bundled MiniLM, on hand-written
passages it was never trained on."""

import pytest

from qa.answering.reader import MAX_TOKENS, WEIGHTS_FILE, read_passages

LIGHTHOUSE = ("The Pelican Bay lighthouse was built in 1871 by the harbour board. Its lamp "
              "was first lit by Agnes Moore, the keeper's daughter. The tower is 41 metres "
              "tall and can be seen from the ferry.")
BAKERY = "The bakery on Mill Street sells rye bread on Saturdays and closes at noon."


def span(question: str, passage: str) -> str:
    reading = read_passages(question, [passage])[0]
    return passage[reading.start:reading.end]


@pytest.mark.parametrize(("question", "answer"), [
    ("When was the Pelican Bay lighthouse built?", "1871"),
    ("Who first lit the lamp?", "Agnes Moore"),
    ("How tall is the tower?", "41 metres"),
])
def test_the_reader_points_at_the_words_that_answer(question, answer):
    assert answer in span(question, LIGHTHOUSE)
    assert len(span(question, LIGHTHOUSE).split()) <= 6


def test_a_passage_that_answers_is_believed_more_than_one_that_does_not():
    question = "When was the Pelican Bay lighthouse built?"
    answering, unrelated = read_passages(question, [LIGHTHOUSE, BAKERY])

    assert answering.margin > unrelated.margin
    assert (answering.passage, unrelated.passage) == (0, 1)


def test_a_long_passage_is_read_in_windows_and_its_answer_found_in_a_late_one():
    filler = " ".join(f"Room {n} of the museum holds old maps of the coast." for n in range(60))
    passage = f"{filler} {LIGHTHOUSE}"
    reading = read_passages("Who first lit the lamp of the lighthouse?", [passage])[0]

    assert len(passage.split()) > MAX_TOKENS
    assert "Agnes Moore" in passage[reading.start:reading.end]


def test_the_weights_are_only_what_changed_and_small():
    assert WEIGHTS_FILE.stat().st_size < 25_000_000
