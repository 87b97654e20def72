"""The Conversations panel of the web chat: the kept conversations of `ui.conversations`.

Owned here: the form that marks an answer wrong (kept with its turn), which
conversation a page is in (a random id, kept in the browser's
localStorage so that a reload, or a restart of the server, reopens it), the history
list (title, date, search; open, rename, delete, export as Markdown or JSON) and its
events. Every handler answers only the app's own page (the `allowed` check given by
the app) and only with the logged-in user's conversations.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr

from qa.answering.conversation import FOLLOW_UP_TURNS
from ui import render
from ui.conversations import ConversationStore, as_json, as_markdown, is_id, new_id
from ui.events import event_data

STORAGE_KEY = "qa-conversation"  # in the browser's localStorage
JS = (Path(__file__).parent / "conversations.js").read_text()
FEEDBACK_JS = (Path(__file__).parent / "feedback.js").read_text()
DOWNLOAD_JS = """(file) => {
  // An export: the browser saves the text the server made as a file.
  if (!file || !file.name) return;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([file.text], { type: file.type }));
  link.download = file.name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}"""
EXPORTS = {"md": "text/markdown", "json": "application/json"}
PRIVATE: dict[str, Any] = {"api_visibility": "private", "queue": False}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def user_of(request: gr.Request | None) -> str:
    """Whose conversations a request may see: the logged-in user's ("" without --auth)."""
    return (getattr(request, "username", None) or "") if request else ""


class ConversationPanel:
    """The history list and the id of the conversation each page is in."""

    def __init__(self, store: ConversationStore, allowed: Callable[[gr.Request | None], bool],
                 place: Callable[[dict], str]) -> None:
        self.store = store
        self.allowed = allowed
        self.place = place  # where a kept citation is, as the page says it

    def build(self) -> gr.Accordion:
        """The panel's components (call inside the page's layout)."""
        self.current = gr.State("")  # the id of the conversation this page is in
        self.remembered = gr.BrowserState("", storage_key=STORAGE_KEY,
                                          secret=self.store.secret("browser-state"))
        with gr.Accordion("Conversations", open=True, elem_id="qa-conversations") as fold:
            with gr.Row(elem_classes="qa-conv-tools"):
                self.search = gr.Textbox(placeholder="Search conversations", show_label=False,
                                         label="Search conversations", elem_id="qa-conv-search",
                                         scale=3, min_width=120)
                self.new = gr.Button("New", elem_id="qa-conv-new", scale=1, min_width=60,
                                     size="sm")
            self.listing = gr.HTML(elem_id="qa-conv-list", js_on_load=JS)
            self.export = gr.JSON(visible=False)
        # the form that marks an answer wrong: a dialog over the page, wherever it is built
        self.feedback = gr.HTML(render.feedback_html(), elem_id="qa-feedback",
                                js_on_load=FEEDBACK_JS)
        return fold

    def flag(self, current: str, event: gr.EventData, request: gr.Request) -> str:
        """The form sent: {"position": the answer's turn (from 0), "correct": the right
        answer or "", "refuse": whether it should have said the documents do not know}."""
        data = event_data(event)
        position = data.get("position")
        if not (is_id(current) and self.allowed(request) and isinstance(position, int)):
            return render.feedback_html("That answer could not be marked.")
        kept = self.store.flag(user_of(request), current, position,
                               str(data.get("correct") or ""), bool(data.get("refuse")))
        note = ("Marked as wrong and kept with this conversation (its JSON export is the "
                "file qa eval feedback asks again)." if kept
                else "That answer is not kept in this conversation.")
        return render.feedback_html(note)

    def keep(self, conversation: str, request: gr.Request | None, position: int, question: str,
             shown: str, answer: dict[str, Any]) -> None:
        """Store turn `position` of the chat, if the page is in a conversation (API calls
        are not)."""
        if is_id(conversation) and self.allowed(request):
            self.store.add_turn(user_of(request), conversation, position, question, shown,
                                answer)

    def earlier(self, conversation: str, request: gr.Request | None,
                position: int) -> list[tuple[str, str]] | None:
        """The kept turns before turn `position` of the page's conversation, as the
        (question, answer) pairs a follow-up may refer to; None if the page is in no kept
        conversation (an API call, which sends its own history)."""
        if not (is_id(conversation) and self.allowed(request)):
            return None
        turns = self.store.turns(user_of(request), conversation)[:position]
        return [(turn.question, turn.answer.get("answer", ""))
                for turn in turns[-FOLLOW_UP_TURNS:]]

    def wire(self, demo: gr.Blocks, chat: gr.ChatInterface) -> None:
        """The panel's events, and the chat's: reopen on load, new on Clear, list refreshed
        after each answer."""
        # the chat's messages are shown by its chatbot and sent back as its chatbot_state
        opened = [self.current, self.remembered, chat.chatbot, chat.chatbot_state, self.listing]
        self.switches = [  # the events that put the page in another conversation
            demo.load(self.restore, [self.remembered, self.search], opened, **PRIVATE),
            self.new.click(self.start, self.search, opened, **PRIVATE),
            chat.chatbot.clear(self.start, self.search, opened, **PRIVATE)]
        chat.chatbot.undo(self.undo, self.current, None, **PRIVATE)
        self.search.change(self.refresh, [self.current, self.search], self.listing, **PRIVATE)
        chat.chatbot.change(self.refresh, [self.current, self.search], self.listing,
                            trigger_mode="always_last", **PRIVATE)
        acted = self.listing.click(self.act, [self.current, self.search],
                                   [*opened, self.export], **PRIVATE)
        acted.then(None, self.export, None, js=DOWNLOAD_JS, **PRIVATE)
        self.switches.append(acted)
        self.feedback.click(self.flag, self.current, self.feedback, **PRIVATE)

    def scope(self, current: str, request: gr.Request) -> tuple[list[str], list[str]]:
        """The (collections, documents) the page's conversation asks within."""
        if not (is_id(current) and self.allowed(request)):
            return [], []
        return self.store.scope(user_of(request), current)

    def keep_scope(self, current: str, collections: Any, documents: Any,
                   request: gr.Request) -> None:
        """Keep the "Ask within" choice with the page's conversation."""
        if is_id(current) and self.allowed(request):
            self.store.set_scope(user_of(request), current, _strings(collections),
                                 _strings(documents))

    def undo(self, current: str, event: gr.UndoData, request: gr.Request) -> None:
        """The chat's Undo takes back the last question: so does the store (`event.index` is
        the question's message; each turn is a question and an answer)."""
        if is_id(current) and self.allowed(request) and isinstance(event.index, int):
            self.store.truncate(user_of(request), current, event.index // 2)

    def restore(self, remembered: Any, search: str, request: gr.Request) -> tuple:
        """On load: the conversation this browser was in, or a new one."""
        if is_id(remembered) and self.allowed(request):
            return self._open(remembered, search, request)
        return self.start(search, request)

    def start(self, search: str, request: gr.Request) -> tuple:
        """A new, empty conversation (the others stay in the list)."""
        conversation = new_id()
        return conversation, conversation, [], [], self.refresh(conversation, search, request)

    def refresh(self, current: str, search: str, request: gr.Request) -> str:
        """The history list, the current conversation marked."""
        if not self.allowed(request):
            return render.conversations_html([], current, search)
        found = self.store.conversations(user_of(request), search or "")
        return render.conversations_html(found, current, search or "")

    def act(self, current: str, search: str, event: gr.EventData, request: gr.Request) -> tuple:
        """A click in the list: {"action": "open" | "rename" | "delete" | "md" | "json",
        "id": conversation, "title": new title (rename)}."""
        data = event_data(event)
        action, chosen = data.get("action"), data.get("id")
        if not (isinstance(chosen, str) and is_id(chosen) and self.allowed(request)):
            return *[gr.skip()] * 5, None
        user = user_of(request)
        if action == "open":
            return *self._open(chosen, search, request), None
        if action == "rename":
            self.store.rename(user, chosen, str(data.get("title") or ""))
        elif action == "delete":
            self.store.delete(user, chosen)
            if chosen == current:
                return *self.start(search, request), None
        listing = self.refresh(current, search, request)
        return *[gr.skip()] * 4, listing, self._export(user, chosen, action)

    def _open(self, conversation: str, search: str, request: gr.Request) -> tuple:
        messages = []
        for turn in self.store.turns(user_of(request), conversation):
            shown = render.marked_wrong(turn.shown) if turn.feedback else turn.shown
            messages += [{"role": "user", "content": turn.question},
                         {"role": "assistant", "content": shown}]
        listing = self.refresh(conversation, search, request)
        return conversation, conversation, messages, messages, listing

    def _export(self, user: str, conversation: str, action: Any) -> dict | None:
        """The file an export action downloads: {name, type, text}."""
        kept = self.store.conversation(user, conversation)
        if action not in EXPORTS or kept is None:
            return None
        turns = self.store.turns(user, conversation)
        text = (as_markdown(kept, turns, self.place) if action == "md"
                else as_json(kept, turns))
        name = "".join(ch if ch.isalnum() else "-" for ch in kept.title).strip("-")[:60]
        return {"name": f"{name or 'conversation'}.{action}", "type": EXPORTS[action],
                "text": text}
