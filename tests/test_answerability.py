"""Answerability (`qa.answering.answerability`, `qa.answering.quoted.assess`): the fitted
model's inputs on hand-written sentences (with the real verifier, not the embedding
model), and its refit."""

import json
from pathlib import Path

import numpy as np
import pytest

from qa.answering import answerability
from qa.answering.quoted import (
    Assessment,
    _Candidate,
    _quote_order,
    assess,
    question_terms,
    row_answers,
)
from qa.answering.verifier import verify
from qa.backends.base import SentenceRow
from qa.search import Hit
from tests.helpers import index_of

FIXTURE = Path(__file__).parent / "fixtures" / "answerability_rows.json"


def assessed(question: str, *sentences: str, similarities=None, frequencies=None,
             verify=None):
    """`assess` over one passage holding `sentences`, each with the given cosine to the
    question (0.5 by default), in an index of 100 passages where each question word is in
    `frequencies` of them (2 by default)."""
    text = " ".join(sentences)
    hit = Hit(1, 7, "notes.txt", "", text, 0, len(text), None, 1.0, 0.5)
    rows, start = [], 0
    similarities = similarities or [0.5] * len(sentences)
    for sentence, similarity in zip(sentences, similarities, strict=True):
        start = text.index(sentence, start)
        vector = np.array([similarity, np.sqrt(1 - similarity ** 2)], dtype=np.float32)
        rows.append(SentenceRow(7, start, start + len(sentence), vector))
        start += len(sentence)
    query = np.array([1.0, 0.0], dtype=np.float32)
    counts = {term: (frequencies or {}).get(term, 2) for term in question_terms(question)}
    return assess(question, query, [hit], rows, (counts, 100), verify=verify)


def test_every_feature_is_computed_and_named_once():
    found = assessed("When did the mill close?", "The mill closed in 2001.")

    assert tuple(found.features) == answerability.FEATURES
    assert set(answerability.shipped().weights) == set(answerability.FEATURES)


def test_the_verifier_feature_is_its_score_of_the_sentence_and_undecided_without_one():
    found = assessed("When did the mill close?", "The mill closed in 2001.", verify=verify)

    assert found.features["verifier"] == pytest.approx(
        verify("When did the mill close?", ["The mill closed in 2001."])[0], abs=0.1)
    assert found.features["verifier"] > 0
    assert assessed("When did the mill close?", "The mill closed in 2001.").features[
        "verifier"] == 0.0
    assert answerability.verifier_feature([99.0]) == answerability.MARGIN_CLIP


def test_both_features_are_leaned_on_with_the_sign_a_reader_expects():
    weights = answerability.shipped().weights

    assert weights["similarity"] >= 0.1 and weights["verifier"] >= 0.1


def test_the_shipped_model_refuses_what_lacks_the_thing_asked_for():
    model = answerability.shipped()
    pay = "What is the salary of Ana Silva?"
    naming = assessed(pay, "Ana Silva is the head of finance.", verify=verify)
    paying = assessed(pay, "Ana Silva has a salary of 40,000 euros.", verify=verify)

    assert model.probability(paying.features) > model.threshold
    assert model.probability(paying.features) > model.probability(naming.features) + 0.2


def test_the_shipped_model_believes_the_verifier():
    model = answerability.shipped()
    found = assessed("When did the mill close?", "The mill closed in 2001.")
    sure = found.features | {"verifier": 6.0}
    unsure = found.features | {"verifier": -4.0}

    assert model.probability(sure) > model.threshold > model.probability(unsure)


def test_refitting_from_a_small_sample_gives_the_shipped_behaviour():
    """The fixture is a sample of the rows benchmarks/answerability.py fits to (features
    of SQuAD training questions and whether each is answerable): a model refitted to it
    decides as the shipped one does on almost all of them."""
    rows = json.loads(FIXTURE.read_text())
    shipped = answerability.shipped()

    refit = answerability.fit([r["features"] for r in rows], [r["answerable"] for r in rows],
                              shipped.threshold)

    agree = [(refit.probability(r["features"]) >= refit.threshold)
             == (shipped.probability(r["features"]) >= shipped.threshold) for r in rows]
    assert sum(agree) / len(agree) >= 0.9
    strongest = sorted(shipped.weights, key=lambda name: -abs(shipped.weights[name]))[:4]
    assert all(np.sign(refit.weights[name]) == np.sign(shipped.weights[name])
               for name in strongest)


def test_the_fit_is_exact_and_repeatable():
    rows = json.loads(FIXTURE.read_text())
    features, labels = [r["features"] for r in rows], [r["answerable"] for r in rows]

    assert answerability.fit(features, labels).to_dict() == \
        answerability.fit(features, labels).to_dict()


@pytest.mark.parametrize(("question", "row", "answers"), [
    ("What is the extension of the Finance team?",
     "Teams: Team: Finance; Floor: 2; Extension: 2202.", True),
    ("On which floor does the Finance team sit?",
     "Teams: Team: Finance; Floor: 2; Extension: 2202.", True),
    ("What is the deposit for a laptop?", "Loans: Item: Laptop; Deposit: 300 pounds.", True),
    ("What were showroom sales in Q4 2026?",  # no Q4 column: another quarter's row
     "Sales, 2026: Channel: Showroom; Q1: 41,200; Q2: 38,900; Q3: 44,600.", False),
    ("What is the marketing budget for 2027?",  # this year's row for another year
     "Spend 2026: Category: Marketing; Q1: 3,200; Q2: 4,100.", False),
    ("What is the deposit for a company car?",  # the row of something else
     "Loans: Item: Van fuel card; Deposit: 25 pounds.", False),
    # a name the question gives that the row holds no word of: another thing's row
    ("What's the budget for the staff Christmas lunch?",
     "Budget 2025: Cost line: Staff wages; Amount: 88,000.", False),
    ("What did the new autoclave at Northgate cost?",
     "Southmoor: Item: New autoclave; Cost: £4,980.", False),
    ("What's the price of the Glazing Basics class?",
     "Classes: Class: Glazing basics; Day: Thursday; Price: 35 pounds.", True),
    ("What's the most bathers in the MR learner pool?",  # an acronym the row spells out
     "Pools: Pool: Mill Road learner pool; Maximum bathers: 35.", True),
    # two years, however written: "24/25" is "2024-25", and "25/26" another span's row
    ("What is the premises budget for 24/25?",
     "Budget 2024-25: Line: Premises; Total: 230,500; Notes: lease renewal due 2026.", True),
    ("What is the premises budget for 25/26?",
     "Budget 2024-25: Line: Premises; Total: 230,500; Notes: lease renewal due 2026.", False),
    ("Who is on call on 10 March?", "Rota: Dates: 10-11 March; Vet: Ada Lind.", True),
    ("What is the deposit for a company car?",  # prose is left to the model
     "A company car needs no deposit.", True),
])
def test_a_table_row_answers_only_what_names_it(question, row, answers):
    assert row_answers(question, row) is answers


def test_a_row_of_someone_else_with_the_same_first_name_is_no_answer(tmp_path):
    """The row asked about has no mobile; another Ines's row has one, and is not hers."""
    index = index_of(tmp_path, {"contacts.csv": (
        "name,role,site,mobile,email\n"
        "Ines Hart,Receptionist,Harbour Road,07700 900111,ines.hart@example.org\n"
        "Ines Dorey,Practice Manager,Harbour Road,,ines.dorey@example.org\n"
        "Tom Beck,Nurse,Mill Lane,07700 900222,tom.beck@example.org\n")})
    someone_else = index.ask("What's Ines Dorey's mobile number?")
    hers = index.ask("What's Ines Hart's mobile number?")
    index.close()

    assert not someone_else.found
    assert hers.found and hers.text.startswith("07700 900111")


def test_a_mobile_is_read_from_a_phone_column_alone_and_asked_of_the_one_just_named(tmp_path):
    """No column is called "mobile": the phone column holds what is asked, also in a
    follow-up whose question before ("runs") the row does not hold; a wifi password is
    no phone number, and where a mobile column is empty the phone is no answer."""
    index = index_of(tmp_path, {"contacts.csv": (
        "name,role,site,phone,email\n"
        "Gemma Stroud,Warehouse Lead,Siddow,07700 900458,gemma.stroud@example.org\n"
        "Gemma Hall,Taproom Manager,Dunmere,07700 900459,gemma.hall@example.org\n"
        "Tom Beck,Brewer,Siddow,07700 900222,tom.beck@example.org\n"),
        "rota.csv": (
        "name,site,phone,mobile\n"
        "Ada Lind,Siddow,01632 960101,\n"
        "Bo Kerr,Siddow,01632 960102,07700 900333\n")})
    hers = index.ask("What's Tom Beck's mobile?")
    follow_up = index.ask("what's her mobile?", history=[(
        "Who runs the warehouse at Siddow?", "Gemma Stroud is the Warehouse Lead [1].")])
    password = index.ask("What's the wifi password at Siddow?")
    no_mobile = index.ask("What's Ada Lind's mobile?")
    his = index.ask("what's his mobile?", history=[
        ("Who else is on the Siddow rota?", "Bo Kerr is on the Siddow rota [1].")])
    index.close()

    assert hers.found and hers.text.startswith("07700 900222")
    assert follow_up.found and follow_up.text.startswith("07700 900458")
    assert not password.found
    assert not no_mobile.found
    assert his.found and his.text.startswith("07700 900333")  # a column called "mobile"


def test_a_sentence_of_another_number_is_no_answer_but_a_heading_or_range_may_say_it(
        tmp_path):
    """Level 2's rate is not Level 1's; the quarter a heading names, the age a range
    holds and a decade are said though the sentence does not repeat them as asked."""
    index = index_of(tmp_path, {"pay.md": (
        "# Swim school\n\nLevel 2 swim teachers are paid £14.00 an hour from September. "
        "Level 1 teachers must hold a pool lifeguard award.\n\n"
        "## Q1 review\n\nThe labeller fault was traced to a worn glue pump.\n\n"
        "## Children\n\nWhile a child aged 8 to 11 swims alone, the parent must wait in "
        "the spectator gallery.\n\n## Lanes\n\nLane 9 is kept for lengths.\n\n"
        "## History\n\nMost of the estate's homes were built in the 1980s and 1990s.\n\n"
        "## Nights\n\nFrom 11.00pm until 8.00am, calls are handled by Nightline Vets.\n\n"
        "## Visits\n\nThe kennels take no visitors after 11pm.\n")})
    other_level = index.ask("What's the hourly rate for Level 1 swim teachers?")
    level = index.ask("What's the hourly rate for Level 2 swim teachers?")
    quarter = index.ask("What was wrong with the labeller in Q1?")
    age = index.ask("Where does the parent wait while their 9 year old swims alone?")
    decade = index.ask("Other than the 1980s, in which decade were the estate's homes built?")
    night = index.ask("Who handles calls after 11pm?")
    index.close()

    assert not other_level.found
    assert level.found and "£14.00" in level.text
    assert quarter.found and "glue pump" in quarter.text
    assert age.found and "spectator gallery" in age.text
    assert decade.found and "1990s" in decade.text
    assert night.found and "Nightline Vets" in night.text


def test_what_a_document_s_name_says_is_said_of_its_rows_and_sentences(tmp_path):
    """The loans policy's row holds no "loans" and the review's sentence names the year
    before in passing: the file's name says them (another year's figure is still no
    answer)."""
    index = index_of(tmp_path, {
        "Loans_Policy_2025.csv": ("Charge,Amount,Applies to\n"
                                  "Loan administration fee,£250 per loan,All outgoing loans\n"
                                  "Courier day rate,£320 per day,Plus travel and accommodation\n"),
        "Annual_Review_2024-25.md": (
            "# Volunteers\n\n86 volunteers gave 11,340 hours over the year (79 volunteers and "
            "10,150 hours in 2023-24).\n\n# Shop\n\nThe shop took £38,900.\n")})
    courier = index.ask("What's the courier day rate for loans?")
    hours = index.ask("How many hours did volunteers put in during 2024-25?")
    other_year = index.ask("How many hours did volunteers put in during 2022-23?")
    index.close()

    assert courier.found and "£320 per day" in courier.text
    assert hours.found and "11,340 hours" in hours.text
    assert not other_year.found


def test_the_quote_that_holds_the_kind_of_value_asked_is_quoted_first():
    """The sentence chosen best names her but holds no e-mail address; the contact row
    chosen beside it does, and is quoted first."""
    text = "Her details are on the contacts list. name: Wren Aldous; email: wren@example.org"
    hit = Hit(1, 1, "guide.md", "", text, 0, len(text), None, 1.0, 0.5)
    vector = np.zeros(3, dtype=np.float32)
    candidates = [_Candidate(SentenceRow(1, a, b, vector), hit, text[a:b], None, None)
                  for a, b in ((0, 36), (37, len(text)))]
    chosen = Assessment(candidates, [], [0, 1], {}, False, {}, {})

    assert _quote_order("What's her email?", chosen) == [1, 0]
    assert _quote_order("Where does she work?", chosen) == [0, 1]  # no kind of value asked


def test_the_quote_that_names_the_name_asked_comes_before_one_naming_a_longer_name():
    first = "Family Pass Plus costs £40 a month, with everything in the Family Pass."
    text = f"{first} The Family Pass costs £30 a month."
    hit = Hit(1, 1, "prices.md", "", text, 0, len(text), None, 1.0, 0.5)
    vector = np.zeros(3, dtype=np.float32)
    candidates = [_Candidate(SentenceRow(1, a, b, vector), hit, text[a:b], None, None)
                  for a, b in ((0, len(first)), (len(first) + 1, len(text)))]
    chosen = Assessment(candidates, [], [0, 1], {}, False, {}, {})

    assert _quote_order("How much is the Family Pass a month?", chosen) == [1, 0]
    assert _quote_order("How much is the Family Pass Plus a month?", chosen) == [0, 1]
