// The conversations list (js_on_load of its gr.HTML): open, rename (in place: ui/page.js),
// export or delete a conversation (delete only once the user confirms). `element` and
// `trigger` are Gradio's.
element.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const { action, id, title } = button.dataset;
  if (action === "rename") {
    const shown = button.closest(".qa-conv").querySelector(".qa-conv-open");
    window.qaRename(shown, "New title for this conversation", title,
                    (name) => trigger("click", { action, id, title: name }), button);
  } else if (action === "delete") {
    if (window.confirm(`Delete the conversation “${title}”? This cannot be undone.`)) {
      trigger("click", { action, id });
    }
  } else {
    trigger("click", { action, id });
  }
});
