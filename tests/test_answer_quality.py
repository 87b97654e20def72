"""What a reader sees in an extractive answer: no headings or labels in quotes, a second
quote only when it is relevant itself, a sentence that refers back brings its antecedent,
no sentence quoted twice, and a misspelt question still finds its sentence."""

import pytest

from qa import Index
from qa.answering.quoted import _joined
from qa.search import Hit
from tests.helpers import index_of


@pytest.fixture(scope="module")
def notes_index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notes")
    (folder / "lighthouse.txt").write_text(
        "Pelican Bay Lighthouse Notes\n"
        "The Pelican Bay lighthouse was built in 1871 by the harbour board.\n"
        "The tower is 41 metres tall.\n"
        "Opening Hours\n"
        "Visitors may climb the tower on Sundays between ten and four.\n\n"
        "The keeper's cottage burned down in a storm. It was rebuilt by volunteers in 1950.\n",
        encoding="utf-8",
    )
    (folder / "bakery.txt").write_text(
        "The bakery on Mill Street sells rye bread every morning. Its owner, Anna Berg, "
        "learned baking in Hamburg.\n", encoding="utf-8")
    (folder / "museum.txt").write_text(
        "The Harbour Museum\n\n"
        "The harbour museum opened in 1902 in the old customs house. Its collection covers two "
        "centuries of shipbuilding on the estuary.\n\n"
        "The museum's most celebrated exhibit is a restored paddle steamer, the Albatross. It "
        "was bought from a scrap dealer for 40 pounds in 1961.\n\n"
        "Professional divers, volunteer carpenters and a retired snowboarder named Lena Vik "
        "restored the steamer over eleven winters.\n\n"
        "A referendum on moving the museum inland was held in 1988. It was rejected by nearly "
        "80% of voters.\n\n"
        "Guided tours of the museum are available every morning.\n\n"
        "The museum's tower cannot be visited on Mondays because of maintenance work.\n",
        encoding="utf-8")
    index = Index.build([folder], path=tmp_path_factory.mktemp("index") / "index")
    yield index
    index.close()


def test_a_heading_is_never_part_of_a_quote(notes_index):
    answer = notes_index.ask("When was the Pelican Bay lighthouse built?")

    first = answer.citations[0]
    assert first.quote == "The Pelican Bay lighthouse was built in 1871 by the harbour board."
    assert all("Notes" not in c.quote and "Opening Hours" not in c.quote
               for c in answer.citations)


def test_a_when_question_is_answered_by_the_sentence_with_the_date(notes_index):
    answer = notes_index.ask("When can visitors climb the tower?")

    assert answer.citations[0].quote.startswith("Visitors may climb the tower on Sundays")


def test_a_second_quote_must_be_relevant_itself(notes_index):
    answer = notes_index.ask("Who owns the bakery on Mill Street?")

    assert "Anna Berg" in answer.citations[0].quote
    assert all("lighthouse" not in c.quote.lower() for c in answer.citations)


def test_a_quote_that_refers_back_brings_its_previous_sentence(notes_index):
    answer = notes_index.ask("Who rebuilt the keeper's cottage?")

    first = answer.citations[0]
    assert first.quote == ("The keeper's cottage burned down in a storm. "
                           "It was rebuilt by volunteers in 1950.")
    document = notes_index.document_text(first.hit.source)
    assert document[first.start:first.end] == first.quote


def test_k_of_one_still_finds_the_answering_sentence(notes_index):
    answer = notes_index.ask("How tall is the tower?", k=1)

    assert "41 metres" in answer.citations[0].quote


def test_a_second_quote_that_brings_back_the_first_is_one_quote(notes_index):
    # the best sentence restates the question; the next one answers it and, opening with
    # "It", brings the best one back with it: quoted as two, the reader would read it twice
    answer = notes_index.ask("What was the result of the referendum on moving the museum?")

    assert [c.quote for c in answer.citations] == [
        "A referendum on moving the museum inland was held in 1988. "
        "It was rejected by nearly 80% of voters."]
    assert answer.text.count("A referendum") == 1


def test_a_misspelt_question_word_is_read_as_the_word_the_passages_hold(notes_index):
    # "Albatros" is read as the "Albatross" of the sentence before "It was bought...", so
    # that sentence is brought with it and the reader learns what "It" is
    answer = notes_index.ask("How much was the Albatros bougth for?")

    assert answer.citations[0].quote == (
        "The museum's most celebrated exhibit is a restored paddle steamer, the Albatross. "
        "It was bought from a scrap dealer for 40 pounds in 1961.")


@pytest.mark.xfail(strict=True, reason="the verifier retrained in session 21 likes the guided "
                   "tours' sentence enough that it comes within SECOND_QUOTE_MARGIN of the "
                   "tower's and is quoted second")
def test_a_word_the_documents_hold_is_never_read_as_a_misspelling(notes_index):
    # "unavailable" is close to "available" but means the opposite; the reader's span is
    # in the guided tours' sentence, the verifier chooses the tower's (session 20)
    answer = notes_index.ask("What in the museum is unavailable on Mondays?")

    assert answer.citations[0].quote.startswith("The museum's tower cannot be visited")
    assert all("Guided tours" not in c.quote for c in answer.citations)


def test_quotes_from_overlapping_passages_never_repeat_a_sentence():
    document = ("The referendum was held in 1988. It was rejected by 80% of voters. "
                "The museum stayed where it was.")
    second = document.index("It was")
    first_chunk = _hit(1, document, 0, document.index(" The museum"))
    second_chunk = _hit(2, document, second, len(document))

    # the answer's sentence from one passage, then the same with its antecedent from
    # the other: one quote, from the passage that holds both
    assert _joined([(second_chunk, second, first_chunk.end), (first_chunk, 0, first_chunk.end)]) \
        == [(first_chunk, 0, first_chunk.end)]
    # overlapping quotes that no one passage holds: the first is enough
    assert _joined([(second_chunk, second, len(document)), (first_chunk, 0, first_chunk.end)]) \
        == [(second_chunk, second, len(document))]


def _hit(chunk_id: int, document: str, start: int, end: int) -> Hit:
    return Hit(rank=chunk_id, chunk_id=chunk_id, source="/docs/museum.txt", title="museum",
               text=document[start:end], start=start, end=end, page=None, score=0.0,
               similarity=0.0)


@pytest.mark.xfail(strict=True, reason="for 'Who wrote the review?' the reader's span is "
                   "Priya Raman, whose sentence then comes first (issue 33's closing note)")
def test_a_sentence_wrapped_over_lines_is_quoted_whole(tmp_path):
    # a narrow column: the sentence goes on after a comma, after "by", in lower case
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "dock.txt").write_text(
        "Loading Dock Review\n"
        "The safety officer,\nPriya Raman, recommends replacing the loading dock lights "
        "before winter.\n\n"
        "The review was written by\nJonas Eklund, head of facilities.\n\n"
        "The forklifts are serviced\nevery March by the vendor.\n", encoding="utf-8")
    index = Index.build([folder], path=tmp_path / "index")
    try:
        for question, quote in [
            ("Who recommends replacing the loading dock lights?",
             "The safety officer,\nPriya Raman, recommends replacing the loading dock lights "
             "before winter."),
            ("Who wrote the loading dock review?", "The review was written by\nJonas "
                                                   "Eklund, head of facilities."),
            ("When are the forklifts serviced?",
             "The forklifts are serviced\nevery March by the vendor."),
        ]:
            assert quote in [c.quote for c in index.ask(question).citations]
    finally:
        index.close()


@pytest.mark.parametrize("question", [
    "When did the Birmingham museum open?",        # a place no document names
    "What does the UGSS forecast say about the harbour museum?",  # an acronym
    "What happened at the harbour museum in 1877?",  # a year
])
def test_a_question_naming_what_no_document_holds_is_refused(notes_index, question):
    answer = notes_index.ask(question)

    assert not answer.found and answer.citations == ()


def test_a_name_only_an_earlier_turn_held_does_not_refuse_a_follow_up(notes_index):
    # the follow-up is searched with the earlier question, whose "Birmingham" no document
    # holds; the follow-up itself names nothing missing, so it is answered
    history = [("Which Birmingham museum is the oldest?",
                notes_index.ask("Which Birmingham museum is the oldest?").text)]

    answer = notes_index.ask("When did it open in the old customs house?", history=history)

    assert answer.found and "1902" in answer.citations[0].quote


@pytest.mark.xfail(strict=True, reason="the verifier retrained in session 21 still prefers "
                   "the non-members' row (logit 4.4 against 2.8), but both saturate its "
                   "logistic score (0.99 against 0.94): too little to change the order")
def test_the_verifier_chooses_the_row_that_answers_over_a_sentence_sharing_its_words(tmp_path):
    """The signals put "Members pay their plot rent each April" first (it holds "pay" and
    "plot"); the verifier, reading the best three as they would be quoted, knows that a
    price asked of non-members is the non-members' row."""
    index = index_of(tmp_path, {
        "prices.csv": "Service,Price\nAllotment plot (non-members),£70 per year\n"
                      "Shed hire,£12 per month\nSkip hire,£30 per load\n",
        "rules.txt": "Allotment rules\n\nMembers pay their plot rent each April. A plot left "
                     "uncultivated for two seasons may be offered to the waiting list. "
                     "Bonfires are allowed only between November and February.\n"})
    answer = index.ask("What does a non-member pay for a plot?")
    index.close()

    assert "non-members" in answer.citations[0].quote
    assert "£70" in answer.text.split("[1]")[0]
