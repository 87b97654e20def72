// Marking an answer wrong (js_on_load of the feedback form's gr.HTML; `element` and
// `trigger` are Gradio's): an answer's "Wrong answer" button opens the form under it,
// which sends the answer's turn (its place among the kept answers, from 0), the right
// answer if given, and whether it should have said the documents do not know.
let position = null;
let opener = null;
const form = () => element.querySelector(".qa-feedback");

document.addEventListener("click", (event) => {
  const button = event.target.closest("#qa-chat .qa-flag");
  if (!button) return;
  position = [...document.querySelectorAll("#qa-chat .qa-flag")].indexOf(button);
  opener = button;
  const shown = form();
  shown.reset();
  shown.hidden = false;
  shown.querySelector("textarea").focus();
});

const close = () => {
  form().hidden = true;
  if (opener && opener.isConnected) opener.focus();
};

element.addEventListener("submit", (event) => {
  event.preventDefault();
  const shown = form();
  trigger("click", { position, correct: shown.querySelector("textarea").value,
                     refuse: shown.querySelector("input[type=checkbox]").checked });
  if (opener) {  // as ui/render.py's FLAGGED, which a reload shows
    opener.textContent = "Marked wrong";
    opener.classList.add("qa-flagged");
  }
  close();
});
element.addEventListener("click", (event) => {
  if (event.target.closest(".qa-feedback-cancel")) close();
});
element.addEventListener("keydown", (event) => {
  if (event.key === "Escape") close();
});
