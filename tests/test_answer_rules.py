"""Each rule of an extractive answer, on hand-written sentences, without the model."""

import pytest

from qa import question_kinds as kinds
from qa.answer import WEIGHTS, Signals, spellings


def test_a_sentence_scores_its_signals_by_their_named_weights():
    assert Signals(coverage=1.0).score() == WEIGHTS["coverage"]
    assert Signals(similarity=0.5, doer=1.0).score() == \
        0.5 * WEIGHTS["similarity"] + WEIGHTS["doer"]
    assert set(WEIGHTS) == {name for name in Signals.__slots__}


def test_a_second_quote_must_be_as_much_an_answer_of_the_kind_asked():
    dated = Signals(similarity=0.6, answer_type=1.0)
    undated = Signals(similarity=0.9)

    assert dated.at_least(undated, ("answer_type", "doer"))
    assert not undated.at_least(dated, ("answer_type", "doer"))


@pytest.mark.parametrize(("question", "right", "wrong"), [
    ("When was the lighthouse built?", "It was built in 1871.", "It was built of granite."),
    ("How many keepers lived there?", "Three keepers lived there.", "Keepers lived there."),
    ("Who built the lighthouse?", "The lighthouse was built by Anna Berg.",
     "The lighthouse was built by the harbour board."),
])
def test_the_answer_type_wants_a_date_a_number_or_a_new_name(question, right, wrong):
    wants = kinds.answer_type(question)

    assert wants(question, right) == 1.0
    assert wants(question, wrong) == 0.0


def test_a_name_the_question_already_holds_is_not_an_answer_to_who():
    question = "Who met Anna Berg?"

    assert kinds.has_new_name(question, "Lena Vik met her in Hamburg.") == 1.0
    assert kinds.has_new_name(question, "She met Anna Berg at noon.") == 0.0


def test_a_question_of_no_particular_kind_wants_no_type():
    assert kinds.answer_type("Why did the museum stay?") is None


@pytest.mark.parametrize(("question", "verb"), [
    ("Who has resigned over the recording?", "resigned"),
    ("Who in the council has already resigned?", "resigned"),
    ("Who else quit?", "quit"),
    ("Who is the mayor?", None),
    ("Who did they elect?", None),
    ("What did Herrera do?", None),
])
def test_the_asked_verb_is_read_from_a_who_did_it_question(question, verb):
    assert kinds.asked_verb(question) == verb


@pytest.mark.parametrize(("sentence", "names"), [
    ("Martinez and Herrera have since resigned.", True),
    ("He has no plans to resign.", False),
    ("They called for Herrera to resign.", False),
    ("Protestors called for Herrera's resignation.", False),
    ("If Herrera resigns, the seat is open.", False),
])
def test_the_doer_is_named_only_where_the_sentence_says_it_happened(sentence, names):
    question = "Who has resigned?"

    assert kinds.names_the_doer(question, "resigned", sentence) == float(names)


def test_a_misspelt_question_word_is_read_as_the_closest_word_the_passages_hold():
    held = {"albatross", "restored", "snowboarder", "lena"}

    wanted = spellings("Which snowbaorder restored the Albatros?", held, known=set())

    assert wanted == {"snowbaorder": "snowboarder", "restored": "restored",
                      "albatros": "albatross"}


@pytest.mark.parametrize(("word", "held", "known"), [
    ("unavailable", {"available"}, set()),   # another first letter: another word
    ("unavailable", {"unavailble"}, {"unavail"}),  # the index holds it: not a misspelling
    ("room42", {"room4"}, set()),            # digits: a code, not a misspelling
])
def test_a_word_is_not_read_as_a_misspelling_when_it_may_be_meant(word, held, known):
    assert spellings(f"Is the {word} listed?", held, known)[word] == word
