"""The office-folder benchmark (benchmarks/office) judges answers as its README says, and
its questions fit its documents: without the embedding model.

The judge is checked on hand-written answers, right and wrong in the ways issue 24's
tester saw (a quote without "No", a row without the total, a table row as a summary's
sentence); the questions on the files `documents.py` writes, read by `qa`'s loaders.
"""

from collections import Counter
from pathlib import Path

import pytest

from qa import Answer, Citation, Hit
from qa.loaders.formats import load
from tests.helpers import benchmark_scripts

documents, run = benchmark_scripts("office")
write_documents, failures, load_questions = (documents.write_documents, run.failures,
                                             run.load_questions)

QUESTIONS = {q["question"]: q for q in load_questions()}


def answer(text: str, *quotes: tuple[str, str], found: bool = True) -> Answer:
    """An answer of `text` citing each (file name, quote)."""
    citations = tuple(
        Citation(n, Hit(n, n, f"/office/{name}", name, quote, 0, len(quote), None, 1.0, 0.5),
                 quote, 0, len(quote))
        for n, (name, quote) in enumerate(quotes, 1))
    return Answer("", text, found, citations)


def judge(question: str, text: str, *quotes: tuple[str, str], found: bool = True) -> list:
    return failures(QUESTIONS[question], answer(text, *quotes, found=found))


KILN_RULE = ("staff_handbook.docx",
             "Only staff who have passed the kiln course may load or unload a kiln.")


def test_a_verdict_must_open_the_answer():
    question = "Can any member of staff load a kiln?"
    assert judge(question, f"No. {KILN_RULE[1]} [1]", KILN_RULE) == []
    assert judge(question, f"{KILN_RULE[1]} [1]", KILN_RULE)  # the rule, never "No"
    assert judge(question, f"Yes. {KILN_RULE[1]} [1]", KILN_RULE)
    assert judge(question, f"The documents do not say yes or no; they say: {KILN_RULE[1]} [1]",
                 KILN_RULE)
    other = ("kiln_firing_guide.md", "Kiln 1 is the large gas kiln.")
    assert judge(question, "No. Kiln 1 is the large gas kiln. [1]", other)  # cites no rule


def test_a_computed_value_must_be_stated_before_the_rows():
    question = "What is the total energy spend for 2026?"
    row = ("budget_2026.xlsx",
           "Spend 2026: Category: Energy; Q1: 12,300; Q2: 10,100; Q3: 9,400; Q4: 13,800.")
    assert judge(question, "Total energy spend, 2026: 45,600 (computed: 12,300 + 10,100 + "
                           "9,400 + 13,800) [1]", row) == []
    assert judge(question, "45600 [1]", row) == []
    assert judge(question, f"{row[1]} [1]", row)  # the row, never the total
    assert judge(question, f'The rows say "{row[1]}" so the total is 45,600 [1]', row)


def test_a_count_is_not_read_from_the_digits_of_another_number():
    question = "How many people in the contact list are based in Marrow Heath?"
    row = ("contacts.csv", "Name: Keira Holm; Role: Packer; Site: Marrow Heath; "
                           "Phone: 01632 960433; Email: keira.holm@bramblecote.example.")
    assert judge(question, f"{row[1]} [1]", row)
    assert judge(question, "3 people: Bartosz Nowak, Keira Holm and Ruben Okafor [1]", row) == []
    assert judge(question, "Three. [1]", row) == []


def test_an_unanswerable_question_must_be_refused():
    question = "What is Callum Reyes's salary?"
    assert judge(question, "The documents do not contain an answer.", found=False) == []
    row = ("contacts.csv", "Name: Callum Reyes; Role: Showroom manager; Site: Esk Harbour.")
    assert judge(question, f"{row[1]} [1]", row)
    assert judge("What is the deposit for a laptop?", "Not found.", found=False)


def test_a_fact_must_be_quoted_from_its_own_document():
    question = "How much did we pay at Mossway Hardware?"
    assert judge(question, "TOTAL 41.35 [1]", ("hardware_receipt.png", "TOTAL 41.35")) == []
    assert judge(question, "41.35 [1]", ("showroom.html", "Places: 8."))  # cites another file
    assert judge(question, "Card payment [1]", ("hardware_receipt.png", "Card payment"))
    assert judge(question, "Card payment [1] The total was 41.35. [2]",  # from another file
                 ("hardware_receipt.png", "Card payment"),
                 ("expenses_email.eml", "The total was 41.35."))


def test_a_list_must_hold_every_item_and_none_of_another_meeting():
    question = "What was decided at the team meeting on 6 November?"
    items = ["1. The display cabinet quote of 1,150 pounds was approved.",
             "2. Kiln 2 needs a new thermocouple; Petra Lowe will order one this week.",
             "3. Ledgerly replaces the paper expense forms from 1 December.",
             "4. Online orders over 60 pounds will ship free from 20 November.",
             "5. The Marrow Heath van will be serviced on 14 November.",
             "6. The two apprentices start on 11 January."]
    quotes = [("meeting_notes.txt", item) for item in items]
    assert judge(question, " ".join(f"{i} [1]" for i in items), *quotes) == []
    assert judge(question, " ".join(f"{i} [1]" for i in items[:2]), *quotes[:2])
    pug_mill = ("meeting_notes.txt", "1. The old pug mill will be sold.")
    assert judge(question, "...", *quotes, pug_mill)


def test_a_summary_must_quote_prose_of_its_document():
    question = "Summarize the staff handbook."
    prose = [("staff_handbook.docx", "Visitors to the workshop wear a yellow badge and stay "
                                     "with their host for the whole visit."),
             ("staff_handbook.docx", "Staff have 27 days of paid leave a year, plus public "
                                     "holidays.")]
    assert judge(question, "...", *prose) == []
    assert judge(question, "...", prose[0])  # one sentence is no summary
    for bad in ["The table below lists our teams, where they work and who leads them.",
                "Teams: Team: Finance; Site: Wrenfold; Lead: Ines Varga; Staff: 2.",
                "Bramblecote Ceramics Staff Handbook"]:
        assert judge(question, "...", *prose, ("staff_handbook.docx", bad)), bad
    assert judge(question, "...", *prose, ("contacts.csv", "Name: Ines Varga."))
    email = "Summarize the e-mail about the new expenses process."
    body = [("expenses_email.eml", "The attached guide explains how to make a claim."),
            ("expenses_email.eml", "Claims approved by the 20th of a month are paid with "
                                   "that month's wages.")]
    assert judge(email, "...", *body) == []
    assert judge(email, "...", *body, ("expenses_email.eml",
                                       "Subject: New expenses process from 1 December"))


def test_the_questions_come_in_the_issues_proportions():
    kinds = Counter(q["kind"] for q in load_questions())
    assert kinds == {"fact": 15, "value": 15, "unanswerable": 15, "follow-up": 8, "list": 4,
                     "summary": 3}
    assert all(q["history"] for q in load_questions({"follow-up"}))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("office")
    write_documents(folder)
    return folder


def test_the_documents_are_the_same_bytes_on_every_run(folder, tmp_path):
    again = write_documents(tmp_path)
    assert [p.read_bytes() for p in again] == [(folder / p.name).read_bytes() for p in again]


def test_what_an_answer_must_hold_is_in_the_document_it_must_cite(folder):
    texts = {p.name: _flat(load(p, p.read_bytes()).text) for p in sorted(folder.iterdir())}
    for question in load_questions():
        if "source" not in question:
            continue
        text = texts[question["source"]]  # a KeyError: a file documents.py does not write
        wanted = question.get("must", []) + question.get("not_quoted", [])
        missing = [s for s in wanted if _flat(s) not in text]
        assert not missing, (question["question"], missing)


def test_the_computed_values_expected_are_those_of_the_tables():
    spend, capital = (rows[1:] for rows in documents.BUDGET.values())
    budgets = {row[0]: row[1] for row in capital}
    teams = next(rows for kind, rows in documents.HANDBOOK if kind == "table")[1:]
    computed = {
        "Which capital project has the largest budget?": max(budgets, key=budgets.get),
        "How many people in the contact list are based in Marrow Heath?":
            str(sum(site == "Marrow Heath" for _, _, site, _ in documents.CONTACTS)),
        "What is the total energy spend for 2026?":
            f"{sum(next(row for row in spend if row[0] == 'Energy')[1:]):,}",
        "How much more is budgeted for the delivery van than for the website rebuild?":
            f"{budgets['Delivery van'] - budgets['Website rebuild']:,}",
        "Which team has the most staff?": max(teams, key=lambda row: int(row[3]))[0],
    }
    for question, value in computed.items():
        assert QUESTIONS[question]["first"][0] == value


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()
