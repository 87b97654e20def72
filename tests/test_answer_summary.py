"""Overview questions get a summary: what the document is, then the sentences that stand
for it, quoted exactly and cited, never a refusal while documents exist."""

from pathlib import Path

import pytest

from qa import Index
from tests.helpers import SEED_FILE, index_of

HANDBOOK = """# Harbour Office Handbook

This handbook explains how the harbour office works for new staff.

## Hours

The office opens at eight and closes at five on weekdays. On Saturdays only the front desk
is staffed, from nine until noon.

## Safety

Everyone on the quay wears a life jacket. Accidents are reported to the duty manager on the
same day. The fire drill is held on the first Monday of each month.

## Pay

Salaries are paid on the last working day of the month. Overtime is paid at time and a half.
"""
NEWS = ("The town council voted on Tuesday to close the old ferry terminal by next spring, "
        "ending a service that has run since 1921. Councillors said repairs would cost more "
        "than a new pier. Ferry staff will be offered jobs at the new pier. Residents of the "
        "island said the vote came as a surprise. A petition to keep the terminal open has "
        "gathered 2,000 signatures.\n")


@pytest.fixture(scope="module")
def office(tmp_path_factory):
    folder = tmp_path_factory.mktemp("office")
    (folder / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (folder / "ferry_news.txt").write_text(NEWS, encoding="utf-8")
    index = Index.build([folder], path=tmp_path_factory.mktemp("index") / "index")
    yield index
    index.close()


def _sources(answer) -> set[str]:
    return {Path(c.hit.source).name for c in answer.citations}


def _exact(index, answer) -> bool:
    return all(index.document_text(c.hit.source)[c.start:c.end] == c.quote
               for c in answer.citations)


def test_a_named_document_is_summarised_by_what_it_is_then_its_points_in_order(office):
    answer = office.ask("Give me the gist of the handbook.")

    assert answer.found and _sources(answer) == {"handbook.md"} and _exact(office, answer)
    lines = answer.text.split("\n")
    assert lines[0] == ("“Harbour Office Handbook” is a Markdown document: This handbook "
                        "explains how the harbour office works for new staff. [1]")
    assert [line.split(":")[0] for line in lines[1:]] == ["Hours", "Safety", "Pay"]
    starts = [c.start for c in answer.citations]
    assert starts == sorted(starts)  # in document order
    assert all(not c.quote.startswith("#") for c in answer.citations)


MINUTES = """KILN CLUB COMMITTEE - MINUTES

Present: Ada Lind (Chair); Bo Berg; Cy Moss; Di Park
Apologies: Ed Holt

1. MINUTES OF THE LAST MEETING
The minutes of the June meeting were agreed as a correct record.

2. KILN REPAIRS
The second kiln needs a new element. The committee agreed to spend up to 400 pounds on it.

3. MEMBERSHIP
There are now 64 members. The waiting list was closed in July.

4. OPEN DAY
The open day will be held on 14 September. Bo will print the posters.

5. GLAZE STORE
The glaze store will be moved to the back room by the end of August.

6. SAFETY
Cy reported that the fire blanket has been replaced. Everyone was reminded to wear gloves.

7. ANY OTHER BUSINESS
The club will buy a second wheel for beginners.
"""


def test_minutes_are_summarised_item_by_item(tmp_path):
    # the same items as Markdown headings right above their text
    markdown = MINUTES.replace("\n\n", "\n\n## ").replace("## KILN", "# KILN")
    index = index_of(tmp_path, {"committee_minutes.txt": MINUTES,
                                "trustee_minutes.md": markdown})
    for name in ("committee", "trustee"):
        answer = index.ask(f"Summarise the {name} minutes")
        lines = answer.text.split("\n")
        assert "Present" not in lines[0]  # who came is no purpose
        items = [line.split(":")[0] for line in lines[1:]]
        assert items == ["2. KILN REPAIRS", "3. MEMBERSHIP", "4. OPEN DAY",
                         "5. GLAZE STORE", "6. SAFETY", "7. ANY OTHER BUSINESS"], name
        assert "agreed to spend up to 400 pounds" in answer.text
    index.close()


def test_news_is_summarised_from_its_lead(office):
    answer = office.ask("What is the ferry news about?")

    assert _sources(answer) == {"ferry_news.txt"}
    assert answer.citations[0].quote.startswith("The town council voted on Tuesday")


def test_a_follow_up_summarises_the_document_the_conversation_is_about(office):
    first = office.ask("When is overtime paid?")
    assert _sources(first) == {"handbook.md"}

    answer = office.ask("Summarize this document", history=[("When is overtime paid?",
                                                              first.text)])

    assert _sources(answer) == {"handbook.md"}


def test_the_whole_collection_is_summarised_document_by_document(office):
    answer = office.ask("What are these documents about?")

    assert answer.found and _sources(answer) == {"handbook.md", "ferry_news.txt"}
    assert _exact(office, answer)


def test_summarize_this_article_is_never_refused(seed_index):
    for question in ("Summarize this article", "What is this document about?",
                     "What are the main points?"):
        answer = seed_index.ask(question)
        assert answer.found, question
        assert {Path(c.hit.source) for c in answer.citations} == {SEED_FILE}
        assert _exact(seed_index, answer)


def test_the_web_chats_suggestion_for_an_untitled_document_is_answered_by_its_summary(
        seed_index):
    # the chat suggests 'What is “<title, or the start of the first line>” about?'
    answer = seed_index.ask("What is “Los Angeles City Councilmember Kevin de León told…” "
                            "about?")

    assert len(answer.citations) == 3 and _exact(seed_index, answer)


def test_a_question_about_what_something_was_about_is_not_a_summary(office):
    # it asks about a petition, so it is answered (or refused) as any question is: the
    # news' summary, which opens with its lead, would not mention the petition first
    answer = office.ask("What was the petition about?")

    assert all("petition" in c.quote for c in answer.citations[:1])
    assert office.ask("What is the ferry news about?").citations[0].quote != \
        (answer.citations[0].quote if answer.citations else None)
