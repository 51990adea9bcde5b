/**
 * The editor panel ("Edit" in the graph view's Properties and node panels, in the header on the other views; for
 * `.onnx` and `.april` files): metadata_props, model fields, graph
 * input/output names and shapes, node names and scalar attributes, the `.april` header, and float32 → float16 /
 * bfloat16 / int8 of the whole model (`convert --quantize`'s conversion, with its report). Every change goes to the
 * editing worker (a worker of its own, so statistics and layouts are not held up), which applies it with the
 * library and answers with what the model now holds; the panel is drawn from that answer. "Download" writes the
 * edited file there (a Blob of new pieces and slices of the original File; from a URL, over 1 GiB, streamed from the
 * worker chunk by chunk, its payloads read by ranges as they come), "Diff with original" opens it as B of the Diff
 * view. Hooks for people's scripts and tests: `#editor[data-state]` (opening, ready, busy, error) and
 * `[data-edits]` (edits in force).
 */
import { capabilitiesOf } from "../../../bindings/formats/registry.js";
import type { OpenInput } from "../worker/protocol.js";
import { WorkerClient } from "../worker/client.js";
import { download, h } from "../ui/dom.js";
import type { EditOp, NetworkName, PrecisionChoice } from "./operations.js";
import { shapeText } from "./operations.js";
import type { EditAction, EditResult } from "./protocol.js";
import type { SessionSummary, ValueSummary } from "./session.js";

/** Files above this are saved through the File System Access API when the browser has it (a stream to disk). */
export const STREAM_SAVE_BYTES = 1024 ** 3;
const NODES_SHOWN = 40;

/** What the panel needs from the page. */
export interface EditorHost {
  readonly current: { name: string; input: OpenInput; lazy: { format: string } } | undefined;
  setStatus(text: string, isError?: boolean): void;
  /** Opens `input` as B of the Diff view and compares. */
  compareWith(input: OpenInput): Promise<void>;
}

type SaveFilePicker = (options: {
  suggestedName: string;
}) => Promise<{ createWritable(): Promise<WritableStream<Uint8Array>> }>;

declare global {
  interface Window {
    /** The File System Access API's save dialog (Chromium; absent elsewhere, and TypeScript's DOM types lack it). */
    showSaveFilePicker?: SaveFilePicker;
  }
}

const MODEL_FIELDS: [string, string][] = [
  ["producer_name", "producer"],
  ["producer_version", "producer version"],
  ["model_version", "version"],
  ["domain", "domain"],
  ["doc_string", "doc string"],
  ["graph_name", "graph name"],
];
const PRECISIONS: [string, string][] = [
  ["", "float32 (as read)"],
  ["fp16", "float16"],
  ["bf16", "bfloat16"],
  ["i8", "int8"],
];

/** Files of `format` open in the editor: its `edit` capability (ONNX models, `.april` files). */
export function editable(format: string | undefined): boolean {
  return format !== undefined && capabilitiesOf(format)?.edit !== undefined;
}

export class EditorPanel {
  private readonly worker: WorkerClient;
  private readonly root: HTMLElement;
  private readonly button: HTMLButtonElement;
  private summary: SessionSummary | undefined;
  private error: string | undefined;
  private openedFor: OpenInput | undefined;
  private nodeFilter = "";
  /** Metadata rows added with "Add metadata" and not yet applied (both fields needed). */
  private pendingRows = 0;
  private generation = 0;
  /** The graph view is showing: its panels carry the "Edit" button, the header's is hidden (one "Edit" at a time). */
  private inGraphView = false;

  constructor(
    private readonly host: EditorHost,
    scriptUrl: string,
  ) {
    this.worker = new WorkerClient(scriptUrl, (message) => this.fail(`the editing worker stopped: ${message}`));
    this.root = document.getElementById("editor") as HTMLElement;
    this.button = document.getElementById("edit-button") as HTMLButtonElement;
    this.button.addEventListener("click", () => this.toggle());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !this.root.hidden && this.root.contains(event.target as Node)) this.close();
    });
  }

  /** The page opened another file: the editor closes and forgets its session. */
  fileChanged(): void {
    this.generation++;
    this.worker.cancel();
    this.summary = undefined;
    this.error = undefined;
    this.openedFor = undefined;
    this.pendingRows = 0;
    this.nodeFilter = "";
    this.close();
    this.placeHeaderButton();
  }

  /** The page switched views: on the graph view "Edit" sits in the side panel's actions row, elsewhere in the header. */
  viewChanged(view: string): void {
    this.inGraphView = view === "graph";
    this.placeHeaderButton();
  }

  /** An "Edit" button for a panel's `.graph-panel-actions` row (undefined when the open file cannot be edited). */
  panelButton(): HTMLButtonElement | undefined {
    if (!editable(this.host.current?.lazy.format)) return undefined;
    const button = h(
      "button",
      {
        type: "button",
        class: "edit-toggle",
        "aria-controls": "editor",
        "aria-expanded": String(!this.root.hidden),
        title: "Edit the model: metadata, names, shapes, attributes, float16/bfloat16/int8",
      },
      "Edit",
    );
    button.addEventListener("click", () => this.toggle());
    return button;
  }

  private toggle(): void {
    if (this.root.hidden) void this.open();
    else this.close();
  }

  private placeHeaderButton(): void {
    this.button.hidden = !editable(this.host.current?.lazy.format) || this.inGraphView;
  }

  private markExpanded(expanded: boolean): void {
    for (const button of document.querySelectorAll('button[aria-controls="editor"]'))
      button.setAttribute("aria-expanded", String(expanded));
  }

  close(): void {
    this.root.hidden = true;
    this.markExpanded(false);
  }

  async open(): Promise<void> {
    const file = this.host.current;
    if (!file || !editable(file.lazy.format)) return;
    this.root.hidden = false;
    this.markExpanded(true);
    if (this.openedFor === file.input && this.summary) {
      this.draw();
      return;
    }
    const generation = this.generation;
    this.setState("opening");
    this.root.replaceChildren(h("p", { class: "muted" }, `opening ${file.name} for editing…`));
    try {
      // a URL is read by the worker with Range requests (its large payloads only when downloaded), never whole
      const result = await this.send({ action: "open", input: file.input });
      if (generation !== this.generation) return;
      this.openedFor = file.input;
      this.summary = result.summary;
      this.error = undefined;
      this.draw();
    } catch (error) {
      if (generation === this.generation) this.fail(`${file.name} cannot be edited: ${(error as Error).message}`);
    }
  }

  private send(action: EditAction): Promise<EditResult> {
    return this.worker.request({ kind: "edit", ...action });
  }

  private setState(state: "opening" | "ready" | "busy" | "error"): void {
    this.root.dataset.state = state;
    this.root.dataset.edits = String(this.summary ? this.summary.done.length + (this.summary.precision ? 1 : 0) : 0);
  }

  private fail(message: string): void {
    this.error = message;
    if (this.summary) this.draw();
    else this.root.replaceChildren(h("div", { class: "error-box", id: "edit-error", role: "alert" }, message));
    this.setState("error");
  }

  /** Runs one action; a refusal is shown in the panel and changes nothing. */
  private async run(action: EditAction, busyText: string): Promise<EditResult | undefined> {
    const generation = this.generation;
    this.setState("busy");
    this.host.setStatus(busyText);
    try {
      const result = await this.send(action);
      if (generation !== this.generation) return undefined;
      if (result.summary) this.summary = result.summary;
      this.error = undefined;
      this.draw();
      this.host.setStatus(result.line ?? busyText.replace(/…$/, ": done"));
      return result;
    } catch (error) {
      if (generation === this.generation) this.refused(error);
      return undefined;
    }
  }

  /** Shows a failed action in the panel. */
  private refused(error: unknown): void {
    const message = (error as Error).message.replace(/^tensorfile: /, "");
    this.host.setStatus(message, true);
    this.error = message;
    this.draw();
    this.setState("error");
  }

  private edit(edit: EditOp): Promise<EditResult | undefined> {
    const network = this.summary?.network;
    return this.run({ action: "apply", edit: edit.op === "april-field" ? edit : { ...edit, network } }, "editing…");
  }

  private editedName(): string {
    const name = this.host.current?.name ?? "model.onnx";
    const dot = name.lastIndexOf(".");
    return dot > 0 ? `${name.slice(0, dot)}-edited${name.slice(dot)}` : `${name}-edited`;
  }

  private async save(): Promise<void> {
    const picker = window.showSaveFilePicker;
    const summary = this.summary;
    // a file read by ranges (a URL) is streamed from the worker: its payloads are read from the source as they are
    // written, so neither the page nor the browser ever holds the file
    if (summary && !summary.fromBlob && summary.size > STREAM_SAVE_BYTES && picker) {
      if (await this.saveStreamed(picker)) return;
    }
    const result = await this.run({ action: "write" }, "writing the edited file…");
    const blob = result?.blob;
    if (!blob) return;
    const name = this.editedName();
    if (blob.size > STREAM_SAVE_BYTES && picker) {
      try {
        const handle = await picker({ suggestedName: name });
        await blob.stream().pipeTo(await handle.createWritable());
        this.host.setStatus(`saved ${name} (${blob.size} bytes)`);
        return;
      } catch (error) {
        if ((error as Error).name === "AbortError") return;
        // no permission, or not here: the browser's download instead
      }
    }
    download(blob, name);
    this.host.setStatus(`saved ${name} (${blob.size} bytes)`);
  }

  /**
   * Saves the edited file through `picker`, chunk by chunk from the worker, in order. False when the picker is not
   * usable here (the caller downloads a Blob instead).
   */
  private async saveStreamed(picker: SaveFilePicker): Promise<boolean> {
    const name = this.editedName();
    let writable: WritableStream<Uint8Array>;
    try {
      // first, while the click's user activation holds
      writable = await (await picker({ suggestedName: name })).createWritable();
    } catch (error) {
      return (error as Error).name === "AbortError";
    }
    const generation = this.generation;
    const writer = writable.getWriter();
    const started = await this.run({ action: "stream" }, "writing the edited file…");
    const length = started?.length;
    if (length === undefined) {
      await writer.abort().catch(() => undefined);
      return true;
    }
    this.setState("busy");
    try {
      let written = 0;
      for (;;) {
        if (generation !== this.generation) throw new Error("the editor was closed while saving");
        const { chunk } = await this.send({ action: "next" });
        if (!chunk) break;
        await writer.write(chunk);
        written += chunk.length;
        this.host.setStatus(`writing the edited file… ${Math.floor((100 * written) / Math.max(1, length))}%`);
      }
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => undefined);
      if (generation === this.generation) this.refused(error);
      return true;
    }
    this.setState("ready");
    this.host.setStatus(`saved ${name} (${length} bytes)`);
    return true;
  }

  private async diff(): Promise<void> {
    const result = await this.run({ action: "write" }, "writing the edited file…");
    if (!result?.blob) return;
    this.close();
    await this.host.compareWith({ blob: result.blob, name: this.editedName() });
  }

  // ---- drawing ----

  private draw(): void {
    const s = this.summary;
    if (!s) return;
    const focused =
      document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)
        ? document.activeElement.id
        : "";
    const parts: (HTMLElement | false)[] = [
      h(
        "div",
        { class: "editor-head" },
        h("h2", {}, `Edit ${this.host.current?.name ?? ""}`),
        h(
          "button",
          {
            type: "button",
            id: "edit-close",
            "aria-label": "Close editor",
            onclick: () => {
              this.close();
              this.button.focus();
            },
          },
          "×",
        ),
      ),
      !!this.error && h("div", { class: "error-box", id: "edit-error", role: "alert" }, this.error),
      s.header !== undefined && this.headerSection(s.header, s),
      s.model ? this.metadataSection(s) : h("p", { class: "muted" }, "this network is not a readable ONNX model"),
      !!s.model && this.fieldsSection(s),
      !!s.model && this.valuesSection(s),
      !!s.model && this.nodesSection(s),
      this.precisionSection(s),
      this.actions(s),
    ];
    this.root.replaceChildren(...parts.filter((p): p is HTMLElement => p !== false));
    if (focused) document.getElementById(focused)?.focus();
    this.setState("ready");
  }

  /** A text field that applies on change (Enter or leaving it) when its value differs from `value`. */
  private field(
    id: string,
    label: string,
    value: string,
    apply: (next: string) => void,
    attributes: Record<string, string> = {},
  ): HTMLInputElement {
    const input = h("input", { type: "text", id, value, "aria-label": label, spellcheck: "false", ...attributes });
    input.addEventListener("change", () => {
      if (input.value !== value) apply(input.value);
    });
    return input;
  }

  /** The fields of a file that holds networks (an `.april`'s name, description, language) and its network. */
  private headerSection(header: Record<string, string>, s: SessionSummary): HTMLElement {
    const network = h(
      "select",
      { id: "edit-network", "aria-label": "Network" },
      ...s.networks.map((n) => h("option", { value: n, selected: n === s.network }, n)),
    );
    network.addEventListener(
      "change",
      () => void this.run({ action: "network", network: network.value as NetworkName }, `network ${network.value}…`),
    );
    return h(
      "section",
      { class: "editor-section", "aria-labelledby": "edit-h-header" },
      h("h3", { id: "edit-h-header" }, "Header"),
      h(
        "div",
        { class: "editor-grid" },
        ...Object.entries(header).flatMap(([f, value]) => [
          h("label", { for: `edit-april-${f}` }, f),
          this.field(`edit-april-${f}`, f, value, (v) => void this.edit({ op: "april-field", field: f, value: v })),
        ]),
        h("label", { for: "edit-network" }, "network"),
        network,
      ),
    );
  }

  private metadataSection(s: SessionSummary): HTMLElement {
    const rows = s.model!.metadata.map((e, i) =>
      h(
        "div",
        { class: "editor-row" },
        this.field(`edit-meta-key-${i}`, "key", e.key, (next) => void this.renameKey(e.key, next, e.value)),
        this.field(
          `edit-meta-value-${i}`,
          "value",
          e.value,
          (next) => void this.edit({ op: "set-meta", key: e.key, value: next }),
        ),
        h(
          "button",
          {
            type: "button",
            "aria-label": `Delete metadata ${e.key}`,
            onclick: () => void this.edit({ op: "delete-meta", key: e.key }),
          },
          "Delete",
        ),
      ),
    );
    for (let p = 0; p < this.pendingRows; p++) {
      const key = h("input", {
        type: "text",
        id: `edit-meta-new-key-${p}`,
        "aria-label": "key",
        placeholder: "key",
        spellcheck: "false",
      });
      const value = h("input", {
        type: "text",
        id: `edit-meta-new-value-${p}`,
        "aria-label": "value",
        placeholder: "value",
        spellcheck: "false",
      });
      const commit = () => {
        if (key.value === "") return;
        this.pendingRows = Math.max(0, this.pendingRows - 1);
        void this.edit({ op: "set-meta", key: key.value, value: value.value });
      };
      // applied when the value is entered (a key alone waits for its value)
      value.addEventListener("change", commit);
      key.addEventListener("change", () => {
        if (value.value !== "") commit();
      });
      rows.push(
        h(
          "div",
          { class: "editor-row pending" },
          key,
          value,
          h(
            "button",
            {
              type: "button",
              onclick: () => {
                this.pendingRows = Math.max(0, this.pendingRows - 1);
                this.draw();
              },
            },
            "Discard",
          ),
        ),
      );
    }
    const add = h(
      "button",
      {
        type: "button",
        id: "edit-add-metadata",
        onclick: () => {
          this.pendingRows++;
          this.draw();
          document.getElementById(`edit-meta-new-key-${this.pendingRows - 1}`)?.focus();
        },
      },
      "Add metadata",
    );
    return h(
      "section",
      { class: "editor-section", "aria-labelledby": "edit-h-metadata" },
      h("h3", { id: "edit-h-metadata" }, "Metadata"),
      rows.length === 0 ? h("p", { class: "muted" }, "no metadata_props") : h("div", { class: "editor-rows" }, ...rows),
      add,
    );
  }

  private async renameKey(from: string, to: string, value: string): Promise<void> {
    if (to === "") {
      await this.edit({ op: "delete-meta", key: from });
      return;
    }
    if (await this.edit({ op: "set-meta", key: to, value })) await this.edit({ op: "delete-meta", key: from });
  }

  private fieldsSection(s: SessionSummary): HTMLElement {
    const fields = s.model!.fields as Record<string, string>;
    return h(
      "section",
      { class: "editor-section", "aria-labelledby": "edit-h-model" },
      h("h3", { id: "edit-h-model" }, "Model"),
      h("p", { class: "muted" }, `opset ${s.model!.opset}`),
      h(
        "div",
        { class: "editor-grid" },
        ...MODEL_FIELDS.flatMap(([field, label]) => [
          h("label", { for: `edit-field-${field}` }, label),
          this.field(
            `edit-field-${field}`,
            label,
            fields[field] ?? "",
            (v) => void this.edit({ op: "field", field: field as never, value: v }),
          ),
        ]),
      ),
    );
  }

  private valuesSection(s: SessionSummary): HTMLElement {
    const list = (kind: "input" | "output", values: ValueSummary[]) =>
      values.map((v, i) =>
        h(
          "div",
          { class: "editor-row" },
          h("span", { class: "muted" }, `${kind} ${i + 1}`),
          this.field(
            `edit-${kind}-${i}-name`,
            `${kind} ${i + 1} name`,
            v.name,
            (next) => void this.edit({ op: "rename", from: v.name, to: next }),
          ),
          h("span", { class: "mono" }, v.dtype),
          this.field(
            `edit-${kind}-${i}-shape`,
            `${kind} ${i + 1} shape`,
            shapeText(v.shape),
            (next) => void this.edit({ op: "shape", name: v.name, dims: next }),
            { placeholder: "e.g. 1x80xN", title: "dims: sizes, names (a symbolic dim) or ?; x or , between them" },
          ),
        ),
      );
    return h(
      "section",
      { class: "editor-section", "aria-labelledby": "edit-h-io" },
      h("h3", { id: "edit-h-io" }, "Inputs and outputs"),
      h("div", { class: "editor-rows" }, ...list("input", s.model!.inputs), ...list("output", s.model!.outputs)),
    );
  }

  private nodesSection(s: SessionSummary): HTMLElement {
    const nodes = s.model!.nodes;
    const needle = this.nodeFilter.toLowerCase();
    const matching = nodes.filter(
      (n) => needle === "" || n.name.toLowerCase().includes(needle) || n.opType.toLowerCase().includes(needle),
    );
    const filter = h("input", {
      type: "search",
      id: "edit-node-filter",
      value: this.nodeFilter,
      "aria-label": "find node",
      placeholder: "find a node by name or op",
      spellcheck: "false",
    });
    filter.addEventListener("change", () => {
      this.nodeFilter = filter.value;
      this.draw();
    });
    const rows = matching.slice(0, NODES_SHOWN).map((n) =>
      h(
        "div",
        { class: "editor-node" },
        h("span", { class: "mono" }, `#${n.index} ${n.opType}`),
        this.field(
          `edit-node-${n.index}-name`,
          `node ${n.index} name`,
          n.name,
          (next) => void this.edit({ op: "node-name", node: n.index, name: next }),
        ),
        ...n.attributes.map((a) =>
          h(
            "label",
            { class: "editor-attribute" },
            `${a.name} `,
            this.field(
              `edit-node-${n.index}-attr-${a.name}`,
              `${a.name} of node ${n.index}`,
              a.value,
              (next) => void this.edit({ op: "attribute", node: n.index, attribute: a.name, value: next }),
              { title: `${a.type} attribute` },
            ),
          ),
        ),
      ),
    );
    return h(
      "section",
      { class: "editor-section", "aria-labelledby": "edit-h-nodes" },
      h("h3", { id: "edit-h-nodes" }, "Nodes"),
      h(
        "div",
        { class: "editor-row" },
        filter,
        h(
          "span",
          { class: "muted" },
          `${matching.length} of ${nodes.length} nodes of the main graph${matching.length > NODES_SHOWN ? `, first ${NODES_SHOWN} shown` : ""}`,
        ),
      ),
      h("div", { class: "editor-rows" }, ...rows),
    );
  }

  private precisionSection(s: SessionSummary): HTMLElement {
    const current = s.precision?.mode ?? "";
    const radios = PRECISIONS.map(([mode, label]) => {
      const input = h("input", {
        type: "radio",
        name: "edit-precision",
        value: mode,
        checked: mode === current,
        id: `edit-precision-${mode || "fp32"}`,
      });
      return h("label", {}, input, ` ${label}`);
    });
    const keep = h("input", { type: "checkbox", id: "edit-keep-io", checked: s.precision?.keepIO ?? true });
    const convert = h(
      "button",
      {
        type: "button",
        id: "edit-convert",
        onclick: () => {
          const mode =
            (this.root.querySelector("input[name=edit-precision]:checked") as HTMLInputElement | null)?.value ?? "";
          const choice: PrecisionChoice | undefined =
            mode === "" ? undefined : { mode: mode as PrecisionChoice["mode"], keepIO: keep.checked };
          void this.run(
            { action: "convert", choice },
            choice ? `converting to ${PRECISIONS.find(([m]) => m === mode)![1]}…` : "back to float32…",
          );
        },
      },
      "Convert",
    );
    return h(
      "section",
      { class: "editor-section", "aria-labelledby": "edit-h-precision" },
      h("h3", { id: "edit-h-precision" }, "Precision"),
      h("fieldset", { class: "editor-choices" }, h("legend", {}, "float32 weights of the whole model as"), ...radios),
      h("label", {}, keep, " keep graph inputs and outputs float32 (float16)"),
      convert,
      s.report.length > 0 && h("pre", { id: "edit-report", class: "editor-report" }, s.report.join("\n")),
    );
  }

  private actions(s: SessionSummary): HTMLElement {
    return h(
      "section",
      { class: "editor-section editor-actions", "aria-labelledby": "edit-h-done" },
      h("h3", { id: "edit-h-done" }, `Edits (${s.done.length + (s.precision ? 1 : 0)})`),
      s.done.length > 0 && h("ol", { id: "edit-done" }, ...s.done.map((line) => h("li", { class: "mono" }, line))),
      h(
        "div",
        { class: "editor-row" },
        h(
          "button",
          { type: "button", class: "primary", id: "edit-download", onclick: () => void this.save() },
          "Download",
        ),
        h("button", { type: "button", id: "edit-diff", onclick: () => void this.diff() }, "Diff with original"),
        h(
          "button",
          { type: "button", id: "edit-reset", onclick: () => void this.run({ action: "reset" }, "edits discarded…") },
          "Reset",
        ),
      ),
    );
  }
}
