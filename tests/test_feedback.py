"""The "Wrong answer" marks: the JSON export the web chat writes is the one `qa eval
feedback` reads (`qa.chat_export`), old exports still read, and a file that is not one
is refused in one line. No server, no browser: in the quick loop."""

import json

import pytest

from qa.chat_export import ChatExport, ExportedTurn, WrongMark
from qa.errors import QAError
from qa.feedback import read_flagged
from ui.conversations import ConversationStore, as_json, new_id

FOUND = {"question": "Who has resigned?", "answer": "Nobody has resigned.", "found": True,
         "citations": []}
REFUSED = {"question": "Who won?", "answer": "The documents do not say.", "found": False,
           "citations": []}


def test_an_export_reads_back_as_it_was_written():
    export = ChatExport("Who has resigned?", "2025-01-02T03:04:05+00:00",
                        "2025-01-02T03:05:00+00:00", (
        ExportedTurn("Who has resigned?", FOUND, "2025-01-02T03:04:05+00:00",
                     WrongMark("Martinez", False, "2025-01-02T03:06:00+00:00")),
        ExportedTurn("And who won? “ü”", REFUSED, "2025-01-02T03:05:00+00:00"),
        ExportedTurn("Who else?", FOUND, "2025-01-02T03:05:30+00:00",
                     WrongMark("", True, "2025-01-02T03:07:00+00:00"))))

    assert ChatExport.from_json(export.to_json()) == export
    assert [turn.feedback is not None for turn in export.turns] == [True, False, True]


def test_the_web_chats_export_is_read_with_its_marks_and_the_turns_before_them(tmp_path):
    store, conversation = ConversationStore(tmp_path), new_id()
    store.add_turn("ann", conversation, 0, "Who has resigned?", "<div></div>", FOUND)
    store.add_turn("ann", conversation, 1, "Who won?", "<div></div>", REFUSED)
    store.add_turn("ann", conversation, 2, "Who else?", "<div></div>", FOUND)
    store.flag("ann", conversation, 0, "  Martinez and Herrera ", False)
    store.flag("ann", conversation, 2, "", True)
    turns = store.turns("ann", conversation)
    export = tmp_path / "export.json"
    export.write_text(as_json(store.conversation("ann", conversation), turns),
                      encoding="utf-8")

    flagged = read_flagged([export])

    assert [item.question for item in flagged] == ["Who has resigned?", "Who else?"]
    assert [item.mark for item in flagged] == [turns[0].feedback, turns[2].feedback]
    assert [(m.correct, m.should_refuse) for m in (item.mark for item in flagged)] == [
        ("Martinez and Herrera", False), ("", True)]
    assert [(item.answer, item.found) for item in flagged] == [
        ("Nobody has resigned.", True), ("Nobody has resigned.", True)]
    assert flagged[1].before == (("Who has resigned?", "Nobody has resigned."),
                                 ("Who won?", "The documents do not say."))


def test_an_export_written_before_marks_had_a_time_still_reads(tmp_path):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"turns": [
        {"question": "Who?", "answer": {"answer": "Nobody.", "found": True}},
        {"question": "Who resigned?", "answer": {"answer": "Nobody.", "found": True},
         "feedback": {"correct": "Martinez", "should_refuse": False}},
        {"question": "Why?", "answer": {"found": False}, "feedback": None}]}))

    flagged = read_flagged([old])

    assert [(item.question, item.mark) for item in flagged] == [
        ("Who resigned?", WrongMark("Martinez", False, ""))]
    assert flagged[0].before == (("Who?", "Nobody."),)


@pytest.mark.parametrize("text, why", [
    ("[1, 2]", "TypeError: the file is not a JSON object"),
    ("{not json", "JSONDecodeError: "),
    ('{"title": "no turns"}', "KeyError: 'turns'"),
    ('{"turns": [{"answer": {}}]}', "KeyError: 'question'"),
    ('{"turns": [{"question": "Who?", "answer": "Nobody."}]}',
     "TypeError: a turn's answer is not a JSON object"),
    ('{"turns": [{"question": "Who?", "answer": {}, "feedback": "wrong"}]}',
     "TypeError: a turn's feedback is not a JSON object"),
])
def test_a_file_that_is_not_an_export_is_refused_in_one_line(tmp_path, text, why):
    bad = tmp_path / "bad.json"
    bad.write_text(text)

    with pytest.raises(QAError) as refused:
        read_flagged([bad])

    message = str(refused.value)
    assert message.startswith(f"{bad}: not a conversation exported as JSON from the web chat "
                              f"({why}")
    assert "\n" not in message


def test_a_missing_file_is_refused_with_why(tmp_path):
    with pytest.raises(QAError, match=r"missing\.json: cannot be read \(No such file"):
        read_flagged([tmp_path / "missing.json"])
