"""What the page's JavaScript sends with an event reaches the handlers through
`ui.events.event_data`, built here as Gradio builds it (a real `gr.EventData`): a Gradio
upgrade that renames the private attribute it reads fails here, not in a browser. No
server, no browser: in the quick loop."""

import gradio as gr
import pytest

from ui.conversation_panel import ConversationPanel
from ui.conversations import ConversationStore, new_id
from ui.events import event_data

ANSWER = {"question": "Who?", "answer": "Nobody.", "found": True, "citations": []}


def test_the_payload_the_page_sent_is_what_the_handlers_read():
    sent = {"position": 0, "correct": "Martinez", "refuse": False}

    assert event_data(gr.EventData(None, sent)) == sent


@pytest.mark.parametrize("sent", [None, [1, 2], "position", 3])
def test_a_payload_that_is_not_an_object_reads_as_none_sent(sent):
    assert event_data(gr.EventData(None, sent)) == {}


def test_the_wrong_answer_form_marks_the_turn_it_names(tmp_path):
    store, conversation = ConversationStore(tmp_path), new_id()
    store.add_turn("ann", conversation, 0, "Who?", "<div></div>", ANSWER)
    panel = ConversationPanel(store, lambda request: True, lambda cited: "")
    ann = gr.Request(username="ann")

    refused = panel.flag(conversation, gr.EventData(None, ["position", 0]), ann)
    assert "could not be marked" in refused and store.turns("ann", conversation)[0].feedback is None

    sent = {"position": 0, "correct": "Martinez", "refuse": False}
    assert "Marked as wrong" in panel.flag(conversation, gr.EventData(None, sent), ann)
    mark = store.turns("ann", conversation)[0].feedback
    assert mark is not None and (mark.correct, mark.should_refuse) == ("Martinez", False)
