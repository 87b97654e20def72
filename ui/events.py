"""What a page's JavaScript sent with an event (`trigger("click", {...})` in ui/*.js), read
in one place.

Gradio 6 (6.31) gives a listener that payload as a `gr.EventData`, whose only public
reading is one key at a time as an attribute (`event.position`), documented for
`gr.HTML`; it raises TypeError when the payload is null or not an object, and a request
may send anything. The payload as a whole is the private `EventData._data`: it is read
here only, and tests/test_ui_events.py fails if a Gradio upgrade renames it.
"""

from typing import Any

import gradio as gr


def event_data(event: gr.EventData) -> dict[str, Any]:
    """The payload sent with `event`; {} when there is none or it is not a JSON object."""
    data = event._data  # private: Gradio 6.31 has no public way to the whole payload
    return data if isinstance(data, dict) else {}
