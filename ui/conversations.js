// The conversations list (js_on_load of its gr.HTML): open, rename, export or delete a
// conversation (delete only once the user confirms). `element` and `trigger` are Gradio's.
element.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const { action, id, title } = button.dataset;
  if (action === "rename") {
    const name = window.prompt("New title for this conversation:", title);
    if (name && name.trim()) trigger("click", { action, id, title: name });
  } else if (action === "delete") {
    if (window.confirm(`Delete the conversation “${title}”? This cannot be undone.`)) {
      trigger("click", { action, id });
    }
  } else {
    trigger("click", { action, id });
  }
});
