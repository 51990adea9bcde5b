/**
 * Export: the whole file as .safetensors, streamed tensor by tensor into a download Blob (Blob parts, never one
 * big array in memory); one tensor as .npy; every embedded file blobs() lists (april networks as .onnx, bw2l
 * data sections, SeetaFace6 container entries).
 */
import { type EmbeddedBlob, isFormatError, readAny } from "../../../bindings/index.js";
import {
  blobSize,
  copyBlobTo,
  exportNpy,
  exportSafetensors,
  replaceExtension,
  safetensorsNameProblem,
  safetensorsSize,
  tensorFileName,
  withSource,
} from "../model/export.js";
import { formatBytes } from "../model/format.js";
import type { InspectorContext } from "./context.js";
import { clear, h } from "./dom.js";

export class ExportView {
  private blobs: EmbeddedBlob[] | undefined;
  private blobSource: { read(o: number, n: number): Promise<Uint8Array> } | undefined;
  private blobError: string | undefined;
  private exporting = false;
  private loading = false;
  /** How many times the view was drawn since the file was opened (data-draws, for the browser test). */
  private draws = 0;

  constructor(
    private readonly app: InspectorContext,
    private readonly root: HTMLElement,
  ) {}

  reset(): void {
    this.draws = 0;
    this.loading = false;
    this.blobs = undefined;
    this.blobSource = undefined;
    this.blobError = undefined;
    clear(this.root);
  }

  show(): void {
    const file = this.app.current;
    clear(this.root);
    if (!file) return;
    // blobs() answers at once for most files: list them before drawing, so the view is drawn once, not a
    // "listing…" draw and a second one a moment later; only the whole-file fallback is asynchronous
    if (!this.blobs && !this.blobError && !this.loading) this.listBlobs();
    this.draws++;
    this.root.dataset.draws = String(this.draws);
    const size = safetensorsSize(file.infos, file.lazy.format);
    const nameProblem = safetensorsNameProblem(file.infos);
    const list = h("ul", { class: "export-list" });
    list.append(
      h(
        "li",
        {},
        h(
          "span",
          { class: "what" },
          h("b", {}, "Whole file as .safetensors"),
          h("br"),
          h(
            "span",
            { class: "muted" },
            nameProblem ??
              (size === undefined
                ? "this file holds no tensors"
                : `${file.infos.length} tensors, dtypes as stored, logical shapes, row-major; ${formatBytes(size)}; streamed tensor by tensor`),
          ),
        ),
        h(
          "button",
          {
            type: "button",
            class: "primary",
            id: "export-safetensors",
            disabled: size === undefined || this.exporting,
            onclick: () => void this.exportSafetensors(),
          },
          "Download .safetensors",
        ),
      ),
    );
    const tensor = this.app.rowByName(this.app.state.tensor);
    list.append(
      h(
        "li",
        {},
        h(
          "span",
          { class: "what" },
          h("b", {}, "One tensor as .npy"),
          h("br"),
          h(
            "span",
            { class: "muted" },
            tensor
              ? `${tensor.name} (${tensor.dtype}, ${formatBytes(tensor.bytes)})`
              : "select a tensor in the table first",
          ),
        ),
        h(
          "button",
          { type: "button", disabled: !tensor, onclick: () => tensor && void this.exportNpy(tensor.name) },
          "Download .npy",
        ),
      ),
    );
    this.root.append(h("h2", {}, "Export"), list, h("h3", {}, "embedded files"));
    const blobs = this.blobs;
    if (this.blobError) this.root.append(h("p", { class: "muted" }, this.blobError));
    else if (!blobs) this.root.append(h("p", { class: "muted" }, "listing…"));
    else if (blobs.length === 0)
      this.root.append(h("p", { class: "muted" }, `a ${file.lazy.format} file of this kind embeds no other files`));
    else {
      const blobList = h("ul", { class: "export-list", id: "blob-list" });
      for (const blob of blobs) {
        blobList.append(
          h(
            "li",
            { "data-name": blob.name },
            h(
              "span",
              { class: "what mono" },
              blob.name,
              h(
                "span",
                { class: "muted" },
                `  ${formatBytes(blobSize(blob))}${blob.name.endsWith(".onnx") ? " · opens in Netron" : ""}`,
              ),
            ),
            h("button", { type: "button", onclick: () => void this.exportBlob(blob) }, "Download"),
          ),
        );
      }
      this.root.append(blobList);
    }
  }

  /** blobs() of the lazily opened file; containers that list theirs only from the whole file are read whole. */
  private listBlobs(): void {
    const file = this.app.current!;
    try {
      this.blobs = file.module.blobs(file.lazy.file);
      this.blobSource = file.source;
    } catch (error) {
      if (!isFormatError(error) || error.code !== "UNSUPPORTED")
        this.blobError = `cannot list them: ${(error as Error).message}`;
      else void this.readWholeForBlobs();
    }
  }

  private async readWholeForBlobs(): Promise<void> {
    const file = this.app.current!;
    this.loading = true;
    try {
      const bytes = await this.app.task(`reading ${file.name}`, () => file.source.read(0, file.size));
      const whole = readAny(bytes);
      this.blobs = file.module.blobs(whole.file);
      this.blobSource = { read: async (o, n) => bytes.subarray(o, o + n) };
    } catch (inner) {
      this.blobError = `cannot list them: ${(inner as Error).message}`;
    } finally {
      this.loading = false;
    }
    if (this.app.current === file && this.app.view === "export") this.show();
  }

  private async exportSafetensors(): Promise<void> {
    const file = this.app.current;
    if (!file || this.exporting) return;
    this.exporting = true;
    this.show();
    try {
      const total = safetensorsSize(file.lazy.tensorInfos(), file.lazy.format) ?? 0;
      await this.app.saveStreamed("writing .safetensors", replaceExtension(file.name, ".safetensors"), total, (sink) =>
        exportSafetensors(withSource(file.lazy, file.source), file.lazy.format, sink),
      );
    } finally {
      this.exporting = false;
      if (this.app.view === "export") this.show();
    }
  }

  private async exportNpy(name: string): Promise<void> {
    const file = this.app.current;
    const info = file?.lazy.tensorInfos().find((i) => i.name === name);
    if (!file || !info) return;
    await this.app.saveStreamed(`writing ${tensorFileName(name)}`, tensorFileName(name), info.byteLength, (sink) =>
      exportNpy(withSource(file.lazy, file.source), info, sink),
    );
  }

  private async exportBlob(blob: EmbeddedBlob): Promise<void> {
    const source = this.blobSource;
    if (!source) return;
    const name = blob.name.replace(/^.*\//, "");
    await this.app.saveStreamed(`saving ${name}`, name, blobSize(blob), (sink) => copyBlobTo(blob, source, sink));
  }
}
