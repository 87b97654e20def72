// The viewer (js_on_load of its gr.HTML; `element` and `trigger` are Gradio's): opened by
// window.qaView({document, page, start, end}) from a source card's "Open the original"
// (ui/page.js) or a documents list row; it turns pages, zooms (the picture's width, which
// its boxes follow; pinch zoom works too) and closes with its button or Escape, giving
// the focus back to what opened it. While it is open, the focus stays inside it.
let opener = null;
let zoom = 1;
const dialog = () => element.querySelector(".qa-view");

window.qaView = (request) => {
  opener = document.activeElement;
  trigger("click", request);
};

const close = () => {
  const shown = dialog();
  if (!shown) return;
  shown.hidden = true;
  if (opener && opener.isConnected) opener.focus();
  opener = null;
};

const setZoom = (value) => {
  zoom = Math.min(4, Math.max(0.5, value));
  element.style.setProperty("--qa-zoom", zoom);
};

element.addEventListener("click", (event) => {
  const shown = dialog();
  const button = event.target.closest("button");
  if (!shown || !button) return;
  if (button.classList.contains("qa-view-close")) close();
  else if (button.classList.contains("qa-view-zoom")) setZoom(zoom * (button.dataset.step > 0 ? 1.25 : 0.8));
  else if (button.classList.contains("qa-view-turn")) {
    const { document: path, start, end } = shown.dataset;
    trigger("click", { document: path, page: Number(button.dataset.page), start, end });
  }
});

const open = () => { const shown = dialog(); return shown && !shown.hidden ? shown : null; };
const stops = (shown) => [...shown.querySelectorAll("button:not([disabled]), a[href]")];

element.addEventListener("keydown", (event) => {
  if (event.key === "Escape") close();
  if (event.key !== "Tab" || !open()) return;
  const all = stops(open()), first = all[0], last = all[all.length - 1];
  const edge = event.shiftKey ? first : last;
  if (document.activeElement === edge || !open().contains(document.activeElement)) {
    event.preventDefault();
    (event.shiftKey ? last : first).focus();
  }
});
// A focus that would leave it (a click outside, a scrolled part left by Tab) comes back.
document.addEventListener("focusin", (event) => {
  const shown = open();
  if (shown && !shown.contains(event.target)) stops(shown)[0].focus();
});

// A new dialog (each has its own data-opened) takes the focus, on its close button.
let shownOpened = null;
new MutationObserver(() => {
  const shown = dialog();
  if (shown && shown.dataset.opened !== shownOpened) {
    shownOpened = shown.dataset.opened;
    setZoom(1);
    shown.querySelector(".qa-view-close").focus({ preventScroll: true });
  }
}).observe(element, { childList: true, subtree: true });
