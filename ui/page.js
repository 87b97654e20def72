() => {
  // The page's own behaviour, run once when it loads (see ui/app.py, launch(js=...)).
  const question = () => document.querySelector("#qa-question textarea");

  // After an answer the question box is enabled again: give it the focus back, unless
  // the user has moved on to something else meanwhile.
  new MutationObserver(() => {
    const box = question();
    const idle = !document.activeElement || document.activeElement === document.body;
    if (box && !box.disabled && idle && box.dataset.qaWasDisabled) {
      delete box.dataset.qaWasDisabled;
      box.focus();
    } else if (box && box.disabled) {
      box.dataset.qaWasDisabled = "1";
    }
  }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["disabled"] });

  document.addEventListener("click", (event) => {
    // A [n] marker leads to its source card in the same message.
    const cite = event.target.closest(".qa-cite");
    if (!cite) return;
    let scope = cite.parentElement;
    const selector = `.qa-source[data-n="${cite.dataset.n}"]`;
    while (scope && !scope.querySelector(selector)) scope = scope.parentElement;
    const card = scope && scope.querySelector(selector);
    if (!card) return;
    card.scrollIntoView({ block: "center", behavior: "smooth" });
    card.classList.remove("qa-flash");
    void card.offsetWidth;  // restart the highlight animation
    card.classList.add("qa-flash");
  });
}
