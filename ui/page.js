() => {
  // The page's own behaviour, run once when it loads (see ui/app.py, launch(js=...)).
  const question = () => document.querySelector("#qa-question textarea");

  // The chat does not follow its end (Gradio's autoscroll is off, ui/app.py): while a
  // question waits, the chat shows its end (the question, then the answer as it comes);
  // once the answer has come, or a conversation opens, it shows the last answer from its
  // first line, however long its sources, on a phone too.
  const MARGIN = 8;  // pixels above the answer's first line
  const wrap = () => document.querySelector("#qa-chat .bubble-wrap");
  const answers = () => document.querySelectorAll("#qa-chat .qa-answer");
  const showEnd = () => {
    const chat = wrap();
    if (chat) chat.scrollTop = chat.scrollHeight;
  };
  const showAnswer = () => {
    const all = answers(), chat = wrap(), answer = all[all.length - 1];
    if (!answer || !chat) return;
    chat.scrollTop += answer.getBoundingClientRect().top - chat.getBoundingClientRect().top - MARGIN;
    const top = answer.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight / 2) window.scrollBy(0, top - MARGIN);
  };
  let waiting = false;
  let shown = 0;  // the answers the chat held when it last showed one
  const follow = (box) => {
    if (box.disabled) {
      waiting = true;
      showEnd();
    } else if (waiting || answers().length !== shown) {
      waiting = false;
      shown = answers().length;
      showAnswer();
    }
  };

  // After an answer the question box is enabled again: give it the focus back (on wide
  // screens: a phone would open its keyboard over the answer), unless the user has moved
  // on to something else meanwhile.
  new MutationObserver(() => {
    const box = question();
    if (!box) return;
    follow(box);
    const idle = !document.activeElement || document.activeElement === document.body;
    if (!box.disabled && idle && box.dataset.qaWasDisabled) {
      delete box.dataset.qaWasDisabled;
      if (window.innerWidth >= 768) box.focus({ preventScroll: true });
    } else if (box.disabled) {
      box.dataset.qaWasDisabled = "1";
    }
  }).observe(document.body, { subtree: true, childList: true, attributes: true,
                              attributeFilter: ["disabled"] });

  // Rename in place (the collections and conversations lists): a box where `shown` was,
  // holding `current`; Enter gives done() the new name, Escape or leaving it keeps the old
  // one (and the focus goes back to `button`).
  window.qaRename = (shown, label, current, done, button) => {
    const box = Object.assign(document.createElement("input"),
                              { value: current, className: "qa-rename" });
    box.setAttribute("aria-label", label);
    shown.style.display = "none";
    shown.after(box);
    box.focus();
    box.select();
    let finished = false;
    const finish = (keep) => {
      if (finished) return;
      finished = true;
      const name = box.value.trim();
      box.remove();
      shown.style.display = "";
      if (keep && name && name !== current) done(name);
      else button.focus();
    };
    box.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== "Escape") return;
      event.preventDefault();
      finish(event.key === "Enter");
    });
    box.addEventListener("blur", () => finish(false));
  };

  const copyText = (message) => {
    // The answer, then each source: number, file, and the sentence quoted from it.
    const answer = message.querySelector(".qa-answer").innerText;
    const sources = [...message.querySelectorAll(".qa-source")].map((card) => {
      const file = card.querySelector(".qa-source-file").innerText;
      const quotes = [...card.querySelectorAll(".qa-passage mark")].map((m) => m.innerText);
      return `[${card.querySelector(".qa-source-n").innerText}] ${file}: ${quotes.join(" … ")}`;
    });
    return sources.length ? `${answer}\n\nSources:\n${sources.join("\n")}` : answer;
  };

  const copy = async (button) => {
    const text = copyText(button.closest(".message-content") || button.parentElement.parentElement);
    try {
      await navigator.clipboard.writeText(text);
    } catch {  // no clipboard API outside https and localhost
      const area = Object.assign(document.createElement("textarea"), { value: text });
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = "Copy answer"; }, 1500);
  };

  document.addEventListener("click", (event) => {
    const button = event.target.closest(".qa-copy");
    if (button) {
      copy(button);
      return;
    }
    // "Open the original" opens the viewer (ui/viewer.js) in the page, at the quote.
    const original = event.target.closest("a.qa-open-original");
    if (original && window.qaView) {
      event.preventDefault();
      const query = new URL(original.href).searchParams;
      window.qaView({ document: query.get("path"), page: query.get("page"),
                      start: query.get("start"), end: query.get("end") });
      return;
    }
    // "Go to the answer's first source", the Tab stop after the question box: the last
    // answer's first [n] takes the focus.
    if (event.target.closest("a.qa-to-answer")) {
      event.preventDefault();
      const all = answers(), last = all[all.length - 1];
      const first = last && (last.querySelector(".qa-cite") || last);
      if (first) {
        if (first === last) last.tabIndex = -1;  // an answer without sources
        first.focus();
      }
      return;
    }
    // A refusal's "Ask within …" sets that choice and puts the question back in the box.
    const within = event.target.closest("a.qa-ask-within");
    if (within && window.qaAskWithin) {
      event.preventDefault();
      const query = new URL(within.href).searchParams;
      window.qaAskWithin({ document: query.get("document"), collection: query.get("collection") });
      const box = question();
      box.value = query.get("question") || "";
      box.dispatchEvent(new Event("input", { bubbles: true }));
      box.focus();
      return;
    }
    // A [n] marker leads to its source card in the same message.
    const cite = event.target.closest(".qa-cite");
    if (!cite) return;
    // (Gradio's sanitiser drops data- attributes: the numbers are read from the text.)
    const n = cite.innerText.replace(/\D/g, "");
    const inMessage = (scope) => [...scope.querySelectorAll(".qa-source")]
      .find((source) => source.querySelector(".qa-source-n").innerText === n);
    let scope = cite.parentElement;
    while (scope && !inMessage(scope)) scope = scope.parentElement;
    const card = scope && inMessage(scope);
    if (!card) return;
    card.scrollIntoView({ block: "center", behavior: "smooth" });
    card.classList.remove("qa-flash");
    void card.offsetWidth;  // restart the highlight animation
    card.classList.add("qa-flash");
  });
}
