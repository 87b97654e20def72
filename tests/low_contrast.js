() => {
  // Every visible text of the page whose contrast with what is behind it (its background,
  // blended with the translucent ones down to the first opaque one) is below WCAG AA's
  // 4.5:1, as 'ratio element "text" colour on background'. Disabled and hidden texts
  // do not count, as in WCAG.
  const parse = (colour) => {
    const v = colour.match(/[\d.]+/g).map(Number);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3]))
    .concat(1);
  const luminance = (colour) => {
    const [r, g, b] = colour.slice(0, 3).map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const behind = (element) => {
    const layers = [];
    for (let node = element; node; node = node.parentElement) {
      const background = parse(getComputedStyle(node).backgroundColor);
      if (background[3] > 0) layers.push(background);
      if (background[3] >= 1) break;
    }
    return layers.reverse().reduce((below, layer) => over(layer, below), [255, 255, 255, 1]);
  };
  const shown = (element) => {
    if (element.closest("[disabled], [aria-hidden=true]")) return false;
    for (let node = element; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.display === "none" || style.visibility === "hidden" || style.opacity === "0") {
        return false;
      }
    }
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  const low = [];
  const seen = new Set();
  const texts = document.createTreeWalker(document.querySelector(".gradio-container"),
                                          NodeFilter.SHOW_TEXT);
  while (texts.nextNode()) {
    const text = texts.currentNode, element = text.parentElement;
    if (!text.textContent.trim() || seen.has(element) || !shown(element)) continue;
    seen.add(element);
    const background = behind(element);
    const colour = over(parse(getComputedStyle(element).color), background);
    const [light, dark] = [luminance(colour), luminance(background)].sort((a, b) => b - a);
    const ratio = (light + 0.05) / (dark + 0.05);
    if (ratio < 4.5) {
      low.push(`${ratio.toFixed(2)} ${element.tagName.toLowerCase()}.${element.className} ` +
               `"${text.textContent.trim().slice(0, 40)}" ${colour} on ${background}`);
    }
  }
  return low;
}
