// Behaviour of the page as a whole (js_on_load of the header: `element` is it,
// `props.accept` the file types that can be indexed, `props.placeholder` the question
// box's).

// The question box takes the focus on wide screens only: on a phone, focusing it would
// scroll the page past its header and open the keyboard before anything can be read.
const waiting = setInterval(() => {
  const box = document.querySelector("#qa-question textarea");
  if (!box) return;
  clearInterval(waiting);
  if (window.innerWidth >= 768) box.focus({ preventScroll: true });
  else window.scrollTo(0, 0);
}, 100);

// "Skip to the question", the first Tab stop, gives the question box the focus.
element.querySelector(".qa-skip").addEventListener("click", (event) => {
  event.preventDefault();
  document.querySelector("#qa-question textarea").focus();
});

// A blank question is not sent: it would only make an empty turn.
const blankQuestion = (event) => {
  const box = document.querySelector("#qa-question textarea");
  const sending = event.type === "click"
    ? event.target.closest("#qa-question .submit-button")
    : event.key === "Enter" && !event.shiftKey && event.target === box;
  if (sending && box && !box.value.trim()) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
};
document.addEventListener("keydown", blankQuestion, true);  // before the box's own handlers
document.addEventListener("click", blankQuestion, true);

// "Use via API" opens a dialog: the focus moves to its close button (named, and Escape
// presses it), and back to "Use via API" when the dialog closes.
let opener = null;
// The file picker offers only the file types that can be indexed (files dropped or sent
// otherwise are still checked by the server, which says why it refuses one).
const offerSupported = () => {
  const input = document.querySelector("#qa-upload input[type=file]");
  if (input && input.accept !== props.accept) input.accept = props.accept;
};

// The question box keeps its placeholder (Gradio's chat empties it for good once a
// question is sent), and the buttons beside it, icons, have names.
const BUTTONS = [["submit-button", "Send the question"], ["stop-button", "Stop the answer"]];
const named = () => {
  const box = document.querySelector("#qa-question textarea");
  if (box && !box.placeholder) box.placeholder = props.placeholder;
  for (const [kind, name] of BUTTONS) {
    const button = document.querySelector(`#qa-question .${kind}`);
    if (button && button.getAttribute("aria-label") !== name) button.setAttribute("aria-label", name);
  }
};

new MutationObserver(() => {
  offerSupported();
  named();
  const close = document.querySelector(".api-docs h2 + button");  // drawn after the dialog
  if (close && !opener) {
    opener = document.querySelector("footer .show-api");
    close.setAttribute("aria-label", "Close the API documentation");
    close.focus();
  } else if (!document.querySelector(".api-docs") && opener) {
    opener.focus();
    opener = null;
  }
}).observe(document.body, { childList: true, subtree: true, attributes: true,
                            attributeFilter: ["placeholder"] });
document.addEventListener("keydown", (event) => {
  const close = event.key === "Escape" && document.querySelector(".api-docs h2 + button");
  if (close) close.click();
});
