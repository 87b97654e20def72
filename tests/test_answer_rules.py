"""Each rule of an extractive answer, on hand-written sentences, without the model."""

import numpy as np
import pytest

from qa.answering import question_kinds as kinds
from qa.answering.quoted import WEIGHTS, Signals, _is_label, _quotable, spellings
from qa.answering.summary import central_sentences, documents_to_summarize, overview
from qa.backends import DocumentInfo


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
    ("Where should staff park on Thursday?", "Please park on Ropewalk Lane.",
     "The car park is closed on Thursday 12 November."),  # a date is no place
    ("What is the address of the shop?", "14 Quay Street, Esk Harbour",
     "The shop is in Esk Harbour."),
    ("Can a reader have three boxes out at once?",  # an amount tested: what can decide it
     "No more than 2 boxes on your desk at a time", "Open Tuesday and Thursday 10am - 4pm"),
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


def test_a_word_cut_short_is_read_as_the_shortest_held_word_it_begins():
    held = {"refurbishment", "refurbishments", "approved", "surgery"}

    wanted = spellings("Who approved the surgery refurb?", held, known=set())

    assert wanted["refurb"] == "refurbishment"


@pytest.mark.parametrize(("word", "held", "known"), [
    ("unavailable", {"available"}, set()),   # another first letter: another word
    ("unavailable", {"unavailble"}, {"unavail"}),  # the index holds it: not a misspelling
    ("room42", {"room4"}, set()),            # digits: a code, not a misspelling
])
def test_a_word_is_not_read_as_a_misspelling_when_it_may_be_meant(word, held, known):
    assert spellings(f"Is the {word} listed?", held, known)[word] == word


@pytest.mark.parametrize(("question", "subject"), [
    ("Summarize this article", ("this article", True)),
    ("Can you give me the gist of the handbook?", ("handbook", True)),
    ("quick summary of the 3 oct team meeting pls", ("3 oct team meeting", True)),
    ("summarise the customer FAQ for me please", ("customer faq", True)),
    ("summary statistics for the trial?", None),  # no summary of anything
    ("What are the main points?", ("", True)),
    ("What is the safety report about?", ("safety report", False)),
    ("What does the memo say?", ("memo", False)),
    ("what's hannah's email about the rota saying?", ("hannah's email about the rota", False)),
    ("can u sum up stuart's email about the van", ("stuart's email about the van", True)),
    ("whats the gist of tom's insurance email", ("tom's insurance email", True)),
    ("What was the dispute about?", ("dispute", False)),
    ("What is the capital of France?", None),
    ("Who summarized the report?", None),
])
def test_an_overview_question_is_told_apart_with_its_subject(question, subject):
    assert kinds.summary_subject(question) == subject


DOCUMENTS = [DocumentInfo("/d/safety_report.pdf", "Loading dock safety report", 4, ""),
             DocumentInfo("/d/handbook.md", "Staff handbook", 9, ""),
             DocumentInfo("/d/news.txt", "", 2, "")]


@pytest.mark.parametrize(("question", "paths"), [
    ("What is the safety report about?", ["/d/safety_report.pdf"]),
    ("Give me the gist of the staff handbook.", ["/d/handbook.md"]),
    ("Summarize the documents", ["/d/handbook.md", "/d/safety_report.pdf", "/d/news.txt"]),
    ("What is this article about?", ["/d/news.txt"]),  # the one the conversation is about
    ("Summarize the minutes of the board", ["/d/found.txt"]),  # no title: searched for
    ("what's the email from Hannah saying?", ["/d/found.txt"]),  # an e-mail is a document
    ("What was the dispute about?", None),  # about a dispute, not a document
])
def test_an_overview_is_of_the_document_the_question_names_or_refers_to(question, paths):
    subject = kinds.summary_subject(question)

    chosen = documents_to_summarize(*subject, DOCUMENTS, referred=lambda: "/d/news.txt",
                                    find=lambda text: "/d/found.txt")

    assert chosen == paths


def test_the_name_that_holds_the_rarer_words_of_the_subject_is_the_one_summarised():
    # both names hold two of the subject's three words; only one holds "infection"
    policies = [DocumentInfo("/d/POL-03_Controlled_Drugs_Policy.pdf", "Controlled Drugs Policy",
                             6, ""),
                DocumentInfo("/d/POL-07_Infection_Control.pdf", "Infection Control", 5, ""),
                DocumentInfo("/d/Leave_Policy.pdf", "Leave Policy", 3, "")]

    chosen = documents_to_summarize("infection control policy", True, policies,
                                    lambda: None, lambda t: None)

    assert chosen == ["/d/POL-07_Infection_Control.pdf"]


@pytest.mark.parametrize(("subject", "path"), [
    ("board presentation", "/d/Board_Meeting_Q2.pptx"),  # a slide deck, by its kind
    ("october meeting notes", "/d/2024-10-03_Team_meeting_notes.txt"),  # a date's month
    ("h&s meeting notes", "/d/Health_and_Safety_Committee_notes.txt"),  # initials
    # words no name holds say what is in it, when half the words name a document
    ("the booking email to Fernlea Primary", "/d/visit_booking.eml"),
])
def test_a_document_is_named_by_its_kind_the_month_of_its_date_or_its_initials(subject, path):
    folder = [DocumentInfo(p, "", 3, "") for p in (
        "/d/Board_Meeting_Q2.pptx", "/d/Board_Meeting_Q2_minutes.docx",
        "/d/2024-09-12_Team_meeting_notes.txt", "/d/2024-10-03_Team_meeting_notes.txt",
        "/d/Health_and_Safety_Committee_notes.txt", "/d/Staff_Handbook.docx",
        "/d/visit_booking.eml", "/d/contacts.csv")]

    assert documents_to_summarize(subject, True, folder, lambda: None, lambda t: None) == [path]


def test_of_names_alike_the_one_whose_text_matches_the_subject_is_summarised():
    notes = [DocumentInfo("/d/team_meeting_march.txt", "", 3, ""),
             DocumentInfo("/d/team_meeting_may.txt", "", 3, "")]

    def find(text):
        return "/d/team_meeting_may.txt"

    assert documents_to_summarize("team meeting", True, notes, lambda: None, find) \
        == ["/d/team_meeting_may.txt"]
    assert documents_to_summarize("team meeting", True, notes, lambda: None,
                                  lambda text: None) == [n.path for n in notes]


def test_a_lone_document_is_the_one_summarised():
    assert documents_to_summarize("", True, DOCUMENTS[:1], lambda: None, lambda t: None) \
        == ["/d/safety_report.pdf"]


def _unit(*rows: list[float]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_summary_takes_central_sentences_that_differ_in_document_order():
    # sentences 1 and 2 restate each other, 0 is an aside: the summary takes one of the
    # restatements, then what else is central, never the other restatement
    vectors = _unit([1, 0, 0, 1.5], [1, 1, 0, 0], [1, 1, 0.25, 0], [1, 0.5, 0.8, 0],
                    [1, 0.5, -0.6, 0])

    assert central_sentences(vectors, 1) == [1]
    assert central_sentences(vectors, 3) == [1, 3, 4]
    assert central_sentences(vectors, 9) == [0, 1, 2, 3, 4]


def test_an_overview_says_what_a_document_is_then_its_points_in_order():
    # under each heading the sentence that says most of its section, a figure or a
    # decision first: "Forecast" gives its figure, though the warning is as central
    sentences = [(25, "These minutes record the meeting of the board about the quarter."),
                 (110, "The chair welcomed everyone to the meeting today."),
                 (180, "Revenue was 412,000 pounds this quarter."),
                 (230, "Do not share the forecast outside the board."),
                 (300, "The board approved the Lisbon office.")]
    headings = [(0, "Board Meeting Q3"), (100, "Welcome"), (170, "Forecast"), (290, "Lisbon")]
    vectors = _unit(*([1, y, 0] for y in (0, 0.1, 0.3, 0.2, 0.4)))

    assert overview("/docs/minutes.docx", "", sentences, vectors, headings, points=True) == [
        ("“Board Meeting Q3” is a Word document:", 0), ("Welcome:", 1), ("Forecast:", 2),
        ("Lisbon:", 4)]
    assert overview("/docs/minutes.docx", "Minutes", sentences, vectors, headings,
                    points=False) == [("“Minutes” is a Word document:", 0)]
    # without headings (an article): its first sentence, then two central ones, in order
    apart = _unit([1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1], [1, 1, 1])
    first, *central = overview("/docs/news.txt", "", sentences, apart, [], points=True)
    assert first == ("“news.txt” is a text file:", 0)
    assert [words for words, _ in central] == ["", ""]
    assert [i for _, i in central] == sorted(i for _, i in central) and central[0][1] > 0
    # a numbered heading names a section, not the document: the file name says what it is
    numbered = [(0, "1. Purpose"), (100, "Welcome")]
    assert overview("/docs/Food_Safety_Policy.pdf", "", sentences, vectors, numbered,
                    points=False) == [("“Food_Safety_Policy.pdf” is a PDF:", 0)]
    assert overview("/docs/budget.pdf", "", sentences, vectors, [(0, "2024 Budget")],
                    points=False) == [("“2024 Budget” is a PDF:", 0)]  # a year numbers none


@pytest.mark.parametrize(("question", "subject"), [
    ("Did Cedillo resign?", {"cedillo"}),
    ("Has Kevin de León resigned?", {"kevin", "león"}),
    ("Is the office open on Saturdays?", {"office"}),
    ("Who resigned?", set()),
])
def test_a_yes_no_question_names_its_subject(question, subject):
    assert kinds.yes_no_subject(question) == subject


def test_a_yes_no_question_is_decided_by_a_sentence_about_its_subject():
    subject = kinds.yes_no_subject("Did Cedillo resign?")

    assert kinds.leads_with(subject, "Cedillo is due to step down in November.") == 1.0
    assert kinds.leads_with(subject, "De León said he has no plans to resign after a "
                                     "recording captured him, Cedillo and Martinez.") == 0.0


@pytest.mark.parametrize(("question", "listing"), [
    ("List everyone who was at the meeting", True),
    ("Name the teams on floor 4.", True),
    ("Which teams are on floor 4?", True),
    ("Which team is on floor 4?", False),
    ("Who was at the meeting?", True),  # everyone who was
    ("who attended the board meeting", True),
    ("Who was the chair?", False),
    ("which volunteer roles need a DBS check?", True),  # words before the plural
    ("what capital projects are planned for next year", True),
    ("who are the first aiders at the depot?", True),
    ("what percentage of sales was online?", False),  # "sales" is of the percentage
    ("what are the action items from the ops meeting", True),
    ("What happens if I miss a shift?", False),  # a verb in -s, no plural
    ("Which bus goes to the station?", False),
    ("what time does the shop open?", False),
])
def test_a_list_question_is_told_apart(question, listing):
    assert kinds.is_list_question(question) == listing


def test_a_list_of_people_counts_full_names_and_a_list_of_things_its_items():
    people = "Name everyone who was at the meeting."
    assert kinds.named_things(people, "Mayor Anna Berg met Lena Vik and Kevin de León.") == 3
    assert kinds.named_things(people, "In Spanish, Berg said Black and English.") == 0
    things = "List the teams."
    assert kinds.named_things(things, "The teams are design, sales, support and legal.") == 4


@pytest.mark.parametrize(("question", "names"), [
    ("What does the UGSS California forecast model?", [["ugss"], ["california"]]),
    ("Who won in 1805 in Kevin de León's district?", [["1805"], ["kevin", "león"]]),
    ("When was the lighthouse built?", []),
    ("Who took the notes on 4th June?", [["4th", "4"], ["june"]]),  # either
    ("What will the rent be in Jan 2026?", [["jan", "january"], ["2026"]]),
])
def test_a_question_names_what_a_passage_must_hold(question, names):
    assert kinds.specific_names(question) == names


@pytest.mark.parametrize(("acronym", "text", "spelled"), [
    ("dpo", "Ask the Data Protection Officer first.", True),
    ("hse", "Report it to the Health and Safety Executive.", True),
    ("dpo", "The data protection officer is new.", False),  # words, not a title
    ("ceo", "The Chief Executive signs it.", False),
])
def test_an_acronym_is_spelled_out_by_a_title_of_its_initials(acronym, text, spelled):
    assert kinds.spells_out(acronym, text) is spelled


@pytest.mark.parametrize(("line", "following", "label"), [
    ("Opening Hours", "Visitors may climb the tower.", True),
    ("The safety officer,", "Priya Raman, recommends new lights.", False),
    ("The review was written by", "Jonas Eklund.", False),
    ("The forklifts are serviced", "every March.", False),
    ("It was built in 1871.", "The tower is tall.", False),
    ("**Present:** Ada Lind, Bo Berg (Depot Manager, Leeds), Cy", "(Driver), Di Fox", False),
])
def test_a_line_is_a_label_only_when_no_sentence_goes_on_from_it(line, following, label):
    assert _is_label(line, following) == label


@pytest.mark.parametrize(("text", "quotable"), [
    ("**Can I take my mobility scooter on the bus?**", False),  # an FAQ's question
    ("Notice periods are set out below.", False),  # a lead-in: its rows answer
    ("The fees listed below apply from 1 April 2024.", True),  # a lead-in that says a date
    ("Full-size bikes can't be carried on any of our buses.", True),
    ("Subject: New fridge van + revised collection rota from Mon 8 Sept", False),
    ("4.1 Volunteers aged 16 and 17", False),  # a numbered heading, though it ends in 17
    ("Flat white 3.20", True),  # a receipt's line states its price
    ("14 Quay Street, Esk Harbour", True),  # an address, not a section's number
    ("Notes taken by: Jonah Ferreira", True),  # a field states its value
])
def test_what_is_never_quoted_as_an_answer(text, quotable):
    assert _quotable(text) is quotable


def test_a_column_name_in_a_table_row_is_no_deed():
    question = "Who leads the Design team?"

    assert kinds.names_the_doer(question, "leads", "Team: Finance; Lead: Tomas Lind.") == 0.0
    assert kinds.names_the_doer(question, "leads", "Clara Osei leads it since March.") == 1.0


def test_a_subject_in_quotes_names_a_document_even_without_its_title():
    subject = kinds.summary_subject("What is “Four volunteers rescued the maps…” about?")

    assert documents_to_summarize(*subject, DOCUMENTS, referred=lambda: None,
                                  find=lambda text: "/d/found.txt") == ["/d/found.txt"]


@pytest.mark.parametrize(("question", "text", "lacks"), [
    ("What is the alarm code for the workshop?",
     "The alarm code for the workshop is changed every quarter.", True),
    ("What is the door code?", "The door code is 4471#.", False),
    ("What time does the warehouse open?", "The warehouse van is serviced on 14 November.",
     True),
    ("What time does the warehouse open?", "The warehouse opens at 7.30 on weekdays.", False),
    ("What time does the workshop close?", "It opens at half past seven and closes at six.",
     False),
    ("What is his e-mail address?", "Callum Reyes manages the showroom.", True),
    ("What is his e-mail address?", "Name: Callum Reyes; Email: callum@example.com.", False),
    ("What is the phone number of the Leeds office?", "The Leeds office moved in May.", True),
    ("How much did the new boiler cost?", "The new boiler was fitted in June.", True),
    ("How much did the new boiler cost?", "The new boiler cost £4,200.", False),
    ("how much is it costing?", "The new boiler goes in on 3 May.", True),
    ("What does the copper kettle cost?", "Prices: Product: Copper kettle; Price: 24.50.", False),
    ("What did the repairs cost?", "The repairs were done free of charge.", False),
    # "When...?" needs a time, however said
    ("When does the licence course start?", "We pay for the licence course, up to £250.",
     True),
    ("When is rent due?", "Rent is due on the first Monday of each month.", False),
    ("When were the lines cleaned?", "The lines were cleaned in 2024.", False),
    ("When are fire drills held?", "Fire drills are held twice a year.", False),
    ("When's the next fire drill?", "Fire drills are held twice a year.", True),  # how often
    ("When's the next fire drill?", "The next fire drill is on 3 March.", False),
    ("When does the next bus leave?", "Buses leave every 20 minutes from 7am.", False),
    ("What did the damp survey end up costing?", "A damp survey is approved, up to £9,000.",
     True),  # a limit is not what it cost
    ("What did the tile repairs cost?", "Tile repairs by Harcombe Ltd (quote £23,400).", True),
    ("How much did the defibrillator end up costing?",
     "A defibrillator is approved, at a cost of up to £1,400.", True),
    ("What did the boiler cost?", "The new boiler cost £4,200.", False),
    ("How much does a lesson cost?", "Lessons cost up to £9.", False),
    ("When dating rocks, what is measured?", "Isotopes are measured.", False),  # no "when?"
    # no value of a kind asked for: any sentence may answer
    ("What is the dress code?", "Smart casual, with closed shoes in the studio.", False),
    ("What time are the polonaises written in?", "They are in triple time.", False),
    ("Which phone makers adopted the format?", "Several makers adopted it.", False),
    ("What is the address of Mossway Hardware?", "03/11/2026 10:42 TOTAL 41.35", True),
    ("What is the address of Mossway Hardware?", "14 Quay Street, Esk Harbour", False),
])
def test_a_question_for_a_time_code_address_or_number_needs_one(question, text, lacks):
    assert kinds.lacks_asked_value(question, text) is lacks


@pytest.mark.parametrize(("question", "text", "another"), [
    ("How many parcels did the hub issue in 2022?", "Parcels issued: 5,310 (2023: 4,175)", True),
    ("What was the budget in 2023-24?", "The 2024-25 budget is £5m.", True),
    ("What was the budget in 2024?", "The 2024-25 budget is £5m.", False),  # a span's year
    ("What was the budget in 24/25?", "The 2024-25 budget is £5m.", False),  # written so
    ("What was the budget?", "The 2024-25 budget is £5m.", False),  # no year asked
    ("What was the budget in 2022?", "The budget is £5m.", False),  # no year said
    # a season, a quarter, a month: another one's figure is no answer either
    ("How many pupils enrolled for the summer term?", "41 pupils enrolled for the winter term.",
     True),
    ("How many pupils enrolled for the summer term?", "41 pupils enrolled this summer.", False),
    ("What were sales in Q3?", "Q1 sales were 4,100.", True),
    ("How many visits in March?", "There were 512 visits in February.", True),
    ("How many visits in March?", "There were 512 visits.", False),
    ("May I park on site in June?", "Staff may park on site.", False),  # no May named
    ("How many visits in June?", "May saw 210 visits, and June 236.", False),
])
def test_another_periods_figure_is_no_answer(question, text, another):
    assert kinds.names_another_period(question, text) is another


@pytest.mark.parametrize(("question", "text", "another"), [
    ("What's the hourly rate for Level 1 swim teachers?",
     "Raise the hourly rate for Level 2 swim teachers from £13.40 to £14.00.", True),
    ("When is Lift A going to be refurbished?", "Lift B will be closed from 6 October.", True),
    ("When is Lift B going to be refurbished?", "Lift B will be closed from 6 October.", False),
    ("What is on in room 4?", "Room 2 and Room 3 are booked.", True),  # typed lower-case
    ("What is on in room 3?", "Room 2 and Room 3 are booked.", False),
    ("Can I lift a 25kg box?", "Lift B is out of order.", False),  # "a": no label
    ("How much were costs in 2024?", "Costs 1,200 in 2023.", False),  # an amount
    ("Is the shop open on Sunday 14 December?", "Closed Sunday 21 December.", False),  # a date
])
def test_another_labels_sentence_is_no_answer(question, text, another):
    assert kinds.names_another_label(question, text) is another


@pytest.mark.parametrize("text", ["Fifty guests came.", "About 50 guests came.",
                                  "A dozen guests came."])
def test_a_number_in_words_or_digits_answers_how_many(text):
    """One pattern of numbers (qa.words) for every rule: "fifty" is a number to all."""
    assert kinds.answer_type("How many guests came?")("How many guests came?", text) == 1.0


@pytest.mark.parametrize(("text", "question"), [
    ("The deposit is returned", False), ("Must visitors sign in", True),
    ("May I bring a guest", True), ("what is the deposit", True),
    ("Aspirin lowers the risk of stroke.", False), ("The total is 40?", True),
    ("whats the reg number of the new van", True),  # typed without its apostrophe
])
def test_input_that_asks_nothing_is_a_statement(text, question):
    assert kinds.is_question(text) is question
