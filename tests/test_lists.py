"""Lists: a list question gets every item of the list it asks for, in document order, from
the section it names by its date (the meeting on that date, not the nearest meeting)."""

from pathlib import Path

import pytest

from qa import Index
from qa.answering.lists import (
    decision_subject,
    decisions,
    list_answer,
    list_items,
    named_section,
)
from qa.search import Hit
from qa.words import dates
from tests.helpers import index_of

MINUTES = """# Harbour Board minutes

## Meeting of 3 March

Present: Ada Moreau, Felix Grant and Nora Quist.

Agreed:
- Repaint the harbour office before Easter
- Buy two new mooring buoys
- Move the board meetings to Thursdays

Actions:
- Felix Grant asks three painters for quotes
- Nora Quist orders the buoys

## Meeting of 7 April

Present: Ada Moreau and Sam Otieno.

Agreed:
- Hire a summer harbour assistant
- Close the slipway for repairs in May

The board thanked the volunteers for the harbour clean-up.
"""


@pytest.mark.parametrize(("text", "found"), [
    ("the 3 March meeting", {(3, 3)}),
    ("on March 3rd and 7 Apr", {(3, 3), (4, 7)}),
    ("minutes of 2026-03-03", {(3, 3)}),
    ("in March, about 3 boats", set()),
])
def test_the_dates_a_text_names(text, found):
    assert dates(text) == found


def test_the_section_a_date_names_runs_to_the_next_dated_heading():
    section = named_section("What items were agreed at the 3 March meeting?", MINUTES)

    assert section is not None and section.heading == "Meeting of 3 March"
    inside = MINUTES[section.start:section.end]
    assert "mooring buoys" in inside and "summer harbour assistant" not in inside


def test_no_section_for_a_date_no_heading_holds():
    assert named_section("What was agreed on 9 June?", MINUTES) is None
    assert named_section("What was agreed?", MINUTES) is None


def test_an_emails_header_lines_head_no_section():
    email = ("Subject: New rota from 1 June 2025\nFrom: Helen Barr <helen@vets.example>\n"
             "Date: Mon, 12 May 2025 16:42:00 +0100\n\nHi all,\n\nThe fee rises to £185 on "
             "1 June 2025.\n")

    assert named_section("What's the fee from 1 June?", email) is None
    notes = "Date: 5 February 2025\nDecisions:\n- Buy vans.\nDate: 5 March 2025\n- Sell vans.\n"
    assert named_section("What was decided on 5 February?", notes).heading == \
        "Date: 5 February 2025"  # a meeting's date line heads its notes


def test_the_list_asked_for_is_the_one_its_label_names():
    section = named_section("List the actions of the 3 March meeting.", MINUTES)
    assert section is not None

    label, items = list_items("List the actions of the 3 March meeting.", MINUTES,
                              section.start, section.end)

    assert label == "Actions:"
    assert [MINUTES[a:b] for a, b in items] == [
        "Felix Grant asks three painters for quotes", "Nora Quist orders the buoys"]


def test_no_list_when_none_shares_a_word_with_the_question():
    assert list_items("Name everyone who rescued the maps.", MINUTES) is None


@pytest.fixture(scope="module")
def minutes_index(tmp_path_factory):

    folder = tmp_path_factory.mktemp("lists") / "docs"
    folder.mkdir()
    (folder / "board_minutes.md").write_text(MINUTES, encoding="utf-8")
    (folder / "notice.txt").write_text(
        "The harbour office is repainted in spring. The board agreed the colour: blue.\n",
        encoding="utf-8")
    index = Index.build([folder], path=folder.parent / "index")
    yield index
    index.close()


@pytest.mark.parametrize(("question", "items"), [
    ("What items were agreed at the 3 March meeting?",
     ["Repaint the harbour office before Easter", "Buy two new mooring buoys",
      "Move the board meetings to Thursdays"]),
    ("What was agreed at the 7 April meeting?",
     ["Hire a summer harbour assistant", "Close the slipway for repairs in May"]),
    ("What actions came out of the 3 March meeting?",
     ["Felix Grant asks three painters for quotes", "Nora Quist orders the buoys"]),
])
def test_a_list_question_gets_every_item_of_the_named_meeting_in_order(
        minutes_index, question, items):
    answer = minutes_index.ask(question)

    assert answer.found
    assert [c.quote for c in answer.citations] == items
    assert {Path(c.hit.source).name for c in answer.citations} == {"board_minutes.md"}
    text = minutes_index.document_text(answer.citations[0].hit.source)
    assert all(text[c.start:c.end] == c.quote for c in answer.citations)
    assert answer.text.index(items[0]) < answer.text.index(items[-1])


def test_a_list_named_by_its_label_wins_over_one_whose_items_share_a_word():
    text = "Agreed:\n- Move the board meetings\n\nActions:\n- Order the buoys\n"

    label, items = list_items("List the actions of the board.", text)

    assert label == "Actions:" and [text[a:b] for a, b in items] == ["Order the buoys"]


def test_the_heading_above_a_lists_label_names_it_too():
    text = ("2. KEYHOLDERS\nThree people hold keys for the store:\n- Ada Lind\n- Bo Berg\n"
            "- Cy Moss\n\n3. LONE WORKING\nNo one works alone at the store, keyholder or "
            "not.\n- Sign in at the door\n")

    label, items = list_items("List the keyholders for the store.", text)

    assert [text[a:b] for a, b in items] == ["Ada Lind", "Bo Berg", "Cy Moss"]


def test_what_was_decided_at_a_named_meeting_lists_its_items_whatever_their_words():
    notes = ("Team notes\n\nMeeting of 2 October\n1. The kiln is sold.\n\n"
             "Meeting of 6 November\nPresent: Ada, Bo.\n1. Buy a van.\n2. Paint the shop.\n")
    question = "What was decided at the team meeting on 6 November?"
    section = named_section(question, notes)
    hit = Hit(1, 1, "notes.txt", "", notes, 0, len(notes), None, 1.0, 0.5)

    answer = list_answer(question, notes, section, lambda: [hit])

    assert [c.quote for c in answer.citations] == ["Buy a van.", "Paint the shop."]


def test_what_else_of_a_named_meeting_gets_no_list_unless_one_shares_its_words():
    question = "What time did the 3 March meeting start?"
    hit = Hit(1, 1, "minutes.md", "", MINUTES, 0, len(MINUTES), None, 1.0, 0.5)

    assert list_answer(question, MINUTES, named_section(question, MINUTES),
                       lambda: [hit]) is None


def test_who_was_at_a_meeting_is_never_answered_by_a_list_of_things():
    notes = ("Clinic notes\n\nMeeting of 6 November\nPresent: Ada Lind, Bo Berg, Cy Moss.\n"
             "Targets for the clinic:\n- Clinic waits under ten minutes\n- Clinic notes "
             "filed the same day\n")
    hit = Hit(1, 1, "notes.txt", "", notes, 0, len(notes), None, 1.0, 0.5)
    for question in ("Who was at the clinic meeting on 6 November?",
                     "who attended the clinic meeting"):
        assert list_answer(question, notes, named_section(question, notes),
                           lambda: [hit]) is None, question


@pytest.mark.parametrize(("question", "subject"), [
    ("What did the health & safety committee decide?", "health safety committee"),
    ("what got decided at the june coordinators meeting", "june coordinators meeting"),
    ("What was agreed at the board meeting?", "board meeting"),
    ("What did the board say about the van?", None),  # no decision asked for
    ("What decides the pension in the staff handbook?", None),  # no meeting's decision
])
def test_a_question_for_a_meetings_decisions_names_the_meeting(question, subject):
    assert decision_subject(question) == subject


def _spans(text: str) -> list[tuple[int, int]]:
    """Each line of `text` a sentence, as chunking would cut these."""
    spans, at = [], 0
    for line in text.split("\n"):
        if line.strip():
            spans.append((at + len(line) - len(line.lstrip()), at + len(line)))
        at += len(line) + 1
    return spans


def _decided(text: str) -> list[str]:
    headings = [(a, text[a:b]) for a, b in _spans(text) if text[a:b].isupper()]
    return [text[a:b] for a, b in decisions(text, _spans(text), headings)]


def test_a_meetings_decisions_are_its_decisions_section_else_its_labelled_decisions():
    minutes = ("NOTES\nThe van was discussed. It was agreed to wait.\n\nDECISIONS\n"
               "D1 Buy the van.\nD2 Sell the old trailer.\n\nACTIONS\nA1 Ada books a test drive.\n")
    assert _decided(minutes) == ["D1 Buy the van.", "D2 Sell the old trailer."]
    labelled = ("Van\nKevin reported 14 approved drivers.\nDECISION: The old van will be sold.\n"
                "Rota\n**Decision:** The app is used from May.\n")
    assert _decided(labelled) == ["DECISION: The old van will be sold.",
                                  "**Decision:** The app is used from May."]
    said = "Van\nKevin reported on the van.\nThe board agreed to sell it.\n"
    assert _decided(said) == ["The board agreed to sell it."]
    listed = ("Meeting: 6 May\nDecisions:\n- Buy the van.\n- Sell the trailer.\n\nActions:\n"
              "- Ada books a test.\nMeeting: 3 June\nDecisions:\n- Paint the van.\n")
    assert _decided(listed) == ["Buy the van.", "Sell the trailer.", "Paint the van."]


def test_what_a_named_meeting_decided_is_answered_from_its_notes(tmp_path):
    index = index_of(tmp_path, {
        "kiln_club_minutes.txt": (
            "KILN CLUB MINUTES\n\nPresent: Ada Lind, Bo Berg\n\nKILN\nThe element has "
            "failed.\n\nDECISIONS\nD1 A new element will be bought for 400 pounds.\nD2 "
            "Firing stops until it is fitted.\n\nACTIONS\nA1 Bo orders the element.\n"),
        "garden_group_notes.txt": ("Garden group notes\n\nThe group agreed to plant the beds "
                                   "in May. A kiln was not discussed.\n")})
    answer = index.ask("What did the kiln club decide?")
    other = index.ask("What did the kiln club decide on 3 March?")  # no meeting of that date
    index.close()

    assert answer.found
    assert [c.quote for c in answer.citations] == [
        "D1 A new element will be bought for 400 pounds.", "D2 Firing stops until it is fitted."]
    assert answer.text.startswith("Decisions (")
    assert not other.text.startswith("Decisions")


def test_notes_of_several_meetings_give_the_decisions_of_the_one_named_by_its_date(tmp_path):
    index = index_of(tmp_path, {
        "rowing_club_notes.txt": (
            "ROWING CLUB - COMMITTEE NOTES 2025\n\n"
            "Tuesday 4 March 2025, boathouse, 7:00pm\nPresent: Ada Lind (chair), Bo Berg\n\n"
            "Boat fund\nThe fund stands at 2,300 pounds.\n"
            "Decision: the club will buy a second-hand coxless four.\n\n"
            "Regatta\nDecision: the spring regatta will be held on Saturday 17 May 2025.\n\n"
            "Thursday 10 April 2025, boathouse, 7:00pm\nPresent: Ada Lind (chair), Cy Dahl\n\n"
            "Safety\nTwo juniors capsized in March.\n"
            "Decision: juniors will wear buoyancy aids on every outing.\n\n"
            "Subscriptions\nDecision: the adult subscription rises to 180 pounds.\n"),
        "regatta_guide.md": "# Regatta guide\n\nThe regatta runs from 9am to 5pm.\n"})
    march = index.ask("What was decided at the 4 March meeting?")
    april = index.ask("What was decided at the committee meeting on 10 April?")
    index.close()

    assert [c.quote for c in march.citations] == [
        "Decision: the club will buy a second-hand coxless four.",
        "Decision: the spring regatta will be held on Saturday 17 May 2025."]
    assert [c.quote for c in april.citations] == [
        "Decision: juniors will wear buoyancy aids on every outing.",
        "Decision: the adult subscription rises to 180 pounds."]


def test_no_list_shares_only_one_word_of_its_items_with_the_question():
    text = "Topics:\n- Half-year trading\n- Potting Shed Café\n- People\n"

    assert list_items("What were the café sales at the shop in May?", text) is None
    assert list_items("What are the topics?", text) is not None  # its label names it


def _strategy_deck(folder: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    welcome = deck.slides.add_slide(deck.slide_layouts[1])
    welcome.shapes.title.text = "Harbour Board strategy day"
    welcome.placeholders[1].text = "We meet to agree where the harbour goes next."
    points = deck.slides.add_slide(deck.slide_layouts[1])
    points.shapes.title.text = "Priorities for 2026"
    points.placeholders[1].text_frame.text = "Dredge the inner basin"
    for point in ("Rebuild the north slipway", "Open a visitor centre by the lock"):
        points.placeholders[1].text_frame.add_paragraph().text = point
    points.notes_slide.notes_text_frame.text = "The dredging is costed separately."
    deck.save(folder / "strategy_day.pptx")


def test_a_slides_points_are_its_titles_list(tmp_path):
    index = index_of(tmp_path, {}, _strategy_deck)
    text = index.document_text(index.documents()[0].path)

    answer = index.ask("What are the board's priorities for 2026?")

    assert "Priorities for 2026\n\n- Dredge the inner basin\n- Rebuild the north slipway" in text
    assert "\n- The dredging" not in text  # notes and text boxes show no bullet
    assert [c.quote for c in answer.citations] == [
        "Dredge the inner basin", "Rebuild the north slipway", "Open a visitor centre by the lock"]
    assert answer.text.startswith("Priorities for 2026, 3 items:")
