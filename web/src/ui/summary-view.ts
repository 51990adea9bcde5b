/**
 * Summary: format, version, size, meta, what the format holds beyond tensors, verify warnings (a warning that
 * names an offset links to the hex view), tensor totals per dtype. For a file that could not be read: the
 * FormatError (code, offset, field, message) and the bytes around the offset.
 */
import { formatBytes, formatCount } from "../model/format.js";
import { hexLines, hexWindow } from "../model/summary.js";
import { dtypeTotals } from "../model/table.js";
import type { InspectorContext } from "./context.js";
import { clear, h } from "./dom.js";

export class SummaryView {
  private hexAt: number | undefined;

  constructor(
    private readonly app: InspectorContext,
    private readonly root: HTMLElement,
  ) {}

  reset(): void {
    this.hexAt = undefined;
    clear(this.root);
  }

  show(): void {
    clear(this.root);
    const { current, failed } = this.app;
    if (failed) {
      const e = failed.error;
      this.root.append(
        h("h2", {}, failed.name),
        h(
          "div",
          { class: "error-box", id: "open-error", "data-code": e.code, "data-offset": e.offset ?? "" },
          h("b", {}, `${e.name}: this file could not be read`),
          h(
            "dl",
            { class: "kv" },
            h("dt", {}, "code"),
            h("dd", { class: "code" }, e.code),
            e.offset !== undefined ? h("dt", {}, "offset") : null,
            e.offset !== undefined ? h("dd", { class: "offset" }, `${e.offset} (0x${e.offset.toString(16)})`) : null,
            e.field ? h("dt", {}, "field") : null,
            e.field ? h("dd", { class: "field" }, e.field) : null,
            failed.size ? h("dt", {}, "size") : null,
            failed.size ? h("dd", {}, `${formatBytes(failed.size)} (${failed.size} bytes)`) : null,
          ),
          h("div", { class: "message" }, e.message),
          e.code === "SOURCE" && failed.url
            ? h(
                "p",
                {},
                "A file on another web server can be opened only if that server allows this page to read it (CORS) and answers Range requests.",
              )
            : null,
        ),
      );
      if (e.offset !== undefined && failed.size > 0) {
        this.hexAt ??= e.offset;
        void this.renderHex(failed.source, failed.size, this.hexAt, e.offset);
      }
      return;
    }
    if (!current) return;
    const s = current.summary;
    const left = h(
      "div",
      {},
      h("h2", {}, s.name),
      h(
        "dl",
        { class: "kv", id: "summary-facts" },
        h("dt", {}, "format"),
        h("dd", { "data-key": "format" }, s.format),
        h("dt", {}, "version"),
        h("dd", { "data-key": "version" }, s.version),
        h("dt", {}, "size"),
        h("dd", { "data-key": "size" }, s.sizeText),
        h("dt", {}, "tensors"),
        h("dd", { "data-key": "tensors" }, `${s.tensorCount} (${formatBytes(s.tensorBytes)})`),
      ),
    );
    if (s.warnings.length > 0) {
      left.append(h("h3", {}, `verify: ${s.warnings.length} warning${s.warnings.length === 1 ? "" : "s"}`));
      for (const w of s.warnings) {
        left.append(
          h(
            "div",
            { class: "warning" },
            w.text,
            w.offset !== undefined
              ? h(
                  "button",
                  { class: "linkish", type: "button", onclick: () => void this.showHexAt(w.offset!) },
                  ` bytes at ${w.offset}`,
                )
              : null,
          ),
        );
      }
    } else {
      left.append(
        h("h3", {}, "verify"),
        h(
          "div",
          { class: "muted" },
          "no warnings: the reference runtime would load this file as far as its headers tell",
        ),
      );
    }
    if (s.meta.length > 0) {
      left.append(
        h("h3", {}, "meta"),
        h("dl", { class: "kv" }, ...s.meta.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      );
    }
    const right = h("div", {});
    const totals = dtypeTotals(current.rows);
    if (totals.length > 0) {
      right.append(
        h("h3", {}, "tensors by dtype"),
        h(
          "dl",
          { class: "kv" },
          ...totals.flatMap((g) => [
            h("dt", {}, g.dtype),
            h(
              "dd",
              {},
              `${g.count} tensor${g.count === 1 ? "" : "s"}, ${formatCount(g.elements)} elements, ${formatBytes(g.bytes)}`,
            ),
          ]),
        ),
      );
    }
    if (s.extra.length > 0) {
      right.append(h("h3", {}, "also in the file"));
      for (const [k, line, full] of s.extra)
        right.append(
          h("details", { class: "extra" }, h("summary", {}, h("b", {}, `${k}: `), line), h("pre", {}, full)),
        );
    }
    right.append(h("div", { id: "hex-panel" }));
    this.root.append(h("div", { class: "columns" }, left, right));
    if (this.hexAt !== undefined) void this.showHexAt(this.hexAt);
  }

  private async showHexAt(offset: number): Promise<void> {
    this.hexAt = offset;
    const current = this.app.current;
    if (current) await this.renderHex(current.source, current.size, offset, offset);
  }

  /** The hex view: 12 lines of 16 bytes around `offset`, the byte at `highlight` marked. */
  private async renderHex(
    source: { read(o: number, n: number): Promise<Uint8Array> } | undefined,
    size: number,
    offset: number,
    highlight: number | undefined,
  ): Promise<void> {
    let panel = this.root.querySelector("#hex-panel");
    if (!panel) {
      panel = h("div", { id: "hex-panel" });
      this.root.append(panel);
    }
    if (!source) return;
    const { start, length } = hexWindow(offset, size);
    let bytes: Uint8Array;
    try {
      bytes = await source.read(start, length);
    } catch (error) {
      panel.replaceChildren(h("div", { class: "muted" }, `cannot read the bytes: ${(error as Error).message}`));
      return;
    }
    const lines = hexLines(bytes, start, highlight);
    const pre = h("div", { class: "hex", id: "hex-view", "data-start": start });
    for (const line of lines) {
      const row = h("div", {}, h("span", { class: "off" }, `${line.offset.toString(16).padStart(8, "0")}  `));
      line.hex.forEach((byte, i) => {
        const cell = i === line.mark ? h("mark", { title: `offset ${line.offset + i}` }, byte) : byte || "  ";
        row.append(cell, i === 7 ? "  " : " ");
      });
      row.append(` ${line.ascii}`);
      pre.append(row);
    }
    panel.replaceChildren(
      h(
        "h3",
        {},
        `bytes ${start}–${start + bytes.length - 1}${highlight !== undefined ? ` (offset ${highlight} marked)` : ""}`,
      ),
      pre,
    );
  }
}
