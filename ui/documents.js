// The documents list (js_on_load of its gr.HTML): preview a document, or remove it after
// the user confirms. `element` and `trigger` are given by Gradio.
element.addEventListener("click", (event) => {
  const remove = event.target.closest(".qa-doc-remove");
  const open = event.target.closest(".qa-doc-open");
  if (remove) {
    if (window.confirm(`Remove ${remove.dataset.name} from the index?`)) {
      trigger("click", { action: "remove", document: remove.dataset.path });
    }
  } else if (open) {
    trigger("click", { action: "preview", document: open.dataset.path });
  }
});
