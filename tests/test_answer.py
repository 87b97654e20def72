"""Answers over the seed article: found and cited, not found, and follow-ups."""

from pathlib import Path

import pytest

from tests.helpers import SEED_FILE, index_of


@pytest.mark.parametrize(("question", "expected"), [
    ("Who is due to step down from his seat in November?", "Cedillo is due to step down"),
    ("Who called for everyone involved to resign?", "Eric Garcetti and even President Biden"),
    ("Where were protestors gathered?", "outside of his Eagle Rock home"),
])
def test_the_first_quote_is_the_sentence_that_answers(seed_index, question, expected):
    answer = seed_index.ask(question, k=1)

    assert answer.found
    assert expected in answer.citations[0].quote


@pytest.mark.parametrize("question", [
    "Who has resigned over the recording?",
    "Who has already resigned over the scandal?",  # the verifier's choice (session 20)
    pytest.param("Who in the council has resigned?", marks=pytest.mark.xfail(
        strict=True, reason="the reader's best span is in de León's sentence, which then "
                            "comes first (issue 33's closing note)")),
    "Who else has resigned?",
])
def test_who_did_it_is_answered_by_the_sentence_that_says_it_happened(seed_index, question):
    # the seed also says de León "has no plans to resign" and that Garcetti and Biden
    # "called for all involved ... to resign": both hold the question's words, neither
    # says who resigned, so neither is quoted, first or second
    answer = seed_index.ask(question)

    assert answer.found
    first = answer.citations[0]
    assert first.quote == "Martinez and Herrera have since resigned."
    assert Path(first.hit.source) == SEED_FILE
    assert seed_index.document_text(first.hit.source)[first.start:first.end] == first.quote
    assert "no plans to resign" not in answer.text
    assert "called for all involved" not in answer.text


def test_a_yes_no_question_leads_with_the_sentence_about_its_subject(seed_index):
    # de León's "no plans to resign" sentence names Cedillo in passing; it decides
    # nothing about him
    answer = seed_index.ask("Did Cedillo resign?")

    assert answer.citations[0].quote.startswith("Cedillo is due to step down")


def test_a_list_question_quotes_the_sentence_naming_the_most_people(seed_index):
    answer = seed_index.ask("List everyone who was on the recording")

    first = answer.citations[0].quote
    assert all(name in first for name in ("de León", "Cedillo", "Martinez", "Herrera"))


def test_every_marker_in_the_answer_has_its_citation(seed_index):
    answer = seed_index.ask("Who called for everyone involved to resign?")

    numbers = {citation.n for citation in answer.citations}
    for n in numbers:
        assert f"[{n}]" in answer.text
    assert numbers == set(range(1, len(numbers) + 1))


def test_off_topic_question_is_not_answered(seed_index):
    answer = seed_index.ask("What is the capital of France?")

    assert not answer.found
    assert answer.citations == ()
    assert "do not contain" in answer.text


def test_follow_up_uses_the_earlier_question(seed_index):
    history = [("Who is Mike Bonin?", seed_index.ask("Who is Mike Bonin?").text)]

    answer = seed_index.ask("How old is his son?", history=history)

    assert answer.found
    assert "2-year-old" in answer.citations[0].quote


def test_a_new_subject_is_not_dragged_back_to_the_earlier_one(seed_index):
    history = [("Who is Mike Bonin?", seed_index.ask("Who is Mike Bonin?").text)]

    assert not seed_index.ask("What is the capital of France?", history=history).found


def test_answer_to_dict_has_the_documented_shape(seed_index):
    data = seed_index.ask("Who has resigned over the recording?").to_dict()

    assert set(data) >= {"question", "answer", "found", "citations"}
    assert set(data["citations"][0]) >= {
        "n", "source", "title", "text", "quote", "start", "end", "page", "score"
    }


ROWING = ("The Harbour Rowing Club was founded by dock workers. In 1962, after two winters "
          "of fundraising by its members and a grant from the town council, the club opened "
          "its boathouse on Quay Road beside the old lifeboat station. Training starts in "
          "April.")


@pytest.fixture(scope="module")
def rowing_index(tmp_path_factory):
    return index_of(tmp_path_factory.mktemp("rowing"), {"club.txt": ROWING})


@pytest.mark.xfail(strict=True, reason="the verifier retrained in session 21 scores the "
                   "boathouse's sentence -0.2 and the club's founding 0.9, which then comes "
                   "close enough to be quoted too, joined in front of it")
def test_a_long_quote_opens_with_its_clause_that_answers(rowing_index):
    """The words a glance takes in come first, verbatim from the quote, then the quote."""
    answer = rowing_index.ask("Where is the rowing club's boathouse?")
    opening, _, rest = answer.text.partition(" [1] ")

    assert "Quay Road" in opening and len(opening.split()) <= 12
    assert opening.strip("….") in answer.citations[0].quote
    assert rest.startswith("In 1962, after two winters")


CONTACTS = """name,role,site,phone,email
Helen Marsh,Practice Manager,Fernleigh,01632 960415,helen.marsh@example.org
Owen Tate,Head of Conveyancing,Brackenford,01632 960422,owen.tate@example.org
Rita Okoye,Office Administrator,Fernleigh,01632 960430,rita.okoye@example.org
"""
HANDBOOK = ("The Practice Manager runs the office day to day and signs off annual leave. "
            "Conveyancing files are kept for fifteen years after completion.")


def test_a_follow_up_is_judged_by_what_it_asks_made_standalone(tmp_path):
    """"and her phone number?" says nothing of whom: the verifier reads it with the turn
    before, so the contact's row answers it rather than being refused."""
    index = index_of(tmp_path, {"contacts.csv": CONTACTS, "handbook.txt": HANDBOOK})
    first = index.ask("Who is the Practice Manager?")
    answer = index.ask("and her phone number?", history=[("Who is the Practice Manager?",
                                                          first.text)])
    index.close()

    assert "Helen Marsh" in first.text
    assert answer.found and answer.text.startswith("01632 960415.")  # the cell asked for
