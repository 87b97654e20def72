"""The Language model section of the web chat: which model writes answers, set in the page.

Owned here: the "Answers" choice (quoted from the documents, or written by the model),
and the form that sets a model up while the server runs: a server address (with a
preset for a local Ollama), its API key, Find models, Test, Save, and Stop using a
model. What the page chooses is saved in the index folder (`qa.llm.saved`) and used at
once (`Index.use_llm`).

Finding, testing and saving make the server connect to an address the page chose, so
they answer only the app's own page (the `allowed` check given by the app; with
`--auth`, Gradio lets no request in without the login), and reach only public addresses
and this machine's loopback (where Ollama lives) unless the server was started with
`--allow-private-model-hosts` (`qa.llm.model_http.reachable`, checked before any connection:
a page user cannot probe the network's private ports). The key goes from the page to
the server only: the page is told whether one is saved, never what it is, and a saved
key is only ever sent to the server it was saved for.
"""

import sys
import threading
from collections.abc import Callable
from typing import Any

import gradio as gr

from qa import Index, QAError
from qa.llm.client import LLMConfig
from qa.llm.model_http import reachable
from qa.llm.saved import ChosenLLM, choose_llm, save_llm, with_server
from qa.llm.servers import api_base, find_models, has_key, try_model
from ui import render

OLLAMA = "http://127.0.0.1:11434"
REFUSED = ("Refused: the language model can only be set up from this app's own page "
           "(the request did not come from it).")
QUOTED = ("Quoted from your documents", "extractive")
NO_MODEL_HINT = ('<div class="qa-hint">Answers are quoted from your documents. To have a '
                 "language model write them, set one up under Language model.</div>")
KEY_INFO = "Only if the server asks for one (a local Ollama does not)"
SAVED_KEY_INFO = ("A key is saved for this server: leave this empty to keep it, or type a new "
                  "one. It is never sent to another server.")
PRIVATE: dict[str, Any] = {"api_visibility": "private"}


class ModelPanel:
    """The model the index answers with, and the page's controls for it."""

    def __init__(self, index: Index, start: LLMConfig | None,
                 allowed: Callable[[gr.Request | None], bool],
                 allow_private_hosts: bool = False) -> None:
        self.index = index
        self.start = start  # from QA_LLM_* or --llm-*: its timeouts apply to any model
        self.allowed = allowed
        self.allow_private_hosts = allow_private_hosts
        self.lock = threading.Lock()  # one change at a time: the file and the index agree
        try:
            chosen = choose_llm(index.path, start)
        except QAError as error:
            print(f"qa serve: {error}; using QA_LLM_* and --llm-* until a model is saved "
                  "from the page", file=sys.stderr)
            chosen = ChosenLLM(start, saved=False)
        index.use_llm(chosen.config)
        print(f"qa serve: {chosen.describe()}", file=sys.stderr)

    def build(self) -> gr.Radio:
        """The Answers choice and the Language model fold (call inside the page's layout);
        returns the choice, an input of the chat."""
        # both values from the start, so that /chat takes "llm" from a script too (it is
        # refused with a clear message while no model is set); each page gets its labels on load
        self.mode = gr.Radio([QUOTED, written_by("a language model")], value="extractive",
                             label="Answers", elem_id="qa-mode")
        self.hint = gr.HTML(NO_MODEL_HINT, elem_id="qa-mode-hint")
        with gr.Accordion("Language model", open=False, elem_id="qa-model") as self.fold:
            self.in_use = gr.HTML(elem_id="qa-model-in-use")
            self.address = gr.Textbox(label="Server address", placeholder=OLLAMA,
                                      info="A local Ollama, or any OpenAI-compatible server "
                                           "(e.g. https://api.openai.com/v1)",
                                      elem_id="qa-model-address")
            self.ollama = gr.Button("Use the local Ollama", size="sm", elem_id="qa-model-ollama")
            self.key = gr.Textbox(label="API key", type="password", info=KEY_INFO,
                                  elem_id="qa-model-key")
            self.forget = gr.Checkbox(label="Remove the saved key", visible=False,
                                      elem_id="qa-model-forget")
            self.find = gr.Button("Find models", size="sm", elem_id="qa-model-find")
            self.model = gr.Dropdown([], label="Model", allow_custom_value=True,
                                     elem_id="qa-model-name")
            with gr.Row():
                self.test = gr.Button("Test", size="sm", min_width=80, elem_id="qa-model-test")
                self.save = gr.Button("Save", size="sm", min_width=80, variant="primary",
                                      elem_id="qa-model-save")
            self.stop = gr.Button("Stop using a model", size="sm", elem_id="qa-model-stop")
            self.status = gr.HTML(elem_id="qa-model-status")
        return self.mode

    def wire(self, demo: gr.Blocks) -> None:
        """The section's events: filled on load and when opened (a closed fold's fields are
        made only then), and its buttons."""
        form = [self.address, self.key, self.forget]
        shown = [self.mode, self.hint, self.in_use, self.address, self.key, self.forget,
                 self.model]
        demo.load(self.shown, None, shown, queue=False, **PRIVATE)
        self.fold.expand(self.shown, None, shown, queue=False, **PRIVATE)
        self.ollama.click(None, None, self.address, js=f"() => {OLLAMA!r}", **PRIVATE)
        self.find.click(self.find_models, form, [self.model, self.status], **PRIVATE)
        self.test.click(self.try_model, [*form, self.model], self.status, **PRIVATE)
        self.save.click(self.save_model, [*form, self.model], [self.status, *shown], **PRIVATE)
        self.stop.click(self.stop_model, None, [self.status, *shown], **PRIVATE)

    # -- handlers --------------------------------------------------------------

    def shown(self, request: gr.Request | None = None) -> tuple:
        """On load: the section as the model in use makes it."""
        if not self.allowed(request):
            return (gr.skip(),) * 7
        return self._shown()

    def _shown(self, answers: str | None = None) -> tuple:
        """The Answers choice (set to `answers`, if given), what is in use, and the form
        filled with it (the key only said to be saved, never sent)."""
        config = self.index.llm
        saved_key = config is not None and has_key(config.api_key)
        model = config.model if config else None
        written = [written_by(model)] if model else []
        choice = {"value": answers} if answers else {}
        return (
            gr.update(choices=[QUOTED, *written], visible=config is not None, **choice),
            gr.update(visible=config is None),
            render.model_html(model, config.base_url if config else None, saved_key),
            gr.update(value=config.base_url if config else ""),
            gr.update(value="", placeholder="A key is saved" if saved_key else "",
                      info=SAVED_KEY_INFO if saved_key else KEY_INFO),
            gr.update(value=False, visible=saved_key),
            gr.update(choices=[model] if model else [], value=model),
        )

    def find_models(self, address: str, key: str, forget: bool,
                    request: gr.Request | None = None) -> tuple:
        """Fill the model list with the models the server offers."""
        if not self.allowed(request):
            return gr.skip(), render.status_html([(False, REFUSED)])
        try:
            reachable(address, self.allow_private_hosts)
            found = find_models(address, self._key(address, key, forget))
        except QAError as error:
            return gr.skip(), render.status_html([(False, render.sentence(str(error)))])
        current = self.index.llm.model if self.index.llm else None
        chosen = current if current in found.names else found.names[0]
        count = render.counted(len(found.names), "model")
        note = f"Found {count} at {found.base_url} ({found.kind}): pick one, then Test or Save."
        return (gr.update(choices=list(found.names), value=chosen),
                render.status_html([(True, note)]))

    def try_model(self, address: str, key: str, forget: bool, model: str | None,
                  request: gr.Request | None = None) -> str:
        """Ask the chosen model a one-line question: it works, or why not."""
        if not self.allowed(request):
            return render.status_html([(False, REFUSED)])
        try:
            config = self._config(address, key, forget, model)
            tried = try_model(config)
        except QAError as error:
            return render.status_html([(False, render.sentence(str(error)))])
        reply = " ".join(tried.reply.split())[:80]
        return render.status_html([(True, f"It works: {config.model} answered “{reply}” in "
                                          f"{tried.seconds:.1f} s.")])

    def save_model(self, address: str, key: str, forget: bool, model: str | None,
                   request: gr.Request | None = None) -> tuple:
        """Use the chosen model from now on, and after a restart."""
        if not self.allowed(request):
            return render.status_html([(False, REFUSED)]), *(gr.skip(),) * 7
        try:
            config = self._config(address, key, forget, model)
            self._use(config)
        except (QAError, OSError) as error:
            note = render.sentence(f"not saved: {error}")
            return render.status_html([(False, note)]), *(gr.skip(),) * 7
        note = (f"Saved: answers are now written by {config.model} (choose “{QUOTED[0]}” "
                "above to have them quoted).")
        return render.status_html([(True, note)]), *self._shown(answers="llm")

    def stop_model(self, request: gr.Request | None = None) -> tuple:
        """Answer by quoting the documents only, from now on and after a restart."""
        if not self.allowed(request):
            return render.status_html([(False, REFUSED)]), *(gr.skip(),) * 7
        try:
            self._use(None)
        except OSError as error:
            return render.status_html([(False, render.sentence(f"not saved: {error}"))]), \
                *(gr.skip(),) * 7
        note = "No language model: answers are quoted from your documents."
        return render.status_html([(True, note)]), *self._shown(answers="extractive")

    # -- helpers ---------------------------------------------------------------

    def _use(self, config: LLMConfig | None) -> None:
        with self.lock:
            save_llm(self.index.path, config)
            self.index.use_llm(config)
        print(f"qa serve: {ChosenLLM(config, saved=True).describe()}", file=sys.stderr)

    def _config(self, address: str, key: str, forget: bool, model: str | None) -> LLMConfig:
        """The model the form names, at an address this page may reach."""
        reachable(address, self.allow_private_hosts)
        return with_server(self.start, api_base(address), model or "",
                           self._key(address, key, forget))

    def _key(self, address: str, typed: str, forget: bool) -> str | None:
        """The key to send: the one typed; else, unless the page asks to forget it, the
        key in use, if it is for this same server (a saved key never goes elsewhere)."""
        if typed and typed.strip():
            return typed.strip()
        config = self.index.llm
        if forget or config is None or not has_key(config.api_key):
            return None
        return config.api_key if api_base(address) == config.base_url else None


def written_by(model: str) -> tuple[str, str]:
    """The Answers choice for answers the model writes."""
    return f"Written by {model}, its citations checked", "llm"
