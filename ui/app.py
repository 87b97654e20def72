"""The web chat: a Gradio app over a qa index. Presentation only; answers come from `qa`."""

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import html
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gradio as gr

from qa import BackendConfig, Index, QAError, Settings
from qa.llm import LLMConfig
from ui import render, uploads
from ui.uploads import UPLOADS

EXAMPLES = [
    "Who has resigned over the recording?",
    "Does Kevin de León plan to resign?",
    "What did Martinez say about Bonin's son?",
    "Who has called for everyone involved to resign?",
]
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1"}
STREAM_DELAY = 0.03  # seconds between words: an extractive answer is ready at once
MAX_K = 50
CACHE_CLEANUP = (3600, 3600)  # Gradio's temporary copies of uploads go after an hour
CSS_PATH = Path(__file__).with_name("style.css")
HEADER = (
    '<div class="qa-header"><div class="qa-logo">qa</div><div>'
    '<div class="qa-title">Chat with your documents</div>'
    '<div class="qa-subtitle">Answers are quoted from your files, with numbered sources '
    "you can check.</div></div></div>"
)
PLACEHOLDER = (
    "<div class='qa-placeholder'><b>Ask a question about your documents</b><br>"
    "Every answer cites its passages as [1], [2]… — or says when the documents do not know.</div>"
)


class ChatApp:
    """The index behind the page (the library lets questions, uploads and removals overlap)."""

    def __init__(
        self, index_dir: str, max_upload_mb: int, llm: LLMConfig | None = None,
        backend: BackendConfig | None = None,
    ) -> None:
        self.index_dir = Path(index_dir).absolute()
        self.uploads_dir = self.index_dir / UPLOADS
        self.max_bytes = max_upload_mb * 1_000_000
        self.index = Index.create(self.index_dir, Settings(max_file_mb=max_upload_mb), backend)
        self.index.warm_up()  # the first question should not wait for the model to load
        self.index.llm = llm or self.index.llm

    def respond(self, message: str, history: list[dict], k: float, mode: str) -> Iterator[str]:
        """Chat handler: streams the answer, then adds its checks and Sources section."""
        if not message.strip():
            yield render.answer_html("Type a question about your documents.", found=False)
            return
        written = ""
        try:
            for event in self.index.ask_stream(
                message, history=history_pairs(history), k=clamp_k(k), mode=mode
            ):
                if isinstance(event, str):  # an LLM's answer, as it is written
                    written += event
                    yield render.answer_html(written)
                else:
                    answer = event
            cited = answer.citations if answer.found else []
            sources = render.sources_html(cited, self.index.document_text)
        except QAError as error:
            yield render.answer_html(sentence(str(error)), found=False)
            return
        if answer.mode == "extractive":  # ready at once: show it being written all the same
            words = re.findall(r"\S+\s*", answer.text)
            for n in range(1, len(words)):
                yield render.answer_html("".join(words[:n]), answer.found)
                time.sleep(STREAM_DELAY)
        yield render.answer_html(answer.text, answer.found) + render.checks_html(answer) + sources

    def ask(self, question: str, k: int = 5) -> dict:
        """Answer a question from the indexed documents: {question, answer, found, citations}."""
        with user_errors():
            return self.index.ask(question, k=clamp_k(k)).to_dict()

    def search(self, query: str, k: int = 5) -> list[dict]:
        """The k passages most relevant to the query, best first."""
        with user_errors():
            return [hit.to_dict() for hit in self.index.search(query, k=clamp_k(k))]

    def documents(self) -> tuple[str, Any]:
        """The documents table and the choices of the remove menu."""
        docs = self.index.documents()
        choices = sorted((Path(d.path).name, d.path) for d in docs)
        return render.documents_html(docs), gr.Dropdown(choices=choices, value=None)

    def add_files(
        self,
        files: list[str] | None,
        progress: gr.Progress = gr.Progress(track_tqdm=True),  # noqa: B008
    ) -> tuple:
        """Upload handler: check, store under <index>/uploads, index incrementally."""
        notes: list[tuple[bool, str]] = []
        stored: list[Path] = []
        for file in files or []:
            name = uploads.safe_name(Path(file).name)
            reason = uploads.rejection(name, os.path.getsize(file), self.max_bytes)
            if reason:
                notes.append((False, f"{name} was not added: {reason}."))
            else:
                stored.append(uploads.store(Path(file), name, self.uploads_dir))
        if stored:
            progress(0, desc=f"Indexing {len(stored)} file(s)…")
            notes += self.index_files(stored)
        return render.status_html(notes), *self.documents(), None

    def index_files(self, paths: list[Path]) -> list[tuple[bool, str]]:
        """Index stored uploads; one outcome line per file (unreadable ones are deleted)."""
        report = self.index.add([str(p) for p in paths])
        chunks = {d.path: d.chunks for d in self.index.documents()}
        failed = dict(report.failed)
        notes = []
        for path in paths:
            if str(path) in failed:
                path.unlink(missing_ok=True)
                notes.append((False, f"{path.name} could not be read: {failed[str(path)]}."))
            else:
                count = chunks.get(str(path), 0)
                passages = "1 passage" if count == 1 else f"{count} passages"
                notes.append((True, f"{path.name} is indexed ({passages}), ready for questions."))
        return notes

    def remove(self, path: str | None) -> tuple:
        """Remove handler: drops the document from the index (and its uploaded copy)."""
        if not path:
            return render.status_html([(False, "Choose a document to remove.")]), *self.documents()
        removed = self.index.remove(path)
        if not removed:
            return render.status_html([(False, "That document is not indexed.")]), *self.documents()
        if Path(path).parent == self.uploads_dir:
            Path(path).unlink(missing_ok=True)
        return render.status_html([(True, f"{Path(path).name} was removed.")]), *self.documents()


@contextmanager
def user_errors() -> Iterator[None]:
    """Report the library's user-facing errors to API callers as such."""
    try:
        yield
    except QAError as error:
        raise gr.Error(sentence(str(error))) from error


def clamp_k(k: float) -> int:
    return max(1, min(int(k), MAX_K))


def sentence(text: str) -> str:
    """A message as a sentence: capital first letter, final full stop."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def history_pairs(history: list[dict]) -> list[tuple[str, str]]:
    """Chat messages (OpenAI style) as (question, answer) pairs for Index.ask."""
    pairs: list[tuple[str, str]] = []
    question = None
    for message in history:
        text = plain_text(message.get("content"))
        if message.get("role") == "user":
            question = text
        elif question is not None:
            pairs.append((question, text))
            question = None
    return pairs


def plain_text(content: Any) -> str:
    """The visible text of a message: its answer only, without the Sources section."""
    if isinstance(content, list):
        content = " ".join(plain_text(part) for part in content)
    elif isinstance(content, dict):
        content = content.get("text", "")
    text = str(content or "").split('<div class="qa-sources">')[0]
    return html.unescape(re.sub(r"<[^>]*>", "", text.replace("<br>", "\n"))).strip()


def build_app(
    index_dir: str, max_upload_mb: int = 50, llm: LLMConfig | None = None,
    backend: BackendConfig | None = None,
) -> gr.Blocks:
    """The chat page over the index at index_dir; `llm` enables the LLM answer mode."""
    app = ChatApp(index_dir, max_upload_mb, llm, backend)
    title = "qa · chat with your documents"
    with gr.Blocks(title=title, fill_height=True, delete_cache=CACHE_CLEANUP) as demo:
        gr.HTML(HEADER)
        with gr.Row(equal_height=False):
            with gr.Column(scale=2, min_width=300, elem_classes="qa-side"):
                settings = documents_panel(app, demo, max_upload_mb)
            with gr.Column(scale=5):
                chat_panel(app, settings)
        gr.api(app.ask, api_name="ask")
        gr.api(app.search, api_name="search")
    return demo


def documents_panel(app: ChatApp, demo: gr.Blocks, max_upload_mb: int) -> list[gr.Component]:
    """Documents list, upload, removal and settings; returns the settings (k, answer mode)."""
    gr.HTML('<div class="qa-panel-title">Documents</div>')
    table = gr.HTML(elem_id="qa-documents")
    files = gr.File(label="Add documents", file_count="multiple", elem_id="qa-upload", height=110)
    gr.HTML(
        f'<div class="qa-hint">{", ".join(e.lstrip(".") for e in uploads.SUPPORTED)} files, '
        f"up to {max_upload_mb} MB each. They can be asked about as soon as they are indexed.</div>"
    )
    status = gr.HTML(elem_id="qa-status")
    with gr.Row(equal_height=False, elem_classes="qa-remove-row"):
        chosen = gr.Dropdown(
            label="Remove a document", choices=[], scale=4, elem_id="qa-remove-choice"
        )
        remove = gr.Button("Remove", size="md", scale=1, min_width=90, elem_id="qa-remove")
    with gr.Accordion("Settings", open=True):
        k = gr.Slider(1, 10, value=5, step=1, label="Passages to search (k)", elem_id="qa-k")
        modes = [("Extractive — answers quote the documents", "extractive")]
        if app.index.llm:
            modes.append((f"LLM — {app.index.llm.model} writes, citations are checked", "llm"))
        mode = gr.Radio(modes, value="extractive", label="Answer mode", elem_id="qa-mode")
    private: dict[str, Any] = {"api_visibility": "private"}
    demo.load(app.documents, None, [table, chosen], api_name="documents", **private)
    outputs = [status, table, chosen]
    files.upload(
        app.add_files,
        files,
        [*outputs, files],
        api_name="upload",
        show_progress_on=files,
        **private,
    )
    remove.click(app.remove, chosen, outputs, api_name="remove", show_progress_on=table, **private)
    return [k, mode]


def chat_panel(app: ChatApp, settings: list[gr.Component]) -> gr.ChatInterface:
    """The chat: streamed answers with Sources, example questions on first load."""
    chatbot = gr.Chatbot(
        elem_id="qa-chat",
        show_label=False,
        placeholder=PLACEHOLDER,
        latex_delimiters=[],
        buttons=[],
        feedback_options=None,
        allow_tags=False,
        scale=1,
        height="72vh",
    )
    textbox = gr.Textbox(
        placeholder="Ask a question about your documents…",
        show_label=False,
        elem_id="qa-question",
        submit_btn=True,
        stop_btn=True,
        autofocus=True,
    )
    return gr.ChatInterface(
        app.respond,
        chatbot=chatbot,
        textbox=textbox,
        additional_inputs=settings,
        examples=[[question, None, None] for question in EXAMPLES],
        api_name="chat",
        api_visibility="private",
        fill_height=True,
    )


def serve(
    index_dir: str,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: tuple[str, str] | None = None,
    max_upload_mb: int = 50,
    llm: LLMConfig | None = None,
    backend: BackendConfig | None = None,
) -> None:
    """Serve the chat until interrupted; warns when it is open to the network without auth."""
    warning = exposure_warning(host, auth)
    if warning:
        print(warning, file=sys.stderr)
    build_app(index_dir, max_upload_mb, llm, backend).queue().launch(
        server_name=host,
        server_port=port,
        auth=auth,
        max_file_size=f"{max_upload_mb}mb",
        show_error=True,
        css_paths=[CSS_PATH],
        theme=gr.themes.Soft(primary_hue="indigo", neutral_hue="slate"),
        footer_links=["api"],
        run_history=False,
    )


def exposure_warning(host: str, auth: tuple[str, str] | None) -> str | None:
    """The warning to print when the documents would be readable by anyone on the network."""
    if host in LOCAL_HOSTS or auth is not None:
        return None
    return (
        f"WARNING: serving on {host} without --auth (or QA_AUTH): anyone on the network "
        "can read the indexed documents."
    )
