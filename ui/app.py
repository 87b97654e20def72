"""The web chat: a Gradio app over a qa index. Presentation only; answers come from `qa`."""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import functools
import inspect
import sys
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import gradio as gr
from gradio.components.api_component import Api
from gradio.utils import get_function_description, get_upload_folder
from starlette.middleware import Middleware

from qa import BackendConfig, DocumentInfo, Index, QAError, Settings
from qa.answering.conversation import FOLLOW_UP_TURNS
from qa.index import MAX_QUESTION_CHARS, AnswerMode
from qa.indexing.files import canonical
from qa.llm.client import LLMConfig
from ui import render, uploads
from ui.collection_panel import CollectionPanel, asked_within
from ui.conversation_panel import ConversationPanel
from ui.conversations import ConversationStore
from ui.events import event_data
from ui.guard import Guard, from_own_page
from ui.model_panel import ModelPanel
from ui.render import sentence
from ui.uploads import UPLOADS
from ui.viewer import Viewer

LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
CONCURRENCY = 16  # questions answered at once (the library lets them overlap)
EXAMPLES = 3  # example questions offered, from the most recently indexed documents
PHONE_WIDTH = 768  # below this many pixels the panels start folded
CACHE_CLEANUP = (3600, 3600)  # Gradio's temporary files go after an hour
ANSWER_CHARS = 20_000  # of an earlier answer a script sends to /ask, the only ones read
NOT_TEXT = "The question must be text."
NOT_HISTORY = "The history must be a list of [question, answer] pairs of text."
HERE = Path(__file__).parent
CSS_PATH = HERE / "style.css"
HEADER = (
    '<a class="qa-skip" href="#qa-question">Skip to the question</a>'
    '<div class="qa-header"><div class="qa-logo">qa</div><div>'
    '<div class="qa-title">Chat with your documents</div>'
    '<div class="qa-subtitle">Answers are quoted from your files, with numbered sources '
    "you can check.</div></div></div>"
)
PLACEHOLDER = (
    "<div class='qa-placeholder'><b>Ask a question about your documents</b><br>"
    "Every answer cites its passages as [1], [2]… — or says when the documents do not know."
    "<br>Keyboard: Tab twice from the question box goes to the answer’s first source.</div>"
)
QUESTION = "Ask about your documents…"  # the question box's placeholder
TO_ANSWER = (  # the Tab stop after the question box and its Send button (ui/page.js)
    '<a class="qa-to-answer" href="#qa-chat">Go to the answer’s first source [1]</a>')
REFUSED = (
    "Refused: documents can only be added or removed from this app's own page "
    "(the request did not come from it)."
)


class ChatApp:
    """The index behind the page (the library lets questions, uploads and removals overlap)."""

    def __init__(
        self, index_dir: str, max_upload_mb: int, llm: LLMConfig | None = None,
        backend: BackendConfig | None = None, allowed_hosts: Collection[str] = (),
        allow_private_model_hosts: bool = False,
    ) -> None:
        self.index_dir = canonical(index_dir)  # as indexing stores paths: uploads match
        self.uploads_dir = self.index_dir / UPLOADS
        self.max_bytes = uploads.limit_bytes(max_upload_mb)
        self.allowed_hosts = frozenset(name.lower() for name in allowed_hosts)  # see guard.py
        settings = Settings(max_file_mb=self.max_bytes / 1e6)  # qa counts megabytes, 10^6 bytes
        self.index = Index.create(self.index_dir, settings, backend, llm)
        self.index.warm_up()  # the first question should not wait for the model to load
        self.history = ConversationPanel(ConversationStore(self.index_dir), self.from_this_page,
                                         self.place)
        self.collections = CollectionPanel(self.index, self.from_this_page, self.label)
        self.model = ModelPanel(self.index, llm, self.from_this_page,
                                allow_private_model_hosts)
        self.viewer = Viewer(self.index, self.from_this_page, self.label, self.allowed_hosts)
        for path in uploads.interrupted(self.uploads_dir):  # it may have stopped qa serve
            print(f"qa serve: {path.name} was being indexed when qa serve stopped: set aside "
                  f"in {uploads.set_aside(path).parent}, not indexed again", file=sys.stderr)
        for _, note in self.index_files([]):  # uploads a crash or a busy index left behind
            print(f"qa serve: {note}", file=sys.stderr)

    # -- questions -------------------------------------------------------------

    def respond(
        self, message: str, history: list[dict], k: float, mode: str, conversation: str = "",
        collections: list[str] | None = None, documents: list[str] | None = None,
        request: gr.Request | None = None,
    ) -> Iterator[str]:
        """Chat handler: the answer (an LLM's as it is written), then its checks and Sources,
        from within the collections and documents chosen (none: all); the turn is kept in
        the page's conversation, and the turns kept before it are what a follow-up refers
        to. `history` (the messages shown, HTML) is only counted, never read: a script
        asks follow-ups through /ask, with the earlier answers' text."""
        if not isinstance(message, str):
            yield render.answer_html(NOT_TEXT, found=False)
            return
        if not message.strip():
            yield render.answer_html("Type a question about your documents.", found=False)
            return
        written, position = "", turns_before(history)
        earlier = self.history.earlier(conversation, request, position) or []
        try:
            response = self.index.ask_stream(  # k, mode and the scope: the library checks them
                message, history=earlier,
                k=cast(int, k), mode=cast(AnswerMode, mode), within=documents or None,
                collections=collections)
            for piece in response:  # an LLM's answer, as it is written
                written += piece
                yield render.answer_html(written)
            answer = response.answer()
            cited = answer.citations if answer.found else []
            sources = render.sources_html(cited, self.index.document_text)
            if not answer.found:
                sources = self.nearest(message, collections, documents)
        except QAError as error:
            yield render.answer_html(sentence(str(error)), found=False)
            return
        shown = (render.answer_html(render.answer_text(answer), answer.found)
                 + render.scope_html(asked_within(collections, documents).describe())
                 + render.checks_html(answer) + render.COPY_BUTTON + sources)
        self.history.keep(conversation, request, position, message, shown, answer.to_dict())
        yield shown

    def nearest(self, question: str, collections: list[str] | None,
                documents: list[str] | None) -> str:
        """Under a refusal: the passage nearest the question, within the same documents, as
        the page shows it ("" when there is none)."""
        hits = self.index.search(question, k=1, within=documents or None,
                                 collections=collections)
        if not hits:
            return ""
        source = hits[0].source
        holding = self.index.collections.memberships().get(source, ())
        return render.nearest_html(hits[0], self.index.document_text(source), question,
                                   holding)

    def ask(
        self, question: str, k: int = 5, mode: str = "extractive",
        collections: list[str] | None = None, documents: list[str] | None = None,
        history: list[list[str]] | None = None,
    ) -> dict:
        """Answer a question from the indexed documents, citing the passages it quotes.

        Args:
            question: the question, in plain words (at most 2,000 characters).
            k: how many passages to search for the answer (1 to 1000).
            mode: "extractive" quotes the documents; "llm" has the server's language model write the answer (only if one is configured).
            collections: answer only from the documents of these collections, by name (none or empty: from every document).
            documents: answer only from these documents, by path or file name as the documents list shows them (with collections: from the documents of either).
            history: the earlier turns, oldest first, as [question, answer] pairs of text (an earlier result's question and answer), for a follow-up that refers back ("How old is his son?"); only the last 3 are read.

        Returns:
            {question, answer, found, citations: [{n, source, title, text, quote, start, end, page, score, similarity}]}
        """  # noqa: E501 - one line per parameter, as the API page reads them
        with user_errors("ask"):
            return self.index.ask(text_only(question), history_pairs(history), k=k,
                                  mode=cast(AnswerMode, mode), within=documents or None,
                                  collections=collections).to_dict()

    def search(
        self, query: str, k: int = 5, collections: list[str] | None = None,
        documents: list[str] | None = None,
    ) -> list[dict]:
        """The passages most relevant to the query, best first.

        Args:
            query: what to look for, in plain words (at most 2,000 characters).
            k: how many passages to return (1 to 1000).
            collections: search only the documents of these collections, by name (none or empty: every document).
            documents: search only these documents, by path or file name as the documents list shows them (with collections: the documents of either).

        Returns:
            [{rank, source, title, text, start, end, page, score, similarity, chunk_id}]
        """  # noqa: E501 - one line per parameter, as the API page reads them
        with user_errors("search"):
            hits = self.index.search(text_only(query), k=k, within=documents or None,
                                     collections=collections)
            return [hit.to_dict() for hit in hits]

    # -- documents -------------------------------------------------------------

    def documents(self, preview: tuple[str, str] | None = None) -> tuple[str, Any]:
        """The documents list (with a (path, preview) under its row), and example questions
        about the latest documents."""
        docs = sorted(self.index.documents(), key=lambda d: self.label(d).lower())
        latest = sorted(docs, key=lambda d: d.indexed_at, reverse=True)[:EXAMPLES]
        examples = [{"text": f"What is “{self.label(d)}” about?"} for d in latest]
        listing = render.documents_html(docs, self.label, preview,
                                        self.index.collections.memberships())
        return listing, gr.update(examples=examples)  # none: no examples offered

    def label(self, document: DocumentInfo) -> str:
        """A document's title, or else the start of its first line."""
        return document.title or self._first_line(document.path, document.indexed_at)

    def place(self, citation: dict) -> str:
        """Where a kept citation ({source, page, start}) is, as its source card says it
        ("sheet Budget, row 7", "page 4", "line 12")."""
        source = citation["source"]
        return render.place(source, citation["page"], self.index.document_text(source),
                            citation["start"])

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one ChatApp per server
    def _first_line(self, path: str, indexed_at: str) -> str:
        return render.title_of("", self.index.document_text(path), path)

    def document_action(self, event: gr.EventData, request: gr.Request) -> tuple:
        """A click in the documents list: {"action": "preview" | "remove", "document": path}.

        (Not "path": Gradio would take the data for a file to fetch from its cache.)
        """
        data = event_data(event)
        path, action = str(data.get("document") or ""), data.get("action")
        if action == "remove":
            return self.remove(path, request)
        if action != "preview":
            return gr.skip(), gr.skip(), gr.skip()
        return self.preview(path)

    def preview(self, path: str) -> tuple:
        """The documents list with the start of an indexed document's text under its row:
        (status, list, examples)."""
        document = next((d for d in self.index.documents() if d.path == path), None)
        if document is None:
            return render.status_html([(False, "That document is not indexed.")]), *self.documents()
        text = self.index.document_text(path) or ""
        shown = render.preview_html(document, self.label(document), text)
        return gr.skip(), *self.documents((path, shown))

    def add_files(
        self,
        files: list[str] | None,
        collection: str | None = None,
        keep_both: bool = False,
        request: gr.Request | None = None,  # None: called from Python, not from a browser
        progress: gr.Progress = gr.Progress(),  # noqa: B008
    ) -> tuple:
        """Upload handler: check, store under <index>/uploads (replacing an earlier upload
        of the same name unless `keep_both`), index with progress, into `collection` if one
        is chosen."""
        if not self.from_this_page(request):
            uploads.discard_cached(files or [], Path(get_upload_folder()))
            return render.status_html([(False, REFUSED)]), *self.documents(), None
        notes, stored, replaced = self.store_uploads(files or [], keep_both)
        uploads.discard_cached(files or [], Path(get_upload_folder()))
        if stored:
            notes += self.index_files(stored, embedding_progress(progress), collection or None)
        notes += [replacement_note(path) for path in replaced]
        return render.status_html(notes), *self.documents(), None

    def store_uploads(self, files: list[str], keep_both: bool
                      ) -> tuple[list[tuple[bool, str]], list[Path], list[Path]]:
        """Check uploads and store them under <index>/uploads: (outcome lines, the files
        stored, those of them that replaced an earlier upload)."""
        notes: list[tuple[bool, str]] = []
        stored: list[Path] = []
        replaced: list[Path] = []
        for file in files:
            given = Path(file).name
            name = uploads.safe_name(given)
            reason = uploads.rejection(name, os.path.getsize(file), self.max_bytes)
            if reason:
                notes.append((False, f"{name} was not added: {reason}."))
                continue
            # a name cleaned up may be another file's: only one given as it is replaces
            path, outcome = uploads.store(Path(file), name, self.uploads_dir,
                                          keep_both or name != given)
            if outcome == uploads.SAME:
                notes.append((True, f"{name} is already there: the same file was uploaded "
                                    "before."))
            elif outcome == uploads.REPLACED:
                replaced.append(path)
            elif path.name != name:
                notes.append((True, f"{name} is stored as {path.name}, as a different file "
                                    "already has its name."))
            stored.append(path)
        return notes, stored, replaced

    def index_files(
        self, paths: list[Path], progress: Callable[[int, int], None] | None = None,
        collection: str | None = None,
    ) -> list[tuple[bool, str]]:
        """Index stored uploads (into `collection`, if given), and any left unindexed (by a
        crash, or a busy index); one outcome line per file (unreadable ones are set aside,
        so that they are not read again; those skipped, for OCR's pages for one run are
        used up, stay for the next run)."""
        indexed = {d.path for d in self.index.documents()}
        paths = list(dict.fromkeys([*paths, *uploads.unindexed(self.uploads_dir, indexed)]))
        if not paths:
            return []
        try:
            with uploads.indexing(paths, self.uploads_dir):
                report = self.index.add([str(p) for p in paths], progress=progress,
                                        collection=collection)
        except QAError as error:
            names = ", ".join(path.name for path in paths)
            return [(False, f"{names}: stored, not indexed yet: {sentence(str(error))} "
                            "Stored uploads are indexed with the next upload, or when qa "
                            "serve starts again.")]
        chunks = {d.path: d.chunks for d in self.index.documents()}
        failed, skipped = dict(report.failed), dict(report.skipped)
        notes = []
        for path in paths:
            if str(path) in skipped:  # OCR's pages for one run are used up: read next time
                notes.append((False, f"{path.name} is stored, not indexed yet: "
                                     f"{sentence(skipped[str(path)])}"))
            elif str(path) in failed:
                aside = uploads.set_aside(path)
                print(f"qa serve: {path.name} could not be indexed: set aside in {aside.parent}, "
                      "not indexed again", file=sys.stderr)
                notes.append((False, f"{path.name} could not be read: {failed[str(path)]}."))
            else:
                count = chunks.get(str(path), 0)
                passages = render.counted(count, "passage")
                notes.append((True, f"{path.name} is indexed ({passages}), ready for questions."))
        if collection and len(failed) < len(paths):
            notes.append((True, f"Put in the collection “{collection}”."))
        return notes

    def remove(self, path: str, request: gr.Request) -> tuple:
        """Drop a document from the index (and its uploaded copy): (status, list, examples)."""
        if not self.from_this_page(request):
            return render.status_html([(False, REFUSED)]), *self.documents()
        indexed = {d.path for d in self.index.documents()}
        if path not in indexed:
            return render.status_html([(False, "That document is not indexed.")]), *self.documents()
        if Path(path).parent == self.uploads_dir:  # first: an uploaded file not in the
            Path(path).unlink(missing_ok=True)     # index would be indexed again
        try:
            self.index.remove(path)
        except QAError as error:  # a busy index: removing it again later works
            return render.status_html([(False, sentence(str(error)))]), *self.documents()
        return render.status_html([(True, f"{Path(path).name} was removed.")]), *self.documents()

    def from_this_page(self, request: gr.Request | None) -> bool:
        """Whether a request was sent by this app's page (None: a direct Python call, as in
        the tests)."""
        return request is None or from_own_page(request.headers, self.allowed_hosts)


def replacement_note(path: Path) -> tuple[bool, str]:
    """Once an upload that replaced an earlier one is indexed: what became of the two
    (the earlier one is put back if the new one could not be read)."""
    if uploads.settle_replaced(path):
        return True, (f"{path.name} replaced the earlier {path.name}: its old passages left "
                      "the index.")
    return False, f"The earlier {path.name} is kept, with its passages."


def embedding_progress(progress: gr.Progress) -> Callable[[int, int], None]:
    """Report `Index.add`'s progress(embedded, total) on the page's progress bar."""

    def report(done: int, total: int) -> None:
        progress((done, total), desc="Embedding passages", unit="passages")

    return report


class CheckedBlocks(gr.Blocks):
    """gr.Blocks whose refusals of a malformed request (too few values, a value its
    component cannot take) are user errors: one line in the log, not a traceback; and
    which knows its viewer, whose download route is added once the server runs."""

    viewer: Viewer | None = None

    async def preprocess_data(self, block_fn: Any, inputs: list[Any], *args: Any,
                              **kwargs: Any) -> Any:
        where = f"/{block_fn.api_name}" if block_fn.api_name else block_fn.name
        try:
            return await super().preprocess_data(block_fn, with_defaults(block_fn, inputs),
                                                 *args, **kwargs)
        except ValueError as error:  # Gradio's ComponentProcessingError is one
            raise user_error(where, str(error).split("\n", 1)[0]) from error
        except gr.Error as error:
            raise user_error(where, error.message) from error


def with_defaults(block_fn: Any, inputs: Any) -> Any:
    """The values of a call to an API endpoint, its trailing parameters left out given their
    defaults: a script written before a parameter was added keeps working."""
    wanted = block_fn.inputs
    if not isinstance(inputs, list) or not all(isinstance(b, Api) for b in wanted):
        return inputs
    parameters = list(inspect.signature(block_fn.fn).parameters.values())
    missing = parameters[len(inputs) : len(wanted)]
    if any(p.default is inspect.Parameter.empty for p in missing):
        return inputs
    return [*inputs, *(p.default for p in missing)]


def text_only(question: Any) -> str:
    """A question sent over the API, if it is text (QAError if it is not)."""
    if not isinstance(question, str):
        raise QAError(NOT_TEXT)
    return question


@contextmanager
def user_errors(endpoint: str) -> Iterator[None]:
    """Report the library's user-facing errors to API callers as such."""
    try:
        yield
    except QAError as error:
        raise user_error(f"/{endpoint}", sentence(str(error))) from error


def user_error(where: str, message: str) -> gr.Error:
    """The error for a request the server refuses, logged as one line (no traceback:
    nothing went wrong in the server)."""
    print(f"qa serve: {where} refused: {message}", file=sys.stderr)
    return gr.Error(message, print_exception=False)


def turns_before(history: Any) -> int:
    """How many questions the client's chat history holds (the turn this one is), counted
    without reading their text."""
    if not isinstance(history, list):
        return 0
    return sum(isinstance(m, dict) and m.get("role") == "user" for m in history)


def history_pairs(history: Any) -> list[tuple[str, str]]:
    """The earlier turns a script sends to /ask, as Index.ask takes them: its last
    FOLLOW_UP_TURNS [question, answer] pairs, each question cut to MAX_QUESTION_CHARS and
    each answer to ANSWER_CHARS (QAError if it is not a list of such pairs)."""
    turns = [] if history is None else history
    if not isinstance(turns, list) or not all(
            isinstance(turn, list | tuple) and len(turn) == 2
            and all(isinstance(text, str) for text in turn) for turn in turns):
        raise QAError(NOT_HISTORY)
    return [(question[:MAX_QUESTION_CHARS], answer[:ANSWER_CHARS])
            for question, answer in turns[-FOLLOW_UP_TURNS:]]


def build_app(
    index_dir: str, max_upload_mb: int = 50, llm: LLMConfig | None = None,
    backend: BackendConfig | None = None, allowed_hosts: Collection[str] = (),
    allow_private_model_hosts: bool = False,
) -> CheckedBlocks:
    """The chat page over the index at index_dir; `llm` enables the LLM answer mode;
    `allowed_hosts`: the host names, besides IP addresses and localhost, it is served by;
    `allow_private_model_hosts`: the page may set up a model at a private address."""
    app = ChatApp(index_dir, max_upload_mb, llm, backend, allowed_hosts,
                  allow_private_model_hosts)
    title = "qa · chat with your documents"
    with CheckedBlocks(title=title, fill_height=True, delete_cache=CACHE_CLEANUP) as demo:
        gr.HTML(HEADER, js_on_load=(HERE / "behaviour.js").read_text(),
                accept=",".join(sorted(uploads.SUPPORTED)),  # the file types to offer
                placeholder=QUESTION)  # kept in the question box
        with gr.Row(equal_height=False, elem_classes="qa-main"):
            with gr.Column(scale=2, min_width=300, elem_classes="qa-side"):
                conversations = app.history.build()
                panels, settings = side_panels(app, demo, max_upload_mb)
            with gr.Column(scale=5, elem_classes="qa-chat-column"):
                app.viewer.build()
                scope = app.collections.build_scope()
                chat = chat_panel(app, [*settings, app.history.current, *scope])
                gr.HTML(TO_ANSWER, elem_id="qa-to-answer")
        wire_documents(app, demo, panels, chat.chatbot)
        app.history.wire(demo, chat)
        app.collections.wire(demo, app.documents, [panels["table"], chat.chatbot])
        app.model.wire(demo)
        app.viewer.wire()
        keep_scope_with_conversations(app)
        demo.viewer = app.viewer
        panels["folds"].append(conversations)
        width = gr.Number(visible=False)  # the window's, sent by the page on load
        demo.load(fold_on_phones, width, panels["folds"], js="() => [window.innerWidth]",
                  api_visibility="private", queue=False)
        documented_api(demo, app.ask, "ask")
        documented_api(demo, app.search, "search")
    return demo


def keep_scope_with_conversations(app: ChatApp) -> None:
    """The "Ask within" choice belongs to the conversation: kept when it is changed (by
    hand, or by a refusal's offer), shown again when the page opens a conversation (a
    reload, a restart, a switch)."""
    history, collections = app.history, app.collections
    choices = [collections.scope_collections, collections.scope_documents]

    def shown(current: str, request: gr.Request) -> tuple:
        return collections.show_scope(*history.scope(current, request))

    for switched in history.switches:
        switched.then(shown, history.current, collections.scope_outputs(),
                      api_visibility="private", queue=False)
    for choice in choices:
        choice.input(history.keep_scope, [history.current, *choices], None,
                     api_visibility="private", queue=False)
    collections.offer.click(collections.ask_within, None, collections.scope_outputs(),
                            api_visibility="private", queue=False).then(
        history.keep_scope, [history.current, *choices], None, api_visibility="private",
        queue=False)


def side_panels(app: ChatApp, demo: gr.Blocks, max_upload_mb: int) -> tuple[dict, list]:
    """Documents (list with previews, upload, status) and Settings, each in a fold."""
    with gr.Accordion("Documents", open=True, elem_id="qa-documents-panel") as documents:
        table = gr.HTML(elem_id="qa-documents", js_on_load=(HERE / "documents.js").read_text())
        files = gr.File(label="Add documents", show_label=False, file_count="multiple",
                        elem_id="qa-upload", height=110)
        gr.HTML(
            f'<div class="qa-hint">Add {", ".join(e.lstrip(".") for e in uploads.SUPPORTED)} '
            f"files, up to {max_upload_mb} MiB each. They can be asked about as soon as they are "
            "indexed.</div>"
        )
        keep_both = gr.Checkbox(False, label="Keep both when a file of the same name is uploaded",
                                info="Otherwise the new file replaces the old one.",
                                elem_id="qa-upload-keep")
        into = app.collections.upload_choice()
        status = gr.HTML(elem_id="qa-status")
    app.collections.build()
    with gr.Accordion("Settings", open=True, elem_id="qa-settings") as settings_fold:
        k = gr.Slider(1, 10, value=5, step=1, label="Passages read for each answer",
                      info="More finds answers spread over several places; fewer is quicker.",
                      elem_id="qa-k")
        mode = app.model.build()
    panels = {"table": table, "files": files, "status": status, "into": into,
              "keep_both": keep_both, "folds": [documents, settings_fold]}
    return panels, [k, mode]


def wire_documents(app: ChatApp, demo: gr.Blocks, panels: dict, chatbot: gr.Chatbot) -> None:
    """Listing, preview, upload and removal; the last two only from the page itself."""
    table, status, files = panels["table"], panels["status"], panels["files"]
    listing = [table, chatbot]  # the list, and example questions about it
    private: dict[str, Any] = {"api_visibility": "private"}
    demo.load(app.documents, None, listing, **private)
    collections = app.collections
    collections.after_documents_change(
        table.click(app.document_action, None, [status, *listing],
                    show_progress_on=table, **private))
    files.upload(None, None, status, js="() => ''", **private)  # clear the last upload's lines
    collections.after_documents_change(
        files.upload(app.add_files, [files, panels["into"], panels["keep_both"]],
                     [status, *listing, files],
                     show_progress_on=files, **private))


def fold_on_phones(width: float) -> list:
    """Fold the documents, settings and conversations panels on narrow screens, so the chat
    comes first."""
    return [gr.update(open=not 0 < width < PHONE_WIDTH)] * 3


def chat_panel(app: ChatApp, settings: list[gr.Component]) -> gr.ChatInterface:
    """The chat: answers with Sources and a copy button (its conversations are kept by
    `app.history`, on the server)."""
    chatbot = gr.Chatbot(
        elem_id="qa-chat",
        show_label=False,
        placeholder=PLACEHOLDER,
        latex_delimiters=[],
        buttons=[],  # Gradio's copy button would copy the HTML; answers carry their own
        feedback_options=None,
        allow_tags=False,
        scale=1,
        height="72vh",
        autoscroll=False,  # ui/page.js shows each answer from its first line
    )
    textbox = gr.Textbox(
        placeholder=QUESTION,
        label="Your question",  # its name for a screen reader
        show_label=False,
        elem_id="qa-question",
        submit_btn=True,
        stop_btn=True,
    )
    return gr.ChatInterface(
        app.respond,
        chatbot=chatbot,
        textbox=textbox,
        additional_inputs=[*settings],
        # Replaced on load by questions about the indexed documents (none if there are none).
        examples=[["What are these documents about?", None, None, None, None, None]],
        api_name="chat",
        api_visibility="undocumented",  # scripts use /ask; benchmarks/load.py uses this too
        fill_height=True,
    )


def documented_api(demo: gr.Blocks, fn: Callable, name: str) -> None:
    """A public endpoint whose parameters the API page shows by name, with their description
    (taken from the function's docstring)."""
    dependency = gr.api(fn, api_name=name, queue=False)  # no queue: cheaper per call
    _, described, _ = get_function_description(fn)
    for block_id, (parameter, text) in zip(dependency["inputs"], described.items(), strict=False):
        block = demo.blocks[block_id]
        assert isinstance(block, gr.components.Component)  # an input of the endpoint
        block.label = parameter
        block._api_info = {  # type: ignore[attr-defined]  # what the API page shows
            **block.api_info(), "additional_description": text}


def serve(
    index_dir: str,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: tuple[str, str] | None = None,
    max_upload_mb: int = 50,
    llm: LLMConfig | None = None,
    backend: BackendConfig | None = None,
    allowed_hosts: Collection[str] = (),
    allow_private_model_hosts: bool = False,
) -> None:
    """Serve the chat until interrupted; warns when it is open to the network without auth."""
    warning = exposure_warning(host, auth)
    if warning:
        print(warning, file=sys.stderr)
    app = build_app(index_dir, max_upload_mb, llm, backend, allowed_hosts,
                    allow_private_model_hosts)
    max_bytes = uploads.limit_bytes(max_upload_mb)
    guard = Middleware(Guard, allowed_hosts=allowed_hosts, max_file_bytes=max_bytes,
                       upload_folder=Path(get_upload_folder()))
    demo = app.queue(default_concurrency_limit=CONCURRENCY)
    _, url, _ = demo.launch(
        app_kwargs={"middleware": [guard]},
        quiet=True,  # Gradio's banner ends with a share=True hint, which does not apply
        prevent_thread_lock=True,
        server_name=host,
        server_port=port,
        auth=auth,
        max_file_size=max_bytes,
        show_error=True,
        css_paths=[CSS_PATH],
        js=(HERE / "page.js").read_text(),
        theme=gr.themes.Soft(primary_hue="indigo", neutral_hue="slate"),
        footer_links=["api"],
        run_history=False,
    )
    if app.viewer:
        app.viewer.add_download_route(demo.server_app)
    print(f"qa serve: the chat is at {url}", flush=True)
    demo.block_thread()


def exposure_warning(host: str, auth: tuple[str, str] | None) -> str | None:
    """The warning to print when the documents would be readable by anyone on the network."""
    if host in LOCAL_HOSTS or auth is not None:
        return None
    return (
        f"WARNING: serving on {host} without --auth (or QA_AUTH): anyone on the network "
        "can read the indexed documents."
    )
