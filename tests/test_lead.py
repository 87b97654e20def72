"""The answer first (`qa.answering.lead`): each rule on hand-written sentences, without
the model."""

import pytest

from qa.answering.lead import NO_VERDICT, excerpt, excerpt_keeps, lead, row_excerpt
from qa.answering.quantities import contains, points
from qa.answering.quoted import row_answers
from qa.answering.verifier import verify


@pytest.mark.parametrize(("question", "quote", "expected"), [
    ("Did Lucy Brennan resign as treasurer?",
     "Lucy Brennan resigned as treasurer at the May meeting.", "Yes"),
    ("Did the forklifts pass their brake test?",
     "Both forklifts failed their brake test in March.", "No"),  # an opposite
    ("Is the building open on public holidays?",
     "The building is closed on public holidays.", "No"),
    ("Are personal USB sticks allowed on office computers?",
     "Personal USB sticks may not be used on office computers.", "No"),  # negated
    ("Has Jonah Pike commented on the decision?",
     "Jonah Pike has not commented on the decision.", "No"),
    ("Can visitors walk around on their own?",
     "Visitors must be accompanied at all times.", "No"),
    ("Is the library open on Sundays?",  # about something else: no verdict
     "The library holds a rare map collection.", NO_VERDICT),
    ("Is it red or blue?", "The door is red.", None),  # a choice is no yes/no question
    ("Will forms handed in late still be paid?", "Forms handed in late are returned unpaid.",
     "No"),
    ("Can any member of staff load a kiln?",
     "Only staff who have passed the kiln course may load a kiln.", "No"),
    # a limit allows what it allows of whom the quote names, not of others
    ("Can trainees work from home two days a week?",
     "Qualified staff may work from home for up to two days per week.", NO_VERDICT),
    # what only someone may do, asked of someone else
    ("Can the office manager sign a supplier contract?",
     "Only the Head of Finance may sign a supplier contract.", "No"),
    ("Can the Head of Finance sign a supplier contract?",
     "Only the Head of Finance may sign a supplier contract.", "Yes"),
    ("Can a porter go into the plant room on their own?",  # the act worded otherwise
     "Only engineers and site managers may enter the plant room.", "No"),
    # a limit on a quantity: beyond it No, within it Yes ("no more than" is no negation)
    ("Can a kiln be opened 20 hours after a firing?",
     "A kiln cools for at least 36 hours before it is opened.", "No"),
    ("Can a kiln be opened 40 hours after a firing?",
     "A kiln cools for at least 36 hours before it is opened.", "Yes"),
    ("Can a member bring 6 guests?", "Each member may bring no more than 4 guests.", "No"),
    ("Can a member bring 3 guests?", "Each member may bring no more than 4 guests.", "Yes"),
    ("Can I bring three guests?", "Each member may bring at most two guests.", "No"),  # words
    ("Can I bring 2 guests?", "Each member may bring at most two guests.", "Yes"),
    ("Can I move furniture in Lift C at 8am?",  # a negation before the range's "between"
     "Please do not move furniture in Lift C between 7.30am and 9.30am.", "No"),
    ("Does a 14-hour shift need a second driver?",  # "exceed" bounds as "more than" does
     "A second driver is needed when the shift would exceed 13 hours.", "Yes"),
    ("Does a 12-hour shift need a second driver?",
     "A second driver is needed when the shift would exceed 13 hours.", "No"),
    ("Is the notice period 4 weeks?", "The notice period is four weeks.", "Yes"),  # digits
    ("Is the notice period four weeks?", "The notice period is 4 weeks.", "Yes"),
    ("Is the notice period 3 weeks?", "The notice period is four weeks.", "No"),  # another
    ("Can a 15 year old use the gym on their own?",
     "Members aged 14 and 15 may use the gym only under the supervision of an instructor.",
     "No"),
    ("Is eye protection always required on site?",
     "Eye protection is required only where the contractor's rules ask for it.", "No"),
    # the amount of the clause asked about, of the thing asked about, turned in its clause
    ("Do I need a fit note from the doctor if I'm off sick for 5 days?",
     "A self-certification form is required for absences of up to seven calendar days; a fit "
     "note from a doctor is required from the eighth day of absence.", NO_VERDICT),
    ("Does a 12 year old dog need a health check before it can join?",
     "There is no upper age limit, but dogs over 10 years old must have a health check "
     "before they join.", "Yes"),
    ("Can a 16 year old volunteer use the pallet truck?",
     "Volunteers aged 16 or 17 need a consent form signed by a parent and may not use the "
     "pallet truck.", "No"),
    ("Is it ok to hand out tinned beans that are 4 months past their best-before date?",
     "Food past its best-before date may be handed out within these limits: tinned goods up "
     "to 6 months after the best-before date, rice and cereals up to 2 months after it.",
     "Yes"),
    ("I'm 23, am I allowed to drive one of the vans?",
     "Only drivers aged 25 or over may drive the vans.", "No"),
    ("Can drivers carry a £200 change float?",  # "carry more than" bounds; "carry over" not
     "Drivers must not carry more than £150 in change float.", "No"),
    ("Could a swimmer pause their membership for five months?",  # "in any 12": a period
     "You can pause your membership for up to 4 months in any 12 months, at £5 a month.",
     "No"),
    ("Is the fee £25?", "The fee is not £30.", NO_VERDICT),  # "not £30" says nothing of £25
    ("can 3 nurses from the same site be on leave at the same time?",  # a bound, other words
     "No more than two members of the same team at one site may be on leave at the same "
     "time.", "No"),
    ("Does a member's assistant have to pay a fare?", "A member's assistant rides free.",
     "No"),
    ("Does the training have to be refreshed every 3 years?",
     "All staff refresh the training every two years.", "No"),
    ("Is the Orrery adult ticket £9?", "An adult ticket at the Tidewell is £9.", NO_VERDICT),
    ("Is the fee £25?", "The fee is £30 for adults and £20 for children.", NO_VERDICT),
    # duty and leave in other words: "compulsory?" of "mandatory", "ok to...?" of "must not"
    ("Is wearing a hard hat on site compulsory?", "Wearing a hard hat is mandatory on site.",
     "Yes"),
    ("Is it ok to park in bay 4?", "Staff must not park in bay 4.", "No"),
    ("Is the induction course compulsory?", "The induction course is optional.", "No"),
    # an exception says the opposite of what it excepts, and nothing of the rest
    ("Do I need receipts when I claim mileage?",
     "Receipts are required for every item except mileage.", "No"),
    ("Are guide dogs allowed in the cafe?",
     "No dogs are allowed in the cafe except guide dogs.", "Yes"),
    ("Do staff have to clock in?", "All staff except managers must clock in.", "Yes"),
    ("Can my 10 year old come on a Sunday walk?",  # an age's "year" is no New Year
     "Guided walks run every Sunday at 10:00, except over Christmas and New Year.",
     NO_VERDICT),
    ("Do managers have to clock in?", "All staff except managers must clock in.", "No"),
    ("Is the office open every day except Sunday?",
     "The office is open every day except Sunday.", "Yes"),
    ("Are dogs allowed in the cafe?", "Dogs are banned from the cafe.", "No"),
    ("Is the safety course compulsory?", "Staff may take the safety course.", NO_VERDICT),
    ("Can the kiln run for 6 hours?",  # a limit on something else decides nothing
     "Staff may work no more than 8 hours a day.", NO_VERDICT),
    # the limit's unit may follow a word: "no more than" is still no negation
    ("Can a driver with 5 points on their licence drive for us?",
     "Drivers may have no more than 6 penalty points on their licence.", "Yes"),
    ("Can a driver with 8 points on their licence drive for us?",
     "Drivers may have no more than 6 penalty points on their licence.", "No"),
    # an age counts years, however it is written
    ("Can a 9 year old use the library on their own?",
     "Children aged 10 and over may use the library on their own.", "No"),
    ("Can a 14-year-old join the youth choir?",
     "The youth choir is open to singers aged 11 to 18.", "Yes"),
    # a range or a bound asked of the value said, in one unit: Yes inside, No outside
    ("Is a pH of 7.0 ok for the tank?", "Keep the tank's pH between 6.5 and 7.5.", "Yes"),
    ("Is a pH of 8 ok for the tank?", "Keep the tank's pH between 6.5 and 7.5.", "No"),
    ("Is the fleece jacket under £40?", "The fleece jacket costs £42.50.", "No"),
    ("Is the call target between 90% and 95%?", "The call target is 92% of calls.", "Yes"),
    ("Do we reply to complaints within 2 weeks?",
     "We reply to every complaint within 10 days.", "Yes"),  # 14 days hold 10
    ("Do we reply to complaints within 1 week?",  # 10 days may be more than 7
     "We reply to every complaint within 10 days.", NO_VERDICT),
    # a limit overlapping a range asked: its own amount, the deadline it sets
    ("Do we reply to complaints between 5 and 15 days?",
     "We reply to every complaint within 10 days.", "Yes"),
    ("Do we reply to complaints between 12 and 20 days?",
     "We reply to every complaint within 10 days.", "No"),
    ("Is the shop open until 5pm on Saturdays?",
     "The shop is open on Saturdays from 09:00 to 17:30.", "Yes"),
    ("Is the shop open at 6pm on Saturdays?",
     "The shop is open on Saturdays from 09:00 to 17:30.", "No"),
    # a limit the quote negates: what it does not allow
    ("Can we accept £300 in cash?", "We do not accept cash payments over £500.", "Yes"),
    ("Can we accept £800 in cash?", "We do not accept cash payments over £500.", "No"),
    ("Is the fee £28?", "The fee rises from £25 to £30.", NO_VERDICT),  # a change, no range
    ("Can I carry over 3 days of leave?",  # a verb's "over" bounds nothing
     "Up to 5 days of leave may be carried over.", "Yes"),
    # a negation turns only what it stands before; a change is no value; 9.30am whole
    ("Is the deposit more than £100?", "The deposit is £200 and is not refundable.", "Yes"),
    ("Is the fee over £20?", "The fee was reduced by £5.", NO_VERDICT),
    ("Is the office open at 7am?", "The office is open from 9.30am to 5pm.", "No"),
    ("Can refunds over £50 be authorised by the Finance Manager?",  # asked of whom it names
     "Only the Finance Manager may authorise refunds over £50.", "Yes"),
    ("If there is a fire, what should I do?", "Leave by the nearest exit.", None),
    # a contraction asks nothing of the quote ("I'm": no word "m" it must hold)
    ("Is a hard hat mandatory when I'm on the site?",
     "A hard hat is mandatory on the site at all times.", "Yes"),
    ("Do I need a permit if I've parked overnight?",
     "You don't need a permit to park overnight.", "No"),
    # of a table row, the cell asked of: not another day's "Closed"
    ("Is the Northgate branch open on Saturdays?",
     "Opening hours: Branch: Northgate; Monday-Friday: 08:00-18:00; Saturday: 09:00-12:00; "
     "Sunday: Closed.", "Yes"),
    ("Is the Northgate branch open on Sundays?",
     "Opening hours: Branch: Northgate; Monday-Friday: 08:00-18:00; Saturday: 09:00-12:00; "
     "Sunday: Closed.", "No"),
    # ... whatever words the cell holds ("No" is a stopword), and a colon parts no clause
    ("Are dogs allowed in the cafe?",
     "House rules: Area: Cafe; Dogs allowed: No; Children allowed: Yes.", "No"),
    ("Are children allowed in the cafe?",
     "House rules: Area: Cafe; Dogs allowed: No; Children allowed: Yes.", "Yes"),
    ("Are dogs allowed in the cafe?", "Dogs allowed in the cafe: no.", "No"),
    # a negation decides only its own clause: the one holding what is asked
    ("Is the safety briefing compulsory for new volunteers?",
     "The safety briefing is compulsory for new volunteers; anyone who misses it cannot "
     "start a shift.", "Yes"),
    ("Is parking in the yard allowed?",
     "Deliveries use the yard at all hours; parking in the yard is not allowed.", "No"),
    # of a table row, the cell of the column asked decides, not the cell naming the row
    ("Do I need gloves to handle pewter?",
     "Handling objects: Material: Pewter and tin; Gloves: Bare, clean hands (no gloves).", "No"),
    # a limit set on who is asked about, which the amount asked is past: No, however the
    # rest is worded
    ("Can the head keeper sign off an order of 14 crates without the board?",
     "The head keeper may approve an order of up to twelve crates.", "No"),
    # "until" is no "un-" of "till"
    ("Is the gallery open till 9pm on 3 May?",
     "The gallery will stay open until 21:00 on Friday 3 May for a late viewing.", "Yes"),
    ("Do charities get the 20% discount on Sundays?",  # the amount, then the exception
     "Registered charities and schools receive a 20% discount on all rates except Sundays.",
     "No"),
])
def test_verdicts(question, quote, expected):
    assert lead(question, quote) == expected


@pytest.mark.parametrize(("question", "quote", "decided_verdict"), [
    # a negation or a limit decides it, though the quote words the question otherwise
    ("Do members have to pay a joining fee?", "We do not charge a joining fee.", "No"),
    ("Can five helpers ride in the van together?",
     "No more than three passengers may travel in the van at any time.", "No"),
    # a "Yes" needs every name and number asked, not every word: the reading says it answers
    ("Do I have to wear a hard hat in the yard?", "Hard hats are mandatory in all yard areas.",
     "Yes"),
    ("Is Kingsmead open on Sunday mornings?",
     "Opening hours: Site: Kingsmead; Sunday: 10.00am to 1.00pm.", "Yes"),
    ("Is there a hearing loop in screen 2 at the Odeon?",
     "At the Odeon the hearing loop is in screen 1.", NO_VERDICT),
    ("Do I need gloves to handle pewter?",  # a row's cell asked of: no negation there
     "Handling objects: Material: Pewter and tin; Gloves: Nitrile gloves.", "Yes"),
])
def test_the_verifiers_reading_lets_a_negation_decide(question, quote, decided_verdict):
    """`decided`: the verifier reads the quote as answering the question; unread, the
    quote lacks too many of the question's words for any verdict."""
    assert lead(question, quote) == NO_VERDICT
    assert lead(question, quote, decided=True) == decided_verdict


def test_a_quote_about_something_else_gets_no_yes_from_the_real_verifier():
    """The words a "Yes" may lack are the verifier's to judge: it does not read a
    discount at the depot shop as answering a question about a parking space."""
    question, quote = ("Do members get a parking space at the new depot?",
                       "Members get a discount at the depot shop.")

    assert lead(question, quote, decided=verify(question, [quote])[0] > 0) == NO_VERDICT


def test_a_value_is_said_first_only_when_the_reader_is_sure_of_it():
    question, quote = "When was the tower built?", "The tower was built in 1889 by Eiffel."

    at = quote.index("1889")
    assert lead(question, quote, span=(at, at + 4)) == "1889"  # the reader's span, when sure
    assert lead(question, quote) is None  # unsure: the answer opens with its quote


QUOTE = ("After a long debate about the cost of scaffolding, the parish council approved a "
         "grant of £4,800 for the church roof, to be paid in two parts.")


@pytest.mark.parametrize(("span", "expected"), [
    ("£4,800", "…the parish council approved a grant of £4,800 for the church roof…"),
    ("two parts", "…to be paid in two parts."),
    ("scaffolding", "After a long debate about the cost of scaffolding…"),
])
def test_a_long_quote_opens_with_the_clause_that_holds_the_readers_span(span, expected):
    """Verbatim words of the quote, marked "…" where cut, at most twelve of them."""
    at = QUOTE.index(span)
    found = excerpt(QUOTE, at, at + len(span))
    assert found == expected
    assert found.strip("….") in QUOTE and len(found.split()) <= 12


@pytest.mark.parametrize(("question", "span", "kept"), [
    ("How big was the grant for the roof?", "£4,800", True),
    ("How big was the grant for the roof?", "scaffolding", False),  # a number is asked
    ("What grant did the council approve?", "scaffolding", True),  # any kind will do
    ("What was the cost of the roof grant?", "two parts", False),  # "cost": money
])
def test_an_excerpt_keeps_the_kind_of_value_asked_when_the_quote_has_one(question, span, kept):
    at = QUOTE.index(span)

    assert excerpt_keeps(question, excerpt(QUOTE, at, at + len(span)), QUOTE) is kept


def test_a_short_quote_or_a_row_is_read_whole():
    assert excerpt("The roof was mended in May.", 23, 26) is None
    row = ("Grants: Parish: Ashby; Purpose: church roof and scaffolding; Amount: £4,800; "
           "Paid: two parts.")
    assert excerpt(row, row.index("£"), row.index("£") + 6) is None


@pytest.mark.parametrize(("question", "quote", "expected"), [
    ("What is the extension of the Finance team?",
     "Teams: Team: Finance; Floor: 2; Extension: 2202.", "2202"),  # the column asked for
    ("How many people are based in Leeds?",  # no column named: no cell
     "Name: Ana; Site: Leeds; Phone: 01632 960419.", None),
    ("Which project has the largest budget?",  # one row does not say which is largest
     "Capital: Project: Website; Budget: 9,000.", None),
])
def test_a_table_row_gives_the_cell_of_the_column_asked_for(question, quote, expected):
    assert lead(question, quote, span="something else") == expected


FOOTFALL = ("Footfall: Month: July; Ashcombe 2024: 33,640; Ashcombe 2025: 30,915; "
            "Brackenford 2024: 8,940; Brackenford 2025: 9,310.")


@pytest.mark.parametrize(("question", "expected"), [
    ("What was the footfall at Brackenford in July 2025?", "9,310"),  # the column most named
    ("footfall in july at brackenford", None),  # 2024 or 2025: two columns alike
    ("footfall for july 2025?", None),  # either site
])
def test_the_cell_asked_for_is_of_the_column_the_question_names_most(question, expected):
    assert lead(question, FOOTFALL) == expected


def test_the_cell_that_names_the_row_is_not_the_value_asked_though_named_in_part():
    fees = ("2. Fees for 2025-26: Lesson: Individual lesson, 45 minutes; "
            "2024-25 per term: £262; 2025-26 per term: £276.")

    assert lead("How much is a 45 min individual lesson this year?", fees) is None
    assert lead("How much is a 45 min individual lesson in 2025-26?", fees) == "£276"


def test_a_date_is_no_value_said_first_of_how_many():
    row = ("Annual test due dates: Fleet no.: 206; Type: Coach (53 seats); "
           "Next test due: 10 Jul 2025.")

    assert lead("How many coaches are in the annual test due dates table?", row) is None
    assert lead("When is the next test due for coach 206?", row) == "10 Jul 2025"


def test_a_row_is_shown_by_its_first_cell_and_the_cell_asked_for():
    sales = ("Sales 2024-25: Month: Dec 2024; Ashcombe – Café: 49,510; Brackenford – Shop: "
             "92,740; Total: 394,760.")
    assert lead("cafe takings dec 2024?", sales) == "49,510"  # "café" is one column's only
    assert row_excerpt("cafe takings dec 2024?", sales) == (
        "Sales 2024-25: Month: Dec 2024; Ashcombe – Café: 49,510.")
    budget = "Income stream: Private hire; Ashby Cross 2024/25: 214,000; Holtby 2024/25: 61,000."
    assert row_excerpt("private hire budget for Ashby Cross in 24/25?", budget) == (
        "Income stream: Private hire; Ashby Cross 2024/25: 214,000.")
    assert row_excerpt("footfall in july?", FOOTFALL) is None  # no column asked: the whole row
    prices = "code: N04; service: Spay; york_price: £135.00; leeds_price: £128.00."
    assert lead("how much is a spay at leeds?", prices) == "£128.00"  # a CSV's column names


def test_a_quote_that_says_it_is_read_with_the_sentence_before():
    question = "Did the board approve the second kiln room?"
    quote = "The board approved it on condition that a regional grant covers a third of the cost."
    before = "The second kiln room would cost 85,000."
    assert lead(question, quote, before) == "Yes"
    assert lead(question, quote) == NO_VERDICT  # without it, "it" could be anything
    assert lead(question, "The board approved the new van.", before) == NO_VERDICT
    assert lead(question, "The board did not approve it.", before) == "No"
    # the sentence before names what "it" is; its own words say no yes or no
    assert lead("Is the kiln room open?", "It reopens in May after the repairs.",
                "The kiln room was closed in March.") != "No"


SERVICE = ["Leave: Service: Less than 2 years; Days: 25.",
           "Leave: Service: 2 years to under 5 years; Days: 27.",
           "Leave: Service: 5 years to less than 10 years; Days: 30.",
           "Leave: Service: 10 years or more; Days: 33."]


@pytest.mark.parametrize(("question", "inside"), [
    ("how many days leave if ive been here six years?", [False, False, True, False]),
    ("days off after 6 yrs?", [False, False, True, False]),  # "yrs": years
    ("and with 10 years?", [False, False, False, True]),
    ("How many days for staff over 3 years?", [None] * 4),  # a bound, not a point
    ("What time does it open?", [None] * 4),
])
def test_the_row_whose_range_holds_the_quantity_asked_of(question, inside):
    assert [contains(points(question), row) for row in SERVICE] == inside


def test_a_row_is_an_answer_when_the_question_quantity_is_in_its_range():
    assert row_answers("days of leave after 6 years?", SERVICE[2])  # though it lacks "6"
    assert not row_answers("days of leave in 2027?", SERVICE[2])  # a year it lacks
    assert not row_answers("days of leave in 2027 after 6 years?", SERVICE[2])


def test_any_range_of_a_sentence_may_hold_the_quantity_and_up_to_holds_its_bound():
    def in_range(question: str, text: str) -> bool | None:
        return contains(points(question), text)

    assert in_range("How many days after 12 years?",
                    "Staff with 2 to 5 years get 22 days; with 10 years or more, 28 days.")
    assert in_range("Can I claim 25 pounds for a meal?", "Meals cost up to 25 pounds.")
    assert not in_range("Can I claim 26 pounds for a meal?", "Meals cost up to 25 pounds.")
