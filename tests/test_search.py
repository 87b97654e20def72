"""Search: keyword-query safety, fusion, and modes."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qa import QAError
from qa.answering.conversation import FOLLOW_UP_TURNS, standalone_question, the_other_named
from qa.answering.quoted import NOT_FOUND
from qa.search import reciprocal_rank_fusion
from tests.helpers import index_of

HOSTILE = [
    '"', '""', "*", "a*", "AND", "OR", "NOT", "NEAR", "NEAR(a b)", "(", ")", "((a)", "-", "-a",
    "a - b", ":", "title:resign", "^start", "a AND OR b", "'; DROP TABLE chunks; --",
    "\" OR 1=1 --", "{a b}", "a + b", "😀 resign 😀", "ﻣﺮﺣﺒﺎ resign", "\x00\x01\x07", "\ud800",
    "résigné", "a" * 1999, "resign NEAR/3 record",
    "\u202eresign\u202c", "שלום resign עולם", "\u200f\u200e\u061c", "\t\r\n\x0b\x0c\x1b[31m",
    "\x7f\x85\u2028\u2029", "\ufeff\u200b\u2060", "\udfff\ud800", "resign\udc80ed",
    "e\u0301" * 500, "𝔯𝔢𝔰𝔦𝔤𝔫", "🏳️‍🌈👨‍👩‍👧", "1; SELECT * FROM documents; --",
    "x' UNION SELECT path, text FROM documents --", "resign\x00 AND 1=1",
]
LIMIT_MESSAGE = r"the question is [\d,]+ characters long; the limit is 2,000"


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_hostile_text_is_searched_safely(seed_index, text, mode):
    hits = seed_index.search(text, k=3, mode=mode)

    assert all(hit.text for hit in hits)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_gets_an_answer_or_a_plain_refusal(seed_index, text):
    answer = seed_index.ask(text)

    if answer.found:  # each quote is the source's own text
        assert answer.citations and all(c.quote in c.hit.text for c in answer.citations)
    else:
        assert (answer.text, answer.citations) == (NOT_FOUND, ())


def test_keyword_search_leaves_out_words_half_the_passages_hold(tmp_path):
    from qa import Index

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in {"harbour": "The ferries left the harbour at dawn.",
                       "council": "The council met on Monday.",
                       "market": "The market opens at six."}.items():
        (docs / f"{name}.txt").write_text(text)
    index = Index.build([docs], path=tmp_path / "index")

    found = index.search("the harbour", k=10, mode="keyword")
    assert [hit.source for hit in found] == [str(docs / "harbour.txt")]  # not every "the"
    assert len(index.search("the at", k=10, mode="keyword")) == 3  # all common: all words
    index.close()


def test_stemming_matches_other_forms_of_a_word(seed_index):
    hits = seed_index.search("resignations", k=5, mode="keyword")

    assert any("resign" in hit.text for hit in hits)


@pytest.mark.parametrize("question", ["", "   \n", "\t\u3000\u2003", "x" * 2001, "x" * 100_000])
@pytest.mark.parametrize("method", ["ask", "search"])
def test_empty_or_huge_questions_get_a_clear_error(seed_index, question, method):
    message = LIMIT_MESSAGE if len(question) > 2000 else "the question is empty"
    with pytest.raises(QAError, match=message):
        getattr(seed_index, method)(question)


def test_a_question_of_the_longest_length_allowed_is_answered(seed_index):
    question = ("Who has resigned over the recording of the council meeting? " * 40)[:2000]

    answer = seed_index.ask(question)  # 400 tokens: more than a window of the reader holds

    assert answer.found and "resigned" in answer.text


def test_the_limit_message_gives_the_length(seed_index):
    with pytest.raises(QAError) as raised:
        seed_index.search("é" * 100_000)
    assert str(raised.value) == (
        "the question is 100,000 characters long; the limit is 2,000"
    )


ANY_TEXT = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=200),  # surrogates and controls too
    st.text(st.characters(exclude_categories=()), min_size=1, max_size=5).map(lambda s: s * 500),
)


@pytest.mark.heavy
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=ANY_TEXT)
def test_any_unicode_is_searched_and_asked_safely(seed_index, text):
    """Property: any text gets hits (or an answer) or a clear QAError, never a crash."""
    for method in ("search", "ask"):
        try:
            result = getattr(seed_index, method)(text)
        except QAError as error:
            assert not text.strip() or len(text) > 2000, (method, error)
            assert "empty" in str(error) or "limit is 2,000" in str(error)
            continue
        if method == "search":
            assert [hit.rank for hit in result] == list(range(1, len(result) + 1))
            assert all(hit.text and hit.start < hit.end for hit in result)
        else:
            assert result.found or result.citations == ()
            for citation in result.citations:
                document = seed_index.document_text(citation.hit.source)
                assert document[citation.start:citation.end] == citation.quote


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([[1, 2, 3], [4, 2, 5]])

    # 2: 1/62 + 1/62; 1 and 4: 1/61 each (ties keep first-seen order); 3 and 5: 1/63.
    assert [item for item, _ in fused] == [2, 1, 4, 3, 5]
    assert fused[0][1] == pytest.approx(2 / 62)


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_each_mode_finds_the_protest_passage(seed_index, mode):
    hits = seed_index.search("protestors gathered outside his Eagle Rock home", k=3, mode=mode)

    assert "Eagle Rock home" in hits[0].text


def test_search_within_a_document_returns_only_its_passages(tmp_path, seed_copy):
    from qa import Index

    (seed_copy / "orchard.md").write_text("The orchard at Kelso grows forty varieties of apples.")
    index = Index.build([seed_copy], path=tmp_path / "index")

    hits = index.search("Who has resigned over the recording?", k=5,
                        within=[seed_copy / "orchard.md"])

    assert [hit.source for hit in hits] == [str(seed_copy / "orchard.md")]
    assert not index.ask("Who has resigned?", within=[seed_copy / "orchard.md"]).found


def test_a_search_within_1000_paths_is_checked_and_more_are_refused(seed_index):
    seed = seed_index.documents()[0].path
    others = [f"/nowhere/{n}/file-{n}.txt" for n in range(999)]

    with pytest.raises(QAError, match="no indexed document is at, under or named "
                                      "'/nowhere/0/file-0.txt'"):
        seed_index.search("Who has resigned?", k=3, within=[*others, seed])
    for call in (seed_index.search, seed_index.ask):
        with pytest.raises(QAError, match=r"^1,001 documents \(or folders\) are named; the "
                                          r"limit is 1,000$"):
            call("Who has resigned?", within=[*others, seed, "/nowhere/else"])


BAD_K = [0, -1, 1001, 10**8, 10**9, 1.5, float("nan"), float("inf"), True, "5"]
K_MESSAGE = "k must be a whole number from 1 to 1000"


@pytest.mark.parametrize("k", BAD_K, ids=repr)
@pytest.mark.parametrize("method", ["ask", "search"])
def test_k_outside_1_to_1000_gets_one_clear_error(seed_index, method, k):
    with pytest.raises(QAError) as raised:
        getattr(seed_index, method)("Who has resigned?", k=k)
    assert str(raised.value) == K_MESSAGE


def test_the_largest_k_returns_every_passage_and_a_whole_float_counts(seed_index):
    assert len(seed_index.search("Who has resigned?", k=1000)) == 5  # the seed's passages
    assert len(seed_index.search("Who has resigned?", k=3.0)) == 3


def test_an_unknown_mode_is_refused_not_run_as_hybrid(seed_index):
    with pytest.raises(QAError) as raised:
        seed_index.search("Who has resigned?", mode="bogus")
    assert str(raised.value) == "mode must be one of: dense, keyword, hybrid"
    with pytest.raises(QAError) as raised:
        seed_index.ask("Who has resigned?", mode="bogus")
    assert str(raised.value) == "answer mode must be one of: extractive, llm"


def test_a_conversation_of_5000_follow_ups_is_answered_from_its_last_turns(seed_index):
    history = [("Who is Mike Bonin?", "A councilmember.")]
    history += [(f"And what did he say on day {n}?", "Nothing.") for n in range(5000)]

    answer = seed_index.ask("How old is his son?", history=history)

    assert standalone_question("How old is his son?", history) == (
        "How old is his son? And what did he say on day 4997? And what did he say on day "
        "4998? And what did he say on day 4999?"
    )
    assert answer.found and "2-year-old son" in answer.citations[0].quote
    assert standalone_question("How old is his son?", history[:2]) == (
        "How old is his son? Who is Mike Bonin? And what did he say on day 0?"
    )


def test_a_follow_up_is_searched_with_the_answer_its_pronoun_refers_to():
    asked = [("Who leads the Dispatch team?", "Bartosz Nowak leads it, in Marrow Heath. [1] "
              "He joined in 2019. [2]")]
    assert standalone_question("What is his e-mail address?", asked) == (  # what it asks first
        "What is his e-mail address? Who leads the Dispatch team? Bartosz Nowak leads it, in "
        "Marrow Heath.")
    refused = [("Who leads the Dispatch team?",
                "The documents do not contain an answer to this question.")]
    assert standalone_question("What is his e-mail address?", refused) == (
        "What is his e-mail address? Who leads the Dispatch team?")
    counted = [("How many kiln loads were fired in 2026?", "1,840 kiln loads. [1]")]
    assert standalone_question("Why was that fewer than the year before?", counted) == (
        "Why was that fewer than the year before? How many kiln loads were fired in 2026?")
    assert standalone_question("Is the van that broke down fixed?", counted) == (
        "Is the van that broke down fixed?")  # "that" joins a clause: a new question
    dated = [("When is the car park closed?", "On Thursday 12 November. [1]")]
    assert standalone_question("Why is it closed that day?", dated) == (  # "it": the car park
        "Why is it closed that day? When is the car park closed?")


@pytest.mark.parametrize(("earlier", "follow_up", "searched"), [
    ("Who is the fire warden at Leeds?", "And at York?", "Who is the fire warden at York?"),
    ("How much is a day pass for a child?", "what about a pensioner",
     "How much is a day pass for a pensioner?"),  # the last phrase, from its article
    ("What was Anna's budget in 2024?", "and Ben's?", "What was Ben's budget in 2024?"),
    ("What is the fare to Oban?", "and on Sundays?", "What is the fare to Oban on Sundays?"),
    ("What is the fare to Oban?", "And what does a return cost?",  # a question of its own
     "And what does a return cost?"),
    # a name for a name, wherever it stands; a day is no name
    ("What are the Leeds office hours on Fridays?", "what about York?",
     "What are the York office hours on Fridays?"),
    ("What are the Leeds depot opening hours?", "what about the York depot?",
     "What are the York depot opening hours?"),
    # each part after a preposition for the part after the same one, or one of its sense
    ("Who is on call at Leeds on Monday 3 May?", "and at York on the Friday?",
     "Who is on call at York on the Friday?"),
    ("What time is lunch served on weekdays?", "and at the weekend?",
     "What time is lunch served at the weekend?"),
    ("What is the fee for a single room at the Leeds hotel?", "and for a twin room there?",
     "What is the fee for a twin room there at the Leeds hotel?"),
    ("How do I apply to join the pension scheme?", "and for contractors?",
     "How do I apply to join the pension scheme for contractors?"),  # "to" is no "for"
    ("Who manages the Finance team in Leeds?", "and the HR team?",
     "Who manages the HR team in Leeds?"),  # the name before the same word
    # the words ending alike, not the verb before them
    ("How long do we keep payroll records?", "and pension records?",
     "How long do we keep pension records?"),
])
def test_a_follow_up_of_only_a_phrase_asks_the_previous_question_of_it(
        earlier, follow_up, searched):
    assert standalone_question(follow_up, [(earlier, "An answer. [1]")]) == searched


def test_a_phrase_that_refers_back_asks_of_what_the_last_answer_named():
    led = [("Who leads the Dispatch team?", "Bartosz Nowak leads the Dispatch team. [1]")]

    assert standalone_question("and his e-mail?", led) == (
        "and his e-mail? Who leads the Dispatch team? Bartosz Nowak leads the Dispatch team.")
    # the answer's names, not its values: the number asked for is no word of the question
    row = [("Who is the practice manager?", "name: Helen Marsh; role: Practice Manager; "
            "phone: 01632 960415; email: helen.marsh@example.org. [1]")]
    assert standalone_question("and her phone number?", row) == (
        "and her phone number? Who is the practice manager? name: Helen Marsh; role: "
        "Practice Manager; phone: ; email:")


def test_it_after_a_question_for_someone_refers_to_the_thing_asked_about_not_to_them():
    audit = [("Who carried out the fire audit?", "Ana Lopes carried it out. [1]")]

    assert standalone_question("what grade did it give?", audit) == (
        "what grade did it give? Who carried out the fire audit?")
    assert standalone_question("what is her phone number?", audit) == (
        "what is her phone number? Who carried out the fire audit? Ana Lopes carried it out.")


def test_a_chat_of_5000_phrase_follow_ups_reads_only_its_last_turns():
    history = [("Who is the fire warden at Leeds?", "Ada Lind. [1]")]
    history += [(f"And at site {n}?", "Bo Berg. [1]") for n in range(5000)]

    assert standalone_question("And at York?", history) == \
        standalone_question("And at York?", history[-FOLLOW_UP_TURNS:])
    assert standalone_question("And at York?", history[:3]) == \
        "Who is the fire warden at York?"


@pytest.mark.parametrize(("follow_up", "searched"), [
    ("and at the other site?", "What are the goods-in hours at the Alderwick Hub?"),
    ("What's the phone number of the other site?", "What's the phone number of Alderwick?"),
    ("and at York?", None),  # no "the other": made standalone otherwise
])
def test_the_other_of_two_is_asked_of_by_name(follow_up, searched):
    earlier = [("What are the goods-in hours at the Kettlebrook depot?", "09:00-12:00. [1]")]

    def other_of(name: str) -> list[tuple[str, str]]:  # what the tables say: two sites
        return [("Kettlebrook", "Alderwick"), ("Kettlebrook Depot", "Alderwick Hub")] \
            if name == "Kettlebrook" else []

    assert the_other_named(follow_up, earlier, other_of) == searched


def test_a_follow_up_about_the_other_site_is_answered_from_the_other_sites_row(tmp_path):
    index = index_of(tmp_path, {"sites.csv": "Site,Address,Goods-in\n"
                                             "Kettlebrook Depot,7 Salt Road,Mon-Fri 09:00-12:00\n"
                                             "Alderwick Hub,3 Chapel Yard,Thu 10:00-12:00\n"})
    answer = index.ask("and at the other site?",
                       history=[("What are the goods-in hours at Kettlebrook?",
                                 "Mon-Fri 09:00-12:00. [1]")])
    index.close()

    assert "Thu 10:00-12:00" in answer.text.split("[1]")[0]


HANDBOOK = """# Staff handbook

## Annual leave

Full-time staff get 28 days of annual leave a year, including bank holidays.
Up to five days of unused leave may be carried over into the next leave year.

## Parking

Staff park in the rear car park. Visitors use the front car park.
"""


def test_a_follow_up_the_documents_do_not_answer_alone_is_read_after_the_last_question(
        tmp_path):
    index = index_of(tmp_path, {"handbook.md": HANDBOOK})
    leave = [("How many days of annual leave do I get?",
              "Full-time staff get 28 days of annual leave a year, including bank holidays. [1]")]
    alone = index.ask("can i keep some for next year?")
    after = index.ask("can i keep some for next year?", history=leave)
    unrelated = index.ask("what is the pension scheme?", history=leave)
    index.close()

    assert not alone.found
    assert after.found and "carried over" in after.citations[0].quote  # not the 28 days again
    assert not unrelated.found  # the leave it was asked after does not answer it
