// The collections list (js_on_load of its gr.HTML): rename a collection (in place:
// ui/page.js), or delete it once the user confirms (its documents stay indexed). `element`
// and `trigger` are Gradio's.
element.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const { action, name } = button.dataset;
  if (action === "rename") {
    const shown = button.closest(".qa-coll").querySelector(".qa-coll-name");
    window.qaRename(shown, `New name for the collection “${name}”`, name,
                    (to) => trigger("click", { action, name, to }), button);
  } else if (action === "delete") {
    const question = `Delete the collection “${name}”? Its documents stay in the index.`;
    if (window.confirm(question)) trigger("click", { action, name });
  }
});
