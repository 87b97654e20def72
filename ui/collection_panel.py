"""The collections of the web chat (`qa.indexing.collections`), and what a question is asked within.

Owned here: the Collections fold (the list, with rename and delete; create; put documents
in a collection or take them out), the choice of a collection beside the upload, the
"Ask within" fold over the chat (collections and documents; none chosen: every document),
and `Scope`, the collections and documents a question is asked within, as the page shows
them (the library checks them: `Index.ask`, `Index.search`). Changes answer only the
app's own page (the `allowed` check the app gives); names are user text, escaped
wherever they are shown.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from qa import DocumentInfo, Index, QAError
from ui import render
from ui.events import event_data

JS = (Path(__file__).parent / "collections.js").read_text()
# a refusal's offer to ask within a document or collection (ui/page.js) sets the choice
ASK_WITHIN_JS = "window.qaAskWithin = (scope) => trigger('click', scope);"
NO_COLLECTION = ("No collection", "")
EVERYTHING = "Ask within: all documents"
CHOICE_TITLE = 40  # characters of a document's title shown in a choice of documents
REFUSED = ("Refused: collections can only be changed from this app's own page (the request "
           "did not come from it).")
PRIVATE: dict[str, Any] = {"api_visibility": "private", "queue": False}


@dataclass(frozen=True)
class Scope:
    """The collections and documents (indexed paths) a question is asked within; none of
    either: every document."""

    collections: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()

    @property
    def within(self) -> list[str] | None:
        """The documents, as `Index.ask(within=)` takes them (None: no limit by path)."""
        return list(self.documents) or None

    def describe(self) -> str:
        """What the answers come from, as a sentence ("" for every document)."""
        parts = []
        if self.collections:
            kind = "collection" if len(self.collections) == 1 else "collections"
            parts.append(f"the {kind} " + ", ".join(f"“{n}”" for n in self.collections))
        if self.documents:
            kind = "document" if len(self.documents) == 1 else "documents"
            parts.append(f"the {kind} " + ", ".join(Path(p).name for p in self.documents))
        return f"Asked only within {' and '.join(parts)}." if parts else ""

    def label(self) -> str:
        """The "Ask within" fold's title, which says the scope while folded."""
        if not (self.collections or self.documents):
            return EVERYTHING
        names = [*self.collections, *(Path(p).name for p in self.documents)]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"Ask within: {shown}"


def asked_within(collections: Any, documents: Any) -> Scope:
    """The scope a question was asked within, as the page shows it: the names given, which
    the library has checked (`Index.ask`, `Index.search`) by the time this is shown."""
    return Scope(tuple(dict.fromkeys(_listed(collections))),
                 tuple(dict.fromkeys(_listed(documents))))


def _listed(names: Any) -> list[str]:
    """Names as a page or a script sends them: a list, or one alone."""
    return [names] if isinstance(names, str) else [n for n in names or () if n.strip()]


class CollectionPanel:
    """The collection controls of the page, over `index`."""

    def __init__(self, index: Index, allowed: Callable[[gr.Request | None], bool],
                 label: Callable[[DocumentInfo], str]) -> None:
        self.index = index
        self.allowed = allowed
        self.label = label  # what the documents list calls a document

    # -- layout ------------------------------------------------------------------

    def upload_choice(self) -> gr.Dropdown:
        """The collection uploads go into (call inside the Documents fold)."""
        self.into = gr.Dropdown([NO_COLLECTION], value="", label="Upload into collection",
                                elem_id="qa-upload-into")
        return self.into

    def build(self) -> gr.Accordion:
        """The Collections fold (call inside the page's layout)."""
        with gr.Accordion("Collections", open=False, elem_id="qa-collections-panel") as fold:
            self.listing = gr.HTML(elem_id="qa-collections", js_on_load=JS)
            with gr.Row(elem_classes="qa-coll-tools"):
                self.name = gr.Textbox(placeholder="New collection name", show_label=False,
                                       label="New collection name", elem_id="qa-coll-name",
                                       scale=3, min_width=120)
                self.create = gr.Button("Create", elem_id="qa-coll-create", scale=1,
                                        min_width=60, size="sm")
            self.members = gr.Dropdown([], value=[], multiselect=True,
                                       label="Documents to put in or take out",
                                       elem_id="qa-coll-documents")
            self.target = gr.Dropdown([], value=None, label="Collection",
                                      elem_id="qa-coll-target")
            with gr.Row():
                self.put = gr.Button("Put in collection", elem_id="qa-coll-put", size="sm")
                self.take = gr.Button("Take out", elem_id="qa-coll-take", size="sm")
            self.status = gr.HTML(elem_id="qa-coll-status")
        return fold

    def build_scope(self) -> list[gr.Dropdown]:
        """The "Ask within" fold over the chat: its two choices, inputs of the chat."""
        with (gr.Accordion(EVERYTHING, open=False, elem_id="qa-scope") as self.scope_fold,
              gr.Row()):
            self.scope_collections = gr.Dropdown(
                [], value=[], multiselect=True, label="Ask within collections",
                info="None chosen: every document.", elem_id="qa-scope-collections")
            self.scope_documents = gr.Dropdown(
                [], value=[], multiselect=True, label="Ask within documents",
                info="With collections: their documents and these.",
                elem_id="qa-scope-documents")
        self.offer = gr.HTML(elem_id="qa-ask-within", js_on_load=ASK_WITHIN_JS)  # unseen
        return [self.scope_collections, self.scope_documents]

    # -- events ------------------------------------------------------------------

    def wire(self, demo: gr.Blocks, documents_changed: Callable[[], Any],
             documents_outputs: list[gr.Component]) -> None:
        """The panel's events; after each change, `documents_changed` redraws the documents
        list (into `documents_outputs`), which shows each document's collections."""
        values = self._values()
        shown = [self.status, self.name, *self._shown()]
        for event, handler, inputs in (
            (self.create.click, self.add_collection, [self.name, *values]),
            (self.name.submit, self.add_collection, [self.name, *values]),
            (self.listing.click, self.act, values),
            (self.put.click, self.put_in, values),
            (self.take.click, self.take_out, values),
        ):
            event(handler, inputs, shown, **PRIVATE).then(
                documents_changed, None, documents_outputs, **PRIVATE)
        demo.load(self.refresh_but_scope, values, self._shown(), **PRIVATE)
        for choice in (self.scope_collections, self.scope_documents):
            choice.change(self.relabel, [self.scope_collections, self.scope_documents],
                          self.scope_fold, **PRIVATE)

    def _values(self) -> list[gr.Dropdown]:
        return [self.into, self.members, self.target, self.scope_collections,
                self.scope_documents]

    def _shown(self) -> list[gr.Component]:
        return [self.listing, *self._values(), self.scope_fold]

    def after_documents_change(self, event: Any) -> None:
        """Refresh the document and collection choices after `event` (an upload or a
        removal) is done."""
        event.then(self.refresh, self._values(), self._shown(), **PRIVATE)

    def refresh_but_scope(self, *values: Any) -> tuple:
        """`refresh`, the "Ask within" choice left to the conversation (`show_scope`)."""
        return *self.refresh(*values)[:4], gr.skip(), gr.skip(), gr.skip()

    def scope_outputs(self) -> list[gr.Component]:
        return [self.scope_collections, self.scope_documents, self.scope_fold]

    def show_scope(self, collections: list[str], documents: list[str]) -> tuple:
        """The "Ask within" choices showing a kept scope (what no longer exists left out)."""
        return self.refresh(None, None, None, collections, documents)[4:]

    def ask_within(self, event: gr.EventData) -> tuple:
        """A refusal's offer taken ({"document": path} or {"collection": name}): the "Ask
        within" choices showing it."""
        data = event_data(event)
        return self.show_scope(_listed(data.get("collection")), _listed(data.get("document")))

    def relabel(self, collections: Any, documents: Any) -> Any:
        return gr.update(label=asked_within(collections, documents).label())

    def refresh(self, into: Any, members: Any, target: Any, collections: Any, documents: Any,
                *, renamed: tuple[str, str] | None = None) -> tuple:
        """The collections list and every choice of collections and documents, what was
        chosen kept while it exists (under its new name, after a rename)."""
        counts = self.index.collections.counts()
        old, new = renamed or ("", "")

        def kept(name: Any) -> str | None:
            name = new if renamed and name == old else name
            return name if name in counts else None

        docs = sorted(self.index.documents(), key=lambda d: self.label(d).lower())
        choices = [(self._choice(d), d.path) for d in docs]
        paths = {d.path for d in docs}
        members = [p for p in members or [] if p in paths]
        scope = Scope(tuple(n for n in map(kept, collections or []) if n),
                      tuple(p for p in documents or [] if p in paths))
        return (render.collections_html(counts),
                gr.update(choices=[NO_COLLECTION, *counts], value=kept(into) or ""),
                gr.update(choices=choices, value=members),
                gr.update(choices=list(counts), value=kept(target)),
                gr.update(choices=list(counts), value=list(scope.collections)),
                gr.update(choices=choices, value=list(scope.documents)),
                gr.update(label=scope.label()))

    def _choice(self, document: DocumentInfo) -> str:
        """A document as a choice: its title, shortened, then its file name."""
        title = self.label(document)
        if len(title) > CHOICE_TITLE:
            title = title[:CHOICE_TITLE].rsplit(" ", 1)[0] + "…"
        return f"{title} — {Path(document.path).name}"

    # -- changes (only from the app's own page) --------------------------------------

    def add_collection(self, name: str, into: Any, members: Any, target: Any,
                       collections: Any, documents: Any, request: gr.Request) -> tuple:
        def create() -> str:
            return f"Created the collection “{self.index.collections.create(name)}”."

        values = (into, members, target, collections, documents)
        return self._change(request, values, create, clear_name=True)

    def act(self, into: Any, members: Any, target: Any, collections: Any, documents: Any,
            event: gr.EventData, request: gr.Request) -> tuple:
        """A click in the list: {"action": "rename" | "delete", "name": collection, "to":
        new name (rename)}."""
        data, values = event_data(event), (into, members, target, collections, documents)
        action, name = data.get("action"), str(data.get("name") or "")
        kept = self.index.collections
        renamed: list[tuple[str, str]] = []

        def rename() -> str:
            renamed.append((name, kept.rename(name, str(data.get("to") or ""))))
            return f"Renamed “{name}” to “{renamed[0][1]}”."

        def delete() -> str:
            kept.delete(name)
            return f"Deleted the collection “{name}”; its documents stay indexed."

        if action not in ("rename", "delete"):
            return *[gr.skip()] * 2, *self.refresh(*values)
        return self._change(request, values, rename if action == "rename" else delete,
                            lambda: renamed[0] if renamed else None)

    def put_in(self, into: Any, members: Any, target: Any, collections: Any, documents: Any,
               request: gr.Request) -> tuple:
        values = (into, members, target, collections, documents)
        return self._change(request, values, lambda: self._members(members, target, put=True))

    def take_out(self, into: Any, members: Any, target: Any, collections: Any,
                 documents: Any, request: gr.Request) -> tuple:
        values = (into, members, target, collections, documents)
        return self._change(request, values, lambda: self._members(members, target, put=False))

    def _members(self, members: Any, target: Any, put: bool) -> str:
        """Put the documents chosen in the collection chosen, or take them out of it."""
        if not target:
            raise QAError("choose a collection first")
        if not members:
            raise QAError("choose the documents first")
        change = self.index.collections.add if put else self.index.collections.discard
        change(target, members)
        count = render.counted(len(members), "document")
        return f"{count} {'put in' if put else 'taken out of'} “{target}”."

    def _change(self, request: gr.Request | None, values: Sequence[Any],
                change: Callable[[], str], renamed: Callable[[], Any] = lambda: None,
                clear_name: bool = False) -> tuple:
        """Make a change if the request came from the page: (status, name box, refreshed)."""
        if not self.allowed(request):
            return render.status_html([(False, REFUSED)]), gr.skip(), *self.refresh(*values)
        try:
            note, ok = change(), True
        except QAError as error:
            note, ok = render.sentence(str(error)), False
        name = "" if ok and clear_name else gr.skip()
        return (render.status_html([(ok, note)]), name,
                *self.refresh(*values, renamed=renamed()))
