"""The answer first (`qa.lead`): each rule on hand-written sentences, without the model."""

import pytest

from qa.lead import NO_VERDICT, lead


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
    # a limit on a quantity: beyond it No, within it Yes ("no more than" is no negation)
    ("Can a kiln be opened 20 hours after a firing?",
     "A kiln cools for at least 36 hours before it is opened.", "No"),
    ("Can a kiln be opened 40 hours after a firing?",
     "A kiln cools for at least 36 hours before it is opened.", "Yes"),
    ("Can a member bring 6 guests?", "Each member may bring no more than 4 guests.", "No"),
    ("Can a member bring 3 guests?", "Each member may bring no more than 4 guests.", "Yes"),
    ("Can the kiln run for 6 hours?",  # a limit on something else decides nothing
     "Staff may work no more than 8 hours a day.", NO_VERDICT),
])
def test_verdicts(question, quote, expected):
    assert lead(question, quote) == expected


@pytest.mark.parametrize(("question", "quote", "expected"), [
    ("How many spaces does the leisure centre car park have?",
     "The leisure centre car park has 80 spaces.", "80 spaces"),
    ("How many days of paid leave do staff have?",
     "Staff have twenty-five days of paid leave a year.", "twenty-five days"),
    ("How much will the new greenhouse cost?", "The new greenhouse will cost 1,200 pounds.",
     "1,200 pounds"),
    ("How much is the deposit for a locker?",
     "The locker deposit is £20, refunded when the key is returned.", "£20"),
    ("What percentage of staff work remotely?", "About 12% of staff work remotely.", "12%"),
    ("How many people live in the 2 towns?", "The 2 towns have 4,500 people.", "4,500 people"),
])
def test_amounts_are_taken_verbatim_with_their_unit(question, quote, expected):
    assert lead(question, quote) == expected
    assert expected in quote


@pytest.mark.parametrize(("question", "quote", "expected"), [
    ("When will the new pier open?", "The new pier will open in June 2026.", "June 2026"),
    ("When will the new door motor be fitted?", "A new door motor will be fitted in January.",
     "January"),
    ("When was the tower built?", "The tower was built in 1889 by Eiffel.", "1889"),
    ("When does the meeting start?", "The meeting starts at 9:30 am on Monday.", "9:30 am"),
    ("When may staff park there?", "Staff may park there from May.", "May"),
])
def test_dates(question, quote, expected):
    assert lead(question, quote) == expected


@pytest.mark.parametrize(("question", "quote", "expected"), [
    ("Who runs the cafeteria?", "The cafeteria is run by Harbour Foods.", "Harbour Foods"),
    ("Who has resigned?", "Martinez and Herrera have since resigned.", "Martinez and Herrera"),
    ("Where is the fire assembly point?",
     "The fire assembly point is in the car park behind the bakery.",
     "In the car park behind the bakery"),
    ("What is the extension of the Finance team?",
     "Teams: Team: Finance; Floor: 2; Extension: 2202.", "2202"),  # a table row's cell
])
def test_names_places_and_cells(question, quote, expected):
    assert lead(question, quote) == expected


@pytest.mark.parametrize(("question", "quote"), [
    ("Why did the council resign?", "The council resigned after the recording leaked."),
    ("How many rooms are there?", "The hotel has rooms on every floor."),  # no number
    ("When did it open?", "It opened after the war."),  # no date
    ("Which project has the largest budget?",  # one row does not say which is largest
     "Capital: Project: Website; Budget: 9,000."),
    ("How many people are based in Leeds?",  # a row, and no column named: no phone number
     "Name: Ana; Site: Leeds; Phone: 01632 960419."),
    ("Where should staff park?", "The car park is closed on Thursday 12 November."),
])
def test_no_lead_without_a_value(question, quote):
    assert lead(question, quote) is None


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
