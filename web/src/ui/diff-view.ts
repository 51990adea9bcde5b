/**
 * Diff: the open file (A) against a second one (B, any format: a file and its converted copy): tensors only in
 * one, dtype and shape changes, max absolute and relative difference, differing elements within atol/rtol,
 * cosine similarity; click a row for the two histograms side by side over one range.
 */
import type { DiffResult, TensorStats } from "../compute.js";
import { formatModule, fromBlob, fromUrl, readFromAny } from "../../../bindings/index.js";
import {
  type DifferenceMatrix,
  type MetadataDifference,
  diffRows,
  diffVerdict,
  metadataDifferences,
} from "../model/diff.js";
import { formatCount, formatValue, middleCut } from "../model/format.js";
import { renderRGBA } from "../model/heatmap.js";
import { CancelledError } from "../model/tensor-data.js";
import type { OpenInput, PairResult } from "../worker/protocol.js";
import type { InspectorContext } from "./context.js";
import { clear, h } from "./dom.js";
import { drawHistogram } from "./plots.js";

/** Tensor names in the diff table: cut in the middle beyond this (their tails differ; the title has the whole). */
const DIFF_NAME_CHARS = 32;

export class DiffView {
  private compare: { name: string; format: string; tensors: number } | undefined;
  private result: DiffResult | undefined;
  private error: string | undefined;
  private selected: string | undefined;
  private pair: PairResult | undefined;
  private difference: DifferenceMatrix | undefined;
  private differenceError: string | undefined;
  /** NaN and infinity counts in A and B of the tensors whose max |a−b| came out infinite. */
  private nonFinite = new Map<string, { a?: TensorStats; b?: TensorStats }>();
  private metadata: { differences: MetadataDifference[]; compared: number } | undefined;
  private atol = 0;
  private rtol = 0;
  private generation = 0;

  constructor(
    private readonly app: InspectorContext,
    private readonly root: HTMLElement,
  ) {}

  reset(): void {
    this.metadata = undefined;
    this.compare = undefined;
    this.result = undefined;
    this.error = undefined;
    this.selected = undefined;
    this.pair = undefined;
    this.generation++;
    clear(this.root);
  }

  show(): void {
    clear(this.root);
    const file = this.app.current;
    if (!file) return;
    const picker = h("input", { type: "file", id: "compare-file", hidden: true });
    picker.addEventListener("change", () => {
      const chosen = picker.files?.[0];
      picker.value = "";
      if (chosen) void this.openCompare({ blob: chosen, name: chosen.name });
    });
    const url = h("input", {
      type: "url",
      placeholder: "or a URL of file B",
      style: "width:300px",
      "aria-label": "URL of file B",
    });
    const atol = h("input", {
      type: "number",
      value: this.atol,
      step: "any",
      min: 0,
      style: "width:90px",
      "aria-label": "atol",
    });
    const rtol = h("input", {
      type: "number",
      value: this.rtol,
      step: "any",
      min: 0,
      style: "width:90px",
      "aria-label": "rtol",
    });
    const run = h("button", { type: "button", class: "primary", id: "run-diff", disabled: !this.compare }, "Compare");
    run.addEventListener("click", () => {
      this.atol = Math.max(0, Number(atol.value) || 0);
      this.rtol = Math.max(0, Number(rtol.value) || 0);
      void this.runDiff();
    });
    this.root.append(
      h(
        "div",
        { class: "table-tools" },
        h("b", {}, "A:"),
        h("span", { class: "mono" }, `${file.name} (${file.lazy.format}, ${file.infos.length} tensors)`),
        h("b", {}, "B:"),
        this.compare
          ? h(
              "span",
              { class: "mono", id: "compare-name" },
              `${this.compare.name} (${this.compare.format}, ${this.compare.tensors} tensors)`,
            )
          : h("span", { class: "muted" }, "none yet"),
        h("label", { class: "button", for: "compare-file" }, "Choose B…"),
        picker,
        h(
          "form",
          {
            class: "url-form",
            onsubmit: (event: Event) => {
              event.preventDefault();
              if (url.value.trim())
                void this.openCompare(
                  {
                    url: new URL(url.value.trim(), location.href).href,
                    name: url.value.trim().split("/").pop() || url.value,
                  },
                  url.value.trim(),
                );
            },
          },
          url,
          h("button", { type: "submit" }, "Open B"),
        ),
      ),
      h(
        "div",
        { class: "table-tools" },
        h("label", {}, "atol ", atol),
        h("label", {}, "rtol ", rtol),
        run,
        h(
          "span",
          { class: "muted" },
          "an element differs when |a − b| > atol + rtol·|b|; NaN in the same place in both counts as equal",
        ),
      ),
    );
    if (this.error) this.root.append(h("div", { class: "error-box", id: "diff-error" }, this.error));
    if (this.result) this.drawResult();
    else if (!this.compare)
      this.root.append(
        h(
          "p",
          { class: "muted" },
          "Choose a second file (or open two files at once) to compare their tensors by name.",
        ),
      );
  }

  /** Opens file B; `asGiven` is its URL as the user wrote it (kept in the hash as #b=). */
  async openCompare(input: OpenInput, asGiven?: string): Promise<void> {
    this.result = undefined;
    this.pair = undefined;
    this.selected = undefined;
    this.error = undefined;
    try {
      const opened = await this.app.task(`opening ${input.name}`, () => this.app.worker.open("b", input));
      this.compare = { name: input.name, format: opened.format, tensors: opened.tensors };
      // B's header in the page too (a few KB), for the metadata differences
      this.metadata = undefined;
      try {
        const lazyB = await readFromAny("blob" in input ? fromBlob(input.blob, input.name) : fromUrl(input.url));
        const current = this.app.current;
        if (current)
          this.metadata = metadataDifferences(
            current.inspected,
            formatModule(lazyB.format).inspect(lazyB.file as never),
          );
      } catch (error) {
        this.app.setStatus(`metadata of B: ${(error as Error).message}`, true);
      }
      // a URL-opened B goes into the hash (#b=…), so the link reopens the comparison; a local file cannot
      this.app.setState({ compareUrl: "url" in input ? (asGiven ?? input.url) : undefined });
    } catch (error) {
      this.compare = undefined;
      this.error = `B could not be opened: ${(error as Error).message}`;
    }
    if (this.app.view === "diff") this.show();
    if (this.compare) await this.runDiff();
  }

  private async runDiff(): Promise<void> {
    const generation = ++this.generation;
    this.error = undefined;
    try {
      const result = await this.app.task("comparing", (task) =>
        this.app.worker.request(
          { kind: "diff", atol: this.atol, rtol: this.rtol },
          {
            onProgress: (done, total, label) => task.update(done, total, `comparing ${label}`),
          },
        ),
      );
      if (generation !== this.generation) return;
      this.result = result;
      this.nonFinite = new Map();
      this.app.setStatus(diffVerdict(result));
      // an infinite max |a−b| comes from a NaN or an infinity opposite something else: count them, to say which
      const infinite = result.tensors.filter((t) => t.maxAbs === Infinity || t.maxRel === Infinity).map((t) => t.name);
      if (infinite.length > 0) {
        for (const slot of ["a", "b"] as const) {
          await this.app.worker.request(
            { kind: "stats", slot, names: infinite },
            {
              onPartial: (partial) => {
                if (!partial.stats) return;
                const entry = this.nonFinite.get(partial.name) ?? {};
                entry[slot] = partial.stats;
                this.nonFinite.set(partial.name, entry);
              },
            },
          );
        }
        if (generation !== this.generation) return;
      }
    } catch (error) {
      if (generation !== this.generation) return;
      this.error =
        error instanceof CancelledError ? "comparison cancelled" : `comparison failed: ${(error as Error).message}`;
    }
    if (this.app.view === "diff") this.show();
  }

  private drawResult(): void {
    const result = this.result!;
    const rows = diffRows(result);
    const table = h(
      "table",
      { class: "diff-table", id: "diff-table" },
      h(
        "tr",
        {},
        ...["tensor", "status", "dtype / shape", "elements", "differing", "max |a−b|", "max rel", "cosine"].map((t) =>
          h("th", {}, t),
        ),
      ),
    );
    for (const row of rows) {
      const raw = row.raw;
      const tr = h(
        "tr",
        {
          "data-name": row.name,
          "data-status": row.status,
          "aria-selected": String(row.name === this.selected),
          "data-differing": raw?.differing ?? undefined,
          "data-elements": raw?.elements,
          "data-max-abs": raw ? String(raw.maxAbs) : undefined,
          "data-max-rel": raw ? String(raw.maxRel) : undefined,
          "data-cosine": raw ? String(raw.cosine) : undefined,
        },
        h("td", { class: "mono", title: row.name }, middleCut(row.name, DIFF_NAME_CHARS)),
        h(
          "td",
          { class: `status-${row.status}` },
          row.status === "onlyA" ? "only in A" : row.status === "onlyB" ? "only in B" : row.status,
        ),
        h("td", {}, row.change),
        h("td", { class: "num" }, row.elements ? formatCount(row.elements) : ""),
        h(
          "td",
          { class: "num" },
          row.differing === null || row.status === "onlyA" || row.status === "onlyB" ? "" : formatCount(row.differing),
        ),
        this.maxAbsCell(row.name, row.maxAbs),
        h("td", { class: "num" }, row.maxRel),
        h("td", { class: "num" }, row.cosine),
      );
      if (row.status !== "onlyA" && row.status !== "onlyB" && row.status !== "shape") {
        tr.addEventListener("click", () => void this.showPair(row.name));
      }
      table.append(tr);
    }
    const pairBox = h("div", { id: "diff-pair" });
    const nanNotes = [...this.nonFinite]
      .filter(([, c]) => c.a && c.b && c.a.nan !== c.b.nan)
      .map(([name, c]) => `${name}: ${formatCount(c.a!.nan)} NaN in A, ${formatCount(c.b!.nan)} in B`);
    this.root.append(
      h("h3", { id: "diff-verdict", "data-equal": String(result.equal) }, diffVerdict(result)),
      this.metadataBox(),
      nanNotes.length > 0
        ? h(
            "p",
            { class: "warn-box", id: "diff-nan-note" },
            `NaN opposite a number (its difference is NaN, shown as NaN, not as a number): ${nanNotes.join("; ")}`,
          )
        : "",
      h(
        "div",
        { class: "diff-layout" },
        h("div", { class: "table-box", tabindex: 0, role: "region", "aria-label": "Differences per tensor" }, table),
        pairBox,
      ),
    );
    this.drawPair();
  }

  private metadataBox(): HTMLElement | string {
    const metadata = this.metadata;
    if (!metadata) return "";
    if (metadata.differences.length === 0)
      return h(
        "p",
        { class: "muted", id: "diff-meta" },
        `metadata: the same (${metadata.compared} fields: format, version, header keys)`,
      );
    return h(
      "details",
      { open: true, id: "diff-meta" },
      h("summary", {}, `metadata: ${metadata.differences.length} of ${metadata.compared} fields differ`),
      h(
        "table",
        { class: "diff-table" },
        h("tr", {}, h("th", {}, "field"), h("th", {}, "A"), h("th", {}, "B")),
        ...metadata.differences.map((d) =>
          h(
            "tr",
            { "data-key": d.key },
            h("td", { class: "mono" }, d.key),
            h("td", { class: "mono", title: d.a ?? "" }, d.a ?? "—"),
            h("td", { class: "mono", title: d.b ?? "" }, d.b ?? "—"),
          ),
        ),
      ),
    );
  }

  /** max |a−b|; NaN (and why) where a NaN in one file only made it infinite. */
  private maxAbsCell(name: string, text: string): HTMLElement {
    const counts = this.nonFinite.get(name);
    if (counts?.a && counts.b && counts.a.nan !== counts.b.nan) {
      const infinities = counts.a.posInf + counts.a.negInf + counts.b.posInf + counts.b.negInf;
      return h(
        "td",
        {
          class: "num bad",
          "data-nan-a": counts.a.nan,
          "data-nan-b": counts.b.nan,
          title: `A has ${counts.a.nan} NaN, B ${counts.b.nan}${infinities > 0 ? `; and ${infinities} infinities` : ""}`,
        },
        infinities > 0 ? `NaN / ${text}` : "NaN",
      );
    }
    return h("td", { class: "num" }, text);
  }

  private async showPair(name: string): Promise<void> {
    this.selected = name;
    this.pair = undefined;
    this.difference = undefined;
    this.differenceError = undefined;
    for (const tr of this.root.querySelectorAll<HTMLElement>("#diff-table tr[data-name]"))
      tr.setAttribute("aria-selected", String(tr.dataset.name === name));
    this.drawPair();
    const generation = this.generation;
    try {
      const pair = await this.app.task(`histograms of ${name}`, () =>
        this.app.worker.request({ kind: "pair", name, bins: 64 }),
      );
      if (generation !== this.generation || this.selected !== name) return;
      this.pair = pair;
    } catch (error) {
      if (!(error instanceof CancelledError)) this.app.setStatus(`histograms: ${(error as Error).message}`, true);
    }
    this.drawPair();
    try {
      const difference = await this.app.task(`difference of ${name}`, () =>
        this.app.worker.request({ kind: "pairDiff", name, maxRows: 240, maxCols: 480 }),
      );
      if (generation !== this.generation || this.selected !== name) return;
      this.difference = difference;
    } catch (error) {
      if (generation !== this.generation || this.selected !== name) return;
      this.differenceError = error instanceof CancelledError ? "cancelled" : (error as Error).message;
    }
    this.drawPair();
  }

  private drawPair(): void {
    const box = this.root.querySelector<HTMLElement>("#diff-pair");
    if (!box) return;
    clear(box);
    if (!this.selected) {
      box.append(h("p", { class: "muted" }, "Click a tensor for its values in A and B side by side."));
      return;
    }
    box.append(h("h3", {}, this.selected));
    if (!this.pair) {
      box.append(h("p", { class: "muted" }, "reading…"));
      return;
    }
    // two canvases (2 px of border each) and an 8 px gap in the box
    const width = Math.max(200, Math.floor(((box.getBoundingClientRect().width || 480) - 8) / 2) - 2);
    const a = h("canvas", { id: "diff-hist-a" });
    const b = h("canvas", { id: "diff-hist-b" });
    box.append(
      h(
        "div",
        { style: "display:flex;gap:8px" },
        h("div", {}, h("div", { class: "muted" }, "A"), a),
        h("div", {}, h("div", { class: "muted" }, "B"), b),
      ),
    );
    drawHistogram(a, this.pair.a, "linear", width, 170);
    drawHistogram(b, this.pair.b, "linear", width, 170, "#d9822b");
    box.append(
      h(
        "p",
        { class: "muted" },
        `the same ${this.pair.a.counts.length} bins over [${this.pair.a.lo.toPrecision(4)}, ${this.pair.a.hi.toPrecision(4)}]`,
      ),
    );
    box.append(h("h3", {}, "difference a − b"));
    const difference = this.difference;
    if (!difference) {
      box.append(
        h(
          "p",
          { class: "muted" },
          this.differenceError ? `no difference heatmap: ${this.differenceError}` : "reading…",
        ),
      );
      return;
    }
    const canvas = h("canvas", {
      id: "diff-heatmap",
      "aria-label": "Heatmap of a − b",
      "data-max-abs": difference.maxAbs,
      "data-rows": difference.rows,
      "data-cols": difference.cols,
    });
    const bound = difference.maxAbs || 1;
    const image = renderRGBA(
      { rows: difference.rows, cols: difference.cols, data: difference.data },
      { map: "diverging", lo: -bound, hi: bound, orientation: "matrix" },
    );
    const scale = Math.max(
      1,
      Math.min(Math.floor((width * 2) / Math.max(1, image.width)), Math.floor(240 / Math.max(1, image.height)), 24),
    );
    canvas.width = image.width;
    canvas.height = image.height;
    canvas.style.width = `${Math.min(width * 2, image.width * scale)}px`;
    canvas.style.height = `${image.height * scale * (Math.min(width * 2, image.width * scale) / (image.width * scale))}px`;
    canvas.style.imageRendering = "pixelated";
    canvas.getContext("2d")!.putImageData(new ImageData(image.pixels, image.width, image.height), 0, 0);
    box.append(
      canvas,
      h(
        "p",
        { class: "muted" },
        `blue: a < b, red: a > b, grey: equal; colour range ±${formatValue(bound)}${difference.rowStep > 1 || difference.colStep > 1 ? `; each cell the largest of ${difference.rowStep}×${difference.colStep} elements` : ""}; magenta: NaN or ±Inf on one side`,
      ),
    );
  }
}
