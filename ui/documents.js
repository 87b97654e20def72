// The documents list (js_on_load of its gr.HTML): preview a document (under its row),
// close the preview, open its original in the viewer (ui/viewer.js), or remove a document
// after the user confirms. `element` and `trigger` are given by Gradio.
element.addEventListener("click", (event) => {
  const remove = event.target.closest(".qa-doc-remove");
  const open = event.target.closest(".qa-doc-open");
  const close = event.target.closest(".qa-preview-close");
  const view = event.target.closest(".qa-doc-view");
  if (remove) {
    if (window.confirm(`Remove ${remove.dataset.name} from the index?`)) {
      trigger("click", { action: "remove", document: remove.dataset.path });
    }
  } else if (view && window.qaView) {
    window.qaView({ document: view.dataset.path });
  } else if (open) {
    trigger("click", { action: "preview", document: open.dataset.path });
  } else if (close) {
    const preview = close.closest(".qa-doc-preview");
    const row = preview.previousElementSibling;
    preview.remove();
    if (row) row.querySelector(".qa-doc-open").focus();
  }
});
