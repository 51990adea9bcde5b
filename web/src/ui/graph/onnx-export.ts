/**
 * "Export ONNX" for an opened TenniS module: tsm.onnxSupport on the module read whole (at once up to 256 MiB, else
 * when the button is pressed) enables the button or names the blocking ops; a press writes tsm.toOnnx's bytes
 * through the page's download.
 */
import { capabilitiesOf } from "../../../../bindings/formats/registry.js";
import { tsm } from "../../../../bindings/index.js";
import { formatBytes } from "../../model/format.js";
import type { InspectorContext } from "../context.js";
import { h } from "../dom.js";

/** What "Export ONNX" can do for the opened TenniS module. */
type OnnxExportState =
  | { state: "unchecked" }
  | { state: "checking" }
  | { state: "convertible"; module: tsm.TsmFile }
  | { state: "blocked"; text: string }
  | { state: "failed"; text: string };

/** Above this size the module is read whole (for the ONNX check) only when the button is pressed. */
const ONNX_CHECK_MAX_BYTES = 256 * 1024 * 1024;

export class OnnxExport {
  /** True when files of `format` convert to ONNX (its `convertsTo` capability): the graph view offers the button. */
  static offeredFor(format: string | undefined): boolean {
    return format !== undefined && (capabilitiesOf(format)?.convertsTo?.includes("onnx") ?? false);
  }

  readonly button: HTMLButtonElement;
  readonly note: HTMLElement;
  private state: OnnxExportState | undefined;

  /** `resized` is called when the note appears or disappears (the canvas box changes height). */
  constructor(
    private readonly app: InspectorContext,
    private readonly resized: () => void,
  ) {
    this.button = h(
      "button",
      {
        type: "button",
        id: "graph-export-onnx",
        disabled: true,
        title: "Convert the TenniS module to ONNX (tsm.toOnnx) and save it",
        onclick: () => void this.export(),
      },
      "Export ONNX",
    );
    this.note = h("div", { class: "graph-onnx-note muted", id: "graph-onnx-note", role: "status" });
  }

  /** Starts the check once per file (small files at once; big ones when pressed). */
  start(): void {
    if (this.state !== undefined) return;
    if ((this.app.current?.size ?? 0) <= ONNX_CHECK_MAX_BYTES) void this.check();
    else this.state = { state: "unchecked" };
    this.draw();
  }

  /** The opened module read whole (toOnnx needs the weights' values, which a lazy open does not hold). */
  private async eagerModule(): Promise<tsm.TsmFile> {
    const file = this.app.current!;
    const bytes = await file.source.read(0, file.size);
    if (bytes.length !== file.size) throw new Error(`read ${bytes.length} of ${file.size} bytes`);
    return tsm.read(bytes);
  }

  /** tsm.onnxSupport on the eagerly read module: enables the button, or disables it with the blocking ops. */
  private async check(): Promise<OnnxExportState> {
    const file = this.app.current;
    this.state = { state: "checking" };
    this.draw();
    let result: OnnxExportState;
    try {
      const module = await this.eagerModule();
      const support = tsm.onnxSupport(module);
      result = support.convertible
        ? { state: "convertible", module }
        : { state: "blocked", text: tsm.describeBlockers(support.blockers) };
    } catch (error) {
      result = { state: "failed", text: (error as Error).message };
    }
    if (file !== this.app.current) return result;
    this.state = result;
    this.draw();
    return result;
  }

  private draw(): void {
    const { button, note, state } = this;
    if (!state) return;
    button.dataset.state = state.state;
    button.disabled = state.state !== "convertible" && state.state !== "unchecked";
    // the note shows only when there is something to say (no line that comes and goes while checking)
    const hidden = state.state !== "blocked" && state.state !== "failed";
    const resized = note.hidden !== hidden;
    note.hidden = hidden;
    if (state.state === "blocked") note.textContent = `Export ONNX is not possible: ${state.text}`;
    else if (state.state === "failed") note.textContent = `Export ONNX: the module could not be read (${state.text})`;
    else note.textContent = "";
    button.title =
      state.state === "blocked"
        ? `Cannot convert to ONNX: ${state.text}`
        : state.state === "checking"
          ? "Checking whether the module converts to ONNX…"
          : state.state === "unchecked"
            ? `Convert to ONNX (reads the whole ${formatBytes(this.app.current?.size ?? 0)} file first)`
            : "Convert the TenniS module to ONNX (tsm.toOnnx) and save it";
    if (resized) this.resized();
  }

  private async export(): Promise<void> {
    let state = this.state;
    if (!state || state.state === "unchecked") state = await this.check();
    if (state.state !== "convertible") return;
    const module = state.module;
    const name = (this.app.current?.name ?? "module").replace(/\.[^.]+$/, "") + ".onnx";
    let bytes: Uint8Array;
    try {
      bytes = tsm.toOnnx(module);
    } catch (error) {
      this.app.setStatus(`Export ONNX failed: ${(error as Error).message}`, true);
      return;
    }
    await this.app.saveStreamed("writing .onnx", name, bytes.length, async (sink) => sink(bytes));
  }
}
