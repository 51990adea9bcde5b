/** Small DOM helpers: element building, downloads, canvases sized for the device pixel ratio, theme colours. */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined | null | ((event: Event) => void)>;

/** h("button", { class: "x", onclick: f }, "text", child…) */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") element.addEventListener(key.replace(/^on/, ""), value as EventListener);
    else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Element, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === "number" ? String(child) : child);
  }
}

export function clear(element: Element): void {
  element.replaceChildren();
}

/** Saves parts as a file download (the Blob keeps the parts; nothing is joined in JS memory). */
export function download(parts: BlobPart[] | Blob, name: string, type = "application/octet-stream"): void {
  const blob = parts instanceof Blob ? parts : new Blob(parts, { type });
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A CSS custom property of the current theme ("--fg" → "#1d2126"). */
export function themeColour(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** Sizes a canvas to cssWidth × cssHeight CSS pixels at the device pixel ratio; returns its 2-D context scaled to CSS pixels. */
export function prepareCanvas(
  canvas: HTMLCanvasElement,
  cssWidth: number,
  cssHeight: number,
): CanvasRenderingContext2D {
  const ratio = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
  canvas.width = Math.max(1, Math.round(cssWidth * ratio));
  canvas.height = Math.max(1, Math.round(cssHeight * ratio));
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${cssHeight}px`;
  const context = canvas.getContext("2d")!;
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  return context;
}

/** True when the key event comes from a text field (so page shortcuts leave it alone). */
export function inTextField(event: Event): boolean {
  const target = event.target as HTMLElement | null;
  if (!target) return false;
  return (
    target.isContentEditable ||
    target.tagName === "TEXTAREA" ||
    target.tagName === "SELECT" ||
    (target.tagName === "INPUT" &&
      !["checkbox", "radio", "range", "button", "submit", "file"].includes((target as HTMLInputElement).type))
  );
}

/** A labelled <select> from [value, label] pairs. */
export function select(
  options: [string, string][],
  value: string,
  onChange: (value: string) => void,
  label?: string,
): HTMLSelectElement {
  const element = h("select", { "aria-label": label ?? undefined });
  for (const [v, text] of options) element.append(h("option", { value: v, selected: v === value }, text));
  element.addEventListener("change", () => onChange(element.value));
  return element;
}

/** A checkbox with a label. */
export function checkbox(
  text: string,
  checked: boolean,
  onChange: (checked: boolean) => void,
  id?: string,
): HTMLLabelElement {
  const input = h("input", { type: "checkbox", checked, id: id ?? undefined });
  input.addEventListener("change", () => onChange(input.checked));
  return h("label", {}, input, text);
}
